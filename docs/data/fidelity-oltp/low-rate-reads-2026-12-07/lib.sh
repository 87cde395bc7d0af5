# lib.sh - what the scripts of this folder share: a RAM loop device with ext4
# on it, and a throwaway MariaDB with SysBench's 4 x 250,000 rows on it.
# Sourced; set A (appio), R (the repository: scripts/db-start.sh), W (work
# folder), BP (the pool) and, for srv_rate_run, RATE first. Run as root.

# The loop device over a 5G file on tmpfs, ext4 mounted at $W/mnt: DEV, MM, SRV.
ram_up() {
	mkdir -p "$W/tm" "$W/mnt"
	mountpoint -q "$W/tm" || mount -t tmpfs -o size=6g tmpfs "$W/tm"
	truncate -s 5G "$W/tm/img"
	DEV=$(losetup -f --show "$W/tm/img")
	mkfs.ext4 -q "$DEV"
	mount "$DEV" "$W/mnt"
	MM=$(lsblk -dno MAJ:MIN "$DEV" | tr -d ' ')
	SRV=$W/mnt/srv
}

ram_down() {
	umount "$W/mnt"; losetup -d "$DEV"; rm -f "$W/tm/img"; umount "$W/tm"
}

# Start the server with the pool and any more settings: conn (appio's options).
srv_start() {
	conn=$("$R/scripts/db-start.sh" mariadb "$SRV" innodb_buffer_pool_size="$BP" "$@" 2>/dev/null | tail -1)
}

srv_stop() {
	"$R/scripts/db-stop.sh" "$SRV" >/dev/null
}

# Load the tables (the server is left running).
srv_prepare() {
	# shellcheck disable=SC2086
	$A db prepare oltp_read_write --tables 4 --table-size 250000 $conn --threads 2 >/dev/null
}

# The server's answer to one query, tab-separated, no headers.
q() {
	mariadb --no-defaults --socket="$SRV/mysqld.sock" -uroot -N -B -e "$1"
}

# A fresh load of the tables, the server stopped after it.
srv_load() {
	srv_start
	srv_prepare
	srv_stop
}

# A fresh load; the server started with every InnoDB metric on and
# oltp_read_write at 4 threads and --rate $RATE for 100 + $1 s in the
# background; back once its first 100 s have gone.
srv_rate_run() {
	srv_load
	srv_start innodb_monitor_enable=all
	# shellcheck disable=SC2086
	$A db run oltp_read_write --tables 4 --table-size 250000 $conn --threads 4 --time $((100 + $1)) --rate "$RATE" >/dev/null &
	sleep 100
}

# On the RAM loop device: a fresh load, then the server started in a blkio
# cgroup throttled to 300 reads and 300 writes a second (FAST=1: not
# throttled), the page cache dropped, every InnoDB metric on and SRVX's
# settings: conn; CG is the cgroup (rmdir it after ram_down).
srv_throttled_start() {
	CG=/sys/fs/cgroup/blkio/appio-rs; mkdir -p $CG
	srv_load
	if [ "${FAST:-0}" = 0 ]; then
		echo "$MM 300" > $CG/blkio.throttle.read_iops_device
		echo "$MM 300" > $CG/blkio.throttle.write_iops_device
	fi
	sync; echo 3 > /proc/sys/vm/drop_caches
	conn=$(bash -c "echo \$\$ > $CG/cgroup.procs; exec $R/scripts/db-start.sh mariadb $SRV innodb_buffer_pool_size=$BP innodb_monitor_enable=all ${SRVX:-}" 2>/dev/null | tail -1)
}
