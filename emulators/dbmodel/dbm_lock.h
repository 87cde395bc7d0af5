/*
 * dbm_lock.h - row locks held from a row's change to its transaction's end,
 * as InnoDB's record locks and PostgreSQL's tuple locks are: a second writer
 * of the row waits for the first to commit. With SysBench's --rand-type
 * special, 75% of the row picks fall in 1% of the rows, so writers meet on
 * hot rows and the one that comes second waits: part of the latency tail.
 *
 * One exact table of the rows locked now (not stripes: a stripe shared by
 * two rows would make waits the server does not have), under one mutex. A
 * wait that would close a cycle (A waits for B, which waits for A) is a
 * deadlock: the caller rolls its transaction back, as InnoDB's deadlock
 * detector and PostgreSQL's (after deadlock_timeout) make one of them do.
 */
#ifndef APPIO_DBM_LOCK_H
#define APPIO_DBM_LOCK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "appio/emulator.h"

#define DBM_LOCK_WORKERS 4096   /* worker ids beyond this lock nothing */
#define DBM_LOCK_SLOTS (1u << 15)

struct dbm_locks {
	pthread_mutex_t mx;
	pthread_cond_t cv;              /* a lock was released */
	uint64_t *key;                  /* [slot]: row key + 1, 0 empty (linear probing) */
	uint32_t *owner;                /* [slot]: the worker holding it */
	uint32_t *waits_for;            /* [worker]: the worker it waits for, or UINT32_MAX */
	uint32_t used;
};

/* Allocate an empty table (dies on allocation failure) and its locks. */
void dbm_locks_init(struct dbm_locks *l);

/* Free it; safe on a zeroed one. */
void dbm_locks_release(struct dbm_locks *l);

/*
 * Lock row @key (any value but UINT64_MAX) for worker @me until
 * dbm_unlock(). Returns 0 (held; *@waited says whether it waited for
 * another), 1 when the run is stopping, -EDEADLK when waiting would close a
 * cycle (nothing taken: roll back and release what is held). Locking a row
 * one already holds returns 0 at once. Worker threads only.
 */
int dbm_lock(struct emu_worker *w, struct dbm_locks *l, uint64_t key, uint32_t me, bool *waited);

/* Release those of the @n rows @keys that @me holds, and wake their waiters. */
void dbm_unlock(struct dbm_locks *l, const uint64_t *keys, unsigned n, uint32_t me);

#endif
