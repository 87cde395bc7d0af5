/*
 * buyer.c - the summary a buyer reads first, and what the drives cost per
 * unit of work (see buyer.h).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "buyer.h"
#include "chart.h"
#include "compare.h"

double buyer_per_price(double figure, double price)
{
	return figure >= 0 && price > 0 && isfinite(figure) && isfinite(price) ? figure / price : NAN;
}

double buyer_price_per_tb(double price, double bytes)
{
	return price > 0 && bytes > 0 && isfinite(price) ? price / (bytes / 1e12) : NAN;
}

double buyer_dwpd(double write_bps, double bytes)
{
	return bytes > 0 && write_bps >= 0 ? write_bps * 86400.0 / bytes : NAN;
}

double buyer_life_years(double rated, double years, double dwpd)
{
	if (!(rated > 0 && years > 0 && dwpd >= 0))
		return NAN;
	return dwpd == 0 ? INFINITY : rated * years / dwpd;
}

/* Is a test of this kind a workload the summary ranks? */
static bool workload(const struct json_read_test *t)
{
	return t->kind == JR_SWEEP || t->kind == JR_APP || t->kind == JR_DB;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

/*
 * Bytes written per second at @p: the workload's own write class where it
 * has one (the device counters would add whatever else ran on the drive),
 * else, for an application whose classes are its own operations, what the
 * drive's counters saw written.
 */
static double write_bps(const struct json_read_point *p)
{
	double t = num(p->raw, "time_s");
	double b = num(json_object_get(json_object_get(p->raw, "classes"), "write"), "bytes");

	if (isnan(b))
		b = num(json_object_get(p->raw, "device"), "write_bytes");
	return t > 0 && b >= 0 ? b / t : NAN;
}

static double capacity(const struct json_read_doc *d)
{
	char buf[64];
	return atof(json_read_fact(d, "target", "size", buf, sizeof(buf)));
}

/* The limits for test @name: the caller's, else the first recorded --slo among the drives. */
static int row_slo(const struct json_read_doc *d, unsigned n, const char *name,
		   const struct buyer_opts *o, struct slo *s, char *err, size_t errlen)
{
	memset(s, 0, sizeof(*s));
	if (o->slo.n) {
		*s = o->slo;
		return 0;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct json_read_test *t = json_read_find(&d[i], name);
		const char *rec = t ? json_string_value(json_object_get(t->options, "slo")) : NULL;
		if (rec && *rec)
			return slo_parse(s, rec, err, errlen);
	}
	return 0;
}

static int build_row(struct buyer_row *r, const struct json_read_doc *d, unsigned n,
		     const struct buyer_opts *o, char *err, size_t errlen)
{
	const char **keys;
	unsigned nk = compare_points(d, n, r->test, &keys);
	struct slo s;
	double *v = xcalloc(n, sizeof(*v)), *diff = xcalloc(n, sizeof(*diff));
	unsigned *rank = xcalloc(n, sizeof(*rank));
	int rc = row_slo(d, n, r->test, o, &s, err, errlen);

	snprintf(r->ref_at, sizeof(r->ref_at), "%s", nk ? keys[nk - 1] : "");
	r->m = compare_headline(r->any);
	r->has_slo = s.n > 0;
	if (r->has_slo)
		slo_format(&s, r->slo_text, sizeof(r->slo_text));
	for (unsigned i = 0; i < n; i++) {
		const struct json_read_test *t = json_read_find(&d[i], r->test);
		const struct json_read_point *p = json_read_point(t, r->ref_at), *at = p;
		struct buyer_cell *c = &r->c[i];
		c->ref = p ? p->m[r->m] : NAN;
		c->slo = NAN;
		if (t && r->has_slo) {
			struct slo_pick pk;
			slo_pick_test(&s, t, &pk);
			at = pk.best >= 0 ? &t->pts[pk.best] : NULL;
			c->slo = at ? at->m[r->m] : NAN;
			snprintf(c->slo_at, sizeof(c->slo_at), "%s", at ? at->key : "");
		}
		c->write_bps = at ? write_bps(at) : NAN;
		v[i] = r->has_slo ? c->slo : c->ref;
	}
	compare_rank(v, n, false, rank, diff);
	r->winner = -1;
	for (unsigned i = 0; i < n; i++) {
		r->c[i].rank = rank[i];
		if (rank[i] == 1 && r->winner < 0)
			r->winner = (int)i;
	}
	free(keys);
	free(v);
	free(diff);
	free(rank);
	return rc;
}

int buyer_build(struct buyer *b, const struct json_read_doc *d, unsigned n,
		const struct buyer_opts *o, char *err, size_t errlen)
{
	const char **names;
	unsigned nt = compare_tests(d, n, &names);
	int rc = 0;

	memset(b, 0, sizeof(*b));
	b->nd = n;
	b->wins = xcalloc(n + 1, sizeof(*b->wins));
	b->rows = xcalloc(nt + 1, sizeof(*b->rows));
	for (unsigned i = 0; i < nt && !rc; i++) {
		const struct json_read_test *any = NULL;
		for (unsigned k = 0; k < n && !any; k++)
			any = json_read_find(&d[k], names[i]);
		if (!any || !workload(any))
			continue;
		struct buyer_row *r = &b->rows[b->nrows++];
		r->test = names[i];
		r->any = any;
		r->c = xcalloc(n, sizeof(*r->c));
		rc = build_row(r, d, n, o, err, errlen);
		if (r->winner >= 0)
			b->wins[r->winner]++;
	}
	free(names);
	return rc;
}

void buyer_release(struct buyer *b)
{
	for (unsigned i = 0; b->rows && i < b->nrows; i++)
		free(b->rows[i].c);
	free(b->rows);
	free(b->wins);
	memset(b, 0, sizeof(*b));
}

/* The figure a row ranks by. */
static double ranked(const struct buyer_row *r, unsigned i)
{
	return r->has_slo ? r->c[i].slo : r->c[i].ref;
}

static bool any_price(const struct buyer_opts *o, unsigned n)
{
	for (unsigned i = 0; o->price && i < n; i++)
		if (!isnan(o->price[i]))
			return true;
	return false;
}

/* "12.3 years", "> 100 years", "-" */
static char *fmt_life(double y, char *buf, size_t len)
{
	if (isnan(y))
		snprintf(buf, len, "-");
	else if (y > 100)
		snprintf(buf, len, "> 100 years");
	else
		snprintf(buf, len, "%.1f years", y);
	return buf;
}

/* 4 significant digits (whole numbers from 1,000), with the unit; "-" when absent */
static char *fmt_g(double v, const char *unit, char *buf, size_t len)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (fabs(v) >= 1000)
		snprintf(buf, len, "%.0f%s%s", v, *unit ? " " : "", unit);
	else
		snprintf(buf, len, "%.4g%s%s", v, *unit ? " " : "", unit);
	return buf;
}

/* The figure within the SLO, or that none was. */
static char *fmt_slo(const struct buyer_row *r, const struct buyer_cell *x, char *buf, size_t len)
{
	if (isnan(x->slo))
		snprintf(buf, len, "none within the limits");
	else
		compare_fmt(x->slo, r->m, r->any, buf, len);
	return buf;
}

/* One drive's cost figures of row @r. */
struct cost {
	double per_price, dwpd, life;
};

static struct cost cost_of(const struct buyer_row *r, unsigned i, const struct json_read_doc *d,
			   const struct buyer_opts *o)
{
	double size = capacity(&d[i]), dw = buyer_dwpd(r->c[i].write_bps, size);
	double rated = o->dwpd ? o->dwpd[i] : NAN;
	return (struct cost){ buyer_per_price(ranked(r, i), o->price ? o->price[i] : NAN), dw,
			      buyer_life_years(rated, o->warranty_years, dw) };
}

static void print_cost(const struct buyer *b, const struct json_read_doc *d, const struct buyer_opts *o,
		       FILE *f)
{
	char a[96], c[96], e[96];

	fprintf(f, "\n== cost (%s; figures within the SLO where one is given, else at the reference point)\n"
		"%-30s %12s %12s %12s %12s\n", o->currency, "drive", "price", "size (TB)", "per TB",
		"rated DWPD");
	for (unsigned i = 0; i < b->nd; i++) {
		double p = o->price[i], size = capacity(&d[i]);
		char tb[32];
		snprintf(tb, sizeof(tb), "%.4g", size / 1e12);
		fprintf(f, "%-30.30s %12s %12s %12s %12s\n", d[i].label, fmt_g(p, "", a, sizeof(a)),
			tb, fmt_g(buyer_price_per_tb(p, size), "", c, sizeof(c)),
			fmt_g(o->dwpd ? o->dwpd[i] : NAN, "", e, sizeof(e)));
	}
	for (unsigned k = 0; k < b->nrows; k++) {
		const struct buyer_row *r = &b->rows[k];
		char unit[48];
		snprintf(unit, sizeof(unit), "%s/%s", compare_metric(r->any, r->m).unit, o->currency);
		fprintf(f, "%s:\n", r->test);
		for (unsigned i = 0; i < b->nd; i++) {
			struct cost x = cost_of(r, i, d, o);
			fprintf(f, "  %-28.28s %20s  %s DWPD, lasts %s\n", d[i].label,
				fmt_g(x.per_price, unit, a, sizeof(a)), fmt_g(x.dwpd, "", c, sizeof(c)),
				fmt_life(x.life, e, sizeof(e)));
		}
	}
}

void buyer_print(const struct buyer *b, const struct json_read_doc *d, const struct buyer_opts *o, FILE *f)
{
	char a[48], c[48];

	fputs("\n== summary: each workload's headline, ranked (within the SLO where one is given)\n", f);
	for (unsigned k = 0; k < b->nrows; k++) {
		const struct buyer_row *r = &b->rows[k];
		fprintf(f, "%s (reference %s%s%s)\n", r->test, r->ref_at, r->has_slo ? "; SLO " : "",
			r->has_slo ? r->slo_text : "");
		for (unsigned rk = 1; rk <= b->nd + 1; rk++)
			for (unsigned i = 0; i < b->nd; i++) {
				const struct buyer_cell *x = &r->c[i];
				if (x->rank != (rk <= b->nd ? rk : 0))
					continue;
				char rn[16] = "-";
				if (x->rank)
					snprintf(rn, sizeof(rn), "%u", x->rank);
				fprintf(f, "  %-3s %-28.28s %16s", rn, d[i].label,
					compare_fmt(x->ref, r->m, r->any, a, sizeof(a)));
				if (r->has_slo)
					fprintf(f, "   within SLO %s%s%s", fmt_slo(r, x, c, sizeof(c)),
						*x->slo_at ? " at " : "", x->slo_at);
				fputs(r->winner == (int)i ? "   winner\n" : "\n", f);
			}
	}
	fputs("wins:", f);
	for (unsigned i = 0; i < b->nd; i++)
		fprintf(f, "%s %s %u", i ? "," : "", d[i].label, b->wins[i]);
	fputc('\n', f);
	if (any_price(o, b->nd))
		print_cost(b, d, o, f);
}

/* ---- HTML ---- */

static void td(FILE *f, const char *cls, const char *text)
{
	fprintf(f, "<td%s%s%s>", cls ? " class=\"" : "", cls ? cls : "", cls ? "\"" : "");
	chart_html(f, text);
	fputs("</td>", f);
}

static void html_cost(const struct buyer *b, const struct json_read_doc *d, const struct buyer_opts *o,
		      FILE *f)
{
	char a[96], c[96], e[96];

	fputs("<section id=\"cost\"><h2>Cost</h2>\n<table id=\"cost-drives\"><tr><th class=\"l\">drive</th>", f);
	fprintf(f, "<th>price (%s)</th><th>size (TB)</th><th>per TB</th><th>rated DWPD</th></tr>\n", o->currency);
	for (unsigned i = 0; i < b->nd; i++) {
		double p = o->price[i], size = capacity(&d[i]);
		fputs("<tr>", f);
		td(f, "l", d[i].label);
		td(f, NULL, fmt_g(p, "", a, sizeof(a)));
		snprintf(e, sizeof(e), "%.4g", size / 1e12);
		td(f, NULL, e);
		td(f, NULL, fmt_g(buyer_price_per_tb(p, size), "", c, sizeof(c)));
		td(f, NULL, fmt_g(o->dwpd ? o->dwpd[i] : NAN, "", c, sizeof(c)));
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<table id=\"cost-table\"><tr><th class=\"l\">workload</th>", f);
	for (unsigned i = 0; i < b->nd; i++) {
		fputs("<th>", f);
		chart_html(f, d[i].label);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (unsigned k = 0; k < b->nrows; k++) {
		const struct buyer_row *r = &b->rows[k];
		char unit[48];
		snprintf(unit, sizeof(unit), "%s/%s", compare_metric(r->any, r->m).unit, o->currency);
		fputs("<tr>", f);
		td(f, "l", r->test);
		for (unsigned i = 0; i < b->nd; i++) {
			struct cost x = cost_of(r, i, d, o);
			char cellt[320];
			snprintf(cellt, sizeof(cellt), "%s; %s DWPD, lasts %s", fmt_g(x.per_price, unit, a, sizeof(a)),
				 fmt_g(x.dwpd, "", c, sizeof(c)), fmt_life(x.life, e, sizeof(e)));
			td(f, NULL, cellt);
		}
		fputs("</tr>\n", f);
	}
	fprintf(f, "</table>\n<p class=\"note\">Per %s: the ranked figure (within the SLO, else at the "
		"reference point) over the price. DWPD: the bytes the workload wrote per second at that "
		"point x 86,400 over the target's size; lasts: rated DWPD x %.0f warranty years over it.</p>\n"
		"</section>\n", o->currency, o->warranty_years);
}

void buyer_html(const struct buyer *b, const struct json_read_doc *d, const struct buyer_opts *o, FILE *f)
{
	char a[48], c[48];

	fputs("<section id=\"summary\"><h2>Summary</h2>\n<table id=\"summary-table\"><tr>"
	      "<th class=\"l\">workload</th><th class=\"l\">reference / SLO</th>", f);
	for (unsigned i = 0; i < b->nd; i++) {
		fputs("<th>", f);
		chart_html(f, d[i].label);
		fputs("</th>", f);
	}
	fputs("<th class=\"l\">winner</th></tr>\n", f);
	for (unsigned k = 0; k < b->nrows; k++) {
		const struct buyer_row *r = &b->rows[k];
		char ref[200];
		snprintf(ref, sizeof(ref), "at %s%s%s", r->ref_at, r->has_slo ? "; within " : "",
			 r->has_slo ? r->slo_text : "");
		fputs("<tr>", f);
		td(f, "l", r->test);
		td(f, "l", ref);
		for (unsigned i = 0; i < b->nd; i++) {
			const struct buyer_cell *x = &r->c[i];
			char cellt[320];
			int n = snprintf(cellt, sizeof(cellt), "%s", compare_fmt(x->ref, r->m, r->any, a, sizeof(a)));
			if (r->has_slo)
				snprintf(cellt + n, sizeof(cellt) - (size_t)n, " / %s%s%s",
					 fmt_slo(r, x, c, sizeof(c)), *x->slo_at ? " at " : "",
					 x->slo_at);
			if (x->rank)
				snprintf(cellt + strlen(cellt), sizeof(cellt) - strlen(cellt), " (#%u)", x->rank);
			td(f, r->winner == (int)i ? "winner best" : NULL, cellt);
		}
		td(f, "l", r->winner >= 0 ? d[r->winner].label : "-");
		fputs("</tr>\n", f);
	}
	fputs("<tr><td class=\"l\">wins</td><td></td>", f);
	for (unsigned i = 0; i < b->nd; i++)
		fprintf(f, "<td>%u</td>", b->wins[i]);
	fputs("<td></td></tr>\n</table>\n<p class=\"note\">Each workload's headline at its reference "
	      "point (the most loaded point the drives share, as the reviews headline it) and, where "
	      "latency limits are given (--slo), at the highest-throughput point within them; ranked "
	      "by the figure within the limits where there are some.</p>\n</section>\n", f);
	if (any_price(o, b->nd))
		html_cost(b, d, o, f);
}
