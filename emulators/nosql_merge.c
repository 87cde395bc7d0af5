/*
 * nosql_merge.c - the merge policy (see nosql_merge.h).
 */
#include <string.h>

#include "nosql_merge.h"

/* Indexes of the stands that may merge at all, largest (by fragments) first. */
static unsigned candidates(const struct nosql_merge_stand *s, unsigned n,
			   const struct nosql_merge_policy *p, unsigned *order)
{
	unsigned m = 0;

	for (unsigned i = 0; i < n; i++) {
		if (p->max_bytes && s[i].bytes >= p->max_bytes)
			continue;       /* already at the limit: never merged again */
		unsigned k = m++;
		while (k > 0 && s[order[k - 1]].frags < s[i].frags) {
			order[k] = order[k - 1];
			k--;
		}
		order[k] = i;
	}
	return m;
}

unsigned nosql_merge_pick(const struct nosql_merge_stand *s, unsigned n,
			  const struct nosql_merge_policy *p, bool *chosen)
{
	unsigned order[NOSQL_MAX_STANDS];
	uint64_t tail_frags[NOSQL_MAX_STANDS + 1], tail_out[NOSQL_MAX_STANDS + 1];
	unsigned m = candidates(s, n > NOSQL_MAX_STANDS ? NOSQL_MAX_STANDS : n, p, order);

	memset(chosen, 0, n * sizeof(*chosen));
	tail_frags[m] = tail_out[m] = 0;
	for (unsigned k = m; k-- > 0;) {
		tail_frags[k] = tail_frags[k + 1] + s[order[k]].frags;
		tail_out[k] = tail_out[k + 1] + s[order[k]].out_bytes;
	}
	/* the largest stand that qualifies, merged with all smaller ones */
	for (unsigned k = 0; k + 1 < m; k++) {
		const struct nosql_merge_stand *st = &s[order[k]];
		bool small = st->frags < p->min_frags;
		bool ratio = st->frags < p->ratio * tail_frags[k + 1];
		if (!small && !ratio)
			continue;
		if (p->max_bytes && tail_out[k] > p->max_bytes)
			continue;       /* too big a result: try without this one */
		for (unsigned q = k; q < m; q++)
			chosen[order[q]] = true;
		return m - k;
	}
	return 0;
}
