/*
 * test_dbm_calib.c - --calibrate-from's arithmetic: the saturated point
 * gives the CPU per statement, the latency-bound one the client's wait, and
 * a run without either point is refused.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "dbmodel/dbm_calib.h"
#include "check.h"

static void fit_two_ends(void)
{
	/* 2 CPUs; 16 threads at 1,600 TPS of 20 statements: 62.5 us of machine a statement */
	const struct dbm_calib_point p[] = {
		{ .threads = 8, .tps = 1500, .stmts_per_txn = 20, .read_mean_us = 300 },
		{ .threads = 2, .tps = 800, .stmts_per_txn = 20, .read_mean_us = 110 },
		{ .threads = 16, .tps = 1600, .stmts_per_txn = 20, .read_mean_us = 900 },
		{ .threads = 4, .tps = 1200, .stmts_per_txn = 20, .read_mean_us = 150 },
	};
	struct dbm_calib c;
	char err[200];

	CHECK(dbm_calib_fit(p, 4, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(c.bound_threads == 16 && c.latency_threads == 2, "points %u and %u", c.bound_threads,
	      c.latency_threads);
	CHECK(fabs(c.machine_us - 62.5) < 1e-9, "machine %g us", c.machine_us);
	CHECK(fabs(c.cpu_per_stmt_us - (62.5 - DBM_CALIB_WAIT_CPU_US)) < 1e-9, "cpu %g us", c.cpu_per_stmt_us);
	CHECK(fabs(c.client_rtt_us - (110 - c.cpu_per_stmt_us - DBM_CALIB_WAIT_CPU_US)) < 1e-9,
	      "rtt %g us", c.client_rtt_us);
}

static void fast_reads_floor_at_zero(void)
{
	const struct dbm_calib_point p[] = {
		{ .threads = 1, .tps = 900, .stmts_per_txn = 20, .read_mean_us = 20 },
		{ .threads = 4, .tps = 1000, .stmts_per_txn = 20, .read_mean_us = 40 },
	};
	struct dbm_calib c;
	char err[200];

	CHECK(dbm_calib_fit(p, 2, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(c.client_rtt_us == 0 && c.cpu_per_stmt_us > 0, "rtt %g, cpu %g", c.client_rtt_us,
	      c.cpu_per_stmt_us);
}

static void refused(void)
{
	const struct dbm_calib_point low[] = {
		{ .threads = 1, .tps = 900, .stmts_per_txn = 20, .read_mean_us = 100 },
		{ .threads = 3, .tps = 1000, .stmts_per_txn = 20, .read_mean_us = 100 },
	};
	const struct dbm_calib_point empty[] = {
		{ .threads = 1, .tps = 0, .stmts_per_txn = 20, .read_mean_us = 100 },
		{ .threads = 8, .tps = 1000, .stmts_per_txn = 20, .read_mean_us = 100 },
	};
	struct dbm_calib c;
	char err[200] = "";

	CHECK(dbm_calib_fit(low, 2, 2, &c, err, sizeof(err)) == -EINVAL, "no saturated point");
	CHECK(err[0], "a message");
	CHECK(dbm_calib_fit(low, 2, 4, &c, err, sizeof(err)) == -EINVAL, "4 CPUs: 3 threads do not saturate");
	CHECK(dbm_calib_fit(empty, 2, 2, &c, err, sizeof(err)) == -EINVAL, "a point without transactions");
	CHECK(dbm_calib_fit(low, 0, 2, &c, err, sizeof(err)) == -EINVAL, "no point at all");
}

int main(void)
{
	RUN(fit_two_ends);
	RUN(fast_reads_floor_at_zero);
	RUN(refused);
	return check_done();
}
