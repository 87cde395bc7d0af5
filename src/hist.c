/*
 * hist.c - log-linear latency histogram; the error bound is derived in hist.h.
 */
#include <math.h>
#include <string.h>

#include "appio/hist.h"

uint64_t hist_bucket_low(unsigned i)
{
	if (i < 2 * HIST_SUB)
		return i;
	unsigned shift = (i >> HIST_SUB_BITS) - 1;
	return (uint64_t)(i - (shift << HIST_SUB_BITS)) << shift;
}

uint64_t hist_bucket_width(unsigned i)
{
	if (i < 2 * HIST_SUB)
		return 1;
	return UINT64_C(1) << ((i >> HIST_SUB_BITS) - 1);
}

void hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = UINT64_MAX;
}

void hist_merge(struct hist *dst, const struct hist *src)
{
	if (!src->count)
		return;
	dst->count += src->count;
	dst->over += src->over;
	dst->sum += src->sum;
	dst->sumsq += src->sumsq;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
}

static uint64_t clamp(const struct hist *h, uint64_t v)
{
	if (v < h->min)
		return h->min;
	if (v > h->max)
		return h->max;
	return v;
}

/* Index of the bucket holding the nearest-rank sample, or HIST_BUCKETS if beyond. */
static unsigned rank_bucket(const uint64_t *b, uint64_t count, double p)
{
	/* nearest rank: the ceil(p/100 * n)-th smallest sample, at least the 1st */
	uint64_t rank = (uint64_t)ceil(p / 100.0 * (double)count);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++) {
		seen += b[i];
		if (seen >= rank)
			return i;
	}
	return HIST_BUCKETS;
}

static uint64_t bucket_mid(unsigned i)
{
	return hist_bucket_low(i) + hist_bucket_width(i) / 2;
}

uint64_t hist_buckets_percentile(const uint64_t *b, uint64_t count, double p)
{
	if (!count)
		return 0;
	unsigned i = rank_bucket(b, count, p);
	return i < HIST_BUCKETS ? bucket_mid(i) : bucket_mid(HIST_BUCKETS - 1);
}

uint64_t hist_percentile(const struct hist *h, double p)
{
	if (!h->count)
		return 0;
	if (p >= 100.0)
		return h->max;
	unsigned i = rank_bucket(h->b, h->count, p);
	/* beyond the buckets: the rank falls among the samples above range */
	return i < HIST_BUCKETS ? clamp(h, bucket_mid(i)) : h->max;
}

double hist_mean(const struct hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

double hist_stddev(const struct hist *h)
{
	if (h->count < 2)
		return 0.0;
	/* exact integer moments; long double keeps the difference accurate */
	long double n = (long double)h->count;
	long double mean = (long double)h->sum / n;
	long double var = (long double)h->sumsq / n - mean * mean;
	return var > 0 ? sqrt((double)var) : 0.0;
}
