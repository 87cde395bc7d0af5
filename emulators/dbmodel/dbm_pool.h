/*
 * dbm_pool.h - the buffer pool's bookkeeping: which pages are resident, in
 * what LRU order, which are dirty and since when. No page contents (the model
 * tracks page ids only) and no I/O: dbm.c does the reads and writes and holds
 * the pool's mutex around every call here.
 *
 * Frames are indexes into arrays (no pointers), so the pool is one
 * allocation of O(frames) words whatever the page count of the tablespace.
 * Three intrusive lists:
 *  - LRU (resident frames, head = most recently used). Replacement takes the
 *    least recently used clean frame within a scan depth from the tail; or,
 *    for PostgreSQL, the list is its clock (dbm_pool_set_clock()).
 *    Optionally InnoDB's midpoint insertion (buf0lru.cc): the tail part of
 *    old_pct percent is the "old" sublist; a page read enters at its head,
 *    not at the LRU head (a page created does: buf_page_create()), and moves
 *    to the LRU head only when it is touched again at least old_ms after it
 *    came in (innodb_old_blocks_pct 37, innodb_old_blocks_time 1000 ms), so
 *    that pages touched once (a scan, a random lookup) pass through 37% of
 *    the pool instead of all of it.
 *  - flush list (dirty frames, head = newest first modification): the tail is
 *    the oldest modification, the one that holds the checkpoint back.
 *  - writing list (frames whose write is in flight): taken off the flush list
 *    when picked for a write; they still count for the checkpoint until done.
 * plus a free stack. Page ids map to frames through a chained hash.
 *
 * Not thread-safe by itself: the caller serialises (one mutex, as InnoDB's
 * buf_pool.mutex).
 */
#ifndef APPIO_DBM_POOL_H
#define APPIO_DBM_POOL_H

#include <stdbool.h>
#include <stdint.h>

#define DBM_NIL UINT32_MAX

enum dbm_frame_state {
	DBM_FREE,               /* on the free stack */
	DBM_READING,            /* hashed; its read is in flight, not usable yet */
	DBM_READY,              /* resident */
};

struct dbm_frame {
	uint64_t page;
	uint64_t oldest_lsn;    /* first modification since last written (dirty) */
	uint64_t newest_lsn;    /* last modification: the log must be durable up to it
				   before the page is written (write-ahead logging) */
	uint64_t redirty;       /* first modification while its write was in flight */
	uint32_t hnext;
	uint32_t lru_prev, lru_next;
	uint32_t fl_prev, fl_next;      /* flush list, or writing list while writing */
	uint32_t t_in;          /* ms (caller's clock) when it came into the pool */
	uint32_t freed_at;      /* the pool's freed_clock when it last went to an LRU head */
	uint8_t state;          /* enum dbm_frame_state */
	bool dirty;
	bool writing;
	bool old;               /* in the old sublist (midpoint insertion) */
	bool reinit;            /* created and not written since: redo rebuilds it,
				   its write needs no doublewrite copy */
	uint8_t usage;          /* clock sweep: usage count, 0..DBM_MAX_USAGE */
	bool freed;             /* its page was freed: waits in the LRU for release or reuse */
};

#define DBM_MAX_USAGE 5         /* PostgreSQL's BM_MAX_USAGE_COUNT */

struct dbm_list {
	uint32_t head, tail, len;
};

struct dbm_pool {
	uint32_t nframes;
	struct dbm_frame *f;
	uint32_t *hash, hmask;
	struct dbm_list lru, flush, writing;
	uint32_t free_top, nfree;
	uint32_t old_pct, old_ms;       /* midpoint insertion; old_pct 0: plain LRU */
	uint32_t lru_old, old_len;      /* first frame of the old sublist, its length */
	uint32_t lru_hp;                /* where an LRU batch goes on (buf_pool.lru_hp) */
	uint32_t freed_clock;           /* pages evicted so far (buf_pool.freed_page_clock) */
	uint32_t young_window;          /* evictions before a young page is moved again */
	bool clock;                     /* PostgreSQL's clock sweep (dbm_pool_set_clock) */
};

/* Allocate a pool of @nframes (>= 4) frames, all free. Dies on allocation failure. */
void dbm_pool_init(struct dbm_pool *p, uint32_t nframes);

/* Free what dbm_pool_init() allocated. Safe on a zeroed pool. */
void dbm_pool_release(struct dbm_pool *p);

/* The frame holding @page (reading or ready), or DBM_NIL. */
uint32_t dbm_pool_lookup(const struct dbm_pool *p, uint64_t page);

/*
 * Use midpoint insertion from now on: the old sublist is @old_pct percent
 * (1..95) of the LRU, a page leaves it when touched @old_ms or more after it
 * came in. As InnoDB (buf_page_peek_if_too_old()), nothing moves before the
 * first eviction, and a young page moves to the head only once a quarter of
 * the young sublist's length in pages has been evicted since it last went
 * there: a page touched again and again drifts down between its moves.
 * Call on an empty pool.
 */
void dbm_pool_set_midpoint(struct dbm_pool *p, uint32_t old_pct, uint32_t old_ms);

/*
 * Replace as PostgreSQL's clock sweep does (freelist.c, StrategyGetBuffer())
 * from now on: a page comes in with a usage count of 1, each hit adds one
 * (up to DBM_MAX_USAGE), and the hand passing a page takes one away; the
 * first page it finds at 0 is replaced. The LRU list is the clock: its tail
 * is the hand, a page the hand passes goes to the head. So a page used again
 * and again (an index leaf) outlives pages read once since (a heap page of a
 * random row), which plain LRU evicts first. Call on an empty pool.
 */
void dbm_pool_set_clock(struct dbm_pool *p);

/*
 * A hit at time @now_ms: make @fi the most recently used (with midpoint
 * insertion: only a young page, or an old one in the pool for old_ms or more;
 * with the clock sweep: one more use).
 */
void dbm_pool_touch(struct dbm_pool *p, uint32_t fi, uint32_t now_ms);

/* Pop a free frame, or DBM_NIL when the free stack is empty. */
uint32_t dbm_pool_take_free(struct dbm_pool *p);

/*
 * Look at most @depth frames from the LRU tail for one to replace: returns
 * the least recently used clean, ready, not-writing frame, or DBM_NIL. When
 * there is none, *@dirty (if not NULL) is the least recently used dirty one
 * that is not being written (a candidate for a single-page flush), or DBM_NIL.
 */
uint32_t dbm_pool_victim(const struct dbm_pool *p, uint32_t depth, uint32_t *dirty);

/*
 * The clock sweep's victim: the hand moves on, taking a use from each page
 * it passes, to the first page at 0 that is ready and not being written;
 * returns it when clean. When it is dirty, returns DBM_NIL with *@dirty set
 * to it (the PostgreSQL backend writes it, then sweeps again).
 */
uint32_t dbm_pool_clock_victim(struct dbm_pool *p, uint32_t *dirty);

/* Evict the clean frame @fi (off the hash and the LRU); it is then the caller's. */
void dbm_pool_evict(struct dbm_pool *p, uint32_t fi);

/*
 * Free @fi's page in place, as MariaDB 10.6+ does (buf_page_free()): the
 * page is never written, but its frame keeps its place in the LRU, and a
 * dirty one in the flush list, until a flush (LRU batch or flush list)
 * reaches it and releases it unwritten, or, clean, it is the LRU's victim,
 * or the page is allocated again (dbm_pool_reuse()). False when it is
 * being read or written.
 */
bool dbm_pool_free_page(struct dbm_pool *p, uint32_t fi);

/* The freed page of @fi allocated again: its frame is reused as it is
   (buf_page_create() finds the freed block), a created page. */
void dbm_pool_reuse(struct dbm_pool *p, uint32_t fi);

/* Give a frame back to the free stack (after dbm_pool_evict). */
void dbm_pool_put_free(struct dbm_pool *p, uint32_t fi);

/*
 * Make the caller's frame @fi hold @page in state @state (DBM_READING for a
 * read about to be issued, DBM_READY for a newly created page), at time
 * @now_ms: hashed, most recently used (midpoint insertion: a page read at
 * the head of the old sublist, a page created at the LRU's head).
 */
void dbm_pool_install(struct dbm_pool *p, uint32_t fi, uint64_t page, enum dbm_frame_state state,
		      uint32_t now_ms);

/*
 * Record a modification at @lsn. Returns true when the frame went from clean
 * to dirty (it then joins the flush list with oldest_lsn = @lsn). @lsn must
 * not decrease from one call to the next (the caller holds the pool's lock
 * while advancing it), so the flush list stays ordered.
 */
bool dbm_pool_dirty(struct dbm_pool *p, uint32_t fi, uint64_t lsn);

/*
 * Pick up to @max dirty frames for writing, oldest first modification first
 * (from the flush list's tail), stopping at the first frame whose oldest_lsn
 * is >= @below. Each moves to the writing list. Returns how many, in @out.
 */
unsigned dbm_pool_pick_oldest(struct dbm_pool *p, unsigned max, uint64_t below, uint32_t *out);

/*
 * Pick up to @max dirty frames for writing among the @depth least recently
 * used (LRU flushing: make replaceable pages clean). A clock pool's @depth
 * counts the frames the hand could reuse (usage 0), as PostgreSQL's
 * BgBufferSync() counts its reusable buffers, within one lap of the hand.
 * Returns how many.
 */
unsigned dbm_pool_pick_lru(struct dbm_pool *p, uint32_t depth, unsigned max, uint32_t *out);

/*
 * MariaDB's buf_flush_LRU_list_batch(): walk the LRU from its tail (or, with
 * @resume, from where the last call stopped), freeing each clean frame and
 * picking each dirty one for writing (up to @max), until @free_target frames
 * are free or the LRU is walked. A picked frame stays in the LRU: its write
 * makes it clean, and the next batch frees it. Returns how many were
 * picked, in @out.
 */
unsigned dbm_pool_lru_batch(struct dbm_pool *p, bool resume, uint32_t free_target, unsigned max,
			    uint32_t *out);

/*
 * innodb_flush_neighbors = 1: pick the dirty frames whose pages are
 * contiguous with @page (up to the first page that is not resident and
 * dirty, on each side) within its aligned @extent of pages, not @page
 * itself. A freed page (dirty) continues the area and is released
 * unwritten, not picked. Up to @max, in @out. Returns how many.
 */
unsigned dbm_pool_pick_neighbors(struct dbm_pool *p, uint64_t page, uint32_t extent, unsigned max,
				 uint32_t *out);

/* Move the single dirty frame @fi to the writing list (a single-page flush). */
void dbm_pool_pick(struct dbm_pool *p, uint32_t fi);

/*
 * The write of @fi finished. If the frame was modified again meanwhile it is
 * dirty again (back on the flush list); else it is now clean.
 */
void dbm_pool_write_done(struct dbm_pool *p, uint32_t fi);

/*
 * The checkpoint may advance to: the oldest modification of any dirty or
 * being-written frame, or UINT64_MAX when nothing is dirty.
 */
uint64_t dbm_pool_oldest_lsn(const struct dbm_pool *p);

/* How many flush-list frames (from the oldest) have oldest_lsn < @lsn, scanning at most @max. */
uint64_t dbm_pool_count_below(const struct dbm_pool *p, uint64_t lsn, uint64_t max);

#endif
