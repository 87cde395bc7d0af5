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
#             not run and count as skipped (make check runs the database-server
#             tests only in its ASan pass)
set -u
cd "$(dirname "$0")/.."
export APPIO="${APPIO:-$PWD/appio}"
UNIT_DIR="${UNIT_DIR:-$PWD/build/tests}"
passed=0 failed=0 skipped=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT

wanted() {  # NAME: does it match ONLY?
	local w
	[ -z "${ONLY:-}" ] && return 0
	for w in $ONLY; do
		case "$1" in *"$w"*) return 0 ;; esac
	done
	return 1
}

run_one() {  # NAME CMD...
	local name=$1; shift
	wanted "$name" || return
	echo "# $name"
	local pat
	for pat in ${SKIP_TESTS:-}; do
		case "$name" in *"$pat"*)
			echo "  ok - $name # skip SKIP_TESTS=$SKIP_TESTS"
			skipped=$((skipped + 1))
			return ;;
		esac
	done
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
	passed=$((passed + p - s)) failed=$((failed + f)) skipped=$((skipped + s))
	echo "  ($((SECONDS - start)) s)"
}

for t in "$UNIT_DIR"/test_*; do
	[ -x "$t" ] || continue
	case "$t" in *.d) continue ;; esac
	run_one "unit/$(basename "$t")" "$t"
done
for t in tests/e2e/t[0-9]*.sh; do
	[ -f "$t" ] || continue
	run_one "e2e/$(basename "$t" .sh)" bash "$t"
done

echo "$passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
