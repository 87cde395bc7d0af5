#!/usr/bin/env bash
# --slo: the highest-throughput point within latency limits and the first
# over them, in the text and the result document; --slo-search: rate-limited
# runs bisecting towards the limit (a limit no run can meet, max=1ns, makes
# every probe fail, deterministically); bad forms refused in one line. The
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
expect_exit 2 "suite --slo with a bad form" -- "$APPIO" suite quick --target f.dat --slo p42=1ms
one_line_error "  one line"
finish
