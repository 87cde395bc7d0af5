#!/usr/bin/env bash
# fidelity-replay.sh - capture a real MariaDB SysBench run with appio, replay
# the trace on the same drive, and compare what the replay did with what the
# trace recorded.
#
#   scripts/fidelity-replay.sh [--time S] [--threads N] [--table-size N] [--out DIR]
#                              [--cpu-load off|PCT|recorded] [--replay-args 'ARGS']
#
#   --time S        the SysBench run captured, in seconds (default 60)
#   --threads N     its client threads (default 4)
#   --table-size N  rows in each of 4 tables (default 400000: some 380 MB of
#                   InnoDB data against a 32 MB buffer pool, so reads reach the drive)
#   --out DIR       keep the image, trace and results here (default: a new folder
#                   under /tmp; the image takes 2 GiB while the script runs)
#   --cpu-load V    the replays' 'appio run replay --cpu-load' (default recorded:
#                   burner threads hold the machine's CPUs as busy as they were
#                   during the capture, which the trace's header notes; a
#                   request's recorded service time includes waits for a CPU)
#   --replay-args   more 'appio run replay' options, e.g. '--spin 50' (on a busy
#                   machine a replayer that sleeps more keeps time better)
#   APPIO=PATH      the appio binary (default ./appio)
#
# Steps: a 2 GiB file on the drive under --out becomes a loop device with
# direct I/O and 4 KiB sectors (so the loop's requests reach the drive as
# they are, not through the page cache of the file), ext4 on
# it; MariaDB (scripts/db-start.sh) keeps its data there with a 32 MB buffer
# pool; appio db prepare, then appio db run oltp_read_write --capture. The
# server is stopped, the file system unmounted, and the trace replayed on the
# same loop device (--timing trace, O_DIRECT, --force: the file system is
# gone afterwards). Needs root.
#
# The table:
#   per-second IOPS   the replay's replay.iops_mae_pct: for each second of the
#                     schedule, I/Os submitted against I/Os the trace has in it,
#                     mean absolute difference in % of the trace's mean (goal 5 %)
#   ops, bytes        reads, writes, flushes (a preflush or FUA write replays
#                     as a write and a flush) and bytes: trace against replay
#                     (goal: exact)
#   service p50/p99   per class: recorded (completion - issue in the trace)
#                     against the replay's, taken at the same place (the
#                     replay is captured too: completion - issue of its own
#                     requests, "replay, kernel"), and the difference in %
#                     (goal 15 %); then the same for a second replay with
#                     --timing load ("load, kernel": no schedule, each I/O
#                     submitted at the trace's own in-flight count, so the
#                     device sees the queue depths the database kept even
#                     where the schedule would pile I/Os up); then a third
#                     with --timing bounded ("bounded, kernel": on the
#                     schedule, but each I/O waits while the trace's count at
#                     it is in flight; its per-second IOPS error is shown
#                     too); then a fourth, bounded with '--engine threads'
#                     ("threads, kernel": each I/O on a blocking thread of
#                     its own, as the database's threads issued their reads);
#                     then the replayer's own (submission to the
#                     completion it reaps, on the first replay), which adds
#                     the block layer's queue and the time its thread waits
#                     for a CPU
set -euo pipefail

die() { echo "fidelity-replay: $*" >&2; exit 2; }
APPIO=${APPIO:-$PWD/appio}
TIME=60 THREADS=4 ROWS=400000 OUT= RARGS= CPULOAD=recorded
REPLAYS="trace load bounded threads"
while [ $# -gt 0 ]; do
	case $1 in
	--time) TIME=$2; shift 2 ;;
	--threads) THREADS=$2; shift 2 ;;
	--table-size) ROWS=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	--replay-args) RARGS=$2; shift 2 ;;
	--cpu-load) CPULOAD=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done
[ "$(id -u)" -eq 0 ] || die "needs root (a loop device, a mount, the capture)"
for t in losetup mkfs.ext4 mount jq awk; do command -v $t >/dev/null || die "needs $t"; done
[ -x "$APPIO" ] || die "no appio at '$APPIO' (build it, or set APPIO)"
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
OUT=${OUT:-$(mktemp -d /tmp/appio-fidelity.XXXXXX)}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
cd "$OUT"

DEV= MNT=$OUT/mnt
cleanup() {
	[ -d "$MNT/db" ] && "$SCRIPTS/db-stop.sh" "$MNT/db" >/dev/null 2>&1 || true
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$DEV" ] && losetup -d "$DEV"
	rm -f "$OUT/disk.img"
}
trap cleanup EXIT

# written through once: a sparse or preallocated file would make the capture's
# first writes allocate (journal commits on the drive) and the replay's not
dd if=/dev/zero of=disk.img bs=1M count=2048 oflag=direct status=none
# 4 KiB sectors: the loop device does direct I/O only in whole blocks of the file system under it
DEV=$(losetup -f --show --sector-size 4096 --direct-io=on disk.img)
[ "$(cat "/sys/block/${DEV#/dev/}/loop/dio" 2>/dev/null)" = 1 ] ||
	die "$DEV does not do direct I/O on '$OUT/disk.img' (its file system takes no O_DIRECT?)"
mkfs.ext4 -q -F "$DEV"
mkdir -p "$MNT"
mount "$DEV" "$MNT"
echo "fidelity-replay: MariaDB on $DEV (a file on $(df --output=source "$OUT" | tail -1)), results in $OUT" >&2
conn=$("$SCRIPTS/db-start.sh" mariadb "$MNT/db" innodb_buffer_pool_size=32M | tail -n 1)
# shellcheck disable=SC2086 # $conn is a list of options
"$APPIO" db prepare oltp_read_write --driver mysql $conn --tables 4 --table-size "$ROWS" --threads 4 >prepare.log
sync
echo 3 >/proc/sys/vm/drop_caches
# shellcheck disable=SC2086
"$APPIO" db run oltp_read_write --driver mysql $conn --tables 4 --table-size "$ROWS" --threads "$THREADS" \
	--time "$TIME" --capture mariadb.trace --json run.json >run.log
"$SCRIPTS/db-stop.sh" "$MNT/db" >/dev/null
umount "$MNT"
"$APPIO" trace info mariadb.trace >trace-info.txt
"$APPIO" trace info mariadb.trace --json >trace-info.json
# Each replay is captured too: its requests' service times at the same place
# the trace's were taken. Four replays: the trace's schedule (the default,
# open loop); the trace's own in-flight counts with no schedule (load: the
# device sees the queue depths the database kept, whatever the replay's
# pace); both at once (bounded: on the schedule, but an I/O waits while the
# trace's count at it is in flight, as the database's threads would have);
# and bounded again with a blocking thread per I/O in flight (threads: the
# database's threads slept in their reads, a queue kept full from one thread
# meets a faster device)
for name in $REPLAYS; do
	case $name in threads) timing=bounded engine="--engine threads" ;; *) timing=$name engine= ;; esac
	# shellcheck disable=SC2086 # $RARGS and $engine are lists of options
	"$APPIO" trace record --device "${DEV#/dev/}" -o "replayed-$name.trace" -- \
		"$APPIO" run replay --trace mariadb.trace --target "$DEV" --force --timing "$timing" --cpu-load "$CPULOAD" $engine $RARGS \
		--json "replay-$name.json" >"replay-$name.log" 2>"record-replay-$name.log"
done

# recorded service times per class: p50 and p99 in ns (nearest rank)
pct() {  # OP P [TRACE]: the P-th percentile of complete - issue over records of op OP (R, W, F)
	awk -v op="$1" 'NF == 9 && $1 ~ /^[0-9]+$/ && $3 == op && $2 != "-" { print $2 - $1 }' "${3:-mariadb.trace}" |
		sort -n | awk -v p="$2" '{ v[NR] = $1 } END { if (!NR) { print 0; exit }
			k = int(p * NR + 0.999999); if (k < 1) k = 1; print v[k] }'
}
ops() { awk -v op="$1" 'NF == 9 && $1 ~ /^[0-9]+$/ && $3 == op { n++ } END { print n + 0 }' mariadb.trace; }
bytes() { awk -v op="$1" 'NF == 9 && $1 ~ /^[0-9]+$/ && $3 == op { n += $7 } END { printf "%d\n", n }' mariadb.trace; }
pf() { awk 'NF == 9 && $1 ~ /^[0-9]+$/ && $3 == "W" && $4 ~ /[PU]/ { n += ($4 ~ /P/) + ($4 ~ /U/) } END { print n + 0 }' mariadb.trace; }
rj() { jq -r "$1" "replay-${2:-trace}.json"; }
us() { awk -v x="$1" 'BEGIN { print x / 1000 }'; }
diffpct() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == 0) print "-"; else printf "%+.1f %%\n", (b - a) * 100 / a }'; }

printf '\n%-22s %14s %14s %10s %10s %10s\n' "figure" "trace" "replay" "diff" "bounded" "threads"
printf '%-22s %14s %14s %10s %10s %10s\n' "per-second IOPS" "$(rj '.info."replay.trace_iops_mean"')/s mean" "" \
	"$(rj '.info."replay.iops_mae_pct"') %" "$(rj '.info."replay.iops_mae_pct"' bounded) %" \
	"$(rj '.info."replay.iops_mae_pct"' threads) %"
for c in R:read W:write; do
	op=${c%%:*} cls=${c#*:}
	printf '%-22s %14s %14s\n' "$cls ops" "$(ops "$op")" "$(rj ".points[0].classes.$cls.ops // 0")"
	printf '%-22s %14s %14s\n' "$cls bytes" "$(bytes "$op")" "$(rj ".points[0].classes.$cls.bytes // 0")"
done
printf '%-22s %14s %14s\n' "flush ops (F + P/U)" "$(( $(ops F) + $(pf) ))" "$(rj '.points[0].classes.flush.ops // 0')"
printf '\n%-14s %11s' "service time" "trace"
for h in "trace, kernel" "load, kernel" "bounded, kernel" "threads, kernel" "replayer"; do printf ' %16s %8s' "$h" "diff"; done
echo
for c in R:read W:write F:flush; do
	op=${c%%:*} cls=${c#*:}
	for p in 50 99; do
		t=$(pct "$op" "0.$p")
		printf '%-14s %8.1f us' "$cls p$p" "$(us "$t")"
		for name in $REPLAYS; do
			k=$(pct "$op" "0.$p" "replayed-$name.trace")
			printf ' %13.1f us %8s' "$(us "$k")" "$(diffpct "$t" "$k")"
		done
		r=$(rj ".points[0].classes.$cls.lat_ns.p$p // 0")
		printf ' %13.1f us %8s\n' "$(us "$r")" "$(diffpct "$t" "$r")"
	done
done
echo
grep -E '^(duration|I/Os|ops):' trace-info.txt
for name in $REPLAYS; do
	grep -E '^replay:' "replay-$name.log" | sed "s/^replay:/replay ($name):/" || true
done
grep -E '^  duration' replay-load.log | sed 's/^  /load replay: /' || true
grep -E 'capture:' record-replay-trace.log || true
# the machine's CPUs: the capture's share (its header), and what each replay held
echo "CPU busy: capture $(jq -r '.meta."capture.cpu_busy" // "not noted"' trace-info.json)"
for name in $REPLAYS; do
	echo "CPU busy: replay ($name) $(rj '.info."replay.cpu_load" // "not held (--cpu-load off)"' "$name")"
done
