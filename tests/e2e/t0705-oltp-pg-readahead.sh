#!/usr/bin/env bash
# The PostgreSQL model reads through the page cache as a backend does: with
# the kernel's read-ahead on, each worker through a descriptor of its own per
# relation file (the kernel keeps read-ahead state per open file; dbm.c,
# docs/oltp-tpcc.md, Drives). Read through the page cache, the model holds its
# pool's bytes, as the server's shared_buffers are held.
. tests/e2e/lib.sh
cd "$T"
if [ "$(stat -f -c %T .)" = tmpfs ] || ! command -v fincore >/dev/null; then
	skip "postgres model: read-ahead per relation on its buffered reads" "scratch folder on tmpfs or no fincore"
	finish
fi
truncate -s 192M f.dat
sync
dd if=f.dat iflag=nocache count=0 status=none
# 2 tables: 3 relation files each (heap, primary key, k index), one more
# tablespace in front; 2 workers and the background workers each open them all
"$APPIO" run oltp --target f.dat --size 192M --log-size 64M \
	--tables 2 --table-size 20000 --engine-model postgres --direct 0 --engine sync --buffer-pool 4M \
	--mode read_only --threads 2 --time 3 --json r.json >/dev/null 2>err.txt &
pid=$!
most=0
while kill -0 "$pid" 2>/dev/null; do
	n=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
	[ "$n" -gt "$most" ] && most=$n
	sleep 0.1
done
wait "$pid" && ok "postgres read_only run, buffered, 4M pool" ||
	not_ok "postgres read_only run, buffered, 4M pool: $(tail -n 1 err.txt)"
[ "$most" -ge 14 ] && ok "postgres model: a read descriptor per worker and relation file ($most open at most)" ||
	not_ok "postgres model: a read descriptor per worker and relation file ($most open at most, 14 or more expected)"
reads=$(jq '[.points[].classes.page_read.ops] | add' r.json)
res=$(fincore -b -n -o RES f.dat | tr -d ' ')
# read-ahead on: the kernel caches more of the file than the 8 KiB pages the
# model asked for (with it off, as before 4 December, no more than those)
if [ "${reads:-0}" -gt 100 ] && [ "$res" -gt $((reads * 8192)) ]; then
	ok "postgres model: read-ahead caches more than its page reads ($res bytes, $reads reads)"
else
	not_ok "postgres model: read-ahead caches more than its page reads ($res bytes, $reads reads)"
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
