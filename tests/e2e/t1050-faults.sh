#!/usr/bin/env bash
# Fault injection: tests/fault/fault.c (preloaded) fails the Nth pread, pwrite,
# fsync or fdatasync on the target with EIO or ENOSPC. Every emulator's error path
# then has to give exit 1, one message naming the operation, the offset and the
# file, the results measured so far in the JSON, no hang, and (under ASan)
# nothing leaked. The sync engine: libaio and io_uring bypass these calls.
. tests/e2e/lib.sh
SO="${UNIT_DIR:-$PWD/build/tests}/fault.so"
[ -f "$SO" ] || SO="$PWD/build/tests/fault.so"
if [ ! -f "$SO" ]; then skip "fault injection" "no $SO (make unit builds it)"; finish; fi
# the shim is not built with ASan: let an ASan build of appio load it first
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
cd "$T"

# targets laid out beforehand, without faults
"$APPIO" run 4k-randwrite --target blk.dat --size 16M --time 1 --engine sync >/dev/null 2>&1
"$APPIO" run oltp --target oltp.dat --size 256M --time 1 --engine sync >/dev/null 2>&1
"$APPIO" run tpcc --target tpcc.dat --size 1G --time 1 --engine sync >/dev/null 2>&1
"$APPIO" run fileserver-fs --target fs --files 500 --time 1 --engine sync >/dev/null 2>&1

# fault OP NTH ERRNO -- appio run ARGS...: run with the Nth OP on files under $T failing
fault() {
	local op=$1 nth=$2 err=$3; shift 4
	rm -f r.json
	FAULT_OP=$op FAULT_NTH=$nth FAULT_ERRNO=$err FAULT_PATH="$T/" LD_PRELOAD="$SO" \
		timeout 120 "$APPIO" run "$@" --engine sync --time 2 --json r.json >"$T/stdout" 2>"$T/stderr"
}

# run_fault DESC OP ERRTEXT -- ARGS...: a fault while running: exit 1, the message, the JSON
run_fault() {
	local desc=$1 op=$2 text=$3; shift 4
	fault "$op" 30 EIO -- "$@"
	local rc=$?
	[ $rc -eq 1 ] && ok "$desc: exit 1" || { not_ok "$desc: exit 1 (got $rc)"; tail -3 stderr | sed 's/^/    /'; }
	if grep -Eq "^appio: $text of ('[^']*'|[0-9]+ bytes at offset [0-9]+ of '[^']+') failed: Input/output error$" stderr
	then ok "$desc: the message names the operation, offset and file"
	else not_ok "$desc: the message names the operation, offset and file"; sed 's/^/    /' stderr | head -3
	fi
	one_line_error "$desc: said once"
	jq_check "$desc: the point so far is saved, marked partial" r.json \
		'(.points | length) == 1 and .points[0].partial == true and .incomplete == false'
}

run_fault "block profile, write"      pwrite write     -- 4k-randwrite --target blk.dat
run_fault "block profile, read"       pread  read      -- 4k-randread --target blk.dat
run_fault "oltp, page write"          pwrite write     -- oltp --target oltp.dat
run_fault "oltp, page read"           pread  read      -- oltp --target oltp.dat
run_fault "oltp, log fdatasync"       fdatasync fdatasync -- oltp --target oltp.dat
run_fault "tpcc, page write"          pwrite write     -- tpcc --target tpcc.dat
run_fault "tpcc, page read"           pread  read      -- tpcc --target tpcc.dat
run_fault "tpcc, fdatasync"           fdatasync fdatasync -- tpcc --target tpcc.dat
run_fault "nosql, journal write"      pwrite write     -- nosql --target nosql --data 0
run_fault "nosql, stand read"         pread  read      -- nosql --target nosql --data 64M
run_fault "nosql, journal fdatasync"  fdatasync fdatasync -- nosql --target nosql --data 0
run_fault "fileserver-fs, write"      pwrite write     -- fileserver-fs --target fs --files 500
run_fault "fileserver-fs, read"       pread  read      -- fileserver-fs --target fs --files 500
run_fault "webserver-fs, read"        pread  read      -- webserver-fs --target ws --files 300
run_fault "mailserver-fs, fsync"      fsync  fsync     -- mailserver-fs --target ms --files 300
run_fault "mailserver-fs, read"       pread  read      -- mailserver-fs --target ms --files 300
# a trace of 5,000 I/Os over 5 s: reads, writes and a flush every tenth, within 8 MiB
awk 'BEGIN { print "appio-trace 1"; print "device 0 d0"
	for (i = 0; i < 5000; i++) { k = i % 10; op = k < 5 ? "R" : k < 9 ? "W" : "F"
		printf "%d - %s - 0 %d %d - -\n", i * 1000000, op, op == "F" ? 0 : (i * 4096) % 8388608, op == "F" ? 0 : 4096 } }' >r.trace
run_fault "replay, write"             pwrite write     -- replay --trace r.trace --target blk.dat
run_fault "replay, read"              pread  read      -- replay --trace r.trace --target blk.dat
run_fault "replay, flush"             fsync  fsync     -- replay --trace r.trace --target blk.dat

# disk full while laying out: a failed run (exit 1) naming the target and offset, no file left
fault pwrite 3 ENOSPC -- 4k-randwrite --target full.dat --size 64M
rc=$?
[ $rc -eq 1 ] && ok "disk full during the layout: exit 1, not bad input" ||
	not_ok "disk full during the layout: exit 1, not bad input (got $rc)"
grep -Eq "cannot lay out 'full.dat' .*write at offset [0-9]+: No space left on device" stderr &&
	ok "the message names the target, the offset and the error" ||
	{ not_ok "the message names the target, the offset and the error"; sed 's/^/    /' stderr; }
[ ! -e full.dat ] && ok "the file it created is removed" || not_ok "the file it created is removed"
fault pwrite 2 ENOSPC -- nosql --target full-nosql --data 64M
rc=$?
[ $rc -eq 1 ] && grep -q "cannot lay out .* at offset [0-9]*: No space left on device" stderr &&
	ok "disk full while nosql lays out its data: exit 1 with the offset" ||
	{ not_ok "disk full while nosql lays out its data: exit 1 with the offset (got $rc)"; sed 's/^/    /' stderr; }
fault pwrite 5 ENOSPC -- fileserver-fs --target full-fs --files 300
rc=$?
[ $rc -eq 1 ] && grep -q "cannot write '.*' at offset [0-9]*: No space left on device" stderr &&
	ok "disk full while a file set is built: exit 1 with the file and offset" ||
	{ not_ok "disk full while a file set is built: exit 1 with the file and offset (got $rc)"; sed 's/^/    /' stderr; }
# a set whose build failed is built again cleanly, without faults
check "a file set whose build failed is completed by the next run" \
	"$APPIO" run fileserver-fs --target full-fs --files 300 --engine sync --time 1
finish
