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
 *
 * Waiters get a row in the order they asked for it: the holder's release
 * hands it to the first in line, and a newcomer queues behind the waiters
 * even in the instant the row has none holding it. InnoDB grants a record's
 * waiting locks in queue order when the holder's are released
 * (lock_rec_grant()), and a new request that conflicts with a waiting one
 * waits; PostgreSQL's lock manager queues the same way. Waking every waiter
 * to race for the row (as a mutex does, or a broadcast) made the order
 * random: at 16 threads on one TPC-C warehouse, where the warehouse row has
 * ten waiters at a time, the model's Payment p99 was 2.1x the server's
 * with its mean 0.92x.
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
	uint64_t *key;                  /* [slot]: row key + 1, 0 empty (linear probing) */
	uint32_t *owner;                /* [slot]: the worker holding it */
	uint32_t *waits_for;            /* [worker]: the worker it waits for, or UINT32_MAX */
	uint64_t *want;                 /* [worker]: the row key + 1 it waits for, 0 none */
	uint64_t *ticket;               /* [worker]: when it began to wait (queue order) */
	bool *loses;                    /* [worker]: it gives up when the holder releases */
	bool *lost;                     /* [worker]: released: it leaves when its turn comes */
	pthread_cond_t *cv;             /* [worker]: handed its row, or time to look at the stop */
	uint64_t next_ticket;
	uint32_t used, waiting, hi;     /* slots in use; workers waiting; 1 + highest waiter id */
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

/*
 * As dbm_lock(), but a worker that finds the row held waits only until its
 * holder releases it and then returns -EAGAIN without it: PostgreSQL's
 * first updater wins under REPEATABLE READ. Every transaction waiting for
 * a row when its updater commits fails with a serialization error, one
 * after another in the order they came (each takes the old version's tuple
 * lock in turn), and the row goes to whoever asks next (a later
 * transaction finds the new version, which nobody holds) or to a waiter
 * that takes it, not to the losers.
 */
int dbm_lock_first_updater(struct emu_worker *w, struct dbm_locks *l, uint64_t key, uint32_t me,
			   bool *waited);

/* Release those of the @n rows @keys that @me holds: each passes to the first of its
   waiters that takes it, and those that lose it are told. */
void dbm_unlock(struct dbm_locks *l, const uint64_t *keys, unsigned n, uint32_t me);

/* The same for a transaction that rolled back: its rows were not changed, so
   the first in line takes each, one that would lose it too (and the other
   losers wait on, for the new holder). */
void dbm_unlock_rolled_back(struct dbm_locks *l, const uint64_t *keys, unsigned n, uint32_t me);

#endif
