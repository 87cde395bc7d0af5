/*
 * test_db_rand.c - SysBench's row-picking distributions and random strings,
 * checked against figures measured from sysbench 1.0.20 itself (200,000
 * draws of sysbench.rand.default(1, 10000) per --rand-type):
 *   special:  76.2 % of draws in [4950, 5051], all within [1712, 8273], mean 5010
 *   gaussian:  4.8 % in [4950, 5051], mean 5000
 *   pareto:   mean 1222
 *   uniform:   1.05 % in [4950, 5051], min 1, max 10000
 */
#include <math.h>
#include <string.h>

#include "sysbench/db_rand.h"
#include "check.h"

#define N 200000

struct stats {
	double hot, mean;
	uint32_t lo, hi;
};

static struct stats draw(enum db_rand_type type)
{
	struct db_rand d;
	struct rng r;
	struct stats s = { .lo = UINT32_MAX };
	double sum = 0;
	unsigned hot = 0;

	db_rand_init(&d, type, 10000);
	rng_seed(&r, 42, 1);
	for (int i = 0; i < N; i++) {
		uint32_t v = db_rand_default(&d, &r, 1, 10000);
		hot += v >= 4950 && v <= 5051;
		sum += v;
		s.lo = v < s.lo ? v : s.lo;
		s.hi = v > s.hi ? v : s.hi;
	}
	s.hot = (double)hot / N;
	s.mean = sum / N;
	return s;
}

static void test_special(void)
{
	struct stats s = draw(DB_RAND_SPECIAL);

	CHECK(fabs(s.hot - 0.762) < 0.01, "hot share %.4f", s.hot);
	CHECK(s.lo > 1200 && s.hi < 8800, "range %u..%u", s.lo, s.hi);
	CHECK(fabs(s.mean - 5005) < 30, "mean %.1f", s.mean);
}

static void test_gaussian(void)
{
	struct stats s = draw(DB_RAND_GAUSSIAN);

	CHECK(fabs(s.hot - 0.048) < 0.005, "hot share %.4f", s.hot);
	CHECK(fabs(s.mean - 5000) < 30, "mean %.1f", s.mean);
}

static void test_pareto(void)
{
	struct stats s = draw(DB_RAND_PARETO);

	CHECK(fabs(s.mean - 1222) < 40, "mean %.1f", s.mean);
	CHECK(s.lo >= 1 && s.hi <= 10000, "range %u..%u", s.lo, s.hi);
}

static void test_uniform(void)
{
	struct stats s = draw(DB_RAND_UNIFORM);

	CHECK(fabs(s.hot - 0.0102) < 0.0015, "hot share %.4f", s.hot);
	CHECK(s.lo == 1 && s.hi == 10000, "range %u..%u", s.lo, s.hi);
}

/* P(k) is proportional to k^-0.8: P(1)/P(2) = 2^0.8 = 1.74. */
static void test_zipfian(void)
{
	struct db_rand d;
	struct rng r;
	unsigned one = 0, two = 0, out = 0;

	db_rand_init(&d, DB_RAND_ZIPFIAN, 1000);
	rng_seed(&r, 7, 1);
	for (int i = 0; i < N; i++) {
		uint32_t v = db_rand_default(&d, &r, 1, 1000);
		one += v == 1;
		two += v == 2;
		out += v < 1 || v > 1000;
	}
	CHECK(out == 0, "%u draws outside [1, 1000]", out);
	CHECK(two > 0 && fabs((double)one / two - 1.741) < 0.1, "P(1)/P(2) = %u/%u", one, two);
}

/* '#' digits, '@' letters, the rest copied; every digit about equally often. */
static void test_string(void)
{
	char buf[64];
	unsigned digits[10] = { 0 };
	struct rng r;
	const char *tmpl = "###########-@@@-x";

	rng_seed(&r, 3, 1);
	for (int i = 0; i < 20000; i++) {
		db_rand_str(&r, tmpl, buf);
		for (int k = 0; k < 11; k++) {
			if (buf[k] < '0' || buf[k] > '9') {
				CHECK(0, "not a digit at %d: '%c'", k, buf[k]);
				return;
			}
			digits[buf[k] - '0']++;
		}
		CHECK(buf[11] == '-' && buf[15] == '-' && buf[16] == 'x', "separators '%.17s'", buf);
		for (int k = 12; k < 15; k++)
			CHECK(buf[k] >= 'a' && buf[k] <= 'z', "not a letter: '%c'", buf[k]);
	}
	for (int d = 0; d < 10; d++)
		CHECK(fabs(digits[d] / 22000.0 - 1) < 0.03, "digit %d seen %u times", d, digits[d]);
}

static void test_uniform_bounds(void)
{
	struct rng r;
	unsigned seen[3] = { 0 };

	rng_seed(&r, 5, 1);
	for (int i = 0; i < 3000; i++) {
		uint32_t v = db_rand_uniform(&r, 1, 3);
		CHECK(v >= 1 && v <= 3, "%u outside [1, 3]", v);
		if (v >= 1 && v <= 3)
			seen[v - 1]++;
	}
	CHECK(seen[0] > 900 && seen[1] > 900 && seen[2] > 900, "%u %u %u", seen[0], seen[1], seen[2]);
}

int main(void)
{
	RUN(test_special);
	RUN(test_gaussian);
	RUN(test_pareto);
	RUN(test_uniform);
	RUN(test_zipfian);
	RUN(test_string);
	RUN(test_uniform_bounds);
	return check_done();
}
