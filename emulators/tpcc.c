/*
 * tpcc.c - TPC-C's five transactions as InnoDB (or PostgreSQL) would do
 * their I/O, without the database, over the storage-engine model
 * (emulators/dbmodel/dbm.h).
 *
 * The nine tables are scaled by --warehouses W with the specification's
 * initial cardinalities (clause 4.3.3.1): per warehouse 10 districts, 30,000
 * customers, 30,000 history rows, 30,000 orders, 9,000 new orders, ~300,000
 * order lines, 100,000 stock rows; 100,000 items in all. Rows have the
 * specification's lengths (warehouse 89 bytes, district 95, history 46,
 * new-order 8), or where its fields vary in length the average the loaded
 * rows have (customer 566, order 21, order-line 47, stock 300, item 75;
 * tbl_size[]), plus the engine's per-row overhead. Each table is a B+tree
 * on its primary key; customers also have the (w, d, c_last, c_first)
 * index the last-name lookups use, and orders the (w, d, c_id, o_id) index
 * Order-Status uses.
 * Orders, new orders and order lines grow at the right-most leaf of each
 * district's key range; room for --order-growth orders per district is laid
 * out, after which the range is reused (a model limit, documented).
 *
 * Transactions (clauses 2.4-2.8), each statement one --cpu-per-stmt and one
 * --client-rtt, and --cpu-per-row for each row it examines beyond the first
 * (tpcc_mix.h: by-name lookups, an order's lines, Stock-Level's join):
 *   New-Order (45%)  warehouse, district (read, next order id: the row stays
 *                    locked to commit), customer, insert order + its index
 *                    entry + new-order, then 5..15 lines: item by
 *                    NURand(8191), stock (1% from a remote warehouse) read and
 *                    updated, order line inserted. 1% roll back at the last,
 *                    unused item (clause 2.4.1.4).
 *   Payment (43%)    warehouse and district updated (both locked to commit),
 *                    customer 60% by last name (NURand(255) through the name
 *                    index, ~3 matches read) / 40% by id NURand(1023), 15% of
 *                    a remote warehouse; customer updated; history appended.
 *   Order-Status (4%) customer (60% by name), its last order through the
 *                    order index, that order's ~10 lines.
 *   Delivery (4%)    for each of 10 districts: oldest new order deleted, its
 *                    order and ~10 lines updated, customer updated.
 *   Stock-Level (4%) district, the lines of its last 20 orders (~200), stock
 *                    of each line's item.
 * No keying or think time unless --keying-think (clause 5.2.5).
 * --warmup-points N with --warmup-txns ends the first N points (a warm-up)
 * after a count of transactions, a server's, rather than after --time.
 *
 * --mix sysbench-tpcc follows Percona-Lab's sysbench-tpcc instead, as
 * 'appio db run tpcc' runs it: 10/10/1/1/1 of 23, a warehouse drawn per
 * transaction, NURand's constants per thread, its two secondary indexes
 * that take random inserts (order lines by item, history by customer), its
 * Payment's statements. The redo per change is fitted on MariaDB 10.11 and
 * PostgreSQL 15 running it (scripts/fidelity-tpcc.sh, docs/oltp-tpcc.md).
 *
 * PostgreSQL (--engine-model postgres): heaps and B-tree indexes of the
 * sizes the server's load leaves (pg_per_page[]); customer's and stock's
 * UPDATEs make new versions, HOT on the page when a prune left room, else
 * at the heap's end with new index entries (dbm_heap.h); New-Order's
 * foreign-key check locks its customer's row; a transaction that waited
 * for a row lock fails under REPEATABLE READ and is run again; autovacuum
 * analyzes each table whose changes pass its threshold (dbm_vacuum.h).
 *
 * Reports: TPS of all transactions (class txn), each type's latency in its
 * own class (rolled-back New-Orders included, counted apart in
 * no_rollbacks), and tpmC: committed New-Orders per minute, per point in the
 * result's info (tpcc.tpmC, tpcc.2.tpmC ...) and after the table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "appio/result.h"
#include "appio/xalloc.h"
#include "dbmodel/dbm.h"
#include "dbmodel/dbm_calib.h"
#include "dbmodel/dbm_heap.h"
#include "dbmodel/dbm_vacuum.h"
#include "dbmodel/tpcc_mix.h"

enum { CLS_NO = DBM_NCLS, CLS_PAY, CLS_OS, CLS_DLV, CLS_SL };
enum { C_NEW_ORDERS = DBM_NCOUNTERS, C_NO_ROLLBACKS, C_LOCK_WAITS, C_RETRIES };

#define TXN_ROLLBACK  2         /* New-Order's deliberate rollback */
#define TXN_SERIALIZE 3         /* PostgreSQL's serialization failure: retried */

struct tpcc_opts {
	struct dbm_opts db;
	uint64_t warehouses, order_growth;
	bool keying_think;
	int mix;                        /* enum tpcc_mix */
	double cpu_per_row;             /* microseconds; -1: the model's default */
	uint64_t warmup_points, warmup_txns;
};

static const char *const mix_names[] = { "spec", "sysbench-tpcc", NULL };

/* Tables and secondary indexes, each one tree of ranks. */
enum tbl { T_WAREHOUSE, T_DISTRICT, T_CUSTOMER, T_CUST_LAST, T_HISTORY, T_ORDER, T_ORDER_CUST,
	   T_NEW_ORDER, T_ORDER_LINE, T_STOCK, T_ITEM, T_OL_ITEM, T_HIST_CUST, T_STOCK_ITEM, T_N };

/*
 * Row (or index entry) bytes, and key bytes. The specification's lengths
 * count each variable field at its longest; the loaded rows carry their
 * average (c_data 300-500 characters, s_data and i_data 26-50, ...). So
 * customer, stock, item, orders, order lines and the customer name index
 * take the bytes a row occupied on MariaDB 10.11 after sysbench-tpcc's load
 * ('appio db prepare tpcc', mysql.innodb_index_stats, 2 warehouses: 26.1
 * customers a leaf, 48.0 stock rows, 164 items, 395 orders, 233 order
 * lines, 276 entries of the name index;
 * docs/data/fidelity-tpcc/index-stats-2026-12-04.txt), less InnoDB's
 * per-record overhead below; the rest the specification's.
 *
 * The indexes that take inserts under the run (InnoDB: leaves that split,
 * dbm_sec.h) give an entry's bytes with InnoDB's 5-byte header and null
 * flags, its columns and the primary key's that InnoDB appends, and @load:
 * the entries a leaf held after the load. sysbench-tpcc creates its indexes
 * before the rows go in, so an index whose key the rows do not arrive in
 * order of is filled by random inserts, its leaves part-full (the order
 * index: customers in a shuffled order, 606 entries a leaf of ~930; order
 * lines by item: random items, 586 of ~790); history arrives in customer
 * order, its leaves full.
 */
static const struct { uint32_t row, key, load; bool index; } tbl_size[T_N] = {
	[T_WAREHOUSE] = { 89, 4 }, [T_DISTRICT] = { 95, 8 }, [T_CUSTOMER] = { 566, 12 },
	[T_CUST_LAST] = { 50, 40, 0, true }, [T_HISTORY] = { 46, 6 }, [T_ORDER] = { 21, 12 },
	[T_ORDER_CUST] = { 17, 11, 606, true }, [T_NEW_ORDER] = { 8, 12 }, [T_ORDER_LINE] = { 47, 16 },
	[T_STOCK] = { 300, 8 }, [T_ITEM] = { 75, 4 },
	/* sysbench-tpcc's fkey_order_line_2 (ol_supply_w_id, ol_i_id) and
	   fkey_history_1 (h_c_w_id, h_c_d_id, h_c_id) */
	[T_OL_ITEM] = { 20, 14, 586, true }, [T_HIST_CUST] = { 19, 13, 0, true },
	/* and on PostgreSQL fkey_stock_2 (s_i_id): InnoDB's UPDATEs of stock
	   change no column of it, and it is not laid out there */
	[T_STOCK_ITEM] = { 16, 4, 0, true },
};

/*
 * PostgreSQL: the tuples a heap page holds (or the entries a secondary
 * index's leaf holds), and its primary key's entries a leaf, as 'appio db
 * prepare tpcc' and VACUUM ANALYZE leave them (PostgreSQL 15, 2 warehouses:
 * reltuples / relpages, the mean of two loads, whose secondary indexes took
 * up to 10% more or fewer pages; docs/data/fidelity-tpcc/pg-2026-12-06/). Its types
 * are not InnoDB's (smallint keys, numeric, timestamps, char(24) padded),
 * its heap is filled to the end (fillfactor 100), and its indexes hold a
 * heap pointer, not the primary key, and deduplicate equal keys: the InnoDB
 * entry bytes above made fkey_order_line_2 2.8 times its size and its reads
 * 50 times the server's. History has no primary key (sysbench-tpcc's
 * force_pk 0). 0: from the row bytes.
 */
static const struct { uint32_t per, pk; } pg_per_page[T_N] = {
	[T_CUSTOMER] = { 13, 361 }, [T_HISTORY] = { 102, 0 }, [T_ORDER] = { 135, 361 },
	[T_NEW_ORDER] = { 225, 340 }, [T_ORDER_LINE] = { 88, 259 }, [T_STOCK] = { 24, 362 },
	[T_ITEM] = { 75, 362 },
	[T_CUST_LAST] = { 120 }, [T_ORDER_CUST] = { 183 }, [T_OL_ITEM] = { 427 }, [T_HIST_CUST] = { 360 },
	[T_STOCK_ITEM] = { 313 },
};

struct tpcc_table {
	struct dbm_tree data;           /* clustered (innodb) or heap in key order (postgres) */
	struct dbm_tree pk;             /* postgres: the primary-key B-tree */
	struct dbm_sec sec;             /* innodb, T_OL_ITEM and T_HIST_CUST: leaves that split */
	bool has_sec;
	_Atomic uint64_t changed, inserted;     /* postgres heaps: rows changed, of them inserted */
	/* postgres customer and stock: where their rows' versions are (dbm_heap.h) */
	struct dbm_heap hs;
	bool has_heap;
	uint64_t grow_first, grow_pages;
};

/* NURand's run-time constants (clause 2.1.6.1). */
struct tpcc_nurand_c {
	uint64_t c_last, c_id, c_ol;
};

struct tpcc_district {
	pthread_mutex_t lock;           /* the district row, held from update to commit */
	_Atomic uint64_t next_o_id;     /* d_next_o_id */
	_Atomic uint64_t next_deliv;    /* oldest undelivered order */
	/* the items of its last 20 orders' lines (0: a loaded order's, not
	   kept): Stock-Level joins those lines to their stock rows */
	_Atomic uint32_t sl_item[20][15];
	_Atomic uint8_t sl_lines[20];
};

struct tpcc_run {
	struct dbm db;
	struct tpcc_table t[T_N];
	unsigned w;                     /* warehouses */
	uint64_t cap;                   /* order slots per district */
	struct tpcc_nurand_c c;         /* NURand's constants, drawn once per run */
	struct tpcc_district *d;        /* 10 * w */
	pthread_mutex_t *wh;            /* warehouse rows */
	_Atomic uint64_t hist;          /* history rows appended */
	bool think;
	enum tpcc_mix mix;              /* sysbench-tpcc's also means its schema and statements */
	const struct tpcc_costs *cost;
	uint64_t row_ns;                /* CPU per extra row examined */
	char cpu_how[160];              /* where the CPU costs came from, for the result */
	unsigned npoints;               /* points ended, for their tpmC keys */
	uint64_t warmup_points, warmup_txns;    /* --warmup-txns over the first points */
};

struct tpcc_worker {
	struct dbm_txn txn;
	struct tpcc_deck deck;
	struct tpcc_nurand_c c;         /* sysbench-tpcc draws them per thread; else the run's */
	bool c_drawn;
	pthread_mutex_t *held[3];       /* row locks held until commit */
	unsigned nheld;
};

#define O(f) offsetof(struct tpcc_opts, f)
static const struct opt_def tpcc_opt_table[] = {
	DBM_OPTS(O(db)),
	{ "warehouses", OPT_UINT, O(warehouses), "1", "TPC-C scale: warehouses (~100 MB each)",
	  .min = 1, .max = 100000 },
	{ "order-growth", OPT_UINT, O(order_growth), "10000",
	  "new orders per district laid out beyond the initial 3,000 (then reused)", .min = 100,
	  .max = 10000000 },
	{ "keying-think", OPT_BOOL, O(keying_think), "off",
	  "the specification's keying and think times (clause 5.2.5) before and after each transaction" },
	{ "mix", OPT_ENUM, O(mix), "spec",
	  "spec: 45/43/4/4/4, each thread at its home warehouse; sysbench-tpcc: its 10/10/1/1/1 of 23, "
	  "any warehouse, its secondary indexes and statements ('appio db run tpcc' does the same)",
	  mix_names },
	{ "cpu-per-row", OPT_DOUBLE, O(cpu_per_row), "-1",
	  "microseconds of CPU per row a statement examines beyond the first (joins, ranges, sorts; "
	  "-1: calibrated default, 3.2 innodb, 14 postgres; with --cpu-per-stmt -1 TPC-C's own "
	  "statement cost too, 53 innodb, 100 postgres)" },
	{ "warmup-points", OPT_UINT, O(warmup_points), "0",
	  "the first N sweep points are the warm-up a user runs before measuring (the same mix; "
	  "the pool stays warm across points); with --warmup-txns they end on a count",
	  .max = 1024 },
	{ "warmup-txns", OPT_UINT, O(warmup_txns), "0", DBM_WARMUP_TXNS_HELP, .max = UINT32_MAX },
	OPT_END,
};
#undef O

/*
 * Redo and undo bytes of the changes: an update in place, an insert, a
 * secondary-index entry, purge's DB_TRX_ID reset (innodb record sizes;
 * postgres WAL records, no undo). Fitted on the calibrate lines of
 * scripts/fidelity-tpcc.matrix (Innodb_lsn_current, pg_stat_wal.wal_bytes per
 * transaction): a record's own bytes alone gave 0.42-0.46x of MariaDB's
 * redo; the rest is the mini-transactions' page-level records (page
 * directory, record header, free-space and heap-top changes) that a row's
 * size does not show.
 */
struct tpcc_costs {
	uint32_t upd, upd_undo, ins, ins_undo, sec, purge;
	uint32_t upd_rec, ins_rec;      /* innodb: an undo record's bytes on its page */
	uint32_t prune;                 /* postgres: XLOG_HEAP2_PRUNE */
	uint32_t lock;                  /* postgres: XLOG_HEAP_LOCK, a foreign key's row lock */
};
/* The undo records' own sizes (MariaDB 10.11's formats, trx_undo_page_report_modify()
   and _insert()): a header of ~25 bytes, the primary key, and for an update the old
   values of the fields changed, a few small numbers here (stock's quantity and
   counts, a balance, a carrier, a delivery date); an insert holds the key alone. */
static const struct tpcc_costs innodb_costs = {
	.upd = 290, .upd_undo = 140, .ins = 320, .ins_undo = 55, .sec = 130, .purge = 20,
	.upd_rec = 55, .ins_rec = 25,
};
static const struct tpcc_costs pg_costs = {
	.upd = 190, .upd_undo = 0, .ins = 225, .ins_undo = 0, .sec = 95, .purge = 0, .prune = 56, .lock = 54,
};

/*
 * The CPU of TPC-C's statements, fitted on the calibrate lines of
 * scripts/fidelity-tpcc.matrix (docs/oltp-tpcc.md): MariaDB's m-w1-fit
 * (data in the pool), by dbm_calib_fit_tpcc() with the server's own CPU
 * (53 us a statement, 3.2 a row), then with a statement's cost including
 * the emulator's own work (change 32) scaled to the machine's CPU a
 * transaction at 8 threads of m-w1-fit taken on 3 December, 16:13 (2,169
 * us; x 1.19, fitted by fidelity-tpcc.sh). PostgreSQL's p-w1-fit: its row cost from the
 * fit; its backends' CPU the harness does not see, and the whole machine's
 * (564 us a statement) held other work, so the statement cost is the one
 * between 36 us (TPS 1.2-1.8x the server's) and 368 (0.34-0.51x, all the
 * statement's wall time but the round trip) that brings its two points'
 * TPS to the server's, interpolated.
 */
static const struct { double stmt_us, row_us; } tpcc_cpu[] = {
	[DBM_INNODB] = { 63.1, 3.81 }, [DBM_POSTGRES] = { 100, 14 },
};

/* The statements' CPU: the options, a --calibrate-from TPC-C result, or the defaults. */
static int cpu_costs(struct tpcc_run *r, const struct tpcc_opts *o, char *err, size_t errlen)
{
	struct dbm_calib c = { 0 };
	double row_us = o->cpu_per_row;

	if (dbm_check_cpu_us("--cpu-per-row", row_us, err, errlen))
		return -EINVAL;
	/* dbm_config() took the statement cost and round trip from the same file */
	if (o->db.calibrate_from && dbm_calib_load(o->db.calibrate_from, &c, err, errlen))
		return -EINVAL;
	if (c.tpcc) {
		row_us = c.cpu_per_row_us;
		snprintf(r->cpu_how, sizeof(r->cpu_how), "calibrated from a TPC-C result");
	} else if (o->db.cpu_per_stmt < 0 && !o->db.calibrate_from) {
		r->db.cpu_ns = dbm_us_to_ns(tpcc_cpu[r->db.model].stmt_us * r->db.cpu_scale);
		snprintf(r->cpu_how, sizeof(r->cpu_how), "TPC-C's %s default",
			 dbm_model_names[r->db.model]);
	} else {
		snprintf(r->cpu_how, sizeof(r->cpu_how), "statement cost given or from an OLTP result");
	}
	if (row_us < 0)
		row_us = tpcc_cpu[r->db.model].row_us;
	r->row_ns = dbm_us_to_ns(row_us * r->db.cpu_scale);
	return 0;
}

static uint64_t rows_of(const struct tpcc_run *r, enum tbl t)
{
	uint64_t w = r->w, dist = 10 * w;
	switch (t) {
	case T_WAREHOUSE: return w;
	case T_DISTRICT: return dist;
	case T_CUSTOMER: case T_CUST_LAST: return dist * 3000;
	case T_HISTORY: return dist * (3000 + r->cap);
	case T_ORDER: case T_NEW_ORDER: return dist * r->cap;
	case T_ORDER_CUST: return dist * 3000;  /* by customer: a rank per customer */
	case T_ORDER_LINE: return dist * r->cap * 10;
	case T_STOCK: return w * 100000;
	case T_OL_ITEM: return r->mix == TPCC_MIX_SYSBENCH ? dist * 3000 * 10 : 0;
	case T_HIST_CUST: return r->mix == TPCC_MIX_SYSBENCH ? dist * 3000 : 0;
	case T_STOCK_ITEM:
		return r->mix == TPCC_MIX_SYSBENCH && r->db.model == DBM_POSTGRES ? w * 100000 : 0;
	default: return 100000;
	}
}

/* Rows a table holds as loaded (rows_of() is the room laid out for its growth). */
static uint64_t rows_loaded(const struct tpcc_run *r, enum tbl t)
{
	uint64_t dist = 10 * (uint64_t)r->w;
	switch (t) {
	case T_HISTORY: case T_ORDER: return dist * 3000;
	case T_NEW_ORDER: return dist * 900;
	case T_ORDER_LINE: return dist * 3000 * 10;
	default: return rows_of(r, t);
	}
}

/* PostgreSQL: each heap under autovacuum, analyzed when its changes pass the threshold. */
static int autovacuum_tables(struct tpcc_run *r)
{
	int rc = 0;
	for (enum tbl t = 0; t < T_N && !rc; t++) {
		struct tpcc_table *tb = &r->t[t];
		if (tbl_size[t].index || !rows_of(r, t))
			continue;
		uint32_t per = tb->data.rows_per_leaf;
		if (tb->has_heap) {
			rc = dbm_vac_add(&r->db, &(struct dbm_vac_table){
				.hs = &tb->hs, .loaded = tb->data.npages,
				.grow_first = tb->grow_first, .grow_pages = tb->grow_pages,
				.appended = &tb->hs.appended, .inserted = &tb->inserted, .per_page = per,
				.idx_first = { tb->pk.first_page, r->t[T_STOCK_ITEM].data.first_page },
				.idx_pages = { tb->pk.npages, t == T_STOCK ? r->t[T_STOCK_ITEM].data.npages : 0 },
				.nidx = t == T_STOCK && r->t[T_STOCK_ITEM].data.rows ? 2 : 1,
				.reltuples = rows_of(r, t) });
			continue;
		}
		rc = dbm_vac_add(&r->db, &(struct dbm_vac_table){
			.first = tb->data.first_page, .span = tb->data.npages, .modified = &tb->changed,
			.appended = &tb->inserted, .per_page = per,
			.loaded = (rows_loaded(r, t) + per - 1) / per, .reltuples = rows_loaded(r, t) });
	}
	return rc;
}

static int geometry(struct tpcc_run *r, enum tbl t)
{
	struct dbm *db = &r->db;
	struct tpcc_table *tb = &r->t[t];
	bool innodb = db->model == DBM_INNODB;
	/* innodb: 5-byte header + 13 bytes of DB_TRX_ID/DB_ROLL_PTR on clustered
	   records; postgres: 24-byte tuple header + 4-byte line pointer */
	uint32_t over = innodb ? (tbl_size[t].index ? 5 : 18) : 28;
	uint32_t hdr = innodb ? 120 : 40;
	uint32_t per = dbm_tree_per_page(db->page_size, hdr, 15.0 / 16, tbl_size[t].row + over);
	uint32_t fan = dbm_tree_per_page(db->page_size, hdr, 15.0 / 16, tbl_size[t].key + 9);
	int rc;

	if (!rows_of(r, t))
		return 0;
	/* a file per table (InnoDB's file_per_table holds its indexes too; each
	   PostgreSQL relation is one): a checkpoint fsyncs each one written */
	if (!innodb || !tbl_size[t].index) {
		dbm_space(db);
		dbm_space_headers(db);
	}
	if (innodb && (t == T_OL_ITEM || t == T_HIST_CUST || t == T_ORDER_CUST)) {
		/* InnoDB reserves a 2-byte directory slot per 4 records
		   (page_get_max_insert_size_after_reorganize()) */
		uint32_t cap = (db->page_size - 132) * 2 / (2 * tbl_size[t].row + 1);
		rc = dbm_sec_init(&tb->sec, rows_of(r, t), cap, tbl_size[t].load,
				  db->page_size / 2 / tbl_size[t].row, fan, dbm_alloc(db, 0));
		dbm_alloc(db, rc ? 0 : dbm_sec_pages(&tb->sec));
		tb->has_sec = !rc;
		return rc;
	}
	if (!innodb && pg_per_page[t].per)
		per = pg_per_page[t].per;
	if (innodb || tbl_size[t].index)
		rc = dbm_tree_init(&tb->data, rows_of(r, t), per, fan, dbm_alloc(db, 0));
	else
		rc = dbm_tree_init_heap(&tb->data, rows_of(r, t), per, dbm_alloc(db, 0));
	if (rc)
		return rc;
	dbm_alloc(db, tb->data.npages);
	if (!innodb && (t == T_CUSTOMER || t == T_STOCK)) {
		/* the versions that do not fit on their page go to the heap's end:
		   room for 1/8 of the table, reused circularly (a model limit) */
		tb->grow_pages = tb->data.npages / 8 + 16;
		tb->grow_first = dbm_alloc(db, tb->grow_pages);
		if ((rc = dbm_heap_init(&tb->hs, tb->data.first_page, tb->data.npages + tb->grow_pages)) != 0 ||
		    (rc = dbm_heap_rows(&tb->hs, rows_of(r, t), per)) != 0)
			return rc;
		tb->has_heap = true;
	}
	if (innodb || tbl_size[t].index || t == T_HISTORY)
		return 0;
	uint32_t per_idx = pg_per_page[t].pk ? pg_per_page[t].pk :
		dbm_tree_per_page(db->page_size, hdr, 0.9, tbl_size[t].key + 12);
	rc = dbm_tree_init(&tb->pk, rows_of(r, t), per_idx, per_idx, dbm_alloc(db, 0));
	dbm_alloc(db, rc ? 0 : tb->pk.npages);
	return rc;
}

static void tpcc_teardown(struct emu_run *run);

static int tpcc_setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct tpcc_opts *o = run->opts;
	struct tpcc_run *r = run->priv;
	struct rng g;
	int rc = dbm_config(&r->db, &o->db, err, errlen);

	if (!rc && o->keying_think && run->rate) {
		snprintf(err, errlen, "--rate: the terminals of --keying-think set their own pace; give one or the other");
		rc = -EINVAL;
	}
	if (!rc)
		rc = dbm_warmup_check(o->warmup_txns, o->warmup_points, err, errlen);
	if (rc)
		return rc;
	r->warmup_points = o->warmup_points;
	r->warmup_txns = o->warmup_txns;
	r->w = (unsigned)o->warehouses;
	r->cap = 3000 + o->order_growth;
	r->think = o->keying_think;
	r->mix = (enum tpcc_mix)o->mix;
	r->cost = r->db.model == DBM_INNODB ? &innodb_costs : &pg_costs;
	if ((rc = cpu_costs(r, o, err, errlen)) != 0)
		return rc;
	for (enum tbl t = 0; t < T_N; t++)
		if (geometry(r, t)) {
			snprintf(err, errlen, "--warehouses: %u make too deep a tree", r->w);
			return -EINVAL;
		}
	rng_seed(&g, run->seed, 0x7cc);
	r->c = (struct tpcc_nurand_c){ tpcc_random(&g, 0, 255), tpcc_random(&g, 0, 1023),
				       tpcc_random(&g, 0, 8191) };
	r->d = xcalloc(10 * r->w, sizeof(*r->d));
	r->wh = xcalloc(r->w, sizeof(*r->wh));
	for (unsigned i = 0; i < 10 * r->w; i++) {
		pthread_mutex_init(&r->d[i].lock, NULL);
		r->d[i].next_o_id = 3001;       /* orders 1..3000 loaded, 2101..3000 undelivered */
		r->d[i].next_deliv = 2101;
	}
	for (unsigned i = 0; i < r->w; i++)
		pthread_mutex_init(&r->wh[i], NULL);
	if (r->db.model == DBM_POSTGRES && (rc = autovacuum_tables(r)) != 0)
		snprintf(err, errlen, "out of memory");
	else
		rc = dbm_start(&r->db, run, "--warehouses, --order-growth", err, errlen);
	if (rc)                 /* the core calls teardown only after a setup that worked */
		tpcc_teardown(run);
	return rc;
}

static void tpcc_teardown(struct emu_run *run)
{
	struct tpcc_run *r = run->priv;

	dbm_release(&r->db);
	for (enum tbl t = 0; t < T_N; t++)
		if (r->t[t].has_sec)
			dbm_sec_release(&r->t[t].sec);
		else if (r->t[t].has_heap)
			dbm_heap_release(&r->t[t].hs);
	for (unsigned i = 0; r->d && i < 10 * r->w; i++)
		pthread_mutex_destroy(&r->d[i].lock);
	for (unsigned i = 0; r->wh && i < r->w; i++)
		pthread_mutex_destroy(&r->wh[i]);
	free(r->d);
	free(r->wh);
	r->d = NULL;
	r->wh = NULL;
}

/* PostgreSQL: fetch heap page @page of @tb, pruning the dead tuples earlier changes left. */
static int heap_fetch(struct emu_worker *w, struct tpcc_run *r, struct tpcc_table *tb, uint64_t page,
		      uint32_t redo)
{
	if (dbm_heap_read(&tb->hs, page, dbm_horizon(&r->db)))
		redo += r->cost->prune;
	return dbm_page(w, &r->db, page, 0, redo);
}

/*
 * PostgreSQL: row @pos of customer or stock through its primary key, read or
 * updated (@redo) as heap_update() does (dbm_heap.h, as the oltp emulator
 * does it): the page of an older version whose entry no scan has killed
 * yet, then the live version's; an UPDATE's new version on the same page
 * when a prune left room there (HOT: neither table's UPDATEs change an
 * indexed column), else at the heap's end with a new entry in the primary
 * key (and the name index, for a customer). Their pages full as loaded, 24%
 * of customer's UPDATEs and 10% of stock's were not HOT on PostgreSQL 15
 * (n_tup_hot_upd; docs/data/fidelity-tpcc/pg-2026-12-06/): the rows moved,
 * the tables grew 10% and 6% in a minute, and the fetches through the old
 * entries read the pages of dead versions; a moved stock row takes an
 * entry in fkey_stock_2 (s_i_id) too: on the server it read 440 pages in
 * each 15-s point, 113 of them in the pool at the end.
 */
static int heap_row(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t pos, uint32_t redo)
{
	struct tpcc_table *tb = &r->t[t];
	int rc = dbm_path(w, &r->db, &tb->pk, pos, 0, 0);
	uint64_t old = dbm_heap_row_kill(&tb->hs, pos), page = dbm_heap_row_page(&tb->hs, pos);

	if (!rc && old != DBM_HEAP_NONE && old != page)
		rc = heap_fetch(w, r, tb, old, 0);
	if (rc || !redo)
		return rc ? rc : heap_fetch(w, r, tb, page, 0);
	/* its index fetch prunes the page before heap_update() looks for room */
	uint32_t pruned = dbm_heap_read(&tb->hs, page, dbm_horizon(&r->db)) ? r->cost->prune : 0;
	bool same = dbm_heap_take_room(&tb->hs, page);
	rc = heap_fetch(w, r, tb, page, redo + pruned);
	dbm_heap_dead(&tb->hs, page, same, emu_now());
	if (rc || same)
		return rc;
	bool fresh;     /* the new version's page: its WAL is in the old page's record */
	uint64_t np = dbm_heap_row_move(&tb->hs, pos, &fresh);
	rc = dbm_page(w, &r->db, np, fresh ? DBM_CREATE | DBM_DIRTY : DBM_DIRTY, 0);
	if (!rc)
		rc = dbm_path(w, &r->db, &tb->pk, pos, 0, r->cost->sec);
	if (!rc && t == T_CUSTOMER)
		rc = dbm_path(w, &r->db, &r->t[T_CUST_LAST].data, pos, 0, r->cost->sec);
	if (!rc && t == T_STOCK && r->t[T_STOCK_ITEM].data.rows)     /* by s_i_id */
		rc = dbm_path(w, &r->db, &r->t[T_STOCK_ITEM].data, pos % 100000 * r->w + pos / 100000, 0,
			      r->cost->sec);
	return rc;
}

/*
 * PostgreSQL's check of a foreign key to customer row @pos (RI_FKey_check():
 * SELECT ... FOR KEY SHARE through the primary key): the row is locked, its
 * tuple's xmax set, which dirties its page and logs XLOG_HEAP_LOCK.
 * New-Order's INSERT into orders is the one sysbench-tpcc check whose row
 * the transaction has not changed already (there it costs nothing more):
 * pg_stat_statements counted 902 pages dirtied by 2,785 of those INSERTs,
 * the orders' own pages shared by many.
 */
static int pg_fk_lock(struct emu_worker *w, struct tpcc_run *r, uint64_t pos)
{
	struct tpcc_table *tb = &r->t[T_CUSTOMER];
	int rc = dbm_path(w, &r->db, &tb->pk, pos, 0, 0);

	return rc ? rc : dbm_page(w, &r->db, tb->has_heap ? dbm_heap_row_page(&tb->hs, pos) :
				  dbm_tree_leaf(&tb->data, pos), 0, r->cost->lock);
}

/* Touch row @rank of table @t: read (@redo 0), change, or insert (@ins). */
static int row(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t rank,
	       uint32_t redo, bool ins)
{
	struct tpcc_worker *tw = w->priv;
	struct tpcc_table *tb = &r->t[t];
	uint64_t pos = tb->has_sec ? rank % tb->sec.keys : rank % tb->data.rows;
	unsigned flags = ins && !tb->has_sec && pos % tb->data.rows_per_leaf == 0 ? DBM_CREATE : 0;
	int rc;

	if (tb->has_sec) {
		rc = dbm_sec_op(w, &r->db, &tb->sec, pos, ins, redo);
	} else if (tb->has_heap) {
		rc = heap_row(w, r, t, pos, redo);
	} else if (r->db.model == DBM_POSTGRES && !tbl_size[t].index) {
		if (tb->pk.rows)
			rc = dbm_path(w, &r->db, &tb->pk, pos, 0, ins ? 64 : 0);
		else
			rc = 0;
		if (!rc)
			rc = dbm_page(w, &r->db, dbm_tree_leaf(&tb->data, pos), flags, redo);
		if (redo) {     /* autovacuum's count (n_mod_since_analyze); Delivery's
				   one UPDATE changes an order's ~10 lines */
			atomic_fetch_add_explicit(&tb->changed, t == T_ORDER_LINE && !ins ? 10 : 1,
						  memory_order_relaxed);
			if (ins)
				atomic_fetch_add_explicit(&tb->inserted, 1, memory_order_relaxed);
		}
	} else {
		rc = dbm_path(w, &r->db, &tb->data, pos, flags, redo);
	}
	if (!rc && redo)
		rc = dbm_undo(w, &r->db, &tw->txn, ins ? r->cost->ins_rec : r->cost->upd_rec,
			      ins ? r->cost->ins_undo : r->cost->upd_undo);
	/* purge resets the record's DB_TRX_ID once no read view needs it */
	if (!rc && redo && !tbl_size[t].index)
		dbm_purge_page(&r->db, &tw->txn, dbm_tree_leaf(&tb->data, pos), r->cost->purge);
	return rc;
}

/* Insert an entry at @rank of the secondary index @t (not sorted by insert order). */
static int sec_insert(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t rank, uint32_t redo)
{
	struct tpcc_table *tb = &r->t[t];

	if (tb->has_sec)
		return dbm_sec_op(w, &r->db, &tb->sec, rank % tb->sec.keys, 1, redo);
	return dbm_path(w, &r->db, &tb->data, rank % tb->data.rows, 0, redo);
}

/* The CPU of @n rows a statement examines beyond its first. */
static void rows_cpu(struct emu_worker *w, struct tpcc_run *r, unsigned n)
{
	dbm_cpu(w, &r->db, n * r->row_ns);
}

/* A statement: its CPU, then one row access. */
static int stmt(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t rank,
		uint32_t redo, bool ins)
{
	dbm_stmt(w, &r->db);
	return row(w, r, t, rank, redo, ins);
}

/*
 * Take a row lock until commit (a timed wait: all workers see the stop at
 * once). Under sysbench-tpcc's REPEATABLE READ, PostgreSQL makes a
 * transaction that waited for a row another one updated fail with a
 * serialization error once that one commits (first updater wins), and
 * sysbench-tpcc rolls it back and runs it again: TXN_SERIALIZE after the
 * wait, the row not locked (heap_update() returns TM_Updated before it
 * takes the tuple's lock). Keeping it locked through the rollback made the
 * holder's next transaction wait and fail in turn: the model retried 3-9
 * times as often as the server. MariaDB's repeatable read locks and goes on.
 */
static int lock_row(struct emu_worker *w, const struct tpcc_run *r, pthread_mutex_t *m)
{
	struct tpcc_worker *tw = w->priv;
	bool waited = false;

	if (pthread_mutex_trylock(m)) {
		waited = true;
		emu_count(w, C_LOCK_WAITS, 1);
		for (;;) {
			struct timespec ts;
			clock_gettime(CLOCK_REALTIME, &ts);
			ts.tv_nsec += 10000000;
			if (ts.tv_nsec >= 1000000000) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000;
			}
			if (!pthread_mutex_timedlock(m, &ts))
				break;
			if (emu_stopping(w))
				return 1;
		}
	}
	if (waited && r->db.model == DBM_POSTGRES && r->mix == TPCC_MIX_SYSBENCH) {
		pthread_mutex_unlock(m);
		return TXN_SERIALIZE;
	}
	tw->held[tw->nheld++] = m;
	return 0;
}

static void unlock_rows(struct tpcc_worker *tw)
{
	while (tw->nheld)
		pthread_mutex_unlock(tw->held[--tw->nheld]);
}

/* The worker's NURand constants: the run's, or (sysbench-tpcc's tpcc_common.lua
   keeps them per Lua state) its own, which spreads the hot rows over more pages. */
static const struct tpcc_nurand_c *C(struct emu_worker *w)
{
	struct tpcc_worker *tw = w->priv;

	if (!tw->c_drawn) {
		const struct tpcc_run *r = w->run->priv;
		tw->c = r->mix != TPCC_MIX_SYSBENCH ? r->c :
			(struct tpcc_nurand_c){ tpcc_random(&w->rng, 0, 255), tpcc_random(&w->rng, 0, 1023),
						tpcc_random(&w->rng, 0, 8191) };
		tw->c_drawn = true;
	}
	return &tw->c;
}

static uint64_t other_w(struct emu_worker *w, const struct tpcc_run *r, uint64_t home)
{
	uint64_t x = tpcc_random(&w->rng, 0, r->w - 2);
	return x >= home ? x + 1 : x;
}

static uint64_t dist_rank(uint64_t wh, uint64_t d)
{
	return wh * 10 + d;
}

/* Order slot of order @o_id (1-based) of district @dr, and its line @ol. */
static uint64_t order_rank(const struct tpcc_run *r, uint64_t dr, uint64_t o_id)
{
	return dr * r->cap + (o_id - 1) % r->cap;
}

static int new_order(struct emu_worker *w, struct tpcc_run *r, uint64_t wh)
{
	uint64_t d = tpcc_random(&w->rng, 0, 9), dr = dist_rank(wh, d);
	uint64_t c = tpcc_nurand(&w->rng, 1023, 1, 3000, C(w)->c_id) - 1;
	unsigned ol_cnt = (unsigned)tpcc_random(&w->rng, 5, 15);
	bool rbk = tpcc_random(&w->rng, 1, 100) == 1;
	int rc = stmt(w, r, T_WAREHOUSE, wh, 0, false);

	if (!rc)
		rc = lock_row(w, r, &r->d[dr].lock);
	if (!rc)
		rc = stmt(w, r, T_DISTRICT, dr, r->cost->upd, false);
	uint64_t o_id = atomic_fetch_add(&r->d[dr].next_o_id, 1);
	if (!rc)
		rc = stmt(w, r, T_CUSTOMER, dr * 3000 + c, 0, false);
	if (!rc)
		rc = stmt(w, r, T_ORDER, order_rank(r, dr, o_id), r->cost->ins, true);
	if (!rc && r->db.model == DBM_POSTGRES && r->mix == TPCC_MIX_SYSBENCH)
		rc = pg_fk_lock(w, r, dr * 3000 + c);   /* o_c_id's key */
	if (!rc)         /* the order's entry under its customer */
		rc = sec_insert(w, r, T_ORDER_CUST, dr * 3000 + c, r->cost->ins / 2);
	if (!rc)
		rc = stmt(w, r, T_NEW_ORDER, order_rank(r, dr, o_id), r->cost->ins / 2, true);
	for (unsigned i = 0; i < ol_cnt && !rc; i++) {
		uint64_t item = tpcc_nurand(&w->rng, 8191, 1, 100000, C(w)->c_ol) - 1;
		uint64_t sw = r->w > 1 && tpcc_random(&w->rng, 1, 100) == 1 ? other_w(w, r, wh) : wh;
		if (rbk && i + 1 == ol_cnt) {           /* the unused item: not found */
			dbm_stmt(w, &r->db);
			break;
		}
		atomic_store_explicit(&r->d[dr].sl_item[o_id % 20][i], (uint32_t)item, memory_order_relaxed);
		atomic_store_explicit(&r->d[dr].sl_lines[o_id % 20], (uint8_t)(i + 1), memory_order_relaxed);
		rc = stmt(w, r, T_ITEM, item, 0, false);
		if (!rc)
			rc = stmt(w, r, T_STOCK, sw * 100000 + item, 0, false);
		if (!rc)
			rc = stmt(w, r, T_STOCK, sw * 100000 + item, r->cost->upd, false);
		if (!rc)
			rc = stmt(w, r, T_ORDER_LINE, order_rank(r, dr, o_id) * 10 + i * 10 / ol_cnt,
				  r->cost->ins, true);
		if (!rc && r->mix == TPCC_MIX_SYSBENCH)  /* its (ol_supply_w_id, ol_i_id) entry */
			rc = sec_insert(w, r, T_OL_ITEM, (sw * 100000 + item) * 3 + tpcc_random(&w->rng, 0, 2),
					r->cost->sec);
	}
	if (!rc && rbk)
		return TXN_ROLLBACK;
	return rc;
}

/* sysbench-tpcc's Payment customer: by last name, a count and the ids through
   the name index (which holds the primary key: no row read), then the middle
   one; SELECT ... FOR UPDATE, then the UPDATE of the same row. */
static int customer_sb(struct emu_worker *w, struct tpcc_run *r, uint64_t dr, uint32_t redo,
		       uint64_t *paid)
{
	uint64_t c = tpcc_nurand(&w->rng, 1023, 1, 3000, C(w)->c_id) - 1;
	int rc = 0;

	if (tpcc_random(&w->rng, 1, 100) <= 60) {
		c = tpcc_nurand(&w->rng, 255, 0, 999, C(w)->c_last) * 3 + 1;
		rc = stmt(w, r, T_CUST_LAST, dr * 3000 + c, 0, false);
		rows_cpu(w, r, TPCC_NAME_ROWS);
		if (!rc)
			rc = stmt(w, r, T_CUST_LAST, dr * 3000 + c, 0, false);
		rows_cpu(w, r, TPCC_NAME_ROWS);
	}
	if (!rc)
		rc = stmt(w, r, T_CUSTOMER, dr * 3000 + c, 0, false);
	if (!rc && redo > r->cost->upd)     /* bad credit: c_data read before it is rewritten */
		rc = stmt(w, r, T_CUSTOMER, dr * 3000 + c, 0, false);
	*paid = c;
	return rc ? rc : stmt(w, r, T_CUSTOMER, dr * 3000 + c, redo, false);
}

/* A customer of district @dr: 60% by last name (all ~3 matches read), else by
   id; the one changed (or read) in @paid, its number in the district. */
static int customer(struct emu_worker *w, struct tpcc_run *r, uint64_t dr, uint32_t redo,
		    uint64_t *paid)
{
	if (redo && r->mix == TPCC_MIX_SYSBENCH)
		return customer_sb(w, r, dr, redo, paid);
	if (tpcc_random(&w->rng, 1, 100) <= 60) {
		if (r->mix == TPCC_MIX_SYSBENCH) {      /* its count(c_id) first */
			dbm_stmt(w, &r->db);
			rows_cpu(w, r, TPCC_NAME_ROWS);
		}
		uint64_t last = tpcc_nurand(&w->rng, 255, 0, 999, C(w)->c_last);
		int rc = stmt(w, r, T_CUST_LAST, dr * 3000 + last * 3, 0, false);
		rows_cpu(w, r, TPCC_NAME_ROWS);
		for (unsigned i = 0; i < 3 && !rc; i++) {
			uint64_t c = i ? tpcc_random(&w->rng, 0, 2999) : last;
			if (i == 1)
				*paid = c;
			rc = row(w, r, T_CUSTOMER, dr * 3000 + c, i == 1 ? redo : 0, false);
		}
		return rc;
	}
	*paid = tpcc_nurand(&w->rng, 1023, 1, 3000, C(w)->c_id) - 1;
	return stmt(w, r, T_CUSTOMER, dr * 3000 + *paid, redo, false);
}

static int payment(struct emu_worker *w, struct tpcc_run *r, uint64_t wh)
{
	uint64_t d = tpcc_random(&w->rng, 0, 9);
	bool remote = r->w > 1 && tpcc_random(&w->rng, 1, 100) <= 15;
	uint64_t cw = remote ? other_w(w, r, wh) : wh;
	uint64_t cd = dist_rank(cw, tpcc_random(&w->rng, 0, 9));
	bool sb = r->mix == TPCC_MIX_SYSBENCH;  /* each UPDATE followed by its SELECT */
	int rc = lock_row(w, r, &r->wh[wh]);

	if (!rc)
		rc = stmt(w, r, T_WAREHOUSE, wh, r->cost->upd, false);
	if (!rc && sb)
		rc = stmt(w, r, T_WAREHOUSE, wh, 0, false);
	if (!rc)
		rc = lock_row(w, r, &r->d[dist_rank(wh, d)].lock);
	if (!rc)
		rc = stmt(w, r, T_DISTRICT, dist_rank(wh, d), r->cost->upd, false);
	if (!rc && sb)
		rc = stmt(w, r, T_DISTRICT, dist_rank(wh, d), 0, false);
	uint64_t c = 0;
	if (!rc)         /* 10% bad credit: c_data (500 bytes) rewritten */
		rc = customer(w, r, cd, tpcc_random(&w->rng, 1, 10) == 1 ? r->cost->upd + 500 : r->cost->upd,
			      &c);
	if (!rc)
		rc = stmt(w, r, T_HISTORY, atomic_fetch_add(&r->hist, 1) + rows_of(r, T_DISTRICT) * 3000,
			  r->cost->ins, true);
	/* its (h_c_w_id, h_c_d_id, h_c_id) entry, under the customer just paid
	   (tpcc_run.lua's payment() inserts h_c_id = c_id): the hot customers' leaves */
	if (!rc && sb)
		rc = sec_insert(w, r, T_HIST_CUST, cd * 3000 + c, r->cost->sec);
	return rc;
}

static int order_status(struct emu_worker *w, struct tpcc_run *r, uint64_t wh)
{
	uint64_t dr = dist_rank(wh, tpcc_random(&w->rng, 0, 9));
	uint64_t next = atomic_load(&r->d[dr].next_o_id);
	uint64_t o_id = next - 1 - tpcc_random(&w->rng, 0, 2999 < next - 2 ? 2999 : next - 2);
	uint64_t c;
	int rc = customer(w, r, dr, 0, &c);

	if (!rc)
		rc = stmt(w, r, T_ORDER_CUST, dr * 3000 + c, 0, false);  /* the customer's orders */
	if (!rc)
		rc = row(w, r, T_ORDER, order_rank(r, dr, o_id), 0, false);
	if (!rc)
		rc = stmt(w, r, T_ORDER_LINE, order_rank(r, dr, o_id) * 10, 0, false);
	rows_cpu(w, r, TPCC_LINES_ROWS);
	return rc;
}

static int delivery(struct emu_worker *w, struct tpcc_run *r, uint64_t wh)
{
	int rc = 0;

	for (uint64_t d = 0; d < 10 && !rc; d++) {
		struct tpcc_district *ds = &r->d[dist_rank(wh, d)];
		uint64_t o = atomic_load(&ds->next_deliv);
		do {
			if (o >= atomic_load(&ds->next_o_id))
				break;  /* nothing to deliver in this district (clause 2.7.4.2) */
		} while (!atomic_compare_exchange_weak(&ds->next_deliv, &o, o + 1));
		dbm_stmt(w, &r->db);
		if (o >= atomic_load(&ds->next_o_id))
			continue;
		uint64_t rk = order_rank(r, dist_rank(wh, d), o);
		rc = stmt(w, r, T_NEW_ORDER, rk, r->cost->upd / 2, false);
		if (!rc)
			rc = stmt(w, r, T_ORDER, rk, r->cost->upd, false);
		if (!rc)        /* ~10 lines: ol_delivery_d set, then summed */
			rc = stmt(w, r, T_ORDER_LINE, rk * 10, 10 * r->cost->upd / 2, false);
		rows_cpu(w, r, TPCC_LINES_ROWS);
		if (!rc)
			rc = stmt(w, r, T_ORDER_LINE, rk * 10 + 9, 0, false);
		rows_cpu(w, r, TPCC_LINES_ROWS);
		if (!rc)
			rc = stmt(w, r, T_CUSTOMER, dist_rank(wh, d) * 3000 + tpcc_random(&w->rng, 0, 2999),
				  r->cost->upd, false);
	}
	return rc;
}

static int stock_level(struct emu_worker *w, struct tpcc_run *r, uint64_t wh)
{
	uint64_t dr = dist_rank(wh, tpcc_random(&w->rng, 0, 9));
	uint64_t next = atomic_load(&r->d[dr].next_o_id);
	int rc = stmt(w, r, T_DISTRICT, dr, 0, false);

	dbm_stmt(w, &r->db);    /* the join: lines of the last 20 orders, their stock */
	rows_cpu(w, r, TPCC_SL_ROWS);
	/* Each line's item, at the home warehouse (s_w_id = ?): the stock rows
	   New-Order changed moments ago, in the pool. Drawn anew by NURand they
	   were as many stock accesses again as New-Order's, spread over the
	   table: PostgreSQL's stock heap then missed half as often as the
	   server's (its Stock-Level read no page, pg_stat_statements; a loaded
	   order's lines have uniform items, 1,000 of 100,000: drawn so). */
	const struct tpcc_district *ds = &r->d[dr];
	for (uint64_t o = next - 20; o < next && !rc; o++) {
		rc = row(w, r, T_ORDER_LINE, order_rank(r, dr, o) * 10, 0, false);
		unsigned n = atomic_load_explicit(&ds->sl_lines[o % 20], memory_order_relaxed);
		for (unsigned i = 0; i < (n ? n : 10) && !rc; i++) {
			uint64_t item = n ? atomic_load_explicit(&ds->sl_item[o % 20][i], memory_order_relaxed)
					  : tpcc_random(&w->rng, 0, 99999);
			rc = row(w, r, T_STOCK, wh * 100000 + item, 0, false);
		}
	}
	return rc;
}

static int (*const txn_fn[TPCC_NTXN])(struct emu_worker *, struct tpcc_run *, uint64_t) = {
	new_order, payment, order_status, delivery, stock_level,
};

/* Sleep @secs, waking early at the stop. */
static void pause_s(struct emu_worker *w, double secs)
{
	uint64_t end = emu_now() + (uint64_t)(secs * 1e9);
	while (!emu_stopping(w) && emu_now() < end)
		nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
}

static int tpcc_step(struct emu_worker *w)
{
	struct tpcc_run *r = w->run->priv;
	struct tpcc_worker *tw = w->priv;
	tw->deck.mix = r->mix;
	enum tpcc_txn type = tpcc_deck_next(&tw->deck, &w->rng);
	/* each terminal has its home warehouse (clause 5.5); sysbench-tpcc draws one */
	uint64_t wh = r->mix == TPCC_MIX_SYSBENCH ? tpcc_random(&w->rng, 0, r->w - 1) : w->id % r->w;

	if (r->think)
		pause_s(w, tpcc_keying_s[type]);
	uint64_t t0 = emu_step_start(w);
	int rc;
	for (;;) {                      /* the retries are in the transaction's latency */
		dbm_stmt(w, &r->db);    /* BEGIN */
		rc = txn_fn[type](w, r, wh);
		if (rc != TXN_SERIALIZE)
			break;
		dbm_stmt(w, &r->db);    /* ROLLBACK */
		dbm_rollback(w, &r->db, &tw->txn);
		unlock_rows(tw);
		emu_count(w, C_RETRIES, 1);
		if (emu_stopping(w))
			return 0;
	}
	if (rc == TXN_ROLLBACK) {
		dbm_rollback(w, &r->db, &tw->txn);
		emu_count(w, C_NO_ROLLBACKS, 1);
		rc = 0;
	} else if (!rc) {
		dbm_stmt(w, &r->db);    /* COMMIT */
		rc = dbm_commit(w, &r->db, &tw->txn);
	}
	unlock_rows(tw);
	if (rc) {
		tw->txn = (struct dbm_txn){ 0 };
		return rc < 0 ? rc : 0;
	}
	uint64_t t1 = emu_now();
	/* together: every counted transaction is counted under its type too */
	emu_record_group(w, (struct emu_sample[]){ { .cls = DBM_CLS_TXN, .lat_ns = t1 - t0 },
						   { .cls = CLS_NO + type, .lat_ns = t1 - t0 } }, 2, t1);
	if (type == TPCC_NEW_ORDER)
		emu_count(w, C_NEW_ORDERS, 1);
	if (r->think)
		pause_s(w, tpcc_think(&w->rng, tpcc_think_s[type]));
	return 0;
}

static int tpcc_worker_init(struct emu_worker *w)
{
	struct tpcc_run *r = w->run->priv;
	return dbm_worker_init(&r->db);
}

static void tpcc_worker_fini(struct emu_worker *w)
{
	struct tpcc_run *r = w->run->priv;
	dbm_worker_fini(&r->db);
}

static int tpcc_bg_step(struct emu_worker *w)
{
	struct tpcc_run *r = w->run->priv;
	return dbm_bg_step(w, &r->db);
}

static void tpcc_info(struct emu_run *run)
{
	const struct tpcc_opts *o = run->opts;
	struct tpcc_run *r = run->priv;
	char val[32];

	dbm_info(&r->db, &o->db, run, "tpcc");
	snprintf(val, sizeof(val), "%g", (double)r->row_ns / 1000);
	emu_info(run, "tpcc.cpu_per_row_us", val);
	emu_info(run, "tpcc.cpu_costs", r->cpu_how);
}

/* tpmC: committed New-Orders (the 1 % rolled back left out) per minute of the point. */
static double tpmc(const struct point_result *p)
{
	uint64_t committed = p->counters[C_NEW_ORDERS] - p->counters[C_NO_ROLLBACKS];
	return p->time_s > 0 ? (double)committed / p->time_s * 60 : 0;
}

/* --warmup-txns: warm-up point @idx's share of the transactions. */
static uint64_t tpcc_point_events(const struct emu_run *run, unsigned idx)
{
	const struct tpcc_run *r = run->priv;

	return dbm_warmup_events(r->warmup_txns, r->warmup_points, idx);
}

static void tpcc_point_end(struct emu_run *run, const struct point_result *p)
{
	struct tpcc_run *r = run->priv;
	char key[32], val[32];
	/* a warm-up point bounded by --warmup-txns took its own time: autovacuum's
	   visits keep their place relative to the points after it, as on the server */
	if (r->warmup_txns && r->npoints < r->warmup_points && run->time_ns)
		dbm_vac_shift(&r->db, (int64_t)(p->time_s * 1e9) - (int64_t)run->time_ns);
	if (++r->npoints > 1)
		snprintf(key, sizeof(key), "tpcc.%u.tpmC", r->npoints);
	else
		snprintf(key, sizeof(key), "tpcc.tpmC");
	snprintf(val, sizeof(val), "%.1f", tpmc(p));
	emu_info(run, key, val);
}

static void tpcc_summary(const void *opts, const struct result *res, FILE *f)
{
	(void)opts;
	fputs("tpmC (committed New-Orders per minute):", f);
	for (unsigned i = 0; i < res->npoints; i++)
		fprintf(f, "%s %.0f at %u thread%s", i ? "," : "", tpmc(&res->points[i]),
			res->points[i].pt.threads, res->points[i].pt.threads == 1 ? "" : "s");
	fputc('\n', f);
}

const struct emu_ops emu_tpcc = {
	.name = "tpcc",
	.desc = "TPC-C's five transactions as InnoDB/PostgreSQL would do their I/O; tpmC",
	.flags = EMU_WRITES | EMU_RATE,
	.opts = tpcc_opt_table,
	.opts_size = sizeof(struct tpcc_opts),
	.run_priv_size = sizeof(struct tpcc_run),
	.worker_priv_size = sizeof(struct tpcc_worker),
	.classes = (const char *const[]){ DBM_CLASS_NAMES, "new_order", "payment", "order_status",
					  "delivery", "stock_level", NULL },
	.counters = (const char *const[]){ DBM_COUNTER_NAMES, "new_orders", "no_rollbacks",
					   "lock_waits", "retries", NULL },
	.suite_review_args = "--threads 2,4,8,16,32 --time 300 --ramp 30 --warehouses 20 --size 4G",
	.suite_quick_args = "--threads 2,8 --time 5 --warehouses 1 --order-growth 2000 --size 512M",
	.setup = tpcc_setup,
	.worker_init = tpcc_worker_init,
	.step = tpcc_step,
	.worker_fini = tpcc_worker_fini,
	.bg_step = tpcc_bg_step,
	.teardown = tpcc_teardown,
	.info = tpcc_info,
	.point_events = tpcc_point_events,
	.point_end = tpcc_point_end,
	.summary = tpcc_summary,
};
