#!/usr/bin/env bash
# The buyer's summary and the cost section of 'appio report' and 'appio
# compare': two short runs on the null engine with a recorded --slo; the
# summary is the page's first section, ranks the drives with a winner per
# row, and with --price/--dwpd the cost section gives throughput per unit
# of price, price per TB and how long the rated endurance lasts; bad forms
# are one line, exit 2. Headless Chromium then renders the page with a
# test-only script appended (the report itself has none) that checks the
# sections are laid out and visible, in order, and that no script error
# happened. About 10 s (Chromium about 3 of them).
. tests/e2e/lib.sh
cd "$T"
for d in a b; do
	expect_exit 0 "a run on drive $d with --slo p99=1s" -- "$APPIO" run 4k-randwrite --engine null \
		--target $d.dat --size 16M --qd 1,4 --time 1 --slo p99=1s --json $d.json
done
OPTS=(--label a.json=A --label b.json=B --price a.json=1299 --price b.json=899.5 --dwpd a.json=1 --currency EUR)
expect_exit 0 "compare with prices" -- "$APPIO" compare a.json b.json "${OPTS[@]}"
grep -q '^sweep 4k-randwrite (reference 1T/4Q; SLO p99=1s)$' "$T/stdout" &&
	grep -qE '^  1   [AB] .* IOPS   within SLO [0-9,]+ IOPS at 1T/[14]Q   winner$' "$T/stdout" &&
	ok "  the summary: the recorded limits, a ranked winner" || { not_ok "  the summary"; cat "$T/stdout"; }
# 16 MiB targets: 1.6777216e-5 TB; 1299 / that = 77,426,434 per TB, 899.5 / that = 53,614,378
grep -qE '^A +1299 +1\.678e-05 +77426434 +1$' "$T/stdout" &&
	grep -qE '^B +899\.5 +1\.678e-05 +53614378 +-$' "$T/stdout" &&
	ok "  price, size and price per TB per drive" || { not_ok "  price per TB"; grep -A3 '== cost' "$T/stdout"; }
# IOPS per EUR at the SLO point; DWPD = written bytes/s there x 86400 / 16 MiB
awk '/^sweep 4k-randwrite:$/ {on = 1; next} on && /^  A / {print; exit}' "$T/stdout" >a.line
read -r ipe dw < <(sed -E 's/^  A +([0-9.]+) IOPS\/EUR  ([0-9.e+]+) DWPD, lasts .*$/\1 \2/' a.line)
want=$(jq -r '.points[.slo.best.index] |
	[.classes.total.ops_per_s / 1299, .classes.write.bytes / .time_s * 86400 / 16777216] | @tsv' a.json)
python3 -c '
import sys
ipe, dw = float(sys.argv[1]), float(sys.argv[2])
w_ipe, w_dw = map(float, sys.argv[3].split())
sys.exit(0 if abs(ipe - w_ipe) <= 0.001 * w_ipe + 1 and abs(dw - w_dw) <= 0.001 * w_dw + 1 else 1)
' "${ipe:-x}" "${dw:-x}" "$want" 2>/dev/null && ok "  IOPS per EUR and DWPD from the SLO point's figures" ||
	{ not_ok "  cost figures"; cat a.line; echo "    want $want"; }
# a drive rated 1 DWPD for 5 years, written at millions of drive writes a day, lasts no time
grep -qE '^  A .* DWPD, lasts 0\.0 years$' "$T/stdout" && ok "  the rated drive's life" ||
	not_ok "  the rated drive's life"

expect_exit 2 "--price with a bad amount" -- "$APPIO" compare a.json b.json --price a.json=cheap
one_line_error "  one line"
grep -q -- "--price: expected FILE=NUMBER" "$T/stderr" && ok "  naming the option and form" ||
	not_ok "  naming the option and form"
expect_exit 2 "--dwpd for a file not read" -- "$APPIO" compare a.json b.json --dwpd c.json=1
one_line_error "  one line"
expect_exit 2 "report --slo with a bad form" -- "$APPIO" report a.json --slo p99
one_line_error "  one line"

if ! command -v gnuplot >/dev/null; then
	skip "the HTML summary" "gnuplot is not installed"
	finish
fi
expect_exit 0 "report -o with prices" -- "$APPIO" report a.json b.json -o r.html "${OPTS[@]}"
s=$(grep -n '<section id="summary">' r.html | cut -d: -f1)
f=$(grep -n '<h2 id="drives">' r.html | cut -d: -f1)
[ -n "$s" ] && [ -n "$f" ] && [ "$s" -lt "$f" ] && ok "  the summary comes first" || not_ok "  the summary comes first"
[ "$(grep -o 'class="winner best"' r.html | wc -l)" -eq 1 ] && grep -q 'id="cost-table"' r.html &&
	ok "  one winner in the one row; a cost table" || not_ok "  one winner; a cost table"

if [ -z "$CHROME" ]; then
	skip "rendered in Chromium" "chromium is not installed"
	finish
fi
# the page plus a checking script, which writes its verdict into the DOM
cat >check.js <<'JS'
<script>
function visible(id) {
  var e = document.getElementById(id);
  if (!e) return false;
  var r = e.getBoundingClientRect(), s = getComputedStyle(e);
  return r.width > 100 && r.height > 20 && s.display != "none" && s.visibility != "hidden";
}
var ok = visible("summary") && visible("summary-table") && visible("cost") && visible("cost-table") &&
  document.getElementById("summary").getBoundingClientRect().top <
    document.getElementById("drives").getBoundingClientRect().top &&
  document.querySelectorAll("#summary-table td.winner").length == 1 && window.appioErrors.length == 0;
document.body.setAttribute("data-check", ok ? "ok" : "failed");
</script>
JS
{ sed -e 's|<head>|<head><script>window.appioErrors = []; window.onerror = function (m) { window.appioErrors.push(m); };</script>|' \
      -e 's|</body></html>||' r.html; cat check.js; echo '</body></html>'; } >check.html
chrome_page "$T/check.html" --dump-dom >dom.html
grep -q 'data-check="ok"' dom.html && ok "Chromium: summary and cost visible, first, one winner, no script error" ||
	{ not_ok "Chromium: summary and cost visible"; grep -o 'data-check="[a-z]*"' dom.html; }
finish
