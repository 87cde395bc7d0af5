/*
 * dbm_heap.c - PostgreSQL heap pages' dead tuples and room (see dbm_heap.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "dbm_heap.h"

#define NIB 15u
/* heap_page_prune_opt() prunes only a page less than 10% free (819 of 8,192
   bytes): three tuples' room (3 x 220 + the load's 28 spare) is, four are not */
#define PRUNE_ROOM 4u

int dbm_heap_init(struct dbm_heap *h, uint64_t first_page, uint64_t npages)
{
	h->st = calloc(npages ? npages : 1, sizeof(*h->st));
	h->changed = calloc(npages ? npages : 1, sizeof(*h->changed));
	h->first = first_page;
	h->npages = npages;
	atomic_init(&h->n_dead, 0);
	atomic_init(&h->n_changed, 0);
	if (h->st && h->changed)
		return 0;
	dbm_heap_release(h);
	return -ENOMEM;
}

void dbm_heap_release(struct dbm_heap *h)
{
	free((void *)h->st);
	free((void *)h->changed);
	h->st = h->changed = NULL;
	h->npages = 0;
}

static _Atomic uint8_t *slot(struct dbm_heap *h, uint64_t page)
{
	return h->st && page >= h->first && page - h->first < h->npages ? &h->st[page - h->first]
									: NULL;
}

/* The page changed: no longer all-visible (a load first: most pages already are not). */
static void mark_changed(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint8_t *c = &h->changed[page - h->first];
	if (!atomic_load_explicit(c, memory_order_relaxed))
		atomic_store_explicit(c, 1, memory_order_relaxed);
}

bool dbm_heap_read(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint8_t *s = slot(h, page);
	if (!s)
		return false;
	uint8_t v = atomic_load_explicit(s, memory_order_relaxed), nv;
	do {
		unsigned dead = v & NIB, room = v >> 4;
		if (!dead || room >= PRUNE_ROOM)
			return false;
		room = room + dead > NIB ? NIB : room + dead;
		nv = (uint8_t)(room << 4);
	} while (!atomic_compare_exchange_weak_explicit(s, &v, nv, memory_order_relaxed,
							memory_order_relaxed));
	atomic_fetch_sub_explicit(&h->n_dead, v & NIB, memory_order_relaxed);
	return true;
}

bool dbm_heap_take_room(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint8_t *s = slot(h, page);
	if (!s)
		return false;
	uint8_t v = atomic_load_explicit(s, memory_order_relaxed);
	do {
		if (!(v >> 4))
			return false;
	} while (!atomic_compare_exchange_weak_explicit(s, &v, (uint8_t)(v - 16), memory_order_relaxed,
							memory_order_relaxed));
	mark_changed(h, page);
	return true;
}

void dbm_heap_dead(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint8_t *s = slot(h, page);
	if (!s)
		return;
	atomic_fetch_add_explicit(&h->n_changed, 1, memory_order_relaxed);
	mark_changed(h, page);
	uint8_t v = atomic_load_explicit(s, memory_order_relaxed);
	do {
		if ((v & NIB) == NIB)
			return;
	} while (!atomic_compare_exchange_weak_explicit(s, &v, (uint8_t)(v + 1), memory_order_relaxed,
							memory_order_relaxed));
	atomic_fetch_add_explicit(&h->n_dead, 1, memory_order_relaxed);
}

void dbm_heap_fresh(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint8_t *s = slot(h, page);
	if (!s)
		return;
	atomic_store_explicit(&h->changed[page - h->first], 0, memory_order_relaxed);
	uint8_t v = atomic_exchange_explicit(s, 0, memory_order_relaxed);
	atomic_fetch_sub_explicit(&h->n_dead, v & NIB, memory_order_relaxed);
}

bool dbm_heap_changed(const struct dbm_heap *h, uint64_t page)
{
	return h->changed && page >= h->first && page - h->first < h->npages &&
	       atomic_load_explicit(&h->changed[page - h->first], memory_order_relaxed);
}

unsigned dbm_heap_vacuum(struct dbm_heap *h, uint64_t page, bool *changed)
{
	_Atomic uint8_t *s = slot(h, page);
	*changed = false;
	if (!s)
		return 0;
	*changed = atomic_exchange_explicit(&h->changed[page - h->first], 0, memory_order_relaxed);
	uint8_t v = atomic_load_explicit(s, memory_order_relaxed), nv;
	unsigned dead;
	do {
		unsigned room = v >> 4;
		dead = v & NIB;
		room = room + dead > NIB ? NIB : room + dead;
		nv = (uint8_t)(room << 4);
	} while (!atomic_compare_exchange_weak_explicit(s, &v, nv, memory_order_relaxed,
							memory_order_relaxed));
	atomic_fetch_sub_explicit(&h->n_dead, dead, memory_order_relaxed);
	return dead;
}
