# sysbench-args.sh - sourced by scripts and tests that run SysBench against a
# server started by scripts/db-start.sh: its last line gives appio's options.
#
# sysbench_args "--driver mysql --mysql-socket S" -> "--db-driver=mysql --mysql-socket=S"
sysbench_args() {
	local out=() a
	while [ $# -gt 0 ]; do
		a=${1#--}
		[ "$a" = driver ] && a=db-driver
		out+=("--$a=$2")
		shift 2
	done
	echo "${out[@]}"
}
