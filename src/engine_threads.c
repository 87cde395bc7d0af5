/*
 * engine_threads.c - every request in flight on a blocking thread of its own
 * (pread, pwrite, fsync, fdatasync, discard), as a database's threads each
 * wait on the read of the page they need. An asynchronous engine keeps a
 * queue full from one thread; the device under it then meets requests from a
 * submitter that never sleeps. An application's blocking reads come from
 * threads that sleep until their read is back, and on a virtual machine that
 * alone made a RAM loop device's 16 KiB reads 12-17 us slower at the median
 * (docs/traces.md): replaying such an application's trace this way gives the
 * device what the application gave it.
 *
 * init() starts qd threads; queue() gives a request to an idle one, commit()
 * wakes them, each does the blocking call and posts its index to a ring of
 * completions that getevents() drains. The hand-offs are futexes on words
 * shared only by one worker and its own threads: nothing is allocated and no
 * lock is taken per request.
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "appio/engine.h"

#define THREADS_MAX   4096            /* qd bound: a thread each */
#define THREAD_STACK  (256 * 1024)    /* one system call at a time; room for the sanitizers */

struct io_thread {
	_Atomic uint32_t go;            /* futex: bumped by the worker to hand over req */
	struct io_req *req;
	struct threads_data *d;
	pthread_t tid;
	unsigned idx;
	bool started;
} __attribute__((aligned(64)));

/* A completion: the thread's index, valid once seq is the ring position + 1. */
struct done_ent {
	_Atomic uint32_t seq;
	uint32_t idx;
};

struct threads_data {
	unsigned qd, mask;
	struct io_thread *t;            /* qd */
	unsigned *idle, nidle;          /* worker only: threads free for a request */
	unsigned *pending, npending;    /* worker only: given a request, not yet woken */
	struct done_ent *ring;          /* mask + 1 >= qd: never more entries than threads */
	uint32_t head;                  /* worker only: the next position to take */
	_Atomic uint32_t tail;          /* the next position a thread takes */
	_Atomic uint32_t ndone;         /* futex: completions posted */
	_Atomic uint32_t waiting;       /* the worker sleeps (or is about to) on ndone */
	_Atomic bool quit;
};

static void futex_wait(_Atomic uint32_t *word, uint32_t val)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAIT_PRIVATE, val, NULL, NULL, 0);
}

static void futex_wake(_Atomic uint32_t *word)
{
	syscall(SYS_futex, (uint32_t *)word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

/* A thread's completion: into the ring, then the worker woken if it sleeps. */
static void post(struct threads_data *d, unsigned idx)
{
	uint32_t pos = atomic_fetch_add(&d->tail, 1);
	struct done_ent *e = &d->ring[pos & d->mask];

	e->idx = idx;
	atomic_store_explicit(&e->seq, pos + 1, memory_order_release);
	atomic_fetch_add(&d->ndone, 1);
	if (atomic_load(&d->waiting))
		futex_wake(&d->ndone);
}

static void *io_thread_main(void *arg)
{
	struct io_thread *t = arg;
	uint32_t seen = 0;

	for (;;) {
		uint32_t go;
		while ((go = atomic_load_explicit(&t->go, memory_order_acquire)) == seen)
			futex_wait(&t->go, seen);
		seen = go;
		if (atomic_load(&t->d->quit))
			return NULL;
		engine_sync.queue(NULL, t->req);        /* completes it: res set */
		post(t->d, t->idx);
	}
}

static void threads_release(void *priv)
{
	struct threads_data *d = priv;

	atomic_store(&d->quit, true);
	for (unsigned i = 0; d->t && i < d->qd; i++) {
		if (!d->t[i].started)
			continue;
		atomic_fetch_add_explicit(&d->t[i].go, 1, memory_order_release);
		futex_wake(&d->t[i].go);
		pthread_join(d->t[i].tid, NULL);
	}
	free(d->t);
	free(d->idle);
	free(d->pending);
	free(d->ring);
}

static int threads_init(void *priv, unsigned qd)
{
	struct threads_data *d = priv;
	pthread_attr_t attr;
	unsigned size = 1;
	int rc = 0;

	if (qd == 0 || qd > THREADS_MAX)
		return -EINVAL;
	while (size < qd)
		size <<= 1;
	d->qd = qd;
	d->mask = size - 1;
	if (posix_memalign((void **)&d->t, 64, qd * sizeof(*d->t))) {
		d->t = NULL;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < qd; i++)      /* before anything can fail: release() reads them */
		d->t[i] = (struct io_thread){ .d = d, .idx = i };
	d->idle = calloc(qd, sizeof(*d->idle));
	d->pending = calloc(qd, sizeof(*d->pending));
	d->ring = calloc(size, sizeof(*d->ring));
	if (!d->idle || !d->pending || !d->ring)
		return -ENOMEM;
	for (unsigned i = 0; i < qd; i++)
		d->idle[d->nidle++] = qd - 1 - i;       /* thread 0 taken first */
	if (pthread_attr_init(&attr))
		return -ENOMEM;
	pthread_attr_setstacksize(&attr, THREAD_STACK > PTHREAD_STACK_MIN ? THREAD_STACK
									: PTHREAD_STACK_MIN);
	for (unsigned i = 0; i < qd && !rc; i++) {
		rc = -pthread_create(&d->t[i].tid, &attr, io_thread_main, &d->t[i]);
		d->t[i].started = rc == 0;
	}
	pthread_attr_destroy(&attr);
	return rc;
}

static int threads_queue(void *priv, struct io_req *r)
{
	struct threads_data *d = priv;

	if (!d->nidle)
		return -EBUSY;
	unsigned idx = d->idle[--d->nidle];
	d->t[idx].req = r;
	d->pending[d->npending++] = idx;
	return ENGINE_QUEUED;
}

static int threads_commit(void *priv)
{
	struct threads_data *d = priv;

	for (unsigned i = 0; i < d->npending; i++) {
		struct io_thread *t = &d->t[d->pending[i]];
		atomic_fetch_add_explicit(&t->go, 1, memory_order_release);
		futex_wake(&t->go);
	}
	d->npending = 0;
	return 0;
}

/* Take up to @max posted completions into @done from position @got on. */
static unsigned take(struct threads_data *d, unsigned got, unsigned max, struct io_req **done)
{
	while (got < max) {
		struct done_ent *e = &d->ring[d->head & d->mask];
		if (atomic_load_explicit(&e->seq, memory_order_acquire) != d->head + 1)
			break;
		done[got++] = d->t[e->idx].req;
		d->idle[d->nidle++] = e->idx;
		d->head++;
	}
	return got;
}

/*
 * Sleeping on ndone: the worker raises waiting, then looks at the ring again,
 * and sleeps only if ndone is still what it read before. A thread posts its
 * entry, bumps ndone and then reads waiting, so either the worker sees the
 * entry, or the futex sees ndone changed, or the thread sees waiting.
 */
static int threads_getevents(void *priv, unsigned min, unsigned max, struct io_req **done)
{
	struct threads_data *d = priv;
	unsigned got = 0;

	for (;;) {
		got = take(d, got, max, done);
		if (got >= min || got == max)
			return (int)got;
		uint32_t seen = atomic_load(&d->ndone);
		atomic_store(&d->waiting, 1);
		struct done_ent *e = &d->ring[d->head & d->mask];
		if (atomic_load(&e->seq) != d->head + 1)
			futex_wait(&d->ndone, seen);
		atomic_store(&d->waiting, 0);
	}
}

const struct engine_ops engine_threads = {
	.name = "threads",
	.desc = "a blocking thread per request in flight (pread/pwrite), as an application's "
		"threads wait on their reads; --qd threads per worker",
	.priv_size = sizeof(struct threads_data),
	.init = threads_init,
	.release = threads_release,
	.queue = threads_queue,
	.commit = threads_commit,
	.getevents = threads_getevents,
};
