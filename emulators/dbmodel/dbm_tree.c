/*
 * dbm_tree.c - B+tree geometry (see dbm_tree.h).
 */
#include <errno.h>

#include "dbm_tree.h"

uint32_t dbm_tree_per_page(uint32_t page_size, uint32_t overhead, double fill, uint32_t rec_bytes)
{
	if (page_size <= overhead || !rec_bytes)
		return 1;
	double n = (double)(page_size - overhead) * fill / rec_bytes;
	return n < 1 ? 1 : (uint32_t)n;
}

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

int dbm_tree_init(struct dbm_tree *t, uint64_t rows, uint32_t rows_per_leaf,
		  uint32_t fanout, uint64_t first_page)
{
	uint64_t per_level[DBM_TREE_MAX_DEPTH];
	unsigned n = 0;

	if (!rows || !rows_per_leaf || fanout < 2)
		return -EINVAL;
	/* count pages bottom-up until one node holds the level below */
	per_level[n++] = div_up(rows, rows_per_leaf);
	while (per_level[n - 1] > 1) {
		if (n == DBM_TREE_MAX_DEPTH)
			return -EINVAL;
		per_level[n] = div_up(per_level[n - 1], fanout);
		n++;
	}
	*t = (struct dbm_tree){ .rows = rows, .rows_per_leaf = rows_per_leaf, .fanout = fanout,
				.depth = n, .leaves = per_level[0], .first_page = first_page };
	uint64_t next = first_page;
	for (unsigned l = 0; l < n; l++) {     /* root first: level l holds per_level[n-1-l] */
		t->level_pages[l] = per_level[n - 1 - l];
		t->level_base[l] = next;
		next += t->level_pages[l];
	}
	t->npages = next - first_page;
	return 0;
}

int dbm_tree_init_heap(struct dbm_tree *t, uint64_t rows, uint32_t rows_per_page,
		       uint64_t first_page)
{
	if (!rows || !rows_per_page)
		return -EINVAL;
	uint64_t pages = div_up(rows, rows_per_page);
	*t = (struct dbm_tree){ .rows = rows, .rows_per_leaf = rows_per_page, .fanout = 2,
				.depth = 1, .leaves = pages, .first_page = first_page,
				.npages = pages };
	t->level_pages[0] = pages;
	t->level_base[0] = first_page;
	return 0;
}

uint64_t dbm_tree_leaf(const struct dbm_tree *t, uint64_t row)
{
	return t->level_base[t->depth - 1] + (row % t->rows) / t->rows_per_leaf;
}

unsigned dbm_tree_path(const struct dbm_tree *t, uint64_t row, uint64_t *pages)
{
	uint64_t idx = (row % t->rows) / t->rows_per_leaf;      /* node index, leaf level */

	for (unsigned l = t->depth; l-- > 0;) {
		pages[l] = t->level_base[l] + idx;
		idx /= t->fanout;
	}
	return t->depth;
}

uint64_t dbm_tree_span(const struct dbm_tree *t, uint64_t row, uint64_t n)
{
	uint64_t first = (row % t->rows) / t->rows_per_leaf;
	uint64_t last = ((row % t->rows) + (n ? n - 1 : 0)) / t->rows_per_leaf;
	if (last >= t->leaves)          /* a scan past the last key stops at the last leaf */
		last = t->leaves - 1;
	return last - first + 1;
}
