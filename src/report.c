/*
 * report.c - the HTML report (see report.h): page, summary tables, and the
 * gnuplot scripts whose SVG output becomes the charts.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "chart.h"
#include "compare.h"
#include "report.h"
#include "report_ranks.h"
#include "report_apps.h"
#include "version.h"
#include "appio/xalloc.h"

bool report_have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char *copy = xstrdup(path ? path : "/usr/bin:/bin"), *save = NULL, exe[4200];
	bool found = false;

	for (char *dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(exe, sizeof(exe), "%s/gnuplot", dir);
		found = access(exe, X_OK) == 0;
	}
	free(copy);
	return found;
}

/* ---- charts ---- */

/*
 * compare_metric(), but a file-system personality's headline class "loop"
 * counts loops of file operations, not transactions.
 */
/* One drive's rows for a chart: x and every figure (NAN where missing). */
struct table {
	unsigned n;
	double *x;
	double (*m)[JR_METRICS];
};

struct panel {
	const char *title;
	enum json_read_metric m;
	bool logy;
};

static void table_add(struct table *tb, double x, const double *m)
{
	tb->x = xrealloc(tb->x, (tb->n + 1) * sizeof(*tb->x));
	tb->m = xrealloc(tb->m, (tb->n + 1) * sizeof(*tb->m));
	tb->x[tb->n] = x;
	memcpy(tb->m[tb->n], m, sizeof(tb->m[0]));
	tb->n++;
}

static bool by_second(const struct json_read_test *t)
{
	return t->kind == JR_FILL || t->kind == JR_PRECOND || t->kind == JR_REPLAY;
}

/* Rows of drive @t (NULL: the drive lacks the test) over the union of point @keys. */
static void table_fill(struct table *tb, const struct json_read_test *t, const struct json_read_test *any,
		       const char **keys, unsigned nk)
{
	double none[JR_METRICS] = { NAN, NAN, NAN, NAN, NAN, NAN };

	if (t && by_second(t)) {
		for (unsigned i = 0; i < t->nsec; i++) {
			double m[JR_METRICS] = { t->sec_ops[i], t->sec_mbs[i], t->sec_mean[i], NAN, NAN, NAN };
			table_add(tb, i + 1, m);
		}
		return;
	}
	for (unsigned k = 0; k < nk && !by_second(any); k++) {
		const struct json_read_point *p = json_read_point(t, keys[k]);
		const struct json_read_point *q = p ? p : json_read_point(any, keys[k]);
		double x = any->kind == JR_SWEEP ? k : q ? q->x : k;
		table_add(tb, x, p ? p->m : none);
	}
}

static bool has_data(const struct table *tb, enum json_read_metric m, bool logy)
{
	for (unsigned i = 0; i < tb->n; i++)
		if (isfinite(tb->m[i][m]) && (!logy || tb->m[i][m] > 0))
			return true;
	return false;
}

/* Latency in one unit per panel: the one that suits its largest figure. */
static double lat_unit(const struct table *tb, unsigned n, enum json_read_metric m, const char **unit)
{
	double max = 0;

	for (unsigned d = 0; d < n; d++)
		for (unsigned i = 0; i < tb[d].n; i++)
			if (isfinite(tb[d].m[i][m]))
				max = fmax(max, tb[d].m[i][m]);
	return chart_lat_unit(max, unit);
}

static void datablocks(FILE *s, const struct table *tb, unsigned n)
{
	for (unsigned d = 0; d < n; d++) {
		fprintf(s, "$d%u << EOD\n", d);
		for (unsigned i = 0; i < tb[d].n; i++) {
			fprintf(s, "%.6g", tb[d].x[i]);
			for (int m = 0; m < JR_METRICS; m++)
				fprintf(s, isfinite(tb[d].m[i][m]) ? " %.6g" : " NaN", tb[d].m[i][m]);
			fputc('\n', s);
		}
		fputs("EOD\n", s);
	}
}

static void panel(FILE *s, const struct json_read_doc *docs, const struct table *tb, unsigned n,
		  const struct panel *p, const struct json_read_test *t, bool lines)
{
	const char *unit = compare_metric(t, p->m).unit;
	double scale = 1;
	bool any = false;
	int col = p->m + 2;

	if (!strcmp(unit, "ns"))
		scale = lat_unit(tb, n, p->m, &unit);
	fputs("set title ", s);
	chart_gp_str(s, p->title);
	fprintf(s, "\nset ylabel '%s%s%s'\n%s\n", strcmp(unit, compare_metric(t, p->m).unit) ? "latency, " : "",
		unit, p->logy ? ", log scale" : "",
		p->logy ? "set logscale y\nset yrange [*:*]" : "unset logscale y\nset yrange [0:*]");
	for (unsigned d = 0; d < n; d++) {
		if (!has_data(&tb[d], p->m, p->logy))
			continue;
		/* non-positive figures have no place on a log axis */
		if (p->logy)
			fprintf(s, "%s$d%u using 1:(column(%d) > 0 ? column(%d) / %g : NaN)", any ? ", " : "plot ",
				d, col, col, scale);
		else
			fprintf(s, "%s$d%u using 1:(column(%d) / %g)", any ? ", " : "plot ", d, col, scale);
		fprintf(s, " with %s lt %u title ", lines ? "lines" : "linespoints", d % CHART_COLOURS + 1);
		chart_gp_str(s, docs[d].label);
		any = true;
	}
	if (!any)
		fputs("set label 1 'no data' at graph 0.5,0.5 center\nplot [0:1][0:1] -1 notitle\nunset label 1", s);
	fputc('\n', s);
}

/* Which panels a test's chart has, its grid, size and x axis. */
static unsigned layout(const struct json_read_test *t, struct panel *p, int *rows, int *cols, int *h,
		       const char **xlabel)
{
	enum json_read_metric head = compare_headline(t);
	const char *thr = head == JR_MBPS ? "throughput" : !t->tx ? "IOPS" :
		!strcmp(compare_metric(t, JR_OPS).unit, "TPS") ? "transactions per second" : "loops per second";

	*cols = 2;
	*rows = 2;
	*h = 760;
	switch (t->kind) {
	case JR_FILL:
		*rows = *cols = 1;
		*h = 380;
		*xlabel = "second";
		p[0] = (struct panel){ "sequential 128 KiB writes, per second", JR_MBPS, false };
		return 1;
	case JR_PRECOND:
		*cols = 1;
		*h = 700;
		*xlabel = "second (all rounds, end to end)";
		p[0] = (struct panel){ t->tx ? "TPS per second" : "IOPS per second", JR_OPS, false };
		p[1] = (struct panel){ "mean latency per second", JR_MEAN, true };
		return 2;
	case JR_REPLAY:
		*cols = 1;
		*h = 700;
		*xlabel = "second of the replay";
		p[0] = (struct panel){ "IOPS per second (as the trace asked for them)", JR_OPS, false };
		p[1] = (struct panel){ "mean service time per second", JR_MEAN, true };
		return 2;
	case JR_APP:
	case JR_DB:
		*rows = 1;
		*cols = 3;
		*h = 420;
		*xlabel = "threads";
		p[0] = (struct panel){ thr, JR_OPS, false };
		p[1] = (struct panel){ "mean latency", JR_MEAN, false };
		p[2] = (struct panel){ "99th percentile latency", JR_P99, false };
		return 3;
	default:
		*xlabel = t->kind == JR_WSWEEP ? "writes (%)" : "threads T / I/Os in flight per thread Q";
		p[0] = (struct panel){ thr, head, false };
		p[1] = (struct panel){ "mean latency", JR_MEAN, false };
		p[2] = (struct panel){ "maximum latency", JR_MAX, false };
		p[3] = (struct panel){ "latency standard deviation", JR_STDDEV, false };
		return 4;
	}
}

static void x_axis(FILE *s, const struct json_read_test *t, const struct table *tb, unsigned n,
		   const char **keys, unsigned nk, const char *xlabel)
{
	fputs("set xlabel ", s);
	chart_gp_str(s, xlabel);
	fputc('\n', s);
	if (t->kind == JR_SWEEP) {      /* one tic per T/Q point, in sweep order */
		fputs("set xtics rotate by -45 (", s);
		for (unsigned k = 0; k < nk; k++) {
			fputs(k ? ", " : "", s);
			chart_gp_str(s, keys[k]);
			fprintf(s, " %u", k);
		}
		fprintf(s, ")\nset xrange [-0.5:%u.5]\n", nk ? nk - 1 : 0);
	} else if (t->kind == JR_APP || t->kind == JR_DB) {
		fputs("set logscale x 2\nset xtics (", s);   /* threads double from point to point */
		for (unsigned d = 0, first = 1; d < n; d++)
			for (unsigned i = 0; i < tb[d].n; i++) {
				bool seen = false;
				for (unsigned e = 0; e <= d; e++)
					for (unsigned k = 0; k < (e < d ? tb[e].n : i); k++)
						seen |= tb[e].x[k] == tb[d].x[i];
				if (!seen)
					fprintf(s, "%s%.0f", first ? "" : ", ", tb[d].x[i]);
				first &= seen;
			}
		fputs(")\nset offsets graph 0.05, graph 0.05, 0, 0\n", s);
	} else if (t->kind == JR_WSWEEP) {
		fputs("set xrange [-5:105]\nset xtics 10\n", s);
	} else {                        /* seconds: whole ones, about ten tics */
		unsigned most = 1;
		for (unsigned d = 0; d < n; d++)
			most = tb[d].n > most ? tb[d].n : most;
		unsigned step = most <= 10 ? 1 : most <= 20 ? 2 : most <= 50 ? 5 : most <= 100 ? 10 :
				most <= 300 ? 30 : most <= 600 ? 60 : 300;
		fprintf(s, "set xtics %u\nset mxtics 1\n", step);
	}
}

/* Draw test @name's chart and write it into the page as figure fig-@id. */
static int chart(FILE *page, const struct json_read_doc *d, unsigned n, const char *name,
		 const struct json_read_test *t, unsigned id, char *err, size_t errlen)
{
	struct table *tb = xcalloc(n, sizeof(*tb));
	struct panel p[4];
	const char **keys, *xlabel;
	unsigned nk = compare_points(d, n, name, &keys);
	int rows, cols, h, rc;
	char *script = NULL, fig[32];
	size_t len;
	FILE *s = open_memstream(&script, &len);

	unsigned np = layout(t, p, &rows, &cols, &h, &xlabel);
	for (unsigned i = 0; i < n; i++)
		table_fill(&tb[i], json_read_find(&d[i], name), t, keys, nk);
	chart_begin(s, 1100, h, rows, cols, name);
	x_axis(s, t, tb, n, keys, nk, xlabel);
	datablocks(s, tb, n);
	for (unsigned i = 0; i < np; i++)
		panel(s, d, tb, n, &p[i], t, by_second(t));
	fputs("unset multiplot\n", s);
	fclose(s);
	snprintf(fig, sizeof(fig), "fig-%u", id);
	rc = chart_figure(page, script, len, &(struct chart_id){ fig, name, "test", NULL, name }, err, errlen);
	for (unsigned i = 0; i < n; i++) {
		free(tb[i].x);
		free(tb[i].m);
	}
	free(tb);
	free(keys);
	free(script);
	return rc;
}

/* ---- the page ---- */

static const char style[] =
	"body{font-family:sans-serif;margin:24px auto;max-width:1160px;color:#222;padding:0 12px}"
	"h1{font-size:1.6em}h2{font-size:1.25em;margin-top:2em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:8px 0;font-size:.9em}"
	"td,th{border:1px solid #ccc;padding:3px 8px;text-align:right;white-space:nowrap}"
	"th{background:#f2f2f2}.l{text-align:left}.best{font-weight:bold;background:#eef7ee}"
	".missing{color:#a00}figure{margin:8px 0}figure svg{width:100%;height:auto}"
	"nav a{margin-right:1em}.note{color:#555;font-size:.9em}.winner{outline:2px solid #2a7}";

static void facts_row(FILE *f, const struct json_read_doc *d)
{
	static const char *const tkeys[] = { "path", "kind", "size", "model", "device", "rotational",
					     "scheduler", "logical_block_size" };
	char buf[256];

	fputs("<tr><td class=\"l\">", f);
	chart_html(f, d->label);
	fputs("</td><td class=\"l\">", f);
	chart_html(f, d->suite ? d->suite : "run");
	fputs(d->complete ? "" : " (partial)", f);
	for (size_t k = 0; k < sizeof(tkeys) / sizeof(tkeys[0]); k++) {
		fputs("</td><td class=\"l\">", f);
		json_read_fact(d, "target", tkeys[k], buf, sizeof(buf));
		if (!strcmp(tkeys[k], "size") && *buf)
			snprintf(buf, sizeof(buf), "%.2f GiB", atof(buf) / (1 << 30));
		chart_html(f, buf);
	}
	fputs("</td><td class=\"l\">", f);
	chart_html(f, json_read_fact(d, "host", "hostname", buf, sizeof(buf)));
	fputs(", ", f);
	chart_html(f, json_read_fact(d, "host", "kernel", buf, sizeof(buf)));
	fputs("</td></tr>\n", f);
}

static void facts(FILE *f, const struct json_read_doc *d, unsigned n)
{
	fputs("<h2 id=\"drives\">Drives</h2>\n<table><tr><th class=\"l\">drive</th><th class=\"l\">suite</th>"
	      "<th class=\"l\">target</th><th class=\"l\">kind</th><th class=\"l\">size</th>"
	      "<th class=\"l\">model</th><th class=\"l\">device</th><th class=\"l\">rotational</th>"
	      "<th class=\"l\">scheduler</th><th class=\"l\">logical block (B)</th>"
	      "<th class=\"l\">host, kernel</th></tr>\n", f);
	for (unsigned i = 0; i < n; i++)
		facts_row(f, &d[i]);
	fputs("</table>\n", f);
}

static void cell(FILE *f, double v, enum json_read_metric m, const struct json_read_test *t)
{
	char buf[48];
	fprintf(f, "<td%s>", isnan(v) ? " class=\"missing\"" : "");
	chart_html(f, compare_fmt(v, m, t, buf, sizeof(buf)));
	fputs("</td>", f);
}

/* A replay's accuracy from its result's info: the verdict, lateness and per-second IOPS error. */
static void replay_cell(FILE *f, const struct json_read_test *t)
{
	json_t *info = t ? t->info : NULL;
	const char *v = json_string_value(json_object_get(info, "replay.verdict"));
	const char *late = json_string_value(json_object_get(info, "replay.late_1ms_pct"));
	const char *mae = json_string_value(json_object_get(info, "replay.iops_mae_pct"));
	char buf[160];

	chart_html(f, v ? v : "-");
	if (late && mae) {
		snprintf(buf, sizeof(buf), "; %.20s %% of I/Os over 1 ms late, per-second IOPS off by %.20s %%",
			 late, mae);
		chart_html(f, buf);
	}
}

static void summary_row(FILE *f, const struct json_read_doc *d, const struct json_read_test *any,
			const char *at, unsigned rank, double diff)
{
	const struct json_read_test *t = json_read_find(d, any->name);
	const struct json_read_point *p = json_read_point(t, at);
	enum json_read_metric m[JR_METRICS];
	unsigned nm = compare_metrics_of(any, m);

	fprintf(f, "<tr%s><td>", rank == 1 ? " class=\"best\"" : "");
	if (rank)
		fprintf(f, "%u", rank);
	else
		fputs("-", f);
	fputs("</td><td class=\"l\">", f);
	chart_html(f, d->label);
	fputs("</td>", f);
	for (unsigned k = 0; k < nm; k++)
		cell(f, p ? p->m[m[k]] : NAN, m[k], any);
	if (rank > 1 && !isnan(diff))
		fprintf(f, "<td>%+.1f %%</td>", diff);
	else
		fprintf(f, "<td>%s</td>", rank == 1 ? "best" : "");
	if (any->kind == JR_REPLAY) {
		fputs("<td class=\"l\">", f);
		replay_cell(f, t);
		fputs("</td>", f);
	}
	if (any->kind == JR_PRECOND) {
		fputs("<td class=\"l\">", f);
		if (t && t->reached)
			fprintf(f, "reached at round %u", t->steady_round);
		else if (t)
			fprintf(f, "not reached after %u rounds", t->rounds_run);
		fputs("</td>", f);
	}
	fputs("</tr>\n", f);
}

/* The drives ranked by the test's headline figure at its last (most loaded) point. */
static void summary(FILE *f, const struct json_read_doc *d, unsigned n, const struct json_read_test *t)
{
	const char **keys;
	unsigned nk = compare_points(d, n, t->name, &keys);
	const char *at = nk ? keys[nk - 1] : "";
	enum json_read_metric m[JR_METRICS], h = compare_headline(t);
	unsigned nm = compare_metrics_of(t, m), *rank = xcalloc(n, sizeof(*rank));
	double *v = xcalloc(n, sizeof(*v)), *diff = xcalloc(n, sizeof(*diff));

	for (unsigned i = 0; i < n; i++) {
		const struct json_read_point *p = json_read_point(json_read_find(&d[i], t->name), at);
		v[i] = p ? p->m[h] : NAN;
	}
	compare_rank(v, n, compare_metric(t, h).lower_better, rank, diff);
	fputs("<table><tr><th>rank</th><th class=\"l\">drive</th>", f);
	for (unsigned k = 0; k < nm; k++) {
		fputs("<th>", f);
		chart_html(f, compare_metric(t, m[k]).name);
		fputs("</th>", f);
	}
	fprintf(f, "<th>vs best</th>%s</tr>\n", t->kind == JR_PRECOND ? "<th class=\"l\">steady state</th>" :
		t->kind == JR_REPLAY ? "<th class=\"l\">how well it kept the trace's schedule</th>" : "");
	for (unsigned r = 1; r <= n + 1; r++)
		for (unsigned k = 0; k < n; k++)
			if (rank[k] == (r <= n ? r : 0))
				summary_row(f, &d[k], t, at, rank[k], diff[k]);
	fputs("</table>\n<p class=\"note\">at ", f);
	chart_html(f, at);
	fputs("; ranked by ", f);
	chart_html(f, compare_metric(t, h).name);
	fputs("</p>\n", f);
	free(keys);
	free(rank);
	free(v);
	free(diff);
}

static void missing_note(FILE *f, const struct json_read_doc *d, unsigned n, const char *name)
{
	bool any = false;

	for (unsigned i = 0; i < n; i++) {
		if (json_read_find(&d[i], name))
			continue;
		fputs(any ? ", " : "<p class=\"missing\">missing in: ", f);
		chart_html(f, d[i].label);
		any = true;
	}
	if (any)
		fputs("</p>\n", f);
}

static int page(FILE *f, const struct json_read_doc *d, unsigned n, const struct buyer_opts *o,
		volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	struct buyer b;
	const char **names;
	unsigned nt = compare_tests(d, n, &names);
	char now[32];
	time_t clock = time(NULL);
	struct tm tm;
	int rc = 0;

	strftime(now, sizeof(now), "%Y-%m-%d %H:%M UTC", gmtime_r(&clock, &tm));
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>appio report"
		"</title>\n<style>%s</style></head><body>\n<h1>appio report</h1>\n<p class=\"note\">"
		"appio %s, %s; %u drive(s), %u test(s). Throughput: higher is better; latency: lower is better. "
		"MB/s = 10<sup>6</sup> bytes per second.</p>\n", style, APPIO_VERSION, now, n, nt);
	rc = buyer_build(&b, d, n, o, err, errlen);
	if (!rc)
		buyer_html(&b, d, o, f);
	buyer_release(&b);
	facts(f, d, n);
	fputs("<nav><a href=\"#summary\">Summary</a> ", f);
	for (unsigned i = 0; i < nt; i++) {
		fprintf(f, "<a href=\"#test-%u\">", i + 1);
		chart_html(f, names[i]);
		fputs("</a> ", f);
	}
	fputs("</nav>\n", f);
	for (unsigned i = 0; i < nt && !rc; i++) {
		if (stop && *stop) {
			snprintf(err, errlen, "report: interrupted; nothing was written");
			rc = -EINTR;
			break;
		}
		const struct json_read_test *t = NULL;
		for (unsigned k = 0; k < n && !t; k++)
			t = json_read_find(&d[k], names[i]);
		fprintf(f, "<section id=\"test-%u\"><h2>", i + 1);
		chart_html(f, names[i]);
		fputs("</h2>\n", f);
		missing_note(f, d, n, names[i]);
		summary(f, d, n, t);
		for (unsigned k = 0; k < n; k++)       /* MPI runs: each host's share */
			report_ranks_hosts(f, &d[k], json_read_find(&d[k], names[i]));
		rc = chart(f, d, n, names[i], t, i + 1, err, errlen);
		if (!rc)
			rc = report_apps_charts(f, d, n, names[i], i + 1, err, errlen);
		fputs("</section>\n", f);
	}
	fputs("</body></html>\n", f);
	free(names);
	return rc;
}

int report_write_html(const struct json_read_doc *d, unsigned n, const char *path,
		      const struct buyer_opts *o, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	char tmp[4200];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	if (!(f = fopen(tmp, "w"))) {
		int e = errno;
		snprintf(err, errlen, "report: cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	int rc = page(f, d, n, o, stop, err, errlen);
	if (ferror(f) | fclose(f) || (!rc && rename(tmp, path))) {
		int e = errno ? errno : EIO;
		if (!rc)
			snprintf(err, errlen, "report: cannot write '%s': %s", path, strerror(e));
		rc = rc ? rc : -e;
	}
	if (rc)
		unlink(tmp);
	return rc;
}
