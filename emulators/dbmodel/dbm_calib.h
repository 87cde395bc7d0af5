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
 *     emulator spends DBM_CALIB_EMU_CPU_US of that outside its statements;
 *     the rest is --cpu-per-stmt.
 *   - the point with the fewest threads, at most the CPUs: latency-bound, a
 *     read statement (in the pool) takes the server's CPU, the client's turn
 *     and the round trip; less --cpu-per-stmt and what the emulator's
 *     sleep adds to the round trip it asks, that is --client-rtt.
 *
 * The OLTP fit also says how many rows a statement of the run examined and
 * changed (rows_per_stmt, writes_per_stmt): cpu_per_stmt_us is their
 * average cost, which oltp shares out in the shape of its own defaults
 * (--cpu-per-row, --cpu-per-write).
 *
 * A TPC-C result ('appio db run tpcc', sysbench-tpcc's statements) also
 * gives --cpu-per-row: a statement costs cpu_per_stmt plus cpu_per_row for
 * each row it examines beyond the first (tpcc_mix.h counts them). At the
 * latency-bound point the two read-only types, Order-Status (5.6 statements,
 * 11.4 extra rows) and Stock-Level (4 statements, 399 rows in its join),
 * give two equations in a statement's wall time and a row's; the bound
 * point's CPU per transaction, less its rows' CPU, over its statements is
 * --cpu-per-stmt; what is left of a statement's wall time is --client-rtt.
 * Where the server's own CPU per transaction is known (the fidelity
 * harness reads it from /proc), it replaces the whole machine's, which on a
 * shared machine holds other work too.
 *
 * Main thread only (option handling); nothing here prints.
 */
#ifndef APPIO_DBM_CALIB_H
#define APPIO_DBM_CALIB_H

#include <stddef.h>

/*
 * The emulator's CPU outside its statements, a statement: its background
 * threads and its harness (3-5 us measured at 2 and 16 threads, oltp with
 * the data in the pool). Its workers' own work is inside a statement's
 * cost (dbm_stmt_cpu()), so the rest of the machine's CPU is the cost.
 */
#define DBM_CALIB_EMU_CPU_US 4.0
/*
 * Wall time the emulator's round trip takes beyond the --client-rtt asked:
 * a 50 us sleep with 1 us of timer slack took 73 us on an idle CPU of the
 * KVM machine the defaults come from (the timer, the wake-up, the switch).
 */
#define DBM_CALIB_SLEEP_US 23.0

/* One point of a real run. */
struct dbm_calib_point {
	double threads;
	double tps;                     /* transactions per second */
	double stmts_per_txn;           /* statements (reads, writes, other) per transaction */
	double read_mean_us;            /* mean latency of a read statement */
	double rows_per_txn;            /* rows the ranges examine beyond their first */
	double writes_per_txn;          /* rows changed (one a write statement) */
};

/* One point of a real TPC-C run. */
struct dbm_calib_tpcc_point {
	double threads;
	double tps;
	double stmts_per_txn;
	double rows_per_txn;            /* extra rows (tpcc_sb_rows by the point's own mix) */
	double os_mean_us, sl_mean_us;  /* Order-Status's and Stock-Level's mean latency */
	double srv_us_per_txn;          /* the server's own CPU per transaction (0: not known) */
};

/* What a calibration found. */
struct dbm_calib {
	double cpu_per_stmt_us, client_rtt_us;
	double cpu_per_row_us;          /* TPC-C only (0 from an OLTP result) */
	double stmt_wall_us;            /* TPC-C: a statement's wall time at the latency point */
	int tpcc;                       /* 1: fitted on a TPC-C result, 2: on the server's own CPU */
	double machine_us;              /* the whole machine's CPU per statement, bound point */
	double rows_per_stmt, writes_per_stmt;  /* OLTP: of the bound point's statements */
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
 * Fit @c from @n points of a TPC-C run on a machine with @cpus CPUs (see the
 * top). 0, or -EINVAL with one line in @err: no point with <= @cpus threads
 * and both read-only types, no point with >= 2 x @cpus threads nor one with
 * the server's CPU, or rows that do not fit (a join no dearer than a
 * lookup). Pure arithmetic.
 */
int dbm_calib_fit_tpcc(const struct dbm_calib_tpcc_point *p, unsigned n, unsigned cpus,
		       struct dbm_calib *c, char *err, size_t errlen);

/*
 * Read the 'appio db run' result @path (an OLTP script: classes txn, read,
 * write, other; host.cpus; or tpcc, with its types' classes too) and fit @c
 * from it. 0, or -EINVAL / -errno with
 * one line in @err naming --calibrate-from and the file.
 */
int dbm_calib_load(const char *path, struct dbm_calib *c, char *err, size_t errlen);

#endif
