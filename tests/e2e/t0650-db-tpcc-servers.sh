#!/usr/bin/env bash
# appio db ... tpcc against real MariaDB and PostgreSQL servers started by
# scripts/db-start.sh: the round of tpcc-lib.sh (prepare with its schema,
# check, a run at 1 and 2 threads where deadlocks and serialization
# failures are retried and counted, check again, cleanup), the schema's
# indexes and foreign keys, and --trx-level reaching the sessions.
. tests/e2e/lib.sh
. tests/e2e/tpcc-lib.sh
ROOT=$PWD

have_server() {
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

# after the round's prepare (tpcc-lib.sh calls it)
tpcc_after_prepare() {
	local n
	case $KIND in
	mariadb) n=$(sql "SELECT count(*) FROM information_schema.referential_constraints WHERE constraint_schema = 'appio'") ;;
	postgres) n=$(sql "SELECT count(*) FROM pg_constraint WHERE contype = 'f'") ;;
	esac
	[ "$n" = 10 ] && ok "$KIND: ten foreign keys" || not_ok "$KIND: $n foreign keys"
	[ "$(sql 'SELECT count(*) FROM customer1')" = 30000 ] && [ "$(sql 'SELECT count(*) FROM stock1')" = 100000 ] &&
		[ "$(sql 'SELECT count(*) FROM new_orders1')" = 9000 ] &&
		ok "$KIND: 30000 customers, 100000 stock rows, 9000 new orders" ||
		not_ok "$KIND: customers $(sql 'SELECT count(*) FROM customer1'), stock $(sql 'SELECT count(*) FROM stock1')"
}

points_saved() { jq -e ".points | length == $2" "$1"; }

# The server stops during the second point of a run: exit 1 naming it, the
# first point kept, the second marked partial; then it comes back.
tpcc_before_cleanup() {
	local json=$T/$KIND-lost.json pid rc
	"$APPIO" db run tpcc "${C[@]}" --tables 1 --scale 1 --threads 1,2 --time 3 --json "$json" \
		>"$T/lost.out" 2>"$T/lost.err" &
	pid=$!
	wait_for 60 points_saved "$json" 1 || not_ok "$KIND: the run reached its second point"
	sleep 1
	"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null 2>&1
	wait $pid
	rc=$?
	[ $rc -eq 1 ] && grep -q "lost connection to .* at '" "$T/lost.err" &&
		ok "$KIND: a server lost mid-run stops the tpcc run, naming it" ||
		{ not_ok "$KIND: a server lost mid-run stops the tpcc run, naming it (exit $rc)"; sed 's/^/    /' "$T/lost.err"; }
	jq_check "$KIND: ... the finished point saved, the cut one partial" "$json" \
		'(.points | length) == 2 and .points[0].partial == false and .points[0].classes.new_order.ops > 0
		 and .points[1].partial == true'
	"$ROOT/scripts/db-start.sh" "$KIND" "$SRV" >/dev/null 2>&1 || not_ok "$KIND: the server restarts"
}

suite() {
	KIND=$1
	if ! have_server "$KIND"; then
		skip "$KIND tpcc tests" "no $KIND server installed"
		return
	fi
	local base conn
	base=$(mktemp -d "${TMPDIR:-/tmp}/appio-tpcc.XXXXXX")
	chmod 755 "$base"               # the postgres user must reach it when we are root
	SRV=$base/$KIND
	at_exit "'$ROOT/scripts/db-stop.sh' '$SRV'; rm -rf '$base'"
	if ! conn=$("$ROOT/scripts/db-start.sh" "$KIND" "$SRV" 2>"$T/start.err" | tail -n 1) || [ -z "$conn" ]; then
		not_ok "$KIND: db-start.sh starts a server"; sed 's/^/    /' "$T/start.err"
		tail -n 15 "$SRV"/*.log "$SRV"/*.err 2>/dev/null | sed 's/^/    /'
		return
	fi
	ok "$KIND: db-start.sh starts a server"
	# shellcheck disable=SC2206
	local C=($conn)

	TPCC_TIME=5 tpcc_round "$KIND" "${C[@]}"
	"$ROOT/scripts/db-stop.sh" "$SRV" >/dev/null 2>&1
}

suite mariadb
suite postgres
finish
