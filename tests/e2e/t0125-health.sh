#!/usr/bin/env bash
# The drive's own health figures around a run: smartctl's JSON read before
# and after, the difference in what the drive counted as written printed
# beside what the host wrote, and "not available" with smartctl's reason (or
# its absence) where there is nothing to read. A stand-in smartctl on PATH
# plays an NVMe drive whose written-data counter moves by 2,000 units
# (1.02 GB) during the run.
. tests/e2e/lib.sh
D=$PWD/tests/unit/data
cd "$T"
mkdir bin
cat >bin/smartctl <<EOS
#!/bin/sh
# first call: the recorded document; later calls: 2,000 more data units written, 3 C warmer
if [ -e "$T/called" ]; then
	sed -e 's/"data_units_written": 25771349/"data_units_written": 25773349/' \
	    -e 's/"temperature": {"current": 41}/"temperature": {"current": 44}/' "$D/smartctl-nvme.json"
else
	touch "$T/called"; cat "$D/smartctl-nvme.json"
fi
EOS
chmod +x bin/smartctl
if [ -z "$(lsblk -no PKNAME "$(findmnt -no SOURCE --target "$T")" 2>/dev/null)$(findmnt -no SOURCE --target "$T" | grep '^/dev/')" ]; then
	skip "drive health" "no block device under the scratch folder"
	finish
fi
expect_exit 0 "a run with a (stand-in) NVMe drive's smartctl" -- env PATH="$T/bin:$PATH" \
	"$APPIO" run 4k-randread --target f.dat --size 16M --time 1 --json h.json
jq_check "  health before and after in the result" h.json \
	'.health.before.available and .health.after.available and .health.before.protocol == "NVMe" and
	 .health.after.data_written_bytes - .health.before.data_written_bytes == 2000 * 512000 and
	 .health.after.temperature_c == 44 and .health.after.percentage_used == 2 and .health.after.media_errors == 0'
grep -qE '^drive health \(smartctl\): the drive counted 1\.02 GB written \(the host [0-9.]+ GB in the measured points\); 41 -> 44 C; 2 % of its rated endurance used; 0 media errors$' "$T/stdout" &&
	ok "  and after the table, beside the host's writes" || { not_ok "  and after the table"; grep health "$T/stdout"; }

rm -f "$T/called"
expect_exit 0 "a (small) suite with the stand-in smartctl" -- env PATH="$T/bin:$PATH" "$APPIO" suite quick \
	--target f.dat --size 16M --profiles 4k-randread --apps none --db none --fill-passes 0 --threads 1 \
	--qd 1 --time 1 --round-time 1 --max-rounds 1 --write-sweep none --json s.json
jq_check "  health before and after the whole suite in its document" s.json \
	'.health.before.available and .health.after.available and
	 .health.after.data_written_bytes - .health.before.data_written_bytes == 2000 * 512000 and
	 .health.after.temperature_c == 44'
grep -qE '^drive health \(smartctl\): the drive counted 1\.02 GB written \(the host [0-9.]+ GB in the measured points of the suite\)' \
	"$T/stdout" && ok "  and after the suite's summary" || { not_ok "  and after the suite's summary"; grep health "$T/stdout"; }

expect_exit 0 "a run where smartctl is not installed" -- env PATH=/nonexistent "$APPIO" run 4k-randread \
	--target f.dat --size 16M --time 1 --json n.json
jq_check "  the result says it was not available, and why" n.json \
	'.health.before.available == false and (.health.before.why | test("smartctl is not installed"))'
grep -qx 'drive health (smartctl): not available: smartctl is not installed (Debian package smartmontools)' "$T/stdout" &&
	ok "  and so does the text" || not_ok "  and so does the text"
if command -v smartctl >/dev/null; then
	expect_exit 0 "a run with the real smartctl" -- "$APPIO" run 4k-randread --target f.dat --size 16M --time 1 --json r.json
	jq_check "  figures, or not available with smartctl's one-line reason" r.json \
		'.health.before | (.available and .protocol != "") or (.available == false and (.why | length) > 0 and (.why | test("\n") | not))'
else
	skip "a run with the real smartctl" "smartctl is not installed"
fi
finish
