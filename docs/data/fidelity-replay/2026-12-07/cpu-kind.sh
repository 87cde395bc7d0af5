#!/bin/bash
# What kind of CPU load slows the loop device's reads? The trace of frep1
# replayed (bounded, 60 s) on a fresh image, under: burners at the recorded
# share; a real MariaDB (data on tmpfs, no block device) at a rate; nothing.
set -u
A=/work/quiet/appio-thr R=/work/main W=/tmp/ck TR=/tmp/frep1/mariadb.trace
cd $W
dd if=/dev/zero of=disk.img bs=1M count=2048 oflag=direct status=none
RDEV=$(losetup -f --show --sector-size 4096 --direct-io=on disk.img)
busy() { awk '/^cpu /{print $2+$3+$4+$7+$8, $5+$6}' /proc/stat; }
rep() {  # NAME CPULOAD
	local b0 b1
	b0=$(busy)
	$A trace record --device ${RDEV#/dev/} -o rep-$1.trace -- \
		$A run replay --trace $TR --target $RDEV --force --timing bounded --cpu-load $2 --json rep-$1.json > rep-$1.log 2>&1
	b1=$(busy)
	echo "$1: busy $(echo $b0 $b1 | awk '{u=$3-$1; i=$4-$2; printf "%.1f %%", 100*u/(u+i)}')" | tee -a summary.txt
}
mkdir -p tm && mount -t tmpfs -o size=3g tmpfs tm
SRV=$W/tm/srv
conn=$($R/scripts/db-start.sh mariadb $SRV innodb_buffer_pool_size=512M innodb_flush_method=fsync 2>/dev/null | tail -1)
$A db prepare oltp_read_write --tables 4 --table-size 50000 $conn --threads 2 >/dev/null
for round in 1 2; do
rep rec$round recorded
$A db run oltp_read_write --tables 4 --table-size 50000 $conn --threads 4 --time 75 --rate ${RATE:-500} --json db$round.json > db$round.log 2>&1 &
sleep 8
rep db$round off
wait
rep idle$round off
done
$R/scripts/db-stop.sh $SRV >/dev/null
umount tm
losetup -d $RDEV; rm -f disk.img
