#!/usr/bin/env bash
# appio suite quick end to end on a small file, scaled down further through
# its overrides: every phase is in the one JSON document with its result;
# bad overrides are refused before anything runs; Ctrl-C keeps a readable
# partial document; appio run --steady-state records its rounds.
. tests/e2e/lib.sh
cd "$T"

# ---- bad input: one line, exit 2, nothing run ----
expect_exit 2 "an unknown suite is refused" -- "$APPIO" suite nope
one_line_error "  with one line"
expect_exit 2 "an unknown profile is refused" -- "$APPIO" suite quick --target f.dat --profiles 4k-randread,nope
grep -q "'nope'" "$T/stderr" && ok "  naming it" || not_ok "  naming it: $(cat "$T/stderr")"
expect_exit 2 "a profile listed twice is refused" -- "$APPIO" suite quick --target f.dat --profiles 4k-randread,4k-randread
grep -q "'precondition 4k-randread' comes twice" "$T/stderr" && ok "  naming the phase" ||
	not_ok "  naming the phase: $(cat "$T/stderr")"
expect_exit 2 "a bad phase option is refused before anything runs" -- \
	"$APPIO" suite quick --target f.dat --sweep-args '--bogus 1'
grep -q "sweep 4k-randread: unknown option '--bogus'" "$T/stderr" && ok "  naming the phase and option" ||
	not_ok "  naming the phase and option: $(cat "$T/stderr")"
[ ! -e f.dat ] && ok "  and no target was created" || not_ok "  and no target was created"
expect_exit 2 "NAME:ARGS must name a phase" -- "$APPIO" suite quick --target f.dat --pre-args 'nosuch:--time 1'
one_line_error "  with one line"
expect_exit 2 "a target that cannot be opened is bad input, not N failed phases" -- \
	"$APPIO" suite quick --target nodir/f.dat --json bad.json --profiles 4k-randread --apps none
grep -q "^appio: suite: fill: --target: .*nodir/f.dat" "$T/stderr" && ok "  naming the target" ||
	not_ok "  naming the target: $(cat "$T/stderr")"
jq_check "  its document says where it stopped" bad.json \
	'.complete == false and .phases[0].status == "failed" and .phases[1].status == "pending"'

# ---- the whole shape, in about half a minute ----
SMALL=(--target f.dat --size 96M --json s.json --round-time 1 --max-rounds 2 --time 1 --threads 2 --qd 4
       --write-sweep 0,100 --app-time 1 --app-threads 2 --db-time 1 --db-threads 2
       --pre-args '4k-randread:--max-rounds 5' --app-args 'oltp:--table-size 2000')
expect_exit 0 "suite quick runs" -- "$APPIO" suite quick "${SMALL[@]}"
jq_check "the document names the suite and is complete" s.json \
	'.suite == "quick" and .complete == true and .interrupted == false and .format_version == 1'
jq_check "fill comes first, at least one pass" s.json \
	'.phases[0] | .name == "fill" and .kind == "precondition" and .status == "done" and .fill.passes >= 1'
for p in 4k-randread 4k-randwrite 8k-70-30 128k-seqread 128k-seqwrite database email fileserver webserver; do
	jq_check "$p: preconditioned at 16T/16Q, rounds and verdict recorded" s.json "
		.phases[] | select(.name == \"precondition $p\") | .status == \"done\" and
		(.steady_state.rounds | length) == (.result.points | length) and
		(.steady_state.reached | type) == \"boolean\" and .steady_state.window.avg > 0 and
		all(.result.points[]; .threads == 16 and .qd == 16 and (.series | length) >= 1)"
	jq_check "$p: swept after its preconditioning" s.json "
		[.phases[].name] as \$n | (\$n | index(\"precondition $p\")) + 1 == (\$n | index(\"sweep $p\")) and
		(.phases[] | select(.name == \"sweep $p\") | .status == \"done\" and .result.points[0].classes.total.ops > 0)"
done
jq_check "4k-randread ran up to 5 rounds (its own override)" s.json \
	'.phases[] | select(.name == "precondition 4k-randread") | .steady_state.max_rounds == 5 and .steady_state.rounds_run >= 2'
jq_check "webserver is preconditioned with writes" s.json \
	'.phases[] | select(.name == "precondition webserver") | .result.points[0].classes.write.ops > 0'
jq_check "the write-% sweep has a point per percentage" s.json \
	'.phases[] | select(.name == "write sweep 8k") | [.result.points[].write_pct] == [0, 100]'
# profile and db have phases of their own; replay needs a trace, so the suite has no phase of it
napps=$("$APPIO" list | awk '/^emulators/{e=1;next} /^$/{e=0} e && $1 != "profile" && $1 != "db" && $1 != "replay"{n++} END{print n+0}')
jq_check "every application emulator ran ($napps)" s.json \
	"[.phases[] | select(.kind == \"application\" and .status == \"done\" and .result.points[0].threads == 2)] | length == $napps"
jq_check "the SQLite OLTP run ran and left no database file" s.json \
	'.phases[-1] | .kind == "database" and .driver == "sqlite" and .status == "done" and .prepare.rows > 0 and .result.points[0].classes.txn.ops > 0'
[ ! -e appio-suite-scratch ] && [ ! -e appio-suite-sqlite.db ] && ok "  (the SQLite file and its folder are gone)" ||
	not_ok "  (the SQLite file and its folder are gone)"
jq_check "every phase has a headline figure with its unit" s.json \
	'all(.phases[]; .headline.value > 0 and (.headline.metric | test("^(IOPS|MB/s|TPS|loops/s)$")))'
grep -q "^== sweep 4k-randread done in .*IOPS at 2T/4Q" "$T/stdout" && ok "a phase ends with its headline line" ||
	not_ok "a phase ends with its headline line"
grep -q "round 2/5: .* IOPS, mean .*suite ETA <=" "$T/stdout" && ok "round lines show round and ETA" ||
	not_ok "round lines show round and ETA"

# ---- Ctrl-C: a readable partial document, exit 130 ----
"$APPIO" suite quick --target f.dat --json int.json --fill-passes 0 --profiles 4k-randread --round-time 2 \
	--max-rounds 5 --apps none --db none >int.out 2>&1 &
pid=$!
# once the document holds a finished round (it is rewritten after each one)
wait_for 30 jq -e '.phases[0].steady_state.rounds | length >= 1' int.json ||
	not_ok "a round finished in 30 s"
kill -INT $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok "an interrupted suite exits 130" || not_ok "an interrupted suite exits 130 (got $rc)"
jq_check "its document is readable and says interrupted" int.json \
	'.interrupted == true and .complete == false and .phases[0].status == "interrupted" and
	 (.phases[0].steady_state.rounds | length) >= 1 and .phases[1].status == "pending"'

# ---- appio run --steady-state ----
expect_exit 0 "run --steady-state" -- "$APPIO" run 4k-randread --target f.dat --threads 2 --qd 4 \
	--steady-state --round-time 1 --max-rounds 6 --time 1 --json ss.json
jq_check "the run records its rounds and the verdict before the sweep" ss.json \
	'(.precondition.rounds | length) == .precondition.steady_state.rounds_run and
	 .precondition.steady_state.rounds_run >= 5 and (.points | length) == 1'
grep -q "^steady state \(reached at round\|not reached after\)" "$T/stdout" && ok "  and says whether it was reached" ||
	not_ok "  and says whether it was reached"
finish
