/*
 * dbm_tree.h - B+tree geometry: which pages a row lookup, a range scan or an
 * append touches, computed from row count and row size, never stored.
 *
 * A tree is laid out level by level in a contiguous range of page ids:
 * the root first, then each level down to the leaves. Rows are numbered by
 * key rank (0 = smallest key); row r lives in leaf r / rows_per_leaf, and a
 * node at one level covers @fanout nodes of the level below. This is the
 * shape a bulk-loaded (sorted) index has in InnoDB and PostgreSQL: leaves
 * filled to a fill factor, in key order, internal levels on top. The
 * geometry is laid out for @rows rows; a table that grows (appends at the
 * right-most leaf) is given its capacity up front.
 *
 * A flat heap (PostgreSQL tables) is a tree of depth 1 with no internal
 * levels: dbm_tree_init_heap().
 *
 * All functions are pure and thread-compatible: a struct dbm_tree is
 * written once (setup) and read by every worker.
 */
#ifndef APPIO_DBM_TREE_H
#define APPIO_DBM_TREE_H

#include <stdint.h>

#define DBM_TREE_MAX_DEPTH 8

struct dbm_tree {
	uint64_t rows;                  /* rows the geometry is laid out for */
	uint32_t rows_per_leaf;         /* rows in one leaf page */
	uint32_t fanout;                /* child pointers in one internal page */
	unsigned depth;                 /* levels, root to leaf; 1: the root is the leaf */
	uint64_t leaves;
	uint64_t level_pages[DBM_TREE_MAX_DEPTH];       /* [0] root ... [depth-1] leaves */
	uint64_t level_base[DBM_TREE_MAX_DEPTH];        /* first page id of each level */
	uint64_t first_page, npages;    /* the tree's page-id range */
};

/*
 * Rows that fit in one page of @page_size bytes, @overhead bytes of it being
 * page header and trailer, filled to @fill (0 < fill <= 1), each record
 * @rec_bytes long. At least 1.
 */
uint32_t dbm_tree_per_page(uint32_t page_size, uint32_t overhead, double fill, uint32_t rec_bytes);

/*
 * Lay out a B+tree of @rows rows (>= 1) starting at page id @first_page:
 * @rows_per_leaf rows per leaf, @fanout (>= 2) children per internal node.
 * Returns 0, or -EINVAL when the tree would be deeper than
 * DBM_TREE_MAX_DEPTH or an argument is out of range.
 */
int dbm_tree_init(struct dbm_tree *t, uint64_t rows, uint32_t rows_per_leaf,
		  uint32_t fanout, uint64_t first_page);

/* A flat heap of @rows rows, @rows_per_page a page, from @first_page. */
int dbm_tree_init_heap(struct dbm_tree *t, uint64_t rows, uint32_t rows_per_page,
		       uint64_t first_page);

/* Page id of the leaf holding row @row (taken modulo the tree's rows). */
uint64_t dbm_tree_leaf(const struct dbm_tree *t, uint64_t row);

/*
 * Fill @pages (DBM_TREE_MAX_DEPTH entries) with the page ids from the root
 * down to the leaf holding row @row; returns how many (t->depth).
 */
unsigned dbm_tree_path(const struct dbm_tree *t, uint64_t row, uint64_t *pages);

/* How many consecutive leaves rows [@row, @row + @n) span (n >= 1). */
uint64_t dbm_tree_span(const struct dbm_tree *t, uint64_t row, uint64_t n);

#endif
