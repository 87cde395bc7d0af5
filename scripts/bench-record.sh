#!/usr/bin/env bash
# bench-record.sh - what a capture costs: the same appio run on a fast loop
# device without and with 'appio trace record' on it, and how many events
# per second the capture kept up with, on how much CPU.
#
#   scripts/bench-record.sh [--time S] [--rounds N] [--qd N]
#
#   --time S    seconds of each run (default 10)
#   --rounds N  runs without and with capture, alternately (default 3); the
#               table shows each and the medians
#   --qd N      4 KiB random reads in flight (default 32, io_uring)
#   APPIO=PATH  the appio binary (default ./appio)
#
# The device: a loop device over a 1 GiB file in /dev/shm (RAM), so the drive
# is not what limits the I/O rate and the tracepoints' cost shows. Needs root.
set -euo pipefail

die() { echo "bench-record: $*" >&2; exit 2; }
APPIO=${APPIO:-$PWD/appio}
TIME=10 ROUNDS=3 QD=32
while [ $# -gt 0 ]; do
	case $1 in
	--time) TIME=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--qd) QD=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1'" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root"
W=$(mktemp -d /dev/shm/appio-bench-record.XXXXXX)
DEV=
trap '[ -n "$DEV" ] && losetup -d "$DEV"; rm -rf "$W"' EXIT
dd if=/dev/zero of="$W/disk.img" bs=1M count=1024 status=none
DEV=$(losetup -f --show "$W/disk.img")
run() { "$APPIO" run 4k-randread --target "$DEV" --time "$TIME" --ramp 0 --qd "$QD" --engine io_uring \
	--json "$W/r.json" >/dev/null; jq '.points[0].classes.read.ops_per_s | floor' "$W/r.json"; }

printf '%-6s %12s %12s %8s %14s %12s %10s\n' round "IOPS plain" "IOPS traced" "cost" "events/s" "peak ev/s" "CPU"
plain=() traced=()
for i in $(seq "$ROUNDS"); do
	a=$(run)
	"$APPIO" trace record --device "${DEV#/dev/}" -o "$W/t.trace" -- bash -c "$(declare -f run);
		APPIO='$APPIO' DEV='$DEV' TIME=$TIME QD=$QD W='$W' run >'$W/iops'" 2>"$W/rec.log"
	b=$(cat "$W/iops")
	ev=$(sed -n 's/.*events (\([0-9]*\)\/s, peak \([0-9]*\) in one second) read with \([0-9.]*\) % .*/\1 \2 \3/p' "$W/rec.log")
	grep -q 'no events lost' "$W/rec.log" || ev="$ev LOST"
	read -r evs peak cpu lost <<<"$ev"
	printf '%-6s %12s %12s %7.1f%% %14s %12s %9s%%%s\n' "$i" "$a" "$b" \
		"$(awk -v a="$a" -v b="$b" 'BEGIN { print (a - b) * 100 / a }')" "$evs" "$peak" "$cpu" "${lost:+ $lost}"
	plain+=("$a") traced+=("$b")
done
med() { printf '%s\n' "$@" | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
a=$(med "${plain[@]}") b=$(med "${traced[@]}")
printf '%-6s %12s %12s %7.1f%%\n' median "$a" "$b" "$(awk -v a="$a" -v b="$b" 'BEGIN { print (a - b) * 100 / a }')"
