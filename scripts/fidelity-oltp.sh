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
# DIR/golden), a server started on it with the pool, redo log / max_wal_size
# and flush setting of the line (scripts/db-start.sh), WARMUP_POINTS x TIME
# seconds (default 2 x 15) of oltp_read_write at 8 threads, then one
# 'appio db run oltp_MODE' per thread count (TIME seconds each) on the same
# server, reading the server's own counters before and after each. Their
# differences are written to REF/NAME.json. Then 'appio run oltp' with the
# same tables, pool, log size, flush setting and mode, --threads
# 8,8,T1,T2.. --warmup-points 2: the same sequence, the pool kept warm from
# point to point (PostgreSQL with --direct 0: it does buffered I/O).
#
# The report: one table per engine, each cell real/emulated (ratio
# emulated/real) per configuration and thread count: pages read, pages
# written, redo bytes, fsyncs (log + data + doublewrite) and doublewrite
# pages per transaction, TPS and p99 latency; then per figure the share of
# cells within target (I/O: within 25%, or both below a floor nobody sees;
# TPS and p99: within 1.5x), for calibrate and held-out rows apart, and the
# configurations ranked by TPS (the geometric mean over their points), real
# against emulated. DIR (default ./appio-fidelity) holds the servers, the
# emulator's file (put it on the drive under test), DIR/emu and DIR/report.txt.
# EMU_ARGS adds options to the emulator's runs; EMU=0 runs only the real
# servers (then --replay-reference compares); RESUME=1 keeps the real
# counters and emulated results already in REF and DIR/emu (an interrupted run). A full matrix takes about an
# hour on 2 cores, the replay about half of it.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
APPIO=${APPIO:-$ROOT/appio}
DIR=${DIR:-./appio-fidelity}
TIME=${TIME:-15}
WARMUP_POINTS=${WARMUP_POINTS:-2}
WARMUP_THREADS=8
MATRIX=$ROOT/scripts/fidelity-oltp.matrix
ONLY= REPLAY=0 EMU_FROM= CHECK=0 WRITE_BASE=0 KINDS=()

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

# busy jiffies of the whole machine, and of process $1
cpu_all() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
cpu_pid() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

MARIA_VARS="'Innodb_pages_read','Innodb_pages_written','Innodb_lsn_current','Innodb_os_log_written',
	'Innodb_data_fsyncs','Innodb_dblwr_pages_written','Innodb_dblwr_writes','Innodb_log_writes',
	'Innodb_data_reads','Innodb_data_writes','Innodb_buffer_pool_read_requests','Innodb_buffer_pool_reads',
	'Innodb_buffer_pool_pages_flushed','Innodb_buffer_pool_pages_LRU_flushed','Innodb_log_waits',
	'Innodb_checkpoint_age','Innodb_buffer_pool_pages_dirty','Innodb_buffer_pool_pages_free',
	'Innodb_history_list_length','Com_commit'"

# counters KIND: a JSON object of the server's own statistics
counters() {
	case $1 in
	mariadb)
		mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e \
			"SHOW GLOBAL STATUS WHERE Variable_name IN ($MARIA_VARS)" |
			jq -R -s 'split("\n") | map(select(length > 0) | split("\t") | {(.[0]): (.[1] | tonumber)}) | add' ;;
	postgres)
		psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tA -c "SELECT row_to_json(s) FROM (SELECT
			(SELECT coalesce(sum(heap_blks_read), 0) FROM pg_statio_user_tables) AS heap_blks_read,
			(SELECT coalesce(sum(idx_blks_read), 0) FROM pg_statio_user_tables) AS idx_blks_read,
			(SELECT coalesce(sum(heap_blks_hit + idx_blks_hit), 0) FROM pg_statio_user_tables) AS blks_hit,
			b.buffers_checkpoint, b.buffers_clean, b.buffers_backend, b.buffers_backend_fsync,
			b.checkpoints_timed, b.checkpoints_req,
			w.wal_bytes, w.wal_sync, w.wal_write, w.wal_fpi, w.wal_records,
			(SELECT xact_commit FROM pg_stat_database WHERE datname = 'appio') AS xact_commit
			FROM pg_stat_bgwriter b, pg_stat_wal w) s" ;;
	esac
}
# gauges: counters that are levels, not totals; kept as read at the end
GAUGES='["Innodb_checkpoint_age","Innodb_buffer_pool_pages_dirty","Innodb_buffer_pool_pages_free","Innodb_history_list_length"]'

server_pid() {
	case $1 in
	mariadb) cat "$SRV/mysqld.pid" ;;
	postgres) head -1 "$SRV/pgdata/postmaster.pid" ;;
	esac
}

# start KIND POOL REDO FLUSH: a server on what SRV holds (fresh if empty)
start() {
	local set=()
	case $1 in
	mariadb) set=(innodb_buffer_pool_size="$2" innodb_log_file_size="$3"
		      innodb_flush_log_at_trx_commit="$4") ;;
	postgres) set=(shared_buffers="${2}B" max_wal_size="${3}B"
		       synchronous_commit="$([ "$4" = 1 ] && echo on || echo off)")
		# min_wal_size (80MB) may not exceed max_wal_size
		[ "$(numfmt --from=iec "$3")" -ge $((80 << 20)) ] || set+=(min_wal_size="${3}B") ;;
	esac
	"$ROOT/scripts/db-start.sh" "$1" "$SRV" "${set[@]}" 2>/dev/null | tail -n 1
}

# settings KIND: what the server took (a pool is rounded, for one)
settings() {
	case $1 in
	mariadb) mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e \
		"SELECT JSON_OBJECT('version', VERSION(), 'pool', @@innodb_buffer_pool_size,
		 'log_file_size', @@innodb_log_file_size, 'flush', @@innodb_flush_log_at_trx_commit,
		 'flush_neighbors', @@innodb_flush_neighbors, 'flush_method', @@innodb_flush_method)" ;;
	postgres) psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tA -c \
		"SELECT json_build_object('version', version(), 'pool', current_setting('shared_buffers'),
		 'max_wal_size', current_setting('max_wal_size'),
		 'synchronous_commit', current_setting('synchronous_commit'))" ;;
	esac
}

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
	local pts=$DIR/real-points.jsonl srvcfg
	srvcfg=$(settings "$kind")
	: >"$pts"
	log "$name: warm-up, $((WARMUP_POINTS * TIME)) s of oltp_read_write at $WARMUP_THREADS threads"
	one_run "$kind" "$conn" oltp_read_write "$WARMUP_THREADS" $((WARMUP_POINTS * TIME)) "$DIR/real-warm.jsonl.tmp" ||
		die "$name: the warm-up failed"
	for t in ${threads//,/ }; do
		log "$name: oltp_$mode at $t threads"
		one_run "$kind" "$conn" "oltp_$mode" "$t" "$TIME" "$pts" || die "$name: a point failed"
	done
	jq -n --arg name "$name" --arg kind "$kind" --argjson tables "$TABLES" --argjson rows "$ROWS" \
		--arg pool "$pool" --arg redo "$redo" --arg mode "$mode" --argjson flush "$flush" \
		--arg role "$role" --argjson time "$TIME" --argjson wp "$WARMUP_POINTS" \
		--argjson wt "$WARMUP_THREADS" --argjson set "$srvcfg" \
		--slurpfile warm "$DIR/real-warm.jsonl.tmp" --slurpfile pts "$pts" \
		'{name: $name, engine: $kind, tables: $tables, rows: $rows, pool: $pool, redo: $redo,
		  mode: $mode, flush: $flush, role: $role, time: $time,
		  warmup: {time: ($wp * $time), threads: $wt, run: $warm[0]}, server: $set, points: $pts}' \
		>"$REF/$name.json"
	rm -f "$DIR/real-warm.jsonl.tmp"
	"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
}

# emulated NAME KIND TABLES ROWS POOL REDO MODE THREADS FLUSH: EMU_DIR/NAME.jsonl
emulated() {
	local name=$1 kind=$2 tables=$3 rows=$4 pool=$5 redo=$6 mode=$7 threads=$8 flush=$9
	local model=innodb extra=() mb warm=""
	mb=$((256 + tables * rows * 300 / 1048576 + $(numfmt --from=iec "$redo") / 1048576))
	if [ "$kind" = postgres ]; then
		# PostgreSQL 15 reads and writes through the OS page cache: so does the emulator
		model=postgres
		extra=(--synchronous-commit "$([ "$flush" = 1 ] && echo on || echo off)" --direct 0)
	else
		extra=(--flush-log-at-commit "$flush")
	fi
	for _ in $(seq "$WARMUP_POINTS"); do warm+="$WARMUP_THREADS,"; done
	rm -f "$DIR/emu.dat"
	# lay the file out first and let the page cache drain, so that the first
	# fsync of the measured run does not write back the layout
	"$APPIO" run 128k-seqread --target "$DIR/emu.dat" --size "${mb}M" --time 1 >/dev/null
	sync
	log "$name: emulator"
	# shellcheck disable=SC2086
	"$APPIO" run oltp --target "$DIR/emu.dat" --size "${mb}M" --engine-model $model --buffer-pool "$pool" \
		--log-size "$redo" --mode "$mode" "${extra[@]}" --tables "$tables" --table-size "$rows" \
		--threads "$warm$threads" --warmup-points "$WARMUP_POINTS" --time "$TIME" ${EMU_ARGS:-} \
		--json "$DIR/emu.json" >/dev/null
	# cum: the counters from the run's start (warm-up included) to the point's end
	jq -c --argjson wp "$WARMUP_POINTS" '.points as $all | range($wp; $all | length) as $i |
		$all[$i] | {threads, tps: .classes.txn.ops_per_s,
		mean: .classes.txn.lat_ns.mean, p99: .classes.txn.lat_ns.p99, max: .classes.txn.lat_ns.max,
		c: .counters, cum: ([$all[0:$i + 1][].counters] | reduce .[] as $c ({};
			reduce ($c | keys[]) as $k (.; .[$k] += $c[$k])))}' "$DIR/emu.json" >"$EMU_DIR/$name.jsonl"
	rm -f "$DIR/emu.dat"
}

# cells REF_JSON EMU_JSONL: "engine name role threads figure real emulated" lines
CELLS='
def per($n): if $n > 0 then . / $n else 0 end;
($ref[0]) as $r |
(range(0; $r.points | length) as $i | $r.points[$i] | . as $p |
 ($emu | map(select(.threads == $p.threads)) | .[0]) as $e |
 select($e != null) |
 ($p.d) as $d | ($e.c) as $c |
 # PostgreSQL 15 reports backend writes (buffers_backend) only when its
 # checkpointer absorbs their fsync requests: when its queue is half full
 # (NBuffers / 2 requests) or at a checkpoint, so one 15 s point shows
 # none or several points worth. Its writes are compared from the
 # warm-up'"'"'s start to the point'"'"'s end, on both sides.
 ([$r.warmup.run.d, $r.points[0:$i + 1][].d] |
  (map(.buffers_checkpoint + .buffers_clean + .buffers_backend) | add)) as $pgw |
 ([$r.warmup.run.txns, $r.points[0:$i + 1][].txns] | add) as $pgn |
 (if $r.engine == "mariadb" then
   [["reads", $d.Innodb_pages_read], ["writes", $d.Innodb_pages_written],
    ["redo", $d.Innodb_lsn_current], ["fsyncs", $d.Innodb_data_fsyncs],
    ["dblwr", $d.Innodb_dblwr_pages_written]]
  else
   [["reads", $d.heap_blks_read + $d.idx_blks_read],
    (if $e.cum then ["writes", ($pgw | per($pgn)) * $p.txns]
     else ["writes", $d.buffers_checkpoint + $d.buffers_clean + $d.buffers_backend] end),
    ["redo", $d.wal_bytes], ["fsyncs", $d.wal_sync]]
  end) as $real |
 {reads: $c.bp_reads, writes: $c.pages_written, redo: $c.log_bytes, dblwr: $c.dblwr_pages,
  fsyncs: (if $r.engine == "mariadb" then $c.log_fsyncs + $c.data_fsyncs + $c.dblwr_writes
	   else $c.log_fsyncs end)} as $emuc0 |
 (if $r.engine == "postgres" and $e.cum then
   $emuc0 + {writes: (($e.cum.pages_written | per($e.cum.txns)) * $c.txns)} else $emuc0 end) as $emuc |
 (($real[] | [.[0], (.[1] | per($p.txns)), ($emuc[.[0]] | per($c.txns))]),
  ["tps", $p.tps, $e.tps], ["p99", ($p.p99 / 1e6), ($e.p99 / 1e6)]) |
 [$r.engine, $r.name, $r.role, $p.threads] + . | map(tostring) | join(" "))'

# within FIGURE REAL EMU (awk): the target of each figure
AWK_TARGET='
function floor_of(f) { return f == "redo" ? 20 : 0.02 }
function within(f, r, e) {
	if (f == "tps" || f == "p99") return r > 0 && e > 0 && e / r <= 1.5 && r / e <= 1.5
	return (e - r <= 0.25 * r && r - e <= 0.25 * r) || (e - r <= floor_of(f) && r - e <= floor_of(f))
}'

# report: the tables, the summary and the ranking, from the cells file $1
report() {
	local cells=$1 kind
	for kind in "${KINDS[@]}"; do
		grep -q "^$kind " "$cells" || continue
		awk -v kind="$kind" "$AWK_TARGET"'
		$1 != kind { next }
		{ key = $2 " " $4; if (!(key in seen)) { seen[key] = 1; order[++n] = key; role[key] = $3 }
		  v[key, $5] = $6 "/" $7; ok[key, $5] = within($5, $6, $7); r[key, $5] = $6; e[key, $5] = $7 }
		function cell(k, f,   s) {
			if (!((k, f) in v)) return "-"
			if (f == "redo") s = sprintf("%.0f/%.0f", r[k, f], e[k, f])
			else if (f == "tps") s = sprintf("%.0f/%.0f", r[k, f], e[k, f])
			else if (f == "p99") s = sprintf("%.1f/%.1f", r[k, f], e[k, f])
			else s = sprintf("%.2f/%.2f", r[k, f], e[k, f])
			if (r[k, f] > 0) s = s sprintf("(%.2f)", e[k, f] / r[k, f])
			return s (ok[k, f] ? "" : "*")
		}
		END {
			printf "\n%s (real/emulated per transaction, (emulated/real), * outside target)\n", kind
			printf "%-12s %-3s %-3s %-17s %-17s %-19s %-17s %-17s %-17s %s\n", "config", "rol", "T",
				"reads", "writes", "redo B", "fsyncs", "dblwr pages", "TPS", "p99 ms"
			for (i = 1; i <= n; i++) {
				k = order[i]; split(k, a, " ")
				printf "%-12s %-3s %-3s %-17s %-17s %-19s %-17s %-17s %-17s %s\n", a[1],
					role[k] == "calibrate" ? "cal" : "out", a[2], cell(k, "reads"), cell(k, "writes"),
					cell(k, "redo"), cell(k, "fsyncs"), cell(k, "dblwr"), cell(k, "tps"), cell(k, "p99")
			}
		}' "$cells"
	done
	echo
	awk "$AWK_TARGET"'
	{ g = $3; n[g, $5]++; if (within($5, $6, $7)) in_[g, $5]++; roles[g] = 1 }
	END {
		split("reads writes redo fsyncs dblwr tps p99", f, " ")
		for (g in roles) {
			line = sprintf("summary %-9s", g == "calibrate" ? "calibrate" : "held-out")
			for (i = 1; i <= 7; i++)
				if (n[g, f[i]])
					line = line sprintf(" %s %d/%d (%.0f%%)", f[i], in_[g, f[i]], n[g, f[i]],
							    100 * in_[g, f[i]] / n[g, f[i]])
			print line
		}
	}' "$cells" | sort
	for kind in "${KINDS[@]}"; do
		# each configuration's TPS: the geometric mean over its points
		awk -v kind="$kind" '
		$1 == kind && $5 == "tps" && $6 > 0 && $7 > 0 { lr[$2] += log($6); le[$2] += log($7); c[$2]++ }
		END { for (k in c) printf "%s %.0f %.0f\n", k, exp(lr[k] / c[k]), exp(le[k] / c[k]) }' "$cells" >"$DIR/rank"
		[ -s "$DIR/rank" ] || continue
		awk -v kind="$kind" '{ r[NR] = $2; e[NR] = $3 }
		END {
			for (i = 1; i <= NR; i++) for (j = i + 1; j <= NR; j++) { pairs++; if ((r[i] - r[j]) * (e[i] - e[j]) < 0) disc++ }
			printf "ranking %s by TPS (geometric mean over the points): %d of %d pairs in another order\n",
				kind, disc, pairs
		}' "$DIR/rank"
		paste -d' ' <(sort -k2,2nr "$DIR/rank" | awk '{ printf "  real %-12s %6d\n", $1, $2 }') \
			<(sort -k3,3nr "$DIR/rank" | awk '{ printf "   emulated %-12s %6d\n", $1, $3 }')
	done
}

# baseline CELLS: the held-out cells within target ("name threads figure")
baseline() {
	awk "$AWK_TARGET"'$3 == "heldout" && within($5, $6, $7) { print $2, $4, $5 }' "$1" | sort
}

# --- main ---
cells=$DIR/cells.txt
: >"$cells"
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
report "$cells" | tee "$DIR/report.txt"
BASELINE=${BASELINE:-$REF/baseline.tsv}
if [ "$WRITE_BASE" = 1 ]; then
	baseline "$cells" >"$BASELINE"
	if [ -z "$EMU_FROM" ]; then
		mkdir -p "$REF/emulated"
		cut -d' ' -f2 "$cells" | sort -u | while read -r name; do
			cp "$EMU_DIR/$name.jsonl" "$REF/emulated/"
		done
	fi
	log "wrote $(wc -l <"$BASELINE") held-out cells within target to '$BASELINE'"
fi
if [ "$CHECK" = 1 ]; then
	[ -r "$BASELINE" ] || die "--check-baseline: no '$BASELINE'"
	# only the configurations compared now are judged
	lost=$(baseline "$cells" | comm -23 <(awk 'NR == FNR { c[$2 " " $4] = 1; next } ($1 " " $2) in c' \
		"$cells" <(sort "$BASELINE")) -)
	if [ -n "$lost" ]; then
		echo "held-out cells that were within target and are not any more:"
		sed 's/^/  /' <<<"$lost"
		exit 1
	fi
	echo "baseline: every held-out cell that was within target still is"
fi
