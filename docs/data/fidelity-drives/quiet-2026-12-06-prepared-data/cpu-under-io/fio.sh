#!/bin/bash
# fio.sh DIR MODE SECS: background I/O
case $2 in
wsync) fio --name=w --directory=$1 --size=512M --rw=randwrite --bs=8k --fsync=1 --ioengine=psync --runtime=$3 --time_based --output=/dev/null ;;
rdir) fio --name=r --directory=$1 --size=512M --rw=randread --bs=8k --direct=1 --ioengine=psync --runtime=$3 --time_based --output=/dev/null ;;
wbuf) fio --name=b --directory=$1 --size=2G --rw=write --bs=1M --ioengine=psync --runtime=$3 --time_based --output=/dev/null ;;
esac
