/*
 * steady.c - SNIA PTS steady-state detection over per-round figures (see
 * steady.h for the criteria).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "steady.h"

/* Statistics of @x[0..n): average, extremes, least-squares slope per round. */
static void window_stats(const double *x, unsigned n, struct steady_verdict *v)
{
	double sx = 0, sy = 0, sxy = 0, sxx = 0;

	v->min = v->max = x[0];
	for (unsigned i = 0; i < n; i++) {
		sx += i;
		sy += x[i];
		sxy += i * x[i];
		sxx += (double)i * i;
		v->min = fmin(v->min, x[i]);
		v->max = fmax(v->max, x[i]);
	}
	v->avg = sy / n;
	double den = n * sxx - sx * sx;
	v->slope = den != 0 ? (n * sxy - sx * sy) / den : 0;
}

int steady_check(const double *x, unsigned n, struct steady_verdict *v)
{
	if (!x || !v)
		return -EINVAL;
	memset(v, 0, sizeof(*v));
	if (!n)
		return 0;
	unsigned w = n < STEADY_WINDOW ? n : STEADY_WINDOW;
	const double *win = x + (n - w);

	v->first = n - w + 1;
	v->last = n;
	window_stats(win, w, v);
	if (v->avg <= 0)
		return 0;
	for (unsigned i = 0; i < w; i++)
		v->excursion_pct = fmax(v->excursion_pct, fabs(win[i] - v->avg) / v->avg * 100);
	v->range_pct = (v->max - v->min) / v->avg * 100;
	v->fit_pct = fabs(v->slope) * (w - 1) / v->avg * 100;
	/* a value exactly on a limit passes, whatever the rounding of the division */
	v->reached = w == STEADY_WINDOW && v->excursion_pct <= STEADY_EXCURSION_PCT + 1e-9 &&
		     v->fit_pct <= STEADY_SLOPE_PCT + 1e-9;
	return 0;
}

int steady_first(const double *x, unsigned n, struct steady_verdict *v)
{
	if (!x || !v)
		return -EINVAL;
	for (unsigned end = STEADY_WINDOW; end <= n; end++) {
		steady_check(x, end, v);
		if (v->reached)
			return 1;
	}
	steady_check(x, n, v);
	return 0;
}

static void json_double(FILE *f, double d)
{
	if (!isfinite(d))
		fputs("null", f);
	else
		fprintf(f, "%.6g", d);
}

void steady_write_json(FILE *f, const struct steady_verdict *v, const double *x, unsigned n,
		       unsigned max_rounds, double round_s, const char *metric)
{
	fprintf(f, "{\"reached\": %s, \"round\": ", v->reached ? "true" : "false");
	if (v->reached)
		fprintf(f, "%u", v->last);
	else
		fputs("null", f);
	fprintf(f, ", \"rounds_run\": %u, \"max_rounds\": %u, \"round_s\": ", n, max_rounds);
	json_double(f, round_s);
	fprintf(f, ", \"metric\": \"%s\", \"rounds\": [", metric);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_double(f, round(x[i] * 10) / 10);
	}
	fprintf(f, "],\n     \"window\": {\"first\": %u, \"last\": %u", v->first, v->last);
	const double vals[] = { v->avg, v->min, v->max, v->slope, v->excursion_pct, v->range_pct, v->fit_pct };
	const char *const names[] = { "avg", "min", "max", "slope_per_round", "excursion_pct",
				      "range_pct", "fit_pct" };
	for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		fprintf(f, ", \"%s\": ", names[i]);
		json_double(f, round(vals[i] * 100) / 100);
	}
	fprintf(f, "},\n     \"criteria\": {\"window\": %d, \"excursion_pct\": %g, \"slope_pct\": %g}}",
		STEADY_WINDOW, STEADY_EXCURSION_PCT, STEADY_SLOPE_PCT);
}

char *steady_describe(const struct steady_verdict *v, unsigned n, const char *metric,
		      char *buf, size_t len)
{
	if (!n) {
		snprintf(buf, len, "not reached: no round ran");
		return buf;
	}
	int k = v->reached ? snprintf(buf, len, "reached at round %u", v->last)
			   : snprintf(buf, len, "not reached after %u round(s)", n);
	if (k < 0 || (size_t)k >= len)
		return buf;
	snprintf(buf + k, len - (size_t)k, " (rounds %u-%u: avg %.0f %s, rounds within %.1f %% "
		 "of it, fitted change %.1f %%; steady needs %d rounds within %.0f %% and <= %.0f %%)",
		 v->first, v->last, v->avg, metric, v->excursion_pct, v->fit_pct, STEADY_WINDOW,
		 STEADY_EXCURSION_PCT, STEADY_SLOPE_PCT);
	return buf;
}
