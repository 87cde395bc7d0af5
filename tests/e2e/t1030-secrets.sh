#!/usr/bin/env bash
# Passwords: one given as an option is gone from ps and /proc/PID/cmdline from
# start-up on, and no output (table, messages, result document, a suite's plan
# and document) shows it. The clients' own conventions work instead: a
# --password-file, MYSQL_PWD / PGPASSWORD and their option files.
. tests/e2e/lib.sh
ROOT=$PWD
cd "$T"
SQ=(--sqlite-db "$T/s.db" --table-size 1000)
"$APPIO" db prepare oltp_read_write "${SQ[@]}" >/dev/null 2>&1

# no_secret DESC FILE...: none of the files holds the password
no_secret() {
	local desc=$1; shift
	if grep -l -e Sekr3t -e Sekr4t "$@" 2>/dev/null | grep -q .; then
		not_ok "$desc"; grep -n -e Sekr3t -e Sekr4t "$@" | head -3 | sed 's/^/    /'
	else ok "$desc"; fi
}

# a running process: its visible arguments
"$APPIO" db run oltp_point_select "${SQ[@]}" --mysql-password Sekr3t --pgsql-password=Sekr4t \
	--time 3 --json run.json >run.out 2>run.err &
pid=$!
sleep 1
tr '\0' ' ' </proc/$pid/cmdline >cmdline
wait $pid
rc=$?
[ $rc -eq 0 ] && ok "a run given passwords as options works" || { not_ok "a run given passwords works (exit $rc)"; cat run.err; }
no_secret "/proc/PID/cmdline does not show them" cmdline
grep -q -- "--mysql-password xxxxxx --pgsql-password=xxxxxx" cmdline &&
	ok "... they are overwritten in place, the option names stay" || not_ok "... overwritten in place: $(cat cmdline)"
no_secret "the table, the messages and the result do not show them" run.out run.err run.json

# a suite's plan and document
"$APPIO" suite quick --target s.dat --size 16M --fill-passes 0 --profiles none --write-sweep none \
	--apps none --db-time 1 --db-threads 1 --db-args "--sqlite-db $T/suite.db --mysql-password Sekr3t --pgsql-password=Sekr4t" \
	--json suite.json >suite.out 2>suite.err
rc=$?
[ $rc -eq 0 ] && ok "a suite given passwords in --db-args works" || { not_ok "suite (exit $rc)"; tail -3 suite.err; }
no_secret "the suite's plan, messages and document do not show them" suite.out suite.err suite.json
grep -q -- "--mysql-password (secret)" suite.out && ok "the plan says a password was given" ||
	not_ok "the plan says a password was given"

# --password-file: a file that cannot be read is bad input, and its content is never printed
printf 'Sekr3t\n' >pw
expect_exit 2 "--password-file that does not exist: exit 2" -- "$APPIO" db run "${SQ[@]}" --password-file nopw --time 1
grep -q -- "--password-file: cannot read 'nopw'" stderr && ok "... naming the option" || not_ok "... naming the option"
: >empty
expect_exit 2 "an empty --password-file: exit 2" -- "$APPIO" db run "${SQ[@]}" --password-file empty --time 1
one_line_error "... in one line"
expect_exit 0 "a readable --password-file is accepted" -- "$APPIO" db run "${SQ[@]}" --password-file pw --time 1 --json pf.json
no_secret "... and its password is shown nowhere" stdout stderr pf.json

# real servers: the password from a file, from the clients' environment variables
server() {
	local kind=$1 base srv port
	case $kind in
	mariadb) command -v mariadbd >/dev/null || command -v mysqld >/dev/null || { skip "$kind" "not installed"; return; } ;;
	postgres) ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { skip "$kind" "not installed"; return; } ;;
	esac
	base=$(mktemp -d "${TMPDIR:-/tmp}/appio-db.XXXXXX")
	chmod 755 "$base"
	srv=$base/$kind
	at_exit "'$ROOT/scripts/db-stop.sh' '$srv'; rm -rf '$base'"
	if ! "$ROOT/scripts/db-start.sh" "$kind" "$srv" >/dev/null 2>start.err; then
		not_ok "$kind: a server starts"; sed 's/^/    /' start.err; return
	fi
	printf 'appio\n' >goodpw
	printf 'wrong-Sekr3t\n' >badpw
	local C
	case $kind in
	mariadb) port=$(sed -n 's/^port=//p' "$srv/my.cnf")
		C=(--driver mysql --mysql-host 127.0.0.1 --mysql-port "$port" --mysql-user appio --mysql-db appio) ;;
	postgres) port=$(cat "$srv/port")
		C=(--driver pgsql --pgsql-host 127.0.0.1 --pgsql-port "$port" --pgsql-user appio --pgsql-db appio) ;;
	esac
	expect_exit 0 "$kind: --password-file connects over TCP" -- \
		"$APPIO" db prepare oltp_point_select "${C[@]}" --table-size 100 --password-file goodpw
	expect_exit 2 "$kind: a wrong password in the file is refused, exit 2" -- \
		"$APPIO" db run oltp_point_select "${C[@]}" --table-size 100 --password-file badpw --time 1
	no_secret "$kind: ... without printing it" stdout stderr
	case $kind in
	mariadb) expect_exit 0 "$kind: MYSQL_PWD connects" -- env MYSQL_PWD=appio \
		"$APPIO" db run oltp_point_select "${C[@]}" --table-size 100 --time 1 ;;
	postgres) expect_exit 0 "$kind: PGPASSWORD connects" -- env PGPASSWORD=appio \
		"$APPIO" db run oltp_point_select "${C[@]}" --table-size 100 --time 1
		printf '127.0.0.1:%s:appio:appio:appio\n' "$port" >pgpass
		chmod 600 pgpass
		expect_exit 0 "$kind: a ~/.pgpass-style file (PGPASSFILE) connects" -- env PGPASSFILE="$T/pgpass" \
			"$APPIO" db run oltp_point_select "${C[@]}" --table-size 100 --time 1 ;;
	esac
	"$APPIO" db cleanup oltp_point_select "${C[@]}" --password-file goodpw >/dev/null 2>&1
}
server postgres
server mariadb
finish
