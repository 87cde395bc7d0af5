#!/bin/bash
# MariaDB (fast ram loop): history list length sampled every 0.1 s, at --rate 120 and unlimited, 4 threads
set -u
A=${A:-./appio}; R=${R:-.}; W=${W:-/tmp/rs}; BP=${BP:-128M}
. "$(dirname "$0")/lib.sh"
ram_up
srv_start innodb_monitor_enable=all
srv_prepare
q="SELECT CONCAT_WS(' ', ROUND(UNIX_TIMESTAMP(NOW(3)),2), (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='COM_COMMIT'), (SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME='INNODB_HISTORY_LIST_LENGTH'), (SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME='purge_upd_exist_or_extern_records'), (SELECT COUNT FROM information_schema.INNODB_METRICS WHERE NAME='purge_invoked'))"
for R8 in 120 0; do
  $A db run oltp_read_write --tables 4 --table-size 250000 $conn --threads 4 --time 40 --rate $R8 >/dev/null &
  sleep 10
  for i in $(seq 1 200); do q "$q"; sleep 0.1; done > $W/hist-$R8.txt
  wait
done
srv_stop
ram_down
for R8 in 120 0; do awk -v r=$R8 'NR==1{c0=$2;t0=$1} {h+=$3; n++; if ($3>mx) mx=$3; c=$2; t=$1} END {tps=(c-c0)/(t-t0); printf "rate %s: TPS %.0f history mean %.0f max %d -> lag %.0f ms\n", r, tps, h/n, mx, h/n/tps*1000}' $W/hist-$R8.txt; done
