#!/bin/bash
# after 'appio db prepare' of TABLES x ROWS (oltp_read_write) or tpcc:W (tpcc, one set of W warehouses): the system tablespace's size and its undo pages by extent (ever written; still in use)
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; BP=${BP:-128M}
. "$(dirname "$0")/lib.sh"
ram_up
for tr in ${LOADS:-4x100000 8x250000 2x1000000}; do
  srv_start
  case $tr in
  tpcc:*) $A db prepare tpcc --tables 1 --scale ${tr#tpcc:} $conn --threads 2 >/dev/null ;;
  *) $A db prepare oltp_read_write --tables ${tr%x*} --table-size ${tr#*x} $conn --threads 2 >/dev/null ;;
  esac
  srv_stop
  echo "== $tr: ibdata1 $(stat -c %s $SRV/data/ibdata1) bytes"
  for r in "" -r; do
    innochecksum $r -D $W/ibd.txt $SRV/data/ibdata1 >/dev/null 2>&1
    echo "undo pages by extent${r:+ (in use)}: $(grep '^#::' $W/ibd.txt | grep 'Undo log' | sed 's/^#:://' | awk -F'|' '{c[int(($1+0)/64)]++} END {for (e in c) printf "%d:%d ", e, c[e]}')"
  done
  rm -rf $SRV $W/ibd.txt
done
ram_down
