#!/bin/bash
# MariaDB 4x250k 128M on the RAM loop device, --rate RATE: every 5 s after 100 s, the freed frames by tablespace (listed as space 0, page 0) and the undo pages by page number (server-undo-pages.txt)
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; BP=${BP:-128M}; RATE=${RATE:-120}; N=${N:-6}
. "$(dirname "$0")/lib.sh"
ram_up
srv_rate_run $((N*5))
for i in $(seq 1 $N); do
  echo "== sample $i"
  q "SELECT SPACE, COUNT(*), MIN(PAGE_NUMBER), MAX(PAGE_NUMBER) FROM information_schema.INNODB_BUFFER_PAGE WHERE PAGE_STATE='FILE_PAGE' AND PAGE_TYPE='UNKNOWN' GROUP BY SPACE"
  q "SELECT 'undo', SPACE, COUNT(*), MIN(PAGE_NUMBER), MAX(PAGE_NUMBER) FROM information_schema.INNODB_BUFFER_PAGE WHERE PAGE_TYPE='UNDO_LOG' GROUP BY SPACE"
  q "SELECT 'undo0', GROUP_CONCAT(PAGE_NUMBER ORDER BY PAGE_NUMBER) FROM information_schema.INNODB_BUFFER_PAGE WHERE PAGE_TYPE='UNDO_LOG' AND SPACE=0"
  q "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE NAME IN ('trx_rseg_current_size','trx_rseg_history_len','buffer_pages_created')"
  sleep 3
done
wait
srv_stop
ram_down
