/*
 * dbm_calib.c - --cpu-per-stmt and --client-rtt from a real server's
 * 'appio db run' result (dbm_calib.h says how). The manual method of
 * docs/oltp-tpcc.md in one step: at the saturated point a statement costs
 * the machine CPUS / (TPS x statements) of CPU, of which the emulator's
 * own client wait takes DBM_CALIB_WAIT_CPU_US (measured: a 50 us sleep with
 * 1 us of timer slack costs 17 us of CPU in system call, timer and two
 * context switches).
 */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "dbm_calib.h"

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
	c->cpu_per_stmt_us = fmax(0, c->machine_us - DBM_CALIB_WAIT_CPU_US);
	c->client_rtt_us = fmax(0, lat->read_mean_us - c->cpu_per_stmt_us - DBM_CALIB_WAIT_CPU_US);
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
					 .read_mean_us = json_number_value(mean) / 1000 };
	return isnan(out->tps) ? -EINVAL : 0;
}

int dbm_calib_load(const char *path, struct dbm_calib *c, char *err, size_t errlen)
{
	struct dbm_calib_point p[MAX_POINTS];
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
	if (!script || strncmp(script, "oltp_", 5) || !json_is_integer(cpus) ||
	    json_integer_value(cpus) < 1 || !json_is_array(pts)) {
		snprintf(err, errlen, "--calibrate-from: '%s' is not the result of an 'appio db run' "
			 "of a SysBench OLTP script (oltp_read_write, ...)", path);
		goto out;
	}
	size_t i;
	json_t *pt;
	json_array_foreach(pts, i, pt) {
		if (json_is_true(json_object_get(pt, "partial")))
			continue;       /* interrupted: its figures cover less than its time */
		if (n == MAX_POINTS || read_point(pt, &p[n]) != 0) {
			snprintf(err, errlen, "--calibrate-from: '%s': point %zu has no txn, read, write "
				 "and other classes", path, i + 1);
			goto out;
		}
		n++;
	}
	if ((rc = dbm_calib_fit(p, n, (unsigned)json_integer_value(cpus), c, why, sizeof(why))) != 0)
		snprintf(err, errlen, "--calibrate-from: '%s': %s", path, why);
out:
	json_decref(root);
	return rc;
}
