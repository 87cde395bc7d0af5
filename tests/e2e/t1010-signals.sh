#!/usr/bin/env bash
# Ctrl-C and SIGTERM stop appio within a second outside the run loop too: while
# a file is laid out, while an emulator sets up (its data, a file set of many
# files), and nothing half-made stays behind.
. tests/e2e/lib.sh
cd "$T"

# stop_during DESC SIGNAL DELAY CMD...: start CMD, send SIGNAL after DELAY
# seconds, expect exit 130 within a second of the signal.
stop_during() {
	local desc=$1 sig=$2 delay=$3; shift 3
	"$@" >out 2>err &
	local pid=$! start ms rc
	sleep "$delay"
	if ! kill -0 $pid 2>/dev/null; then
		wait $pid
		not_ok "$desc: still busy after $delay s (it ended with $?)"; sed 's/^/    /' err | tail -3
		return
	fi
	start=$(date +%s%N)
	kill -"$sig" $pid
	wait $pid
	rc=$?
	ms=$(( ($(date +%s%N) - start) / 1000000 ))
	[ $rc -eq 130 ] && ok "$desc: exit 130" || { not_ok "$desc: exit 130 (got $rc)"; tail -3 err | sed 's/^/    /'; }
	[ $ms -lt 1000 ] && ok "$desc: stopped within a second ($ms ms)" ||
		not_ok "$desc: stopped within a second ($ms ms)"
}

# laying out a new file (buffered: the page cache takes it as fast as memory allows)
stop_during "SIGINT while laying out a file" INT 1 \
	"$APPIO" run 4k-randwrite --target lay.dat --size 20G --direct 0 --time 1
[ ! -e lay.dat ] && ok "the half-laid-out file it created is gone" ||
	not_ok "the half-laid-out file it created is gone ($(stat -c %s lay.dat) bytes left)"
grep -q "interrupted while laying out 'lay.dat'" err && ok "the message says where it was" ||
	not_ok "the message says where it was"
stop_during "SIGTERM while laying out a file for oltp" TERM 1 \
	"$APPIO" run oltp --target oltp.dat --size 20G --direct 0 --time 1

# an emulator's own set-up: nosql lays out its stands, a personality builds its file set
stop_during "SIGINT while nosql lays out its data" INT 1 \
	"$APPIO" run nosql --target nosql --data 20G --direct 0 --time 1
[ -z "$(find nosql -name 'stand-*' 2>/dev/null)" ] && ok "no stand is left behind" ||
	not_ok "no stand is left behind"
stop_during "SIGTERM while a file set of 200k files is built" TERM 1.5 \
	"$APPIO" run fileserver-fs --target fs --files 200000 --mean-size 4k --prealloc 90 --time 1
grep -q "interrupted while building the file set" err && ok "the message says so" ||
	not_ok "the message says so"

# the suite passes the flag on to its layout as well
stop_during "SIGINT while the suite lays out its target" INT 1 \
	"$APPIO" suite quick --target suite.dat --size 20G --direct 0 --json suite.json

# report and compare: a signal while a document is being read (a FIFO that no one
# writes keeps the read waiting, a known moment) is an interrupt, not bad input
"$APPIO" run 4k-randread --engine null --target small.dat --size 16M --time 1 --json one.json >/dev/null 2>&1
mkfifo slow.json
blocked() { grep -q wait_for_partner "/proc/$1/wchan"; }
for cmd in report compare; do
	for sig in INT TERM; do
		"$APPIO" $cmd one.json slow.json >out 2>err &
		pid=$!
		if ! wait_for 10 blocked $pid; then
			not_ok "$cmd waits on the FIFO"; kill -KILL $pid; wait $pid; continue
		fi
		kill -$sig $pid
		wait $pid
		rc=$?
		[ $rc -eq 130 ] && ok "SIG$sig while $cmd reads a document: exit 130" ||
			{ not_ok "SIG$sig while $cmd reads a document: exit 130 (got $rc)"; sed 's/^/    /' err; }
	done
done
finish
