/*
 * tpcc_rows.c - the tpcc emulator's tables (tpcc.c): their sizes as the
 * servers' loads leave them, laid out over the storage-engine model, and a
 * row's read, change or insert through them, InnoDB's or PostgreSQL's way.
 */
#include <errno.h>

#include "dbmodel/dbm_vacuum.h"
#include "tpcc_int.h"

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
	/* and fkey_stock_2 (s_i_id): PostgreSQL adds an entry for a stock row
	   that moves; MariaDB finds the row of New-Order's stock UPDATE through
	   it (stock_update() in tpcc.c) */
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
 *
 * The indexes that take entries at random keys split and grow as a run
 * goes (p-w2's minute on the server: fkey_order_line_2 from 1,342 pages to
 * 1,598, fkey_history_1 from 166 to 255, idx_orders past its 321), and their
 * leaves took some 500 of shared_buffers' frames more than the load's; @cap
 * is the entries a full leaf holds: an index tuple is an 8-byte header, its
 * key MAXALIGNed and a 4-byte line pointer, in the 8,152 bytes of a leaf
 * (idx_orders: 28 bytes, 291; fkey_history_1: 20 bytes, 407), or, where a
 * key repeats, posting lists of its heap pointers (fkey_order_line_2: an
 * item's 3-4 order lines in 44 bytes, 555-741; 600, which puts the load's
 * 427 at the 0.72 of full that random inserts leave). fkey_history_1 is
 * loaded in key order, its leaves at fillfactor 90 (@sorted).
 */
static const struct { uint32_t per, pk, cap; bool sorted; } pg_per_page[T_N] = {
	[T_CUSTOMER] = { 13, 361 }, [T_HISTORY] = { 102, 0 }, [T_ORDER] = { 135, 361 },
	[T_NEW_ORDER] = { 225, 340 }, [T_ORDER_LINE] = { 88, 259 }, [T_STOCK] = { 24, 362 },
	[T_ITEM] = { 75, 362 },
	[T_CUST_LAST] = { 120 }, [T_ORDER_CUST] = { 183, 0, 291 }, [T_OL_ITEM] = { 427, 0, 600 },
	[T_HIST_CUST] = { 360, 0, 407, true },
	[T_STOCK_ITEM] = { 313 },
};

uint64_t tpcc_rows_of(const struct tpcc_run *r, enum tbl t)
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
	case T_STOCK_ITEM: return r->mix == TPCC_MIX_SYSBENCH ? w * 100000 : 0;
	default: return 100000;
	}
}

/* Rows a table holds as loaded (tpcc_rows_of() is the room laid out for its growth). */
static uint64_t rows_loaded(const struct tpcc_run *r, enum tbl t)
{
	uint64_t dist = 10 * (uint64_t)r->w;
	switch (t) {
	case T_HISTORY: case T_ORDER: return dist * 3000;
	case T_NEW_ORDER: return dist * 900;
	case T_ORDER_LINE: return dist * 3000 * 10;
	default: return tpcc_rows_of(r, t);
	}
}

int tpcc_autovacuum_tables(struct tpcc_run *r)
{
	int rc = 0;
	for (enum tbl t = 0; t < T_N && !rc; t++) {
		struct tpcc_table *tb = &r->t[t];
		if (tbl_size[t].index || !tpcc_rows_of(r, t))
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
				.reltuples = tpcc_rows_of(r, t) });
			continue;
		}
		rc = dbm_vac_add(&r->db, &(struct dbm_vac_table){
			.first = tb->data.first_page, .span = tb->data.npages, .modified = &tb->changed,
			.appended = &tb->inserted, .per_page = per,
			.loaded = (rows_loaded(r, t) + per - 1) / per, .reltuples = rows_loaded(r, t) });
	}
	return rc;
}

int tpcc_geometry(struct tpcc_run *r, enum tbl t)
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

	if (!tpcc_rows_of(r, t))
		return 0;
	/* a file per table (InnoDB's file_per_table holds its indexes too; each
	   PostgreSQL relation is one): a checkpoint fsyncs each one written */
	if (!innodb || !tbl_size[t].index) {
		dbm_space(db);
		dbm_space_headers(db);
	}
	if (t == T_OL_ITEM || t == T_HIST_CUST || t == T_ORDER_CUST) {
		/* InnoDB reserves a 2-byte directory slot per 4 records
		   (page_get_max_insert_size_after_reorganize()) and merges a leaf
		   under half full; PostgreSQL merges none (only VACUUM frees an
		   empty leaf) */
		uint32_t cap = (db->page_size - 132) * 2 / (2 * tbl_size[t].row + 1);
		uint32_t load = tbl_size[t].load, merge = db->page_size / 2 / tbl_size[t].row;
		if (!innodb) {
			cap = pg_per_page[t].cap;
			load = pg_per_page[t].per | (pg_per_page[t].sorted ? DBM_SEC_SORTED : 0);
			merge = 0;
		}
		rc = dbm_sec_init(&tb->sec, tpcc_rows_of(r, t), cap, load, merge, fan, dbm_alloc(db, 0));
		dbm_alloc(db, rc ? 0 : dbm_sec_pages(&tb->sec));
		tb->has_sec = !rc;
		return rc;
	}
	if (!innodb && pg_per_page[t].per)
		per = pg_per_page[t].per;
	if (innodb || tbl_size[t].index)
		rc = dbm_tree_init(&tb->data, tpcc_rows_of(r, t), per, fan, dbm_alloc(db, 0));
	else
		rc = dbm_tree_init_heap(&tb->data, tpcc_rows_of(r, t), per, dbm_alloc(db, 0));
	if (rc)
		return rc;
	dbm_alloc(db, tb->data.npages);
	if (!innodb && (t == T_CUSTOMER || t == T_STOCK)) {
		/* the versions that do not fit on their page go to the heap's end:
		   room for 1/8 of the table, reused circularly (a model limit) */
		tb->grow_pages = tb->data.npages / 8 + 16;
		tb->grow_first = dbm_alloc(db, tb->grow_pages);
		if ((rc = dbm_heap_init(&tb->hs, tb->data.first_page, tb->data.npages + tb->grow_pages)) != 0 ||
		    (rc = dbm_heap_rows(&tb->hs, tpcc_rows_of(r, t), per)) != 0)
			return rc;
		tb->has_heap = true;
	}
	if (innodb || tbl_size[t].index || t == T_HISTORY)
		return 0;
	uint32_t per_idx = pg_per_page[t].pk ? pg_per_page[t].pk :
		dbm_tree_per_page(db->page_size, hdr, 0.9, tbl_size[t].key + 12);
	rc = dbm_tree_init(&tb->pk, tpcc_rows_of(r, t), per_idx, per_idx, dbm_alloc(db, 0));
	dbm_alloc(db, rc ? 0 : tb->pk.npages);
	return rc;
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
int tpcc_pg_fk_lock(struct emu_worker *w, struct tpcc_run *r, uint64_t pos)
{
	struct tpcc_table *tb = &r->t[T_CUSTOMER];
	int rc = dbm_path(w, &r->db, &tb->pk, pos, 0, 0);

	return rc ? rc : dbm_page(w, &r->db, tb->has_heap ? dbm_heap_row_page(&tb->hs, pos) :
				  dbm_tree_leaf(&tb->data, pos), 0, r->cost->lock);
}

int tpcc_row(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t rank, uint32_t redo,
	     bool ins)
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

int tpcc_sec_insert(struct emu_worker *w, struct tpcc_run *r, enum tbl t, uint64_t rank,
		    uint32_t redo)
{
	struct tpcc_table *tb = &r->t[t];

	if (tb->has_sec)
		return dbm_sec_op(w, &r->db, &tb->sec, rank % tb->sec.keys, 1, redo);
	return dbm_path(w, &r->db, &tb->data, rank % tb->data.rows, 0, redo);
}
