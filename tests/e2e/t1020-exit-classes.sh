#!/usr/bin/env bash
# Exit classes: bad input is 2 with one line before anything runs (a directory
# where a file is needed, a --json or --csv that cannot be written); a run
# killed outright leaves a document that says it is incomplete.
. tests/e2e/lib.sh
cd "$T"
"$APPIO" run 4k-randwrite --target f.dat --size 4M --time 1 >/dev/null 2>&1
mkdir adir

for p in 4k-randread 4k-randwrite oltp tpcc; do
	expect_exit 2 "$p on a directory: exit 2" -- "$APPIO" run $p --target adir --time 1
	grep -q "'adir' is a directory" "$T/stderr" && ok "$p on a directory: says 'is a directory'" ||
		not_ok "$p on a directory: says 'is a directory'"
	one_line_error "$p on a directory: one line"
done

expect_exit 2 "--json into a missing folder: exit 2 before the run" -- \
	"$APPIO" run 4k-randread --target f.dat --time 3 --json nodir/r.json
grep -q -- "--json: cannot write 'nodir/r.json'" "$T/stderr" && ok "--json: the message names it" ||
	not_ok "--json: the message names it"
grep -q "point" "$T/stdout" && not_ok "--json: nothing ran" || ok "--json: nothing ran"
expect_exit 2 "--json naming a directory: exit 2" -- "$APPIO" run 4k-randread --target f.dat --time 1 --json adir
one_line_error "--json naming a directory: one line"
expect_exit 2 "--csv into a missing folder: exit 2 before the run" -- \
	"$APPIO" run 4k-randread --target f.dat --time 3 --csv nodir/series
grep -q -- "--csv: cannot write" "$T/stderr" && ok "--csv: the message names it" || not_ok "--csv: the message names it"
[ -z "$(ls adir)" ] && [ ! -e r.json.tmp ] && ok "the checks leave no file behind" ||
	not_ok "the checks leave no file behind"

# a document saved between points says it is incomplete; SIGKILL leaves it that way
"$APPIO" run 4k-randread --target f.dat --threads 1,2,4 --time 2 --json kill.json >/dev/null 2>&1 &
pid=$!
for _ in $(seq 600); do [ -s kill.json ] && break; sleep 0.1; done   # the first point is in
kill -KILL $pid
wait $pid 2>/dev/null
jq_check "a run killed after its first point: the document says incomplete" kill.json \
	'.incomplete == true and .interrupted == true and (.points | length) == 1'
check "appio itself reads that document" "$APPIO" report kill.json
"$APPIO" run 4k-randread --target f.dat --threads 1,2 --time 1 --json whole.json >/dev/null 2>&1
jq_check "a finished run: complete" whole.json '.incomplete == false and .interrupted == false and (.points | length) == 2'

# -o never overwrites one of the inputs, by its name or through a link
cp whole.json keep.json
expect_exit 2 "report -o naming its own input: exit 2" -- "$APPIO" report whole.json -o whole.json
one_line_error "report -o naming its own input: one line"
grep -q "is one of the results read" "$T/stderr" && ok "report -o: the message says why" ||
	not_ok "report -o: the message says why"
ln -s whole.json link.json
expect_exit 2 "report -o through a link to an input: exit 2" -- "$APPIO" report keep.json whole.json -o link.json
cmp -s whole.json keep.json && ok "the input is untouched" || not_ok "the input is untouched"
finish
