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

# the deliberate rollbacks, on a longer run before the round's cleanup: about
# 1 % of New-Orders, and some (none in 800 has a chance of 0.99^800 = 0.03 %)
tpcc_before_cleanup() {
	"$APPIO" db run tpcc "${DB[@]}" --time 15 --json "$T/rb.json" >/dev/null 2>&1
	jq_check "sqlite: rollbacks are 1 % of New-Orders, and some happen" "$T/rb.json" \
		'.points[0].classes as $c | ($c.new_order.ops + $c.rollback.ops) as $n | $n >= 800 and
		 $c.rollback.ops >= 1 and $c.rollback.ops <= 0.01 * $n + 5 * ((0.0099 * $n) | sqrt) + 2'
}
TPCC_TIME=5 tpcc_round sqlite "${DB[@]}"

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
