/*
 * report_apps.c - per-interval latency charts and tables of application
 * results that record intervals (see report_apps.h). The split itself is
 * json_read_split(); here it becomes gnuplot scripts and HTML.
 */
#include <math.h>
#include <stdlib.h>

#include "chart.h"
#include "compare.h"
#include "report_apps.h"
#include "appio/xalloc.h"

#define MAX_SHOWN 2                     /* points a drive's split chart shows */

/* One drive's splits, one per shown point (empty where the drive lacks it). */
struct drive_split {
	const struct json_read_doc *doc;
	const struct json_read_test *t;
	struct json_read_split sp[MAX_SHOWN];
};

struct shown {
	const char *key[MAX_SHOWN];     /* point keys, borrowed from the documents */
	unsigned n, nint;
};

/* Every point when there are few, else the most loaded: the reviews' view. */
static void shown_points(const struct json_read_doc *d, unsigned n, const char *name, struct shown *sh)
{
	const char **keys;
	unsigned nk = compare_points(d, n, name, &keys);
	double most = -1;

	sh->n = 0;
	for (unsigned k = 0; k < nk && nk <= MAX_SHOWN; k++)
		sh->key[sh->n++] = keys[k];
	for (unsigned k = 0; k < nk && nk > MAX_SHOWN; k++)
		for (unsigned i = 0; i < n; i++) {
			const struct json_read_point *p = json_read_point(json_read_find(&d[i], name), keys[k]);
			if (p && p->x > most) {
				most = p->x;
				sh->key[0] = keys[k];
				sh->n = 1;
			}
		}
	free(keys);
}

/* The largest figure of @c (every class when negative) over the shown points. */
static double split_max(const struct drive_split *ds, const struct shown *sh, int c)
{
	double max = 0;

	for (unsigned r = 0; r < sh->n; r++)
		for (unsigned i = 0; i < ds->sp[r].nint * ds->sp[r].ncls; i++)
			if ((c < 0 || i % ds->sp[r].ncls == (unsigned)c) && isfinite(ds->sp[r].iv[i].max))
				max = fmax(max, ds->sp[r].iv[i].max);
	return max;
}

/*
 * The x axis, and NaN read as a number, not as a missing row: an interval
 * without operations then breaks the line instead of being bridged.
 */
static void interval_axis(FILE *s, unsigned nint)
{
	fprintf(s, "set xlabel 'interval'\nset xrange [0.5:%u.5]\nset xtics %u\nset mxtics 1\n"
		"set logscale y\nunset datafile missing\n", nint, (nint + 23) / 24);
}

/* $s<tag>: a row per interval, then mean and max of every class of @sp in @scale units. */
static void split_block(FILE *s, const char *tag, const struct json_read_split *sp, double scale)
{
	fprintf(s, "$s%s << EOD\n", tag);
	for (unsigned k = 0; k < sp->nint; k++) {
		fprintf(s, "%u", k + 1);
		for (unsigned c = 0; c < sp->ncls; c++) {
			const struct json_read_ival *iv = &sp->iv[k * sp->ncls + c];
			fprintf(s, isfinite(iv->mean) ? " %.6g" : " NaN", iv->mean / scale);
			fprintf(s, isfinite(iv->max) ? " %.6g" : " NaN", iv->max / scale);
		}
		fputc('\n', s);
	}
	fputs("EOD\n", s);
}

/* One line of a panel: class @c of split @sp, drawn from block $s<tag>. */
struct line {
	const char *tag;
	const struct json_read_split *sp;
	unsigned c, lt;                 /* class, linetype */
	const char *title;
};

/* The @i-th of 1, 2, 5, 10, 20, 50... (negative @i: below 1). */
static double tic(int i)
{
	static const double m[] = { 1, 2, 5 };
	int dec = (int)floor(i / 3.0);

	return m[i - 3 * dec] * pow(10, dec);
}

/*
 * Tics at 1, 2, 5 x 10^k (decades only over more than four decades) and a
 * range from the tic at or below @lo to the one at or above @hi: gnuplot's
 * own log axis labels decades only, so a panel within one decade would
 * show one or two labels.
 */
static void log_axis(FILE *s, double lo, double hi)
{
	int step = log10(hi / lo) > 4 ? 3 : 1, first = 3 * (int)floor(log10(lo) + 1e-9), i;

	while (tic(first + step) <= lo * (1 + 1e-9))
		first += step;
	fprintf(s, "set ytics (%.6g", tic(first));
	for (i = first + step; tic(i - step) < hi * (1 - 1e-9) || i - step == first; i += step)
		fprintf(s, ", %.6g", tic(i));
	/* a tic right at the end of a log range can be rounded away: leave a hair of room */
	fprintf(s, ")\nset yrange [%.6g:%.6g]\n", tic(first) / 1.002, tic(i - step) * 1.002);
}

static double figure_of(const struct line *l, unsigned k, bool max)
{
	const struct json_read_ival *iv = &l->sp->iv[k * l->sp->ncls + l->c];
	return max ? iv->max : iv->mean;
}

/* A panel of @nl lines, mean or maximum latency in @scale units; lines without figures are left out. */
static void panel(FILE *s, const char *title, const char *unit, double scale, const struct line *l,
		  unsigned nl, bool max)
{
	double lo = INFINITY, hi = 0;
	bool any = false;

	for (unsigned i = 0; i < nl; i++)
		for (unsigned k = 0; k < l[i].sp->nint; k++)
			if (figure_of(&l[i], k, max) > 0) {
				lo = fmin(lo, figure_of(&l[i], k, max) / scale);
				hi = fmax(hi, figure_of(&l[i], k, max) / scale);
			}
	fputs("set title ", s);
	chart_gp_str(s, title);
	fprintf(s, "\nset ylabel 'latency, %s, log scale'\n", unit);
	if (!(hi > 0)) {
		fputs("unset logscale y\nset ytics autofreq\nset label 1 'no data' at graph 0.5,0.5 center\n"
		      "plot [0:1][0:1] -1 notitle\nunset label 1\nset logscale y\n", s);
		return;
	}
	log_axis(s, lo, hi);
	for (unsigned i = 0; i < nl; i++) {
		unsigned col = 2 + 2 * l[i].c + max, k;
		for (k = 0; k < l[i].sp->nint && !(figure_of(&l[i], k, max) > 0); k++)
			;
		if (k == l[i].sp->nint)
			continue;
		/* a log axis has no place for zero: such an interval is a gap */
		fprintf(s, "%s$s%s using 1:(column(%u) > 0 ? column(%u) : NaN) with linespoints lt %u title ",
			any ? ", " : "plot ", l[i].tag, col, col, l[i].lt % CHART_COLOURS + 1);
		chart_gp_str(s, l[i].title);
		any = true;
	}
	fputc('\n', s);
}

/* Both panels of one point: mean, then maximum latency. */
static void panels(FILE *s, const char *what, const char *key, const char *unit, double scale,
		   const struct line *l, unsigned nl)
{
	char title[320];

	for (int max = 0; max < 2; max++) {
		snprintf(title, sizeof(title), "%s %s per interval, %s", max ? "maximum" : "mean", what, key);
		panel(s, title, unit, scale, l, nl, max);
	}
}

/* Run @script (then free it) into the page as figure @id. */
static int figure(FILE *page, char *script, size_t len, const struct chart_id *id, char *err, size_t errlen)
{
	int rc = chart_figure(page, script, len, id, err, errlen);

	free(script);
	return rc;
}

/* A drive's split: per shown point, a row of mean and maximum latency panels, a line per class. */
static int drive_chart(FILE *page, const struct drive_split *ds, const struct shown *sh, const char *name,
		       const char *fig, char *err, size_t errlen)
{
	char *script = NULL, title[256], tag[MAX_SHOWN][16];
	struct line *l = xcalloc(1 + ds->sp[0].ncls + ds->sp[MAX_SHOWN - 1].ncls, sizeof(*l));
	size_t len;
	const char *unit;
	double scale = chart_lat_unit(split_max(ds, sh, -1), &unit);
	FILE *s = open_memstream(&script, &len);

	snprintf(title, sizeof(title), "%s on %s: latency per interval by class", name, ds->doc->label);
	chart_begin(s, 1100, 60 + 440 * (int)sh->n, (int)sh->n, 2, title);
	interval_axis(s, sh->nint);
	for (unsigned r = 0; r < sh->n; r++) {
		const struct json_read_split *sp = &ds->sp[r];
		snprintf(tag[r], sizeof(tag[r]), "%u", r);
		split_block(s, tag[r], sp, scale);
		for (unsigned c = 0; c < sp->ncls; c++)
			l[c] = (struct line){ tag[r], sp, c, c, sp->cls[c] };
		panels(s, "latency", sh->key[r], unit, scale, l, sp->ncls);
	}
	fputs("unset multiplot\n", s);
	fclose(s);
	free(l);
	return figure(page, script, len, &(struct chart_id){ fig, name, "intervals", ds->doc->label, title },
		      err, errlen);
}

static void table_row(FILE *page, const struct json_read_split *sp, unsigned k, double scale)
{
	fprintf(page, "<tr data-interval=\"%u\"><td>%u</td>", k + 1, k + 1);
	if (sp->first[k] < sp->first[k + 1])
		fprintf(page, "<td>%u-%u</td>", sp->first[k] + 1, sp->first[k + 1]);
	else
		fputs("<td class=\"missing\">none</td>", page);
	for (unsigned c = 0; c < sp->ncls; c++) {
		const struct json_read_ival *iv = &sp->iv[k * sp->ncls + c];
		fputs("<td data-class=\"", page);
		chart_html(page, sp->cls[c]);
		if (iv->ops > 0)
			fprintf(page, "\" data-ops=\"%.0f\" data-mean-ns=\"%.1f\" data-max-ns=\"%.0f\">%.3g / %.3g</td>",
				iv->ops, iv->mean, iv->max, iv->mean / scale, iv->max / scale);
		else
			fputs("\" data-ops=\"0\" class=\"missing\">-</td>", page);
	}
	fputs("</tr>\n", page);
}

/* The figures of a drive's chart, folded away under it. */
static void drive_table(FILE *page, const struct drive_split *ds, const struct shown *sh, const char *name)
{
	const char *unit;
	double scale = chart_lat_unit(split_max(ds, sh, -1), &unit);

	for (unsigned r = 0; r < sh->n; r++) {
		const struct json_read_split *sp = &ds->sp[r];
		if (!sp->nint)
			continue;
		if (sp->first[sp->nint] < sp->nint)
			fprintf(page, "<p class=\"note\">%s: %u s in %u intervals, so some intervals have no second "
				"(a run needs --time of at least --intervals).</p>\n", sh->key[r], sp->first[sp->nint],
				sp->nint);
		fputs("<details><summary>figures per interval: ", page);
		chart_html(page, ds->doc->label);
		fputs(", ", page);
		chart_html(page, sh->key[r]);
		fprintf(page, " (mean / maximum latency, %s)</summary>\n<table class=\"intervals\" data-test=\"", unit);
		chart_html(page, name);
		fputs("\" data-drive=\"", page);
		chart_html(page, ds->doc->label);
		fputs("\" data-point=\"", page);
		chart_html(page, sh->key[r]);
		fputs("\">\n<tr><th>interval</th><th>seconds</th>", page);
		for (unsigned c = 0; c < sp->ncls; c++) {
			fputs("<th>", page);
			chart_html(page, sp->cls[c]);
			fputs("</th>", page);
		}
		fputs("</tr>\n", page);
		for (unsigned k = 0; k < sp->nint; k++)
			table_row(page, sp, k, scale);
		fputs("</table></details>\n", page);
	}
}

/* The headline class's latency per interval, a line per drive. */

/* The headline class's latency per interval, a line per drive. */
static int drives_chart(FILE *page, const struct drive_split *ds, unsigned n, const struct shown *sh,
			const char *name, const char *head, const char *fig, char *err, size_t errlen)
{
	char *script = NULL, title[256], (*tag)[32] = xcalloc(n, sizeof(*tag)), what[160];
	struct line *l = xcalloc(n, sizeof(*l));
	size_t len;
	const char *unit;
	double max = 0;
	FILE *s = open_memstream(&script, &len);

	for (unsigned d = 0; d < n; d++)
		for (unsigned r = 0; r < sh->n; r++)
			if (json_read_split_class(&ds[d].sp[r], head) >= 0)
				max = fmax(max, split_max(&ds[d], sh, json_read_split_class(&ds[d].sp[r], head)));
	double scale = chart_lat_unit(max, &unit);
	snprintf(title, sizeof(title), "%s: %s latency per interval, every drive", name, head);
	snprintf(what, sizeof(what), "%s latency", head);
	chart_begin(s, 1100, 60 + 440 * (int)sh->n, (int)sh->n, 2, title);
	interval_axis(s, sh->nint);
	for (unsigned r = 0; r < sh->n; r++) {
		unsigned nl = 0;
		for (unsigned d = 0; d < n; d++) {
			int c = json_read_split_class(&ds[d].sp[r], head);
			snprintf(tag[d], sizeof(tag[d]), "%u_%u", r, d);
			split_block(s, tag[d], &ds[d].sp[r], scale);
			if (c >= 0)
				l[nl++] = (struct line){ tag[d], &ds[d].sp[r], (unsigned)c, d, ds[d].doc->label };
		}
		panels(s, what, sh->key[r], unit, scale, l, nl);
	}
	fputs("unset multiplot\n", s);
	fclose(s);
	free(l);
	free(tag);
	return figure(page, script, len, &(struct chart_id){ fig, name, "intervals-drives", NULL, title },
		      err, errlen);
}

int report_apps_charts(FILE *page, const struct json_read_doc *d, unsigned n, const char *name,
		       unsigned id, char *err, size_t errlen)
{
	struct drive_split *ds = xcalloc(n, sizeof(*ds));
	struct shown sh = { .nint = 0 };
	const char *head = NULL;
	unsigned have = 0, k = 0;
	char fig[48];
	int rc = 0;

	shown_points(d, n, name, &sh);
	for (unsigned i = 0; i < n; i++) {
		const struct json_read_test *t = json_read_find(&d[i], name);
		ds[i].doc = &d[i];
		/* a steady-state precondition of the same run carries the option too */
		if (!t || !t->intervals || t->kind != JR_APP)
			continue;
		ds[i].t = t;
		head = head ? head : t->headline;
		sh.nint = t->intervals > sh.nint ? t->intervals : sh.nint;
		for (unsigned r = 0; r < sh.n; r++)
			json_read_split(json_read_point(t, sh.key[r]), t->intervals, &ds[i].sp[r]);
		have++;
	}
	if (have >= 2) {
		snprintf(fig, sizeof(fig), "fig-%u-%u", id, ++k);
		rc = drives_chart(page, ds, n, &sh, name, head, fig, err, errlen);
	}
	for (unsigned i = 0; i < n && !rc; i++) {
		if (!ds[i].t)
			continue;
		snprintf(fig, sizeof(fig), "fig-%u-%u", id, ++k);
		rc = drive_chart(page, &ds[i], &sh, name, fig, err, errlen);
		if (!rc)
			drive_table(page, &ds[i], &sh, name);
	}
	for (unsigned i = 0; i < n; i++)
		for (unsigned r = 0; r < MAX_SHOWN; r++)
			json_read_split_release(&ds[i].sp[r]);
	free(ds);
	return rc;
}
