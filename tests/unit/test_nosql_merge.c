/*
 * test_nosql_merge.c - MarkLogic's merge policy, decision by decision: which
 * stands merge when (ratio, min size, max size), checked against cases worked
 * out by hand from the documented rules.
 */
#include <stdbool.h>

#include "nosql_merge.h"
#include "check.h"

static const struct nosql_merge_policy defaults = { .ratio = 2, .min_frags = 1024,
						    .max_bytes = 32768ULL << 20 };

/* Stands given as fragment counts; bytes = frags KiB, all live. */
static unsigned pick(const uint64_t *frags, unsigned n, const struct nosql_merge_policy *p, bool *chosen)
{
	struct nosql_merge_stand s[NOSQL_MAX_STANDS];
	for (unsigned i = 0; i < n; i++)
		s[i] = (struct nosql_merge_stand){ .frags = frags[i], .bytes = frags[i] << 10,
						   .out_bytes = frags[i] << 10 };
	return nosql_merge_pick(s, n, p, chosen);
}

static void ratio_rule(void)
{
	bool c[8];
	/* a big stand and one save: 256k >= 2 x 64k, and the small one has no partner */
	CHECK(pick((uint64_t[]){ 262144, 65536 }, 2, &defaults, c) == 0, "no merge yet");
	/* a second save: 64k < 2 x 64k, so the two small ones merge; the big one stays */
	CHECK(pick((uint64_t[]){ 262144, 65536, 65536 }, 3, &defaults, c) == 2, "two saves merge");
	CHECK(!c[0] && c[1] && c[2], "the two smaller stands are chosen");
	/* 256k < 2 x (128k + 64k): everything merges, the big one too */
	CHECK(pick((uint64_t[]){ 131072, 262144, 65536 }, 3, &defaults, c) == 3, "a large merge");
	CHECK(c[0] && c[1] && c[2], "all three chosen, whatever their order");
	/* ratio 1: the large stand waits until the others sum to as much as it */
	struct nosql_merge_policy one = defaults;
	one.ratio = 1;
	CHECK(pick((uint64_t[]){ 262144, 131072, 65536 }, 3, &one, c) == 0, "ratio 1: no merge");
}

static void min_size_rule(void)
{
	bool c[8];
	/* ratio alone would not merge 1000 with 10 (1000 >= 2 x 10), min size does */
	CHECK(pick((uint64_t[]){ 1000, 10 }, 2, &defaults, c) == 2, "small stands merge");
	/* the smallest stand alone has nothing to merge with */
	CHECK(pick((uint64_t[]){ 100000, 500 }, 2, &defaults, c) == 0, "one small stand waits");
	/* 100000 is large; 900 is small and merges with the 10 below it */
	CHECK(pick((uint64_t[]){ 100000, 900, 10 }, 3, &defaults, c) == 2, "small ones merge");
	CHECK(!c[0] && c[1] && c[2], "the big one is left alone");
}

static void max_size_rule(void)
{
	bool c[8];
	struct nosql_merge_policy p = defaults;
	p.max_bytes = 300ULL << 20;     /* 300 MiB; the stands are frags KiB */
	/* 256 + 100 + 64 MiB would be 420 MiB: too big, so only the two smaller merge
	   (100k < 2 x 64k fragments) */
	CHECK(pick((uint64_t[]){ 262144, 102400, 65536 }, 3, &p, c) == 2, "merge capped");
	CHECK(!c[0] && c[1] && c[2], "without the largest");
	/* a stand at the limit is never merged again */
	CHECK(pick((uint64_t[]){ 307200, 1000, 10 }, 3, &p, c) == 2, "limit stand skipped");
	CHECK(!c[0], "stand at the limit not chosen");
	p.max_bytes = 0;                /* no limit */
	CHECK(pick((uint64_t[]){ 262144, 131072, 65536 }, 3, &p, c) == 3, "no limit: all merge");
}

static void live_share(void)
{
	bool c[4];
	/* the limit applies to the merged stand's size, which is the live part only */
	struct nosql_merge_stand s[3] = {
		{ .frags = 262144, .bytes = 256ULL << 20, .out_bytes = 64ULL << 20 },
		{ .frags = 131072, .bytes = 128ULL << 20, .out_bytes = 100ULL << 20 },
		{ .frags = 65536, .bytes = 64ULL << 20, .out_bytes = 64ULL << 20 },
	};
	struct nosql_merge_policy p = defaults;
	p.max_bytes = 300ULL << 20;
	CHECK(nosql_merge_pick(s, 3, &p, c) == 3, "228 MiB of live data fits under 300 MiB");
	CHECK(nosql_merge_pick(s, 0, &p, c) == 0, "no stands");
	CHECK(nosql_merge_pick(s, 1, &p, c) == 0, "one stand");
}

int main(void)
{
	RUN(ratio_rule);
	RUN(min_size_rule);
	RUN(max_size_rule);
	RUN(live_share);
	return check_done();
}
