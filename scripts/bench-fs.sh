#!/usr/bin/env bash
# bench-fs.sh - what the file-system personalities and nosql cost and do.
#
#   scripts/bench-fs.sh [DIR]        (DIR: a folder on the drive under test,
#                                     default ./bench-fs.d; needs strace, jq)
#
# Per personality (fileserver-fs 50 threads, webserver-fs 100, mailserver-fs
# 16, their definitions' thread counts), --cached and default (page cache
# bypassed) alternately, ROUNDS times, medians:
#   loops/s, and CPU seconds (user + system of the appio process, measured
#   from outside) per 1,000 loops;
#   system calls per loop counted from outside with strace -c -f (sync
#   engine, 4 threads: strace slows every call), taken as the difference
#   between a SHORT and a LONG run so set-up and teardown cancel out, against
#   the minimum the personality needs by its definition: one call per file
#   operation the loop performs (create, open, close, delete, stat, fsync)
#   and per read/write call its data needs (whole files in --io-size calls,
#   reads until the short read at the end), i.e. the sum of the operation
#   classes' counts per loop. The difference is what appio adds.
# For nosql (2, 8, 32 threads): journal commits per fdatasync (group commit)
# and the share of the I/O time (sum of I/O latencies) spent in merge reads
# and writes, with the drive's busy time.
#
# Environment: APPIO (./appio), TIME (10 s a point), ROUNDS (3), SHORT/LONG
# (2/6 s strace runs), NOSQL_MEM (nosql --in-memory-limit, 4M: small enough
# that stands are saved and merged within a point). Results and raw files go
# to DIR/results.
set -u
APPIO=${APPIO:-$PWD/appio}
DIR=${1:-$PWD/bench-fs.d}
TIME=${TIME:-10}
ROUNDS=${ROUNDS:-3}
SHORT=${SHORT:-2}
LONG=${LONG:-6}
NOSQL_MEM=${NOSQL_MEM:-4M}
OUT=$DIR/results
mkdir -p "$OUT"
for tool in jq strace /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-fs.sh: needs $tool" >&2; exit 2; }
done

median() { sort -g | awk '{ v[NR] = $1 } END { if (NR) print (NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2) }'; }

# run NAME MODE THREADS: one timed run; prints "loops_per_s cpu_s_per_1000_loops"
run() {
	local p=$1 mode=$2 threads=$3 extra=""
	[ "$mode" = cached ] && extra=--cached
	local json=$OUT/$p-$mode-$threads-$RANDOM.json
	/usr/bin/time -f "%U %S" -o "$OUT/cpu.txt" "$APPIO" run "$p" --target "$DIR" --threads "$threads" \
		--time "$TIME" --engine sync $extra --json "$json" >/dev/null 2>"$OUT/err.txt" ||
		{ echo "bench-fs.sh: $p failed: $(tail -1 "$OUT/err.txt")" >&2; return 1; }
	local cpu
	cpu=$(awk '{ print $1 + $2 }' "$OUT/cpu.txt")
	jq -r --argjson cpu "$cpu" '.points[0].classes.loop | "\(.ops_per_s) \($cpu / .ops * 1000)"' "$json"
}

# calls NAME MODE SECONDS: "syscalls loops class_ops" of one strace'd run
calls() {
	local p=$1 mode=$2 secs=$3 extra=""
	[ "$mode" = cached ] && extra=--cached
	local json=$OUT/$p-$mode-strace-$secs.json
	strace -c -f -o "$OUT/strace-$p-$mode-$secs.txt" "$APPIO" run "$p" --target "$DIR" --threads 4 \
		--time "$secs" --engine sync $extra --json "$json" >/dev/null 2>&1
	local total
	total=$(awk '$NF == "total" { print $4 }' "$OUT/strace-$p-$mode-$secs.txt")
	jq -r --arg t "$total" '.points[0].classes | "\($t) \(.loop.ops) \([to_entries[] | select(.key != "loop") | .value.ops] | add)"' "$json"
}

echo "# appio bench-fs: $(uname -r), $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $TIME s points, $ROUNDS rounds"
echo
echo "| personality | threads | mode | loops/s | CPU s / 1000 loops | syscalls/loop | minimum/loop | appio adds |"
echo "|---|---|---|---|---|---|---|---|"
for spec in fileserver-fs:50 webserver-fs:100 mailserver-fs:16; do
	p=${spec%%:*} t=${spec##*:}
	declare -A lps=() cpu=()
	for ((r = 0; r < ROUNDS; r++)); do
		for mode in cached direct; do          # A B A B: drift hits both alike
			read -r l c < <(run "$p" "$mode" "$t") || continue
			lps[$mode]+="$l "
			cpu[$mode]+="$c "
		done
	done
	for mode in cached direct; do
		read -r s1 l1 o1 < <(calls "$p" "$mode" "$SHORT")
		read -r s2 l2 o2 < <(calls "$p" "$mode" "$LONG")
		per=$(echo "($s2 - $s1) / ($l2 - $l1)" | bc -l)
		min=$(echo "($o2 - $o1) / ($l2 - $l1)" | bc -l)
		printf "| %s | %s | %s | %.0f | %.3f | %.2f | %.2f | %+.1f%% |\n" "$p" "$t" \
			"$([ $mode = cached ] && echo --cached || echo bypass)" \
			"$(tr ' ' '\n' <<<"${lps[$mode]}" | median)" "$(tr ' ' '\n' <<<"${cpu[$mode]}" | median)" \
			"$per" "$min" "$(echo "($per / $min - 1) * 100" | bc -l)"
	done
	unset lps cpu
done

echo
echo "| nosql threads | commits | journal fdatasyncs | commits per fdatasync | merge share of I/O time | drive busy |"
echo "|---|---|---|---|---|---|"
json=$OUT/nosql.json
"$APPIO" run nosql --target "$DIR/nosql" --threads 2,8,32 --time "$TIME" --engine sync \
	--in-memory-limit "$NOSQL_MEM" --json "$json" >/dev/null 2>"$OUT/err.txt" ||
	{ echo "bench-fs.sh: nosql failed: $(tail -1 "$OUT/err.txt")" >&2; exit 1; }
jq -r '.points[] | . as $p | ([$p.classes | to_entries[] | select(.key | test("^(journal_write|journal_sync|save_write|merge_read|merge_write|stand_sync|query_read)$")) | .value.ops * .value.lat_ns.mean] | add) as $io
	| (($p.classes.merge_read.ops * $p.classes.merge_read.lat_ns.mean) + ($p.classes.merge_write.ops * $p.classes.merge_write.lat_ns.mean)) as $m
	| "| \($p.threads) | \($p.counters.commits) | \($p.counters.journal_flushes) | \($p.counters.commits / ([$p.counters.journal_flushes, 1] | max) * 100 | round / 100) | \(if $io > 0 then ($m / $io * 1000 | round / 10) else 0 end)% | \($p.device.busy_pct // "n/a")% |"' "$json"
