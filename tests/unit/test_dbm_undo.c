/*
 * test_dbm_undo.c - InnoDB's undo pages in the model (dbmodel/dbm_undo.h):
 * rollback segments taken in turn; a segment's cached page reused by its
 * next transaction, after the earlier logs, until 3/4 full; a log that
 * outgrows its page goes on to a new one and is freed, not cached; a cached
 * page freed by purge unless its segment was taken since; new pages the
 * lowest free of the first extent partly in use, extents freed going to the
 * back; every page in use: pages shared, each freed once.
 */
#include <stdbool.h>
#include <stdint.h>

#include "dbmodel/dbm_undo.h"
#include "check.h"

#define PAGE 16384
#define FIRST 5000

static struct dbm_undo u;

/* One transaction: @n records of @bytes; returns its page (the last). */
static uint64_t txn(struct dbm_undo_log *log, unsigned n, uint32_t bytes, unsigned *created)
{
	uint64_t page = 0;
	for (unsigned i = 0; i < n; i++) {
		bool c;
		page = dbm_undo_add(&u, log, bytes, PAGE, &c);
		*created += c;
	}
	return page;
}

/* 128 transactions of 540 bytes: one new page each; the 129th reuses the first's. */
static void rseg_in_turn_page_cached(void)
{
	struct dbm_undo_log log = { 0 };
	unsigned created = 0;
	uint64_t first_page = 0;

	dbm_undo_init(&u, FIRST, 1024);
	for (unsigned i = 0; i < DBM_RSEGS; i++) {
		uint64_t p = txn(&log, 4, 135, &created);
		if (i == 0)
			first_page = p;
		CHECK(log.rseg == i, "transaction %u took rollback segment %u", i, log.rseg);
		CHECK(log.fill == DBM_UNDO_LOG_HDR + 540, "fill %u after one log", log.fill);
		CHECK(dbm_undo_end(&u, &log, PAGE), "a page a quarter full is cached");
		CHECK(log.npages == 0, "the log is left empty once its page is cached");
	}
	CHECK(created == DBM_RSEGS, "one page created a segment, saw %u", created);
	CHECK(first_page == FIRST, "the area's first page is taken first (%llu)",
	      (unsigned long long)first_page);
	created = 0;
	uint64_t p = txn(&log, 4, 135, &created);
	CHECK(created == 0 && p == first_page && log.rseg == 0,
	      "the 129th transaction reuses segment 0's page: created %u, page %llu, rseg %u",
	      created, (unsigned long long)p, log.rseg);
	CHECK(log.fill == 2 * (DBM_UNDO_LOG_HDR + 540), "its log follows the first's: fill %u", log.fill);
	dbm_undo_end(&u, &log, PAGE);
	dbm_undo_release(&u);
}

/* A page reused until 3/4 full, then not cached; freed, it is the next taken. */
static void retired_at_three_quarters(void)
{
	struct dbm_undo_log log = { 0 };
	unsigned created = 0, uses = 0;
	uint64_t page;

	dbm_undo_init(&u, FIRST, 1024);
	for (;;) {
		/* every transaction lands on segment 0: the others' turns skipped */
		atomic_store(&u.next_rseg, 0);
		page = txn(&log, 4, 135, &created);
		uses++;
		if (!dbm_undo_end(&u, &log, PAGE))
			break;
		CHECK(uses < 100, "cached forever");
		if (uses >= 100)
			return;
	}
	unsigned expect = (PAGE / 4 * 3 + DBM_UNDO_LOG_HDR + 540 - 1) / (DBM_UNDO_LOG_HDR + 540);
	CHECK(uses == expect, "retired after %u logs, expected %u (3/4 of the page)", uses, expect);
	CHECK(created == 1, "one page all along, saw %u created", created);
	CHECK(log.npages == 1 && log.page[0] == page, "the retired log keeps its page for purge");
	dbm_undo_free(&u, page);
	dbm_undo_free(&u, page);        /* twice: still once on the free list */
	CHECK(u.nfree == 1024, "all free again: %u", u.nfree);
	log = (struct dbm_undo_log){ 0 };
	created = 0;
	atomic_store(&u.next_rseg, 0);
	CHECK(txn(&log, 1, 100, &created) == page && created == 1,
	      "its extent all free again, the page is taken again, as a new page");
	dbm_undo_release(&u);
}

/* A log larger than a page: a second page, created; freed, not cached. */
static void log_over_a_page(void)
{
	struct dbm_undo_log log = { 0 };
	unsigned created = 0;

	dbm_undo_init(&u, FIRST, 1024);
	uint64_t last = txn(&log, 40, 500, &created);
	CHECK(log.npages == 2 && created == 2, "20,000 bytes: 2 pages (%u), both created (%u)",
	      log.npages, created);
	CHECK(last == log.page[1] && log.page[1] != log.page[0], "records go on to the second page");
	CHECK(!dbm_undo_end(&u, &log, PAGE), "a log of two pages is not cached");
	CHECK(u.rseg[0].n == 0, "nothing cached for its segment");
	/* more pages than a log keeps: the ones beyond are freed at once */
	struct dbm_undo_log big = { 0 };
	created = 0;
	txn(&big, 2 * DBM_UNDO_LOG_PAGES * 16, 1000, &created);
	CHECK(big.npages == DBM_UNDO_LOG_PAGES, "a log keeps %d pages, saw %u", DBM_UNDO_LOG_PAGES,
	      big.npages);
	CHECK(u.nfree == 1024 - 2 - DBM_UNDO_LOG_PAGES, "the others are free again: %u free", u.nfree);
	dbm_undo_release(&u);
}

/* Every page in use: pages are shared in turn, none lost once freed. */
static void area_full(void)
{
	struct dbm_undo_log log[12] = { 0 };
	unsigned created = 0;

	dbm_undo_init(&u, FIRST, 8);
	for (unsigned i = 0; i < 12; i++)
		txn(&log[i], 1, 13000, &created);       /* over 3/4: each retired */
	CHECK(u.nfree == 0, "8 pages, 12 logs: none free");
	CHECK(log[8].page[0] == FIRST && log[9].page[0] == FIRST + 1,
	      "then pages taken in turn from the area's start");
	for (unsigned i = 0; i < 12; i++) {
		CHECK(!dbm_undo_end(&u, &log[i], PAGE), "log %u retired", i);
		dbm_undo_free(&u, log[i].page[0]);
	}
	CHECK(u.nfree == 8, "each page free once: %u", u.nfree);
	dbm_undo_release(&u);
}

/* Purge frees a cached page whose segment nobody took since; not one reused. */
static void uncached_by_purge(void)
{
	struct dbm_undo_log a = { 0 }, b = { 0 };
	unsigned created = 0;

	dbm_undo_init(&u, FIRST, 1024);
	uint64_t pa = txn(&a, 4, 135, &created);
	uint32_t tag_a = a.tag, rseg_a = a.rseg;
	CHECK(dbm_undo_end(&u, &a, PAGE), "a's page cached");
	uint64_t pb = txn(&b, 4, 135, &created);
	uint32_t tag_b = b.tag;
	CHECK(dbm_undo_end(&u, &b, PAGE) && b.tag == tag_b, "b's page cached, in another segment");
	CHECK(u.nfree == 1024 - 2, "two pages in use: %u free", u.nfree);
	CHECK(dbm_undo_uncache(&u, rseg_a, pa, tag_a), "a's log purged, nobody took segment %u since: "
	      "its page freed", rseg_a);
	CHECK(u.rseg[rseg_a].n == 0 && u.nfree == 1024 - 1, "off the cache (%u), free (%u)",
	      u.rseg[rseg_a].n, u.nfree);
	CHECK(!dbm_undo_uncache(&u, rseg_a, pa, tag_a), "freed once");
	/* segment 1 comes round again before b's log is purged: its page stays */
	atomic_store(&u.next_rseg, 1);
	struct dbm_undo_log c = { 0 };
	CHECK(txn(&c, 4, 135, &created) == pb, "c takes b's cached page");
	CHECK(dbm_undo_end(&u, &c, PAGE), "and leaves it cached");
	CHECK(!dbm_undo_uncache(&u, 1, pb, tag_b), "b's log purged after c's began: the page stays");
	CHECK(u.rseg[1].n == 1 && u.nfree == 1024 - 1, "still cached (%u), in use (%u free)",
	      u.rseg[1].n, u.nfree);
	CHECK(dbm_undo_uncache(&u, 1, pb, c.tag), "c's log purged: now freed");
	dbm_undo_release(&u);
}

/* One page a transaction, each log over 3/4 of a page: retired, freed at once. */
static uint64_t one_page(void)
{
	struct dbm_undo_log log = { 0 };
	unsigned created = 0;
	uint64_t p = txn(&log, 1, 13000, &created);
	CHECK(!dbm_undo_end(&u, &log, PAGE), "a log over 3/4 of its page is not cached");
	return p - FIRST;
}

/* The lowest free page of the first extent partly in use; a full extent with a
   page freed joins the back of that list. */
static void extents_in_turn(void)
{
	dbm_undo_init(&u, FIRST, 256);
	for (unsigned i = 0; i < 64; i++)
		CHECK(one_page() == i, "extent 0 filled from its lowest page (%u)", i);
	CHECK(one_page() == 64, "extent 0 full: extent 1 next");
	dbm_undo_free(&u, FIRST + 5);
	dbm_undo_free(&u, FIRST + 3);
	CHECK(one_page() == 65, "extent 1 goes on while extent 0 waits its turn");
	for (unsigned i = 66; i < 128; i++)
		one_page();
	CHECK(one_page() == 3 && one_page() == 5, "extent 1 full: extent 0's freed pages, lowest first");
	CHECK(one_page() == 128, "then a new extent");
	dbm_undo_release(&u);
}

/* Extents a load used are taken in order; one all free goes to the back. */
static void touched_extents_sweep(void)
{
	dbm_undo_init(&u, FIRST, 1024);
	dbm_undo_touch(&u, 3);
	uint64_t p = one_page();
	CHECK(p == 0, "extent 0 first (%llu)", (unsigned long long)p);
	dbm_undo_free(&u, FIRST + p);
	CHECK(one_page() == 64, "extent 0 all free, behind 1 and 2: extent 1 next");
	dbm_undo_free(&u, FIRST + 64);
	CHECK(one_page() == 128, "then extent 2");
	dbm_undo_free(&u, FIRST + 128);
	CHECK(one_page() == 0, "then extent 0 again, not a new one");
	CHECK(u.limit == 3, "no extent past the touched ones used (%u)", u.limit);
	dbm_undo_release(&u);
}

int main(void)
{
	RUN(rseg_in_turn_page_cached);
	RUN(retired_at_three_quarters);
	RUN(log_over_a_page);
	RUN(area_full);
	RUN(uncached_by_purge);
	RUN(extents_in_turn);
	RUN(touched_extents_sweep);
	return check_done();
}
