/*
 * tq.c - the bounded min-heap of tq.h. Ties keep no particular order; the
 * callers that need a stable order break ties themselves (none does today).
 */
#include <errno.h>
#include <stdlib.h>

#include "tq.h"

static uint64_t key(const struct tq *q, uint32_t i)
{
	return q->by_complete ? q->v[i].complete_ns : q->v[i].issue_ns;
}

static void swap(struct tq *q, uint32_t a, uint32_t b)
{
	struct trace_rec t = q->v[a];
	q->v[a] = q->v[b];
	q->v[b] = t;
}

#define TQ_FIRST 256

int tq_init(struct tq *q, uint32_t cap, int by_complete)
{
	q->alloc = cap < TQ_FIRST ? cap : TQ_FIRST;
	q->v = malloc((size_t)(q->alloc ? q->alloc : 1) * sizeof(*q->v));
	q->n = 0;
	q->cap = q->v ? cap : 0;
	q->by_complete = by_complete;
	return q->v ? 0 : -ENOMEM;
}

void tq_release(struct tq *q)
{
	free(q->v);
	q->v = NULL;
	q->n = q->alloc = q->cap = 0;
}

int tq_push(struct tq *q, const struct trace_rec *rec)
{
	if (q->n == q->cap)
		return -ENOSPC;
	if (q->n == q->alloc) {
		uint32_t room = q->alloc > q->cap / 2 ? q->cap : q->alloc * 2;
		struct trace_rec *v = realloc(q->v, (size_t)room * sizeof(*v));
		if (!v)
			return -ENOMEM;
		q->v = v;
		q->alloc = room;
	}
	uint32_t i = q->n++;
	q->v[i] = *rec;
	while (i && key(q, (i - 1) / 2) > key(q, i)) {
		swap(q, i, (i - 1) / 2);
		i = (i - 1) / 2;
	}
	return 0;
}

const struct trace_rec *tq_peek(const struct tq *q)
{
	return q->n ? &q->v[0] : NULL;
}

int tq_pop(struct tq *q, struct trace_rec *out)
{
	if (!q->n)
		return 1;
	if (out)
		*out = q->v[0];
	q->v[0] = q->v[--q->n];
	for (uint32_t i = 0;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < q->n && key(q, l) < key(q, m))
			m = l;
		if (r < q->n && key(q, r) < key(q, m))
			m = r;
		if (m == i)
			break;
		swap(q, i, m);
		i = m;
	}
	return 0;
}
