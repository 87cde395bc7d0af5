/*
 * slo.c - latency limits and the sweep points that meet them (see slo.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "json_write.h"
#include "slo.h"

/* Longest names first: "p99.99" must be tried before "p99.9" and "p99". */
static const struct {
	const char *name;
	enum slo_stat st;
} stat_names[] = {
	{ "p99.99", SLO_P9999 }, { "p9999", SLO_P9999 }, { "p99.9", SLO_P999 }, { "p999", SLO_P999 },
	{ "mean", SLO_MEAN }, { "p50", SLO_P50 }, { "p90", SLO_P90 }, { "p99", SLO_P99 },
	{ "max", SLO_MAX },
};

/* The keys of lat_ns in a result document, by stat. */
static const char *const doc_keys[SLO_NSTATS] = {
	"mean", "p50", "p90", "p99", "p999", "p9999", "max",
};

const char *slo_stat_name(enum slo_stat st)
{
	static const char *const names[SLO_NSTATS] = {
		"mean", "p50", "p90", "p99", "p99.9", "p99.99", "max",
	};
	return (unsigned)st < SLO_NSTATS ? names[st] : "?";
}

static int bad(const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "--slo: '%s' is not a latency limit (expected [CLASS.]STAT=TIME, STAT one "
		 "of mean, p50, p90, p99, p99.9, p99.99, max, TIME with ns, us, ms or s; e.g. p99=2ms or "
		 "read.p99=1ms,write.p99=5ms)", what);
	return -EINVAL;
}

/* "2ms", "1.5 ms" -> ns; -1 when it is not a positive time with a unit. */
static double parse_time(const char *s)
{
	static const struct { const char *u; double mul; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
	};
	char *end;
	double v = strtod(s, &end);

	if (end == s || !(v > 0) || !isfinite(v))
		return -1;
	while (*end == ' ')
		end++;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].u))
			return v * units[i].mul;
	return -1;
}

/* "read.p99" -> class "read", SLO_P99; false when no stat ends it. */
static bool parse_lhs(const char *lhs, struct slo_limit *l)
{
	size_t n = strlen(lhs);

	for (size_t i = 0; i < sizeof(stat_names) / sizeof(stat_names[0]); i++) {
		size_t k = strlen(stat_names[i].name);
		if (n < k || strcmp(lhs + n - k, stat_names[i].name))
			continue;
		if (n == k) {
			l->cls[0] = '\0';
		} else if (lhs[n - k - 1] == '.' && n - k - 1 > 0 && n - k - 1 < sizeof(l->cls)) {
			memcpy(l->cls, lhs, n - k - 1);
			l->cls[n - k - 1] = '\0';
		} else {
			continue;
		}
		l->stat = stat_names[i].st;
		return true;
	}
	return false;
}

static int parse_one(struct slo *s, const char *item, char *err, size_t errlen)
{
	char lhs[64];
	const char *eq = strchr(item, '=');
	struct slo_limit l = { 0 };

	if (!eq || (size_t)(eq - item) >= sizeof(lhs))
		return bad(item, err, errlen);
	memcpy(lhs, item, (size_t)(eq - item));
	lhs[eq - item] = '\0';
	if (!parse_lhs(lhs, &l) || (l.ns = parse_time(eq + 1)) < 0)
		return bad(item, err, errlen);
	if (s->n == SLO_MAX_LIMITS) {
		snprintf(err, errlen, "--slo: more than %d limits (expected at most %d, e.g. "
			 "read.p99=1ms,write.p99=5ms)", SLO_MAX_LIMITS, SLO_MAX_LIMITS);
		return -EINVAL;
	}
	s->lim[s->n++] = l;
	return 0;
}

int slo_parse(struct slo *s, const char *spec, char *err, size_t errlen)
{
	char *copy = xstrdup(spec ? spec : ""), *save = NULL;
	int rc = 0, seen = 0;

	for (char *it = strtok_r(copy, ", ", &save); it && !rc; it = strtok_r(NULL, ", ", &save), seen++)
		rc = parse_one(s, it, err, errlen);
	if (!rc && !seen)
		rc = bad(spec ? spec : "", err, errlen);
	free(copy);
	return rc;
}

/* A time as a limit writes it: "2ms", "1.5ms", "500us". */
static void fmt_limit(double ns, char *buf, size_t len)
{
	if (ns >= 1e9 && fmod(ns, 1e8) == 0)
		snprintf(buf, len, "%gs", ns / 1e9);
	else if (ns >= 1e6 && fmod(ns, 1e3) == 0)
		snprintf(buf, len, "%gms", ns / 1e6);
	else if (ns >= 1e3 && fmod(ns, 1) == 0)
		snprintf(buf, len, "%gus", ns / 1e3);
	else
		snprintf(buf, len, "%gns", ns);
}

char *slo_format(const struct slo *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < s->n && n < len; i++) {
		char t[32];
		fmt_limit(s->lim[i].ns, t, sizeof(t));
		n += (size_t)snprintf(buf + n, len - n, "%s%s%s%s=%s", i ? "," : "", s->lim[i].cls,
				      *s->lim[i].cls ? "." : "", slo_stat_name(s->lim[i].stat), t);
	}
	return buf;
}

int slo_check(const struct slo *s, unsigned i, slo_fig_fn fn, void *ctx, double *ns)
{
	for (unsigned k = 0; k < s->n; k++) {
		struct slo_fig f;
		if (!fn(ctx, i, s->lim[k].cls, &f) || !(f.ops > 0))
			continue;       /* not this point's class: the limit does not apply */
		double v = f.lat[s->lim[k].stat];
		if (!(v <= s->lim[k].ns)) {     /* NAN (absent) breaks it too */
			*ns = v;
			return (int)k;
		}
	}
	return -1;
}

void slo_pick(const struct slo *s, unsigned n, const double *rate, const bool *partial,
	      slo_fig_fn fn, void *ctx, struct slo_pick *out)
{
	*out = (struct slo_pick){ .best = -1, .over = -1, .broken = -1, .over_ns = NAN };
	for (unsigned i = 0; i < n; i++) {
		double ns;
		if ((partial && partial[i]) || isnan(rate[i]) || slo_check(s, i, fn, ctx, &ns) >= 0)
			continue;
		if (out->best < 0 || rate[i] > rate[out->best])
			out->best = (int)i;
	}
	double floor = out->best >= 0 ? rate[out->best] : -INFINITY;
	for (unsigned i = 0; i < n; i++) {
		double ns;
		if ((partial && partial[i]) || isnan(rate[i]) || !(rate[i] > floor))
			continue;
		int k = slo_check(s, i, fn, ctx, &ns);
		if (k < 0 || (out->over >= 0 && rate[i] >= rate[out->over]))
			continue;
		out->over = (int)i;
		out->broken = k;
		out->over_ns = ns;
	}
}

/* ---- figures from a result in memory ---- */

static const struct cls_result *result_cls(const struct point_result *p, const char *cls)
{
	if (*cls)
		return point_class(p, cls);
	const struct cls_result *c = point_class(p, p->headline ? p->headline : "total");
	return c ? c : p->ncls ? &p->cls[0] : NULL;
}

static bool result_fig(void *ctx, unsigned i, const char *cls, struct slo_fig *out)
{
	const struct result *r = ctx;
	const struct cls_result *c = result_cls(&r->points[i], cls);

	if (!c)
		return false;
	const struct lat_summary *l = &c->lat;
	*out = (struct slo_fig){ .ops = (double)c->ops, .lat = {
		l->mean, (double)l->p50, (double)l->p90, (double)l->p99, (double)l->p999,
		(double)l->p9999, (double)l->max } };
	return true;
}

void slo_pick_result(const struct slo *s, const struct result *r, struct slo_pick *out)
{
	double *rate = xcalloc(r->npoints + 1, sizeof(*rate));
	bool *partial = xcalloc(r->npoints + 1, sizeof(*partial));

	for (unsigned i = 0; i < r->npoints; i++) {
		const struct cls_result *c = result_cls(&r->points[i], "");
		rate[i] = c ? c->ops_per_s : NAN;
		partial[i] = r->points[i].partial;
	}
	slo_pick(s, r->npoints, rate, partial, result_fig, (void *)r, out);
	free(rate);
	free(partial);
}

/* ---- figures from a document read back ---- */

struct test_ctx {
	const struct json_read_test *t;
};

static bool test_fig(void *ctx, unsigned i, const char *cls, struct slo_fig *out)
{
	const struct json_read_test *t = ((struct test_ctx *)ctx)->t;
	json_t *c = json_object_get(json_object_get(t->pts[i].raw, "classes"), *cls ? cls : t->headline);
	json_t *lat = json_object_get(c, "lat_ns");

	if (!json_is_object(lat))
		return false;
	out->ops = json_number_value(json_object_get(c, "ops"));
	for (int k = 0; k < SLO_NSTATS; k++) {
		json_t *v = json_object_get(lat, doc_keys[k]);
		out->lat[k] = json_is_number(v) ? json_number_value(v) : NAN;
	}
	return true;
}

void slo_pick_test(const struct slo *s, const struct json_read_test *t, struct slo_pick *out)
{
	double *rate = xcalloc(t->npts + 1, sizeof(*rate));
	bool *partial = xcalloc(t->npts + 1, sizeof(*partial));
	struct test_ctx ctx = { t };

	for (unsigned i = 0; i < t->npts; i++) {
		rate[i] = t->pts[i].m[JR_OPS];
		partial[i] = t->pts[i].partial;
	}
	slo_pick(s, t->npts, rate, partial, test_fig, &ctx, out);
	free(rate);
	free(partial);
}

/* ---- output ---- */

static void point_name(const struct point_result *p, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%uT", p->pt.threads);
	if (!p->headline && n > 0 && (size_t)n < len)
		n += snprintf(buf + n, len - (size_t)n, "/%uQ", p->pt.qd);
	if (p->pt.write_pct >= 0 && n > 0 && (size_t)n < len)
		snprintf(buf + n, len - (size_t)n, " %d%% writes", p->pt.write_pct);
}

/* "p99 1.80 ms" for every limit of @s at point @i, to @f. */
static void print_figs(const struct slo *s, const struct result *r, unsigned i, FILE *f)
{
	for (unsigned k = 0; k < s->n; k++) {
		struct slo_fig fig;
		char t[32];
		if (!result_fig((void *)r, i, s->lim[k].cls, &fig) || !(fig.ops > 0))
			continue;
		fprintf(f, "%s%s%s%s %s", k ? ", " : "", s->lim[k].cls, *s->lim[k].cls ? "." : "",
			slo_stat_name(s->lim[k].stat), fmt_ns(fig.lat[s->lim[k].stat], t, sizeof(t)));
	}
}

void slo_print(const struct slo *s, const struct result *r, FILE *f)
{
	struct slo_pick pk;
	char lim[256], name[48];

	if (!s || !s->n || !r->npoints)
		return;
	slo_pick_result(s, r, &pk);
	fprintf(f, "SLO %s: ", slo_format(s, lim, sizeof(lim)));
	if (pk.best >= 0) {
		const struct point_result *p = &r->points[pk.best];
		point_name(p, name, sizeof(name));
		fprintf(f, "best %s at %.0f %s (", name, result_cls(p, "")->ops_per_s, point_rate_unit(p));
		print_figs(s, r, (unsigned)pk.best, f);
		fputc(')', f);
	} else {
		fputs("no point meets it", f);
	}
	if (pk.over >= 0) {
		const struct point_result *p = &r->points[pk.over];
		char a[32], b[32];
		const struct slo_limit *l = &s->lim[pk.broken];
		point_name(p, name, sizeof(name));
		fprintf(f, "; first over: %s at %.0f %s (%s%s%s %s > %s)", name,
			result_cls(p, "")->ops_per_s, point_rate_unit(p), l->cls, *l->cls ? "." : "",
			slo_stat_name(l->stat), fmt_ns(pk.over_ns, a, sizeof(a)), fmt_ns(l->ns, b, sizeof(b)));
	} else if (pk.best >= 0) {
		fputs("; every point meets it", f);
	}
	fputc('\n', f);
}

static void json_pick_point(const struct slo *s, const struct result *r, int i, FILE *f)
{
	if (i < 0) {
		fputs("null", f);
		return;
	}
	const struct point_result *p = &r->points[i];
	fprintf(f, "{\"index\": %d, \"threads\": %u, \"qd\": %u, ", i, p->pt.threads, p->pt.qd);
	if (p->pt.write_pct >= 0)
		fprintf(f, "\"write_pct\": %d, ", p->pt.write_pct);
	fputs("\"ops_per_s\": ", f);
	json_num(f, result_cls(p, "")->ops_per_s);
	fputs(", \"unit\": ", f);
	json_str(f, point_rate_unit(p));
	fputs(", \"lat_ns\": {", f);
	for (unsigned k = 0; k < s->n; k++) {
		struct slo_fig fig;
		char key[96];
		bool have = result_fig((void *)r, (unsigned)i, s->lim[k].cls, &fig) && fig.ops > 0;
		snprintf(key, sizeof(key), "%s%s%s", s->lim[k].cls, *s->lim[k].cls ? "." : "",
			 slo_stat_name(s->lim[k].stat));
		fputs(k ? ", " : "", f);
		json_str(f, key);
		fputs(": ", f);
		json_num(f, have ? fig.lat[s->lim[k].stat] : NAN);
	}
	fputc('}', f);
}

void slo_write_json(const struct slo *s, const struct result *r, FILE *f)
{
	struct slo_pick pk;
	char lim[256];

	slo_pick_result(s, r, &pk);
	fputs("\"slo\": {\"limits\": ", f);
	json_str(f, slo_format(s, lim, sizeof(lim)));
	fputs(", \"best\": ", f);
	json_pick_point(s, r, pk.best, f);
	if (pk.best >= 0)
		fputc('}', f);
	fputs(", \"first_over\": ", f);
	json_pick_point(s, r, pk.over, f);
	if (pk.over >= 0) {
		char key[96];
		const struct slo_limit *l = &s->lim[pk.broken];
		snprintf(key, sizeof(key), "%s%s%s", l->cls, *l->cls ? "." : "", slo_stat_name(l->stat));
		fputs(", \"broken\": ", f);
		json_str(f, key);
		fputs(", \"value_ns\": ", f);
		json_num(f, pk.over_ns);
		fputc('}', f);
	}
	fputc('}', f);
}
