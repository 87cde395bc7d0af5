#!/usr/bin/env bash
# The tpcc fidelity matrix without servers: the real servers' counters kept
# in docs/data/fidelity-tpcc compared with the emulator's results kept beside
# them (scripts/fidelity-tpcc.sh --emu-from), the baseline check failing when
# a held-out cell that was within target leaves it, the drive's figures at
# the report's end, and a malformed matrix refused in one line.
. tests/e2e/lib.sh
. tests/e2e/fidelity-lib.sh
fid_for tpcc

# --- the kept comparison; a held-out cell pushed out of its target fails the check ---
fid_kept "$F" "$REF" "$MATRIX" "^mariadb (real/emulated" "^postgres (real/emulated" "^summary held-out" \
	"^summary calibrate" "^latency by type" "^the drive: an 8 KiB write made durable"
n=$(awk '!/^[ \t]*#/ && NF' "$MATRIX" | wc -l)
drv=$(awk '/^the drive:/ { on = 1; next } on && $1 ~ /^[mp]-/ { n++ } END { print n + 0 }' "$DIR/report.txt")
[ "$drv" -eq "$n" ] && ok "the drive's figures: a line per configuration ($drv)" ||
	not_ok "the drive's figures: $drv lines for $n configurations"
fid_pushed_out "$F" "$REF"

# --- bad input ---
fid_refused "$F" "$REF/emulated" "a line of 6 fields" 'a mariadb 1 32M 32M 2'
fid_refused "$F" "$REF/emulated" "a scale that is not a number" 'a mariadb one 32M 32M 2 heldout'
expect_exit 2 "an unknown argument is refused" -- "$F" --replay
one_line_error "unknown argument: one line"
finish
