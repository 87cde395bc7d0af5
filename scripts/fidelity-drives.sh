#!/usr/bin/env bash
# fidelity-drives.sh - does the oltp emulator rank drives as the real database
# does? Builds drives of very different speed on this machine, runs the real
# server and the emulator on each with the same configuration, and compares the
# ratios between drives.
#
#   scripts/fidelity-drives.sh [--short] [--drives LIST] [--servers LIST]
#                              [--workloads LIST] [--configs LIST]
#                              [--threads LIST] [--scale W] [--rounds N]
#                              [--time S] [--warmup S] [--slow-warmup S] [--out DIR]
#   scripts/fidelity-drives.sh --report RAW.jsonl
#
#   --drives LIST   comma list, default ram,ram-slow,disk,disk-slower (the
#                   first is taken for the fastest: the replay's traces are
#                   captured on it):
#                     ram          ext4 on a loop device over a file in a tmpfs
#                                  the script mounts: RAM speed through the
#                                  real block layer
#                     ram-slow     the same device, with the server (or appio)
#                                  in a blkio cgroup throttled to SLOW_IOPS
#                                  reads and writes per second (default 300)
#                     disk         a folder under --out, on the disk that
#                                  holds it, as it is
#                     disk-slower  that disk, throttled to SLOWER_IOPS per
#                                  second (default 100) and SLOWER_MBPS MB/s
#                                  (default 10) each way
#   --servers LIST  mariadb,postgres (default both)
#   --workloads LIST  comma list, default oltp,tpcc,replay:
#                     oltp    SysBench oltp_read_write on the server, 'appio
#                             run oltp' with the same tables, pool and threads
#                     tpcc    'appio db run tpcc' (1 table set of --scale
#                             warehouses) on the server, 'appio run tpcc
#                             --warehouses' with the same pool and threads
#                     replay  the server's oltp_read_write run captured
#                             ('appio db run --capture') on the first drive,
#                             after a warm-up, one trace per thread count;
#                             'appio run replay --timing load' of it on each
#                             drive, compared with the server's oltp figures
#                             (REPLAY_TIMING: load,trace by default, each a
#                             workload of the report: replay-load,
#                             replay-trace)
#   --configs LIST  the oltp sets. big: TABLES x SIZE rows (default 4 x
#                   250,000), about 4x the pool (BP, default 128M): most reads
#                   reach the drive; fit: FIT_TABLES x FIT_SIZE (default 2 x
#                   50,000), inside it (default big,fit)
#   --threads LIST  thread counts (default 4,16)
#   --scale W       tpcc warehouses (default TPCC_SCALE, 2: some 3x the pool)
#   --rounds N      rounds (default 3). A round visits every drive: the real
#                   server (a cold start, the page cache of its files
#                   dropped), then the emulators, on that drive; the order of
#                   the drives turns by one each round, so that what else the
#                   machine does falls on every drive alike. The report takes
#                   each point's median over the rounds and shows the spread
#                   (largest over smallest TPS of the rounds)
#   --time S        measured seconds per point (default 20)
#   --slow-time S   measured seconds per point on the throttled drives
#                   (ram-slow, disk-slower; default 60, or --time when that is
#                   longer). A point starts with a cold cache, which a
#                   throttled drive fills slowly: PostgreSQL's tpcc at 100
#                   I/Os a second runs 1-2 transactions a second in its first
#                   15 s and 5 over a minute, and in 10 s points its ratio to
#                   the disk moved by a third between runs (docs/fidelity-history.md,
#                   "The slowest drive's points: a minute, not 10 s"). The
#                   report marks a pair whose point held fewer than 100
#                   transactions on either side
#   --warmup S      seconds of the workload before each point, not measured
#                   (default 10)
#   --slow-warmup S the same on the throttled drives (default --warmup). A
#                   cold start there can outlast a minute: MariaDB's oltp
#                   (big, 300 I/Os a second) fills its pool and starts
#                   writing pages after some 30 s, the InnoDB model after
#                   some 50, so a 60 s point after 5 s of warm-up sets one
#                   side's cold phase against the other's flushing; 120 s
#                   puts both past it (docs/fidelity-history.md, "A throttled
#                   drive's cold start")
#   --out DIR       results (default ./appio-fidelity-drives): raw.jsonl, one
#                   line per real or emulated point and round, and report.txt
#   --short         the CI form: drives ram,ram-slow, mariadb, oltp only, big
#                   at 4 x 50,000 rows with a 32M pool, SLOW_IOPS 100, 4
#                   threads, one round of 5 s points after 3 s of warm-up,
#                   the emulator's CPU scale from one run (it checks the
#                   ranking; the ratios want the full fit)
#   --report FILE   run nothing: print the comparison again from a raw.jsonl
#                   (e.g. the figures kept in docs/data/fidelity-drives/)
#
# The real server: scripts/db-start.sh with its data folder on the drive,
# started inside the drive's cgroup, 'appio db prepare' once per device and
# set of tables (then VACUUM ANALYZE on PostgreSQL, ANALYZE TABLE after
# MariaDB's tpcc load, as fidelity-tpcc.sh does) and a copy of its data kept,
# then per drive and round a cold start from that copy and 'appio db run'
# per thread count. The emulator: 'appio run oltp' or 'appio run tpcc' with
# the same tables, pool and thread counts, its target a file on the same
# drive, run inside the same cgroup (PostgreSQL and its model with --direct 0:
# both read through the page cache, so for both a memory cgroup holds that
# cache to the pool plus PG_CACHE, default 64M, and their reads reach the
# drive as they would on a server whose data is larger than its RAM; the
# PostgreSQL model with --engine sync, system calls as PostgreSQL's own I/O:
# with libaio its fsyncs, and the writes of its dirty pages with them, would
# run in kernel workers outside the drive's cgroup, unthrottled).
# The emulator's --cpu-scale is fitted in each round on the first drive (the
# fastest, where server and emulator are CPU-bound), at the most threads: the
# scale at which the emulator's CPU a transaction is the whole machine's under
# the server there (this host's speed drifts from hour to hour, and not alike
# for the server's work and the emulator's; docs/fidelity-history.md, Change 19).
# That run is repeated until within 3 % (three runs at most), and the other
# drives take its scale; the raw lines keep each side's CPU a transaction
# (cpu_us; the emulator's model_us and scale too).
# Everything runs in a cpu cgroup of CPU_SHARES (default 4096, four times a
# process's share; 0: none), so that other work on a shared machine takes
# less of the CPU from the server and the emulator.
#
# Printed per server, workload, set and thread count: each drive's TPS (with
# its spread over the rounds), p99 and CPU a transaction (the whole machine's
# under the server; the emulator's own), real and emulated, then for every pair
# of drives the real TPS and p99 ratios, the emulator's, and the error of the
# emulator's ratio (TPS: in %, goal within 20 %; p99: as a factor, goal within
# 1.5x); and whether the emulator ranks the drives by TPS as the server does
# (over rounds, by their medians; two drives that the server ran in both
# orders, faster in one round and slower in another, it does not rank, and
# the report names them where the emulator's order differs).
# Exit status: 0 when every ranking is the server's, 1 when one is not, 2 when
# it cannot run here (not root, no loop device, no blkio or memory cgroup).
# Everything it made (servers, mounts, loop device, cgroups) is removed on
# exit, Ctrl-C included.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
APPIO=${APPIO:-$ROOT/appio}
# shellcheck source=scripts/cpu-lib.sh
. "$ROOT/scripts/cpu-lib.sh"
DRIVES=ram,ram-slow,disk,disk-slower
SERVERS=mariadb,postgres
WORKLOADS=oltp,tpcc,replay
CONFIGS=big,fit
THREADS=4,16
ROUNDS=3
SCALE_RUNS=3            # emulator runs at most to fit its CPU scale on the first drive
TIME=20
SLOW_TIME=
WARMUP=10
SLOW_WARMUP=
OUT=./appio-fidelity-drives
BP=${BP:-128M}
TABLES=${TABLES:-4} SIZE=${SIZE:-250000}
FIT_TABLES=${FIT_TABLES:-2} FIT_SIZE=${FIT_SIZE:-50000}
SLOW_IOPS=${SLOW_IOPS:-300}
SLOWER_IOPS=${SLOWER_IOPS:-100} SLOWER_MBPS=${SLOWER_MBPS:-10}
PG_CACHE=${PG_CACHE:-64M}
TPCC_SCALE=${TPCC_SCALE:-2}
CPU_SHARES=${CPU_SHARES:-4096}
REPLAY_TIMING=${REPLAY_TIMING:-load,trace}

die() { echo "fidelity-drives: $*" >&2; exit 2; }
log() { echo "fidelity-drives: $*" >&2; }

# report RAW: the comparison, from the raw lines alone (so it can be rebuilt
# from kept figures). Exit status 1 when a ranking differs from the server's.
report() {
	[ -r "$1" ] || die "--report: cannot read '$1'"
	local out
	out=$(jq -rs '
	def r2: . * 100 | round / 100;
	def pct: (. * 1000 | round / 10 | tostring) + " %";
	def ms: (. / 1e5 | round / 10 | tostring);
	def lpad($n): tostring | ("            " + .)[-$n:];
	def med: sort | if length % 2 == 1 then .[length / 2 | floor]
		else (.[length / 2 - 1] + .[length / 2]) / 2 end;
	def spread: if length < 2 then "-" elif min > 0 then (max / min | r2 | tostring) + "x" else "inf" end;
	# lines of earlier versions: oltp, one round
	map(.workload //= "oltp" | .round //= 1) |
	# the replay is compared with the server'"'"'s oltp points of its set
	([.[] | select(.workload | startswith("replay")) | [.workload, .server, .config, .threads]] | unique) as $rk |
	. + [.[] | select(.side == "real" and .workload == "oltp") as $x |
		$rk[] | select(.[1:] == [$x.server, $x.config, $x.threads]) | $x + {workload: .[0]}] |
	group_by([.server, .workload, .config, .threads]) |
	map(select(any(.[]; .side == "emulated"))) | map(
		. as $g |
		(reduce ($g | group_by(.side + "/" + .drive))[] as $xs ({};
			.[$xs[0].side + "/" + $xs[0].drive] = { tps: ([$xs[].tps] | med), p99: ([$xs[].p99] | med),
				spread: ([$xs[].tps] | spread), n: ($xs | length),
				txns: ([$xs[] | select(.time) | .tps * .time] | if length == 0 then null else med end),
				cpu: ([$xs[] | select(.cpu_us) | .cpu_us] | if length == 0 then null else med end),
				io: ([$xs[] | select(.io and .tps > 0) | (.tps * .io.seconds) as $n |
					[.io.reads / $n, .io.writes / $n, (.io.read_bytes + .io.write_bytes) / 1024 / $n]] |
					if length == 0 then null else [transpose[] | med] end) })) as $m |
		($g[0] | "\(.server), \(.workload) \(.config), \(.threads) threads" +
			([$m[].n] | max | if . > 1 then " (median of \(.) rounds)" else "" end)) as $name |
		(reduce ($g[] | select(.side == "real") | .drive) as $d ([]; if index([$d]) then . else . + [$d] end)) as $drives |
		[ $drives | to_entries[] | .key as $i | .value as $a |
		  $drives[$i + 1:][] | . as $b |
		  select($m["emulated/" + $a] and $m["emulated/" + $b]) |
		  ($m["real/" + $a].tps / $m["real/" + $b].tps) as $rt |
		  ($m["emulated/" + $a].tps / $m["emulated/" + $b].tps) as $et |
		  ($m["real/" + $a].p99 / $m["real/" + $b].p99) as $rp |
		  ($m["emulated/" + $a].p99 / $m["emulated/" + $b].p99) as $ep |
		  { pair: "\($a)/\($b)", rt: $rt, et: $et, terr: ($et / $rt - 1),
		    rp: $rp, ep: $ep, pf: ([$ep / $rp, $rp / $ep] | max),
		    few: any($a, $b | $m["real/" + .].txns, $m["emulated/" + .].txns; . != null and . < 100) } ] as $pairs |
		([$drives[] | select($m["emulated/" + .])] ) as $both |
		($both | sort_by(-$m["real/" + .].tps)) as $rrank |
		($both | sort_by(-$m["emulated/" + .].tps)) as $erank |
		# the server'"'"'s TPS by round and drive: a pair of drives whose rounds it ran
		# in both orders is one it does not rank, and neither is the emulator held to
		([$g[] | select(.side == "real")] | group_by(.round) |
			map(map({key: .drive, value: .tps}) | from_entries)) as $rounds |
		[ $both | to_entries[] | .key as $i | .value as $a | $both[$i + 1:][] | . as $b |
		  ($rounds | map(select(.[$a] != null and .[$b] != null) | .[$a] > .[$b])) as $o |
		  { a: $a, b: $b, open: (($o | any) and ($o | all | not)),
		    agree: (($m["real/" + $a].tps > $m["real/" + $b].tps) ==
			($m["emulated/" + $a].tps > $m["emulated/" + $b].tps)) } ] as $orders |
		{ name: $name, drives: $both, m: $m, pairs: $pairs, same: all($orders[]; .open or .agree),
		  open: [$orders[] | select(.open and (.agree | not)) | "\(.a)/\(.b)"],
		  rrank: $rrank, erank: $erank }) |
	. as $all |
	(map(
		"\n\(.name)\n" +
		"  drive        real TPS  spread   emu TPS  spread  real p99 ms  emu p99 ms  real CPU us  emu CPU us\n" +
		(. as $c | [$c.drives[] | . as $d | $c.m["real/"+$d] as $r | $c.m["emulated/"+$d] as $e |
			"  \($d | .+"            " | .[:12]) \($r.tps | round | lpad(9)) \($r.spread | lpad(7)) " +
			"\($e.tps | round | lpad(9)) \($e.spread | lpad(7))  \($r.p99 | ms | lpad(11))  \($e.p99 | ms | lpad(10))" +
			"  \($r.cpu // "-" | if type == "number" then round else . end | lpad(11))" +
			"  \($e.cpu // "-" | if type == "number" then round else . end | lpad(10))"] | join("\n")) +
		(. as $c | if any($c.drives[]; $c.m["real/"+.].io and $c.m["emulated/"+.].io) then
			"\n  I/O per txn  real  reads  writes     KiB | emulated  reads  writes     KiB\n" +
			([$c.drives[] | . as $d | select($c.m["real/"+$d].io and $c.m["emulated/"+$d].io) |
				"  \($d | .+"            " | .[:12])    " +
				([$c.m["real/"+$d].io[] | r2 | lpad(7)] | join(" ")) + " |         " +
				([$c.m["emulated/"+$d].io[] | r2 | lpad(7)] | join(" "))] | join("\n"))
			else "" end) +
		"\n  pair                    TPS ratio real / emu (error)     p99 ratio real / emu (factor)\n" +
		([.pairs[] | "  \(.pair | . + "                      " | .[:22])  \(.rt | r2) / \(.et | r2) (\(.terr | pct))" +
			"                 \(.rp | r2) / \(.ep | r2) (\(.pf | r2)x)" +
			(if .few then "  few txns" else "" end)] | join("\n")) +
		"\n  ranking by TPS: real \(.rrank | join(" > ")), emulated \(.erank | join(" > "))" +
		(if .same and .open == [] then " (same)" elif .same then
			" (same but for \(.open | join(", ")), which the server ran in both orders over the rounds)"
		 else " (DIFFERENT)" end)) | join("\n")),
	"",
	"summary: ranking the same in \([$all[] | select(.same)] | length) of \($all | length) configuration(s)" +
	([$all[] | select(.same and .open != [])] | length |
		if . > 0 then " (\(.) but for pairs the server ran in both orders)" else "" end) + "; " +
	"TPS ratio within 20 %: \([$all[].pairs[] | select((.terr | fabs) <= 0.2)] | length) of \([$all[].pairs[]] | length) pair(s); " +
	"p99 ratio within 1.5x: \([$all[].pairs[] | select(.pf <= 1.5)] | length) of \([$all[].pairs[]] | length)" +
	([$all[].pairs[] | select(.few)] | length |
		if . > 0 then "\n\(.) pair(s) marked few txns: a point held fewer than 100 transactions, most of them of a cold " +
			"start; their ratios move from run to run (--slow-time, --time)" else "" end),
	(if all($all[]; .same) then empty else "RANKING DIFFERS" end)
	' "$1") || die "--report: '$1' is not a raw.jsonl of this script"
	printf '%s\n' "$out"
	[[ $out != *"RANKING DIFFERS"* ]]
}

while [ $# -gt 0 ]; do
	case $1 in
	--drives) DRIVES=${2:?--drives needs a list}; shift 2 ;;
	--servers) SERVERS=${2:?--servers needs a list}; shift 2 ;;
	--workloads) WORKLOADS=${2:?--workloads needs a list}; shift 2 ;;
	--configs) CONFIGS=${2:?--configs needs a list}; shift 2 ;;
	--scale) TPCC_SCALE=${2:?--scale needs a number}; shift 2 ;;
	--rounds) ROUNDS=${2:?--rounds needs a number}; shift 2 ;;
	--threads) THREADS=${2:?--threads needs a list}; shift 2 ;;
	--time) TIME=${2:?--time needs seconds}; shift 2 ;;
	--slow-time) SLOW_TIME=${2:?--slow-time needs seconds}; shift 2 ;;
	--warmup) WARMUP=${2:?--warmup needs seconds}; shift 2 ;;
	--slow-warmup) SLOW_WARMUP=${2:?--slow-warmup needs seconds}; shift 2 ;;
	--out) OUT=${2:?--out needs a folder}; shift 2 ;;
	--short)
		DRIVES=ram,ram-slow SERVERS=mariadb WORKLOADS=oltp CONFIGS=big THREADS=4 TIME=5 SLOW_TIME=5 WARMUP=3 SLOW_WARMUP=3
		ROUNDS=1
		SCALE_RUNS=1
		BP=32M TABLES=4 SIZE=50000 SLOW_IOPS=100
		shift ;;
	--report) report "${2:?--report needs a raw.jsonl}"; exit $? ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
[ -n "$SLOW_TIME" ] || SLOW_TIME=$((TIME > 60 ? TIME : 60))
[ -n "$SLOW_WARMUP" ] || SLOW_WARMUP=$WARMUP
for v in TIME:--time SLOW_TIME:--slow-time WARMUP:--warmup SLOW_WARMUP:--slow-warmup SLOW_IOPS:SLOW_IOPS SLOWER_IOPS:SLOWER_IOPS \
	SLOWER_MBPS:SLOWER_MBPS TPCC_SCALE:--scale ROUNDS:--rounds; do
	n=${v%%:*}
	[[ ${!n} =~ ^[0-9]+$ ]] && [ "${!n}" -gt 0 ] || die "${v#*:} must be a whole number > 0, not '${!n}'"
done
[[ $CPU_SHARES =~ ^[0-9]+$ ]] || die "CPU_SHARES must be a whole number (0: no cpu cgroup), not '$CPU_SHARES'"
[[ $THREADS =~ ^[0-9]+(,[0-9]+)*$ ]] || die "--threads: expected a comma list of numbers, not '$THREADS'"
IFS=, read -r -a DRIVE_LIST <<<"$DRIVES"
IFS=, read -r -a SERVER_LIST <<<"$SERVERS"
IFS=, read -r -a CONFIG_LIST <<<"$CONFIGS"
for d in "${DRIVE_LIST[@]}"; do
	case $d in ram|ram-slow|disk|disk-slower) ;; *) die "--drives: unknown drive '$d' (ram, ram-slow, disk, disk-slower)" ;; esac
done
[ ${#DRIVE_LIST[@]} -ge 2 ] || die "--drives: name at least two drives to compare"
for s in "${SERVER_LIST[@]}"; do
	case $s in mariadb|postgres) ;; *) die "--servers: unknown server '$s' (mariadb, postgres)" ;; esac
done
IFS=, read -r -a WORKLOAD_LIST <<<"$WORKLOADS"
for w in "${WORKLOAD_LIST[@]}"; do
	case $w in oltp|tpcc|replay) ;; *) die "--workloads: unknown workload '$w' (oltp, tpcc, replay)" ;; esac
done
for c in "${CONFIG_LIST[@]}"; do
	case $c in big|fit) ;; *) die "--configs: unknown configuration '$c' (big, fit)" ;; esac
done

# What it needs, each refused in one line.
[ "$(id -u)" -eq 0 ] || die "needs root (loop devices, mounts and cgroups)"
command -v jq >/dev/null || die "jq is needed"
command -v mkfs.ext4 >/dev/null || die "mkfs.ext4 is needed (e2fsprogs)"
[ -x "$APPIO" ] || die "no appio binary at '$APPIO' (run make)"
BLKIO=/sys/fs/cgroup/blkio
[ -w "$BLKIO/cgroup.procs" ] && [ -e "$BLKIO/blkio.throttle.read_iops_device" ] ||
	die "no writable blkio cgroup (v1) at $BLKIO: cannot throttle a drive here"
MEMCG=/sys/fs/cgroup/memory$(sed -n 's/^[0-9]*:memory://p' /proc/self/cgroup)
[ -w "$MEMCG/cgroup.procs" ] || die "no writable memory cgroup at $MEMCG"
losetup -f >/dev/null 2>&1 || die "no free loop device (losetup -f)"

mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/appio-drives.XXXXXX)       # short: socket paths must stay short
chmod 755 "$WORK"                               # PostgreSQL runs as its own user
TMPFS=$WORK/tmpfs MNT=$WORK/ram LOOP='' CPUCG='' CPUHOME=''
: >"$OUT/raw.jsonl"
: >"$OUT/report.txt"
log "work folder $WORK, cgroups appio-drives-$$*"

cleanup() {
	set +e
	local s c i
	for s in "$MNT"/srv-* "${DISKDIR:-/nonexistent}"/srv-*; do
		[ -d "$s" ] && [[ $s != *.prepared ]] && "$ROOT/scripts/db-stop.sh" "$s" >/dev/null 2>&1
	done
	for c in "$BLKIO"/appio-drives-$$-* "$MEMCG"/appio-drives-$$-*; do
		[ -d "$c" ] || continue
		xargs -r kill <"$c/cgroup.procs" 2>/dev/null
		for i in $(seq 50); do [ -s "$c/cgroup.procs" ] || break; sleep 0.1; done
		rmdir "$c"
	done
	if [ -n "$CPUCG" ] && [ -d "$CPUCG" ]; then
		echo $$ >"$CPUHOME/cgroup.procs"
		xargs -r kill <"$CPUCG/cgroup.procs" 2>/dev/null
		for i in $(seq 50); do [ -s "$CPUCG/cgroup.procs" ] || break; sleep 0.1; done
		rmdir "$CPUCG"
	fi
	mountpoint -q "$MNT" 2>/dev/null && umount "$MNT"
	if [ -n "$LOOP" ]; then
		losetup -d "$LOOP"
		# the detach completes a moment later (seconds on a busy machine);
		# the tmpfs stays busy until it has
		for i in $(seq 300); do [ -e "/sys/block/${LOOP#/dev/}/loop/backing_file" ] || break; sleep 0.1; done
	fi
	for i in $(seq 50); do
		mountpoint -q "$TMPFS" 2>/dev/null || break
		umount "$TMPFS" 2>/dev/null || sleep 0.2
	done
	mountpoint -q "$TMPFS" 2>/dev/null && umount -l "$TMPFS"
	rm -rf "$WORK"
	[ -n "${DISKDIR:-}" ] && rm -rf "$DISKDIR"
	return 0
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The CPU share: this shell and all it starts, from here on
if [ "$CPU_SHARES" -gt 0 ]; then
	CPUHOME=/sys/fs/cgroup/cpu$(awk -F: '$2 ~ /(^|,)cpu(,|$)/ { print $3 }' /proc/self/cgroup)
	if [ -w "$CPUHOME/cgroup.procs" ] && mkdir "$CPUHOME/appio-drives-$$" 2>/dev/null; then
		CPUCG=$CPUHOME/appio-drives-$$
		echo "$CPU_SHARES" >"$CPUCG/cpu.shares"
		echo $$ >"$CPUCG/cgroup.procs"
	else
		log "no writable cpu cgroup at $CPUHOME: running without a CPU share"
	fi
fi

# The devices: the RAM loop device, and the disk under --out.
need_ram=0 need_disk=0
for d in "${DRIVE_LIST[@]}"; do case $d in ram*) need_ram=1 ;; disk*) need_disk=1 ;; esac; done
if [ $need_ram = 1 ]; then
	mkdir -p "$TMPFS" "$MNT"
	mount -t tmpfs -o size=8G appio-drives "$TMPFS" || die "cannot mount a tmpfs at $TMPFS"
	truncate -s 6G "$TMPFS/disk"
	LOOP=$(losetup -f --show "$TMPFS/disk") || die "cannot attach a loop device"
	mkfs.ext4 -q -E nodiscard "$LOOP" && mount "$LOOP" "$MNT" && chmod 755 "$MNT" || die "cannot make ext4 on $LOOP"
	log "ram: ext4 on $LOOP over a tmpfs file, mounted at $MNT"
fi
if [ $need_disk = 1 ]; then
	DISKDIR=$OUT/disk
	mkdir -p "$DISKDIR"
	chmod 755 "$DISKDIR"
fi

# majmin FOLDER: the whole disk holding FOLDER, as MAJ:MIN (throttles take disks)
majmin() {
	local src dev parent
	src=$(findmnt -n -o SOURCE --target "$1")
	dev=$(readlink -f "$src")
	parent=$(lsblk -n -o PKNAME "$dev" 2>/dev/null | head -1)
	[ -n "$parent" ] && dev=/dev/$parent
	lsblk -dn -o MAJ:MIN "$dev" | tr -d ' '
}

# folder DRIVE: where the drive's data goes; cgroup DRIVE KIND: made once
folder() { case $1 in ram*) echo "$MNT" ;; disk*) echo "$DISKDIR" ;; esac; }
device() { case $1 in ram*) echo ram ;; disk*) echo disk ;; esac; }
secs() { case $1 in *-slow*) echo "$SLOW_TIME" ;; *) echo "$TIME" ;; esac; }  # a point's measured seconds
warm() { case $1 in *-slow*) echo "$SLOW_WARMUP" ;; *) echo "$WARMUP" ;; esac; }  # and its warm-up

cgroup() {  # DRIVE KIND -> prints "blkio_dir mem_dir" (mem_dir "-" when none)
	local drive=$1 kind=$2 b m mm
	b=$BLKIO/appio-drives-$$-$drive m=-
	if [ ! -d "$b" ]; then
		mkdir "$b"
		mm=$(majmin "$(folder "$drive")")
		case $drive in
		ram-slow) for f in read_iops write_iops; do echo "$mm $SLOW_IOPS" >"$b/blkio.throttle.${f}_device"; done ;;
		disk-slower)
			for f in read_iops write_iops; do echo "$mm $SLOWER_IOPS" >"$b/blkio.throttle.${f}_device"; done
			for f in read_bps write_bps; do echo "$mm $((SLOWER_MBPS * 1000000))" >"$b/blkio.throttle.${f}_device"; done ;;
		esac
	fi
	if [ "$kind" = postgres ]; then
		m=$MEMCG/appio-drives-$$-$drive
		if [ ! -d "$m" ]; then
			mkdir "$m"
			echo $(( $(numfmt --from=iec "$BP") + $(numfmt --from=iec "$PG_CACHE") + 256 * 1048576 )) \
				>"$m/memory.limit_in_bytes"
		fi
	fi
	echo "$b $m"
}

# in_cg DRIVE KIND CMD...: run CMD (and whatever it starts) inside the drive's cgroups
in_cg() {
	local drive=$1 kind=$2 b m; shift 2
	read -r b m < <(cgroup "$drive" "$kind")
	bash -c 'echo $$ >"$1/cgroup.procs"; [ "$2" = - ] || echo $$ >"$2/cgroup.procs"; shift 2; exec "$@"' \
		_ "$b" "$m" "$@"
}

settings() {  # KIND: the server settings of the configuration
	case $1 in
	mariadb) echo "innodb_buffer_pool_size=$BP" ;;
	postgres) echo "shared_buffers=${BP}B" ;;
	esac
}

# uncache PATH: drop the page cache of the files under PATH, so that a point
# starts cold whichever drive's memory cgroup the previous point charged its
# cache to (ram and ram-slow share a device); every file system written out
# first, so that no write-back of a point on another drive runs in this one
uncache() {
	sync
	find "$1" -type f -exec dd if={} iflag=nocache count=0 status=none \; 2>/dev/null || true
}

# server_up KIND DRIVE: start the server on the drive's device, inside the
# drive's cgroups; prints the appio options that connect to it. Its data
# folder is first put back as prepare() left it: the emulator starts every
# run from a fresh load's layout, and a server's tables age with every
# transaction (rows moved off their pages, dead index entries), so that the
# drives sharing a device would otherwise each meet the history of the
# points run before them. Measured on PostgreSQL (4 x 250,000 rows, 300
# I/Os a second, 4 threads, a cold start): 112-135 TPS from the prepared
# data, 1.6-2.3 read requests a transaction; 52 TPS and 5.8 after an
# unthrottled point of 30,000 transactions on the same tables; the model
# 110-146 (docs/fidelity-history.md, "Measurement of 6 December 2026").
server_up() {
	local kind=$1 drive=$2 srv conn
	srv=$(folder "$drive")/srv-$kind
	if [ -d "$srv.prepared" ]; then
		rm -rf "$srv" && cp -a "$srv.prepared" "$srv" ||
			die "cannot put $kind's prepared data back in $srv"
	fi
	uncache "$srv"
	# shellcheck disable=SC2046
	conn=$(in_cg "$drive" "$kind" "$ROOT/scripts/db-start.sh" "$kind" "$srv" $(settings "$kind") 2>"$WORK/start.err" | tail -n 1) ||
		die "cannot start $kind on $drive: $(tail -n 1 "$WORK/start.err")"
	echo "$conn"
}
server_down() { "$ROOT/scripts/db-stop.sh" "$(folder "$2")/srv-$1" >/dev/null; }

# db_args SET: the workload and tables of a set, as appio db takes them
db_args() {
	case $1 in
	tpcc) echo "tpcc --tables 1 --scale $TPCC_SCALE" ;;
	*) echo "oltp_read_write --tables $SET_TABLES --table-size $SET_SIZE" ;;
	esac
}

# prepare KIND SET: a fresh server with the set's tables on every device
prepare() {
	local kind=$1 set=$2 drive dev conn done=''
	for drive in "${DRIVE_LIST[@]}"; do
		dev=$(device "$drive")
		[[ " $done " == *" $dev "* ]] && continue
		"$ROOT/scripts/db-stop.sh" "$(folder "$dev")/srv-$kind" --remove >/dev/null 2>&1 || true
		rm -rf "$(folder "$dev")/srv-$kind.prepared"
		conn=$(server_up "$kind" "$dev")
		log "$kind $set on $dev: preparing $(db_args "$set" | cut -d' ' -f2-)"
		# shellcheck disable=SC2046,SC2086
		"$APPIO" db prepare $(db_args "$set") $conn --threads 2 >/dev/null 2>"$WORK/prep.err" ||
			die "$kind on $dev: appio db prepare failed: $(tail -n 1 "$WORK/prep.err")"
		# PostgreSQL's first autovacuum of the loaded tables (40 s after the
		# start, and a pass that writes every page) would otherwise fall inside
		# a measured point; a server that runs on after the load has done it
		# within a minute, and the models' tables start vacuumed. MariaDB may
		# keep the statistics it took of a table while it was being loaded:
		# right after sysbench-tpcc's load its plans read some 15 times the
		# pages a transaction (fidelity-tpcc.sh analyzes for the same reason)
		local srv
		srv=$(folder "$dev")/srv-$kind
		if [ "$kind" = postgres ]; then
			psql -X -q -h "$srv" -p "$(cat "$srv/port")" -U appio appio -c "VACUUM ANALYZE" ||
				die "postgres on $dev: VACUUM ANALYZE after the load failed"
		elif [ "$set" = tpcc ]; then
			mariadb --no-defaults --socket="$srv/mysqld.sock" -uroot appio -N -B -e \
				"ANALYZE TABLE warehouse1, district1, customer1, history1, orders1, new_orders1,
				 order_line1, stock1, item1" >/dev/null ||
				die "mariadb on $dev: ANALYZE TABLE after the load failed"
		fi
		server_down "$kind" "$dev"
		# written out now: the copy's write-back (some 1 GB on the disk) would
		# otherwise run during the next drive's first point (a RAM drive's:
		# the one the emulator's CPU scale is fitted on) and slow it
		cp -a "$srv" "$srv.prepared" && sync ||
			die "cannot keep a copy of $kind's prepared data in $srv.prepared"
		done="$done $dev"
	done
}

# io_snap DRIVE: what the drive's blkio cgroup has sent to its device so far,
# as the throttle counts it: "reads writes read_bytes write_bytes". Buffered
# writes that the kernel's flusher threads write back count in no cgroup
# (cgroup v1): neither here nor under the throttle.
io_snap() {
	local b=$BLKIO/appio-drives-$$-$1 mm
	mm=$(majmin "$(folder "$1")")
	awk -v mm="$mm" '$1 == mm && $2 == "Read" { r = $3 } $1 == mm && $2 == "Write" { w = $3 }
		END { printf "%d %d ", r, w }' "$b/blkio.throttle.io_serviced"
	awk -v mm="$mm" '$1 == mm && $2 == "Read" { r = $3 } $1 == mm && $2 == "Write" { w = $3 }
		END { printf "%d %d\n", r, w }' "$b/blkio.throttle.io_service_bytes"
}

# point FILE SIDE KIND SET DRIVE ROUND WORKLOAD BEFORE AFTER [TICKS]: one raw
# line per point of a result (tpcc's set named by its warehouses, w2), with the
# I/O of the drive's cgroup from BEFORE to AFTER (io_snap), over the warm-up
# and the measured seconds of a one-point run; and the CPU a transaction
# (cpu_us): the machine's, TICKS over the measured seconds, for the server;
# the emulator's own, with what its model burnt of it (model_us) and its
# --cpu-scale
point() {
	local c=$4 t wu
	[ "$c" = tpcc ] && c=w$TPCC_SCALE
	t=$(secs "$5") wu=$(warm "$5")
	jq -c --arg side "$2" --arg s "$3" --arg c "$c" --arg d "$5" --argjson r "$6" --arg w "$7" \
		--arg b "$8" --arg a "$9" --argjson secs "$((wu + t))" --argjson ticks "${10:-null}" \
		--argjson time "$t" --argjson warmup "$wu" \
		"(\$a | split(\" \") | map(tonumber)) as \$A | (\$b | split(\" \") | map(tonumber)) as \$B |
		 .points as \$p | .points[] | {side: \$side, server: \$s, workload: \$w, config: \$c, drive: \$d, round: \$r, threads,
		  tps: .classes.txn.ops_per_s, p99: .classes.txn.lat_ns.p99, time: \$time, warmup: \$warmup} +
		 if (\$p | length) == 1 then {io: {reads: (\$A[0] - \$B[0]), writes: (\$A[1] - \$B[1]),
		  read_bytes: (\$A[2] - \$B[2]), write_bytes: (\$A[3] - \$B[3]), seconds: \$secs}} else {} end +
		 if \$ticks != null and .classes.txn.ops_per_s > 0 then
		  {cpu_us: (\$ticks * 1e4 / (.classes.txn.ops_per_s * \$time))} else {} end +
		 if .cpu_s and .counters.txns > 0 and .counters.cpu_model_us then
		  {cpu_us: (.cpu_s * 1e6 / .counters.txns), model_us: (.counters.cpu_model_us / .counters.txns),
		   scale: (\$p[0] | .scale // 1)} else {} end" "$1" >>"$OUT/raw.jsonl"
}

# real KIND SET DRIVE ROUND: the server on the drive, a cold start, every thread count
real() {
	local kind=$1 set=$2 drive=$3 round=$4 conn t w=oltp before a0 a1
	[ "$set" = tpcc ] && w=tpcc
	conn=$(server_up "$kind" "$drive")
	for t in ${THREADS//,/ }; do
		log "$kind $set on $drive, round $round: real server, $t threads"
		before=$(io_snap "$drive")
		# the warm-up apart, so that the machine's CPU is read around the measured seconds only
		# shellcheck disable=SC2046,SC2086
		"$APPIO" db run $(db_args "$set") $conn --threads "$t" --time "$(warm "$drive")" >/dev/null 2>"$WORK/real.err" ||
			die "$kind on $drive: appio db run failed: $(tail -n 1 "$WORK/real.err")"
		a0=$(cpu_all)
		# shellcheck disable=SC2046,SC2086
		"$APPIO" db run $(db_args "$set") $conn --threads "$t" \
			--time "$(secs "$drive")" --json "$WORK/real.json" >/dev/null 2>"$WORK/real.err" ||
			die "$kind on $drive: appio db run failed: $(tail -n 1 "$WORK/real.err")"
		a1=$(cpu_all)
		point "$WORK/real.json" real "$kind" "$set" "$drive" "$round" "$w" "$before" "$(io_snap "$drive")" \
			"$((a1 - a0))"
	done
	server_down "$kind" "$drive"
}

# emu_file DRIVE: the emulator's target on the drive's device, laid out
# once per set (outside the throttle: the layout is not measured)
emu_file() {
	local f
	f=$(folder "$1")/emu-$(device "$1").dat
	if [ ! -e "$f" ]; then
		"$APPIO" run 128k-seqread --target "$f" --size "${EMU_MB}M" --time 1 >/dev/null
		sync -f "$f"
	fi
	echo "$f"
}

# emulated KIND SET DRIVE ROUND: appio run oltp or tpcc, in the drive's cgroups
emulated() {
	local kind=$1 set=$2 drive=$3 round=$4 f model=innodb extra=() w=oltp before after sf scale pass
	local m e b next prev="" best="" best_scale best_before best_after
	# PostgreSQL reads, writes and syncs with system calls, so does its model
	# here: libaio would hand its fsyncs (and so the writes of its buffered
	# pages) to kernel workers that are in no cgroup, past the throttle
	[ "$kind" = postgres ] && model=postgres extra=(--direct 0 --engine sync)
	if [ "$set" = tpcc ]; then
		# the server runs sysbench-tpcc's schema, statements and mix: so does the model
		w=tpcc extra+=(--warehouses "$TPCC_SCALE" --mix sysbench-tpcc)
	else
		extra+=(--tables "$SET_TABLES" --table-size "$SET_SIZE")
	fi
	f=$(emu_file "$drive")
	sf=$WORK/scale-$kind-$set
	cgroup "$drive" "$kind" >/dev/null
	scale=$(cat "$sf" 2>/dev/null || echo 1)
	for pass in $(seq "$SCALE_RUNS"); do
		uncache "$f"
		log "$kind $set on $drive, round $round: emulator, threads $THREADS, --cpu-scale $scale"
		before=$(io_snap "$drive")
		in_cg "$drive" "$kind" "$APPIO" run "$w" --target "$f" --size "${EMU_MB}M" --engine-model "$model" \
			--buffer-pool "$BP" "${extra[@]}" --threads "$THREADS" --cpu-scale "$scale" \
			--time "$(secs "$drive")" --ramp "$(warm "$drive")" --json "$WORK/emu.json" >/dev/null 2>"$WORK/emu.err" ||
			die "$kind on $drive: appio run $w failed: $(tail -n 1 "$WORK/emu.err")"
		after=$(io_snap "$drive")
		# on the fastest drive, where both are CPU-bound, the scale at which the emulator's
		# CPU a transaction is the server's (this hour's speed, as the calibrate lines of
		# fidelity-oltp.sh): run again until within 3 %, SCALE_RUNS runs at most, and
		# keep the run that came closest
		[ "$drive" = "${DRIVE_LIST[0]}" ] || break
		read -r m e b <<<"$(drive_cpu "$kind" "$set" "$drive" "$round")"
		[ -n "$b" ] || break
		if [ -z "$best" ] || scale_better "$m" "$e" "$best"; then
			best=$e best_scale=$scale best_before=$before best_after=$after
			cp "$WORK/emu.json" "$WORK/emu-best.json"
		fi
		if scale_close "$m" "$e" || [ "$pass" = "$SCALE_RUNS" ]; then
			scale=$best_scale before=$best_before after=$best_after
			mv "$WORK/emu-best.json" "$WORK/emu.json"
			echo "$scale" >"$sf"
			break
		fi
		# shellcheck disable=SC2086
		next=$(scale_next "$m" "$scale" "$e" "$b" $prev)
		prev="$scale $e" scale=$next
	done
	jq '.points[0].scale = '"$scale" "$WORK/emu.json" >"$WORK/emu-s.json"
	point "$WORK/emu-s.json" emulated "$kind" "$set" "$drive" "$round" "$w" "$before" "$after"
}

# drive_cpu KIND SET DRIVE ROUND: "MACHINE_US EMU_US BURNT_US" at the most
# threads: the whole machine's CPU a transaction under the server on DRIVE
# this round (raw.jsonl), the emulator's in WORK/emu.json and what its model
# burnt of it. Nothing when there is nothing to fit on.
drive_cpu() {
	local c=$2
	[ "$c" = tpcc ] && c=w$TPCC_SCALE
	jq -rs --arg s "$1" --arg c "$c" --arg d "$3" --argjson r "$4" --slurpfile e "$WORK/emu.json" '
		([.[] | select(.side == "real" and .server == $s and .config == $c and .drive == $d and
			.round == $r and .cpu_us)] | max_by(.threads)) as $rp |
		($e[0].points | max_by(.threads)) as $ep |
		if $rp == null or $ep.threads != $rp.threads or ($ep.counters.cpu_model_us // 0) == 0 then empty
		else [$rp.cpu_us, $ep.cpu_s * 1e6 / $ep.counters.txns, $ep.counters.cpu_model_us / $ep.counters.txns] |
			map(tostring) | join(" ") end' "$OUT/raw.jsonl"
}

# capture KIND SET: on the first drive (the fastest), the server warmed up,
# then one measured run per thread count under --capture: the traces replayed
# on every drive, and the TPS the server had while they were taken
capture() {
	local kind=$1 set=$2 drive=${DRIVE_LIST[0]} conn t
	conn=$(server_up "$kind" "$drive")
	for t in ${THREADS//,/ }; do
		log "$kind $set on $drive: capturing $t threads"
		# shellcheck disable=SC2046,SC2086
		"$APPIO" db run $(db_args "$set") $conn --threads "$t" --time "$WARMUP" >/dev/null 2>&1 || true
		# shellcheck disable=SC2046,SC2086
		"$APPIO" db run $(db_args "$set") $conn --threads "$t" --time "$TIME" \
			--capture "$WORK/trace-$t" --json "$WORK/cap.json" >/dev/null 2>"$WORK/cap.err" ||
			die "$kind on $drive: appio db run --capture failed: $(tail -n 1 "$WORK/cap.err")"
		jq '.points[0].classes.txn.ops_per_s' "$WORK/cap.json" >"$WORK/trace-$t.tps"
		"$APPIO" trace info "$WORK/trace-$t" --json | jq '.ios / .duration_s' >"$WORK/trace-$t.iops"
	done
	server_down "$kind" "$drive"
}

# replay KIND SET DRIVE ROUND: each captured trace on the drive's emulator
# file, with each of REPLAY_TIMING (default load,trace): load, as fast as the
# drive takes it at the trace's own in-flight counts; trace, on the trace's
# schedule, as far as the drive keeps up. Its TPS is the server's at the
# capture scaled by the replay's I/O rate over the trace's (the ratio between
# two drives is the ratio of I/O rates); its p99 is the I/Os' service time, a
# transaction's being unknown to it.
replay() {
	local kind=$1 set=$2 drive=$3 round=$4 f t tm
	f=$(emu_file "$drive")
	for t in ${THREADS//,/ }; do
		for tm in ${REPLAY_TIMING//,/ }; do
			log "$kind $set on $drive, round $round: replay of the $t-thread trace, timing $tm"
			in_cg "$drive" "$kind" "$APPIO" run replay --trace "$WORK/trace-$t" --timing "$tm" --loops 100000 \
				--map wrap --target "$f" --size "${EMU_MB}M" --time "$TIME" --json "$WORK/rep.json" >/dev/null 2>"$WORK/rep.err" ||
				die "$kind on $drive: appio run replay failed: $(tail -n 1 "$WORK/rep.err")"
			jq -c --arg s "$kind" --arg c "$set" --arg d "$drive" --argjson r "$round" --argjson t "$t" \
				--arg w "replay-$tm" --argjson ctps "$(cat "$WORK/trace-$t.tps")" --argjson tio "$(cat "$WORK/trace-$t.iops")" \
				'.points[0] | {side: "emulated", server: $s, workload: $w, config: $c, drive: $d, round: $r,
				  threads: $t, tps: ($ctps * .classes.total.ops_per_s / $tio), p99: .classes.total.lat_ns.p99,
				  replay_iops: .classes.total.ops_per_s, trace_iops: $tio, capture_tps: $ctps}' \
				"$WORK/rep.json" >>"$OUT/raw.jsonl"
		done
	done
}

# The sets: each oltp configuration (its real points serve the replay too),
# then tpcc. Each round visits every drive, the real server and then the
# emulator on it, the drives in an order rotated by one per round, so that
# what else the machine does falls on every drive alike.
has() { [[ ",$WORKLOADS," == *",$1,"* ]]; }
SETS=()
if has oltp || has replay; then SETS+=("${CONFIG_LIST[@]}"); fi
if has tpcc; then SETS+=(tpcc); fi
for kind in "${SERVER_LIST[@]}"; do
	for set in "${SETS[@]}"; do
		case $set in
		big) SET_TABLES=$TABLES SET_SIZE=$SIZE ;;
		fit) SET_TABLES=$FIT_TABLES SET_SIZE=$FIT_SIZE ;;
		esac
		if [ "$set" = tpcc ]; then
			# the model's own need for the tables and the log, from its refusal
			EMU_MB=$("$APPIO" run tpcc --warehouses "$TPCC_SCALE" --mix sysbench-tpcc --engine-model "$([ "$kind" = postgres ] && echo postgres || echo innodb)" \
				--target "$WORK/probe" --size 1M --time 1 2>&1 | sed -n 's/.* need \([0-9]*\) MiB.*/\1/p' || true)
			rm -f "$WORK/probe"
			[ -n "$EMU_MB" ] || die "cannot learn the tpcc model's size at --scale $TPCC_SCALE"
			EMU_MB=$((EMU_MB + 64))
		else
			EMU_MB=$((256 + SET_TABLES * SET_SIZE * 300 / 1048576))
			# PostgreSQL's model keeps max_wal_size (1G) of WAL beside the tables
			[ "$kind" = postgres ] && EMU_MB=$((EMU_MB + 1024))
		fi
		prepare "$kind" "$set"
		[ "$set" != tpcc ] && has replay && capture "$kind" "$set"
		for ((r = 1; r <= ROUNDS; r++)); do
			n=${#DRIVE_LIST[@]}
			for ((i = 0; i < n; i++)); do
				drive=${DRIVE_LIST[$(( (i + r - 1) % n ))]}
				real "$kind" "$set" "$drive" "$r"
				if [ "$set" = tpcc ] || has oltp; then emulated "$kind" "$set" "$drive" "$r"; fi
				if [ "$set" != tpcc ] && has replay; then replay "$kind" "$set" "$drive" "$r"; fi
			done
		done
		for drive in "${DRIVE_LIST[@]}"; do
			"$ROOT/scripts/db-stop.sh" "$(folder "$drive")/srv-$kind" --remove >/dev/null 2>&1 || true
			rm -rf "$(folder "$drive")/srv-$kind.prepared"
			rm -f "$(folder "$drive")"/emu-*.dat
		done
	done
done

report "$OUT/raw.jsonl" | tee "$OUT/report.txt"
exit "${PIPESTATUS[0]}"
