#!/bin/bash
# undo-pages-in-pool.sh [OUT]: where MariaDB's undo pages live during m-fit's
# sequence. A throwaway server (scripts/db-start.sh) with a 128M pool and 96M
# redo, 4 x 100,000 rows (TABLES, ROWS), 30 s of oltp_read_write at 8 threads,
# then 32 s at 2 threads while every undo page in the pool is listed every 2 s
# (INNODB_BUFFER_PAGE) with the LSN, the undo pages written and the history
# length: OUT/samples.tsv (default ./undo-measure). Run from the repository.
set -e
O=${1:-./undo-measure}; mkdir -p "$O"; O=$(cd "$O" && pwd); S=$O/srv
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true; rm -rf "$S"
conn=$(scripts/db-start.sh mariadb "$S" innodb_buffer_pool_size=128M innodb_log_file_size=96M innodb_monitor_enable=all 2>/dev/null | tail -1)
q() { mariadb --no-defaults --socket="$S/mysqld.sock" -uroot -N -B -e "$1"; }
sz=(--tables "${TABLES:-4}" --table-size "${ROWS:-100000}")
./appio db prepare oltp_read_write $conn "${sz[@]}" --threads 2 >/dev/null
./appio db run oltp_read_write $conn "${sz[@]}" --threads 8 --time 30 >/dev/null 2>&1
./appio db run oltp_read_write $conn "${sz[@]}" --threads 2 --time 32 --json "$O/run.json" >/dev/null 2>&1 &
: >"$O/samples.tsv"
for i in $(seq 1 15); do
	sleep 2
	lsn=$(q "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" | cut -f2)
	w=$(q "SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME='buffer_page_written_undo_log'")
	hl=$(q "SHOW GLOBAL STATUS LIKE 'Innodb_history_list_length'" | cut -f2)
	q "SELECT PAGE_NUMBER, OLDEST_MODIFICATION, NEWEST_MODIFICATION, IS_OLD FROM information_schema.INNODB_BUFFER_PAGE WHERE PAGE_TYPE='UNDO_LOG'" |
		awk -v i="$i" -v lsn="$lsn" -v w="$w" -v hl="$hl" -v t="$(date +%s.%N)" '{print i"\t"t"\t"lsn"\t"w"\t"hl"\t"$0}' >>"$O/samples.tsv"
done
wait
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true
