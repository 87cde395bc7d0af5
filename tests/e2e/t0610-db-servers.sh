#!/usr/bin/env bash
# appio db against real MariaDB and PostgreSQL servers started by
# scripts/db-start.sh: prepare and row counts, a two-point run and its JSON,
# SysBench on appio's tables and appio on SysBench's, cleanup, a server lost
# during a run (with and without --reconnect), a wrong password and a stopped
# server (one line, exit 2); two servers started at once on one port.
. tests/e2e/lib.sh
. tests/e2e/db-lib.sh
ROOT=$PWD
DBA=(--tables 2 --table-size 1000)

# sysbench_args: appio connection options -> SysBench's
. "$ROOT/scripts/sysbench-args.sh"

# count TABLE: rows in TABLE through the server's own client, or "none".
count() {
	case $KIND in
	mariadb) mariadb --no-defaults --socket="$SRV/mysqld.sock" -uappio appio -N -e "SELECT count(*) FROM $1" 2>/dev/null || echo none ;;
	postgres) psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tAc "SELECT count(*) FROM $1" 2>/dev/null || echo none ;;
	esac
}

# running: appio's connection is open on the server (besides the one asking)
running() {
	local n
	case $KIND in
	mariadb) n=$(mariadb --no-defaults --socket="$SRV/mysqld.sock" -uappio appio -N -e \
		"SELECT count(*) FROM information_schema.processlist WHERE user = 'appio' AND id <> connection_id()") ;;
	postgres) n=$(psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tAc \
		"SELECT count(*) FROM pg_stat_activity WHERE usename = 'appio' AND pid <> pg_backend_pid()") ;;
	esac
	[ "${n:-0}" -ge 1 ]
}

# The server goes away during a run: a clean stop naming it, or with
# --reconnect, reconnects that are counted. The stop comes half a second after
# the run's connection shows on the server, not after a guessed sleep.
lost_connection() {
	"$APPIO" db prepare oltp_point_select "${C[@]}" --table-size 1000 >/dev/null 2>&1
	"$APPIO" db run oltp_point_select "${C[@]}" --table-size 1000 --time 5 >"$T/lost.out" 2>"$T/lost.err" &
	local pid=$! rc
	wait_for 30 running || not_ok "$KIND: the run connected in 30 s"
	sleep 0.5
	"$ROOT/scripts/db-stop.sh" "$SRV"
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && grep -q "lost connection to .* at '" "$T/lost.err" &&
		ok "$KIND: a lost server stops the run, naming it" ||
		{ not_ok "$KIND: a lost server stops the run, naming it (exit $rc)"; sed 's/^/    /' "$T/lost.err"; }
	"$ROOT/scripts/db-start.sh" "$KIND" "$SRV" >/dev/null 2>&1
	"$APPIO" db run oltp_point_select "${C[@]}" --table-size 1000 --time 5 --reconnect \
		--json "$T/rec.json" >/dev/null 2>"$T/lost.err" &
	pid=$!
	wait_for 30 running || not_ok "$KIND: the run connected in 30 s"
	sleep 0.5
	"$ROOT/scripts/db-stop.sh" "$SRV"
	"$ROOT/scripts/db-start.sh" "$KIND" "$SRV" >/dev/null 2>&1
	wait $pid
	rc=$?
	[ $rc -eq 0 ] && ok "$KIND: --reconnect rides over a restart" ||
		{ not_ok "$KIND: --reconnect rides over a restart (exit $rc)"; sed 's/^/    /' "$T/lost.err"; }
	jq_check "$KIND: ... and counts the reconnects" "$T/rec.json" '.points[0].counters.reconnects >= 1'
}

suite() {
	KIND=$1
	if ! db_have_server "$KIND"; then
		skip "$KIND tests" "no $KIND server installed"
		return
	fi
	local base
	base=$(mktemp -d "${TMPDIR:-/tmp}/appio-db.XXXXXX")
	chmod 755 "$base"               # the postgres user must reach it when we are root
	SRV=$base/$KIND
	at_exit "'$ROOT/scripts/db-stop.sh' '$SRV'; rm -rf '$base'"
	local conn
	if ! conn=$("$ROOT/scripts/db-start.sh" "$KIND" "$SRV" 2>"$T/start.err" | tail -n 1) || [ -z "$conn" ]; then
		not_ok "$KIND: db-start.sh starts a server"; sed 's/^/    /' "$T/start.err"
		# the server's own logs go with the scratch folder: show why it failed
		tail -n 15 "$SRV"/*.log "$SRV"/*.err 2>/dev/null | sed 's/^/    /'
		return
	fi
	ok "$KIND: db-start.sh starts a server and prints the options"
	# shellcheck disable=SC2206
	local C=($conn)

	expect_exit 0 "$KIND: prepare 2 x 1000 rows with 2 loaders" -- \
		"$APPIO" db prepare oltp_read_write "${C[@]}" "${DBA[@]}" --threads 2
	[ "$(count sbtest1)" = 1000 ] && [ "$(count sbtest2)" = 1000 ] &&
		ok "$KIND: each table has 1000 rows" || not_ok "$KIND: rows $(count sbtest1), $(count sbtest2)"
	analyzed sbtest1 500 && analyzed sbtest2 500 &&
		ok "$KIND: prepare analyzed the tables" || not_ok "$KIND: the tables' statistics are the load's"

	expect_exit 0 "$KIND: run oltp_read_write at 1 and 2 threads" -- \
		"$APPIO" db run oltp_read_write "${C[@]}" "${DBA[@]}" --threads 1,2 --time 2 --json "$T/$KIND.json"
	jq_check "$KIND: two points, TPS > 0, p50 <= p99 <= max, mean <= max" "$T/$KIND.json" \
		'(.points | length) == 2 and all(.points[]; .classes.txn.ops_per_s > 0 and (.classes.txn.lat_ns | .p99 >= .p50 and .max >= .p99 and .max >= .mean))'
	# exact, retried transactions included: their statements go to retried_stmts
	jq_check "$KIND: exactly 14 reads, 4 writes, 2 other per transaction" "$T/$KIND.json" \
		"all(.points[]; $(mix_filter 14 4 2) and .counters.retried_stmts >= .counters.retries)"
	case $KIND in
	mariadb) jq_check "$KIND: server version and InnoDB settings recorded" "$T/$KIND.json" \
		'.info | has("server_version") and has("innodb_buffer_pool_size") and has("innodb_flush_log_at_trx_commit") and has("innodb_flush_method") and has("sync_binlog")' ;;
	postgres) jq_check "$KIND: server version and WAL settings recorded" "$T/$KIND.json" \
		'.info | has("server_version") and has("shared_buffers") and has("synchronous_commit") and has("fsync") and has("wal_sync_method")' ;;
	esac
	expect_exit 0 "$KIND: oltp_insert lets the server pick new ids" -- \
		"$APPIO" db run oltp_insert "${C[@]}" "${DBA[@]}" --threads 2 --time 1 --json "$T/ins.json"
	jq_check "$KIND: oltp_insert had no errors" "$T/ins.json" '.points[0].counters.errors == 0 and .points[0].classes.write.ops > 0'

	if command -v sysbench >/dev/null; then
		# shellcheck disable=SC2046
		check "$KIND: sysbench runs on tables appio prepared" \
			sysbench oltp_read_write $(sysbench_args "${C[@]}") --tables=2 --table-size=1000 --time=2 run
	else
		skip "$KIND: sysbench on appio's tables" "no sysbench"
	fi
	expect_exit 0 "$KIND: cleanup" -- "$APPIO" db cleanup oltp_read_write "${C[@]}" "${DBA[@]}"
	[ "$(count sbtest1)" = none ] && ok "$KIND: cleanup dropped the tables" || not_ok "$KIND: sbtest1 still there"

	if command -v sysbench >/dev/null; then
		# shellcheck disable=SC2046
		check "$KIND: sysbench prepare" sysbench oltp_read_write $(sysbench_args "${C[@]}") --tables=2 --table-size=1000 prepare
		expect_exit 0 "$KIND: appio runs on tables sysbench prepared" -- \
			"$APPIO" db run oltp_read_write "${C[@]}" "${DBA[@]}" --threads 2 --time 2 --json "$T/sb.json"
		jq_check "$KIND: ... with the same statement mix" "$T/sb.json" ".points[0] | $(mix_filter 14 4 2)"
		"$APPIO" db cleanup oltp_read_write "${C[@]}" "${DBA[@]}" >/dev/null 2>&1
	fi

	local port
	case $KIND in
	mariadb) port=$(sed -n 's/^port=//p' "$SRV/my.cnf")
		expect_exit 2 "$KIND: a wrong password exits 2" -- "$APPIO" db run oltp_read_write --driver mysql \
			--mysql-host 127.0.0.1 --mysql-port "$port" --mysql-user appio --mysql-password Secr3tWrong --mysql-db appio ;;
	postgres) port=$(cat "$SRV/port")
		expect_exit 2 "$KIND: a wrong password exits 2" -- "$APPIO" db run oltp_read_write --driver pgsql \
			--pgsql-host 127.0.0.1 --pgsql-port "$port" --pgsql-user appio --pgsql-password Secr3tWrong --pgsql-db appio ;;
	esac
	one_line_error "$KIND: ... in one line"
	grep -q -E "Access denied|password authentication failed" "$T/stderr" &&
		ok "$KIND: ... saying the password was refused" || not_ok "$KIND: message: $(cat "$T/stderr")"
	grep -q Secr3tWrong "$T/stderr" "$T/stdout" && not_ok "$KIND: the password was printed" || ok "$KIND: the password is not printed"

	jq_check "$KIND: no password option in the result" "$T/$KIND.json" \
		'.workload.options | keys | map(select(test("password"))) | length == 0'
	lost_connection

	"$ROOT/scripts/db-stop.sh" "$SRV" && ok "$KIND: db-stop.sh stops it" || not_ok "$KIND: db-stop.sh stops it"
	expect_exit 2 "$KIND: a stopped server exits 2" -- "$APPIO" db run oltp_read_write "${C[@]}" "${DBA[@]}" --time 1
	one_line_error "$KIND: ... in one line"
	grep -q "cannot connect to" "$T/stderr" && ok "$KIND: ... naming the server" || not_ok "$KIND: message: $(cat "$T/stderr")"
}

# Two starts at once on one port: one server, and one error naming the port.
# Both used to find the port free before either server bound it; the loser's
# server then failed to start, or the two tests sharing a machine broke each other.
race_start() {
	local port=$(( 20000 + RANDOM % 20000 )) rc_a rc_b
	"$ROOT/scripts/db-start.sh" "$1" "$T/race-a" --port "$port" >/dev/null 2>"$T/race-a.err" &
	local pid=$!
	"$ROOT/scripts/db-start.sh" "$1" "$T/race-b" --port "$port" >/dev/null 2>"$T/race-b.err"
	rc_b=$?
	wait $pid
	rc_a=$?
	if [ $((rc_a + rc_b)) -eq 2 ] && [ $rc_a -ne 1 ] &&
	   grep -q "port $port is already in use" "$T/race-$([ $rc_a -eq 2 ] && echo a || echo b).err"; then
		ok "$1: two starts at once on one port: one server, one error naming the port"
	else
		not_ok "$1: two starts at once on one port (exit $rc_a and $rc_b)"
		sed 's/^/    /' "$T/race-a.err" "$T/race-b.err"
	fi
	"$ROOT/scripts/db-stop.sh" "$T/race-a" >/dev/null 2>&1
	"$ROOT/scripts/db-stop.sh" "$T/race-b" >/dev/null 2>&1
}

suite mariadb
suite postgres
db_have_server mariadb && race_start mariadb
finish
