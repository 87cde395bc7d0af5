#!/usr/bin/env bash
# calibrate-oltp-cpu.sh - the oltp emulator's statement costs for this
# machine (--cpu-per-stmt, --cpu-per-row, --cpu-per-write), fitted against a
# real server.
#
#   scripts/calibrate-oltp-cpu.sh [--rounds N] [--time S] [--threads T] mariadb|postgres
#   scripts/calibrate-oltp-cpu.sh --fit FILE [--threads T] [mariadb|postgres]
#                                             (no server: fit a kept run)
#
# A throwaway server (scripts/db-start.sh, a 128M pool) gets 4 x 100,000 rows
# (the data in the pool, so that the drive does not enter into it; PostgreSQL's
# then vacuumed) and a 20 s read_write warm-up. Then, ROUNDS times (default 3), for each SysBench
# script in turn (point_select, read_only, write_only, read_write): 'appio db
# run' at THREADS (default 16: more than the CPUs, CPU-bound) for TIME
# seconds (default 8), and 'appio run oltp' with the same tables and mode at
# a known cost (20 us a statement, no row or write cost). Interleaved, so
# that a host whose speed drifts from minute to minute (a shared virtual
# machine) measures every script at the same speed.
#
# Per script: the machine's CPU a transaction under the server (all CPUs,
# /proc/stat) and the emulator's own, that is its CPU less what its model
# counted as the statements' (their costs, or the worker's own work between
# statements where that was more: a statement's cost includes it). What the
# statements must cost is the difference. A transaction burns
# S x stmt + R x row + W x write (S statements, R rows examined beyond the
# first in ranges, W rows changed: point_select 1/0/0, read_only 16/396/0,
# write_only 6/0/4, read_write 20/396/4); the fit makes read_write exact (the
# mix most configurations run) and the three others as close as it can, in
# relative error. It prints the costs, each script's CPU ratio with them, and
# the options to pass. The raw figures are in DIR/calibrate.jsonl (DIR:
# ./appio-calibrate). The emulator's target is DIR/emu.dat: put DIR on the
# drive you will test, or anywhere for the CPU alone.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/cpu-lib.sh
. "$ROOT/scripts/cpu-lib.sh"
APPIO=${APPIO:-$ROOT/appio}
DIR=${DIR:-./appio-calibrate}
ROUNDS=3 TIME=8 THREADS=16 KIND= FIT=
die() { echo "calibrate-oltp-cpu: $*" >&2; exit 2; }
log() { echo "calibrate-oltp-cpu: $*" >&2; }
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1: '$2' is not a positive whole number"; }
while [ $# -gt 0 ]; do
	case $1 in
	--rounds) [ $# -ge 2 ] || die "--rounds needs a number"; posint "$1" "$2"; ROUNDS=$2; shift 2 ;;
	--time) [ $# -ge 2 ] || die "--time needs seconds"; posint "$1" "$2"; TIME=$2; shift 2 ;;
	--threads) [ $# -ge 2 ] || die "--threads needs a number"; posint "$1" "$2"; THREADS=$2; shift 2 ;;
	--fit) [ $# -ge 2 ] || die "--fit needs a file"; FIT=$2; shift 2 ;;
	mariadb|postgres) [ -z "$KIND" ] || die "one engine at a time"; KIND=$1; shift ;;
	*) die "unknown argument '$1' (see the header of $0)" ;;
	esac
done
command -v jq >/dev/null || die "jq is needed"

# fit FILE: the costs from the rounds in FILE at THREADS threads (the means
# over the rounds of the server's CPU and the emulator's own, per script)
fit() {
	# PostgreSQL's statements cost 3.4 % more for each thread beyond the CPUs
	# in the model (--cpu-per-backend's default): the costs to give are the
	# fitted ones over that factor (CPUS=N: the CPUs of the machine a kept
	# file was measured on, if not this one's)
	local grow=1 cpus
	cpus=${CPUS:-$(nproc)}
	[ "$KIND" = postgres ] && [ "$THREADS" -gt "$cpus" ] &&
		grow=$(awk -v t="$THREADS" -v c="$cpus" 'BEGIN { print 1 + 0.034 * (t - c) }')
	jq -r -s --argjson t "$THREADS" '
		def mean(f): if length > 0 then map(f) | add / length else null end;
		map(select(.threads == $t)) | (group_by(.mode) | map({key: .[0].mode, value: {
		 real: (map(select(.kind == "real")) | mean(.us_txn)),
		 own: (map(select(.kind == "emu")) | mean(.own // (.us_txn - .burnt)))}}) | from_entries) as $m |
		[$m.point_select, $m.read_only, $m.write_only, $m.read_write] |
		if any(. == null or .real == null or .own == null) then "missing"
		else map("\(.real) \(.own)") | join(" ") end' "$1" |
	awk -v threads="$THREADS" -v grow="$grow" '
	$1 == "missing" { print "calibrate-oltp-cpu: the file lacks a script at " threads " threads, server or emulator" > "/dev/stderr"; exit 2 }
	{
		# the scripts: statements, rows examined beyond the first, rows changed
		split("1 16 6 20", S, " "); split("0 396 0 396", R, " "); split("0 0 4 4", W, " ")
		split("point_select read_only write_only read_write", name, " ")
		for (i = 1; i <= 4; i++) { real[i] = $(2 * i - 1); own[i] = $(2 * i) }
		need = real[4] - own[4]
		if (need <= 0) { print "calibrate-oltp-cpu: the emulator alone costs more than the server at read_write" > "/dev/stderr"; exit 1 }
		best = -1
		for (x = 0; x <= need / 20; x += 0.25)
			for (y = 0; y <= (need - 20 * x) / 396; y += 0.01) {
				z = (need - 20 * x - 396 * y) / 4
				e = 0
				for (i = 1; i <= 3; i++) { d = (own[i] + S[i] * x + R[i] * y + W[i] * z) / real[i] - 1; e += d * d }
				if (best < 0 || e < best) { best = e; bx = x; by = y; bz = z }
			}
		printf "at %d threads, machine CPU a transaction (us): server / emulator with these costs\n", threads
		for (i = 1; i <= 4; i++) {
			m = own[i] + S[i] * bx + R[i] * by + W[i] * bz
			printf "  %-13s %8.0f / %8.0f  (%.2f)\n", name[i], real[i], m, m / real[i]
		}
		printf "costs at %d threads: --cpu-per-stmt %.2f --cpu-per-row %.2f --cpu-per-write %.1f\n", threads, bx, by, bz
		if (grow > 1)
			printf "costs (the model adds --cpu-per-backend, %.3fx at %d threads): --cpu-per-stmt %.2f --cpu-per-row %.2f --cpu-per-write %.1f\n",
				grow, threads, bx / grow, by / grow, bz / grow
	}'
}
if [ -n "$FIT" ]; then
	[ -r "$FIT" ] || die "--fit: cannot read '$FIT'"
	fit "$FIT"
	exit
fi
[ -n "$KIND" ] || die "which engine: mariadb or postgres"
[ -x "$APPIO" ] || die "no appio binary at '$APPIO' (run make)"
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
SRV=$DIR/srv
OUT=$DIR/calibrate.jsonl
trap '"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true; rm -f "$DIR/emu.dat"' EXIT
"$ROOT/scripts/db-stop.sh" "$SRV" --remove >/dev/null 2>&1 || true
rm -rf "$SRV"

if [ "$KIND" = mariadb ]; then
	set=(innodb_buffer_pool_size=128M innodb_log_file_size=96M innodb_flush_log_at_trx_commit=1)
	emu=(--engine-model innodb --size 400M)
else
	set=(shared_buffers=128MB max_wal_size=1GB synchronous_commit=on)
	emu=(--engine-model postgres --direct 0 --size 1200M)       # reads through the page cache, as the server
fi
conn=$("$ROOT/scripts/db-start.sh" "$KIND" "$SRV" "${set[@]}" 2>"$DIR/db-start.err" | tail -n 1) ||
	die "cannot start $KIND (see $DIR/db-start.err)"
data=(--tables 4 --table-size 100000)
log "$KIND: preparing 4 x 100000 rows, 20 s of read_write at 8 threads"
# shellcheck disable=SC2086
"$APPIO" db prepare oltp_read_write $conn "${data[@]}" --threads 2 >/dev/null || die "prepare failed"
# PostgreSQL's autovacuum would vacuum the fresh load within a minute, in the
# middle of the rounds: done now, as fidelity-oltp.sh does
if [ "$KIND" = postgres ]; then
	psql -X -q -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -c "VACUUM ANALYZE" || die "VACUUM ANALYZE failed"
fi
# shellcheck disable=SC2086
"$APPIO" db run oltp_read_write $conn "${data[@]}" --threads 8 --time 20 >/dev/null || die "warm-up failed"

: >"$OUT"
for r in $(seq "$ROUNDS"); do
	for mode in point_select read_only write_only read_write; do
		log "round $r: $mode, server then emulator"
		a0=$(cpu_all)
		# shellcheck disable=SC2086
		"$APPIO" db run "oltp_$mode" $conn "${data[@]}" --threads "$THREADS" --time "$TIME" \
			--json "$DIR/real.json" >/dev/null 2>"$DIR/real.err" || die "$mode: $(tail -n 1 "$DIR/real.err")"
		a1=$(cpu_all)
		jq -c --arg m "$mode" --argjson r "$r" --argjson cpu $((a1 - a0)) '.points[0] |
			{kind: "real", round: $r, mode: $m, threads, tps: .classes.txn.ops_per_s,
			 us_txn: ($cpu * 1e4 / .classes.txn.ops)}' "$DIR/real.json" >>"$OUT"
		rm -f "$DIR/emu.dat"
		"$APPIO" run oltp --target "$DIR/emu.dat" "${emu[@]}" --buffer-pool 128M --mode "$mode" "${data[@]}" \
			--threads "8,$THREADS" --warmup-points 1 --time "$TIME" --cpu-per-stmt 20 \
			--cpu-per-row 0 --cpu-per-write 0 --json "$DIR/emu.json" >/dev/null 2>"$DIR/emu.err" ||
			die "the emulator, $mode: $(tail -n 1 "$DIR/emu.err")"
		jq -c --arg m "$mode" --argjson r "$r" '.points[1] | {kind: "emu", round: $r, mode: $m, threads,
			tps: .classes.txn.ops_per_s, us_txn: (.cpu_s * 1e6 / .counters.txns),
			own: ((.cpu_s * 1e6 - .counters.cpu_model_us) / .counters.txns)}' "$DIR/emu.json" >>"$OUT"
	done
done

fit "$OUT"
