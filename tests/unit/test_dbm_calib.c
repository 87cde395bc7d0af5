/*
 * test_dbm_calib.c - --calibrate-from's arithmetic: the saturated point
 * gives the CPU per statement (and its rows examined and changed), the
 * latency-bound one the client's wait, and
 * a run without either point is refused; on a TPC-C result, Order-Status
 * and Stock-Level give a statement's and a row's cost, and the defaults of
 * the tpcc emulator are what the fit gives on the calibrate line's figures.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>

#include "dbmodel/dbm_calib.h"
#include "dbmodel/tpcc_mix.h"
#include "check.h"

static void fit_two_ends(void)
{
	/* 2 CPUs; 16 threads at 1,600 TPS of 20 statements: 62.5 us of machine a statement */
	const struct dbm_calib_point p[] = {
		{ .threads = 8, .tps = 1500, .stmts_per_txn = 20, .read_mean_us = 300 },
		{ .threads = 2, .tps = 800, .stmts_per_txn = 20, .read_mean_us = 110 },
		{ .threads = 16, .tps = 1600, .stmts_per_txn = 20, .read_mean_us = 900,
		  .rows_per_txn = 396, .writes_per_txn = 4 },
		{ .threads = 4, .tps = 1200, .stmts_per_txn = 20, .read_mean_us = 150 },
	};
	struct dbm_calib c;
	char err[200];

	CHECK(dbm_calib_fit(p, 4, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(c.bound_threads == 16 && c.latency_threads == 2, "points %u and %u", c.bound_threads,
	      c.latency_threads);
	CHECK(fabs(c.machine_us - 62.5) < 1e-9, "machine %g us", c.machine_us);
	CHECK(fabs(c.cpu_per_stmt_us - (62.5 - DBM_CALIB_EMU_CPU_US)) < 1e-9, "cpu %g us", c.cpu_per_stmt_us);
	CHECK(fabs(c.client_rtt_us - (110 - c.cpu_per_stmt_us - DBM_CALIB_SLEEP_US)) < 1e-9,
	      "rtt %g us", c.client_rtt_us);
	/* the bound point's rows and changes, per statement, for oltp to share the cost out */
	CHECK(fabs(c.rows_per_stmt - 19.8) < 1e-9 && fabs(c.writes_per_stmt - 0.2) < 1e-9,
	      "rows %g, writes %g a statement", c.rows_per_stmt, c.writes_per_stmt);
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

/* A run made to measure: a statement 100 us of wall time, a row 5 us. */
static void fit_tpcc_rows(void)
{
	const double s = 100, b = 5;
	const double os = tpcc_sb_stmts[TPCC_ORDER_STATUS] * s + tpcc_sb_rows[TPCC_ORDER_STATUS] * b;
	const double sl = tpcc_sb_stmts[TPCC_STOCK_LEVEL] * s + tpcc_sb_rows[TPCC_STOCK_LEVEL] * b;
	struct dbm_calib_tpcc_point p[] = {
		{ .threads = 2, .tps = 600, .stmts_per_txn = 28, .rows_per_txn = 27, .os_mean_us = os,
		  .sl_mean_us = sl },
		{ .threads = 8, .tps = 1000, .stmts_per_txn = 28, .rows_per_txn = 27, .os_mean_us = 3 * os,
		  .sl_mean_us = 2 * sl },
	};
	struct dbm_calib c;
	char err[200];

	CHECK(fabs(os - 617) < 1e-9 && fabs(sl - 2395) < 1e-9, "the model's counts: os %g, sl %g", os, sl);
	CHECK(dbm_calib_fit_tpcc(p, 2, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(c.tpcc == 1 && c.latency_threads == 2 && c.bound_threads == 8, "points %u, %u",
	      c.latency_threads, c.bound_threads);
	CHECK(fabs(c.cpu_per_row_us - b) < 1e-9 && fabs(c.stmt_wall_us - s) < 1e-9, "row %g, stmt %g",
	      c.cpu_per_row_us, c.stmt_wall_us);
	/* 2 CPUs at 1,000 TPS: 2,000 us a transaction, 135 of them its rows' */
	CHECK(fabs(c.cpu_per_stmt_us - ((2000 - 27 * b) / 28 - DBM_CALIB_EMU_CPU_US)) < 1e-9, "cpu %g",
	      c.cpu_per_stmt_us);
	CHECK(fabs(c.client_rtt_us - (s - c.cpu_per_stmt_us - DBM_CALIB_SLEEP_US)) < 1e-9, "rtt %g",
	      c.client_rtt_us);

	/* the server's own CPU, where known, replaces the machine's, without the emulator's CPU */
	p[1].srv_us_per_txn = 1500;
	CHECK(dbm_calib_fit_tpcc(p, 2, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(c.tpcc == 2 && fabs(c.cpu_per_stmt_us - (1500 - 27 * b) / 28) < 1e-9, "srv cpu %g",
	      c.cpu_per_stmt_us);
}

/* MariaDB's m-w1-fit of 1 December: the fit with the server's own CPU that the tpcc emulator's
   innodb statement cost was scaled from (tpcc.c); then its row cost from the 4 December
   reference (docs/data/fidelity-tpcc/m-w1-fit.json). */
static void fit_tpcc_calibrate_line(void)
{
	const struct dbm_calib_tpcc_point p[] = {
		{ .threads = 2, .tps = 330.533, .stmts_per_txn = 141553 / 4958.0,
		  .rows_per_txn = (2166 * 2.4 + 197 * 11.4 + 229 * 180 + 202 * 399) / 4958.0,
		  .os_mean_us = 859.022, .sl_mean_us = 1859.19, .srv_us_per_txn = 834e4 / 4958 },
		{ .threads = 8, .tps = 513.267, .stmts_per_txn = 217554 / 7699.0,
		  .rows_per_txn = (3352 * 2.4 + 338 * 11.4 + 360 * 180 + 356 * 399) / 7699.0,
		  .os_mean_us = 2033.92, .sl_mean_us = 3920.76, .srv_us_per_txn = 1226e4 / 7699 },
	};
	struct dbm_calib c;
	char err[200];

	CHECK(dbm_calib_fit_tpcc(p, 2, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(fabs(c.cpu_per_row_us - 3.2) < 0.05, "row %g us (3.2: the default before 8 December, "
	      "3.81, over 1.19)", c.cpu_per_row_us);
	CHECK(fabs(c.cpu_per_stmt_us - 53) < 0.5, "stmt %g us (53: 63.1 over 1.19, the default "
	      "statement cost before the row cost fell)", c.cpu_per_stmt_us);
	CHECK(c.bound_threads == 8 && c.client_rtt_us > 70 && c.client_rtt_us < 80, "rtt %g us",
	      c.client_rtt_us);

	const struct dbm_calib_tpcc_point q[] = {
		{ .threads = 2, .tps = 569.667, .stmts_per_txn = 242927 / 8545.0,
		  .rows_per_txn = (3763 * 2.4 + 373 * 11.4 + 363 * 180 + 361 * 399) / 8545.0,
		  .os_mean_us = 808.752, .sl_mean_us = 1292.39, .srv_us_per_txn = 1478e4 / 8545 },
		{ .threads = 8, .tps = 670.467, .stmts_per_txn = 287038 / 10057.0,
		  .rows_per_txn = (4420 * 2.4 + 399 * 11.4 + 487 * 180 + 431 * 399) / 10057.0,
		  .os_mean_us = 1446.16, .sl_mean_us = 2311.96, .srv_us_per_txn = 1908e4 / 10057 },
	};
	CHECK(dbm_calib_fit_tpcc(q, 2, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(fabs(c.cpu_per_row_us * 1.19 - 2.18) < 0.03, "row %g us (x 1.19: the default 2.18)",
	      c.cpu_per_row_us);
}

static void tpcc_refused(void)
{
	struct dbm_calib_tpcc_point p[] = {
		{ .threads = 2, .tps = 300, .stmts_per_txn = 28, .rows_per_txn = 27, .os_mean_us = 800,
		  .sl_mean_us = 400 },
		{ .threads = 8, .tps = 500, .stmts_per_txn = 28, .rows_per_txn = 27 },
	};
	struct dbm_calib c;
	char err[200] = "";

	/* Stock-Level's join faster than Order-Status: no positive row cost */
	CHECK(dbm_calib_fit_tpcc(p, 2, 2, &c, err, sizeof(err)) == -EINVAL && err[0], "join too cheap");
	p[0].sl_mean_us = 2000;
	CHECK(dbm_calib_fit_tpcc(p, 2, 2, &c, err, sizeof(err)) == 0, "fit: %s", err);
	CHECK(dbm_calib_fit_tpcc(p + 1, 1, 2, &c, err, sizeof(err)) == -EINVAL, "no latency point");
	CHECK(dbm_calib_fit_tpcc(p, 1, 2, &c, err, sizeof(err)) == -EINVAL, "no saturated point");
}

int main(void)
{
	RUN(fit_two_ends);
	RUN(fast_reads_floor_at_zero);
	RUN(refused);
	RUN(fit_tpcc_rows);
	RUN(fit_tpcc_calibrate_line);
	RUN(tpcc_refused);
	return check_done();
}
