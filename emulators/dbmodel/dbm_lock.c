/*
 * dbm_lock.c - row locks to the transaction's end (dbm_lock.h). An
 * open-addressing table with linear probing and backward-shift deletion,
 * so that a lookup stops at the first empty slot; a few dozen rows are held
 * at a time, in 32,768 slots. A waiter is found by a scan of the workers
 * (a few dozen), made only when someone waits.
 */
#include <errno.h>
#include <stdlib.h>

#include "appio/cond.h"
#include "appio/xalloc.h"
#include "dbm_lock.h"

#define NONE UINT32_MAX
#define WAIT_NS 10000000ULL

void dbm_locks_init(struct dbm_locks *l)
{
	l->key = xcalloc(DBM_LOCK_SLOTS, sizeof(*l->key));
	l->owner = xcalloc(DBM_LOCK_SLOTS, sizeof(*l->owner));
	l->waits_for = xmalloc(DBM_LOCK_WORKERS * sizeof(*l->waits_for));
	l->want = xcalloc(DBM_LOCK_WORKERS, sizeof(*l->want));
	l->ticket = xcalloc(DBM_LOCK_WORKERS, sizeof(*l->ticket));
	l->loses = xcalloc(DBM_LOCK_WORKERS, sizeof(*l->loses));
	l->lost = xcalloc(DBM_LOCK_WORKERS, sizeof(*l->lost));
	l->cv = xmalloc(DBM_LOCK_WORKERS * sizeof(*l->cv));
	for (unsigned i = 0; i < DBM_LOCK_WORKERS; i++) {
		l->waits_for[i] = NONE;
		cond_init_mono(&l->cv[i]);
	}
	l->next_ticket = 0;
	l->used = l->waiting = l->hi = 0;
	pthread_mutex_init(&l->mx, NULL);
}

void dbm_locks_release(struct dbm_locks *l)
{
	if (!l->key)
		return;
	pthread_mutex_destroy(&l->mx);
	for (unsigned i = 0; i < DBM_LOCK_WORKERS; i++)
		pthread_cond_destroy(&l->cv[i]);
	free(l->key);
	free(l->owner);
	free(l->waits_for);
	free(l->want);
	free(l->ticket);
	free(l->loses);
	free(l->lost);
	free(l->cv);
	l->key = NULL;
}

static uint32_t slot_of(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return (uint32_t)k & (DBM_LOCK_SLOTS - 1);
}

/* The slot holding @k, or the empty slot where it would go. Lock held. */
static uint32_t find(const struct dbm_locks *l, uint64_t k)
{
	uint32_t i = slot_of(k);
	while (l->key[i] && l->key[i] != k)
		i = (i + 1) & (DBM_LOCK_SLOTS - 1);
	return i;
}

/* Would @me waiting for @owner close a cycle of waits? Lock held. */
static bool cycle(const struct dbm_locks *l, uint32_t me, uint32_t owner)
{
	for (unsigned n = 0; n < DBM_LOCK_WORKERS && owner != NONE; n++) {
		if (owner == me)
			return true;
		owner = owner < DBM_LOCK_WORKERS ? l->waits_for[owner] : NONE;
	}
	return false;
}

/* Worker @me leaves the queue it waits in (handed the row, or gone). Lock held. */
static void dequeue(struct dbm_locks *l, uint32_t me)
{
	l->want[me] = 0;
	l->waits_for[me] = NONE;
	l->waiting--;
}

/* The first in line of the waiters for row key @k (+ 1) that lost it, or NONE. Lock held. */
static uint32_t first_loser(const struct dbm_locks *l, uint64_t k)
{
	uint32_t first = NONE;

	for (uint32_t v = 0; v < l->hi; v++)
		if (l->want[v] == k && l->lost[v] && (first == NONE || l->ticket[v] < l->ticket[first]))
			first = v;
	return first;
}

/* Loser @me of row key @k leaves, and the next loser's turn comes. Lock held. */
static void lose_turn(struct dbm_locks *l, uint32_t me, uint64_t k)
{
	l->lost[me] = false;
	dequeue(l, me);
	uint32_t next = first_loser(l, k);
	if (next != NONE)
		pthread_cond_signal(&l->cv[next]);
}

static int acquire(struct emu_worker *w, struct dbm_locks *l, uint64_t key, uint32_t me, bool loses,
		   bool *waited)
{
	uint64_t k = key + 1;
	int rc = 0;

	*waited = false;
	if (me >= DBM_LOCK_WORKERS)
		return 0;
	pthread_mutex_lock(&l->mx);
	uint32_t i = find(l, k);
	if (!l->key[i]) {
		/* more rows held than a sweep's workers hold: lock nothing more */
		if (l->used < DBM_LOCK_SLOTS / 2) {
			l->key[i] = k;
			l->owner[i] = me;
			l->used++;
		}
	} else if (l->owner[i] != me) {
		if (cycle(l, me, l->owner[i])) {
			rc = -EDEADLK;
		} else {
			*waited = true;
			l->want[me] = k;
			l->ticket[me] = l->next_ticket++;
			l->loses[me] = loses;
			l->waits_for[me] = l->owner[i];
			l->waiting++;
			if (me >= l->hi)
				l->hi = me + 1;
			/* until a release hands it the row (want cleared) or, a loser,
			   its turn to leave comes; the slot itself may move meanwhile */
			while (l->want[me]) {
				if (l->lost[me] && first_loser(l, k) == me) {
					lose_turn(l, me, k);
					rc = -EAGAIN;
					break;
				}
				if (emu_stopping(w)) {
					if (l->lost[me])
						lose_turn(l, me, k);
					else
						dequeue(l, me);
					rc = 1;
					break;
				}
				cond_wait_ns(&l->cv[me], &l->mx, WAIT_NS);
			}
		}
	}
	pthread_mutex_unlock(&l->mx);
	return rc;
}

int dbm_lock(struct emu_worker *w, struct dbm_locks *l, uint64_t key, uint32_t me, bool *waited)
{
	return acquire(w, l, key, me, false, waited);
}

int dbm_lock_first_updater(struct emu_worker *w, struct dbm_locks *l, uint64_t key, uint32_t me,
			   bool *waited)
{
	return acquire(w, l, key, me, true, waited);
}

/*
 * Row key @k (+ 1) released: the first in line of the waiters that take it
 * returned (NONE: nobody takes it), and those that lose it marked lost. The
 * losers leave one after another, each when the one before it has: on
 * PostgreSQL each in turn takes the old version's tuple lock, finds it
 * updated and fails, while the new version is free for the others. When
 * the holder rolled back (@aborted) nothing was updated: the first in line
 * takes the row, loser or not, and the others wait on for it. Lock held.
 */
static uint32_t next_holder(struct dbm_locks *l, uint64_t k, bool aborted)
{
	uint32_t first = NONE;
	bool lost = false;

	for (uint32_t v = 0; v < l->hi; v++) {
		if (l->want[v] != k || l->lost[v])
			continue;
		if (l->loses[v] && !aborted) {
			l->lost[v] = true;
			l->waits_for[v] = NONE;
			lost = true;
		} else if (first == NONE || l->ticket[v] < l->ticket[first]) {
			first = v;
		}
	}
	if (lost)
		pthread_cond_signal(&l->cv[first_loser(l, k)]);
	return first;
}

/* Remove slot @i, shifting back the entries that probed past it. Lock held. */
static void remove_slot(struct dbm_locks *l, uint32_t i)
{
	const uint32_t m = DBM_LOCK_SLOTS - 1;
	uint32_t j = i;

	for (;;) {
		j = (j + 1) & m;
		if (!l->key[j])
			break;
		uint32_t home = slot_of(l->key[j]);
		/* j's entry may fill hole i if its home is not in (i, j] (cyclically) */
		if (((j - home) & m) >= ((j - i) & m)) {
			l->key[i] = l->key[j];
			l->owner[i] = l->owner[j];
			i = j;
		}
	}
	l->key[i] = 0;
	l->used--;
}

static void release(struct dbm_locks *l, const uint64_t *keys, unsigned n, uint32_t me, bool aborted)
{
	if (!n || me >= DBM_LOCK_WORKERS)
		return;
	pthread_mutex_lock(&l->mx);
	for (unsigned a = 0; a < n; a++) {
		uint64_t k = keys[a] + 1;
		uint32_t i = find(l, k);
		if (!l->key[i] || l->owner[i] != me)
			continue;
		uint32_t next = l->waiting ? next_holder(l, k, aborted) : NONE;
		if (next == NONE) {
			remove_slot(l, i);
			continue;
		}
		l->owner[i] = next;
		dequeue(l, next);
		for (uint32_t v = 0; v < l->hi; v++)
			if (l->want[v] == k && !l->lost[v])
				l->waits_for[v] = next;
		pthread_cond_signal(&l->cv[next]);
	}
	pthread_mutex_unlock(&l->mx);
}

void dbm_unlock(struct dbm_locks *l, const uint64_t *keys, unsigned n, uint32_t me)
{
	release(l, keys, n, me, false);
}

void dbm_unlock_rolled_back(struct dbm_locks *l, const uint64_t *keys, unsigned n, uint32_t me)
{
	release(l, keys, n, me, true);
}
