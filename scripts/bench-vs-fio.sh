#!/usr/bin/env bash
# bench-vs-fio.sh - run appio and fio on the same workload back to back and
# compare throughput, CPU cost per I/O and p99 latency.
#
#   scripts/bench-vs-fio.sh [--target FILE] [--on LIST] [--time S] [--rounds N]
#                           [--quick] [--cases LIST] [--out DIR] [--keep]
#                           [--retries N] [--settle S]
#   scripts/bench-vs-fio.sh --summarize DIR [--cases LIST]
#
#   --target FILE  the file both tools read (default ./bench.dat). It is laid
#                  out once up front by appio (2 GiB of random data) and is
#                  removed at the end unless --keep is given or it existed
#                  before the run.
#   --on LIST      where the cases run, one section each (default file,loop):
#                    file  the --target file, on whatever disk holds it
#                    loop  a loop device over a 2 GiB file in a tmpfs the
#                          script mounts for itself (or, where it may not
#                          mount one, in /dev/shm): RAM speed through the real
#                          block layer, no disk in the way; what is left is
#                          each tool's own cost and the loop driver's (a
#                          kernel worker copies every read from the tmpfs
#                          file). Both tools read the raw /dev/loopN. Needs
#                          root, a free loop device and 2.5 GiB of free
#                          memory; without them the section prints a
#                          "skipped: ..." line and the rest runs. The device
#                          is detached and the tmpfs unmounted on exit,
#                          Ctrl-C included.
#                  The null cases touch no device: they run in the file
#                  section only.
#   --time S       measured seconds of each run (default 10)
#   --rounds N     rounds; each round runs every case as appio then fio
#                  (A B A B ...), and the table shows medians (default 3)
#   --quick        smoke run: --time 3 --rounds 1
#   --cases LIST   comma list of cases (default: all of them):
#                    null-qd1, null-qd32           null engine, 4k, 1 thread
#                    libaio-qd32-t1, libaio-qd32-t2,
#                    io_uring-qd32-t1, io_uring-qd32-t2
#                                                  4k random read, O_DIRECT,
#                                                  2 GiB file, 1 or 2 threads
#   --out DIR      keep the raw results here (default: a new folder under
#                  ${TMPDIR:-/tmp}); runs.jsonl holds one line per run, the
#                  loop section's are in DIR/loop/
#   --keep         keep the target file
#   --retries N    run a libaio/io_uring pair again when other processes used
#                  the device during it (over 2% of the run's own I/O), up to
#                  N times; the set-aside runs go to discarded.jsonl
#                  (default 2)
#   --settle S     before each libaio/io_uring pair, wait up to S seconds
#                  for a second with under 100 I/Os on the device (default 30)
#   --summarize DIR  run nothing: print the tables again from DIR/runs.jsonl
#                  (and DIR/loop/runs.jsonl)
#   APPIO=PATH     the appio binary (default ./appio)
#
# Both tools get the same workload: 4 KiB random reads, O_DIRECT, uniform over
# the first 2 GiB of the same file or device, the same engine, queue depth, thread count
# and duration. appio: `appio run 4k-randread --size 2G --threads T --qd Q
# --engine E --time S`. fio: `--filename=TARGET --rw=randread --bs=4k --direct=1 --size=2G
# --iodepth=Q --numjobs=T --thread --ioengine=E --norandommap --randrepeat=0
# --group_reporting --time_based --runtime=S` and otherwise the defaults,
# engine options included. --thread makes fio's jobs threads of one process,
# as appio's workers are (it also spares fio the cost of forking, so the CPU
# comparison is, if anything, tilted towards fio).
#
# What is measured, and how:
#   IOPS     each tool's own figure: I/Os completed in its measured window
#            divided by the window (appio: points[0].classes.total; fio:
#            jobs[0].read with group_reporting).
#   CPU      user + system CPU seconds of the whole process from exec to
#            exit, taken from outside the same way for both tools (the shell's
#            `time` keyword, i.e. the kernel's rusage of the waited-for
#            child): set-up, thread start, the run and teardown are all in it.
#            Neither tool's self-reported CPU percentage is used.
#   CPU per I/O = that total CPU / the I/Os the tool counted in its measured
#            window (appio: classes.total.ops over time_s; fio: total_ios over
#            its runtime). The few I/Os outside the window (appio drains up to
#            qd per thread after the window) cost CPU but are not counted, for
#            both tools alike. Shown as CPU seconds per million I/Os (= us of
#            CPU per I/O). Each run's window and wall time are in runs.jsonl.
#   p99      latency of a request from its submission to its reaping. appio's
#            lat_ns.p99 starts just before the submitting system call, so the
#            fio figure it is set against is fio's total latency (lat_ns,
#            which includes submission), recorded with --lat_percentiles=1
#            for the device cases. The null cases leave that option out (it
#            adds a histogram update per I/O to fio's CPU cost, which is what
#            they measure) and show fio's default clat p99 instead.
#   medians  every figure in the table is the median over the rounds; a ratio
#            is the median of the per-round ratios (each round's appio and fio
#            runs are back to back, so pairing them cancels slow drift). The
#            spread table gives each tool's coefficient of variation over the
#            rounds and the range of the per-round ratios.
#   device   reads in flight at the target's block device and its time per
#            read, from /proc/diskstats around each run (the device's own
#            view: is appio keeping fewer requests there, or is each one
#            slower?).
#   load     the machine's busy share just before each round is sampled and
#            reported: other processes on it make every figure noisier.
#
# Targets: null cases: IOPS per CPU-second, appio/fio >= 1.0 (that is, CPU
# ratio <= 1.0). Device cases: IOPS ratio >= 0.97, CPU ratio <= 1.0, p99 ratio
# <= 1.10.
set -euo pipefail

die() { echo "bench-vs-fio: $*" >&2; exit 2; }
log() { echo "bench-vs-fio: $*" >&2; }

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

ALL_CASES="null-qd1,null-qd32,libaio-qd32-t1,libaio-qd32-t2,io_uring-qd32-t1,io_uring-qd32-t2"
APPIO=${APPIO:-./appio}
target=bench.dat
on=file,loop
time_s=10
rounds=3
cases=$ALL_CASES
out=
keep=0
summarize_only=0
retries=2
settle=30
cases_given=0
SIZE=2G
SIZE_BYTES=$((2 * 1024 * 1024 * 1024))

while [ $# -gt 0 ]; do
	case $1 in
	--target) [ $# -ge 2 ] || die "--target needs a FILE"; target=$2; shift 2 ;;
	--on) [ $# -ge 2 ] || die "--on needs a LIST (file, loop or file,loop)"; on=$2; shift 2 ;;
	--time) [ $# -ge 2 ] || die "--time needs seconds"; time_s=$2; shift 2 ;;
	--rounds) [ $# -ge 2 ] || die "--rounds needs a number"; rounds=$2; shift 2 ;;
	--quick) time_s=3; rounds=1; shift ;;
	--cases) [ $# -ge 2 ] || die "--cases needs a LIST"; cases=$2; cases_given=1; shift 2 ;;
	--out) [ $# -ge 2 ] || die "--out needs a DIR"; out=$2; shift 2 ;;
	--keep) keep=1; shift ;;
	--retries) [ $# -ge 2 ] || die "--retries needs a number"; retries=$2; shift 2 ;;
	--settle) [ $# -ge 2 ] || die "--settle needs seconds"; settle=$2; shift 2 ;;
	--summarize) [ $# -ge 2 ] || die "--summarize needs a DIR"; out=$2; summarize_only=1; shift 2 ;;
	-h|--help) usage ;;
	*) die "unknown option '$1' (see --help)" ;;
	esac
done

[[ $time_s =~ ^[1-9][0-9]*$ ]] || die "--time: '$time_s' is not a whole number of seconds >= 1"
[[ $rounds =~ ^[1-9][0-9]*$ ]] || die "--rounds: '$rounds' is not a number >= 1"
[[ $retries =~ ^[0-9]+$ ]] || die "--retries: '$retries' is not a number >= 0"
[[ $settle =~ ^[0-9]+$ ]] || die "--settle: '$settle' is not a number of seconds"
[ "$cases" = all ] && cases=$ALL_CASES
on_file=0 on_loop=0
IFS=, read -r -a on_list <<<"$on"
[ ${#on_list[@]} -gt 0 ] || die "--on: empty list (file, loop or file,loop)"
for o in "${on_list[@]}"; do
	case $o in
	file) on_file=1 ;;
	loop) on_loop=1 ;;
	*) die "--on: unknown section '$o' (accepted: file, loop or file,loop)" ;;
	esac
done

# --- summary ----------------------------------------------------------------
# summarize: the tables from $runs, also written to $out/summary.md; the
# heading says where the runs went ($where)
summarize() {
	local order_json bg_json
	order_json=$(printf '%s\n' "${case_list[@]}" | jq -R . | jq -s .)

	bg_json=$(awk '{ print $2 }' "$out/background.txt" | jq -s -c .)
	jq -s -r --argjson order "$order_json" --argjson bg "$bg_json" --argjson rounds "$rounds" \
		--argjson time "$time_s" --arg where "$where" '
def median: sort | if length == 0 then null
	elif length % 2 == 1 then .[(length - 1) / 2]
	else (.[length / 2 - 1] + .[length / 2]) / 2 end;
def mean: add / length;
def opt(f): if . == null then "-" else f end;
# a run the device had to itself: other I/O under 2% of its own (or 100/s)
def clean: (.other_io_per_s // 0) <= ([100, 0.02 * .iops] | max);
def cv: if length < 2 then 0 else mean as $m
	| (map((. - $m) * (. - $m)) | add / (length - 1) | sqrt) / $m end;
def sig3: if . == 0 then "0" else
	(. | fabs | log10 | floor) as $e | (if $e >= 2 then 0 else 2 - $e end) as $d
	| (. * pow(10; $d) | round / pow(10; $d)) | tostring end;
def fmt_iops: if . >= 1e6 then "\(. / 1e6 | sig3) M" elif . >= 1e3 then "\(. / 1e3 | sig3) k"
	else (. | round | tostring) end;
def fmt_ns: if . >= 1e6 then "\(. / 1e6 | sig3) ms" elif . >= 1e3 then "\(. / 1e3 | sig3) us"
	else "\(. | round) ns" end;
def r3: . * 1000 | round / 1000 | tostring | if test("\\.") then . else . + ".0" end;
def pct: . * 1000 | round / 10 | tostring + "%";
def range3: "\(min | r3)-\(max | r3)";

group_by(.case) | map({key: .[0].case, value: .}) | from_entries as $by
| [$order[] | . as $c | $by[$c] // empty
   | (map(select(.tool == "appio")) | sort_by(.round)) as $a
   | (map(select(.tool == "fio")) | sort_by(.round)) as $f
   | ($a | map(select(clean))) as $ac | ($f | map(select(clean))) as $fc
   | ([range(0; [$a, $f] | map(length) | min)] ) as $ix
   | { case: $c, null: ($c | startswith("null")),
       n: ($ix | length),
       a_iops: ($a | map(.iops) | median), f_iops: ($f | map(.iops) | median),
       a_cpu: ($a | map(.cpu_per_mio) | median), f_cpu: ($f | map(.cpu_per_mio) | median),
       a_p99: ($a | map(.p99_ns) | median), f_p99: ($f | map(.p99_ns) | median),
       a_core: ($a | map(.cpu_per_wall) | median), f_core: ($f | map(.cpu_per_wall) | median),
       other_max: ($a + $f | map(.other_io_per_s // empty) | max),
       dev_n: ([$ac, $fc] | map(length) | min),
       has_dev: ($a + $f | any(.dev_inflight != null)),
       clean_pairs: ([$ix[] | select(($a[.] | clean) and ($f[.] | clean))] | length),
       a_dq: ($ac | map(.dev_inflight // empty) | median), f_dq: ($fc | map(.dev_inflight // empty) | median),
       a_dw: ($ac | map(.dev_await_us // empty) | median), f_dw: ($fc | map(.dev_await_us // empty) | median),
       threads: ($c | if test("-t2$") then 2 else 1 end),
       p99_kind: ($f[0].p99_kind),
       iops_r: [$ix[] | $a[.].iops / $f[.].iops],
       cpu_r: [$ix[] | $a[.].cpu_per_mio / $f[.].cpu_per_mio],
       p99_r: [$ix[] | $a[.].p99_ns / $f[.].p99_ns],
       a_iops_cv: ($a | map(.iops) | cv), f_iops_cv: ($f | map(.iops) | cv),
       a_cpu_cv: ($a | map(.cpu_per_mio) | cv), f_cpu_cv: ($f | map(.cpu_per_mio) | cv),
       a_p99_cv: ($a | map(.p99_ns) | cv), f_p99_cv: ($f | map(.p99_ns) | cv) }
   | . + { iops_ratio: (.iops_r | median), cpu_ratio: (.cpu_r | median),
           p99_ratio: (.p99_r | median) }
   | . + { misses: (if .null then
                      (if .cpu_ratio > 1.0 then ["IOPS per CPU-second ratio \(1 / .cpu_ratio | r3) < 1.0"] else [] end)
                    else
                      (if .iops_ratio < 0.97 then ["IOPS ratio \(.iops_ratio | r3) < 0.97"] else [] end)
                      + (if .cpu_ratio > 1.0 then ["CPU per I/O ratio \(.cpu_ratio | r3) > 1.0"] else [] end)
                      + (if .p99_ratio > 1.10 then ["p99 ratio \(.p99_ratio | r3) > 1.10"] else [] end)
                    end) } ] as $rows
| "",
  "## appio vs fio on \($where) (4 KiB random reads, O_DIRECT, \($time) s runs, median of \($rounds) round(s))",
  "",
  "| case | appio IOPS | fio IOPS | IOPS ratio | appio CPU s/M I/O | fio CPU s/M I/O | CPU ratio | appio p99 | fio p99 | p99 ratio |",
  "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ($rows[] | "| \(.case) | \(.a_iops | fmt_iops) | \(.f_iops | fmt_iops) | \(.iops_ratio | r3) | \(.a_cpu | sig3) | \(.f_cpu | sig3) | \(.cpu_ratio | r3) | \(.a_p99 | fmt_ns) | \(.f_p99 | fmt_ns)\(if .p99_kind == "clat" then " (clat)" else "" end) | \(.p99_ratio | r3) |"),
  "",
  "Ratios are appio/fio, the median of the per-round ratios. CPU = user+sys seconds of the whole process (set-up included) per million I/Os counted in the measured window. p99: appio from submission to reaping; fio total latency (lat), or clat where marked.",
  "",
  "Targets: null engine: IOPS per CPU-second ratio >= 1.0 (CPU ratio <= 1.0); libaio/io_uring: IOPS ratio >= 0.97, CPU ratio <= 1.0, p99 ratio <= 1.10.",
  "",
  "### Spread over the rounds",
  "",
  "| case | rounds | appio IOPS CV | fio IOPS CV | IOPS ratio range | appio CPU/IO CV | fio CPU/IO CV | CPU ratio range | appio p99 CV | fio p99 CV | p99 ratio range | other I/O on the device, max | rounds with the device to themselves |",
  "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
  ($rows[] | "| \(.case) | \(.n) | \(.a_iops_cv | pct) | \(.f_iops_cv | pct) | \(.iops_r | range3) | \(.a_cpu_cv | pct) | \(.f_cpu_cv | pct) | \(.cpu_r | range3) | \(.a_p99_cv | pct) | \(.f_p99_cv | pct) | \(.p99_r | range3) | \(if .other_max == null then "-" else "\(.other_max | round)/s" end) | \(if .null then "-" else .clean_pairs end) |"),
  "",
  (if ([$rows[] | select((.null | not) and .has_dev)] | length) > 0 then
    "### The device'"'"'s view (medians, from /proc/diskstats)",
    "",
    "Only runs the device had to itself count here (other I/O under 2% of the run'"'"'s own).",
    "",
    "| case | runs each | appio reads in flight | fio reads in flight | appio device time per read | fio device time per read |",
    "|---|--:|--:|--:|--:|--:|",
    ($rows[] | select((.null | not) and .has_dev)
     | "| \(.case) | \(.dev_n) | \(.a_dq | opt(sig3)) | \(.f_dq | opt(sig3)) | \(.a_dw | opt(. * 1000 | fmt_ns)) | \(.f_dw | opt(. * 1000 | fmt_ns)) |"),
    ""
   else empty end),
  "### Targets",
  "",
  ($rows[] | if (.misses | length) == 0 then "- \(.case): all targets met"
   else "- \(.case): MISSED \(.misses | join("; ")). appio used \(.a_core * 100 | round)% of a core for \(.threads) thread(s) (fio \(.f_core * 100 | round)%): "
     + (if .a_core >= 0.9 * .threads then "appio is CPU-bound, so its CPU cost per I/O (\(.a_cpu | sig3) us vs fio \(.f_cpu | sig3) us) limits it"
        elif .null then "appio is not CPU-bound: it idles between I/Os"
        elif .has_dev and (.a_dq == null or .f_dq == null) then "appio is not CPU-bound, but other processes used the device during these runs (up to \(.other_max | round) I/Os per second), so the device figures cannot say why: rerun on a quiet machine"
        elif .a_dq == null or .f_dq == null then "appio is not CPU-bound, so it is waiting: on the device, or on how it keeps the queue filled (batching, reaping)"
        elif .a_dq < 0.9 * .f_dq then "appio is not CPU-bound but keeps fewer reads at the device (\(.a_dq | sig3) vs fio \(.f_dq | sig3) in flight): it refills the queue more slowly than fio (reaping and resubmitting)"
        elif .a_dw > 1.05 * .f_dw then "appio is not CPU-bound and keeps as many reads at the device (\(.a_dq | sig3) vs fio \(.f_dq | sig3) in flight), but the device takes longer per read (\(.a_dw | round) vs \(.f_dw | round) us): the way appio'"'"'s requests arrive (batches per submission vs fio'"'"'s one request per call) slows the device down"
        else "appio is not CPU-bound and the device serves it as it serves fio (\(.a_dq | sig3) vs \(.f_dq | sig3) reads in flight, \(.a_dw | round) vs \(.f_dw | round) us per read): the gap is within the noise or in time between device completion and appio reaping it" end)
   end),
  ([$rows[] | select(.other_max != null and .other_max > 100) | "\(.case) \(.other_max | round)/s"] as $o
   | if ($o | length) > 0 then "", "WARNING: other processes used the device during these runs (max other I/Os per second: \($o | join(", "))); the device cases compare runs that met different loads." else empty end),
  (if ($bg | length) > 0 then "", "Other load on the machine just before each round (share of all CPUs busy without the benchmark): \($bg | map("\(.)%") | join(", "))." else empty end),
  (if ([$rows[] | .misses | length] | add // 0) == 0 then "", "Limits: appio met every target in this run." else empty end)
' "$runs" | tee "$out/summary.md"
}

# resummarize DIR: the tables again from DIR/runs.jsonl
resummarize() {
	local cases_here=$cases
	out=$1
	runs=$out/runs.jsonl
	if [ "$cases_given" = 0 ]; then
		cases_here=$(jq -r -s '[.[].case] | reduce .[] as $c ([]; if index([$c]) then . else . + [$c] end) | join(",")' "$runs")
	fi
	IFS=, read -r -a case_list <<<"$cases_here"
	rounds=$(jq -s 'map(.round) | max' "$runs")
	time_s=$(jq -s 'map(.window_s) | sort | .[length / 2 | floor] | round' "$runs")
	where=$(cat "$out/where.txt" 2>/dev/null) || where="a 2 GiB file"
	[ -f "$out/background.txt" ] || : >"$out/background.txt"
	summarize
}

# --summarize DIR: only print the tables again from DIR/runs.jsonl and
# DIR/loop/runs.jsonl
if [ "$summarize_only" = 1 ]; then
	command -v jq >/dev/null 2>&1 || die "missing: jq (reads the results; install the jq package)"
	top=$out
	[ -s "$top/runs.jsonl" ] || [ -s "$top/loop/runs.jsonl" ] ||
		die "--summarize: no results in '$top/runs.jsonl' or '$top/loop/runs.jsonl'"
	[ -s "$top/runs.jsonl" ] && resummarize "$top"
	[ -s "$top/loop/runs.jsonl" ] && resummarize "$top/loop"
	exit 0
fi

# --- what is needed ---------------------------------------------------------
missing=()
command -v fio >/dev/null 2>&1 || missing+=("fio (the reference tool; install the fio package)")
command -v jq >/dev/null 2>&1 || missing+=("jq (reads both tools' JSON; install the jq package)")
if [ ! -e "$APPIO" ]; then
	missing+=("the appio binary '$APPIO' (build it with make, or point APPIO= at it)")
elif [ ! -x "$APPIO" ]; then
	missing+=("the appio binary '$APPIO' is not executable")
fi
if [ ${#missing[@]} -gt 0 ]; then
	for m in "${missing[@]}"; do echo "bench-vs-fio: missing: $m" >&2; done
	exit 2
fi

# case name -> "engine qd threads"
case_spec() {
	case $1 in
	null-qd1) echo "null 1 1" ;;
	null-qd32) echo "null 32 1" ;;
	libaio-qd32-t1) echo "libaio 32 1" ;;
	libaio-qd32-t2) echo "libaio 32 2" ;;
	io_uring-qd32-t1) echo "io_uring 32 1" ;;
	io_uring-qd32-t2) echo "io_uring 32 2" ;;
	*) return 1 ;;
	esac
}

IFS=, read -r -a all_list <<<"$cases"
[ ${#all_list[@]} -gt 0 ] || die "--cases: empty list"
engines_listed=$("$APPIO" list 2>/dev/null | sed -n '/^engines/,$p' | awk 'NF { print $1 }')
file_list=() loop_list=()
for c in "${all_list[@]}"; do
	spec=$(case_spec "$c") || die "--cases: unknown case '$c' (known: $ALL_CASES)"
	eng=${spec%% *}
	grep -qx -- "$eng" <<<"$engines_listed" ||
		die "case '$c': this appio binary has no '$eng' engine (see '$APPIO list')"
	[ "$eng" = null ] || fio --enghelp="$eng" >/dev/null 2>&1 ||
		die "case '$c': this fio has no '$eng' engine (see 'fio --enghelp')"
	[ "$on_file" = 1 ] && file_list+=("$c")
	[ "$on_loop" = 1 ] && [ "$eng" != null ] && loop_list+=("$c")
done
[ ${#file_list[@]} -gt 0 ] || [ ${#loop_list[@]} -gt 0 ] ||
	die "--on loop: the null cases touch no device; give --cases with a libaio or io_uring case"

if [ "$on_file" = 1 ] && [ -e "$target" ] && [ ! -f "$target" ]; then
	die "--target '$target' exists and is not a regular file"
fi

if [ -z "$out" ]; then
	out=$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-fio.XXXXXX")
else
	mkdir -p "$out"
fi
top=$out

# --- clean-up: the target file, the loop device and its tmpfs ---------------
created=0
[ "$on_file" = 1 ] && [ ! -e "$target" ] && created=1
loop_dir='' loop_mnt='' loop_file='' loop_dev=''
cleanup() {
	local d i
	if [ -n "$loop_file" ]; then
		# every device over our file, also one attached just as Ctrl-C came
		# (before $loop_dev was set)
		for d in $loop_dev $(losetup -n -O NAME -j "$loop_file" 2>/dev/null); do
			losetup -d "$d" 2>/dev/null && log "detached $d"
		done
		if [ -n "$loop_mnt" ]; then
			# udev may still hold the device for a moment after detaching
			for i in 1 2 3 4 5 6 7 8 9 10; do
				umount "$loop_mnt" 2>/dev/null && break
				sleep 0.2
			done
			if mountpoint -q "$loop_mnt"; then
				umount -l "$loop_mnt" && log "unmounted $loop_mnt lazily (still busy)"
			else
				log "unmounted the tmpfs at $loop_mnt"
			fi
		else
			rm -f -- "$loop_file"
		fi
	fi
	[ -n "$loop_dir" ] && rmdir -- "$loop_dir" 2>/dev/null
	if [ "$created" = 1 ] && [ "$keep" = 0 ] && [ -f "$target" ]; then
		rm -f -- "$target"
		log "removed $target"
	fi
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# lay_out FILE: 2 GiB of random data in FILE, written by appio
lay_out() {
	local f=$1 cur=0
	[ -f "$f" ] && cur=$(stat -c %s -- "$f")
	if [ "$cur" -lt "$SIZE_BYTES" ]; then
		log "laying out $SIZE of $f with appio"
		"$APPIO" run 4k-randread --target "$f" --size "$SIZE" --engine null \
			--time 1 >"$out/layout.log" 2>&1 ||
			die "laying out $f failed (see $out/layout.log)"
	fi
	sync
}

# loop_setup: a loop device over 2 GiB of random data in a tmpfs; sets
# $loop_dev, or $loop_skip (the reason) and fails
loop_setup() {
	local avail_kb need_kb=$((SIZE_BYTES / 1024 + 512 * 1024)) shm_kb
	loop_skip=
	if [ "$(id -u)" -ne 0 ]; then
		loop_skip="loop devices are not available here (attaching one needs root)"
		return 1
	fi
	if ! command -v losetup >/dev/null 2>&1; then
		loop_skip="loop devices are not available here (no losetup; install util-linux)"
		return 1
	fi
	avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
	if [ "${avail_kb:-0}" -lt "$need_kb" ]; then
		loop_skip="a $SIZE tmpfs does not fit here ($((${avail_kb:-0} / 1024)) MiB of memory available, $((need_kb / 1024)) MiB needed)"
		return 1
	fi
	loop_dir=$(mktemp -d "${TMPDIR:-/tmp}/bench-vs-fio-tmpfs.XXXXXX")
	if mount -t tmpfs -o "size=$((SIZE_BYTES / 1048576 + 64))m,mode=0700" bench-vs-fio "$loop_dir" 2>/dev/null; then
		loop_mnt=$loop_dir
		loop_file=$loop_dir/disk
	else
		# no mount allowed: /dev/shm is a tmpfs too
		shm_kb=$(df -P -k /dev/shm 2>/dev/null | awk 'NR == 2 { print $4 }')
		if [ "$(stat -f -c %T /dev/shm 2>/dev/null)" != tmpfs ] || [ "${shm_kb:-0}" -lt $((SIZE_BYTES / 1024)) ]; then
			loop_skip="loop devices are not available here (cannot mount a tmpfs, and /dev/shm has no room for $SIZE)"
			return 1
		fi
		loop_file=$(mktemp /dev/shm/bench-vs-fio.XXXXXX)
	fi
	lay_out "$loop_file"
	if ! loop_dev=$(losetup -f --show -- "$loop_file" 2>"$out/losetup.log"); then
		loop_skip="loop devices are not available here ($(head -n 1 "$out/losetup.log"))"
		loop_dev=
		return 1
	fi
	log "attached $loop_dev over $SIZE in $loop_file"
}

# set_dev PATH: the block device PATH is, or the one under the file system
# holding it, for the device's own view of each run (reads in flight, time
# per read) from /proc/diskstats; none on file systems without one.
dev_maj='' dev_min='' dev_name=''
set_dev() {
	local fmt='%Hd %Ld'
	[ -b "$1" ] && fmt='%Hr %Lr'
	read -r dev_maj dev_min < <(stat -L -c "$fmt" -- "$1")
	dev_name=$(awk -v a="$dev_maj" -v b="$dev_min" '$1 == a && $2 == b { print $3 }' /proc/diskstats)
	[ -n "$dev_name" ] || log "no /proc/diskstats entry for $1's device ($dev_maj:$dev_min): no device figures"
}

# disk_snap: "reads read_ms writes" of that device so far (0 0 0 without one)
disk_snap() {
	if [ -n "$dev_name" ]; then
		awk -v a="$dev_maj" -v b="$dev_min" '$1 == a && $2 == b { print $4, $7, $8 }' /proc/diskstats
	else
		echo "0 0 0"
	fi
}

# --- one timed run ----------------------------------------------------------
# run_timed TIMEFILE LOGFILE CMD...: CMD's output goes to LOGFILE, the shell's
# measure of its wall, user and system seconds to TIMEFILE.
run_timed() {
	local tf=$1 lf=$2
	shift 2
	local TIMEFORMAT='%3R %3U %3S'
	{ time "$@" >"$lf" 2>&1; } 2>"$tf"
}

# record CASE ROUND TOOL TIMEFILE: append one runs.jsonl line from the
# tool's JSON (read on stdin by the caller's jq filter)
record() {
	local c=$1 r=$2 tool=$3 tf=$4 json=$5 filter=$6 d0=$7 d1=$8
	local wall usr sys rd0 ms0 wr0 rd1 ms1 wr1 own=1
	read -r wall usr sys <"$tf"
	read -r rd0 ms0 wr0 <<<"$d0"
	read -r rd1 ms1 wr1 <<<"$d1"
	[[ $c == null-* ]] && own=0
	jq -c --arg case "$c" --argjson round "$r" --arg tool "$tool" \
		--argjson wall "$wall" --argjson usr "$usr" --argjson sys "$sys" \
		--argjson dreads $((rd1 - rd0)) --argjson dms $((ms1 - ms0)) \
		--argjson dwrites $((wr1 - wr0)) --argjson own "$own" \
		"$filter"' | . + {case: $case, round: $round, tool: $tool, wall_s: $wall,
		  cpu_s: ($usr + $sys), cpu_per_mio: (($usr + $sys) / .ios * 1e6),
		  cpu_per_wall: (($usr + $sys) / $wall), dev_reads: $dreads,
		  dev_await_us: (if $dreads > 0 then $dms * 1000 / $dreads else null end),
		  dev_inflight: (if $dreads > 0 and $own == 1 then $dms / 1000 / .window_s else null end),
		  other_io_per_s: ([$dreads + $dwrites - $own * .ios, 0] | max / $wall)}' \
		"$json" >>"$runs"
	jq -r 'select(.case == $c and .round == $r and .tool == $t) |
		"  \(.tool | . + "     " | .[0:6]) \(.iops | floor) IOPS, \(.cpu_s * 1000 | round / 1000) CPU-s" +
		" (\(.cpu_per_mio * 100 | round / 100) s per M I/O, \(.cpu_per_wall * 100 | round)% of a core)," +
		" p99 \(.p99_ns / 1000 * 10 | round / 10) us, window \(.window_s) s, wall \(.wall_s) s" +
		(if .dev_inflight != null then "; device: \(.dev_inflight * 10 | round / 10) reads in flight," +
		 " \(.dev_await_us | round) us per read" else "" end) +
		(if .other_io_per_s > 100 then "; WARNING: \(.other_io_per_s | round) other I/Os per second on the device" else "" end)' \
		--arg c "$c" --argjson r "$r" --arg t "$tool" "$runs" >&2
}

APPIO_FILTER='.points[0] | {iops: .classes.total.ops_per_s, ios: .classes.total.ops,
	window_s: .time_s, p99_ns: .classes.total.lat_ns.p99, p99_kind: "total"}'
FIO_FILTER_LAT='.jobs[0] | {iops: .read.iops, ios: .read.total_ios,
	window_s: (.read.runtime / 1000), p99_ns: .read.lat_ns.percentile["99.000000"],
	p99_kind: "lat"}'
FIO_FILTER_CLAT='.jobs[0] | {iops: .read.iops, ios: .read.total_ios,
	window_s: (.read.runtime / 1000), p99_ns: .read.clat_ns.percentile["99.000000"],
	p99_kind: "clat"}'

run_appio() {
	local c=$1 r=$2 eng=$3 qd=$4 thr=$5
	local base=$out/appio-$c-r$r d0 d1
	d0=$(disk_snap)
	run_timed "$base.time" "$base.log" \
		"$APPIO" run 4k-randread --target "$run_target" --size "$SIZE" --threads "$thr" \
		--qd "$qd" --engine "$eng" --direct 1 --time "$time_s" --json "$base.json" ||
		die "appio failed in case $c round $r (see $base.log)"
	d1=$(disk_snap)
	record "$c" "$r" appio "$base.time" "$base.json" "$APPIO_FILTER" "$d0" "$d1"
}

run_fio() {
	local c=$1 r=$2 eng=$3 qd=$4 thr=$5
	local base=$out/fio-$c-r$r filter=$FIO_FILTER_LAT d0 d1
	local extra=(--lat_percentiles=1)
	if [ "$eng" = null ]; then
		extra=()
		filter=$FIO_FILTER_CLAT
	fi
	d0=$(disk_snap)
	run_timed "$base.time" "$base.log" \
		fio --name=bench --filename="$run_target" --size="$SIZE" --rw=randread --bs=4k \
		--direct=1 --ioengine="$eng" --iodepth="$qd" --numjobs="$thr" --thread \
		--norandommap --randrepeat=0 --group_reporting --time_based \
		--runtime="$time_s" "${extra[@]}" --output-format=json --output="$base.json" ||
		die "fio failed in case $c round $r (see $base.log)"
	d1=$(disk_snap)
	record "$c" "$r" fio "$base.time" "$base.json" "$filter" "$d0" "$d1"
}

# busy_pct: how busy the machine is without us, over one second (other
# processes on it distort every figure; the summary reports this per round)
busy_pct() {
	local a b
	read -r -a a < <(head -n 1 /proc/stat)
	sleep 1
	read -r -a b < <(head -n 1 /proc/stat)
	# cpu user nice system idle iowait irq softirq steal
	local tot=0 i
	for i in 1 2 3 4 5 6 7 8; do tot=$((tot + b[i] - a[i])); done
	local idle=$((b[4] - a[4] + b[5] - a[5]))
	[ "$tot" -gt 0 ] || { echo 0; return; }
	echo $(((tot - idle) * 100 / tot))
}

# wait_quiet: wait up to $settle seconds for a second in which the device
# does under 100 I/Os (other processes' work would skew the device cases)
wait_quiet() {
	[ -n "$dev_name" ] || return 0
	local t0=$SECONDS a b ra wa rb wb
	while [ $((SECONDS - t0)) -lt "$settle" ]; do
		a=$(disk_snap)
		sleep 1
		b=$(disk_snap)
		read -r ra _ wa <<<"$a"
		read -r rb _ wb <<<"$b"
		[ $((rb - ra + wb - wa)) -lt 100 ] && return 0
	done
	log "the device stayed busy with other I/O for ${settle} s; running anyway"
}

# run_pair CASE ROUND ENGINE QD THREADS: appio, then fio. A pair during
# which other processes used the device is run again, up to --retries times;
# the runs set aside are kept in discarded.jsonl.
run_pair() {
	local c=$1 r=$2 eng=$3 attempt=0 pair=$out/pair.jsonl
	while :; do
		[ "$eng" = null ] || wait_quiet
		: >"$pair"
		runs=$pair
		run_appio "$@"
		run_fio "$@"
		runs=$out/runs.jsonl
		if [ "$eng" = null ] || [ "$attempt" -ge "$retries" ] ||
			jq -e -s 'all(.[]; .other_io_per_s <= ([100, 0.02 * .iops] | max))' "$pair" >/dev/null; then
			cat "$pair" >>"$runs"
			rm -f "$pair"
			return 0
		fi
		cat "$pair" >>"$out/discarded.jsonl"
		attempt=$((attempt + 1))
		log "other processes used the device during this pair: running it again ($attempt of $retries)"
	done
}

# run_section: every case in case_list, $rounds rounds, on $run_target;
# results in $out, then the tables
run_section() {
	local nruns=$((rounds * ${#case_list[@]} * 2)) r c bg eng qd thr
	runs=$out/runs.jsonl
	: >"$runs"
	: >"$out/background.txt"
	echo "$where" >"$out/where.txt"
	set_dev "$run_target"
	log "$where: ${#case_list[@]} case(s) x $rounds round(s) x 2 tools x ${time_s} s: about $((nruns * (time_s + 1))) s; raw results in $out"
	for ((r = 1; r <= rounds; r++)); do
		bg=$(busy_pct)
		echo "$r $bg" >>"$out/background.txt"
		if [ "$bg" -ge 10 ]; then
			log "warning: before round $r the machine was already ${bg}% busy with other processes; figures will be noisy"
		fi
		for c in "${case_list[@]}"; do
			read -r eng qd thr <<<"$(case_spec "$c")"
			log "round $r/$rounds, $c (engine $eng, qd $qd, $thr thread(s))"
			run_pair "$c" "$r" "$eng" "$qd" "$thr"
		done
	done
	summarize
}

# --- the file section -------------------------------------------------------
if [ ${#file_list[@]} -gt 0 ]; then
	out=$top
	lay_out "$target"
	run_target=$target
	where="a 2 GiB file"
	case_list=("${file_list[@]}")
	run_section
fi

# --- the loop section: RAM speed through the block layer --------------------
if [ ${#loop_list[@]} -gt 0 ]; then
	out=$top/loop
	mkdir -p "$out"
	where="a loop device over 2 GiB in tmpfs"
	if loop_setup; then
		run_target=$loop_dev
		case_list=("${loop_list[@]}")
		run_section
	else
		printf '\n## appio vs fio on %s\n\nskipped: %s\n' "$where" "$loop_skip" | tee "$out/summary.md"
	fi
fi
log "raw results and summary.md in $top"
