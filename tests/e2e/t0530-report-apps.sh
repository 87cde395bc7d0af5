#!/usr/bin/env bash
# appio report on application results: nosql's per-interval latency split
# (a chart per drive with a line per class, their figures as a table, and a
# chart of every drive's headline latency per interval), and a file-system
# personality's loops per second and p99 versus threads. Two nosql runs
# stand for two drives; the interval figures in the page are checked
# against the same figures computed from the result with jq.
. tests/e2e/lib.sh
cd "$T"
NOSQL=(--threads 2 --time 6 --intervals 4 --data 16M --in-memory-limit 1M --forests 2 --engine sync)
expect_exit 0 "nosql on drive a" -- "$APPIO" run nosql --target "$T/a" "${NOSQL[@]}" --json a.json
expect_exit 0 "nosql on drive b" -- "$APPIO" run nosql --target "$T/b" "${NOSQL[@]}" --json b.json
jq_check "  stands are saved and merged within the point" a.json \
	'.points[0].counters.saves > 0 and .points[0].counters.merges > 0'
expect_exit 0 "fileserver-fs on drive fs" -- "$APPIO" run fileserver-fs --target "$T/fs" --files 200 \
	--threads 2,4 --time 2 --json fs.json

if ! command -v gnuplot >/dev/null; then
	skip "report charts" "gnuplot is not installed"
	finish
fi
expect_exit 0 "report on three results" -- "$APPIO" report a.json b.json fs.json -o report.html \
	--label a.json=a --label b.json=b --label fs.json=fs

# count figures by their identification: data-test, data-chart, data-drive
count() { grep -o "<figure class=\"chart\" [^>]*>" "${2:-report.html}" | grep -c -- "$1"; }
[ "$(count 'data-test="nosql"')" -eq 4 ] && ok "nosql: its test chart and three interval charts" ||
	not_ok "nosql: $(count 'data-test="nosql"') charts, expected 4"
for d in a b; do
	[ "$(count "data-chart=\"intervals\" data-drive=\"$d\"")" -eq 1 ] && ok "  the split by class of drive $d" ||
		not_ok "  the split by class of drive $d"
done
[ "$(count 'data-test="nosql" data-chart="intervals-drives"')" -eq 1 ] && ok "  every drive per interval in one chart" ||
	not_ok "  every drive per interval in one chart"
[ "$(count 'data-test="fileserver-fs" data-chart="test"')" -eq 1 ] && ok "fileserver-fs: one chart" ||
	not_ok "fileserver-fs: one chart"
[ "$(grep -c '<svg' report.html)" -eq "$(count 'class="chart"')" ] && ok "every chart is an inline SVG" ||
	not_ok "every chart is an inline SVG"

# the texts inside one figure's SVG
texts() { sed -n "/<figure class=\"chart\" [^>]*$1/,/<\/figure>/p" report.html | grep -o '<text>[^<]*</text>' |
	sed 's/<[^>]*>//g; s/^ *//'; }
texts 'data-chart="intervals" data-drive="a"' >split-a.txt
classes=$(jq -r '.points[0].series[0].classes | keys_unsorted - ["total"] | .[]' a.json)
missing=""
for c in $classes; do
	# a class without operations has no line
	has=$(jq --arg c "$c" '[.points[0].series[].classes[$c].ops_per_s] | add > 0' a.json)
	[ "$has" = true ] && ! grep -qx "$c" split-a.txt && missing="$missing $c"
done
[ -z "$missing" ] && ok "  a line per class ($(echo $classes | wc -w) classes)" || not_ok "  no line for:$missing"
grep -qx "interval" split-a.txt && grep -q "log scale" split-a.txt && grep -qE '^latency, (ms|µs|ns), log scale$' split-a.txt &&
	ok "  x axis: interval; latency on a log scale with its unit" || not_ok "  axes of the split"
texts 'data-chart="intervals-drives"' >drives.txt
grep -qx a drives.txt && grep -qx b drives.txt && grep -q "update latency per interval" drives.txt &&
	ok "  a line per drive of the headline class" || not_ok "  a line per drive of the headline class"
texts 'data-test="fileserver-fs"' >fs.txt
grep -qx "loops per second" fs.txt && grep -qx "99th percentile latency" fs.txt && grep -qx "loops/s" fs.txt &&
	grep -qx threads fs.txt && ok "  fileserver-fs: loops/s and p99 versus threads" || not_ok "  fileserver-fs axes"
grep -q '<th>loops/s</th>' report.html && ! grep -q '[0-9] TPS<' <(sed -n '/id="test-2"/,/<\/section>/p' report.html) &&
	ok "  its table counts loops/s, not TPS" || not_ok "  its table counts loops/s, not TPS"

# interval 2 of drive a (seconds 2-3 of 6: a mean over two seconds), every class: the
# table's exact figures against jq's
K=2
row=$(sed -n '/<table class="intervals" data-test="nosql" data-drive="a" data-point="2 threads">/,/<\/table>/p' report.html |
	grep "<tr data-interval=\"$K\">")
bad=""
for c in $classes; do
	want=$(jq -r --arg c "$c" --argjson k $((K - 1)) '(.workload.options.intervals | tonumber) as $n
		| .points[0].series as $ser | ($ser | length) as $s
		| [$ser[($k * $s / $n | floor):(($k + 1) * $s / $n | floor)][]
		   | {ops: (.classes[$c].ops_per_s * (.dur_s // 1) | round), mean: .classes[$c].mean_ns,
		      max: .classes[$c].max_ns} | select(.ops > 0)] as $sec
		| ($sec | map(.ops) | add // 0) as $ops
		| if $ops == 0 then "0 - -"
		  else "\($ops) \(($sec | map(.ops * .mean) | add) / $ops) \($sec | map(.max) | max)" end' a.json)
	cell=$(grep -o "<td data-class=\"$c\"[^>]*>" <<<"$row")
	got="$(sed -n 's/.*data-ops="\([^"]*\)".*/\1/p' <<<"$cell") $(sed -n 's/.*data-mean-ns="\([^"]*\)".*/\1/p' <<<"$cell") $(sed -n 's/.*data-max-ns="\([^"]*\)".*/\1/p' <<<"$cell")"
	got=$(echo $got)
	[ "${want%% *}" = 0 ] && want=0
	awk -v w="$want" -v g="$got" 'BEGIN { nw = split(w, a); ng = split(g, b)
		if (a[1] == 0) exit !(ng == 1 && b[1] == 0)
		exit !(ng == 3 && a[1] == b[1] && a[3] == b[3] && (a[2] - b[2]) ^ 2 <= (1e-6 * a[2]) ^ 2 + 0.01) }' ||
		bad="$bad $c(jq: $want; page: $got)"
done
[ -n "$row" ] && [ -z "$bad" ] && ok "interval $K of drive a: operations, mean and max per class match jq" ||
	not_ok "interval $K of drive a:${bad:- no row}"

# ---- Chromium renders it ----
if [ -z "$CHROME" ]; then
	skip "rendered in Chromium" "chromium is not installed"
	finish
fi
chrome() { chrome_page "$T/report.html" "$@"; }
chrome --dump-dom >dom.html
[ "$(count 'class="chart"' dom.html)" -eq 5 ] && [ "$(count 'data-chart="intervals"' dom.html)" -eq 2 ] &&
	[ "$(count 'data-test="fileserver-fs"' dom.html)" -eq 1 ] &&
	ok "the rendered DOM: 5 charts, 2 of them a drive's split" ||
	not_ok "the rendered DOM: $(count 'class="chart"' dom.html) charts"
chrome --screenshot="$T/shot.png" --window-size=1280,3000 >/dev/null
[ "$(stat -c %s shot.png 2>/dev/null || echo 0)" -gt 50000 ] && ok "Chromium draws the page" ||
	not_ok "Chromium draws the page"
# the same split without the report: in the result's info, each class's mean per interval (us)
jq_check "the run keeps the split itself: nosql.split.CLASS, a mean per interval, as jq computes it" a.json '
	(.workload.options.intervals | tonumber) as $n | .points[0].series as $ser | ($ser | length) as $s | .info as $info
	| [.points[0].classes | keys[] | select(. != "total")] as $cls | ($cls | length) > 5 and
	([$cls[] as $c | range(0; $n) as $k
	  | [$ser[($k * $s / $n | floor):(($k + 1) * $s / $n | floor)][]
	     | {ops: (.classes[$c].ops_per_s * (.dur_s // 1) | round), mean: .classes[$c].mean_ns} | select(.ops > 0)] as $sec
	  | ($sec | map(.ops) | add // 0) as $ops
	  | ($info["nosql.split." + $c] // "" | split(",")) as $v | ($v | length) == $n and
	    (if $ops == 0 then $v[$k] == "-"
	     else (($sec | map(.ops * .mean) | add) / $ops / 1e3) as $want
	        | (($v[$k] | tonumber) - $want | fabs) <= 0.01 * $want + 0.1 end)] | all)'
finish
