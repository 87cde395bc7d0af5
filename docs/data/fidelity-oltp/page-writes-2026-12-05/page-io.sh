#!/bin/bash
# page-io.sh OUT [POOL [TABLES ROWS [PHASE_THREADS]]]: which pages MariaDB reads
# and writes in m-big's sequence. A throwaway server (scripts/db-start.sh),
# TABLES x ROWS (default 8 x 250,000) prepared with a 512M pool, restarted
# with POOL (default 128M), 96M redo, flush 1 and innodb_use_native_aio=0
# (the I/O threads then read and write with pread64/pwrite64, whose
# arguments the syscall tracepoints show; the flushing code is the same);
# 30 s of oltp_read_write at 8 threads, then 15 s at PHASE_THREADS (default
# 2) traced with `perf record` (syscalls:sys_enter_pread64 and _pwrite64 of
# the server's threads). Writes: OUT/io.txt (time, r/w, file, page, bytes);
# every page's type, index id and level from the files after the run:
# OUT/pages.txt; the index ids' names: OUT/indexes.txt; the phase's status
# and INNODB_METRICS: OUT/metrics-before.txt, OUT/metrics-after.txt.
# Run from the repository, ./appio built, as root (perf, tracefs).
set -e
O=${1:?usage: page-io.sh OUT [POOL [TABLES ROWS [PHASE_THREADS]]]}
POOL=${2:-128M}; TABLES=${3:-8}; ROWS=${4:-250000}; T=${5:-2}
mkdir -p "$O"; O=$(cd "$O" && pwd); S=$O/srv
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true; rm -rf "$S"
conn=$(scripts/db-start.sh mariadb "$S" innodb_buffer_pool_size=512M innodb_log_file_size=96M 2>/dev/null | tail -1)
sz=(--tables "$TABLES" --table-size "$ROWS")
# shellcheck disable=SC2086
./appio db prepare oltp_read_write $conn "${sz[@]}" --threads 2 >/dev/null
scripts/db-stop.sh "$S" >/dev/null
conn=$(scripts/db-start.sh mariadb "$S" innodb_buffer_pool_size="$POOL" innodb_log_file_size=96M \
	innodb_flush_log_at_trx_commit=1 innodb_monitor_enable=all innodb_use_native_aio=0 2>/dev/null | tail -1)
q() { mariadb --no-defaults --socket="$S/mysqld.sock" -uroot -N -B -e "$1"; }
metrics() {
	q "SHOW GLOBAL STATUS WHERE Variable_name IN ('Com_commit', 'Innodb_pages_read',
	   'Innodb_pages_written', 'Innodb_buffer_pool_pages_lru_flushed', 'Innodb_dblwr_writes',
	   'Innodb_dblwr_pages_written')" >"$1"
	q "SELECT NAME, COUNT FROM information_schema.INNODB_METRICS WHERE COUNT <> 0" >>"$1"
}
pid=$(cat "$S/mysqld.pid")
# shellcheck disable=SC2086
./appio db run oltp_read_write $conn "${sz[@]}" --threads 8 --time 30 >/dev/null 2>&1
metrics "$O/metrics-before.txt"
perf record -q -o "$O/perf.data" -e syscalls:sys_enter_pread64 -e syscalls:sys_enter_pwrite64 \
	-p "$pid" 2>/dev/null &
perf_pid=$!
sleep 1
# shellcheck disable=SC2086
./appio db run oltp_read_write $conn "${sz[@]}" --threads "$T" --time 15 >/dev/null 2>&1
kill -INT $perf_pid; wait $perf_pid || true
metrics "$O/metrics-after.txt"
# descriptors to files, while the server still has them open
for fd in /proc/"$pid"/fd/*; do
	printf '%s\t%s\n' "${fd##*/}" "$(readlink "$fd")"
done >"$O/fds.txt"
q "SELECT INDEX_ID, NAME, TABLE_ID FROM information_schema.INNODB_SYS_INDEXES" >"$O/indexes.txt"
q "SELECT TABLE_ID, NAME FROM information_schema.INNODB_SYS_TABLES" >"$O/tables.txt"
perf script -i "$O/perf.data" -F time,event,trace 2>/dev/null | python3 -c '
import re, sys
fds = dict(l.rstrip("\n").split("\t") for l in open(sys.argv[1]))
rx = re.compile(r"([0-9.]+):\s+syscalls:sys_enter_p(read|write)64:\s+fd:\s*(\w+),.*count:\s*(\w+),\s*pos:\s*(\w+)")
for line in sys.stdin:
    m = rx.search(line)
    if not m:
        continue
    t, rw, fd, cnt, pos = m.groups()
    path = fds.get(str(int(fd, 0)))
    if path:
        print(t, rw[0], path, int(pos, 0) // 16384, int(cnt, 0))
' "$O/fds.txt" >"$O/io.txt"
scripts/db-stop.sh "$S" >/dev/null
# each page touched: its type, index id and level as the files hold them now
python3 - "$O" <<'PY'
import sys, struct, collections
o = sys.argv[1]
pages = collections.defaultdict(set)
for line in open(o + "/io.txt"):
    t, rw, path, page, cnt = line.split()
    for k in range(max(1, int(cnt) // 16384)):
        pages[path].add(int(page) + k)
with open(o + "/pages.txt", "w") as out:
    for path, ps in pages.items():
        try:
            f = open(path, "rb")
        except OSError:
            continue
        for p in sorted(ps):
            f.seek(p * 16384)
            b = f.read(16384)
            if len(b) < 80:
                continue
            ptype = struct.unpack(">H", b[24:26])[0]
            level = struct.unpack(">H", b[64:66])[0]
            idx = struct.unpack(">Q", b[66:74])[0]
            out.write("%s\t%d\t%d\t%d\t%d\n" % (path, p, ptype, idx, level))
PY
scripts/db-stop.sh "$S" --remove >/dev/null 2>&1 || true
rm -f "$O/perf.data"
