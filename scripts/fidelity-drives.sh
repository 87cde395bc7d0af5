#!/usr/bin/env bash
# fidelity-drives.sh - does the oltp emulator rank drives as the real database
# does? Builds drives of very different speed on this machine, runs the real
# server and the emulator on each with the same configuration, and compares the
# ratios between drives.
#
#   scripts/fidelity-drives.sh [--short] [--drives LIST] [--servers LIST]
#                              [--configs LIST] [--threads LIST] [--time S]
#                              [--warmup S] [--out DIR]
#   scripts/fidelity-drives.sh --report RAW.jsonl
#
#   --drives LIST   comma list, default ram,ram-slow,disk,disk-slower:
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
#   --configs LIST  big: TABLES x SIZE rows (default 4 x 250,000), about 4x
#                   the pool (BP, default 128M): most reads reach the drive;
#                   fit: FIT_TABLES x FIT_SIZE (default 2 x 50,000), inside it
#                   (default big,fit)
#   --threads LIST  thread counts (default 4,16)
#   --time S        measured seconds per point (default 20)
#   --warmup S      seconds of SysBench read_write before each point, not
#                   measured (default 10)
#   --out DIR       results (default ./appio-fidelity-drives): raw.jsonl, one
#                   line per real or emulated point, and report.txt
#   --short         the CI form: drives ram,ram-slow, mariadb, big at 4 x 50,000
#                   rows with a 32M pool, SLOW_IOPS 100, 4 threads, 10 s points
#                   after 5 s of warm-up
#   --report FILE   run nothing: print the comparison again from a raw.jsonl
#                   (e.g. the figures kept in docs/data/fidelity-drives/)
#
# The real server: scripts/db-start.sh with its data folder on the drive,
# started inside the drive's cgroup, 'appio db prepare oltp_read_write' once
# per device, then per drive a cold start and 'appio db run oltp_read_write'
# per thread count. The emulator: 'appio run oltp' with the same tables, rows,
# pool and thread counts, its target a file on the same drive, run inside the
# same cgroup (PostgreSQL and its model with --direct 0: both read through the
# page cache, so for both a memory cgroup holds that cache to the pool plus
# PG_CACHE, default 64M, and their reads reach the drive as they would on a
# server whose data is larger than its RAM).
#
# Printed per server, configuration and thread count: each drive's TPS and p99
# (real and emulated), then for every pair of drives the real TPS and p99
# ratios, the emulator's, and the error of the emulator's ratio (TPS: in %,
# goal within 20 %; p99: as a factor, goal within 1.5x); and whether the
# emulator ranks the drives by TPS as the server does. Exit status: 0 when
# every ranking is the server's, 1 when one is not, 2 when it cannot run here
# (not root, no loop device, no blkio or memory cgroup). Everything it made
# (servers, mounts, loop device, cgroups) is removed on exit, Ctrl-C included.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
APPIO=${APPIO:-$ROOT/appio}
DRIVES=ram,ram-slow,disk,disk-slower
SERVERS=mariadb,postgres
CONFIGS=big,fit
THREADS=4,16
TIME=20
WARMUP=10
OUT=./appio-fidelity-drives
BP=${BP:-128M}
TABLES=${TABLES:-4} SIZE=${SIZE:-250000}
FIT_TABLES=${FIT_TABLES:-2} FIT_SIZE=${FIT_SIZE:-50000}
SLOW_IOPS=${SLOW_IOPS:-300}
SLOWER_IOPS=${SLOWER_IOPS:-100} SLOWER_MBPS=${SLOWER_MBPS:-10}
PG_CACHE=${PG_CACHE:-64M}

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
	group_by([.server, .config, .threads]) | map(
		. as $g | ($g[0] | "\(.server), \(.config), \(.threads) threads") as $name |
		([$g[] | select(.side == "real") | .drive]) as $drives |
		(reduce $g[] as $x ({}; .[$x.side + "/" + $x.drive] = $x)) as $m |
		[ $drives | to_entries[] | .key as $i | .value as $a |
		  $drives[$i + 1:][] | . as $b |
		  select($m["emulated/" + $a] and $m["emulated/" + $b]) |
		  ($m["real/" + $a].tps / $m["real/" + $b].tps) as $rt |
		  ($m["emulated/" + $a].tps / $m["emulated/" + $b].tps) as $et |
		  ($m["real/" + $a].p99 / $m["real/" + $b].p99) as $rp |
		  ($m["emulated/" + $a].p99 / $m["emulated/" + $b].p99) as $ep |
		  { pair: "\($a)/\($b)", rt: $rt, et: $et, terr: ($et / $rt - 1),
		    rp: $rp, ep: $ep, pf: ([$ep / $rp, $rp / $ep] | max) } ] as $pairs |
		([$drives[] | select($m["emulated/" + .])] ) as $both |
		($both | sort_by(-$m["real/" + .].tps)) as $rrank |
		($both | sort_by(-$m["emulated/" + .].tps)) as $erank |
		{ name: $name, drives: $both, m: $m, pairs: $pairs, same: ($rrank == $erank),
		  rrank: $rrank, erank: $erank }) |
	. as $all |
	(map(
		"\n\(.name)\n" +
		"  drive        real TPS   emu TPS   real p99 ms  emu p99 ms\n" +
		(. as $c | [$c.drives[] | . as $d |
			"  \($d | .+"            " | .[:12]) \($c.m["real/"+$d].tps | round | tostring | ("         " + .)[-9:]) " +
			"\($c.m["emulated/"+$d].tps | round | tostring | ("         " + .)[-9:])   " +
			"\($c.m["real/"+$d].p99 | ms | ("          " + .)[-10:])  \($c.m["emulated/"+$d].p99 | ms | ("          " + .)[-10:])"] | join("\n")) +
		"\n  pair                    TPS ratio real / emu (error)     p99 ratio real / emu (factor)\n" +
		([.pairs[] | "  \(.pair | . + "                      " | .[:22])  \(.rt | r2) / \(.et | r2) (\(.terr | pct))" +
			"                 \(.rp | r2) / \(.ep | r2) (\(.pf | r2)x)"] | join("\n")) +
		"\n  ranking by TPS: real \(.rrank | join(" > ")), emulated \(.erank | join(" > "))" +
		(if .same then " (same)" else " (DIFFERENT)" end)) | join("\n")),
	"",
	"summary: ranking the same in \([$all[] | select(.same)] | length) of \($all | length) configuration(s); " +
	"TPS ratio within 20 %: \([$all[].pairs[] | select((.terr | fabs) <= 0.2)] | length) of \([$all[].pairs[]] | length) pair(s); " +
	"p99 ratio within 1.5x: \([$all[].pairs[] | select(.pf <= 1.5)] | length) of \([$all[].pairs[]] | length)",
	(if all($all[]; .same) then empty else "RANKING DIFFERS" end)
	' "$1") || die "--report: '$1' is not a raw.jsonl of this script"
	printf '%s\n' "$out"
	[[ $out != *"RANKING DIFFERS"* ]]
}

while [ $# -gt 0 ]; do
	case $1 in
	--drives) DRIVES=${2:?--drives needs a list}; shift 2 ;;
	--servers) SERVERS=${2:?--servers needs a list}; shift 2 ;;
	--configs) CONFIGS=${2:?--configs needs a list}; shift 2 ;;
	--threads) THREADS=${2:?--threads needs a list}; shift 2 ;;
	--time) TIME=${2:?--time needs seconds}; shift 2 ;;
	--warmup) WARMUP=${2:?--warmup needs seconds}; shift 2 ;;
	--out) OUT=${2:?--out needs a folder}; shift 2 ;;
	--short)
		DRIVES=ram,ram-slow SERVERS=mariadb CONFIGS=big THREADS=4 TIME=10 WARMUP=5
		BP=32M TABLES=4 SIZE=50000 SLOW_IOPS=100
		shift ;;
	--report) report "${2:?--report needs a raw.jsonl}"; exit $? ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	*) die "unknown argument '$1' (see --help)" ;;
	esac
done
for v in TIME WARMUP SLOW_IOPS SLOWER_IOPS SLOWER_MBPS; do
	[[ ${!v} =~ ^[0-9]+$ ]] && [ "${!v}" -gt 0 ] || die "$v must be a whole number > 0, not '${!v}'"
done
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
TMPFS=$WORK/tmpfs MNT=$WORK/ram LOOP=''
: >"$OUT/raw.jsonl"
: >"$OUT/report.txt"

cleanup() {
	set +e
	local s c i
	for s in "$MNT"/srv-* "${DISKDIR:-/nonexistent}"/srv-*; do
		[ -d "$s" ] && "$ROOT/scripts/db-stop.sh" "$s" >/dev/null 2>&1
	done
	for c in "$BLKIO"/appio-drives-$$-* "$MEMCG"/appio-drives-$$-*; do
		[ -d "$c" ] || continue
		xargs -r kill <"$c/cgroup.procs" 2>/dev/null
		for i in $(seq 50); do [ -s "$c/cgroup.procs" ] || break; sleep 0.1; done
		rmdir "$c"
	done
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

# real KIND CONFIG TABLES SIZE: prepare once per device, then every drive on it
real() {
	local kind=$1 cfg=$2 tables=$3 size=$4 dev drive srv conn t prepared=''
	for drive in "${DRIVE_LIST[@]}"; do
		dev=$(device "$drive")
		srv=$(folder "$drive")/srv-$kind          # the server's data folder, on the drive
		if [[ " $prepared " != *" $dev "* ]]; then
			"$ROOT/scripts/db-stop.sh" "$srv" --remove >/dev/null 2>&1 || true
			# shellcheck disable=SC2046
			conn=$(in_cg "$dev" "$kind" "$ROOT/scripts/db-start.sh" "$kind" "$srv" $(settings "$kind") 2>"$WORK/start.err" | tail -n 1) ||
				die "cannot start $kind on $drive: $(tail -n 1 "$WORK/start.err")"
			log "$kind $cfg on $dev: preparing $tables x $size rows"
			# shellcheck disable=SC2086
			"$APPIO" db prepare oltp_read_write $conn --tables "$tables" --table-size "$size" --threads 2 >/dev/null
			"$ROOT/scripts/db-stop.sh" "$srv" >/dev/null
			prepared="$prepared $dev"
		fi
		# shellcheck disable=SC2046
		conn=$(in_cg "$drive" "$kind" "$ROOT/scripts/db-start.sh" "$kind" "$srv" $(settings "$kind") 2>"$WORK/start.err" | tail -n 1) ||
			die "cannot start $kind on $drive: $(tail -n 1 "$WORK/start.err")"
		for t in ${THREADS//,/ }; do
			log "$kind $cfg on $drive: real server, $t threads"
			# shellcheck disable=SC2086
			"$APPIO" db run oltp_read_write $conn --tables "$tables" --table-size "$size" --threads "$t" \
				--time "$TIME" --warmup-time "$WARMUP" --json "$WORK/real.json" >/dev/null 2>"$WORK/real.err" ||
				die "$kind on $drive: appio db run failed: $(tail -n 1 "$WORK/real.err")"
			jq -c --arg s "$kind" --arg c "$cfg" --arg d "$drive" \
				'{side: "real", server: $s, config: $c, drive: $d, threads: .points[0].threads,
				  tps: .points[0].classes.txn.ops_per_s, p99: .points[0].classes.txn.lat_ns.p99}' \
				"$WORK/real.json" >>"$OUT/raw.jsonl"
		done
		"$ROOT/scripts/db-stop.sh" "$srv" >/dev/null
	done
	for drive in "${DRIVE_LIST[@]}"; do
		"$ROOT/scripts/db-stop.sh" "$(folder "$drive")/srv-$kind" --remove >/dev/null 2>&1 || true
	done
}

# emulated KIND CONFIG TABLES SIZE: appio run oltp on every drive
emulated() {
	local kind=$1 cfg=$2 tables=$3 size=$4 drive f model=innodb extra=()
	local mb=$((256 + tables * size * 300 / 1048576))
	# PostgreSQL's model keeps max_wal_size (1G) of WAL beside the tables
	[ "$kind" = postgres ] && model=postgres extra=(--direct 0) mb=$((mb + 1024))
	for drive in "${DRIVE_LIST[@]}"; do
		f=$(folder "$drive")/emu.dat
		rm -f "$f"
		"$APPIO" run 128k-seqread --target "$f" --size "${mb}M" --time 1 >/dev/null
		sync
		log "$kind $cfg on $drive: emulator, threads $THREADS"
		in_cg "$drive" "$kind" "$APPIO" run oltp --target "$f" --size "${mb}M" --engine-model "$model" \
			--buffer-pool "$BP" "${extra[@]}" --tables "$tables" --table-size "$size" --threads "$THREADS" \
			--time "$TIME" --ramp "$WARMUP" --json "$WORK/emu.json" >/dev/null 2>"$WORK/emu.err" ||
			die "$kind on $drive: appio run oltp failed: $(tail -n 1 "$WORK/emu.err")"
		jq -c --arg s "$kind" --arg c "$cfg" --arg d "$drive" \
			'.points[] | {side: "emulated", server: $s, config: $c, drive: $d, threads,
			  tps: .classes.txn.ops_per_s, p99: .classes.txn.lat_ns.p99}' "$WORK/emu.json" >>"$OUT/raw.jsonl"
		rm -f "$f"
	done
}

for kind in "${SERVER_LIST[@]}"; do
	for cfg in "${CONFIG_LIST[@]}"; do
		case $cfg in
		big) tables=$TABLES size=$SIZE ;;
		fit) tables=$FIT_TABLES size=$FIT_SIZE ;;
		esac
		real "$kind" "$cfg" "$tables" "$size"
		emulated "$kind" "$cfg" "$tables" "$size"
	done
done

report "$OUT/raw.jsonl" | tee "$OUT/report.txt"
exit "${PIPESTATUS[0]}"
