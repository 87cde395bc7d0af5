#!/usr/bin/env bash
# Ctrl-C stops within a second, keeps the finished points and marks the partial one.
. tests/e2e/lib.sh
cd "$T"
"$APPIO" run 4k-randwrite --target f.dat --size 16M --time 1 >/dev/null 2>&1

# the JSON is rewritten after each point: once it holds the first one, the
# second point (2 threads) is running; interrupt it a second in
"$APPIO" run 4k-randread --target f.dat --threads 1,2 --time 3 --json int.json >out 2>err &
pid=$!
wait_for 30 jq -e '.points | length == 1' int.json || not_ok "the first point finished in 30 s"
sleep 1
start=$(date +%s%N)
kill -INT $pid
wait $pid
rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
[ $rc -eq 130 ] && ok "interrupted run exits 130" || not_ok "interrupted run exits 130 (got $rc)"
[ $ms -lt 1000 ] && ok "it stopped within a second ($ms ms)" || not_ok "it stopped within a second ($ms ms)"
jq_check "the JSON says interrupted" int.json '.interrupted == true'
jq_check "the finished point is kept whole" int.json '.points[0] | .threads == 1 and .partial == false and .time_s == 3'
jq_check "the interrupted point is kept, marked partial" int.json \
	'.points[1] | .threads == 2 and .partial == true and .time_s > 0.5 and .time_s < 3 and .classes.total.ops > 0'
grep -q "(p)" out && ok "the table marks the partial point" || not_ok "the table marks the partial point"

# SIGTERM as well, during the first point: once its worker thread runs
"$APPIO" run 4k-randread --target f.dat --time 5 --json term.json >/dev/null 2>&1 &
pid=$!
threads() { [ "$(ls "/proc/$pid/task" | wc -l)" -ge 2 ]; }
wait_for 30 threads || not_ok "the run started its worker in 30 s"
sleep 0.5
kill -TERM $pid
wait $pid
rc=$?
[ $rc -eq 130 ] && ok "SIGTERM exits 130" || not_ok "SIGTERM exits 130 (got $rc)"
jq_check "SIGTERM keeps the partial point" term.json '.points | length == 1 and .[0].partial == true'
finish
