#!/usr/bin/env bash
# The PostgreSQL model reads one page a request, as the server does: with
# the model's file out of the page cache, a read_only run leaves no more of
# it cached than the 8 KiB pages it read (the kernel's read-ahead, left on,
# cached ~4x as much: 29-62 KiB a request at the block layer, against the
# server's 8-18 KiB; dbm.c, docs/oltp-tpcc.md). Read through the page cache,
# the model holds its pool's bytes, as the server's shared_buffers are held.
. tests/e2e/lib.sh
cd "$T"
if [ "$(stat -f -c %T .)" = tmpfs ] || ! command -v fincore >/dev/null; then
	skip "postgres model: no read-ahead on its buffered reads" "scratch folder on tmpfs or no fincore"
	finish
fi
truncate -s 192M f.dat
sync
dd if=f.dat iflag=nocache count=0 status=none
check "postgres read_only run, buffered, 4M pool" "$APPIO" run oltp --target f.dat --size 192M --log-size 64M \
	--tables 2 --table-size 20000 --engine-model postgres --direct 0 --engine sync --buffer-pool 4M \
	--mode read_only --threads 2 --time 2 --json r.json
reads=$(jq '[.points[].classes.page_read.ops] | add' r.json)
res=$(fincore -b -n -o RES f.dat | tr -d ' ')
# a page may be read twice (evicted from the pool, found in the page cache):
# cached bytes <= bytes read; 1.5x leaves room, read-ahead made it ~4x
if [ "${reads:-0}" -gt 100 ] && [ "$res" -le $((reads * 8192 * 3 / 2)) ]; then
	ok "postgres model: page cache holds no more than its page reads ($res bytes, $reads reads)"
else
	not_ok "postgres model: page cache holds no more than its page reads ($res bytes, $reads reads)"
fi
held=$(jq -r '.info["oltp.pool_memory_mib"]' r.json)
[ "$held" = 4 ] && ok "postgres model, buffered: the 4M pool held in memory" ||
	not_ok "postgres model, buffered: the 4M pool held in memory (pool_memory_mib '$held')"
check "postgres, --pool-memory off" "$APPIO" run oltp --target f.dat --size 192M --log-size 64M \
	--tables 2 --table-size 20000 --engine-model postgres --direct 0 --pool-memory off --buffer-pool 4M \
	--mode read_only --threads 2 --time 1 --json off.json
held=$(jq -r '.info["oltp.pool_memory_mib"]' off.json)
[ "$held" = 0 ] && ok "--pool-memory off holds nothing" || not_ok "--pool-memory off holds nothing ('$held')"
finish
