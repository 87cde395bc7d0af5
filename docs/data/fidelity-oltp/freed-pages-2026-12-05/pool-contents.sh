#!/bin/bash
# pool-contents.sh OUT [POOL [MODE [TABLES ROWS]]]: what MariaDB's buffer pool
# holds after each phase of the fidelity sequence. A throwaway server
# (scripts/db-start.sh), TABLES x ROWS (default 8 x 250,000) prepared with a
# 512M pool, restarted with POOL (default 128M), 96M redo and flush 1; 30 s
# of oltp_read_write at 8 threads, then 15 s of oltp_MODE (default
# read_write) at 2 and at 16 threads. After each: the status counters, and
# INNODB_BUFFER_PAGE grouped by index, page type, old sublist, more than 200
# records (a primary key's internal page, or any k leaf) and dirty, then by
# page state. A freed page (buf_page_free(), waiting for its release) shows
# as PAGE_STATE FILE_PAGE with PAGE_TYPE UNKNOWN and page 0:0 (its fields
# are not filled in). OUT/comp.txt. Run from the repository, ./appio built.
set -e
O=${1:?usage: pool-contents.sh OUT [POOL [MODE [TABLES ROWS]]]}
POOL=${2:-128M}; MODE=${3:-read_write}; TABLES=${4:-8}; ROWS=${5:-250000}
mkdir -p "$O"; O=$(cd "$O" && pwd); S=$O/srv
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true; rm -rf "$S"
conn=$(scripts/db-start.sh mariadb "$S" innodb_buffer_pool_size=512M innodb_log_file_size=96M 2>/dev/null | tail -1)
sz=(--tables "$TABLES" --table-size "$ROWS")
# shellcheck disable=SC2086
./appio db prepare oltp_read_write $conn "${sz[@]}" --threads 2 >/dev/null
scripts/db-stop.sh "$S" >/dev/null
conn=$(scripts/db-start.sh mariadb "$S" innodb_buffer_pool_size="$POOL" innodb_log_file_size=96M \
	innodb_flush_log_at_trx_commit=1 innodb_monitor_enable=all 2>/dev/null | tail -1)
q() { mariadb --no-defaults --socket="$S/mysqld.sock" -uroot -N -B -e "$1"; }
snap() {
	echo "== $1" >>"$O/comp.txt"
	q "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Innodb_buffer_pool_reads',
	   'Innodb_buffer_pool_pages_free', 'Innodb_buffer_pool_pages_dirty', 'Innodb_pages_written',
	   'Innodb_history_list_length')" >>"$O/comp.txt"
	q "SELECT IFNULL(INDEX_NAME, '-'), PAGE_TYPE, IS_OLD, NUMBER_RECORDS > 200, COUNT(*),
	   SUM(OLDEST_MODIFICATION > 0) FROM information_schema.INNODB_BUFFER_PAGE
	   GROUP BY 1, 2, 3, 4 ORDER BY 5 DESC" >>"$O/comp.txt"
	q "SELECT PAGE_STATE, PAGE_TYPE = 'UNKNOWN', COUNT(*) FROM information_schema.INNODB_BUFFER_PAGE
	   GROUP BY 1, 2" >>"$O/comp.txt"
	q "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS
	   WHERE NAME IN ('index_page_merge_successful', 'index_page_splits')" >>"$O/comp.txt"
}
# shellcheck disable=SC2086
./appio db run oltp_read_write $conn "${sz[@]}" --threads 8 --time 30 >/dev/null 2>&1
snap warm
for t in 2 16; do
	# shellcheck disable=SC2086
	./appio db run "oltp_$MODE" $conn "${sz[@]}" --threads $t --time 15 >/dev/null 2>&1
	snap "p$t"
done
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true
