/*
 * dbm_undo.c - InnoDB's undo pages: cached per rollback segment, created,
 * freed after purge (dbm_undo.h).
 */
#include "dbm_undo.h"

#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"

#define FULL_MASK(n) ((n) >= 64 ? ~0ULL : (1ULL << (n)) - 1)

void dbm_undo_init(struct dbm_undo *u, uint64_t first, uint32_t pages)
{
	memset(u, 0, sizeof(*u));
	u->first = first;
	u->pages = pages;
	u->next = (pages + DBM_UNDO_EXTENT - 1) / DBM_UNDO_EXTENT;
	u->mask = xcalloc(u->next, sizeof(*u->mask));
	u->frag = xmalloc(u->next * sizeof(*u->frag));
	u->empty = xmalloc(u->next * sizeof(*u->empty));
	if (pages % DBM_UNDO_EXTENT)    /* a last extent cut short: its missing pages in use */
		u->mask[u->next - 1] = ~FULL_MASK(pages % DBM_UNDO_EXTENT);
	u->nfree = pages;
	pthread_mutex_init(&u->mx, NULL);
}

void dbm_undo_release(struct dbm_undo *u)
{
	if (u->mask)
		pthread_mutex_destroy(&u->mx);
	free(u->mask);
	free(u->frag);
	free(u->empty);
	u->mask = NULL;
	u->frag = u->empty = NULL;
}

/* Extent @e leaves list @l of @n (it is on it). */
static void list_remove(uint32_t *l, uint32_t *n, uint32_t e)
{
	uint32_t k = 0;

	while (l[k] != e)
		k++;
	memmove(&l[k], &l[k + 1], (--*n - k) * sizeof(*l));
}

/* Page @i of the area is free. u->mx held. */
static void put_page(struct dbm_undo *u, uint32_t i)
{
	uint32_t e = i / DBM_UNDO_EXTENT;
	uint64_t bit = 1ULL << (i % DBM_UNDO_EXTENT);

	if (!(u->mask[e] & bit))        /* a page shared when all were in use is freed once */
		return;
	if (u->mask[e] == ~0ULL)        /* full: to the tail of the fragment extents */
		u->frag[u->nfrag++] = e;
	u->mask[e] &= ~bit;
	u->nfree++;
	if (!u->mask[e]) {              /* all free: to the tail of the free extents */
		list_remove(u->frag, &u->nfrag, e);
		u->empty[u->nempty++] = e;
	}
}

/* A page for a new undo segment or a log's next page. u->mx held. */
static uint32_t take_page(struct dbm_undo *u)
{
	if (!u->nfree) {        /* all in use (purge far behind): share one */
		uint32_t i = u->cursor;
		u->cursor = (u->cursor + 1) % u->pages;
		return i;
	}
	if (!u->nfrag) {        /* the first free extent, or one not used yet */
		uint32_t e = u->nempty ? u->empty[0] : u->limit++;
		if (u->nempty)
			list_remove(u->empty, &u->nempty, e);
		u->frag[u->nfrag++] = e;
	}
	uint32_t e = u->frag[0];
	unsigned b = (unsigned)__builtin_ctzll(~u->mask[e]);
	u->mask[e] |= 1ULL << b;
	u->nfree--;
	if (u->mask[e] == ~0ULL)
		list_remove(u->frag, &u->nfrag, e);
	return e * DBM_UNDO_EXTENT + b;
}

uint64_t dbm_undo_add(struct dbm_undo *u, struct dbm_undo_log *log, uint32_t bytes,
		      uint32_t page_size, bool *created)
{
	*created = false;
	if (!log->npages) {
		log->rseg = atomic_fetch_add_explicit(&u->next_rseg, 1, memory_order_relaxed) % DBM_RSEGS;
		pthread_mutex_lock(&u->mx);
		log->tag = ++u->rseg[log->rseg].turns;
		if (u->rseg[log->rseg].n) {
			uint32_t n = --u->rseg[log->rseg].n;
			log->page[0] = u->first + u->rseg[log->rseg].page[n];
			log->fill = u->rseg[log->rseg].fill[n];
		} else {
			log->page[0] = u->first + take_page(u);
			log->fill = 0;
			*created = true;
		}
		pthread_mutex_unlock(&u->mx);
		log->npages = 1;
		log->fill += DBM_UNDO_LOG_HDR;
	}
	if (log->fill + bytes > page_size && log->fill > DBM_UNDO_LOG_HDR) {
		/* the log goes on to a page of its own (trx_undo_add_page()) */
		pthread_mutex_lock(&u->mx);
		if (log->npages == DBM_UNDO_LOG_PAGES)  /* not tracked: free at once */
			put_page(u, (uint32_t)(log->page[--log->npages] - u->first));
		log->page[log->npages++] = u->first + take_page(u);
		pthread_mutex_unlock(&u->mx);
		log->fill = 0;
		*created = true;
	}
	log->fill += bytes;
	return log->page[log->npages - 1];
}

bool dbm_undo_end(struct dbm_undo *u, struct dbm_undo_log *log, uint32_t page_size)
{
	if (!log->npages || log->npages > 1 || log->fill >= page_size / 4 * 3)
		return false;
	bool cached = false;
	pthread_mutex_lock(&u->mx);
	if (u->rseg[log->rseg].n < DBM_RSEG_CACHED) {
		uint32_t n = u->rseg[log->rseg].n++;
		u->rseg[log->rseg].page[n] = (uint32_t)(log->page[0] - u->first);
		u->rseg[log->rseg].fill[n] = log->fill;
		cached = true;
	}
	pthread_mutex_unlock(&u->mx);
	if (cached)
		log->npages = 0;
	return cached;
}

void dbm_undo_free(struct dbm_undo *u, uint64_t page)
{
	if (!dbm_undo_has(u, page))
		return;
	pthread_mutex_lock(&u->mx);
	put_page(u, (uint32_t)(page - u->first));
	pthread_mutex_unlock(&u->mx);
}

bool dbm_undo_uncache(struct dbm_undo *u, uint32_t rseg, uint64_t page, uint32_t tag)
{
	bool freed = false;

	pthread_mutex_lock(&u->mx);
	if (u->rseg[rseg].turns == tag) {
		uint32_t i = (uint32_t)(page - u->first), n = u->rseg[rseg].n;
		for (uint32_t k = 0; k < n && !freed; k++) {
			if (u->rseg[rseg].page[k] != i)
				continue;
			/* the rest keep their order: the newest is taken first */
			memmove(&u->rseg[rseg].page[k], &u->rseg[rseg].page[k + 1], (n - k - 1) * sizeof(uint32_t));
			memmove(&u->rseg[rseg].fill[k], &u->rseg[rseg].fill[k + 1], (n - k - 1) * sizeof(uint32_t));
			u->rseg[rseg].n--;
			put_page(u, i);
			freed = true;
		}
	}
	pthread_mutex_unlock(&u->mx);
	return freed;
}

void dbm_undo_touch(struct dbm_undo *u, uint32_t extents)
{
	pthread_mutex_lock(&u->mx);
	while (u->limit < extents && u->limit < u->next) {
		uint32_t e = u->limit++;
		if (u->mask[e])         /* partly in use (a cut-short last extent) */
			u->frag[u->nfrag++] = e;
		else
			u->empty[u->nempty++] = e;
	}
	pthread_mutex_unlock(&u->mx);
}
