/*
 * nosql_split.c - the reviews' per-interval latency chart as numbers: each
 * point's per-second series cut into --intervals equal parts (second
 * k * seconds / intervals starts part k, as the report cuts it), and the mean
 * latency of every class in every part. Kept in the result's info
 * (nosql.split.CLASS: one mean per interval in microseconds, "-" where the
 * class had no operation; nosql.2.split.CLASS for the second point...) and
 * printed after the table, so the figures the reviews chart need no report.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "appio/result.h"
#include "nosql_int.h"

/* Mean latency (ns) of class @c over interval @k of @nint of point @p; NAN without operations. */
static double interval_mean(const struct point_result *p, unsigned c, unsigned k, unsigned nint)
{
	unsigned first = (unsigned)((uint64_t)k * p->nsec / nint);
	unsigned end = (unsigned)((uint64_t)(k + 1) * p->nsec / nint);
	uint64_t ops = 0, sum = 0;

	for (unsigned s = first; s < end; s++) {
		const struct sec_cls *x = &p->series[(size_t)s * p->ncls + c];
		ops += x->ops;
		sum += x->sum_ns;
	}
	return ops ? (double)sum / (double)ops : NAN;
}

static bool split_class(const struct point_result *p, unsigned c)
{
	return strcmp(p->cls[c].name, "total") != 0;
}

static unsigned intervals(const void *opts, const struct point_result *p)
{
	unsigned n = (unsigned)((const struct nosql_opts *)opts)->intervals;
	return p->nsec && p->series && n ? n : 0;
}

void nosql_point_end(struct emu_run *run, const struct point_result *p)
{
	struct nosql_run *nr = run->priv;
	unsigned nint = intervals(run->opts, p);
	char key[96], val[4096];

	nr->npoints++;
	for (unsigned c = 0; nint && c < p->ncls; c++) {
		if (!split_class(p, c))
			continue;
		size_t used = 0;
		val[0] = 0;
		for (unsigned k = 0; k < nint && used + 32 < sizeof(val); k++) {
			double m = interval_mean(p, c, k, nint);
			used += (size_t)snprintf(val + used, sizeof(val) - used, isnan(m) ? "%s-" : "%s%.1f",
						 k ? "," : "", m / 1e3);
		}
		if (nr->npoints > 1)
			snprintf(key, sizeof(key), "nosql.%u.split.%s", nr->npoints, p->cls[c].name);
		else
			snprintf(key, sizeof(key), "nosql.split.%s", p->cls[c].name);
		emu_info(run, key, val);
	}
}

void nosql_summary(const void *opts, const struct result *res, FILE *f)
{
	for (unsigned i = 0; i < res->npoints; i++) {
		const struct point_result *p = &res->points[i];
		unsigned nint = intervals(opts, p);
		if (!nint)
			continue;
		fprintf(f, "mean latency per interval (ms), %u thread%s, %u intervals of the %.0f s:\n%-8s",
			p->pt.threads, p->pt.threads == 1 ? "" : "s", nint, p->time_s, "interval");
		for (unsigned c = 0; c < p->ncls; c++)
			if (split_class(p, c))
				fprintf(f, " %*s", (int)(strlen(p->cls[c].name) > 8 ? strlen(p->cls[c].name) : 8),
					p->cls[c].name);
		fputc('\n', f);
		for (unsigned k = 0; k < nint; k++) {
			fprintf(f, "%-8u", k + 1);
			for (unsigned c = 0; c < p->ncls; c++) {
				if (!split_class(p, c))
					continue;
				int w = (int)(strlen(p->cls[c].name) > 8 ? strlen(p->cls[c].name) : 8);
				double m = interval_mean(p, c, k, nint);
				if (isnan(m))
					fprintf(f, " %*s", w, "-");
				else
					fprintf(f, " %*.3f", w, m / 1e6);
			}
			fputc('\n', f);
		}
	}
}
