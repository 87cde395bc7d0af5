#!/usr/bin/env bash
# --slo: the highest-throughput point within latency limits and the first
# over them, in the text and the result document; --slo-search: rate-limited
# runs bisecting towards the limit (a limit no run can meet, max=1ns, makes
# every probe fail, deterministically); any percentile (p95, p99.5) is
# recorded and a report answers one the run did not name from the points'
# histograms; bad forms refused in one line. The
# point selection itself is checked on hand-made documents in
# tests/unit/test_slo.c. About 6 s.
. tests/e2e/lib.sh
cd "$T"
expect_exit 0 "a run with --slo p99=1s (and a read limit)" -- "$APPIO" run 4k-randread --engine null \
	--target f.dat --size 16M --qd 1,4 --time 1 --slo p99=1s --slo read.p99.9=1s --json a.json
jq_check "  the best point is the busier one, and none is over" a.json \
	'.slo.limits == "p99=1s,read.p99.9=1s" and .slo.first_over == null and
	 .slo.best.ops_per_s == ([.points[].classes.total.ops_per_s] | max) and
	 (.slo.best.lat_ns | has("p99") and has("read.p99.9"))'
grep -q '^SLO p99=1s,read.p99.9=1s: best 1T/[14]Q at [0-9]* IOPS (p99 .*, read.p99.9 .*); every point meets it$' \
	"$T/stdout" && ok "  the text says which point" || { not_ok "  the text says which point"; grep SLO "$T/stdout"; }

expect_exit 0 "any percentile: --slo p95=1s --slo read.p99.5=1s" -- "$APPIO" run 4k-randread --engine null \
	--target f.dat --qd 1,4 --time 1 --slo p95=1s,read.p99.5=1s --json p.json
jq_check "  every class of every point records p95 and p99.5, and its histogram" p.json \
	'([.points[].classes[] | .lat_ns | has("p95") and has("p99.5") and .p95 <= .p99] | all) and
	 ([.points[].classes[] | select(.ops > 0) | .hist | length > 0] | all) and
	 (.slo.best.lat_ns | has("p95") and has("read.p99.5"))'
jq_check "  a histogram holds every operation of its class" p.json \
	'[.points[].classes[] | select(.ops > 0) | (.hist | map(.[2]) | add) == .ops] | all'
expect_exit 0 "report --slo p97.5=1s on it: a percentile the run did not record" -- "$APPIO" report p.json \
	--slo p97.5=1s
grep -qE '^  1 .* IOPS +within SLO [0-9,]+ IOPS at 1T/[14]Q' "$T/stdout" &&
	ok "  read from the points' histograms: the summary has a point within it" ||
	{ not_ok "  read from the points' histograms"; cat "$T/stdout"; }
jq 'del(.points[].classes[].hist)' p.json >nohist.json
expect_exit 0 "the same without the histograms" -- "$APPIO" report nohist.json --slo p97.5=1s
grep -qE 'within SLO [0-9,]+ IOPS' "$T/stdout" && { not_ok "  no figure, no point within it"; cat "$T/stdout"; } ||
	ok "  no figure, no point within it"

expect_exit 0 "--slo max=1ns --slo-search 2: no point and no rate meet it" -- "$APPIO" run 4k-randread \
	--engine null --target f.dat --qd 1,4 --time 1 --slo max=1ns --slo-search 2 --json b.json
jq_check "  none meets it; the first over is the lowest-throughput point" b.json \
	'.slo.best == null and .slo.first_over.broken == "max" and
	 .slo.first_over.ops_per_s == ([.points[].classes.total.ops_per_s] | min)'
jq_check "  two rate-limited probes at the busiest point, halving from it" b.json \
	'.slo_search as $s | $s.latency_from == "intended_start" and ($s.probes | length) == 2 and
	 ($s.probes | all(.meets == false and .broken == "max")) and $s.at_limit_iops == 0 and
	 ($s.probes[0].rate_iops - $s.to_iops / 2 | fabs) <= 1 and
	 ($s.probes[1].rate_iops - $s.probes[0].rate_iops / 2 | fabs) <= 1'
grep -q '^SLO search max=1ns: no rate tried meets the limits at 1T/[14]Q (2 run(s)' "$T/stdout" &&
	ok "  and the text says so" || { not_ok "  and the text says so"; grep -i slo "$T/stdout"; }

expect_exit 2 "--slo p99=2 (no unit)" -- "$APPIO" run 4k-randread --slo p99=2 --time 1
one_line_error "  one line"
grep -q -- "^appio: --slo: 'p99=2' is not a latency limit (expected \[CLASS.\]STAT=TIME" "$T/stderr" &&
	ok "  naming the option and the form" || not_ok "  naming the option and the form"
expect_exit 2 "--slo-search without --slo" -- "$APPIO" run 4k-randread --slo-search 2 --time 1
one_line_error "  one line"
for bad in p0 p100.1 p-3 pabc; do
	expect_exit 2 "--slo $bad=1ms" -- "$APPIO" run 4k-randread --slo $bad=1ms --time 1
	one_line_error "  one line"
	grep -q -- "^appio: --slo: '$bad=1ms' is not a latency limit (expected \[CLASS.\]STAT=TIME, STAT mean, max or a percentile pN with 0 < N <= 100" \
		"$T/stderr" && ok "  naming the option and the form" || { not_ok "  naming the option and the form"; cat "$T/stderr"; }
done
# An application phase of a suite searches too (its emulator takes --rate).
expect_exit 0 "suite: an oltp phase with --slo max=1ns --slo-search 1" -- "$APPIO" suite quick \
	--target o.dat --size 256M --fill-passes 0 --profiles none --write-sweep none --apps oltp \
	--app-threads 2 --app-time 1 --db none --slo max=1ns --slo-search 1 --json s.json
jq_check "  its result holds the search, in TPS, latency from the intended start" s.json \
	'.phases[] | select(.name == "oltp") | .result.slo_search |
	 .unit == "TPS" and .latency_from == "intended_start" and (.probes | length) == 1'
expect_exit 2 "suite --slo with a bad form" -- "$APPIO" suite quick --target f.dat --slo p100.1=1ms
one_line_error "  one line"
finish
