/*
 * hist.h - log-linear latency histogram (HdrHistogram-like).
 *
 * Executive summary
 * -----------------
 * Values are nanoseconds (uint64_t). Values 0..255 each have their own bucket.
 * Above that, every power-of-two range [2^e, 2^(e+1)) is split into 128 equal
 * sub-buckets of width 2^(e-7). A value v >= 256 therefore lands in a bucket
 * whose width is at most v / 128. hist_percentile() reports the middle of the
 * bucket, so the reported value is within half a bucket of every value in it:
 *
 *     |reported - v| <= 2^(e-8) <= v / 256,   i.e. relative error <= 0.39 %
 *
 * comfortably inside the 1 % bound appio promises (the unit test checks it
 * against exact percentiles of sorted samples). The reported value is clamped
 * to the exact [min, max] seen, so p100 is the true maximum.
 *
 * Range: values up to HIST_MAX_NS (2^40 ns, about 18 minutes) are bucketed.
 * Larger values are not silently clamped into the last bucket: they are
 * counted in @over and still enter count, sum, min and max exactly; a
 * percentile that falls among them reports the exact maximum.
 *
 * Cost: hist_record() is one count-leading-zeros, a shift, an add and one
 * increment; no allocation, no lock, no atomics. A histogram belongs to one
 * thread while it records; merge histograms (hist_merge) after the writers
 * are done with them or have handed them over.
 *
 * Size: HIST_BUCKETS 64-bit counters, about 34 KiB.
 *
 * Exact moments are kept beside the buckets: count, sum, sum of squares
 * (128-bit, exact), min and max, so mean and standard deviation are exact,
 * not estimated from buckets.
 */
#ifndef APPIO_HIST_H
#define APPIO_HIST_H

#include <stdint.h>
#include <stdbool.h>

#define HIST_SUB_BITS   7                        /* 128 sub-buckets per doubling */
#define HIST_SUB        (1u << HIST_SUB_BITS)
#define HIST_MAX_EXP    40                       /* highest bucketed value < 2^40 */
#define HIST_MAX_NS     ((UINT64_C(1) << HIST_MAX_EXP) - 1)
#define HIST_BUCKETS    (((HIST_MAX_EXP - HIST_SUB_BITS - 1) << HIST_SUB_BITS) + 2 * HIST_SUB)

struct hist {
	uint64_t count;                 /* samples recorded, including @over */
	uint64_t over;                  /* samples above HIST_MAX_NS */
	uint64_t sum;                   /* exact sum of all samples */
	unsigned __int128 sumsq;        /* exact sum of squares */
	uint64_t min, max;              /* exact; min is UINT64_MAX when empty */
	uint64_t b[HIST_BUCKETS];
};

/* Bucket index of value @v (v <= HIST_MAX_NS). Pure; exposed for tests. */
static inline unsigned hist_index(uint64_t v)
{
	if (v < 2 * HIST_SUB)
		return (unsigned)v;
	unsigned e = 63 - (unsigned)__builtin_clzll(v);   /* e >= HIST_SUB_BITS + 1 */
	unsigned shift = e - HIST_SUB_BITS;
	return (shift << HIST_SUB_BITS) + (unsigned)(v >> shift);
}

/* Lowest value and width of bucket @i. Pure; exposed for tests. */
uint64_t hist_bucket_low(unsigned i);
uint64_t hist_bucket_width(unsigned i);

/* Empty @h (the caller owns the memory). */
void hist_init(struct hist *h);

/* Record one sample of @v nanoseconds. Hot path: O(1), no allocation. */
static inline void hist_record(struct hist *h, uint64_t v)
{
	h->count++;
	h->sum += v;
	h->sumsq += (unsigned __int128)v * v;
	if (v < h->min)
		h->min = v;
	if (v > h->max)
		h->max = v;
	if (v > HIST_MAX_NS)
		h->over++;
	else
		h->b[hist_index(v)]++;
}

/* Add every sample of @src into @dst. */
void hist_merge(struct hist *dst, const struct hist *src);

/*
 * Value at percentile @p (0 < p <= 100), nearest-rank definition: the smallest
 * recorded value with at least p % of the samples at or below it, reported as
 * the middle of its bucket and clamped to [min, max]. 0 when empty.
 */
uint64_t hist_percentile(const struct hist *h, double p);

/*
 * The same for a bare bucket array @b holding @count samples (the per-second
 * series keep only buckets): the middle of the bucket holding the
 * nearest-rank sample; 0 when count is 0. Clamp to a known max yourself.
 */
uint64_t hist_buckets_percentile(const uint64_t *b, uint64_t count, double p);

/* Exact mean and population standard deviation in ns; 0 when empty. */
double hist_mean(const struct hist *h);
double hist_stddev(const struct hist *h);

/* Exact minimum (0 when empty). */
static inline uint64_t hist_min(const struct hist *h)
{
	return h->count ? h->min : 0;
}

#endif
