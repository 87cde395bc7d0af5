#!/usr/bin/env bash
# appio report on two drives' suite results: one self-contained HTML file
# with one chart per test and a ranking table each; headless Chromium
# renders it (a screenshot that is not blank, the charts in the DOM).
# Without -o the text summary; without gnuplot one line and exit 2.
. tests/e2e/lib.sh
cd "$T"
TINY=(--size 64M --profiles 4k-randread,128k-seqread --round-time 1 --max-rounds 2 --time 1 --threads 2
      --qd 2,8 --write-sweep 0,100 --apps oltp --app-time 1 --app-threads 2,4 --app-args 'oltp:--table-size 2000'
      --db-time 1 --db-threads 2,4)
expect_exit 0 "suite on drive A" -- "$APPIO" suite quick --target a.dat --json a.json "${TINY[@]}"
expect_exit 0 "suite on drive B" -- "$APPIO" suite quick --target b.dat --json b.json "${TINY[@]}"

if ! command -v gnuplot >/dev/null; then
	skip "report charts" "gnuplot is not installed"
	finish
fi
expect_exit 0 "report on two results" -- "$APPIO" report a.json b.json -o report.html --label a.json=a --label b.json=b
tests=$(jq -s '[.[].phases[] | select(.kind != "purge" and (.result.points | length) > 0) | .name] | unique | length' a.json b.json)
charts=$(grep -c '<figure class="chart"' report.html)
[ "$charts" -eq "$tests" ] && [ "$tests" -ge 8 ] && ok "one chart per test ($charts)" ||
	not_ok "one chart per test: $charts charts, $tests tests"
svgs=$(grep -c '<svg' report.html)
[ "$svgs" -eq "$charts" ] && ok "every chart is an inline SVG" || not_ok "every chart is an inline SVG ($svgs)"
for t in "fill" "precondition 4k-randread" "sweep 128k-seqread" "write sweep 8k" "oltp" "database oltp_read_write"; do
	grep -q "data-test=\"$t\"" report.html && ok "chart for '$t'" || not_ok "chart for '$t'"
done
grep -q "log scale" report.html && ok "preconditioning latency is on a log scale" || not_ok "log-scale latency"
n=$(grep -o '<tr[^>]*><td>[0-9]*</td><td class="l">[ab]</td>' report.html | wc -l)
[ "$n" -eq $((2 * tests)) ] && ok "a ranking row per drive and test" || not_ok "ranking rows: $n"
grep -q '>a.dat<' report.html && grep -q '>b.dat<' report.html && ok "each drive's target facts" ||
	not_ok "each drive's target facts"
if grep -qiE '<script|<link|src="http|url\(http' report.html; then not_ok "nothing loaded from outside"
else ok "nothing loaded from outside"; fi

expect_exit 0 "report without -o prints the summary" -- "$APPIO" report a.json b.json --label a.json=a --label b.json=b
grep -q "^== sweep 4k-randread (at 2T/8Q)" "$T/stdout" && grep -qE '^1 +[ab] .* IOPS +best' "$T/stdout" &&
	ok "  ranked per test" || not_ok "  ranked per test"
expect_exit 2 "without gnuplot: one line, exit 2" -- env PATH=/nonexistent "$APPIO" report a.json -o x.html
grep -q gnuplot "$T/stderr" && one_line_error "  naming gnuplot" || not_ok "  naming gnuplot"

# ---- Chromium renders it ----
if [ -z "$CHROME" ]; then
	skip "rendered in Chromium" "chromium is not installed"
	finish
fi
chrome() { chrome_page "$T/report.html" "$@"; }
chrome --screenshot="$T/shot.png" --window-size=1280,4000 >/dev/null
[ -s shot.png ] && ok "Chromium takes a screenshot" || not_ok "Chromium takes a screenshot"
# decode the PNG's top 900 rows (the drives table and the first charts) with the standard
# library: how much of it is not white, and in how many colours
read -r inked colours < <(python3 - shot.png <<'EOF'
import struct, sys, zlib
data = open(sys.argv[1], 'rb').read()
pos, chunks, w = 8, b'', 0
while pos < len(data):
    n, kind = struct.unpack('>I4s', data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    elif kind == b'IDAT':
        chunks += body
    pos += 12 + n
bpp = {2: 3, 6: 4}[ctype]
raw, stride, prev, rows = zlib.decompress(chunks), w * bpp, bytearray(w * bpp), []
for y in range(min(h, 900)):
    f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
    for i in range(stride):
        a = line[i - bpp] if i >= bpp else 0
        b, c = prev[i], prev[i - bpp] if i >= bpp else 0
        p = a + b - c
        pr = a if abs(p - a) <= abs(p - b) and abs(p - a) <= abs(p - c) else b if abs(p - b) <= abs(p - c) else c
        line[i] = (line[i] + (0, a, b, (a + b) // 2, pr)[f]) & 255
    rows.append(line)
    prev = line
px = [tuple(r[i:i + 3]) for r in rows[::4] for i in range(0, stride, bpp * 4)]
print(sum(p != (255, 255, 255) for p in px) * 1000 // len(px), len(set(px)))
EOF
)
[ "${inked:-0}" -ge 20 ] && [ "${colours:-0}" -ge 16 ] && ok "the screenshot is not blank (${inked} per mille inked, $colours colours)" ||
	not_ok "the screenshot is not blank (${inked:-?} per mille inked, ${colours:-?} colours)"
chrome --dump-dom >dom.html
dc=$(grep -o '<figure class="chart"' dom.html | wc -l)
dp=$(grep -o '<path' dom.html | wc -l)
[ "$dc" -eq "$tests" ] && [ "$dp" -gt $((tests * 4)) ] && ok "the rendered DOM has $dc charts with their lines" ||
	not_ok "the rendered DOM: $dc charts, $dp paths"
finish
