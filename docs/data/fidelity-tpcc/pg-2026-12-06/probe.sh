#!/bin/bash
# probe.sh MODE [DIR] [SCALE]: p-wN's sequence of scripts/fidelity-tpcc.sh on PostgreSQL 15
# (SCALE warehouses prepared, VACUUM ANALYZE, the server restarted with shared_buffers 128MB
# and max_wal_size 1GB; 'appio db run tpcc' for 30 s at 8 threads, 15 s at 2, 15 s at 8),
# and what the server counted, by MODE:
#   tables      the tables' counters after each phase (dead and changed tuples, autovacuum's
#               and autoanalyze's runs, pages read) and autovacuum's log
#   indexes     the relations' sizes after the load; pages read per index and the tables'
#               counters, with UPDATEs, HOT UPDATEs and heap pages, after each phase
#   statements  pg_stat_statements over the 8-thread point by pages read; pg_stat_bgwriter
#   pool        the same, and shared_buffers by relation at the end (pg_buffercache)
#   wal         pg_stat_statements over the 8-thread point by WAL bytes; pg_stat_bgwriter
#   bgwriter    pg_stat_bgwriter every second through the run (who wrote when), and
#               pg_stat_statements over the 2-thread point by pages written (a backend's
#               evictions; buffers_backend also counts the relations' extensions)
# From the repository, ./appio built, as root or a user who can run PostgreSQL.
set -e
MODE=${1:-}
case $MODE in
tables | indexes | statements | pool | wal | bgwriter) ;;
*) echo "usage: probe.sh tables|indexes|statements|pool|wal|bgwriter [DIR] [SCALE]" >&2; exit 2 ;;
esac
S=${2:-./pgt} W=${3:-2} A=${APPIO:-./appio}
P() { psql -X -q -h "$S" -p "$(cat "$S/port")" -U appio appio "$@"; }
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true
rm -rf "$S"
conn=$(scripts/db-start.sh postgres "$S" shared_buffers=512MB max_wal_size=1GB 2>/dev/null | tail -1)
$A db prepare tpcc $conn --tables 1 --scale "$W" --threads 2 >/dev/null 2>&1
P -c "VACUUM ANALYZE"
scripts/db-stop.sh "$S" >/dev/null
set -- shared_buffers=128MB max_wal_size=1GB synchronous_commit=on log_autovacuum_min_duration=0
case $MODE in
statements | wal | bgwriter) set -- "$@" shared_preload_libraries=pg_stat_statements pg_stat_statements.track=all ;;
pool) set -- "$@" shared_preload_libraries=pg_stat_statements,pg_buffercache pg_stat_statements.track=all ;;
esac
conn=$(scripts/db-start.sh postgres "$S" "$@" 2>/dev/null | tail -1)

tables() {      # $1: more columns
	P -c "SELECT s.relname, n_dead_tup, n_mod_since_analyze, autovacuum_count av,
		autoanalyze_count aa, heap_blks_read, idx_blks_read,
		to_char(last_autovacuum, 'HH24:MI:SS') lav, to_char(last_autoanalyze, 'HH24:MI:SS') laa$1
		FROM pg_stat_user_tables s JOIN pg_statio_user_tables i USING (relid) ORDER BY s.relname"
}
snap() {
	echo "== $1 $(date +%T)"
	case $MODE in
	tables) tables "" ;;
	indexes)
		P -c "SELECT indexrelname, idx_blks_read, idx_blks_hit FROM pg_statio_user_indexes ORDER BY 1"
		tables ", n_tup_upd upd, n_tup_hot_upd hot, pg_relation_size(s.relid) / 8192 pages" ;;
	esac
}
point() {
	$A db run tpcc $conn --tables 1 --scale "$W" --threads "$1" --time "$2" --json "$S.p.json" >/dev/null 2>&1
	echo "transactions: $(jq '.points[0].classes.txn.ops' "$S.p.json")"
}
case $MODE in
statements | wal | bgwriter) P -c "CREATE EXTENSION pg_stat_statements" ;;
pool) P -c "CREATE EXTENSION pg_stat_statements" -c "CREATE EXTENSION pg_buffercache" ;;
indexes) P -c "SELECT relname, relkind, relpages, reltuples::bigint, pg_relation_size(oid) / 8192 AS pages
		FROM pg_class WHERE relnamespace = 'public'::regnamespace ORDER BY 1" ;;
esac
stmts="SELECT calls, shared_blks_read rd, shared_blks_hit hit, shared_blks_dirtied dirt,
	shared_blks_written wr, wal_bytes, wal_records, wal_fpi,
	left(regexp_replace(query, '\s+', ' ', 'g'), 110) q FROM pg_stat_statements"
if [ "$MODE" = bgwriter ]; then
	(while :; do
		P -At -F ' ' -c "SELECT to_char(now(), 'HH24:MI:SS'), buffers_clean, maxwritten_clean,
			buffers_backend, buffers_alloc, buffers_checkpoint FROM pg_stat_bgwriter" 2>/dev/null || exit 0
		sleep 1
	done > "$S.bgw") &
	sampler=$!
fi
snap start
point 8 30
snap warm-up
case $MODE in bgwriter) P -c "SELECT pg_stat_statements_reset()" >/dev/null ;; esac
point 2 15
snap p2
case $MODE in bgwriter) P -c "$stmts ORDER BY shared_blks_written DESC LIMIT 25" ;; esac
case $MODE in statements | wal | pool) P -c "SELECT pg_stat_statements_reset()" >/dev/null ;; esac
point 8 15
snap p8
case $MODE in
tables)
	echo "== server log: autovacuum"
	grep -A12 "automatic vacuum\|automatic analyze" "$S/pgdata/server.log" |
		grep -E "automatic|buffer usage|pages:|tuples:|index scan|avg read|WAL usage" ;;
statements) P -c "$stmts ORDER BY shared_blks_read DESC LIMIT 25" -c "SELECT * FROM pg_stat_bgwriter" ;;
bgwriter)
	kill "$sampler" 2>/dev/null || true
	echo "== pg_stat_bgwriter each second: time, buffers_clean, maxwritten_clean, buffers_backend, buffers_alloc, buffers_checkpoint"
	cat "$S.bgw"
	echo "== server log: autovacuum"
	grep -A12 "automatic vacuum\|automatic analyze" "$S/pgdata/server.log" |
		grep -E "automatic|buffer usage|avg read" ;;
wal) P -c "$stmts ORDER BY wal_bytes DESC LIMIT 40" -c "SELECT * FROM pg_stat_bgwriter" ;;
pool)
	P -c "$stmts ORDER BY shared_blks_read DESC LIMIT 25"
	P -c "SELECT c.relname, count(*) buffers, sum(b.isdirty::int) dirty, round(avg(b.usagecount), 2) usage
		FROM pg_buffercache b LEFT JOIN pg_class c ON b.relfilenode = pg_relation_filenode(c.oid)
		AND b.reldatabase = (SELECT oid FROM pg_database WHERE datname = current_database())
		GROUP BY 1 ORDER BY 2 DESC" ;;
esac
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true
