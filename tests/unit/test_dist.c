/*
 * test_dist.c - the offset distributions against their analytic shapes.
 *
 * Every test seeds its own stream, so results are deterministic; tolerances
 * are still chosen at 5 or more standard deviations of the sampling noise, so
 * an unlucky seed cannot be what makes a test pass or fail.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/dist.h"
#include "check.h"

#define DRAWS 1000000u

static int init(struct dist *d, enum dist_kind kind, double param, uint64_t n)
{
	struct opt_dist spec = { .kind = kind, .param = param };
	int rc = dist_init(d, &spec, n);
	CHECK(rc == 0, "dist_init(%d, %g, %llu) = %d", (int)kind, param,
	      (unsigned long long)n, rc);
	return rc;
}

/* @draws draws into counts[0..n), each checked to be in range. */
static void draw_counts(const struct dist *d, uint64_t seed, unsigned draws, uint32_t *counts)
{
	struct rng r;
	unsigned bad = 0;

	rng_seed(&r, seed, 1);
	memset(counts, 0, d->n * sizeof(*counts));
	for (unsigned i = 0; i < draws; i++) {
		uint64_t b = dist_next(d, &r);
		if (b < d->n)
			counts[b]++;
		else
			bad++;
	}
	CHECK(bad == 0, "%u of %u draws out of range", bad, draws);
}

static int by_count_desc(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x < y) - (x > y);
}

/* Share of all draws taken by the @k blocks with the highest counts. */
static double hottest_share(uint32_t *counts, uint64_t n, uint64_t k, unsigned draws)
{
	uint64_t sum = 0;

	qsort(counts, n, sizeof(*counts), by_count_desc);
	for (uint64_t i = 0; i < k; i++)
		sum += counts[i];
	return (double)sum / draws;
}

/*
 * sum_{k=1..n} k^-theta: directly up to 10^6 terms, the rest by the integral
 * over [M + 1/2, n + 1/2], whose error is below 10^-12 at that M.
 */
static double harmonic(uint64_t n, double theta)
{
	const uint64_t direct = 1000000;
	double h = 0;

	for (uint64_t k = 1; k <= n && k <= direct; k++)
		h += pow((double)k, -theta);
	if (n > direct)
		h += (pow(n + 0.5, 1 - theta) - pow(direct + 0.5, 1 - theta)) / (1 - theta);
	return h;
}

static void test_uniform(void)
{
	const uint64_t n = 1000;
	uint32_t counts[1000];
	struct dist d;
	double chi2 = 0, maxdev = 0;
	unsigned missed = 0;

	if (init(&d, DIST_UNIFORM, 0, n))
		return;
	draw_counts(&d, 1, DRAWS, counts);
	for (uint64_t b = 0; b < n; b++) {
		double e = (double)DRAWS / n, diff = counts[b] - e;
		chi2 += diff * diff / e;
		missed += counts[b] == 0;
	}
	/* 100 buckets of 10 blocks: 10,000 draws expected each, 5 % is 5 sigma */
	for (uint64_t b = 0; b < n; b += 10) {
		double sum = 0;
		for (uint64_t i = b; i < b + 10; i++)
			sum += counts[i];
		double dev = fabs(sum / (DRAWS / 100.0) - 1);
		if (dev > maxdev)
			maxdev = dev;
	}
	CHECK(missed == 0, "%u blocks never drawn", missed);
	CHECK(maxdev < 0.05, "a bucket is %.1f %% off", maxdev * 100);
	/* 999 degrees of freedom: mean 999, sd 44.7; allow 5 sd either way */
	CHECK(chi2 > 999 - 5 * 44.7 && chi2 < 999 + 5 * 44.7, "chi-square %.1f", chi2);
}

/* Zipf over @n blocks: hottest 1 %, and the ten hottest ranks one by one. */
static void check_zipf(double theta, uint64_t n, uint64_t seed)
{
	uint32_t *counts = calloc(n, sizeof(*counts));
	double h = harmonic(n, theta), top = harmonic(n / 100, theta);
	struct dist d;

	if (!counts || init(&d, DIST_ZIPF, theta, n)) {
		free(counts);
		return;
	}
	draw_counts(&d, seed, DRAWS, counts);
	double share = hottest_share(counts, n, n / 100, DRAWS);
	CHECK(fabs(share - top / h) < 0.02, "theta %g: hottest 1%% got %.4f, analytic %.4f",
	      theta, share, top / h);
	/*
	 * Sorted counts: the k-th largest is rank k, as the top ranks are far
	 * apart. Only ranks expected 10,000 times or more, where 5 % is 5 sigma.
	 */
	for (unsigned k = 1; k <= 10; k++) {
		double want = DRAWS * pow(k, -theta) / h;
		if (want < 10000)
			break;
		CHECK(fabs(counts[k - 1] / want - 1) < 0.05, "theta %g: rank %u drawn %u times, "
		      "want %.0f", theta, k, counts[k - 1], want);
	}
	free(counts);
}

static void test_zipf(void)
{
	check_zipf(1.2, 100000, 2);
	check_zipf(0.8, 100000, 3);     /* below 1 the integral grows without bound */
	check_zipf(1.0000001, 100000, 4);       /* near 1: the series branch */
	check_zipf(2.5, 100000, 5);
}

static int by_value(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/* On 2^40 blocks no table fits: find the two most drawn blocks by sorting the draws. */
static void test_zipf_huge(void)
{
	const uint64_t n = UINT64_C(1) << 40;
	const unsigned draws = 500000;
	uint64_t *v = malloc(draws * sizeof(*v));
	unsigned best[2] = { 0, 0 };
	struct dist d;
	struct rng r;

	if (!v || init(&d, DIST_ZIPF, 1.2, n)) {
		free(v);
		return;
	}
	rng_seed(&r, 6, 1);
	for (unsigned i = 0; i < draws; i++)
		v[i] = dist_next(&d, &r);
	qsort(v, draws, sizeof(*v), by_value);
	for (unsigned i = 0, run = 1; i < draws; i++, run++) {
		if (i + 1 < draws && v[i + 1] == v[i])
			continue;
		if (run > best[0]) {
			best[1] = best[0];
			best[0] = run;
		} else if (run > best[1]) {
			best[1] = run;
		}
		run = 0;
	}
	double h = harmonic(n, 1.2);
	CHECK(fabs(best[0] / (draws / h) - 1) < 0.05, "rank 1: %u, want %.0f", best[0], draws / h);
	CHECK(fabs(best[1] / (draws * pow(2, -1.2) / h) - 1) < 0.05, "rank 2: %u, want %.0f",
	      best[1], draws * pow(2, -1.2) / h);
	CHECK(v[draws - 1] < n, "block %llu out of range", (unsigned long long)v[draws - 1]);
	free(v);
}

/*
 * fio's pareto draws floor(n * u^p), p = log(h) / log(1 - h). Its density
 * grows towards the top of the range, so the hottest (1-h) of the blocks are
 * the values >= h*n, drawn when u >= h^(1/p): a share of 1 - h^(1/p), which
 * is exactly h. The test computes it from the formula all the same.
 */
static void check_pareto(double hp, uint64_t seed)
{
	const uint64_t n = 1000;
	uint32_t counts[1000];
	double p = log(hp) / log(1 - hp), want = 1 - pow(hp, 1 / p);
	struct dist d;

	if (init(&d, DIST_PARETO, hp, n))
		return;
	draw_counts(&d, seed, DRAWS, counts);
	uint64_t hot = (uint64_t)llround((1 - hp) * n);
	double share = hottest_share(counts, n, hot, DRAWS);
	CHECK(fabs(share - want) < 0.02, "pareto:%g: hottest %llu blocks got %.4f, want %.4f",
	      hp, (unsigned long long)hot, share, want);
}

static void test_pareto(void)
{
	check_pareto(0.9, 7);
	check_pareto(0.8, 8);
	check_pareto(0.7, 9);
}

static void check_normal(uint64_t n, double sigma, uint64_t seed)
{
	struct dist d;
	struct rng r;
	double sum = 0, sumsq = 0;

	if (init(&d, DIST_NORMAL, sigma, n))
		return;
	rng_seed(&r, seed, 1);
	for (unsigned i = 0; i < DRAWS; i++) {
		double x = (double)dist_next(&d, &r);
		sum += x;
		sumsq += x * x;
	}
	double mean = sum / DRAWS, sd = sqrt(sumsq / DRAWS - mean * mean);
	CHECK(fabs(mean / (n / 2.0) - 1) < 0.01, "normal:%g on %llu: mean %.1f", sigma,
	      (unsigned long long)n, mean);
	if (sigma <= 20)        /* wider ones are truncated by the range, so narrower */
		CHECK(fabs(sd / (sigma / 100 * n) - 1) < 0.03, "normal:%g on %llu: sd %.1f, "
		      "want %.1f", sigma, (unsigned long long)n, sd, sigma / 100 * n);
}

static void test_normal(void)
{
	check_normal(1000000, 10, 10);
	check_normal(UINT64_C(1) << 40, 5, 11);
	check_normal(1000, 100, 12);    /* mostly redrawn, still centred */
}

static void test_in_range(void)
{
	static const uint64_t ns[] = { 1, 2, 3, 1000, UINT64_C(1) << 40, UINT64_MAX };
	static const struct opt_dist specs[] = {
		{ DIST_UNIFORM, 0 }, { DIST_ZIPF, 1.2 }, { DIST_ZIPF, 0.5 },
		{ DIST_PARETO, 0.9 }, { DIST_PARETO, 0.1 }, { DIST_NORMAL, 10 },
		{ DIST_NORMAL, 100 },
	};

	for (size_t i = 0; i < sizeof(ns) / sizeof(ns[0]); i++) {
		for (size_t j = 0; j < sizeof(specs) / sizeof(specs[0]); j++) {
			struct dist d;
			struct rng r;
			uint64_t max = 0;
			if (init(&d, specs[j].kind, specs[j].param, ns[i]))
				continue;
			rng_seed(&r, 13 + i, j);
			for (int k = 0; k < 100000; k++) {
				uint64_t b = dist_next(&d, &r);
				max = b > max ? b : max;
			}
			CHECK(max < ns[i], "kind %d param %g n %llu: drew %llu", (int)specs[j].kind,
			      specs[j].param, (unsigned long long)ns[i], (unsigned long long)max);
			if (ns[i] >= 2 && ns[i] <= 3)
				CHECK(max == ns[i] - 1 || specs[j].kind == DIST_PARETO,
				      "kind %d n %llu: top block never drawn", (int)specs[j].kind,
				      (unsigned long long)ns[i]);
		}
	}
}

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/*
 * The scatter is a permutation: its multiplier is coprime to n, and with a
 * flat zipf (theta 0.3, every rank likely) every one of n blocks is drawn,
 * which a map of n ranks onto n blocks only does when it is one-to-one.
 */
static void test_scatter(void)
{
	static const uint64_t extra[] = { 210, 256, 1000, 1024, 2310 };
	uint32_t counts[2310];

	for (uint64_t n = 1; n <= 128 + sizeof(extra) / sizeof(extra[0]); n++) {
		uint64_t size = n <= 128 ? n : extra[n - 129];
		struct dist d;
		unsigned missed = 0;
		if (init(&d, DIST_ZIPF, 0.3, size))
			return;
		CHECK(gcd(d.scatter, size) == 1, "n %llu: scatter %llu not coprime",
		      (unsigned long long)size, (unsigned long long)d.scatter);
		draw_counts(&d, 14 + n, size <= 128 ? 20000 : 200000, counts);
		for (uint64_t b = 0; b < size; b++)
			missed += counts[b] == 0;
		CHECK(missed == 0, "n %llu: %u blocks never drawn", (unsigned long long)size, missed);
	}
	/* pareto shares the permutation */
	struct dist d;
	if (!init(&d, DIST_PARETO, 0.9, 1 << 20))
		CHECK(gcd(d.scatter, 1 << 20) == 1, "pareto scatter %llu",
		      (unsigned long long)d.scatter);
}

/* Near-zero theta is nearly uniform; a huge one is nearly always rank 1. */
static void test_zipf_extremes(void)
{
	uint32_t counts[1000];
	struct dist d;

	if (!init(&d, DIST_ZIPF, 1e-9, 1000)) {
		unsigned lo = UINT32_MAX, hi = 0;
		draw_counts(&d, 15, DRAWS, counts);
		for (int b = 0; b < 1000; b++) {
			lo = counts[b] < lo ? counts[b] : lo;
			hi = counts[b] > hi ? counts[b] : hi;
		}
		/* 1,000 expected per block, sd 31.6: 20 % is over 6 sigma */
		CHECK(lo > 800 && hi < 1200, "theta 1e-9: counts from %u to %u", lo, hi);
	}
	if (!init(&d, DIST_ZIPF, 50, 1000)) {
		draw_counts(&d, 16, 100000, counts);
		double share = hottest_share(counts, 1000, 1, 100000);
		CHECK(share > 0.999, "theta 50: rank 1 got %.4f", share);
	}
}

static void test_init_rejects(void)
{
	static const struct opt_dist bad[] = {
		{ DIST_ZIPF, 0 }, { DIST_ZIPF, -1 }, { DIST_ZIPF, 1 }, { DIST_ZIPF, NAN },
		{ DIST_ZIPF, INFINITY }, { DIST_PARETO, 0 }, { DIST_PARETO, 1 },
		{ DIST_PARETO, -0.5 }, { DIST_PARETO, 1.5 }, { DIST_PARETO, NAN },
		{ DIST_NORMAL, 0 }, { DIST_NORMAL, -1 }, { DIST_NORMAL, 100.5 },
		{ DIST_NORMAL, NAN }, { (enum dist_kind)42, 1 },
	};
	struct opt_dist ok = { DIST_UNIFORM, 0 };
	struct dist d;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(dist_init(&d, &bad[i], 1000) == -EINVAL, "kind %d param %g accepted",
		      (int)bad[i].kind, bad[i].param);
	CHECK(dist_init(&d, &ok, 0) == -EINVAL, "n = 0 accepted");
	CHECK(dist_init(&d, &ok, 1) == 0, "n = 1 refused");
}

/* Same seed, same blocks: runs are reproducible from the printed seed. */
static void test_deterministic(void)
{
	struct dist d;
	struct rng a, b;
	unsigned differ = 0;

	if (init(&d, DIST_ZIPF, 1.2, 1 << 30))
		return;
	rng_seed(&a, 42, 3);
	rng_seed(&b, 42, 3);
	for (int i = 0; i < 10000; i++)
		differ += dist_next(&d, &a) != dist_next(&d, &b);
	CHECK(differ == 0, "%u draws differ", differ);
}

int main(void)
{
	RUN(test_uniform);
	RUN(test_zipf);
	RUN(test_zipf_huge);
	RUN(test_zipf_extremes);
	RUN(test_pareto);
	RUN(test_normal);
	RUN(test_in_range);
	RUN(test_scatter);
	RUN(test_init_rejects);
	RUN(test_deterministic);
	return check_done();
}
