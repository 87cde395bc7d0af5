/*
 * stats.c - one pass of figures over a trace (trace_stats.h).
 */
#include <math.h>
#include <string.h>

#include "appio/trace_stats.h"

void trace_stats_init(struct trace_stats *s)
{
	memset(s, 0, sizeof(*s));
	s->bucket_ns = 1000000000;
}

static int log_bin(uint64_t v)
{
	return v ? 64 - __builtin_clzll(v) : 0;
}

static int size_bin(uint64_t len)
{
	int b = len <= 512 ? 0 : log_bin(len - 1) - 9;
	return b < TS_SIZE_BINS ? b : TS_SIZE_BINS - 1;
}

void trace_stats_size_bin(int i, uint64_t *lo, uint64_t *hi)
{
	*lo = i ? (512ull << (i - 1)) + 1 : 0;
	*hi = i == TS_SIZE_BINS - 1 ? UINT64_MAX : 512ull << i;
}

static int qd_bin(int32_t qd)
{
	int b = qd <= 1 ? 0 : log_bin((uint64_t)qd - 1);
	return b < TS_QD_BINS ? b : TS_QD_BINS - 1;
}

void trace_stats_qd_bin(int i, int *lo, int *hi)
{
	*lo = i ? (1 << (i - 1)) + 1 : 1;
	*hi = i == TS_QD_BINS - 1 ? INT32_MAX : 1 << i;
}

uint64_t trace_stats_log_pct(const uint64_t *hist, double p)
{
	uint64_t n = 0, acc = 0;

	for (int i = 0; i < TS_LOG_BINS; i++)
		n += hist[i];
	for (int i = 0; i < TS_LOG_BINS; i++) {
		acc += hist[i];
		if (n && acc >= (uint64_t)ceil(p * (double)n))
			return i ? (i >= 64 ? UINT64_MAX : (1ull << i) - 1) : 0;
	}
	return 0;
}

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static void hll_add(struct trace_stats *s, uint64_t key)
{
	uint64_t h = mix(key);
	uint32_t idx = (uint32_t)(h >> (64 - TS_HLL_BITS));
	uint64_t rest = (h << TS_HLL_BITS) | (1ull << (TS_HLL_BITS - 1));
	uint8_t rank = (uint8_t)(__builtin_clzll(rest) + 1);

	if (rank > s->hll[idx])
		s->hll[idx] = rank;
}

double trace_stats_footprint(const struct trace_stats *s)
{
	const double m = 1 << TS_HLL_BITS;
	double sum = 0;
	int zeros = 0;

	for (int i = 0; i < (1 << TS_HLL_BITS); i++) {
		sum += ldexp(1.0, -s->hll[i]);
		zeros += !s->hll[i];
	}
	double e = 0.7213 / (1 + 1.079 / m) * m * m / sum;
	if (e <= 2.5 * m && zeros)
		e = m * log(m / zeros);
	return e * 4096;
}

static void add_bucket(struct trace_stats *s, const struct trace_rec *rec)
{
	uint64_t i = rec->issue_ns / s->bucket_ns;

	while (i >= TS_BUCKETS) {
		for (int k = 0; k < TS_BUCKETS / 2; k++) {
			s->b_ios[k] = s->b_ios[2 * k] + s->b_ios[2 * k + 1];
			s->b_bytes[k] = s->b_bytes[2 * k] + s->b_bytes[2 * k + 1];
		}
		memset(s->b_ios + TS_BUCKETS / 2, 0, sizeof(s->b_ios) / 2);
		memset(s->b_bytes + TS_BUCKETS / 2, 0, sizeof(s->b_bytes) / 2);
		s->bucket_ns *= 2;
		i = rec->issue_ns / s->bucket_ns;
	}
	s->b_ios[i]++;
	s->b_bytes[i] += rec->op == TRACE_OP_FLUSH ? 0 : rec->length;
	if (i + 1 > s->nbuckets)
		s->nbuckets = (uint32_t)i + 1;
}

static void add_dev(struct trace_stats *s, const struct trace_rec *rec)
{
	if (rec->dev >= TS_DEV_MAX)
		return;
	struct trace_stats_dev *d = &s->dev[rec->dev];
	if (rec->dev >= s->ndev)
		s->ndev = rec->dev + 1;
	d->ios++;
	d->op_ios[rec->op]++;
	if (rec->op == TRACE_OP_FLUSH)
		return;
	d->bytes += rec->length;
	if (!d->data_ios || rec->offset < d->min_off)
		d->min_off = rec->offset;
	if (rec->offset + rec->length > d->max_end)
		d->max_end = rec->offset + rec->length;
	if (d->data_ios && rec->offset == d->last_end) {
		d->seq++;
		s->seq++;
	}
	d->data_ios++;
	d->last_end = rec->offset + rec->length;
}

void trace_stats_add(struct trace_stats *s, const struct trace_rec *rec)
{
	if (!s->ios)
		s->first_ns = rec->issue_ns;
	else if (rec->issue_ns < s->prev_issue)
		s->out_of_order++;
	else {
		s->iat_hist[log_bin(rec->issue_ns - s->prev_issue)]++;
		s->iat_sum += rec->issue_ns - s->prev_issue;
		s->iat_n++;
	}
	s->ios++;
	s->prev_issue = rec->issue_ns;
	if (rec->issue_ns > s->last_ns)
		s->last_ns = rec->issue_ns;
	s->op_ios[rec->op]++;
	for (int i = 0; i < TS_NFLAGS; i++)
		s->flag_ios[i] += !!(rec->flags & (1u << i));
	if (rec->complete_ns != TRACE_NS_UNKNOWN && rec->complete_ns >= rec->issue_ns) {
		uint64_t svc = rec->complete_ns - rec->issue_ns;
		s->svc_hist[log_bin(svc)]++;
		s->svc_sum += svc;
		s->svc_n++;
		if (rec->complete_ns > s->end_ns)
			s->end_ns = rec->complete_ns;
	}
	if (rec->inflight > 0) {
		s->qd_hist[qd_bin(rec->inflight)]++;
		s->qd_sum += (uint64_t)rec->inflight;
		s->qd_n++;
	}
	add_bucket(s, rec);
	add_dev(s, rec);
	if (rec->op == TRACE_OP_FLUSH)
		return;
	s->op_bytes[rec->op] += rec->length;
	s->size_hist[size_bin(rec->length)]++;
	s->size_sum += rec->length;
	s->size_n++;
	s->data_ios += rec->dev < TS_DEV_MAX;
	if (rec->op == TRACE_OP_DISCARD || !rec->length)
		return;
	uint64_t b = rec->offset / 4096, e = (rec->offset + rec->length - 1) / 4096;
	if (e - b > 65535)
		e = b + 65535;          /* a 256 MiB cap keeps one huge I/O from stalling the pass */
	for (; b <= e; b++)
		hll_add(s, b ^ ((uint64_t)rec->dev << 52));
}
