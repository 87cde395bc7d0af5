#!/usr/bin/env bash
# appio db when the server is killed outright (SIGKILL, as a crash or the OOM
# killer would): mid-run, the run stops with exit 1 naming the server and
# its --json file keeps the points finished so far; mid-prepare, the prepare
# fails (exit 1) naming the server, and after a restart a new prepare says
# in one line (exit 2) to run 'appio db cleanup', after which prepare works.
# Each kill comes at a state polled for (a point saved, a table made), not
# after a guessed sleep.
. tests/e2e/lib.sh
. tests/e2e/db-lib.sh
ROOT=$PWD

# table_exists NAME: the table is there (created, maybe still loading)
table_exists() {
	case $KIND in
	mariadb) [ "$(sql "SELECT count(*) FROM information_schema.tables
		WHERE table_schema = 'appio' AND table_name = '$1'")" = 1 ] ;;
	postgres) [ "$(sql "SELECT to_regclass('$1') IS NOT NULL")" = t ] ;;
	esac
}

# The server is killed during the second point of a two-point run (TPC-C's
# case, db_lost_mid_run too, is in t0650, on the tables it has loaded: a
# TPC-C load takes a minute here).
kill_mid_run() {
	"$APPIO" db prepare oltp_read_only "${C[@]}" --tables 2 --table-size 1000 >/dev/null 2>&1
	db_lost_mid_run "$KIND" txn oltp_read_only --tables 2 --table-size 1000 || return
	"$APPIO" db cleanup oltp_read_only "${C[@]}" --tables 2 >/dev/null 2>&1
}

# The server is killed while prepare loads its tables.
kill_mid_prepare() {
	local DBA=(--tables 4 --table-size 200000) pid rc
	"$APPIO" db prepare oltp_read_write "${C[@]}" "${DBA[@]}" --threads 2 >"$T/prep.out" 2>"$T/prep.err" &
	pid=$!
	wait_for 30 table_exists sbtest1 || not_ok "$KIND: prepare made its first table"
	if ! kill -0 $pid 2>/dev/null; then
		not_ok "$KIND: prepare still loading when the server is killed (make the tables larger)"
	fi
	db_kill_server
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && ok "$KIND: a server killed mid-prepare fails the prepare, exit 1" ||
		{ not_ok "$KIND: a server killed mid-prepare fails the prepare, exit 1 (exit $rc)"; sed 's/^/    /' "$T/prep.err"; }
	grep -q "lost connection to $DRV at '$WHERE'" "$T/prep.err" &&
		ok "$KIND: ... naming the server ($WHERE)" ||
		{ not_ok "$KIND: ... naming the server ($WHERE)"; sed 's/^/    /' "$T/prep.err"; }
	db_restart || return
	expect_exit 2 "$KIND: prepare again after the interrupted one exits 2" -- \
		"$APPIO" db prepare oltp_read_write "${C[@]}" "${DBA[@]}"
	one_line_error "$KIND: ... in one line"
	grep -q "sbtest1 already exists .*interrupted prepare.*run 'appio db cleanup'" "$T/stderr" &&
		ok "$KIND: ... saying to run 'appio db cleanup'" || not_ok "$KIND: message: $(cat "$T/stderr")"
	expect_exit 0 "$KIND: cleanup after the interrupted prepare" -- \
		"$APPIO" db cleanup oltp_read_write "${C[@]}" "${DBA[@]}"
	expect_exit 0 "$KIND: ... then prepare works" -- \
		"$APPIO" db prepare oltp_read_write "${C[@]}" --tables 4 --table-size 1000 --threads 2
	[ "$(sql "SELECT count(*) FROM sbtest4")" = 1000 ] && ok "$KIND: ... with every row" ||
		not_ok "$KIND: sbtest4 has $(sql "SELECT count(*) FROM sbtest4") rows, expected 1000"
	"$APPIO" db cleanup oltp_read_write "${C[@]}" --tables 4 >/dev/null 2>&1
}

suite() {
	KIND=$1
	if ! db_have_server "$KIND"; then
		skip "$KIND kill tests" "no $KIND server installed"
		return
	fi
	db_start_server kill || return
	kill_mid_run
	kill_mid_prepare
}

suite mariadb
suite postgres
finish
