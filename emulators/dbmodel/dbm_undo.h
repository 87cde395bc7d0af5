/*
 * dbm_undo.h - InnoDB's undo logs and rollback segments, as MariaDB 10.6+
 * keeps them: which undo page a transaction's undo records go to, which
 * pages are created, reused and freed.
 *
 * A read-write transaction takes the next of the 128 rollback segments in
 * turn (trx_assign_rseg_low()). Its undo log goes on an undo page that
 * segment has cached, after the logs of the transactions that used the page
 * before (trx_undo_reuse_cached()), or on a new page when it has none (a
 * new undo segment: the page is created, not read). At its end a log that
 * fits one page, the page less than 3/4 full (TRX_UNDO_PAGE_REUSE_LIMIT),
 * leaves the page cached for the segment's next transaction
 * (trx_undo_set_state_at_finish(): TRX_UNDO_CACHED); otherwise its pages
 * are freed once purge has processed it (trx_purge_free_segment()). A
 * cached page is freed too when purge removes its newest log from the
 * history before another transaction has taken the rollback segment
 * (purge_sys_t::iterator::free_history_rseg(): the last log on a page in
 * state TRX_UNDO_CACHED goes as one TRX_UNDO_TO_PURGE would). So a segment
 * keeps its page only when its turn comes again within purge's lag: at full
 * speed with the data in the pool MariaDB 10.11 kept 128 undo pages, all
 * dirty, and wrote about one a rollback segment a 15 s point; at 120
 * transactions a second it kept as many as its history list was long
 * (10-110), freeing and creating about a page every two transactions. In
 * a pool too small to keep them they are read back and written again
 * between two uses (a 32M pool: 1.0-1.7 undo pages written and 0.2-0.8 read
 * a SysBench transaction).
 *
 * A freed page stays in the pool until a flush reaches it (which drops its
 * write), the LRU's tail does, or the page is taken again. The pages come
 * from a fixed area of 64-page extents, taken as the system tablespace
 * takes a new segment's page (fsp_alloc_free_page()): the lowest free page
 * of the first extent on the list of extents partly in use; when none is,
 * the first extent all free, or one never used. An extent that fills leaves
 * the list; one with a page freed again joins its tail; one all free goes
 * to the tail of the free extents. So new pages sweep through every extent
 * once used, and a page freed waits for its extent's turn: MariaDB 10.11 at
 * 120 transactions a second had its undo pages in two to four extents at a
 * time, moving through extents 4-12 of its system tablespace within 25 s,
 * and 470-620 freed pages in its pool. When every page is in use, pages
 * are taken in turn from the whole area, shared. One mutex
 * (the rollback segments' latches and the tablespace's, together), taken
 * twice a transaction.
 */
#ifndef APPIO_DBM_UNDO_H
#define APPIO_DBM_UNDO_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define DBM_RSEGS 128           /* innodb_undo_logs */
#define DBM_RSEG_CACHED 16      /* undo pages a rollback segment keeps cached at most */
#define DBM_UNDO_LOG_PAGES 8    /* pages of one transaction's undo log kept to free after purge */
#define DBM_UNDO_LOG_HDR 64     /* an undo log header's bytes on its page */
#define DBM_UNDO_EXTENT 64      /* pages an extent (FSP_EXTENT_SIZE, 16 KiB pages) */

/* One transaction's undo log (the worker's own state). */
struct dbm_undo_log {
	uint32_t rseg;          /* its rollback segment */
	uint32_t fill;          /* bytes used on its last page */
	uint32_t npages;        /* 0: no undo log yet */
	uint32_t tag;           /* its turn in its rollback segment */
	uint64_t page[DBM_UNDO_LOG_PAGES];
};

struct dbm_undo {
	uint64_t first;                 /* page id of the area's first page */
	uint32_t pages;
	pthread_mutex_t mx;
	uint64_t *mask;                 /* [extent]: its pages taken */
	uint32_t *frag, nfrag;          /* extents partly taken, in the order they are taken from */
	uint32_t *empty, nempty;        /* extents all free, likewise */
	uint32_t limit, next;           /* extents from limit on never taken yet; next in all */
	uint32_t nfree;                 /* pages free */
	uint32_t cursor;                /* the next page taken when none is free */
	_Atomic uint32_t next_rseg;
	struct {
		uint32_t page[DBM_RSEG_CACHED];
		uint32_t fill[DBM_RSEG_CACHED];
		uint32_t n;
		uint32_t turns;         /* logs begun in it so far */
	} rseg[DBM_RSEGS];
};

/* Undo area of @pages pages from page id @first, all free. */
void dbm_undo_init(struct dbm_undo *u, uint64_t first, uint32_t pages);
void dbm_undo_release(struct dbm_undo *u);

/*
 * Add @bytes of undo records to @log (its header first when it has none
 * yet: a rollback segment assigned, a cached page taken or a new one).
 * Returns the page they go to; *@created: a page new to the area (no read
 * on a miss). @page_size: the pages' bytes.
 */
uint64_t dbm_undo_add(struct dbm_undo *u, struct dbm_undo_log *log, uint32_t bytes,
		      uint32_t page_size, bool *created);

/*
 * @log's transaction ended: its page cached for its rollback segment (true),
 * or the log is done with (false): the caller frees its pages, after purge,
 * with dbm_undo_free(). @log is left empty either way when true.
 */
bool dbm_undo_end(struct dbm_undo *u, struct dbm_undo_log *log, uint32_t page_size);

/*
 * Purge has removed from the history the log of turn @tag of rollback
 * segment @rseg, which left @page cached: when no log has begun in the
 * segment since, the page leaves its cache and is free again (true).
 */
bool dbm_undo_uncache(struct dbm_undo *u, uint32_t rseg, uint64_t page, uint32_t tag);

/*
 * The area's first @extents extents have been used and freed (a load's undo
 * logs, purged): on the list of free extents, in order, taken before any
 * extent never used.
 */
void dbm_undo_touch(struct dbm_undo *u, uint32_t extents);

/* @page (a page id in the area) is free again. */
void dbm_undo_free(struct dbm_undo *u, uint64_t page);

/* Whether page id @page is in the undo area. */
static inline bool dbm_undo_has(const struct dbm_undo *u, uint64_t page)
{
	return page >= u->first && page - u->first < u->pages;
}

#endif
