/*
 * test_opt.c - the option parsers, opt_set/opt_format round trips, error
 * messages, defaults and --help, against a table with one row of every type.
 */
#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "appio/opt.h"
#include "check.h"

struct topts {
	bool flag;
	uint64_t count;
	uint64_t size;
	unsigned pct;
	double rate;
	const char *name;
	int engine;
	struct opt_ulist qd;
	struct opt_ulist sizes;
	struct opt_split bs;
	struct opt_dist dist;
};

static const char *const engines[] = { "sync", "libaio", "io_uring", "null", NULL };

static const struct opt_def tab[] = {
	{ "flag", OPT_BOOL, offsetof(struct topts, flag), "0", "a switch" },
	{ "threads", OPT_UINT, offsetof(struct topts, count), "1", "workers",
	  .min = 1, .max = 4096 },
	{ "size", OPT_SIZE, offsetof(struct topts, size), "1G", "bytes to touch" },
	{ "rwmix", OPT_PCT, offsetof(struct topts, pct), "70", "reads in percent" },
	{ "rate", OPT_DOUBLE, offsetof(struct topts, rate), "0.5", "a ratio" },
	{ "name", OPT_STR, offsetof(struct topts, name), NULL, "a label" },
	{ "engine", OPT_ENUM, offsetof(struct topts, engine), "sync", "I/O engine",
	  .choices = engines },
	{ "qd", OPT_ULIST, offsetof(struct topts, qd), "1,4,16", "queue depths",
	  .min = 1, .max = 4096 },
	{ "sizes", OPT_SIZELIST, offsetof(struct topts, sizes), "4k,1M", "sizes",
	  .min = 512, .max = 1 << 20 },
	{ "bs", OPT_SPLIT, offsetof(struct topts, bs), "4k", "block sizes" },
	{ "dist", OPT_DIST, offsetof(struct topts, dist), "zipf:1.2", "offsets" },
	OPT_END,
};

static void size_ok(const char *s, uint64_t want)
{
	uint64_t v = 0;
	int rc = parse_size(s, &v);
	CHECK(rc == 0 && v == want, "'%s': rc %d value %llu, want %llu", s, rc,
	      (unsigned long long)v, (unsigned long long)want);
}

static void size_bad(const char *s, int want)
{
	uint64_t v = 12345;
	int rc = parse_size(s, &v);
	CHECK(rc == want && v == 12345, "'%s': rc %d (want %d), value %llu", s, rc, want,
	      (unsigned long long)v);
}

static void test_parse_size(void)
{
	size_ok("0", 0);
	size_ok("4096", 4096);
	size_ok("4k", 4096);
	size_ok("4K", 4096);
	size_ok("4KiB", 4096);
	size_ok("4kb", 4096);
	size_ok("4kB", 4096);
	size_ok("1M", 1 << 20);
	size_ok("1MiB", 1 << 20);
	size_ok("1m", 1 << 20);
	size_ok("2G", UINT64_C(2) << 30);
	size_ok("1T", UINT64_C(1) << 40);
	size_ok("1.5M", 1572864);
	size_ok("0.5k", 512);
	size_ok("1.25k", 1280);
	size_ok("1.500000k", 1536);
	size_ok("0.0009765625M", 1024);         /* 2^-10 M: ten fraction digits */
	size_ok("007", 7);
	size_ok("16777215T", UINT64_C(16777215) << 40);
	size_ok("18446744073709551615", UINT64_MAX);

	size_bad("", -EINVAL);
	size_bad("-1", -EINVAL);
	size_bad("+1", -EINVAL);
	size_bad("12Q", -EINVAL);
	size_bad("4kk", -EINVAL);
	size_bad(" 4k", -EINVAL);
	size_bad("4k ", -EINVAL);
	size_bad("4 k", -EINVAL);
	size_bad("0x10", -EINVAL);
	size_bad("512b", -EINVAL);              /* plain numbers are bytes already */
	size_bad("k", -EINVAL);
	size_bad("1.5", -EINVAL);               /* fractions need a unit */
	size_bad("1.k", -EINVAL);
	size_bad(".5k", -EINVAL);
	size_bad("1.0001k", -EINVAL);           /* not a whole number of bytes */
	size_bad("4kiBB", -EINVAL);
	size_bad("4ib", -EINVAL);
	size_bad("1P", -EINVAL);
	size_bad("18446744073709551616", -ERANGE);
	size_bad("16777216T", -ERANGE);
	size_bad("99999999999999999999999T", -ERANGE);
	CHECK(parse_size(NULL, &(uint64_t){ 0 }) == -EINVAL, "NULL accepted");
}

static void test_parse_uint(void)
{
	uint64_t v;

	CHECK(parse_uint("0", &v) == 0 && v == 0, "0");
	CHECK(parse_uint("4096", &v) == 0 && v == 4096, "4096");
	CHECK(parse_uint("18446744073709551615", &v) == 0 && v == UINT64_MAX, "max");
	CHECK(parse_uint("18446744073709551616", &v) == -ERANGE, "max + 1");
	CHECK(parse_uint("4k", &v) == -EINVAL, "4k is not a plain number");
	CHECK(parse_uint("-1", &v) == -EINVAL, "-1");
	CHECK(parse_uint("+1", &v) == -EINVAL, "+1");
	CHECK(parse_uint("", &v) == -EINVAL, "empty");
	CHECK(parse_uint(" 1", &v) == -EINVAL, "leading space");
	CHECK(parse_uint("0x10", &v) == -EINVAL, "hex");
}

static void test_parse_ulist(void)
{
	struct opt_ulist l;
	char big[OPT_LIST_MAX * 3 + 8] = "";

	CHECK(parse_ulist("1", false, &l) == 0 && l.n == 1 && l.v[0] == 1, "single");
	CHECK(parse_ulist("2,4,8,16,32", false, &l) == 0 && l.n == 5 &&
	      l.v[0] == 2 && l.v[4] == 32, "five");
	CHECK(parse_ulist("4k,1M", true, &l) == 0 && l.n == 2 &&
	      l.v[0] == 4096 && l.v[1] == 1 << 20, "sizes");
	CHECK(parse_ulist("4k", false, &l) == -EINVAL, "size in a number list");
	CHECK(parse_ulist("", false, &l) == -EINVAL, "empty");
	CHECK(parse_ulist("1,,2", false, &l) == -EINVAL, "empty element");
	CHECK(parse_ulist("1,", false, &l) == -EINVAL, "trailing comma");
	CHECK(parse_ulist(",1", false, &l) == -EINVAL, "leading comma");
	CHECK(parse_ulist("1, 2", false, &l) == -EINVAL, "space");
	CHECK(parse_ulist("1-4", false, &l) == -EINVAL, "ranges are not supported");
	CHECK(parse_ulist("1,99999999999999999999", false, &l) == -ERANGE, "overflow");

	for (int i = 0; i < OPT_LIST_MAX; i++)
		strcat(big, i ? ",1" : "1");
	CHECK(parse_ulist(big, false, &l) == 0 && l.n == OPT_LIST_MAX, "exactly the maximum");
	strcat(big, ",1");
	CHECK(parse_ulist(big, false, &l) == -EINVAL, "one over the maximum");
}

static void test_parse_split(void)
{
	/* the fileserver mix */
	static const char *fs = "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10";
	struct opt_split sp;
	unsigned sum = 0;
	double mean = 0;

	CHECK(parse_split("4k", &sp) == 0 && sp.n == 1 && sp.bs[0] == 4096 &&
	      sp.pct[0] == 100, "single size");
	CHECK(parse_split("4k/100", &sp) == 0 && sp.n == 1, "single pair");
	CHECK(parse_split("512/10:1k/5:4k/85", &sp) == 0 && sp.n == 3 &&
	      sp.bs[1] == 1024 && sp.pct[2] == 85, "three pairs");
	CHECK(parse_split(fs, &sp) == 0 && sp.n == 8, "fileserver: %u entries", sp.n);
	for (unsigned i = 0; i < sp.n; i++) {
		sum += sp.pct[i];
		mean += sp.bs[i] * sp.pct[i] / 100.0;
	}
	CHECK(sum == 100, "fileserver weights sum to %u", sum);
	/* 51.2 + 51.2 + 102.4 + 2457.6 + 163.84 + 655.36 + 1310.72 + 6553.6 */
	CHECK(fabs(mean - 11345.92) < 1e-6, "fileserver mean %.3f, want 11345.92", mean);

	CHECK(parse_split("512/10:4k/85", &sp) == -EINVAL, "sum 95");
	CHECK(parse_split("512/10:4k/91", &sp) == -EINVAL, "sum 101");
	CHECK(parse_split("4k/50", &sp) == -EINVAL, "single pair not 100");
	CHECK(parse_split("4k/50:4096/50", &sp) == -EINVAL, "duplicate size");
	CHECK(parse_split("0/100", &sp) == -EINVAL, "size 0");
	CHECK(parse_split("4k/0:8k/100", &sp) == -EINVAL, "weight 0");
	CHECK(parse_split("4k/101", &sp) == -EINVAL, "weight 101");
	CHECK(parse_split("4k/18446744073709551716", &sp) == -EINVAL, "weight overflows to 100");
	CHECK(parse_split("4k/x", &sp) == -EINVAL, "weight x");
	CHECK(parse_split("4k/", &sp) == -EINVAL, "empty weight");
	CHECK(parse_split("/100", &sp) == -EINVAL, "empty size");
	CHECK(parse_split("4k/50/50", &sp) == -EINVAL, "two slashes");
	CHECK(parse_split("4k/50:8k", &sp) == -EINVAL, "missing weight");
	CHECK(parse_split("4k/5.5:8k/94.5", &sp) == -EINVAL, "fractional weight");
	CHECK(parse_split("4k/50:", &sp) == -EINVAL, "trailing colon");
	CHECK(parse_split("", &sp) == -EINVAL, "empty");
	CHECK(parse_split("4G/100", &sp) == -ERANGE, "4G does not fit in 32 bits");
	CHECK(parse_split("12Q/100", &sp) == -EINVAL, "bad size");
}

/* @n distinct sizes whose weights sum to 100 (n between 25 and 100). */
static void build_split(char *s, int n)
{
	int big = 100 - 3 * n;          /* that many weights of 4, the rest 3 */

	s[0] = '\0';
	for (int i = 0; i < n; i++)
		sprintf(s + strlen(s), "%s%dk/%d", i ? ":" : "", i + 1, i < big ? 4 : 3);
}

static void test_parse_split_max(void)
{
	char s[OPT_SPLIT_MAX * 16];
	struct opt_split sp;

	build_split(s, OPT_SPLIT_MAX);
	CHECK(parse_split(s, &sp) == 0 && sp.n == OPT_SPLIT_MAX, "%d entries: '%s'",
	      OPT_SPLIT_MAX, s);
	build_split(s, OPT_SPLIT_MAX + 1);
	CHECK(parse_split(s, &sp) == -EINVAL, "%d entries accepted", OPT_SPLIT_MAX + 1);
}

static void test_parse_dist(void)
{
	struct opt_dist d;

	CHECK(parse_dist("uniform", &d) == 0 && d.kind == DIST_UNIFORM, "uniform");
	CHECK(parse_dist("zipf:1.2", &d) == 0 && d.kind == DIST_ZIPF && d.param == 1.2, "zipf");
	CHECK(parse_dist("zipf:0.8", &d) == 0 && d.param == 0.8, "zipf below 1");
	CHECK(parse_dist("pareto:0.9", &d) == 0 && d.kind == DIST_PARETO && d.param == 0.9,
	      "pareto");
	CHECK(parse_dist("normal:10", &d) == 0 && d.kind == DIST_NORMAL && d.param == 10,
	      "normal");
	CHECK(parse_dist("normal:100", &d) == 0, "normal 100");

	static const char *const bad[] = {
		"", "foo", "uniform:1", "zipf", "zipf:", "zipf:0", "zipf:1", "zipf:-1",
		"zipf:x", "zipf:1.2x", "zipf: 1.2", "zipf:nan", "zipf:inf", "pareto:0",
		"pareto:1", "pareto:1.5", "normal:0", "normal:-5", "normal:101", "Zipf:1.2",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(parse_dist(bad[i], &d) == -EINVAL, "'%s' accepted", bad[i]);
}

static void test_fmt_size(void)
{
	static const struct { uint64_t v; const char *s; } cases[] = {
		{ 0, "0" }, { 1, "1" }, { 512, "512" }, { 1536, "1536" }, { 4096, "4k" },
		{ 1048576, "1M" }, { 3221225472u, "3G" }, { UINT64_C(1) << 40, "1T" },
		{ UINT64_C(1) << 50, "1024T" }, { 1025 * 1024, "1025k" },
	};
	char buf[32];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fmt_size(cases[i].v, buf, sizeof(buf));
		CHECK(!strcmp(buf, cases[i].s), "%llu -> '%s', want '%s'",
		      (unsigned long long)cases[i].v, buf, cases[i].s);
	}

	/* every value reads back, including ones that need no unit */
	uint64_t x = 0x243f6a8885a308d3u;
	for (int i = 0; i < 10000; i++) {
		x = x * 6364136223846793005u + 1442695040888963407u;
		uint64_t v = x >> (i % 64);
		v &= ~((UINT64_C(1) << (i % 43)) - 1);  /* many trailing zeros too */
		uint64_t back = 0;
		fmt_size(v, buf, sizeof(buf));
		CHECK(parse_size(buf, &back) == 0 && back == v, "%llu -> '%s' -> %llu",
		      (unsigned long long)v, buf, (unsigned long long)back);
	}
}

static void set_ok(struct topts *t, const char *name, const char *val)
{
	char err[512] = "";
	int rc = opt_set(opt_find(tab, name), t, val, err, sizeof(err));
	CHECK(rc == 0, "--%s '%s': %s", name, val ? val : "(null)", err);
}

/*
 * Format @name, parse that text into @back, format again: same text. @text
 * must outlive @back, whose OPT_STR field points into it.
 */
static void round_trip(const struct topts *t, const char *name, struct topts *back,
		       char *text, size_t len)
{
	const struct opt_def *o = opt_find(tab, name);
	char again[1024], err[512] = "";

	opt_format(o, t, text, len);
	int rc = opt_set(o, back, text, err, sizeof(err));
	CHECK(rc == 0, "--%s: '%s' does not parse: %s", name, text, err);
	opt_format(o, back, again, sizeof(again));
	CHECK(!strcmp(text, again), "--%s: '%s' came back as '%s'", name, text, again);
}

static bool same_list(const struct opt_ulist *a, const struct opt_ulist *b)
{
	return a->n == b->n && !memcmp(a->v, b->v, a->n * sizeof(a->v[0]));
}

static bool same_split(const struct opt_split *a, const struct opt_split *b)
{
	return a->n == b->n && !memcmp(a->bs, b->bs, a->n * sizeof(a->bs[0])) &&
	       !memcmp(a->pct, b->pct, a->n * sizeof(a->pct[0]));
}

/* Every field of @a equals @b, compared by value, not by padding bytes. */
static void check_same(const struct topts *a, const struct topts *b, const char *what)
{
	CHECK(a->flag == b->flag, "%s: flag", what);
	CHECK(a->count == b->count, "%s: count", what);
	CHECK(a->size == b->size, "%s: size", what);
	CHECK(a->pct == b->pct, "%s: pct", what);
	CHECK(a->rate == b->rate, "%s: rate %.17g vs %.17g", what, a->rate, b->rate);
	CHECK((!a->name && !b->name) || (a->name && b->name && !strcmp(a->name, b->name)),
	      "%s: name", what);
	CHECK(a->engine == b->engine, "%s: engine", what);
	CHECK(same_list(&a->qd, &b->qd), "%s: qd", what);
	CHECK(same_list(&a->sizes, &b->sizes), "%s: sizes", what);
	CHECK(same_split(&a->bs, &b->bs), "%s: bs", what);
	CHECK(a->dist.kind == b->dist.kind && a->dist.param == b->dist.param, "%s: dist", what);
}

static void round_trip_all(const struct topts *t, const char *what)
{
	static char texts[16][1024];
	struct topts back;

	memset(&back, 0, sizeof(back));
	back.name = "";
	for (int i = 0; tab[i].name; i++)
		round_trip(t, tab[i].name, &back, texts[i], sizeof(texts[i]));
	check_same(t, &back, what);
}

static void test_round_trip(void)
{
	static const char *const cases[][11] = {
		{ "1", "1", "4096", "0", "0.1", "db", "sync", "1", "512", "4k", "uniform" },
		{ "off", "4096", "1.5M", "100", "0.333333333333333314829616256247", "",
		  "null", "1,2,4,8,16,32", "4k,64k,1M", "512/10:1k/5:2k/5:4k/60:8k/2:16k/4:32k/4:64k/10",
		  "zipf:1.2" },
		{ "yes", "17", "18446744073709551615", "55", "1e300", "x y", "io_uring",
		  "4096,1", "512,1536", "1536/50:3G/50", "pareto:0.9" },
		{ NULL, "4000", "0", "1", "-2.5e-300", "a", "libaio", "7", "1M",
		  "4k/99:8k/1", "normal:12.345678901" },
	};
	struct topts t;

	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		memset(&t, 0, sizeof(t));
		for (int i = 0; tab[i].name; i++)
			set_ok(&t, tab[i].name, cases[c][i]);
		round_trip_all(&t, cases[c][4]);
	}
}

static void test_format(void)
{
	struct topts t;
	char buf[256];

	memset(&t, 0, sizeof(t));
	set_ok(&t, "bs", "512/10:1k/5:4k/85");
	CHECK(!strcmp(opt_format(opt_find(tab, "bs"), &t, buf, sizeof(buf)), "512/10:1k/5:4k/85"),
	      "split '%s'", buf);
	set_ok(&t, "bs", "4096/100");
	CHECK(!strcmp(opt_format(opt_find(tab, "bs"), &t, buf, sizeof(buf)), "4k"), "'%s'", buf);
	set_ok(&t, "sizes", "4096,1048576");
	CHECK(!strcmp(opt_format(opt_find(tab, "sizes"), &t, buf, sizeof(buf)), "4k,1M"),
	      "sizes '%s'", buf);
	set_ok(&t, "dist", "zipf:1.2");
	CHECK(!strcmp(opt_format(opt_find(tab, "dist"), &t, buf, sizeof(buf)), "zipf:1.2"),
	      "dist '%s'", buf);
	set_ok(&t, "rate", "0.1");
	CHECK(!strcmp(opt_format(opt_find(tab, "rate"), &t, buf, sizeof(buf)), "0.1"),
	      "double '%s'", buf);
	set_ok(&t, "flag", NULL);
	CHECK(!strcmp(opt_format(opt_find(tab, "flag"), &t, buf, sizeof(buf)), "1"),
	      "bool '%s'", buf);
	set_ok(&t, "engine", "io_uring");
	CHECK(!strcmp(opt_format(opt_find(tab, "engine"), &t, buf, sizeof(buf)), "io_uring"),
	      "enum '%s'", buf);
	t.name = NULL;
	CHECK(!strcmp(opt_format(opt_find(tab, "name"), &t, buf, sizeof(buf)), ""),
	      "NULL string '%s'", buf);
	/* a short buffer is truncated and terminated, never overrun */
	set_ok(&t, "qd", "1,2,4,8,16,32,64,128");
	opt_format(opt_find(tab, "qd"), &t, buf, 6);
	CHECK(!strcmp(buf, "1,2,4"), "truncated '%s'", buf);
}

static void test_bool(void)
{
	static const char *const yes[] = { "1", "yes", "on", "true", "YES", "True" };
	static const char *const no[] = { "0", "no", "off", "false", "OFF" };
	const struct opt_def *o = opt_find(tab, "flag");
	struct topts t;
	char err[256];

	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		t.flag = false;
		CHECK(opt_set(o, &t, yes[i], err, sizeof(err)) == 0 && t.flag, "'%s'", yes[i]);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		t.flag = true;
		CHECK(opt_set(o, &t, no[i], err, sizeof(err)) == 0 && !t.flag, "'%s'", no[i]);
	}
	CHECK(opt_set(o, &t, "maybe", err, sizeof(err)) == -EINVAL, "maybe accepted");
	CHECK(opt_set(o, &t, "", err, sizeof(err)) == -EINVAL, "empty accepted");
}

/* opt_set must fail, leave the field alone, and say @parts (all of them). */
static void set_bad(const char *name, const char *val, const char *const *parts)
{
	struct topts t, before;
	char err[512] = "";

	memset(&t, 0xa5, sizeof(t));
	before = t;
	int rc = opt_set(opt_find(tab, name), &t, val, err, sizeof(err));
	CHECK(rc == -EINVAL, "--%s '%s': rc %d", name, val ? val : "(null)", rc);
	CHECK(!memcmp(&t, &before, sizeof(t)), "--%s '%s' changed the struct", name,
	      val ? val : "(null)");
	CHECK(!strchr(err, '\n'), "message has a newline: %s", err);
	for (; *parts; parts++)
		CHECK(strstr(err, *parts), "--%s '%s': '%s' not in: %s", name,
		      val ? val : "(null)", *parts, err);
}

#define PARTS(...) ((const char *const[]){ __VA_ARGS__, NULL })

static void test_errors(void)
{
	set_bad("size", "12Q", PARTS("--size: invalid size '12Q' (expected a number with an "
				     "optional k, M, G or T suffix, e.g. 4k or 1G)"));
	set_bad("size", "99999999999T", PARTS("--size: ", "too large", "99999999999T"));
	set_bad("size", NULL, PARTS("--size: missing value"));
	set_bad("threads", "0", PARTS("--threads: '0' is out of range (expected 1 to 4096)"));
	set_bad("threads", "4097", PARTS("--threads: '4097' is out of range"));
	set_bad("threads", "two", PARTS("--threads: invalid number 'two'", "decimal"));
	set_bad("engine", "foo", PARTS("--engine: unknown value 'foo' (expected one of: sync, "
				       "libaio, io_uring, null)"));
	set_bad("bs", "512/10:4k/85", PARTS("--bs: weights sum to 95, not 100 (expected "
					    "SIZE/PCT pairs such as 512/10:4k/90)"));
	set_bad("bs", "4k/50:4096/50", PARTS("--bs: ", "'4k' appears twice"));
	set_bad("bs", "0/100", PARTS("--bs: ", "0"));
	set_bad("bs", "4k/0:8k/100", PARTS("--bs: ", "weight '0'"));
	set_bad("rwmix", "101", PARTS("--rwmix: '101' is out of range", "0 to 100"));
	set_bad("rwmix", "x", PARTS("--rwmix: ", "'x'", "percentage"));
	set_bad("rate", "fast", PARTS("--rate: invalid number 'fast'"));
	set_bad("rate", "1e999", PARTS("--rate: "));
	set_bad("flag", "maybe", PARTS("--flag: invalid value 'maybe'", "yes, no"));
	set_bad("qd", "1,,2", PARTS("--qd: ", "''", "comma-separated numbers"));
	set_bad("qd", "1,8192", PARTS("--qd: '8192' is out of range (expected 1 to 4096)"));
	set_bad("sizes", "4k,256", PARTS("--sizes: '256' is out of range (expected 512 to 1M)"));
	set_bad("sizes", "4k,2M", PARTS("--sizes: '2M' is out of range"));
	set_bad("dist", "zipf:1", PARTS("--dist: ", "zipf", "THETA"));
	set_bad("dist", "gauss", PARTS("--dist: unknown distribution 'gauss'", "normal:SIGMA"));
}

static void test_errlen(void)
{
	struct topts t;
	char err[8];

	memset(err, 'x', sizeof(err));
	CHECK(opt_set(opt_find(tab, "size"), &t, "12Q", err, 6) == -EINVAL, "accepted");
	CHECK(!strcmp(err, "--siz") && err[6] == 'x', "short buffer: '%.8s'", err);
	CHECK(opt_set(opt_find(tab, "size"), &t, "12Q", NULL, 0) == -EINVAL, "NULL err");
}

static void test_bounds(void)
{
	static const struct opt_def b[] = {
		{ "lo", OPT_UINT, offsetof(struct topts, count), NULL, "min only", .min = 2 },
		{ "any", OPT_SIZE, offsetof(struct topts, size), NULL, "unbounded" },
		OPT_END,
	};
	struct topts t;
	char err[256];

	CHECK(opt_set(&b[0], &t, "2", err, sizeof(err)) == 0 && t.count == 2, "min");
	CHECK(opt_set(&b[0], &t, "18446744073709551615", err, sizeof(err)) == 0, "max 0");
	CHECK(opt_set(&b[0], &t, "1", err, sizeof(err)) == -EINVAL, "below min");
	CHECK(strstr(err, "expected at least 2"), "%s", err);
	CHECK(opt_set(&b[1], &t, "0", err, sizeof(err)) == 0 && t.size == 0, "size 0");
	CHECK(opt_set(&b[1], &t, "16777215T", err, sizeof(err)) == 0, "huge size");
	CHECK(opt_set(&tab[1], &t, "4096", err, sizeof(err)) == 0 && t.count == 4096, "at max");
	CHECK(opt_set(&tab[8], &t, "512,1M", err, sizeof(err)) == 0, "list at bounds");
}

static void test_defaults(void)
{
	struct topts t;
	char err[256] = "";

	memset(&t, 0xa5, sizeof(t));
	CHECK(opt_defaults(tab, &t, err, sizeof(err)) == 0, "%s", err);
	CHECK(!t.flag && t.count == 1 && t.size == UINT64_C(1) << 30 && t.pct == 70, "scalars");
	CHECK(t.rate == 0.5 && t.name == NULL && t.engine == 0, "rate, name, engine");
	CHECK(t.qd.n == 3 && t.qd.v[2] == 16 && t.sizes.n == 2 && t.sizes.v[1] == 1 << 20,
	      "lists");
	CHECK(t.bs.n == 1 && t.bs.bs[0] == 4096 && t.bs.pct[0] == 100, "split");
	CHECK(t.dist.kind == DIST_ZIPF && t.dist.param == 1.2, "dist");

	static const struct opt_def broken[] = {
		{ "threads", OPT_UINT, offsetof(struct topts, count), "0", "workers", .min = 1 },
		OPT_END,
	};
	CHECK(opt_defaults(broken, &t, err, sizeof(err)) == -EINVAL, "broken default accepted");
	CHECK(strstr(err, "--threads") && strstr(err, "default"), "message: %s", err);
}

static void test_find(void)
{
	CHECK(opt_find(tab, "bs") == &tab[9], "bs");
	CHECK(opt_find(tab, "nope") == NULL, "nope");
	CHECK(opt_find(tab, "b") == NULL, "no prefix matching");
	CHECK(opt_find(tab, NULL) == NULL, "NULL");
}

static void test_help(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	opt_help(f, tab);
	fclose(f);
	CHECK(strstr(text, "  --size SIZE "), "size metavar:\n%s", text);
	CHECK(strstr(text, "  --threads N "), "uint metavar");
	CHECK(strstr(text, "  --rwmix PCT "), "pct metavar");
	CHECK(strstr(text, "  --qd LIST "), "list metavar");
	CHECK(strstr(text, "  --bs SPLIT "), "split metavar");
	CHECK(strstr(text, "  --dist DIST "), "dist metavar");
	CHECK(strstr(text, "  --engine sync|libaio|io_uring|null "), "enum metavar");
	CHECK(strstr(text, "  --flag  "), "bool has no metavar");
	CHECK(strstr(text, "bytes to touch (default: 1G)\n"), "default shown");
	CHECK(strstr(text, "a label\n"), "no default for NULL");

	/* one line per row, and the help texts start in one column */
	int lines = 0, col = -1;
	bool aligned = true;
	for (char *line = text; *line; lines++) {
		char *nl = strchr(line, '\n');
		char *h = strstr(line, "bytes to touch");
		if (!h)
			h = strstr(line, "workers");
		if (h && h < nl) {
			if (col >= 0 && col != h - line)
				aligned = false;
			col = (int)(h - line);
		}
		line = nl + 1;
	}
	CHECK(lines == 11, "%d lines", lines);
	CHECK(aligned, "help text not aligned:\n%s", text);
	free(text);
}

/* A second table for opt_parse(): an alias, a secret, a repeatable and a list that takes "none". */
struct topts2 {
	uint64_t table_size;
	const char *password;
	struct opt_strlist extra;
	struct opt_ulist sweep;
	bool quiet;
};

static const struct opt_def tab2[] = {
	{ "table-size", OPT_UINT, offsetof(struct topts2, table_size), "10", "rows",
	  .alias = "rows-per-table" },
	{ "password", OPT_STR, offsetof(struct topts2, password), NULL, "secret", .flags = OPT_SECRET },
	{ "extra-args", OPT_STRLIST, offsetof(struct topts2, extra), NULL, "more" },
	{ "sweep", OPT_ULIST, offsetof(struct topts2, sweep), "1,2", "points", .flags = OPT_NONE },
	{ "quiet", OPT_BOOL, offsetof(struct topts2, quiet), NULL, "hush" },
	OPT_END,
};

/* Parse the words of @line (space-separated, after a name) into fresh structs. */
static int parse_line(const char *line, struct topts *a, struct topts2 *b, struct opt_tab t[2],
		      bool *help, char *err, size_t errlen)
{
	static char buf[512];
	static char *words[32];
	char *save = NULL;
	int n = 0;

	memset(a, 0, sizeof(*a));
	memset(b, 0, sizeof(*b));
	CHECK(opt_defaults(tab, a, err, errlen) == 0 && opt_defaults(tab2, b, err, errlen) == 0, "%s", err);
	t[0] = (struct opt_tab){ .defs = tab, .dst = a };
	t[1] = (struct opt_tab){ .defs = tab2, .dst = b };
	snprintf(buf, sizeof(buf), "%s", line);
	words[n++] = "name";
	for (char *w = strtok_r(buf, " ", &save); w && n < 31; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	*help = false;
	err[0] = '\0';
	return opt_parse(t, 2, n, words, OPT_MARK_GIVEN, help, "appio x --help", err, errlen);
}

static void test_parse_argv(void)
{
	struct topts a;
	struct topts2 b;
	struct opt_tab t[2];
	char err[256];
	bool help;

	/* every spelling of a value, in both tables */
	CHECK(parse_line("--threads 8 --size=2G --table_size 7 --rwmix=10", &a, &b, t, &help, err,
			 sizeof(err)) == 0, "%s", err);
	CHECK(a.count == 8 && a.size == (UINT64_C(2) << 30) && b.table_size == 7 && a.pct == 10,
	      "values %llu %llu %llu %u", (unsigned long long)a.count, (unsigned long long)a.size,
	      (unsigned long long)b.table_size, a.pct);
	CHECK(opt_parse(t, 2, 2, (char *[]){ "n", "--table-size=9" }, 0, &help, "x", err, sizeof(err)) == 0 &&
	      b.table_size == 9, "--table-size=9");
	CHECK(parse_line("--rows_per_table 5", &a, &b, t, &help, err, sizeof(err)) == 0 && b.table_size == 5,
	      "alias with '_': %s", err);
	/* bare booleans, and a following bool word taken as their value */
	CHECK(parse_line("--flag --quiet", &a, &b, t, &help, err, sizeof(err)) == 0 && a.flag && b.quiet,
	      "bare flags");
	CHECK(parse_line("--flag off --quiet yes --threads 2", &a, &b, t, &help, err, sizeof(err)) == 0 &&
	      !a.flag && b.quiet && a.count == 2, "flag off, quiet yes");
	CHECK(parse_line("--flag=no --quiet TRUE", &a, &b, t, &help, err, sizeof(err)) == 0 &&
	      !a.flag && b.quiet, "--flag=no, quiet TRUE");
	CHECK(parse_line("--flag 0", &a, &b, t, &help, err, sizeof(err)) == 0 && !a.flag, "--flag 0");
	/* a word that is not a bool word is not the flag's value */
	CHECK(parse_line("--flag extra", &a, &b, t, &help, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "unexpected argument 'extra'") && a.flag, "'%s'", err);
	/* the given record: what the parse set, by table and row */
	CHECK(parse_line("--threads 4 --rows-per-table 3", &a, &b, t, &help, err, sizeof(err)) == 0, "%s", err);
	CHECK(opt_given(&t[0], "threads") && opt_given(&t[1], "table-size") && opt_given(&t[1], "table_size") &&
	      !opt_given(&t[0], "size") && !opt_given(&t[1], "quiet") && !opt_given(&t[0], "nosuch"),
	      "given %llx %llx", (unsigned long long)t[0].given, (unsigned long long)t[1].given);
	CHECK(opt_parse(t, 2, 3, (char *[]){ "n", "--size", "1M" }, 0, &help, "x", err, sizeof(err)) == 0 &&
	      !opt_given(&t[0], "size") && a.size == (1 << 20), "an unmarked parse records nothing");
	/* the first table with the name wins */
	CHECK(opt_find(tab2, "threads") == NULL && parse_line("--threads 3", &a, &b, t, &help, err,
							       sizeof(err)) == 0 && a.count == 3, "threads");
	/* repeatable text keeps every value; "none" empties a list that allows it */
	CHECK(parse_line("--extra-args a --extra_args=b --sweep none", &a, &b, t, &help, err, sizeof(err)) == 0 &&
	      b.extra.n == 2 && !strcmp(b.extra.v[0], "a") && !strcmp(b.extra.v[1], "b") && b.sweep.n == 0,
	      "strlist %u, sweep %u: %s", b.extra.n, b.sweep.n, err);
	CHECK(parse_line("--qd none", &a, &b, t, &help, err, sizeof(err)) == -EINVAL && strstr(err, "--qd"),
	      "'none' only where a row allows it: '%s'", err);
	/* --help and -h stop the parse */
	CHECK(parse_line("--threads 2 --help --bogus", &a, &b, t, &help, err, sizeof(err)) == 0 && help,
	      "--help");
	CHECK(parse_line("-h", &a, &b, t, &help, err, sizeof(err)) == 0 && help, "-h");
	/* errors name the option and where help is */
	CHECK(parse_line("--bogus 1", &a, &b, t, &help, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "unknown option '--bogus'") && strstr(err, "appio x --help"), "'%s'", err);
	CHECK(parse_line("--threads", &a, &b, t, &help, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "--threads needs a value"), "'%s'", err);
	CHECK(parse_line("--threads 0", &a, &b, t, &help, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "--threads: ") && strstr(err, "out of range"), "'%s'", err);
	CHECK(parse_line("--table-size x", &a, &b, t, &help, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "--table-size: invalid number 'x'"), "'%s'", err);
	CHECK(parse_line("-x", &a, &b, t, &help, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "unexpected argument '-x'"), "'%s'", err);
}

/* A secret is never shown: not by opt_format, not as a default in help. */
static void test_secret(void)
{
	struct topts2 b = { .password = "hunter2" };
	char buf[64], *text = NULL;
	size_t len;

	opt_format(opt_find(tab2, "password"), &b, buf, sizeof(buf));
	CHECK(!strstr(buf, "hunter2"), "formatted '%s'", buf);
	FILE *f = open_memstream(&text, &len);
	opt_help(f, tab2);
	fclose(f);
	CHECK(strstr(text, "--table-size N") && strstr(text, "(also --rows-per-table)"), "help '%s'", text);
	CHECK(opt_is_bool_word("off") && opt_is_bool_word("1") && !opt_is_bool_word("2") &&
	      !opt_is_bool_word(NULL), "bool words");
	free(text);
}

static bool is_pw(const char *name, size_t len)
{
	return len == 8 && !strncmp(name, "password", 8);
}

/* opt_redact: bare name then value, name=value, inside a multi-word value, masks of both kinds. */
static void test_redact(void)
{
	char out[128];
	bool next = false;

	CHECK(!opt_redact("--password", false, is_pw, 0, out, sizeof(out), &next) && next &&
	      !strcmp(out, "--password"), "bare name: '%s' next %d", out, next);
	CHECK(opt_redact("hunter2", true, is_pw, 0, out, sizeof(out), &next) && !next &&
	      !strcmp(out, "(secret)"), "value after the name: '%s'", out);
	CHECK(opt_redact("--password=hunter2", false, is_pw, 'x', out, sizeof(out), &next) &&
	      !strcmp(out, "--password=xxxxxxx"), "name=value masked in place: '%s'", out);
	CHECK(opt_redact("--a 1 --password hunter2 --b=2", false, is_pw, 0, out, sizeof(out), &next) &&
	      !strcmp(out, "--a 1 --password (secret) --b=2") && !next, "words: '%s'", out);
	CHECK(!opt_redact("--passwords x --pass y", false, is_pw, 0, out, sizeof(out), &next) &&
	      !strcmp(out, "--passwords x --pass y"), "other names stay: '%s'", out);
	CHECK(!opt_redact("hunter2", false, is_pw, 0, out, sizeof(out), &next) &&
	      !strcmp(out, "hunter2"), "a plain word stays");
	CHECK(opt_redact("--password=hunter2", false, is_pw, 0, out, 12, &next) && strlen(out) == 11,
	      "truncated, terminated: '%s'", out);
}

int main(void)
{
	RUN(test_parse_size);
	RUN(test_parse_uint);
	RUN(test_parse_ulist);
	RUN(test_parse_split);
	RUN(test_parse_split_max);
	RUN(test_parse_dist);
	RUN(test_fmt_size);
	RUN(test_round_trip);
	RUN(test_format);
	RUN(test_bool);
	RUN(test_errors);
	RUN(test_errlen);
	RUN(test_bounds);
	RUN(test_defaults);
	RUN(test_find);
	RUN(test_help);
	RUN(test_parse_argv);
	RUN(test_secret);
	RUN(test_redact);
	return check_done();
}
