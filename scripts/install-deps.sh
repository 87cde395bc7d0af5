#!/usr/bin/env bash
# install-deps.sh - the one place that installs appio's Debian packages.
#
#   scripts/install-deps.sh          what building and running appio needs
#   scripts/install-deps.sh --test   also what the test suite and benchmarks need
#
# Installs only what is missing (apt-get, as root; 'apt-get update' first).
# With everything present it does nothing and needs no root.
set -euo pipefail

build=(gcc make pkg-config libc6-dev libaio-dev liburing-dev libblkid-dev
       libsqlite3-dev libpq-dev libmariadb-dev libjansson-dev gnuplot-nox)
test=(fio jq e2fsprogs util-linux mount procps strace sysbench
      mariadb-server mariadb-client postgresql postgresql-client chromium sqlite3
      clang libclang-rt-dev groff-base smartmontools)

want=("${build[@]}")
case "${1:-}" in
	--test) want+=("${test[@]}") ;;
	"") ;;
	*) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac

missing=()
for p in "${want[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "installing: ${missing[*]}" >&2
sudo=""
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: need root to install: ${missing[*]}" >&2; exit 1; }
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# the server packages must not start their system-wide services: tests start their own
if [ ! -e /usr/sbin/policy-rc.d ]; then
	printf '#!/bin/sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
	$sudo chmod 0755 /usr/sbin/policy-rc.d
	trap '$sudo rm -f /usr/sbin/policy-rc.d' EXIT
fi
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
