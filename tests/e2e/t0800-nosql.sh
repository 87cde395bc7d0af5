#!/usr/bin/env bash
# nosql: a small store runs, the JSON has every class and every interval has
# figures, group commit shares flushes, the journal is fdatasync'ed (seen from
# outside with strace) and forests spread over the listed folders; bad input
# gives one line and exit status 2.
. tests/e2e/lib.sh
cd "$T"
run() { "$APPIO" run nosql "$@" >/dev/null 2>"$T/err" || { echo "    $(tail -1 "$T/err")"; return 1; }; }
small="--data 16M --in-memory-limit 256k --engine sync"

check "a 2,8-thread sweep with 4 intervals" run --target n --threads 2,8 --time 4 --intervals 4 $small --json n.json
jq_check "every class is in the result" n.json '.points[0].classes | keys | sort ==
	(["journal_write","journal_sync","save_write","merge_read","merge_write","stand_sync","query_read","update","query","total"] | sort)'
jq_check "updates, queries, journal writes and syncs, saves, query reads happen" n.json \
	'all(.points[]; .classes | (.update.ops > 0 and .query.ops > 0 and .journal_write.ops > 0 and .journal_sync.ops > 0 and .save_write.ops > 0 and .query_read.ops > 0))'
jq_check "merges read and write" n.json '[.points[].classes.merge_read.ops] | add > 0' 
jq_check "merges counted" n.json '[.points[].counters.merges] | add > 0'
jq_check "--intervals is recorded for the report" n.json '.workload.options.intervals == "4"'
# intervals are time_s / N seconds of the per-second series
jq_check "every interval of every point has update, query and journal figures" n.json '
	(.workload.options.intervals | tonumber) as $n | all(.points[];
	  . as $p | ($p.series | length) as $len | [range(0; $n)] | all(. as $i |
	    [$p.series[($i * $len / $n | floor):(($i + 1) * $len / $n | floor)][] | .classes] as $iv |
	    ($iv | length) > 0 and all(["update","query","journal_write"][]; . as $c |
	      ([$iv[][$c].ops_per_s] | add) > 0 and ([$iv[][$c].max_ns] | max) >= ([$iv[][$c].p99_ns] | max) and
	      ([$iv[][$c].mean_ns] | max) > 0)))'
jq_check "mean <= p99 <= max for every class with ops" n.json \
	'all(.points[].classes[]; .ops == 0 or (.lat_ns.mean <= .lat_ns.max and .lat_ns.p99 <= .lat_ns.max))'
jq_check "a commit per update" n.json 'all(.points[]; .classes.update.ops > 0 and .counters.commits >= .classes.update.ops)'
if [ -z "$(find n -type f)" ]; then ok "the store's files are removed after the run"; else not_ok "store files left: $(find n -type f | head -3)"; fi

check "one forest, 8 threads" run --target g --forests 1 --threads 8 --time 3 $small --json g.json
jq_check "group commit: fewer journal flushes than commits at 8 threads" g.json \
	'.points[0].counters | .journal_flushes > 0 and .commits > .journal_flushes'

if command -v strace >/dev/null; then
	strace -f -y -qq -e trace=pwrite64,fdatasync,fsync -o trace.txt \
		"$APPIO" run nosql --target a,b --forests 2 --threads 2 --time 2 $small --json s.json >/dev/null 2>&1
	jq_check "the traced run finished" s.json '.points[0].classes.update.ops > 0'
	syncs=$(grep -c 'fdatasync([0-9]*</.*/journal-[0-9]*>' trace.txt)
	flushes=$(jq '.points[0].counters.journal_flushes' s.json)
	if [ "$syncs" -gt 0 ] && [ "$syncs" -ge "$flushes" ]; then ok "journal fdatasync'ed: $syncs calls for $flushes flushes"
	else not_ok "journal fdatasync: $syncs calls for $flushes flushes"; fi
	# every journal write is followed, on its thread, by an fdatasync of that journal
	bad=$(awk '/pwrite64\(.*journal-/ { if (p[$1]) b++; p[$1]=1 } /fdatasync\(.*journal-/ { p[$1]=0 }
		END { for (k in p) if (p[k]) b++; print b+0 }' trace.txt)
	if [ "$bad" -eq 0 ]; then ok "no journal write is left without its fdatasync"; else not_ok "$bad journal writes without fdatasync"; fi
	if grep -q ' fsync([0-9]*</.*/stand-[0-9]*>' trace.txt; then ok "saved stands are fsynced"; else not_ok "saved stands are fsynced"; fi
	if grep -q '/a/forest-00/journal-' trace.txt && grep -q '/b/forest-01/journal-' trace.txt; then
		ok "forests spread over the listed folders"; else not_ok "forests spread over the listed folders"; fi
else
	skip "journal fdatasync seen with strace" "no strace"
fi

expect_exit 2 "a mix not summing to 100 is bad input" -- "$APPIO" run nosql --target n --mix 50:30:30 --time 1
one_line_error "the mix error is one line"
grep -q -- "--mix" "$T/stderr" && ok "it names --mix" || not_ok "it names --mix"
expect_exit 2 "a malformed mix is bad input" -- "$APPIO" run nosql --target n --mix 20:x:80 --time 1
expect_exit 2 "a 2 MiB document is bad input" -- "$APPIO" run nosql --target n --doc-size 2M --time 1
mkdir ro
if chattr +i ro 2>/dev/null; then
	at_exit "chattr -i '$T/ro'"
	expect_exit 2 "a folder that cannot be written is bad input" -- "$APPIO" run nosql --target ro --time 1 $small
	one_line_error "the folder error is one line"
	grep -q -- "--target" "$T/stderr" && ok "it names --target" || not_ok "it names --target"
else
	skip "a folder that cannot be written" "chattr +i not supported here"
fi
finish
