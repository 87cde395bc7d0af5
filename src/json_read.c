/*
 * json_read.c - result documents back into drives, tests and points (see
 * json_read.h). The keys read are the contracts of include/appio/result.h
 * and src/suite.h; unknown keys are ignored so newer documents still read.
 */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "appio/opt.h"
#include "appio/result.h"
#include "json_read.h"
#include "appio/xalloc.h"

/*
 * Bounds of what a document may say, so that a file mailed from elsewhere
 * cannot make the reader loop or allocate without end: appio's own limits
 * (--max-rounds, nosql's --intervals, the classes a result has).
 */
#define ROUNDS_MAX    10000
#define INTERVALS_MAX 10000
#define WIDTH_MAX     65536     /* threads or queue depth of a point (appio allows 4096) */

/* A document being read: the first impossible value found stops it. */
struct reader {
	struct json_read_doc *d;
	const char *test;               /* the test being read, for messages */
	char *err;
	size_t errlen;
	int rc;
};

/* Names and parser messages quote the file's bytes: keep the message one line. */
static void one_line(char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			*s = '?';
}

static void bad(struct reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Record the first error: "'FILE': test 'NAME': WHAT". */
static void bad(struct reader *r, const char *fmt, ...)
{
	char what[256];
	va_list ap;

	if (r->rc)
		return;
	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	snprintf(r->err, r->errlen, "'%s'%s%s%s: %s", r->d->path, r->test ? ": test '" : "",
		 r->test ? r->test : "", r->test ? "'" : "", what);
	one_line(r->err);
	r->rc = -EINVAL;
}

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

/* The class a point headlines: its "headline" ("total" by default). */
static json_t *head_class(json_t *pt)
{
	json_t *classes = json_object_get(pt, "classes");
	const char *h = str(pt, "headline");
	json_t *c = json_object_get(classes, *h ? h : "total");

	if (!c && json_object_size(classes)) {
		void *it = json_object_iter(classes);
		c = json_object_iter_value(it);
	}
	return c;
}

static void figures(json_t *pt, struct json_read_point *p)
{
	json_t *c = head_class(pt), *lat = json_object_get(c, "lat_ns");

	p->m[JR_OPS] = num(c, "ops_per_s");
	p->m[JR_MBPS] = num(c, "mb_per_s");
	p->m[JR_MEAN] = num(lat, "mean");
	p->m[JR_P99] = num(lat, "p99");
	p->m[JR_MAX] = num(lat, "max");
	p->m[JR_STDDEV] = num(lat, "stddev");
	p->partial = json_is_true(json_object_get(pt, "partial"));
	p->raw = pt;
}

/*
 * Key @key of @o as a whole number from @lo to @hi into *@out: absent or
 * null is @def; anything else (text, a fraction, negative, too large) is an
 * error naming @where.@key. Never casts a value it has not range-checked.
 */
static bool whole(struct reader *r, json_t *o, const char *where, const char *key,
		  unsigned lo, unsigned hi, unsigned def, unsigned *out)
{
	json_t *v = json_object_get(o, key);
	double x = json_number_value(v);

	*out = def;
	if (!v || json_is_null(v))
		return true;
	if (json_is_number(v) && x >= lo && x <= hi && x == floor(x)) {
		*out = (unsigned)x;
		return true;
	}
	if (json_is_number(v))
		bad(r, "%s%s%s is %g (expected a whole number from %u to %u)", where, *where ? "." : "",
		    key, x, lo, hi);
	else
		bad(r, "%s%s%s is not a number (expected a whole number from %u to %u)", where,
		    *where ? "." : "", key, lo, hi);
	return false;
}

static struct json_read_point *add_point(struct json_read_test *t)
{
	t->pts = xrealloc(t->pts, (t->npts + 1) * sizeof(*t->pts));
	struct json_read_point *p = &t->pts[t->npts++];
	memset(p, 0, sizeof(*p));
	for (int m = 0; m < JR_METRICS; m++)
		p->m[m] = NAN;
	return p;
}

/*
 * A point's per-second series names no more classes a second than a result
 * has: json_read_split() sizes its intervals by them.
 */
static bool series_ok(struct reader *r, json_t *pt, size_t i)
{
	json_t *sec;
	size_t k;

	json_array_foreach(json_object_get(pt, "series"), k, sec) {
		size_t n = json_object_size(json_object_get(sec, "classes"));
		if (n > RESULT_MAX_CLASSES) {
			bad(r, "points[%zu].series[%zu].classes has %zu classes (at most %d)", i, k, n,
			    RESULT_MAX_CLASSES);
			return false;
		}
	}
	return true;
}

/* A point's threads, queue depth and write %, checked: they name the point. */
static bool point_xs(struct reader *r, json_t *pt, size_t i, unsigned *th, unsigned *qd, unsigned *wp)
{
	char where[32];

	snprintf(where, sizeof(where), "points[%zu]", i);
	return whole(r, pt, where, "threads", 1, WIDTH_MAX, 0, th) &&
	       whole(r, pt, where, "qd", 1, WIDTH_MAX, 0, qd) &&
	       whole(r, pt, where, "write_pct", 0, 100, UINT_MAX, wp);
}

static void sweep_points(struct reader *r, struct json_read_test *t, json_t *points)
{
	size_t i;
	json_t *pt;

	json_array_foreach(points, i, pt) {
		unsigned th, qd, wp;
		if (!point_xs(r, pt, i, &th, &qd, &wp) || !series_ok(r, pt, i))
			return;
		struct json_read_point *p = add_point(t);
		if (wp != UINT_MAX) {
			snprintf(p->key, sizeof(p->key), "%u%% writes", wp);
			p->x = wp;
		} else if (t->kind == JR_APP || t->kind == JR_DB) {
			snprintf(p->key, sizeof(p->key), "%u threads", th);
			p->x = th;
		} else if (t->kind == JR_REPLAY) {
			snprintf(p->key, sizeof(p->key), i ? "replay %zu" : "replay", i + 1);
			p->x = (double)i;
		} else {
			snprintf(p->key, sizeof(p->key), "%uT/%uQ", th, qd);
			p->x = (double)i;
		}
		figures(pt, p);
	}
}

/* Per-second figures of every round (or fill run), end to end. */
static void seconds(struct reader *r, struct json_read_test *t, json_t *points)
{
	size_t i, k;
	json_t *pt, *sec;

	json_array_foreach(points, i, pt) {
		const char *h = str(pt, "headline");
		if (!series_ok(r, pt, i))
			return;
		json_array_foreach(json_object_get(pt, "series"), k, sec) {
			json_t *c = json_object_get(json_object_get(sec, "classes"), *h ? h : "total");
			t->sec_ops = xrealloc(t->sec_ops, (t->nsec + 1) * sizeof(double));
			t->sec_mbs = xrealloc(t->sec_mbs, (t->nsec + 1) * sizeof(double));
			t->sec_mean = xrealloc(t->sec_mean, (t->nsec + 1) * sizeof(double));
			t->sec_ops[t->nsec] = num(c, "ops_per_s");
			t->sec_mbs[t->nsec] = num(c, "mb_per_s");
			t->sec_mean[t->nsec] = num(c, "mean_ns");
			t->nsec++;
		}
	}
}

/*
 * The steady-state window as one point: its average, the rounds' latency.
 * Rounds are counted from 1; the window lies within the rounds run, which
 * the document lists (0 when no round ran).
 */
static void window_point(struct reader *r, struct json_read_test *t, json_t *steady, json_t *rounds)
{
	json_t *w = json_object_get(steady, "window");
	unsigned first, last, run, nr = (unsigned)json_array_size(rounds);
	double ops = 0, lat = 0, max = NAN;

	t->reached = json_is_true(json_object_get(steady, "reached"));
	if (!whole(r, steady, "steady_state", "rounds_run", 0, nr < ROUNDS_MAX ? nr : ROUNDS_MAX, 0, &run) ||
	    !whole(r, steady, "steady_state", "round", t->reached, run, 0, &t->steady_round) ||
	    !whole(r, w, "steady_state.window", "first", 0, run, 0, &first) ||
	    !whole(r, w, "steady_state.window", "last", first, run, first, &last))
		return;
	t->rounds_run = run;
	if (!t->reached)
		t->steady_round = 0;

	struct json_read_point *p = add_point(t);
	snprintf(p->key, sizeof(p->key), "window");
	p->m[JR_OPS] = num(w, "avg");
	for (unsigned k = first; k && k <= last; k++) {
		json_t *c = head_class(json_array_get(rounds, k - 1));
		double n = num(c, "ops");
		json_t *l = json_object_get(c, "lat_ns");
		if (isnan(n) || !c)
			continue;
		ops += n;
		lat += n * num(l, "mean");
		max = isnan(max) ? num(l, "max") : fmax(max, num(l, "max"));
	}
	p->m[JR_MEAN] = ops > 0 ? lat / ops : NAN;
	p->m[JR_MAX] = max;
}

static void fill_point(struct json_read_test *t, json_t *points)
{
	struct json_read_point *p = add_point(t);
	double bytes = 0, secs = 0;
	size_t i;
	json_t *pt;

	snprintf(p->key, sizeof(p->key), "fill");
	json_array_foreach(points, i, pt) {
		double b = num(head_class(pt), "bytes"), s = num(pt, "time_s");
		bytes += isnan(b) ? 0 : b;
		secs += isnan(s) ? 0 : s;
	}
	p->m[JR_MBPS] = secs > 0 ? bytes / 1e6 / secs : NAN;
}

/* Workload option "intervals" (text, as every option): 0 when absent. */
static unsigned intervals(struct reader *r, json_t *options)
{
	json_t *v = json_object_get(options, "intervals");
	uint64_t n = 0;

	if (v && (!json_is_string(v) || parse_uint(json_string_value(v), &n) || n < 1 ||
		  n > INTERVALS_MAX)) {
		bad(r, "workload.options.intervals is %s%s%s (expected a whole number from 1 to %d)",
		    json_is_string(v) ? "'" : "", json_is_string(v) ? json_string_value(v) : "not text",
		    json_is_string(v) ? "'" : "", INTERVALS_MAX);
		return 0;
	}
	return (unsigned)n;
}

/* Workload options are text, as a command line gives them (compare.c compares them so). */
static void options_text(struct reader *r, json_t *options)
{
	const char *key;
	json_t *v;

	if (options && !json_is_object(options)) {
		bad(r, "workload.options is not an object of option names and values");
		return;
	}
	json_object_foreach(options, key, v) {
		if (!json_is_string(v)) {
			bad(r, "workload.options.%s is not text (an option's value as given, e.g. \"4k\")", key);
			return;
		}
	}
}

/* Facts shared by every test of a result, and which headline applies. */
static struct json_read_test *new_test(struct reader *r, const char *name,
				       enum json_read_kind kind, json_t *res)
{
	struct json_read_doc *d = r->d;
	json_t *wl = json_object_get(res, "workload"), *p0 = json_array_get(json_object_get(res, "points"), 0);
	json_t *c = head_class(p0);

	d->tests = xrealloc(d->tests, (d->ntests + 1) * sizeof(*d->tests));
	struct json_read_test *t = &d->tests[d->ntests++];
	memset(t, 0, sizeof(*t));
	t->name = xstrdup(name);
	t->kind = kind;
	t->options = json_object_get(wl, "options");
	t->info = json_is_object(json_object_get(res, "info")) ? json_object_get(res, "info") : NULL;
	t->engine = str(wl, "engine");
	t->headline = *str(p0, "headline") ? str(p0, "headline") : "total";
	options_text(r, t->options);
	t->intervals = intervals(r, t->options);
	t->tx = strcmp(t->headline, "total");
	t->mbs = kind == JR_FILL || (!t->tx && num(c, "ops") > 0 && num(c, "bytes") / num(c, "ops") >= 65536);
	if (!d->target && json_is_object(json_object_get(res, "target")))
		d->target = json_object_get(res, "target");
	if (!d->host && json_is_object(json_object_get(res, "host")))
		d->host = json_object_get(res, "host");
	return t;
}

static void add_result(struct reader *r, const char *name, const char *kind,
		       json_t *res, json_t *steady)
{
	json_t *points = json_object_get(res, "points");
	struct json_read_test *t;

	r->test = name;
	if (json_read_find(r->d, name)) {
		bad(r, "a second test of this name (a result names each test once)");
		return;
	}
	if (!strcmp(kind, "precondition") && json_is_object(steady)) {
		t = new_test(r, name, JR_PRECOND, res);
		window_point(r, t, steady, points);
		seconds(r, t, points);
	} else if (!strcmp(kind, "precondition")) {
		t = new_test(r, name, JR_FILL, res);
		fill_point(t, points);
		seconds(r, t, points);
	} else if (!strcmp(kind, "replay")) {
		t = new_test(r, name, JR_REPLAY, res);
		sweep_points(r, t, points);
		seconds(r, t, points);
	} else {
		bool ws = !isnan(num(json_array_get(points, 0), "write_pct"));
		enum json_read_kind k = !strcmp(kind, "application") ? JR_APP : !strcmp(kind, "database")
			? JR_DB : ws ? JR_WSWEEP : JR_SWEEP;
		t = new_test(r, name, k, res);
		sweep_points(r, t, points);
	}
	r->test = NULL;
}

static void read_suite(struct reader *r)
{
	struct json_read_doc *d = r->d;
	size_t i;
	json_t *ph;

	d->suite = str(d->root, "suite");
	d->complete = json_is_true(json_object_get(d->root, "complete"));
	json_array_foreach(json_object_get(d->root, "phases"), i, ph) {
		const char *status = str(ph, "status"), *kind = str(ph, "kind");
		json_t *res = json_object_get(ph, "result");
		if (!json_is_object(res) || !strcmp(kind, "purge") || !strcmp(status, "pending") ||
		    !json_array_size(json_object_get(res, "points")))
			continue;
		add_result(r, str(ph, "name"), kind, res, json_object_get(ph, "steady_state"));
		if (r->rc)
			return;
	}
}

/* A single run: name its tests as the suite names its phases. */
static void read_run(struct reader *r)
{
	struct json_read_doc *d = r->d;
	json_t *wl = json_object_get(d->root, "workload"), *pre = json_object_get(d->root, "precondition");
	const char *preset = str(wl, "preset"), *name = str(wl, "name");
	char tname[128];

	d->complete = !json_is_true(json_object_get(d->root, "interrupted"));
	if (json_is_object(pre) && json_array_size(json_object_get(pre, "rounds"))) {
		json_t *tmp = json_pack("{s:O?, s:O, s:O?}", "workload", wl, "points",
					json_object_get(pre, "rounds"), "target", json_object_get(d->root, "target"));
		json_object_set_new(d->root, "_precondition_result", tmp);
		snprintf(tname, sizeof(tname), "precondition %s", *preset ? preset : name);
		add_result(r, tname, "precondition", tmp, json_object_get(pre, "steady_state"));
	}
	if (r->rc || !json_array_size(json_object_get(d->root, "points")))
		return;
	const char *trace = str(json_object_get(wl, "options"), "trace"), *slash = strrchr(trace, '/');
	bool replay = !*preset && !strcmp(name, "replay") && *trace;
	if (*preset)
		snprintf(tname, sizeof(tname), "sweep %s", preset);
	else if (replay)        /* as the suite names its replay phase */
		snprintf(tname, sizeof(tname), "replay %.80s", slash ? slash + 1 : trace);
	else if (json_object_get(json_object_get(d->root, "info"), "driver"))
		snprintf(tname, sizeof(tname), "database %s", name);
	else
		snprintf(tname, sizeof(tname), "%s", name);
	add_result(r, tname, *preset ? "sweep" : replay ? "replay" :
		   json_object_get(json_object_get(d->root, "info"), "driver") ? "database" : "application",
		   d->root, NULL);
}

/* The file name of @path without ".json". */
static char *file_label(const char *path)
{
	const char *base = strrchr(path, '/');
	char *l = xstrdup(base ? base + 1 : path);
	size_t len = strlen(l);

	if (len > 5 && !strcmp(l + len - 5, ".json"))
		l[len - 5] = 0;
	return l;
}

/* Label @d from its @path: the file's name without ".json". */
static void name_doc(struct json_read_doc *d, const char *path)
{
	memset(d, 0, sizeof(*d));
	d->path = xstrdup(path);
	d->label = file_label(path);
}

/* Everything after parsing: is it a result appio reads, then its tests. */
static int read_doc(struct json_read_doc *d, char *err, size_t errlen)
{
	struct reader r = { .d = d, .err = err, .errlen = errlen };
	double fv = num(d->root, "format_version");

	if (!json_is_object(d->root) || isnan(fv) || !json_object_get(d->root, "appio_version")) {
		snprintf(err, errlen, "'%s' is not an appio result (no appio_version/format_version)", d->path);
		return -EINVAL;
	}
	if (fv != 1) {
		snprintf(err, errlen, "'%s' has format_version %g; this appio reads version 1", d->path, fv);
		return -EINVAL;
	}
	d->interrupted = json_is_true(json_object_get(d->root, "interrupted"));
	if (json_object_get(d->root, "phases"))
		read_suite(&r);
	else
		read_run(&r);
	return r.rc;
}

/* After jansson parsed (or failed to parse) document @name: read it, or say why not. */
static int load_parsed(struct json_read_doc *d, const char *name, const json_error_t *je,
		       char *err, size_t errlen)
{
	int rc;

	if (!d->root) {
		/* a file that would not open has no line: jansson's "unable to open NAME: why" */
		bool opening = je->line <= 0 && !strncmp(je->text, "unable to open", 14);
		const char *why = opening && strrchr(je->text, ':') ? strrchr(je->text, ':') + 2 : je->text;
		if (je->line > 0)
			snprintf(err, errlen, "cannot read '%s': %s (line %d)", name, why, je->line);
		else
			snprintf(err, errlen, "cannot read '%s': %s", name, why);
		rc = opening ? -ENOENT : -EINVAL;
	} else {
		rc = read_doc(d, err, errlen);
	}
	if (rc) {
		one_line(err);
		json_read_release(d);
	}
	return rc;
}

int json_read_load(struct json_read_doc *d, const char *path, char *err, size_t errlen)
{
	json_error_t je;

	name_doc(d, path);
	d->root = json_load_file(path, 0, &je);
	return load_parsed(d, path, &je, err, errlen);
}

int json_read_loadb(struct json_read_doc *d, const char *name, const char *buf, size_t len,
		    char *err, size_t errlen)
{
	json_error_t je;

	name_doc(d, name);
	d->root = json_loadb(buf, len, 0, &je);
	return load_parsed(d, name, &je, err, errlen);
}

void json_read_release(struct json_read_doc *d)
{
	for (unsigned i = 0; i < d->ntests; i++) {
		struct json_read_test *t = &d->tests[i];
		free(t->name);
		free(t->pts);
		free(t->sec_ops);
		free(t->sec_mbs);
		free(t->sec_mean);
	}
	free(d->tests);
	free(d->path);
	free(d->label);
	json_decref(d->root);
	memset(d, 0, sizeof(*d));
}

/* What the drive of @d is called, from its target and host. */
static char *drive_label(const struct json_read_doc *d)
{
	char model[128], dev[64], path[256], host[128], buf[400];

	json_read_fact(d, "target", "model", model, sizeof(model));
	json_read_fact(d, "target", "device", dev, sizeof(dev));
	json_read_fact(d, "target", "path", path, sizeof(path));
	json_read_fact(d, "host", "hostname", host, sizeof(host));
	if (*model)
		return xstrdup(model);
	if (!*dev && !*path)
		return file_label(d->path);
	const char *base = strrchr(path, '/');
	snprintf(buf, sizeof(buf), "%s%s%s", *dev ? dev : base ? base + 1 : path,
		 *host ? " on " : "", host);
	return xstrdup(buf);
}

static unsigned count_label(const struct json_read_doc *d, unsigned n, const char *label)
{
	unsigned c = 0;

	for (unsigned k = 0; k < n; k++)
		c += !strcmp(d[k].label, label);
	return c;
}

void json_read_labels(struct json_read_doc *d, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (d[i].label_given)
			continue;
		free(d[i].label);
		d[i].label = drive_label(&d[i]);
	}
	/* the same drive (or model) twice: the file names tell them apart, then the paths */
	bool *clash = xcalloc(n ? n : 1, sizeof(*clash));
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < n; i++)
			clash[i] = !d[i].label_given && count_label(d, n, d[i].label) > 1;
		for (unsigned i = 0; i < n; i++) {
			if (!clash[i])
				continue;
			char *extra = pass ? xstrdup(d[i].path) : file_label(d[i].path);
			char *base = drive_label(&d[i]);
			size_t len = strlen(base) + strlen(extra) + 4;
			char *l = xmalloc(len);
			snprintf(l, len, "%s (%s)", base, extra);
			free(base);
			free(extra);
			free(d[i].label);
			d[i].label = l;
		}
	}
	free(clash);
}

const struct json_read_test *json_read_find(const struct json_read_doc *d, const char *name)
{
	for (unsigned i = 0; i < d->ntests; i++)
		if (!strcmp(d->tests[i].name, name))
			return &d->tests[i];
	return NULL;
}

const struct json_read_point *json_read_point(const struct json_read_test *t, const char *key)
{
	for (unsigned i = 0; t && i < t->npts; i++)
		if (!strcmp(t->pts[i].key, key))
			return &t->pts[i];
	return NULL;
}

/* Interval bounds over @secs seconds: the last interval takes the remainder. */
static void split_bounds(struct json_read_split *s, unsigned secs)
{
	s->first = xcalloc(s->nint + 1, sizeof(*s->first));
	for (unsigned k = 0; k <= s->nint; k++)
		s->first[k] = (unsigned)((unsigned long long)k * secs / s->nint);
}

/* Class names of the first second, "total" left out: the series' own order. */
static void split_classes(struct json_read_split *s, json_t *sec)
{
	json_t *classes = json_object_get(sec, "classes"), *v;
	const char *name;

	s->cls = xcalloc(json_object_size(classes) + 1, sizeof(*s->cls));
	json_object_foreach(classes, name, v)
		if (strcmp(name, "total"))
			s->cls[s->ncls++] = name;
}

/* Add second @sec to interval @k: ops weigh its mean; the max is the largest. */
static void split_add(struct json_read_split *s, unsigned k, json_t *sec)
{
	json_t *classes = json_object_get(sec, "classes");
	double dur = num(sec, "dur_s");

	for (unsigned c = 0; c < s->ncls; c++) {
		json_t *x = json_object_get(classes, s->cls[c]);
		struct json_read_ival *iv = &s->iv[k * s->ncls + c];
		/* ops_per_s is rounded to 0.1: ops of a short second come back whole */
		double ops = round(num(x, "ops_per_s") * (isnan(dur) ? 1 : dur)), mean = num(x, "mean_ns");
		if (!x || !(ops > 0) || isnan(mean))
			continue;
		iv->mean += ops * mean;         /* a sum until every second is in */
		iv->ops += ops;
		iv->max = isnan(iv->max) ? num(x, "max_ns") : fmax(iv->max, num(x, "max_ns"));
	}
}

int json_read_split(const struct json_read_point *p, unsigned nint, struct json_read_split *s)
{
	json_t *series = json_object_get(p ? p->raw : NULL, "series");
	unsigned secs = (unsigned)json_array_size(series);

	memset(s, 0, sizeof(*s));
	if (!secs || !nint)
		return -ENODATA;
	s->nint = nint;
	split_bounds(s, secs);
	split_classes(s, json_array_get(series, 0));
	s->iv = xcalloc((size_t)nint * (s->ncls ? s->ncls : 1), sizeof(*s->iv));
	for (size_t i = 0; i < (size_t)nint * s->ncls; i++)
		s->iv[i] = (struct json_read_ival){ 0, 0, NAN };
	for (unsigned k = 0; k < nint; k++)
		for (unsigned sec = s->first[k]; sec < s->first[k + 1]; sec++)
			split_add(s, k, json_array_get(series, sec));
	for (size_t i = 0; i < (size_t)nint * s->ncls; i++)
		s->iv[i].mean = s->iv[i].ops > 0 ? s->iv[i].mean / s->iv[i].ops : NAN;
	return 0;
}

void json_read_split_release(struct json_read_split *s)
{
	free(s->cls);
	free(s->first);
	free(s->iv);
	memset(s, 0, sizeof(*s));
}

int json_read_split_class(const struct json_read_split *s, const char *name)
{
	for (unsigned c = 0; c < s->ncls; c++)
		if (!strcmp(s->cls[c], name))
			return (int)c;
	return -1;
}

const char *json_read_fact(const struct json_read_doc *d, const char *obj, const char *key,
			   char *buf, size_t len)
{
	json_t *o = !strcmp(obj, "target") ? d->target : d->host;
	json_t *v = json_object_get(o, key);

	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%lld", (long long)json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "yes" : "no");
	else
		buf[0] = 0;
	return buf;
}
