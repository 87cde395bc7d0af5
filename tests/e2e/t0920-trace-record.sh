#!/usr/bin/env bash
# t0920-trace-record.sh - appio trace record on loop devices: bad options and
# a missing privilege exit 2 with one line; a known workload (dd with
# O_DIRECT, then an appio run) is recorded request for request, checked
# against what was issued and against /proc/diskstats; a partition is
# recorded relative to its start without its disk's other requests; Ctrl-C
# leaves a readable trace; a buffer that overflows is an error naming
# --buffer-kb; 'appio db run --capture' names the trace in its result and
# the run in the trace, 'db prepare --capture' the load; --via blktrace records the same or, where the kernel
# closes debugfs to root (lockdown), says so in one line and leaves nothing
# set up. Needs root, losetup and a kernel with tracefs; skips
# otherwise. Loop devices are detached on exit. The bundled traces are listed,
# read and replayed by name.
. "$(dirname "$0")/lib.sh"
cd "$T"

# ---- option errors: no root needed ----
bad() {  # DESC ARGS...: exit 2 with one line
	local desc=$1; shift
	expect_exit 2 "$desc" -- "$APPIO" trace record "$@"
	one_line_error "  one line"
}
bad "no device" -o x.trace
bad "--device and --path together" --device loop0 --path / -o x.trace
bad "no -o" --device loop0
bad "--time not a number" --device loop0 --time soon -o x.trace
bad "--buffer-kb too small" --device loop0 --buffer-kb 8 -o x.trace
bad "an unknown option" --device loop0 --frobnicate -o x.trace
bad "'--' with no command" --device loop0 -o x.trace --
grep -q -e "'--' must be followed by a command" "$T/stderr" && ok "  saying what '--' needs" ||
	not_ok "  saying what '--' needs: $(cat "$T/stderr")"
[ ! -e x.trace ] && ok "bad options leave no file" || not_ok "bad options left x.trace"

# ---- bundled traces: listed, found by name, replayed; none when the folder is elsewhere ----
"$APPIO" list >list.txt 2>&1
grep -qE '^  mariadb-oltp +oltp_read_write on mysql 10\.11' list.txt && grep -qE '^  sqlite-oltp ' list.txt &&
	grep -qE '^  fileserver-mix +tar writes' list.txt && ok "appio list shows the bundled traces, what ran" ||
	not_ok "appio list: $(grep -A5 '^bundled' list.txt)"
expect_exit 0 "trace info finds a bundled trace by name" -- "$APPIO" trace info sqlite-oltp --json
cp "$T/stdout" sq.json
jq_check "  compressed, read through: I/Os and its run in the header" sq.json \
	'.ios > 1000 and .meta["run.driver"] == "sqlite" and .meta["capture.lost"] == "0"'
expect_exit 0 "run replay --trace NAME replays it" -- "$APPIO" run replay --trace sqlite-oltp --engine null \
	--timing afap --qd 16 --target t.dat --size 64M --map wrap --json rp.json
jq_check "  every I/O of the trace" rp.json \
	"(.points[0].classes.read.ops + .points[0].classes.write.ops) == $(jq '.ops.read.ios + .ops.write.ios' sq.json)"
APPIO_TRACES=$T/none expect_exit 2 "  not found where APPIO_TRACES points" -- "$APPIO" run replay --trace sqlite-oltp \
	--engine null --target t.dat --size 64M
one_line_error "  with one line"

why=
if [ "$(id -u)" -ne 0 ]; then why="needs root"
elif ! command -v losetup >/dev/null || ! command -v setpriv >/dev/null; then why="no losetup or setpriv"
elif ! grep -qw tracefs /proc/filesystems; then why="no tracefs in this kernel"
elif ! "$APPIO" trace record --help >/dev/null 2>&1; then why="appio trace record missing"
fi

if [ -z "$why" ]; then
	expect_exit 2 "a device that does not exist" -- "$APPIO" trace record --device no-such-disk -o x.trace
	one_line_error "  one line"
	expect_exit 2 "a path on tmpfs has no block device" -- "$APPIO" trace record --path /dev/shm -o x.trace
	grep -q 'without a block device' "$T/stderr" && ok "  and says so" || not_ok "  and says so: $(cat "$T/stderr")"
fi

loop() {  # loop VAR FILE [losetup options]: attach into $VAR, detach on exit
	local var=$1 dev; shift
	dev=$(losetup -f --show "$@") || return 1
	at_exit "losetup -d '$dev'"
	printf -v "$var" '%s' "$dev"
}

if [ -z "$why" ]; then
	truncate -s 64M disk.img
	loop DEV "$T/disk.img" || why="losetup failed"
fi
if [ -n "$why" ]; then
	skip "recording on loop devices" "$why"
	finish
fi
NAME=${DEV#/dev/}

expect_exit 2 "without CAP_SYS_ADMIN it exits 2" -- \
	setpriv --inh-caps=-all --ambient-caps=-all --bounding-set=-all -- "$APPIO" trace record --device "$NAME" -o np.trace
one_line_error "  with one line"
grep -q 'CAP_SYS_ADMIN' "$T/stderr" && ok "  naming CAP_SYS_ADMIN" || not_ok "  naming CAP_SYS_ADMIN: $(cat "$T/stderr")"

# diskstats NAME: reads, sectors read, writes, sectors written
diskstats() { awk -v d="$1" '$3 == d { print $4, $6, $8, $10 }' /proc/diskstats; }

# ---- a known workload through '-- COMMAND': 100 writes of 64 KiB, 200 reads of 4 KiB ----
before=$(diskstats "$NAME")
expect_exit 0 "record dd's direct I/O while it runs" -- "$APPIO" trace record --device "$NAME" -o dd.trace -- \
	sh -c "dd if=/dev/zero of=$DEV bs=64k count=100 oflag=direct status=none &&
	       dd if=$DEV of=/dev/null bs=4k count=200 skip=1000 iflag=direct status=none"
after=$(diskstats "$NAME")
grep -q 'no events lost' "$T/stderr" && grep -q 'capture: .* events' "$T/stderr" &&
	ok "  the capture reports its events and no loss" || not_ok "  the capture's report: $(cat "$T/stderr")"
count() { awk -v op="$2" 'NF == 9 && $1 ~ /^[0-9]+$/ && $3 == op { n++ } END { print n + 0 }' "$1"; }
w=$(count dd.trace W) r=$(count dd.trace R)
[ "$w" -eq 100 ] && [ "$r" -eq 200 ] && ok "  100 writes and 200 reads recorded" || not_ok "  recorded $w writes, $r reads"
awk 'NF == 9 && $3 == "W" && $7 != 65536 { bad++ } NF == 9 && $3 == "R" && $7 != 4096 { bad++ }
     END { exit bad > 0 }' dd.trace && ok "  each of its size" || not_ok "  sizes: $(awk 'NF == 9' dd.trace | head -3)"
awk 'NF == 9 && $3 == "W" { if ($6 != n * 65536) bad++; n++ } NF == 9 && $3 == "R" { if ($6 != (1000 + m) * 4096) bad++; m++ }
     END { exit bad > 0 }' dd.trace && ok "  at dd's offsets, in order" || not_ok "  offsets: $(awk 'NF == 9' dd.trace | head -3)"
awk 'NF == 9 && $1 ~ /^[0-9]+$/ && ($2 == "-" || $2 < $1 || $9 == "-") { bad++ } END { exit bad > 0 }' dd.trace &&
	ok "  each with its completion time and pid" || not_ok "  completion or pid missing"
read -r r0 rs0 w0 ws0 <<<"$before"
read -r r1 rs1 w1 ws1 <<<"$after"
[ $((r1 - r0)) -eq "$r" ] && [ $((w1 - w0)) -eq "$w" ] && [ $((ws1 - ws0)) -eq $((100 * 128)) ] &&
	[ $((rs1 - rs0)) -eq $((200 * 8)) ] && ok "  /proc/diskstats counts the same requests and sectors" ||
	not_ok "  diskstats: reads $((r1 - r0)) ($((rs1 - rs0)) sectors), writes $((w1 - w0)) ($((ws1 - ws0)) sectors)"
expect_exit 0 "trace info reads the capture" -- "$APPIO" trace info dd.trace --json
jq_check "  300 I/Os, service time known, the command and the CPU busy share in its header" "$T/stdout" \
	'.ios == 300 and .service_ns.mean > 0 and (.meta["capture.command"] | startswith("sh -c")) and .meta["capture.lost"] == "0" and
	 (.meta["capture.cpu_busy"] | test("^[0-9]+[.][0-9] % of [0-9]+ CPUs busy"))'

# ---- --via blktrace: the same records where the kernel lets root read debugfs, else one line ----
expect_exit 2 "--via blktrace without CAP_SYS_ADMIN exits 2" -- setpriv --inh-caps=-all --ambient-caps=-all \
	--bounding-set=-all -- "$APPIO" trace record --via blktrace --device "$NAME" -o np.trace
grep -q 'CAP_SYS_ADMIN' "$T/stderr" && [ "$(grep -c . "$T/stderr")" -eq 1 ] && ok "  with one line naming CAP_SYS_ADMIN" ||
	not_ok "  with one line naming CAP_SYS_ADMIN: $(cat "$T/stderr")"
bt_run() {
	"$APPIO" trace record --via blktrace --device "$NAME" -o bt.trace -- sh -c \
		"dd if=/dev/zero of=$DEV bs=64k count=20 oflag=direct status=none &&
		 dd if=$DEV of=/dev/null bs=4k count=30 skip=500 iflag=direct status=none" >"$T/stdout" 2>"$T/stderr"
}
bt_run
rc=$?
if [ $rc -eq 2 ] && grep -q 'refuses debugfs files to root' "$T/stderr"; then
	one_line_error "--via blktrace where debugfs is closed to root (lockdown): exit 2, one line saying so"
	[ ! -e bt.trace ] && ok "  no trace left" || not_ok "  bt.trace left behind"
	bt_run
	[ $? -eq 2 ] && grep -q 'refuses debugfs' "$T/stderr" && ok "  blktrace was torn down: a second try is not busy" ||
		not_ok "  a second try: $(cat "$T/stderr")"
elif [ $rc -eq 0 ]; then
	ok "--via blktrace records dd's direct I/O"
	[ "$(count bt.trace W)" -eq 20 ] && [ "$(count bt.trace R)" -eq 30 ] &&
		awk 'NF == 9 && $3 == "W" { if ($6 != n * 65536 || $7 != 65536) bad++; n++ }
		     NF == 9 && $3 == "R" { if ($6 != (500 + m) * 4096 || $7 != 4096) bad++; m++ }
		     NF == 9 && $1 ~ /^[0-9]+$/ && ($2 == "-" || $2 < $1) { bad++ } END { exit bad > 0 }' bt.trace &&
		ok "  20 writes and 30 reads at dd's offsets and sizes, with completion times" ||
		not_ok "  recorded: $(awk 'NF == 9' bt.trace | head -3)"
	"$APPIO" trace info bt.trace --json >bt.json 2>&1
	jq_check "  the header says how it was captured" bt.json '.meta["capture.via"] == "blktrace" and .meta["capture.lost"] == "0"'
else
	not_ok "--via blktrace: exit $rc"; sed 's/^/    /' "$T/stderr"
fi

# ---- appio's own run, timed: every I/O it did, and no more than diskstats saw ----
# the loop device reads from the page cache at up to 240,000 IOPS here: the buffer
# is sized for more than that, or a reader held up on a busy machine loses events
before=$(diskstats "$NAME")
"$APPIO" trace record --device "$NAME" --rate 400000 -o run.trace -- "$APPIO" run 4k-randread --target "$DEV" --time 2 --ramp 0 \
	--qd 4 --json run.json >run.log 2>&1
rc=$?
after=$(diskstats "$NAME")
[ $rc -eq 0 ] && ok "record an appio run" || { not_ok "record an appio run (exit $rc)"; tail -5 run.log; }
read -r r0 rs0 w0 ws0 <<<"$before"
read -r r1 rs1 w1 ws1 <<<"$after"
r=$(count run.trace R)
rb=$(awk 'NF == 9 && $1 ~ /^[0-9]+$/ && $3 == "R" { n += $7 } END { printf "%d\n", n }' run.trace)
ops=$(jq '.points[0].classes.read.ops' run.json 2>/dev/null || echo 0)
# the block layer merges adjacent 4 KiB reads into one request: count requests and bytes
[ "$r" -eq $((r1 - r0)) ] && [ "$rb" -eq $(((rs1 - rs0) * 512)) ] &&
	ok "  $r read requests of $rb bytes, as diskstats counted them" ||
	not_ok "  recorded $r requests, $rb bytes; diskstats $((r1 - r0)), $(((rs1 - rs0) * 512)) bytes"
[ "$ops" -gt 100 ] && [ $((rb / 4096)) -ge "$ops" ] && ok "  holding the run's $ops reads of 4 KiB" ||
	not_ok "  $((rb / 4096)) blocks recorded against the run's $ops reads"
awk 'NF == 9 && $3 == "R" && ($7 % 4096 || $6 % 4096) { bad++ } END { exit bad > 0 }' run.trace &&
	ok "  sizes and offsets in whole 4 KiB blocks" || not_ok "  sizes or alignment"
awk 'NF == 9 && $3 == "R" && $8 > 4 { bad++ } NF == 9 && $3 == "R" && $8 == 4 { four++ }
     END { exit bad > 0 || four == 0 }' run.trace && ok "  in flight at issue: up to --qd 4, reached" ||
	not_ok "  in-flight counts: $(awk 'NF == 9 { print $8 }' run.trace | sort -n | uniq -c | tail -3)"

# ---- Ctrl-C: the trace is complete up to the stop, and readable ----
"$APPIO" trace record --device "$NAME" -o int.trace 2>int.err &
pid=$!
if wait_for 60 grep -q recording int.err; then
	dd if="$DEV" of=/dev/null bs=4k count=50 iflag=direct status=none
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 130 ] && ok "Ctrl-C stops the capture (exit 130)" || not_ok "Ctrl-C: exit $rc, expected 130"
	expect_exit 0 "  the trace is readable" -- "$APPIO" trace info int.trace --json
	jq_check "  with the 50 reads made before the stop" "$T/stdout" '.ops.read.ios == 50'
else
	not_ok "Ctrl-C: the capture never started"; cat int.err; kill $pid
fi

# ---- lost events: a reader held still while its small buffer overflows ----
"$APPIO" trace record --device "$NAME" --buffer-kb 64 -o lost.trace 2>lost.err &
pid=$!
if wait_for 60 grep -q recording lost.err; then
	kill -STOP $pid
	dd if="$DEV" of=/dev/null bs=512 count=20000 iflag=direct status=none
	kill -CONT $pid
	sleep 0.5
	kill -INT $pid 2>/dev/null
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && grep -q 'lost [0-9]* events.*--buffer-kb' lost.err &&
		ok "an overflowing buffer is an error naming --buffer-kb" ||
		{ not_ok "lost events: exit $rc"; sed 's/^/    /' lost.err; }
	"$APPIO" trace info lost.trace >lost.info 2>&1 && grep -q '^note: *incomplete' lost.info &&
		ok "  the trace says it is incomplete" || not_ok "  the trace's note: $(head -5 lost.info)"
else
	not_ok "lost events: the capture never started"; cat lost.err; kill $pid
fi

# ---- a partition: offsets from its start, the disk's other requests left out ----
# a partition from sector 2048, 32 MiB long, added by hand (BLKPG): no partition
# table parser needed in the kernel
truncate -s 64M part.img
PDEV=
if command -v addpart >/dev/null && loop PDEV "$T/part.img" -P && addpart "$PDEV" 1 2048 65536 &&
	wait_for 5 test -b "${PDEV}p1"; then
	expect_exit 0 "record a partition while its disk is written inside and outside it" -- \
		"$APPIO" trace record --device "${PDEV#/dev/}p1" -o part.trace -- sh -c \
		"dd if=/dev/zero of=${PDEV}p1 bs=4k count=10 seek=5 oflag=direct status=none &&
		 dd if=/dev/zero of=$PDEV bs=4k count=7 seek=15000 oflag=direct status=none"
	grep -q '7 requests of the disk outside the partition' "$T/stderr" && ok "  saying what it left out" ||
		not_ok "  saying what it left out: $(cat "$T/stderr")"
	[ "$(count part.trace W)" -eq 10 ] &&
		awk 'NF == 9 && $3 == "W" { if ($6 != (5 + n) * 4096) bad++; n++ } END { exit bad > 0 }' part.trace &&
		ok "  its 10 writes at offsets from the partition's start" ||
		not_ok "  partition writes: $(awk 'NF == 9' part.trace | head -3)"
else
	skip "record a partition" "no addpart, or no partition device ${PDEV:-}p1"
fi

# ---- appio db run --capture (SQLite on ext4 on the loop device) ----
if command -v mkfs.ext4 >/dev/null && "$APPIO" list 2>/dev/null | grep -q '^  sqlite '; then
	mkfs.ext4 -q -F "$DEV" && mkdir mnt && mount "$DEV" mnt && at_exit "umount '$T/mnt'"
	db=(--driver sqlite --sqlite-db "$T/mnt/sb.db" --table-size 2000)
	expect_exit 0 "db prepare --capture records the load" -- "$APPIO" db prepare oltp_read_write "${db[@]}" \
		--threads 2 --capture prep.trace
	grep -q "captured [0-9]* I/Os of $NAME.* to 'prep.trace'" "$T/stdout" "$T/stderr" && ok "  its line names the trace" ||
		not_ok "  its line: $(cat "$T/stdout" "$T/stderr")"
	"$APPIO" trace info prep.trace --json >prep.info 2>&1
	jq_check "  the trace names the load: phase, workload, driver, loaders, server; it holds writes" prep.info \
		'.meta["run.phase"] == "prepare" and .meta["run.workload"] == "oltp_read_write" and
		 .meta["run.driver"] == "sqlite" and .meta["run.threads"] == "1" and
		 (.meta["server.server_version"] | length) > 0 and .ops.write.ios > 0'
	expect_exit 0 "db run --capture records the database's device" -- "$APPIO" db run oltp_read_write "${db[@]}" \
		--time 2 --threads 2 --capture db.trace --json db.json
	jq_check "  the result names the trace and its device" db.json \
		'.info["capture.trace"] == "db.trace" and (.info["capture.device"] | startswith("'"$NAME"'"))'
	"$APPIO" trace info db.trace --json >db.info 2>&1
	jq_check "  the trace names the run: workload, driver, threads, server version" db.info \
		'.meta["run.workload"] == "oltp_read_write" and .meta["run.driver"] == "sqlite" and
		 .meta["run.threads"] == "2" and .meta["run.phase"] == "run" and
		 (.meta["server.server_version"] | length) > 0 and .ios > 0 and
		 .ops.write.ios > 0'
	expect_exit 2 "db run --capture of a path on tmpfs exits 2" -- "$APPIO" db run oltp_read_write "${db[@]}" \
		--time 1 --capture x.trace --capture-path /dev/shm
	one_line_error "  with one line"
else
	skip "db run --capture" "no mkfs.ext4 or no SQLite driver"
fi
finish
