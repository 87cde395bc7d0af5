#!/usr/bin/env bash
# Every review profile runs on a small file with every engine, and the JSON
# says what was asked: mix, sizes, ordering of percentiles, one series entry a second.
. tests/e2e/lib.sh
cd "$T"
run() { "$APPIO" run "$@" >/dev/null 2>"$T/err" || { echo "    $(tail -1 "$T/err")"; return 1; }; }
# reads PCT: a jq filter, true when the point's reads are PCT % of its I/Os as the
# profile deals them: each thread draws from a shuffled deck of 100 cards with PCT
# reads, so every whole deck is exact, and only the deck each thread is in the middle
# of (at most PCT x (100 - PCT) / 100 cards off) and the I/Os still in flight at the
# end (threads x qd) can move the share, however few I/Os a loaded machine completed
reads() {
	echo ".points[0] | (.classes.read.ops - $1 / 100 * .classes.total.ops | fabs) <=
		.threads * ($1 * (100 - $1) / 100 + .qd) and .classes.total.ops > 0"
}

check "lay out a 64 MiB file" run 128k-seqwrite --target f.dat --size 64M --time 1 --json lay.json
jq_check "layout time and bytes are reported" lay.json \
	'.target | .created and .layout_bytes == 67108864 and .layout_s > 0 and .size == 67108864'
# the threads engine: a blocking thread per request in flight, --qd of them per
# worker. tasks PID: the threads of the appio that the subshell PID runs
tasks() { ls "/proc/$(pgrep -P "$1" | head -1)/task" 2>/dev/null | wc -l; }
tasks_at_least() { [ "$(tasks "$1")" -ge "$2" ]; }
for e in libaio io_uring sync threads null; do
	run 8k-70-30 --target f.dat --engine $e --time 2 --qd 4 --threads 2 --json $e.json &
	pid=$!
	if [ $e = threads ]; then
		if wait_for 10 tasks_at_least $pid 10; then ok "threads: 2 workers x 4 blocking threads"; else
			not_ok "threads: 2 workers x 4 blocking threads ($(tasks $pid) tasks)"; fi
	fi
	if wait $pid; then ok "8k-70-30 with $e"; else not_ok "8k-70-30 with $e"; fi
	jq_check "$e: ops > 0" $e.json '.points[0].classes.total.ops > 0'
	jq_check "$e: reads 70%, as dealt" $e.json "$(reads 70)"
	jq_check "$e: p50 <= p99 <= max" $e.json \
		'.points[0].classes.total.lat_ns | (.p50 <= .p99 and .p99 <= .p999 and .p999 <= .max and .min <= .p50)'
	jq_check "$e: engine recorded" $e.json ".workload.engine == \"$e\""
	jq_check "$e: a series entry per second" $e.json '.points[0] | (.series | length) == (.time_s | ceil)'
	jq_check "$e: series ops add up to the point's ops" $e.json \
		'.points[0] | ([.series[] | .classes.total.ops_per_s * .dur_s] | add) as $s | (($s - .classes.total.ops) | fabs) <= 1 + .classes.total.ops * 0.001'
done

for p in 4k-randread 4k-randwrite 8k-randread 8k-randwrite 128k-seqread 128k-seqwrite database email webserver; do
	check "$p runs" run $p --target f.dat --time 1 --qd 2 --json $p.json
	jq_check "$p: ops > 0" $p.json '.points[0].classes.total.ops > 0'
done
jq_check "database: 67% reads, as dealt" database.json "$(reads 67)"
jq_check "email: 50% reads, as dealt" email.json "$(reads 50)"
jq_check "4k-randwrite: only writes of 4 KiB" 4k-randwrite.json \
	'.points[0].classes | .read.ops == 0 and .write.sizes == {"4096": .write.ops}'
jq_check "128k-seqread: 128 KiB reads" 128k-seqread.json '.points[0].classes.read.sizes == {"131072": .points[0].classes.read.ops}'

# the file-server mix, request by request
check "fileserver runs" run fileserver --target f.dat --time 2 --qd 8 --json fs.json
jq_check "fileserver: 80% reads, as dealt" fs.json "$(reads 80)"
check "fileserver mix, null engine" run fileserver --target f.dat --engine null --time 1 --qd 8 --json fsnull.json
jq_check "fileserver: mean request within 1% of the mix's 11,346 B" fsnull.json \
	'.points[0].classes.total | (.bytes / .ops) | (. > 0.99 * 11345.92 and . < 1.01 * 11345.92)'
jq_check "fileserver: transfer sizes follow the split within 1 point" fsnull.json '
	.points[0].classes.total as $t | {"512":10,"1024":5,"2048":5,"4096":60,"8192":2,"16384":4,"32768":4,"65536":10}
	| to_entries | all(. as $e | (($t.sizes[$e.key] // 0) / $t.ops * 100 - $e.value) | fabs < 1)'
# the mix is exact per 100 requests of a worker: judge it over many requests (the null
# engine issues millions; a slow run's partial last deck would blur a 512 KiB card)
check "webserver mix, null engine" run webserver --target f.dat --engine null --time 1 --qd 8 --json wsnull.json
jq_check "webserver: mean request within 1% of its mix" wsnull.json \
	'.points[0].classes.read | (.bytes / .ops) | (. > 0.99 * 16035.84 and . < 1.01 * 16035.84)'

# a sweep: one point per threads x qd, in order
check "a threads x qd sweep" run 4k-randread --target f.dat --threads 1,2 --qd 1,4 --time 1 --json sweep.json
jq_check "sweep: four points in order" sweep.json '[.points[] | [.threads, .qd]] == [[1,1],[1,4],[2,1],[2,4]]'
jq_check "sweep: every point complete" sweep.json 'all(.points[]; .partial == false and .time_s == 1)'

# the write-% sweep of the reviews
check "a write-percentage sweep" run 8k-70-30 --target f.dat --write-sweep 0,50,100 --time 1 --json ws.json
jq_check "write sweep: a point per percentage" ws.json '[.points[].write_pct] == [0,50,100]'
jq_check "write sweep: 0% writes reads only" ws.json '.points[0].classes.write.ops == 0 and .points[0].classes.read.ops > 0'
jq_check "write sweep: 100% writes writes only" ws.json '.points[2].classes.read.ops == 0 and .points[2].classes.write.ops > 0'
jq_check "write sweep: 50% within 2 points" ws.json '.points[1].classes | (.write.ops / .total.ops * 100) | (. > 48 and . < 52)'

# custom spec with a skewed distribution and buffered I/O
check "custom zipf, buffered" run custom --target f.dat --bs 4k --read 50 --random 100 --dist zipf:1.2 --direct 0 --time 1 --json z.json
jq_check "custom: options recorded" z.json '.workload.options | .dist == "zipf:1.2" and .direct == "0" and .read == "50"'
check "custom sequential 1 MiB" run custom --target f.dat --bs 1M --read 100 --random 0 --time 1 --json seq.json
jq_check "custom: 1 MiB reads" seq.json '.points[0].classes.read.sizes == {"1048576": .points[0].classes.read.ops}'

# CSV series
check "--csv writes the series" run 4k-randread --target f.dat --time 2 --csv s
if [ -s s_total.csv ] && [ "$(wc -l < s_total.csv)" -eq 3 ] && head -1 s_total.csv | grep -q '^point,threads,qd,write_pct,second,ops_per_s'; then
	ok "csv: header and one row a second"; else not_ok "csv: header and one row a second"; fi

# the same seed gives the same choices: the first N requests the sync engine
# issues (operation, size, offset, as the kernel sees them) are the same in two
# runs with one seed and differ with another
N=500
issued() {  # SEED OUT: the requests a seeded fileserver run issues, one a line
	strace -f -qq -P f.dat -e trace=pread64,pwrite64 -o "$2.trace" \
		"$APPIO" run fileserver --target f.dat --engine sync --threads 1 --qd 1 --time 2 \
		--seed "$1" --json "$2.json" >/dev/null 2>&1
	sed -nE 's/^[0-9]+ +(pread64|pwrite64)\([0-9]+, .*, ([0-9]+), ([0-9]+)\) = [0-9]+$/\1 \2 \3/p' \
		"$2.trace" >"$2"
}
if command -v strace >/dev/null; then
	issued 7 s1 && issued 7 s2 && issued 8 s3
	n1=$(wc -l <s1) n2=$(wc -l <s2) n3=$(wc -l <s3)
	if [ "$n1" -ge $N ] && [ "$n2" -ge $N ] && [ "$n3" -ge $N ]; then
		ok "seeded runs issued at least $N requests each"
		cmp -s <(head -n $N s1) <(head -n $N s2) && ok "the same seed gives the same $N offsets and sizes" ||
			{ not_ok "the same seed gives the same $N offsets and sizes"; diff <(head -n $N s1) <(head -n $N s2) | head -5; }
		cmp -s <(head -n $N s1) <(head -n $N s3) && not_ok "another seed gives other offsets and sizes" ||
			ok "another seed gives other offsets and sizes"
	else
		not_ok "seeded runs issued at least $N requests each ($n1, $n2, $n3)"
	fi
	jq_check "the seed is recorded" s1.json '.seed == 7'
else
	skip "the same seed gives the same choices" "no strace"
fi
finish
