#!/usr/bin/env bash
# --rate: an open loop at a fixed rate. On the null engine (no device, so
# only appio's own scheduling is measured) a point keeps its rate within 1%,
# and the result says latency was taken from each I/O's intended start. A
# rate far above what the target can do (the null engine's few million IOPS
# on one thread) makes the schedule run ahead of the target: latency from
# the intended start then grows with the backlog (hundreds of ms), where a
# closed loop on the same target reports nanoseconds; the run says the target
# fell behind. (Transactional emulators: t0132.) About 6 s.
. tests/e2e/lib.sh
cd "$T"
expect_exit 0 "a run at 20,000 IOPS on the null engine, 1 and 2 threads" -- "$APPIO" run 4k-randread \
	--engine null --target f.dat --size 16M --threads 1,2 --qd 4 --time 2 --rate 20000 --json r.json
jq_check "  every point within 1% of the rate" r.json \
	'[.points[] | .classes.total.ops_per_s] | length == 2 and all(. > 19800 and . < 20200)'
jq_check "  the document says latency is from the intended start" r.json \
	'.rate_iops == 20000 and .latency_from == "intended_start" and .workload.options.rate == "20000"'
grep -qx "open loop at 20000 IOPS a point: latency from each I/O's intended start (coordinated omission excluded)" \
	"$T/stdout" && ok "  and so does the text" || not_ok "  and so does the text"
grep -q "fell behind" "$T/stdout" && not_ok "  no point fell behind" || ok "  no point fell behind"

expect_exit 0 "a closed loop on the same target" -- "$APPIO" run 4k-randread --engine null \
	--target f.dat --qd 4 --time 1 --json c.json
jq_check "  reports no intended start, and sub-millisecond latency" c.json \
	'(has("latency_from") | not) and .points[0].classes.total.lat_ns.p50 < 1000000'
expect_exit 0 "a rate far above what the target does (100M IOPS, 1 thread)" -- "$APPIO" run 4k-randread \
	--engine null --target f.dat --qd 4 --time 1 --rate 100000000 --json s.json
jq_check "  latency from the intended start includes the backlog (p50 > 50 ms)" s.json \
	'.points[0].classes.total.ops_per_s < 99000000 and .points[0].classes.total.lat_ns.p50 > 50000000'
grep -q '^  1T/4Q: [0-9]* IOPS of 100000000: the target fell behind' "$T/stdout" &&
	ok "  the text says the target fell behind" || not_ok "  the text says the target fell behind"

expect_exit 2 "--rate on trace replay, which keeps its own schedule" -- "$APPIO" run replay --rate 100 --time 1
one_line_error "  one line"
grep -q -- "--rate: 'replay' keeps its own schedule; --rate applies to the block-level profiles" "$T/stderr" &&
	ok "  naming the option" || not_ok "  naming the option"
expect_exit 2 "--rate that is not a number" -- "$APPIO" run 4k-randread --rate fast --time 1
one_line_error "  one line"
finish
