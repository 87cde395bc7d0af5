#!/usr/bin/env bash
# The file-system personalities: each runs on a small fileset, records one
# class per file operation and the loop, leaves the folder with the configured
# file count, reuses its fileset on the next run, bypasses the page cache by
# default (O_DIRECT seen with strace) and not with --cached; bad input gives
# one line and exit status 2.
. tests/e2e/lib.sh
cd "$T"
run() { "$APPIO" run "$@" >/dev/null 2>"$T/err" || { echo "    $(tail -1 "$T/err")"; return 1; }; }
count() { find "$1" -type f ! -name .appio-fileset ! -name weblog | wc -l; }
small="--files 200 --engine sync --time 2"

for p in fileserver-fs webserver-fs mailserver-fs; do
	check "$p runs a 1,4-thread sweep" run $p --target d $small --threads 1,4 --json $p.json
	jq_check "$p: loops at every point, with ops/s, MB/s, mean, p99, max" $p.json \
		'all(.points[]; .headline == "loop" and .classes.loop.ops > 0 and (.classes.loop | has("ops_per_s") and has("mb_per_s"))
		 and .classes.loop.lat_ns.mean > 0 and .classes.loop.lat_ns.p99 <= .classes.loop.lat_ns.max)'
	jq_check "$p: a class per file operation" $p.json \
		'.points[0].classes | keys | sort == (["append","close","create","delete","fsync","loop","open","read","stat","write"] | sort)'
	jq_check "$p: bytes asked for and bytes the device moved are both recorded" $p.json \
		'.points[0] | .classes.read.bytes > 0 and (.device | has("read_bytes") and has("write_bytes"))'
done
jq_check "fileserver-fs: every operation of the loop" fileserver-fs.json \
	'.points[1].classes | ([.create,.write,.append,.read,.close,.delete,.stat,.open] | all(.ops > 0)) and .fsync.ops == 0'
jq_check "fileserver-fs: a loop is create, 3 closes, 2 opens, delete, stat" fileserver-fs.json \
	'.points[1].classes | .loop.ops > 0 and (.close.ops - 3 * .loop.ops | fabs) <= 12 and (.create.ops - .delete.ops | fabs) <= 4'
jq_check "webserver-fs: ten reads and one log append a loop" webserver-fs.json \
	'.points[1].classes | .loop.ops > 0 and (.open.ops - 10 * .loop.ops | fabs) <= 40 and (.append.ops - .loop.ops | fabs) <= 4 and .create.ops == 0'
jq_check "mailserver-fs: two fsyncs a loop" mailserver-fs.json \
	'.points[1].classes | .loop.ops > 0 and (.fsync.ops - 2 * .loop.ops | fabs) <= 8 and .delete.ops > 0'

[ "$(count d/fileserver-fs)" -eq 160 ] && ok "fileserver-fs leaves 80% of 200 files" || not_ok "fileserver-fs leaves $(count d/fileserver-fs) files, not 160"
[ "$(count d/webserver-fs)" -eq 200 ] && ok "webserver-fs leaves its 200 files" || not_ok "webserver-fs leaves $(count d/webserver-fs) files"
[ "$(count d/mailserver-fs)" -eq 160 ] && ok "mailserver-fs leaves 160 files" || not_ok "mailserver-fs leaves $(count d/mailserver-fs) files"
[ "$(find d/mailserver-fs -mindepth 1 -type d | wc -l)" -eq 0 ] && ok "mailserver-fs is one flat folder" || not_ok "mailserver-fs is one flat folder"
[ "$(find d/fileserver-fs -mindepth 1 -type d | wc -l)" -gt 0 ] && ok "fileserver-fs has a folder tree" || not_ok "fileserver-fs has a folder tree"

jq_check "the first run built the fileset and says so" fileserver-fs.json \
	'.points[0].counters | .fileset_reused == 0 and .fileset_files == 160 and .fileset_bytes > 0'
check "a second run" run fileserver-fs --target d $small --threads 2 --json again.json
jq_check "the second run reuses it" again.json '.points[0].counters | .fileset_reused == 1 and .fileset_files == 160'
check "other parameters rebuild it" run fileserver-fs --target d --files 100 --engine sync --time 1 --json other.json
jq_check "rebuilt with 80 files" other.json '.points[0].counters | .fileset_reused == 0 and .fileset_files == 80'
[ "$(count d/fileserver-fs)" -eq 80 ] && ok "the old fileset is gone" || not_ok "$(count d/fileserver-fs) files after the rebuild"

jq_check "by default appends start writeback" fileserver-fs.json '.points[0].counters.writeback_starts > 0'
jq_check "by default the mail server reads with O_DIRECT and appends buffered" mailserver-fs.json \
	'.points[0].counters.direct_switches > 0'
check "--cached" run webserver-fs --target d $small --threads 2 --cached --json cached.json
jq_check "--cached starts no writeback" cached.json '.points[0] | .classes.append.ops > 0 and .counters.writeback_starts == 0'
if command -v strace >/dev/null; then
	strace -f -y -qq -e trace=openat -o trace.txt "$APPIO" run webserver-fs --target d $small --threads 1 --time 1 >/dev/null 2>&1
	if grep -q 'webserver-fs>, "d[0-9]*/f[0-9]*", O_RDONLY|O_DIRECT' trace.txt; then ok "reads open files with O_DIRECT"; else not_ok "reads open files with O_DIRECT"; fi
	strace -f -y -qq -e trace=openat -o trace2.txt "$APPIO" run webserver-fs --target d $small --threads 1 --time 1 --cached >/dev/null 2>&1
	if grep -q 'webserver-fs>, "d[0-9]*/f[0-9]*", O_RDONLY|O_CLOEXEC)' trace2.txt && ! grep -q 'f[0-9]*", .*O_DIRECT' trace2.txt; then
		ok "--cached opens without O_DIRECT"; else not_ok "--cached opens without O_DIRECT"; fi
else
	skip "O_DIRECT seen with strace" "no strace"
fi

expect_exit 2 "fileserver-fs with every file present is bad input" -- "$APPIO" run fileserver-fs --target d --prealloc 100 --time 1
one_line_error "the prealloc error is one line"
expect_exit 2 "a gamma shape of 0 is bad input" -- "$APPIO" run webserver-fs --target d --gamma 0 --time 1
one_line_error "the gamma error is one line"
mkdir ro
if chattr +i ro 2>/dev/null; then
	at_exit "chattr -i '$T/ro'"
	expect_exit 2 "a folder that cannot be written is bad input" -- "$APPIO" run mailserver-fs --target ro --time 1
	one_line_error "the folder error is one line"
	grep -q -- "--target" "$T/stderr" && ok "it names --target" || not_ok "it names --target"
else
	skip "a folder that cannot be written" "chattr +i not supported here"
fi
finish
