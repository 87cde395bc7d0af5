#!/usr/bin/env bash
# t0400-target-device.sh - the --force guard on a block device.
#
# A 64 MiB loop device carrying ext4, or mounted, may be read but not written
# without --force (exit 2, one line naming --force); with --force, or once
# wiped blank, the write runs. Needs root and a free loop device; skips
# otherwise. The loop device is unmounted and detached on exit.
. "$(dirname "$0")/lib.sh"

write_run() {  # write_run [options...]: a short random-write run on $DEV
	"$APPIO" run 4k-randwrite --target "$DEV" --time 1 --qd 1 --threads 1 "$@"
}

fs_type() {  # the signature on $DEV as libblkid sees it, straight from the disk
	blkid -p -o value -s TYPE "$DEV" 2>/dev/null
}

refusal_names_force() {  # DESC: the last expect_exit's stderr mentions --force
	if grep -q -e '--force' "$T/stderr"; then ok "$1"; else
		not_ok "$1"; sed 's/^/    /' "$T/stderr" | head -5
	fi
}

setup() {  # make $DEV, a loop device over a file in $T; else set $why
	local tool
	[ "$(id -u)" -eq 0 ] || { why="needs root"; return 1; }
	for tool in losetup mkfs.ext4 wipefs blkid mount jq; do
		command -v "$tool" >/dev/null || { why="no $tool"; return 1; }
	done
	truncate -s 64M "$T/disk.img" || { why="cannot create $T/disk.img"; return 1; }
	DEV=$(losetup -f --show "$T/disk.img" 2>/dev/null) || { why="losetup failed"; return 1; }
	at_exit "losetup -d '$DEV'"
}

if ! setup; then
	skip "writes to a loop device carrying ext4 are refused" "$why"
	skip "reads, --force, blank and mounted devices" "$why"
	finish
fi

# ext4 on the device: writing is refused, reading is not.
check "mkfs.ext4 on the loop device" mkfs.ext4 -q -F "$DEV"
expect_exit 2 "a write to a device carrying ext4 is refused" -- write_run --json "$T/refused.json"
one_line_error "the refusal is one line"
refusal_names_force "the refusal names --force"
check "the file system survives the refused run" test "$(fs_type)" = ext4

expect_exit 0 "a read of a device carrying ext4 runs" -- \
	"$APPIO" run 4k-randread --target "$DEV" --time 1 --json "$T/read.json"
jq_check "the read run read" "$T/read.json" '.points[0].classes.read.ops > 0'

expect_exit 0 "--force lets the write run" -- write_run --force --json "$T/forced.json"
jq_check "the forced write wrote to a block device" "$T/forced.json" '.target.kind == "block" and .points[0].classes.write.ops > 0'
jq_check "the result's target is the whole 64 MiB" "$T/forced.json" '.target.size == 67108864'

# Wiped blank: nothing to lose, so no --force needed.
wipefs -a -q "$DEV"
expect_exit 0 "a write to a blank device runs without --force" -- write_run --json "$T/blank.json"
jq_check "the blank device was written" "$T/blank.json" '.points[0].classes.write.ops > 0'

# Mounted: the kernel holds the device, and the write is refused too.
check "mkfs.ext4 again, to mount it" mkfs.ext4 -q -F "$DEV"
mkdir -p "$T/mnt"
if mount "$DEV" "$T/mnt" 2>/dev/null; then
	at_exit "umount '$T/mnt'"
	expect_exit 2 "a write to a mounted device is refused" -- write_run
	one_line_error "the refusal of a mounted device is one line"
	refusal_names_force "the refusal of a mounted device names --force"
	umount "$T/mnt"
else
	skip "a write to a mounted device is refused" "mount failed"
fi
finish
