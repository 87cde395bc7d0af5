#!/usr/bin/env bash
# The tpcc emulator on a small file: the mix of the five transactions (the
# specification's and sysbench-tpcc's), tpmC = New-Orders per minute,
# counters consistent, a warm-up bounded by a count, bad input refused.
. tests/e2e/lib.sh
cd "$T"
run() { "$APPIO" run tpcc --target f.dat --size 320M --warehouses 1 --order-growth 1000 "$@" >/dev/null 2>"$T/err" ||
	{ echo "    $(tail -1 "$T/err")"; return 1; }; }

expect_exit 2 "--warehouses 0 is refused" -- "$APPIO" run tpcc --target f.dat --warehouses 0
one_line_error "--warehouses 0: one line"
expect_exit 2 "too many warehouses for the target names --size" -- \
	"$APPIO" run tpcc --target small.dat --size 64M --warehouses 10
grep -q -- '--size' "$T/stderr" && ok "the message names --size" || not_ok "the message names --size"

check "tpcc at 2 and 4 threads" run --threads 2,4 --time 4 --json t.json
jq_check "TPS headline, transactions ran" t.json 'all(.points[]; .headline == "txn" and .classes.txn.ops > 40)'
jq_check "txn = the five types" t.json 'all(.points[]; .classes | .txn.ops ==
	(.new_order.ops + .payment.ops + .order_status.ops + .delivery.ops + .stock_level.ops))'
jq_check "New-Order about 45%, Payment about 43%" t.json '([.points[].classes] |
	{n: (map(.new_order.ops) | add), p: (map(.payment.ops) | add), t: (map(.txn.ops) | add)}) |
	(.n / .t > 0.38 and .n / .t < 0.52 and .p / .t > 0.36 and .p / .t < 0.50)'
jq_check "tpmC = New-Orders per minute (new_orders counter vs the class rate)" t.json \
	'all(.points[]; (.counters.new_orders / .time_s * 60) as $a | (.classes.new_order.ops_per_s * 60) as $b |
	 (($a - $b) | fabs) <= 0.02 * $b + 60 * (1 + .threads) / .time_s)'
# tpmC is printed to 0.1, time_s to 6 significant digits (5e-6 of it)
jq_check "tpmC per point in the result: committed New-Orders per minute" t.json \
	'[.points[] | (.counters.new_orders - .counters.no_rollbacks) / .time_s * 60] as $want |
	 (.info["tpcc.tpmC"] | tonumber) as $a | (.info["tpcc.2.tpmC"] | tonumber) as $b |
	 $want[0] > 0 and (($a - $want[0]) | fabs) <= 0.05 + 1e-5 * $a and (($b - $want[1]) | fabs) <= 0.05 + 1e-5 * $b'
"$APPIO" run tpcc --target f.dat --size 320M --warehouses 1 --order-growth 1000 --threads 2 --time 2 \
	--json t1.json >t1.txt 2>/dev/null
want=$(jq -r '.points[0] | (.counters.new_orders - .counters.no_rollbacks) / .time_s * 60 | round' t1.json 2>/dev/null)
grep -qx "tpmC (committed New-Orders per minute): $want at 2 threads" t1.txt &&
	ok "and after the table ($want at 2 threads)" || not_ok "tpmC after the table: $(grep tpmC t1.txt), want $want"
# each point as 'appio db run tpcc' prints the server's: its waits, and a row per
# transaction type (count, mean, p99, max), the counts the result's
want=$(jq -r '.points[0] | [.counters.lock_waits, .counters.delivery_waits, .counters.retries,
	.counters.no_rollbacks, (.classes | .new_order.ops, .payment.ops, .order_status.ops,
	.delivery.ops, .stock_level.ops)] | map(tostring) | join(" ")' t1.json 2>/dev/null)
got=$(awk '$1 == "threads" && $4 == "lock_waits" { getline; r = $4 " " $5 " " $6 " " $7 }
	$1 ~ /^(new_order|payment|order_status|delivery|stock_level)$/ && NF == 8 { r = r " " $2 }
	END { print r }' t1.txt)
[ -n "$want" ] && [ "$got" = "$want" ] && ok "waits and each type's count, mean, p99 after the table" ||
	not_ok "the per-type rows: got '$got', want '$want'"
jq_check "pages written <= pages dirtied" t.json \
	'([.points[].counters.pages_dirtied] | add) as $d | $d > 0 and ([.points[].counters.pages_written] | add) <= $d'
jq_check "one fsync per log flush" t.json 'all(.points[]; .counters.log_flushes > 0 and .counters.log_fsyncs == .counters.log_flushes)'
jq_check "about 1% of New-Orders roll back" t.json \
	'([.points[].counters.new_orders] | add) as $n | $n > 0 and ([.points[].counters.no_rollbacks] | add) <= $n * 0.06 + 3'
jq_check "latency per type" t.json 'all(.points[]; .classes.new_order.lat_ns.p99 > 0 and .classes.payment.lat_ns.mean > 0)'

# sysbench-tpcc's mix: decks of 23 per thread, so each type is within a deck's
# share per thread of 10/23 or 1/23 of the total; its secondary indexes are
# bulk-loaded full, so their first inserts split leaves
check "--mix sysbench-tpcc" run --mix sysbench-tpcc --threads 2 --time 3 --json sb.json
jq_check "... 10/10/1/1/1 of 23, its bulk-loaded indexes split" sb.json '.points[0] | .classes as $c |
	($c.txn.ops) as $t | def near($x; $w): (($x - $t * $w / 23) | fabs) <= $w * .threads + 1;
	$t > 40 and near($c.new_order.ops; 10) and near($c.payment.ops; 10) and near($c.order_status.ops; 1)
	and near($c.delivery.ops; 1) and near($c.stock_level.ops; 1) and .counters.page_splits > 0'
# PostgreSQL's repeatable read: a wait for a warehouse or district row
# another transaction updated ends in a retry; InnoDB's locks never do
check "--mix sysbench-tpcc on postgres, 4 threads" run --mix sysbench-tpcc --engine-model postgres \
	--log-size 64M --threads 4 --time 3 --json sbpg.json
jq_check "... waits for the same row end in retries, never more of them than waits" sbpg.json \
	'.points[0].counters | .lock_waits > 0 and .retries > 0 and .retries <= .lock_waits'
jq_check "... InnoDB's never" sb.json '.points[0].counters.retries == 0'
# Delivery locks each district's oldest new order to commit (SELECT ... FOR
# UPDATE): on one warehouse a second Delivery waits for the first, once, at
# its first district; terminals at their own warehouses never wait
check "8 terminals on one warehouse" run --threads 8 --time 5 --json dl.json
jq_check "... Deliveries wait for each other, each at most once" dl.json '.points[0] |
	.counters.delivery_waits > 0 and .counters.delivery_waits <= .classes.delivery.ops and
	.counters.delivery_waits <= .counters.lock_waits'
check "2 terminals on 2 warehouses" "$APPIO" run tpcc --target f2.dat --size 512M --warehouses 2 \
	--order-growth 1000 --threads 2 --time 3 --json dl2.json
jq_check "... never wait" dl2.json '.points[0] | .classes.delivery.ops > 0 and .counters.lock_waits == 0'
# --warmup-txns: the warm-up points end on a count of transactions (a
# server's), here past --time 1 at 100 a second
check "--warmup-points 1 --warmup-txns 150 at 100 TPS, --time 1" run --threads 2,2 \
	--warmup-points 1 --warmup-txns 150 --rate 100 --time 1 --json wt.json
# (at 100 a second or slower: a sanitizer build may not keep the rate)
jq_check "... the warm-up point 150 transactions, past --time (1.5 s or more), the next bounded by it" wt.json \
	'(.points[0] | .classes.txn.ops == 150 and .time_s > 1.3) and
	 (.points[1] | .time_s >= 0.99 and .time_s < 1.5)'
expect_exit 2 "--warmup-txns without --warmup-points is refused" -- "$APPIO" run tpcc --target f.dat \
	--size 320M --warehouses 1 --warmup-txns 10
one_line_error "--warmup-txns alone: one line"
grep -q -- "--warmup-points" "$T/stderr" && ok "... naming --warmup-points" || not_ok "message: $(cat "$T/stderr")"
expect_exit 2 "--mix with an unknown value is refused" -- "$APPIO" run tpcc --target f.dat --mix tpcc
one_line_error "--mix tpcc: one line"
grep -q -- "--mix" "$T/stderr" && ok "... naming --mix" || not_ok "message: $(cat "$T/stderr")"

check "postgres flavour" run --engine-model postgres --log-size 64M --threads 2 --time 3 --json pg.json
jq_check "postgres: transactions and WAL" pg.json '.points[0] | .classes.txn.ops > 0 and .counters.log_bytes > 0'
# keying times are 18 s before a New-Order and 2 or 3 s before the others, and
# a think time follows: in 4 s each terminal completes at most one
# transaction, never a New-Order; with this seed some terminals draw another
# type first, so transactions do complete
check "keying and think times" run --keying-think --threads 16 --time 4 --seed 1 --json k.json
jq_check "with keying times, some of 16 terminals complete one transaction in 4 s, none a New-Order" k.json \
	'.points[0].classes | .txn.ops >= 1 and .txn.ops <= 16 and .new_order.ops == 0'

# the statements' CPU: TPC-C's defaults, --cpu-per-row, and --calibrate-from
# on an 'appio db run tpcc' result (written here: 1 CPU, a latency-bound and a
# saturated point, Order-Status and Stock-Level at 100 us a statement and 5 us
# a row by the model's counts of 5.6 statements + 11.4 rows and 4 + 399)
jq_check "TPC-C's innodb defaults, said so" t.json \
	'.info["tpcc.cpu_per_stmt_us"] == "64.6" and .info["tpcc.cpu_per_row_us"] == "2.18" and
	 (.info["tpcc.cpu_costs"] | test("default"))'
# --help names the same defaults as the run used (it once said 3.2 and 53, the
# server's own costs before the emulator's work was counted in them)
"$APPIO" run tpcc --help > help.txt 2>&1
row=$(jq -r '.info["tpcc.cpu_per_row_us"]' t.json)
stmt=$(jq -r '.info["tpcc.cpu_per_stmt_us"]' t.json)
grep -q -- "--cpu-per-row .*default, $row innodb,.*cost too, $stmt innodb," help.txt &&
	ok "--help's --cpu-per-row names the defaults the run used ($row, $stmt us)" ||
	not_ok "--help's --cpu-per-row names the defaults the run used ($row, $stmt us)"
jq -n '{workload: {options: {workload: "tpcc"}}, host: {cpus: 1}, points: [
	{threads: 1, t: 100}, {threads: 2, t: 500}] | map({threads, classes: {
	txn: {ops: 1000, ops_per_s: .t, lat_ns: {mean: 1e7}}, read: {ops: 20000, lat_ns: {mean: 1e5}},
	write: {ops: 6000}, other: {ops: 2000}, new_order: {ops: 430}, payment: {ops: 430},
	order_status: {ops: 50, lat_ns: {mean: 617000}}, delivery: {ops: 45},
	stock_level: {ops: 45, lat_ns: {mean: 2395000}}}})}' >cal.json
# 1 CPU at 500 TPS: 2,000 us a transaction, less 5 us x its 27.657 extra rows,
# over 28 statements, less the 4 us a statement the emulator spends outside them
want=$(jq -n '(2000 - 5 * (430 * 2.4 + 50 * 11.4 + 45 * 180 + 45 * 399) / 1000) / 28 - 4')
check "--calibrate-from a tpcc result" run --calibrate-from cal.json --threads 1 --time 1 --json cal-emu.json
jq_check "... a row 5 us, a statement $want us, the rest of its 100 us the round trip (less the sleep's 23)" \
	cal-emu.json "(.info[\"tpcc.cpu_per_row_us\"] | tonumber) == 5 and
	 (((.info[\"tpcc.cpu_per_stmt_us\"] | tonumber) - $want) | fabs) < 0.01 and
	 (((.info[\"tpcc.client_rtt_us\"] | tonumber) - (100 - $want - 23)) | fabs) < 0.01"
jq '.points[0].classes.stock_level.lat_ns.mean = 100000' cal.json >cheap.json
expect_exit 2 "--calibrate-from a run whose join is no dearer than a lookup exits 2" -- \
	"$APPIO" run tpcc --target f.dat --size 320M --calibrate-from cheap.json --time 1
one_line_error "--calibrate-from cheap.json: one line"
expect_exit 2 "--cpu-per-row -2 is refused" -- "$APPIO" run tpcc --target f.dat --cpu-per-row -2
one_line_error "--cpu-per-row -2: one line"
finish
