#!/bin/bash
# pg-tpcc-autovacuum.sh [DIR] [SCALE]: p-wN's sequence of fidelity-tpcc.sh on PostgreSQL 15
# (SCALE warehouses prepared, VACUUM ANALYZE, restarted with shared_buffers 128MB; 30 s of
# tpcc at 8 threads, then 15 s at 2, then 15 s at 8), with autovacuum logged and the
# tables' counters after each phase.
set -e
S=${1:-./pgt}; W=${2:-2}; A=${APPIO:-./appio}
scripts/db-stop.sh $S --remove >/dev/null 2>&1 || true; rm -rf $S
conn=$(scripts/db-start.sh postgres $S shared_buffers=512MB max_wal_size=1GB 2>/dev/null | tail -1)
$A db prepare tpcc $conn --tables 1 --scale $W --threads 2 >/dev/null 2>&1
psql -X -q -h $S -p $(cat $S/port) -U appio appio -c "VACUUM ANALYZE"
scripts/db-stop.sh $S >/dev/null
conn=$(scripts/db-start.sh postgres $S shared_buffers=128MB max_wal_size=1GB synchronous_commit=on log_autovacuum_min_duration=0 2>/dev/null | tail -1)
snap() {
	psql -X -q -h $S -p $(cat $S/port) -U appio appio -c "SELECT indexrelname, idx_blks_read, idx_blks_hit FROM pg_statio_user_indexes ORDER BY 1"
	echo "== $1 $(date +%T)"
	psql -X -q -h $S -p $(cat $S/port) -U appio appio -c "SELECT s.relname, n_dead_tup, n_mod_since_analyze, autovacuum_count av, autoanalyze_count aa, heap_blks_read, idx_blks_read, to_char(last_autovacuum,'HH24:MI:SS') lav, to_char(last_autoanalyze,'HH24:MI:SS') laa FROM pg_stat_user_tables s JOIN pg_statio_user_tables i USING (relid) ORDER BY s.relname"
}
psql -X -q -h $S -p $(cat $S/port) -U appio appio -c "SELECT relname, relkind, relpages, reltuples::bigint, pg_relation_size(oid)/8192 AS pages FROM pg_class WHERE relnamespace = 2200 ORDER BY 1"
snap start
$A db run tpcc $conn --tables 1 --scale $W --threads 8 --time 30 --json $S.p.json >/dev/null 2>&1; jq -c ".points[0].classes.txn.ops" $S.p.json
snap warm-up
$A db run tpcc $conn --tables 1 --scale $W --threads 2 --time 15 --json $S.p.json >/dev/null 2>&1; jq -c ".points[0].classes.txn.ops" $S.p.json
snap p2
$A db run tpcc $conn --tables 1 --scale $W --threads 8 --time 15 --json $S.p.json >/dev/null 2>&1; jq -c ".points[0].classes.txn.ops" $S.p.json
snap p8
echo "== server log: autovacuum"
grep -A12 "automatic vacuum\|automatic analyze" $S/pgdata/server.log | grep -E "automatic|buffer usage|pages:|tuples:|index scan|avg read|I/O tim|WAL usage" || ls $S
scripts/db-stop.sh $S --remove >/dev/null 2>&1 || true
