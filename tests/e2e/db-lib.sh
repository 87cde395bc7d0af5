# db-lib.sh - sourced (after lib.sh) by the tests of 'appio db' on real
# servers (t0610, t0650 and t1060): whether a server is installed, one value
# through the server's own client, a throwaway server started for the test,
# and the server lost in the middle of a run. The caller sets KIND (mariadb
# or postgres); db_start_server sets SRV (its folder), C (appio's
# connection options), DRV (the driver's name) and WHERE (where appio
# connects, as its messages name it).

# db_have_server KIND: its server is installed
db_have_server() {
	case $1 in
	mariadb) command -v mariadbd >/dev/null || command -v mysqld >/dev/null ;;
	postgres) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || command -v initdb >/dev/null ;;
	esac
}

# sql QUERY: one value through the server's own client
sql() {
	case $KIND in
	mariadb) mariadb --no-defaults --socket="$SRV/mysqld.sock" -uappio appio -N -e "$1" 2>/dev/null ;;
	postgres) psql -X -h "$SRV" -p "$(cat "$SRV/port")" -U appio appio -tAc "$1" 2>/dev/null ;;
	esac
}

# analyzed TABLE ROWS: the table's statistics were refreshed after its load,
# as 'appio db prepare' does: MariaDB's persistent statistics (what a
# restarted server plans with) count at least ROWS rows, where a table
# loaded just now has 0 until the server's background thread gets to it;
# PostgreSQL's table was vacuumed and analyzed by a command, not left to
# autovacuum
analyzed() {
	case $KIND in
	mariadb) [ "$(sql "SELECT n_rows FROM mysql.innodb_table_stats WHERE database_name = 'appio'
		AND table_name = '$1'")" -ge "$2" ] 2>/dev/null ;;
	postgres) [ "$(sql "SELECT count(*) FROM pg_stat_user_tables WHERE relname = '$1'
		AND last_vacuum IS NOT NULL AND last_analyze IS NOT NULL")" = 1 ] ;;
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

# points_saved FILE N: the run's document holds N points
points_saved() { jq -e ".points | length == $2" "$1" >/dev/null 2>&1; }

# gone PID...: none of the processes is left
gone() {
	local p
	for p; do ! kill -0 "$p" 2>/dev/null || return 1; done
}

# db_start_server NAME: a fresh server of KIND in a folder of its own,
# stopped and removed at exit. 1 (and a "not ok" line) when it does not start.
db_start_server() {
	local base conn
	base=$(mktemp -d "${TMPDIR:-/tmp}/appio-$1.XXXXXX")
	chmod 755 "$base"               # the postgres user must reach it when we are root
	SRV=$base/$KIND
	at_exit "'$ROOT/scripts/db-stop.sh' '$SRV'; rm -rf '$base'"
	if ! conn=$("$ROOT/scripts/db-start.sh" "$KIND" "$SRV" 2>"$T/start.err" | tail -n 1) || [ -z "$conn" ]; then
		not_ok "$KIND: db-start.sh starts a server"; sed 's/^/    /' "$T/start.err"
		tail -n 15 "$SRV"/*.log "$SRV"/*.err 2>/dev/null | sed 's/^/    /'
		return 1
	fi
	# shellcheck disable=SC2206
	C=($conn)
	case $KIND in
	mariadb) DRV=mysql WHERE=$SRV/mysqld.sock ;;
	postgres) DRV=pgsql WHERE=$SRV:$(cat "$SRV/port") ;;
	esac
}

# db_kill_server: SIGKILL the server's processes (PostgreSQL's postmaster and
# its backends together, so none lingers on the shared memory), as a crash
# or the OOM killer would, then wait until they are gone, so a restart finds
# the data folder free.
db_kill_server() {
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

# db_restart: the server again on its data folder
db_restart() {
	"$ROOT/scripts/db-start.sh" "$KIND" "$SRV" >/dev/null 2>"$T/start.err" ||
		{ not_ok "$KIND: the server restarts"; sed 's/^/    /' "$T/start.err"; return 1; }
}

# db_lost_mid_run LABEL CLASS WORKLOAD ARGS...: 'appio db run WORKLOAD' at 1
# then 2 threads (ARGS: its tables); once the first point is saved and the
# second point's two connections are open, the server is killed. The run
# must stop with exit 1 naming the server ($DRV at $WHERE), its document
# having said "incomplete" between the points, then keeping the first point
# whole (CLASS counted in it) and the second marked partial. The server is
# restarted afterwards.
db_lost_mid_run() {
	local label=$1 cls=$2 wl=$3 json=$T/lost-$KIND-$3.json pid rc
	shift 3
	"$APPIO" db run "$wl" "${C[@]}" "$@" --threads 1,2 --time 3 --json "$json" \
		>"$T/lost.out" 2>"$T/lost.err" &
	pid=$!
	wait_for 60 points_saved "$json" 1 && wait_for 15 connections 2 ||
		not_ok "$label: the run reached its second point"
	cp "$json" "$T/between.json" 2>/dev/null
	jq_check "$label: the document saved between points says incomplete" "$T/between.json" \
		'.incomplete == true and .interrupted == true and (.points | length) == 1'
	db_kill_server
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && ok "$label: a server killed mid-run stops the run, exit 1" ||
		{ not_ok "$label: a server killed mid-run stops the run, exit 1 (exit $rc)"; sed 's/^/    /' "$T/lost.err"; }
	grep -q "lost connection to $DRV at '$WHERE'" "$T/lost.err" &&
		ok "$label: ... naming the server ($WHERE)" ||
		{ not_ok "$label: ... naming the server ($WHERE)"; sed 's/^/    /' "$T/lost.err"; }
	jq_check "$label: ... the first point saved whole, the second marked partial" "$json" \
		"(.points | length) == 2 and (.points[0] | .partial == false and .classes.$cls.ops > 0)
		 and .points[1].partial == true"
	db_restart
}
