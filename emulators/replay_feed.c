/*
 * replay_feed.c - the replay's record ring (replay_feed.h): a Lamport queue
 * with free-running 64-bit indices (they never wrap in practice), so full is
 * head - tail == cap and empty is head == tail, with no slot kept spare.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "appio/xalloc.h"
#include "replay_feed.h"

static void nap(uint64_t ns)
{
	struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)ns };
	nanosleep(&ts, NULL);   /* an early return (a signal) only means another look */
}

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#endif
}

/* The other side's index, fresh: only when the cached copy says empty or full. */
static inline uint64_t load_head(struct replay_feed *f)
{
	return atomic_load_explicit(&f->head, memory_order_acquire);
}

static inline uint64_t load_tail(struct replay_feed *f)
{
	return atomic_load_explicit(&f->tail, memory_order_acquire);
}

uint64_t replay_feed_size(unsigned threads)
{
	uint64_t total = (uint64_t)REPLAY_FEED_RECS * REPLAY_FEED_FULL, n = REPLAY_FEED_RECS;

	while (threads && n > REPLAY_FEED_MIN_RECS && n * threads > total)
		n /= 2;
	return n;
}

void replay_feed_init(struct replay_feed *f, uint64_t cap)
{
	f->ring = xcalloc(cap, sizeof(*f->ring));
	f->cap = cap;
	f->waits = 0;
	f->tail_seen = f->head_seen = 0;
	f->err[0] = '\0';
	atomic_init(&f->head, 0);
	atomic_init(&f->tail, 0);
	atomic_init(&f->status, 0);
	atomic_init(&f->cancel, false);
}

void replay_feed_release(struct replay_feed *f)
{
	free(f->ring);
	f->ring = NULL;
	f->cap = 0;
}

bool replay_feed_cancelled(const struct replay_feed *f)
{
	return atomic_load_explicit(&f->cancel, memory_order_acquire);
}

int replay_feed_put(struct replay_feed *f, const struct trace_rec *rec)
{
	uint64_t head = atomic_load_explicit(&f->head, memory_order_relaxed);

	if (head - f->tail_seen == f->cap && head - (f->tail_seen = load_tail(f)) == f->cap) {
		/* full: wait for half of it, so the producer wakes once per half ring */
		do {
			if (replay_feed_cancelled(f))
				return -ECANCELED;
			nap(REPLAY_FEED_IDLE_NS);
		} while (head - (f->tail_seen = load_tail(f)) > f->cap / 2);
	}
	f->ring[head & (f->cap - 1)] = *rec;
	atomic_store_explicit(&f->head, head + 1, memory_order_release);
	return 0;
}

void replay_feed_finish(struct replay_feed *f, int status, const char *msg)
{
	if (status < 0)
		snprintf(f->err, sizeof(f->err), "%s", msg ? msg : strerror(-status));
	atomic_store_explicit(&f->status, status, memory_order_release);
}

/* The next record if there is one; else the final status, or -EAGAIN while running. */
static int try_get(struct replay_feed *f, uint64_t tail, struct trace_rec *rec)
{
	if (f->head_seen == tail && (f->head_seen = load_head(f)) == tail) {
		int st = atomic_load_explicit(&f->status, memory_order_acquire);
		if (!st)
			return -EAGAIN;
		/* the status follows the last put: look again before believing the end */
		if ((f->head_seen = load_head(f)) == tail)
			return st;
	}
	*rec = f->ring[tail & (f->cap - 1)];
	atomic_store_explicit(&f->tail, tail + 1, memory_order_release);
	return REPLAY_FEED_REC;
}

int replay_feed_get(struct replay_feed *f, struct trace_rec *rec, bool (*stop)(void *), void *arg)
{
	uint64_t tail = atomic_load_explicit(&f->tail, memory_order_relaxed);
	int rc = try_get(f, tail, rec);

	if (rc != -EAGAIN)
		return rc;
	f->waits++;
	for (unsigned i = 0; i < REPLAY_FEED_SPINS; i++) {
		cpu_relax();
		if ((rc = try_get(f, tail, rec)) != -EAGAIN)
			return rc;
	}
	for (;;) {
		if (stop && stop(arg))
			return REPLAY_FEED_STOPPED;
		nap(REPLAY_FEED_NAP_NS);
		if ((rc = try_get(f, tail, rec)) != -EAGAIN)
			return rc;
	}
}

bool replay_feed_ready(const struct replay_feed *f)
{
	uint64_t tail = atomic_load_explicit(&f->tail, memory_order_relaxed);

	return atomic_load_explicit(&f->status, memory_order_acquire) ||
	       atomic_load_explicit(&f->head, memory_order_acquire) - tail == f->cap;
}

void replay_feed_cancel(struct replay_feed *f)
{
	atomic_store_explicit(&f->cancel, true, memory_order_release);
}

const char *replay_feed_error(const struct replay_feed *f)
{
	return f->err;
}
