#!/usr/bin/env bash
# quickstart.sh - the main job on a fresh machine: install what is missing,
# build appio, and run the review profiles briefly on a 1 GiB file in the
# current folder (the drive under test). Results go to ./appio-results/.
#   scripts/quickstart.sh [--time S] [--target FILE]
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
time=5 target=appio.dat
while [ $# -gt 0 ]; do
	case "$1" in
		--time) time=$2; shift 2 ;;
		--target) target=$2; shift 2 ;;
		*) echo "usage: $0 [--time S] [--target FILE]" >&2; exit 2 ;;
	esac
done
"$here/scripts/install-deps.sh"
make -s -C "$here" -j"$(nproc)"
mkdir -p appio-results
# lay the file out once with the sequential writers, then each profile in turn
for p in 128k-seqwrite 128k-seqread 4k-randread 4k-randwrite 8k-70-30 database email fileserver webserver; do
	echo "== $p"
	"$here/appio" run "$p" --target "$target" --size 1G --threads 1,2 --qd 1,16 --time "$time" \
		--json "appio-results/$p.json"
done
echo "results: $PWD/appio-results/*.json"
