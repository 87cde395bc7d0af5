/*
 * tpcc_int.h - the tpcc emulator's run and tables, shared by tpcc.c (its
 * options, transactions and plugin) and tpcc_rows.c (the tables as laid out
 * over the storage-engine model, and a row's read, change or insert).
 */
#ifndef APPIO_TPCC_INT_H
#define APPIO_TPCC_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "dbmodel/dbm.h"
#include "dbmodel/dbm_heap.h"
#include "dbmodel/dbm_lock.h"
#include "dbmodel/tpcc_mix.h"

/* Tables and secondary indexes, each one tree of ranks. */
enum tbl { T_WAREHOUSE, T_DISTRICT, T_CUSTOMER, T_CUST_LAST, T_HISTORY, T_ORDER, T_ORDER_CUST,
	   T_NEW_ORDER, T_ORDER_LINE, T_STOCK, T_ITEM, T_OL_ITEM, T_HIST_CUST, T_STOCK_ITEM, T_N };

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
	struct dbm_locks locks;         /* warehouse, district, oldest new-order rows: update to commit */
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
	uint64_t held[12];              /* row locks held until commit (Delivery's: 10) */
	unsigned nheld;
};

/* Rows (or index entries) table @t has room for. */
uint64_t tpcc_rows_of(const struct tpcc_run *r, enum tbl t);

/* Lay out table @t in the model: 0, or -EINVAL / -ENOMEM. */
int tpcc_geometry(struct tpcc_run *r, enum tbl t);

/* PostgreSQL: each heap under autovacuum, analyzed when its changes pass the threshold. */
int tpcc_autovacuum_tables(struct tpcc_run *r);

/* Touch row @rank of table @t: read (@redo 0), change, or insert (@ins). */
int tpcc_row(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t rank, uint32_t redo,
	     bool ins);

/* Insert an entry at @rank of the secondary index @t (not sorted by insert order). */
int tpcc_sec_insert(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t rank,
		    uint32_t redo);

/* PostgreSQL's check of a foreign key to customer row @pos: the row locked (tpcc_rows.c). */
int tpcc_pg_fk_lock(struct emu_worker *w, struct tpcc_run *r, uint64_t pos);

#endif
