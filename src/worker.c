/*
 * worker.c - a worker thread: the hot loop that keeps qd requests in flight
 * for block-level emulators, the step loop for transactional ones, and the
 * core services emulators call (emu_io, emu_record, ...).
 *
 * Hot-path rules: no allocation, no shared lock, no stdio. Everything a
 * worker touches per I/O lives in its own cache-line-aligned struct; the only
 * shared words it reads are t_end and stop (relaxed atomics, read-mostly).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "appio/emulator.h"
#include "fill.h"
#include "worker.h"
#include "appio/xalloc.h"

uint64_t emu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static struct worker *core_of(const struct emu_worker *w)
{
	return (struct worker *)w;      /* pub is the first member */
}

int worker_alloc(struct worker *w, struct point_ctx *pc, unsigned id)
{
	unsigned ncls = pc->ncls;
	const struct emu_run *er = pc->er;

	memset(w, 0, sizeof(*w));
	w->pc = pc;
	w->pub.id = id;
	w->pub.background = id >= pc->pt->threads;
	w->pub.pt = pc->pt;
	w->pub.run = er;
	w->pub.counters = w->counters;
	/*
	 * Streams: 2k for the emulator, 2k+1 for buffer contents, and a set of
	 * them per point. With one set for the run, worker k of every point
	 * drew what worker k drew in the points before: the second point at a
	 * thread count touched only the rows, pages and offsets the first had
	 * (no new pool misses or first changes since a checkpoint) and wrote
	 * the same buffers. A tool run once per point draws fresh numbers.
	 */
	uint64_t point = (uint64_t)pc->idx << 32;
	rng_seed(&w->pub.rng, er->seed, point + 2 * (uint64_t)id + 2);
	rng_seed(&w->fill_rng, er->seed, point + 2 * (uint64_t)id + 3);
	if (er->ops->worker_priv_size)
		w->pub.priv = xaligned(64, er->ops->worker_priv_size);

	w->hist = xaligned(64, ncls * sizeof(*w->hist));
	w->bytes = xcalloc(ncls, sizeof(*w->bytes));
	w->sizes = xcalloc(ncls, sizeof(*w->sizes));
	for (unsigned c = 0; c < ncls; c++)
		hist_init(&w->hist[c]);
	for (int i = 0; i < 2; i++)
		w->iv[i].c = xaligned(64, ncls * sizeof(struct ival_cls));

	w->qd = pc->pt->qd ? pc->pt->qd : 1;
	w->buf_size = (er->max_io + 4095) & ~(size_t)4095;
	if (!w->buf_size)
		w->buf_size = 4096;
	w->reqs = xcalloc(w->qd, sizeof(*w->reqs));
	w->free = xcalloc(w->qd, sizeof(*w->free));
	w->done = xcalloc(w->qd, sizeof(*w->done));
	w->batch = xcalloc(w->qd, sizeof(*w->batch));
	w->eng = pc->cfg->engine;
	w->rated = pc->cfg->rate && er->ops->next_io && !(er->ops->flags & EMU_SCHEDULED);
	w->base = er->target ? er->target->base : 0;
	w->bufs = xaligned(4096, w->qd * w->buf_size);
	for (unsigned i = 0; i < w->qd; i++) {
		w->reqs[i].slot = (uint16_t)i;
		w->reqs[i].buf = (char *)w->bufs + i * w->buf_size;
		w->reqs[i].fd = er->target ? er->target->fd : -1;
		w->free[w->nfree++] = &w->reqs[w->qd - 1 - i];
	}
	fill_random(&w->fill_rng, w->bufs, w->qd * w->buf_size);

	if (pc->cfg->engine && pc->cfg->engine->priv_size)
		w->eng_priv = xaligned(64, pc->cfg->engine->priv_size);
	return 0;
}

void worker_release(struct worker *w)
{
	free(w->pub.priv);
	free(w->hist);
	free(w->bytes);
	free(w->sizes);
	free(w->iv[0].c);
	free(w->iv[1].c);
	free(w->reqs);
	free(w->free);
	free(w->done);
	free(w->batch);
	free(w->bufs);
	free(w->eng_priv);
}

void worker_ival_return(struct ival *iv, unsigned ncls)
{
	memset(iv->c, 0, ncls * sizeof(*iv->c));
	atomic_store_explicit(&iv->sealed, 0, memory_order_release);
}

/* Cold path: the completion at @t belongs to a later second than the buffer. */
static void roll(struct worker *w, uint64_t t)
{
	int64_t sec = (int64_t)((t - w->t_measure) / NSEC);
	struct ival *cur = &w->iv[w->cur];
	struct ival *other = &w->iv[w->cur ^ 1];

	if (!atomic_load_explicit(&other->sealed, memory_order_acquire)) {
		cur->sec = w->cur_sec;
		atomic_store_explicit(&cur->sealed, 1, memory_order_release);
		w->cur ^= 1;
		w->cur_sec = sec;
		w->next_boundary = w->t_measure + (uint64_t)(sec + 1) * NSEC;
	} else {
		/* the runner has not given the other buffer back: try again soon */
		w->next_boundary = t + NSEC / 1000;
	}
}

/* Does a sample ending at @t fall in the measured window? */
static inline bool in_window(const struct worker *w, uint64_t t)
{
	return t >= w->t_measure &&
	       t < atomic_load_explicit(&w->pc->t_end, memory_order_relaxed);
}

/* Add one sample to the histograms and to the second being filled. */
static inline void add_sample(struct worker *w, unsigned cls, uint64_t lat, uint64_t bytes)
{
	hist_record(&w->hist[cls], lat);
	struct ival_cls *ic = &w->iv[w->cur].c[cls];
	ic->ops++;
	ic->bytes += bytes;
	ic->sum_ns += lat;
	if (lat > ic->max_ns)
		ic->max_ns = lat;
	ic->b[lat > HIST_MAX_NS ? HIST_BUCKETS - 1 : hist_index(lat)]++;
	if (bytes) {
		w->bytes[cls] += bytes;
		w->sizes[cls][63 - __builtin_clzll(bytes)]++;
	}
}

/* Account one finished operation of class @cls, latency @lat, ending at @t. */
static inline void account(struct worker *w, unsigned cls, uint64_t lat,
			   uint64_t bytes, uint64_t t)
{
	if (!in_window(w, t))
		return;
	if (t >= w->next_boundary)
		roll(w, t);
	add_sample(w, cls, lat, bytes);
}

static bool stopping(const struct worker *w, uint64_t now)
{
	return now >= atomic_load_explicit(&w->pc->t_end, memory_order_relaxed) ||
	       atomic_load_explicit(&w->pc->stop, memory_order_relaxed);
}

int emu_fail(struct emu_worker *ew, int rc, const char *fmt, ...)
{
	struct point_ctx *pc = core_of(ew)->pc;
	int expected = 0;

	if (atomic_compare_exchange_strong(&pc->failed, &expected, rc ? rc : -EIO)) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(pc->err, sizeof(pc->err), fmt, ap);
		va_end(ap);
	}
	/* the measured window ends here, as on an interrupt, so rates count real time */
	uint64_t now = emu_now(), end = atomic_load(&pc->t_end);
	while (now < end && !atomic_compare_exchange_weak(&pc->t_end, &end, now))
		;
	atomic_store(&pc->stop, true);
	return rc;
}

bool emu_stopping(const struct emu_worker *ew)
{
	const struct worker *w = core_of(ew);
	return stopping(w, emu_now());
}

void emu_fill(struct emu_worker *ew, void *buf, uint32_t len)
{
	fill_refresh(&core_of(ew)->fill_rng, buf, len);
}

void *emu_buf(struct emu_worker *ew, unsigned i)
{
	struct worker *w = core_of(ew);
	return (char *)w->bufs + (size_t)(i % w->qd) * w->buf_size;
}

void emu_record_span(struct emu_worker *ew, unsigned cls, uint64_t t_start,
		     uint64_t t_end, uint64_t bytes)
{
	account(core_of(ew), cls, t_end - t_start, bytes, t_end);
}

void emu_record(struct emu_worker *ew, unsigned cls, uint64_t t_start, uint64_t bytes)
{
	emu_record_span(ew, cls, t_start, emu_now(), bytes);
}

void emu_record_group(struct emu_worker *ew, const struct emu_sample *s, unsigned n, uint64_t t)
{
	struct worker *w = core_of(ew);

	/* one window test and one roll for all: t_end may drop between two reads */
	if (!in_window(w, t))
		return;
	if (t >= w->next_boundary)
		roll(w, t);
	for (unsigned i = 0; i < n; i++)
		add_sample(w, s[i].cls, s[i].lat_ns, s[i].bytes);
}

static int io_error(struct worker *w, const struct io_req *r)
{
	const struct target *t = w->pc->er->target;
	const char *path = t ? t->path : "?";

	if (r->res >= 0)
		return emu_fail(&w->pub, -EIO, "short %s at offset %llu of '%s': %lld of %u bytes",
				io_op_name(r->op), (unsigned long long)r->off, path,
				(long long)r->res, r->len);
	return emu_fail(&w->pub, (int)r->res, "%s of %u bytes at offset %llu of '%s' failed: %s",
			io_op_name(r->op), r->len, (unsigned long long)r->off, path,
			strerror((int)-r->res));
}

static bool io_ok(const struct io_req *r)
{
	return r->op >= IO_FSYNC ? r->res >= 0 : r->res == (int64_t)r->len;
}

/* The file behind @fd, for a message: the target's path, else what /proc says. */
static const char *fd_name(const struct worker *w, int fd, char *buf, size_t len)
{
	const struct target *t = w->pc->er->target;
	char link[64];

	if (t && t->fd == fd)
		return t->path;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, buf, len - 1);
	if (n <= 0)
		return t ? t->path : "?";
	buf[n] = '\0';
	return buf;
}

/*
 * A failed emu_io(): one message of the same form for every emulator (the
 * operation, its offset, the file and the errno text). The first failure
 * of a point is the one reported; an emulator's own emu_fail() after it
 * adds nothing.
 */
static int64_t io_call_failed(struct worker *w, const struct io_req *r, int rc)
{
	char name[512];
	const char *path = fd_name(w, r->fd, name, sizeof(name));

	if (r->op != IO_READ && r->op != IO_WRITE)
		return emu_fail(&w->pub, rc, "%s of '%s' failed: %s", io_op_name(r->op), path,
				strerror(-rc));
	return emu_fail(&w->pub, rc, "%s of %u bytes at offset %llu of '%s' failed: %s",
			io_op_name(r->op), r->len, (unsigned long long)r->off, path, strerror(-rc));
}

int64_t emu_io(struct emu_worker *ew, unsigned cls, unsigned op, int fd,
	       void *buf, uint32_t len, uint64_t off)
{
	struct worker *w = core_of(ew);
	struct io_req r = { .buf = buf, .off = off, .len = len, .op = (uint8_t)op, .fd = fd };
	struct io_req *done;

	if (op == IO_WRITE)
		emu_fill(ew, buf, len);
	r.t_start = emu_now();
	/* An application's fsync blocks the thread that calls it, which on a
	   busy machine waits for a CPU after its pages are written and again
	   after the cache flush; an asynchronous engine runs the whole flush in
	   a kernel worker and wakes the caller once. So flushes are system calls
	   here whatever the engine (measured with PostgreSQL's WAL at 16 threads
	   on 2 CPUs: 0.92 ms a fdatasync, of which the device took 0.2). */
	const bool flush = op == IO_FSYNC || op == IO_FDATASYNC;
	int rc = flush && !(w->eng->flags & ENGINE_NO_IO) ? engine_sync.queue(NULL, &r)
							   : w->eng->queue(w->eng_priv, &r);
	if (rc == ENGINE_QUEUED) {
		rc = w->eng->commit(w->eng_priv);
		if (!rc)
			rc = w->eng->getevents(w->eng_priv, 1, 1, &done);
		if (rc > 0)
			rc = 0;
	}
	if (rc < 0)
		return io_call_failed(w, &r, rc);
	if (r.res < 0)
		return io_call_failed(w, &r, (int)r.res);
	uint64_t t = emu_now();
	account(w, cls, t - r.t_start, op <= IO_WRITE && r.res > 0 ? (uint64_t)r.res : 0, t);
	return r.res;
}

/* Check and account a finished request, and put it back on the free list. */
static int complete(struct worker *w, struct io_req *r, uint64_t t)
{
	const struct emu_ops *emu = w->pc->er->ops;

	if (!io_ok(r))
		return io_error(w, r);
	r->off -= w->base;      /* the emulator sees its own offsets again */
	if (w->rated) {         /* --rate: from the intended start, waits included */
		account(w, r->cls, t - r->t_intended, r->op <= IO_WRITE ? r->len : 0, t);
		if (emu->complete_io)
			emu->complete_io(&w->pub, r, t);
		w->free[w->nfree++] = r;
		return 0;
	}
	account(w, r->cls, t - r->t_start, r->op <= IO_WRITE ? r->len : 0, t);
	if (r->t_intended) {    /* scheduled: response and lag classes (emulator.h) */
		unsigned n = w->pc->ncls / 3;
		account(w, r->cls + n, t - r->t_intended, 0, t);
		account(w, r->cls + 2 * n, r->t_start - r->t_intended, 0, t);
	}
	if (emu->complete_io)
		emu->complete_io(&w->pub, r, t);
	w->free[w->nfree++] = r;
	return 0;
}

/* Reap at least @min completions and account them. */
static int reap(struct worker *w, unsigned min)
{
	int n = w->eng->getevents(w->eng_priv, min, w->qd, w->done);
	if (n < 0)
		return emu_fail(&w->pub, n, "waiting for I/O completions failed: %s", strerror(-n));
	uint64_t t = w->now = emu_now();
	w->inflight -= (unsigned)n;
	for (int i = 0; i < n; i++) {
		int rc = complete(w, w->done[i], t);
		if (rc)
			return rc;
	}
	return 0;
}

/* Describe, fill and queue one request. 1: the emulator has no more I/O. */
static int issue_one(struct worker *w, const struct emu_ops *emu, unsigned *queued)
{
	struct io_req *r = w->free[--w->nfree];
	int rc = emu->next_io(&w->pub, r);
	if (rc) {
		w->free[w->nfree++] = r;
		return rc;
	}
	r->off += w->base;
	if (r->op == IO_WRITE)
		emu_fill(&w->pub, r->buf, r->len);
	if (w->eng->flags & ENGINE_SYNC) {
		r->t_start = emu_now();
		rc = w->eng->queue(w->eng_priv, r);
		w->now = emu_now();
		if (rc < 0)
			return emu_fail(&w->pub, rc, "%s failed: %s", io_op_name(r->op), strerror(-rc));
		return complete(w, r, w->now);
	}
	r->t_start = w->now;    /* restamped at commit; kept if queue() completes it */
	rc = w->eng->queue(w->eng_priv, r);
	if (rc < 0)
		return emu_fail(&w->pub, rc, "queueing a %s failed: %s", io_op_name(r->op), strerror(-rc));
	if (rc == ENGINE_COMPLETED)     /* an async engine may complete some ops at once */
		return complete(w, r, w->now = emu_now());
	w->batch[(*queued)++] = r;
	w->inflight++;
	return 0;
}

/*
 * Submit what is queued, stamped with the submission time. Small batches:
 * one system call for the whole queue depth saves CPU but hands the device
 * qd requests at once, and on the virtual disks measured that lowered IOPS
 * by about 10% against submitting as requests are ready; SUBMIT_BATCH
 * requests per call kept the throughput and most of the CPU saving.
 */
#define SUBMIT_BATCH 4

static int submit(struct worker *w, unsigned *queued)
{
	uint64_t t = emu_now();
	for (unsigned i = 0; i < *queued; i++)
		w->batch[i]->t_start = t;
	*queued = 0;
	int rc = w->eng->commit(w->eng_priv);
	if (rc < 0)
		return emu_fail(&w->pub, rc, "submitting I/O failed: %s", strerror(-rc));
	return 0;
}

/* Block-level loop: keep qd requests in flight, submitted in small batches. */
static int loop_async(struct worker *w)
{
	const struct emu_ops *emu = w->pc->er->ops;
	bool exhausted = false;

	for (;;) {
		bool stop = exhausted || stopping(w, w->now);
		if (!stop) {
			unsigned queued = 0;
			while (w->nfree && !exhausted) {
				int rc = issue_one(w, emu, &queued);
				if (rc < 0)
					return rc;
				if (rc > 0)
					exhausted = true;
				if (queued == SUBMIT_BATCH && (rc = submit(w, &queued)) < 0)
					return rc;
				if (w->eng->flags & ENGINE_SYNC && stopping(w, w->now))
					break;
			}
			if (queued) {
				int rc = submit(w, &queued);
				if (rc < 0)
					return rc;
			}
		}
		if (!w->inflight) {
			if (stop)
				return 0;
			continue;
		}
		int rc = reap(w, 1);
		if (rc < 0)
			return rc;
	}
}

/*
 * Scheduled loop (EMU_SCHEDULED). Each request is submitted alone, the moment
 * it is due, so its submission time is its own; completions are reaped
 * without blocking while waiting, and blocking only at the in-flight cap.
 */
#define SCHED_POLL_NS  20000ULL         /* longest sleep with requests in flight */
#define SCHED_IDLE_NS  10000000ULL      /* longest sleep without: to see a stop */

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { .tv_sec = (time_t)(ns / NSEC), .tv_nsec = (long)(ns % NSEC) };
	nanosleep(&ts, NULL);   /* an early return (a signal) only means another look */
}

/* Wait until @due; 1 when the run stops first. */
static int wait_until(struct worker *w, uint64_t due, uint64_t spin)
{
	for (;;) {
		uint64_t now = w->now = emu_now();
		if (now >= due)
			return 0;
		if (stopping(w, now))
			return 1;
		if (w->inflight) {
			int rc = reap(w, 0);
			if (rc < 0)
				return rc;
		}
		uint64_t left = due - now;
		if (left > spin) {
			uint64_t nap = left - spin, most = w->inflight ? SCHED_POLL_NS : SCHED_IDLE_NS;
			sleep_ns(nap < most ? nap : most);
		}
	}
}

/* Submit one described request now. */
static int submit_now(struct worker *w, struct io_req *r)
{
	r->off += w->base;
	if (r->op == IO_WRITE)
		emu_fill(&w->pub, r->buf, r->len);
	r->t_start = emu_now();
	int rc = w->eng->queue(w->eng_priv, r);
	if (rc < 0)
		return emu_fail(&w->pub, rc, "queueing a %s failed: %s", io_op_name(r->op), strerror(-rc));
	if (rc == ENGINE_COMPLETED)
		return complete(w, r, w->now = emu_now());
	w->inflight++;
	rc = w->eng->commit(w->eng_priv);
	if (rc < 0)
		return emu_fail(&w->pub, rc, "submitting I/O failed: %s", strerror(-rc));
	return 0;
}

/*
 * The end of a scheduled or rate-limited loop: reap what is still in flight.
 * The loop's error (@rc < 0) outlives a clean drain; its "done" (> 0) is 0.
 */
static int drain(struct worker *w, int rc)
{
	while (w->inflight) {
		int r = reap(w, 1);
		if (r < 0)
			return r;
	}
	return rc < 0 ? rc : 0;
}

static int loop_sched(struct worker *w)
{
	const struct emu_ops *emu = w->pc->er->ops;
	uint64_t spin = w->pc->er->spin_ns ? w->pc->er->spin_ns : 50000;
	int rc = 0;

	/* the default 50 us of timer slack would eat the spin window: wake on time */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	while (!stopping(w, w->now = emu_now())) {
		if (!w->nfree) {
			w->pub.cap_waits++;
			if ((rc = reap(w, 1)) < 0)
				return rc;
			continue;
		}
		struct io_req *r = w->free[--w->nfree];
		r->t_intended = 0;
		w->pub.inflight_limit = 0;
		rc = emu->next_io(&w->pub, r);
		while (!rc && w->pub.inflight_limit && w->inflight >= w->pub.inflight_limit)
			rc = reap(w, 1);
		if (!rc && r->t_intended)
			rc = wait_until(w, r->t_intended, spin);
		if (rc) {
			w->free[w->nfree++] = r;
			break;
		}
		if ((rc = submit_now(w, r)) < 0)
			return rc;
		if (w->inflight && (rc = reap(w, 0)) < 0)
			return rc;
	}
	return drain(w, rc);
}

/*
 * --events (or the emulator's point_events()): is the point's work spent?
 * One relaxed add per measured step, shared by the foreground workers, so
 * that exactly max_events steps begin in the measured time (steps of the
 * warm-up do not count).
 */
static bool events_spent(struct worker *w, uint64_t now)
{
	uint64_t limit = w->pc->max_events;

	return limit && !w->pub.background && now >= w->t_measure &&
	       atomic_fetch_add_explicit(&w->pc->events, 1, memory_order_relaxed) >= limit;
}

/*
 * Rate-limited loop (--rate, run_config.rate): the schedule is fixed in
 * advance and independent of completions (wrk2's and pgbench's method). A
 * request that is due while all qd slots are busy waits for one, and the
 * wait counts in its latency; a worker that falls behind issues at once
 * until it has caught up with the schedule, so the rate holds over the point.
 */
static int loop_rate(struct worker *w)
{
	const struct emu_ops *emu = w->pc->er->ops;
	double step = (double)NSEC / (double)w->pc->cfg->rate;
	double stride = (double)w->pc->pt->threads;
	int rc = 0;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (uint64_t k = 0;; k++) {
		uint64_t due = w->pub.t0 + (uint64_t)(((double)k * stride + w->pub.id) * step);
		if ((rc = wait_until(w, due, 50000)) != 0)
			break;
		while (!w->nfree && !rc) {
			w->pub.cap_waits++;
			rc = reap(w, 1);
		}
		if (rc < 0)
			return rc;
		if (stopping(w, w->now))
			break;
		struct io_req *r = w->free[--w->nfree];
		if ((rc = emu->next_io(&w->pub, r)) != 0) {
			w->free[w->nfree++] = r;
			break;
		}
		r->t_intended = due;
		if ((rc = submit_now(w, r)) < 0)
			return rc;
		if (w->inflight && (rc = reap(w, 0)) < 0)
			return rc;
	}
	return drain(w, rc);
}

/* One step() of a foreground or background worker; < 0 failed, 1 no more work. */
static int do_step(struct worker *w, int (*step)(struct emu_worker *))
{
	int rc = step(&w->pub);

	if (rc < 0) {
		if (!atomic_load(&w->pc->failed))
			emu_fail(&w->pub, rc, "%s: %s", w->pc->er->ops->name, strerror(-rc));
		return rc;
	}
	if (!rc && !w->pub.background && in_window(w, emu_now()))
		w->events++;
	return rc;
}

/* Transactional and background loop: one step at a time until the stop. */
static int loop_step(struct worker *w, int (*step)(struct emu_worker *))
{
	uint64_t now;

	while (!stopping(w, now = emu_now()) && !events_spent(w, now)) {
		int rc = do_step(w, step);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	return 0;
}

/*
 * Rate-limited transactional loop (--rate on an EMU_RATE emulator): units
 * of work start at cfg->rate a second over all the point's foreground
 * workers, evenly spaced from the point's start, as sysbench's --rate
 * (which spaces them at random, exponentially). A worker that is free takes
 * the next intended start from one shared counter, waits for it, and calls
 * step() with it in t_due; when that start has passed (every worker was
 * busy) it calls step() at once and the unit's latency, taken from its
 * intended start, includes the wait.
 *
 * One atomic counter rather than a schedule per worker: with per-worker
 * schedules a worker held up by one long unit (a TPC-C delivery, a group
 * commit, a merge holding a lock) falls behind on its own starts while the
 * other workers idle, so the point misses its rate (the backlog that is
 * left at the end) and charges the waits to starts another worker could
 * have served; from one counter the next start goes to whichever worker is
 * free first, a single queue as in sysbench, and the rate holds whenever
 * the workers together keep up. The counter costs one relaxed atomic add
 * per unit of work, which is microseconds to milliseconds long.
 */
#define STEP_SPIN_NS 20000ULL   /* spin this long before a start: the wake-up is late by less */

static int loop_step_rate(struct worker *w, int (*step)(struct emu_worker *))
{
	double gap = (double)NSEC / (double)w->pc->cfg->rate;
	int rc = 0;

	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	for (;;) {
		uint64_t k = atomic_fetch_add_explicit(&w->pc->starts, 1, memory_order_relaxed);
		uint64_t due = w->pub.t0 + (uint64_t)((double)k * gap);
		if ((rc = wait_until(w, due, STEP_SPIN_NS)) != 0 || stopping(w, w->now) ||
		    events_spent(w, w->now))
			break;
		w->pub.t_due = due;
		rc = do_step(w, step);
		w->pub.t_due = 0;
		if (rc)
			break;
	}
	return rc < 0 ? rc : 0;
}

/*
 * A foreground worker is done (its emulator ran out of work, or the run
 * stopped): when it is the last one, the point ends now rather than at the
 * end of --time, so that rates count the time work was done.
 */
static void foreground_done(struct point_ctx *pc)
{
	if (atomic_fetch_add(&pc->fg_done, 1) + 1 < pc->pt->threads)
		return;
	uint64_t now = emu_now(), end = atomic_load(&pc->t_end);
	while (now < end && !atomic_compare_exchange_weak(&pc->t_end, &end, now))
		;
	atomic_store(&pc->stop, true);
}

void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct point_ctx *pc = w->pc;
	const struct emu_ops *emu = pc->er->ops;
	int rc = 0;

	if (w->eng && w->eng->init)
		rc = w->eng->init(w->eng_priv, w->qd);
	if (rc)
		emu_fail(&w->pub, rc, "engine '%s' could not start: %s", w->eng->name, strerror(-rc));
	else if (emu->worker_init && (rc = emu->worker_init(&w->pub)) != 0 && !atomic_load(&pc->failed))
		emu_fail(&w->pub, rc, "%s: worker set-up failed: %s", emu->name, strerror(-rc));
	bool inited = rc == 0;

	pthread_mutex_lock(&pc->gate_lock);
	pc->gate_ready++;
	pthread_cond_broadcast(&pc->gate_cv);
	while (!pc->gate_go)
		pthread_cond_wait(&pc->gate_cv, &pc->gate_lock);
	pthread_mutex_unlock(&pc->gate_lock);
	w->t_measure = pc->t_measure;
	w->next_boundary = pc->t_measure + NSEC;
	w->pub.t0 = pc->t_start;
	w->now = emu_now();
	if (inited && !atomic_load(&pc->failed))
		rc = w->pub.background ? loop_step(w, emu->bg_step) :
		     emu->step ? (pc->cfg->rate ? loop_step_rate : loop_step)(w, emu->step) :
		     emu->flags & EMU_SCHEDULED ? loop_sched(w) : w->rated ? loop_rate(w) :
		     loop_async(w);
	if (!w->pub.background)
		foreground_done(pc);
	/* drain what is still in flight so the engine can be torn down */
	while (w->inflight && reap(w, w->inflight) == 0)
		;
	if (inited && emu->worker_fini)
		emu->worker_fini(&w->pub);
	if (w->eng && w->eng->release)
		w->eng->release(w->eng_priv);
	w->rc = rc;
	return NULL;
}
