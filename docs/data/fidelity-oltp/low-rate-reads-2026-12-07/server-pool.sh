#!/bin/bash
# MariaDB 4x250k 128M on the fast ram loop: 120 s warm-up then 3 snapshots 20 s apart of the pool by page state, at --rate $RATE (0: unlimited)
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; BP=${BP:-128M}; RATE=${RATE:-120}
. "$(dirname "$0")/lib.sh"
ram_up
srv_load
sync; echo 3 > /proc/sys/vm/drop_caches
srv_start innodb_monitor_enable=all
$A db run oltp_read_write --tables 4 --table-size 250000 $conn --threads 4 --time 180 --rate $RATE >/dev/null &
sleep 120
for i in 1 2 3; do
  echo "== $((100+i*20)) s"
  q "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('COM_COMMIT','INNODB_PAGES_READ','INNODB_BUFFER_POOL_PAGES_FREE','INNODB_BUFFER_POOL_PAGES_DIRTY','INNODB_HISTORY_LIST_LENGTH')" | tr '\n' ' '; echo
  q "SELECT CONCAT(PAGE_STATE, ' ', PAGE_TYPE), COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE GROUP BY 1 ORDER BY 2 DESC" | tr '\n' ';'; echo
  q "SELECT IFNULL(INDEX_NAME,'-'), COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE WHERE INDEX_NAME IS NOT NULL GROUP BY 1" | tr '\n' ';'; echo
  q "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ('index_page_merge_successful','buffer_flush_adaptive_total_pages','buffer_LRU_batch_evict_total_pages','log_lsn_checkpoint_age')" | tr '\n' ' '; echo
  sleep 17
done
wait
srv_stop
ram_down
