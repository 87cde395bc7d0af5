#!/usr/bin/env bash
# appio db ... tpcc against real MariaDB and PostgreSQL servers started by
# scripts/db-start.sh: the round of tpcc-lib.sh (prepare with its schema,
# check, a run at 1 and 2 threads where deadlocks and serialization
# failures are retried and counted, check again, cleanup), the schema's
# indexes and foreign keys, Ctrl-C during a check whose query waits on a
# lock, and the server killed mid-run (db-lib.sh's case, which t1060 runs
# for the OLTP workloads).
. tests/e2e/lib.sh
. tests/e2e/tpcc-lib.sh
. tests/e2e/db-lib.sh
ROOT=$PWD

# after the round's prepare (tpcc-lib.sh calls it)
tpcc_after_prepare() {
	local n
	case $KIND in
	mariadb) n=$(sql "SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema = 'appio'") ;;
	postgres) n=$(sql "SELECT count(*) FROM pg_constraint WHERE contype = 'f'") ;;
	esac
	[ "$n" = 10 ] && ok "$KIND: ten foreign keys" || not_ok "$KIND: $n foreign keys"
	# half the rows or more: ANALYZE TABLE estimates them from a sample
	analyzed stock1 50000 && analyzed customer1 15000 && analyzed order_line1 150000 &&
		analyzed new_orders1 4500 && ok "$KIND: prepare analyzed the tables" ||
		not_ok "$KIND: the tables' statistics are the load's"
	[ "$(sql 'SELECT count(*) FROM customer1')" = 30000 ] && [ "$(sql 'SELECT count(*) FROM stock1')" = 100000 ] &&
		[ "$(sql 'SELECT count(*) FROM new_orders1')" = 9000 ] &&
		ok "$KIND: 30000 customers, 100000 stock rows, 9000 new orders" ||
		not_ok "$KIND: customers $(sql 'SELECT count(*) FROM customer1'), stock $(sql 'SELECT count(*) FROM stock1')"
}

# hold_lock: a session of the server's own client holds a lock on district1
# for a minute (or until release_lock), so that a check's first query waits
hold_lock() {
	case $KIND in
	mariadb) exec mariadb --no-defaults --socket="$SRV/mysqld.sock" -uappio appio -N \
		-e "LOCK TABLES district1 WRITE; SELECT SLEEP(60)" >/dev/null 2>&1 ;;
	postgres) exec psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tA \
		-c "BEGIN; LOCK TABLE district1; SELECT pg_sleep(60)" >/dev/null 2>&1 ;;
	esac
}

# release_lock: end hold_lock's session on the server (a client killed
# mid-query leaves its session running there)
release_lock() {
	local id
	case $KIND in
	mariadb) id=$(sql "SELECT id FROM information_schema.processlist WHERE info LIKE '%SLEEP(60)%'
		AND id <> connection_id()")
		[ -z "$id" ] || sql "KILL $id" ;;
	postgres) sql "SELECT pg_terminate_backend(pid) FROM pg_stat_activity
		WHERE query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()" >/dev/null ;;
	esac
}

# lock_held: hold_lock's session holds its lock and sleeps
lock_held() {
	local n
	case $KIND in
	mariadb) n=$(sql "SELECT count(*) FROM information_schema.processlist WHERE state = 'User sleep'
		AND info LIKE '%SLEEP(60)%'") ;;
	postgres) n=$(sql "SELECT count(*) FROM pg_stat_activity WHERE state = 'active'
		AND query LIKE '%pg_sleep(60)%' AND pid <> pg_backend_pid()") ;;
	esac
	[ "${n:-0}" -eq 1 ]
}

# check_waiting N: N of appio's queries (the tables' probe, then check 1) wait on the lock
check_waiting() {
	local n
	case $KIND in
	mariadb) n=$(sql "SELECT count(*) FROM information_schema.processlist
		WHERE user = 'appio' AND state LIKE 'Waiting for table%' AND info LIKE '%district1%'") ;;
	postgres) n=$(sql "SELECT count(*) FROM pg_stat_activity WHERE application_name = 'appio'
		AND wait_event_type = 'Lock' AND query LIKE '%district1%'") ;;
	esac
	[ "${n:-0}" -eq "$1" ]
}

# Ctrl-C while 'appio db check tpcc' waits on a long query (one held up by a
# lock taken before it starts, so that its first statement on district1,
# the tables' probe or check 1, waits): the query is cancelled on the
# server and appio exits 130 at once, not when the query would have ended.
tpcc_before_cleanup() {
	local holder pid rc t0 owner="(SELECT o_w_id, o_d_id, o_c_id FROM orders1 WHERE o_w_id = 1 AND o_d_id = 3 AND o_id = 1)"
	# a delivered order's customer one unit richer than its orders and payments say
	sql "UPDATE customer1 SET c_balance = c_balance + 1 WHERE (c_w_id, c_d_id, c_id) IN $owner" >/dev/null
	expect_exit 1 "$KIND: check fails on a customer's balance changed behind its back" -- \
		"$APPIO" db check tpcc "${C[@]}" --tables 1 --scale 1
	[ "$(grep -c ' FAIL: ' "$T/stderr")" = 2 ] && grep -q '^check 10 FAIL: .*first warehouse 1 of set 1' "$T/stderr" &&
		grep -q '^check 12 FAIL: ' "$T/stderr" && grep -q "2 of 10 checks failed" "$T/stderr" &&
		ok "$KIND: ... checks 10 and 12, naming the warehouse" || not_ok "$KIND: ... said: $(cat "$T/stderr")"
	sql "UPDATE customer1 SET c_balance = c_balance - 1 WHERE (c_w_id, c_d_id, c_id) IN $owner" >/dev/null
	hold_lock &
	holder=$!
	wait_for 30 lock_held || not_ok "$KIND: a session holds a lock on district1"
	"$APPIO" db check tpcc "${C[@]}" --tables 1 --scale 1 >"$T/check.out" 2>"$T/check.err" &
	pid=$!
	wait_for 30 check_waiting 1 || not_ok "$KIND: the check's query waits on the lock"
	t0=$SECONDS
	kill -INT $pid
	wait $pid
	rc=$?
	[ $rc -eq 130 ] && [ $((SECONDS - t0)) -le 10 ] &&
		ok "$KIND: Ctrl-C during a long check query exits 130 at once" ||
		{ not_ok "$KIND: Ctrl-C during a long check query exits 130 at once (exit $rc after $((SECONDS - t0)) s)"
		  sed 's/^/    /' "$T/check.err"; }
	grep -q "interrupted" "$T/check.err" && ! grep -q "FAIL" "$T/check.out" &&
		ok "$KIND: ... saying it was interrupted, no check reported failed" ||
		not_ok "$KIND: ... said: $(cat "$T/check.err" "$T/check.out")"
	wait_for 10 check_waiting 0 && ok "$KIND: ... and its query no longer runs on the server" ||
		not_ok "$KIND: ... its query still waits on the server"
	release_lock
	wait $holder 2>/dev/null
	# the server killed in the middle of a tpcc run (as t1060 does for OLTP)
	db_lost_mid_run "$KIND tpcc" new_order tpcc --tables 1 --scale 1
}

suite() {
	KIND=$1
	if ! db_have_server "$KIND"; then
		skip "$KIND tpcc tests" "no $KIND server installed"
		return
	fi
	db_start_server tpcc || return
	ok "$KIND: db-start.sh starts a server"
	tpcc_round "$KIND" "${C[@]}"
	"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null 2>&1
}

suite mariadb
suite postgres
finish
