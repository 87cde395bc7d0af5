#!/bin/bash
# MariaDB on ram-slow (300 r/w IOPS), 4x250k, BP pool, 4 threads, the page cleaner sampled every second
# for T s after WU s of warm-up: time, commits, checkpoint age, dirty pages, pages written by the
# adaptive, LRU and sync batches, pages the cleaner was asked for, pct_for_lsn.
# FAST=1: no throttle; DBX: more options for appio db run; SRVX: more server settings. Run as root.
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; T=${T:-60}; WU=${WU:-120}; BP=${BP:-128M}
. "$(dirname "$0")/lib.sh"
ram_up
srv_throttled_start
$A db run oltp_read_write --tables 4 --table-size 250000 $conn --threads 4 --time $((WU + T)) ${DBX:-} >/dev/null &
sleep $WU
m() { echo "(SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME='$1')"; }
s() { echo "(SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='$1')"; }
q="SELECT CONCAT_WS(' ', ROUND(UNIX_TIMESTAMP(NOW(3)),2), $(s COM_COMMIT), $(s INNODB_CHECKPOINT_AGE), $(s INNODB_BUFFER_POOL_PAGES_DIRTY), $(m buffer_flush_adaptive_total_pages), $(m buffer_LRU_batch_flush_total_pages), $(m buffer_flush_sync_total_pages), $(m buffer_flush_n_to_flush_requested), $(m buffer_flush_pct_for_lsn))"
echo "# time commits ckpt_age dirty adaptive lru sync n_requested pct_for_lsn"
for i in $(seq 1 "$T"); do q "$q"; sleep 1; done
wait
srv_stop
ram_down; rmdir $CG
