#!/usr/bin/env bash
# appio db when the server is killed outright (SIGKILL, as a crash or the OOM
# killer would): mid-run, the run stops with exit 1 naming the server and its
# --json file keeps the points finished so far; mid-prepare, the prepare
# fails (exit 1) naming the server, and after a restart a new prepare says in
# one line (exit 2) to run 'appio db cleanup', after which prepare works.
# Each kill comes at a state polled for (a point saved, a table made), not
# after a guessed sleep.
. tests/e2e/lib.sh
ROOT=$PWD

have_server() {
	case $1 in
	mariadb) command -v mariadbd >/dev/null || command -v mysqld >/dev/null ;;
	postgres) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null ;;
	esac
}

# sql QUERY: one value from the server through its own client
sql() {
	case $KIND in
	mariadb) mariadb --no-defaults --socket="$SRV/mysqld.sock" -uappio appio -N -e "$1" ;;
	postgres) psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tAc "$1" ;;
	esac
}

# connections N: appio has at least N connections open on the server
connections() {
	local n
	case $KIND in
	mariadb) n=$(sql "SELECT count(*) FROM information_schema.processlist
		WHERE user = 'appio' AND id <> connection_id()") ;;
	postgres) n=$(sql "SELECT count(*) FROM pg_stat_activity
		WHERE usename = 'appio' AND pid <> pg_backend_pid()") ;;
	esac
	[ "${n:-0}" -ge "$1" ]
}

# table_exists NAME: the table is there (created, maybe still loading)
table_exists() {
	case $KIND in
	mariadb) [ "$(sql "SELECT count(*) FROM information_schema.tables
		WHERE table_schema = 'appio' AND table_name = '$1'")" = 1 ] ;;
	postgres) [ "$(sql "SELECT to_regclass('$1') IS NOT NULL")" = t ] ;;
	esac
}

# points_saved FILE N: the run's document holds N points
points_saved() { jq -e ".points | length == $2" "$1"; }

# gone PID...: none of the processes is left
gone() {
	local p
	for p; do ! kill -0 "$p" 2>/dev/null || return 1; done
}

# kill_server: SIGKILL the server's processes (PostgreSQL's postmaster and
# its backends together, so none lingers on the shared memory), then wait
# until they are gone, so a restart finds the data folder free.
kill_server() {
	local pids
	case $KIND in
	mariadb) pids=$(cat "$SRV/mysqld.pid") ;;
	postgres) pids=$(head -n 1 "$SRV/pgdata/postmaster.pid")
		pids="$pids $(pgrep -P "$pids" | tr '\n' ' ')" ;;
	esac
	# shellcheck disable=SC2086
	kill -KILL $pids
	# shellcheck disable=SC2086
	wait_for 30 gone $pids ||
		not_ok "$KIND: the killed server's processes went away in 30 s"
}

restart() {
	"$ROOT/scripts/db-start.sh" "$KIND" "$SRV" >/dev/null 2>"$T/start.err" ||
		{ not_ok "$KIND: the server restarts after the kill"; sed 's/^/    /' "$T/start.err"; return 1; }
}

# The server is killed during the second point of a two-point run.
kill_mid_run() {
	local json=$T/$KIND-run.json pid rc
	"$APPIO" db prepare oltp_read_only "${C[@]}" --tables 2 --table-size 1000 >/dev/null 2>&1
	"$APPIO" db run oltp_read_only "${C[@]}" --tables 2 --table-size 1000 --threads 1,2 --time 3 \
		--json "$json" >"$T/run.out" 2>"$T/run.err" &
	pid=$!
	# the first point is saved and the second point's two connections are open
	wait_for 30 points_saved "$json" 1 && wait_for 15 connections 2 ||
		not_ok "$KIND: the run reached its second point"
	cp "$json" "$T/between.json" 2>/dev/null
	jq_check "$KIND: the document saved between points says incomplete" "$T/between.json" \
		'.incomplete == true and .interrupted == true and (.points | length) == 1'
	kill_server
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && ok "$KIND: a server killed mid-run stops the run, exit 1" ||
		{ not_ok "$KIND: a server killed mid-run stops the run, exit 1 (exit $rc)"; sed 's/^/    /' "$T/run.err"; }
	grep -q "lost connection to $DRV at '$WHERE'" "$T/run.err" &&
		ok "$KIND: ... naming the server ($WHERE)" ||
		{ not_ok "$KIND: ... naming the server ($WHERE)"; sed 's/^/    /' "$T/run.err"; }
	jq_check "$KIND: ... the first point saved whole, the second marked partial" "$json" \
		'(.points | length) == 2 and (.points[0] | .partial == false and .classes.txn.ops > 0)
		 and .points[1].partial == true'
	restart || return
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
	kill_server
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && ok "$KIND: a server killed mid-prepare fails the prepare, exit 1" ||
		{ not_ok "$KIND: a server killed mid-prepare fails the prepare, exit 1 (exit $rc)"; sed 's/^/    /' "$T/prep.err"; }
	grep -q "lost connection to $DRV at '$WHERE'" "$T/prep.err" &&
		ok "$KIND: ... naming the server ($WHERE)" ||
		{ not_ok "$KIND: ... naming the server ($WHERE)"; sed 's/^/    /' "$T/prep.err"; }
	restart || return
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
	if ! have_server "$KIND"; then
		skip "$KIND kill tests" "no $KIND server installed"
		return
	fi
	local base conn
	base=$(mktemp -d "${TMPDIR:-/tmp}/appio-kill.XXXXXX")
	chmod 755 "$base"               # the postgres user must reach it when we are root
	SRV=$base/$KIND
	at_exit "'$ROOT/scripts/db-stop.sh' '$SRV'; rm -rf '$base'"
	if ! conn=$("$ROOT/scripts/db-start.sh" "$KIND" "$SRV" 2>"$T/start.err" | tail -n 1) || [ -z "$conn" ]; then
		not_ok "$KIND: db-start.sh starts a server"; sed 's/^/    /' "$T/start.err"
		tail -n 15 "$SRV"/*.log "$SRV"/*.err 2>/dev/null | sed 's/^/    /'
		return
	fi
	# shellcheck disable=SC2206
	C=($conn)
	case $KIND in
	mariadb) DRV=mysql WHERE=$SRV/mysqld.sock ;;
	postgres) DRV=pgsql WHERE=$SRV:$(cat "$SRV/port") ;;
	esac
	kill_mid_run
	kill_mid_prepare
}

suite mariadb
suite postgres
finish
