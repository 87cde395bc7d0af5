#!/bin/bash
# MariaDB 4x250k 128M on the fast ram loop: 120 s warm-up then 3 snapshots 20 s apart of the pool by page state, at --rate $RATE (0: unlimited)
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; BP=${BP:-128M}; RATE=${RATE:-120}
mkdir -p $W/tm $W/mnt
mountpoint -q $W/tm || mount -t tmpfs -o size=6g tmpfs $W/tm
truncate -s 5G $W/tm/img; DEV=$(losetup -f --show $W/tm/img); mkfs.ext4 -q $DEV; mount $DEV $W/mnt
SRV=$W/mnt/srv
conn=$($R/scripts/db-start.sh mariadb $SRV innodb_buffer_pool_size=$BP 2>/dev/null | tail -1)
$A db prepare oltp_read_write --tables 4 --table-size 250000 $conn --threads 2 >/dev/null
$R/scripts/db-stop.sh $SRV >/dev/null
sync; echo 3 > /proc/sys/vm/drop_caches
conn=$($R/scripts/db-start.sh mariadb $SRV innodb_buffer_pool_size=$BP innodb_monitor_enable=all 2>/dev/null | tail -1)
q() { mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e "$1"; }
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
$R/scripts/db-stop.sh $SRV >/dev/null
umount $W/mnt; losetup -d $DEV; rm -f $W/tm/img; umount $W/tm
