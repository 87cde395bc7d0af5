/*
 * dbm_sec.h - an index whose leaves fill, split and merge: InnoDB's
 * secondary index k_N under SysBench's writes.
 *
 * Why: measured on MariaDB 10.11 (INNODB_METRICS, oltp_read_write, 8 x
 * 250,000 rows), index_page_splits and index_page_merge_successful ran at
 * 0.48 and 0.43 per transaction in the first 20 s after a restart and
 * settled at about 0.2 each, and with the page reorganisations that come
 * with the merges they were more than half of the redo written (about
 * 5.3 KB each against a base of 1.5 KB per transaction) and the source of
 * the new pages (Innodb_pages_created). The mechanism: CREATE INDEX builds
 * k_N by a sorted bulk load that fills the leaves completely (innodb_fill_factor
 * = 100 leaves free space in clustered-index pages only), so the first insert
 * into each leaf splits it in two halves; purge then deletes the old entries,
 * a leaf below half full (BTR_CUR_PAGE_COMPRESS_LIMIT, 50%) is merged into
 * its left or right sibling when both fit in one page (btr_compress), and
 * the merged page splits again at its next insert: a steady churn.
 *
 * The model: entry positions (ranks, 0 .. keys - 1) map to buckets, each
 * bucket counts its entries and belongs to one leaf, a leaf owns a run of
 * consecutive buckets. An insert that takes a leaf past a full page splits
 * it at the bucket where half of its entries lie (a new leaf page); a delete
 * that leaves it under half a page merges it into a sibling that can take
 * its entries (its page is freed). Internal nodes keep the bulk-loaded shape
 * (dbm_tree): the path to a leaf is the path of its rank.
 *
 * What keeps the churn going is how InnoDB uses a page's space: a deleted
 * record's space (garbage) is reused by the next insert, but an insert into
 * a page with garbage, no room at its heap top and less than 1/32 of the
 * page free after a reorganisation splits the page instead
 * (btr_cur_optimistic_insert(), BTR_CUR_PAGE_REORGANIZE_LIMIT), and the
 * lower half of a split keeps the moved records' space as garbage. So
 * leaves split ~3% short of full, into halves further under the merge
 * limit, which merge back with room to spare: without this rule the
 * model's churn was 55-60% of MariaDB's throughout a two-minute run.
 *
 * Which page a split takes decides which pages lie together in the file,
 * and so what InnoDB flushes as neighbours of a page: it is picked as
 * fseg_alloc_free_page_low() picks it, near the splitting leaf (dbm_sec.c).
 * Measured on MariaDB 10.11 (mysql.innodb_index_stats, 8 x 250,000 rows)
 * the k index's segment held 289 pages for 208 leaves after the load, and
 * 386-452 pages for ~305 leaves after 30 s of oltp_read_write: a free page
 * is one of many, taken by its place in the file, not at once.
 *
 * Thread-safe: one mutex per index (the index latch), held only while the
 * counts change, never across I/O.
 */
#ifndef APPIO_DBM_SEC_H
#define APPIO_DBM_SEC_H

#include <pthread.h>
#include <stdint.h>

#include "dbm_tree.h"

struct dbm_sec_leaf {
	uint32_t first, nb;     /* buckets [first, first + nb) */
	uint32_t count;         /* entries */
	uint32_t garbage;       /* deleted entries' space, not yet reused */
};

struct dbm_sec {
	struct dbm_tree geo;            /* bulk-loaded shape: internal levels, initial leaves */
	uint64_t extra_first;           /* page ids of leaves made by splits */
	uint32_t extra_pages;
	uint32_t cap;                   /* entries in a full leaf */
	uint32_t merge_below;           /* a leaf with fewer entries is merged if it can be */
	uint64_t keys;
	uint32_t nbuckets;
	uint32_t *leaf_of;              /* bucket -> leaf slot */
	uint16_t *cnt;                  /* entries per bucket */
	struct dbm_sec_leaf *leaf;      /* per slot */
	uint32_t nslots, maxslots;      /* slots used so far, and room for */
	uint32_t reserved;              /* slots in the segment's extents: [nslots, reserved)
					   not used yet */
	uint32_t *free_slot, nfree;     /* slots of merged-away leaves */
	pthread_mutex_t mx;
};

/* What one change did to the leaves: the pages to touch and what to log. */
enum dbm_sec_event { DBM_SEC_NONE, DBM_SEC_SPLIT, DBM_SEC_MERGE };
struct dbm_sec_change {
	uint64_t leaf;                  /* page the entry is (was) in */
	uint64_t other;                 /* split: the new leaf; merge: the sibling */
	uint32_t moved;                 /* entries that changed page */
	enum dbm_sec_event event;
};

/*
 * Lay out an index of @keys entries, full leaves of @cap entries, internal
 * nodes of @fanout children, from page id @first_page (the tree, then
 * pages for leaves made by splits). @load is the entries a leaf holds on
 * average after the index was loaded: @cap (or 0) for a sorted bulk load
 * (CREATE INDEX after the data), every leaf full; fewer for an index
 * filled by the rows' random inserts (created before the data), whose
 * leaves are spread from part-full to full, so that they split one by one
 * as inserts come rather than all at their first; @load | DBM_SEC_SORTED
 * for rows that came in key order into an index that leaves room in its
 * leaves (PostgreSQL's rightmost splits keep fillfactor 90), every leaf
 * at @load. A leaf left with fewer than
 * @merge_below entries is merged into a sibling when the two fit in one
 * leaf (InnoDB: data under half the page, merge_threshold = 50, which is a
 * little more than half of a full leaf's entries, since a full leaf's
 * records do not fill the whole page). Returns 0 or -EINVAL (too deep a
 * tree). The caller reserves dbm_sec_pages() page ids.
 */
#define DBM_SEC_SORTED (1u << 31)
int dbm_sec_init(struct dbm_sec *s, uint64_t keys, uint32_t cap, uint32_t load, uint32_t merge_below,
		 uint32_t fanout, uint64_t first_page);
uint64_t dbm_sec_pages(const struct dbm_sec *s);
void dbm_sec_release(struct dbm_sec *s);

/* Page id of the leaf holding position @rank now. */
uint64_t dbm_sec_leaf(struct dbm_sec *s, uint64_t rank);

/* Add (@delta 1) or remove (-1) an entry at @rank; *@c says what happened. */
void dbm_sec_change(struct dbm_sec *s, uint64_t rank, int delta, struct dbm_sec_change *c);

#endif
