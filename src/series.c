/*
 * series.c - per-second series of a point (see series.h for the hand-over).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "series.h"
#include "appio/xalloc.h"

void series_init(struct series *s, unsigned ncls, unsigned nmerged)
{
	memset(s, 0, sizeof(*s));
	s->ncls = ncls;
	s->nmerged = nmerged;
	s->ncol = ncls + nmerged;
	for (int i = 0; i < SERIES_RING; i++) {
		s->ring[i].sec = -1;
		s->ring[i].b = xaligned(64, ncls * sizeof(*s->ring[i].b));
	}
	s->scratch = xaligned(64, HIST_BUCKETS * sizeof(*s->scratch));
}

void series_release(struct series *s)
{
	for (int i = 0; i < SERIES_RING; i++)
		free(s->ring[i].b);
	free(s->scratch);
	free(s->sec);
}

static struct sec_cls *row(const struct series *s, int64_t sec)
{
	return &s->sec[(size_t)sec * s->ncol];
}

static void grow(struct series *s, int64_t sec)
{
	if ((unsigned)sec < s->nsec)
		return;
	if ((unsigned)sec >= s->cap) {
		unsigned cap = s->cap ? s->cap : 64;
		while (cap <= (unsigned)sec)
			cap *= 2;
		s->sec = xrealloc(s->sec, (size_t)cap * s->ncol * sizeof(*s->sec));
		s->cap = cap;
	}
	memset(row(s, s->nsec), 0, (size_t)(sec + 1 - s->nsec) * s->ncol * sizeof(*s->sec));
	s->nsec = (unsigned)sec + 1;
}

/* The merged column class @k belongs to, or -1. */
static int merged_col(const struct series *s, unsigned k)
{
	return s->nmerged ? (int)(k / (s->ncls / s->nmerged)) : -1;
}

/* p99 of every class of the slot's second (and of the merged columns), then free the slot. */
static void finish_slot(struct series *s, struct series_slot *slot)
{
	struct sec_cls *r = row(s, slot->sec);

	for (unsigned c = 0; c < s->ncls; c++) {
		uint64_t p = hist_buckets_percentile(slot->b[c], r[c].ops, 99);
		r[c].p99_ns = p < r[c].max_ns ? p : r[c].max_ns;
	}
	for (unsigned m = 0, per = s->nmerged ? s->ncls / s->nmerged : 0; m < s->nmerged; m++) {
		memset(s->scratch, 0, HIST_BUCKETS * sizeof(*s->scratch));
		for (unsigned c = m * per; c < (m + 1) * per; c++)
			for (unsigned i = 0; i < HIST_BUCKETS; i++)
				s->scratch[i] += slot->b[c][i];
		struct sec_cls *t = &r[s->ncls + m];
		uint64_t p = hist_buckets_percentile(s->scratch, t->ops, 99);
		t->p99_ns = p < t->max_ns ? p : t->max_ns;
	}
	memset(slot->b, 0, s->ncls * sizeof(*slot->b));
	slot->sec = -1;
}

void series_add(struct series *s, int64_t sec, const struct ival_cls *c)
{
	if (sec < 0)
		return;
	grow(s, sec);
	struct sec_cls *r = row(s, sec);
	for (unsigned k = 0; k < s->ncls; k++) {
		r[k].ops += c[k].ops;
		r[k].bytes += c[k].bytes;
		r[k].sum_ns += c[k].sum_ns;
		if (c[k].max_ns > r[k].max_ns)
			r[k].max_ns = c[k].max_ns;
		int m = merged_col(s, k);
		if (m >= 0) {
			struct sec_cls *t = &r[s->ncls + (unsigned)m];
			t->ops += c[k].ops;
			t->bytes += c[k].bytes;
			t->sum_ns += c[k].sum_ns;
			if (c[k].max_ns > t->max_ns)
				t->max_ns = c[k].max_ns;
		}
	}
	if (sec < s->flushed)
		return;                 /* late: exact counters only */
	struct series_slot *slot = &s->ring[sec % SERIES_RING];
	if (slot->sec != sec) {
		if (slot->sec > sec)
			return;         /* the ring has moved on past this second */
		if (slot->sec >= 0)
			finish_slot(s, slot);
		slot->sec = sec;
	}
	for (unsigned k = 0; k < s->ncls; k++)
		for (unsigned i = 0; i < HIST_BUCKETS; i++)
			slot->b[k][i] += c[k].b[i];
}

void series_flush_before(struct series *s, int64_t sec)
{
	for (int64_t want = s->flushed; want < sec && want < (int64_t)s->nsec; want++) {
		struct series_slot *slot = &s->ring[want % SERIES_RING];
		if (slot->sec == want)
			finish_slot(s, slot);
	}
	if (sec > s->flushed)
		s->flushed = sec < (int64_t)s->nsec ? sec : (int64_t)s->nsec;
}

void series_second(const struct series *s, int64_t sec, int cls, struct sec_cls *out)
{
	memset(out, 0, sizeof(*out));
	if (sec < 0 || sec >= (int64_t)s->nsec)
		return;
	const struct sec_cls *r = row(s, sec);
	/* "all of them": the classes the first merged column (the total) sums */
	unsigned all = s->nmerged ? s->ncls / s->nmerged : s->ncls;
	for (unsigned k = 0; k < s->ncls; k++) {
		if (cls >= 0 ? (unsigned)cls != k : k >= all)
			continue;
		out->ops += r[k].ops;
		out->bytes += r[k].bytes;
		out->sum_ns += r[k].sum_ns;
	}
}

void series_export(const struct series *s, struct point_result *p, double secs)
{
	/* seconds in which nothing completed stay in the series, as zeros */
	unsigned n = secs > 0 ? (unsigned)ceil(secs - 1e-9) : 0;
	unsigned have = n < s->nsec ? n : s->nsec;
	p->nsec = n;
	p->series = xcalloc(n ? n : 1, s->ncol * sizeof(*p->series));
	p->sec_dur = xcalloc(n ? n : 1, sizeof(*p->sec_dur));
	if (have)
		memcpy(p->series, s->sec, (size_t)have * s->ncol * sizeof(*s->sec));
	for (unsigned i = 0; i < n; i++)
		p->sec_dur[i] = i + 1 < n ? 1.0 : secs - (double)i;
}
