#!/usr/bin/env bash
# cache: a small flash cache runs; its counters add up (every get a RAM hit,
# a flash hit or a miss; the drive takes at least the bytes inserted), its
# write amplification is in the output and the result; every region write
# is a whole region, and with FIFO eviction and one thread they go to
# consecutive regions (seen with strace); the RAM hit ratio of a warm cache matches Che's
# approximation of an LRU under zipf; the report draws it; bad input gives
# one line naming the option and exit status 2.
. tests/e2e/lib.sh
cd "$T"
run() { "$APPIO" run cache "$@" >"$T/out" 2>"$T/err" || { echo "    $(tail -1 "$T/err")"; return 1; }; }
small="--size 64M --region-size 1M --ram-size 2M --keys 50000 --engine sync"

check "a 1,2-thread sweep on a small file" run --target c.dat $small --threads 1,2 --time 3 --json c.json
jq_check "get, set and the drive classes are in the result" c.json '.points[0].classes | keys | sort ==
	(["get","set","item_read","bucket_read","bucket_write","region_write","total"] | sort)'
jq_check "gets, flash hits, item reads, bucket reads and writes, region writes happen" c.json \
	'all(.points[]; .classes.get.ops > 0 and .counters.flash_hits > 0 and .classes.item_read.ops > 0
	  and .classes.bucket_read.ops > 0 and .classes.bucket_write.ops > 0) and
	 ([.points[].classes.region_write.ops] | add > 0)'
jq_check "every get is a RAM hit, a flash hit or a miss" c.json \
	'all(.points[].counters; .gets > 0 and .ram_hits + .flash_hits + .misses == .gets)'
jq_check "the drive takes at least the bytes inserted (regions and 4 KiB buckets)" c.json \
	'all(.points[].counters; .bytes_inserted > 0 and .drive_bytes_written >= .bytes_inserted - 1048576)'
jq_check "a bucket written per bucket read of an insert, 4 KiB each" c.json \
	'all(.points[].classes; .bucket_write.bytes == 4096 * .bucket_write.ops and .bucket_read.bytes == 4096 * .bucket_read.ops)'
jq_check "every region write is a whole region (1 MiB)" c.json \
	'all(.points[].classes.region_write; .ops == 0 or .bytes == 1048576 * .ops)'
jq_check "regions were evicted (the flash filled)" c.json '[.points[].counters.regions_evicted] | add > 0'
jq_check "hit ratios and write amplification in the result's info" c.json \
	'.info["cache.hit_pct"] and .info["cache.2.write_amplification"] and
	 (.info["cache.write_amplification"] | tonumber) >= 1 and
	 ((.info["cache.hit_pct"] | tonumber) - (.info["cache.ram_hit_pct"] | tonumber) - (.info["cache.flash_hit_pct"] | tonumber) | fabs) < 0.02'
if grep -q "write amplification [0-9.]*;" out && grep -q "hits [0-9.]*% (RAM" out; then
	ok "the summary after the table gives hit ratios and write amplification"
else not_ok "summary line: $(grep -c cache out) lines"; fi
wa=$(jq -r '.points[0].counters | .drive_bytes_written / .bytes_inserted * 1000 | round' c.json)
info=$(jq -r '.info["cache.write_amplification"] | tonumber * 1000 | round' c.json)
if [ "$wa" = "$info" ]; then ok "write amplification = drive bytes written / bytes inserted ($info/1000)"
else not_ok "write amplification $info/1000, counters say $wa/1000"; fi

expect_exit 0 "the report draws it" -- "$APPIO" report c.json -o report.html
if grep -q "cache" report.html; then ok "the report names the cache run"; else not_ok "the report names the cache run"; fi

# reject-first: the first offer of every key is refused
check "reject-first admission" run --target c.dat $small --threads 2 --time 2 --admission reject-first --json r.json
jq_check "reject-first refuses offers, and admits some" r.json \
	'.points[0].counters | .admission_rejects > 0 and .flash_inserts > 0'
check "probability:0.5 admission" run --target c.dat $small --threads 2 --time 2 --admission probability:0.5 --json p.json
jq_check "about half the offers are refused" p.json \
	'.points[0].counters | .admission_rejects / (.admission_rejects + .flash_inserts) | . > 0.45 and . < 0.55'

if command -v strace >/dev/null; then
	strace -f -qq -s 0 -e trace=pwrite64 -o trace.txt "$APPIO" run cache --target s.dat $small --threads 1 \
		--time 3 --bighash-pct 0 --region-eviction fifo --json s.json >/dev/null 2>&1
	jq_check "the traced run finished" s.json '.points[0].counters.regions_written > 2'
	# BlockCache is the whole 64 MiB: 64 regions; each 1 MiB write goes to the region after the last
	bad=$(sed -n 's/.*pwrite64([0-9]*, .*, \([0-9]*\), \([0-9]*\)) *= .*/\1 \2/p' trace.txt |
		awk '$1 == 1048576 { r = $2 / 1048576; if (n++ && r != (prev + 1) % 64) b++
			if ($2 % 1048576) b++; prev = r } END { print (n > 2 ? b + 0 : "none") }')
	if [ "$bad" = 0 ]; then ok "region writes are sequential, pass after pass"
	else not_ok "region writes out of sequence: $bad"; fi
else
	skip "region writes seen with strace" "no strace"
fi

# RAM only (the flash admits almost nothing): 4 KiB values, 4 MiB = 1024 items in 64
# shards of 16; the second point starts warm; zipf:0.9 over 20000 keys.
check "a RAM-bound run" run --target c.dat --size 64M --region-size 1M --ram-size 4M --keys 20000 \
	--value-size 4k --bighash-pct 0 --get-pct 100 --admission probability:0.000001 --dist zipf:0.9 \
	--threads 1,1 --time 3 --engine sync --json h.json
got=$(jq -r '.points[1].counters | .ram_hits / .gets * 100' h.json)
# Che: one LRU of 1024 items over every key (its 64 shards of 16 give the same within
# a tenth of a point: tests/unit/test_cache.c)
want=$(awk -v n=20000 -v theta=0.9 -v c=1024 '
	function occupancy(t,   i, o) { for (i = 1; i <= n; i++) o += 1 - exp(-p[i] * t); return o }
	BEGIN {
		for (i = 1; i <= n; i++) { p[i] = i ^ -theta; s += p[i] }
		for (i = 1; i <= n; i++) p[i] /= s
		lo = 0; hi = 1
		while (occupancy(hi) < c) hi *= 2
		for (it = 0; it < 60; it++) { mid = (lo + hi) / 2; if (occupancy(mid) < c) lo = mid; else hi = mid }
		for (i = 1; i <= n; i++) h += p[i] * (1 - exp(-p[i] * lo))
		printf "%.2f\n", h * 100 }')
if awk -v g="$got" -v w="$want" 'BEGIN { exit !(g - w < 2 && w - g < 2) }'; then
	ok "RAM hit ratio $got% within 2 points of Che's $want%"
else not_ok "RAM hit ratio $got%, Che's approximation $want%"; fi

expect_exit 2 "a bad admission policy is bad input" -- "$APPIO" run cache --target c.dat $small --admission maybe --time 1
one_line_error "the admission error is one line"
grep -q -- "--admission" "$T/stderr" && ok "it names --admission" || not_ok "it names --admission"
expect_exit 2 "a value larger than a region is bad input" -- "$APPIO" run cache --target c.dat $small --value-size 2M --time 1
one_line_error "the value size error is one line"
grep -q -- "--value-size" "$T/stderr" && ok "it names --value-size" || not_ok "it names --value-size"
expect_exit 2 "a flash too small for two regions is bad input" -- "$APPIO" run cache --target c.dat --size 64M --region-size 64M --time 1
grep -q -- "--size" "$T/stderr" && ok "it names --size" || not_ok "it names --size"
expect_exit 2 "an unknown region eviction is bad input" -- "$APPIO" run cache --target c.dat $small --region-eviction lifo --time 1
one_line_error "the eviction error is one line"
grep -q -- "--region-eviction" "$T/stderr" && ok "it names --region-eviction" || not_ok "it names --region-eviction"
expect_exit 2 "a bad zipf parameter is bad input" -- "$APPIO" run cache --target c.dat $small --dist zipf:1 --time 1
grep -q -- "--dist" "$T/stderr" && ok "it names --dist" || not_ok "it names --dist"
finish
