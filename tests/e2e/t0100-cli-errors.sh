#!/usr/bin/env bash
# Bad input: one line on stderr naming the option and the accepted form, exit 2.
. tests/e2e/lib.sh
cd "$T"

bad() {  # DESC PATTERN ARGS...: exit 2, one line, the line matches PATTERN
	local desc=$1 pat=$2; shift 2
	expect_exit 2 "$desc: exit 2" -- "$APPIO" "$@"
	one_line_error "$desc: one line"
	if grep -qE -- "$pat" "$T/stderr"; then ok "$desc: names $pat"; else
		not_ok "$desc: names $pat"; sed 's/^/    /' "$T/stderr"; fi
}

bad "unknown profile" "unknown profile or emulator 'nosuch' \\('appio list' shows them all\\)" run nosuch
bad "a profile's first word" "unknown profile or emulator '4k' \\(did you mean 4k-randread, 4k-randwrite\\?" run 4k
bad "unknown command" "unknown command or profile 'frobnicate' \\(see 'appio --help'" frobnicate
bad "zero threads" "--threads: '0' is out of range \\(expected 1 to 1024\\)" run 4k-randwrite --threads 0
bad "bad size" "--size: invalid size '12Q'.*(k|K), M, G" run 4k-randwrite --size 12Q
bad "split not summing to 100" "--bs: weights sum to 95, not 100 \\(expected SIZE/PCT pairs" run custom --bs 512/10:4k/85 --read 0
bad "read-only profile on a missing target" "--target: 'missing.dat' does not exist.*--size" \
	run 4k-randread --target missing.dat --time 1
bad "unknown option" "unknown option '--bogus'.*see 'appio run 4k-randread --help'" run 4k-randread --bogus 1
bad "unknown engine" "--engine: unknown engine 'warp' \\(one of: [a-z_, ]*threads[a-z_, ]*\\)" run 4k-randwrite --engine warp --size 1M
bad "percent above 100" "--read: '101' is out of range \\(expected a percentage from 0 to 100\\)" run custom --read 101
bad "bad distribution" "--dist: .*'zipf:0' \\(expected uniform, zipf:THETA .*pareto:H .*normal:SIGMA" run custom --dist zipf:0
bad "missing value" "--time needs a value \\(see 'appio run 4k-randread --help'\\)" run 4k-randread --time
bad "O_DIRECT transfer below the logical block" "--bs: 100-byte transfers .*logical block size.*\\(use --direct 0 or larger sizes\\)" \
	run custom --bs 100 --read 0 --size 1M --time 1
bad "write sweep above 100" "--write-sweep: '150' is out of range \\(expected 0 to 100\\)" run 8k-70-30 --write-sweep 0,50,150
bad "positional junk" "unexpected argument 'extra' \\(options start with --; see 'appio run 4k-randread --help'\\)" run 4k-randread extra

# nothing was created by the refused runs that name a new file
if [ ! -e missing.dat ]; then ok "a refused read run creates no file"; else not_ok "a refused read run creates no file"; fi
finish
