#!/usr/bin/env bash
# appio db on embedded SQLite: prepare, every workload's statement mix, a
# two-point run with its JSON figures, Ctrl-C, cleanup and bad input.
. tests/e2e/lib.sh
cd "$T" || exit 1
if ! "$APPIO" db --help 2>/dev/null | grep -q '^  sqlite '; then
	skip "db on sqlite" "appio was built without libsqlite3"
	finish
fi
DB=(--driver sqlite --sqlite-db "$T/sb.db" --tables 2 --table-size 1000)

expect_exit 0 "prepare 2 tables x 1000 rows" -- "$APPIO" db prepare oltp_read_write "${DB[@]}"
grep -q "prepared 2 table(s) x 1000 rows = 2000 rows in .* rows/s" "$T/stdout" &&
	ok "prepare reports rows/s" || not_ok "prepare reports rows/s: $(cat "$T/stdout")"
if command -v sqlite3 >/dev/null; then
	n1=$(sqlite3 "$T/sb.db" 'SELECT count(*) FROM sbtest1') n2=$(sqlite3 "$T/sb.db" 'SELECT count(*) FROM sbtest2')
	[ "$n1" = 1000 ] && [ "$n2" = 1000 ] && ok "each table has 1000 rows" || not_ok "rows: $n1, $n2"
	idx=$(sqlite3 "$T/sb.db" "SELECT count(*) FROM sqlite_master WHERE type='index' AND name IN ('k_1','k_2')")
	[ "$idx" = 2 ] && ok "secondary indexes k_1, k_2 exist" || not_ok "secondary indexes: $idx"
	c=$(sqlite3 "$T/sb.db" 'SELECT c FROM sbtest1 WHERE id = 7')
	[[ $c =~ ^([0-9]{11}-){9}[0-9]{11}$ ]] && ok "c holds SysBench's digit groups" || not_ok "c = '$c'"
else
	skip "row counts" "no sqlite3 command"
fi

expect_exit 0 "run oltp_read_write at 1 and 2 threads" -- \
	"$APPIO" db run oltp_read_write "${DB[@]}" --threads 1,2 --time 2 --json rw.json
# (a mean above p99 is possible: a few long stalls among few transactions)
jq_check "two points, TPS > 0, p50 <= p99 <= max, mean <= max" rw.json \
	'(.points | length) == 2 and all(.points[]; .classes.txn.ops_per_s > 0 and (.classes.txn.lat_ns | .p99 >= .p50 and .max >= .p99 and .max >= .mean))'
# exact: a transaction's statements are counted with it at its commit, so
# one cut by the end of the window (every point has one) counts whole or not
jq_check "exactly 14 reads, 4 writes, 2 other per transaction" rw.json \
	"all(.points[]; $(mix_filter 14 4 2))"
jq_check "... in every second of the series too" rw.json \
	'all(.points[].series[]; .classes as $c | all(["read", 14], ["write", 4], ["other", 2];
	 ($c[.[0]].ops_per_s - .[1] * $c.txn.ops_per_s | fabs) <= 1e-9 * $c[.[0]].ops_per_s))'
jq_check "errors, retries, reconnects and retried statements are counted per point" rw.json \
	'all(.points[]; .counters | has("errors") and has("retries") and has("reconnects") and
	 .retried_stmts >= .retries)'
jq_check "the result names SQLite's version and I/O settings" rw.json \
	'.info.server_version != null and .info.journal_mode == "wal" and .info.synchronous == "full" and .info.page_size == "4096"'
grep -q "QPS" "$T/stdout" && ok "the table shows QPS and errors" || not_ok "the table shows QPS and errors"

# the oltp model calibrated from this run: as if on 1 CPU, the 2-thread point is
# the saturated one (1 CPU / (TPS x 20 statements), less the 4 us a statement the
# emulator spends outside its statements)
jq '.host.cpus = 1' rw.json >cal.json
want=$(jq '.points[1].classes | 1e6 / (.txn.ops_per_s * (.read.ops + .write.ops + .other.ops) / .txn.ops) - 4
	| if . < 0 then 0 else . end' cal.json)
expect_exit 0 "appio run oltp --calibrate-from a db run" -- "$APPIO" run oltp --target oltp.dat --size 64M --log-size 4M \
	--table-size 1000 --calibrate-from cal.json --time 1 --json cal-emu.json
# that average is shared out as the defaults are (48.5 us a statement, 1.07 a row, 57.3 a
# row changed, of which InnoDB's purge burns 6 a record, 1.49 records a write, later):
# oltp_read_write examines 4 x 99 rows beyond the ranges' first and changes 4 (each cost
# is whole nanoseconds: ~20 of them a statement on average, at most)
mix=$(jq -c '.points[1].classes | {s: ((.read.ops + .write.ops + .other.ops) / .txn.ops), w: (.write.ops / .txn.ops)}' cal.json)
jq_check "--cpu-per-stmt, -row and -write taken from it (a statement $want us on average) and said so" cal-emu.json \
	"$mix as \$m | .info | (.[\"oltp.cpu_per_stmt_us\"] | tonumber) as \$a |
	 (.[\"oltp.cpu_per_row_us\"] | tonumber) as \$b | (.[\"oltp.cpu_per_purge_us\"] | tonumber) as \$p |
	 (.[\"oltp.cpu_per_write_us\"] | tonumber + 1.49 * \$p) as \$c |
	 ((\$a + \$b * 396 / \$m.s + \$c * \$m.w / \$m.s) - $want | fabs) < 0.02 and
	 (\$b - 1.07 / 48.5 * \$a | fabs) < 0.002 and (\$c - 57.3 / 48.5 * \$a | fabs) < 0.01 and
	 (\$p - 6 / 48.5 * \$a | fabs) < 0.002 and
	 (.[\"oltp.cpu_per_stmt\"] | test(\"calibrated from 'cal.json'\"))"
expect_exit 2 "--calibrate-from a run without a saturated point exits 2" -- "$APPIO" run oltp \
	--target oltp.dat --size 64M --log-size 4M --table-size 1000 --calibrate-from rw.json --time 1 --threads 1
one_line_error "--calibrate-from: one line"
grep -q "at least 4 threads" "$T/stderr" && ok "... naming the threads it needs" ||
	not_ok "... naming the threads it needs: $(cat "$T/stderr")"
rm -f oltp.dat

# every workload's mix: reads, writes, other per transaction, exactly
mix() {  # WORKLOAD READS WRITES OTHER
	"$APPIO" db run "$1" "${DB[@]}" --time 1 --json "mix-$1.json" >/dev/null 2>&1
	jq_check "$1: $2 reads, $3 writes, $4 other per transaction" "mix-$1.json" \
		".points[0] | $(mix_filter "$2" "$3" "$4")"
}
mix oltp_read_only 14 0 2
mix oltp_write_only 0 4 2
mix oltp_point_select 1 0 0
mix oltp_update_index 0 1 0
mix oltp_update_non_index 0 1 0
mix oltp_insert 0 1 0
mix oltp_delete 0 1 0
"$APPIO" db run oltp_read_write "${DB[@]}" --time 1 --skip-trx --point-selects 3 --range-selects off \
	--json skip.json >/dev/null 2>&1
jq_check "--skip-trx, --point-selects 3, --range-selects off: 3 reads, 4 writes, 0 other" skip.json \
	".points[0] | $(mix_filter 3 4 0)"
"$APPIO" db run oltp_point_select "${DB[@]}" --time 1 --sqlite-journal delete --sqlite-synchronous normal \
	--rand-type uniform --json j.json >/dev/null 2>&1
jq_check "--sqlite-journal and --sqlite-synchronous reach the database" j.json \
	'.info.journal_mode == "delete" and .info.synchronous == "normal"'

# Ctrl-C keeps the finished point and the partial one: a second into the
# second point (the JSON is rewritten after each point)
"$APPIO" db run oltp_read_write "${DB[@]}" --threads 1,2 --time 3 --json int.json >out 2>err &
pid=$!
wait_for 30 jq -e '.points | length == 1' int.json || not_ok "the first point finished in 30 s"
sleep 1
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok "Ctrl-C exits 130" || not_ok "Ctrl-C exits 130 (got $rc)"
jq_check "Ctrl-C leaves a partial result" int.json \
	'.interrupted == true and .points[0].partial == false and .points[1].partial == true and .points[1].classes.txn.ops > 0'

expect_exit 0 "cleanup" -- "$APPIO" db cleanup oltp_read_write "${DB[@]}"
if command -v sqlite3 >/dev/null; then
	n=$(sqlite3 "$T/sb.db" "SELECT count(*) FROM sqlite_master WHERE name LIKE 'sbtest%'")
	[ "$n" = 0 ] && ok "cleanup dropped the tables" || not_ok "cleanup left $n tables"
fi

expect_exit 2 "run before prepare exits 2" -- "$APPIO" db run oltp_read_write "${DB[@]}" --time 1
one_line_error "run before prepare says so in one line"
expect_exit 2 "unknown workload exits 2" -- "$APPIO" db run oltp_nosuch "${DB[@]}"
one_line_error "unknown workload: one line"
expect_exit 2 "unknown command exits 2" -- "$APPIO" db warm oltp_read_write "${DB[@]}"
expect_exit 2 "bad --rand-type exits 2" -- "$APPIO" db run oltp_read_write "${DB[@]}" --rand-type cubic
one_line_error "bad --rand-type: one line"
expect_exit 2 "--threads 0 exits 2" -- "$APPIO" db run oltp_read_write "${DB[@]}" --threads 0
expect_exit 2 "unknown option exits 2" -- "$APPIO" db run oltp_read_write "${DB[@]}" --nosuch 1
expect_exit 0 "SysBench spellings are accepted" -- "$APPIO" db prepare oltp_read_write \
	--db-driver=sqlite --sqlite-db "$T/sb2.db" --table_size=10
# --report-interval: a line per interval on stderr, even when it is not a terminal
"$APPIO" db prepare oltp_point_select "${DB[@]}" >/dev/null 2>&1
"$APPIO" db run oltp_point_select "${DB[@]}" --threads 2 --time 3 --report-interval 1 >/dev/null 2>"$T/ri.err"
n=$(grep -cE '^\[ [0-9]+s \] threads 2  TPS [0-9.]+ ' "$T/ri.err")
if [ "$n" -ge 2 ]; then ok "--report-interval 1 prints a line a second ($n)"; else
	not_ok "--report-interval 1 prints a line a second ($n)"; head -5 "$T/ri.err" | sed 's/^/    /'; fi
"$APPIO" db cleanup oltp_point_select "${DB[@]}" >/dev/null 2>&1
finish
