# lib.sh - sourced by every end-to-end test (tests/e2e/tNNNN-area-what.sh).
# Each check prints one TAP line, "ok - DESC" or "not ok - DESC";
# finish exits 1 if any check failed. Tests run from the repository root
# and each gets its own scratch folder $T (on the same file system as the
# repository, so O_DIRECT works), removed on exit.
set -u
APPIO="${APPIO:-$PWD/appio}"
_failures=0
T=$(mktemp -d "$PWD/build/e2e.XXXXXX" 2>/dev/null || mktemp -d)
_cleanups=("rm -rf '$T'")
trap '_run_cleanups' EXIT

_run_cleanups() {
	local i
	for ((i = ${#_cleanups[@]} - 1; i >= 0; i--)); do eval "${_cleanups[$i]}" >/dev/null 2>&1; done
}

# at_exit CMD: run CMD (a string) when the test exits, before the scratch folder goes.
at_exit() { _cleanups+=("$1"); }

ok() { echo "ok - $1"; }
not_ok() { echo "not ok - $1"; _failures=$((_failures + 1)); }
skip() { echo "ok - $1 # skip $2"; }

# check DESC CMD...: ok if CMD exits 0; otherwise shows its output.
check() {
	local desc=$1; shift
	local out
	if out=$("$@" 2>&1); then ok "$desc"; else not_ok "$desc"; printf '%s\n' "$out" | tail -n 20 | sed 's/^/    /'; fi
}

# expect_exit CODE DESC -- CMD...: ok if CMD exits with CODE. Its stderr is kept in $T/stderr.
expect_exit() {
	local code=$1 desc=$2; shift 3
	"$@" >"$T/stdout" 2>"$T/stderr"
	local rc=$?
	if [ "$rc" -eq "$code" ]; then ok "$desc"; else
		not_ok "$desc (exit $rc, expected $code)"; tail -n 10 "$T/stderr" | sed 's/^/    /'
	fi
}

# jq_check DESC FILE FILTER: ok if the jq FILTER is true for FILE.
jq_check() {
	local desc=$1 file=$2 filter=$3
	if [ -s "$file" ] && jq -e "$filter" "$file" >/dev/null 2>&1; then ok "$desc"; else
		not_ok "$desc"; echo "    jq filter: $filter"
		[ -s "$file" ] || echo "    (no file $file)"
	fi
}

# mix_filter READS WRITES OTHER: a jq filter, true for a point of 'appio db'
# that ran transactions with exactly that many statements of each class.
mix_filter() {
	echo ".classes as \$c | \$c.txn.ops > 0 and \$c.read.ops == $1 * \$c.txn.ops and
	      \$c.write.ops == $2 * \$c.txn.ops and \$c.other.ops == $3 * \$c.txn.ops"
}

# wait_for SECONDS CMD...: poll until CMD succeeds; status 1 if it never does.
# A signal or a stop then comes at a known moment of a run, not after a
# guessed sleep that a loaded machine overruns.
wait_for() {
	local end=$((SECONDS + $1)); shift
	until "$@" >/dev/null 2>&1; do [ $SECONDS -lt $end ] || return 1; sleep 0.05; done
}

# one_line_error DESC: the last expect_exit printed exactly one line on stderr.
one_line_error() {
	local n
	n=$(grep -c . "$T/stderr")
	if [ "$n" -eq 1 ]; then ok "$1"; else not_ok "$1 ($n lines)"; sed 's/^/    /' "$T/stderr" | head -5; fi
}

# Headless Chromium, for tests of pages appio writes: $CHROME is empty when it is
# missing. chrome_page FILE ARGS...: run it on a local page with ARGS
# (--screenshot=..., --dump-dom), with the network-quiet flags it needs here.
CHROME=$(command -v chromium || command -v chromium-browser || true)
chrome_page() {
	local page=$1; shift
	timeout 60 "$CHROME" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chrome" "$@" "file://$page" 2>/dev/null
}

finish() { [ "$_failures" -eq 0 ]; exit $?; }
