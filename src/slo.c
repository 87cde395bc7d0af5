/*
 * slo.c - latency limits and the sweep points that meet them (see slo.h).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/hist.h"
#include "appio/xalloc.h"
#include "json_write.h"
#include "slo.h"

/* The percentiles a result lists in lat_ns under keys of their own. */
static const struct {
	double pct;
	const char *key;
} std_keys[] = {
	{ 50, "p50" }, { 90, "p90" }, { 99, "p99" }, { 99.9, "p999" }, { 99.99, "p9999" },
};

char *slo_stat_name(const struct slo_limit *l, char *buf, size_t len)
{
	if (l->stat == SLO_PCT) {
		/* fixed point, not %g: "p1e-05" would not parse back */
		int n = snprintf(buf, len, "p%.6f", l->pct);
		while (n > 1 && (size_t)n < len && buf[n - 1] == '0')
			buf[--n] = '\0';
		if (n > 1 && (size_t)n < len && buf[n - 1] == '.')
			buf[--n] = '\0';
	} else {
		snprintf(buf, len, "%s", l->stat == SLO_MEAN ? "mean" : "max");
	}
	return buf;
}

char *slo_doc_key(const struct slo_limit *l, char *buf, size_t len)
{
	if (l->stat == SLO_PCT && l->pct >= 100)
		return snprintf(buf, len, "max"), buf;
	for (size_t i = 0; l->stat == SLO_PCT && i < sizeof(std_keys) / sizeof(std_keys[0]); i++)
		if (l->pct == std_keys[i].pct)
			return snprintf(buf, len, "%s", std_keys[i].key), buf;
	return slo_stat_name(l, buf, len);
}

char *slo_limit_name(const struct slo_limit *l, char *buf, size_t len)
{
	char st[32];
	snprintf(buf, len, "%s%s%s", l->cls, *l->cls ? "." : "", slo_stat_name(l, st, sizeof(st)));
	return buf;
}

static int bad(const char *what, char *err, size_t errlen)
{
	snprintf(err, errlen, "--slo: '%s' is not a latency limit (expected [CLASS.]STAT=TIME, STAT "
		 "mean, max or a percentile pN with 0 < N <= 100 such as p50, p95, p99.9, TIME with ns, "
		 "us, ms or s; e.g. p99=2ms or read.p99=1ms,write.p99.9=5ms)", what);
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

/*
 * "mean", "max", "p95", "p99.95" (digits, at most one point and 6 decimals),
 * or the result's own keys "p999", "p9999" -> @l; false for anything else,
 * including p0 and percentiles above 100.
 */
static bool parse_stat(const char *s, struct slo_limit *l)
{
	if (!strcmp(s, "mean") || !strcmp(s, "max")) {
		l->stat = !strcmp(s, "mean") ? SLO_MEAN : SLO_MAX;
		return true;
	}
	if (!strcmp(s, "p999") || !strcmp(s, "p9999")) {
		l->stat = SLO_PCT;
		l->pct = s[4] ? 99.99 : 99.9;
		return true;
	}
	if (s[0] != 'p' || !isdigit((unsigned char)s[1]))
		return false;
	size_t n = 1, dots = 0, decimals = 0;
	for (; s[n]; n++) {
		if (s[n] == '.' && !dots++ && isdigit((unsigned char)s[n + 1]))
			continue;
		if (!isdigit((unsigned char)s[n]) || (dots && ++decimals > 6))
			return false;
	}
	l->stat = SLO_PCT;
	l->pct = strtod(s + 1, NULL);
	return l->pct > 0 && l->pct <= 100;
}

/* "read.p99.9" -> class "read", p99.9: the stat follows the first point that leaves one. */
static bool parse_lhs(const char *lhs, struct slo_limit *l)
{
	if (parse_stat(lhs, l)) {
		l->cls[0] = '\0';
		return true;
	}
	for (const char *dot = strchr(lhs, '.'); dot; dot = strchr(dot + 1, '.')) {
		size_t n = (size_t)(dot - lhs);
		if (n == 0 || n >= sizeof(l->cls) || !parse_stat(dot + 1, l))
			continue;
		memcpy(l->cls, lhs, n);
		l->cls[n] = '\0';
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
		char t[32], name[96];
		fmt_limit(s->lim[i].ns, t, sizeof(t));
		n += (size_t)snprintf(buf + n, len - n, "%s%s=%s", i ? "," : "",
				      slo_limit_name(&s->lim[i], name, sizeof(name)), t);
	}
	return buf;
}

int slo_check(const struct slo *s, unsigned i, slo_fig_fn fn, void *ctx, double *ns)
{
	for (unsigned k = 0; k < s->n; k++) {
		struct slo_fig f;
		if (!fn(ctx, i, &s->lim[k], &f) || !(f.ops > 0))
			continue;       /* not this point's class: the limit does not apply */
		if (!(f.ns <= s->lim[k].ns)) {  /* NAN (absent) breaks it too */
			*ns = f.ns;
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

static bool result_fig(void *ctx, unsigned i, const struct slo_limit *l, struct slo_fig *out)
{
	const struct result *r = ctx;
	const struct cls_result *c = result_cls(&r->points[i], l->cls);

	if (!c)
		return false;
	out->ops = (double)c->ops;
	out->ns = l->stat == SLO_MEAN ? c->lat.mean : l->stat == SLO_MAX ? (double)c->lat.max :
		  result_cls_percentile(c, l->pct);
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

/* A document's count or time in ns: a whole number that fits, else false (hostile input). */
static bool doc_u64(json_t *v, uint64_t *out)
{
	double x = json_number_value(v);

	if (!json_is_number(v) || !(x >= 0 && x < 9007199254740992.0))        /* 2^53 */
		return false;
	*out = (uint64_t)x;
	return true;
}

/*
 * Percentile @p of a class read back: from its "hist" triples [low, width,
 * count] put back into a histogram, with its exact min and max, so that the
 * figure is the one hist_percentile() gave the run. NAN without them, or
 * when they are not what a run writes.
 */
static double doc_percentile(json_t *c, double p)
{
	json_t *tri = json_object_get(c, "hist"), *lat = json_object_get(c, "lat_ns"), *x;
	struct hist *h;
	size_t k;
	double v = NAN;

	if (!json_is_array(tri) || !json_array_size(tri))
		return NAN;
	h = xmalloc(sizeof(*h));
	hist_init(h);
	if (!doc_u64(json_object_get(lat, "min"), &h->min) || !doc_u64(json_object_get(lat, "max"), &h->max))
		goto out;
	json_array_foreach(tri, k, x) {
		uint64_t low, n;
		if (!doc_u64(json_array_get(x, 0), &low) || !doc_u64(json_array_get(x, 2), &n) ||
		    h->count + n >= 1ULL << 62)
			goto out;
		h->count += n;
		if (low > HIST_MAX_NS)
			h->over += n;
		else
			h->b[hist_index(low)] += n;
	}
	v = h->count ? (double)hist_percentile(h, p) : NAN;
out:
	free(h);
	return v;
}

static bool test_fig(void *ctx, unsigned i, const struct slo_limit *l, struct slo_fig *out)
{
	const struct json_read_test *t = ((struct test_ctx *)ctx)->t;
	json_t *c = json_object_get(json_object_get(t->pts[i].raw, "classes"), *l->cls ? l->cls : t->headline);
	json_t *lat = json_object_get(c, "lat_ns");
	char key[32];

	if (!json_is_object(lat))
		return false;
	out->ops = json_number_value(json_object_get(c, "ops"));
	json_t *v = json_object_get(lat, slo_doc_key(l, key, sizeof(key)));
	out->ns = json_is_number(v) ? json_number_value(v) : l->stat == SLO_PCT ? doc_percentile(c, l->pct) : NAN;
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
		char t[32], name[96];
		if (!result_fig((void *)r, i, &s->lim[k], &fig) || !(fig.ops > 0))
			continue;
		fprintf(f, "%s%s %s", k ? ", " : "", slo_limit_name(&s->lim[k], name, sizeof(name)),
			fmt_ns(fig.ns, t, sizeof(t)));
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
		char a[32], b[32], ln[96];
		const struct slo_limit *l = &s->lim[pk.broken];
		point_name(p, name, sizeof(name));
		fprintf(f, "; first over: %s at %.0f %s (%s %s > %s)", name,
			result_cls(p, "")->ops_per_s, point_rate_unit(p), slo_limit_name(l, ln, sizeof(ln)),
			fmt_ns(pk.over_ns, a, sizeof(a)), fmt_ns(l->ns, b, sizeof(b)));
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
		bool have = result_fig((void *)r, (unsigned)i, &s->lim[k], &fig) && fig.ops > 0;
		fputs(k ? ", " : "", f);
		json_str(f, slo_limit_name(&s->lim[k], key, sizeof(key)));
		fputs(": ", f);
		json_num(f, have ? fig.ns : NAN);
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
		fputs(", \"broken\": ", f);
		json_str(f, slo_limit_name(&s->lim[pk.broken], key, sizeof(key)));
		fputs(", \"value_ns\": ", f);
		json_num(f, pk.over_ns);
		fputc('}', f);
	}
	fputc('}', f);
}
