#!/usr/bin/env bash
# fidelity-tpcc.sh - the tpcc emulator against the real database it models,
# over a matrix of configurations, on one drive.
#
#   scripts/fidelity-tpcc.sh [options] [mariadb] [postgres]   (default: both)
#
#   --matrix FILE        the configurations (default scripts/fidelity-tpcc.matrix),
#                        one a line: NAME ENGINE SCALE POOL REDO THREADS ROLE
#                        (see that file's header)
#   --only NAMES         only these configurations (comma list)
#   --replay-reference   no servers: run the emulator against the real servers'
#                        counters kept in REF (default docs/data/fidelity-tpcc)
#   --emu-from DIR       no emulator either: take its results from DIR (a
#                        previous run's DIR/emu, or REF/emulated), only compare
#   --check-baseline     exit 1 when a held-out cell that BASELINE (default
#                        REF/baseline.tsv) lists as within target is now outside it
#   --write-baseline     write BASELINE and keep the emulator's results beside it
#                        (REF/emulated)
#
# For each configuration, as a sysbench-tpcc user runs it: a copy of a freshly
# prepared data folder ('appio db prepare tpcc --tables 1 --scale SCALE', kept
# per engine and scale in DIR/golden), a server started on it with the pool
# and redo log / max_wal_size of the line (scripts/db-start.sh), its tables
# analyzed (PostgreSQL's vacuumed too; see analyze() for why), WARMUP_POINTS
# x TIME seconds (default 2 x 15) of tpcc at 8 threads, then one 'appio db run
# tpcc' per thread count (TIME seconds each) on the same server, reading the
# server's own counters before and after each (scripts/fidelity-lib.sh); their
# differences go to REF/NAME.json. Then 'appio run tpcc --mix sysbench-tpcc'
# with the same warehouses, pool and log size, --threads 8,8,T1,T2..: the
# same sequence, the pool kept warm from point to point, the first
# WARMUP_POINTS points left out (PostgreSQL with --direct 0: it does buffered
# I/O). Those warm-up points run as many transactions as the server's
# warm-up did (--warmup-txns, from REF/NAME.json), so that both start the
# measured points from the same work done.
#
# The report: per engine, each cell real/emulated (emulated/real) per
# configuration and thread count: pages read, pages written, redo bytes,
# fsyncs and doublewrite pages per transaction, TPS and p99; the share of
# cells within target (I/O within 25%, TPS and p99 within 1.5x) for
# calibrate and held-out rows apart; and whether the emulator ranks each
# configuration's thread counts by TPS as the server does; each transaction
# type's mean and p99 latency against the server's; and the drive's time for
# an 8 KiB write made durable when each server and each emulator ran (as
# scripts/fidelity-oltp.sh says). DIR (default
# ./appio-fidelity-tpcc) holds the servers, the emulator's file (put it on
# the drive under test), DIR/emu and DIR/report.txt. EMU_ARGS adds options to
# the emulator's runs; EMU=0 runs only the real servers; RESUME=1 keeps what
# REF and DIR/emu hold already. The default matrix takes about 40 minutes on
# 2 cores, the replay about 15.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/fidelity-lib.sh
. "$ROOT/scripts/fidelity-lib.sh"
APPIO=${APPIO:-$ROOT/appio}
DIR=${DIR:-./appio-fidelity-tpcc}
TIME=${TIME:-15}
WARMUP_POINTS=${WARMUP_POINTS:-2}
WARMUP_THREADS=8
MATRIX=$ROOT/scripts/fidelity-tpcc.matrix
ONLY= REPLAY=0 EMU_FROM= CHECK=0 WRITE_BASE=0 KINDS=()
# The server CPU a transaction (us) at each engine's first calibrate line
# when the model's CPU defaults were fitted: m-w1-fit at 8 threads, MariaDB's
# own (1 December 2026). PostgreSQL's was measured on a busy machine, where
# the whole machine's says nothing: none. The first guess of the session's
# --cpu-scale (cpu_scale in fidelity-lib.sh), which the line's own emulator
# run then refines.
declare -A CPU_REF=([mariadb]=1592)

die() { echo "fidelity-tpcc: $*" >&2; exit 2; }
log() { echo "fidelity-tpcc: $*" >&2; }

while [ $# -gt 0 ]; do
	case $1 in
	--matrix) [ $# -ge 2 ] || die "--matrix needs a file"; MATRIX=$2; shift 2 ;;
	--only) [ $# -ge 2 ] || die "--only needs a comma list of names"; ONLY=$2; shift 2 ;;
	--replay-reference) REPLAY=1; shift ;;
	--emu-from) [ $# -ge 2 ] || die "--emu-from needs a folder"; EMU_FROM=$2; REPLAY=1; shift 2 ;;
	--check-baseline) CHECK=1; shift ;;
	--write-baseline) WRITE_BASE=1; shift ;;
	mariadb|postgres) KINDS+=("$1"); shift ;;
	*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
[ ${#KINDS[@]} -gt 0 ] || KINDS=(mariadb postgres)
[ "$REPLAY" = 1 ] && REF=${REF:-$ROOT/docs/data/fidelity-tpcc}
command -v jq >/dev/null || die "jq is needed"
[ -r "$MATRIX" ] || die "--matrix: cannot read '$MATRIX'"
[ -n "$EMU_FROM" ] || [ -x "$APPIO" ] || die "no appio binary at '$APPIO' (run make)"
mkdir -p "$DIR"
chmod 755 "$DIR"
DIR=$(cd "$DIR" && pwd)
REF=${REF:-$DIR/reference}
mkdir -p "$DIR/emu"
[ "$REPLAY" = 1 ] || mkdir -p "$REF"
SRV=$DIR/srv
EMU_DIR=${EMU_FROM:-$DIR/emu}
trap '"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null 2>&1 || true' EXIT

# The matrix: "NAME ENGINE SCALE POOL REDO THREADS ROLE" lines.
configs() {
	awk -v only=",$ONLY," '
		/^[ \t]*(#|$)/ { next }
		NF != 7 { printf "fidelity-tpcc: %s:%d: expected 7 fields, got %d\n", FILENAME, FNR, NF > "/dev/stderr"; exit 2 }
		$3 !~ /^[0-9]+$/ { printf "fidelity-tpcc: %s:%d: scale \"%s\" is not a number\n", FILENAME, FNR, $3 > "/dev/stderr"; exit 2 }
		$7 != "calibrate" && $7 != "heldout" { printf "fidelity-tpcc: %s:%d: role \"%s\" is not calibrate or heldout\n", FILENAME, FNR, $7 > "/dev/stderr"; exit 2 }
		only == ",," || index(only, "," $1 ",") { print }
	' "$MATRIX"
}
wanted_kind() { local k; for k in "${KINDS[@]}"; do [ "$k" = "$1" ] && return 0; done; return 1; }

# golden KIND SCALE: a data folder with the tables freshly prepared, made once
golden() {
	local g=$DIR/golden/$1-w$2 conn
	[ -e "$g/done" ] && { echo "$g"; return; }
	rm -rf "$g" "$SRV"
	log "$1: preparing $2 warehouse(s)"
	conn=$(start "$1" 512M 96M 1) ||
		{ "$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1; rm -rf "$SRV"; conn=$(start "$1" 512M 96M 1); } ||
		die "cannot start $1 (see $SRV)"
	# shellcheck disable=SC2086
	"$APPIO" db prepare tpcc $conn --tables 1 --scale "$2" --threads 2 >/dev/null 2>"$DIR/prepare.err" ||
		die "$1: prepare failed: $(tail -n 1 "$DIR/prepare.err")"
	"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null
	mkdir -p "$(dirname "$g")"
	mv "$SRV" "$g"
	rm -f "$g/my.cnf" "$g/port" "$g/kind"
	du -sb "$g" | cut -f1 >"$g/bytes"
	touch "$g/done"
	echo "$g"
}

# analyze KIND: fresh statistics of every table, so the optimizer's plans are
# the ones a loaded database gets. sysbench-tpcc does not analyze ('appio db
# prepare' does since 8 December 2026, --analyze), and MariaDB may keep the
# statistics of a table taken while it was being loaded: with 1 warehouse its
# Stock-Level and Order-Status plans then read ~10,000 pages a transaction
# (40 times as many) and TPS fell 20-fold. Done on every start, so that a
# data folder prepared otherwise is measured alike.
# PostgreSQL's tables are vacuumed too, as its autovacuum does to freshly
# loaded tables within a minute: left to it, that first pass (every page read,
# hint bits and the visibility map written) fell inside the measured points.
analyze() {
	case $1 in
	mariadb) mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot appio -N -B -e \
		"ANALYZE TABLE warehouse1, district1, customer1, history1, orders1, new_orders1,
		 order_line1, stock1, item1" >/dev/null ;;
	postgres) psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -q -c "VACUUM ANALYZE" ;;
	esac
}

# one_run KIND CONN THREADS SECS OUT: one 'appio db run tpcc' between counter reads
one_run() {
	local kind=$1 conn=$2 t=$3 secs=$4 out=$5 pid s0 s1 a0 a1 c0 c1
	pid=$(server_pid "$kind")
	s0=$(counters "$kind"); a0=$(cpu_all); c0=$(cpu_pid "$pid")
	# shellcheck disable=SC2086
	"$APPIO" db run tpcc $conn --tables 1 --scale "$SCALE" --threads "$t" \
		--time "$secs" --json "$DIR/real-run.json" >/dev/null 2>"$DIR/real-run.err" ||
		{ log "$kind: tpcc at $t threads failed: $(tail -n 1 "$DIR/real-run.err")"; return 1; }
	s1=$(counters "$kind"); a1=$(cpu_all); c1=$(cpu_pid "$pid")
	jq -c --argjson s0 "$s0" --argjson s1 "$s1" --argjson g "$GAUGES" \
		--argjson cpu $((a1 - a0)) --argjson srv $((c1 - c0)) \
		'.points[0] as $p | {threads: $p.threads, time_s: $p.time_s, txns: $p.classes.txn.ops,
		  tps: $p.classes.txn.ops_per_s, mean: $p.classes.txn.lat_ns.mean,
		  p99: $p.classes.txn.lat_ns.p99, max: $p.classes.txn.lat_ns.max, cpu: $cpu, srv: $srv,
		  types: ($p.classes | with_entries(select(.key != "txn") | .value |= {ops, mean: .lat_ns.mean, p99: .lat_ns.p99})),
		  retries: $p.counters.retries,
		  d: ($s1 | with_entries(select(.key as $k | $g | index($k) | not) | .value -= ($s0[.key] // 0))),
		  end: ($s1 | with_entries(select(.key as $k | $g | index($k))))}' "$DIR/real-run.json" >>"$out"
}

# real NAME KIND SCALE POOL REDO THREADS ROLE: REF/NAME.json
real() {
	local name=$1 kind=$2 pool=$4 redo=$5 threads=$6 role=$7 g conn t
	SCALE=$3
	g=$(golden "$kind" "$SCALE")
	"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
	rm -rf "$SRV"
	cp -a "$g" "$SRV"
	rm -f "$SRV/done"
	conn=$(start "$kind" "$pool" "$redo" 1) || die "cannot start $kind for $name"
	local pts=$DIR/real-points.jsonl srvcfg drive d0 d1
	srvcfg=$(settings "$kind")
	analyze "$kind" || die "$name: ANALYZE (VACUUM ANALYZE on postgres) failed"
	: >"$pts"
	log "$name: warm-up, $((WARMUP_POINTS * TIME)) s of tpcc at $WARMUP_THREADS threads"
	: >"$DIR/real-warm.jsonl.tmp"
	one_run "$kind" "$conn" "$WARMUP_THREADS" $((WARMUP_POINTS * TIME)) "$DIR/real-warm.jsonl.tmp" ||
		die "$name: the warm-up failed"
	d0=$(drive_flush_us "$DIR") || d0=
	for t in ${threads//,/ }; do
		log "$name: tpcc at $t threads"
		one_run "$kind" "$conn" "$t" "$TIME" "$pts" || die "$name: a point failed"
	done
	d1=$(drive_flush_us "$DIR") || d1=
	drive=$(drive_mean "$d0" "$d1")
	jq -n --arg name "$name" --arg kind "$kind" --argjson scale "$SCALE" \
		--arg pool "$pool" --arg redo "$redo" --arg role "$role" --argjson time "$TIME" \
		--argjson wp "$WARMUP_POINTS" --argjson wt "$WARMUP_THREADS" --argjson set "$srvcfg" \
		--argjson bytes "$(cat "$g/bytes")" --argjson drive "${drive:-null}" \
		--slurpfile warm "$DIR/real-warm.jsonl.tmp" --slurpfile pts "$pts" \
		'{name: $name, engine: $kind, scale: $scale, pool: $pool, redo: $redo, flush: 1,
		  role: $role, time: $time, data_dir_bytes: $bytes, drive: {flush_us: $drive},
		  warmup: {time: ($wp * $time), threads: $wt, run: $warm[0]}, server: $set, points: $pts}' \
		>"$REF/$name.json"
	rm -f "$DIR/real-warm.jsonl.tmp"
	"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
}

# emulated NAME KIND SCALE POOL REDO THREADS: EMU_DIR/NAME.jsonl
emulated() {
	local name=$1 kind=$2 scale=$3 pool=$4 redo=$5 threads=$6
	local model=innodb extra=() mb warm="" warm_txns=0 d0 d1
	mb=$((320 + scale * 320 + $(numfmt --from=iec "$redo") / 1048576))
	if [ "$kind" = postgres ]; then
		model=postgres
		extra=(--direct 0)
	fi
	for _ in $(seq "$WARMUP_POINTS"); do warm+="$WARMUP_THREADS,"; done
	# the server's warm-up: the same work, whatever the model's rate
	[ "$WARMUP_POINTS" = 0 ] || warm_txns=$(jq -r '.warmup.run.txns // 0' "$REF/$name.json") ||
		die "$name: cannot read '$REF/$name.json'"
	rm -f "$DIR/emu.dat"
	"$APPIO" run 128k-seqread --target "$DIR/emu.dat" --size "${mb}M" --time 1 >/dev/null
	sync
	d0=$(drive_flush_us "$DIR") || d0=
	# one run at --cpu-scale $1 (emulate_scaled fits it on the calibrate line)
	emu_once() {
		# shellcheck disable=SC2086
		"$APPIO" run tpcc --target "$DIR/emu.dat" --size "${mb}M" --engine-model $model --buffer-pool "$pool" \
			--log-size "$redo" --warehouses "$scale" --mix sysbench-tpcc "${extra[@]}" \
			--threads "$warm$threads" --warmup-points "$WARMUP_POINTS" --warmup-txns "$warm_txns" \
			--time "$TIME" --cpu-scale "$1" ${EMU_ARGS:-} \
			--json "$DIR/emu.json" >/dev/null || return 1
		# cum: the counters from the run's start (warm-up included) to the point's end
		jq -c --argjson wp "$WARMUP_POINTS" --argjson s "$1" "$JQ_CUM"'.points as $all |
			range($wp; $all | length) as $i | $all[$i] | {threads,
			tps: .classes.txn.ops_per_s, cpu_s, scale: $s,
			mean: .classes.txn.lat_ns.mean, p99: .classes.txn.lat_ns.p99, max: .classes.txn.lat_ns.max,
			types: (.classes | with_entries(select(.key | IN("new_order", "payment", "order_status",
			  "delivery", "stock_level")) | .value |= {ops, mean: .lat_ns.mean, p99: .lat_ns.p99})),
			c: .counters, cum: cum($all; $i)}' \
			"$DIR/emu.json" >"$EMU_DIR/$name.jsonl"
	}
	emulate_scaled "$kind" "$name" emu_once || die "$name: the emulator failed"
	d1=$(drive_flush_us "$DIR") || d1=
	drive_mean "$d0" "$d1" >"$EMU_DIR/$name.drive"
	rm -f "$DIR/emu.dat"
}

# threads_rank CELLS: per configuration, are its thread counts in the same TPS order?
threads_rank() {
	awk '$5 == "tps" { k = $1 " " $2; n[k]++; t[k, n[k]] = $4; r[k, n[k]] = $6; e[k, n[k]] = $7 }
	END {
		for (k in n) {
			d = 0; p = 0
			for (i = 1; i <= n[k]; i++) for (j = i + 1; j <= n[k]; j++) {
				p++; if ((r[k, i] - r[k, j]) * (e[k, i] - e[k, j]) < 0) d++
			}
			if (p) { pairs += p; disc += d; if (d) bad = bad " " k }
		}
		printf "thread counts ranked by TPS: %d of %d pairs in another order%s\n", disc, pairs,
			bad ? " (" substr(bad, 2) ")" : ""
	}' "$1"
}

# types_report: each transaction type's mean and p99 latency, real/emulated
# (emulated/real), per configuration and thread count: where the time goes.
TYPES='
def ms: . / 1e6 | if . >= 100 then round else (. * 10 | round / 10) end;
def cell($a; $b): "\($a | ms)/\($b | ms)(\(if $a > 0 then ($b / $a * 100 | round / 100) else "-" end))";
($ref[0]) as $r | $r.points[] | . as $p |
($emu | map(select(.threads == $p.threads)) | .[0]) as $e | select($e != null and $e.types != null) |
[$r.name, ($p.threads | tostring)] +
([["new_order", "payment", "order_status", "delivery", "stock_level"][] as $t |
  cell($p.types[$t].mean; $e.types[$t].mean), cell($p.types[$t].p99; $e.types[$t].p99)]) | @tsv'
types_report() {
	local name kind _
	printf '%s\n' "config	T	NO mean	NO p99	Pay mean	Pay p99	OS mean	OS p99	Dlv mean	Dlv p99	SL mean	SL p99"
	while read -r name kind _; do
		wanted_kind "$kind" && [ -s "$REF/$name.json" ] && [ -s "$EMU_DIR/$name.jsonl" ] || continue
		jq -r -n --slurpfile ref "$REF/$name.json" --slurpfile emu "$EMU_DIR/$name.jsonl" "$TYPES"
	done <"$DIR/configs.txt"
}

# --- main ---
cells=$DIR/cells.txt
: >"$cells"
# the session's --cpu-scale is fitted afresh (emulate_scaled)
[ "${RESUME:-0}" = 1 ] || rm -f "$DIR"/cpu-scale-*
configs >"$DIR/configs.txt" || exit 2
while read -r name kind scale pool redo threads role; do
	wanted_kind "$kind" || continue
	case $kind in mariadb|postgres) ;; *) die "$name: unknown engine '$kind'" ;; esac
	if [ "$REPLAY" = 0 ] && [ "${RESUME:-0}" = 1 ] && [ -s "$REF/$name.json" ]; then
		log "$name: real counters already in '$REF'"
	elif [ "$REPLAY" = 0 ]; then
		log "$name: real server ($kind, $scale warehouse(s), pool $pool, redo $redo)"
		real "$name" "$kind" "$scale" "$pool" "$redo" "$threads" "$role" </dev/null
	elif [ ! -s "$REF/$name.json" ]; then
		log "$name: no reference counters in '$REF', skipped"
		continue
	fi
	[ "${EMU:-1}" = 1 ] || continue
	[ -n "$EMU_FROM" ] || { [ "${RESUME:-0}" = 1 ] && [ -s "$EMU_DIR/$name.jsonl" ]; } ||
		emulated "$name" "$kind" "$scale" "$pool" "$redo" "$threads" </dev/null
	[ -s "$EMU_DIR/$name.jsonl" ] || die "$name: no emulator result in '$EMU_DIR'"
	jq -r -n --slurpfile ref "$REF/$name.json" --slurpfile emu "$EMU_DIR/$name.jsonl" "$CELLS" >>"$cells" ||
		die "$name: cannot compare"
done <"$DIR/configs.txt"
[ "${EMU:-1}" = 1 ] || exit 0
[ -s "$cells" ] || die "no configuration to compare"
{ report "$cells"; threads_rank "$cells"; echo
  echo "latency by type, ms: mean and p99, real/emulated (emulated/real)"
  types_report | column -t -s "$(printf '\t')"; drive_report "$cells"; } | tee "$DIR/report.txt"
baseline_write_check "$cells"
