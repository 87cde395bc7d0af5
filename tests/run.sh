#!/usr/bin/env bash
# Runs every unit test binary and every end-to-end script, counts the TAP
# lines they print ("ok - ..." / "not ok - ..."), and ends with the line
# "N passed, N failed, N skipped". A line "ok - ... # skip REASON" counts as
# skipped, not passed. A program that exits non-zero without saying
# "not ok", or that prints no such line at all, counts as one failure too.
# Exit status 1 if anything failed.
#   APPIO     the binary under test (default ./appio)
#   UNIT_DIR  where the unit test binaries are (default build/tests)
#   ONLY      substrings, space-separated: run only the tests whose name
#             contains one of them ("unit/ t0300")
#   SKIP_TESTS  space-separated substrings: tests whose name contains one are
#             not run and count as skipped (make check runs the long tests only
#             in its ASan pass)
#   FIRST     space-separated substrings: the tests whose name contains one
#             start first, in that order, after SERIAL_TESTS (with JOBS > 1,
#             the long ones first leave short ones to fill the end)
#   JOBS      tests run at a time (default 1); those of SERIAL_TESTS (default:
#             the three that count what a block device did, t0400, t0410 and
#             t0920; t0410 also drops the machine's caches)
#             always run alone. The drive-ranking test (t0620) need not: its
#             drives are loop devices over a tmpfs file, throttled by cgroups
#             of its own, and it does no I/O on the disk the others count on.
#             Nor the tests that start database servers: scripts/db-start.sh
#             picks a free port and starts the server under one lock; nor the
#             MPI test, whose ranks share memory only among themselves
set -u
cd "$(dirname "$0")/.." || exit 1
export APPIO="${APPIO:-$PWD/appio}"
UNIT_DIR="${UNIT_DIR:-$PWD/build/tests}"
JOBS=${JOBS:-1}
SERIAL_TESTS=${SERIAL_TESTS-t0400 t0410 t0920}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

matches() {  # NAME LIST: does NAME contain one of the words of LIST?
	local w
	for w in $2; do
		case "$1" in *"$w"*) return 0 ;; esac
	done
	return 1
}

# run_one I NAME CMD...: test number I; its report to $out/I.txt, then its
# counts ("passed failed skipped") to $out/I.cnt, which says it is finished.
run_one() {
	local i=$1 name=$2; shift 2
	local log="$out/$i.log" rep="$out/$i.txt"
	{
		echo "# $name"
		if matches "$name" "${SKIP_TESTS:-}"; then
			echo "  ok - $name # skip SKIP_TESTS=$SKIP_TESTS"
			echo "0 0 1" >"$out/$i.cnt.tmp"
		else
			local start=$SECONDS
			"$@" >"$log" 2>&1
			local rc=$?
			local p f s
			p=$(grep -c '^ok - ' "$log")
			f=$(grep -c '^not ok - ' "$log")
			s=$(grep -c '^ok - .*# skip' "$log")
			grep -E '^(not ok|ok) - ' "$log" | sed 's/^/  /'
			if [ "$f" -gt 0 ] || [ "$rc" -ne 0 ]; then
				sed 's/^/  | /' "$log" | grep -v -E '^  \| (ok|not ok) - ' | tail -n 40
			fi
			if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
				echo "  not ok - $name exited with status $rc"
				f=1
			elif [ "$p" -eq 0 ] && [ "$f" -eq 0 ]; then
				sed 's/^/  | /' "$log" | tail -n 20
				echo "  not ok - $name printed no test result"
				f=1
			fi
			echo "  ($((SECONDS - start)) s)"
			echo "$((p - s)) $f $s" >"$out/$i.cnt.tmp"
		fi
	} >"$rep"
	mv "$out/$i.cnt.tmp" "$out/$i.cnt"
}

names=() files=() runner=()     # runner: "bash" for a script, empty for a program
for t in "$UNIT_DIR"/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d) continue ;; esac
	names+=("unit/$(basename "$t")") files+=("$t") runner+=("")
done
for t in tests/e2e/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	names+=("e2e/$(basename "$t" .sh)") files+=("$t") runner+=(bash)
done
# The SERIAL_TESTS first, then FIRST, then the rest: a serial test that came
# later would wait, one slot idle, for the long tests started before it.
FIRST="$SERIAL_TESTS ${FIRST:-}"
if [ -n "${FIRST// /}" ]; then
	order=() seen=" "
	for w in $FIRST; do
		for i in "${!names[@]}"; do
			case "${names[$i]}" in *"$w"*) ;; *) continue ;; esac
			case "$seen" in *" $i "*) continue ;; esac
			order+=("$i") seen+="$i "
		done
	done
	for i in "${!names[@]}"; do
		matches "${names[$i]}" "$FIRST" || order+=("$i")
	done
	n=() f=() r=()
	for i in "${order[@]}"; do n+=("${names[$i]}") f+=("${files[$i]}") r+=("${runner[$i]}"); done
	names=("${n[@]}") files=("${f[@]}") runner=("${r[@]}")
fi

# Reports are printed in the tests' order, each once its test has finished.
passed=0 failed=0 skipped=0 shown=0
show_finished() {
	while [ "$shown" -lt "${#names[@]}" ]; do
		if [ -e "$out/$shown.skip" ]; then shown=$((shown + 1)); continue; fi
		[ -e "$out/$shown.cnt" ] || return
		cat "$out/$shown.txt"
		local p f s
		read -r p f s <"$out/$shown.cnt"
		passed=$((passed + p)) failed=$((failed + f)) skipped=$((skipped + s))
		shown=$((shown + 1))
	done
}

# JOBS tests at a time; a test of SERIAL_TESTS (a device's I/O counted) runs alone.
for i in "${!names[@]}"; do
	name=${names[$i]}
	if [ -n "${ONLY:-}" ] && ! matches "$name" "$ONLY"; then
		: >"$out/$i.skip"
		continue
	fi
	if [ "$JOBS" -le 1 ] || matches "$name" "$SERIAL_TESTS"; then
		wait
		show_finished
		# shellcheck disable=SC2086
		run_one "$i" "$name" ${runner[$i]} "${files[$i]}"
	else
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n; show_finished; done
		# shellcheck disable=SC2086
		run_one "$i" "$name" ${runner[$i]} "${files[$i]}" &
	fi
	show_finished
done
wait
show_finished

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
