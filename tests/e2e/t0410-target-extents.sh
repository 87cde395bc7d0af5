#!/usr/bin/env bash
# t0410-target-extents.sh - a direct write is one request, on a cold target too.
#
# On ext4, after the page cache and the inodes are dropped, the extent map of
# a file with an extent tree below its inode (more than 4 extents) came back
# into the kernel's cache piece by piece, as I/O asked for it, and a direct
# write that starts in the last block of a cached piece went out as two
# requests that the block layer merged back. The InnoDB model's log writes
# each rewrite the last, partly filled 512-byte block, so half or more of
# them split, and a drive throttled by I/Os a second counted both halves.
# appio loads the whole map when it opens a file target. Checked with a
# 1 GiB target (ext4's extents hold at most 128 MiB) on a loop device over a
# tmpfs file: the device's merged writes over a 4 s run of the model, which
# come only from such splits there. It drops the machine's caches, so it
# runs alone (tests/run.sh, SERIAL_TESTS). Needs root and a free loop
# device; skips otherwise.
. "$(dirname "$0")/lib.sh"

setup() {  # $DEV with ext4 mounted at $T/mnt; else set $why
	local tool
	[ "$(id -u)" -eq 0 ] || { why="needs root"; return 1; }
	for tool in losetup mkfs.ext4 mount umount jq; do
		command -v "$tool" >/dev/null || { why="no $tool"; return 1; }
	done
	mkdir -p "$T/ram" "$T/mnt" && mount -t tmpfs -o size=1400m tmpfs "$T/ram" ||
		{ why="cannot mount a tmpfs"; return 1; }
	at_exit "umount '$T/ram'"
	truncate -s 1300M "$T/ram/disk.img" || { why="cannot create $T/ram/disk.img"; return 1; }
	DEV=$(losetup -f --show "$T/ram/disk.img" 2>/dev/null) || { why="losetup failed"; return 1; }
	at_exit "losetup -d '$DEV'"
	mkfs.ext4 -q -F "$DEV" && mount "$DEV" "$T/mnt" || { why="cannot mount ext4 on $DEV"; return 1; }
	at_exit "umount '$T/mnt'"
}

merged_writes() { awk '{ print $6 }' "/sys/block/${DEV#/dev/}/stat"; }

if ! setup; then
	skip "the model's log writes are not split on a cold target" "$why"
	finish
fi
F=$T/mnt/target.dat

check "lay out a 1 GiB target" "$APPIO" run 128k-seqread --target "$F" --size 1G --time 1
check "drop the page cache and the inodes" bash -c "sync && echo 3 > /proc/sys/vm/drop_caches"
before=$(merged_writes)
expect_exit 0 "the InnoDB model runs on the cold target" -- \
	"$APPIO" run oltp --target "$F" --size 1G --engine-model innodb --buffer-pool 32M --log-size 16M \
	--tables 2 --table-size 20000 --threads 4 --time 4 --ramp 0 --seed 7 --json "$T/cold.json"
merged=$(($(merged_writes) - before))
log_writes=$(jq '.points[0].counters.log_writes' "$T/cold.json" 2>/dev/null) || log_writes=0
jq_check "the model wrote its log" "$T/cold.json" '.points[0].counters.log_writes > 500'
if [ "${log_writes:-0}" -gt 0 ] && [ "$merged" -le $((log_writes / 20)) ]; then
	ok "writes merged by the block layer: $merged for $log_writes log writes (at most 1 in 20)"
else
	not_ok "writes merged by the block layer: $merged for $log_writes log writes (at most 1 in 20)"
fi
finish
