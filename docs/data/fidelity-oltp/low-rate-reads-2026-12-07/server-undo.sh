#!/bin/bash
# MariaDB 4x250k 128M on the RAM loop device, --rate RATE: every 5 s after 100 s, freed frames and the undo metrics (server-undo.txt)
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; BP=${BP:-128M}; RATE=${RATE:-120}; N=${N:-8}
. "$(dirname "$0")/lib.sh"
ram_up
srv_rate_run $((N*5))
for i in $(seq 1 $N); do
  q "SELECT CONCAT_WS(' ', (SELECT COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE WHERE PAGE_STATE='FILE_PAGE' AND PAGE_TYPE='UNKNOWN'), (SELECT GROUP_CONCAT(CONCAT(NAME,'=',COUNT) ORDER BY NAME SEPARATOR ' ') FROM information_schema.INNODB_METRICS WHERE NAME IN ('trx_rseg_current_size','trx_undo_slots_used','trx_undo_slots_cached','trx_rseg_history_len','index_page_merge_successful','index_page_splits','buffer_pages_created','purge_undo_log_pages')), (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='COM_COMMIT'))"
  sleep 4.5
done
wait
srv_stop
ram_down
