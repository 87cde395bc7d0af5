#!/usr/bin/env bash
# db-stop.sh - stop a server that scripts/db-start.sh started.
#
#   scripts/db-stop.sh [mariadb|postgres] [DIR] [--remove]
#
# DIR is the folder given to db-start.sh (default ./appio-db-KIND); the kind
# of server is read from DIR when not given. --remove deletes DIR afterwards.
# Stopping a server that is not running is not an error.
set -euo pipefail

die() { echo "db-stop: $*" >&2; exit 2; }

KIND='' DIR='' REMOVE=0
while [ $# -gt 0 ]; do
	case $1 in
	mariadb|mysql) KIND=mariadb ;;
	postgres|postgresql|pgsql) KIND=postgres ;;
	--remove) REMOVE=1 ;;
	-h|--help) sed -n '2,/^set -euo/p' "$0" | sed -e '/^set -euo/d' -e 's/^# \{0,1\}//' >&2; exit 2 ;;
	-*) die "unknown option '$1'" ;;
	*) [ -z "$DIR" ] || die "unexpected argument '$1'"; DIR=$1 ;;
	esac
	shift
done
if [ -z "$DIR" ]; then
	[ -n "$KIND" ] || die "give the server's folder or its kind (mariadb or postgres)"
	DIR=./appio-db-$KIND
fi
[ -d "$DIR" ] || die "no such folder '$DIR'"
DIR=$(cd "$DIR" && pwd)
[ -n "$KIND" ] || KIND=$(cat "$DIR/kind" 2>/dev/null || true)
[ -n "$KIND" ] || { [ -d "$DIR/pgdata" ] && KIND=postgres; } || true
[ -n "$KIND" ] || { [ -f "$DIR/my.cnf" ] && KIND=mariadb; } || true
[ -n "$KIND" ] || die "'$DIR' holds no server that db-start.sh made"

stop_mariadb() {
	local pidf="$DIR/mysqld.pid" pid
	[ -f "$pidf" ] || return 0
	pid=$(cat "$pidf")
	kill -TERM "$pid" 2>/dev/null || { rm -f "$pidf"; return 0; }
	# InnoDB flushes its buffer pool on shutdown: allow it time.
	for _ in $(seq 1200); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 "$pid" 2>/dev/null; then
		kill -KILL "$pid" 2>/dev/null || true
		echo "db-stop: MariaDB ($pid) did not stop in 120 s, killed" >&2
	fi
	rm -f "$pidf"
}

stop_postgres() {
	local data="$DIR/pgdata" bindir
	[ -f "$data/postmaster.pid" ] || return 0
	bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
	[ -n "$bindir" ] || bindir=$(dirname "$(command -v pg_ctl)")
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u postgres -- "$bindir/pg_ctl" -D "$data" -m fast -w -t 120 stop >/dev/null
	else
		"$bindir/pg_ctl" -D "$data" -m fast -w -t 120 stop >/dev/null
	fi
}

"stop_$KIND"
if [ "$REMOVE" -eq 1 ]; then
	rm -rf "$DIR"
fi
