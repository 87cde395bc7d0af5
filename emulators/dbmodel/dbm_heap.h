/*
 * dbm_heap.h - PostgreSQL heap pages' dead tuples and free room: where an
 * UPDATE's new version goes (HOT or not) and which reads prune.
 *
 * A heap page as loaded (fillfactor 100) has no room: SysBench's 216-byte
 * tuples fill it. An UPDATE whose new version does not fit on the old
 * tuple's page puts it elsewhere (the relation's end: without VACUUM the
 * free-space map stays empty) and, its heap TID changing, inserts an entry
 * into every index (heap_update(): not HOT). The old version, and a deleted
 * tuple, stay on the page as dead tuples. The next access that fetches the
 * page once they are dead to every snapshot prunes it
 * (heap_page_prune_opt(), called from index fetches and scans, when the
 * page is less than 10% free, as a full heap page always is; a page with
 * more room is left): the dead tuples' space is freed, WAL-logged
 * (XLOG_HEAP2_PRUNE) and the page dirtied. A later UPDATE of a row on that
 * page finds room for its new version there: HOT when no indexed column
 * changed (no index entries), else on the same page with new index entries.
 * Dead to every snapshot means dead before the oldest transaction still
 * running began (or a running ANALYZE: its snapshot holds them too), so a
 * page changed again before then has no room, and its new version is not
 * HOT: on tpcc's stock, 2-4% of the UPDATEs after the warm-up on
 * PostgreSQL 15 (n_tup_hot_upd), where pruning at once gave 0.1-0.3%.
 *
 * Per page: dead tuples not yet pruned, and tuples' worth of room, each
 * counted to 15; when its newest dead tuple died; and whether it changed
 * since VACUUM last saw it (it is not all-visible: VACUUM will set its
 * visibility-map bit and dirty it). The
 * heap starts vacuumed (dbm_vacuum.h). Pages outside the range are ignored
 * (no prune, no room). Thread-safe: atomic bytes a page, and the counts
 * autovacuum reads: the dead tuples not yet vacuumed (pg_stat's
 * n_dead_tup, which a prune lowers by the HOT versions it removes:
 * pgstat_update_heap_dead_tuples()) and the tuples updated or deleted
 * since the start.
 */
#ifndef APPIO_DBM_HEAP_H
#define APPIO_DBM_HEAP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct dbm_heap {
	_Atomic uint16_t *st;           /* per page: dead tuples, room, non-HOT dead (dbm_heap.c) */
	_Atomic uint8_t *changed;       /* 1: changed since the last vacuum of the page */
	_Atomic uint64_t *died;         /* per page: when its newest dead tuple died (ns) */
	uint64_t first, npages;
	_Atomic int64_t n_dead;         /* dead tuples on the pages, not pruned or vacuumed */
	_Atomic uint64_t n_changed;     /* tuples updated or deleted so far */
	/* rows (dbm_heap_rows()): */
	_Atomic uint64_t *loc;          /* per row: where its versions are (dbm_heap.c) */
	uint64_t rows, loaded;          /* rows, and the pages they were loaded on */
	uint32_t per_page;              /* tuples a page holds */
	_Atomic uint64_t appended;      /* tuples appended at the heap's end so far */
};

/* Pages [@first_page, @first_page + @npages), full and without dead tuples. 0 or -ENOMEM. */
int dbm_heap_init(struct dbm_heap *h, uint64_t first_page, uint64_t npages);
void dbm_heap_release(struct dbm_heap *h);

/* A fetch of @page: true when it prunes (it had dead tuples, all of them
   dead before @horizon (ns; UINT64_MAX: any), and less than 10% free: they
   become room). */
bool dbm_heap_read(struct dbm_heap *h, uint64_t page, uint64_t horizon);

/* An UPDATE's new version: true when it fits on @page (a tuple's room, taken). */
bool dbm_heap_take_room(struct dbm_heap *h, uint64_t page);

/* A change that leaves a dead tuple on @page (an UPDATE's old version, a
   DELETE); @hot: the old version of a HOT update, which a prune removes
   whole (the others leave an LP_DEAD item, counted dead until VACUUM); it
   died at @now (ns). */
void dbm_heap_dead(struct dbm_heap *h, uint64_t page, bool hot, uint64_t now);

/* @page begins again, empty (the model reuses the pages appended at the heap's end). */
void dbm_heap_fresh(struct dbm_heap *h, uint64_t page);

/*
 * Rows move. A version that does not fit on its page (a non-HOT UPDATE, the
 * INSERT of DELETE + INSERT) goes to the heap's end, and every index gets
 * an entry for it; the old entry stays, pointing at a dead tuple, until the
 * first index scan that finds that tuple dead to every snapshot marks it
 * LP_DEAD (_bt_killitems()). Per row the heap keeps where its live version
 * is and the page of an older version whose entry no scan has killed yet.
 * Under SysBench's --rand-type special the rows most drawn are the ones
 * most changed: their live versions end up spread over the appended pages,
 * not on the few pages they were loaded on.
 *
 * dbm_heap_rows(): @rows rows, @per_page to a page, loaded in order on the
 * first pages; the pages after them are the heap's end, filled in turn and
 * reused from the first when all are (a model limit). 0, -EINVAL when they
 * do not fit, or -ENOMEM.
 */
#define DBM_HEAP_NONE UINT64_MAX
int dbm_heap_rows(struct dbm_heap *h, uint64_t rows, uint32_t per_page);

/* The page of @row's live version. */
uint64_t dbm_heap_row_page(const struct dbm_heap *h, uint64_t row);

/* An index fetch of @row: the page of an older version's entry, which it
   kills, or DBM_HEAP_NONE (fetch it before the live version's). */
uint64_t dbm_heap_row_kill(struct dbm_heap *h, uint64_t row);

/* @row's new version at the heap's end: its page, *@fresh when the page
   begins there (dbm_heap_fresh() done). The old one's entry stays live. */
uint64_t dbm_heap_row_move(struct dbm_heap *h, uint64_t row, bool *fresh);

/* Whether @page changed since its last vacuum (not all-visible); false outside the range. */
bool dbm_heap_changed(const struct dbm_heap *h, uint64_t page);

/*
 * VACUUM's visit of @page: its dead tuples become room; returns them, and
 * in *@changed whether the page changed since its last vacuum (both mean
 * VACUUM dirties it). The page is all-visible again.
 */
unsigned dbm_heap_vacuum(struct dbm_heap *h, uint64_t page, bool *changed);

/*
 * The table's VACUUM is over: n_dead_tup loses the @dead_before it had when
 * the VACUUM began, as pgstat_report_vacuum() sets it to what VACUUM left;
 * the tuples that died meanwhile stay counted.
 */
void dbm_heap_vacuumed(struct dbm_heap *h, int64_t dead_before);

#endif
