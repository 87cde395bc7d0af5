# shellcheck shell=bash
# cpu-lib.sh - sourced by the fidelity scripts: the machine's CPU, and the
# emulator's --cpu-scale fitted to a real server's CPU a transaction.

# busy jiffies of the whole machine, and of process $1
cpu_all() { awk '/^cpu /{print $2+$3+$4+$7+$8}' /proc/stat; }
cpu_pid() { awk '{print $14+$15}' "/proc/$1/stat" 2>/dev/null || echo 0; }

# scale_next MACHINE_US SCALE EMU_US BURNT_US [SCALE0 EMU0_US]: the next
# --cpu-scale to try, for an emulator that ran at SCALE costing EMU_US of CPU
# a transaction, BURNT_US of it burnt by its model (the counter
# cpu_model_us), to cost MACHINE_US (the whole machine's under the server).
# From one run: the burnt part scaled, the emulator's own work kept. With
# the run before it (SCALE0, EMU0_US): the secant through both, since its own
# work is not constant (on m-fit at 16 threads it was 510-530 us a
# transaction at scale 0.65 and 260-300 at 0.54-0.60, back to back). Kept
# within 0.5x-2x of SCALE and above 0.05, to three decimals.
scale_next() {
	awk -v m="$1" -v s="$2" -v e="$3" -v b="$4" -v s0="${5:-}" -v e0="${6:-}" 'BEGIN {
		if (s0 != "" && e0 != e) x = s + (m - e) * (s - s0) / (e - e0)
		else x = s * (m - (e - b)) / b
		if (x > 2 * s) x = 2 * s
		if (x < s / 2) x = s / 2
		if (x < 0.05) x = 0.05
		printf "%g\n", int(x * 1000 + 0.5) / 1000 }'
}

# scale_better MACHINE_US EMU_US BEST_US: whether EMU_US is nearer MACHINE_US than BEST_US is, as a ratio
scale_better() {
	awk -v m="$1" -v e="$2" -v b="$3" 'function d(x) { return x > m ? x / m : m / x }
		BEGIN { exit !(d(e) < d(b)) }'
}
# scale_close MACHINE_US EMU_US: whether the emulator's CPU a transaction is within 3 % of the machine's
scale_close() { awk -v m="$1" -v e="$2" 'BEGIN { exit !(e <= 1.03 * m && m <= 1.03 * e) }'; }
