#!/usr/bin/env bash
# --events: a point ends after a count of units of work (sysbench's --events),
# shared by its threads, counted in the measured time only; --time still ends
# it first when given; emulators that issue bare I/Os refuse it. oltp's
# --warmup-txns bounds its warm-up points the same way, without a time limit.
. tests/e2e/lib.sh
cd "$T" || exit 1

expect_exit 0 "oltp --events 300 at 2 threads" -- "$APPIO" run oltp --target o.dat --size 256M \
	--table-size 2000 --threads 2 --events 300 --json o.json
jq_check "  exactly 300 transactions, well before the default --time" o.json \
	'.points[0] | .classes.txn.ops == 300 and .time_s > 0 and .time_s < 30'
jq_check "  TPS over the time the work took" o.json \
	'.points[0] | (.classes.txn.ops_per_s * .time_s - 300 | fabs) < 3'
# a transaction begun in the warm-up and ended after it is measured too: one per thread at most
# A deadlock's victim runs its transaction again (SysBench restarts the
# event): one table of 200 rows at 8 threads has dozens of deadlocks in 300.
expect_exit 0 "oltp --events 300 with deadlocks" -- "$APPIO" run oltp --target d.dat --size 128M \
	--tables 1 --table-size 200 --threads 8 --events 300 --json d.json
jq_check "  exactly 300 transactions committed, the victims' retries not counted again" d.json \
	'.points[0] | .classes.txn.ops == 300 and .counters.deadlocks > 0'
expect_exit 0 "--events with --ramp" -- "$APPIO" run oltp --target o.dat --size 256M \
	--table-size 2000 --threads 2 --events 300 --ramp 1 --json r.json
jq_check "  300 transactions begun in the measured time, the warm-up's not counted" r.json \
	'.points[0] | .classes.txn.ops >= 300 and .classes.txn.ops <= 302'

expect_exit 0 "nosql --events 2000 at 1 and 2 threads" -- "$APPIO" run nosql --target n.dat --size 256M \
	--threads 1,2 --events 2000 --json n.json
jq_check "  each point its own 2000 operations (updates and queries), well before the default --time" n.json \
	'(.points | length) == 2 and
	 all(.points[]; .classes.update.ops + .classes.query.ops == 2000 and .time_s > 0 and .time_s < 30)'

expect_exit 0 "--time ends a point first when given" -- "$APPIO" run oltp --target o.dat --size 256M \
	--table-size 2000 --threads 1 --events 100000000 --time 1 --json t.json
jq_check "  1 s, fewer transactions than asked" t.json \
	'.points[0] | .time_s >= 0.99 and .time_s < 1.5 and .classes.txn.ops < 100000000'

# --warmup-txns: the warm-up points end on the server's count of work, past
# --time when the model is slower (here held at 200 TPS by --rate).
expect_exit 0 "oltp --warmup-txns 300 over 2 warm-up points at 200 TPS, --time 1" -- \
	"$APPIO" run oltp --target o.dat --size 256M --table-size 2000 --threads 2,2,2 \
	--warmup-points 2 --warmup-txns 300 --rate 200 --time 1 --json w.json
jq_check "  the warm-up points 150 transactions each, 0.75 s or more each at that rate" w.json \
	'[.points[0:2][] | .classes.txn.ops == 150 and .time_s > 0.6] | all'
jq_check "  the measured point bounded by --time as before" w.json \
	'.points[2] | .time_s >= 0.99 and .time_s < 1.5 and .classes.txn.ops > 150'
expect_exit 0 "oltp --warmup-txns 150 at 100 TPS: the warm-up outlasts --time 1" -- \
	"$APPIO" run oltp --target o.dat --size 256M --table-size 2000 --threads 2,2 \
	--warmup-points 1 --warmup-txns 150 --rate 100 --time 1 --json l.json
jq_check "  150 transactions in 1.5 s or more, past --time" l.json \
	'.points[0] | .classes.txn.ops == 150 and .time_s > 1.3'
expect_exit 2 "--warmup-txns without --warmup-points" -- "$APPIO" run oltp --target o.dat \
	--size 256M --table-size 2000 --warmup-txns 100 --time 1
grep -q "^appio: --warmup-txns: 100 transactions but no --warmup-points" "$T/stderr" &&
	ok "  in one line naming both options" || not_ok "  in one line: $(cat "$T/stderr")"
expect_exit 2 "tpcc --warmup-points as many as the points: nothing left to measure" -- \
	"$APPIO" run tpcc --target o.dat --size 256M --threads 2,4 --warmup-points 2 --time 1
grep -q "^appio: --warmup-points: 2 warm-up point(s) leave none of the run's 2 to measure" "$T/stderr" &&
	ok "  in one line naming the option and the points" || not_ok "  in one line: $(cat "$T/stderr")"
for mode in steady-state "slo-search 2 --slo p99=10ms"; do
	# shellcheck disable=SC2086 # the mode is two options in one word list
	expect_exit 2 "oltp --warmup-points with --${mode%% *}" -- "$APPIO" run oltp --target o.dat \
		--size 256M --table-size 2000 --threads 2,2 --warmup-points 1 --time 1 --$mode
	grep -q "^appio: --warmup-points: not with --${mode%% *}, whose runs each start a fresh model" \
		"$T/stderr" && ok "  in one line naming both options" || not_ok "  in one line: $(cat "$T/stderr")"
done

expect_exit 2 "a profile of bare I/Os refuses --events" -- "$APPIO" run 4k-randread --target o.dat --events 10
grep -q "^appio: --events: '4k-randread' issues I/Os, not units of work; use --time" "$T/stderr" &&
	ok "  in one line naming the option and what to use" || not_ok "  in one line: $(cat "$T/stderr")"
expect_exit 2 "--events takes a count" -- "$APPIO" run oltp --target o.dat --events lots
finish
