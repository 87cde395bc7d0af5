#!/usr/bin/env bash
# db-start.sh - start a throwaway MariaDB or PostgreSQL server for appio.
#
#   scripts/db-start.sh mariadb|postgres [DIR] [--port N] [name=value ...]
#
# Creates a fresh data folder in DIR (default ./appio-db-KIND in the current
# folder, so the data sits on the drive under test), starts the server on
# 127.0.0.1 and on a unix socket in DIR, creates the user and database
# "appio", and waits until the server answers. name=value pairs are server
# settings (innodb_buffer_pool_size=4G, shared_buffers=2GB, ...) written into
# the server's configuration, so the data set can be made larger than memory.
#
# Access: over the unix socket the appio user needs no password; over TCP
# (127.0.0.1) its password is "appio" (a throwaway server, never a real one).
#
# The last line on stdout is the appio options that connect to the server:
#   appio db run oltp_read_write $(scripts/db-start.sh mariadb DIR | tail -n 1)
# Works as root (MariaDB runs with user=root; PostgreSQL's tools run as the
# postgres user) and as a normal user. Stop it with scripts/db-stop.sh DIR.
set -euo pipefail

die() { echo "db-start: $*" >&2; exit 2; }
log() { echo "db-start: $*" >&2; }

usage() {
	sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2
	exit 2
}

[ $# -ge 1 ] || usage
KIND=$1; shift
case $KIND in
mariadb|mysql) KIND=mariadb ;;
postgres|postgresql|pgsql) KIND=postgres ;;
-h|--help) usage ;;
*) die "unknown server '$KIND' (expected mariadb or postgres)" ;;
esac

DIR=
PORT=
SETTINGS=()
while [ $# -gt 0 ]; do
	case $1 in
	--port) [ $# -ge 2 ] || die "--port needs a number"; PORT=$2; shift 2 ;;
	--port=*) PORT=${1#--port=}; shift ;;
	*=*) SETTINGS+=("$1"); shift ;;
	-*) die "unknown option '$1'" ;;
	*) [ -z "$DIR" ] || die "unexpected argument '$1'"; DIR=$1; shift ;;
	esac
done
DIR=${DIR:-./appio-db-$KIND}
mkdir -p "$DIR"
DIR=$(cd "$DIR" && pwd)
[ ${#DIR} -lt 80 ] || die "'$DIR' is too long for a unix socket path (keep it under 80 characters)"

# A port nobody listens on: the one asked for, or the first free one from a
# spot that depends on the folder, so parallel servers rarely collide. Two
# starts at once could still both find one port free before either server
# binds it: the pick and the start, until the server listens, hold a lock
# (released when this script exits; the server must not inherit it: 9>&-).
command -v flock >/dev/null || die "flock not found (install util-linux)"
exec 9>"${TMPDIR:-/tmp}/appio-db-start.lock" || die "cannot open the lock '${TMPDIR:-/tmp}/appio-db-start.lock'"
flock 9 || die "cannot take the lock '${TMPDIR:-/tmp}/appio-db-start.lock'"
port_busy() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
pick_port() {
	local p=$(( 20000 + $(printf '%s' "$DIR" | cksum | cut -d' ' -f1) % 20000 ))
	local i
	for i in $(seq 0 200); do
		port_busy $((p + i)) || { echo $((p + i)); return; }
	done
	die "no free TCP port found near $p"
}
if [ -n "$PORT" ]; then
	[[ $PORT =~ ^[0-9]+$ ]] || die "--port: invalid port '$PORT'"
	! port_busy "$PORT" || die "port $PORT is already in use"
else
	PORT=$(pick_port)
fi

# Wait up to $1 seconds for "$2..." to succeed.
wait_for() {
	local secs=$1; shift
	local i
	for i in $(seq $((secs * 10))); do
		"$@" >/dev/null 2>&1 && return 0
		sleep 0.1
	done
	return 1
}

start_mariadb() {
	command -v mariadbd >/dev/null || command -v mysqld >/dev/null ||
		die "mariadbd not found (install mariadb-server)"
	local bin sock="$DIR/mysqld.sock" cnf="$DIR/my.cnf" data="$DIR/data"
	bin=$(command -v mariadbd || command -v mysqld)
	# a pid file whose process is gone is what a killed server leaves behind
	if [ -e "$DIR/mysqld.pid" ]; then
		! kill -0 "$(cat "$DIR/mysqld.pid")" 2>/dev/null ||
			die "a server may already run in '$DIR' (see scripts/db-stop.sh)"
		rm -f "$DIR/mysqld.pid"
	fi
	# --defaults-file keeps the system's /etc/mysql out of this server.
	{
		echo "[mysqld]"
		[ "$(id -u)" -ne 0 ] || echo "user=root"
		echo "datadir=$data"
		echo "socket=$sock"
		echo "pid-file=$DIR/mysqld.pid"
		echo "log-error=$DIR/mysqld.err"
		# a tmpdir of its own: a MariaDB server starting removes the '#sql*' files
		# it finds in its tmpdir, another server's (or mariadb-install-db's) included
		echo "tmpdir=$DIR/tmp"
		echo "bind-address=127.0.0.1"
		echo "port=$PORT"
		echo "skip-name-resolve"
		echo "max_connections=1000"
		echo "innodb_buffer_pool_load_at_startup=OFF"
		echo "innodb_buffer_pool_dump_at_shutdown=OFF"
		local s
		for s in "${SETTINGS[@]+"${SETTINGS[@]}"}"; do echo "$s"; done
	} >"$cnf"
	mkdir -p "$DIR/tmp" || die "cannot create '$DIR/tmp'"
	if [ ! -d "$data/mysql" ]; then
		log "creating a MariaDB data folder in '$data'"
		mariadb-install-db --defaults-file="$cnf" --auth-root-authentication-method=normal \
			--skip-test-db >"$DIR/install.log" 2>&1 ||
			die "mariadb-install-db failed, see '$DIR/install.log'"
	fi
	log "starting MariaDB on 127.0.0.1:$PORT and '$sock'"
	nohup "$bin" --defaults-file="$cnf" </dev/null >>"$DIR/mysqld.err" 2>&1 9>&- &
	local pid=$!
	local i
	for i in $(seq 600); do
		mariadb-admin --no-defaults --socket="$sock" -uroot ping >/dev/null 2>&1 && break
		kill -0 "$pid" 2>/dev/null || die "MariaDB did not start, see '$DIR/mysqld.err'"
		sleep 0.1
	done
	mariadb-admin --no-defaults --socket="$sock" -uroot ping >/dev/null 2>&1 ||
		die "MariaDB did not answer within 60 s, see '$DIR/mysqld.err'"
	mariadb --no-defaults --socket="$sock" -uroot <<-'SQL' || die "cannot create the appio user"
		CREATE DATABASE IF NOT EXISTS appio;
		CREATE USER IF NOT EXISTS 'appio'@'localhost';
		CREATE USER IF NOT EXISTS 'appio'@'127.0.0.1' IDENTIFIED BY 'appio';
		GRANT ALL ON *.* TO 'appio'@'localhost';
		GRANT ALL ON *.* TO 'appio'@'127.0.0.1';
		CREATE DATABASE IF NOT EXISTS sbtest;
	SQL
	echo mariadb >"$DIR/kind"
	echo "--driver mysql --mysql-socket $sock --mysql-user appio --mysql-db appio"
}

# Run a PostgreSQL tool as the data folder's owner: postgres when we are root.
as_pg() {
	if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start_postgres() {
	local bindir
	bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$bindir" ] && [ -x "$bindir/initdb" ] || bindir=$(dirname "$(command -v initdb 2>/dev/null || echo /nonexistent/x)")
	[ -x "$bindir/initdb" ] || die "initdb not found (install postgresql)"
	local data="$DIR/pgdata"
	if [ "$(id -u)" -eq 0 ]; then
		id postgres >/dev/null 2>&1 || die "running as root needs the 'postgres' user"
		chown postgres: "$DIR"
		runuser -u postgres -- test -x "$DIR" ||
			die "the postgres user cannot reach '$DIR': a parent folder is private (chmod a+x it)"
	fi
	if [ ! -f "$data/PG_VERSION" ]; then
		log "creating a PostgreSQL data folder in '$data'"
		as_pg "$bindir/initdb" -D "$data" -U postgres --auth-local=trust \
			--auth-host=scram-sha-256 >"$DIR/initdb.log" 2>&1 ||
			die "initdb failed, see '$DIR/initdb.log'"
	fi
	{
		echo "listen_addresses = '127.0.0.1'"
		echo "port = $PORT"
		echo "unix_socket_directories = '$DIR'"
		echo "max_connections = 300"
		local s
		for s in "${SETTINGS[@]+"${SETTINGS[@]}"}"; do
			echo "${s%%=*} = '${s#*=}'"
		done
	} | as_pg tee "$data/appio.conf" >/dev/null
	grep -q "^include_if_exists = 'appio.conf'" "$data/postgresql.conf" ||
		echo "include_if_exists = 'appio.conf'" | as_pg tee -a "$data/postgresql.conf" >/dev/null
	log "starting PostgreSQL on 127.0.0.1:$PORT and '$DIR'"
	as_pg "$bindir/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >/dev/null 9>&- ||
		die "PostgreSQL did not start, see '$data/server.log'"
	local psql=("$bindir/psql" -X -q -h "$DIR" -p "$PORT" -U postgres -d postgres -v ON_ERROR_STOP=1)
	if ! "${psql[@]}" -tAc "SELECT 1 FROM pg_roles WHERE rolname='appio'" | grep -q 1; then
		"${psql[@]}" -c "CREATE USER appio SUPERUSER PASSWORD 'appio'" \
			-c "CREATE DATABASE appio OWNER appio" \
			-c "CREATE DATABASE sbtest OWNER appio" >/dev/null ||
			die "cannot create the appio user"
	fi
	echo postgres >"$DIR/kind"
	echo "$PORT" >"$DIR/port"
	echo "--driver pgsql --pgsql-host $DIR --pgsql-port $PORT --pgsql-user appio --pgsql-db appio"
}

"start_$KIND"
