/*
 * oltp.c - SysBench's OLTP transactions as InnoDB (or PostgreSQL) would do
 * their I/O, without the database: the `oltp_read_write` transaction of
 * SysBench 1.0 (oltp_common.lua), or --mode read_only, write_only or
 * point_select, with SysBench's statement counts, options and defaults
 * (the same as `appio db run`), each statement mapped to the pages it
 * touches in the storage-engine model (emulators/dbmodel/dbm.h).
 *
 * Tables sbtest1..N are B+trees whose geometry follows from --table-size
 * and the row size: InnoDB's clustered index on id (a 206-byte record:
 * 5-byte header, id, DB_TRX_ID, DB_ROLL_PTR, k, CHAR(120) c, CHAR(60) pad)
 * and the secondary index k_N on (k, id); PostgreSQL's heap (216-byte
 * tuples, 37 to an 8 KiB page), its primary-key B-tree and k_N. Statement
 * to pages:
 *   point SELECT     root-to-leaf of the primary key (+ the heap page, postgres)
 *   range SELECT     the path to the first row, then the consecutive leaves
 *                    (and heap pages) of --range-size rows
 *   UPDATE k         the row's leaf (modified, undo), the k index leaf: old
 *                    entry delete-marked, new entry inserted
 *   UPDATE c         the row's leaf (modified, undo with the old c)
 *   DELETE + INSERT  the row's leaf twice, the old and the new k entries
 * PostgreSQL's heap (dbm_heap.h): an UPDATE's new version stays on the
 * row's page when an earlier prune left room there (HOT for UPDATE c: no
 * index entry), else goes to the heap's end with new entries in both
 * indexes; DELETE leaves a dead tuple, INSERT appends; fetching a page with
 * dead tuples prunes it.
 * Row ids follow --rand-type as SysBench draws them (the same code as the
 * real-database mode), and so does k: each row's k is drawn at set-up and
 * kept, UPDATE k adds one, the INSERT after the DELETE draws a new one. An
 * entry's place in k_N is the rank of (k, id) in the index as loaded, so
 * the hot k values of --rand-type special (75% of the rows' k in 1% of the
 * range) are a few hundred adjacent leaves, and an UPDATE of k moves its
 * entry past the other rows with the same k, into the next leaf now and
 * then, as it does in the real index.
 *
 * --warmup-points N runs the first N sweep points as read_write whatever
 * --mode says, so that a sweep can start as a SysBench user starts one: a
 * read_write warm-up of the server, then the measured script on the same
 * (warm) buffer pool. --warmup-txns ends that warm-up after the server's
 * count of transactions rather than after --time: what the next point meets
 * (the pool, the purge backlog, the changes autovacuum counts toward its
 * thresholds) follows the work done, and a model a few per cent slower than
 * the server at the warm-up's threads would otherwise start the point short
 * of a threshold the server had passed.
 *
 * Redo bytes per change are calibrated against MariaDB 10.11 on this class
 * of machine (Innodb_lsn_current per transaction, purge included; see
 * docs/oltp-tpcc.md); PostgreSQL's from its WAL record sizes.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/result.h"
#include "appio/xalloc.h"
#include "sysbench/db_mix.h"
#include "dbmodel/dbm.h"
#include "dbmodel/dbm_calib.h"
#include "dbmodel/dbm_heap.h"
#include "dbmodel/dbm_lock.h"
#include "dbmodel/dbm_vacuum.h"

enum oltp_mode { M_READ_WRITE, M_READ_ONLY, M_WRITE_ONLY, M_POINT_SELECT };
static const char *const mode_names[] = { "read_write", "read_only", "write_only",
					  "point_select", NULL };

struct oltp_opts {
	struct dbm_opts db;
	int mode;
	uint64_t tables, table_size;
	uint64_t warmup_points, warmup_txns;
	double cpu_per_row, cpu_per_write;      /* microseconds; -1: the model's default */
	struct db_mix mix;              /* as `appio db run`'s */
};

/* One sbtest table: its trees (InnoDB's k index splits and merges), and for
   postgres the heap's append area. */
struct oltp_table {
	struct dbm_tree pk, k, heap;
	struct dbm_sec ksec;
	struct dbm_heap hs;             /* postgres: dead tuples and room per heap page */
	_Atomic uint32_t *kval;         /* each row's k */
	uint64_t grow_first, grow_pages;
	_Atomic uint64_t inserted;      /* postgres: rows INSERTed (autovacuum's count) */
};

/* Bytes of redo (WAL) and undo per change, per model. */
struct oltp_costs {
	uint32_t upd_k, upd_k_undo, k_idx, upd_c, upd_c_undo;
	uint32_t del, del_undo, ins, ins_undo, heap_ins, purge;
	uint32_t upd_old, upd_new, upd_same, prune;     /* postgres */
};

static const struct oltp_costs innodb_costs = {
	/* MariaDB 10.11 record changes: in-place updates log the changed fields,
	   the INSERT after the DELETE rewrites the delete-marked record (c, pad,
	   k); undo holds the old values. Scaled so that a transaction, its purge
	   and commit come to the ~1.46 KB of redo MariaDB writes beside its page
	   splits and merges (regression over INNODB_METRICS, docs/oltp-tpcc.md) */
	.upd_k = 60, .upd_k_undo = 60, .k_idx = 40, .upd_c = 200, .upd_c_undo = 180,
	.del = 40, .del_undo = 60, .ins = 260, .ins_undo = 240, .heap_ins = 0, .purge = 20,
};

static const struct oltp_costs pg_costs = {
	/* PostgreSQL 15's WAL records, each with its 24-byte header and a block
	   reference (20 bytes, 8 for a second block of the same relation): an
	   UPDATE whose new version goes to another page logs the new tuple (~193
	   bytes of data after its header) on that page, xl_heap_update on the
	   old one; on the same page the new tuple is logged without the prefix
	   and suffix it shares with the old (id, k and pad unchanged by UPDATE
	   c: log_heap_update()); a B-tree leaf insert, the 16-byte index tuple;
	   a DELETE, xl_heap_delete; an INSERT, the whole tuple; a prune, the
	   56 bytes a record that the server's read-only points wrote
	   (pg_stat_wal: wal_bytes / wal_records, nothing else logged there).
	   The commit record is dbm.c's. Together ~1.2 KB a transaction beside
	   the full-page images; PostgreSQL wrote ~1.05 KB with the data in the
	   pool and 1.3-1.4 KB with 2 x 1M rows in 128M (wal_bytes less
	   wal_fpi x ~7.4 KB, docs/oltp-tpcc.md). */
	.k_idx = 64, .del = 54, .ins = 64, .heap_ins = 250,
	.upd_old = 40, .upd_new = 230, .upd_same = 200, .prune = 56,
};

enum group { G_POINT, G_SIMPLE, G_SUM, G_ORDER, G_DISTINCT, G_INDEX_UPD, G_NON_INDEX_UPD,
	     G_DELETE_INSERT, G_N };

/* A statement group of a transaction and how many of its statements it runs. */
struct oltp_plan {
	enum group g;
	unsigned count;
	uint64_t cpu_ns;                /* a statement's CPU beyond --cpu-per-stmt */
};

struct oltp_run {
	struct dbm db;
	struct db_rand rand;
	const struct oltp_costs *cost;
	struct oltp_table *t;
	unsigned ntables;
	uint32_t table_size, range_size;
	uint64_t *k_below;              /* [v]: entries of all tables with k < v at load */
	bool trx, warm_trx;
	unsigned nplan, nwarm;
	struct oltp_plan plan[G_N], warm[G_N];
	uint64_t warmup_points;         /* sweep points that run read_write first */
	uint64_t warmup_txns;           /* >0: they end after this many transactions in all */
	uint64_t row_ns, write_ns;      /* CPU per extra row a range examines, per row change */
	_Atomic uint64_t points_done;
	struct dbm_locks locks;         /* rows changed by running transactions */
};

#define HELD_MAX 8                      /* rows a transaction locks: 3 in read_write */

struct oltp_worker {
	struct dbm_txn txn;
	uint64_t held[HELD_MAX];
	unsigned nheld;
};

/* Counters after the model's own. */
enum { C_LOCK_WAITS = DBM_NCOUNTERS, C_DEADLOCKS };

#define O(f) offsetof(struct oltp_opts, f)
static const struct opt_def oltp_opt_table[] = {
	DBM_OPTS(O(db)),
	{ "mode", OPT_ENUM, O(mode), "read_write",
	  "SysBench script: read_write, read_only, write_only, point_select", mode_names },
	{ "tables", OPT_UINT, O(tables), "1", "number of tables sbtest1..N", .min = 1, .max = 100000 },
	{ "table-size", OPT_UINT, O(table_size), "10000", "rows per table", .min = 1, .max = INT32_MAX },
	{ "warmup-points", OPT_UINT, O(warmup_points), "0",
	  "the first N sweep points run read_write whatever --mode says: the warm-up a SysBench "
	  "user runs on the server before measuring (the pool stays warm across points)",
	  .max = 1024 },
	{ "warmup-txns", OPT_UINT, O(warmup_txns), "0", DBM_WARMUP_TXNS_HELP, .max = UINT32_MAX },
	{ "cpu-per-row", OPT_DOUBLE, O(cpu_per_row), "-1",
	  "microseconds of real CPU per row a range SELECT examines beyond the first, on top of "
	  "--cpu-per-stmt (-1: calibrated default: 1.07 innodb, 1.62 postgres; 0 with --cpu-per-stmt "
	  "given; with --calibrate-from, its share of the run's average)" },
	{ "cpu-per-write", OPT_DOUBLE, O(cpu_per_write), "-1",
	  "microseconds of real CPU per row an UPDATE, DELETE or INSERT changes, on top of "
	  "--cpu-per-stmt (-1: calibrated default: 57.3 innodb, 66.3 postgres; 0 with --cpu-per-stmt "
	  "given; with --calibrate-from, its share of the run's average); InnoDB's purge threads "
	  "burn up to 8.9 of it later, in their bursts" },
	DB_MIX_OPTS(O(mix)),
	OPT_END,
};
#undef O

/* Which groups each mode runs, in SysBench's order (oltp_*.lua event()). */
static const bool mode_groups[4][G_N] = {
	[M_READ_WRITE] = { 1, 1, 1, 1, 1, 1, 1, 1 },
	[M_READ_ONLY] = { 1, 1, 1, 1, 1, 0, 0, 0 },
	[M_WRITE_ONLY] = { 0, 0, 0, 0, 0, 1, 1, 1 },
	[M_POINT_SELECT] = { 1, 0, 0, 0, 0, 0, 0, 0 },
};

static unsigned group_count(const struct oltp_opts *o, int mode, enum group g)
{
	const struct db_mix *m = &o->mix;
	const uint64_t counts[G_N] = { m->point_selects, m->simple_ranges, m->sum_ranges,
				       m->order_ranges, m->distinct_ranges, m->index_updates,
				       m->non_index_updates, m->delete_inserts };
	if (!mode_groups[mode][g])
		return 0;
	if (mode == M_POINT_SELECT)
		return 1;       /* oltp_point_select: one SELECT, whatever --point-selects says */
	if (g >= G_SIMPLE && g <= G_DISTINCT && !m->range_selects)
		return 0;
	return (unsigned)counts[g];
}

/*
 * PostgreSQL 13+ B-tree deduplication (CREATE INDEX builds it, nbtdedup.c):
 * the entries of one k value share one index tuple, 16 bytes and its 4-byte
 * line pointer, with 6 bytes a further heap TID. SysBench draws k as it
 * draws ids, so --rand-type special (the default) puts 75% of the rows' k
 * in 1% of the values: a 250,000-row table's k_N took 317 pages on
 * PostgreSQL 15 (its VACUUM's index pass), 692 for the primary key. The
 * entries a k leaf holds, from the table's distinct k values as loaded.
 */
static uint32_t k_per_leaf(const struct oltp_table *t, uint64_t rows, uint32_t per_idx)
{
	uint64_t *seen = xcalloc(rows / 64 + 2, sizeof(*seen)), distinct = 0;

	for (uint64_t row = 0; row < rows; row++) {
		uint32_t k = atomic_load_explicit(&t->kval[row], memory_order_relaxed);
		uint64_t bit = 1ull << (k % 64), *w = &seen[k / 64];    /* k <= rows */
		distinct += !(*w & bit);
		*w |= bit;
	}
	free(seen);
	double bytes = (double)distinct * 20 + (double)(rows - distinct) * 6;
	double per = bytes > 0 ? (double)per_idx * (double)rows * 20 / bytes : per_idx;
	return per > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)per;
}

/*
 * Record and page sizes per model (bytes). InnoDB: page 16 KiB less 120 of
 * header, trailer, infimum and supremum; leaves of a sorted load 15/16 full
 * (innodb_fill_factor 100 leaves 1/16 free); node pointers are key + 4-byte
 * child + 5-byte header. PostgreSQL: 24-byte page header; heap tuples
 * 216 + 4-byte line pointer, fillfactor 100; B-tree tuples 16 + 4, leaves
 * 90% full (the B-tree default fillfactor).
 */
static int table_geometry(struct oltp_run *r, struct oltp_table *t, uint64_t rows)
{
	struct dbm *db = &r->db;
	int rc;

	if (db->model == DBM_INNODB) {
		uint32_t per_leaf = dbm_tree_per_page(db->page_size, 120, 15.0 / 16, 206);
		dbm_space(db);          /* file-per-table: sbtestN.ibd holds both indexes */
		dbm_space_headers(db);
		rc = dbm_tree_init(&t->pk, rows, per_leaf, dbm_tree_per_page(db->page_size, 120, 15.0 / 16, 13),
				   dbm_alloc(db, 0));
		if (!rc) {
			/* CREATE INDEX after the load: a sorted bulk load, leaves full:
			   13-byte records and the 2-byte directory slot per 4 records that
			   InnoDB reserves (page_get_max_insert_size_after_reorganize(),
			   which also decides whether two leaves merge) in the page's
			   page_size - 132 bytes of free space; merged when the records
			   fill less than half the page */
			dbm_alloc(db, t->pk.npages);
			rc = dbm_sec_init(&t->ksec, rows, (db->page_size - 132) * 2 / 27, 0,
					  db->page_size / 2 / 13, dbm_tree_per_page(db->page_size, 120, 1.0, 17),
					  dbm_alloc(db, 0));
			dbm_alloc(db, rc ? 0 : dbm_sec_pages(&t->ksec));
		}
		return rc;
	}
	uint32_t per_heap = dbm_tree_per_page(db->page_size, 24, 1.0, 220);
	uint32_t per_idx = dbm_tree_per_page(db->page_size, 40, 0.9, 20);
	dbm_space(db);                  /* each relation is a file of its own */
	rc = dbm_tree_init_heap(&t->heap, rows, per_heap, dbm_alloc(db, 0));
	dbm_alloc(db, t->heap.npages);
	/* the heap grows at its end (INSERT after DELETE, without vacuum): room for
	   1/8 of the table, reused circularly (a model limit) */
	t->grow_pages = t->heap.npages / 8 + 16;
	t->grow_first = dbm_alloc(db, t->grow_pages);
	if (!rc)
		rc = dbm_heap_init(&t->hs, t->heap.first_page, t->heap.npages + t->grow_pages);
	if (!rc)
		rc = dbm_heap_rows(&t->hs, rows, per_heap);
	dbm_space(db);
	if (!rc)
		rc = dbm_tree_init(&t->pk, rows, per_idx, per_idx, dbm_alloc(db, 0));
	dbm_alloc(db, rc ? 0 : t->pk.npages);
	dbm_space(db);
	if (!rc)
		rc = dbm_tree_init(&t->k, rows, k_per_leaf(t, rows, per_idx), per_idx, dbm_alloc(db, 0));
	dbm_alloc(db, rc ? 0 : t->k.npages);
	if (!rc)
		rc = dbm_vac_add(db, &(struct dbm_vac_table){
			.hs = &t->hs, .loaded = t->heap.npages,
			.grow_first = t->grow_first, .grow_pages = t->grow_pages,
			.appended = &t->hs.appended, .inserted = &t->inserted, .per_page = per_heap,
			.idx_first = { t->pk.first_page, t->k.first_page },
			.idx_pages = { t->pk.npages, t->k.npages }, .nidx = 2, .reltuples = rows });
	return rc;
}

static void plan(struct oltp_run *r, const struct oltp_opts *o)
{
	for (enum group g = 0; g < G_N; g++) {
		unsigned n = group_count(o, o->mode, g), nw = group_count(o, M_READ_WRITE, g);
		uint64_t ns = g >= G_INDEX_UPD ? r->write_ns     /* the INSERT of DELETE + INSERT: its own */
			    : g >= G_SIMPLE ? (r->range_size - 1) * r->row_ns : 0;
		if (n)
			r->plan[r->nplan++] = (struct oltp_plan){ g, n, ns };
		if (nw)
			r->warm[r->nwarm++] = (struct oltp_plan){ g, nw, ns };
	}
	r->trx = o->mode != M_POINT_SELECT && !o->mix.skip_trx;
	r->warm_trx = !o->mix.skip_trx;
	r->warmup_points = o->warmup_points;
	r->warmup_txns = o->warmup_txns;
}

static void oltp_teardown(struct emu_run *run);

#define K_STREAM 0x6b0000u              /* + table: the rng stream of its k values */
#define MAX_ROWS (1ull << 30)           /* all tables: 4 GiB of k values */

/* Each row's k as SysBench's prepare draws it, and where each k value's
   entries begin in the index. */
static int load_k(struct oltp_run *r, uint64_t seed, volatile sig_atomic_t *stop)
{
	uint64_t n = r->table_size;

	r->k_below = xcalloc(n + 2, sizeof(*r->k_below));
	for (unsigned i = 0; i < r->ntables; i++) {
		struct rng g;

		rng_seed(&g, seed, K_STREAM + i);
		r->t[i].kval = xmalloc(n * sizeof(*r->t[i].kval));
		for (uint64_t row = 0; row < n; row++) {
			if (!(row & 0xfffff) && *stop)
				return -EINTR;
			uint32_t k = db_rand_default(&r->rand, &g, 1, r->table_size);
			atomic_init(&r->t[i].kval[row], k);
			r->k_below[k + 1]++;
		}
	}
	for (uint64_t v = 1; v < n + 2; v++)
		r->k_below[v] += r->k_below[v - 1];
	return 0;
}

/*
 * A statement's CPU grows with the rows it examines and changes
 * (--cpu-per-row, --cpu-per-write on top of --cpu-per-stmt): one cost per
 * statement made a point SELECT cost what the average statement of
 * read_write does. Calibrated against MariaDB 10.11 and PostgreSQL 15 on 2
 * KVM cores, quiet, with the four SysBench scripts interleaved at 16 threads
 * and the data in the pool (scripts/calibrate-oltp-cpu.sh; docs/fidelity-history.md,
 * Statement costs by kind), as the whole machine's CPU a statement takes,
 * the emulator's own work in it (change 32). A statement cost given is taken as the whole;
 * one calibrated from a real run (--calibrate-from) is that run's average,
 * shared out in the defaults' shape by the rows its statements examined and
 * changed. --cpu-per-row and --cpu-per-write, when given, are taken as they are
 * (a write's with its purge in it).
 */
static const struct { double stmt_us, row_us, write_us, purge_us; } oltp_cpu[] = {
	[DBM_INNODB] = { 48.5, 1.07, 57.3, 6.0 },
	[DBM_POSTGRES] = { 38.8, 1.62, 66.3, 0 },       /* 57.25, 2.39, 97.9 at 16 threads, --cpu-per-backend */
};
/* InnoDB's purge burns its share of a write's CPU in its own threads
   (dbm.c, purge()): purge_us a record of the model's history, which holds
   1.49 a write (with 6 us, 36 us a transaction of four writes, where
   MariaDB's purge took 26-47) */
#define PURGE_RECORDS_PER_WRITE 1.49

static int cpu_costs(struct oltp_run *r, const struct oltp_opts *o, char *err, size_t errlen)
{
	double stmt = oltp_cpu[r->db.model].stmt_us, row = oltp_cpu[r->db.model].row_us;
	double write = oltp_cpu[r->db.model].write_us, purge = oltp_cpu[r->db.model].purge_us;

	if (dbm_check_cpu_us("--cpu-per-row", o->cpu_per_row, err, errlen) ||
	    dbm_check_cpu_us("--cpu-per-write", o->cpu_per_write, err, errlen))
		return -EINVAL;
	if (o->db.calibrate_from) {
		struct dbm_calib c;
		int rc = dbm_calib_load(o->db.calibrate_from, &c, err, errlen);
		if (rc)
			return rc;
		double k = c.cpu_per_stmt_us / (stmt + row * c.rows_per_stmt + write * c.writes_per_stmt);
		stmt *= k;
		row *= k;
		write *= k;
		purge *= k;
	} else if (o->db.cpu_per_stmt >= 0) {
		stmt = o->db.cpu_per_stmt;
		row = write = 0;
	}
	if (o->cpu_per_row >= 0)
		row = o->cpu_per_row;
	if (o->cpu_per_write >= 0)
		write = o->cpu_per_write;
	r->db.cpu_ns = dbm_us_to_ns(stmt * r->db.cpu_scale);
	r->row_ns = dbm_us_to_ns(row * r->db.cpu_scale);
	/* a write's cost, given or not, includes its purge */
	if (purge * PURGE_RECORDS_PER_WRITE > write)
		purge = write / PURGE_RECORDS_PER_WRITE;
	write -= purge * PURGE_RECORDS_PER_WRITE;
	r->write_ns = dbm_us_to_ns(write * r->db.cpu_scale);
	r->db.purge_ns = dbm_us_to_ns(purge * r->db.cpu_scale);
	return 0;
}

static int oltp_setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct oltp_opts *o = run->opts;
	struct oltp_run *r = run->priv;
	int rc = dbm_config(&r->db, &o->db, err, errlen);

	if (rc)
		return rc;
	if (o->mix.range_size > o->table_size) {
		snprintf(err, errlen, "--range-size: %llu is larger than --table-size %llu",
			 (unsigned long long)o->mix.range_size, (unsigned long long)o->table_size);
		return -EINVAL;
	}
	if ((rc = dbm_warmup_check(o->warmup_txns, o->warmup_points, run->npoints, err, errlen)) != 0)
		return rc;
	if (o->tables * o->table_size > MAX_ROWS) {
		snprintf(err, errlen, "--tables x --table-size: %llu rows, more than the %llu the model tracks",
			 (unsigned long long)(o->tables * o->table_size), (unsigned long long)MAX_ROWS);
		return -EINVAL;
	}
	if ((rc = cpu_costs(r, o, err, errlen)) != 0)
		return rc;
	r->cost = r->db.model == DBM_INNODB ? &innodb_costs : &pg_costs;
	r->ntables = (unsigned)o->tables;
	r->table_size = (uint32_t)o->table_size;
	r->range_size = (uint32_t)o->mix.range_size;
	db_rand_init(&r->rand, (enum db_rand_type)o->mix.rand_type, r->table_size);
	r->t = xcalloc(r->ntables, sizeof(*r->t));
	/* the k values first: PostgreSQL's k_N size follows from them */
	if ((rc = load_k(r, run->seed, run->stop)) != 0)
		snprintf(err, errlen, "interrupted while drawing the tables' k values");
	for (unsigned i = 0; i < r->ntables && !rc; i++)
		if (table_geometry(r, &r->t[i], o->table_size)) {
			snprintf(err, errlen, "--table-size: %llu rows make too deep a tree",
				 (unsigned long long)o->table_size);
			rc = -EINVAL;
		}
	plan(r, o);
	dbm_locks_init(&r->locks);
	if (!rc)
		rc = dbm_start(&r->db, run, "--tables x --table-size", err, errlen);
	if (rc)                 /* the core calls teardown only after a setup that worked */
		oltp_teardown(run);
	return rc;
}

static void oltp_teardown(struct emu_run *run)
{
	struct oltp_run *r = run->priv;

	dbm_release(&r->db);
	dbm_locks_release(&r->locks);
	for (unsigned i = 0; r->t && i < r->ntables; i++) {
		dbm_sec_release(&r->t[i].ksec);
		dbm_heap_release(&r->t[i].hs);
		free(r->t[i].kval);
	}
	free(r->t);
	free(r->k_below);
	r->t = NULL;
	r->k_below = NULL;
}

/* 0-based row of a SysBench id draw. */
static uint64_t get_row(struct emu_worker *w, const struct oltp_run *r)
{
	return db_rand_default(&r->rand, &w->rng, 1, r->table_size) - 1;
}

/* Where (@k, @row) lies in k_N: its rank among the entries as loaded. */
static uint64_t k_pos(const struct oltp_run *r, uint32_t k, uint64_t row)
{
	uint64_t n = r->table_size, v = k <= n ? k : n + 1;
	uint64_t lo = r->k_below[v], hi = r->k_below[v <= n ? v + 1 : v];
	uint64_t pos = (lo + (hi - lo) * row / n) / r->ntables;

	return pos < n ? pos : n - 1;
}

/*
 * PostgreSQL: fetch heap page @page (an index fetch or a scan), pruning it
 * when earlier changes left dead tuples on it (dbm_heap.h), and change it
 * with @redo more bytes of WAL (0: a read).
 */
static int heap_fetch(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t,
		      uint64_t page, uint32_t redo)
{
	if (dbm_heap_read(&t->hs, page, dbm_horizon(&r->db)))
		redo += r->cost->prune;
	return dbm_page(w, &r->db, page, 0, redo);
}

#define NO_PAGE UINT64_MAX

/*
 * PostgreSQL: fetch @row through an index (dbm_heap.h, rows move): the page
 * of an older version's entry no scan has killed yet, then the live
 * version's page, changed with @redo. A page is fetched once when it comes
 * again at once (@last: the scan's pinned buffer, NO_PAGE for a new scan).
 */
static int row_fetch(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t, uint64_t row,
		     uint32_t redo, uint64_t *last)
{
	uint64_t page = dbm_heap_row_kill(&t->hs, row);
	int rc = 0;

	if (page != DBM_HEAP_NONE) {
		if (page != *last)
			rc = heap_fetch(w, r, t, page, 0);
		*last = page;
	}
	page = dbm_heap_row_page(&t->hs, row);
	if (!rc && (page != *last || redo))
		rc = heap_fetch(w, r, t, page, redo);
	*last = page;
	return rc;
}

static int point(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t, uint64_t row)
{
	int rc = dbm_path(w, &r->db, &t->pk, row, 0, 0);
	uint64_t last = NO_PAGE;

	if (!rc && r->db.model == DBM_POSTGRES)
		rc = row_fetch(w, r, t, row, 0, &last);
	return rc;
}

static int range(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t)
{
	uint64_t row = get_row(w, r);
	int rc = dbm_path(w, &r->db, &t->pk, row, 0, 0);
	uint64_t n = dbm_tree_span(&t->pk, row, r->range_size);

	for (uint64_t i = 1; i < n && !rc; i++)
		rc = dbm_page(w, &r->db, dbm_tree_leaf(&t->pk, row) + i, 0, 0);
	if (r->db.model == DBM_POSTGRES) {
		uint64_t end = row + r->range_size < r->table_size ? row + r->range_size : r->table_size;
		uint64_t last = NO_PAGE;
		for (uint64_t i = row; i < end && !rc; i++)
			rc = row_fetch(w, r, t, i, 0, &last);
	}
	return rc;
}

/* InnoDB: change @row's clustered-index leaf (@redo bytes, @undo bytes of undo). */
static int write_row(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t,
		     uint64_t row, uint32_t redo, uint32_t undo)
{
	struct oltp_worker *ow = w->priv;
	int rc = dbm_path(w, &r->db, &t->pk, row, 0, redo);

	return rc ? rc : dbm_undo(w, &r->db, &ow->txn, undo, undo);
}

/*
 * Lock @row of @t until the transaction ends (InnoDB's record lock,
 * PostgreSQL's tuple lock): a writer that finds it locked waits for the
 * holder's commit. 0, 1 when stopping, -EDEADLK (the caller rolls back).
 */
static int lock_row(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t, uint64_t row)
{
	struct oltp_worker *ow = w->priv;
	uint64_t key = (uint64_t)(t - r->t) << 32 | row;
	bool waited;

	for (unsigned i = 0; i < ow->nheld; i++)
		if (ow->held[i] == key)
			return 0;
	if (ow->nheld == HELD_MAX)
		return 0;               /* a mix with more row changes: the rest unlocked */
	int rc = dbm_lock(w, &r->locks, key, w->id, &waited);
	if (waited)
		emu_count(w, C_LOCK_WAITS, 1);
	if (!rc)
		ow->held[ow->nheld++] = key;
	return rc;
}

static void unlock_rows(struct emu_worker *w, struct oltp_run *r)
{
	struct oltp_worker *ow = w->priv;

	dbm_unlock(&r->locks, ow->held, ow->nheld, w->id);
	ow->nheld = 0;
}

struct release_arg {
	struct emu_worker *w;
	struct oltp_run *r;
};

static void release_rows(void *arg)
{
	struct release_arg *a = arg;

	unlock_rows(a->w, a->r);
}

/* Commit, the rows released where the engine releases them (dbm_commit()). */
static int commit(struct emu_worker *w, struct oltp_run *r)
{
	struct oltp_worker *ow = w->priv;
	struct release_arg a = { w, r };

	return dbm_commit(w, &r->db, &ow->txn, release_rows, &a);
}

/* write_row(), and InnoDB's purge resets the record's DB_TRX_ID once no view needs it. */
static int change_row(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t,
		      uint64_t row, uint32_t redo, uint32_t undo)
{
	struct oltp_worker *ow = w->priv;
	int rc = lock_row(w, r, t, row);

	if (rc)
		return rc;
	dbm_purge_page(&r->db, &ow->txn, dbm_tree_leaf(&t->pk, row), r->cost->purge);
	return write_row(w, r, t, row, redo, undo);
}

static int index_update(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t)
{
	struct oltp_worker *ow = w->priv;
	uint64_t row = get_row(w, r);
	uint32_t k = atomic_fetch_add_explicit(&t->kval[row], 1, memory_order_relaxed);
	uint64_t old = k_pos(r, k, row), nw = k_pos(r, k + 1, row);
	int rc = change_row(w, r, t, row, r->cost->upd_k, r->cost->upd_k_undo);

	if (rc)
		return rc;
	/* (k, id) delete-marked, (k + 1, id) inserted; purge removes the old one */
	rc = dbm_sec_op(w, &r->db, &t->ksec, old, 0, r->cost->k_idx / 2);
	if (!rc)
		rc = dbm_sec_op(w, &r->db, &t->ksec, nw, 1, r->cost->k_idx);
	dbm_purge_sec(&r->db, &ow->txn, &t->ksec, old, r->cost->purge);
	return rc;
}

static int delete_insert(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t)
{
	struct oltp_worker *ow = w->priv;
	uint64_t row = get_row(w, r);
	uint32_t k = db_rand_default(&r->rand, &w->rng, 1, r->table_size);
	uint64_t old = k_pos(r, atomic_exchange_explicit(&t->kval[row], k, memory_order_relaxed), row);
	uint64_t nw = k_pos(r, k, row);
	int rc = change_row(w, r, t, row, r->cost->del, r->cost->del_undo);

	if (!rc) {              /* delete-mark the k entry; purge removes it */
		rc = dbm_sec_op(w, &r->db, &t->ksec, old, 0, r->cost->k_idx / 2);
		dbm_purge_sec(&r->db, &ow->txn, &t->ksec, old, r->cost->purge);
	}
	/* the INSERT rewrites the delete-marked record: purge resets it once
	   for both (MariaDB: 3 resets per transaction, not 4) */
	if (!rc)
		rc = write_row(w, r, t, row, r->cost->ins, r->cost->ins_undo);
	/* the new row's k entry, at the rank of its new k */
	return rc ? rc : dbm_sec_op(w, &r->db, &t->ksec, nw, 1, r->cost->k_idx);
}

/* PostgreSQL: @row's new version at the heap's end (the free-space map is
   empty without VACUUM). */
static int heap_append(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t, uint64_t row,
		       uint32_t redo)
{
	bool fresh;
	uint64_t page = dbm_heap_row_move(&t->hs, row, &fresh);

	return dbm_page(w, &r->db, page, fresh ? DBM_CREATE : 0, redo);
}

/*
 * PostgreSQL UPDATE of @row (heap_update()): found through the primary key,
 * its page fetched (and pruned); the new version on the same page if an
 * earlier prune left room there, else at the heap's end. HOT (no index
 * entry) when it stays on the page and @k_changed is false; otherwise a new
 * entry in the primary key and in k_N at @kpos, as every index gets one for
 * the new TID. The old version is a dead tuple once this commits.
 */
static int pg_update(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t,
		     uint64_t row, bool k_changed, uint64_t kpos)
{
	struct oltp_worker *ow = w->priv;
	uint64_t last = NO_PAGE, page;
	int rc = lock_row(w, r, t, row);

	if (!rc)
		rc = dbm_path(w, &r->db, &t->pk, row, 0, 0);
	if (rc)
		return rc;
	/* the row's writers hold its lock: its live version stays where it is */
	page = dbm_heap_row_page(&t->hs, row);
	/* its index fetch prunes the page before heap_update() looks for room */
	uint32_t pruned = dbm_heap_read(&t->hs, page, dbm_horizon(&r->db)) ? r->cost->prune : 0;
	bool same = dbm_heap_take_room(&t->hs, page);
	rc = row_fetch(w, r, t, row, (same ? r->cost->upd_same : r->cost->upd_old) + pruned, &last);
	if (!rc && !same)
		rc = heap_append(w, r, t, row, r->cost->upd_new);
	dbm_heap_dead(&t->hs, page, same && !k_changed, emu_now());
	if (!rc && (k_changed || !same)) {
		rc = dbm_path(w, &r->db, &t->pk, row, 0, r->cost->k_idx);
		if (!rc)
			rc = dbm_path(w, &r->db, &t->k, kpos, 0, r->cost->k_idx);
	}
	return rc ? rc : dbm_undo(w, &r->db, &ow->txn, 0, 0);
}

/* PostgreSQL DELETE + INSERT of @row: a dead tuple on its page; the new row at the heap's end. */
static int pg_delete_insert(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t)
{
	struct oltp_worker *ow = w->priv;
	uint64_t row = get_row(w, r), last = NO_PAGE;
	uint32_t k = db_rand_default(&r->rand, &w->rng, 1, r->table_size);
	int rc = lock_row(w, r, t, row);

	atomic_store_explicit(&t->kval[row], k, memory_order_relaxed);
	if (!rc)
		rc = dbm_path(w, &r->db, &t->pk, row, 0, 0);
	if (!rc)
		rc = row_fetch(w, r, t, row, r->cost->del, &last);
	if (rc)
		return rc;
	dbm_heap_dead(&t->hs, last, false, emu_now());
	rc = heap_append(w, r, t, row, r->cost->heap_ins);
	atomic_fetch_add_explicit(&t->inserted, 1, memory_order_relaxed);
	if (!rc)
		rc = dbm_path(w, &r->db, &t->pk, row, 0, r->cost->ins);
	if (!rc)
		rc = dbm_path(w, &r->db, &t->k, k_pos(r, k, row), 0, r->cost->k_idx);
	return rc ? rc : dbm_undo(w, &r->db, &ow->txn, 0, 0);
}

/* One statement of group @g on table @t. */
static int statement(struct emu_worker *w, struct oltp_run *r, struct oltp_table *t, enum group g)
{
	if (r->db.model == DBM_POSTGRES && g >= G_INDEX_UPD) {
		uint64_t row;
		uint32_t k;
		switch (g) {
		case G_INDEX_UPD:
			row = get_row(w, r);
			k = atomic_fetch_add_explicit(&t->kval[row], 1, memory_order_relaxed) + 1;
			return pg_update(w, r, t, row, true, k_pos(r, k, row));
		case G_NON_INDEX_UPD:
			row = get_row(w, r);
			k = atomic_load_explicit(&t->kval[row], memory_order_relaxed);
			return pg_update(w, r, t, row, false, k_pos(r, k, row));
		default:
			dbm_stmt_cpu(w, &r->db, r->write_ns);  /* the DELETE; the INSERT is counted below */
			return pg_delete_insert(w, r, t);
		}
	}
	switch (g) {
	case G_POINT:
		return point(w, r, t, get_row(w, r));
	case G_INDEX_UPD:
		return index_update(w, r, t);
	case G_NON_INDEX_UPD:
		return change_row(w, r, t, get_row(w, r), r->cost->upd_c, r->cost->upd_c_undo);
	case G_DELETE_INSERT:
		dbm_stmt_cpu(w, &r->db, r->write_ns);  /* the DELETE; the INSERT is counted below */
		return delete_insert(w, r, t);
	default:
		return range(w, r, t);
	}
}

/* One try at a transaction: 0 committed, 1 stopping, -EDEADLK chosen as a deadlock's victim. */
static int transaction(struct emu_worker *w, struct oltp_run *r)
{
	int rc = 0;
	bool warm = atomic_load(&r->points_done) < r->warmup_points;
	bool trx = warm ? r->warm_trx : r->trx;
	unsigned nplan = warm ? r->nwarm : r->nplan;
	const struct oltp_plan *plan = warm ? r->warm : r->plan;

	if (trx)
		dbm_stmt(w, &r->db);                    /* BEGIN */
	for (unsigned i = 0; i < nplan && !rc; i++) {
		struct oltp_table *t = &r->t[db_rand_uniform(&w->rng, 1, r->ntables) - 1];
		for (unsigned n = 0; n < plan[i].count && !rc; n++) {
			dbm_stmt_cpu(w, &r->db, plan[i].cpu_ns);
			rc = statement(w, r, t, plan[i].g);
			if (!rc && !trx)
				rc = commit(w, r);
		}
	}
	if (!rc && trx) {
		dbm_stmt(w, &r->db);                    /* COMMIT */
		rc = commit(w, r);
	}
	return rc;
}

static int oltp_step(struct emu_worker *w)
{
	struct oltp_run *r = w->run->priv;
	struct oltp_worker *ow = w->priv;
	uint64_t t0 = emu_step_start(w);
	int rc;

	/*
	 * A deadlock's victim rolls back and runs again: SysBench restarts the
	 * event on an error it ignores, so the event counts once (--events) and
	 * its latency runs from its first start.
	 */
	while ((rc = transaction(w, r)) == -EDEADLK) {
		emu_count(w, C_DEADLOCKS, 1);
		rc = dbm_rollback(w, &r->db, &ow->txn);
		unlock_rows(w, r);
		if (rc < 0)
			return rc;
	}
	if (rc) {
		unlock_rows(w, r);
		return rc < 0 ? rc : 0;                 /* 1: stopping, the transaction is dropped */
	}
	emu_record(w, DBM_CLS_TXN, t0, 0);
	return 0;
}

static int oltp_worker_init(struct emu_worker *w)
{
	struct oltp_run *r = w->run->priv;
	return dbm_worker_init(&r->db);
}

static void oltp_worker_fini(struct emu_worker *w)
{
	struct oltp_run *r = w->run->priv;
	dbm_worker_fini(&r->db);
}

static int oltp_bg_step(struct emu_worker *w)
{
	struct oltp_run *r = w->run->priv;
	return dbm_bg_step(w, &r->db);
}

static void oltp_info(struct emu_run *run)
{
	const struct oltp_opts *o = run->opts;
	struct oltp_run *r = run->priv;

	char val[32];

	dbm_info(&r->db, &o->db, run, "oltp");
	snprintf(val, sizeof(val), "%g", (double)r->row_ns / 1000);
	emu_info(run, "oltp.cpu_per_row_us", val);
	snprintf(val, sizeof(val), "%g", (double)r->write_ns / 1000);
	emu_info(run, "oltp.cpu_per_write_us", val);
	if (r->db.purge_ns) {
		snprintf(val, sizeof(val), "%g", (double)r->db.purge_ns / 1000);
		emu_info(run, "oltp.cpu_per_purge_us", val);
	}
}

/* --warmup-txns: warm-up point @idx's share of the transactions. */
static uint64_t oltp_point_events(const struct emu_run *run, unsigned idx)
{
	const struct oltp_run *r = run->priv;

	return dbm_warmup_events(r->warmup_txns, r->warmup_points, idx);
}

/*
 * Counts the points, for --warmup-points. A warm-up point that --warmup-txns
 * bounded took its own time, not --time: autovacuum's visits keep their
 * place relative to the points that follow, as on the server.
 */
static void oltp_point_end(struct emu_run *run, const struct point_result *p)
{
	struct oltp_run *r = run->priv;
	uint64_t idx = atomic_fetch_add(&r->points_done, 1);

	if (r->warmup_txns && idx < r->warmup_points && run->time_ns)
		dbm_vac_shift(&r->db, (int64_t)(p->time_s * 1e9) - (int64_t)run->time_ns);
}

const struct emu_ops emu_oltp = {
	.name = "oltp",
	.desc = "SysBench OLTP as InnoDB/PostgreSQL would do its I/O: B+trees, buffer pool, group commit",
	.flags = EMU_WRITES | EMU_RATE,
	.opts = oltp_opt_table,
	.opts_size = sizeof(struct oltp_opts),
	.run_priv_size = sizeof(struct oltp_run),
	.worker_priv_size = sizeof(struct oltp_worker),
	.classes = (const char *const[]){ DBM_CLASS_NAMES, NULL },
	.counters = (const char *const[]){ DBM_COUNTER_NAMES, "lock_waits", "deadlocks", NULL },
	.suite_review_args = "--threads 2,4,8,16,32 --time 300 --ramp 30 --tables 8 "
			     "--table-size 1000000 --size 4G",
	.suite_quick_args = "--threads 2,8 --time 5 --tables 2 --table-size 20000 --size 256M",
	.setup = oltp_setup,
	.worker_init = oltp_worker_init,
	.step = oltp_step,
	.worker_fini = oltp_worker_fini,
	.bg_step = oltp_bg_step,
	.point_events = oltp_point_events,
	.point_end = oltp_point_end,
	.info = oltp_info,
	.teardown = oltp_teardown,
};
