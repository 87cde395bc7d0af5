#!/usr/bin/env bash
# --rate and --slo-search on the transactional emulators (oltp here, on the
# null engine: the model's own work, no device). The rate counts units of
# work (transactions) a second over all threads, as sysbench's --rate: a
# point keeps it within 1% (counted after a 1 s ramp over 4 s, so that a
# stall of the loaded machine at the window's edge costs less than 1%), and
# the result says latency runs from each transaction's intended start. A rate
# far above what the model does makes the schedule run ahead: latency from
# the intended start grows second by second (the backlog) and dwarfs the
# latency below capacity. That overloaded point breaks --slo p95=400ms
# (a percentile no result lists: read from the point's histogram), so
# --slo-search bisects below it: its probe, at half the point's rate, leaves
# the model idle half the time and meets the limit, so the rate found lies
# between 0 and the point's. cache, nosql and the file-system emulators share
# the core's loop; one short cache run checks that their rate counts
# requests (gets and sets). About 13 s.
. tests/e2e/lib.sh
cd "$T"
# the rate's mechanics, not the model's CPU: a light statement cost keeps 200
# TPS far below what two threads do even on a loaded machine under ASan
small="--engine null --target o.dat --size 128M --table-size 2000 --cpu-per-stmt 20"

expect_exit 0 "oltp at 200 TPS, 2 threads" -- "$APPIO" run oltp $small --threads 2 --ramp 1 --time 4 \
	--rate 200 --json r.json
jq_check "  transactions and units of work within 1% of the rate" r.json \
	'.points[0] | (.classes.txn.ops_per_s > 198 and .classes.txn.ops_per_s < 202) and
	 (.events / .time_s > 198 and .events / .time_s < 202)'
jq_check "  the document says the rate is in TPS, latency from the intended start" r.json \
	'.rate_iops == 200 and .rate_unit == "TPS" and .latency_from == "intended_start"'
grep -qx "open loop at 200 TPS a point: latency from each unit of work's intended start (coordinated omission excluded)" \
	"$T/stdout" && ok "  and so does the text" || { not_ok "  and so does the text"; cat "$T/stdout"; }

expect_exit 0 "100,000 TPS asked of 2 threads, with --slo p95=400ms --slo-search 1" -- \
	"$APPIO" run oltp $small --threads 2 --time 2 --rate 100000 --slo p95=400ms --slo-search 1 --json s.json
jq_check "  open loop: latency from the intended start grows with the backlog (2nd second's mean > 1.5x the 1st's)" s.json \
	'.points[0].series | .[1].classes.txn.mean_ns > 1.5 * .[0].classes.txn.mean_ns'
r50=$(jq '.points[0].classes.txn.lat_ns.p50' r.json)
jq_check "  and dwarfs the latency at 200 TPS (p50 > 10x $r50 ns)" s.json \
	".points[0].classes.txn.lat_ns.p50 > 10 * ${r50:-1e18}"
grep -q '^  2T: [0-9]* TPS of 100000: the target fell behind' "$T/stdout" &&
	ok "  the text says the target fell behind" || not_ok "  the text says the target fell behind"
jq_check "  no point meets p95=400ms; the search's first probe, at half the busiest, does" s.json \
	'.slo_search as $s | .slo.best == null and $s.unit == "TPS" and $s.from_iops == 0 and
	 ($s.probes[0] | .meets and (.rate_iops - $s.to_iops / 2 | fabs) <= 1) and
	 $s.at_limit_iops > 0 and $s.at_limit_iops < $s.to_iops'
grep -qE '^SLO search p95=400ms: [0-9]+ TPS at 2T meet the limits, open loop, latency from the intended start' \
	"$T/stdout" && ok "  and the text says so" || { not_ok "  and the text says so"; grep SLO "$T/stdout"; }

expect_exit 0 "cache at 1000 requests a second" -- "$APPIO" run cache --target c.dat --size 64M \
	--region-size 1M --ram-size 2M --keys 20000 --engine null --threads 2 --ramp 1 --time 2 --rate 1000 \
	--json k.json
jq_check "  its requests (gets and sets) within 1% of the rate" k.json \
	'.points[0] | .events / .time_s > 990 and .events / .time_s < 1010 and .classes.get.ops > 0'

expect_exit 2 "tpcc --keying-think with --rate" -- "$APPIO" run tpcc --engine null --target t.dat --size 256M \
	--keying-think on --rate 100 --time 1
one_line_error "  one line"
grep -q -- "--rate: the terminals of --keying-think set their own pace" "$T/stderr" &&
	ok "  naming the option" || not_ok "  naming the option"
finish
