/*
 * dbm_sec.c - leaves that split and merge (see dbm_sec.h for why and how).
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "dbm_sec.h"

#define MAX_BUCKETS (1u << 22)  /* per index: bounds the memory whatever the row count */
#define SEC_EXTENT 64           /* pages an extent (FSP_EXTENT_SIZE, 16 KiB pages) */
#define SEC_FILLFACTOR 8        /* FSEG_FILLFACTOR */

static uint64_t slot_page(const struct dbm_sec *s, uint32_t slot)
{
	return slot < s->geo.leaves ? s->geo.level_base[s->geo.depth - 1] + slot
				    : s->extra_first + (slot - s->geo.leaves);
}

/*
 * The entries a leaf holds after a load that filled the index by random
 * inserts: splits leave halves that fill up again, so a leaf's count is
 * spread from a low mark to full with a density of 1/count (it spends time
 * inversely to its growth rate, which is its share of the keys): the mean
 * is (cap - lo) / ln(cap / lo), 0.72 of cap at lo = cap / 2 (Yao's 69 %
 * utilisation of random B-trees, leaf for leaf). The low mark for the
 * measured mean @load; a leaf at u in [0, 1) of the spread holds
 * lo * (cap / lo)^u.
 */
static double random_load_lo(uint32_t cap, uint32_t load)
{
	double a = 1, b = load;

	for (int i = 0; i < 60; i++) {
		double lo = (a + b) / 2;
		if ((cap - lo) / log(cap / lo) < load)
			a = lo;
		else
			b = lo;
	}
	return (a + b) / 2;
}

int dbm_sec_init(struct dbm_sec *s, uint64_t keys, uint32_t cap, uint32_t load, uint32_t merge_below,
		 uint32_t fanout, uint64_t first_page)
{
	bool sorted = !load || (load & DBM_SEC_SORTED);
	load &= ~DBM_SEC_SORTED;
	if (!load || load > cap)
		load = cap;
	sorted = sorted || load == cap;
	int rc = dbm_tree_init(&s->geo, keys, load, fanout, first_page);

	if (rc)
		return rc;
	if (s->geo.leaves > MAX_BUCKETS / 2)
		return -EINVAL;
	uint32_t leaves = (uint32_t)s->geo.leaves;
	uint32_t per = MAX_BUCKETS / leaves < 256 ? MAX_BUCKETS / leaves : 256;
	s->cap = cap;
	s->merge_below = merge_below;
	s->keys = keys;
	s->nbuckets = leaves * per;
	/* splits leave half-full leaves: room for the index to double */
	s->extra_pages = leaves + 16;
	s->extra_first = first_page + s->geo.npages;
	s->maxslots = leaves + s->extra_pages;
	s->leaf_of = xmalloc(s->nbuckets * sizeof(*s->leaf_of));
	s->cnt = xcalloc(s->nbuckets, sizeof(*s->cnt));
	s->leaf = xcalloc(s->maxslots, sizeof(*s->leaf));
	s->free_slot = xmalloc(s->maxslots * sizeof(*s->free_slot));
	s->nfree = 0;
	s->nslots = leaves;
	/* what the bulk load leaves the segment (MariaDB 10.11, 8 x 250,000 rows:
	   289 pages for 208 leaves and a root): 32 fragment pages, whole
	   extents, and one extent more */
	s->reserved = leaves <= 32 ? leaves
				   : 32 + (leaves - 32 + SEC_EXTENT - 1) / SEC_EXTENT * SEC_EXTENT + SEC_EXTENT;
	if (s->reserved > s->maxslots)
		s->reserved = s->maxslots;
	/* a sorted bulk load: leaves in key order, full (or at the load's
	   fill), the last one with the rest; a random one: counts spread as
	   above (a golden-ratio sequence, so neighbours differ), each leaf
	   owning buckets for its share of the keys, since a random insert
	   lands in a leaf as often as its range is wide */
	double lo = sorted ? load : random_load_lo(cap, load), sum = 0;
	for (uint32_t l = 0; l < leaves; l++) {
		double u = fmod((l + 0.5) * 0.6180339887498949, 1.0);
		s->leaf[l].count = sorted ? load : (uint32_t)(lo * pow(cap / lo, u));
		sum += s->leaf[l].count;
	}
	uint64_t left = keys;
	uint32_t b0 = 0;
	for (uint32_t l = 0; l < leaves; l++) {
		uint64_t n = l + 1 == leaves ? left : sorted ? load : (uint64_t)(s->leaf[l].count * (keys / sum) + 0.5);
		if (n > cap && l + 1 < leaves)
			n = cap;
		if (n > left)
			n = left;
		left -= n;
		uint32_t b1 = sorted ? (l + 1) * per : (uint32_t)((double)(keys - left) * s->nbuckets / keys);
		if (b1 <= b0)
			b1 = b0 + 1;
		if (b1 > s->nbuckets - (leaves - 1 - l))
			b1 = s->nbuckets - (leaves - 1 - l);
		uint32_t nb = b1 - b0;
		s->leaf[l] = (struct dbm_sec_leaf){ b0, nb, (uint32_t)n, 0 };
		for (uint32_t b = b0; b < b1; b++) {
			s->leaf_of[b] = l;
			s->cnt[b] = (uint16_t)(n / nb + (b - b0 < n % nb));
		}
		b0 = b1;
	}
	pthread_mutex_init(&s->mx, NULL);
	return 0;
}

uint64_t dbm_sec_pages(const struct dbm_sec *s)
{
	return s->geo.npages + s->extra_pages;
}

void dbm_sec_release(struct dbm_sec *s)
{
	if (!s->leaf_of)
		return;
	free(s->leaf_of);
	free(s->cnt);
	free(s->leaf);
	free(s->free_slot);
	s->leaf_of = NULL;
	pthread_mutex_destroy(&s->mx);
}

static uint32_t bucket_of(const struct dbm_sec *s, uint64_t rank)
{
	return (uint32_t)((rank % s->keys) * s->nbuckets / s->keys);
}

uint64_t dbm_sec_leaf(struct dbm_sec *s, uint64_t rank)
{
	pthread_mutex_lock(&s->mx);
	uint64_t page = slot_page(s, s->leaf_of[bucket_of(s, rank)]);
	pthread_mutex_unlock(&s->mx);
	return page;
}

/* Entries @lf can still take, after a reorganisation if need be. */
static uint32_t free_room(const struct dbm_sec *s, const struct dbm_sec_leaf *lf)
{
	return lf->count < s->cap ? s->cap - lf->count : 0;
}

/* Of those, the ones its heap top takes without reusing garbage. */
static uint32_t heap_room(const struct dbm_sec *s, const struct dbm_sec_leaf *lf)
{
	uint32_t free = free_room(s, lf);

	return free > lf->garbage ? free - lf->garbage : 0;
}

/*
 * Whether an insert into @lf splits it rather than finding room: none left
 * at all, or, on a page with deleted records' space (garbage), less than
 * 1/32 of the page free after a reorganisation and none at the heap top
 * (btr_cur_optimistic_insert(), BTR_CUR_PAGE_REORGANIZE_LIMIT): InnoDB
 * splits rather than reorganise a nearly full page. The free list is
 * reused first, so the heap top fills only when the garbage is gone.
 */
static bool must_split(const struct dbm_sec *s, const struct dbm_sec_leaf *lf)
{
	uint32_t free = free_room(s, lf);

	return !free || (lf->garbage && !heap_room(s, lf) && free < s->cap / 32);
}

/* Take free slot number @i of the list. */
static uint32_t take_free(struct dbm_sec *s, uint32_t i)
{
	uint32_t slot = s->free_slot[i];

	s->free_slot[i] = s->free_slot[--s->nfree];
	return slot;
}

/* The slot whose leaf page is @page; UINT32_MAX: not a leaf's page. */
static uint32_t page_slot(const struct dbm_sec *s, uint64_t page)
{
	uint64_t base = s->geo.level_base[s->geo.depth - 1];

	if (page >= base && page - base < s->geo.leaves)
		return (uint32_t)(page - base);
	if (page >= s->extra_first && page - s->extra_first < s->extra_pages)
		return (uint32_t)(s->geo.leaves + (page - s->extra_first));
	return UINT32_MAX;
}

/* The segment takes a new extent: pages not used yet. */
static void add_extent(struct dbm_sec *s)
{
	s->reserved = s->reserved + SEC_EXTENT < s->maxslots ? s->reserved + SEC_EXTENT : s->maxslots;
}

/*
 * The page for a split of leaf @l, as fseg_alloc_free_page_low() picks it
 * from the hint, the page after the leaf's (its steps' numbers; 2 and 6
 * do not arise for a leaf of a segment past its fragment pages):
 *  1. the hint itself if it is free (a split where a merge freed the next
 *     page takes it back, and its frame if still in the pool);
 *  3. when less than 1/8 of the pages the segment holds are free
 *     (FSEG_FILLFACTOR), a new extent, its first page;
 *  4. else a free page of the hint's extent, the first from the hint on;
 *  5. else the segment's first free page (its first extent not full; the
 *     list's order taken as the pages' order);
 *  7. none free: a new extent.
 * Which page a split takes decides which pages lie together in the file,
 * and so what a flush takes along as neighbours. UINT32_MAX: no page left.
 */
static uint32_t split_slot(struct dbm_sec *s, uint32_t l)
{
	uint64_t hint = slot_page(s, l) + 1;
	uint32_t h = page_slot(s, hint);
	bool fresh = s->nslots < s->reserved;

	if (h != UINT32_MAX) {
		if (fresh && h == s->nslots)
			return s->nslots++;
		for (uint32_t i = 0; i < s->nfree; i++)
			if (s->free_slot[i] == h)
				return take_free(s, i);
	}
	if ((s->nfree + (s->reserved - s->nslots)) * SEC_FILLFACTOR < s->reserved &&
	    s->reserved < s->maxslots) {
		add_extent(s);
		return s->nslots++;
	}
	uint64_t ext = hint - hint % SEC_EXTENT, best = UINT64_MAX, low = UINT64_MAX;
	uint32_t bi = UINT32_MAX, li = UINT32_MAX;
	for (uint32_t i = 0; i <= s->nfree; i++) {
		uint64_t pg;
		if (i < s->nfree)
			pg = slot_page(s, s->free_slot[i]);
		else if (fresh)
			pg = slot_page(s, s->nslots);
		else
			break;
		/* from the hint on, wrapping round the extent */
		uint64_t d = pg >= ext && pg < ext + SEC_EXTENT ? (pg - hint + SEC_EXTENT) % SEC_EXTENT
								 : UINT64_MAX;
		if (d < best) {
			best = d;
			bi = i;
		}
		if (pg < low) {
			low = pg;
			li = i;
		}
	}
	uint32_t i = bi != UINT32_MAX ? bi : li;
	if (i == UINT32_MAX) {          /* 7. none free: a new extent */
		if (s->nslots == s->maxslots)
			return UINT32_MAX;
		add_extent(s);
		return s->nslots++;
	}
	return i < s->nfree ? take_free(s, i) : s->nslots++;
}

/* Split leaf @l where half of its entries lie; false when it cannot. The
   entries moved out leave their space in @l as garbage (page_delete_rec_list_end). */
static bool split(struct dbm_sec *s, uint32_t l, struct dbm_sec_change *c)
{
	struct dbm_sec_leaf *lf = &s->leaf[l];
	uint32_t slot, sum = 0, m = lf->first;

	if (lf->nb < 2 || (slot = split_slot(s, l)) == UINT32_MAX)
		return false;
	while (m < lf->first + lf->nb - 1 && (sum + s->cnt[m] <= lf->count / 2 || m == lf->first))
		sum += s->cnt[m++];
	struct dbm_sec_leaf *nw = &s->leaf[slot];
	*nw = (struct dbm_sec_leaf){ m, lf->first + lf->nb - m, lf->count - sum, 0 };
	for (uint32_t b = nw->first; b < nw->first + nw->nb; b++)
		s->leaf_of[b] = slot;
	lf->nb = m - lf->first;
	lf->count = sum;
	lf->garbage += nw->count;
	if (lf->garbage > free_room(s, lf))
		lf->garbage = free_room(s, lf);
	c->event = DBM_SEC_SPLIT;
	c->other = slot_page(s, slot);
	c->moved = nw->count;
	return true;
}

/* Merge leaf @l into its left sibling, else its right one, if they fit in a
   page; the sibling is reorganised first when its heap top cannot take them
   (btr_can_merge_with_page()), else the moved entries reuse its garbage. */
static void merge(struct dbm_sec *s, uint32_t l, struct dbm_sec_change *c)
{
	struct dbm_sec_leaf *lf = &s->leaf[l];
	uint32_t sib = UINT32_MAX;

	if (lf->first > 0 && s->leaf[s->leaf_of[lf->first - 1]].count + lf->count <= s->cap)
		sib = s->leaf_of[lf->first - 1];
	else if (lf->first + lf->nb < s->nbuckets &&
		 s->leaf[s->leaf_of[lf->first + lf->nb]].count + lf->count <= s->cap)
		sib = s->leaf_of[lf->first + lf->nb];
	if (sib == UINT32_MAX)
		return;
	struct dbm_sec_leaf *sl = &s->leaf[sib];
	for (uint32_t b = lf->first; b < lf->first + lf->nb; b++)
		s->leaf_of[b] = sib;
	if (sl->first > lf->first)
		sl->first = lf->first;
	sl->nb += lf->nb;
	if (heap_room(s, sl) < lf->count)
		sl->garbage = 0;
	else
		sl->garbage -= lf->count < sl->garbage ? lf->count : sl->garbage;
	sl->count += lf->count;
	c->event = DBM_SEC_MERGE;
	c->other = slot_page(s, sib);
	c->moved = lf->count;
	*lf = (struct dbm_sec_leaf){ 0 };
	s->free_slot[s->nfree++] = l;
}

void dbm_sec_change(struct dbm_sec *s, uint64_t rank, int delta, struct dbm_sec_change *c)
{
	uint32_t b = bucket_of(s, rank);

	*c = (struct dbm_sec_change){ 0 };
	pthread_mutex_lock(&s->mx);
	uint32_t l = s->leaf_of[b];
	struct dbm_sec_leaf *lf = &s->leaf[l];
	c->leaf = slot_page(s, l);
	if (delta > 0) {
		bool full = must_split(s, lf);

		if (s->cnt[b] < UINT16_MAX) {
			s->cnt[b]++;
			lf->count++;
		}
		if (full)
			split(s, l, c);
		else if (lf->garbage)
			lf->garbage--;  /* the entry takes a deleted one's space */
	} else if (lf->count) {
		/* the entry is in this leaf; when its bucket is empty take a neighbour's */
		uint32_t e = b;
		while (!s->cnt[e] && e + 1 < lf->first + lf->nb)
			e++;
		while (!s->cnt[e] && e > lf->first)
			e--;
		s->cnt[e]--;
		lf->count--;
		lf->garbage++;
		if (lf->count < s->merge_below)
			merge(s, l, c);
	}
	pthread_mutex_unlock(&s->mx);
}
