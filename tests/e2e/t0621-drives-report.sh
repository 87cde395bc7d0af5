#!/usr/bin/env bash
# scripts/fidelity-drives.sh --report on raw lines made here (no server, no
# root): the ranking of drives by their median TPS over the rounds; a pair
# that the server ran in both orders (faster in one round, slower in another)
# is not held against the emulator, and is named; a pair it ran in one order
# in every round is, and exits 1. A pair with a point of fewer than 100
# measured transactions is marked, and counted under the summary.
. tests/e2e/lib.sh

# raw SIDE DRIVE TPS...: one line a round
raw() {
	local side=$1 drive=$2 r=0 tps
	shift 2
	for tps in "$@"; do
		r=$((r + 1))
		echo "{\"side\":\"$side\",\"server\":\"mariadb\",\"workload\":\"oltp\",\"config\":\"big\",\"drive\":\"$drive\",\"round\":$r,\"threads\":4,\"tps\":$tps,\"p99\":1e7}"
	done
}

# the server: ram faster in rounds 1 and 3, disk in round 2; slow far behind in all
{
	raw real ram 100 90 110
	raw real disk 95 100 90
	raw real slow 10 11 9
	raw emulated ram 90 92 91
	raw emulated disk 100 99 98
	raw emulated slow 10 10 10
} >"$T/open.jsonl"
expect_exit 0 "a pair the server ran in both orders does not fail the ranking" -- \
	scripts/fidelity-drives.sh --report "$T/open.jsonl"
check "  the report names it" grep -qx "  ranking by TPS: real ram > disk > slow, emulated disk > ram > slow (same but for ram/disk, which the server ran in both orders over the rounds)" "$T/stdout"
check "  and counts it in the summary" grep -q "^summary: ranking the same in 1 of 1 configuration(s) (1 but for pairs the server ran in both orders);" "$T/stdout"

# the same medians, but ram faster than disk in every round of the server's
{
	raw real ram 100 105 110
	raw real disk 95 90 100
	raw real slow 10 11 9
	raw emulated ram 90 92 91
	raw emulated disk 100 99 98
	raw emulated slow 10 10 10
} >"$T/settled.jsonl"
expect_exit 1 "a pair the server ran in one order in every round fails the ranking" -- \
	scripts/fidelity-drives.sh --report "$T/settled.jsonl"
check "  as DIFFERENT" grep -qx "  ranking by TPS: real ram > disk > slow, emulated disk > ram > slow (DIFFERENT)" "$T/stdout"
check "  and RANKING DIFFERS last" bash -c "tail -n 1 '$T/stdout' | grep -qx 'RANKING DIFFERS'"

# one round: its order is the server's
raw real ram 100 >"$T/one.jsonl"
raw real disk 95 >>"$T/one.jsonl"
raw emulated ram 90 >>"$T/one.jsonl"
raw emulated disk 100 >>"$T/one.jsonl"
expect_exit 1 "one round: the server's order is its one round's" -- \
	scripts/fidelity-drives.sh --report "$T/one.jsonl"
raw emulated ram 110 >"$T/one-same.jsonl"
grep -v emulated "$T/one.jsonl" >>"$T/one-same.jsonl"
raw emulated disk 100 >>"$T/one-same.jsonl"
expect_exit 0 "  and the same order passes" -- scripts/fidelity-drives.sh --report "$T/one-same.jsonl"
check "  as (same)" grep -qx "  ranking by TPS: real ram > disk, emulated ram > disk (same)" "$T/stdout"
# the measured seconds kept (--time, --slow-time): slow's points hold 10 x 12 s
# = 120 transactions (the median of the rounds), then 8 x 12 s = 96
sed 's/}$/,"time":12}/' "$T/one-same.jsonl" >"$T/timed.jsonl"
raw real slow 10 >>"$T/timed.jsonl"
raw emulated slow 11 >>"$T/timed.jsonl"
sed -i 's/"slow",\(.*\)}$/"slow",\1,"time":12}/' "$T/timed.jsonl"
expect_exit 0 "points of 100 transactions or more" -- scripts/fidelity-drives.sh --report "$T/timed.jsonl"
check "  are not marked" bash -c "! grep -q 'few txns' '$T/stdout'"
sed 's/"tps":10,/"tps":8,/' "$T/timed.jsonl" >"$T/few.jsonl"
expect_exit 0 "a point of 96 transactions" -- scripts/fidelity-drives.sh --report "$T/few.jsonl"
check "  marks its pairs" bash -c "grep -c '^  [a-z/]* .* few txns\$' '$T/stdout' | grep -qx 2"
check "  and not the other" grep -q "^  ram/disk .*(1x)\$" "$T/stdout"
check "  the summary counts them" grep -qx "2 pair(s) marked few txns: .*" "$T/stdout"

# the options are checked before anything is built
expect_exit 2 "--slow-time x is refused" -- scripts/fidelity-drives.sh --slow-time x
one_line_error "  in one line"
check "  naming the option" grep -qx "fidelity-drives: --slow-time must be a whole number > 0, not 'x'" "$T/stderr"
expect_exit 2 "--slow-warmup 0 is refused" -- scripts/fidelity-drives.sh --slow-warmup 0
check "  naming the option" grep -qx "fidelity-drives: --slow-warmup must be a whole number > 0, not '0'" "$T/stderr"
finish
