/*
 * pair.c - the issue/completion pairing table of pair.h.
 */
#include <errno.h>
#include <stdlib.h>

#include "pair.h"

static uint32_t hash(const struct pair *p, uint32_t dev, uint64_t sector)
{
	uint64_t h = (sector ^ ((uint64_t)dev << 47)) * 0x9e3779b97f4a7c15ull;
	return (uint32_t)(h >> 32) & (p->nb - 1);
}

#define PAIR_FIRST 256

/* A ring of @room slots holding @p's @n requests from slot 0, and its hash. */
static int resize(struct pair *p, uint32_t room)
{
	uint32_t nb;

	for (nb = 2; nb < 2 * room; nb *= 2)
		;
	struct pair_slot *v = calloc(room, sizeof(*v));
	uint32_t *bucket = calloc(nb, sizeof(*bucket));
	if (!v || !bucket) {
		free(v);
		free(bucket);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < p->n; i++)
		v[i] = p->s[(p->head + i) % p->room];
	free(p->s);
	free(p->bucket);
	p->s = v;
	p->bucket = bucket;
	p->nb = nb;
	p->room = room;
	p->head = 0;
	/* the chains anew: find() picks the oldest by its place in the ring, not in the chain */
	for (uint32_t i = 0; i < p->n; i++) {
		if (v[i].state != 1)
			continue;
		uint32_t *b = &bucket[hash(p, v[i].rec.dev, v[i].sector)];
		v[i].next = *b;
		*b = i + 1;
	}
	return 0;
}

int pair_init(struct pair *p, uint32_t cap)
{
	*p = (struct pair){ .cap = cap };
	int rc = resize(p, cap < PAIR_FIRST ? cap : PAIR_FIRST);
	if (rc)
		pair_release(p);
	return rc;
}

void pair_release(struct pair *p)
{
	free(p->s);
	free(p->bucket);
	p->s = NULL;
	p->bucket = NULL;
	p->n = 0;
}

/* The chain link that points at the oldest waiting slot for (dev, sector), or NULL. */
static uint32_t *find(struct pair *p, uint32_t dev, uint64_t sector)
{
	uint32_t *link = &p->bucket[hash(p, dev, sector)], *best = NULL;
	uint32_t best_age = UINT32_MAX;

	for (; *link; link = &p->s[*link - 1].next) {
		struct pair_slot *s = &p->s[*link - 1];
		uint32_t age = (*link - 1 + p->room - p->head) % p->room;
		if (s->rec.dev == dev && s->sector == sector && age < best_age) {
			best = link;
			best_age = age;
		}
	}
	return best;
}

int pair_issue(struct pair *p, struct trace_rec *rec, uint64_t sector, struct trace_devs *ds)
{
	if (!p->dups && find(p, rec->dev, sector))
		return 1;
	if (p->n == p->cap)
		return -ENOSPC;
	if (p->n == p->room) {
		int rc = resize(p, p->room > p->cap / 2 ? p->cap : p->room * 2);
		if (rc)
			return rc;
	}
	uint32_t i = (p->head + p->n++) % p->room;
	uint32_t *b = &p->bucket[hash(p, rec->dev, sector)];
	struct pair_slot *s = &p->s[i];

	rec->inflight = ++ds->d[rec->dev].pending;
	s->rec = *rec;
	s->sector = sector;
	s->state = 1;
	s->next = *b;
	*b = i + 1;
	return 0;
}

/* Unlink the slot @link points at from its chain and mark it done. */
static void finish(struct pair *p, uint32_t *link, struct trace_devs *ds)
{
	struct pair_slot *s = &p->s[*link - 1];

	*link = s->next;
	s->next = 0;
	s->state = 2;
	ds->d[s->rec.dev].pending--;
}

int pair_complete(struct pair *p, uint32_t dev, uint64_t sector, uint64_t t_ns,
		  struct trace_devs *ds)
{
	uint32_t *link = find(p, dev, sector);

	if (!link)
		return 0;
	struct pair_slot *s = &p->s[*link - 1];
	s->rec.complete_ns = t_ns != TRACE_NS_UNKNOWN && t_ns < s->rec.issue_ns ?
			     s->rec.issue_ns : t_ns;
	finish(p, link, ds);
	return 1;
}

int pair_cancel(struct pair *p, uint32_t dev, uint64_t sector, struct trace_devs *ds)
{
	uint32_t *link = find(p, dev, sector);

	if (!link)
		return 0;
	struct pair_slot *s = &p->s[*link - 1];
	finish(p, link, ds);
	s->state = 3;
	return 1;
}

int pair_pop(struct pair *p, struct trace_rec *out, int drain, struct trace_devs *ds)
{
	while (p->n && p->s[p->head].state == 3) {
		p->s[p->head].state = 0;
		p->head = (p->head + 1) % p->room;
		p->n--;
	}
	if (!p->n)
		return 1;
	struct pair_slot *s = &p->s[p->head];
	if (s->state == 1) {
		if (!drain)
			return 1;
		finish(p, find(p, s->rec.dev, s->sector), ds);
	}
	*out = s->rec;
	s->state = 0;
	p->head = (p->head + 1) % p->room;
	p->n--;
	return 0;
}
