#!/usr/bin/env bash
# Numbers have limits: a value out of range is bad input (exit 2, one line naming
# the option), never a wrapped number that runs the wrong workload with exit 0,
# a set-up loop that never ends, or an abort for lack of memory.
. tests/e2e/lib.sh
cd "$T"
"$APPIO" run 4k-randwrite --target f.dat --size 1M --time 1 --engine sync >/dev/null 2>&1

# seconds whose nanoseconds overflow 64 bits (18446744073 s = 2^64 ns)
for opt in time ramp round-time; do
	expect_exit 2 "--$opt 18446744073 is refused" -- \
		timeout 10 "$APPIO" run 4k-randread --target f.dat --$opt 18446744073
	grep -q -- "--$opt: .*out of range" "$T/stderr" && ok "--$opt: the message names it" ||
		not_ok "--$opt: the message names it"
	one_line_error "--$opt: one line"
done
expect_exit 2 "suite --time 18446744073 is refused" -- \
	timeout 10 "$APPIO" suite quick --target f.dat --time 18446744073
expect_exit 2 "suite --app-time 18446744073 is refused" -- \
	timeout 10 "$APPIO" suite quick --target f.dat --app-time 18446744073

# memory-sized options are held to the machine's memory
for args in "oltp --buffer-pool 60T" "oltp --buffer-pool 1T" "tpcc --buffer-pool 1T" \
	    "nosql --cache 16T" "nosql --in-memory-limit 16T"; do
	set -- $args
	expect_exit 2 "$args: exit 2, no spin, no abort" -- timeout 10 "$APPIO" run "$@" --target f.dat --time 1
	grep -q -- "$2: '.*' is more than this machine's memory" "$T/stderr" &&
		ok "$args: the message says it is more than the memory" ||
		not_ok "$args: the message says it is more than the memory"
	one_line_error "$args: one line"
done
half=$(awk '/MemTotal/ { printf "%d", $2 * 512 }' /proc/meminfo)
expect_exit 2 "nosql: --in-memory-limit x --forests beyond the memory" -- \
	timeout 10 "$APPIO" run nosql --target d --forests 4 --in-memory-limit "$half" --time 1
grep -q "in-memory-limit x --forests + --cache: .* more than this machine's memory" "$T/stderr" &&
	ok "... saying what adds up" || not_ok "... saying what adds up"
# a pool within the memory still passes the check (it fails on the small target instead)
expect_exit 2 "a buffer pool below the memory passes the option check" -- \
	timeout 20 "$APPIO" run oltp --buffer-pool 64M --target f.dat --time 1
grep -q "more than this machine's memory" "$T/stderr" && not_ok "64M is not refused as memory" ||
	ok "64M is not refused as memory"

# sizes no larger than the target
expect_exit 2 "--align larger than the target is refused" -- \
	"$APPIO" run 4k-randread --target f.dat --align 2M --time 1
grep -q -- "--align: .*larger than the target" "$T/stderr" && ok "--align: the message says so" ||
	not_ok "--align: the message says so"

# a new file larger than its file system's free space: said before writing
expect_exit 2 "--size beyond the free space is refused before the layout" -- \
	timeout 20 "$APPIO" run 4k-randwrite --target huge.dat --size 60000T --time 1
grep -q "free (give a smaller --size)" "$T/stderr" && ok "... saying how much is free" || not_ok "... saying how much is free"
[ ! -e huge.dat ] && ok "... and leaves no file" || not_ok "... and leaves no file"
expect_exit 2 "--seed beyond 2^53 (not exact in JSON) is refused" -- \
	"$APPIO" run 4k-randread --target f.dat --seed 9007199254740993

# numbers past 64 bits and sizes past 2^64 bytes
expect_exit 2 "--seed past 2^64 is refused" -- "$APPIO" run 4k-randread --target f.dat --seed 99999999999999999999
expect_exit 2 "--size past 2^64 bytes is refused" -- "$APPIO" run 4k-randread --target f.dat --size 99999999T
expect_exit 2 "nosql --data past its range is refused" -- "$APPIO" run nosql --target d --data 4000000T
finish
