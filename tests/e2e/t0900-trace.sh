#!/usr/bin/env bash
# appio trace formats/info/convert on the hand-written traces of the unit
# tests: figures with units, a conversion to fio's iolog v3 that fio itself
# replays, bad input refused with one line naming file and line, and a
# 10-million-record trace read in constant memory.
. tests/e2e/lib.sh
D=$PWD/tests/unit/data/traces
cd "$T"

expect_exit 0 "trace formats lists every format" -- "$APPIO" trace formats
[ "$(grep -c . "$T/stdout")" -eq 10 ] && grep -q '^fio  *r/w' "$T/stdout" && ok "  ten, fio read and written" ||
	not_ok "  ten, fio read and written: $(cat "$T/stdout")"

expect_exit 0 "trace info on blkparse text" -- "$APPIO" trace info "$D/sda.blkparse"
cp "$T/stdout" info.txt
grep -q '^I/Os: *5, ' info.txt && grep -q 'read 20.0 % (128.00 KiB), write 40.0 % (12.00 KiB)' info.txt &&
	ok "  I/Os and op shares with bytes" || not_ok "  I/Os and op shares: $(head -8 info.txt)"
grep -q '^service time: *mean 248.2 us' info.txt && grep -q '^queue depth: *mean 3.00 I/Os' info.txt &&
	ok "  service time and queue depth from D/C pairs" || not_ok "  service time and queue depth"
grep -qE '^footprint: *(139|140|141)\.[0-9]+ KiB' info.txt && grep -qE '^  8,0 +5 I/Os' info.txt &&
	ok "  footprint and the per-device line" || not_ok "  footprint and per device: $(grep -E 'footprint|8,0' info.txt)"

expect_exit 0 "trace info --json" -- "$APPIO" trace info "$D/msr.csv" --json
cp "$T/stdout" info.json
jq_check "  MSR: 3 I/Os, 2 devices, service time known" info.json \
	'.ios == 3 and (.devices | length) == 2 and .service_ns.mean > 0 and .format == "msr"'

expect_exit 0 "trace info on Tencent says the timestamps were spread" -- "$APPIO" trace info "$D/tencent.csv"
grep -q '^note: .*spread evenly' "$T/stdout" && ok "  with a note" || not_ok "  with a note"

# blkparse -> appio -> fio v3 (by the .iolog suffix); fio replays that very file
grep -v ' D  *D \| C  *D ' "$D/sda.blkparse" >nodiscard.blkparse
expect_exit 0 "convert blkparse to appio" -- "$APPIO" trace convert nodiscard.blkparse -o a.trace
expect_exit 0 "convert appio to fio iolog v3" -- "$APPIO" trace convert a.trace -o a.iolog
head -1 a.iolog | grep -qx 'fio version 3 iolog' && grep -qx '0 8,0 write 1749528576 8192' a.iolog &&
	ok "  v3 header and a write in us and bytes" || not_ok "  v3 content: $(head -5 a.iolog)"
if command -v fio >/dev/null; then
	if timeout 60 fio --name=replay --read_iolog=a.iolog --ioengine=null --replay_redirect="$T/target" \
		--output-format=json --output=fio.json >fio.log 2>&1; then
		jq_check "  fio replays it: 1 read, 2 writes, 1 sync" fio.json \
			'.jobs[0].read.total_ios == 1 and .jobs[0].write.total_ios == 2 and .jobs[0].sync.total_ios == 1'
	else
		not_ok "  fio replays it"; sed 's/^/    /' fio.log | head
	fi
else
	skip "fio replays it" "fio is not installed"
fi
expect_exit 0 "convert fio back to appio, and to fio again" -- "$APPIO" trace convert a.iolog -o b.trace
"$APPIO" trace convert b.trace -o b.iolog 2>/dev/null
cmp -s a.iolog b.iolog && ok "  the fio logs are identical" || not_ok "  the fio logs differ"
expect_exit 0 "convert reads stdin and writes stdout" -- sh -c "cat '$D/spc.csv' | '$APPIO' trace convert - -o - --to blkparse"
[ "$(grep -c ' D ' "$T/stdout")" -eq 3 ] && ok "  three D lines" || not_ok "  three D lines: $(cat "$T/stdout")"

printf 'appio-trace 1\ndevice 0 sda\n0 - R - 0 0 4096 - -\n10 - Q - 0 0 4096 - -\n' >bad.trace
expect_exit 2 "a malformed record exits 2" -- "$APPIO" trace info bad.trace
one_line_error "  with one line"
grep -q "'bad.trace' line 4: expected op R, W, F or D, got 'Q'" "$T/stderr" && ok "  naming file, line and what was expected" ||
	not_ok "  naming file and line: $(cat "$T/stderr")"
expect_exit 2 "a malformed trace converted exits 2" -- "$APPIO" trace convert bad.trace -o half.trace
[ ! -e half.trace ] && ok "  and leaves no half-converted trace" || not_ok "  half.trace left behind"
# as root, removing the output would take /dev/null away from the whole machine: a
# link to it stands in for it here
ln -s /dev/null sink
expect_exit 2 "a malformed trace converted to a link to /dev/null exits 2" -- \
	"$APPIO" trace convert bad.trace -o sink
[ -L sink ] && [ -c /dev/null ] && ok "  and leaves what is not a regular file in place" ||
	not_ok "  the link was removed"
expect_exit 2 "a missing file exits 2" -- "$APPIO" trace info nosuch.trace
one_line_error "  with one line"
expect_exit 2 "an unknown --from exits 2" -- "$APPIO" trace info bad.trace --from foo
grep -q "unknown format 'foo' (one of appio, fio" "$T/stderr" && ok "  listing the formats" || not_ok "  listing: $(cat "$T/stderr")"
head -c 3000 /dev/urandom >noise.bin
expect_exit 2 "an unknown format exits 2" -- "$APPIO" trace convert noise.bin -o x.trace
one_line_error "  with one line"
expect_exit 2 "Tencent through a pipe is refused (it reads each second twice)" -- \
	sh -c "cat '$D/tencent.csv' | '$APPIO' trace info -"
grep -q "must be a regular file" "$T/stderr" && ok "  saying why" || not_ok "  saying why: $(cat "$T/stderr")"
expect_exit 2 "convert without -o exits 2" -- "$APPIO" trace convert a.trace
one_line_error "  with one line"

# 10 million records through a pipe: the reader keeps one line, so RSS stays small
if [ -x /usr/bin/time ]; then
	{ printf 'appio-trace 1\ndevice 0 sda\n'; seq -f '%.0f - R - 0 4096 4096 - -' 0 1000 9999999000; } |
		/usr/bin/time -f '%M' -o rss.txt "$APPIO" trace info - >big.txt 2>&1
	rss=$(tail -1 rss.txt)
	grep -q '^I/Os: *10000000, ' big.txt && [ "$rss" -lt 65536 ] &&
		ok "10,000,000 records read in $rss KiB (< 64 MiB)" ||
		not_ok "10,000,000 records in < 64 MiB: $rss KiB; $(head -4 big.txt)"
else
	skip "10,000,000 records in < 64 MiB" "/usr/bin/time is missing"
fi
finish
