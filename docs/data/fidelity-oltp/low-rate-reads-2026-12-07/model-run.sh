#!/bin/bash
# the InnoDB model on ram-slow as server-run.sh: WU s warm-up point, then T s measured; its counters a txn
# FAST=1: no throttle; EXTRA: more options for appio run oltp (--rate 120). Run as root.
set -u
A=${A:-./appio}; W=${W:-/tmp/rs}; T=${T:-120}; WU=${WU:-120}; BP=${BP:-128M}
. "$(dirname "$0")/lib.sh"
ram_up
CG=/sys/fs/cgroup/blkio/appio-rs; mkdir -p $CG
F=$W/mnt/emu.dat
$A run 128k-seqread --target $F --size 4096M --time 1 >/dev/null; sync -f $F
if [ "${FAST:-0}" = 0 ]; then echo "$MM 300" > $CG/blkio.throttle.read_iops_device; echo "$MM 300" > $CG/blkio.throttle.write_iops_device; fi
sync; echo 3 > /proc/sys/vm/drop_caches
bash -c "echo \$\$ > $CG/cgroup.procs; exec $A run oltp --target $F --size 4096M --engine-model innodb --buffer-pool $BP --tables 4 --table-size 250000 --threads 4,4 --warmup-points 1 --time $T --warmup-txns ${WTX:-0} ${EXTRA:-} --json $W/emu.json" >/dev/null 2>$W/emu.err
jq -r '.points[] | "TPS \(.classes.txn.ops_per_s) time \(.elapsed_s // .time_s // "")"' $W/emu.json
jq -r '.points[-1].counters as $c | $c | to_entries[] | "  \(.key) \(.value) \(.value / $c.txns)"' $W/emu.json
ram_down; rmdir $CG
