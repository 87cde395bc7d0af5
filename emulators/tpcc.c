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
 * tbl_size[] in tpcc_rows.c), plus the engine's per-row overhead. Each table is a B+tree
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
 *   Payment (43%)    warehouse and district updated (both locked to commit:
 *                    InnoDB's released before the commit waits for the log),
 *                    customer 60% by last name (NURand(255) through the name
 *                    index, ~3 matches read) / 40% by id NURand(1023), 15% of
 *                    a remote warehouse; customer updated; history appended.
 *   Order-Status (4%) customer (60% by name), its last order through the
 *                    order index, that order's ~10 lines.
 *   Delivery (4%)    for each of 10 districts: oldest new order locked to
 *                    commit (a second Delivery of the warehouse waits) and
 *                    deleted, its order and ~10 lines updated, customer
 *                    updated.
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
 * sizes the server's load leaves (pg_per_page[], tpcc_rows.c); customer's and stock's
 * UPDATEs make new versions, HOT on the page when a prune left room, else
 * at the heap's end with new index entries (dbm_heap.h); New-Order's
 * foreign-key check locks its customer's row; a transaction that waited
 * for a row lock fails under REPEATABLE READ and is run again; autovacuum
 * analyzes each table whose changes pass its threshold (dbm_vacuum.h).
 *
 * Reports: TPS of all transactions (class txn), each type's latency in its
 * own class (rolled-back New-Orders included, counted apart in
 * no_rollbacks), and tpmC: committed New-Orders per minute, per point in the
 * result's info (tpcc.tpmC, tpcc.2.tpmC ...) and after the table. Counters
 * lock_waits (waits for a row another transaction holds), delivery_waits
 * (the part of them Delivery's), retries (PostgreSQL's serialization failures).
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
#include "dbmodel/dbm_vacuum.h"
#include "tpcc_int.h"

enum { CLS_NO = DBM_NCLS, CLS_PAY, CLS_OS, CLS_DLV, CLS_SL };
#define TYPE_NAMES "new_order", "payment", "order_status", "delivery", "stock_level"
static const char *const type_names[] = { TYPE_NAMES, NULL };
enum { C_NEW_ORDERS = DBM_NCOUNTERS, C_NO_ROLLBACKS, C_LOCK_WAITS, C_RETRIES, C_DELIVERY_WAITS };

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
	  "-1: calibrated default, 2.18 innodb, 14 postgres; with --cpu-per-stmt -1 TPC-C's own "
	  "statement cost too, 64.6 innodb, 100 postgres)" },
	{ "warmup-points", OPT_UINT, O(warmup_points), "0",
	  "the first N sweep points are the warm-up a user runs before measuring (the same mix; "
	  "the pool stays warm across points); with --warmup-txns they end on a count",
	  .max = 1024 },
	{ "warmup-txns", OPT_UINT, O(warmup_txns), "0", DBM_WARMUP_TXNS_HELP, .max = UINT32_MAX },
	OPT_END,
};
#undef O

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
 * us; x 1.19, fitted by fidelity-tpcc.sh). Its row cost since 8 December: the
 * same fit on the kept reference of 4 December (1.83 us; x 1.19), where
 * 3.2 made Stock-Level's mean 1.3-2.6x the server's on every measurement
 * since, at 2 threads and at 8; the statement cost raised by what that
 * takes off (the rows of sysbench-tpcc's mix, 26.7 a transaction over its
 * 28.5 statements), so that a transaction costs the same CPU.
 * PostgreSQL's p-w1-fit: its row cost from the fit; its backends' CPU the harness does not see, and the whole machine's
 * (564 us a statement) held other work, so the statement cost is the one
 * between 36 us (TPS 1.2-1.8x the server's) and 368 (0.34-0.51x, all the
 * statement's wall time but the round trip) that brings its two points'
 * TPS to the server's, interpolated.
 */
static const struct { double stmt_us, row_us; } tpcc_cpu[] = {
	[DBM_INNODB] = { 64.6, 2.18 }, [DBM_POSTGRES] = { 100, 14 },
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
		rc = dbm_warmup_check(o->warmup_txns, o->warmup_points, run->npoints, err, errlen);
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
		if (tpcc_geometry(r, t)) {
			snprintf(err, errlen, "--warehouses: %u make too deep a tree", r->w);
			return -EINVAL;
		}
	rng_seed(&g, run->seed, 0x7cc);
	r->c = (struct tpcc_nurand_c){ tpcc_random(&g, 0, 255), tpcc_random(&g, 0, 1023),
				       tpcc_random(&g, 0, 8191) };
	r->d = xcalloc(10 * r->w, sizeof(*r->d));
	dbm_locks_init(&r->locks);
	for (unsigned i = 0; i < 10 * r->w; i++) {
		r->d[i].next_o_id = 3001;       /* orders 1..3000 loaded, 2101..3000 undelivered */
		r->d[i].next_deliv = 2101;
	}
	if (r->db.model == DBM_POSTGRES && (rc = tpcc_autovacuum_tables(r)) != 0)
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
	dbm_locks_release(&r->locks);
	free(r->d);
	r->d = NULL;
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
	return tpcc_row(w, r, t, rank, redo, ins);
}

/*
 * New-Order's UPDATE of stock row (@sw, @item). MariaDB 10.11 finds the row
 * through sysbench-tpcc's fkey_stock_2 (s_i_id, with the key's s_w_id
 * appended), not the primary key: EXPLAIN UPDATE stock1 ... WHERE s_i_id =
 * ? AND s_w_id = ? shows a range on fkey_stock_21, where the SELECT ... FOR
 * UPDATE before it is a const lookup of the primary key. So each line reads
 * a leaf of that index first; on the server 224 of its 353 pages were in a
 * 128M pool after a warm-up (2 warehouses), frames the model had given to
 * other pages (docs/fidelity-history.md, change 58 on tpcc).
 */
static int stock_update(struct emu_worker *w, struct tpcc_run *r, uint64_t sw, uint64_t item)
{
	dbm_stmt(w, &r->db);
	int rc = 0;
	if (r->db.model == DBM_INNODB && r->t[T_STOCK_ITEM].data.rows)
		rc = tpcc_row(w, r, T_STOCK_ITEM, item * r->w + sw, 0, false);
	return rc ? rc : tpcc_row(w, r, T_STOCK, sw * 100000 + item, r->cost->upd, false);
}

/* The row keys of the lock table: a warehouse's, a district's (by its rank),
   a district's oldest new order (the one Delivery takes). */
#define WAREHOUSE_ROW(wh) ((uint64_t)1 << 40 | (wh))
#define DISTRICT_ROW(dr) ((uint64_t)2 << 40 | (dr))
#define OLDEST_NEW_ORDER(dr) ((uint64_t)3 << 40 | (dr))

/*
 * Take a row lock until commit (dbm_lock.h: waiters served in turn). Under
 * sysbench-tpcc's REPEATABLE READ, PostgreSQL makes a transaction that
 * waited for a row another one updated fail with a serialization error once
 * that one commits (first updater wins), and sysbench-tpcc rolls it back and
 * runs it again: TXN_SERIALIZE after the wait, the row not taken
 * (heap_update() returns TM_Updated). Keeping it locked through the
 * rollback made the holder's next transaction wait and fail in turn: the
 * model retried 3-9 times as often as the server; and handing it on from
 * one loser to the next made the transactions that came meanwhile queue
 * behind them and fail too (twice the server's retries at 8 threads on one
 * warehouse), where on the server they find the new version free.
 * MariaDB's repeatable read locks and goes on.
 */
static int lock_row_waited(struct emu_worker *w, struct tpcc_run *r, uint64_t key, bool *waited)
{
	struct tpcc_worker *tw = w->priv;
	int rc = r->db.model == DBM_POSTGRES && r->mix == TPCC_MIX_SYSBENCH ?
		 dbm_lock_first_updater(w, &r->locks, key, w->id, waited) :
		 dbm_lock(w, &r->locks, key, w->id, waited);

	if (*waited)
		emu_count(w, C_LOCK_WAITS, 1);
	if (rc == -EAGAIN)
		return TXN_SERIALIZE;
	if (rc)
		return rc;      /* 1: stopping (nothing here closes a cycle) */
	tw->held[tw->nheld++] = key;
	return 0;
}

static int lock_row(struct emu_worker *w, struct tpcc_run *r, uint64_t key)
{
	bool waited;
	return lock_row_waited(w, r, key, &waited);
}

/* Release the rows held, after a commit or (@rolled_back) a rollback. */
static void unlock_rows(struct emu_worker *w, bool rolled_back)
{
	struct tpcc_worker *tw = w->priv;
	struct tpcc_run *r = w->run->priv;

	if (rolled_back)
		dbm_unlock_rolled_back(&r->locks, tw->held, tw->nheld, w->id);
	else
		dbm_unlock(&r->locks, tw->held, tw->nheld, w->id);
	tw->nheld = 0;
}

static void release_rows(void *w)
{
	unlock_rows(w, false);
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
		rc = lock_row(w, r, DISTRICT_ROW(dr));
	if (!rc)
		rc = stmt(w, r, T_DISTRICT, dr, r->cost->upd, false);
	uint64_t o_id = atomic_fetch_add(&r->d[dr].next_o_id, 1);
	if (!rc)
		rc = stmt(w, r, T_CUSTOMER, dr * 3000 + c, 0, false);
	if (!rc)
		rc = stmt(w, r, T_ORDER, order_rank(r, dr, o_id), r->cost->ins, true);
	if (!rc && r->db.model == DBM_POSTGRES && r->mix == TPCC_MIX_SYSBENCH)
		rc = tpcc_pg_fk_lock(w, r, dr * 3000 + c);   /* o_c_id's key */
	if (!rc)         /* the order's entry under its customer */
		rc = tpcc_sec_insert(w, r, T_ORDER_CUST, dr * 3000 + c, r->cost->ins / 2);
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
			rc = stock_update(w, r, sw, item);
		if (!rc)
			rc = stmt(w, r, T_ORDER_LINE, order_rank(r, dr, o_id) * 10 + i * 10 / ol_cnt,
				  r->cost->ins, true);
		if (!rc && r->mix == TPCC_MIX_SYSBENCH)  /* its (ol_supply_w_id, ol_i_id) entry */
			rc = tpcc_sec_insert(w, r, T_OL_ITEM, (sw * 100000 + item) * 3 + tpcc_random(&w->rng, 0, 2),
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
			rc = tpcc_row(w, r, T_CUSTOMER, dr * 3000 + c, i == 1 ? redo : 0, false);
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
	int rc = lock_row(w, r, WAREHOUSE_ROW(wh));

	if (!rc)
		rc = stmt(w, r, T_WAREHOUSE, wh, r->cost->upd, false);
	if (!rc && sb)
		rc = stmt(w, r, T_WAREHOUSE, wh, 0, false);
	if (!rc)
		rc = lock_row(w, r, DISTRICT_ROW(dist_rank(wh, d)));
	if (!rc)
		rc = stmt(w, r, T_DISTRICT, dist_rank(wh, d), r->cost->upd, false);
	if (!rc && sb)
		rc = stmt(w, r, T_DISTRICT, dist_rank(wh, d), 0, false);
	uint64_t c = 0;
	if (!rc)         /* 10% bad credit: c_data (500 bytes) rewritten */
		rc = customer(w, r, cd, tpcc_random(&w->rng, 1, 10) == 1 ? r->cost->upd + 500 : r->cost->upd,
			      &c);
	if (!rc)
		rc = stmt(w, r, T_HISTORY, atomic_fetch_add(&r->hist, 1) + tpcc_rows_of(r, T_DISTRICT) * 3000,
			  r->cost->ins, true);
	/* its (h_c_w_id, h_c_d_id, h_c_id) entry, under the customer just paid
	   (tpcc_run.lua's payment() inserts h_c_id = c_id): the hot customers' leaves */
	if (!rc && sb)
		rc = tpcc_sec_insert(w, r, T_HIST_CUST, cd * 3000 + c, r->cost->sec);
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
		rc = tpcc_row(w, r, T_ORDER, order_rank(r, dr, o_id), 0, false);
	if (!rc)
		rc = stmt(w, r, T_ORDER_LINE, order_rank(r, dr, o_id) * 10, 0, false);
	rows_cpu(w, r, TPCC_LINES_ROWS);
	return rc;
}

/*
 * Each district's oldest new order is found by SELECT ... ORDER BY no_o_id
 * LIMIT 1 FOR UPDATE (sysbench-tpcc, tpcc-mysql, the specification's
 * example), which locks it to commit. A second Delivery of the same
 * warehouse waits at its first district until the first commits: InnoDB's
 * then finds the row deleted and goes on to the next; PostgreSQL's fails
 * under REPEATABLE READ and is run again. Without the lock two Deliveries
 * ran side by side and the model's Delivery p99 was 0.3-0.6x the server's
 * on every line (its mean 0.56-0.94x), lowest where threads share a warehouse.
 */
static int delivery(struct emu_worker *w, struct tpcc_run *r, uint64_t wh)
{
	int rc = 0;

	for (uint64_t d = 0; d < 10 && !rc; d++) {
		struct tpcc_district *ds = &r->d[dist_rank(wh, d)];
		bool waited;
		rc = lock_row_waited(w, r, OLDEST_NEW_ORDER(dist_rank(wh, d)), &waited);
		if (waited)
			emu_count(w, C_DELIVERY_WAITS, 1);
		if (rc)
			break;
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
		rc = tpcc_row(w, r, T_ORDER_LINE, order_rank(r, dr, o) * 10, 0, false);
		unsigned n = atomic_load_explicit(&ds->sl_lines[o % 20], memory_order_relaxed);
		for (unsigned i = 0; i < (n ? n : 10) && !rc; i++) {
			uint64_t item = n ? atomic_load_explicit(&ds->sl_item[o % 20][i], memory_order_relaxed)
					  : tpcc_random(&w->rng, 0, 99999);
			rc = tpcc_row(w, r, T_STOCK, wh * 100000 + item, 0, false);
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
		unlock_rows(w, true);
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
		/* the rows released where the engine releases them: InnoDB before
		   its commit waits for the log, PostgreSQL after */
		rc = dbm_commit(w, &r->db, &tw->txn, release_rows, w);
	}
	unlock_rows(w, true);   /* held still: rolled back, or the run stopping */
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

/* Each point as 'appio db run tpcc' prints the server's: its rates, its waits,
   each transaction type's latency; then the tpmC of every point on one line. */
static void tpcc_summary(const void *opts, const struct result *res, FILE *f)
{
	(void)opts;
	for (unsigned i = 0; i < res->npoints; i++) {
		const struct point_result *p = &res->points[i];
		const struct cls_result *tx = point_class(p, "txn");
		if (!tx || p->ncounters <= C_DELIVERY_WAITS)
			continue;
		const uint64_t *k = p->counters;
		fprintf(f, "\n%-8s %10s %10s %10s %14s %8s %9s\n", "threads", "TPS", "tpmC", "lock_waits",
			"delivery_waits", "retries", "rollbacks");
		fprintf(f, "%-8u %10.1f %10.1f %10llu %14llu %8llu %9llu%s\n", p->pt.threads, tx->ops_per_s,
			tpmc(p), (unsigned long long)k[C_LOCK_WAITS], (unsigned long long)k[C_DELIVERY_WAITS],
			(unsigned long long)k[C_RETRIES], (unsigned long long)k[C_NO_ROLLBACKS],
			p->partial ? " (p)" : "");
		result_print_class_rows(p, "transaction", type_names, f);
	}
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
	.classes = (const char *const[]){ DBM_CLASS_NAMES, TYPE_NAMES, NULL },
	.counters = (const char *const[]){ DBM_COUNTER_NAMES, "new_orders", "no_rollbacks",
					   "lock_waits", "retries", "delivery_waits", NULL },
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
