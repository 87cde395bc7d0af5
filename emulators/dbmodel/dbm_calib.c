/*
 * dbm_calib.c - --cpu-per-stmt and --client-rtt from a real server's
 * 'appio db run' result (dbm_calib.h says how). The manual method of
 * docs/oltp-tpcc.md in one step: at the saturated point a statement costs
 * the machine CPUS / (TPS x statements) of CPU, of which the emulator
 * spends DBM_CALIB_EMU_CPU_US outside its statements (dbm_calib.h).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dbm_calib.h"
#include "tpcc_mix.h"

#define MAX_POINTS 256

int dbm_calib_fit(const struct dbm_calib_point *p, unsigned n, unsigned cpus, struct dbm_calib *c,
		  char *err, size_t errlen)
{
	const struct dbm_calib_point *bound = NULL, *lat = NULL;

	for (unsigned i = 0; i < n; i++) {
		if (!(p[i].threads >= 1 && p[i].tps > 0 && p[i].stmts_per_txn > 0 && p[i].read_mean_us > 0)) {
			snprintf(err, errlen, "point %u has no transactions or statements to calibrate on", i + 1);
			return -EINVAL;
		}
		if (p[i].threads >= 2.0 * cpus && (!bound || p[i].threads > bound->threads))
			bound = &p[i];
		if (p[i].threads <= cpus && (!lat || p[i].threads < lat->threads))
			lat = &p[i];
	}
	if (!cpus || !bound || !lat) {
		snprintf(err, errlen, "needs a point with at least %u threads (2 x the %u CPUs: the machine "
			 "saturated) and one with at most %u (latency-bound)", 2 * cpus, cpus, cpus);
		return -EINVAL;
	}
	*c = (struct dbm_calib){ .cpus = cpus, .bound_threads = (unsigned)bound->threads,
				 .latency_threads = (unsigned)lat->threads };
	c->machine_us = cpus * 1e6 / (bound->tps * bound->stmts_per_txn);
	c->rows_per_stmt = bound->rows_per_txn / bound->stmts_per_txn;
	c->writes_per_stmt = bound->writes_per_txn / bound->stmts_per_txn;
	c->cpu_per_stmt_us = fmax(0, c->machine_us - DBM_CALIB_EMU_CPU_US);
	c->client_rtt_us = fmax(0, lat->read_mean_us - c->cpu_per_stmt_us - DBM_CALIB_SLEEP_US);
	return 0;
}

int dbm_calib_fit_tpcc(const struct dbm_calib_tpcc_point *p, unsigned n, unsigned cpus,
		       struct dbm_calib *c, char *err, size_t errlen)
{
	const struct dbm_calib_tpcc_point *bound = NULL, *lat = NULL, *srv = NULL;
	const double n_os = tpcc_sb_stmts[TPCC_ORDER_STATUS], r_os = tpcc_sb_rows[TPCC_ORDER_STATUS];
	const double n_sl = tpcc_sb_stmts[TPCC_STOCK_LEVEL], r_sl = tpcc_sb_rows[TPCC_STOCK_LEVEL];

	for (unsigned i = 0; i < n; i++) {
		if (!(p[i].threads >= 1 && p[i].tps > 0 && p[i].stmts_per_txn > 0 && p[i].rows_per_txn >= 0)) {
			snprintf(err, errlen, "point %u has no transactions or statements to calibrate on", i + 1);
			return -EINVAL;
		}
		if (p[i].threads >= 2.0 * cpus && (!bound || p[i].threads > bound->threads))
			bound = &p[i];
		if (p[i].threads <= cpus && p[i].os_mean_us > 0 && p[i].sl_mean_us > 0 &&
		    (!lat || p[i].threads < lat->threads))
			lat = &p[i];
		if (p[i].srv_us_per_txn > 0 && (!srv || p[i].threads > srv->threads))
			srv = &p[i];
	}
	if (!cpus || !lat || !(bound || srv)) {
		snprintf(err, errlen, "needs a point with at most %u threads (latency-bound) with "
			 "Order-Status and Stock-Level transactions, and one with at least %u (2 x the %u "
			 "CPUs: the machine saturated)", cpus, 2 * cpus, cpus);
		return -EINVAL;
	}
	*c = (struct dbm_calib){ .cpus = cpus, .latency_threads = (unsigned)lat->threads, .tpcc = 1 };
	/* os = n_os s + r_os b, sl = n_sl s + r_sl b */
	c->cpu_per_row_us = (lat->sl_mean_us * n_os - lat->os_mean_us * n_sl) / (r_sl * n_os - r_os * n_sl);
	c->stmt_wall_us = (lat->os_mean_us - r_os * c->cpu_per_row_us) / n_os;
	if (!(c->cpu_per_row_us > 0 && c->stmt_wall_us > 0)) {
		snprintf(err, errlen, "at %g threads Stock-Level (%.0f us) and Order-Status (%.0f us) do "
			 "not give a positive cost per row and per statement", lat->threads, lat->sl_mean_us,
			 lat->os_mean_us);
		return -EINVAL;
	}
	double txn_us;
	if (srv) {              /* the server's own CPU: nothing of the emulator's in it */
		c->tpcc = 2;
		c->bound_threads = (unsigned)srv->threads;
		txn_us = srv->srv_us_per_txn - c->cpu_per_row_us * srv->rows_per_txn;
		c->machine_us = txn_us / srv->stmts_per_txn;
		c->cpu_per_stmt_us = fmax(0, c->machine_us);
	} else {
		c->bound_threads = (unsigned)bound->threads;
		txn_us = cpus * 1e6 / bound->tps - c->cpu_per_row_us * bound->rows_per_txn;
		c->machine_us = txn_us / bound->stmts_per_txn;
		c->cpu_per_stmt_us = fmax(0, c->machine_us - DBM_CALIB_EMU_CPU_US);
	}
	c->client_rtt_us = fmax(0, c->stmt_wall_us - c->cpu_per_stmt_us - DBM_CALIB_SLEEP_US);
	return 0;
}

/* A class's number at @key ("ops", "ops_per_s"), or NAN. */
static double class_num(json_t *classes, const char *cls, const char *key)
{
	json_t *v = json_object_get(json_object_get(classes, cls), key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/* Point @pt of the result into @out. 0, or -EINVAL (a class missing). */
static int read_point(json_t *pt, struct dbm_calib_point *out)
{
	json_t *cls = json_object_get(pt, "classes");
	json_t *th = json_object_get(pt, "threads");
	double txn = class_num(cls, "txn", "ops");
	double stmts = class_num(cls, "read", "ops") + class_num(cls, "write", "ops") +
		       class_num(cls, "other", "ops");
	json_t *mean = json_object_get(json_object_get(json_object_get(cls, "read"), "lat_ns"), "mean");

	if (!json_is_integer(th) || !json_is_number(mean) || isnan(txn) || isnan(stmts) || txn <= 0)
		return -EINVAL;
	*out = (struct dbm_calib_point){ .threads = (double)json_integer_value(th),
					 .tps = class_num(cls, "txn", "ops_per_s"),
					 .stmts_per_txn = stmts / txn,
					 .read_mean_us = json_number_value(mean) / 1000,
					 .writes_per_txn = class_num(cls, "write", "ops") / txn };
	return isnan(out->tps) ? -EINVAL : 0;
}

/* Option @name of the run as a number (they are kept as text), or @def. */
static double opt_num(json_t *opts, const char *name, double def)
{
	const char *v = json_string_value(json_object_get(opts, name));
	char *end;
	double d;

	if (!v)
		return def;
	if (!strcmp(v, "on") || !strcmp(v, "true"))
		return 1;
	if (!strcmp(v, "off") || !strcmp(v, "false"))
		return 0;
	d = strtod(v, &end);
	return end != v && !*end ? d : def;
}

/* Rows a transaction of SysBench @script examines in its ranges beyond each one's first. */
static double oltp_range_rows(const char *script, json_t *opts)
{
	if ((strcmp(script, "oltp_read_write") && strcmp(script, "oltp_read_only")) ||
	    !opt_num(opts, "range-selects", 1))
		return 0;
	double ranges = opt_num(opts, "simple-ranges", 1) + opt_num(opts, "sum-ranges", 1) +
			opt_num(opts, "order-ranges", 1) + opt_num(opts, "distinct-ranges", 1);
	return ranges * fmax(0, opt_num(opts, "range-size", 100) - 1);
}

/* TPC-C point @pt of the result into @out. 0, or -EINVAL (a class missing). */
static int read_tpcc_point(json_t *pt, struct dbm_calib_tpcc_point *out)
{
	static const char *const type[TPCC_NTXN] = { "new_order", "payment", "order_status",
						     "delivery", "stock_level" };
	struct dbm_calib_point base;
	json_t *cls = json_object_get(pt, "classes");
	double rows = 0;

	if (read_point(pt, &base) != 0)
		return -EINVAL;
	for (unsigned t = 0; t < TPCC_NTXN; t++) {
		double ops = class_num(cls, type[t], "ops");
		if (isnan(ops))
			return -EINVAL;
		rows += ops * tpcc_sb_rows[t];
	}
	json_t *os = json_object_get(json_object_get(json_object_get(cls, "order_status"), "lat_ns"), "mean");
	json_t *sl = json_object_get(json_object_get(json_object_get(cls, "stock_level"), "lat_ns"), "mean");
	*out = (struct dbm_calib_tpcc_point){ .threads = base.threads, .tps = base.tps,
					      .stmts_per_txn = base.stmts_per_txn,
					      .rows_per_txn = rows / class_num(cls, "txn", "ops"),
					      .os_mean_us = json_is_number(os) ? json_number_value(os) / 1000 : 0,
					      .sl_mean_us = json_is_number(sl) ? json_number_value(sl) / 1000 : 0 };
	return 0;
}

int dbm_calib_load(const char *path, struct dbm_calib *c, char *err, size_t errlen)
{
	struct dbm_calib_point p[MAX_POINTS];
	struct dbm_calib_tpcc_point tp[MAX_POINTS];
	char why[200];
	json_error_t jerr;
	unsigned n = 0;
	int rc = -EINVAL;
	json_t *root = json_load_file(path, 0, &jerr);

	if (!root) {
		snprintf(err, errlen, "--calibrate-from: cannot read '%s': %s", path, jerr.text);
		return -EINVAL;
	}
	json_t *work = json_object_get(json_object_get(root, "workload"), "options");
	const char *script = json_string_value(json_object_get(work, "workload"));
	json_t *cpus = json_object_get(json_object_get(root, "host"), "cpus");
	json_t *pts = json_object_get(root, "points");
	bool tpcc = script && !strcmp(script, "tpcc");
	if (!script || (strncmp(script, "oltp_", 5) && !tpcc) || !json_is_integer(cpus) ||
	    json_integer_value(cpus) < 1 || !json_is_array(pts)) {
		snprintf(err, errlen, "--calibrate-from: '%s' is not the result of an 'appio db run' "
			 "of a SysBench OLTP script (oltp_read_write, ...) or of tpcc", path);
		goto out;
	}
	size_t i;
	json_t *pt;
	json_array_foreach(pts, i, pt) {
		if (json_is_true(json_object_get(pt, "partial")))
			continue;       /* interrupted: its figures cover less than its time */
		if (n == MAX_POINTS || (tpcc ? read_tpcc_point(pt, &tp[n]) : read_point(pt, &p[n])) != 0) {
			snprintf(err, errlen, "--calibrate-from: '%s': point %zu has no txn, read, write "
				 "and other classes%s", path, i + 1, tpcc ? " nor the five types'" : "");
			goto out;
		}
		if (!tpcc)
			p[n].rows_per_txn = oltp_range_rows(script, work);
		n++;
	}
	if (tpcc)
		rc = dbm_calib_fit_tpcc(tp, n, (unsigned)json_integer_value(cpus), c, why, sizeof(why));
	else
		rc = dbm_calib_fit(p, n, (unsigned)json_integer_value(cpus), c, why, sizeof(why));
	if (rc)
		snprintf(err, errlen, "--calibrate-from: '%s': %s", path, why);
out:
	json_decref(root);
	return rc;
}
