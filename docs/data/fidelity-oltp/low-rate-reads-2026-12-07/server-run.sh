#!/bin/bash
# MariaDB on ram-slow (300 r/w IOPS), 4x250k, BP pool, 4 threads: WU s warm-up, then T s; reads by page type over the T s.
# FAST=1: no throttle; DBX: more options for appio db run (--rate 120); SRVX: more server settings
# (innodb_flush_log_at_trx_commit=2). Run as root from the repository (scripts/db-start.sh).
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; T=${T:-120}; WU=${WU:-120}; BP=${BP:-128M}
. "$(dirname "$0")/lib.sh"
ram_up
srv_throttled_start
$A db run oltp_read_write --tables 4 --table-size 250000 $conn --threads 4 --time $WU ${DBX:-} >/dev/null
q="SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE (NAME LIKE 'buffer_page_read%' OR NAME LIKE 'buffer_page_written%' OR NAME IN ('buffer_pool_reads','buffer_pool_read_ahead','buffer_pool_read_ahead_evicted','buffer_LRU_batch_evict_total_pages','buffer_flush_adaptive_total_pages','buffer_LRU_batch_flush_total_pages','trx_commits_insert_update','purge_undo_log_pages','buffer_pages_created','buffer_pages_read','buffer_pages_written','index_page_splits','index_page_merge_successful','purge_del_mark_records','purge_upd_exist_or_extern_records','buffer_LRU_single_flush_num_scan')) AND COUNT>0 UNION ALL SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('COM_COMMIT','INNODB_PAGES_READ','INNODB_PAGES_CREATED','INNODB_PAGES_WRITTEN','INNODB_BUFFER_POOL_PAGES_DATA','INNODB_BUFFER_POOL_PAGES_FREE','INNODB_BUFFER_POOL_PAGES_DIRTY','INNODB_HISTORY_LIST_LENGTH')"
q "$q" > $W/m0
q "SELECT INDEX_NAME, PAGE_TYPE, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE GROUP BY 1,2 ORDER BY 3 DESC LIMIT 20" > $W/comp0
$A db run oltp_read_write --tables 4 --table-size 250000 $conn --threads 4 --time $T ${DBX:-} --json $W/real.json >/dev/null
q "$q" > $W/m1
q "SELECT INDEX_NAME, PAGE_TYPE, COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE GROUP BY 1,2 ORDER BY 3 DESC LIMIT 20" > $W/comp1
srv_stop
echo "server: TPS $(jq '.points[0].classes.txn.ops_per_s' $W/real.json)"
txns=$(jq '.points[0].classes.txn.ops' $W/real.json)
join -t $'\t' <(sort $W/m0) <(sort $W/m1) | awk -F'\t' -v n="$txns" '{printf "%-45s %10d %8.4f/txn\n", $1, $3-$2, ($3-$2)/n}'
echo "--- composition after"; cat $W/comp1
ram_down; rmdir $CG
