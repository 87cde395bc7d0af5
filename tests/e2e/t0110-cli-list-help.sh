#!/usr/bin/env bash
# 'appio list' and --help come from the registries and the option tables.
. tests/e2e/lib.sh

"$APPIO" list >"$T/list"
for p in 4k-randread 4k-randwrite 8k-randread 8k-randwrite 8k-70-30 128k-seqread 128k-seqwrite \
	database email fileserver webserver custom; do
	if grep -qE "^  $p +[A-Za-z0-9]" "$T/list"; then ok "list shows profile $p with a description"; else not_ok "list shows profile $p"; fi
done
for e in sync libaio io_uring null; do
	if grep -qE "^  $e +" "$T/list"; then ok "list shows engine $e"; else not_ok "list shows engine $e"; fi
done
grep -q "(default)" "$T/list" && ok "list marks the default engine" || not_ok "list marks the default engine"
for e in profile oltp tpcc nosql db; do
	if grep -qE "^  $e +[A-Za-z]" "$T/list"; then ok "list shows emulator $e"; else not_ok "list shows emulator $e"; fi
done
grep -q "^trace formats" "$T/list" && grep -qE "^  blktrace +[A-Za-z]" "$T/list" &&
	grep -qE "^  fio +[A-Za-z]" "$T/list" && ok "list shows the trace formats" || not_ok "list shows the trace formats"
# what an emulator declares of its own: the database drivers and workloads
grep -q "^database drivers" "$T/list" && grep -qE "^  sqlite +[A-Za-z]" "$T/list" &&
	ok "list shows the database drivers" || not_ok "list shows the database drivers"
for w in oltp_read_write oltp_read_only oltp_write_only oltp_point_select oltp_update_index \
	oltp_update_non_index oltp_insert oltp_delete; do
	if grep -qE "^  $w +[A-Za-z0-9]" "$T/list"; then ok "list shows workload $w"; else not_ok "list shows workload $w"; fi
done

"$APPIO" run --help >"$T/help"
for o in target size threads qd time ramp engine direct json csv seed force write-sweep report-interval; do
	if grep -qE -- "--$o\b" "$T/help"; then ok "run --help explains --$o"; else not_ok "run --help explains --$o"; fi
done
grep -q -- "--time N .*(default: 30)" "$T/help" && ok "run --help gives defaults" || not_ok "run --help gives defaults"

"$APPIO" fileserver --help >"$T/fhelp"
grep -q -- "--bs SPLIT" "$T/fhelp" && ok "'appio PROFILE --help' lists the profile's options" || not_ok "'appio PROFILE --help' lists the profile's options"
grep -q "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10" "$T/fhelp" && ok "the profile's help shows its mix" || not_ok "the profile's help shows its mix"

# an emulator with actions: 'appio NAME --help' names them, and its options come from its table
"$APPIO" db --help >"$T/dhelp"
grep -qE "^  (prepare|cleanup) +[a-z]" "$T/dhelp" && ok "db --help lists its actions" || not_ok "db --help lists its actions"
grep -q -- "--driver mysql|pgsql|sqlite .*(also --db-driver)" "$T/dhelp" && ok "db --help shows an alias" ||
	not_ok "db --help shows an alias"
expect_exit 2 "appio db without an action exits 2" -- "$APPIO" db
finish
