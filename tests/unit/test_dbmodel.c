/*
 * test_dbmodel.c - the storage-engine model's pure parts: B+tree geometry,
 * the buffer pool's LRU against a naive reference and its midpoint
 * insertion, PostgreSQL's heap pages' dead
 * tuples and room, the flush list, freed pages' frames, NURand and the
 * TPC-C mix.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "dbmodel/dbm.h"
#include "dbmodel/dbm_heap.h"
#include "dbmodel/dbm_pool.h"
#include "dbmodel/dbm_tree.h"
#include "dbmodel/tpcc_mix.h"
#include "check.h"

static void tree_geometry(void)
{
	struct dbm_tree t;
	uint64_t p[DBM_TREE_MAX_DEPTH];

	/* 16 KiB InnoDB page, 206-byte rows at 15/16: 74 rows a leaf */
	CHECK(dbm_tree_per_page(16384, 120, 15.0 / 16, 206) == 74, "per page %u",
	      dbm_tree_per_page(16384, 120, 15.0 / 16, 206));
	CHECK(dbm_tree_per_page(100, 120, 1, 10) == 1, "a record larger than a page still fits one");
	CHECK(dbm_tree_init(&t, 1000000, 73, 1000, 500) == 0, "init");
	CHECK(t.leaves == 13699, "leaves %llu", (unsigned long long)t.leaves);
	CHECK(t.depth == 3, "depth %u", t.depth);
	CHECK(t.level_pages[0] == 1 && t.level_pages[1] == 14, "levels %llu %llu",
	      (unsigned long long)t.level_pages[0], (unsigned long long)t.level_pages[1]);
	CHECK(t.npages == 1 + 14 + 13699, "npages %llu", (unsigned long long)t.npages);
	CHECK(dbm_tree_path(&t, 0, p) == 3 && p[0] == 500 && p[1] == 501 && p[2] == 515,
	      "path of row 0: %llu %llu %llu", (unsigned long long)p[0], (unsigned long long)p[1],
	      (unsigned long long)p[2]);
	dbm_tree_path(&t, 999999, p);
	CHECK(p[2] == 500 + t.npages - 1, "last row in the last leaf");
	CHECK(p[1] == 501 + 13698 / 1000, "its parent %llu", (unsigned long long)p[1]);
	CHECK(dbm_tree_leaf(&t, 73) == 516, "row 73 starts leaf 2");
	CHECK(dbm_tree_span(&t, 0, 100) == 2, "100 rows from 0 span 2 leaves");
	CHECK(dbm_tree_span(&t, 72, 2) == 2 && dbm_tree_span(&t, 73, 73) == 1, "span edges");
	CHECK(dbm_tree_span(&t, 999990, 100) == 1, "a scan stops at the last leaf");
	CHECK(dbm_tree_init(&t, 10, 73, 1000, 0) == 0 && t.depth == 1 && t.npages == 1,
	      "a small table is one root leaf");
	CHECK(dbm_tree_init(&t, 0, 73, 1000, 0) == -EINVAL, "no rows");
	CHECK(dbm_tree_init(&t, UINT64_MAX / 2, 1, 2, 0) == -EINVAL, "too deep");
	CHECK(dbm_tree_init_heap(&t, 100, 37, 7) == 0 && t.depth == 1 && t.npages == 3 &&
	      dbm_tree_leaf(&t, 74) == 9, "heap");
}

/* Naive LRU: an array, most recent first. */
struct naive { uint64_t page[64]; unsigned n, cap; };

static bool naive_access(struct naive *m, uint64_t page)
{
	unsigned i = 0;
	while (i < m->n && m->page[i] != page)
		i++;
	bool hit = i < m->n;
	if (!hit)
		i = m->n < m->cap ? m->n++ : m->n - 1;  /* evict the last */
	memmove(&m->page[1], &m->page[0], i * sizeof(m->page[0]));
	m->page[0] = page;
	return hit;
}

static bool pool_access_at(struct dbm_pool *p, uint64_t page, uint32_t now_ms)
{
	uint32_t fi = dbm_pool_lookup(p, page);
	if (fi != DBM_NIL) {
		dbm_pool_touch(p, fi, now_ms);
		return true;
	}
	fi = dbm_pool_take_free(p);
	if (fi == DBM_NIL) {
		fi = dbm_pool_victim(p, p->nframes, NULL);
		dbm_pool_evict(p, fi);
	}
	dbm_pool_install(p, fi, page, DBM_READING, now_ms);    /* a page read, as dbm.c's load() */
	p->f[fi].state = DBM_READY;
	return false;
}

static bool pool_access(struct dbm_pool *p, uint64_t page)
{
	return pool_access_at(p, page, 0);
}

/* A pool of @n frames holding pages 0..@n-1, page 0 at the LRU's tail. */
static void pool_filled(struct dbm_pool *p, uint32_t n)
{
	dbm_pool_init(p, n);
	for (uint64_t pg = 0; pg < n; pg++)
		pool_access(p, pg);
}

/* The old sublist's length, walked from the tail, and whether the flags agree. */
static uint32_t old_walk(const struct dbm_pool *p, bool *consistent)
{
	uint32_t n = 0, fi = p->lru.tail;

	while (fi != DBM_NIL && p->f[fi].old) {
		n++;
		fi = p->f[fi].lru_prev;
	}
	*consistent = fi == DBM_NIL || p->lru_old == p->f[fi].lru_next;
	for (; fi != DBM_NIL; fi = p->f[fi].lru_prev)
		if (p->f[fi].old)
			*consistent = false;
	return n;
}

/*
 * PostgreSQL's clock sweep: a page used five times outlives a pool's worth
 * of pages read once since (plain LRU evicts it first); the hand takes a use
 * from each page it passes; a dirty page at 0 is handed back to be written.
 */
static void pool_clock_sweep(void)
{
	struct dbm_pool p;
	uint32_t dirty;

	dbm_pool_init(&p, 8);
	dbm_pool_set_clock(&p);
	for (uint64_t pg = 0; pg < 8; pg++)
		dbm_pool_install(&p, dbm_pool_take_free(&p), pg, DBM_READY, 0);
	uint32_t hot = dbm_pool_lookup(&p, 3);
	for (int i = 0; i < 5; i++)
		dbm_pool_touch(&p, hot, 0);
	CHECK(p.f[hot].usage == DBM_MAX_USAGE, "uses counted to %u: %u", DBM_MAX_USAGE, p.f[hot].usage);
	for (uint64_t pg = 100; pg < 108; pg++) {
		uint32_t fi = dbm_pool_clock_victim(&p, &dirty);
		CHECK(fi != DBM_NIL && dirty == DBM_NIL, "a clean victim for page %llu", (unsigned long long)pg);
		if (fi == DBM_NIL)
			break;
		dbm_pool_evict(&p, fi);
		dbm_pool_install(&p, fi, pg, DBM_READY, 0);
	}
	CHECK(dbm_pool_lookup(&p, 3) == hot, "the page used five times is still in");
	CHECK(p.f[hot].usage < DBM_MAX_USAGE, "the hand took uses from it: %u", p.f[hot].usage);
	CHECK(dbm_pool_lookup(&p, 0) == DBM_NIL && dbm_pool_lookup(&p, 7) == DBM_NIL,
	      "the pages read once are out");
	dbm_pool_release(&p);

	dbm_pool_init(&p, 4);
	dbm_pool_set_clock(&p);
	for (uint64_t pg = 0; pg < 4; pg++)
		dbm_pool_install(&p, dbm_pool_take_free(&p), pg, DBM_READY, 0);
	uint32_t fi = dbm_pool_lookup(&p, 2);
	p.f[fi].usage = 0;
	dbm_pool_dirty(&p, fi, 1);
	CHECK(dbm_pool_clock_victim(&p, &dirty) == DBM_NIL && dirty == fi,
	      "a dirty page at 0 is the one to write, before the others come to 0");
	dbm_pool_release(&p);
}

/*
 * PostgreSQL's bgwriter (BgBufferSync()) scans ahead of the clock hand
 * until it has seen as many reusable buffers (usage 0) as it expects
 * allocations, writing the dirty ones: the buffers still in use it passes
 * are not counted. Counted, they held its writes to half the server's at
 * bgwriter_lru_maxpages, and the backends wrote the rest.
 */
static void clock_bgwriter_depth(void)
{
	struct dbm_pool p;
	uint32_t out[8];

	dbm_pool_init(&p, 8);
	dbm_pool_set_clock(&p);
	for (uint64_t pg = 0; pg < 8; pg++) {
		uint32_t fi = dbm_pool_take_free(&p);
		dbm_pool_install(&p, fi, pg, DBM_READY, 0);
		dbm_pool_dirty(&p, fi, 100 + pg);
		p.f[fi].usage = pg % 2;         /* the odd pages in use */
	}
	unsigned n = dbm_pool_pick_lru(&p, 3, 8, out);
	CHECK(n == 3, "three reusable pages within a depth of 3: %u", n);
	for (unsigned i = 0; i < n; i++)
		CHECK(p.f[out[i]].usage == 0, "page %llu, not in use", (unsigned long long)p.f[out[i]].page);
	for (unsigned i = 0; i < n; i++)
		dbm_pool_write_done(&p, out[i]);
	CHECK(dbm_pool_pick_lru(&p, 4, 8, out) == 1 && p.f[out[0]].usage == 0,
	      "the clean ones count too: one more to write within 4");
	dbm_pool_write_done(&p, out[0]);
	CHECK(dbm_pool_pick_lru(&p, 100, 8, out) == 0, "one lap at most, then nothing: the rest are in use");
	dbm_pool_release(&p);
}

/*
 * Midpoint insertion (innodb_old_blocks_pct 37, innodb_old_blocks_time 1 s):
 * the old sublist stays at 37% within the tolerance; nothing moves before
 * the first eviction; a page touched again within the time stays old; pages
 * made young survive a scan of new pages twice the pool, which plain LRU
 * would have flushed out; a young page moves to the head again only after a
 * quarter of the young sublist's length has been evicted since it went there;
 * a page created enters at the head.
 */
static void lru_midpoint(void)
{
	struct dbm_pool p;
	bool ok;

	dbm_pool_init(&p, 1000);
	dbm_pool_set_midpoint(&p, 37, 1000);
	for (uint64_t pg = 0; pg < 1000; pg++)
		pool_access_at(&p, pg, 0);
	uint32_t n = old_walk(&p, &ok);
	CHECK(ok && n == p.old_len, "old flags form the LRU's tail: %u walked, %u counted", n, p.old_len);
	CHECK(n >= 370 - 20 && n <= 370 + 20, "old sublist %u of 1000 frames (37%% +- 20)", n);
	uint32_t fi = dbm_pool_lookup(&p, 999);         /* the newest page: head of the old part */
	CHECK(p.f[fi].old && p.lru.head != fi, "a page read enters the old sublist, not the head");
	pool_access_at(&p, 999, 1500);
	CHECK(p.f[fi].old, "no eviction yet (a warm-up): a page touched late stays old");
	for (uint64_t pg = 1000; pg < 1100; pg++)       /* evicts 0..99 */
		pool_access_at(&p, pg, 1500);
	fi = dbm_pool_lookup(&p, 1099);
	pool_access_at(&p, 1099, 2000);
	CHECK(p.f[fi].old && p.lru.head != fi, "touched within innodb_old_blocks_time: stays old");
	for (uint64_t pg = 1000; pg < 1100; pg++)
		pool_access_at(&p, pg, 2500);
	CHECK(!p.f[fi].old && p.lru.head == fi, "touched after it: made young, at the head");
	/* 1000..1099 are young now, 1099 at the head, 1000 a hundred below it */
	uint32_t young = dbm_pool_lookup(&p, 1000);
	pool_access_at(&p, 1000, 2500);
	CHECK(p.lru.head == fi, "a young page touched before %u evictions stays in place", p.young_window);
	for (uint64_t pg = 5000; pg < 5000 + p.young_window; pg++)
		pool_access_at(&p, pg, 2500);
	pool_access_at(&p, 1000, 2500);
	CHECK(p.lru.head == young, "after %u evictions it moves to the head", p.young_window);
	for (uint64_t pg = 10000; pg < 12000; pg++)
		pool_access_at(&p, pg, 3000);
	unsigned kept = 0;
	for (uint64_t pg = 1000; pg < 1100; pg++)
		kept += dbm_pool_lookup(&p, pg) != DBM_NIL;
	CHECK(kept == 100, "pages made young survive a scan of 2x the pool: %u of 100", kept);
	n = old_walk(&p, &ok);
	CHECK(ok && n == p.old_len && n >= 350 && n <= 390, "old sublist after the scan: %u", n);
	/* a page created (a split's new leaf) goes to the head (buf_page_create()) */
	uint32_t cf = dbm_pool_victim(&p, p.nframes, NULL);
	dbm_pool_evict(&p, cf);
	dbm_pool_install(&p, cf, 20000, DBM_READY, 3000);
	CHECK(p.lru.head == cf && !p.f[cf].old, "a page created enters at the LRU's head, young");
	dbm_pool_release(&p);
}

static void lru_against_naive(void)
{
	struct dbm_pool p;
	struct naive m = { .cap = 16 };
	struct rng r;
	unsigned mismatch = 0, hits = 0;

	rng_seed(&r, 42, 1);
	dbm_pool_init(&p, 16);
	for (int i = 0; i < 20000; i++) {
		uint64_t page = rng_below(&r, 4) ? rng_below(&r, 12) : rng_below(&r, 64);
		bool a = pool_access(&p, page), b = naive_access(&m, page);
		mismatch += a != b;
		hits += a;
	}
	CHECK(mismatch == 0, "%u of 20000 hit/miss differ from a naive LRU", mismatch);
	CHECK(hits > 5000 && hits < 19000, "hits %u", hits);
	/* same residency, same order */
	uint32_t fi = p.lru.head;
	for (unsigned i = 0; i < m.n; i++, fi = p.f[fi].lru_next)
		CHECK(fi != DBM_NIL && p.f[fi].page == m.page[i], "LRU position %u", i);
	dbm_pool_release(&p);
}

/*
 * innodb_flush_neighbors = 1: the contiguous dirty pages of the extent
 * around a page, stopping at a clean or absent page and at the extent's
 * edge, young or old alike; pages being written are not picked twice; a
 * freed page does not end the area.
 */
static void flush_neighbors(void)
{
	struct dbm_pool p;
	uint32_t out[64];
	uint64_t lsn = 1;

	dbm_pool_init(&p, 1024);
	dbm_pool_set_midpoint(&p, 37, 1000);
	for (uint64_t pg = 2000; pg < 2050; pg++)       /* evicted by the next: a pool past warm-up */
		pool_access_at(&p, pg, 0);
	for (uint64_t pg = 0; pg < 1000; pg++)
		pool_access_at(&p, pg, 0);
	pool_access_at(&p, 61, 2000);           /* made young */
	/* pages 60..70 dirty but 66 */
	for (uint64_t pg = 60; pg <= 70; pg++)
		if (pg != 66)
			dbm_pool_dirty(&p, dbm_pool_lookup(&p, pg), lsn++);
	unsigned n = dbm_pool_pick_neighbors(&p, 62, 64, 64, out);
	bool ok = n == 3;
	for (unsigned i = 0; i < n; i++)
		ok = ok && (p.f[out[i]].page == 60 || p.f[out[i]].page == 61 || p.f[out[i]].page == 63) &&
		     p.f[out[i]].writing;
	CHECK(ok, "neighbours of 62 in extent 0-63: 60, 61 (young) and 63 (%u picked)", n);
	n = dbm_pool_pick_neighbors(&p, 64, 64, 64, out);
	CHECK(n == 1 && p.f[out[0]].page == 65, "neighbours of 64 stop at the clean 66 (%u)", n);
	n = dbm_pool_pick_neighbors(&p, 62, 64, 64, out);
	CHECK(n == 0, "pages being written are not picked again (%u)", n);
	/* a freed page is dirty: the area goes on through it, and the pick
	   releases it unwritten (buf_flush_check_neighbor(), buf_page_t::flush()) */
	for (uint64_t pg = 80; pg <= 86; pg++)
		dbm_pool_dirty(&p, dbm_pool_lookup(&p, pg), lsn++);
	uint32_t nfree = p.nfree;
	CHECK(dbm_pool_free_page(&p, dbm_pool_lookup(&p, 83)), "page 83 freed");
	n = dbm_pool_pick_neighbors(&p, 80, 64, 64, out);
	bool past = n == 5 && p.nfree == nfree + 1 && dbm_pool_lookup(&p, 83) == DBM_NIL;
	for (unsigned i = 0; i < n; i++)
		past = past && p.f[out[i]].page != 83 && p.f[out[i]].page > 80 && p.f[out[i]].page <= 86;
	CHECK(past, "neighbours of 80 run through the freed 83 to 86; 83 released, not picked (%u)", n);
	dbm_pool_release(&p);
}

/* buf_flush_LRU_list_batch(): in tail order, clean pages freed, dirty ones picked. */
static void lru_batch(void)
{
	struct dbm_pool p;
	uint32_t out[16];

	pool_filled(&p, 64);
	for (uint64_t pg = 0; pg < 8; pg += 2)  /* 0, 2, 4, 6 dirty */
		dbm_pool_dirty(&p, dbm_pool_lookup(&p, pg), pg + 1);
	unsigned n = dbm_pool_lru_batch(&p, false, 3, 16, out);
	CHECK(n == 3 && p.f[out[0]].page == 0 && p.f[out[1]].page == 2 && p.f[out[2]].page == 4 &&
	      p.f[out[0]].writing, "dirty tail pages 0, 2, 4 picked (%u)", n);
	CHECK(p.nfree == 3 && dbm_pool_lookup(&p, 1) == DBM_NIL && dbm_pool_lookup(&p, 5) == DBM_NIL &&
	      dbm_pool_lookup(&p, 6) != DBM_NIL, "clean 1, 3, 5 freed, then it stops at 3 free");
	dbm_pool_release(&p);

	/* a batch stopped at its write quota goes on where it stopped: the page
	   it wrote stays, clean, until the next batch starts from the tail */
	pool_filled(&p, 64);
	for (uint64_t pg = 0; pg < 8; pg += 2)
		dbm_pool_dirty(&p, dbm_pool_lookup(&p, pg), pg + 1);
	n = dbm_pool_lru_batch(&p, false, 10, 1, out);
	CHECK(n == 1 && p.f[out[0]].page == 0 && p.nfree == 0, "page 0 picked, the quota reached (%u)", n);
	dbm_pool_write_done(&p, out[0]);
	n = dbm_pool_lru_batch(&p, true, 4, 16, out);
	CHECK(n == 3 && p.f[out[0]].page == 2 && p.nfree == 4 && dbm_pool_lookup(&p, 0) != DBM_NIL &&
	      dbm_pool_lookup(&p, 7) == DBM_NIL && dbm_pool_lookup(&p, 8) != DBM_NIL,
	      "resumed at page 1: 2, 4, 6 picked, 1, 3, 5, 7 freed, the written page 0 kept (%u, %u free)",
	      n, p.nfree);
	n = dbm_pool_lru_batch(&p, false, 5, 16, out);
	CHECK(n == 0 && p.nfree == 5 && dbm_pool_lookup(&p, 0) == DBM_NIL,
	      "the next batch frees page 0 from the tail (%u picked, %u free)", n, p.nfree);
	dbm_pool_release(&p);
}

/* buf_page_free(): a freed page is never written; its frame stays until a
   flush releases it, or, clean, the LRU's tail reaches it, or the page is
   allocated again. */
static void freed_page_lingers(void)
{
	struct dbm_pool p;
	uint32_t out[8], dirty;

	pool_filled(&p, 8);
	uint32_t fi = dbm_pool_lookup(&p, 5), fj = dbm_pool_lookup(&p, 6);
	dbm_pool_dirty(&p, fi, 100);
	dbm_pool_dirty(&p, dbm_pool_lookup(&p, 7), 200);
	CHECK(dbm_pool_free_page(&p, fi) && dbm_pool_free_page(&p, fj), "pages 5 (dirty) and 6 (clean) freed");
	CHECK(p.f[fi].freed && p.lru.len == 8 && p.nfree == 0, "their frames still in the LRU (%u long, %u free)",
	      p.lru.len, p.nfree);
	CHECK(dbm_pool_pick_oldest(&p, 8, UINT64_MAX, out) == 1 && p.f[out[0]].page == 7 && p.nfree == 1 &&
	      p.lru.len == 7 && p.flush.len == 0 && dbm_pool_lookup(&p, 5) == DBM_NIL,
	      "the flush list releases page 5 unwritten and writes 7");
	dbm_pool_write_done(&p, out[0]);
	pool_access(&p, 8);                     /* the free frame */
	pool_access(&p, 9);                     /* the tail's page 0, not page 6's frame */
	CHECK(p.f[fj].freed && dbm_pool_lookup(&p, 0) == DBM_NIL && dbm_pool_lookup(&p, 9) != DBM_NIL,
	      "page 0 evicted while the freed clean frame waits");
	for (uint64_t pg = 1; pg < 5; pg++) {   /* the tail reaches it */
		uint32_t v = dbm_pool_victim(&p, 8, &dirty);
		dbm_pool_evict(&p, v);
		dbm_pool_put_free(&p, v);
	}
	CHECK(dbm_pool_victim(&p, 8, &dirty) == fj, "at the tail, the freed clean frame is the victim");
	dbm_pool_evict(&p, fj);
	dbm_pool_put_free(&p, fj);
	CHECK(p.lru.len == 3 && dbm_pool_lookup(&p, 6) == DBM_NIL && dbm_pool_lookup(&p, 7) != DBM_NIL &&
	      dbm_pool_lookup(&p, 9) != DBM_NIL, "released, the other pages kept");
	/* allocated again before its release: the same frame, a created page */
	fi = dbm_pool_lookup(&p, 8);
	dbm_pool_free_page(&p, fi);
	dbm_pool_reuse(&p, fi);
	CHECK(dbm_pool_lookup(&p, 8) == fi && !p.f[fi].freed && p.f[fi].reinit, "page 8 reused in place");
	/* an LRU batch releases a dirty freed page at the tail without writing it */
	fi = dbm_pool_lookup(&p, 7);
	dbm_pool_dirty(&p, fi, 300);
	dbm_pool_free_page(&p, fi);
	CHECK(dbm_pool_lru_batch(&p, false, 8, 8, out) == 0 && p.flush.len == 0 && p.lru.len == 0,
	      "the LRU batch picks nothing to write and frees all (%u in the LRU)", p.lru.len);
	/* a page being written is not freed in place */
	pool_access(&p, 10);
	fi = dbm_pool_lookup(&p, 10);
	dbm_pool_dirty(&p, fi, 400);
	CHECK(dbm_pool_pick_oldest(&p, 8, UINT64_MAX, out) == 1 && !dbm_pool_free_page(&p, fi) &&
	      !p.f[fi].freed, "a page in flight stays");
	dbm_pool_release(&p);
}

static void dirty_and_flush_list(void)
{
	struct dbm_pool p;
	uint32_t out[8], dirty;

	pool_filled(&p, 8);
	CHECK(dbm_pool_oldest_lsn(&p) == UINT64_MAX, "nothing dirty");
	CHECK(dbm_pool_dirty(&p, dbm_pool_lookup(&p, 0), 100), "page 0 newly dirty");
	CHECK(!dbm_pool_dirty(&p, dbm_pool_lookup(&p, 0), 150), "dirty again: not new");
	dbm_pool_dirty(&p, dbm_pool_lookup(&p, 1), 200);
	dbm_pool_dirty(&p, dbm_pool_lookup(&p, 5), 300);
	CHECK(dbm_pool_oldest_lsn(&p) == 100, "oldest %llu", (unsigned long long)dbm_pool_oldest_lsn(&p));
	uint32_t v = dbm_pool_victim(&p, 8, &dirty);
	CHECK(v != DBM_NIL && p.f[v].page == 2, "the victim skips dirty pages 0 and 1");
	CHECK(dbm_pool_victim(&p, 2, &dirty) == DBM_NIL && p.f[dirty].page == 0,
	      "within depth 2 only dirty pages: page 0 is the flush candidate");
	CHECK(dbm_pool_pick_oldest(&p, 8, 250, out) == 2 && p.f[out[0]].page == 0 &&
	      p.f[out[1]].page == 1, "oldest first, stopping at lsn 250");
	CHECK(dbm_pool_oldest_lsn(&p) == 100, "writes in flight still hold the checkpoint");
	dbm_pool_dirty(&p, out[0], 400);        /* modified while being written */
	p.f[out[1]].reinit = true;              /* created since its last write */
	dbm_pool_write_done(&p, out[0]);
	dbm_pool_write_done(&p, out[1]);
	CHECK(p.f[out[0]].dirty && !p.f[out[1]].dirty, "re-dirtied page stays dirty");
	CHECK(!p.f[out[1]].reinit, "once written, a created page needs the doublewrite again");
	CHECK(dbm_pool_oldest_lsn(&p) == 300, "oldest now %llu", (unsigned long long)dbm_pool_oldest_lsn(&p));
	CHECK(p.flush.tail != DBM_NIL && p.f[p.flush.tail].page == 5 && p.f[p.flush.head].page == 0,
	      "flush list in LSN order");
	CHECK(dbm_pool_count_below(&p, 350, 100) == 1, "one page older than 350");
	CHECK(dbm_pool_pick_lru(&p, 8, 8, out) == 2, "LRU flushing picks the two dirty pages");
	dbm_pool_release(&p);
}

static void nurand(void)
{
	struct rng r;
	unsigned hist[1000] = { 0 }, max = 0;

	rng_seed(&r, 7, 3);
	for (int i = 0; i < 100000; i++) {
		uint64_t v = tpcc_nurand(&r, 255, 0, 999, 123);
		CHECK(v <= 999, "out of range %llu", (unsigned long long)v);
		hist[v]++;
	}
	for (int i = 0; i < 1000; i++)
		max = hist[i] > max ? hist[i] : max;
	/* uniform would give ~100 each; NURand(255) concentrates on few values */
	CHECK(max > 400, "most frequent last name drawn %u times", max);
	for (int i = 0; i < 1000; i++) {
		uint64_t v = tpcc_nurand(&r, 8191, 1, 100000, 77);
		CHECK(v >= 1 && v <= 100000, "item id %llu", (unsigned long long)v);
	}
}

static void mix(void)
{
	struct tpcc_deck d = { 0 };
	struct rng r;
	unsigned n[TPCC_NTXN] = { 0 };

	rng_seed(&r, 9, 5);
	for (int i = 0; i < 100000; i++)
		n[tpcc_deck_next(&d, &r)]++;
	for (int t = 0; t < TPCC_NTXN; t++) {
		double pct = n[t] / 1000.0;
		unsigned want = tpcc_mix_weight[TPCC_MIX_SPEC][t];
		CHECK(pct > want - 1 && pct < want + 1, "type %d: %.2f%% (want %u%%)", t, pct, want);
	}
	/* sysbench-tpcc's: exactly 10/10/1/1/1 in every 23 dealt */
	struct tpcc_deck sb = { .mix = TPCC_MIX_SYSBENCH };
	unsigned m[TPCC_NTXN] = { 0 };
	for (int i = 0; i < 23 * 1000; i++)
		m[tpcc_deck_next(&sb, &r)]++;
	for (int t = 0; t < TPCC_NTXN; t++)
		CHECK(m[t] == 1000 * tpcc_mix_weight[TPCC_MIX_SYSBENCH][t], "sysbench-tpcc type %d: %u of 23000",
		      t, m[t]);
	for (int i = 0; i < 1000; i++) {
		double t = tpcc_think(&r, 12);
		CHECK(t >= 0 && t <= 120, "think %.1f", t);
	}
}

/*
 * A full heap page: no HOT room until a fetch prunes the dead tuples a
 * change left. A prune removes a HOT version whole; a non-HOT one (an
 * UPDATE that moved the row or changed k, a DELETE) leaves an LP_DEAD item
 * that n_dead_tup counts until VACUUM (PostgreSQL 14+).
 */
/*
 * A prune removes only tuples dead to every snapshot: those that died
 * before the oldest transaction still running began. A page changed again
 * before then has no room: its next version is not HOT (tpcc on PostgreSQL
 * 15: 2-4% of stock's UPDATEs after the warm-up, the model's 0.1-0.3%
 * without this). And heap_page_prune_opt() leaves a page 10% free: for
 * tpcc's stock, 24 tuples a page, three tuples' room.
 */
static void heap_prune_horizon(void)
{
	struct dbm_heap h;

	CHECK(dbm_heap_init(&h, 0, 12) == 0 && dbm_heap_rows(&h, 24 * 10, 24) == 0, "init");
	dbm_heap_dead(&h, 3, true, 1000);
	CHECK(!dbm_heap_read(&h, 3, 1000), "a transaction that began as it died still sees it");
	CHECK(!dbm_heap_read(&h, 3, 500), "an older one too");
	CHECK(dbm_heap_read(&h, 3, 1001), "pruned once the oldest began after it died");
	dbm_heap_dead(&h, 3, true, 2000);
	dbm_heap_dead(&h, 3, true, 1500);
	CHECK(!dbm_heap_read(&h, 3, 1800), "the newest dead tuple holds the page");
	CHECK(dbm_heap_read(&h, 3, UINT64_MAX), "nothing running: pruned");
	CHECK(dbm_heap_take_room(&h, 3) && dbm_heap_take_room(&h, 3) && dbm_heap_take_room(&h, 3) &&
	      !dbm_heap_take_room(&h, 3), "three tuples' room");
	for (int i = 0; i < 3; i++)
		dbm_heap_dead(&h, 4, true, 1);
	CHECK(dbm_heap_read(&h, 4, UINT64_MAX), "three dead on a full page of 24: pruned");
	dbm_heap_dead(&h, 4, true, 1);
	CHECK(!dbm_heap_read(&h, 4, UINT64_MAX), "with three tuples' room (10%%) it is left");
	dbm_heap_release(&h);
}

static void heap_prune_room(void)
{
	struct dbm_heap h;
	bool changed;

	CHECK(dbm_heap_init(&h, 100, 10) == 0, "init");
	CHECK(!dbm_heap_read(&h, 105, UINT64_MAX), "a loaded page has nothing to prune");
	CHECK(!dbm_heap_take_room(&h, 105), "nor room for a new version");
	dbm_heap_dead(&h, 105, true, 1);
	dbm_heap_dead(&h, 105, true, 1);
	CHECK(!dbm_heap_take_room(&h, 105), "dead tuples are no room before a prune");
	CHECK(!dbm_heap_read(&h, 104, UINT64_MAX), "a neighbour is untouched");
	CHECK(atomic_load(&h.n_dead) == 2 && atomic_load(&h.n_changed) == 2, "two dead tuples counted");
	CHECK(dbm_heap_read(&h, 105, UINT64_MAX), "the next fetch prunes");
	CHECK(!dbm_heap_read(&h, 105, UINT64_MAX), "once");
	CHECK(atomic_load(&h.n_dead) == 0 && atomic_load(&h.n_changed) == 2,
	      "a prune of HOT versions lowers the dead tuples (n_dead_tup), not the changes");
	CHECK(dbm_heap_take_room(&h, 105) && dbm_heap_take_room(&h, 105), "two tuples' room");
	CHECK(!dbm_heap_take_room(&h, 105), "then none");
	dbm_heap_dead(&h, 107, false, 1);
	dbm_heap_dead(&h, 107, false, 1);
	dbm_heap_dead(&h, 107, true, 1);
	CHECK(dbm_heap_read(&h, 107, UINT64_MAX) && atomic_load(&h.n_dead) == 2,
	      "a prune leaves the non-HOT ones counted as LP_DEAD items: %lld",
	      (long long)atomic_load(&h.n_dead));
	CHECK(dbm_heap_take_room(&h, 107) && dbm_heap_take_room(&h, 107) && dbm_heap_take_room(&h, 107) &&
	      !dbm_heap_take_room(&h, 107), "their space is room all the same");
	for (int round = 0; round < 2; round++) {       /* 20 more LP_DEAD items, on one page */
		for (int i = 0; i < 10; i++)
			dbm_heap_dead(&h, 106, false, 1);
		CHECK(dbm_heap_read(&h, 106, UINT64_MAX), "prune %d", round);
		while (dbm_heap_take_room(&h, 106))
			;
	}
	int64_t before = atomic_load(&h.n_dead);
	CHECK(before == 22, "all 22 counted, however many on a page: %lld", (long long)before);
	CHECK(dbm_heap_vacuum(&h, 107, &changed) == 0 && changed && dbm_heap_vacuum(&h, 106, &changed) == 0,
	      "VACUUM's visits: nothing left to prune");
	dbm_heap_dead(&h, 105, false, 1);  /* one more while VACUUM runs */
	dbm_heap_vacuumed(&h, before);
	CHECK(atomic_load(&h.n_dead) == 1,
	      "the table's VACUUM over, the dead tuples it began with are no longer counted: %lld",
	      (long long)atomic_load(&h.n_dead));
	for (int i = 0; i < 40; i++)
		dbm_heap_dead(&h, 109, true, 1);
	CHECK(dbm_heap_read(&h, 109, UINT64_MAX), "prune of many");
	dbm_heap_dead(&h, 109, true, 1);
	CHECK(!dbm_heap_read(&h, 109, UINT64_MAX), "a page 10%% free or more is not pruned");
	int n = 0;
	while (dbm_heap_take_room(&h, 109))
		n++;
	CHECK(n == 15, "room counted to 15: %d", n);
	CHECK(dbm_heap_read(&h, 109, UINT64_MAX), "with the room used, the dead tuple left is pruned");
	dbm_heap_dead(&h, 110, false, 1);
	CHECK(!dbm_heap_read(&h, 110, UINT64_MAX) && !dbm_heap_take_room(&h, 99), "pages outside are ignored");
	dbm_heap_dead(&h, 108, false, 1);
	dbm_heap_dead(&h, 108, true, 1);
	int64_t dead = atomic_load(&h.n_dead);
	dbm_heap_fresh(&h, 108);
	CHECK(atomic_load(&h.n_dead) == dead - 2 && !dbm_heap_read(&h, 108, UINT64_MAX) && !dbm_heap_take_room(&h, 108) &&
	      !dbm_heap_changed(&h, 108), "a page begun again: no dead tuples, no room, unchanged");
	dbm_heap_release(&h);
	CHECK(!dbm_heap_read(&h, 105, UINT64_MAX), "released");
}

/* Rows move to the heap's end; an older version's index entry costs one fetch, once. */
static void heap_rows_move(void)
{
	struct dbm_heap h;
	bool fresh;

	/* 74 rows of 37 a page on pages 100-101; pages 102-103 the heap's end */
	CHECK(dbm_heap_init(&h, 100, 4) == 0 && dbm_heap_rows(&h, 74, 37) == 0, "init");
	CHECK(dbm_heap_rows(&h, 200, 37) == -EINVAL, "rows that leave no end refused");
	CHECK(dbm_heap_row_page(&h, 0) == 100 && dbm_heap_row_page(&h, 40) == 101, "rows on their loaded pages");
	CHECK(dbm_heap_row_kill(&h, 40) == DBM_HEAP_NONE, "no older version to fetch");
	CHECK(dbm_heap_row_move(&h, 40, &fresh) == 102 && fresh, "moved to a fresh page at the end");
	CHECK(dbm_heap_row_page(&h, 40) == 102, "the live version there");
	CHECK(dbm_heap_row_kill(&h, 40) == 101, "the old entry's page fetched first");
	CHECK(dbm_heap_row_kill(&h, 40) == DBM_HEAP_NONE, "once: the scan killed the entry");
	CHECK(dbm_heap_row_move(&h, 40, &fresh) == 102 && !fresh, "moved again, the same appended page");
	CHECK(dbm_heap_row_kill(&h, 40) == 102 && dbm_heap_row_page(&h, 0) == 100, "other rows stay");
	for (int i = 2; i < 37; i++)
		dbm_heap_row_move(&h, 1, &fresh);
	CHECK(dbm_heap_row_move(&h, 2, &fresh) == 103 && fresh, "the next page when one is full");
	dbm_heap_dead(&h, 102, false, 1);
	for (int i = 1; i < 37; i++)
		dbm_heap_row_move(&h, 3, &fresh);
	int64_t dead = atomic_load(&h.n_dead);
	CHECK(dbm_heap_row_move(&h, 4, &fresh) == 102 && fresh && atomic_load(&h.n_dead) == dead - 1,
	      "the end reused in a circle, the page begun again");
	dbm_heap_release(&h);
	CHECK(!h.loc, "released");
}

/* --warmup-txns over --warmup-points: shared evenly, the remainder first, at least one each. */
static void warmup_events(void)
{
	CHECK(dbm_warmup_events(300, 2, 0) == 150 && dbm_warmup_events(300, 2, 1) == 150, "300 over 2");
	CHECK(dbm_warmup_events(301, 2, 0) == 151 && dbm_warmup_events(301, 2, 1) == 150, "301 over 2");
	CHECK(dbm_warmup_events(1, 3, 0) == 1 && dbm_warmup_events(1, 3, 2) == 1,
	      "fewer than the points: one each, never 0 (which would mean --time)");
	CHECK(dbm_warmup_events(300, 2, 2) == 0, "a measured point after the warm-up: --time");
	CHECK(dbm_warmup_events(0, 2, 0) == 0, "no count: --time");
}

int main(void)
{
	RUN(tree_geometry);
	RUN(lru_against_naive);
	RUN(lru_midpoint);
	RUN(pool_clock_sweep);
	RUN(clock_bgwriter_depth);
	RUN(heap_prune_room);
	RUN(heap_prune_horizon);
	RUN(heap_rows_move);
	RUN(flush_neighbors);
	RUN(lru_batch);
	RUN(dirty_and_flush_list);
	RUN(freed_page_lingers);
	RUN(nurand);
	RUN(mix);
	RUN(warmup_events);
	return check_done();
}
