/*
 * test_compare.c - rankings and differences from the best (against figures
 * worked out by hand), the union of tests and points, and the refusal of
 * results with different workload options, on documents read back through
 * json_read.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "compare.h"
#include "json_read.h"

static void test_rank_higher_better(void)
{
	double v[] = { 100, 200, 150 }, diff[3];
	unsigned rank[3];

	compare_rank(v, 3, false, rank, diff);
	CHECK(rank[0] == 3 && rank[1] == 1 && rank[2] == 2, "ranks %u %u %u", rank[0], rank[1], rank[2]);
	CHECK(diff[0] == -50 && diff[1] == 0 && diff[2] == -25, "diffs %g %g %g", diff[0], diff[1], diff[2]);
}

static void test_rank_lower_better_missing(void)
{
	double v[] = { 2e6, 1e6, NAN, 1.5e6 }, diff[4];
	unsigned rank[4];

	compare_rank(v, 4, true, rank, diff);
	CHECK(rank[0] == 3 && rank[1] == 1 && rank[2] == 0 && rank[3] == 2,
	      "ranks %u %u %u %u", rank[0], rank[1], rank[2], rank[3]);
	CHECK(diff[0] == 100 && diff[3] == 50 && isnan(diff[2]), "diffs %g %g %g", diff[0], diff[3], diff[2]);
}

static void test_rank_ties_and_zero(void)
{
	double v[] = { 5, 5, 3 }, z[] = { 0, 4 }, diff[3];
	unsigned rank[3];

	compare_rank(v, 3, false, rank, diff);
	CHECK(rank[0] == 1 && rank[1] == 1 && rank[2] == 3, "ties share rank 1: %u %u %u", rank[0], rank[1], rank[2]);
	compare_rank(z, 2, true, rank, diff);
	CHECK(rank[0] == 1 && rank[1] == 2 && isnan(diff[1]), "a best of 0 has no percentage (%g)", diff[1]);
}

/* A one-point run result of @preset with transfer size @bs at @iops. */
static void write_run(const char *path, const char *preset, const char *bs, const char *size, double iops,
		      const char *engine)
{
	FILE *f = fopen(path, "w");
	fprintf(f, "{\"appio_version\": \"0.1.0\", \"format_version\": 1, \"interrupted\": false,\n"
		" \"target\": {\"path\": \"x\", \"kind\": \"file\", \"size\": 1},\n"
		" \"workload\": {\"name\": \"profile\", \"preset\": \"%s\", \"engine\": \"%s\",\n"
		"   \"options\": {\"bs\": \"%s\", \"size\": \"%s\", \"target\": \"%s\", \"threads\": \"2\"}},\n"
		" \"points\": [{\"threads\": 2, \"qd\": 4, \"time_s\": 1, \"partial\": false, \"headline\": \"total\",\n"
		"   \"classes\": {\"total\": {\"ops\": 10, \"ops_per_s\": %g, \"bytes\": 40960, \"mb_per_s\": 1,\n"
		"     \"lat_ns\": {\"mean\": 1000, \"stddev\": 1, \"p99\": 2000, \"max\": 3000}}}}]}\n",
		preset, engine, bs, size, path, iops);
	fclose(f);
}

static void load(struct json_read_doc *d, const char *path)
{
	char err[256];
	int rc = json_read_load(d, path, err, sizeof(err));
	CHECK(rc == 0, "load %s: %s", path, err);
}

static void test_check_options(void)
{
	char a[] = "/tmp/appio-cmp-a-XXXXXX", b[] = "/tmp/appio-cmp-b-XXXXXX", c[] = "/tmp/appio-cmp-c-XXXXXX";
	struct json_read_doc d[2];
	char err[512] = "";

	close(mkstemp(a));
	close(mkstemp(b));
	close(mkstemp(c));
	write_run(a, "4k-randread", "4k", "1G", 1000, "libaio");
	write_run(b, "4k-randread", "4k", "64G", 2000, "libaio");       /* size and path: where, not what */
	write_run(c, "4k-randread", "8k", "1G", 2000, "libaio");
	load(&d[0], a);
	load(&d[1], b);
	CHECK(d[0].ntests == 1 && !strcmp(d[0].tests[0].name, "sweep 4k-randread"),
	      "a run is named as the suite names its sweep: '%s'", d[0].ntests ? d[0].tests[0].name : "");
	CHECK(compare_check(d, 2, err, sizeof(err)) == 0, "same options compare: %s", err);
	json_read_release(&d[1]);
	load(&d[1], c);
	CHECK(compare_check(d, 2, err, sizeof(err)) == -EINVAL && strstr(err, "'bs'") && strstr(err, "'8k'"),
	      "a different bs is refused by name: %s", err);
	json_read_release(&d[1]);
	write_run(c, "4k-randread", "4k", "1G", 2000, "io_uring");
	load(&d[1], c);
	CHECK(compare_check(d, 2, err, sizeof(err)) == -EINVAL && strstr(err, "'engine'"),
	      "a different engine is refused: %s", err);
	json_read_release(&d[0]);
	json_read_release(&d[1]);
	unlink(a);
	unlink(b);
	unlink(c);
}

static void test_union_of_tests_and_points(void)
{
	char a[] = "/tmp/appio-cmp-a-XXXXXX", b[] = "/tmp/appio-cmp-b-XXXXXX";
	struct json_read_doc d[2];
	const char **names;

	close(mkstemp(a));
	close(mkstemp(b));
	write_run(a, "4k-randread", "4k", "1G", 1000, "libaio");
	write_run(b, "8k-70-30", "8k", "1G", 2000, "libaio");
	load(&d[0], a);
	load(&d[1], b);
	unsigned n = compare_tests(d, 2, &names);
	CHECK(n == 2 && !strcmp(names[0], "sweep 4k-randread") && !strcmp(names[1], "sweep 8k-70-30"),
	      "both tests, in order (%u)", n);
	CHECK(json_read_find(&d[1], names[0]) == NULL, "the first is missing in the second drive");
	free(names);
	CHECK(d[0].tests[0].npts == 1 && !strcmp(d[0].tests[0].pts[0].key, "2T/4Q") &&
	      d[0].tests[0].pts[0].m[JR_OPS] == 1000, "point 2T/4Q at 1000 IOPS");
	json_read_labels(d, 2);
	CHECK(strcmp(d[0].label, d[1].label), "labels differ: %s %s", d[0].label, d[1].label);
	json_read_release(&d[0]);
	json_read_release(&d[1]);
	unlink(a);
	unlink(b);
}

static void test_not_a_result(void)
{
	char a[] = "/tmp/appio-cmp-a-XXXXXX", err[256];
	struct json_read_doc d;
	FILE *f;

	close(mkstemp(a));
	f = fopen(a, "w");
	fputs("{\"hello\": 1}", f);
	fclose(f);
	CHECK(json_read_load(&d, a, err, sizeof(err)) == -EINVAL && strstr(err, "not an appio result"), "%s", err);
	json_read_release(&d);
	f = fopen(a, "w");
	fputs("{\"points\": [", f);
	fclose(f);
	CHECK(json_read_load(&d, a, err, sizeof(err)) == -EINVAL && strstr(err, a), "broken JSON: %s", err);
	json_read_release(&d);
	unlink(a);
}

/* A run with a two-round steady-state precondition; @steady, @point and @opts are spliced in. */
static int load_text(struct json_read_doc *d, const char *steady, const char *point, const char *opts,
		     char *err, size_t errlen)
{
	char doc[2048];

	snprintf(doc, sizeof(doc),
		 "{\"appio_version\": \"0.1.0\", \"format_version\": 1,\n"
		 " \"workload\": {\"name\": \"nosql\", \"engine\": \"null\", \"options\": {%s}},\n"
		 " \"precondition\": {\"steady_state\": {\"reached\": true, %s},\n"
		 "   \"rounds\": [{\"classes\": {\"total\": {\"ops\": 10, \"lat_ns\": {\"mean\": 5, \"max\": 9}}}},\n"
		 "              {\"classes\": {\"total\": {\"ops\": 30, \"lat_ns\": {\"mean\": 1, \"max\": 7}}}}]},\n"
		 " \"points\": [{%s, \"classes\": {\"total\": {\"ops_per_s\": 5}}}]}\n", opts, steady, point);
	return json_read_loadb(d, "doc.json", doc, strlen(doc), err, errlen);
}

static void test_impossible_numbers(void)
{
	static const char good_steady[] = "\"round\": 2, \"rounds_run\": 2, \"window\": {\"first\": 1, \"last\": 2}";
	static const struct { const char *steady, *point, *opts, *key; } bad[] = {
		{ "\"round\": 2, \"rounds_run\": 2, \"window\": {\"first\": -1, \"last\": 2}", NULL, NULL, "window.first" },
		{ "\"round\": 2, \"rounds_run\": 2, \"window\": {\"first\": 1, \"last\": 1e300}", NULL, NULL, "window.last" },
		{ "\"round\": 2, \"rounds_run\": 2, \"window\": {\"first\": 2, \"last\": 1}", NULL, NULL, "window.last" },
		{ "\"round\": 2, \"rounds_run\": 4294967296, \"window\": {\"first\": 1, \"last\": 2}", NULL, NULL, "rounds_run" },
		{ "\"round\": 1.5, \"rounds_run\": 2, \"window\": {\"first\": 1, \"last\": 2}", NULL, NULL, "round" },
		{ "\"round\": \"2\", \"rounds_run\": 2, \"window\": {\"first\": 1, \"last\": 2}", NULL, NULL, "round" },
		{ NULL, "\"threads\": -4, \"qd\": 1", NULL, "threads" },
		{ NULL, "\"threads\": 4, \"qd\": 1e20", NULL, "qd" },
		{ NULL, "\"threads\": 4, \"qd\": 1, \"write_pct\": 150", NULL, "write_pct" },
		{ NULL, "\"threads\": 4, \"qd\": 1, \"series\": [{\"classes\": {}}, {\"classes\": {\"c0\": {}, \"c1\": {}, \"c2\": {}, \"c3\": {}, \"c4\": {}, \"c5\": {}, \"c6\": {}, \"c7\": {}, \"c8\": {}, \"c9\": {}, \"c10\": {}, \"c11\": {}, \"c12\": {}, \"c13\": {}, \"c14\": {}, \"c15\": {}, \"c16\": {}, \"c17\": {}}}]", NULL,
		  "points[0].series[1].classes" },
		{ NULL, NULL, "\"intervals\": \"99999999999\"", "intervals" },
		{ NULL, NULL, "\"intervals\": \"-1\"", "intervals" },
		{ NULL, NULL, "\"intervals\": 6", "intervals" },
		{ NULL, NULL, "\"bs\": 4096", "workload.options.bs" },
		{ NULL, NULL, "\"b\\ns\": null", "workload.options.b?s" },
	};
	struct json_read_doc d;
	char err[512];

	CHECK(load_text(&d, good_steady, "\"threads\": 4, \"qd\": 1", "\"intervals\": \"6\"", err, sizeof(err)) == 0,
	      "a sound document: %s", err);
	CHECK(d.ntests == 2 && d.tests[0].kind == JR_PRECOND && d.tests[0].steady_round == 2 &&
	      d.tests[0].pts[0].m[JR_MEAN] == 2 && d.tests[0].pts[0].m[JR_MAX] == 9 && d.tests[1].intervals == 6,
	      "read back: %u tests", d.ntests);
	json_read_release(&d);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int rc = load_text(&d, bad[i].steady ? bad[i].steady : good_steady,
				   bad[i].point ? bad[i].point : "\"threads\": 4, \"qd\": 1",
				   bad[i].opts ? bad[i].opts : "", err, sizeof(err));
		CHECK(rc == -EINVAL && strstr(err, bad[i].key) && strstr(err, "doc.json") && !strchr(err, '\n'),
		      "%s: rc %d, '%s'", bad[i].key, rc, rc ? err : "");
		CHECK(d.ntests == 0 && !d.root, "nothing held after a failure");
	}
}

int main(void)
{
	RUN(test_rank_higher_better);
	RUN(test_rank_lower_better_missing);
	RUN(test_rank_ties_and_zero);
	RUN(test_check_options);
	RUN(test_union_of_tests_and_points);
	RUN(test_not_a_result);
	RUN(test_impossible_numbers);
	return check_done();
}
