#!/usr/bin/env bash
# The oltp emulator on small files: bad input is refused in one line (a
# target file made for a refused run is removed), and
# the counters of real runs are consistent with each other: pages written
# <= pages dirtied, one fsync per log flush, group commit (<= 1 fsync per
# commit), doublewrite carries every page-cleaner write, a small log stalls
# writers until a checkpoint, a small pool reads from the drive, the k index
# splits, purge runs behind the commits, --client-rtt waits per statement.
. tests/e2e/lib.sh
cd "$T"
run() { "$APPIO" run oltp --target f.dat --size 192M --tables 2 --table-size 20000 "$@" >/dev/null 2>"$T/err" ||
	{ echo "    $(tail -1 "$T/err")"; return 1; }; }

expect_exit 2 "--tables 0 is refused" -- "$APPIO" run oltp --target f.dat --size 64M --tables 0
one_line_error "--tables 0: one line"
expect_exit 2 "a target too small for the tables names --size" -- \
	"$APPIO" run oltp --target small.dat --size 32M --tables 4 --table-size 100000
grep -q -- '--size' "$T/stderr" && ok "the message names --size" || not_ok "the message names --size"
one_line_error "too small: one line"
[ ! -e small.dat ] && ok "... and the file it made for the run is gone" ||
	not_ok "... and the file it made for the run is gone ($(stat -c %s small.dat) bytes left)"
truncate -s 32M own.dat
"$APPIO" run oltp --target own.dat --tables 4 --table-size 100000 >/dev/null 2>&1
[ -e own.dat ] && ok "... a file that was there before stays" || not_ok "... a file that was there before stays"
# PostgreSQL's WAL alone is 1 GiB (max_wal_size): the default new file is laid out on
check "a new file, no --size: laid out on to what the tables and the WAL need" \
	"$APPIO" run oltp --target new.dat --engine-model postgres --tables 1 --table-size 1000 \
	--time 1 --json new.json
jq_check "... more than the default 1 GiB, all of it laid out, the file that size" new.json \
	".target.size > 1073741824 and .target.layout_bytes == .target.size and
	 .target.size == $(stat -c %s new.dat 2>/dev/null || echo 0)"
rm -f new.dat
expect_exit 2 "an unknown engine model is refused" -- "$APPIO" run oltp --target f.dat --engine-model oracle
expect_exit 2 "--flush-log-at-commit 3 is refused" -- "$APPIO" run oltp --target f.dat --flush-log-at-commit 3
expect_exit 2 "--range-size beyond the table is refused" -- \
	"$APPIO" run oltp --target f.dat --size 64M --table-size 50 --range-size 100
one_line_error "--range-size: one line"
expect_exit 2 "more rows than the model tracks are refused" -- \
	"$APPIO" run oltp --target f.dat --size 64M --tables 2 --table-size 1000000000
grep -q -- '--tables x --table-size' "$T/stderr" && ok "the message names --tables x --table-size" ||
	not_ok "the message names --tables x --table-size"

# a transaction has no bytes of its own: the text table's MB/s is the drive's
"$APPIO" run oltp --target f.dat --size 192M --tables 2 --table-size 20000 --time 2 --json mb.json >mb.txt 2>/dev/null
want=$(jq -r '.points[0] | if .device then (.device.read_bytes + .device.write_bytes) / .time_s / 1e6 else "none" end' mb.json 2>/dev/null)
got=$(awk '/^threads/ { getline; print $3; exit }' mb.txt)
if [ "$want" = none ]; then
	skip "the TPS row's MB/s is the drive's" "no block device under the scratch folder"
elif awk -v g="$got" -v w="$want" 'BEGIN { exit !(w > 0 && g - w < 0.051 && w - g < 0.051) }' &&
	grep -q "^MB/s: what the drive read and wrote during the point" mb.txt; then
	ok "the TPS row's MB/s is the drive's ($got), and the table says so"
else
	not_ok "the TPS row's MB/s is the drive's: table '$got', device counters '$want'"
fi

# a sweep with the defaults (innodb, flush at every commit)
check "read_write at 2 and 4 threads" run --threads 2,4 --time 3 --json rw.json
jq_check "two points, TPS headline" rw.json '(.points | length) == 2 and .points[0].headline == "txn"'
jq_check "transactions ran" rw.json 'all(.points[]; .classes.txn.ops > 50)'
jq_check "20 statements per transaction" rw.json \
	'all(.points[]; .counters.txns > 0 and .counters.statements >= 20 * .counters.txns and .counters.statements <= 20 * .counters.txns + 20 * .threads)'
jq_check "pages written <= pages dirtied (over the run)" rw.json \
	'([.points[].counters.pages_dirtied] | add) as $d | $d > 0 and ([.points[].counters.pages_written] | add) <= $d'
jq_check "one fsync per log flush" rw.json 'all(.points[]; .counters.log_flushes > 0 and .counters.log_fsyncs == .counters.log_flushes)'
jq_check "group commit: at most one log fsync per commit" rw.json \
	'all(.points[]; .counters.log_fsyncs <= .counters.txns + .counters.checkpoints + 2)'
jq_check "misses <= requests" rw.json 'all(.points[]; .counters.bp_read_requests > 0 and .counters.bp_reads <= .counters.bp_read_requests)'
jq_check "physical log bytes cover the redo" rw.json \
	'([.points[].counters.log_bytes] | add) as $r | $r > 0 and ([.points[].counters.log_write_bytes] | add) >= $r'
jq_check "log_write latencies recorded" rw.json 'all(.points[]; .classes.log_write.ops > 0)'
# the k index is bulk-loaded full: the first inserts split it, purge's deletes merge halves
jq_check "k index leaves split (full after CREATE INDEX)" rw.json '.points[0].counters.page_splits > 0'
jq_check "a split creates its new page" rw.json 'all(.points[]; .counters.pages_created >= .counters.page_splits)'
# 3 DB_TRX_ID resets (the INSERT rewrites the DELETE's record), 2 k deletes, 1 undo page.
# Over the run: purge runs behind the commits (0.25 s and more on a loaded machine), so a
# point's backlog is purged in the next one and a per-point ratio depends on the scheduler
jq_check "purge: DB_TRX_ID resets, k deletes and an undo read per transaction" rw.json \
	'([.points[].counters.purge_records] | add) as $p | ([.points[].counters.txns] | add) as $t |
	 $t > 0 and $p >= 4 * $t and $p <= 6.5 * $t'
check "read_only" run --mode read_only --threads 2 --time 2 --json ro.json
jq_check "read_only: no redo, no purge, no split" ro.json \
	'.points[0].counters | .log_bytes == 0 and .purge_records == 0 and .page_splits == 0 and .txns > 0'
expect_exit 2 "--cpu-per-stmt -2 is refused (-1 is the default)" -- "$APPIO" run oltp --target f.dat --cpu-per-stmt -2
one_line_error "--cpu-per-stmt: one line"
expect_exit 2 "--client-rtt -1 is refused" -- "$APPIO" run oltp --target f.dat --client-rtt -1
one_line_error "--client-rtt: one line"
expect_exit 2 "--cpu-per-read -2 is refused" -- "$APPIO" run oltp --target f.dat --cpu-per-read -2
one_line_error "--cpu-per-read: one line"
expect_exit 2 "--cpu-scale 0 is refused" -- "$APPIO" run oltp --target f.dat --cpu-scale 0
one_line_error "--cpu-scale: one line"
expect_exit 2 "--cpu-scale with --calibrate-from is refused" -- \
	"$APPIO" run oltp --target f.dat --cpu-scale 2 --calibrate-from rw.json
grep -q -- '--calibrate-from' "$T/stderr" && ok "the message names --calibrate-from" ||
	not_ok "the message names --calibrate-from"
# 250 us a statement x 4 = 1 ms of CPU, no client wait: one thread runs at most 1,000 point selects a
# second (burnt on the CPU clock, exactly: work at the rate measured at the start, the default, comes
# within a few percent of it; test_dbm_cpu tests that)
check "--cpu-scale 4 multiplies --cpu-per-stmt" run --mode point_select --cpu-per-stmt 250 --cpu-scale 4 \
	--client-rtt 0 --threads 1 --time 2 --cpu-burn time --json scale.json
jq_check "... said in the result (1000 us a statement, scale 4)" scale.json \
	'.info["oltp.cpu_per_stmt_us"] == "1000" and .info["oltp.cpu_scale"] == "4"'
jq_check "... and spent: <= 1,000 TPS, mean >= 1 ms" scale.json \
	'.points[0].classes.txn | .ops_per_s <= 1000 and .lat_ns.mean >= 1000000'
# (a statement's own work over its cost, the first touches of the model's memory, is counted in cpu_over_us)
jq_check "... and counted: cpu_model_us = 1,000 a statement, 108 a page read (not scaled)" scale.json \
	'.points[0].counters | .statements > 0 and (1000 * .statements + 108 * .bp_reads) as $c |
	 .cpu_model_us - .cpu_over_us == $c'
jq_check "... a statement cost given is the whole: no row, write or purge cost on top" scale.json \
	'.info["oltp.cpu_per_row_us"] == "0" and .info["oltp.cpu_per_write_us"] == "0" and
	 .info["oltp.cpu_per_purge_us"] == null'
# --cpu-per-backend 10: two threads beyond the CPUs, each statement 1.2 x its cost
check "--cpu-per-backend 10 grows a statement's cost beyond the CPUs" run --engine-model postgres \
	--mode point_select --cpu-per-stmt 500 --cpu-per-backend 10 --client-rtt 0 --log-size 64M \
	--threads $(($(nproc) + 2)) --time 1 --json backend.json
# (more where a worker's own work, its spin next in line for a CPU among them, was more:
# that part, cpu_over_us, depends on the scheduler and is taken out)
jq_check "... said (10 %) and counted: 600 us a statement, not 500 nor 700" backend.json \
	'.info["oltp.cpu_per_backend_pct"] == "10" and
	 (.points[0].counters | .statements > 0 and (.cpu_model_us - .cpu_over_us) as $c |
	  $c >= 600 * .statements and $c <= 601 * .statements)'
# two threads beyond the CPUs, never off a CPU between statements: each statement queues
# behind the ones burning (some 600 us at 2 CPUs), and the wait is counted
jq_check "... the statements' wait for a CPU counted: cpu_wait_us >= 100 a statement" backend.json \
	'.points[0].counters | .statements > 0 and .cpu_wait_us >= 100 * .statements'
jq_check "... none at one thread" scale.json '.points[0].counters.cpu_wait_us == 0'
jq_check "... InnoDB's default 0 (its connections are threads of one process)" ro.json \
	'.info["oltp.cpu_per_backend_pct"] == "0"'
jq_check "the statements burnt as work by default, at the rate measured at the start" ro.json \
	'.info["oltp.cpu_burn"] | test("^work: [0-9.]+ steps a us of CPU")'
jq_check "... or on the clock" scale.json '.info["oltp.cpu_burn"] == "time: on the CPU clock"'
expect_exit 2 "--cpu-per-backend 200 is refused" -- "$APPIO" run oltp --target f.dat --cpu-per-backend 200
one_line_error "--cpu-per-backend: one line"
expect_exit 2 "--cpu-per-row -2 is refused" -- "$APPIO" run oltp --target f.dat --cpu-per-row -2
one_line_error "--cpu-per-row: one line"
expect_exit 2 "--cpu-per-write 2e6 is refused" -- "$APPIO" run oltp --target f.dat --cpu-per-write 2e6
one_line_error "--cpu-per-write: one line"
# 57.3 a row changed, of which purge's threads burn 6 a record later, 1.49 records a write
jq_check "the defaults said in the result: 48.5 us a statement, 1.07 a row, 48.36 a row changed, 6 a purged record (innodb)" ro.json \
	'.info["oltp.cpu_per_stmt_us"] == "48.5" and .info["oltp.cpu_per_row_us"] == "1.07" and
	 .info["oltp.cpu_per_write_us"] == "48.36" and .info["oltp.cpu_per_purge_us"] == "6"'
# (each purge thread's last batch of 64 records may end after the run: its CPU is no point's)
jq_check "... and burnt by purge's threads: cpu_purge_us is 6 us a purged record" rw.json \
	'([.points[].counters.purge_records] | add) as $p | ([.points[].counters.cpu_purge_us] | add) as $c |
	 $p > 0 and $c <= 6 * $p and $c >= 6 * ($p - 4 * 64)'
# read_only: 4 ranges of 100 rows a transaction, 99 beyond the first each; no row changed.
# One transaction may be cut short at the point's end: its burns are counted, it is not.
check "--cpu-per-row 10: a range's rows cost CPU" run --mode read_only --cpu-per-stmt 0 --cpu-per-row 10 \
	--cpu-per-write 1000 --client-rtt 0 --threads 1 --time 1 --json row.json
jq_check "... 3,960 us a transaction (4 x 99 rows), nothing for writes" row.json \
	'.points[0].counters | .txns > 0 and (.cpu_model_us - .cpu_over_us - 108 * .bp_reads) as $c |
	 $c >= 3960 * .txns and $c <= 3960 * (.txns + 1)'
# write_only: two UPDATEs, a DELETE and an INSERT, one row each
check "--cpu-per-write 1000: each row changed costs CPU" run --mode write_only --cpu-per-stmt 0 --cpu-per-row 1000 \
	--cpu-per-write 1000 --client-rtt 0 --threads 1 --time 1 --json wr.json
# (of each write's 1,000, purge's threads burn 8.94 later: 6 a record, 1.49 records a write)
jq_check "... 3,964 us a transaction in its statements (4 rows changed), nothing for rows examined" wr.json \
	'.info["oltp.cpu_per_write_us"] == "991.06" and .info["oltp.cpu_per_purge_us"] == "6" and
	 (.points[0].counters | .txns > 0 and (.cpu_model_us - .cpu_over_us - .cpu_purge_us - 108 * .bp_reads) as $c |
	  $c >= 3964 * .txns and $c <= 3964 * (.txns + 1))'
# a thread that blocks (each commit's fsync) waits for its client after every
# statement at no more threads than CPUs: 20 statements a read_write transaction
check "--client-rtt 2000: statements wait for the client" run --mode read_write --cpu-per-stmt 0 \
	--client-rtt 2000 --threads 1 --time 2 --json rtt.json
jq_check "read_write at 2 ms a statement once its commits block: 1 thread <= 25 TPS, mean >= 30 ms" rtt.json \
	'.points[0].classes.txn | .ops_per_s <= 25 and .lat_ns.mean >= 30000000'

# a 4 MiB log and write_only: writers stall until the page cleaner checkpoints
check "a small log" run --mode write_only --log-size 4M --cpu-per-stmt 0 --threads 4 --time 4 --json small.json
jq_check "log-space stalls happen" small.json '.points[0].counters.log_stalls > 0 and .points[0].counters.log_stall_us > 0'
jq_check "checkpoints free the log" small.json '.points[0].counters.checkpoints > 0'
jq_check "every page write went through the doublewrite area but those of pages created since (redo rebuilds them)" \
	small.json '.points[0].counters | .pages_written > 0 and .dblwr_writes > 0 and .dblwr_pages > 0 and
	.dblwr_pages < .pages_written and .dblwr_pages >= .pages_written - .pages_created'
jq_check "doublewrite and page-write classes recorded" small.json \
	'.points[0].classes | .doublewrite.ops > 0 and .page_write.ops > 0'
check "--doublewrite off" run --mode write_only --log-size 4M --doublewrite off --cpu-per-stmt 0 --threads 4 --time 4 --json nodw.json
jq_check "no doublewrite" nodw.json '.points[0].counters | .dblwr_pages == 0 and .pages_written > 0'

# a 2 MiB pool: the data set is larger, reads hit the drive, the LRU is flushed
check "data larger than the pool" run --buffer-pool 2M --threads 2 --time 3 --json bigger.json
jq_check "page reads on misses" bigger.json \
	'.points[0] | .counters.bp_reads > 2 * .counters.txns and .classes.page_read.ops > 0'
jq_check "reads are whole 16 KiB pages" bigger.json '.points[0].classes.page_read.sizes == {"16384": .points[0].classes.page_read.ops}'
jq_check "dirty pages written to make room" bigger.json '.points[0].counters.pages_written > 0'
check "--cpu-per-read 2000: a page read costs the reader 2 ms of CPU" run --buffer-pool 2M --mode point_select \
	--cpu-per-stmt 0 --client-rtt 0 --cpu-per-read 2000 --threads 1 --time 2 --cpu-burn time --json rd.json
jq_check "... each transaction takes 2 ms a read or more" rd.json \
	'.points[0] | .counters.bp_reads > 0 and .classes.txn.lat_ns.mean * .counters.txns >= 2000000 * .counters.bp_reads'
jq_check "... counted in cpu_model_us" rd.json '.points[0].counters | .cpu_model_us == 2000 * .bp_reads'
jq_check "... the default (108 us innodb) said in the result" bigger.json '.info["oltp.cpu_per_read_us"] == "108"'

# flush at commit 0: the log is flushed about once a second, not per commit
check "--flush-log-at-commit 0" run --flush-log-at-commit 0 --threads 2 --time 3 --json f0.json
jq_check "few log fsyncs" f0.json '.points[0].counters | .log_fsyncs < .txns / 10'

# the postgres flavour: 8 KiB pages, full-page images, no doublewrite
check "--engine-model postgres" run --engine-model postgres --log-size 64M --buffer-pool 4M --threads 2 --time 3 --json pg.json
jq_check "postgres: --cpu-per-backend's default 3.4 %, the costs 38.8 / 1.62 / 66.3 us, none a read" pg.json \
	'.info["oltp.cpu_per_backend_pct"] == "3.4" and .info["oltp.cpu_per_stmt_us"] == "38.8" and
	 .info["oltp.cpu_per_read_us"] == "0" and
	 .info["oltp.cpu_per_row_us"] == "1.62" and .info["oltp.cpu_per_write_us"] == "66.3"'
jq_check "postgres: full-page images in the WAL" pg.json '.points[0].counters | .fpi_bytes > 0 and .dblwr_pages == 0'
jq_check "postgres: a backend changes a page being written (the write is a copy into the page cache)" pg.json \
	'.info["oltp.cpu_per_purge_us"] == null and
	 (.points[0].counters | .pages_written > 0 and .write_fix_waits == 0 and .cpu_purge_us == 0)'
jq_check "postgres: 8 KiB page reads" pg.json '.points[0].classes.page_read.sizes | keys == ["8192"]'
finish
