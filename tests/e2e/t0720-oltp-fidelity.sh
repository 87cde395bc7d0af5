#!/usr/bin/env bash
# The oltp fidelity matrix without servers: the real servers' counters kept
# in docs/data/fidelity-oltp compared with the emulator's results kept beside
# them (scripts/fidelity-oltp.sh --emu-from), the targets' arithmetic on a
# made-up reference, the baseline check failing when a held-out cell that was
# within target leaves it, and a malformed matrix refused in one line.
. tests/e2e/lib.sh
. tests/e2e/fidelity-lib.sh
fid_for oltp

# --- the matrix and its data ---
names=$(awk '!/^[ \t]*#/ && NF { print $1 }' "$MATRIX")
n=$(wc -w <<<"$names")
cal=$(awk '!/^[ \t]*#/ && NF && $9 == "calibrate"' "$MATRIX" | wc -l)
m=$(awk '!/^[ \t]*#/ && $2 == "mariadb"' "$MATRIX" | wc -l)
p=$(awk '!/^[ \t]*#/ && $2 == "postgres"' "$MATRIX" | wc -l)
[ "$m" -ge 12 ] && [ "$p" -ge 6 ] && ok "the matrix has $m MariaDB and $p PostgreSQL configurations" ||
	not_ok "the matrix has $m MariaDB and $p PostgreSQL configurations (12 and 6 at least)"
[ $((cal * 3)) -le "$n" ] && ok "at most a third calibrate ($cal of $n)" || not_ok "$cal of $n calibrate"

# --- the kept comparison; a held-out cell pushed out of its target fails the check ---
fid_kept "$F" "$REF" "$MATRIX" "^mariadb (real/emulated" "^postgres (real/emulated" "^summary held-out" \
	"^summary calibrate" "^ranking mariadb by TPS" "^ranking postgres by TPS" "^the drive: an 8 KiB write"
fid_pushed_out "$F" "$REF"

# --- the targets on a made-up reference ---
mkdir -p "$T/ref" "$T/emu2"
echo "x mariadb 1x1000 32M 32M write_only 2,4 1 heldout" >"$T/x.matrix"
jq -n '{name: "x", engine: "mariadb", role: "heldout", drive: {flush_us: 100}, points: [
	{threads: 2, txns: 100, tps: 1000, p99: 10e6, d: {Innodb_pages_read: 100, Innodb_pages_written: 200,
	 Innodb_lsn_current: 100000, Innodb_data_fsyncs: 100, Innodb_dblwr_pages_written: 1}},
	{threads: 4, txns: 100, tps: 1000, p99: 10e6, d: {Innodb_pages_read: 100, Innodb_pages_written: 200,
	 Innodb_lsn_current: 100000, Innodb_data_fsyncs: 100, Innodb_dblwr_pages_written: 0}}]}' >"$T/ref/x.json"
# at 2 threads: reads +24%, writes -26%, redo +25%, fsyncs equal, dblwr 0.01 vs 0.02 (below the
# floor), TPS 1.49x, p99 1/1.6; at 4: everything off by 2x or more, TPS 0.66x
cat >"$T/emu2/x.jsonl" <<'EOF'
{"threads":2,"tps":1490,"p99":6.25e6,"c":{"txns":1000,"bp_reads":1240,"pages_written":1480,"log_bytes":1250000,"log_fsyncs":500,"data_fsyncs":300,"dblwr_writes":200,"dblwr_pages":20}}
{"threads":4,"tps":660,"p99":30e6,"c":{"txns":1000,"bp_reads":3000,"pages_written":500,"log_bytes":300000,"log_fsyncs":3000,"data_fsyncs":0,"dblwr_writes":0,"dblwr_pages":200}}
EOF
echo 250 >"$T/emu2/x.drive"
REF=$T/ref "$F" --matrix "$T/x.matrix" --emu-from "$T/emu2" mariadb >"$T/x.out" 2>&1
grep -q '^  x  *100 / 250  *(2.50) \*$' "$T/x.out" && grep -q '^  \* not the same drive: TPS and p99 of x compare' "$T/x.out" &&
	ok "the drive's flush time on each side, a line 1.5x apart named" ||
	{ not_ok "the drive's flush time on each side"; grep -A3 '^the drive' "$T/x.out" | sed 's/^/    /'; }
grep -q '^summary held-out  reads 1/2 (50%) writes 0/2 (0%) redo 1/2 (50%) fsyncs 1/2 (50%) dblwr 1/2 (50%) tps 1/2 (50%) p99 0/2 (0%)$' "$T/x.out" &&
	ok "within 25% (or both under the floor) and within 1.5x, counted per figure" ||
	{ not_ok "within 25% and 1.5x, counted per figure"; grep summary "$T/x.out" | sed 's/^/    /'; }
grep -q '^x  *out 2  *1.00/1.24(1.24)  *2.00/1.48(0.74)\*' "$T/x.out" && ok "a cell reads real/emulated(ratio), * when outside" ||
	{ not_ok "a cell reads real/emulated(ratio)"; grep '^x ' "$T/x.out" | sed 's/^/    /'; }
BASELINE=$T/base.tsv REF=$T/ref "$F" --matrix "$T/x.matrix" --emu-from "$T/emu2" --write-baseline mariadb >/dev/null 2>&1
[ "$(tr '\n' , <"$T/base.tsv" 2>/dev/null)" = "x 2 dblwr,x 2 fsyncs,x 2 reads,x 2 redo,x 2 tps," ] &&
	ok "--write-baseline keeps the held-out cells within target" ||
	{ not_ok "--write-baseline keeps the held-out cells within target"; sed 's/^/    /' "$T/base.tsv"; }

us=$(. scripts/fidelity-lib.sh; drive_flush_us "$T")
[[ $us =~ ^[0-9]+$ ]] && [ "$us" -gt 0 ] && [ ! -e "$T/drive-probe.dat" ] &&
	ok "drive_flush_us: whole microseconds ($us), its file removed" || not_ok "drive_flush_us: '$us'"
[ "$(. scripts/fidelity-lib.sh; drive_mean 100 151; drive_mean "" 7; drive_mean 8 "")" = "$(printf '126\n7\n8')" ] &&
	ok "drive_mean: before and after, rounded; the one there is" || not_ok "drive_mean"

# --- the session's CPU scale: the calibrate line's server CPU a transaction over CPU_REF ---
mkdir -p "$T/cs/ref"
printf 'a mariadb 1 1000 32M 32M read_write 2,16 1 heldout\nc mariadb 1 1000 32M 32M read_write 2,16 1 calibrate\n' \
	>"$T/cs/configs.txt"
# at 16 threads: MariaDB's own 300 jiffies over 1,000 transactions = 3,000 us, the machine's 4,000
echo '{"points": [{"threads": 2, "txns": 100, "srv": 100, "cpu": 100}, {"threads": 16, "txns": 1000, "srv": 300, "cpu": 400}]}' \
	>"$T/cs/ref/c.json"
scale() { (. scripts/fidelity-lib.sh; DIR=$T/cs REF=$T/cs/ref EMU_DIR=$T/cs/emu
	   declare -A CPU_REF=([mariadb]=1500 [postgres]=1000); cpu_scale "$1"); }
[ "$(scale mariadb)" = 2 ] && ok "cpu_scale: MariaDB's own CPU at the most threads, 3,000 over 1,500 us" ||
	not_ok "cpu_scale mariadb: '$(scale mariadb)', want 2"
[ "$(scale postgres)" = 1 ] && ok "cpu_scale: no calibrate line of the engine, 1" ||
	not_ok "cpu_scale postgres without a line: '$(scale postgres)', want 1"
sed -i 's/^c mariadb/c postgres/' "$T/cs/configs.txt"
[ "$(scale postgres)" = 4 ] && ok "cpu_scale: PostgreSQL by the whole machine's CPU, 4,000 over 1,000 us" ||
	not_ok "cpu_scale postgres: '$(scale postgres)', want 4"
[ "$(CPU_SCALE=0.5 scale postgres)" = 0.5 ] && ok "cpu_scale: CPU_SCALE overrides" ||
	not_ok "cpu_scale: CPU_SCALE=0.5 gave '$(CPU_SCALE=0.5 scale postgres)'"
# the line's own emulator run at scale 0.5: 3,000 us of CPU a transaction at 16 threads, 2,000 of
# them burnt by the model, so 1,000 its own work; the machine's 4,000 needs 3,000 burnt: scale 0.75
mkdir -p "$T/cs/emu"
echo '{"threads": 2, "cpu_s": 1, "scale": 0.5, "c": {"txns": 100, "cpu_model_us": 1}}' >"$T/cs/emu/c.jsonl"
echo '{"threads": 16, "cpu_s": 3, "scale": 0.5, "c": {"txns": 1000, "cpu_model_us": 2000000}}' >>"$T/cs/emu/c.jsonl"
calib() { (. scripts/fidelity-lib.sh; DIR=$T/cs REF=$T/cs/ref EMU_DIR=$T/cs/emu; calib_cpu "$1"); }
[ "$(calib postgres)" = "4000 0.5 3000 2000" ] && ok "calib_cpu: the machine's CPU a transaction, the emulator's scale, CPU and burnt part" ||
	not_ok "calib_cpu: '$(calib postgres)', want '4000 0.5 3000 2000'"
lib() { (. scripts/fidelity-lib.sh; "$@"); }
[ "$(lib scale_next 4000 0.5 3000 2000)" = 0.75 ] && ok "scale_next: from one run, the burnt part scaled to the machine's" ||
	not_ok "scale_next from one run: '$(lib scale_next 4000 0.5 3000 2000)', want 0.75"
# two runs: 1,259 us at 0.65, 883 at 0.541; 1,122 lies at 0.610 on the secant
[ "$(lib scale_next 1122 0.541 883 620 0.65 1259)" = 0.61 ] && ok "scale_next: from two runs, the secant through both" ||
	not_ok "scale_next from two runs: '$(lib scale_next 1122 0.541 883 620 0.65 1259)', want 0.61"
[ "$(lib scale_next 100000 0.5 3000 2000)" = 1 ] && ok "scale_next: at most twice the scale it ran at" ||
	not_ok "scale_next capped: '$(lib scale_next 100000 0.5 3000 2000)', want 1"
lib scale_close 1000 1029 && ! lib scale_close 1000 1031 && ! lib scale_close 1031 1000 &&
	ok "scale_close: within 3 %" || not_ok "scale_close"
sed -i 's/"cpu_model_us": 2000000/"cpu_model_us": 0/' "$T/cs/emu/c.jsonl"
[ -z "$(calib postgres)" ] && ok "calib_cpu: an emulated result without the model's CPU gives nothing" ||
	not_ok "calib_cpu with cpu_model_us 0: '$(calib postgres)', want nothing"
echo 0.42 >"$T/cs/cpu-scale-postgres"
[ "$(scale postgres)" = 0.42 ] && ok "cpu_scale: the scale fitted on the calibrate line this session" ||
	not_ok "cpu_scale with DIR/cpu-scale-postgres: '$(scale postgres)', want 0.42"
# the fit on the calibrate line keeps its closest run: the machine's 4,000 us; 6,000 at the first
# guess, scale 4; 3,000 at 2 (a step in the emulator's own work); 5,500 at the secant's 2.667
fake_run() {
	local e=5.5 b=2667000
	case $1 in 4) e=6 b=4000000 ;; 2) e=3 b=2000000 ;; esac
	echo "{\"threads\": 16, \"cpu_s\": $e, \"scale\": $1, \"c\": {\"txns\": 1000, \"cpu_model_us\": $b}}" \
		>"$EMU_DIR/c.jsonl"
	echo "$1" >>"$T/cs/runs"
}
(. scripts/fidelity-lib.sh; log() { :; }; DIR=$T/cs REF=$T/cs/ref EMU_DIR=$T/cs/emu
 declare -A CPU_REF=([postgres]=1000); emulate_scaled postgres c fake_run)
[ "$(tr '\n' , <"$T/cs/runs")" = "4,2,2.667," ] && [ "$(cat "$T/cs/cpu-scale-postgres")" = 2 ] &&
	[ "$(jq .scale "$T/cs/emu/c.jsonl")" = 2 ] &&
	ok "emulate_scaled: three runs, the closest (not the last) kept with its scale" ||
	not_ok "emulate_scaled: runs '$(tr '\n' , <"$T/cs/runs")', scale '$(cat "$T/cs/cpu-scale-postgres")', kept '$(jq -c . "$T/cs/emu/c.jsonl")'"
lib scale_better 1000 1250 700 && ! lib scale_better 1000 1500 700 && ok "scale_better: the nearer as a ratio" ||
	not_ok "scale_better"

# --- the statement costs: the defaults are what the kept interleaved runs fit to ---
# (PostgreSQL's: the costs to give, the fit at 16 threads over --cpu-per-backend's growth
# on the 2 CPUs they were measured on)
C=scripts/calibrate-oltp-cpu.sh
costs_near() {  # FILE KIND STMT ROW WRITE: the last costs line of FILE's fit within rounding of the three
	CPUS=2 "$C" --fit "$1" "$2" >"$T/fit.out" 2>&1 &&
	awk -v a="$3" -v b="$4" -v c="$5" '/^costs/ { found = 1
		for (i = 1; i < NF; i++) {
			if ($i == "--cpu-per-stmt") x = $(i + 1)
			if ($i == "--cpu-per-row") y = $(i + 1)
			if ($i == "--cpu-per-write") z = $(i + 1)
		} }
		END { d = (x - a) / a; e = (y - b) / b; f = (z - c) / c
		      exit !(found && d * d < 0.0025 && e * e < 0.0025 && f * f < 0.0025) }' "$T/fit.out"
}
while read -r kind a b c; do
	costs_near "$REF/cpu-mix-2026-12-03-own/$kind.jsonl" "$kind" "$a" "$b" "$c" &&
		ok "$kind: the kept runs fit to the defaults within 5% ($a us a statement, $b a row, $c a write)" ||
		{ not_ok "$kind: the kept runs fit to the defaults"; sed 's/^/    /' "$T/fit.out"; }
done <<'EOF2'
mariadb 48.5 1.07 57.3
postgres 38.8 1.62 66.3
EOF2
grep -q "^  read_write *1704 / *1704  (1.00)$" <("$C" --fit "$REF/cpu-mix-2026-12-03-own/mariadb.jsonl") &&
	ok "... read_write exact, each script's ratio printed" || not_ok "... read_write exact"
grep -v '"point_select"' "$REF/cpu-mix-2026-12-03-own/mariadb.jsonl" >"$T/nops.jsonl"
expect_exit 2 "--fit on runs without point_select is refused" -- "$C" --fit "$T/nops.jsonl"
one_line_error "--fit without a script: one line"
expect_exit 2 "calibrate-oltp-cpu: --rounds 0 is refused" -- "$C" --rounds 0 mariadb
one_line_error "--rounds 0: one line"
expect_exit 2 "calibrate-oltp-cpu: no engine is refused" -- "$C"
one_line_error "no engine: one line"

# --- bad input ---
fid_refused "$F" "$T/emu2" "a line of 8 fields" 'a mariadb 1x10 32M 32M read_write 2 1'
fid_refused "$F" "$T/emu2" "an unknown role" 'a mariadb 1x10 32M 32M read_write 2 1 fitted'
expect_exit 2 "an unknown argument is refused" -- "$F" --replay
one_line_error "unknown argument: one line"
finish
