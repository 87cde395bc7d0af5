#!/usr/bin/env bash
# The tpcc fidelity matrix without servers: the real servers' counters kept
# in docs/data/fidelity-tpcc compared with the emulator's results kept beside
# them (scripts/fidelity-tpcc.sh --emu-from), the baseline check failing when
# a held-out cell that was within target leaves it, the drive's figures at
# the report's end, and a malformed matrix refused in one line.
. tests/e2e/lib.sh
F=scripts/fidelity-tpcc.sh
REF=docs/data/fidelity-tpcc
MATRIX=scripts/fidelity-tpcc.matrix
export DIR=$T/fid

names=$(awk '!/^[ \t]*#/ && NF { print $1 }' "$MATRIX")
missing=
for c in $names; do
	[ -s "$REF/$c.json" ] && [ -s "$REF/emulated/$c.jsonl" ] || missing+=" $c"
done
[ -z "$missing" ] && ok "every configuration has its real counters and emulated results" ||
	not_ok "no reference for:$missing"

# --- the kept comparison ---
check "the kept results compare and the baseline holds" "$F" --emu-from "$REF/emulated" --check-baseline
for want in "^mariadb (real/emulated" "^postgres (real/emulated" "^summary held-out" "^summary calibrate" \
	"^latency by type" "^the drive: an 8 KiB write made durable"; do
	grep -q "$want" "$DIR/report.txt" && ok "the report has '$want'" || not_ok "the report has '$want'"
done
rows=$(awk '$1 ~ /^[mp]-/ && $2 ~ /^(cal|out)$/' "$DIR/report.txt" | wc -l)
pts=$(for c in $names; do jq '.points | length' "$REF/$c.json"; done | awk '{ s += $1 } END { print s }')
[ "$rows" -eq "$pts" ] && ok "one row per configuration and thread count ($rows)" ||
	not_ok "$rows rows for $pts points"
drv=$(awk '/^the drive:/ { on = 1; next } on && $1 ~ /^[mp]-/ { n++ } END { print n + 0 }' "$DIR/report.txt")
[ "$drv" -eq "$(wc -w <<<"$names")" ] && ok "the drive's figures: a line per configuration ($drv)" ||
	not_ok "the drive's figures: $drv lines"

# --- a held-out cell pushed out of its target fails the check ---
cell=$(awk '$3 == "redo"' "$REF/baseline.tsv" | head -n 1)
if [ -z "$cell" ]; then
	not_ok "the baseline has a held-out redo cell within target"
else
	read -r name threads _ <<<"$cell"
	cp -r "$REF/emulated" "$T/emu"
	# a quarter of the transactions for the same counters: 4x the redo per transaction
	jq -c --argjson t "$threads" 'if .threads == $t then .c.txns /= 4 else . end' \
		"$REF/emulated/$name.jsonl" >"$T/emu/$name.jsonl"
	expect_exit 1 "redo 4x off at $name, $threads threads: the check fails" -- \
		"$F" --emu-from "$T/emu" --check-baseline --only "$name"
	grep -q "^  $name $threads redo$" "$T/stdout" && ok "it names the cell" ||
		{ not_ok "it names the cell"; head -n 5 "$T/stdout" | sed 's/^/    /'; }
fi

# --- bad input ---
printf 'a mariadb 1 32M 32M 2\n' >"$T/bad.matrix"
expect_exit 2 "a line of 6 fields is refused" -- "$F" --matrix "$T/bad.matrix" --emu-from "$REF/emulated"
one_line_error "6 fields: one line"
grep -q "bad.matrix:1" "$T/stderr" && ok "the message names the file and line" || not_ok "the message names the file and line"
printf 'a mariadb one 32M 32M 2 heldout\n' >"$T/bad.matrix"
expect_exit 2 "a scale that is not a number is refused" -- "$F" --matrix "$T/bad.matrix" --emu-from "$REF/emulated"
one_line_error "scale not a number: one line"
expect_exit 2 "an unknown argument is refused" -- "$F" --replay
one_line_error "unknown argument: one line"
finish
