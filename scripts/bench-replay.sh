#!/usr/bin/env bash
# bench-replay.sh - replay the same traces with appio and with fio (iolog v3),
# alternately, on the same engine and target, and print how closely each kept
# the trace's schedule.
#
#   scripts/bench-replay.sh [--secs S] [--rounds N] [--engine E] [--out DIR]
#
#   --secs S     length of each synthetic trace and of the captured one (default 10)
#   --rounds N   each round replays every trace with appio, then fio; the table
#                shows the median of the rounds (default 3)
#   --engine E   the engine both tools use (default null: no device, so the
#                figures are the replayers' own timing)
#   --out DIR    keep traces and raw results here (default: a new folder
#                under ${TMPDIR:-/tmp})
#   APPIO=PATH   the appio binary (default ./appio)
#
# Traces (appio's format for appio, converted by 'appio trace convert' to fio's
# iolog v3 for fio; the same I/Os, times truncated to us):
#   syn-1k, syn-10k, syn-50k   S seconds at a mean of 1,000, 10,000, 50,000 IOPS,
#                              70 % 4 KiB reads, 30 % writes; in every second 20 %
#                              of its I/Os come in a burst within 50 ms (4x to 16x
#                              the mean rate), the rest evenly spaced with jitter
#   captured                   the I/O log fio itself writes (--write_iolog) of a
#                              real run on this machine's disk: 4 KiB random 70/30
#                              at 2,000 IOPS (rate-limited), libaio, O_DIRECT; its
#                              times are the real submissions with their jitter
#   mariadb-oltp               the bundled block-level capture of MariaDB under
#                              SysBench oltp_read_write (traces/README.md): 26 s,
#                              8,736 I/Os with their flushes, bursty (inter-arrival
#                              p50 under 131 us, p99 67 ms)
#
# Figures:
#   duration err   (last submission - first due time) / (first to last I/O in
#                  the trace) - 1, in %. appio: its own submission times (ns)
#                  against its schedule; fio: its completion-latency log
#                  (--write_lat_log, 1 ms resolution; with the null engine
#                  completion is submission) from fio's start, where its
#                  schedule begins.
#   IOPS err       mean over the trace's seconds of |I/Os the replay did in that
#                  second - I/Os the trace has in it|, in % of the trace's mean
#                  per second. appio: its replay.iops_mae_pct (seconds of its
#                  schedule); fio: from the same log, seconds since fio's start.
#   lag p50/p99/p99.9/max  appio's issue lag (submission - intended time); fio
#                  reports no such figure.
set -u
SECS=10 ROUNDS=3 ENGINE=null OUT=""
APPIO=${APPIO:-$PWD/appio}
while [ $# -gt 0 ]; do
	case $1 in
	--secs) SECS=$2; shift 2 ;;
	--rounds) ROUNDS=$2; shift 2 ;;
	--engine) ENGINE=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	*) echo "bench-replay.sh: unknown option '$1' (see the header)" >&2; exit 2 ;;
	esac
done
command -v fio >/dev/null || { echo "bench-replay.sh: fio is not installed" >&2; exit 2; }
command -v jq >/dev/null || { echo "bench-replay.sh: jq is not installed" >&2; exit 2; }
[ -x "$APPIO" ] || { echo "bench-replay.sh: no appio at '$APPIO' (make, or set APPIO)" >&2; exit 2; }
OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/bench-replay.XXXXXX")}
mkdir -p "$OUT" && cd "$OUT" || exit 1
TARGET=$OUT/target.dat

# syn IOPS: the synthetic trace in appio's format on stdout (any POSIX awk)
syn() {
	printf 'appio-trace 1\ndevice 0 target\n'
	awk -v iops="$1" -v secs="$SECS" 'BEGIN {
		srand(7)
		for (s = 0; s < secs; s++) {
			burst = int(iops * 0.2); rest = iops - burst; b0 = 0.3 + rand() * 0.6
			for (i = 0; i < burst; i++) t(s + b0 + 0.05 * i / burst)
			for (i = 0; i < rest; i++) t(s + (i + rand() * 0.5) / rest)
		}
	}
	function t(x) {
		printf "%d - %s - 0 %d 4096 - -\n", x * 1e9, rand() < 0.7 ? "R" : "W", int(rand() * 262144) * 4096
	}' | sort -n -k1,1
}

prepare() {
	for r in 1k:1000 10k:10000 50k:50000; do
		syn "${r#*:}" >"syn-${r%%:*}.trace"
		"$APPIO" trace convert "syn-${r%%:*}.trace" -o "syn-${r%%:*}.iolog" >/dev/null 2>&1
	done
	"$APPIO" run profile --target "$TARGET" --size 1G --read 0 --bs 1M --time 1 >/dev/null 2>&1
	fio --name=cap --filename="$TARGET" --size=1G --rw=randrw --rwmixread=70 --bs=4k \
		--ioengine=libaio --iodepth=4 --direct=1 --rate_iops=1400,600 --time_based \
		--runtime="$SECS" --write_iolog=captured.iolog --output=/dev/null >/dev/null 2>&1 ||
		{ echo "bench-replay.sh: fio could not capture a trace" >&2; exit 1; }
	"$APPIO" trace convert captured.iolog -o captured.trace >/dev/null 2>&1
	"$APPIO" trace convert mariadb-oltp -o mariadb-oltp.trace >/dev/null 2>&1 &&
		"$APPIO" trace convert mariadb-oltp.trace -o mariadb-oltp.iolog >/dev/null 2>&1 &&
		TRACES="$TRACES mariadb-oltp"
}

# per_second FILE SCALE: I/O counts per second of times in column 1 (units per second SCALE)
trace_seconds() {        # appio format: issue_ns in column 1
	awk '$1 ~ /^[0-9]+$/ && NF == 9 { c[int($1 / 1e9)]++ } END { for (s in c) print s, c[s] }' "$1" | sort -n
}

run_appio() {   # TRACE ROUND
	"$APPIO" run replay --trace "$1.trace" --engine "$ENGINE" --target "$TARGET" --map wrap \
		--json "$1.appio.$2.json" >"$1.appio.$2.out" 2>&1
	jq -r '.info | [."replay.duration_error_pct", ."replay.iops_mae_pct", ."replay.lag_p50_ns",
		."replay.lag_p99_ns", ."replay.lag_p999_ns", ."replay.lag_max_ns"] | @tsv' "$1.appio.$2.json"
}

run_fio() {     # TRACE ROUND
	rm -f "$1.fio.$2"_*.log
	fio --name=replay --read_iolog="$1.iolog" --ioengine="$ENGINE" --replay_redirect="$TARGET" \
		--write_lat_log="$1.fio.$2" --log_avg_msec=0 --output="$1.fio.$2.txt" >/dev/null 2>&1
	local log=$1.fio.$2_clat.1.log
	[ -f "$log" ] || log=$1.fio.$2_clat.log
	trace_seconds "$1.trace" >"$1.secs"
	awk -F', *' -v tspan="$(awk '$1 ~ /^[0-9]+$/ && NF == 9 { if (f == "") f = $1; l = $1 } END { print (l - f) / 1e6 }' "$1.trace")" '
		NR == FNR { split($0, a, " "); want[a[1]] = a[2]; nsec = a[1] + 1; next }
		{ t = $1; if (t > last) last = t; got[int(t / 1000)]++ }
		END {
			for (s = 0; s < nsec; s++) { e = got[s] - want[s]; err += e < 0 ? -e : e; tot += want[s] }
			printf "%.4f\t%.3f\t-\t-\t-\t-\n", (last - tspan) / tspan * 100, err / nsec / (tot / nsec) * 100
		}' "$1.secs" "$log"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

TRACES="syn-1k syn-10k syn-50k captured"
prepare
for round in $(seq 1 "$ROUNDS"); do
	for tr in $TRACES; do
		run_appio "$tr" "$round" | sed "s/^/$tr\tappio\t/" >>rows.tsv
		run_fio "$tr" "$round" | sed "s/^/$tr\tfio\t/" >>rows.tsv
	done
done

us() { [ "$1" = "-" ] && echo "-" || awk -v n="$1" 'BEGIN { printf "%.1f", n / 1000 }'; }
printf "engine %s, %s s traces, median of %s rounds (raw: %s)\n" "$ENGINE" "$SECS" "$ROUNDS" "$OUT"
printf "%-10s %-6s %14s %10s %28s\n" trace tool "duration err %" "IOPS err %" "lag p50/p99/p99.9/max (us)"
for tr in $TRACES; do
	for tool in appio fio; do
		col() { awk -F'\t' -v t="$tr" -v o="$tool" -v c="$1" '$1 == t && $2 == o { print $c }' rows.tsv | median; }
		d=$(col 3) i=$(col 4)
		lag="-"
		[ "$tool" = appio ] && lag="$(us "$(col 5)")/$(us "$(col 6)")/$(us "$(col 7)")/$(us "$(col 8)")"
		printf "%-10s %-6s %14s %10s %28s\n" "$tr" "$tool" "$d" "$i" "$lag"
	done
done
