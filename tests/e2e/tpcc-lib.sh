# tpcc-lib.sh - sourced by the TPC-C tests of 'appio db' (t0640 on SQLite,
# t0650 on MariaDB and PostgreSQL): one backend's whole round of prepare,
# check, run at 1 and 2 threads, the mix and the rollbacks, check again,
# cleanup. Needs lib.sh sourced first. A test may define tpcc_after_prepare
# (to look at the fresh tables) and tpcc_before_cleanup (to use them once more).

# tpcc_mix_filter: a jq filter, true when the transactions of all points
# together follow sysbench-tpcc's mix (10/23, 10/23, 1/23 x 3) within five
# standard deviations of the binomial counts, and the deliberate New-Order
# rollbacks are about 1 % of New-Orders; also when every point's txn is
# exactly the sum of its types.
tpcc_mix_filter() {
	cat <<'EOF'
[.points[].classes] as $p
| ($p | map(.new_order.ops + .rollback.ops) | add) as $no
| ($p | map(.rollback.ops) | add) as $rb
| ($p | map(.payment.ops) | add) as $pay
| ($p | map(.order_status.ops) | add) as $os
| ($p | map(.delivery.ops) | add) as $dl
| ($p | map(.stock_level.ops) | add) as $sl
| ($no + $pay + $os + $dl + $sl) as $n
| def near(x; n; p): ((x - n * p) | fabs) <= 5 * ((n * p * (1 - p)) | sqrt) + 2;
  $n >= 100 and near($no; $n; 10/23) and near($pay; $n; 10/23) and near($os; $n; 1/23)
  and near($dl; $n; 1/23) and near($sl; $n; 1/23) and near($rb; $no; 0.01)
  and all($p[]; .txn.ops == .new_order.ops + .payment.ops + .order_status.ops + .delivery.ops
                            + .stock_level.ops + .rollback.ops)
EOF
}

# tpcc_round LABEL ARGS...: the round on the database ARGS connect to.
tpcc_round() {
	local label=$1; shift
	local db=("$@" --tables 1 --scale 1)

	expect_exit 0 "$label: tpcc prepare, 1 set x 1 warehouse, 2 loaders" -- \
		"$APPIO" db prepare tpcc "${db[@]}" --threads 2
	grep -q "prepared 1 table set(s) x 1 warehouse(s) = [0-9]* rows in .* rows/s" "$T/stdout" &&
		ok "$label: prepare reports rows and rows/s" || not_ok "$label: prepare said: $(cat "$T/stdout")"
	grep -q "1 of 1 warehouse(s) loaded" "$T/stderr" &&
		ok "$label: prepare shows its progress" || not_ok "$label: no progress: $(head -3 "$T/stderr")"
	if declare -F tpcc_after_prepare >/dev/null; then tpcc_after_prepare; fi
	expect_exit 2 "$label: a second prepare exits 2" -- "$APPIO" db prepare tpcc "${db[@]}"
	grep -q "already exists.*appio db cleanup tpcc" "$T/stderr" &&
		ok "$label: ... naming cleanup" || not_ok "$label: message: $(cat "$T/stderr")"

	expect_exit 0 "$label: check passes on a fresh load" -- "$APPIO" db check tpcc "${db[@]}"
	[ "$(grep -c '^check [0-9]* pass: ' "$T/stdout")" = 10 ] &&
		ok "$label: ... all 10 checks, each reported" || not_ok "$label: check said: $(cat "$T/stdout")"

	# a count of transactions per point, not a time: a slow machine runs as many, so
	# every type runs (none of the 1/23 ones in 300 has a chance of (22/23)^300, 2e-6)
	# and the mix is judged on 600; --time only caps a hung server
	expect_exit 0 "$label: run tpcc at 1 and 2 threads" -- \
		"$APPIO" db run tpcc "${db[@]}" --threads 1,2 --events 300 --time 300 --seed 11 --json "$T/tpcc.json"
	cp "$T/stdout" "$T/tpcc.out"
	jq_check "$label: two points, TPS > 0, every type ran, p99 <= max" "$T/tpcc.json" \
		'(.points | length) == 2 and all(.points[]; .classes.txn.ops_per_s > 0 and
		 all(.classes | (.new_order, .payment, .order_status, .delivery, .stock_level);
		     .ops > 0 and .lat_ns.p99 <= .lat_ns.max))'
	jq_check "$label: the mix and the rollbacks follow sysbench-tpcc's" "$T/tpcc.json" "$(tpcc_mix_filter)"
	jq_check "$label: retries counted by cause, their statements apart" "$T/tpcc.json" \
		'all(.points[].counters; .retries == .deadlocks + .lock_waits + .serialization and
		 .retried_stmts >= .retries and .errors >= .retries)'
	# tpmC is printed to 0.1, ops_per_s to 6 significant digits (5e-6 of it)
	jq_check "$label: tpmC per point in the result: committed New-Orders per minute" "$T/tpcc.json" \
		'(.info["tpcc.tpmC"] | tonumber) as $a | (.info["tpcc.2.tpmC"] | tonumber) as $b |
		 $a > 0 and (($a - .points[0].classes.new_order.ops_per_s * 60) | fabs) <= 0.05 + 1e-5 * $a and
		 (($b - .points[1].classes.new_order.ops_per_s * 60) | fabs) <= 0.05 + 1e-5 * $b'
	grep -q "tpmC" "$T/tpcc.out" && grep -q "^  new_order " "$T/tpcc.out" &&
		grep -q "^  stock_level " "$T/tpcc.out" &&
		ok "$label: the summary shows tpmC and each type's latency" ||
		not_ok "$label: summary: $(tail -12 "$T/tpcc.out")"

	expect_exit 0 "$label: check passes after the run" -- "$APPIO" db check tpcc "${db[@]}"
	expect_exit 2 "$label: a run with a larger --scale than prepared exits 2" -- \
		"$APPIO" db run tpcc "$@" --tables 1 --scale 2 --time 1
	grep -q -- "--scale 2: table set 1 holds 1 warehouse" "$T/stderr" &&
		ok "$label: ... naming --scale" || not_ok "$label: message: $(cat "$T/stderr")"

	if declare -F tpcc_before_cleanup >/dev/null; then tpcc_before_cleanup; fi
	expect_exit 0 "$label: cleanup" -- "$APPIO" db cleanup tpcc "${db[@]}"
	expect_exit 2 "$label: run after cleanup exits 2" -- "$APPIO" db run tpcc "${db[@]}" --time 1
	grep -q "appio db prepare tpcc" "$T/stderr" &&
		ok "$label: ... naming prepare" || not_ok "$label: message: $(cat "$T/stderr")"
}
