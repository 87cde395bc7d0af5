#!/usr/bin/env bash
# run.sh - every fuzz target of tests/fuzz, briefly, after its regressions.
#
#   tests/fuzz/run.sh BINDIR [SECONDS [TRACE_SECONDS]]
#                       (make fuzz: FUZZ_TIME and FUZZ_TRACE_TIME)
#
# The targets are tests/fuzz/T.c, built as BINDIR/T, except trace.c, built
# once per trace format F of traces/registry.c as BINDIR/trace-F, which
# fuzzes for TRACE_SECONDS (default 5) each. For target T: each file of
# tests/fuzz/regress/T/ is run once (every finding fixed so far stays
# fixed), then T fuzzes for SECONDS from the seeds in tests/fuzz/corpus/T/.
# New inputs it finds go to BINDIR/corpus/T (kept between runs, never into
# the repository); a crash, sanitizer report, leak or a 10 s input fails,
# and its input is saved as BINDIR/T-crash-* (or T-leak-*, T-timeout-*): fix the
# cause, then copy the input into tests/fuzz/regress/T/.
# FUZZ_JOBS targets (default: one per core) run at once.
# Prints TAP lines and "N passed, N failed" like tests/run.sh; exit status 1
# if anything failed.
set -u
cd "$(dirname "$0")/../.."
bin=${1:?usage: tests/fuzz/run.sh BINDIR [SECONDS [TRACE_SECONDS]]}
secs=${2:-20}
trace_secs=${3:-5}
jobs=${FUZZ_JOBS:-$(nproc)}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# A failed run's sanitizer report, shortened.
show() {  # LOG
	grep -E 'ERROR|runtime error|check failed|SUMMARY|Test unit written|^ +#[0-9]+ 0x|exiting' "$1" | head -n 30 |
		sed 's/^/    /'
}

targets=()
for src in tests/fuzz/*.c; do
	t=$(basename "$src" .c)
	if [ "$t" = trace ]; then
		for f in $(sed -n 's/^\t&trace_fmt_\([a-z0-9_]*\),$/\1/p' traces/registry.c); do
			targets+=("trace-$f")
		done
	else
		targets+=("$t")
	fi
done

# One target: its regressions, then its fuzzing. Each target is
# single-threaded, so several run at once; their TAP lines are printed in the
# targets' order afterwards.
fuzz_one() {  # T
	local t=$1 s=$secs log="$out/$1.log"
	case $t in trace-*) s=$trace_secs ;; esac
	[ -x "$bin/$t" ] || { echo "not ok - fuzz $t: $bin/$t not built"; return; }
	local regress=(tests/fuzz/regress/"$t"/*)
	if [ -e "${regress[0]}" ]; then
		if "$bin/$t" -timeout=10 "${regress[@]}" >"$log" 2>&1; then
			echo "ok - fuzz $t: ${#regress[@]} regression input(s)"
		else
			echo "not ok - fuzz $t: a regression input fails again"
			show "$log"
		fi
	fi
	mkdir -p "$bin/corpus/$t"
	local seeds=()
	[ -d "tests/fuzz/corpus/$t" ] && seeds=("tests/fuzz/corpus/$t")
	if "$bin/$t" -max_total_time="$s" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
		-artifact_prefix="$bin/$t-" "$bin/corpus/$t" "${seeds[@]}" >"$log" 2>&1; then
		local runs
		runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
		echo "ok - fuzz $t: ${runs:-?} inputs in $s s, no finding"
	else
		echo "not ok - fuzz $t: a finding (input saved in $bin/)"
		show "$log"
	fi
}

for t in "${targets[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	fuzz_one "$t" >"$out/$t.tap" 2>&1 &
done
wait
for t in "${targets[@]}"; do cat "$out/$t.tap"; done | tee "$out/all.tap"
passed=$(grep -c '^ok - ' "$out/all.tap")
failed=$(grep -c '^not ok - ' "$out/all.tap")
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
