#!/usr/bin/env bash
# Scale-out under mpirun (docs/scale-out.md): 4 ranks on this machine, on the
# null engine and on small files. The aggregate is the sum of the ranks; the
# merged percentiles are those of one histogram fed every rank's samples
# (the reference is computed here, from each rank's histogram in the
# result); %r targets; a bad option, a rank that cannot open its target, a
# rank that fails mid-run; Ctrl-C. Skipped when appio is built without MPI.
. tests/e2e/lib.sh
FAULT_SO="${UNIT_DIR:-$PWD/build/tests}/fault.so"
REPO=$PWD
cd "$T"

if ! "$APPIO" list | grep -q '^scale-out.*Open MPI'; then
	skip "mpi runs" "appio is built without MPI support"
	exit 0
fi
if ! command -v mpirun >/dev/null; then
	skip "mpi runs" "no mpirun (Debian openmpi-bin)"
	exit 0
fi
# shared memory between the ranks of this one machine; no network probing
MPI=(mpirun --oversubscribe --allow-run-as-root -q --mca btl self,vader
	--mca btl_vader_single_copy_mechanism none)
# ASan builds: Open MPI's own allocations outlive MPI_Finalize. The
# suppressions name its libraries, which stacks show only when they are
# unwound in full and its components stay loaded; the fault shim is
# preloaded before the ASan runtime.
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$REPO/tests/e2e/data/lsan-mpi.supp"
ASAN_BASE="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
# Checking a rank for leaks costs some 7 s under ASan (that full unwinding
# at every malloc, then the scan), so three runs check for leaks (the null
# engine, the suite and db run: appio's MPI paths that allocate) and the
# others for memory errors only.
leaks() {  # on|off
	if [ "$1" = on ]; then export ASAN_OPTIONS=$ASAN_BASE:fast_unwind_on_malloc=0
	else export ASAN_OPTIONS=$ASAN_BASE:detect_leaks=0; fi
}
leaks on
export OMPI_MCA_mca_base_component_disable_dlclose=1 PMIX_MCA_mca_base_component_disable_dlclose=1
MPI+=(-x LSAN_OPTIONS -x ASAN_OPTIONS -x OMPI_MCA_mca_base_component_disable_dlclose
      -x PMIX_MCA_mca_base_component_disable_dlclose)
MPIRUN=("${MPI[@]}" -np 4)

# nearest-rank percentile of merged [low, width, count] buckets, as hist.c reports it
PCT='def pct($p): . as $b | ($b | map(.[2]) | add) as $n
	| ([($p / 100 * $n | ceil), 1] | max) as $rank
	| reduce $b[] as $x ({c: 0, v: null};
		if .v == null then .c += $x[2] | (if .c >= $rank then .v = ($x[0] + ($x[1] / 2 | floor)) else . end)
		else . end) | .v;'
MERGED='[.points[0].ranks.per_rank[].hist[]] | group_by(.[0])
	| map([.[0][0], .[0][1], (map(.[2]) | add)]) | sort_by(.[0])'

# -- the null engine: appio's own cost, no drive
expect_exit 0 "4 ranks, null engine" -- "${MPIRUN[@]}" "$APPIO" run 4k-randread --engine null \
	--target 'n%r.dat' --size 1M --threads 1 --time 2 --seed 42 --json null.json
leaks off
jq_check "one document with 4 ranks on 1 host" null.json \
	'.info.mpi_ranks == "4" and .points[0].ranks.ranks == 4 and .points[0].ranks.hosts == 1 and
	 (.points[0].ranks.per_rank | length) == 4'
jq_check "aggregate ops and bytes = the sum of the ranks'" null.json \
	'.points[0] as $p | $p.ranks.class as $c | $p.classes[$c].ops > 0 and
	 $p.classes[$c].ops == ([$p.ranks.per_rank[].ops] | add) and
	 $p.classes[$c].bytes == ([$p.ranks.per_rank[].bytes] | add)'
jq_check "each rank's histogram holds its ops" null.json \
	'all(.points[0].ranks.per_rank[]; .ops == ([.hist[][2]] | add))'
jq_check "the host's figures: 4 ranks, their ops" null.json \
	'.points[0].ranks as $r | $r.per_host[0].ranks == 4 and
	 $r.per_host[0].ops == ([$r.per_rank[].ops] | add)'
for p in 50:p50 90:p90 99:p99 99.9:p999 99.99:p9999; do
	jq_check "merged ${p#*:} = that of one histogram of every rank's samples" null.json \
		"$PCT ($MERGED) as \$b | .points[0] as \$pt | \$pt.classes[\$pt.ranks.class].lat_ns as \$l
		 | (\$b | pct(${p%%:*})) as \$m | ([[\$m, \$l.min] | max, \$l.max] | min) == \$l.${p#*:}"
done
jq_check "merged max and min are the ranks' extremes" null.json \
	'.points[0] as $pt | $pt.classes[$pt.ranks.class].lat_ns.max == ([$pt.ranks.per_rank[].lat_ns.max] | max)'
jq_check "the per-second series sums the ranks" null.json \
	'.points[0] as $pt | ([$pt.series[] | .classes[$pt.ranks.class].ops_per_s * .dur_s] | add) as $s
	 | ($s - $pt.classes[$pt.ranks.class].ops | fabs) <= 0.001 * $pt.classes[$pt.ranks.class].ops + 4'
jq_check "each rank has its own seed stream; rank 0 the document's" null.json \
	'.seed == 42 and .points[0].ranks.per_rank[0].seed == 42 and
	 ([.points[0].ranks.per_rank[].seed] | unique | length) == 4'
[ -f n0.dat ] && [ -f n1.dat ] && [ -f n2.dat ] && [ -f n3.dat ] && [ ! -e 'n%r.dat' ] &&
	ok "per-rank targets made from the %r pattern" || not_ok "per-rank targets made from the %r pattern ($(ls))"
grep -q "4 ranks on 1 host(s); slowest: rank [0-3]" stdout && ok "the table shows the slowest rank" ||
	{ not_ok "the table shows the slowest rank"; sed 's/^/    /' stdout; }
[ "$(grep -c '^appio ' stdout)" -eq 1 ] && ok "one header, from rank 0" ||
	not_ok "one header, from rank 0 ($(grep -c '^appio ' stdout))"

# the report draws each host's share
if command -v gnuplot >/dev/null; then
	"$APPIO" report null.json -o r.html --label null.json=null >/dev/null 2>&1
	grep -q "<table class=\"hosts\" data-drive=\"null\" data-point=\"1T/1Q\"><caption>null, 1T/1Q: 4 ranks on 1 host" r.html &&
		grep -q "<tr data-host=\"$(hostname)\" data-ops-per-s=\"$(jq '.points[0].ranks.per_host[0].ops_per_s' null.json)" r.html &&
		ok "the report shows the per-host spread" || not_ok "the report shows the per-host spread"
else
	skip "the report shows the per-host spread" "no gnuplot"
fi

# -- small files, the sync engine
expect_exit 0 "4 ranks on files" -- "${MPIRUN[@]}" "$APPIO" run 8k-70-30 --engine sync --direct 0 \
	--target 'f%r.dat' --size 2M --threads 1,2 --time 1 --json files.json
jq_check "every point: ops = the sum of the ranks'" files.json \
	'(.points | length) == 2 and all(.points[]; .ranks.class as $c | .classes[$c].ops > 0 and
	  .classes[$c].ops == ([.ranks.per_rank[].ops] | add))'
jq_check "read and write classes add up to the total" files.json \
	'all(.points[]; .classes.total.ops == .classes.read.ops + .classes.write.ops)'

# -- one shared file, a slice per rank
expect_exit 0 "--target-split: 4 ranks share one file" -- "${MPIRUN[@]}" "$APPIO" run 4k-randwrite \
	--engine sync --direct 0 --target shared.dat --size 8M --target-split --time 1 --json split.json
[ "$(stat -c %s shared.dat 2>/dev/null)" = 8388608 ] && ok "the shared file is laid out once, 8M" ||
	not_ok "the shared file is laid out once, 8M"
jq_check "each rank's slice is a quarter" split.json '.target.size == 2097152'

# -- a suite: every phase on every rank, each phase's result merged
leaks on
expect_exit 0 "a short suite on 2 ranks" -- "${MPI[@]}" -np 2 "$APPIO" suite quick --target 's%r.dat' \
	--size 64M --profiles 4k-randread --write-sweep none --apps none --db none --max-rounds 2 --json suite.json
leaks off
jq_check "every phase merged over the 2 ranks" suite.json \
	'(.phases | length) == 3 and all(.phases[]; .status == "done" and .result.points[0].ranks.ranks == 2 and
	  .result.points[0].classes.total.ops == ([.result.points[0].ranks.per_rank[].ops] | add))'
[ -f s0.dat ] && [ -f s1.dat ] && ok "the suite's targets per rank" || not_ok "the suite's targets per rank"

# -- bad input: one line from rank 0, exit 2
expect_exit 2 "a bad option exits 2" -- "${MPIRUN[@]}" "$APPIO" run 4k-randread --threads 0
[ "$(grep -c '^appio:' "$T/stderr")" -eq 1 ] && ok "one error line, not 4" ||
	{ not_ok "one error line, not 4"; sed 's/^/    /' "$T/stderr"; }

# one rank alone finds its options bad (here: other options; in life, a check that
# depends on its host): it says so, naming itself, and the job ends with status 2
start=$SECONDS
expect_exit 2 "a bad option on rank 1 alone exits 2" -- timeout 60 "${MPI[@]}" \
	-np 1 "$APPIO" run 4k-randread --engine null --target n0.dat --time 1 : \
	-np 1 "$APPIO" run 4k-randread --engine null --target n1.dat --threads 0
grep -q "^appio: rank 1 ($(hostname)): --threads: '0' is out of range" "$T/stderr" && [ $((SECONDS - start)) -lt 30 ] &&
	ok "rank 1 names itself, and the job ends within seconds" ||
	{ not_ok "rank 1 names itself, and the job ends within seconds ($((SECONDS - start)) s)"; sed 's/^/    /' "$T/stderr"; }
expect_exit 2 "a --json rank 0 cannot write exits 2 on every rank" -- "${MPIRUN[@]}" "$APPIO" run 4k-randread \
	--engine null --target 'n%r.dat' --time 1 --json "$T/no/such/dir/x.json"
[ "$(grep -c '^appio:' "$T/stderr")" -eq 1 ] && grep -q "^appio: --json: cannot write" "$T/stderr" &&
	ok "... with one line" || { not_ok "... with one line"; sed 's/^/    /' "$T/stderr"; }

# -- a rank that cannot open its target
mkdir d0 d1 d3
expect_exit 2 "rank 2 cannot create its target: exit 2" -- "${MPIRUN[@]}" "$APPIO" run 4k-randwrite \
	--engine sync --target 'd%r/x.dat' --size 1M --time 1
grep -q "^appio: rank 2 ($(hostname)): --target: .*d2/x.dat" "$T/stderr" && [ "$(grep -c '^appio:' "$T/stderr")" -eq 1 ] &&
	ok "one message naming rank 2 and its host" || { not_ok "one message naming rank 2 and its host"; sed 's/^/    /' "$T/stderr"; }

# -- a rank whose writes fail mid-run: the run stops, rank 0 keeps what was measured
if [ -f "$FAULT_SO" ]; then
	expect_exit 1 "rank 2 fails mid-run: exit 1" -- "${MPIRUN[@]}" -x LD_PRELOAD="$FAULT_SO" \
		-x FAULT_OP=pwrite -x FAULT_NTH=300 -x FAULT_PATH=f2.dat \
		"$APPIO" run 4k-randwrite --engine sync --direct 0 --target 'f%r.dat' --time 5 --json fail.json
	grep -q "^appio: rank 2 ($(hostname)): write of 4096 bytes at offset [0-9]* of '.*f2.dat' failed: Input/output error" \
		"$T/stderr" && ok "the message names rank 2, its host and the write" ||
		{ not_ok "the message names rank 2, its host and the write"; sed 's/^/    /' "$T/stderr"; }
	jq_check "the point is saved, partial, rank 2 failed, the others stopped early" fail.json \
		'.points[0].partial and .points[0].time_s < 4 and
		 .points[0].ranks.per_rank[2].status == "Input/output error" and
		 .points[0].ranks.per_rank[0].ops > 0'
else
	skip "rank 2 fails mid-run" "no $FAULT_SO (make unit)"
fi

# -- a transactional emulator under --rate: the units of work are every rank's
expect_exit 0 "oltp at --rate 100 on each of 2 ranks" -- "${MPI[@]}" -np 2 "$APPIO" run oltp \
	--target 'o%r.dat' --size 256M --table-size 2000 --threads 1 --time 2 --ramp 1 --rate 100 --json rate.json
# the point's events are the ranks' units summed, more than any one rank did (a
# unit ending at the window's edge may count as a transaction and not an event).
# Not bounded by 2 x 100 x 2 s: the schedule runs from the ramp's start, so a rank
# held up in the ramp (a loaded machine) catches up in the window, up to the
# 301 starts its whole point holds (measured under load: 410 = 210 + 200)
jq_check "  the units of work summed over the ranks, as the transactions are" rate.json \
	'.points[0] | ([.ranks.per_rank[].ops] | add) as $sum | .events == $sum and
	 .events > ([.ranks.per_rank[].ops] | max) and (.events - .classes.txn.ops | fabs) <= 2 and
	 .events <= 602'

# -- a work-bound point: rank 0 replays a 1 s trace once, rank 1 five times (two
# programs in one run, mpirun's "A : B"); the point lasts until the last rank is
# done, or with --stonewall until the first is
awk 'BEGIN { print "appio-trace 1"; print "device 0 d0"
	for (i = 0; i < 2000; i++) printf "%d - R - 0 %d 4096 - -\n", i * 500000, (i * 4096) % 4194304 }' >r.trace
for sw in "" --stonewall; do
	expect_exit 0 "work-bound point ${sw:-without --stonewall}" -- "${MPI[@]}" \
		-np 1 "$APPIO" run replay --engine null --target 'r%r.dat' --size 4M --trace r.trace --loops 1 \
		--json "wb$sw.json" $sw : \
		-np 1 "$APPIO" run replay --engine null --target 'r%r.dat' --size 4M --trace r.trace --loops 5 $sw
done
jq_check "without --stonewall: every rank's work, over the longest rank's time" wb.json \
	'.points[0].ranks.per_rank as $r | $r[0].ops > 0 and $r[1].ops == 5 * $r[0].ops and
	 .points[0].time_s >= 4.5 and .points[0].classes[.points[0].ranks.class].ops == $r[0].ops + $r[1].ops'
jq_check "--stonewall: the point ends when rank 0 is done" wb--stonewall.json \
	'.points[0].ranks.per_rank as $r | .points[0].time_s < 2.5 and $r[1].ops < 3 * $r[0].ops and
	 (.points[0].partial | not)'

# -- appio db run from every rank against one server: the aggregate TPS is the server's
if command -v mariadbd >/dev/null || command -v mysqld >/dev/null; then
	SRV=$T/db
	if C=$("$REPO/scripts/db-start.sh" mariadb "$SRV" 2>db-start.err | tail -n 1) && [ -n "$C" ]; then
		at_exit "'$REPO/scripts/db-stop.sh' '$SRV'"
		read -r -a CA <<<"$C"
		commits() { mariadb --no-defaults --socket="$SRV/mysqld.sock" -uappio -N \
			-e "SHOW GLOBAL STATUS LIKE 'Com_commit'" | awk '{ print $2 }'; }
		"$APPIO" db prepare oltp_read_write "${CA[@]}" --tables 2 --table-size 1000 >/dev/null 2>&1
		before=$(commits)
		leaks on
		expect_exit 0 "db run: 2 ranks x 2 clients on one server" -- "${MPI[@]}" -np 2 "$APPIO" db run \
			oltp_read_write "${CA[@]}" --tables 2 --table-size 1000 --threads 2 --time 3 --json db.json
		leaks off
		server=$(( $(commits) - before ))
		jq_check "db run: the transactions are the sum of the ranks'" db.json \
			'.points[0] as $p | $p.ranks.class == "txn" and $p.classes.txn.ops > 0 and
			 all($p.ranks.per_rank[]; .ops > 0) and $p.classes.txn.ops == ([$p.ranks.per_rank[].ops] | add)'
		n=$(jq '.points[0].classes.txn.ops' db.json)
		# the server also commits what the 4 clients had in flight when the point ended
		[ "$server" -ge "$n" ] && [ "$server" -le $((n + 4)) ] &&
			ok "db run: the aggregate is what the server committed ($n, server $server)" ||
			not_ok "db run: the aggregate is what the server committed ($n, server $server)"
	else
		skip "db run across ranks" "the MariaDB server did not start: $(tail -n 1 db-start.err)"
		tail -n 5 "$SRV/install.log" 2>/dev/null | sed 's/^/    /'
	fi
else
	skip "db run across ranks" "no MariaDB server"
fi

# -- Ctrl-C on mpirun: every rank stops, rank 0 keeps the results. mpirun's own
# exit status after it was signalled is Open MPI's (1), whatever the ranks
# return; ranks signalled themselves (a batch system, kill) make it 130.
ctrl_c() {  # JSON WHO: start 2 points of 3 s, signal during the second
	"${MPIRUN[@]}" "$APPIO" run 4k-randread --engine null --target 'n%r.dat' --threads 1,2 --time 3 \
		--json "$1" >int.out 2>int.err &
	local pid=$!
	wait_for 20 test -s "$1" || not_ok "the first point was saved"
	sleep 1
	if [ "$2" = mpirun ]; then kill -INT $pid; else pkill -TERM -P $pid; fi
	wait $pid
}
ctrl_c int.json mpirun
rc=$?
[ $rc -ne 0 ] && grep -q '^appio: interrupted; results so far were kept' int.err &&
	ok "Ctrl-C on mpirun: rank 0 says the results were kept (mpirun exits $rc)" ||
	{ not_ok "Ctrl-C on mpirun: rank 0 says the results were kept (exit $rc)"; sed 's/^/    /' int.err | tail -5; }
jq_check "Ctrl-C: both points saved, the second partial, merged over 4 ranks" int.json \
	'.interrupted and (.points | length) == 2 and .points[1].partial and
	 (.points[1].ranks.per_rank | length) == 4 and .points[1].classes.total.ops > 0'
ctrl_c term.json ranks
rc=$?
[ $rc -eq 130 ] && ok "SIGTERM to the ranks: exit 130" || { not_ok "SIGTERM to the ranks: exit 130 (got $rc)"; sed 's/^/    /' int.err | tail -5; }
jq_check "SIGTERM to the ranks: the second point saved, partial" term.json \
	'.interrupted and (.points | length) == 2 and .points[1].partial'
finish
