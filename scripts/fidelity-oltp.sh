#!/usr/bin/env bash
# fidelity-oltp.sh - the oltp emulator against the real database it models,
# on one drive, side by side.
#
#   scripts/fidelity-oltp.sh [mariadb] [postgres]      (default: both)
#
# For each configuration (CONFIGS, default "fit big"):
#   fit  TABLES_FIT x SIZE_FIT rows (default 4 x 100,000): the data fits the pool
#   big  TABLES_BIG x SIZE_BIG rows (default 8 x 250,000): ~4x the pool, reads hit the drive
# it starts a throwaway server (scripts/db-start.sh) with the buffer pool BP
# (default 128M) and the flush setting FLUSH (default 1), prepares the tables
# with 'appio db prepare', restarts the server cold, runs 'appio db run
# oltp_read_write' once per thread count (THREADS, default "2 4 8 16 32";
# WARMUP + TIME seconds each, default 5 + 30) reading the server's own
# counters before and after, then runs 'appio run oltp' with the same tables,
# table size, pool, flush setting and thread counts (for PostgreSQL with
# --direct 0: it does buffered I/O, as PostgreSQL 15 does). It prints per thread
# count, real vs emulated:
#   pages read, pages written, log bytes and fsyncs per transaction
#   (MariaDB: Innodb_pages_read, Innodb_pages_written, Innodb_lsn_current,
#   Innodb_data_fsyncs over Com_commit; PostgreSQL: heap+index blocks read,
#   buffers written by checkpointer, bgwriter and backends, pg_stat_wal
#   wal_bytes and wal_sync over xact_commit; the emulator: its counters over
#   its txns counter, fsyncs being log + data + doublewrite ones),
#   TPS, mean and p99 latency,
# and the CPU the machine and the server spent per statement (to calibrate
# --cpu-per-stmt and --client-rtt). DIR (default ./appio-fidelity) holds the
# servers and the emulator's file: put it on the drive under test. EMU_ARGS
# adds options to the emulator's runs (e.g. "--cpu-per-stmt 35 --client-rtt 40");
# REUSE_REAL=1 keeps the real
# server's figures of an earlier run in DIR and runs the emulator only. Runs take about
# 2 x configurations x thread counts x (WARMUP + TIME) seconds per server.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
APPIO=${APPIO:-$ROOT/appio}
DIR=${DIR:-./appio-fidelity}
BP=${BP:-128M}
FLUSH=${FLUSH:-1}
THREADS=${THREADS:-"2 4 8 16 32"}
TIME=${TIME:-30}
WARMUP=${WARMUP:-5}
CONFIGS=${CONFIGS:-"fit big"}
TABLES_FIT=${TABLES_FIT:-4} SIZE_FIT=${SIZE_FIT:-100000}
TABLES_BIG=${TABLES_BIG:-8} SIZE_BIG=${SIZE_BIG:-250000}
KINDS=("$@")
[ ${#KINDS[@]} -gt 0 ] || KINDS=(mariadb postgres)

die() { echo "fidelity-oltp: $*" >&2; exit 2; }
log() { echo "fidelity-oltp: $*" >&2; }
command -v jq >/dev/null || die "jq is needed"
[ -x "$APPIO" ] || die "no appio binary at '$APPIO' (run make)"
mkdir -p "$DIR"
chmod 755 "$DIR"
DIR=$(cd "$DIR" && pwd)
SRV=$DIR/srv
trap '"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null 2>&1 || true' EXIT

# busy jiffies of the whole machine, and of process $1
cpu_all() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
cpu_pid() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# counters KIND: "name=value ..." of the server's own statistics
counters() {
	case $1 in
	mariadb)
		mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e "SHOW GLOBAL STATUS WHERE
			Variable_name IN ('Innodb_pages_read','Innodb_pages_written','Innodb_lsn_current',
			'Innodb_data_fsyncs','Com_commit','Innodb_buffer_pool_read_requests')" |
			awk '{printf "%s=%s ", $1, $2}' ;;
	postgres)
		psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tA -F' ' -c "SELECT
			(SELECT coalesce(sum(heap_blks_read + idx_blks_read),0) FROM pg_statio_user_tables),
			(SELECT buffers_checkpoint + buffers_clean + buffers_backend FROM pg_stat_bgwriter),
			(SELECT wal_bytes FROM pg_stat_wal), (SELECT wal_sync FROM pg_stat_wal),
			(SELECT xact_commit FROM pg_stat_database WHERE datname = 'appio')" |
			awk '{printf "Pages_read=%s Pages_written=%s Log_bytes=%s Fsyncs=%s Commits=%s", $1, $2, $3, $4, $5}' ;;
	esac
}
val() { tr ' ' '\n' <<<"$1" | sed -n "s/^$2=//p"; }

server_pid() {
	case $1 in
	mariadb) cat "$SRV/mysqld.pid" ;;
	postgres) head -1 "$SRV/pgdata/postmaster.pid" ;;
	esac
}

start() {  # KIND: a fresh (or existing) server with the pool and flush settings
	local set=()
	case $1 in
	mariadb) set=(innodb_buffer_pool_size="$BP" innodb_flush_log_at_trx_commit="$FLUSH") ;;
	postgres) set=(shared_buffers="$(sed 's/[kMG]$/&B/' <<<"$BP")" synchronous_commit="$([ "$FLUSH" = 1 ] && echo on || echo off)") ;;
	esac
	"$ROOT/scripts/db-start.sh" "$1" "$SRV" "${set[@]}" 2>/dev/null | tail -n 1
}

# real KIND TABLES SIZE OUT: prepare, restart cold, one run per thread count
real() {
	local kind=$1 tables=$2 size=$3 out=$4 conn t
	"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
	conn=$(start "$kind") || die "cannot start $kind"
	log "$kind: preparing $tables x $size rows"
	# shellcheck disable=SC2086
	"$APPIO" db prepare oltp_read_write $conn --tables "$tables" --table-size "$size" --threads 2 >/dev/null
	"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null
	conn=$(start "$kind")
	: >"$out"
	for t in $THREADS; do
		local pid c0 c1 a0 a1 s0 s1
		pid=$(server_pid "$kind")
		s0=$(counters "$kind"); a0=$(cpu_all); c0=$(cpu_pid "$pid")
		# shellcheck disable=SC2086
		"$APPIO" db run oltp_read_write $conn --tables "$tables" --table-size "$size" --threads "$t" \
			--time "$TIME" --warmup-time "$WARMUP" --json "$DIR/real-$t.json" >/dev/null 2>&1
		s1=$(counters "$kind"); a1=$(cpu_all); c1=$(cpu_pid "$pid")
		jq -c --arg s0 "$s0" --arg s1 "$s1" --argjson cpu $((a1 - a0)) --argjson srv $((c1 - c0)) \
			'{threads: .points[0].threads, tps: .points[0].classes.txn.ops_per_s,
			  mean: .points[0].classes.txn.lat_ns.mean, p99: .points[0].classes.txn.lat_ns.p99,
			  s0: $s0, s1: $s1, cpu: $cpu, srv: $srv}' "$DIR/real-$t.json" >>"$out"
	done
	"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
}

# emulated KIND TABLES SIZE OUT
emulated() {
	local kind=$1 tables=$2 size=$3 out=$4 model=innodb extra=()
	local mb=$((256 + tables * size * 300 / 1048576))
	if [ "$kind" = postgres ]; then
		# PostgreSQL 15 reads and writes through the OS page cache: so does the emulator
		model=postgres mb=$((mb + 1024))
		extra=(--synchronous-commit "$([ "$FLUSH" = 1 ] && echo on || echo off)" --direct 0)
	else
		extra=(--flush-log-at-commit "$FLUSH")
	fi
	rm -f "$DIR/emu.dat"
	# lay the file out first and let the page cache drain, so that the first
	# fsync of the measured run does not write back the layout
	"$APPIO" run 128k-seqread --target "$DIR/emu.dat" --size "${mb}M" --time 1 >/dev/null
	sync
	"$APPIO" run oltp --target "$DIR/emu.dat" --size "${mb}M" --engine-model $model --buffer-pool "$BP" \
		"${extra[@]}" --tables "$tables" --table-size "$size" --threads "$(tr ' ' , <<<"$THREADS")" \
		--time "$TIME" --ramp "$WARMUP" ${EMU_ARGS:-} --json "$DIR/emu.json" >/dev/null
	jq -c '.points[] | {threads, tps: .classes.txn.ops_per_s, mean: .classes.txn.lat_ns.mean,
		p99: .classes.txn.lat_ns.p99, c: .counters}' "$DIR/emu.json" >"$out"
	rm -f "$DIR/emu.dat"
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }'; }
per() { awk -v a="$1" -v b="$2" -v f="${3:-%.2f}" 'BEGIN { if (b > 0) printf f, a / b; else print "-" }'; }

# report KIND CONFIG REAL EMU: the side-by-side table
report() {
	local kind=$1 cfg=$2 rf=$3 ef=$4 t
	printf '\n%s, %s (%s x %s rows, pool %s, flush %s)\n' "$kind" "$cfg" "$5" "$6" "$BP" "$FLUSH"
	printf '%-4s %-13s %-13s %-15s %-13s %-15s %-19s %-19s %s\n' T "reads/txn" "writes/txn" \
		"log B/txn" "fsyncs/txn" "TPS" "mean ms" "p99 ms" "cpu us/stmt machine,server"
	for t in $THREADS; do
		local r e s0 s1 n rr rw rl rf2 er ew el ef2 en
		r=$(jq -c "select(.threads == $t)" "$rf"); e=$(jq -c "select(.threads == $t)" "$ef")
		s0=$(jq -r .s0 <<<"$r"); s1=$(jq -r .s1 <<<"$r")
		if [ "$kind" = mariadb ]; then
			n=$(( $(val "$s1" Com_commit) - $(val "$s0" Com_commit) ))
			rr=$(( $(val "$s1" Innodb_pages_read) - $(val "$s0" Innodb_pages_read) ))
			rw=$(( $(val "$s1" Innodb_pages_written) - $(val "$s0" Innodb_pages_written) ))
			rl=$(( $(val "$s1" Innodb_lsn_current) - $(val "$s0" Innodb_lsn_current) ))
			rf2=$(( $(val "$s1" Innodb_data_fsyncs) - $(val "$s0" Innodb_data_fsyncs) ))
		else
			n=$(( $(val "$s1" Commits) - $(val "$s0" Commits) ))
			rr=$(( $(val "$s1" Pages_read) - $(val "$s0" Pages_read) ))
			rw=$(( $(val "$s1" Pages_written) - $(val "$s0" Pages_written) ))
			rl=$(awk -v a="$(val "$s1" Log_bytes)" -v b="$(val "$s0" Log_bytes)" 'BEGIN{printf "%d", a-b}')
			rf2=$(( $(val "$s1" Fsyncs) - $(val "$s0" Fsyncs) ))
		fi
		en=$(jq .c.txns <<<"$e")
		er=$(jq .c.bp_reads <<<"$e"); ew=$(jq .c.pages_written <<<"$e"); el=$(jq .c.log_bytes <<<"$e")
		ef2=$(jq '.c.log_fsyncs + .c.data_fsyncs + .c.dblwr_writes' <<<"$e")
		printf '%-4s %-13s %-13s %-15s %-13s %-15s %-19s %-19s %s\n' "$t" \
			"$(per "$rr" "$n")/$(per "$er" "$en")" "$(per "$rw" "$n")/$(per "$ew" "$en")" \
			"$(per "$rl" "$n" %.0f)/$(per "$el" "$en" %.0f)" "$(per "$rf2" "$n")/$(per "$ef2" "$en")" \
			"$(jq -r '.tps|floor' <<<"$r")/$(jq -r '.tps|floor' <<<"$e") ($(ratio "$(jq .tps <<<"$e")" "$(jq .tps <<<"$r")"))" \
			"$(jq -r '.mean/1e6*10|floor/10' <<<"$r")/$(jq -r '.mean/1e6*10|floor/10' <<<"$e")" \
			"$(jq -r '.p99/1e6*10|floor/10' <<<"$r")/$(jq -r '.p99/1e6*10|floor/10' <<<"$e")" \
			"$(per "$(jq '.cpu * 10000' <<<"$r")" "$((n * 20))" %.0f),$(per "$(jq '.srv * 10000' <<<"$r")" "$((n * 20))" %.0f)"
	done
	echo "(each cell: real/emulated; TPS ratio emulated/real in parentheses)"
}

for kind in "${KINDS[@]}"; do
	for cfg in $CONFIGS; do
		case $cfg in
		fit) tables=$TABLES_FIT size=$SIZE_FIT ;;
		big) tables=$TABLES_BIG size=$SIZE_BIG ;;
		*) die "unknown configuration '$cfg' (fit or big)" ;;
		esac
		if [ "${REUSE_REAL:-0}" = 1 ] && [ -s "$DIR/$kind-$cfg-real.jsonl" ]; then
			log "$kind $cfg: reusing the real server's figures"
		else
			log "$kind $cfg: real server"
			real "$kind" "$tables" "$size" "$DIR/$kind-$cfg-real.jsonl"
		fi
		log "$kind $cfg: emulator"
		emulated "$kind" "$tables" "$size" "$DIR/$kind-$cfg-emu.jsonl"
		report "$kind" "$cfg" "$DIR/$kind-$cfg-real.jsonl" "$DIR/$kind-$cfg-emu.jsonl" "$tables" "$size" |
			tee -a "$DIR/report.txt"
	done
done
