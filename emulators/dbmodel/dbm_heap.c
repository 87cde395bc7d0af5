/*
 * dbm_heap.c - PostgreSQL heap pages' dead tuples and room (see dbm_heap.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "dbm_heap.h"

#define NIB 15u
/* a page's state: dead tuples not pruned (bits 0-3), tuples' worth of
   room (4-7), and how many of those dead are not HOT versions (8-11) */
#define ROOM(v) (((v) >> 4) & NIB)
#define NONHOT(v) (((v) >> 8) & NIB)
/* heap_page_prune_opt() prunes only a page less than 10% free (819 of 8,192
   bytes): SysBench's tuples, 36 a page, three tuples' room (3 x 220 + the
   load's 28 spare) is, four are not; a tenth of the tuples a page holds in
   general (tpcc's stock, 24 a page: 3; customer, 13: 2) */
#define PRUNE_ROOM(h) ((h)->per_page ? ((h)->per_page + 9) / 10 : 4u)

int dbm_heap_init(struct dbm_heap *h, uint64_t first_page, uint64_t npages)
{
	h->st = calloc(npages ? npages : 1, sizeof(*h->st));
	h->changed = calloc(npages ? npages : 1, sizeof(*h->changed));
	h->died = calloc(npages ? npages : 1, sizeof(*h->died));
	h->first = first_page;
	h->npages = npages;
	atomic_init(&h->n_dead, 0);
	atomic_init(&h->n_changed, 0);
	atomic_init(&h->appended, 0);
	h->loc = NULL;
	h->rows = h->loaded = 0;
	h->per_page = 0;
	if (h->st && h->changed && h->died)
		return 0;
	dbm_heap_release(h);
	return -ENOMEM;
}

void dbm_heap_release(struct dbm_heap *h)
{
	free((void *)h->st);
	free((void *)h->changed);
	free((void *)h->died);
	free((void *)h->loc);
	h->st = NULL;
	h->changed = NULL;
	h->died = NULL;
	h->loc = NULL;
	h->npages = 0;
}

static _Atomic uint16_t *slot(struct dbm_heap *h, uint64_t page)
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

/*
 * A prune frees the dead tuples' space. A HOT version it removes is gone;
 * a non-HOT one (an index entry points at it) leaves an LP_DEAD item that
 * only VACUUM frees: n_dead_tup is lowered by the HOT ones alone
 * (heap_page_prune_opt(): ndeleted - nnewlpdead, PostgreSQL 14+), the
 * others stay counted until the table's VACUUM (dbm_heap_vacuumed()).
 */
bool dbm_heap_read(struct dbm_heap *h, uint64_t page, uint64_t horizon)
{
	_Atomic uint16_t *s = slot(h, page);
	if (!s || atomic_load_explicit(&h->died[page - h->first], memory_order_relaxed) >= horizon)
		return false;
	uint16_t v = atomic_load_explicit(s, memory_order_relaxed), nv;
	do {
		unsigned dead = v & NIB, room = ROOM(v);
		if (!dead || room >= PRUNE_ROOM(h))
			return false;
		room = room + dead > NIB ? NIB : room + dead;
		nv = (uint16_t)(room << 4);
	} while (!atomic_compare_exchange_weak_explicit(s, &v, nv, memory_order_relaxed,
							memory_order_relaxed));
	atomic_fetch_sub_explicit(&h->n_dead, (v & NIB) - NONHOT(v), memory_order_relaxed);
	return true;
}

bool dbm_heap_take_room(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint16_t *s = slot(h, page);
	if (!s)
		return false;
	uint16_t v = atomic_load_explicit(s, memory_order_relaxed);
	do {
		if (!ROOM(v))
			return false;
	} while (!atomic_compare_exchange_weak_explicit(s, &v, (uint16_t)(v - 16), memory_order_relaxed,
							memory_order_relaxed));
	mark_changed(h, page);
	return true;
}

void dbm_heap_dead(struct dbm_heap *h, uint64_t page, bool hot, uint64_t now)
{
	_Atomic uint16_t *s = slot(h, page);
	if (!s)
		return;
	atomic_fetch_add_explicit(&h->n_changed, 1, memory_order_relaxed);
	_Atomic uint64_t *d = &h->died[page - h->first];
	if (atomic_load_explicit(d, memory_order_relaxed) < now)
		atomic_store_explicit(d, now, memory_order_relaxed);
	mark_changed(h, page);
	uint16_t v = atomic_load_explicit(s, memory_order_relaxed);
	do {
		if ((v & NIB) == NIB)
			return;
	} while (!atomic_compare_exchange_weak_explicit(s, &v, (uint16_t)(v + 1 + (hot ? 0 : 1u << 8)),
							memory_order_relaxed, memory_order_relaxed));
	atomic_fetch_add_explicit(&h->n_dead, 1, memory_order_relaxed);
}

void dbm_heap_fresh(struct dbm_heap *h, uint64_t page)
{
	_Atomic uint16_t *s = slot(h, page);
	if (!s)
		return;
	atomic_store_explicit(&h->changed[page - h->first], 0, memory_order_relaxed);
	atomic_store_explicit(&h->died[page - h->first], 0, memory_order_relaxed);
	uint16_t v = atomic_exchange_explicit(s, 0, memory_order_relaxed);
	atomic_fetch_sub_explicit(&h->n_dead, v & NIB, memory_order_relaxed);
}

bool dbm_heap_changed(const struct dbm_heap *h, uint64_t page)
{
	return h->changed && page >= h->first && page - h->first < h->npages &&
	       atomic_load_explicit(&h->changed[page - h->first], memory_order_relaxed);
}

unsigned dbm_heap_vacuum(struct dbm_heap *h, uint64_t page, bool *changed)
{
	_Atomic uint16_t *s = slot(h, page);
	*changed = false;
	if (!s)
		return 0;
	*changed = atomic_exchange_explicit(&h->changed[page - h->first], 0, memory_order_relaxed);
	uint16_t v = atomic_load_explicit(s, memory_order_relaxed), nv;
	unsigned dead;
	do {
		unsigned room = ROOM(v);
		dead = v & NIB;
		room = room + dead > NIB ? NIB : room + dead;
		nv = (uint16_t)(room << 4);
	} while (!atomic_compare_exchange_weak_explicit(s, &v, nv, memory_order_relaxed,
							memory_order_relaxed));
	return dead;
}

void dbm_heap_vacuumed(struct dbm_heap *h, int64_t dead_before)
{
	atomic_fetch_sub_explicit(&h->n_dead, dead_before, memory_order_relaxed);
}

/* A row's location: 0 its loaded page, else 1 + its slot at the heap's end.
   loc[row] holds the live one in its low half and, in its high half, 1 +
   an older one whose index entry is live (0: none). */
#define LIVE 0xffffffffu

static uint64_t loc_page(const struct dbm_heap *h, uint64_t row, uint64_t code)
{
	return h->first + (code ? h->loaded + (code - 1) / h->per_page : row / h->per_page);
}

int dbm_heap_rows(struct dbm_heap *h, uint64_t rows, uint32_t per_page)
{
	uint64_t loaded = per_page ? (rows + per_page - 1) / per_page : 0;

	if (!rows || !per_page || loaded >= h->npages || (h->npages - loaded) * per_page >= LIVE)
		return -EINVAL;
	free((void *)h->loc);
	h->loc = calloc(rows, sizeof(*h->loc));
	if (!h->loc)
		return -ENOMEM;
	h->rows = rows;
	h->loaded = loaded;
	h->per_page = per_page;
	return 0;
}

uint64_t dbm_heap_row_page(const struct dbm_heap *h, uint64_t row)
{
	return loc_page(h, row, atomic_load_explicit(&h->loc[row], memory_order_relaxed) & LIVE);
}

uint64_t dbm_heap_row_kill(struct dbm_heap *h, uint64_t row)
{
	uint64_t v = atomic_load_explicit(&h->loc[row], memory_order_relaxed);

	/* a concurrent change of the row wins: its own fetch kills the entry */
	if (!(v >> 32) || !atomic_compare_exchange_strong_explicit(&h->loc[row], &v, v & LIVE,
								    memory_order_relaxed,
								    memory_order_relaxed))
		return DBM_HEAP_NONE;
	return loc_page(h, row, (v >> 32) - 1);
}

uint64_t dbm_heap_row_move(struct dbm_heap *h, uint64_t row, bool *fresh)
{
	uint64_t n = atomic_fetch_add_explicit(&h->appended, 1, memory_order_relaxed);
	uint64_t slot = n % ((h->npages - h->loaded) * h->per_page);
	uint64_t page = h->first + h->loaded + slot / h->per_page;
	uint64_t live = atomic_load_explicit(&h->loc[row], memory_order_relaxed) & LIVE;

	*fresh = slot % h->per_page == 0;
	if (*fresh)
		dbm_heap_fresh(h, page);
	atomic_store_explicit(&h->loc[row], (live + 1) << 32 | (slot + 1), memory_order_relaxed);
	return page;
}
