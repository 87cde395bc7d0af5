#!/bin/bash
# MariaDB 4x250k 128M on the RAM loop device, --rate RATE: the k indexes' page numbers (INNODB_BUFFER_PAGE) about every second for N snapshots after 100 s, with splits, merges, pages created and commits (server-k-pages-rate120.txt.gz)
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; BP=${BP:-128M}; RATE=${RATE:-120}; N=${N:-60}
. "$(dirname "$0")/lib.sh"
ram_up
srv_load
srv_start innodb_monitor_enable=all
$A db run oltp_read_write --tables 4 --table-size 250000 $conn --threads 4 --time $((100+N)) --rate $RATE >/dev/null &
sleep 100
rm -f $W/kpages.txt
for i in $(seq 1 $N); do
  t=$(date +%s.%N)
  q "SELECT '$t', INDEX_NAME, TABLE_NAME, PAGE_NUMBER, NUMBER_RECORDS, IS_OLD FROM information_schema.INNODB_BUFFER_PAGE WHERE INDEX_NAME LIKE 'k\\_%'" >> $W/kpages.txt
  q "SELECT '$t', 'M', NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ('index_page_splits','index_page_merge_successful') UNION ALL SELECT '$t', 'S', VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME IN ('INNODB_PAGES_CREATED','COM_COMMIT')" >> $W/kpages.txt
  sleep 0.7
done
wait
srv_stop
ram_down
