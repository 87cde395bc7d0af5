#!/usr/bin/env bash
# appio compare and the text report on hand-made results (tests/e2e/data):
# ranks and differences from the best, lower latency ranking first, tests
# and points missing in a drive shown as missing, and results of different
# workload options refused naming the option. Drives are named by their
# model, by device and host without one, by --label when given.
. tests/e2e/lib.sh
D=$PWD/tests/e2e/data
cd "$T"

expect_exit 0 "compare two drives" -- "$APPIO" compare "$D/cmp-fast.json" "$D/cmp-slow.json"
out=$T/stdout
# row_of TEST METRIC POINT: the table row for POINT under "-- TEST: METRIC"
row_of() { awk -v h="-- $1: $2 " -v p="$3" 'index($0, h) == 1 {on = 1; next} /^--|^==/ {on = 0}
	on && index($0, p " ") == 1 {print; exit}' "$out"; }
expect_row() {  # DESC TEST METRIC POINT REGEX
	local r; r=$(row_of "$2" "$3" "$4")
	if [[ $r =~ $5 ]]; then ok "$1"; else not_ok "$1"; echo "    row: '$r'"; fi
}
expect_row "IOPS: the faster drive ranks 1, the slower -25.0 %" "sweep 4k-randread" "IOPS" "4T/8Q" \
	'60,000 IOPS #1 +best +45,000 IOPS #2 +-25\.0 %'
expect_row "mean latency: lower ranks first, +100.0 % from the best" "sweep 4k-randread" "mean latency" "2T/2Q" \
	'200 us #1 +best +400 us #2 +\+100\.0 %'
expect_row "max latency: the slower drive can win a metric" "sweep 4k-randread" "max latency" "2T/2Q" \
	'5\.00 ms #2 +\+25\.0 % +4\.00 ms #1 +best'
expect_row "steady-state window figure of each drive" "precondition 4k-randread" "IOPS" "window" \
	'50,000 IOPS #1 +best +38,000 IOPS #2 +-24\.0 %'
expect_row "a test one drive lacks: its cells say missing" "oltp" "TPS" "8 threads" \
	'900 TPS #1 +best +missing'
grep -A1 '^== oltp' "$out" | grep -q 'missing in: SLOW SSD' && ok "  and the test says where it is missing" ||
	not_ok "  and the test says where it is missing"
grep -A1 '^== sweep 8k-70-30' "$out" | grep -q 'missing in: FAST SSD' && ok "tests of the second drive only are kept" ||
	not_ok "tests of the second drive only are kept"
grep -q '(higher is better)' "$out" && grep -q '(lower is better)' "$out" && ok "each table says which way is better" ||
	not_ok "each table says which way is better"

expect_exit 2 "different workload options are refused" -- "$APPIO" compare "$D/cmp-fast.json" "$D/cmp-8k.json"
one_line_error "  with one line"
grep -q "option 'bs' of test 'sweep 4k-randread' differs: '4k' in FAST SSD, '8k' in OTHER SSD" "$T/stderr" &&
	ok "  naming the option and both values" || not_ok "  naming the option: $(cat "$T/stderr")"
expect_exit 2 "one result is not a comparison" -- "$APPIO" compare "$D/cmp-fast.json"
one_line_error "  with one line"
echo '{"points": [' >broken.json
expect_exit 2 "a broken file is refused" -- "$APPIO" compare "$D/cmp-fast.json" broken.json
grep -q "broken.json" "$T/stderr" && one_line_error "  naming it" || not_ok "  naming it"

expect_exit 0 "report without -o: the ranked summary" -- "$APPIO" report "$D/cmp-fast.json" "$D/cmp-slow.json"
grep -A2 '^== sweep 4k-randread (at 4T/8Q)' "$T/stdout" | grep -qE '^1 +FAST SSD +60,000 IOPS +best' &&
	grep -A3 '^== sweep 4k-randread (at 4T/8Q)' "$T/stdout" | grep -qE '^2 +SLOW SSD +45,000 IOPS +-25\.0 %' &&
	ok "  ranks the drives per test" || not_ok "  ranks the drives per test"
grep -A3 '^== precondition 4k-randread' "$T/stdout" | grep -q 'SLOW SSD .*not steady after 6 rounds' &&
	ok "  and says which drive never reached steady state" || not_ok "  and says which drive never reached steady state"
grep -A3 '^== oltp' "$T/stdout" | grep -qE '^- +SLOW SSD +missing' && ok "  a missing drive ranks last as missing" ||
	not_ok "  a missing drive ranks last as missing"

# names: the model; without one, the device and host; the same twice, the file names
jq '.phases[].result.target.model = ""' "$D/cmp-slow.json" >nomodel.json
cp "$D/cmp-fast.json" fast2.json
expect_exit 0 "three drives, one without a model, two of one model" -- \
	"$APPIO" compare "$D/cmp-fast.json" nomodel.json fast2.json
grep -qE '^FAST SSD \(cmp-fast\) +suite' "$T/stdout" && grep -qE '^FAST SSD \(fast2\) +suite' "$T/stdout" &&
	ok "  one model twice: each with its file's name" || not_ok "  one model twice: each with its file's name"
grep -qE '^slow on h +suite' "$T/stdout" && ok "  no model: its device on its host" ||
	not_ok "  no model: its device on its host"
expect_exit 0 "--label names a drive" -- "$APPIO" compare "$D/cmp-fast.json" "$D/cmp-slow.json" \
	--label "$D/cmp-slow.json=PM9A3 in slot 2"
grep -qE '^PM9A3 in slot 2 +suite' "$T/stdout" && grep -qE '^point +FAST SSD +PM9A3 in slot 2' "$T/stdout" &&
	ok "  in the drive list and in the tables" || not_ok "  in the drive list and in the tables"
expect_exit 2 "--label for a file not read is refused" -- "$APPIO" compare "$D/cmp-fast.json" "$D/cmp-slow.json" \
	--label other.json=x
grep -qx "appio: compare: --label: 'other.json' is not one of the results read (--label FILE=NAME)" "$T/stderr" &&
	ok "  in one line naming it" || not_ok "  in one line naming it: $(cat "$T/stderr")"
expect_exit 2 "--label without NAME is refused" -- "$APPIO" compare "$D/cmp-fast.json" "$D/cmp-slow.json" \
	--label "$D/cmp-slow.json="
one_line_error "  with one line"
finish
