#!/usr/bin/env bash
# bench-vs-sysbench.sh - appio db against sysbench 1.0 on the same server and
# the same data, to show the client is not what limits the figures.
#
#   scripts/bench-vs-sysbench.sh [mariadb] [postgres]      (default: both)
#
# For each server: start a throwaway one (scripts/db-start.sh, in
# $BENCH_DIR or a folder under the current one), prepare one data set with
# appio, then for oltp_point_select and oltp_read_write at 2, 8 and 32
# threads run sysbench and appio alternately ($REPEAT times each, $TIME
# seconds per run) and print per case the medians and the appio/sysbench
# ratios of TPS (want >= 1.0) and of p99 latency (want <= 1.0), and the
# client CPU seconds (user + system) each spent per 1,000 transactions.
#
# Then TPC-C: with SYSBENCH_TPCC set to a folder holding Percona-Lab
# sysbench-tpcc's scripts (tpcc.lua, tpcc_common.lua, tpcc_run.lua,
# tpcc_check.lua), appio prepares TPCC_SCALE warehouses and sysbench 1.0
# running tpcc.lua and 'appio db run tpcc' take turns on those tables at
# TPCC_THREADS, compared the same way (TPS, p99, client CPU per 1,000
# transactions); sysbench-tpcc's own check then runs on the tables both
# used. Without SYSBENCH_TPCC this part is skipped, saying so.
#
# Environment: TABLES (4), TABLE_SIZE (100000), TIME (10), REPEAT (2),
# THREADS ("2 8 32"), WORKLOADS ("oltp_point_select oltp_read_write"; empty
# for TPC-C alone),
# SYSBENCH_TPCC, TPCC_SCALE (2), TPCC_THREADS ("2 8"),
# APPIO (./appio), BENCH_DIR, and KEEP=1 to leave the servers running.
# Both tools share the two CPUs with the server here, so a client that uses
# less CPU per transaction leaves more to the server.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
APPIO=${APPIO:-$ROOT/appio}
TABLES=${TABLES:-4}
TABLE_SIZE=${TABLE_SIZE:-100000}
TIME=${TIME:-10}
REPEAT=${REPEAT:-2}
THREADS=${THREADS:-"2 8 32"}
WORKLOADS=${WORKLOADS-"oltp_point_select oltp_read_write"}     # empty: TPC-C only
SYSBENCH_TPCC=${SYSBENCH_TPCC:-}
TPCC_SCALE=${TPCC_SCALE:-2}
TPCC_THREADS=${TPCC_THREADS:-"2 8"}
KINDS=("$@")
[ ${#KINDS[@]} -gt 0 ] || KINDS=(mariadb postgres)

die() { echo "bench-vs-sysbench: $*" >&2; exit 2; }
command -v sysbench >/dev/null || die "sysbench is not installed"
command -v jq >/dev/null || die "jq is not installed"
TIMEFORMAT='%U %S'             # bash's time: the client's user and system CPU seconds
[ -x "$APPIO" ] || die "no appio binary at '$APPIO' (run make)"

BASE=${BENCH_DIR:-$(mktemp -d "$PWD/appio-bench.XXXXXX")}
mkdir -p "$BASE"
chmod 755 "$BASE"
WORK=$(mktemp -d)
SERVERS=()
cleanup() {
	if [ "${KEEP:-0}" != 1 ]; then
		for s in "${SERVERS[@]+"${SERVERS[@]}"}"; do [ -z "$s" ] || "$ROOT/scripts/db-stop.sh" "$s" --remove || true; done
		[ -n "${BENCH_DIR:-}" ] || rm -rf "$BASE"
	fi
	rm -rf "$WORK"
}
trap cleanup EXIT

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR % 2) print v[(NR + 1) / 2]; else print (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# sysbench_args: appio connection options -> SysBench's
. "$ROOT/scripts/sysbench-args.sh"

# run_sysbench WORKLOAD THREADS -> "tps p99_ms cpu_s txns"
run_sysbench() {
	local log="$WORK/sb.out"
	if [ "$1" = tpcc ]; then
		# shellcheck disable=SC2046
		{ time LUA_PATH="$SYSBENCH_TPCC/?.lua;;" sysbench "$SYSBENCH_TPCC/tpcc.lua" \
			$(sysbench_args "${CONN[@]}") --tables=1 --scale="$TPCC_SCALE" --threads="$2" \
			--time="$TIME" --percentile=99 run >"$log" 2>&1; } 2>"$WORK/sb.time" ||
			{ tail -n 5 "$log" >&2; return 1; }
	else
		# shellcheck disable=SC2046
		{ time sysbench "$1" $(sysbench_args "${CONN[@]}") \
			--tables="$TABLES" --table-size="$TABLE_SIZE" --threads="$2" --time="$TIME" \
			--percentile=99 run >"$log" 2>&1; } 2>"$WORK/sb.time" || { tail -n 5 "$log" >&2; return 1; }
	fi
	local tps p99 txns cpu
	txns=$(sed -n 's/^ *transactions: *\([0-9]*\).*/\1/p' "$log")
	tps=$(sed -n 's/^ *transactions:.*(\([0-9.]*\) per sec.*/\1/p' "$log")
	p99=$(sed -n 's/^ *99th percentile: *\([0-9.]*\).*/\1/p' "$log")
	cpu=$(awk '{ print $1 + $2 }' "$WORK/sb.time")
	echo "$tps $p99 $cpu $txns"
}

# run_appio WORKLOAD THREADS -> "tps p99_ms cpu_s txns"
run_appio() {
	local size=(--tables "$TABLES" --table-size "$TABLE_SIZE")
	[ "$1" != tpcc ] || size=(--tables 1 --scale "$TPCC_SCALE")
	{ time "$APPIO" db run "$1" "${CONN[@]}" "${size[@]}" --threads "$2" --time "$TIME" \
		--json "$WORK/ap.json" >"$WORK/ap.out" 2>&1; } 2>"$WORK/ap.time" || { tail -n 5 "$WORK/ap.out" >&2; return 1; }
	local cpu
	cpu=$(awk '{ print $1 + $2 }' "$WORK/ap.time")
	jq -r --arg cpu "$cpu" '.points[0].classes.txn |
		"\(.ops_per_s) \(.lat_ns.p99 / 1e6) \($cpu) \(.ops)"' "$WORK/ap.json"
}

bench_case() {  # KIND WORKLOAD THREADS
	local i sb ap
	: >"$WORK/sb.all"
	: >"$WORK/ap.all"
	for ((i = 0; i < REPEAT; i++)); do
		sb=$(run_sysbench "$2" "$3") && echo "$sb" >>"$WORK/sb.all"
		ap=$(run_appio "$2" "$3") && echo "$ap" >>"$WORK/ap.all"
	done
	local s_tps s_p99 s_cpu a_tps a_p99 a_cpu
	s_tps=$(cut -d' ' -f1 "$WORK/sb.all" | median)
	s_p99=$(cut -d' ' -f2 "$WORK/sb.all" | median)
	s_cpu=$(awk '$4 > 0 { print $3 / $4 * 1000 }' "$WORK/sb.all" | median)
	a_tps=$(cut -d' ' -f1 "$WORK/ap.all" | median)
	a_p99=$(cut -d' ' -f2 "$WORK/ap.all" | median)
	a_cpu=$(awk '$4 > 0 { print $3 / $4 * 1000 }' "$WORK/ap.all" | median)
	awk -v k="$1" -v w="$2" -v t="$3" -v st="$s_tps" -v at="$a_tps" -v sp="$s_p99" -v ap="$a_p99" \
		-v sc="$s_cpu" -v ac="$a_cpu" 'BEGIN {
		printf "%-9s %-18s %4d %10.0f %10.0f %6.2f %9.2f %9.2f %6.2f %9.3f %9.3f\n",
			k, w, t, st, at, (st > 0 ? at / st : 0), sp, ap, (sp > 0 ? ap / sp : 0), sc, ac }'
}

bench_server() {
	local kind=$1 dir=$BASE/$1
	[ -d "$dir" ] && "$ROOT/scripts/db-stop.sh" "$dir" --remove >/dev/null 2>&1 || true
	local conn
	conn=$("$ROOT/scripts/db-start.sh" "$kind" "$dir" | tail -n 1) || die "cannot start $kind"
	SERVERS+=("$dir")
	# shellcheck disable=SC2206
	CONN=($conn)
	[ -z "$WORKLOADS" ] || "$APPIO" db prepare oltp_read_write "${CONN[@]}" --tables "$TABLES" \
		--table-size "$TABLE_SIZE" --threads "$TABLES" | sed "s/^/# $kind: /"
	local w t
	for w in $WORKLOADS; do
		for t in $THREADS; do
			bench_case "$kind" "$w" "$t"
		done
	done
	if [ -n "$SYSBENCH_TPCC" ]; then
		"$APPIO" db prepare tpcc "${CONN[@]}" --tables 1 --scale "$TPCC_SCALE" --threads "$TPCC_SCALE" \
			2>/dev/null | sed "s/^/# $kind: /"
		for t in $TPCC_THREADS; do
			bench_case "$kind" tpcc "$t"
		done
		# shellcheck disable=SC2046
		LUA_PATH="$SYSBENCH_TPCC/?.lua;;" sysbench "$SYSBENCH_TPCC/tpcc.lua" $(sysbench_args "${CONN[@]}") \
			--tables=1 --scale="$TPCC_SCALE" --threads=1 check 2>&1 | { grep -c "PASSED" || true; } |
			sed "s|^|# $kind: sysbench-tpcc's check after both tools ran: PASSED lines (10 per warehouse): |"
	fi
	"$ROOT/scripts/db-stop.sh" "$dir" --remove >/dev/null 2>&1 || true
	SERVERS=("${SERVERS[@]/$dir}")
}

echo "# appio db vs sysbench $(sysbench --version | cut -d' ' -f2): $TABLES tables x $TABLE_SIZE rows," \
	"$TIME s per run, median of $REPEAT alternating runs"
printf "%-9s %-18s %4s %10s %10s %6s %9s %9s %6s %9s %9s\n" server workload thr \
	"sb TPS" "appio TPS" ratio "sb p99ms" "ap p99ms" ratio "sb cpu/1k" "ap cpu/1k"
if [ -z "$SYSBENCH_TPCC" ]; then
	echo "# tpcc: skipped (set SYSBENCH_TPCC to a folder with Percona-Lab sysbench-tpcc's tpcc.lua)"
elif [ ! -f "$SYSBENCH_TPCC/tpcc.lua" ]; then
	die "SYSBENCH_TPCC='$SYSBENCH_TPCC' has no tpcc.lua"
fi
for k in "${KINDS[@]}"; do
	bench_server "$k"
done
