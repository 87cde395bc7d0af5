#!/usr/bin/env bash
# Text in JSON: a target path that is not valid UTF-8 (Latin-1, stray bytes,
# control characters) is escaped, so the result document stays readable by
# any JSON reader and by appio itself.
. tests/e2e/lib.sh
cd "$T"
latin1=$'caf\xe9.dat'
stray=$'bad\xff\xfe\x80-\x01.dat'
"$APPIO" run 4k-randwrite --target "$latin1" --size 1M --time 1 --json l.json >/dev/null 2>err ||
	{ not_ok "a run on a Latin-1 path"; cat err; }
"$APPIO" run 4k-randwrite --target "$stray" --size 1M --time 1 --json s.json >/dev/null 2>err ||
	{ not_ok "a run on a path with stray bytes"; cat err; }
jq_check "a Latin-1 path: the document is valid JSON, the name reads as meant" l.json '.target.path == "café.dat"'
jq_check "stray bytes and a control character: valid JSON, one code point each" s.json \
	'.target.path == "bad\u00ff\u00fe\u0080-\u0001.dat"'
if iconv -f UTF-8 -t UTF-8 l.json >/dev/null 2>&1 && iconv -f UTF-8 -t UTF-8 s.json >/dev/null 2>&1; then
	ok "the documents are valid UTF-8 throughout"
else not_ok "the documents are valid UTF-8 throughout"; fi
check "appio report reads them" "$APPIO" report l.json s.json
check "appio compare reads them" "$APPIO" compare l.json s.json
# a suite's document too
mkdir "$latin1.d"
"$APPIO" suite quick --target "$latin1.d/t.dat" --size 16M --fill-passes 0 --profiles none \
	--write-sweep none --apps none --db-time 1 --db-threads 1 --json suite.json >/dev/null 2>err ||
	{ not_ok "a suite on a Latin-1 path"; tail -3 err; }
jq_check "a suite's document on a Latin-1 path is valid JSON" suite.json '.target // .options.target | tostring | test("café")'
finish
