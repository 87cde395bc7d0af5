#!/usr/bin/env bash
# bundle-traces.sh - capture the traces that come with appio (traces/*.trace.gz),
# each on a loop device of its own, and print their provenance lines for
# traces/README.md.
#
#   scripts/bundle-traces.sh [--time S] [--out DIR] [NAME...]
#
#   --time S   seconds each workload runs while it is captured (default 20)
#   --out DIR  where the traces go (default: traces/ of this tree)
#   NAME       only these: mariadb-oltp, postgres-oltp, sqlite-oltp, fileserver-mix
#   APPIO=PATH the appio binary (default ./appio)
#
# Each trace: a 1 GiB file under /tmp becomes a loop device with direct I/O and
# 4 KiB sectors (its requests reach the drive as they are), ext4 on it, the
# software's data there, and appio captures that device while the workload runs:
#   mariadb-oltp    MariaDB (scripts/db-start.sh), 16 MB buffer pool, SysBench
#                   oltp_read_write on 4 tables x 100,000 rows (some 100 MB), 4 threads
#   postgres-oltp   PostgreSQL, shared_buffers 16MB, the same workload
#   sqlite-oltp     SQLite in WAL mode, synchronous=full, the same workload
#   fileserver-mix  real tools on a file tree: tar writes /usr/share/doc and
#                   /usr/include out, find + cat read it back after the cache is
#                   dropped, rm deletes half of it, sync; round after round
# Needs root. The traces are gzip -9 compressed appio traces.
set -euo pipefail

die() { echo "bundle-traces: $*" >&2; exit 2; }
APPIO=${APPIO:-$PWD/appio}
SCRIPTS=$(cd "$(dirname "$0")" && pwd)
TIME=20 OUT=$SCRIPTS/../traces NAMES=()
while [ $# -gt 0 ]; do
	case $1 in
	--time) TIME=$2; shift 2 ;;
	--out) OUT=$2; shift 2 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//'; exit 0 ;;
	-*) die "unknown option '$1'" ;;
	*) NAMES+=("$1"); shift ;;
	esac
done
[ ${#NAMES[@]} -gt 0 ] || NAMES=(mariadb-oltp postgres-oltp sqlite-oltp fileserver-mix)
[ "$(id -u)" -eq 0 ] || die "needs root"
OUT=$(cd "$OUT" && pwd)
WORK=$(mktemp -d /tmp/appio-bundle.XXXXXX)
chmod 755 "$WORK"               # PostgreSQL runs as its own user
DEV= MNT=$WORK/mnt
cleanup() {
	[ -d "$MNT/db" ] && "$SCRIPTS/db-stop.sh" "$MNT/db" >/dev/null 2>&1 || true
	mountpoint -q "$MNT" && umount "$MNT"
	[ -n "$DEV" ] && losetup -d "$DEV"
	DEV=
	rm -rf "$WORK/disk.img"
}
trap 'cleanup; rm -rf "$WORK"' EXIT

fresh_fs() {
	cleanup
	dd if=/dev/zero of="$WORK/disk.img" bs=1M count=1024 oflag=direct status=none
	DEV=$(losetup -f --show --sector-size 4096 --direct-io=on "$WORK/disk.img")
	mkfs.ext4 -q -F "$DEV"
	mkdir -p "$MNT"
	mount "$DEV" "$MNT"
}

OLTP=(--tables 4 --table-size 100000)
oltp() {  # NAME CONNECTION-OPTIONS...
	local name=$1; shift
	"$APPIO" db prepare oltp_read_write "$@" "${OLTP[@]}" --threads 4 >/dev/null
	sync
	echo 3 >/proc/sys/vm/drop_caches
	"$APPIO" db run oltp_read_write "$@" "${OLTP[@]}" --threads 4 --time "$TIME" --capture "$WORK/$name.trace" \
		>"$WORK/$name.log"
}

fileserver() {
	local end=$((SECONDS + TIME))
	while [ $SECONDS -lt $end ]; do
		mkdir -p "$MNT/tree"
		tar -C /usr -cf - share/doc include 2>/dev/null | tar -C "$MNT/tree" -xf -
		sync
		echo 3 >/proc/sys/vm/drop_caches
		find "$MNT/tree" -type f -exec cat {} + >/dev/null
		find "$MNT/tree" -type f -name '*[02468]*' -delete
		sync
		rm -rf "$MNT/tree"
		sync
	done
}

for name in "${NAMES[@]}"; do
	fresh_fs
	case $name in
	mariadb-oltp)
		conn=$("$SCRIPTS/db-start.sh" mariadb "$MNT/db" innodb_buffer_pool_size=16M | tail -n 1)
		[ -n "$conn" ] || die "MariaDB did not start"
		# shellcheck disable=SC2086 # a list of options
		oltp "$name" $conn ;;
	postgres-oltp)
		conn=$("$SCRIPTS/db-start.sh" postgres "$MNT/db" shared_buffers=16MB | tail -n 1)
		[ -n "$conn" ] || die "PostgreSQL did not start"
		# shellcheck disable=SC2086
		oltp "$name" $conn ;;
	sqlite-oltp)
		oltp "$name" --driver sqlite --sqlite-db "$MNT/sbtest.db" ;;
	fileserver-mix)
		"$APPIO" trace record --path "$MNT" -o "$WORK/$name.trace" --desc "tar writes /usr/share/doc and \
/usr/include out, find + cat read them back cold, rm deletes half, sync; in rounds (ext4)" -- bash -c "$(declare -f fileserver);
			MNT='$MNT' TIME=$TIME fileserver" 2>"$WORK/$name.log" ;;
	*) die "unknown trace '$name'" ;;
	esac
	gzip -9 -n -c "$WORK/$name.trace" >"$OUT/$name.trace.gz"
	"$APPIO" trace info "$OUT/$name.trace.gz" >"$WORK/$name.info"
	printf -- '- `%s`: %s, %s; %s; captured %s on %s (%s, a loop device with direct I/O over a file on it), %s\n' \
		"$name" "$(grep -E '^duration:' "$WORK/$name.info" | sed 's/^duration: *//; s/ from first to last issue//')" \
		"$(grep -E '^I/Os:' "$WORK/$name.info" | sed 's/^I\/Os: *//; s/ (mean over the duration)//')" \
		"$(grep -E '^ +(run\.workload|run\.driver|run\.tables|run\.threads|server\.server_version|server\.innodb_buffer_pool_size|server\.shared_buffers|server\.journal_mode|server\.synchronous|desc):' "$WORK/$name.info" |
		   sed 's/^ *//' | tr '\n' ';' | sed 's/;$//; s/;/; /g')" \
		"$(date -u +%Y-%m-%d)" "$(uname -r)" "$(df --output=source "$WORK" | tail -1)" \
		"$(du -k "$OUT/$name.trace.gz" | cut -f1) KiB"
done
