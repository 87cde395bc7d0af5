#!/usr/bin/env bash
# t0915-suite-replay.sh - the suite's optional replay phase: --trace FILE (or
# a bundled trace's name) adds "replay NAME" to the plan, runs it on the
# suite's target and keeps its result (every I/O of the trace, the replay's
# verdict) in the document; 'appio report' draws it as any other phase (its
# chart, a ranking by p99 service time, the verdict). A trace that cannot be
# read is bad input before anything runs. Each suite here is the replay
# phase alone, on a 32 MiB file.
. tests/e2e/lib.sh
cd "$T"
ONLY=(--size 32M --profiles none --apps none --db none --fill-passes 0 --write-sweep none)

# 300 I/Os over 1.5 s: reads and writes of 4 KiB, a flush now and then
awk 'BEGIN { print "appio-trace 1"; print "device 0 test"
	for (i = 0; i < 300; i++) { t = i * 5000000; op = i % 3 == 0 ? "W" : i % 10 == 5 ? "F" : "R"
		off = op == "F" ? 0 : (i * 7919 % 4000) * 4096; len = op == "F" ? 0 : 4096
		print t, t + 200000, op, "-", 0, off, len, 1, 100 } }' >small.trace
want_r=$(awk 'NF == 9 && $3 == "R"' small.trace | wc -l)
want_w=$(awk 'NF == 9 && $3 == "W"' small.trace | wc -l)

expect_exit 2 "a trace that cannot be read is refused before anything runs" -- \
	"$APPIO" suite quick --target t.dat --json bad.json "${ONLY[@]}" --trace no-such-trace
one_line_error "  with one line"
grep -q -- "--trace" "$T/stderr" && [ ! -e bad.json ] && ok "  naming --trace, no document" ||
	not_ok "  naming --trace: $(cat "$T/stderr")"

expect_exit 0 "suite with --trace FILE" -- "$APPIO" suite quick --target t.dat --json s.json "${ONLY[@]}" \
	--trace small.trace --replay-args '--spin 50'
grep -q 'replay small.trace' "$T/stdout" && ok "  the plan and the summary name the replay phase" ||
	not_ok "  the plan: $(head -5 "$T/stdout")"
jq_check "  a replay phase in the document, done, naming its trace" s.json \
	'.phases | length == 1 and .[0].kind == "replay" and .[0].name == "replay small.trace" and
	 .[0].trace == "small.trace" and .[0].status == "done" and (.[0].args | index("--spin")) != null'
jq_check "  every read and write of the trace replayed, its verdict kept" s.json \
	".phases[0].result.points[0].classes.read.ops == $want_r and
	 .phases[0].result.points[0].classes.write.ops == $want_w and
	 (.phases[0].result.info[\"replay.verdict\"] | length) > 0 and .phases[0].headline.metric == \"IOPS\""

expect_exit 0 "a bundled trace by name, as fast as the target goes" -- "$APPIO" suite quick --target t.dat \
	--json b.json "${ONLY[@]}" --trace sqlite-oltp --replay-args '--timing afap --qd 8'
jq_check "  phase 'replay sqlite-oltp' with all its I/Os" b.json \
	'.phases[0].name == "replay sqlite-oltp" and .phases[0].status == "done" and
	 (.phases[0].result.points[0].classes.read.ops + .phases[0].result.points[0].classes.write.ops) > 1000'

if ! command -v gnuplot >/dev/null; then
	skip "report of the replay phase" "gnuplot is not installed"
	finish
fi
expect_exit 0 "report on the suite" -- "$APPIO" report s.json -o r.html
grep -q 'data-test="replay small.trace"' r.html && grep -q '<svg' r.html &&
	ok "  the replay phase has its chart" || not_ok "  no chart for the replay phase"
grep -q 'IOPS per second (as the trace asked for them)' r.html && grep -q 'mean service time per second' r.html &&
	ok "  IOPS and service time per second" || not_ok "  the chart's panels"
verdict=$(jq -r '.phases[0].result.info["replay.verdict"]' s.json)
grep -qF "$verdict" r.html && grep -q 'ranked by p99 latency' r.html &&
	ok "  ranked by p99 service time, with the replay's verdict" || not_ok "  the ranking table"
"$APPIO" run replay --trace small.trace --target t.dat --map wrap --spin 50 --json one.json >/dev/null 2>&1
expect_exit 0 "report on a suite and a single replay run together" -- "$APPIO" report s.json one.json -o two.html
[ "$(grep -c 'data-test="replay small.trace"' two.html)" -eq 1 ] &&
	[ "$(grep -o '<tr[^>]*><td>[0-9]</td>' two.html | wc -l)" -eq 2 ] &&
	ok "  one test, one ranking row per result" || not_ok "  the two results' test"
finish
