/*
 * dbm_heap.c - PostgreSQL heap pages' dead tuples and room (see dbm_heap.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "dbm_heap.h"

#define NIB 15u

int dbm_heap_init(struct dbm_heap *h, uint64_t first_page, uint64_t npages)
{
	h->st = calloc(npages ? npages : 1, sizeof(*h->st));
	h->first = first_page;
	h->npages = npages;
	return h->st ? 0 : -ENOMEM;
}

void dbm_heap_release(struct dbm_heap *h)
{
	free((void *)h->st);
	h->st = NULL;
	h->npages = 0;
}

static _Atomic uint8_t *slot(struct dbm_heap *h, uint64_t page)
{
	return h->st && page >= h->first && page - h->first < h->npages ? &h->st[page - h->first]
									: NULL;
}

bool dbm_heap_read(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint8_t *s = slot(h, page);
	if (!s)
		return false;
	uint8_t v = atomic_load_explicit(s, memory_order_relaxed), nv;
	do {
		unsigned dead = v & NIB, room = v >> 4;
		if (!dead)
			return false;
		room = room + dead > NIB ? NIB : room + dead;
		nv = (uint8_t)(room << 4);
	} while (!atomic_compare_exchange_weak_explicit(s, &v, nv, memory_order_relaxed,
							memory_order_relaxed));
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
	return true;
}

void dbm_heap_dead(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint8_t *s = slot(h, page);
	if (!s)
		return;
	uint8_t v = atomic_load_explicit(s, memory_order_relaxed);
	do {
		if ((v & NIB) == NIB)
			return;
	} while (!atomic_compare_exchange_weak_explicit(s, &v, (uint8_t)(v + 1), memory_order_relaxed,
							memory_order_relaxed));
}
