#!/usr/bin/env bash
# fidelity-oltp.sh - the oltp emulator against the real database it models,
# over a matrix of configurations, on one drive.
#
#   scripts/fidelity-oltp.sh [options] [mariadb] [postgres]   (default: both)
#
#   --matrix FILE        the configurations (default scripts/fidelity-oltp.matrix),
#                        one a line: NAME ENGINE TABLESxROWS POOL REDO MODE THREADS
#                        FLUSH ROLE (see that file's header)
#   --only NAMES         only these configurations (comma list)
#   --replay-reference   no servers: run the emulator against the real servers'
#                        counters kept in REF (default docs/data/fidelity-oltp)
#   --emu-from DIR       no emulator either: take its results from DIR (a
#                        previous run's DIR/emu), only compare
#   --check-baseline     exit 1 when a held-out cell that BASELINE (default
#                        REF/baseline.tsv) lists as within target is now outside it
#   --write-baseline     write BASELINE: the held-out cells within target now, and
#                        keep the emulator's results beside it (REF/emulated)
#
# For each configuration, as a SysBench user runs it: a copy of a freshly
# prepared data folder ('appio db prepare', kept per engine and data set in
# DIR/golden; PostgreSQL's then vacuumed and analyzed, as its autovacuum
# does within a minute of a load), a server started on it with the pool, redo log / max_wal_size
# and flush setting of the line (scripts/db-start.sh), WARMUP_POINTS x TIME
# seconds (default 2 x 15) of oltp_read_write at 8 threads, then one
# 'appio db run oltp_MODE' per thread count (TIME seconds each) on the same
# server, reading the server's own counters before and after each. Their
# differences are written to REF/NAME.json. Then 'appio run oltp' with the
# same tables, pool, log size, flush setting and mode, --threads
# 8,8,T1,T2.. --warmup-points 2: the same sequence, the pool kept warm from
# point to point (PostgreSQL with --direct 0: it does buffered I/O). Its
# warm-up runs as many transactions as the server's did (--warmup-txns, from
# REF/NAME.json), so that both start the points from the same work done.
#
# The report: one table per engine, each cell real/emulated (ratio
# emulated/real) per configuration and thread count: pages read, pages
# written, redo bytes, fsyncs (log + data + doublewrite) and doublewrite
# pages per transaction, TPS and p99 latency; then per figure the share of
# cells within target (I/O: within 25%, or both below a floor nobody sees;
# TPS and p99: within 1.5x), for calibrate and held-out rows apart, and the
# configurations ranked by TPS (the geometric mean over their points), real
# against emulated; last, per configuration, the drive's time for an 8 KiB
# write made durable when its server ran (kept in REF/NAME.json) and when its
# emulator ran (DIR/emu/NAME.drive), the lines 1.5x apart or more named: a
# replay against references of another day compares two drives there (the
# commit-bound lines run at the drive's pace). DIR (default ./appio-fidelity)
# holds the servers, the emulator's file (put it on the drive under test),
# DIR/emu and DIR/report.txt.
# EMU_ARGS adds options to the emulator's runs; EMU=0 runs only the real
# servers (then --replay-reference compares); RESUME=1 keeps the real
# counters and emulated results already in REF and DIR/emu (an interrupted run). A full matrix takes about an
# hour on 2 cores, the replay about half of it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/fidelity-lib.sh
. "$ROOT/scripts/fidelity-lib.sh"
APPIO=${APPIO:-$ROOT/appio}
DIR=${DIR:-./appio-fidelity}
TIME=${TIME:-15}
WARMUP_POINTS=${WARMUP_POINTS:-2}
WARMUP_THREADS=8
MATRIX=$ROOT/scripts/fidelity-oltp.matrix
ONLY= REPLAY=0 EMU_FROM= CHECK=0 WRITE_BASE=0 KINDS=()
# The server CPU a transaction (us) at each engine's first calibrate line
# when the model's CPU defaults were fitted: m-fit at 16 threads, MariaDB's
# own (the machine's 1,704 us x 0.70, its share at m-fit 16 that afternoon);
# p-fit at 16, the whole machine's (3 December 2026, 17:20-17:31, quiet, with
# the four scripts interleaved). The first
# guess of the session's --cpu-scale (cpu_scale in fidelity-lib.sh), which
# the line's own emulator run then refines.
declare -A CPU_REF=([mariadb]=1195 [postgres]=2558)

die() { echo "fidelity-oltp: $*" >&2; exit 2; }
log() { echo "fidelity-oltp: $*" >&2; }

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
[ "$REPLAY" = 1 ] && REF=${REF:-$ROOT/docs/data/fidelity-oltp}
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

# The matrix: "NAME ENGINE TABLES ROWS POOL REDO MODE THREADS FLUSH ROLE" lines.
configs() {
	awk -v only=",$ONLY," '
		/^[ \t]*(#|$)/ { next }
		NF != 9 { printf "fidelity-oltp: %s:%d: expected 9 fields, got %d\n", FILENAME, FNR, NF > "/dev/stderr"; exit 2 }
		$3 !~ /^[0-9]+x[0-9]+$/ { printf "fidelity-oltp: %s:%d: data \"%s\" is not TABLESxROWS\n", FILENAME, FNR, $3 > "/dev/stderr"; exit 2 }
		$9 != "calibrate" && $9 != "heldout" { printf "fidelity-oltp: %s:%d: role \"%s\" is not calibrate or heldout\n", FILENAME, FNR, $9 > "/dev/stderr"; exit 2 }
		only == ",," || index(only, "," $1 ",") { split($3, d, "x"); print $1, $2, d[1], d[2], $4, $5, $6, $7, $8, $9 }
	' "$MATRIX"
}
wanted_kind() { local k; for k in "${KINDS[@]}"; do [ "$k" = "$1" ] && return 0; done; return 1; }

# golden KIND TABLES ROWS: a data folder with the tables freshly prepared, made once
golden() {
	local g=$DIR/golden/$1-${2}x$3 conn
	[ -e "$g/done" ] && { echo "$g"; return; }
	rm -rf "$g" "$SRV"
	log "$1: preparing $2 x $3 rows"
	# a fresh data folder; once more from scratch if its creation failed
	conn=$(start "$1" 512M 96M 1) ||
		{ "$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1; rm -rf "$SRV"; conn=$(start "$1" 512M 96M 1); } ||
		die "cannot start $1 (see $SRV)"
	# shellcheck disable=SC2086
	"$APPIO" db prepare oltp_read_write $conn --tables "$2" --table-size "$3" --threads 2 >/dev/null ||
		die "$1: prepare failed"
	# A running PostgreSQL's autovacuum vacuums and analyzes freshly loaded
	# tables within a minute of the load (the inserts pass its threshold);
	# done here, so that it does not fall into the measured points at a time
	# set by the restart below (20-60 s after it, with how many databases the
	# launcher tracks), which the emulator cannot know
	if [ "$1" = postgres ]; then
		psql -X -q -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -c "VACUUM ANALYZE" ||
			die "postgres: VACUUM ANALYZE after the load failed"
	fi
	"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null
	mkdir -p "$(dirname "$g")"
	mv "$SRV" "$g"
	rm -f "$g/my.cnf" "$g/port" "$g/kind"
	touch "$g/done"
	echo "$g"
}

# one_run KIND CONN WORKLOAD THREADS SECS OUT: one 'appio db run' between counter reads
one_run() {
	local kind=$1 conn=$2 wl=$3 t=$4 secs=$5 out=$6 pid s0 s1 a0 a1 c0 c1
	pid=$(server_pid "$kind")
	s0=$(counters "$kind"); a0=$(cpu_all); c0=$(cpu_pid "$pid")
	# shellcheck disable=SC2086
	"$APPIO" db run "$wl" $conn --tables "$TABLES" --table-size "$ROWS" --threads "$t" \
		--time "$secs" --json "$DIR/real-run.json" >/dev/null 2>"$DIR/real-run.err" ||
		{ log "$kind: $wl at $t threads failed: $(tail -n 1 "$DIR/real-run.err")"; return 1; }
	s1=$(counters "$kind"); a1=$(cpu_all); c1=$(cpu_pid "$pid")
	jq -c --argjson s0 "$s0" --argjson s1 "$s1" --argjson g "$GAUGES" \
		--argjson cpu $((a1 - a0)) --argjson srv $((c1 - c0)) \
		'.points[0] as $p | {threads: $p.threads, time_s: $p.time_s, txns: $p.classes.txn.ops,
		  tps: $p.classes.txn.ops_per_s, mean: $p.classes.txn.lat_ns.mean,
		  p99: $p.classes.txn.lat_ns.p99, max: $p.classes.txn.lat_ns.max, cpu: $cpu, srv: $srv,
		  d: ($s1 | with_entries(select(.key as $k | $g | index($k) | not) | .value -= ($s0[.key] // 0))),
		  end: ($s1 | with_entries(select(.key as $k | $g | index($k))))}' "$DIR/real-run.json" >>"$out"
}

# real NAME KIND TABLES ROWS POOL REDO MODE THREADS FLUSH ROLE: REF/NAME.json
real() {
	local name=$1 kind=$2 pool=$5 redo=$6 mode=$7 threads=$8 flush=$9 role=${10} g conn t
	TABLES=$3 ROWS=$4
	g=$(golden "$kind" "$TABLES" "$ROWS")
	"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
	rm -rf "$SRV"
	cp -a "$g" "$SRV"
	rm -f "$SRV/done"
	conn=$(start "$kind" "$pool" "$redo" "$flush") || die "cannot start $kind for $name"
	local pts=$DIR/real-points.jsonl srvcfg drive d0 d1
	srvcfg=$(settings "$kind")
	: >"$pts"
	: >"$DIR/real-warm.jsonl.tmp"   # an interrupted run may have left one behind
	log "$name: warm-up, $((WARMUP_POINTS * TIME)) s of oltp_read_write at $WARMUP_THREADS threads"
	one_run "$kind" "$conn" oltp_read_write "$WARMUP_THREADS" $((WARMUP_POINTS * TIME)) "$DIR/real-warm.jsonl.tmp" ||
		die "$name: the warm-up failed"
	d0=$(drive_flush_us "$DIR") || d0=
	for t in ${threads//,/ }; do
		log "$name: oltp_$mode at $t threads"
		one_run "$kind" "$conn" "oltp_$mode" "$t" "$TIME" "$pts" || die "$name: a point failed"
	done
	d1=$(drive_flush_us "$DIR") || d1=
	drive=$(drive_mean "$d0" "$d1")
	jq -n --arg name "$name" --arg kind "$kind" --argjson tables "$TABLES" --argjson rows "$ROWS" \
		--arg pool "$pool" --arg redo "$redo" --arg mode "$mode" --argjson flush "$flush" \
		--arg role "$role" --argjson time "$TIME" --argjson wp "$WARMUP_POINTS" \
		--argjson wt "$WARMUP_THREADS" --argjson set "$srvcfg" --argjson drive "${drive:-null}" \
		--slurpfile warm "$DIR/real-warm.jsonl.tmp" --slurpfile pts "$pts" \
		'{name: $name, engine: $kind, tables: $tables, rows: $rows, pool: $pool, redo: $redo,
		  mode: $mode, flush: $flush, role: $role, time: $time, drive: {flush_us: $drive},
		  warmup: {time: ($wp * $time), threads: $wt, run: $warm[0]}, server: $set, points: $pts}' \
		>"$REF/$name.json"
	rm -f "$DIR/real-warm.jsonl.tmp"
	"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
}

# emulated NAME KIND TABLES ROWS POOL REDO MODE THREADS FLUSH: EMU_DIR/NAME.jsonl
emulated() {
	local name=$1 kind=$2 tables=$3 rows=$4 pool=$5 redo=$6 mode=$7 threads=$8 flush=$9
	local model=innodb extra=() mb warm="" warm_txns d0 d1
	mb=$((256 + tables * rows * 300 / 1048576 + $(numfmt --from=iec "$redo") / 1048576))
	if [ "$kind" = postgres ]; then
		# PostgreSQL 15 reads and writes through the OS page cache: so does the emulator
		model=postgres
		extra=(--synchronous-commit "$([ "$flush" = 1 ] && echo on || echo off)" --direct 0)
	else
		extra=(--flush-log-at-commit "$flush")
	fi
	for _ in $(seq "$WARMUP_POINTS"); do warm+="$WARMUP_THREADS,"; done
	# the server's warm-up: the same work, whatever the model's rate
	warm_txns=0
	[ "$WARMUP_POINTS" = 0 ] || warm_txns=$(jq -r '.warmup.run.txns // 0' "$REF/$name.json") ||
		die "$name: cannot read '$REF/$name.json'"
	rm -f "$DIR/emu.dat"
	# lay the file out first and let the page cache drain, so that the first
	# fsync of the measured run does not write back the layout
	"$APPIO" run 128k-seqread --target "$DIR/emu.dat" --size "${mb}M" --time 1 >/dev/null
	sync
	d0=$(drive_flush_us "$DIR") || d0=
	# one run at --cpu-scale $1 (emulate_scaled fits it on the calibrate line)
	emu_once() {
		# shellcheck disable=SC2086
		"$APPIO" run oltp --target "$DIR/emu.dat" --size "${mb}M" --engine-model $model --buffer-pool "$pool" \
			--log-size "$redo" --mode "$mode" "${extra[@]}" --tables "$tables" --table-size "$rows" \
			--threads "$warm$threads" --warmup-points "$WARMUP_POINTS" --warmup-txns "$warm_txns" --time "$TIME" \
			--cpu-scale "$1" ${EMU_ARGS:-} \
			--json "$DIR/emu.json" >/dev/null || return 1
		# cum: the counters from the run's start (warm-up included) to the point's end
		jq -c --argjson wp "$WARMUP_POINTS" --argjson s "$1" "$JQ_CUM"'.points as $all |
			range($wp; $all | length) as $i | $all[$i] | {threads, tps: .classes.txn.ops_per_s, cpu_s,
			scale: $s, mean: .classes.txn.lat_ns.mean, p99: .classes.txn.lat_ns.p99,
			max: .classes.txn.lat_ns.max, c: .counters, cum: cum($all; $i)}' \
			"$DIR/emu.json" >"$EMU_DIR/$name.jsonl"
	}
	emulate_scaled "$kind" "$name" emu_once || die "$name: the emulator failed"
	d1=$(drive_flush_us "$DIR") || d1=
	drive_mean "$d0" "$d1" >"$EMU_DIR/$name.drive"
	rm -f "$DIR/emu.dat"
}

# --- main ---
cells=$DIR/cells.txt
: >"$cells"
# the session's --cpu-scale is fitted afresh (emulate_scaled)
[ "${RESUME:-0}" = 1 ] || rm -f "$DIR"/cpu-scale-*
configs >"$DIR/configs.txt" || exit 2
while read -r name kind tables rows pool redo mode threads flush role; do
	wanted_kind "$kind" || continue
	case $kind in mariadb|postgres) ;; *) die "$name: unknown engine '$kind'" ;; esac
	case $mode in read_write|read_only|write_only|point_select) ;; *) die "$name: unknown mode '$mode'" ;; esac
	if [ "$REPLAY" = 0 ] && [ "${RESUME:-0}" = 1 ] && [ -s "$REF/$name.json" ]; then
		log "$name: real counters already in '$REF'"
	elif [ "$REPLAY" = 0 ]; then
		log "$name: real server ($kind, $tables x $rows rows, pool $pool, redo $redo, $mode, flush $flush)"
		real "$name" "$kind" "$tables" "$rows" "$pool" "$redo" "$mode" "$threads" "$flush" "$role" </dev/null
	elif [ ! -s "$REF/$name.json" ]; then
		log "$name: no reference counters in '$REF', skipped"
		continue
	fi
	[ "${EMU:-1}" = 1 ] || continue
	[ -n "$EMU_FROM" ] || { [ "${RESUME:-0}" = 1 ] && [ -s "$EMU_DIR/$name.jsonl" ]; } || emulated "$name" "$kind" "$tables" "$rows" "$pool" "$redo" "$mode" "$threads" "$flush" </dev/null
	[ -s "$EMU_DIR/$name.jsonl" ] || die "$name: no emulator result in '$EMU_DIR'"
	jq -r -n --slurpfile ref "$REF/$name.json" --slurpfile emu "$EMU_DIR/$name.jsonl" "$CELLS" >>"$cells" ||
		die "$name: cannot compare"
done <"$DIR/configs.txt"
[ "${EMU:-1}" = 1 ] || exit 0
[ -s "$cells" ] || die "no configuration to compare"
{ report "$cells"; drive_report "$cells"; } | tee "$DIR/report.txt"
baseline_write_check "$cells"
