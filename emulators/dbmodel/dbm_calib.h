/*
 * dbm_calib.h - the model's CPU and client costs (--cpu-per-stmt,
 * --client-rtt) taken from a real server's run: an 'appio db run' result of
 * a SysBench OLTP script on the machine the emulator will run on
 * (--calibrate-from FILE). docs/oltp-tpcc.md describes the method.
 *
 * Two points of the result carry it, as in the manual calibration:
 *   - the point with the most threads, at least twice the machine's CPUs:
 *     the machine is saturated there, so a statement costs the whole
 *     machine CPUS / (TPS x statements per transaction) of CPU. The
 *     emulator spends DBM_CALIB_WAIT_CPU_US of that on its own client wait;
 *     the rest is --cpu-per-stmt.
 *   - the point with the fewest threads, at most the CPUs: latency-bound, a
 *     read statement (in the pool) takes the server's CPU, the client's turn
 *     and the round trip; less --cpu-per-stmt and the emulator's own wait
 *     cost, that is --client-rtt.
 * Main thread only (option handling); nothing here prints.
 */
#ifndef APPIO_DBM_CALIB_H
#define APPIO_DBM_CALIB_H

#include <stddef.h>

/* CPU (and wall time) the emulator's own client wait costs per statement. */
#define DBM_CALIB_WAIT_CPU_US 17.0

/* One point of a real run. */
struct dbm_calib_point {
	double threads;
	double tps;                     /* transactions per second */
	double stmts_per_txn;           /* statements (reads, writes, other) per transaction */
	double read_mean_us;            /* mean latency of a read statement */
};

/* What a calibration found. */
struct dbm_calib {
	double cpu_per_stmt_us, client_rtt_us;
	double machine_us;              /* the whole machine's CPU per statement, bound point */
	unsigned bound_threads, latency_threads, cpus;
};

/*
 * Fit @c from @n points of a run on a machine with @cpus CPUs. 0, or
 * -EINVAL with one line in @err (no point with >= 2 x @cpus threads, none
 * with <= @cpus threads, or figures that are not positive). Pure arithmetic.
 */
int dbm_calib_fit(const struct dbm_calib_point *p, unsigned n, unsigned cpus, struct dbm_calib *c,
		  char *err, size_t errlen);

/*
 * Read the 'appio db run' result @path (an OLTP script: classes txn, read,
 * write, other; host.cpus) and fit @c from it. 0, or -EINVAL / -errno with
 * one line in @err naming --calibrate-from and the file.
 */
int dbm_calib_load(const char *path, struct dbm_calib *c, char *err, size_t errlen);

#endif
