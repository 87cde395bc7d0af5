#!/usr/bin/env bash
# quickstart.sh - the main job on a fresh machine: install what is missing,
# build appio, run the quick review suite on a 1 GiB file in the current
# folder (the drive under test) and write its results and report to
# ./appio-results/ (suite.json, report.html). About 5 minutes.
#   scripts/quickstart.sh [--target FILE] [more 'appio suite quick' options]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
target=appio.dat
if [ "${1:-}" = "--target" ]; then
	[ $# -ge 2 ] || { echo "usage: $0 [--target FILE] [appio suite options]" >&2; exit 2; }
	target=$2
	shift 2
fi
"$here/scripts/install-deps.sh"
make -s -C "$here" -j"$(nproc)"
mkdir -p appio-results
rc=0
"$here/appio" suite quick --target "$target" --json appio-results/suite.json "$@" || rc=$?
# a failed or interrupted suite still leaves a document worth a report
if [ "$rc" -ne 2 ] && [ -s appio-results/suite.json ]; then
	"$here/appio" report appio-results/suite.json -o appio-results/report.html
	echo "results: $PWD/appio-results/suite.json, report: $PWD/appio-results/report.html"
fi
exit "$rc"
