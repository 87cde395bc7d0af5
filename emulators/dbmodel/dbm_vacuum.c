/*
 * dbm_vacuum.c - PostgreSQL's autovacuum worker in the model (see
 * dbm_vacuum.h for what it models and the measurements behind it).
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "appio/emulator.h"
#include "dbm.h"
#include "dbm_vacuum.h"

#define NAPTIME_NS (60 * 1000000000ULL)        /* autovacuum_naptime */
#define FIRST_VISIT_NS (40 * 1000000000ULL)    /* the benchmark database: second of three */
#define NAP_NS 50000000ULL              /* longest nap before the runner looks at the stop flag */
#define RING 32                         /* BAS_VACUUM: 256 KiB of 8 KiB buffers */
#define COST_HIT 1                      /* vacuum_cost_page_hit */
#define COST_MISS 2                     /* vacuum_cost_page_miss (PostgreSQL 14+) */
#define COST_DIRTY 20                   /* vacuum_cost_page_dirty */
#define COST_LIMIT 200                  /* vacuum_cost_limit */
#define COST_DELAY_NS 2000000ULL        /* autovacuum_vacuum_cost_delay 2 ms */
#define SKIP_PAGES 32                   /* SKIP_PAGES_THRESHOLD: all-visible runs VACUUM skips */
#define ANALYZE_PAGES 30000
#define DBM_NO_PAGE UINT64_MAX          /* an empty ring buffer */             /* 300 x default_statistics_target 100 rows */
/* WAL record bytes (header, block reference, body) */
#define REC_PRUNE 56                    /* XLOG_HEAP2_PRUNE, plus 2 a dead item */
#define REC_VISIBLE 64                  /* XLOG_HEAP2_VISIBLE (heap and map blocks) */
#define REC_VACUUM 60                   /* XLOG_HEAP2_VACUUM, the second heap pass */
#define REC_BTVACUUM 64                 /* XLOG_BTREE_VACUUM, plus 2 an entry removed */

enum phase { P_HEAP, P_INDEX, P_HEAP2, P_ANALYZE };

struct vac_table {
	struct dbm_vac_table t;
	uint64_t chg_at, ins_at, app_at, mod_at;        /* the counters at its last vacuum / analyze */
};

struct ring_buf {
	uint64_t page, lsn;
	bool dirty;
};

struct dbm_vac {
	struct vac_table *tab;
	unsigned n, cap;
	uint64_t next_ns;               /* the next visit */
	unsigned cur;                   /* the table in hand; n: between visits */
	enum phase ph;
	bool analyze;                   /* after the vacuum (or alone) */
	uint64_t pos, total, loaded;    /* the phase's next page; heap pages: all, as loaded */
	uint64_t scan_to;               /* P_HEAP: pages before it are scanned, all-visible or not */
	unsigned idx;                   /* P_INDEX: the index in hand */
	uint64_t chg_now, ins_now, app_now;     /* the counters when the table's turn came */
	int64_t dead_now;               /* and its dead tuples (n_dead_tup) */
	uint64_t grow_start, grow_new;  /* appended pages changed since the last vacuum */
	uint64_t *lp, nlp, lp_cap;      /* heap pages with dead items (the second pass's) */
	double leaf_frac, leaf_acc;     /* share of index leaves with dead entries */
	uint32_t balance;
	struct ring_buf ring[RING];
	unsigned ring_next;
};

int dbm_vac_add(struct dbm *db, const struct dbm_vac_table *t)
{
	if (db->model != DBM_POSTGRES || !db->autovacuum)
		return 0;
	struct dbm_vac *v = db->vac;
	if (!v && !(v = db->vac = calloc(1, sizeof(*v))))
		return -ENOMEM;
	if (v->n == v->cap) {
		unsigned cap = v->cap ? 2 * v->cap : 8;
		struct vac_table *nt = realloc(v->tab, cap * sizeof(*nt));
		if (!nt)
			return -ENOMEM;
		v->tab = nt;
		v->cap = cap;
	}
	if (t->hs && t->hs->npages > v->lp_cap) {
		uint64_t *lp = realloc(v->lp, t->hs->npages * sizeof(*lp));
		if (!lp)
			return -ENOMEM;
		v->lp = lp;
		v->lp_cap = t->hs->npages;
	}
	for (unsigned i = 0; i < RING; i++)
		v->ring[i].page = DBM_NO_PAGE;
	v->tab[v->n++] = (struct vac_table){ .t = *t };
	v->cur = v->n;
	return 0;
}

void dbm_vac_begin(struct dbm *db)
{
	db->vac->next_ns = emu_now() + FIRST_VISIT_NS;
}

void dbm_vac_shift(struct dbm *db, int64_t ns)
{
	if (db->vac)
		db->vac->next_ns += (uint64_t)ns;       /* two's complement: a negative shift subtracts */
}

void dbm_vac_visit_now(struct dbm *db)
{
	db->vac->next_ns = emu_now();
}

bool dbm_vac_busy(const struct dbm *db)
{
	return db->vac->cur < db->vac->n;
}

void dbm_vac_release(struct dbm *db)
{
	if (!db->vac)
		return;
	free(db->vac->tab);
	free(db->vac->lp);
	free(db->vac);
	db->vac = NULL;
}

static void nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / 1000000000ULL), .tv_nsec = (long)(ns % 1000000000ULL) };
	nanosleep(&ts, NULL);
}

/* A ring buffer comes round: the page it held, if dirtied, is written now (WAL first). */
static int ring_free(struct emu_worker *w, struct dbm *db, struct ring_buf *b)
{
	if (!b->dirty)
		return 0;
	b->dirty = false;
	int rc = dbm_log_up_to(w, db, b->lsn, true);
	if (rc)
		return rc < 0 ? rc : 0;
	if ((rc = dbm_page_write(w, db, b->page)) != 0)
		return rc;
	emu_count(w, DBM_C_WRITTEN, 1);
	emu_count(w, DBM_C_VAC_WRITTEN, 1);
	atomic_store(&db->space_unsynced[dbm_space_of(db, b->page)], true);
	return 0;
}

static int ring_flush(struct emu_worker *w, struct dbm *db, struct dbm_vac *v)
{
	int rc = 0;
	for (unsigned i = 0; i < RING && !rc; i++)
		rc = ring_free(w, db, &v->ring[i]);
	return rc;
}

/*
 * VACUUM or ANALYZE uses @page: a hit in shared_buffers is used there, a miss
 * is read into the ring. @redo > 0 changes it (@image: a full-page image as
 * for any change; else none); @hit_only: only if it was in shared_buffers.
 * Counts the cost.
 */
static int use_page(struct emu_worker *w, struct dbm *db, struct dbm_vac *v, uint64_t page,
		    uint32_t redo, bool image, bool hit_only)
{
	pthread_mutex_lock(&db->pool_mx);
	bool hit = dbm_pool_lookup(&db->pool, page) != DBM_NIL;
	pthread_mutex_unlock(&db->pool_mx);
	if (hit_only && !hit)
		redo = 0;
	struct ring_buf *b = NULL;
	for (unsigned i = 0; i < RING && !hit && !b; i++)
		if (v->ring[i].page == page)
			b = &v->ring[i];        /* still in its ring buffer: a hit too */
	v->balance += (hit || b ? COST_HIT : COST_MISS) + (redo ? COST_DIRTY : 0);
	if (hit)
		return dbm_page(w, db, page, image ? 0 : DBM_NO_IMAGE, redo);

	int rc;
	bool hint = false;
	emu_count(w, DBM_C_READ_REQ, 1);
	if (!b) {
		b = &v->ring[v->ring_next];
		v->ring_next = (v->ring_next + 1) % RING;
		if ((rc = ring_free(w, db, b)) != 0)
			return rc;
		b->page = DBM_NO_PAGE;
		int64_t r = dbm_io(w, db, DBM_CLS_PAGE_READ, IO_READ, emu_buf(w, 0), db->page_size,
				   db->data_off + page * db->page_size);
		if (r != (int64_t)db->page_size)
			return emu_fail(w, r < 0 ? (int)r : -EIO, "page read at offset %llu failed",
					(unsigned long long)(db->data_off + page * db->page_size));
		emu_count(w, DBM_C_READS, 1);
		emu_count(w, DBM_C_VAC_READS, 1);
		b->page = page;
		pthread_mutex_lock(&db->pool_mx);
		hint = db->page_hint && db->page_hint[page];
		if (hint)
			db->page_hint[page] = 0;
		pthread_mutex_unlock(&db->pool_mx);
	}
	if (hint && !redo && !b->dirty) {       /* hint bits: dirtied, no WAL */
		emu_count(w, DBM_C_DIRTIED, 1);
		b->lsn = 0;
		b->dirty = true;
	}
	if (redo) {
		if ((rc = dbm_log_space(w, db)) != 0)
			return rc;
		pthread_mutex_lock(&db->pool_mx);
		b->lsn = dbm_log_change(w, db, page, redo, image);
		pthread_mutex_unlock(&db->pool_mx);
		if (!b->dirty)
			emu_count(w, DBM_C_DIRTIED, 1);
		b->dirty = true;
	}
	return 0;
}

/* The heap's @j-th page: the loaded ones, then the appended ones. */
static uint64_t heap_page(const struct dbm_vac *v, const struct dbm_vac_table *t, uint64_t j)
{
	if (!t->hs)             /* the rows' pages spread over the heap's */
		return t->first + j * t->span / v->total;
	return j < v->loaded ? t->hs->first + j : t->grow_first + (j - v->loaded);
}

/* A table without a heap model: its turn begins if its changes pass ANALYZE's threshold. */
static bool pick_analyze(struct dbm_vac *v, const struct vac_table *vt)
{
	const struct dbm_vac_table *t = &vt->t;
	uint64_t mod = atomic_load_explicit(t->modified, memory_order_relaxed);
	uint64_t app = atomic_load_explicit(t->appended, memory_order_relaxed);

	if ((double)(mod - vt->mod_at) <= 50 + 0.1 * (double)t->reltuples)
		return false;
	uint64_t used = t->loaded + (app + t->per_page - 1) / t->per_page;
	v->analyze = true;
	v->chg_now = mod;
	v->ins_now = v->app_now = 0;
	v->dead_now = 0;
	v->loaded = v->total = used < t->span ? used : t->span;
	v->pos = 0;
	v->ph = P_ANALYZE;
	return v->total > 0;
}

/* The next table from v->cur on that is past a threshold: its turn begins. */
static void pick(struct dbm_vac *v)
{
	for (; v->cur < v->n; v->cur++) {
		struct vac_table *vt = &v->tab[v->cur];
		const struct dbm_vac_table *t = &vt->t;
		if (!t->hs) {
			if (pick_analyze(v, vt))
				return;
			continue;
		}
		int64_t dead = atomic_load_explicit(&t->hs->n_dead, memory_order_relaxed);
		uint64_t chg = atomic_load_explicit(&t->hs->n_changed, memory_order_relaxed);
		uint64_t ins = atomic_load_explicit(t->inserted, memory_order_relaxed);
		uint64_t app = atomic_load_explicit(t->appended, memory_order_relaxed);
		double rt = (double)t->reltuples;
		bool vac = (double)dead > 50 + 0.2 * rt || (double)(ins - vt->ins_at) > 1000 + 0.2 * rt;
		v->analyze = (double)(chg + ins - vt->mod_at) > 50 + 0.1 * rt;
		if (!vac && !v->analyze)
			continue;
		v->chg_now = chg;
		v->dead_now = dead;
		v->ins_now = ins;
		v->app_now = app;
		uint64_t used = (app + t->per_page - 1) / t->per_page;
		v->loaded = t->loaded;
		v->total = v->loaded + (used < t->grow_pages ? used : t->grow_pages);
		uint64_t news = (app - vt->app_at + t->per_page - 1) / t->per_page;
		v->grow_new = news < t->grow_pages ? news : t->grow_pages;
		v->grow_start = t->grow_pages ? vt->app_at / t->per_page % t->grow_pages : 0;
		v->nlp = 0;
		v->pos = v->scan_to = 0;
		v->ph = vac ? P_HEAP : P_ANALYZE;
		return;
	}
}

/* The current table's phase @ph is over: the next phase, or the next table. */
static int phase_done(struct emu_worker *w, struct dbm *db, struct dbm_vac *v)
{
	struct vac_table *vt = &v->tab[v->cur];
	int rc = 0;

	v->pos = 0;
	if (v->ph == P_HEAP && v->nlp && v->nlp * 50 >= v->total) {
		/* the pages with dead items pass BYPASS_THRESHOLD_PAGES: the indexes */
		v->ph = P_INDEX;
		v->idx = 0;
		v->leaf_acc = 0;
		return 0;
	}
	if (v->ph == P_INDEX && ++v->idx < vt->t.nidx)
		return 0;
	if (v->ph == P_INDEX) {
		v->ph = P_HEAP2;
		return 0;
	}
	if (v->ph != P_ANALYZE) {       /* the vacuum is over */
		dbm_heap_vacuumed(vt->t.hs, v->dead_now);
		vt->chg_at = v->chg_now;
		vt->ins_at = v->ins_now;
		vt->app_at = v->app_now;
		if (v->analyze) {
			v->ph = P_ANALYZE;
			return 0;
		}
	} else {
		vt->mod_at = v->chg_now + v->ins_now;
	}
	rc = ring_flush(w, db, v);
	v->cur++;
	pick(v);
	return rc;
}

/* Whether the heap's @j-th page changed since the table's last vacuum. */
static bool heap_changed(const struct dbm_vac *v, const struct dbm_vac_table *t, uint64_t j)
{
	if (dbm_heap_changed(t->hs, heap_page(v, t, j)))
		return true;
	return j >= v->loaded &&
	       (j - v->loaded + t->grow_pages - v->grow_start) % t->grow_pages < v->grow_new;
}

/*
 * P_HEAP at an all-visible page: lazy_scan_skip() skips a run of at least
 * SKIP_PAGES all-visible pages (the visibility map says they hold nothing
 * to vacuum); a shorter run is scanned. Moves v->pos past a skipped run.
 */
static void skip_visible(struct dbm_vac *v, const struct dbm_vac_table *t)
{
	uint64_t end = v->pos;

	while (end < v->total && !heap_changed(v, t, end))
		end++;
	if (end - v->pos >= SKIP_PAGES)
		v->pos = end;
	v->scan_to = end;
}

/* One page of the current phase. */
static int one_page(struct emu_worker *w, struct dbm *db, struct dbm_vac *v)
{
	const struct dbm_vac_table *t = &v->tab[v->cur].t;

	if (v->ph == P_HEAP && v->pos >= v->scan_to && !heap_changed(v, t, v->pos)) {
		skip_visible(v, t);
		if (v->pos >= v->total)
			return 0;
	}
	uint64_t j = v->pos++;

	switch (v->ph) {
	case P_HEAP: {
		uint64_t page = heap_page(v, t, j);
		bool appended = j >= v->loaded && heap_changed(v, t, j), changed;
		unsigned dead = dbm_heap_vacuum(t->hs, page, &changed);
		if (changed)
			v->lp[v->nlp++] = page;
		changed |= appended;
		uint32_t redo = (dead ? REC_PRUNE + 2 * dead : 0) + (changed || dead ? REC_VISIBLE : 0);
		return use_page(w, db, v, page, redo, dead > 0, false);
	}
	case P_INDEX: {
		if (j == 0) {
			uint64_t items = v->chg_now - v->tab[v->cur].chg_at;
			v->leaf_frac = 1 - exp(-(double)items / (double)t->idx_pages[v->idx]);
		}
		v->leaf_acc += v->leaf_frac;
		bool dirty = v->leaf_acc >= 1;
		if (dirty)
			v->leaf_acc -= 1;
		uint64_t per_leaf = (v->chg_now - v->tab[v->cur].chg_at) / t->idx_pages[v->idx] + 1;
		/* the entries that died are on the leaves the changes used: a leaf
		   not in shared_buffers is one no change came to (none dirtied) */
		return use_page(w, db, v, t->idx_first[v->idx] + j,
				dirty ? REC_BTVACUUM + 2 * (uint32_t)per_leaf : 0, true, true);
	}
	case P_HEAP2:
		return use_page(w, db, v, v->lp[j], REC_VACUUM, true, false);
	case P_ANALYZE: {
		uint64_t n = v->total < ANALYZE_PAGES ? v->total : ANALYZE_PAGES;
		return use_page(w, db, v, heap_page(v, t, j * v->total / n), 0, false, false);
	}
	}
	return 0;
}

static uint64_t phase_pages(const struct dbm_vac *v)
{
	const struct dbm_vac_table *t = &v->tab[v->cur].t;

	switch (v->ph) {
	case P_HEAP:
		return v->total;
	case P_INDEX:
		return t->idx_pages[v->idx];
	case P_HEAP2:
		return v->nlp;
	case P_ANALYZE:
		return v->total < ANALYZE_PAGES ? v->total : ANALYZE_PAGES;
	}
	return 0;
}

int dbm_vac_step(struct emu_worker *w, struct dbm *db)
{
	struct dbm_vac *v = db->vac;
	uint64_t now = emu_now();
	int rc = 0;

	if (v->cur == v->n) {           /* between visits */
		if (now < v->next_ns) {
			nap(v->next_ns - now < NAP_NS ? v->next_ns - now : NAP_NS);
			return 0;
		}
		v->next_ns = now + NAPTIME_NS;
		v->cur = 0;
		pick(v);
		return 0;
	}
	while (!rc && v->cur < v->n && v->balance < COST_LIMIT && !emu_stopping(w))
		rc = v->pos < phase_pages(v) ? one_page(w, db, v) : phase_done(w, db, v);
	/* an ANALYZE's snapshot holds back what the transactions may prune */
	bool analyzing = v->cur < v->n && v->ph == P_ANALYZE;
	if (analyzing != !!atomic_load_explicit(&db->analyze_began, memory_order_relaxed))
		atomic_store(&db->analyze_began, analyzing ? now : 0);
	if (v->balance >= COST_LIMIT) {
		uint64_t ns = COST_DELAY_NS * v->balance / COST_LIMIT;
		nap(ns < 4 * COST_DELAY_NS ? ns : 4 * COST_DELAY_NS);
		v->balance = 0;
	}
	return rc < 0 ? rc : 0;
}
