#!/bin/bash
# pg-autovacuum.sh [DIR]: p-fit's sequence on PostgreSQL 15 (4 x 100,000 rows prepared,
# VACUUM ANALYZE, restarted with shared_buffers 128MB; 30 s of oltp_read_write at 8
# threads, then 15 s at 2), and what autovacuum did: pg_stat_user_tables after it.
set -e
# run from the repository, ./appio built, as root or a user who can run PostgreSQL
S=${1:-./pgav}; A=./appio
scripts/db-stop.sh $S --remove >/dev/null 2>&1 || true; rm -rf $S
conn=$(scripts/db-start.sh postgres $S shared_buffers=512MB max_wal_size=96MB 2>/dev/null | tail -1)
$A db prepare oltp_read_write $conn --tables 4 --table-size 100000 --threads 2 >/dev/null
psql -X -q -h $S -p $(cat $S/port) -U appio appio -c "VACUUM ANALYZE"
scripts/db-stop.sh $S >/dev/null
conn=$(scripts/db-start.sh postgres $S shared_buffers=128MB max_wal_size=1GB synchronous_commit=on log_autovacuum_min_duration=0 2>/dev/null | tail -1)
date +"start %T"
$A db run oltp_read_write $conn --tables 4 --table-size 100000 --threads 8 --time 30 >/dev/null 2>&1
date +"warm-up done %T"
$A db run oltp_read_write $conn --tables 4 --table-size 100000 --threads 2 --time 15 >/dev/null 2>&1
date +"p2 done %T"
psql -X -q -h $S -p $(cat $S/port) -U appio appio -c "SELECT relname, n_dead_tup, vacuum_count, autovacuum_count, autoanalyze_count, last_autovacuum, last_autoanalyze FROM pg_stat_user_tables ORDER BY relname"
scripts/db-stop.sh $S --remove >/dev/null 2>&1 || true
