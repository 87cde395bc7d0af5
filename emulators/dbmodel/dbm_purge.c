/*
 * dbm_purge.c - the purge coordinator's thread count (see dbm_purge.h).
 * Its thresholds are MariaDB 10.11's: adaptive_purge_threshold 20 and
 * safety_net 20, the 60 points between spread over the threads as an
 * arithmetic progression when it divides evenly, else evenly.
 */
#include "dbm_purge.h"

#define THRESHOLD 20
#define SAFETY_NET 20

void dbm_purge_coord_init(struct dbm_purge_coord *c, unsigned n)
{
	const unsigned spread = 100 - THRESHOLD - SAFETY_NET;
	unsigned sum = n * (n + 1) / 2;

	*c = (struct dbm_purge_coord){ .n = n, .n_use = n };
	if (spread % sum == 0) {
		for (unsigned i = n, step = spread / sum, g = step; i >= 1; i--, g += step)
			c->series[i] = g;
	} else {
		unsigned total = 0;
		for (unsigned i = n; i >= 1; i--) {
			c->series[i] = spread / n;
			total += spread / n;
		}
		for (unsigned i = 1; i <= n && total < spread; i++, total++)
			c->series[i]++;
	}
	c->lwm = THRESHOLD;
	c->hwm = THRESHOLD + c->series[n];
}

unsigned dbm_purge_coord_round(struct dbm_purge_coord *c, uint64_t hist, unsigned age_pct)
{
	if (hist > c->last_hist) {
		if (c->n_use < c->n && age_pct < c->lwm) {
			c->n_use++;
			c->hwm = c->lwm;
			c->lwm -= c->series[c->n_use];
		} else if (c->n_use > 1 && age_pct >= c->hwm) {
			c->n_use--;
			c->lwm = c->hwm;
			c->hwm += c->series[c->n_use];
		} else if (c->n_use == 1 && age_pct >= 100 - SAFETY_NET) {
			return 0;       /* the history's length is not taken: it grew */
		}
	}
	c->last_hist = hist;
	return c->n_use;
}
