/*
 * nosql_merge.h - which on-disk stands of a forest to merge, and when.
 *
 * MarkLogic's merge policy (Administrator's Guide, "Understanding and
 * Controlling Database Merges"), which this follows:
 *   merge min ratio  (default 2): a stand is merged with all the stands
 *                    smaller than it when its fragment count is below
 *                    ratio x the fragments of all those smaller stands;
 *   merge min size   (default 1024 fragments): a stand with fewer fragments
 *                    is merged with the stands smaller than it whatever the
 *                    ratio;
 *   merge max size   (default 32768 MB through MarkLogic 8, 48 GB since 9):
 *                    no merge produces a stand larger than this, and a stand
 *                    already larger is never merged.
 * The largest stand that qualifies is merged with every smaller one, so one
 * decision takes as much as the policy allows (large merges are what the
 * reviews' latency peaks show). Pure functions: no I/O, no locks.
 */
#ifndef APPIO_NOSQL_MERGE_H
#define APPIO_NOSQL_MERGE_H

#include <stdbool.h>
#include <stdint.h>

#define NOSQL_MAX_STANDS 64     /* MarkLogic takes a forest offline at 64 stands */

struct nosql_merge_policy {
	uint64_t ratio;         /* merge min ratio, >= 1 */
	uint64_t min_frags;     /* merge min size in fragments */
	uint64_t max_bytes;     /* merge max size in bytes; 0 = no limit */
};

struct nosql_merge_stand {
	uint64_t frags;         /* fragments in the stand (live and obsolete) */
	uint64_t bytes;         /* its size on disk */
	uint64_t out_bytes;     /* what it contributes to a merged stand (its live share) */
};

/*
 * Decide a merge among @n (<= NOSQL_MAX_STANDS) stands: set @chosen[i] for
 * each stand to merge and return how many (0: none, else at least 2).
 */
unsigned nosql_merge_pick(const struct nosql_merge_stand *s, unsigned n,
			  const struct nosql_merge_policy *p, bool *chosen);

#endif
