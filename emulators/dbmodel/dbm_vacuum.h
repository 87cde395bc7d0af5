/*
 * dbm_vacuum.h - PostgreSQL's autovacuum in the storage-engine model: one
 * worker, the launcher's schedule and the thresholds of PostgreSQL 15's
 * defaults, and the I/O of VACUUM and ANALYZE of each table it picks.
 *
 * Schedule: the launcher gives each database a worker every
 * autovacuum_naptime (60 s), the databases it tracks spread over that
 * minute. With the three a throwaway server tracks (template1, postgres and
 * the benchmark's), PostgreSQL 15.18 started the worker on the benchmark's
 * 40 s after the server was ready (twice, 4 x 100,000 and 8 x 250,000
 * rows), then every 60 s. A warm-up that ends on the server's count of
 * transactions rather than its time (oltp --warmup-txns) moves the visits by
 * the difference, so that they fall where the server's did in the points
 * after it. The worker takes the tables in order and, per
 * table:
 *   VACUUM   when its dead tuples (n_dead_tup: those neither pruned nor
 *            vacuumed yet) pass autovacuum_vacuum_threshold 50 + 0.2 x
 *            reltuples, or its inserts since the last vacuum 1,000 + 0.2 x
 *            reltuples;
 *   ANALYZE  when its inserted, updated and deleted tuples since the last
 *            analyze pass 50 + 0.1 x reltuples.
 * An UPDATE counts as one updated tuple, whether its new version stays on
 * the page or not (n_tup_upd; n_ins_since_vacuum counts INSERTs only):
 * counted once more as an insert, a SysBench warm-up of 30 s (23,000-25,000
 * changes a table of 250,000 rows, the threshold 25,050) put the model's
 * ANALYZE of every table into the next point, and the server's not.
 * The tables start vacuumed and analyzed (the load's own pass is over, as
 * on a server that ran a minute after the load).
 *
 * VACUUM (lazy_scan_heap()): every heap page in order; a page with dead
 * tuples is pruned (XLOG_HEAP2_PRUNE, with a full-page image as any first
 * change after a checkpoint), a page changed since its last vacuum gets its
 * visibility-map bit (XLOG_HEAP2_VISIBLE; with wal_log_hints and checksums
 * off the heap page is dirtied without an image). When at least 2% of the
 * pages had dead items (BYPASS_THRESHOLD_PAGES) it vacuums every index, each
 * page in physical order (btvacuumscan()), dirtying the leaves that held
 * entries of dead tuples, then visits the pages with dead items again to
 * free them (XLOG_HEAP2_VACUUM). ANALYZE reads up to 30,000 heap pages
 * (300 x default_statistics_target rows, a page each), changing none.
 *
 * Their buffers: a page in shared_buffers is used there (a hit); a miss is
 * read into the worker's 256 KiB ring (BAS_VACUUM, 32 buffers), and a ring
 * buffer it dirtied is written by the worker itself when the ring comes
 * round to it, after the WAL up to its change is flushed: a backend write.
 * Cost-based delay (autovacuum_vacuum_cost_delay 2 ms, limit 200; a hit
 * costs 1, a miss 2, dirtying a page 20): past the limit the worker sleeps
 * 2 ms x balance / limit (at most 4 x 2 ms). A page whose last change
 * awaits its hint bits (dbm.h: page_hint) gets them from whichever of the
 * two reads it, and is dirtied without WAL: ANALYZE after a 30 s tpcc
 * warm-up dirtied 2,990 of the 12,700 pages it read (PostgreSQL 15, 2
 * warehouses; docs/data/fidelity-tpcc/pg-2026-12-06/).
 *
 * Measured against it (PostgreSQL 15.18, 250,000-row table after a 30 s
 * read_write warm-up, log_autovacuum_min_duration 0): the load's first
 * vacuum scanned 6,935 heap pages (its load and appended pages), 2,023 with
 * 11,290 dead items, one index pass (692 + 317 pages); 10,395 hits, 6,578
 * misses, 5,859 pages dirtied, 10,429 WAL records in 664 KB, 1.67 s;
 * ANALYZE 1,742 hits and 5,457 misses, 0.38 s.
 *
 * Threads: dbm_vac_add() before the run; the state is the autovacuum
 * worker's own (one background worker a point, points one after another).
 */
#ifndef APPIO_DBM_VACUUM_H
#define APPIO_DBM_VACUUM_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dbm_heap.h"

struct dbm;
struct emu_worker;

#define DBM_VAC_IDX 4           /* indexes a relation may have */

/*
 * A table autovacuum looks after, as its emulator lays it out. An emulator
 * that does not model the heap's dead tuples (tpcc) gives no @hs and its
 * count of changed rows in @modified: the table is analyzed when they pass
 * the threshold, never vacuumed; its rows lie over [@first, @first + @span),
 * @loaded pages' worth and @appended / @per_page more.
 */
struct dbm_vac_table {
	struct dbm_heap *hs;            /* the heap: dead tuples, room, changes; or NULL */
	uint64_t first, span;           /* without @hs: the heap's pages */
	const _Atomic uint64_t *modified;       /* without @hs: rows inserted, updated, deleted */
	uint64_t loaded;                /* its pages as loaded; the appended ones follow */
	uint64_t grow_first, grow_pages;        /* the pages appended at its end (a circle) */
	const _Atomic uint64_t *appended;       /* tuples appended there so far */
	const _Atomic uint64_t *inserted;       /* of them, rows INSERTed (not UPDATEs' new versions) */
	uint32_t per_page;              /* tuples an appended page holds */
	uint64_t idx_first[DBM_VAC_IDX], idx_pages[DBM_VAC_IDX];
	unsigned nidx;
	uint64_t reltuples;             /* pg_class.reltuples: the rows loaded */
};

/*
 * Put @t under autovacuum (copied). No-op unless the model is postgres with
 * --autovacuum on. Before dbm_start(). 0, or -ENOMEM.
 */
int dbm_vac_add(struct dbm *db, const struct dbm_vac_table *t);

/* dbm_start(): the launcher's clock starts now (the server's start). */
void dbm_vac_begin(struct dbm *db);

/*
 * Between points: the launcher's next visit moves by @ns. A warm-up bounded
 * by the server's count of transactions took @ns longer (< 0: shorter) than
 * the server's did, and the visits keep their place after it, where the
 * server's fell. No-op without autovacuum.
 */
void dbm_vac_shift(struct dbm *db, int64_t ns);

/*
 * The autovacuum worker's round: past the visit time, a cost-limited piece of
 * the current table's VACUUM or ANALYZE, then the cost delay; else a nap.
 * 0, or -errno.
 */
int dbm_vac_step(struct emu_worker *w, struct dbm *db);

/* For tests: make the next visit due now; whether a visit's work is in hand. */
void dbm_vac_visit_now(struct dbm *db);
bool dbm_vac_busy(const struct dbm *db);

void dbm_vac_release(struct dbm *db);

#endif
