/*
 * dbm_pool.c - buffer-pool bookkeeping (see dbm_pool.h).
 *
 * A frame modified while its write is in flight keeps its in-flight
 * oldest_lsn (the checkpoint must wait for that write) and remembers the new
 * modification in redirty; when the write completes it rejoins the flush
 * list at its place in LSN order.
 */
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "dbm_pool.h"

/* The lists are threaded through one pair of link fields each. */
#define LRU 0
#define FL  1

#define LRU_OLD_MIN_LEN 512     /* BUF_LRU_OLD_MIN_LEN: shorter LRUs have no old sublist */
#define LRU_OLD_TOLERANCE 20    /* BUF_LRU_OLD_TOLERANCE */

static uint32_t *prev_of(struct dbm_frame *f, int which)
{
	return which == LRU ? &f->lru_prev : &f->fl_prev;
}

static uint32_t *next_of(struct dbm_frame *f, int which)
{
	return which == LRU ? &f->lru_next : &f->fl_next;
}

static void list_unlink(struct dbm_pool *p, struct dbm_list *l, int which, uint32_t fi)
{
	struct dbm_frame *f = &p->f[fi];
	uint32_t pr = *prev_of(f, which), nx = *next_of(f, which);

	if (pr != DBM_NIL)
		*next_of(&p->f[pr], which) = nx;
	else
		l->head = nx;
	if (nx != DBM_NIL)
		*prev_of(&p->f[nx], which) = pr;
	else
		l->tail = pr;
	l->len--;
}

/* Insert @fi after @at (DBM_NIL: at the head). */
static void list_insert_after(struct dbm_pool *p, struct dbm_list *l, int which,
			      uint32_t at, uint32_t fi)
{
	struct dbm_frame *f = &p->f[fi];
	uint32_t nx = at == DBM_NIL ? l->head : *next_of(&p->f[at], which);

	*prev_of(f, which) = at;
	*next_of(f, which) = nx;
	if (at == DBM_NIL)
		l->head = fi;
	else
		*next_of(&p->f[at], which) = fi;
	if (nx == DBM_NIL)
		l->tail = fi;
	else
		*prev_of(&p->f[nx], which) = fi;
	l->len++;
}

static uint32_t hash_slot(const struct dbm_pool *p, uint64_t page)
{
	return (uint32_t)((page * 0x9e3779b97f4a7c15ULL) >> 32) & p->hmask;
}

void dbm_pool_init(struct dbm_pool *p, uint32_t nframes)
{
	uint32_t hsize = 1;

	while (hsize < 2 * nframes)
		hsize <<= 1;
	memset(p, 0, sizeof(*p));
	p->nframes = nframes;
	p->f = xcalloc(nframes, sizeof(*p->f));
	p->hash = xmalloc(hsize * sizeof(*p->hash));
	memset(p->hash, 0xff, hsize * sizeof(*p->hash));
	p->hmask = hsize - 1;
	p->lru = p->flush = p->writing = (struct dbm_list){ DBM_NIL, DBM_NIL, 0 };
	p->free_top = DBM_NIL;
	p->lru_old = DBM_NIL;
	p->lru_hp = DBM_NIL;
	for (uint32_t i = nframes; i-- > 0;)
		dbm_pool_put_free(p, i);
}

void dbm_pool_release(struct dbm_pool *p)
{
	free(p->f);
	free(p->hash);
	p->f = NULL;
	p->hash = NULL;
}

uint32_t dbm_pool_lookup(const struct dbm_pool *p, uint64_t page)
{
	for (uint32_t fi = p->hash[hash_slot(p, page)]; fi != DBM_NIL; fi = p->f[fi].hnext)
		if (p->f[fi].page == page)
			return fi;
	return DBM_NIL;
}

void dbm_pool_set_midpoint(struct dbm_pool *p, uint32_t old_pct, uint32_t old_ms)
{
	p->old_pct = old_pct;
	p->old_ms = old_ms;
	/* curr_size * (BUF_LRU_OLD_RATIO_DIV - LRU_old_ratio) / (BUF_LRU_OLD_RATIO_DIV * 4) */
	p->young_window = (uint32_t)((uint64_t)p->nframes * (100 - old_pct) / 400);
}

/* Keep the old sublist at old_pct of the LRU, within the tolerance (buf_LRU_old_adjust_len). */
static void lru_balance(struct dbm_pool *p)
{
	if (!p->old_pct)
		return;
	if (p->lru.len < LRU_OLD_MIN_LEN) {
		for (uint32_t fi = p->lru_old; fi != DBM_NIL; fi = p->f[fi].lru_next)
			p->f[fi].old = false;
		p->lru_old = DBM_NIL;
		p->old_len = 0;
		return;
	}
	uint32_t target = (uint32_t)((uint64_t)p->lru.len * p->old_pct / 100);
	while (p->old_len + LRU_OLD_TOLERANCE < target) {
		uint32_t at = p->lru_old == DBM_NIL ? p->lru.tail : p->f[p->lru_old].lru_prev;
		if (at == DBM_NIL)
			break;
		p->f[at].old = true;
		p->lru_old = at;
		p->old_len++;
	}
	while (p->old_len > target + LRU_OLD_TOLERANCE) {
		struct dbm_frame *f = &p->f[p->lru_old];
		f->old = false;
		p->lru_old = f->lru_next;
		p->old_len--;
	}
}

static void lru_remove(struct dbm_pool *p, uint32_t fi)
{
	struct dbm_frame *f = &p->f[fi];

	if (f->old) {
		if (p->lru_old == fi)
			p->lru_old = f->lru_next;
		f->old = false;
		p->old_len--;
	}
	if (p->lru_hp == fi)
		p->lru_hp = f->lru_prev;        /* buf_pool.lru_hp.adjust() */
	list_unlink(p, &p->lru, LRU, fi);
}

void dbm_pool_set_clock(struct dbm_pool *p)
{
	p->clock = true;
}

void dbm_pool_touch(struct dbm_pool *p, uint32_t fi, uint32_t now_ms)
{
	struct dbm_frame *f = &p->f[fi];

	if (p->clock) {
		if (f->usage < DBM_MAX_USAGE)
			f->usage++;
		return;
	}
	if (p->lru.head == fi)
		return;
	if (p->old_pct && (!p->freed_clock || (f->old ? now_ms - f->t_in < p->old_ms
						   : p->freed_clock - f->freed_at < p->young_window)))
		return;
	lru_remove(p, fi);
	list_insert_after(p, &p->lru, LRU, DBM_NIL, fi);
	f->freed_at = p->freed_clock;
	lru_balance(p);
}

uint32_t dbm_pool_take_free(struct dbm_pool *p)
{
	uint32_t fi = p->free_top;
	if (fi != DBM_NIL) {
		p->free_top = p->f[fi].hnext;
		p->nfree--;
	}
	return fi;
}

void dbm_pool_put_free(struct dbm_pool *p, uint32_t fi)
{
	p->f[fi] = (struct dbm_frame){ .state = DBM_FREE, .hnext = p->free_top };
	p->free_top = fi;
	p->nfree++;
}

static bool replaceable(const struct dbm_frame *f)
{
	return f->state == DBM_READY && !f->dirty && !f->writing;
}

uint32_t dbm_pool_victim(const struct dbm_pool *p, uint32_t depth, uint32_t *dirty)
{
	uint32_t fi = p->lru.tail;

	if (dirty)
		*dirty = DBM_NIL;
	for (uint32_t n = 0; fi != DBM_NIL && n < depth; n++, fi = p->f[fi].lru_prev) {
		const struct dbm_frame *f = &p->f[fi];
		if (replaceable(f))
			return fi;
		if (dirty && *dirty == DBM_NIL && f->dirty && !f->writing && f->state == DBM_READY)
			*dirty = fi;
	}
	return DBM_NIL;
}

uint32_t dbm_pool_clock_victim(struct dbm_pool *p, uint32_t *dirty)
{
	*dirty = DBM_NIL;
	/* every page at most DBM_MAX_USAGE passes of the hand before it is at 0 */
	for (uint64_t n = 0; n < (uint64_t)(DBM_MAX_USAGE + 1) * p->lru.len; n++) {
		uint32_t fi = p->lru.tail;
		struct dbm_frame *f = &p->f[fi];
		if (f->state == DBM_READY && !f->writing && !f->usage) {
			if (!f->dirty)
				return fi;
			*dirty = fi;
			return DBM_NIL;
		}
		if (f->usage && f->state == DBM_READY && !f->writing)
			f->usage--;
		lru_remove(p, fi);      /* the hand passes it */
		list_insert_after(p, &p->lru, LRU, DBM_NIL, fi);
	}
	return DBM_NIL;
}

void dbm_pool_evict(struct dbm_pool *p, uint32_t fi)
{
	uint32_t *link = &p->hash[hash_slot(p, p->f[fi].page)];

	while (*link != fi)
		link = &p->f[*link].hnext;
	*link = p->f[fi].hnext;
	lru_remove(p, fi);
	p->freed_clock++;
	lru_balance(p);
}

bool dbm_pool_free_page(struct dbm_pool *p, uint32_t fi)
{
	struct dbm_frame *f = &p->f[fi];

	if (f->state != DBM_READY || f->writing)
		return false;
	f->freed = true;
	return true;
}

void dbm_pool_reuse(struct dbm_pool *p, uint32_t fi)
{
	p->f[fi].freed = false;
	p->f[fi].reinit = true;
}

/* A flush that reaches a freed page releases its frame unwritten
   (buf_page_t::flush(): buf_pool_t::release_freed_page()). */
static void release_freed(struct dbm_pool *p, uint32_t fi)
{
	if (p->f[fi].dirty)
		list_unlink(p, &p->flush, FL, fi);
	dbm_pool_evict(p, fi);
	dbm_pool_put_free(p, fi);
}

void dbm_pool_install(struct dbm_pool *p, uint32_t fi, uint64_t page, enum dbm_frame_state state,
		      uint32_t now_ms)
{
	uint32_t slot = hash_slot(p, page);

	p->f[fi] = (struct dbm_frame){ .page = page, .state = (uint8_t)state, .hnext = p->hash[slot],
				       .t_in = now_ms, .freed_at = p->freed_clock, .usage = 1 };
	p->hash[slot] = fi;
	/* a page read goes to the old sublist (buf_page_init_for_read()); one
	   created, to the head (buf_page_create(): buf_LRU_add_block(old = false)) */
	if (p->lru_old == DBM_NIL || state == DBM_READY) {
		list_insert_after(p, &p->lru, LRU, DBM_NIL, fi);
	} else {                        /* buf_LRU_add_block(old = true) */
		list_insert_after(p, &p->lru, LRU, p->f[p->lru_old].lru_prev, fi);
		p->f[fi].old = true;
		p->lru_old = fi;
		p->old_len++;
	}
	lru_balance(p);
}

/* Insert @fi into the flush list where its oldest_lsn belongs (usually the head). */
static void flush_insert_sorted(struct dbm_pool *p, uint32_t fi)
{
	uint32_t at = p->flush.head, before = DBM_NIL;

	while (at != DBM_NIL && p->f[at].oldest_lsn > p->f[fi].oldest_lsn) {
		before = at;
		at = p->f[at].fl_next;
	}
	list_insert_after(p, &p->flush, FL, before, fi);
}

bool dbm_pool_dirty(struct dbm_pool *p, uint32_t fi, uint64_t lsn)
{
	struct dbm_frame *f = &p->f[fi];

	f->newest_lsn = lsn;
	if (f->dirty)
		return false;
	f->dirty = true;
	if (f->writing)                 /* rejoins the flush list when its write is done */
		f->redirty = lsn;
	else {
		f->oldest_lsn = lsn;
		list_insert_after(p, &p->flush, FL, DBM_NIL, fi);
	}
	return true;
}

void dbm_pool_pick(struct dbm_pool *p, uint32_t fi)
{
	struct dbm_frame *f = &p->f[fi];

	list_unlink(p, &p->flush, FL, fi);
	list_insert_after(p, &p->writing, FL, DBM_NIL, fi);
	f->dirty = false;
	f->writing = true;
}

unsigned dbm_pool_pick_oldest(struct dbm_pool *p, unsigned max, uint64_t below, uint32_t *out)
{
	unsigned n = 0;

	while (n < max && p->flush.tail != DBM_NIL && p->f[p->flush.tail].oldest_lsn < below) {
		uint32_t fi = p->flush.tail;
		if (p->f[fi].freed) {
			release_freed(p, fi);
			continue;
		}
		dbm_pool_pick(p, fi);
		out[n++] = fi;
	}
	return n;
}

unsigned dbm_pool_pick_lru(struct dbm_pool *p, uint32_t depth, unsigned max, uint32_t *out)
{
	unsigned n = 0;
	uint32_t fi = p->lru.tail, k = 0;

	/* a clock pool: one lap of the hand at most, counting the reusable */
	for (uint32_t seen = 0; fi != DBM_NIL && k < depth && n < max && seen < p->lru.len; seen++) {
		struct dbm_frame *f = &p->f[fi];
		uint32_t prev = f->lru_prev;
		bool reusable = f->state == DBM_READY && !(p->clock && f->usage);
		/* the clock sweep's bgwriter writes only pages it could reuse (usage 0) */
		if (reusable && f->dirty && !f->writing && !f->freed) {
			dbm_pool_pick(p, fi);
			out[n++] = fi;
		}
		k += !p->clock || reusable;
		fi = prev;
	}
	return n;
}

unsigned dbm_pool_lru_batch(struct dbm_pool *p, bool resume, uint32_t free_target, unsigned max,
			    uint32_t *out)
{
	unsigned n = 0;
	uint32_t fi = resume ? p->lru_hp : p->lru.tail;

	while (fi != DBM_NIL && n < max && p->nfree < free_target) {
		uint32_t prev = p->f[fi].lru_prev;
		struct dbm_frame *f = &p->f[fi];
		p->lru_hp = prev;
		if (f->freed && f->state == DBM_READY && !f->writing) {
			release_freed(p, fi);
		} else if (replaceable(f)) {
			dbm_pool_evict(p, fi);
			dbm_pool_put_free(p, fi);
		} else if (f->dirty && !f->writing && f->state == DBM_READY) {
			dbm_pool_pick(p, fi);
			out[n++] = fi;
		}
		fi = p->lru_hp;
	}
	if (fi == DBM_NIL || p->nfree >= free_target)
		p->lru_hp = DBM_NIL;
	return n;
}

/* buf_flush_check_neighbor(): dirty and not in I/O; a freed page too (it is
   dirty), which the pick then releases unwritten */
static bool flushable(const struct dbm_pool *p, uint64_t page)
{
	uint32_t fi = dbm_pool_lookup(p, page);
	if (fi == DBM_NIL)
		return false;
	const struct dbm_frame *f = &p->f[fi];
	return f->state == DBM_READY && f->dirty && !f->writing;
}

unsigned dbm_pool_pick_neighbors(struct dbm_pool *p, uint64_t page, uint32_t extent, unsigned max,
				 uint32_t *out)
{
	uint64_t low = page - page % extent, lo = page, hi = page;
	unsigned n = 0;

	while (lo > low && flushable(p, lo - 1))
		lo--;
	while (hi + 1 < low + extent && flushable(p, hi + 1))
		hi++;
	for (uint64_t q = lo; q <= hi && n < max; q++) {
		if (q == page)
			continue;
		uint32_t fi = dbm_pool_lookup(p, q);
		if (p->f[fi].freed) {
			release_freed(p, fi);
			continue;
		}
		dbm_pool_pick(p, fi);
		out[n++] = fi;
	}
	return n;
}

void dbm_pool_write_done(struct dbm_pool *p, uint32_t fi)
{
	struct dbm_frame *f = &p->f[fi];

	list_unlink(p, &p->writing, FL, fi);
	f->writing = false;
	f->reinit = false;
	if (f->dirty) {
		f->oldest_lsn = f->redirty;
		f->redirty = 0;
		flush_insert_sorted(p, fi);
	}
}

uint64_t dbm_pool_oldest_lsn(const struct dbm_pool *p)
{
	uint64_t min = p->flush.tail != DBM_NIL ? p->f[p->flush.tail].oldest_lsn : UINT64_MAX;

	for (uint32_t fi = p->writing.head; fi != DBM_NIL; fi = p->f[fi].fl_next)
		if (p->f[fi].oldest_lsn < min)
			min = p->f[fi].oldest_lsn;
	return min;
}

uint64_t dbm_pool_count_below(const struct dbm_pool *p, uint64_t lsn, uint64_t max)
{
	uint64_t n = 0;

	for (uint32_t fi = p->flush.tail; fi != DBM_NIL && n < max && p->f[fi].oldest_lsn < lsn;
	     fi = p->f[fi].fl_prev)
		n++;
	return n;
}
