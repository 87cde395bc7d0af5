#!/bin/bash
# probe.sh prepare|real|emu OUT [APPIO [appio run options]]: PostgreSQL 15 or its model
# (appio run oltp --engine-model postgres) on a RAM loop drive throttled to IOPS (300) reads
# and writes a second (and BPS bytes, when set), in a 448M memory cgroup; oltp_read_write
# 4 x 250,000 rows, shared_buffers 128M, T (4) threads, a cold start, WARM (5) s of warm-up
# and TIME (10) s measured. prepare: load, VACUUM ANALYZE, keep a copy (srv.orig); real:
# RESTORE=1 puts the copy back first; TRACE=1 records the measured seconds with appio trace
# record. Writes OUT.stats (blkio counters, pg_statio per relation), OUT.io, OUT.mem.
# Run as root, one at a time, on a quiet machine (6 December 2026). The drive (/tmp/pgp) and
# the cgroups (pgp) stay for the next call: unmount, detach and rmdir them after.
set -u
MODE=$1 OUT=$2; shift 2
ROOT=$(cd "$(dirname "$0")/../../../.." && pwd)
APPIO=${1:-$ROOT/appio}; shift $(( $# > 0 )); EXTRA=("$@")
W=/tmp/pgp; IOPS=${IOPS:-300}; WARM=${WARM:-5}; TIME=${TIME:-10}; T=${T:-4}
mkdir -p $W/tmpfs $W/ram; chmod 755 $W
if ! mountpoint -q $W/ram; then
  mount -t tmpfs -o size=4G pgp $W/tmpfs; truncate -s 3500M $W/tmpfs/disk
  L=$(losetup -f --show $W/tmpfs/disk); mkfs.ext4 -q -E nodiscard $L; mount $L $W/ram; chmod 755 $W/ram
fi
L=$(findmnt -n -o SOURCE --target $W/ram); MM=$(lsblk -dn -o MAJ:MIN $L | tr -d ' ')
B=/sys/fs/cgroup/blkio/pgp; M=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)/pgp
mkdir -p $B $M
echo "$MM $IOPS" > $B/blkio.throttle.read_iops_device; echo "$MM $IOPS" > $B/blkio.throttle.write_iops_device
[ -n "${BPS:-}" ] && { echo "$MM $BPS" > $B/blkio.throttle.read_bps_device; echo "$MM $BPS" > $B/blkio.throttle.write_bps_device; } || { echo "$MM 0" > $B/blkio.throttle.read_bps_device; echo "$MM 0" > $B/blkio.throttle.write_bps_device; }
echo $((448*1048576)) > $M/memory.limit_in_bytes
incg() { bash -c 'echo $$ > '$B'/cgroup.procs; echo $$ > '$M'/cgroup.procs; exec "$@"' _ "$@"; }
io() { awk -v mm=$MM '$1==mm && $2=="Read"{r=$3} $1==mm && $2=="Write"{w=$3} END{printf "%d %d ", r, w}' $B/blkio.throttle.io_serviced
       awk -v mm=$MM '$1==mm && $2=="Read"{r=$3} END{printf "%d\n", r}' $B/blkio.throttle.io_service_bytes; }
uncache() { sync; find "$1" -type f -exec dd if={} iflag=nocache count=0 status=none \; 2>/dev/null; }
srv=$W/ram/srv
PSQL() { psql -X -q -At -h $srv -p $(cat $srv/port) -U appio appio -c "$1"; }
stats() { PSQL "select 'db', blks_read, blks_hit from pg_stat_database where datname='appio'";
  PSQL "select relname, coalesce(heap_blks_read,0), coalesce(idx_blks_read,0), coalesce(heap_blks_hit,0)+coalesce(idx_blks_hit,0) from pg_statio_all_tables where coalesce(heap_blks_read,0)+coalesce(idx_blks_read,0) > 0 order by 2+3 desc"; }
if [ "$MODE" = prepare ]; then
  $ROOT/scripts/db-stop.sh $srv --remove >/dev/null 2>&1
  conn=$($ROOT/scripts/db-start.sh postgres $srv shared_buffers=128MB ${PGSET:-} 2>/dev/null | tail -1)
  $APPIO db prepare oltp_read_write --tables 4 --table-size 250000 $conn --threads 2 > /dev/null
  PSQL "VACUUM ANALYZE"
  $ROOT/scripts/db-stop.sh $srv >/dev/null; rm -rf $srv.orig; cp -a $srv $srv.orig; exit 0
fi
( while :; do echo "$(date +%s.%N) $(io)"; sleep 0.5; done > $OUT.io ) & SAMP=$!
trap "kill $SAMP" EXIT
if [ "$MODE" = real ]; then
  [ -n "${RESTORE:-}" ] && { rm -rf $srv; cp -a $srv.orig $srv; sync; }
  uncache $srv
  conn=$(incg $ROOT/scripts/db-start.sh postgres $srv shared_buffers=128MB ${PGSET:-} 2>/dev/null | tail -1)
  s0=$(stats); b0=$(io)
  $APPIO db run oltp_read_write --tables 4 --table-size 250000 $conn --threads $T --time $WARM > /dev/null
  b1=$(io); s1=$(stats)
  [ -n "${TRACE:-}" ] && { $APPIO trace record --device ${L#/dev/} -o $OUT.trace --time $TIME >/dev/null 2>$OUT.trerr & }
  $APPIO db run oltp_read_write --tables 4 --table-size 250000 $conn --threads $T --time $TIME --json $OUT.json > /dev/null
  b2=$(io); s2=$(stats)
  cat $M/memory.stat | grep -E "^(cache|rss|shmem|mapped_file|inactive_file|active_file) " > $OUT.mem
  $ROOT/scripts/db-stop.sh $srv >/dev/null
  { echo "io0 $b0"; echo "io1 $b1"; echo "io2 $b2"; echo "== s0"; echo "$s0"; echo "== s1"; echo "$s1"; echo "== s2"; echo "$s2"; } > $OUT.stats
else
  f=$W/ram/emu.dat
  [ -e $f ] || { $APPIO run 128k-seqread --target $f --size 1580M --time 1 >/dev/null; sync; }
  uncache $f
  b0=$(io)
  [ -n "${TRACE:-}" ] && { ( sleep $WARM; $APPIO trace record --device ${L#/dev/} -o $OUT.trace --time $TIME >/dev/null 2>$OUT.trerr ) & }
  incg $APPIO run oltp --target $f --size 1580M --engine-model postgres --direct 0 --engine sync --buffer-pool 128M \
    --tables 4 --table-size 250000 --threads $T --time $TIME --ramp $WARM --cpu-scale ${SCALE:-0.6} --json $OUT.json "${EXTRA[@]}" > /dev/null 2>$OUT.err
  b2=$(io)
  cat $M/memory.stat | grep -E "^(cache|rss|shmem|mapped_file|inactive_file|active_file) " > $OUT.mem
  { echo "io0 $b0"; echo "io2 $b2"; } > $OUT.stats
fi
jq -r '.points[0] | "tps \(.classes.txn.ops_per_s) txns \(.counters.txns // "-") bp_reads \(.counters.bp_reads // "-")"' $OUT.json >> $OUT.stats
cat $OUT.stats | head -30; cat $OUT.mem
