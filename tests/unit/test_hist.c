/*
 * test_hist.c - the histogram against an exact model: sorted samples.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/hist.h"
#include "appio/rand.h"
#include "check.h"

#define N 200000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of sorted @v. */
static uint64_t exact(const uint64_t *v, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100.0 * (double)n);
	return v[rank ? rank - 1 : 0];
}

typedef uint64_t (*gen_fn)(struct rng *r);

static uint64_t gen_uniform(struct rng *r) { return 1 + rng_below(r, 1000000); }
static uint64_t gen_expo(struct rng *r) { return (uint64_t)(-log(1 - rng_double(r)) * 100000); }
static uint64_t gen_lognormal(struct rng *r)
{
	double u1 = 1 - rng_double(r), u2 = rng_double(r);
	double z = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
	return (uint64_t)exp(11.5 + 1.2 * z);     /* median ~100 us, long tail */
}
static uint64_t gen_bimodal(struct rng *r)
{
	return rng_below(r, 100) < 95 ? 20000 + rng_below(r, 2000) : 15000000 + rng_below(r, 5000000);
}
static uint64_t gen_small(struct rng *r) { return rng_below(r, 300); }

static void check_dist(const char *name, gen_fn gen)
{
	static uint64_t v[N];
	static struct hist h;
	static const double ps[] = { 0.1, 1, 10, 25, 50, 75, 90, 99, 99.9, 99.99, 100 };
	struct rng r;

	rng_seed(&r, 42, 7);
	hist_init(&h);
	long double sum = 0, sumsq = 0;
	for (size_t i = 0; i < N; i++) {
		v[i] = gen(&r);
		hist_record(&h, v[i]);
		sum += v[i];
		sumsq += (long double)v[i] * v[i];
	}
	qsort(v, N, sizeof(v[0]), cmp_u64);
	for (size_t k = 0; k < sizeof(ps) / sizeof(ps[0]); k++) {
		uint64_t want = exact(v, N, ps[k]), got = hist_percentile(&h, ps[k]);
		double err = want ? fabs((double)got - (double)want) / (double)want : (double)got;
		CHECK(err <= 0.01, "%s p%g: got %llu, exact %llu (%.3f%% off)", name, ps[k],
		      (unsigned long long)got, (unsigned long long)want, err * 100);
		/* the derivation in hist.h promises 1/256 */
		CHECK(err <= 1.0 / 256 + 1e-12, "%s p%g: %.4f%% exceeds the 0.39%% bound", name, ps[k], err * 100);
	}
	long double mean = sum / N, sd = sqrtl(sumsq / N - mean * mean);
	CHECK(fabs(hist_mean(&h) - (double)mean) <= 1e-6 * (double)mean, "%s mean %f vs %Lf", name, hist_mean(&h), mean);
	CHECK(fabs(hist_stddev(&h) - (double)sd) <= 1e-6 * (double)sd + 1e-9, "%s stddev %f vs %Lf", name, hist_stddev(&h), sd);
	CHECK(hist_min(&h) == v[0] && h.max == v[N - 1], "%s min/max", name);
	CHECK(h.count == N && h.over == 0, "%s count", name);
}

static void percentiles_within_bound(void)
{
	check_dist("uniform", gen_uniform);
	check_dist("exponential", gen_expo);
	check_dist("lognormal", gen_lognormal);
	check_dist("bimodal", gen_bimodal);
	check_dist("small", gen_small);
}

static void buckets_tile_the_range(void)
{
	/* consecutive buckets touch, and every value lands in the bucket that holds it */
	for (unsigned i = 1; i <= hist_index(HIST_MAX_NS); i++)
		CHECK(hist_bucket_low(i) == hist_bucket_low(i - 1) + hist_bucket_width(i - 1), "bucket %u", i);
	CHECK(hist_index(HIST_MAX_NS) < HIST_BUCKETS, "top index %u < %u", hist_index(HIST_MAX_NS), HIST_BUCKETS);
	struct rng r;
	rng_seed(&r, 1, 1);
	for (int k = 0; k < 100000; k++) {
		uint64_t v = rng_next(&r) >> (24 + rng_below(&r, 40));
		if (v > HIST_MAX_NS)
			continue;
		unsigned i = hist_index(v);
		CHECK(hist_bucket_low(i) <= v && v < hist_bucket_low(i) + hist_bucket_width(i), "value %llu", (unsigned long long)v);
		CHECK(hist_bucket_width(i) == 1 || hist_bucket_width(i) * 128 <= v, "width of %llu", (unsigned long long)v);
	}
}

static void merge_equals_combined(void)
{
	static struct hist a, b, all;
	struct rng r;
	rng_seed(&r, 3, 3);
	hist_init(&a);
	hist_init(&b);
	hist_init(&all);
	for (int i = 0; i < 50000; i++) {
		uint64_t v = gen_lognormal(&r);
		hist_record(i % 3 ? &a : &b, v);
		hist_record(&all, v);
	}
	hist_merge(&a, &b);
	CHECK(a.count == all.count && a.sum == all.sum && a.sumsq == all.sumsq, "moments");
	CHECK(a.min == all.min && a.max == all.max, "min/max");
	CHECK(!memcmp(a.b, all.b, sizeof(a.b)), "buckets");
	CHECK(hist_percentile(&a, 99) == hist_percentile(&all, 99), "p99");
}

static void out_of_range_is_counted(void)
{
	static struct hist h;
	hist_init(&h);
	for (int i = 0; i < 98; i++)
		hist_record(&h, 1000);
	hist_record(&h, HIST_MAX_NS + 5);
	hist_record(&h, UINT64_C(1) << 50);
	CHECK(h.over == 2, "over %llu", (unsigned long long)h.over);
	CHECK(h.count == 100, "count");
	CHECK(h.max == UINT64_C(1) << 50, "exact max kept");
	CHECK(hist_percentile(&h, 99.5) == h.max, "a rank among the over-range samples reports the max");
	CHECK(hist_percentile(&h, 50) - 1000 <= 1000 / 256, "p50 %llu", (unsigned long long)hist_percentile(&h, 50));
}

static void empty_and_single(void)
{
	static struct hist h;
	hist_init(&h);
	CHECK(hist_percentile(&h, 99) == 0 && hist_mean(&h) == 0 && hist_min(&h) == 0, "empty");
	hist_record(&h, 123456789);
	CHECK(hist_percentile(&h, 50) == 123456789, "single sample is exact (clamped)");
	CHECK(hist_stddev(&h) == 0, "single stddev");
	uint64_t b[HIST_BUCKETS] = { 0 };
	b[hist_index(5000)] = 10;
	CHECK(hist_buckets_percentile(b, 10, 99) == hist_bucket_low(hist_index(5000)) + hist_bucket_width(hist_index(5000)) / 2,
	      "bare buckets");
	CHECK(hist_buckets_percentile(b, 0, 99) == 0, "bare empty");
}

int main(void)
{
	RUN(percentiles_within_bound);
	RUN(buckets_tile_the_range);
	RUN(merge_equals_combined);
	RUN(out_of_range_is_counted);
	RUN(empty_and_single);
	return check_done();
}
