/*
 * dbm_undo.c - InnoDB's undo pages: cached per rollback segment, created,
 * freed after purge (dbm_undo.h).
 */
#include "dbm_undo.h"

#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"

void dbm_undo_init(struct dbm_undo *u, uint64_t first, uint32_t pages)
{
	memset(u, 0, sizeof(*u));
	u->free = xmalloc(pages * sizeof(*u->free));
	u->used = xcalloc(pages, 1);
	u->first = first;
	u->pages = pages;
	/* the area's first page on top: taken first */
	for (uint32_t i = 0; i < pages; i++)
		u->free[i] = pages - 1 - i;
	u->nfree = pages;
	pthread_mutex_init(&u->mx, NULL);
}

void dbm_undo_release(struct dbm_undo *u)
{
	if (u->free)
		pthread_mutex_destroy(&u->mx);
	free(u->free);
	free(u->used);
	u->free = NULL;
	u->used = NULL;
}

/* Page @i of the area is free. u->mx held. */
static void put_page(struct dbm_undo *u, uint32_t i)
{
	if (u->used[i]) {       /* a page shared when all were in use is freed once */
		u->used[i] = 0;
		u->free[u->nfree++] = i;
	}
}

/* A page for a new undo segment or a log's next page. u->mx held. */
static uint32_t take_page(struct dbm_undo *u)
{
	uint32_t i;

	if (u->nfree) {
		i = u->free[--u->nfree];
	} else {        /* all in use (purge far behind): share one */
		i = u->cursor;
		u->cursor = (u->cursor + 1) % u->pages;
	}
	u->used[i] = 1;
	return i;
}

uint64_t dbm_undo_add(struct dbm_undo *u, struct dbm_undo_log *log, uint32_t bytes,
		      uint32_t page_size, bool *created)
{
	*created = false;
	if (!log->npages) {
		log->rseg = atomic_fetch_add_explicit(&u->next_rseg, 1, memory_order_relaxed) % DBM_RSEGS;
		pthread_mutex_lock(&u->mx);
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
