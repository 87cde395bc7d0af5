#!/usr/bin/env bash
# The short form of scripts/fidelity-drives.sh: a RAM-speed loop device and the
# same device throttled by a blkio cgroup, a real MariaDB on each and the oltp
# emulator on each with the same configuration. The emulator must rank the two
# drives as the server does; the throttle must have slowed the server, or the
# comparison would say nothing; and nothing the script made may be left behind.
. tests/e2e/lib.sh

if [ "$(id -u)" -ne 0 ]; then
	skip "drive ranking" "needs root (loop device, mounts, cgroups)"
	finish
fi
if ! command -v mariadbd >/dev/null && ! command -v mysqld >/dev/null; then
	skip "drive ranking" "no MariaDB server installed"
	finish
fi

APPIO=$APPIO scripts/fidelity-drives.sh --short --out "$T/out" >"$T/out.txt" 2>&1
rc=$?
if [ $rc -eq 2 ] && grep -q "fidelity-drives: \(no writable\|no free loop\)" "$T/out.txt"; then
	skip "drive ranking" "$(tail -n 1 "$T/out.txt")"
	finish
fi
sed -n '/^  drive /,/^  ranking/s/^/    # /p' "$T/out.txt"
if [ $rc -eq 0 ] && grep -q "ranking by TPS: real ram > ram-slow, emulated ram > ram-slow (same)" "$T/out.txt"; then
	ok "the emulator ranks the RAM drive above the throttled one, as MariaDB does"
else
	not_ok "the emulator ranks the RAM drive above the throttled one, as MariaDB does (exit $rc)"
	tail -n 20 "$T/out.txt" | sed 's/^/    /'
fi
jq -s . "$T/out/raw.jsonl" >"$T/raw.json" 2>/dev/null
jq_check "two drives, real and emulated, in raw.jsonl" "$T/raw.json" \
	'length == 4 and ([.[] | select(.tps > 0)] | length) == 4 and
	 ([.[] | .side] | unique) == ["emulated", "real"]'
jq_check "each side's CPU a transaction kept, the emulator's with its model's part and --cpu-scale" "$T/raw.json" \
	'all(.[]; .cpu_us > 0) and all(.[] | select(.side == "emulated"); .model_us > 0 and .scale > 0)'
jq_check "both drives' emulator runs at the one scale fitted on the RAM drive" "$T/raw.json" \
	'[.[] | select(.side == "emulated") | .scale] | unique | length == 1'
jq_check "the throttle slowed the real server by over 1.5x" "$T/raw.json" \
	'([.[] | select(.side == "real" and .drive == "ram")][0].tps) >
	 1.5 * ([.[] | select(.side == "real" and .drive == "ram-slow")][0].tps)'
check "the report gives each drive's CPU a transaction, the server's and the emulator's" \
	bash -c "awk '/^  drive /{t=1; next} t && /^  ram(-slow)? /{n++; if (NF != 9 || \$8 + 0 <= 0 || \$9 + 0 <= 0) bad=1} /^  I\\/O|^  pair/{t=0} END{exit !(n == 2 && !bad)}' '$T/out.txt'"
check "--report rebuilds the same comparison from raw.jsonl" \
	bash -c "scripts/fidelity-drives.sh --report '$T/out/raw.jsonl' | diff - '$T/out/report.txt'"
# this run's own: other runs of the script may be going on beside it
work=$(sed -n 's/^fidelity-drives: work folder \(.*\), cgroups \(appio-drives-[0-9]*\)\*$/\1/p' "$T/out.txt")
cg=$(sed -n 's/^fidelity-drives: work folder \(.*\), cgroups \(appio-drives-[0-9]*\)\*$/\2/p' "$T/out.txt")
check "no loop device, mount, folder or cgroup left behind" bash -c \
	"[ -n '$work' ] && [ -n '$cg' ] && ! losetup -a | grep -q '$work/' && ! grep -q '$work/' /proc/mounts &&
	 [ ! -e '$work' ] && [ -z \"\$(ls -d /sys/fs/cgroup/*/$cg /sys/fs/cgroup/*/$cg-* /sys/fs/cgroup/memory/*/*/$cg-* 2>/dev/null)\" ]"
expect_exit 2 "an unknown drive is refused" -- scripts/fidelity-drives.sh --drives ram,nvme
check "  in one line naming it" grep -qx "fidelity-drives: --drives: unknown drive 'nvme' (ram, ram-slow, disk, disk-slower)" "$T/stderr"
finish
