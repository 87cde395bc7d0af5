# fidelity-lib.sh - sourced by the tests of the fidelity scripts without
# servers (t0720 oltp, t0721 tpcc), after lib.sh: the checks they share on
# the kept references (REF/NAME.json) and emulated results (REF/emulated).

# fid_for KIND: the script of KIND's matrix (oltp, tpcc) and what it reads:
# F, REF (its kept data), MATRIX, and DIR (its folder, exported for it)
fid_for() {
	F=scripts/fidelity-$1.sh
	REF=docs/data/fidelity-$1
	MATRIX=scripts/fidelity-$1.matrix
	export DIR=$T/fid
}

# fid_kept F REF MATRIX WANT...: every configuration of MATRIX has its kept
# counters and results; the script F compares them (--emu-from) and its
# baseline holds; the report has a line matching each WANT and one row per
# configuration and thread count
fid_kept() {
	local f=$1 ref=$2 matrix=$3 names missing= c want rows pts
	shift 3
	names=$(awk '!/^[ \t]*#/ && NF { print $1 }' "$matrix")
	for c in $names; do
		[ -s "$ref/$c.json" ] && [ -s "$ref/emulated/$c.jsonl" ] || missing+=" $c"
	done
	[ -z "$missing" ] && ok "every configuration has its real counters and emulated results" ||
		not_ok "no reference for:$missing"
	check "the kept results compare and the baseline holds" "$f" --emu-from "$ref/emulated" --check-baseline
	for want in "$@"; do
		grep -q "$want" "$DIR/report.txt" && ok "the report has '$want'" || not_ok "the report has '$want'"
	done
	rows=$(awk '$1 ~ /^[mp]-/ && $2 ~ /^(cal|out)$/' "$DIR/report.txt" | wc -l)
	pts=$(for c in $names; do jq '.points | length' "$ref/$c.json"; done | awk '{ s += $1 } END { print s }')
	[ "$rows" -eq "$pts" ] && ok "one row per configuration and thread count ($rows)" ||
		not_ok "$rows rows for $pts points"
}

# fid_pushed_out F REF: a held-out redo cell of REF's baseline, its redo a
# transaction made 4x (a quarter of the transactions), fails F's check,
# which names it
fid_pushed_out() {
	local f=$1 ref=$2 cell name threads
	cell=$(awk '$3 == "redo"' "$ref/baseline.tsv" | head -n 1)
	if [ -z "$cell" ]; then
		not_ok "the baseline has a held-out redo cell within target"
		return
	fi
	read -r name threads _ <<<"$cell"
	cp -r "$ref/emulated" "$T/emu"
	jq -c --argjson t "$threads" 'if .threads == $t then .c.txns /= 4 else . end' \
		"$ref/emulated/$name.jsonl" >"$T/emu/$name.jsonl"
	expect_exit 1 "redo 4x off at $name, $threads threads: the check fails" -- \
		"$f" --emu-from "$T/emu" --check-baseline --only "$name"
	grep -q "^  $name $threads redo$" "$T/stdout" && ok "it names the cell" ||
		{ not_ok "it names the cell"; head -n 5 "$T/stdout" | sed 's/^/    /'; }
}

# fid_refused F EMU DESC LINE: a matrix of the one LINE is refused by F (with
# --emu-from EMU) in one line of error that names the file and line
fid_refused() {
	printf '%s\n' "$4" >"$T/bad.matrix"
	expect_exit 2 "$3 is refused" -- "$1" --matrix "$T/bad.matrix" --emu-from "$2"
	one_line_error "  in one line"
	grep -q "bad.matrix:1" "$T/stderr" && ok "  naming the file and line" || not_ok "  naming the file and line"
}
