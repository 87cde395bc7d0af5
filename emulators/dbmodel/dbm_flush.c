/*
 * dbm_flush.c - writing dirty pages back: the InnoDB page cleaner, the
 * PostgreSQL checkpointer and background writer, and the page-write path
 * they and the PostgreSQL backends' writes of dirty victims share (InnoDB's
 * user threads wait for the page cleaner instead: MariaDB 10.6+).
 *
 * InnoDB (after MariaDB 10.11 buf0flu.cc, buf_flush_page_cleaner): asleep
 * until the checkpoint age first passes the async point (7/8 of the margin),
 * free frames run short or 90% of the pages are dirty (with
 * innodb_max_dirty_pages_pct_lwm = 0, the default, nothing else wakes it:
 * measured, no page written until the age reached ~77% of the log); then
 * awake, a round a second:
 *  - past the sync point (the margin): the writers wait and the cleaner
 *    flushes every page changed before the current LSN, innodb_io_capacity_max
 *    pages a batch, back to back (furious flushing);
 *  - past the async point: one batch of up to innodb_io_capacity_max pages,
 *    the pages first changed more than the async point's worth of redo ago.
 *    Measured on MariaDB 10.11.19 (INNODB_METRICS every 0.25 s, 4 threads,
 *    4 x 100k rows in a 128M pool, 96M log): a batch a second of 0-2,000
 *    pages left the oldest change 69-71 MB behind the current LSN (the async
 *    point: 70.7 MB), the checkpoint age staying at 72-77 MB; no matrix line
 *    ever reached the sync point. Big batches come back every async point's
 *    worth of redo: the pages one batch wrote are dirtied again together;
 *  - else if free frames are below innodb_lru_scan_depth / 2, LRU-flush:
 *    evict clean pages from the LRU tail and write dirty ones (up to
 *    innodb_io_capacity_max) until innodb_lru_scan_depth frames are free;
 *    the pages written stay until a later round frees them, so rounds go
 *    on back to back while frames are short;
 *  - else while the oldest change is older than innodb_adaptive_flushing_lwm
 *    (10% of the log) or 90% of the pages are dirty, adaptive flushing:
 *    page_cleaner_flush_pages_recommendation()'s (io_capacity + avg page rate
 *    + pages for the LSN rate) / 3;
 *  - else back to sleep;
 * then a checkpoint: an fsync of each tablespace written since its last one,
 * and if the oldest modification left moved, the checkpoint block and a log
 * fsync. Every batch goes to the doublewrite area first (one
 * sequential write of up to 64 pages and an fsync), then in place; pages
 * created since their last write skip the doublewrite copy, since redo
 * rebuilds them (MariaDB 10.6+, WRITE_FIX_REINIT).
 *
 * PostgreSQL: the checkpointer starts a checkpoint every checkpoint_timeout
 * or after max_wal_size / (1 + checkpoint_completion_target) of WAL (whole
 * 16 MiB segments; backends never wait for WAL space), writes
 * the pages dirty at its start spread over 0.9 of the interval (it keeps
 * ahead of both the clock and the WAL, as IsCheckpointOnSchedule()), then
 * fsyncs and records the checkpoint. The background writer cleans up to
 * bgwriter_lru_maxpages (100) pages every bgwriter_delay (200 ms) among the
 * next 2.0 x recent allocations of reusable buffers ahead of the clock hand.
 * Through the page cache both ask the kernel to start writing back what they
 * wrote, every checkpoint_flush_after (256 kB) and bgwriter_flush_after
 * (512 kB) of pages, and the checkpointer once more before its fsyncs; the
 * backends' writes (backend_flush_after 0) wait for the kernel's own
 * write-back or the checkpoint's fsync.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dbm.h"

#define MAX_BATCH 128                   /* the doublewrite area's 128 pages */
#define EXTENT_PAGES 64                 /* BUF_READ_AHEAD_AREA: 1 MiB of 16 KiB pages */
#define BUF_LRU_MIN_LEN 256             /* buf0lru.h */
/* The LRU length below which the cleaner frees nothing: BUF_LRU_MIN_LEN, or a
   quarter of a pool smaller than the server allows (whose user threads would
   otherwise wait for a cleaner that never frees a frame) */
#define LRU_MIN(db) ((db)->frames > 4 * BUF_LRU_MIN_LEN ? BUF_LRU_MIN_LEN : (db)->frames / 4)
#define FLUSH_AVG_LOOPS 30              /* innodb_flushing_avg_loops */
#define LSN_SCAN_FACTOR 3               /* buf_flush_lsn_scan_factor */
#define MAX_DIRTY_PCT 90                /* innodb_max_dirty_pages_pct */
#define PG_COMPLETION 0.9               /* checkpoint_completion_target */
#define PG_BGW_DELAY 200000000ULL       /* bgwriter_delay 200 ms */
#define PG_BGW_MAXPAGES 100             /* bgwriter_lru_maxpages */
#define PG_BGW_MULT 2.0                 /* bgwriter_lru_multiplier */
#define PG_BGW_LAP_ROUNDS 600           /* scan_whole_pool_milliseconds / bgwriter_delay */
#define NSEC 1000000000ULL

void dbm_flush_kick(struct dbm *db)
{
	pthread_mutex_lock(&db->cl_mx);
	db->cl_kick = true;
	pthread_cond_broadcast(&db->cl_cv);
	pthread_mutex_unlock(&db->cl_mx);
}

/* Sleep until @until (or a kick when @kickable, or the stop). */
static void cl_sleep(struct emu_worker *w, struct dbm *db, uint64_t until, bool kickable)
{
	pthread_mutex_lock(&db->cl_mx);
	while (!(kickable && db->cl_kick) && !emu_stopping(w) && emu_now() < until)
		dbm_wait(w, db, &db->cl_cv, &db->cl_mx, 50000000ULL);
	if (kickable)
		db->cl_kick = false;
	pthread_mutex_unlock(&db->cl_mx);
}

/* Put picked frames back as they were (a write abandoned at the stop). */
static void unpick(struct dbm *db, const uint32_t *fi, unsigned n)
{
	pthread_mutex_lock(&db->pool_mx);
	for (unsigned i = 0; i < n; i++) {
		struct dbm_frame *f = &db->pool.f[fi[i]];
		if (!f->dirty) {
			f->dirty = true;
			f->redirty = f->oldest_lsn;
		}
		dbm_pool_write_done(&db->pool, fi[i]);
	}
	pthread_cond_broadcast(&db->pool_cv);
	pthread_mutex_unlock(&db->pool_mx);
}

static int dblwr_write(struct emu_worker *w, struct dbm *db, unsigned n)
{
	int64_t r = dbm_io(w, db, DBM_CLS_DOUBLEWRITE, IO_WRITE, emu_buf(w, 0),
			   n * db->page_size, db->dblwr_off);
	if (r != (int64_t)n * db->page_size)
		return emu_fail(w, r < 0 ? (int)r : -EIO, "doublewrite of %u pages failed", n);
	r = dbm_io(w, db, DBM_CLS_DOUBLEWRITE, IO_FDATASYNC, NULL, 0, 0);
	if (r < 0)
		return emu_fail(w, (int)r, "doublewrite fsync failed");
	emu_count(w, DBM_C_DBLWR_PAGES, n);
	emu_count(w, DBM_C_DBLWR_WRITES, 1);
	return 0;
}

/*
 * fil_flush_file_spaces(): one fdatasync per tablespace written since its
 * last one. The emulator's tablespaces share one file, so the first does the
 * work and the others cost the drive a cache flush each, as the server's
 * files would (ext4 sends one per fdatasync; a block device always does).
 */
static int sync_spaces(struct emu_worker *w, struct dbm *db)
{
	for (uint32_t s = 0; s < db->nspaces; s++) {
		if (!atomic_exchange(&db->space_unsynced[s], false))
			continue;
		int64_t r = dbm_io(w, db, DBM_CLS_PAGE_WRITE, IO_FDATASYNC, NULL, 0, 0);
		if (r < 0)
			return emu_fail(w, (int)r, "data fsync failed");
		emu_count(w, DBM_C_DATA_FSYNCS, 1);
	}
	return 0;
}

int dbm_page_write(struct emu_worker *w, struct dbm *db, uint64_t page)
{
	int64_t r = dbm_io(w, db, DBM_CLS_PAGE_WRITE, IO_WRITE, emu_buf(w, 0), db->page_size,
			   db->data_off + page * db->page_size);
	if (r != (int64_t)db->page_size)
		return emu_fail(w, r < 0 ? (int)r : -EIO, "page write at offset %llu failed",
				(unsigned long long)(db->data_off + page * db->page_size));
	return 0;
}

/* Take and write pages of the posted batch until none is left to take. wq_mx held. */
static void write_posted(struct emu_worker *w, struct dbm *db)
{
	while (db->wq_next < db->wq_n) {
		uint64_t page = db->wq_page[db->wq_next++];
		pthread_mutex_unlock(&db->wq_mx);
		int rc = dbm_page_write(w, db, page);
		pthread_mutex_lock(&db->wq_mx);
		if (rc && !db->wq_rc)
			db->wq_rc = rc;
		db->wq_done++;
		pthread_cond_broadcast(&db->wq_cv);
	}
}

/*
 * InnoDB: a doublewrite batch's page writes in flight together, as MariaDB
 * submits them (asynchronous I/O): posted for the I/O workers, the caller
 * writing too, then waiting for the last. Only the page cleaner calls it
 * (InnoDB's user threads write no pages).
 */
static int write_batch(struct emu_worker *w, struct dbm *db, const uint64_t *pages, unsigned n)
{
	pthread_mutex_lock(&db->wq_mx);
	memcpy(db->wq_page, pages, n * sizeof(*pages));
	db->wq_n = n;
	db->wq_next = db->wq_done = 0;
	db->wq_rc = 0;
	pthread_cond_broadcast(&db->wq_cv);
	write_posted(w, db);
	/* the workers finish what they took: each write they began completes */
	while (db->wq_done < db->wq_n)
		dbm_wait(w, db, &db->wq_cv, &db->wq_mx, 10000000ULL);
	int rc = db->wq_rc;
	db->wq_n = db->wq_next = db->wq_done = 0;
	pthread_mutex_unlock(&db->wq_mx);
	return rc;
}

int dbm_flush_io_worker(struct emu_worker *w, struct dbm *db)
{
	pthread_mutex_lock(&db->wq_mx);
	if (db->wq_next >= db->wq_n && !emu_stopping(w))
		dbm_wait(w, db, &db->wq_cv, &db->wq_mx, 10000000ULL);
	write_posted(w, db);
	pthread_mutex_unlock(&db->wq_mx);
	return 0;
}

static int page_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return (x > y) - (x < y);
}

/*
 * IssuePendingWritebacks(): sorted, adjacent pages merged, one
 * sync_file_range() a run. It only starts the write-back: a failure is
 * the next fsync's to report, as for the server (which ignores ENOSYS).
 */
static void wb_issue(struct dbm *db, struct dbm_writeback *wb)
{
	qsort(wb->page, wb->n, sizeof(*wb->page), page_cmp);
	for (unsigned i = 0, j; i < wb->n; i = j) {
		for (j = i + 1; j < wb->n && wb->page[j] <= wb->page[j - 1] + 1; j++)
			;
		(void)sync_file_range(db->fd, (off_t)(db->data_off + wb->page[i] * db->page_size),
				      (off_t)((wb->page[j - 1] - wb->page[i] + 1) * db->page_size),
				      SYNC_FILE_RANGE_WRITE);
	}
	wb->n = 0;
}

/* ScheduleBufferTagForWriteback(): through the page cache, with flush_after set. */
static void wb_schedule(struct dbm *db, struct dbm_writeback *wb, const uint64_t *pages, unsigned n)
{
	if (!db->buffered || !wb->after)
		return;
	for (unsigned i = 0; i < n; i++) {
		wb->page[wb->n++] = pages[i];
		if (wb->n >= wb->after)
			wb_issue(db, wb);
	}
}

int dbm_flush_write(struct emu_worker *w, struct dbm *db, const uint32_t *fi, unsigned n,
		    bool dblwr, bool lru, struct dbm_writeback *wb)
{
	uint64_t pages[MAX_BATCH], newest = 0;
	unsigned reinit = 0;
	int rc;

	pthread_mutex_lock(&db->pool_mx);
	for (unsigned i = 0; i < n; i++) {
		pages[i] = db->pool.f[fi[i]].page;
		reinit += db->pool.f[fi[i]].reinit;
		if (db->pool.f[fi[i]].newest_lsn > newest)
			newest = db->pool.f[fi[i]].newest_lsn;
	}
	pthread_mutex_unlock(&db->pool_mx);
	/* write-ahead logging: the log is durable up to the newest change first;
	   then the doublewrite copy of the pages redo cannot rebuild (MariaDB
	   10.6+ writes a page created since its last write, state
	   WRITE_FIX_REINIT, without one) */
	if ((rc = dbm_log_up_to(w, db, newest, true)) != 0 ||
	    (dblwr && n > reinit && (rc = dblwr_write(w, db, n - reinit)) != 0)) {
		unpick(db, fi, n);
		return rc < 0 ? rc : 0;
	}
	if (db->model == DBM_INNODB)
		rc = write_batch(w, db, pages, n);
	for (unsigned i = 0; i < n && !rc && db->model != DBM_INNODB; i++)
		rc = dbm_page_write(w, db, pages[i]);
	emu_count(w, DBM_C_WRITTEN, n);
	if (lru)
		emu_count(w, DBM_C_LRU_WRITTEN, n);
	if (wb && !rc)
		wb_schedule(db, wb, pages, n);
	unsigned undo = 0, rseg = 0;
	for (unsigned i = 0; i < n; i++) {
		atomic_store(&db->space_unsynced[dbm_space_of(db, pages[i])], true);
		undo += dbm_undo_page(db, pages[i]);
		rseg += dbm_rseg_page(db, pages[i]);
	}
	emu_count(w, DBM_C_UNDO_WRITTEN, undo);
	emu_count(w, DBM_C_RSEG_WRITTEN, rseg);

	pthread_mutex_lock(&db->pool_mx);
	for (unsigned i = 0; i < n; i++)
		dbm_pool_write_done(&db->pool, fi[i]);
	pthread_cond_broadcast(&db->pool_cv);
	pthread_mutex_unlock(&db->pool_mx);
	return rc;
}

/*
 * Pick a batch as MariaDB's flush loops do (buf_flush_LRU_list_batch(),
 * buf_do_flush_list_batch()): a page, then with innodb_flush_neighbors the
 * contiguous dirty pages of its extent (64 pages, BUF_READ_AHEAD_AREA),
 * young or old (buf_flush_check_neighbor() asks only whether a page is
 * dirty and not being read or written), then the next page; up to @cap
 * pages, the doublewrite buffer's 128 (MariaDB wrote 111-119 pages a
 * doublewrite batch in the matrix's lines with the data larger than the
 * pool). A page's dirty area is thus written whole with it: picking 64
 * pages first and their neighbours after cut each area at the next picked
 * page and left the neighbours only the room the picks had not taken (the
 * model wrote 0.69 neighbours a transaction at m-big, MariaDB 1.15).
 * @lru: from the LRU's tail (resuming where the last batch stopped when
 * @resume), neighbours only once half the free target is free; else the
 * flush list's oldest below @below. Lock held; returns the batch size.
 */
static unsigned pick_batch(struct emu_worker *w, struct dbm *db, bool lru, bool resume,
			   uint64_t below, unsigned cap, uint32_t *fi)
{
	struct dbm_pool *p = &db->pool;
	unsigned n = 0, neighbors = 0;

	while (n < cap) {
		unsigned k = lru ? dbm_pool_lru_batch(p, resume || n, db->scan_depth, 1, fi + n)
				 : dbm_pool_pick_oldest(p, 1, below, fi + n);
		if (!k)
			break;
		n++;
		if (db->flush_neighbors && n < cap && (!lru || p->nfree * 2 >= db->scan_depth)) {
			unsigned m = dbm_pool_pick_neighbors(p, p->f[fi[n - 1]].page, EXTENT_PAGES,
							     cap - n, fi + n);
			n += m;
			neighbors += m;
		}
	}
	emu_count(w, DBM_C_NEIGHBORS, neighbors);
	return n;
}

/*
 * buf_dblwr_t::write_completed(): a page-cleaner batch through the
 * doublewrite area syncs the tablespaces it wrote once its page writes are
 * done, before the area is reused (with 8 tables MariaDB counted ~8 data
 * fsyncs per doublewrite batch beside the batch's own).
 */
static void batch_done(struct emu_worker *w, struct dbm *db, int *rc)
{
	if (db->doublewrite && !*rc)
		*rc = sync_spaces(w, db);
}

/* Flush up to @max of the oldest pages whose first change is below @below. Pages written. */
static uint64_t flush_list(struct emu_worker *w, struct dbm *db, uint64_t max, uint64_t below,
			   struct dbm_writeback *wb, int *rc)
{
	uint32_t fi[MAX_BATCH];
	uint64_t done = 0;

	/* PostgreSQL's checkpointer writes page by page: its batches only group
	   the picks */
	unsigned room = db->model == DBM_INNODB ? MAX_BATCH : db->batch;

	while (done < max && !*rc && !emu_stopping(w)) {
		unsigned cap = max - done < room ? (unsigned)(max - done) : room;
		pthread_mutex_lock(&db->pool_mx);
		uint32_t nfree = db->pool.nfree;
		unsigned n = pick_batch(w, db, false, false, below, cap, fi);
		if (db->pool.nfree != nfree)    /* freed pages released */
			pthread_cond_broadcast(&db->pool_cv);
		pthread_mutex_unlock(&db->pool_mx);
		if (!n)
			break;
		*rc = dbm_flush_write(w, db, fi, n, db->doublewrite, false, wb);
		batch_done(w, db, rc);
		done += n;
	}
	return done;
}

/*
 * buf_flush_LRU(): walk the LRU from its tail, freeing clean pages and
 * writing dirty ones, until innodb_lru_scan_depth frames are free or @max
 * pages are written. Dirty pages at the tail are written, not stepped over,
 * and stay in the pool, clean: MariaDB frees a written page at a later
 * batch's scan (buf_page_write_complete() frees only temporary pages), and
 * a page made young meanwhile stays. Neighbours join only once half the
 * free target is reached.
 */
static uint64_t flush_lru(struct emu_worker *w, struct dbm *db, uint64_t max, int *rc)
{
	uint32_t fi[MAX_BATCH];
	uint64_t done = 0;
	bool resume = false;

	while (done < max && !*rc && !emu_stopping(w)) {
		unsigned n = 0, cap = max - done < MAX_BATCH ? (unsigned)(max - done) : MAX_BATCH;
		pthread_mutex_lock(&db->pool_mx);
		if (db->pool.lru.len > LRU_MIN(db))
			n = pick_batch(w, db, true, resume, 0, cap, fi);
		pthread_cond_broadcast(&db->pool_cv);
		pthread_mutex_unlock(&db->pool_mx);
		if (!n)
			break;
		resume = true;
		*rc = dbm_flush_write(w, db, fi, n, db->doublewrite, true, NULL);
		batch_done(w, db, rc);
		done += n;
	}
	return done;
}

/*
 * MariaDB's log_checkpoint(), after every page-cleaner batch and idle round:
 * the data files written are fsynced first, whether the checkpoint can move
 * or not; then the checkpoint at the oldest modification left.
 */
static int checkpoint(struct emu_worker *w, struct dbm *db, uint64_t upto)
{
	uint64_t lsn = atomic_load(&db->lsn);
	int rc = sync_spaces(w, db);

	if (rc)
		return rc;
	pthread_mutex_lock(&db->pool_mx);
	uint64_t oldest = dbm_pool_oldest_lsn(&db->pool);
	pthread_mutex_unlock(&db->pool_mx);
	if (oldest > lsn)
		oldest = lsn;
	if (oldest > upto)
		oldest = upto;
	if (oldest <= atomic_load(&db->ckpt_lsn) + 16)  /* SIZE_OF_FILE_CHECKPOINT */
		return 0;
	return dbm_log_checkpoint(w, db, oldest);
}

/* page_cleaner_flush_pages_recommendation(), with its averaging over 30 rounds. */
static uint64_t recommend(struct dbm *db, uint64_t lsn, uint64_t oldest, uint64_t dirty,
			  double dirty_pct, uint64_t now)
{
	struct dbm_cleaner *c = &db->cl;
	uint64_t age = lsn > oldest ? lsn - oldest : 0, n;
	uint64_t pct_for_lsn = 0;

	if (age >= db->af_lwm) {
		uint64_t f = age * 100 / db->async_age;
		pct_for_lsn = (uint64_t)((double)(db->io_capacity_max / db->io_capacity * f) *
					 sqrt((double)f) / 7.5);
	}
	if (!c->prev_lsn || !pct_for_lsn) {
		c->prev_lsn = lsn;
		c->t_prev = now;
		if (db->io_capacity >= dirty)
			return dirty;
		n = (uint64_t)(dirty_pct / MAX_DIRTY_PCT * (double)db->io_capacity);
		return n < dirty ? db->io_capacity : dirty < db->io_capacity_max ? dirty : db->io_capacity_max;
	}
	c->sum_pages += c->last_pages;
	uint64_t secs = (now - c->t_prev) / NSEC ? (now - c->t_prev) / NSEC : 1;
	if (++c->n_iter >= FLUSH_AVG_LOOPS || secs >= FLUSH_AVG_LOOPS) {
		c->avg_page_rate = (c->sum_pages / secs + c->avg_page_rate) / 2;
		c->lsn_avg_rate = ((lsn - c->prev_lsn) / secs + c->lsn_avg_rate) / 2;
		c->prev_lsn = lsn;
		c->t_prev = now;
		c->n_iter = 0;
		c->sum_pages = 0;
	}
	pthread_mutex_lock(&db->pool_mx);
	uint64_t for_lsn = dbm_pool_count_below(&db->pool, oldest + c->lsn_avg_rate * LSN_SCAN_FACTOR + 1,
						db->io_capacity_max) / LSN_SCAN_FACTOR;
	pthread_mutex_unlock(&db->pool_mx);
	n = (db->io_capacity + c->avg_page_rate + (for_lsn ? for_lsn : 1)) / 3;
	return n > db->io_capacity_max ? db->io_capacity_max : n;
}

/* buf_pool.need_LRU_eviction(): free frames below half the scan depth */
static bool frames_short(struct dbm *db)
{
	pthread_mutex_lock(&db->pool_mx);
	bool s = db->pool.lru.len > LRU_MIN(db) && db->pool.nfree < db->scan_depth / 2;
	pthread_mutex_unlock(&db->pool_mx);
	return s;
}

int dbm_flush_cleaner(struct emu_worker *w, struct dbm *db)
{
	uint64_t now = emu_now(), lsn = atomic_load(&db->lsn), ckpt_age = lsn - atomic_load(&db->ckpt_lsn);
	struct dbm_cleaner *c = &db->cl;
	int rc = 0;

	pthread_mutex_lock(&db->pool_mx);
	uint64_t oldest = dbm_pool_oldest_lsn(&db->pool);
	uint64_t dirty = db->pool.flush.len, nfree = db->pool.nfree, lru = db->pool.lru.len;
	pthread_mutex_unlock(&db->pool_mx);
	double dirty_pct = (double)dirty * 100.0 / (double)(lru + nfree ? lru + nfree : 1);
	bool need_lru = lru > LRU_MIN(db) && nfree < db->scan_depth / 2;
	bool furious = ckpt_age > db->max_age, hurry = furious;
	uint64_t age = oldest < lsn ? lsn - oldest : 0, done = 0, lru_n = 0;

	if (ckpt_age > db->async_age || need_lru || dirty_pct >= MAX_DIRTY_PCT)
		c->awake = true;        /* buf_flush_ahead(), page_cleaner_wakeup() */
	if (oldest == UINT64_MAX && !need_lru) {
		c->awake = false;
	} else if (oldest != UINT64_MAX && ckpt_age > db->async_age) {
		/* buf_flush_sync_for_checkpoint() to the current LSN, or a batch a
		   second that keeps the oldest change within the async point */
		uint64_t below = furious ? lsn : lsn - db->async_age;
		done = flush_list(w, db, db->io_capacity_max, below, NULL, &rc);
		lru_n = db->io_capacity_max > done ? db->io_capacity_max - done : 0;
	} else if (need_lru) {
		/* buf_flush_LRU(innodb_io_capacity_max); MariaDB's LRU rounds follow
		   each other at once while free frames are short, each ending in
		   log_checkpoint() and its fsyncs */
		lru_n = db->io_capacity_max;
		hurry = true;
	} else if (c->awake && (age > db->af_lwm || dirty_pct >= MAX_DIRTY_PCT)) {
		uint64_t n = recommend(db, lsn, oldest, dirty, dirty_pct, now);
		done = flush_list(w, db, n, UINT64_MAX, NULL, &rc);
		lru_n = db->io_capacity_max > done ? db->io_capacity_max - done : 0;
	} else {
		c->awake = false;       /* set_idle */
	}
	/* after a flush-list batch, MariaDB LRU-flushes too: at least a scan depth */
	if (done && lru_n < db->scan_depth)
		lru_n = db->scan_depth < db->io_capacity_max ? db->scan_depth : db->io_capacity_max;
	/* with nothing dirty, MariaDB's cleaner still evicts while frames are
	   short (its written pages are freed by a later round) */
	if (lru_n && !rc)
		done += flush_lru(w, db, lru_n, &rc);
	c->last_pages = oldest != UINT64_MAX ? done : 0;
	if (!rc && !emu_stopping(w))
		rc = checkpoint(w, db, UINT64_MAX);
	if (rc)
		return rc < 0 ? rc : 0;
	/*
	 * Furious flushing goes on at once, and so do LRU rounds while frames
	 * are still short. Otherwise the cleaner waits for the second's end or
	 * for a user thread short of frames (buf_LRU_get_free_block() wakes
	 * it); a wake-up during the round asked for the frames the round freed.
	 * So the adaptive flushing of the next branch runs only after a whole
	 * second without a shortage. Going on at once after every LRU round,
	 * the model reached it 2-3 times a second with the data larger than the
	 * pool, kept the checkpoint age at 3-5 MB by flushing the pages that
	 * stay hot (and dirty again at once) and wrote up to 1.64x MariaDB's
	 * pages a transaction; MariaDB ran 1-7 adaptive batches in 15 s there
	 * (INNODB_METRICS buffer_flush_adaptive; docs/fidelity-history.md, change 33).
	 */
	if (hurry && !furious && !frames_short(db)) {
		pthread_mutex_lock(&db->cl_mx);
		db->cl_kick = false;
		pthread_mutex_unlock(&db->cl_mx);
		hurry = false;
	}
	if (!hurry)
		cl_sleep(w, db, now + NSEC, true);
	else if (!done)
		cl_sleep(w, db, emu_now() + NSEC / 1000, true);
	return 0;
}

/* Start a PostgreSQL checkpoint: the redo point is now; pages dirty now must be written. */
static void pg_begin(struct dbm *db, uint64_t now, uint64_t lsn)
{
	struct dbm_cleaner *c = &db->cl;

	c->ckpt_running = true;
	c->ckpt_redo = lsn;
	c->t_prev = now;
	atomic_fetch_add(&db->epoch, 1);        /* full-page images start again */
	pthread_mutex_lock(&db->pool_mx);
	c->ckpt_total = db->pool.flush.len + db->pool.writing.len;
	pthread_mutex_unlock(&db->pool_mx);
	c->ckpt_done = 0;
}

int dbm_flush_checkpointer(struct emu_worker *w, struct dbm *db)
{
	struct dbm_cleaner *c = &db->cl;
	uint64_t now = emu_now(), lsn = atomic_load(&db->lsn);
	int rc = 0;

	if (!c->t_prev)
		c->t_prev = now;
	if (!c->ckpt_running) {
		if (now - c->t_prev < db->ckpt_timeout_ns &&
		    lsn - atomic_load(&db->ckpt_lsn) < db->ckpt_wal) {
			cl_sleep(w, db, now + NSEC / 10, true);
			return 0;
		}
		pg_begin(db, now, lsn);
	}
	/* on schedule when the share written keeps ahead of time and WAL used */
	double t_frac = (double)(now - c->t_prev) / (double)db->ckpt_timeout_ns;
	double w_frac = (double)(lsn - c->ckpt_redo) / (double)db->ckpt_wal;
	double need = (t_frac > w_frac ? t_frac : w_frac) / PG_COMPLETION;
	uint64_t want = (uint64_t)(need * (double)c->ckpt_total) + 1;
	if (want > c->ckpt_done)
		c->ckpt_done += flush_list(w, db, want - c->ckpt_done, c->ckpt_redo, &c->ckpt_wb, &rc);
	pthread_mutex_lock(&db->pool_mx);
	bool left = dbm_pool_oldest_lsn(&db->pool) < c->ckpt_redo;
	pthread_mutex_unlock(&db->pool_mx);
	if (!rc && !left && !emu_stopping(w)) {
		/* PostgreSQL fsyncs the files written at the end (ProcessSyncRequests) */
		wb_issue(db, &c->ckpt_wb);
		rc = checkpoint(w, db, c->ckpt_redo);
		c->ckpt_running = false;
	}
	if (rc)
		return rc < 0 ? rc : 0;
	cl_sleep(w, db, now + NSEC / 10, false);
	return 0;
}

int dbm_flush_bgwriter(struct emu_worker *w, struct dbm *db)
{
	uint64_t now = emu_now();
	uint32_t fi[MAX_BATCH];
	unsigned done = 0;
	int rc = 0;

	pthread_mutex_lock(&db->pool_mx);
	uint64_t allocs = db->reads_total - db->cl.last_alloc;
	uint32_t nfree = db->pool.nfree;
	db->cl.last_alloc = db->reads_total;
	pthread_mutex_unlock(&db->pool_mx);
	/* BgBufferSync(): it follows a rise in allocations at once and a fall
	   over 16 rounds, and scans at least the share of the pool that takes
	   it round the whole pool in two minutes. While free buffers remain,
	   allocations take them and the clock sweep (its reason to clean ahead
	   of it) does not run. */
	double *smoothed = &db->cl.smoothed_alloc;
	*smoothed = (double)allocs >= *smoothed ? (double)allocs : *smoothed + ((double)allocs - *smoothed) / 16;
	uint32_t depth = (uint32_t)(*smoothed * PG_BGW_MULT);
	if (depth < db->frames / PG_BGW_LAP_ROUNDS)
		depth = db->frames / PG_BGW_LAP_ROUNDS;
	if (nfree)
		depth = 0;
	while (done < PG_BGW_MAXPAGES && depth && !rc && !emu_stopping(w)) {
		unsigned want = PG_BGW_MAXPAGES - done < db->batch ? PG_BGW_MAXPAGES - done : db->batch;
		pthread_mutex_lock(&db->pool_mx);
		unsigned n = dbm_pool_pick_lru(&db->pool, depth, want, fi);
		pthread_mutex_unlock(&db->pool_mx);
		if (!n)
			break;
		rc = dbm_flush_write(w, db, fi, n, false, false, &db->cl.bgw_wb);
		done += n;
	}
	if (rc)
		return rc < 0 ? rc : 0;
	pthread_mutex_lock(&db->cl_mx);
	while (!emu_stopping(w) && emu_now() < now + PG_BGW_DELAY)
		dbm_wait(w, db, &db->cl_cv, &db->cl_mx, 50000000ULL);
	pthread_mutex_unlock(&db->cl_mx);
	return 0;
}
