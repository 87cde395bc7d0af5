#!/bin/bash
# pg-tpcc-stmts.sh [DIR] [SCALE]: which statements read and dirty pages: p-wN's sequence
# (prepare, VACUUM ANALYZE, restart at shared_buffers 128MB, 30 s warm-up at 8 threads,
# 15 s at 2, 15 s at 8) with pg_stat_statements, reset before the 8-thread point.
set -e
S=${1:-./pgt}; W=${2:-2}; A=${APPIO:-./appio}
scripts/db-stop.sh $S --remove >/dev/null 2>&1 || true; rm -rf $S
conn=$(scripts/db-start.sh postgres $S shared_buffers=512MB max_wal_size=1GB 2>/dev/null | tail -1)
$A db prepare tpcc $conn --tables 1 --scale $W --threads 2 >/dev/null 2>&1
psql -X -q -h $S -p $(cat $S/port) -U appio appio -c "VACUUM ANALYZE"
scripts/db-stop.sh $S >/dev/null
conn=$(scripts/db-start.sh postgres $S shared_buffers=128MB max_wal_size=1GB synchronous_commit=on shared_preload_libraries=pg_stat_statements pg_stat_statements.track=all 2>/dev/null | tail -1)
P="psql -X -q -h $S -p $(cat $S/port) -U appio appio"
$P -c "CREATE EXTENSION pg_stat_statements"
$A db run tpcc $conn --tables 1 --scale $W --threads 8 --time 30 >/dev/null 2>&1
$A db run tpcc $conn --tables 1 --scale $W --threads 2 --time 15 >/dev/null 2>&1
$P -c "SELECT pg_stat_statements_reset()" >/dev/null
$A db run tpcc $conn --tables 1 --scale $W --threads 8 --time 15 --json $S.p.json >/dev/null 2>&1
echo "txns $(jq -c '.points[0].classes.txn.ops' $S.p.json)"
$P -c "SELECT calls, shared_blks_read rd, shared_blks_hit hit, shared_blks_dirtied dirt, shared_blks_written wr, wal_bytes, wal_records, wal_fpi, left(regexp_replace(query, '\s+', ' ', 'g'), 110) q FROM pg_stat_statements ORDER BY wal_bytes DESC LIMIT 40"
$P -c "SELECT * FROM pg_stat_bgwriter"
scripts/db-stop.sh $S --remove >/dev/null 2>&1 || true
