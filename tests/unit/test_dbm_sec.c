/*
 * test_dbm_sec.c - the splitting secondary index (dbm_sec.h): a bulk load's
 * full leaves split and merge, where a split's page is taken, InnoDB's
 * garbage rule, a random-insert load's spread of leaves, and a key-order
 * load that leaves room in each leaf (PostgreSQL's fillfactor).
 */
#include <stdbool.h>
#include <stdint.h>

#include "dbmodel/dbm_sec.h"
#include "check.h"
#include "appio/rand.h"

/* Every bucket belongs to a live leaf whose run holds it; counts add up. */
static bool sec_consistent(const struct dbm_sec *s, uint64_t *entries, uint32_t *leaves)
{
	uint64_t sum = 0;
	uint32_t live = 0;

	for (uint32_t l = 0; l < s->nslots; l++) {
		const struct dbm_sec_leaf *lf = &s->leaf[l];
		if (!lf->nb)
			continue;
		uint64_t c = 0;
		live++;
		for (uint32_t b = lf->first; b < lf->first + lf->nb; b++) {
			if (s->leaf_of[b] != l)
				return false;
			c += s->cnt[b];
		}
		if (c != lf->count)
			return false;
		sum += c;
	}
	*entries = sum;
	*leaves = live;
	return live + s->nfree == s->nslots;
}

/*
 * Merge leaf @l of a bulk load of full 100-entry leaves into its left
 * neighbour: that one halved first, then @l emptied until both fit one
 * page. Returns @l's page, freed (0: no such merge).
 */
static uint64_t sec_free_leaf(struct dbm_sec *s, uint32_t l)
{
	struct dbm_sec_change c = { 0 };
	uint64_t page = dbm_sec_leaf(s, l * 100);

	for (uint32_t i = 0; i < 50; i++)
		dbm_sec_change(s, (l - 1) * 100 + i, -1, &c);
	for (uint32_t i = 0; i < 100; i++) {
		dbm_sec_change(s, l * 100 + i, -1, &c);
		if (c.event != DBM_SEC_NONE)
			break;
	}
	return c.event == DBM_SEC_MERGE && c.leaf == page ? page : 0;
}

/* Insert at @rank until its leaf splits: the new leaf's page (0: none). */
static uint64_t sec_split_at(struct dbm_sec *s, uint64_t rank)
{
	struct dbm_sec_change c = { 0 };

	for (int i = 0; i < 200 && c.event != DBM_SEC_SPLIT; i++)
		dbm_sec_change(s, rank, 1, &c);
	return c.event == DBM_SEC_SPLIT ? c.other : 0;
}

/*
 * The splitting index: a bulk load of full leaves; an insert into a full
 * leaf splits it in halves (a new page); deletes that leave it under the
 * merge limit merge it into a sibling that can take it (its page freed).
 * A split's page is picked as fseg_alloc_free_page_low() picks it from the
 * hint, the page after the splitting leaf's: the hint if free, else a free
 * page of the hint's extent, else the segment's first free page; a new
 * extent when under 1/8 of the segment is free. Counts stay consistent
 * through random churn.
 */
static void sec_split_merge(void)
{
	struct dbm_sec s = { 0 };
	struct dbm_sec_change c;
	uint64_t n;
	uint32_t leaves;

	CHECK(dbm_sec_init(&s, 10000, 100, 0, 52, 50, 1000) == 0, "init");
	CHECK(s.geo.leaves == 100 && sec_consistent(&s, &n, &leaves) && n == 10000 && leaves == 100,
	      "bulk load: 100 full leaves of 100 (%llu entries, %u leaves)", (unsigned long long)n, leaves);
	uint64_t base = s.geo.level_base[s.geo.depth - 1];
	CHECK(base == 1003 && s.extra_first == 1103,
	      "the test's layout: leaves on pages 1003-1102 (%llu on), split pages from 1103 (%llu)",
	      (unsigned long long)base, (unsigned long long)s.extra_first);
	uint64_t leaf7 = dbm_sec_leaf(&s, 750);
	CHECK(leaf7 == base + 7, "rank 750 is in the 8th leaf");
	dbm_sec_change(&s, 750, 1, &c);
	CHECK(c.event == DBM_SEC_SPLIT && c.leaf == leaf7 && c.other == s.extra_first &&
	      c.moved >= 45 && c.moved <= 56,
	      "insert into a full leaf splits it (%u moved) into the first page not used yet", c.moved);
	CHECK(dbm_sec_leaf(&s, 799) == c.other && dbm_sec_leaf(&s, 700) == leaf7,
	      "the upper half of its keys now map to the new leaf");
	uint64_t split_page = c.other;
	int merges = 0;
	for (int i = 0; i < 10 && !merges; i++) {
		dbm_sec_change(&s, 700, -1, &c);
		merges += c.event == DBM_SEC_MERGE;
	}
	CHECK(merges == 1 && c.leaf == leaf7 && c.other == split_page,
	      "a half leaf under the limit merges into its sibling");
	CHECK(dbm_sec_leaf(&s, 700) == split_page, "its keys map to the sibling");
	/* leaf 71, page 1074: no free page in its hint's extent (pages 1024-1087) */
	CHECK(sec_split_at(&s, 7150) == leaf7,
	      "a split whose hint's extent has no free page takes the segment's first: the freed one");
	/* 1: the page after the leaf's, freed by a merge, is the hint */
	uint64_t p31 = sec_free_leaf(&s, 31);
	CHECK(p31 == base + 31, "leaf 31 merged into leaf 30, its page freed");
	CHECK(sec_split_at(&s, 3050) == p31, "leaf 30's split takes the page after its own back");
	/* 4: a free page of the hint's extent before a lower one elsewhere */
	uint64_t p12 = sec_free_leaf(&s, 12), p61 = sec_free_leaf(&s, 61);
	CHECK(p12 == base + 12 && p61 == base + 61, "leaves 12 and 61 freed");
	CHECK(sec_split_at(&s, 5050) == p61,
	      "leaf 50's split takes the free page of its hint's extent (61), not the lower 12");
	CHECK(sec_split_at(&s, 9050) == s.extra_first + 1,
	      "leaf 90's, a page not used yet of its own extent: the freed page 12 waits");
	CHECK(sec_split_at(&s, 2050) == p12, "leaf 20's takes it: the segment's first free page");
	dbm_sec_release(&s);

	/* 3: a segment short of free pages takes a new extent */
	CHECK(dbm_sec_init(&s, 30000, 100, 0, 52, 50, 1000) == 0, "init 300 leaves");
	uint32_t reserved = s.reserved, split_n = 0, free_before = 0;
	bool early = false;
	CHECK(reserved == 32 + 5 * 64 + 64, "the bulk load's segment: %u pages", reserved);
	while (s.reserved == reserved && split_n < 200) {
		free_before = s.reserved - s.nslots + s.nfree;
		CHECK(sec_split_at(&s, (uint64_t)(split_n * 97 % 300) * 100 + 50) != 0, "split %u", split_n);
		split_n++;
		early |= s.reserved != reserved && free_before * 8 >= reserved;
	}
	CHECK(s.reserved == reserved + 64 && free_before == (reserved - 1) / 8 && !early,
	      "a new extent as soon as under 1/8 free, not before (%u splits, %u free before the last)",
	      split_n, free_before);

	struct rng r;
	unsigned splits = 0, nmerges = 0;
	rng_seed(&r, 7, 1);
	for (int i = 0; i < 200000; i++) {
		int d = rng_below(&r, 2) ? 1 : -1;
		dbm_sec_change(&s, rng_below(&r, (uint32_t)s.keys), d, &c);
		splits += c.event == DBM_SEC_SPLIT;
		nmerges += c.event == DBM_SEC_MERGE;
	}
	bool ok = sec_consistent(&s, &n, &leaves);
	CHECK(ok && leaves > 300 && leaves <= s.maxslots, "consistent after churn: %u leaves", leaves);
	CHECK(splits > 100 && nmerges > 100, "churn splits and merges: %u, %u", splits, nmerges);
	uint32_t over = 0;
	for (uint32_t l = 0; l < s.nslots; l++)
		over += s.leaf[l].count > s.cap;
	CHECK(over == 0, "no leaf holds more than a page: %u do", over);
	dbm_sec_release(&s);
}

/* The leaf holding @rank (a test peeks at the buckets). */
static struct dbm_sec_leaf *sec_leaf_of(struct dbm_sec *s, uint64_t rank)
{
	return &s->leaf[s->leaf_of[rank * s->nbuckets / s->keys]];
}

/* Inserts at @rank until one splits its leaf: the entries the leaf held then. */
static uint32_t sec_fill_until_split(struct dbm_sec *s, uint64_t rank)
{
	struct dbm_sec_change c;

	for (int i = 0; i < 1000; i++) {
		uint32_t before = sec_leaf_of(s, rank)->count;
		dbm_sec_change(s, rank, 1, &c);
		if (c.event == DBM_SEC_SPLIT)
			return before;
	}
	return 0;
}

/*
 * An index filled by random inserts (created before the rows): leaves from
 * part-full to full around the measured mean, each owning keys in
 * proportion to its entries, so that inserts split them one by one rather
 * than each at its first insert as after a sorted bulk load.
 */
static void sec_random_load(void)
{
	struct dbm_sec s = { 0 };
	struct dbm_sec_change c;
	uint64_t n;
	uint32_t leaves, lo = UINT32_MAX, hi = 0;

	CHECK(dbm_sec_init(&s, 72100, 1000, 721, 450, 50, 1000) == 0, "init");
	CHECK(s.geo.leaves == 100 && sec_consistent(&s, &n, &leaves) && n == 72100 && leaves == 100,
	      "a leaf per 721 entries (%llu entries, %u leaves)", (unsigned long long)n, leaves);
	bool prop = true;
	for (uint32_t l = 0; l < leaves; l++) {
		const struct dbm_sec_leaf *lf = &s.leaf[l];
		lo = lf->count < lo ? lf->count : lo;
		hi = lf->count > hi ? lf->count : hi;
		/* buckets in proportion to entries, within a bucket's rounding */
		double share = (double)lf->nb / s.nbuckets * 72100;
		prop &= share > lf->count - 72100.0 / s.nbuckets - 1 && share < lf->count + 72100.0 / s.nbuckets + 1;
	}
	CHECK(lo >= 480 && lo <= 520 && hi >= 980 && hi <= 1000,
	      "at a mean of 0.72 full, leaves hold half to all of a page: %u to %u", lo, hi);
	CHECK(prop, "each leaf owns keys in proportion to its entries");

	struct rng r;
	unsigned splits = 0, first = 0;
	rng_seed(&r, 11, 1);
	for (int i = 0; i < 100; i++) {
		dbm_sec_change(&s, rng_below(&r, 72100), 1, &c);
		first += c.event == DBM_SEC_SPLIT;
	}
	for (int i = 0; i < 27900; i++) {
		dbm_sec_change(&s, rng_below(&r, 72100), 1, &c);
		splits += c.event == DBM_SEC_SPLIT;
	}
	CHECK(first <= 2, "the first 100 inserts split at most 2 leaves, not 100 (%u)", first);
	/* 28,000 entries more, 39 % of a leaf's: the leaves above 720 entries
	   split (ln(1000/720) / ln 2 = 47 % of them), the others do not yet */
	CHECK(splits >= 30 && splits <= 65 && sec_consistent(&s, &n, &leaves) && n == 100100,
	      "28,000 inserts split %u leaves (30-65)", splits);
	dbm_sec_release(&s);
}

/*
 * InnoDB splits a leaf with deleted records' space (garbage) and no room at
 * its heap top once less than 1/32 of the page is free, rather than
 * reorganise it; a leaf without garbage fills to the last entry. The lower
 * half of a split keeps the moved entries' space as garbage.
 */
static void sec_garbage_split(void)
{
	struct dbm_sec s = { 0 };
	struct dbm_sec_change c;

	CHECK(dbm_sec_init(&s, 3200, 320, 0, 170, 50, 1000) == 0, "init");
	dbm_sec_change(&s, 100, 1, &c);
	CHECK(c.event == DBM_SEC_SPLIT, "the first insert splits a full leaf");
	uint32_t low = sec_leaf_of(&s, 10)->count, high = sec_leaf_of(&s, 300)->count;
	CHECK(sec_leaf_of(&s, 10)->garbage == 320 - low && sec_leaf_of(&s, 300)->garbage == 0,
	      "the lower half keeps the moved entries' space as garbage, the new page none");
	uint32_t at = sec_fill_until_split(&s, 10);
	CHECK(at == 320 - 320 / 32 + 1, "a leaf with garbage splits with 1/32 of it free (at %u of 320)", at);
	at = sec_fill_until_split(&s, 300);
	CHECK(at == 320 && high < 320, "a leaf without garbage fills to the last entry (at %u)", at);
	/* a delete makes garbage, which the next insert reuses */
	uint32_t before = sec_leaf_of(&s, 3100)->count;
	dbm_sec_change(&s, 3100, -1, &c);
	CHECK(sec_leaf_of(&s, 3100)->garbage == 1 && sec_leaf_of(&s, 3100)->count == before - 1,
	      "a delete leaves garbage");
	dbm_sec_change(&s, 3100, 1, &c);
	CHECK(c.event == DBM_SEC_SPLIT, "a full leaf with garbage and 1 free splits");
	dbm_sec_release(&s);
}

/*
 * A load in key order into an index that keeps room in its leaves
 * (PostgreSQL's rightmost splits at fillfactor 90): every leaf at the
 * load's fill, none splits before it has taken the room left, and no leaf
 * merges when merging is off (merge_below 0: PostgreSQL merges none).
 */
static void sec_sorted_fill(void)
{
	struct dbm_sec s = { 0 };
	struct dbm_sec_change c;
	uint64_t n;
	uint32_t leaves;

	CHECK(dbm_sec_init(&s, 36000, 407, 360 | DBM_SEC_SORTED, 0, 50, 1000) == 0, "init");
	CHECK(s.geo.leaves == 100 && sec_consistent(&s, &n, &leaves) && n == 36000 && leaves == 100,
	      "a leaf per 360 entries (%llu entries, %u leaves)", (unsigned long long)n, leaves);
	bool even = true;
	for (uint32_t l = 0; l < leaves; l++)
		even &= s.leaf[l].count == 360;
	CHECK(even, "every leaf holds 360 entries, not a random load's spread");

	/* 47 entries into each leaf's range fill it to its 407 without a split */
	unsigned splits = 0;
	for (uint32_t l = 0; l < 100; l++)
		for (uint32_t i = 0; i < 47; i++) {
			dbm_sec_change(&s, l * 360 + i * 7, 1, &c);
			splits += c.event == DBM_SEC_SPLIT;
		}
	CHECK(splits == 0, "4,700 inserts into the room left split %u leaves (0)", splits);
	dbm_sec_change(&s, 5 * 360 + 3, 1, &c);
	CHECK(c.event == DBM_SEC_SPLIT, "the 408th entry of a leaf splits it");

	unsigned merges = 0;
	for (uint32_t i = 0; i < 300; i++) {
		dbm_sec_change(&s, 20 * 360 + i, -1, &c);
		merges += c.event == DBM_SEC_MERGE;
	}
	CHECK(merges == 0 && sec_consistent(&s, &n, &leaves) && n == 36000 + 4701 - 300 && leaves == 101,
	      "300 deletes from one leaf merge %u leaves with merge_below 0 (0)", merges);
	dbm_sec_release(&s);
}

int main(void)
{
	RUN(sec_split_merge);
	RUN(sec_garbage_split);
	RUN(sec_random_load);
	RUN(sec_sorted_fill);
	return check_done();
}
