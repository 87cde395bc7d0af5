/*
 * dbm_purge.h - how many purge threads InnoDB runs, from how full its redo
 * log is (MariaDB 10.6+, purge_coordinator_state in srv0srv.cc). While the
 * history list grows, the coordinator takes a thread away each time the
 * checkpoint age passes a high-water mark and gives one back below a
 * low-water mark; the marks are 20% of the log's maximum checkpoint age plus
 * steps of 60% spread over the threads (6, 12, 18 and 24 for 4). With one
 * thread left and the age at 80% or more, purge stops until the age falls:
 * with a small log under a write-heavy load, the history list then grows
 * instead of purge adding its reads, writes and redo (MariaDB at 16 threads,
 * write_only, a 32M log: 0.34 records purged a transaction against 1.0 at
 * 4 threads).
 */
#ifndef APPIO_DBM_PURGE_H
#define APPIO_DBM_PURGE_H

#include <stdint.h>

#define DBM_PURGE_MAX_THREADS 32        /* innodb_purge_threads_MAX */

struct dbm_purge_coord {
	unsigned n, n_use;              /* innodb_purge_threads, those in use */
	unsigned lwm, hwm;              /* percent of the maximum checkpoint age */
	unsigned series[DBM_PURGE_MAX_THREADS + 1];
	uint64_t last_hist;             /* the history's length at the last round */
};

/* Start with @n (1..DBM_PURGE_MAX_THREADS) threads, all in use. */
void dbm_purge_coord_init(struct dbm_purge_coord *c, unsigned n);

/*
 * One round of the coordinator: @hist is the history's length now, @age_pct
 * the checkpoint age in percent of the maximum. Returns the threads to purge
 * with this round, 0 when purge waits for the next round.
 */
unsigned dbm_purge_coord_round(struct dbm_purge_coord *c, uint64_t hist, unsigned age_pct);

#endif
