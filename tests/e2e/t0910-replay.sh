#!/usr/bin/env bash
# appio run replay: the schedule is kept (no I/O before its time, the run
# lasts the trace), the counts per op are exact (FUA and preflush writes add
# their flushes), the trace is read ahead of the schedule (no feed waits),
# --speed, --loops, --timing afap, --ops, --map, --threads over the trace's
# devices, --device-map, --timing load and bounded, --cpu-load, a malformed trace exits 2 naming file
# and line (also when the trace turns bad during the replay), Ctrl-C keeps a
# partial result, and on a file flushes and discards really happen.
. tests/e2e/lib.sh
cd "$T"

# gen N GAP_NS DEVS: N I/Os GAP_NS apart; by i % 20: 10 reads, 6 writes, a FUA write,
# a preflush write, a flush, a discard of 8 KiB; offsets cycle through 8 MiB.
gen() {
	awk -v n="$1" -v gap="$2" -v devs="${3:-1}" 'BEGIN {
		print "appio-trace 1"
		for (d = 0; d < devs; d++) printf "device %d d%d\n", d, d
		for (i = 0; i < n; i++) {
			k = i % 20; op = k < 10 ? "R" : k < 18 ? "W" : k == 18 ? "F" : "D"
			fl = k == 16 ? "U" : k == 17 ? "P" : "-"
			len = op == "F" ? 0 : op == "D" ? 8192 : 4096
			off = op == "F" ? 0 : (i * 4096) % 8388608
			printf "%d - %s %s %d %d %d - -\n", i * gap, op, fl, i % devs, off, len
		}
	}'
}
gen 2000 500000 >a.trace        # 2,000 I/Os at 2,000 IOPS: 1 s (the last at 0.9995 s)

run() { "$APPIO" run replay --engine null --target t.dat --size 16M "$@"; }

expect_exit 0 "replay on the null engine" -- run --trace a.trace --json a.json
jq_check "  counts per op: 1000 reads, 800 writes, 300 flushes (100 + FUA + preflush), 100 discards" a.json \
	'.points[0].classes | .read.ops == 1000 and .write.ops == 800 and .flush.ops == 300 and .discard.ops == 100 and .total.ops == 2200'
jq_check "  no I/O before its time: issue lag >= 0 and never a wrapped-around value" a.json \
	'.points[0].classes.lag | .ops == 2200 and .lat_ns.min >= 0 and .lat_ns.max < 1e9'
jq_check "  response time >= service time (mean, p50, p99, max), class by class" a.json \
	'.points[0].classes as $c | all(("read","write","flush","discard","total") as $k |
	   ($c[$k + (if $k == "total" then "" else "" end)]) as $s |
	   ($c[if $k == "total" then "response" else $k + ".response" end]) as $r |
	   $r.ops == $s.ops and $r.lat_ns.mean >= $s.lat_ns.mean and $r.lat_ns.p50 >= $s.lat_ns.p50 and
	   $r.lat_ns.p99 >= $s.lat_ns.p99 and $r.lat_ns.max >= $s.lat_ns.max)'
jq_check "  per-second series: total, response and lag each sum to the I/Os (within the rounding of a short last second), not thrice" a.json \
	'[.points[0].series[] | .dur_s as $d | .classes | (.total.ops_per_s * $d), (.response.ops_per_s * $d),
	  (.lag.ops_per_s * $d), (.read.ops_per_s * $d)] as $v |
	 ([range(0; $v | length; 4) as $i | $v[$i]] | add - 2200 | fabs) < 3 and
	 ([range(1; $v | length; 4) as $i | $v[$i]] | add - 2200 | fabs) < 3 and
	 ([range(2; $v | length; 4) as $i | $v[$i]] | add - 2200 | fabs) < 3 and
	 ([range(3; $v | length; 4) as $i | $v[$i]] | add - 1000 | fabs) < 3'
jq_check "  the run lasts the trace, not --time: 1.0 to 2 s" a.json '.points[0].time_s >= 0.999 and .points[0].time_s < 2'
# never early is exact; how late depends on the CPU the machine leaves the replay (a
# sanitizer build on a busy machine can be descheduled for a tenth of a second), so
# the bound only catches a broken schedule: under 10 % late, or, where the machine
# held the replay back, the verdict must say so rather than "kept up" (and still
# under 100 %). The accuracy goals are scripts/bench-replay.sh's
jq_check "  accuracy in the result: trace 0.9995 s, the last I/O not early, under 10 % late or said to be late, a verdict" a.json \
	'.info | (."replay.trace_duration_s" | tonumber) == 0.9995 and
	 (."replay.duration_error_pct" | tonumber) as $e | ."replay.verdict" as $v |
	 $e >= 0 and ($e < 10 or ($e < 100 and $v != "kept up")) and ($v | length) > 0 and
	 (."replay.ios" | tonumber) == 2200 and (."replay.trace_iops_mean" | tonumber) == 2200'
jq_check "  the trace was read ahead: the replay never waited for a record (feed_waits 0)" a.json \
	'.points[0].counters | has("feed_waits") and .feed_waits == 0'
grep -q '^replay: ' "$T/stdout" && grep -q 'issue lag: p50 ' "$T/stdout" && grep -q 'duration .* against the trace' "$T/stdout" &&
	ok "  the accuracy block after the table" || not_ok "  the accuracy block: $(tail -5 "$T/stdout")"

expect_exit 0 "--speed 2" -- run --trace a.trace --speed 2 --json s.json
jq_check "  half the time, same counts" s.json \
	'.points[0].time_s >= 0.4995 and .points[0].time_s < 1 and .points[0].classes.total.ops == 2200 and
	 (.info."replay.trace_duration_s" | tonumber) == 0.49975'

expect_exit 0 "--speed 0.5 --report-interval 1" -- run --trace a.trace --speed 0.5 --report-interval 1
iops=$(sed -n 's/.*\[ 1s \] threads 1  IOPS \([0-9.]*\) .*/\1/p' "$T/stderr")
awk -v v="${iops:-0}" 'BEGIN { exit !(v >= 1000 && v <= 1200) }' &&
	ok "  the interval line counts each I/O once: $iops IOPS (1,100 due)" ||
	not_ok "  the interval line counts each I/O once: '$iops' IOPS (1,100 due)"

expect_exit 0 "--loops 3" -- run --trace a.trace --loops 3 --json l.json
jq_check "  three times the I/Os over three periods" l.json \
	'.points[0].classes.read.ops == 3000 and .points[0].classes.flush.ops == 900 and
	 .points[0].time_s >= 2.9995 and .points[0].time_s < 4.5'

expect_exit 0 "--timing afap --qd 4" -- run --trace a.trace --timing afap --qd 4 --json f.json
jq_check "  same counts, far faster than the trace, no lag samples" f.json \
	'.points[0] | .qd == 4 and .classes.total.ops == 2200 and .time_s < 0.5 and .classes.lag.ops == 0'
grep -q '^replay: as fast as possible' "$T/stdout" && ok "  says it kept no schedule" || not_ok "  says it kept no schedule"

expect_exit 2 "--timing load on a trace without in-flight counts or completions exits 2" -- \
	run --trace a.trace --timing load
grep -q -- "--timing load: 'a.trace' tells neither in-flight counts nor completion times" "$T/stderr" &&
	ok "  saying why" || not_ok "  saying why: $(cat "$T/stderr")"
# completions 1.5 ms after issue, 0.5 ms apart: the trace's in-flight counts are 1, 2, 3, 3...
awk '$1 ~ /^[0-9]+$/ { $2 = $1 + 1500000 } { print }' a.trace >c.trace
expect_exit 0 "--timing load on a trace with completion times" -- \
	"$APPIO" run replay --target f2.dat --size 16M --trace c.trace --timing load --json ld.json
jq_check "  same counts, the trace's own depth (3) as the cap, no lag samples" ld.json \
	'.points[0] | .qd == 3 and .classes.total.ops == 2200 and .classes.lag.ops == 0'
grep -q "^replay: as fast as possible (no schedule to keep) at the trace's in-flight counts" "$T/stdout" &&
	ok "  says what it kept" || not_ok "  says what it kept: $(grep replay: "$T/stdout")"
expect_exit 0 "--timing bounded: the schedule and the trace's in-flight counts" -- \
	"$APPIO" run replay --target f2.dat --size 16M --trace c.trace --timing bounded --json bd.json
jq_check "  same counts over the trace's second, lag samples, four times the trace's depth as the cap" bd.json \
	'(.info."replay.mode" | startswith("bounded")) and (.points[0] | .qd == 12 and
	 .classes.total.ops == 2200 and .classes.lag.ops == 2200 and .time_s >= 0.9995 and .time_s < 1.5)'
expect_exit 2 "--timing bounded on a trace without in-flight counts or completions exits 2" -- \
	run --trace a.trace --timing bounded
grep -q -- "--timing bounded: 'a.trace' tells neither" "$T/stderr" &&
	ok "  saying why" || not_ok "  saying why: $(cat "$T/stderr")"
expect_exit 0 "--timing trace without --qd: four times the trace's depth as the cap" -- \
	run --trace c.trace --speed 8 --json ct.json
jq_check "  12 for a trace of depth 3" ct.json '.points[0].qd == 12 and .info."replay.trace_qd" == "12"'

expect_exit 0 "--ops read,flush" -- run --trace a.trace --ops read,flush --json o.json
jq_check "  only reads and the trace's own flushes" o.json \
	'.points[0].classes | .read.ops == 1000 and .flush.ops == 100 and .write.ops == 0 and .discard.ops == 0'
expect_exit 2 "--ops with an unknown op exits 2" -- run --trace a.trace --ops read,trim
one_line_error "  with one line"

# --cpu-load: burners beside the replay, the I/O unchanged; a capture's share by name
expect_exit 0 "--cpu-load 40" -- run --trace a.trace --cpu-load 40 --json cl.json
jq_check "  same counts; the share held and the one reached (at least 15 %) in the result" cl.json \
	'.points[0].classes.total.ops == 2200 and (.info."replay.cpu_load" |
	 startswith("40.0 % held, ") and (capture("held, (?<r>[0-9.]+) %").r | tonumber) >= 15)'
{ echo "appio-trace 2"; echo "meta capture.cpu_busy 35.5 % of 2 CPUs busy (the machine's)"; tail -n +2 a.trace; } >busy.trace
expect_exit 0 "--cpu-load recorded takes the capture's share" -- run --trace busy.trace --cpu-load recorded --json cr.json
jq_check "  35.5 % held" cr.json '.info."replay.cpu_load" | startswith("35.5 % held")'
expect_exit 2 "--cpu-load recorded on a trace that does not note it exits 2" -- run --trace a.trace --cpu-load recorded
grep -q -- "--cpu-load recorded: 'a.trace' does not note" "$T/stderr" && ok "  saying why" || not_ok "  saying why: $(cat "$T/stderr")"
expect_exit 2 "--cpu-load 101 exits 2" -- run --trace a.trace --cpu-load 101
one_line_error "  with one line"
# the core takes a spin of 0 for its own default (50 us): 0 is refused, not replaced
expect_exit 2 "--spin 0 exits 2" -- run --trace a.trace --spin 0
one_line_error "  with one line"
grep -q -- "--spin" "$T/stderr" && ok "  naming the option" || not_ok "  naming the option: $(cat "$T/stderr")"

expect_exit 2 "--map error: the trace reaches past a 4 MiB target" -- \
	"$APPIO" run replay --engine null --target small.dat --size 4M --trace a.trace
grep -qE -- "--map error: device 0 of the trace reaches byte 8[0-9]{6}, beyond the target's 4194304 bytes \(use --map wrap" "$T/stderr" &&
	ok "  naming the device, the byte and the way out" || not_ok "  message: $(cat "$T/stderr")"
for m in wrap scale; do
	expect_exit 0 "--map $m fits it into 4 MiB" -- \
		"$APPIO" run replay --engine null --target small.dat --size 4M --trace a.trace --map $m --json m.json
	jq_check "  every I/O replayed" m.json '.points[0].classes.total.ops == 2200'
done

gen 2000 500000 2 >two.trace
expect_exit 0 "two devices, --threads 2: a worker each" -- run --trace two.trace --threads 2 --json t2.json
jq_check "  the same counts, one point of 2 threads" t2.json \
	'.points | length == 1 and .[0].threads == 2 and .[0].classes.total.ops == 2200 and .[0].classes.read.ops == 1000'
truncate -s 16M m1.dat
expect_exit 0 "--device-map d1=FILE: device d1 goes to its own file (libaio, O_DIRECT)" -- \
	"$APPIO" run replay --target m0.dat --size 16M --trace two.trace --device-map d1=m1.dat --json dm.json
jq_check "  every I/O replayed, the map in the result" dm.json \
	'.points[0].classes.total.ops == 2200 and (.info."replay.device.d1" | endswith("m1.dat"))'
[ "$(stat -c %b m1.dat)" -gt 0 ] && ok "  d1's writes landed in the sparse file ($(( $(stat -c %b m1.dat) / 2 )) KiB allocated)" ||
	not_ok "  d1's writes landed in the sparse file (nothing allocated)"
expect_exit 2 "--device-map naming no device of the trace exits 2" -- run --trace two.trace --device-map sdz=m1.dat
grep -q -- "--device-map: the trace has no device 'sdz'" "$T/stderr" && ok "  naming it" || not_ok "  naming it: $(cat "$T/stderr")"
expect_exit 2 "--device-map to a missing file exits 2" -- run --trace two.trace --device-map 1=nosuch.dat
one_line_error "  with one line"
expect_exit 0 "--qd not given: the trace's own maximum in flight is the cap" -- run --trace a.trace --timing afap --json q.json
jq_check "  64 when the trace does not tell" q.json '.points[0].qd == 64'

printf 'appio-trace 1\ndevice 0 sda\n0 - R - 0 0 4096 - -\n10 - Q - 0 0 4096 - -\n' >bad.trace
expect_exit 2 "a malformed trace exits 2" -- run --trace bad.trace
one_line_error "  with one line"
grep -q "'bad.trace' line 4: expected op R, W, F or D, got 'Q'" "$T/stderr" &&
	ok "  naming file, line and what was expected" || not_ok "  message: $(cat "$T/stderr")"
# The trace turns bad between the loops: 60,000 I/Os at 20,000 IOPS, the file replaced
# after 1.2 s, long before its reader reaches the end of the first loop (about 2 s on).
awk 'BEGIN { print "appio-trace 1"; print "device 0 d0"
	for (i = 0; i < 60000; i++) printf "%d - R - 0 %d 4096 - -\n", i * 50000, (i * 4096) % 8388608 }' >turn.trace
(sleep 1.2; cp bad.trace turn.new; mv turn.new turn.trace) &
expect_exit 1 "a trace that turns bad during the replay fails the run" -- \
	run --trace turn.trace --loops 2 --json turn.json
wait
grep -q "'turn.trace' line 4: expected op R, W, F or D, got 'Q'" "$T/stderr" &&
	ok "  with the reader's message, file and line" || not_ok "  the reader's message: $(cat "$T/stderr")"
jq_check "  after the first loop was replayed" turn.json '.points[0].classes.total.ops >= 60000'
expect_exit 2 "no --trace exits 2" -- run
expect_exit 2 "a trace from a pipe exits 2" -- run --trace -

# Ctrl-C: a 20 s trace at 1,000 IOPS, interrupted after about 1.5 s
gen 20000 1000000 >long.trace
"$APPIO" run replay --engine null --target t.dat --trace long.trace --json int.json >int.out 2>&1 &
pid=$!
sleep 1.5
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok "Ctrl-C exits 130" || not_ok "Ctrl-C exits 130 (got $rc)"
jq_check "  a partial point with what was replayed, and its accuracy" int.json \
	'.interrupted == true and .points[0].partial == true and .points[0].classes.total.ops > 100 and
	 .points[0].classes.total.ops < 10000 and (.info."replay.verdict" | length) > 0'

# A file, for real: writes in the first 8 MiB, flushes, then one 8 MiB discard that
# punches the whole region out of the 16 MiB file laid out before.
awk 'BEGIN { print "appio-trace 1"; print "device 0 f"
	for (i = 0; i < 200; i++) printf "%d - W - 0 %d 4096 - -\n", i * 100000, i * 40960
	printf "20000000 - F Y 0 0 0 - -\n20100000 - D - 0 0 8388608 - -\n" }' >file.trace
"$APPIO" run profile --target f.dat --size 16M --read 0 --time 1 >/dev/null 2>&1
before=$(( $(stat -c %b f.dat) * 512 ))
expect_exit 0 "replay on a file (libaio, O_DIRECT): writes, a datasync, a discard" -- \
	"$APPIO" run replay --target f.dat --trace file.trace --json file.json
after=$(( $(stat -c %b f.dat) * 512 ))
jq_check "  200 writes, 1 flush, 1 discard" file.json \
	'.points[0].classes | .write.ops == 200 and .flush.ops == 1 and .discard.ops == 1'
[ "$before" -ge $((15 << 20)) ] && [ "$after" -le $((9 << 20)) ] &&
	ok "  the discard punched 8 MiB out ($before -> $after bytes allocated)" ||
	not_ok "  the discard punched 8 MiB out ($before -> $after bytes allocated)"
finish
