/*
 * dbm_lock.c - row locks to the transaction's end (dbm_lock.h). An
 * open-addressing table with linear probing and backward-shift deletion,
 * so that a lookup stops at the first empty slot; a few dozen rows are held
 * at a time, in 32,768 slots.
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
	for (unsigned i = 0; i < DBM_LOCK_WORKERS; i++)
		l->waits_for[i] = NONE;
	l->used = 0;
	pthread_mutex_init(&l->mx, NULL);
	cond_init_mono(&l->cv);
}

void dbm_locks_release(struct dbm_locks *l)
{
	if (!l->key)
		return;
	pthread_mutex_destroy(&l->mx);
	pthread_cond_destroy(&l->cv);
	free(l->key);
	free(l->owner);
	free(l->waits_for);
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

int dbm_lock(struct emu_worker *w, struct dbm_locks *l, uint64_t key, uint32_t me, bool *waited)
{
	uint64_t k = key + 1;
	int rc = 0;

	*waited = false;
	if (me >= DBM_LOCK_WORKERS)
		return 0;
	pthread_mutex_lock(&l->mx);
	for (;;) {
		uint32_t i = find(l, k);
		if (!l->key[i]) {
			/* more rows held than a sweep's workers hold: lock nothing more */
			if (l->used < DBM_LOCK_SLOTS / 2) {
				l->key[i] = k;
				l->owner[i] = me;
				l->used++;
			}
			break;
		}
		if (l->owner[i] == me)
			break;
		if (cycle(l, me, l->owner[i])) {
			rc = -EDEADLK;
			break;
		}
		if (emu_stopping(w)) {
			rc = 1;
			break;
		}
		*waited = true;
		l->waits_for[me] = l->owner[i];
		cond_wait_ns(&l->cv, &l->mx, WAIT_NS);
	}
	l->waits_for[me] = NONE;
	pthread_mutex_unlock(&l->mx);
	return rc;
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

void dbm_unlock(struct dbm_locks *l, const uint64_t *keys, unsigned n, uint32_t me)
{
	if (!n || me >= DBM_LOCK_WORKERS)
		return;
	pthread_mutex_lock(&l->mx);
	for (unsigned a = 0; a < n; a++) {
		uint32_t i = find(l, keys[a] + 1);
		if (l->key[i] && l->owner[i] == me)
			remove_slot(l, i);
	}
	pthread_cond_broadcast(&l->cv);
	pthread_mutex_unlock(&l->mx);
}
