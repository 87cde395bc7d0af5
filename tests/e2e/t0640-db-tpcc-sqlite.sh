#!/usr/bin/env bash
# appio db ... tpcc on embedded SQLite: the round of tpcc-lib.sh (prepare,
# check, a run at 1 and 2 threads with sysbench-tpcc's mix and rollbacks,
# check again, cleanup), the table in 'appio list', and bad input.
. tests/e2e/lib.sh
. tests/e2e/tpcc-lib.sh
if ! "$APPIO" db --help 2>/dev/null | grep -q '^  sqlite '; then
	skip "tpcc on sqlite" "appio was built without libsqlite3"
	finish
fi
# no fsync per commit: the test is about what runs, not how durably
DB=(--driver sqlite --sqlite-db "$T/tpcc.db" --sqlite-synchronous off)

"$APPIO" list >"$T/list" 2>&1
grep -q "^  tpcc .*sysbench-tpcc" "$T/list" && ok "appio list names the tpcc workload of db" ||
	not_ok "appio list: $(grep -i tpcc "$T/list")"

# Ctrl-C while prepare loads the warehouse: exit 130 saying to clean up
"$APPIO" db prepare tpcc "${DB[@]}" >"$T/prep.out" 2>"$T/prep.err" &
pid=$!
wait_for 60 grep -q "table set(s) created" "$T/prep.err" || not_ok "prepare made the table set in 60 s"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && grep -q "interrupted while loading warehouse 1.*appio db cleanup tpcc" "$T/prep.err" &&
	ok "Ctrl-C during prepare exits 130, saying to run cleanup" ||
	not_ok "Ctrl-C during prepare (exit $rc): $(tail -2 "$T/prep.err")"
expect_exit 0 "cleanup after the interrupted prepare" -- "$APPIO" db cleanup tpcc "${DB[@]}"

points_saved() { jq -e ".points | length == $2" "$1"; }

# before the round's cleanup: the deliberate rollbacks on a longer run, about
# 1 % of New-Orders, and some (none in 800 has a chance of 0.99^800 = 0.03 %).
# A count of transactions, not a time, so that a slow machine runs as many
# (about 10/23 of 2,100 are New-Orders); one thread and a seed make the draw the same each time.
# Ctrl-C during the second point of a run
tpcc_before_cleanup() {
	"$APPIO" db run tpcc "${DB[@]}" --threads 1 --seed 7 --events 2100 --json "$T/rb.json" >/dev/null 2>&1
	jq_check "sqlite: rollbacks are 1 % of New-Orders, and some happen" "$T/rb.json" \
		'.points[0].classes as $c | ($c.new_order.ops + $c.rollback.ops) as $n | $n >= 800 and
		 $c.rollback.ops >= 1 and $c.rollback.ops <= 0.01 * $n + 5 * ((0.0099 * $n) | sqrt) + 2'
	"$APPIO" db run tpcc "${DB[@]}" --threads 1,2 --time 3 --json "$T/int.json" >/dev/null 2>&1 &
	local pid=$! rc
	wait_for 60 points_saved "$T/int.json" 1 || not_ok "the run's first point ended in 60 s"
	sleep 1
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 130 ] && ok "Ctrl-C during a tpcc run exits 130" || not_ok "Ctrl-C during a tpcc run (exit $rc)"
	jq_check "... keeping the finished point, the cut one partial" "$T/int.json" \
		'.interrupted == true and .points[0].partial == false and .points[1].partial == true'
}
tpcc_round sqlite "${DB[@]}"

expect_exit 2 "--scale 0 exits 2" -- "$APPIO" db run tpcc "${DB[@]}" --scale 0
one_line_error "... in one line"
expect_exit 2 "--trx-level XX exits 2" -- "$APPIO" db run tpcc "${DB[@]}" --trx-level XX
grep -q -- "--trx-level" "$T/stderr" && ok "... naming --trx-level" || not_ok "message: $(cat "$T/stderr")"
expect_exit 2 "check on an OLTP workload exits 2" -- "$APPIO" db check oltp_read_write "${DB[@]}"
grep -q "only the tpcc workload" "$T/stderr" && ok "... saying so" || not_ok "message: $(cat "$T/stderr")"
expect_exit 2 "an unknown workload exits 2, listing tpcc" -- "$APPIO" db run tpcc2 "${DB[@]}"
grep -q "tpcc)" "$T/stderr" && ok "... listing tpcc" || not_ok "message: $(cat "$T/stderr")"
expect_exit 0 "cleanup" -- "$APPIO" db cleanup tpcc "${DB[@]}"
finish
