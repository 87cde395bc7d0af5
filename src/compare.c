/*
 * compare.c - rankings and side-by-side tables of several drives' results
 * (see compare.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/emulator.h"
#include "appio/result.h"
#include "appio/xalloc.h"
#include "compare.h"
#include "job.h"

struct compare_metric compare_metric(const struct json_read_test *t, enum json_read_metric m)
{
	static const struct compare_metric tab[JR_METRICS] = {
		[JR_OPS] = { "IOPS", "IOPS", false },
		[JR_MBPS] = { "throughput", "MB/s", false },
		[JR_MEAN] = { "mean latency", "ns", true },
		[JR_P99] = { "p99 latency", "ns", true },
		[JR_MAX] = { "max latency", "ns", true },
		[JR_STDDEV] = { "latency stddev", "ns", true },
	};
	struct compare_metric r = tab[m];

	/* an application's headline counts its own operations: loops, or transactions */
	if (m == JR_OPS && t && t->headline && !strcmp(t->headline, "loop"))
		r.name = r.unit = "loops/s";
	else if (m == JR_OPS && t && t->tx)
		r.name = r.unit = "TPS";
	return r;
}

void compare_rank(const double *v, unsigned n, bool lower_better, unsigned *rank, double *diff_pct)
{
	double best = NAN;

	for (unsigned i = 0; i < n; i++)
		if (!isnan(v[i]) && (isnan(best) || (lower_better ? v[i] < best : v[i] > best)))
			best = v[i];
	for (unsigned i = 0; i < n; i++) {
		rank[i] = 0;
		diff_pct[i] = NAN;
		if (isnan(v[i]))
			continue;
		rank[i] = 1;
		for (unsigned k = 0; k < n; k++)   /* 1 + how many are strictly better */
			if (!isnan(v[k]) && (lower_better ? v[k] < v[i] : v[k] > v[i]))
				rank[i]++;
		if (best != 0)
			diff_pct[i] = (v[i] - best) / fabs(best) * 100;
	}
}

/* Append @s to the list unless it is there already. */
static void add_unique(const char ***list, unsigned *n, const char *s)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strcmp((*list)[i], s))
			return;
	*list = xrealloc(*list, (*n + 1) * sizeof(**list));
	(*list)[(*n)++] = s;
}

unsigned compare_tests(const struct json_read_doc *d, unsigned n, const char ***names)
{
	unsigned k = 0;

	*names = NULL;
	for (unsigned i = 0; i < n; i++)
		for (unsigned t = 0; t < d[i].ntests; t++)
			add_unique(names, &k, d[i].tests[t].name);
	return k;
}

unsigned compare_points(const struct json_read_doc *d, unsigned n, const char *name, const char ***keys)
{
	unsigned k = 0;

	*keys = NULL;
	for (unsigned i = 0; i < n; i++) {
		const struct json_read_test *t = json_read_find(&d[i], name);
		for (unsigned p = 0; t && p < t->npts; p++)
			add_unique(keys, &k, t->pts[p].key);
	}
	return k;
}

unsigned compare_metrics_of(const struct json_read_test *t, enum json_read_metric *m)
{
	unsigned k = 0;

	switch (t->kind) {
	case JR_FILL:
		m[k++] = JR_MBPS;
		break;
	case JR_PRECOND:
		m[k++] = JR_OPS;
		m[k++] = JR_MEAN;
		m[k++] = JR_MAX;
		break;
	case JR_REPLAY:         /* the trace sets the rate: the drive shows in the service time */
		m[k++] = JR_P99;
		m[k++] = JR_MEAN;
		m[k++] = JR_MAX;
		m[k++] = JR_OPS;
		break;
	default:
		m[k++] = compare_headline(t);
		m[k++] = JR_MEAN;
		m[k++] = JR_P99;
		m[k++] = JR_MAX;
		if (t->kind == JR_SWEEP || t->kind == JR_WSWEEP)
			m[k++] = JR_STDDEV;
	}
	return k;
}

enum json_read_metric compare_headline(const struct json_read_test *t)
{
	if (t->kind == JR_REPLAY)
		return JR_P99;
	return t->kind == JR_FILL || (t->mbs && t->kind != JR_PRECOND) ? JR_MBPS : JR_OPS;
}

/* Options that say where or how wide a run went, not what it did: rows flagged OPT_WHERE. */
static bool ignored_option(const char *k)
{
	const struct opt_def *o = opt_find(job_run_opt_table, k);

	for (const struct emu_ops *const *e = emulator_table; !o && *e; e++)
		o = (*e)->opts ? opt_find((*e)->opts, k) : NULL;
	return o && (o->flags & OPT_WHERE);
}

static int differs(const struct json_read_doc *a, const struct json_read_test *ta,
		   const struct json_read_doc *b, const struct json_read_test *tb, char *err, size_t errlen)
{
	const char *key;
	json_t *va;

	if (strcmp(ta->engine, tb->engine)) {
		snprintf(err, errlen, "compare: option 'engine' of test '%s' differs: '%s' in %s, '%s' in %s; "
			 "only results of the same workload options compare", ta->name, ta->engine, a->label,
			 tb->engine, b->label);
		return -EINVAL;
	}
	json_object_foreach(ta->options, key, va) {
		const char *x = json_string_value(va), *y = json_string_value(json_object_get(tb->options, key));
		if (ignored_option(key) || (x && y && !strcmp(x, y)))
			continue;
		snprintf(err, errlen, "compare: option '%s' of test '%s' differs: '%s' in %s, '%s' in %s; "
			 "only results of the same workload options compare", key, ta->name, x ? x : "(none)",
			 a->label, y ? y : "(none)", b->label);
		return -EINVAL;
	}
	return 0;
}

int compare_check(const struct json_read_doc *d, unsigned n, char *err, size_t errlen)
{
	for (unsigned i = 0; i < n; i++)
		for (unsigned t = 0; t < d[i].ntests; t++)
			for (unsigned k = 0; k < n; k++) {
				const struct json_read_test *o = json_read_find(&d[k], d[i].tests[t].name);
				if (k != i && o && differs(&d[i], &d[i].tests[t], &d[k], o, err, errlen))
					return -EINVAL;
			}
	return 0;
}

/* "1,234,567" */
static char *group(double v, char *buf, size_t len)
{
	char raw[48];
	int n = snprintf(raw, sizeof(raw), "%.0f", fabs(v)), o = 0;

	if (v < 0)
		buf[o++] = '-';
	for (int i = 0; i < n && (size_t)o + 2 < len; i++) {
		if (i && (n - i) % 3 == 0)
			buf[o++] = ',';
		buf[o++] = raw[i];
	}
	buf[o] = 0;
	return buf;
}

char *compare_fmt(double v, enum json_read_metric m, const struct json_read_test *t,
		  char *buf, size_t len)
{
	char g[48];

	if (isnan(v))
		snprintf(buf, len, "missing");
	else if (m == JR_OPS && v >= 100)
		snprintf(buf, len, "%s %s", group(v, g, sizeof(g)), compare_metric(t, m).unit);
	else if (m == JR_OPS)
		snprintf(buf, len, "%.1f %s", v, compare_metric(t, m).unit);
	else if (m == JR_MBPS)
		snprintf(buf, len, "%.1f MB/s", v);
	else
		fmt_ns(v, buf, len);
	return buf;
}

/* The figure of metric @m at point @key for every drive (NAN where missing). */
static void figures_at(const struct json_read_doc *d, unsigned n, const char *test, const char *key,
		       enum json_read_metric m, double *v)
{
	for (unsigned i = 0; i < n; i++) {
		const struct json_read_point *p = json_read_point(json_read_find(&d[i], test), key);
		v[i] = p ? p->m[m] : NAN;
	}
}

static const struct json_read_test *any_test(const struct json_read_doc *d, unsigned n, const char *name)
{
	for (unsigned i = 0; i < n; i++)
		if (json_read_find(&d[i], name))
			return json_read_find(&d[i], name);
	return NULL;
}

static void print_cell(FILE *f, double v, unsigned rank, double diff, enum json_read_metric m,
		       const struct json_read_test *t)
{
	char fig[48], pct[24];

	if (isnan(v)) {
		fprintf(f, "  %-30s", "missing");
		return;
	}
	if (isnan(diff) || rank == 1)
		snprintf(pct, sizeof(pct), "%s", rank == 1 ? "best" : "");
	else
		snprintf(pct, sizeof(pct), "%+.1f %%", diff);
	fprintf(f, "  %14s #%-3u %-10s", compare_fmt(v, m, t, fig, sizeof(fig)), rank, pct);
}

static void print_metric(const struct json_read_doc *d, unsigned n, const struct json_read_test *t,
			 const char **keys, unsigned nk, enum json_read_metric m, FILE *f)
{
	struct compare_metric cm = compare_metric(t, m);
	double *v = xcalloc(n, sizeof(*v)), *diff = xcalloc(n, sizeof(*diff));
	unsigned *rank = xcalloc(n, sizeof(*rank));

	fprintf(f, "\n-- %s: %s (%s is better)\n%-12s", t->name, cm.name,
		cm.lower_better ? "lower" : "higher", "point");
	for (unsigned i = 0; i < n; i++)
		fprintf(f, "  %-30.30s", d[i].label);
	fputc('\n', f);
	for (unsigned k = 0; k < nk; k++) {
		figures_at(d, n, t->name, keys[k], m, v);
		compare_rank(v, n, cm.lower_better, rank, diff);
		fprintf(f, "%-12s", keys[k]);
		for (unsigned i = 0; i < n; i++)
			print_cell(f, v[i], rank[i], diff[i], m, t);
		fputc('\n', f);
	}
	free(v);
	free(diff);
	free(rank);
}

/* Say which drives lack a test, rather than dropping it silently. */
static void print_missing(const struct json_read_doc *d, unsigned n, const char *name, FILE *f)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++) {
		if (json_read_find(&d[i], name))
			continue;
		fprintf(f, any ? ", %s" : "   missing in: %s", d[i].label);
		any = true;
	}
	if (any)
		fputc('\n', f);
}

void compare_print(const struct json_read_doc *d, unsigned n, FILE *f)
{
	const char **names, **keys;
	unsigned nt = compare_tests(d, n, &names);

	for (unsigned i = 0; i < nt; i++) {
		const struct json_read_test *t = any_test(d, n, names[i]);
		enum json_read_metric m[JR_METRICS];
		unsigned nm = compare_metrics_of(t, m), nk = compare_points(d, n, names[i], &keys);
		fprintf(f, "\n== %s\n", names[i]);
		print_missing(d, n, names[i], f);
		for (unsigned k = 0; k < nm; k++)
			print_metric(d, n, t, keys, nk, m[k], f);
		free(keys);
	}
	free(names);
}

static void summary_row(const struct json_read_doc *d, const struct json_read_test *t,
			const char *at, enum json_read_metric h, double v, unsigned rank, double diff, FILE *f)
{
	const struct json_read_test *own = json_read_find(d, t->name);
	const struct json_read_point *p = json_read_point(own, at);
	char r[16] = "-", a[48], b[48], c[48], pct[16] = "";

	if (rank)
		snprintf(r, sizeof(r), "%u", rank);
	if (rank > 1 && !isnan(diff))
		snprintf(pct, sizeof(pct), "%+.1f %%", diff);
	fprintf(f, "%-4s %-30.30s %16s %9s %10s %10s", r, d->label, compare_fmt(v, h, t, a, sizeof(a)),
		rank == 1 ? "best" : pct, compare_fmt(p ? p->m[JR_MEAN] : NAN, JR_MEAN, t, b, sizeof(b)),
		compare_fmt(p ? p->m[JR_MAX] : NAN, JR_MAX, t, c, sizeof(c)));
	if (own && own->kind == JR_PRECOND)
		fprintf(f, "  %s", own->reached ? "steady" : "not steady");
	if (own && own->kind == JR_PRECOND && own->reached)
		fprintf(f, " at round %u", own->steady_round);
	else if (own && own->kind == JR_PRECOND)
		fprintf(f, " after %u rounds", own->rounds_run);
	fputc('\n', f);
}

void compare_print_summary(const struct json_read_doc *d, unsigned n, FILE *f)
{
	const char **names, **keys;
	unsigned nt = compare_tests(d, n, &names);
	double *v = xcalloc(n, sizeof(*v)), *diff = xcalloc(n, sizeof(*diff));
	unsigned *rank = xcalloc(n, sizeof(*rank));

	for (unsigned i = 0; i < nt; i++) {
		const struct json_read_test *t = any_test(d, n, names[i]);
		enum json_read_metric h = compare_headline(t);
		unsigned nk = compare_points(d, n, names[i], &keys);
		const char *at = nk ? keys[nk - 1] : "";
		figures_at(d, n, names[i], at, h, v);
		compare_rank(v, n, compare_metric(t, h).lower_better, rank, diff);
		fprintf(f, "\n== %s (at %s)\n%-4s %-30s %16s %9s %10s %10s\n", names[i], at, "rank",
			"drive", compare_metric(t, h).name, "vs best", "mean", "max");
		for (unsigned r = 1; r <= n + 1; r++)   /* ranks 1..n, then the missing (rank 0) */
			for (unsigned k = 0; k < n; k++)
				if (rank[k] == (r <= n ? r : 0))
					summary_row(&d[k], t, at, h, v[k], rank[k], diff[k], f);
		free(keys);
	}
	free(v);
	free(diff);
	free(rank);
	free(names);
}
