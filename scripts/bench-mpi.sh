#!/usr/bin/env bash
# bench-mpi.sh - the overhead of running under MPI (docs/scale-out.md).
#
#   scripts/bench-mpi.sh [DIR]       (DIR: a folder on the drive to use for the
#                                     file case, default ./bench-mpi.d; needs jq,
#                                     mpirun and an appio built with MPI)
#
# The same work three ways: 1 process x 4 threads (plain appio, no mpirun),
# 4 ranks x 1 thread and 2 ranks x 2 threads; and a control, 4p: four plain
# appio processes of 1 thread side by side, without mpirun (4 ranks against
# 4p is MPI's own cost; 4p against 1x4 is processes against threads, which
# MPI's ranks are too); 4k random reads, on the null
# engine (appio's own cost) and on one file (libaio, O_DIRECT, QD 4 per
# thread; the ranks share it with --target-split, so every case reads the
# same blocks). The four alternate, ROUNDS times; medians:
#   aggregate IOPS of the LONG run;
#   CPU per I/O: user + system time of every process (appio, or mpirun with
#   the ranks it started, measured from outside with /usr/bin/time), the difference between
#   a SHORT and a LONG run
#   over the difference of their I/Os, so that start-up (MPI_Init, the
#   clock measurement) and teardown cancel out.
#
# Environment: APPIO (./appio), ROUNDS (3), SHORT/LONG (2/8 s), SIZE (512M).
# Raw files go to DIR/results.
set -u
APPIO=${APPIO:-$PWD/appio}
DIR=${1:-$PWD/bench-mpi.d}
ROUNDS=${ROUNDS:-3}
SHORT=${SHORT:-2}
LONG=${LONG:-8}
SIZE=${SIZE:-512M}
OUT=$DIR/results
rm -rf "$OUT"
mkdir -p "$OUT"
for tool in jq mpirun /usr/bin/time; do
	command -v "$tool" >/dev/null || { echo "bench-mpi.sh: needs $tool" >&2; exit 2; }
done
"$APPIO" list | grep -q '^scale-out.*Open MPI' ||
	{ echo "bench-mpi.sh: $APPIO is built without MPI support" >&2; exit 2; }
MPIRUN=(mpirun --oversubscribe --allow-run-as-root -q --bind-to none --mca btl self,vader
	--mca btl_vader_single_copy_mechanism none)

# run CASE ENGINE SECONDS TAG: one run; prints "ops ops_per_s process_cpu_s point_cpu_s"
run() {
	local c=$1 engine=$2 secs=$3 tag=$4 ranks threads
	ranks=${c%x*}
	threads=${c#*x}
	[ "$c" = 4p ] && ranks=4 threads=1
	local args=(run 4k-randread --threads "$threads" --time "$secs" --seed 7)
	if [ "$engine" = null ]; then
		args+=(--engine null --target "$DIR/null.dat" --size 1M)
	else
		args+=(--engine libaio --qd 4 --target "$DIR/file.dat")
	fi
	# the CPU of every process from outside: /usr/bin/time around appio, or around
	# mpirun, whose figure holds its ranks too (on one machine they are its
	# children, reaped by it; timing each rank as well would count them twice)
	rm -f "$OUT/$tag".time.* "$OUT/$tag".*json
	if [ "$c" = 4p ]; then
		# the control: four plain processes side by side, no mpirun, each with
		# the whole file (what separate processes cost or gain against threads)
		local i pids=()
		for i in 0 1 2 3; do
			/usr/bin/time -f '%U %S' -o "$OUT/$tag.time.$i" "$APPIO" "${args[@]}" \
				--json "$OUT/$tag.$i.json" >"$OUT/$tag.$i.out" 2>"$OUT/$tag.$i.err" &
			pids+=($!)
		done
		for i in 0 1 2 3; do
			wait "${pids[$i]}" || { echo "bench-mpi.sh: $c $engine failed:" >&2
				tail -3 "$OUT/$tag.$i.err" >&2; exit 1; }
		done
	else
		local cmd=(/usr/bin/time -f '%U %S' -o "$OUT/$tag.time.p" "$APPIO" "${args[@]}"
			   --json "$OUT/$tag.json")
		[ "$ranks" -gt 1 ] && cmd=(/usr/bin/time -f '%U %S' -o "$OUT/$tag.time.m" "${MPIRUN[@]}"
			-np "$ranks" "$APPIO" "${args[@]}" --json "$OUT/$tag.json" --target-split)
		"${cmd[@]}" >"$OUT/$tag.out" 2>"$OUT/$tag.err" ||
			{ echo "bench-mpi.sh: $c $engine failed:" >&2; tail -3 "$OUT/$tag.err" >&2; exit 1; }
	fi
	# summed over the documents (one, or the control's four)
	local cpu
	cpu=$(cat "$OUT/$tag".time.* | awk '/^[0-9.]+ [0-9.]+$/ { s += $1 + $2 } END { print s }')
	echo "$(jq -s '[(map(.points[0].classes.total.ops) | add), (map(.points[0].classes.total.ops_per_s) | add),
		(map(.points[0].cpu_s) | add)] | map(tostring) | join(" ")' -r "$OUT/$tag".*json |
		awk -v c="$cpu" '{ print $1, $2, c, $3 }')"
}

median() { sort -g | awk '{ v[NR] = $1 } END { print NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

# lay out the file once, outside the timed runs
"$APPIO" run 4k-randread --engine sync --target "$DIR/file.dat" --size "$SIZE" --time 1 >/dev/null ||
	{ echo "bench-mpi.sh: cannot lay out $DIR/file.dat" >&2; exit 1; }

cases=(1x4 4p 4x1 2x2)
printf '%-6s %-5s %12s %9s %9s %16s %18s\n' engine case IOPS "vs 1x4" "vs 4p" "CPU ns/I/O point" \
	"CPU ns/I/O process"
for engine in null file; do
	for ((r = 1; r <= ROUNDS; r++)); do
		for c in "${cases[@]}"; do
			read -r so _ sc _ < <(run "$c" "$engine" "$SHORT" "$engine-$c-$r-s")
			read -r lo lr lc lp < <(run "$c" "$engine" "$LONG" "$engine-$c-$r-l")
			echo "$lr" >>"$OUT/$engine-$c.iops"
			awk -v c="$lp" -v n="$lo" 'BEGIN { printf "%.2f\n", c / n * 1e9 }' >>"$OUT/$engine-$c.pcpu"
			awk -v a="$sc" -v b="$lc" -v x="$so" -v y="$lo" \
				'BEGIN { printf "%.2f\n", (b - a) / (y - x) * 1e9 }' >>"$OUT/$engine-$c.cpu"
		done
	done
	base=$(median <"$OUT/$engine-1x4.iops")
	procs=$(median <"$OUT/$engine-4p.iops")
	for c in "${cases[@]}"; do
		iops=$(median <"$OUT/$engine-$c.iops")
		printf '%-6s %-5s %12.0f %8.1f%% %8.1f%% %16.1f %18.1f\n' "$engine" "$c" "$iops" \
			"$(awk -v a="$iops" -v b="$base" 'BEGIN { print (a / b - 1) * 100 }')" \
			"$(awk -v a="$iops" -v b="$procs" 'BEGIN { print (a / b - 1) * 100 }')" \
			"$(median <"$OUT/$engine-$c.pcpu")" "$(median <"$OUT/$engine-$c.cpu")"
	done
done
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
