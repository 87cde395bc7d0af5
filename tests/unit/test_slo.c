/*
 * test_slo.c - latency limits: parsing (and the one-line refusal of bad
 * forms), the point selection on hand-made result documents read back
 * through json_read (figures chosen so that the answer is known: which
 * point is the best within the limit, which is the first over it, per
 * class), the same on a result in memory, and the --slo-search bisection
 * against a model drive whose limit is known exactly. A percentile no
 * result lists (p95) is read from each point's own histogram: hand-made
 * documents whose p95 an interpolation between their p90 and p99 would get
 * wrong, and a result written and read back that must choose as it did in
 * memory.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/hist.h"
#include "check.h"
#include "json_read.h"
#include "slo.h"
#include "slo_search.h"

static void test_parse(void)
{
	struct slo s = { 0 };
	char err[512] = "", buf[256];

	CHECK(slo_parse(&s, "p99=2ms", err, sizeof(err)) == 0, "%s", err);
	CHECK(slo_parse(&s, "read.p99.9=500us, write.p99=1.5ms txn.mean=3s", err, sizeof(err)) == 0, "%s", err);
	CHECK(s.n == 4, "%u limits", s.n);
	CHECK(!*s.lim[0].cls && s.lim[0].stat == SLO_PCT && s.lim[0].pct == 99 && s.lim[0].ns == 2e6, "p99=2ms");
	CHECK(!strcmp(s.lim[1].cls, "read") && s.lim[1].stat == SLO_PCT && s.lim[1].pct == 99.9 &&
	      s.lim[1].ns == 5e5, "read.p99.9");
	CHECK(!strcmp(s.lim[2].cls, "write") && s.lim[2].ns == 1.5e6, "write.p99=1.5ms");
	CHECK(!strcmp(s.lim[3].cls, "txn") && s.lim[3].stat == SLO_MEAN && s.lim[3].ns == 3e9, "txn.mean");
	slo_format(&s, buf, sizeof(buf));
	CHECK(!strcmp(buf, "p99=2ms,read.p99.9=500us,write.p99=1.5ms,txn.mean=3s"), "format: %s", buf);
	struct slo t = { 0 };
	CHECK(slo_parse(&t, buf, err, sizeof(err)) == 0 && t.n == 4 && t.lim[2].ns == 1.5e6,
	      "the formatted text parses back");
	CHECK(slo_parse(&t, "p99.99=10ns,p9999=1us,p999=2us,max=1s,p50=1us,p90=1us", err, sizeof(err)) == -EINVAL,
	      "more than %d limits refused", SLO_MAX_LIMITS);

	/* any percentile, with or without a class, and the result's own keys */
	struct slo a = { 0 };
	CHECK(slo_parse(&a, "p95=3ms,p99.5=1ms,read.p99.95=1ms,read.response.p42=1s,p100=1s,p999=2us,"
			"p0.00001=1us", err, sizeof(err)) == 0, "%s", err);
	CHECK(a.n == 7 && a.lim[0].pct == 95 && a.lim[1].pct == 99.5 && !strcmp(a.lim[2].cls, "read") &&
	      a.lim[2].pct == 99.95 && !strcmp(a.lim[3].cls, "read.response") && a.lim[3].pct == 42 &&
	      a.lim[4].pct == 100 && a.lim[5].pct == 99.9 && a.lim[6].pct == 0.00001, "percentiles parsed");
	slo_format(&a, buf, sizeof(buf));
	CHECK(!strcmp(buf, "p95=3ms,p99.5=1ms,read.p99.95=1ms,read.response.p42=1s,p100=1s,p99.9=2us,p0.00001=1us"),
	      "format: %s", buf);
	struct slo back = { 0 };
	CHECK(slo_parse(&back, buf, err, sizeof(err)) == 0 && back.n == 7 && back.lim[6].pct == 0.00001,
	      "and parses back: %s", err);
	char key[32];
	CHECK(!strcmp(slo_doc_key(&a.lim[0], key, sizeof(key)), "p95") &&
	      !strcmp(slo_doc_key(&a.lim[5], key, sizeof(key)), "p999") &&
	      !strcmp(slo_doc_key(&a.lim[4], key, sizeof(key)), "max") &&
	      !strcmp(slo_doc_key(&a.lim[1], key, sizeof(key)), "p99.5"), "document keys");
}

static void test_parse_bad(void)
{
	static const char *const bad[] = {
		"p99=2", "p99", "=2ms", "p99=-1ms", "p99=0ms", "p99=2 hours", ".p99=1ms",
		"read.p99=", "", "p99=2msx", "read-p99=1ms", "p0=1ms", "p100.1=1ms", "p-3=1ms",
		"pabc=1ms", "p99.=1ms", "p.5=1ms", "p1e2=1ms", "p0.0=1ms", "p=1ms", "read.p101=1ms",
		"p99..9=1ms", "p 99=1ms", "p99.9999999=1ms",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct slo s = { 0 };
		char err[512] = "";
		int rc = slo_parse(&s, bad[i], err, sizeof(err));
		CHECK(rc == -EINVAL, "'%s' accepted", bad[i]);
		CHECK(!strncmp(err, "--slo: ", 7) && strstr(err, "[CLASS.]STAT=TIME") &&
		      strstr(err, "0 < N <= 100") && !strchr(err, '\n'),
		      "'%s': one line naming the option and the form: %s", bad[i], err);
	}
}

/*
 * A run of 4 points: 1T/1Q 10k IOPS p99 0.5 ms, 2T/1Q 30k p99 1.5 ms,
 * 4T/1Q 50k p99 3 ms, 8T/1Q 45k p99 2.5 ms (past the peak). Reads have
 * their own p99 (0.4, 0.9, 1.2, 2.0 ms); writes none at the first point.
 */
static const char run_doc[] =
	"{\"appio_version\": \"0.1.0\", \"format_version\": 1, \"interrupted\": false,\n"
	" \"target\": {\"path\": \"x\", \"kind\": \"file\", \"size\": 1},\n"
	" \"workload\": {\"name\": \"profile\", \"preset\": \"8k-70-30\", \"engine\": \"null\", \"options\": {}},\n"
	" \"points\": [\n"
	"%s,%s,%s,%s]}\n";

static char *point(char *buf, size_t len, unsigned t, double iops, double p99, double rp99,
		   double wops, bool partial)
{
	snprintf(buf, len,
		 "{\"threads\": %u, \"qd\": 1, \"time_s\": 1, \"partial\": %s, \"headline\": \"total\",\n"
		 " \"classes\": {\"total\": {\"ops\": %g, \"ops_per_s\": %g, \"bytes\": 1, \"mb_per_s\": 1,\n"
		 "   \"lat_ns\": {\"mean\": 100, \"p50\": 100, \"p90\": 200, \"p99\": %g, \"p999\": %g, \"max\": %g}},\n"
		 "  \"read\": {\"ops\": %g, \"ops_per_s\": 1, \"lat_ns\": {\"mean\": 1, \"p99\": %g, \"p999\": %g, \"max\": %g}},\n"
		 "  \"write\": {\"ops\": %g, \"ops_per_s\": 1, \"lat_ns\": {\"mean\": 1, \"p99\": 9e9, \"max\": 9e9}}}}",
		 t, partial ? "true" : "false", iops, iops, p99, p99 * 2, p99 * 3, iops, rp99, rp99 * 2,
		 rp99 * 3, wops);
	return buf;
}

static void load_run(struct json_read_doc *d, bool third_partial)
{
	char p[4][1024], doc[8192], err[256];

	snprintf(doc, sizeof(doc), run_doc, point(p[0], 1024, 1, 10000, 0.5e6, 0.4e6, 0, false),
		 point(p[1], 1024, 2, 30000, 1.5e6, 0.9e6, 5, false),
		 point(p[2], 1024, 4, 50000, 3e6, 1.2e6, 5, third_partial),
		 point(p[3], 1024, 8, 45000, 2.5e6, 2e6, 5, false));
	int rc = json_read_loadb(d, "run.json", doc, strlen(doc), err, sizeof(err));
	CHECK(rc == 0, "load: %s", err);
}

static struct slo limits(const char *spec)
{
	struct slo s = { 0 };
	char err[512];
	int rc = slo_parse(&s, spec, err, sizeof(err));
	CHECK(rc == 0, "%s: %s", spec, err);
	return s;
}

static void test_pick_documents(void)
{
	struct json_read_doc d = { 0 };
	struct slo_pick pk;

	load_run(&d, false);
	CHECK(d.ntests == 1 && d.tests[0].npts == 4, "one test of 4 points");
	const struct json_read_test *t = &d.tests[0];

	struct slo s = limits("p99=2ms");
	slo_pick_test(&s, t, &pk);
	CHECK(pk.best == 1, "p99=2ms: best 2T (30k), not %d", pk.best);
	CHECK(pk.over == 3 && pk.broken == 0 && pk.over_ns == 2.5e6,
	      "first over: 8T (45k, the lowest throughput above 30k that breaks it), not %d (%g)", pk.over, pk.over_ns);

	s = limits("p99=4ms");
	slo_pick_test(&s, t, &pk);
	CHECK(pk.best == 2 && pk.over == -1, "p99=4ms: every point meets it, best 4T: %d %d", pk.best, pk.over);

	s = limits("p99=0.1ms");
	slo_pick_test(&s, t, &pk);
	CHECK(pk.best == -1 && pk.over == 0, "p99=0.1ms: none meets it, first over the lowest: %d %d", pk.best, pk.over);

	/* per class: the total is fine to 4 ms, the reads' p99 stops at 1 ms */
	s = limits("p99=4ms,read.p99=1ms");
	slo_pick_test(&s, t, &pk);
	CHECK(pk.best == 1 && pk.over == 3 && pk.broken == 1 && pk.over_ns == 2e6,
	      "read.p99=1ms: best 2T, over 8T on the read limit: %d %d %d %g", pk.best, pk.over, pk.broken, pk.over_ns);
	s = limits("read.p99.9=2.5ms");
	slo_pick_test(&s, t, &pk);
	CHECK(pk.best == 2 && pk.over == -1,
	      "read.p99.9 (2x the p99): best 4T (2.4 ms); 8T breaks it but below 4T's throughput: %d %d",
	      pk.best, pk.over);

	/* a limit on a class without operations does not apply: writes at 1T only */
	s = limits("write.p99=1ms");
	slo_pick_test(&s, t, &pk);
	CHECK(pk.best == 0 && pk.over == 1, "write.p99: 1T (no writes) meets it, 2T is over: %d %d", pk.best, pk.over);
	s = limits("nosuch.p99=1ns");
	slo_pick_test(&s, t, &pk);
	CHECK(pk.best == 2 && pk.over == -1, "a class no point has: every point meets it: %d %d", pk.best, pk.over);
	json_read_release(&d);

	/* a partial point is left out: the best within 4 ms is then 8T */
	load_run(&d, true);
	s = limits("p99=4ms");
	slo_pick_test(&s, &d.tests[0], &pk);
	CHECK(pk.best == 3, "the partial 4T point is not chosen: %d", pk.best);
	json_read_release(&d);
}

static void test_pick_result(void)
{
	struct result r;
	static const double iops[] = { 1000, 4000, 3000 }, p99[] = { 1e6, 3e6, 1.9e6 };

	result_init(&r);
	for (int i = 0; i < 3; i++) {
		struct point_result *p = result_add_point(&r);
		p->pt = (struct emu_point){ .threads = 1u << i, .qd = 1, .write_pct = -1 };
		p->ncls = 1;
		p->cls[0] = (struct cls_result){ .name = "total", .ops = 10, .ops_per_s = iops[i],
						 .lat = { .p99 = (uint64_t)p99[i], .max = 5000000 } };
	}
	struct slo s = limits("p99=2ms");
	struct slo_pick pk;
	slo_pick_result(&s, &r, &pk);
	CHECK(pk.best == 2 && pk.over == 1 && pk.over_ns == 3e6, "in memory: best 4T, over 2T: %d %d", pk.best, pk.over);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	slo_print(&s, &r, f);
	fclose(f);
	CHECK(strstr(text, "SLO p99=2ms: best 4T/1Q at 3000 IOPS (p99 1.90 ms); first over: 2T/1Q at 4000 IOPS "
		      "(p99 3.00 ms > 2.00 ms)"), "text: %s", text);
	free(text);
	f = open_memstream(&text, &len);
	slo_write_json(&s, &r, f);
	fclose(f);
	json_error_t je;
	char wrapped[4096];
	snprintf(wrapped, sizeof(wrapped), "{%s}", text);
	json_t *j = json_loads(wrapped, 0, &je);
	CHECK(j != NULL, "valid JSON: %s", wrapped);
	json_t *slo = json_object_get(j, "slo");
	CHECK(json_integer_value(json_object_get(json_object_get(slo, "best"), "threads")) == 4 &&
	      json_number_value(json_object_get(json_object_get(slo, "first_over"), "value_ns")) == 3e6 &&
	      !strcmp(json_string_value(json_object_get(slo, "limits")), "p99=2ms"), "members: %s", text);
	json_decref(j);
	free(text);
	result_release(&r);
}

/*
 * Three points whose p95 is known only from their histograms: 10k IOPS with
 * 95 % at 0.5 ms and 5 % at 5 ms; 20k with 96 % at 1 ms, 4 % at 8 ms; 30k
 * with 90 % at 1 ms, 10 % at 4 ms. Their p95 are about 0.5, 1 and 4 ms; an
 * interpolation between p90 and p99 would give the 20k point about 4.9 ms.
 */
static const struct { double iops, v[2]; uint64_t n[2]; } p95_pts[3] = {
	{ 10000, { 0.5e6, 5e6 }, { 950, 50 } },
	{ 20000, { 1e6, 8e6 }, { 960, 40 } },
	{ 30000, { 1e6, 4e6 }, { 900, 100 } },
};

/* What hist_percentile() says of a histogram of @n[k] samples at @v[k]. */
static double p95_expect(int i, double p)
{
	struct hist *h = malloc(sizeof(*h));
	hist_init(h);
	for (int k = 0; k < 2; k++)
		for (uint64_t j = 0; j < p95_pts[i].n[k]; j++)
			hist_record(h, (uint64_t)p95_pts[i].v[k]);
	double v = (double)hist_percentile(h, p);
	free(h);
	return v;
}

/* A point's document; @how: 0 the histogram alone, 1 a "p95" key alone, 2 neither. */
static char *p95_point(char *buf, size_t len, int i, int how)
{
	char tri[256], key[64] = "";
	int n = 0;

	for (int k = 0; k < 2; k++) {
		unsigned b = hist_index((uint64_t)p95_pts[i].v[k]);
		n += snprintf(tri + n, sizeof(tri) - (size_t)n, "%s[%llu,%llu,%llu]", k ? "," : "",
			      (unsigned long long)hist_bucket_low(b), (unsigned long long)hist_bucket_width(b),
			      (unsigned long long)p95_pts[i].n[k]);
	}
	if (how == 1)
		snprintf(key, sizeof(key), ", \"p95\": %.0f", p95_expect(i, 95));
	snprintf(buf, len,
		 "{\"threads\": %d, \"qd\": 1, \"time_s\": 1, \"partial\": false, \"headline\": \"total\",\n"
		 " \"classes\": {\"total\": {\"ops\": 1000, \"ops_per_s\": %g, \"bytes\": 1, \"mb_per_s\": 1,\n"
		 "   \"lat_ns\": {\"mean\": 1, \"min\": %.0f, \"p90\": %.0f, \"p99\": %.0f, \"max\": %.0f%s}%s%s%s}}}",
		 1 << i, p95_pts[i].iops, p95_pts[i].v[0], p95_expect(i, 90), p95_expect(i, 99),
		 p95_pts[i].v[1], key, how == 0 ? ", \"hist\": [" : "", how == 0 ? tri : "", how == 0 ? "]" : "");
	return buf;
}

static void test_pick_p95(void)
{
	for (int how = 0; how < 3; how++) {
		char p[3][1024], doc[8192], err[256];
		struct json_read_doc d = { 0 };
		struct slo_pick pk;

		snprintf(doc, sizeof(doc),
			 "{\"appio_version\": \"0.1.0\", \"format_version\": 1, \"interrupted\": false,\n"
			 " \"workload\": {\"name\": \"profile\", \"preset\": \"4k-randread\", \"engine\": \"null\", "
			 "\"options\": {}},\n \"points\": [%s,%s,%s]}\n", p95_point(p[0], 1024, 0, how),
			 p95_point(p[1], 1024, 1, how), p95_point(p[2], 1024, 2, how));
		CHECK(json_read_loadb(&d, "p95.json", doc, strlen(doc), err, sizeof(err)) == 0, "load: %s", err);
		struct slo s = limits("p95=2ms");
		slo_pick_test(&s, &d.tests[0], &pk);
		if (how == 2) {
			CHECK(pk.best == -1 && pk.over == 0 && isnan(pk.over_ns),
			      "no histogram, no p95 key: no point is known to meet it: %d %d", pk.best, pk.over);
		} else {
			CHECK(pk.best == 1 && pk.over == 2 && pk.over_ns == p95_expect(2, 95),
			      "%s: best 20k (p95 %.0f, not the interpolated ~4.9 ms), first over 30k at %.0f: "
			      "%d %d %g", how ? "p95 key" : "histogram", p95_expect(1, 95), p95_expect(2, 95),
			      pk.best, pk.over, pk.over_ns);
			CHECK(p95_expect(1, 95) < 1.01e6 && p95_expect(2, 95) > 3.9e6, "the figures are the buckets'");
		}
		s = limits("p96=2ms");
		slo_pick_test(&s, &d.tests[0], &pk);
		if (how == 0)
			CHECK(pk.best == 1 && pk.over == 2 && pk.over_ns == p95_expect(2, 96),
			      "p96=2ms from the histogram: best 20k (1 ms), 30k over (4 ms): %d %d %g",
			      pk.best, pk.over, pk.over_ns);
		json_read_release(&d);
	}
}

/* A result's points as a run keeps them: lat figures and the merged histogram. */
static void add_hist_point(struct result *r, int i)
{
	struct point_result *p = result_add_point(r);
	struct hist *h = malloc(sizeof(*h));

	hist_init(h);
	for (int k = 0; k < 2; k++)
		for (uint64_t j = 0; j < p95_pts[i].n[k]; j++)
			hist_record(h, (uint64_t)p95_pts[i].v[k] + j % 7);
	p->pt = (struct emu_point){ .threads = 1u << i, .qd = 1, .write_pct = -1 };
	p->time_s = 1;
	p->ncls = 1;
	p->cls[0] = (struct cls_result){ .name = "total", .ops = h->count, .ops_per_s = p95_pts[i].iops,
		.lat = { .mean = hist_mean(h), .min = h->min, .p50 = hist_percentile(h, 50),
			 .p90 = hist_percentile(h, 90), .p99 = hist_percentile(h, 99),
			 .p999 = hist_percentile(h, 99.9), .p9999 = hist_percentile(h, 99.99), .max = h->max } };
	result_cls_keep_hist(&p->cls[0], h);
	CHECK(result_cls_percentile(&p->cls[0], 95) == (double)hist_percentile(h, 95) &&
	      result_cls_percentile(&p->cls[0], 99) == (double)p->cls[0].lat.p99,
	      "kept histogram: p95 %g", result_cls_percentile(&p->cls[0], 95));
	free(h);
}

static void test_p95_round_trip(void)
{
	struct result r;
	struct slo s = limits("p95=2ms");
	struct slo_pick mem, doc;

	result_init(&r);
	for (int i = 0; i < 3; i++)
		add_hist_point(&r, i);
	r.slo = &s;
	slo_pick_result(&s, &r, &mem);
	CHECK(mem.best == 1 && mem.over == 2, "in memory: best 20k, over 30k: %d %d", mem.best, mem.over);

	char *text = NULL, err[256];
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	CHECK(result_write_json_value(&r, f, 0) == 0, "written");
	fclose(f);
	CHECK(strstr(text, "\"p95\": ") && strstr(text, "\"hist\": [["), "lat_ns has p95, the class its histogram");
	struct json_read_doc d = { 0 };
	CHECK(json_read_loadb(&d, "rt.json", text, len, err, sizeof(err)) == 0, "read back: %s", err);
	slo_pick_test(&s, &d.tests[0], &doc);
	CHECK(doc.best == mem.best && doc.over == mem.over && doc.over_ns == mem.over_ns,
	      "read back, the same choice and figure: %d %d %g vs %g", doc.best, doc.over, doc.over_ns, mem.over_ns);
	/* a percentile the run did not name: from the document's histogram, as in memory */
	struct slo t = limits("p92.5=2ms");
	slo_pick_result(&t, &r, &mem);
	slo_pick_test(&t, &d.tests[0], &doc);
	CHECK(doc.best == mem.best && doc.over == mem.over && doc.over_ns == mem.over_ns && mem.over >= 0,
	      "p92.5 (not written): %d %d %g vs %d %d %g", doc.best, doc.over, doc.over_ns, mem.best, mem.over,
	      mem.over_ns);
	json_read_release(&d);
	free(text);
	r.slo = NULL;
	result_release(&r);
}

/* A model drive: every rate up to its limit passes. */
static int model(void *ctx, double rate, struct slo_probe *out)
{
	double limit = *(double *)ctx;
	*out = (struct slo_probe){ .rate = rate, .ops_per_s = rate, .meets = rate <= limit, .broken = -1 };
	return 0;
}

static void test_bisect(void)
{
	double limit = 37123;
	struct slo_search s = { .lo = 10000, .hi = 80000 };

	CHECK(slo_bisect(&s, SLO_SEARCH_PROBES, model, &limit, NULL) == 0, "runs");
	CHECK(s.ran && s.at_limit <= limit && s.at_limit >= limit * 0.98,
	      "the rate found (%g) is within 2%% below the limit %g", s.at_limit, limit);
	CHECK(s.n <= SLO_SEARCH_PROBES && s.p[0].rate == 45000, "first probe halfway: %g", s.p[0].rate);
	for (unsigned i = 0; i < s.n; i++)
		CHECK(s.p[i].meets == (s.p[i].rate <= limit), "probe %u judged", i);

	struct slo_search two = { .lo = 0, .hi = 80000 };
	slo_bisect(&two, 2, model, &limit, NULL);
	CHECK(two.n == 2 && two.p[0].rate == 40000 && two.p[1].rate == 20000 && two.at_limit == 20000,
	      "at most N probes: %u, %g %g -> %g", two.n, two.p[0].rate, two.p[1].rate, two.at_limit);
	double none = 0;
	struct slo_search z = { .lo = 0, .hi = 1000 };
	slo_bisect(&z, SLO_SEARCH_PROBES, model, &none, NULL);
	CHECK(z.at_limit == 0, "nothing passes: 0 (%g)", z.at_limit);
}

int main(void)
{
	RUN(test_parse);
	RUN(test_parse_bad);
	RUN(test_pick_documents);
	RUN(test_pick_result);
	RUN(test_pick_p95);
	RUN(test_p95_round_trip);
	RUN(test_bisect);
	return check_done();
}
