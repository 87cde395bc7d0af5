/*
 * engine_uring.c - io_uring through liburing: queue() fills a submission
 * entry, commit() is one io_uring_enter, getevents() reaps a batch from the
 * completion ring. Interrupt-driven, no SQPOLL, no registered buffers or
 * files, the defaults fio's io_uring engine uses. Discard completes
 * synchronously in queue(), as in the sync engine.
 */
#include "appio/engine.h"

#ifdef HAVE_LIBURING

#include <errno.h>
#include <liburing.h>
#include <stdbool.h>
#include <stdlib.h>

struct uring_data {
	struct io_uring ring;
	bool ready;                 /* ring set up: release must tear it down */
	unsigned ncqes;
	struct io_uring_cqe **cqes; /* one batch for io_uring_peek_batch_cqe */
};

static unsigned roundup_pow2(unsigned n)
{
	unsigned p = 1;

	while (p < n && p < (1u << 31))
		p <<= 1;
	return p;
}

static void uring_release(void *priv)
{
	struct uring_data *u = priv;

	if (u->ready)
		io_uring_queue_exit(&u->ring);
	free(u->cqes);
}

static int uring_init(void *priv, unsigned qd)
{
	struct uring_data *u = priv;
	unsigned entries = roundup_pow2(qd);
	int rc;

	if (qd == 0)
		return -EINVAL;
	u->cqes = calloc(entries, sizeof(*u->cqes));
	if (!u->cqes)
		return -ENOMEM;
	u->ncqes = entries;
	/*
	 * The set-up fio uses: task work runs only when this thread asks for
	 * completions, instead of interrupting it. Older kernels refuse the
	 * flags; fall back to a plain ring there.
	 */
	struct io_uring_params p = {
		.flags = IORING_SETUP_CQSIZE | IORING_SETUP_COOP_TASKRUN |
			 IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN,
		.cq_entries = entries,
	};
	rc = io_uring_queue_init_params(entries, &u->ring, &p);
	if (rc == -EINVAL)
		rc = io_uring_queue_init(entries, &u->ring, 0);
	if (rc < 0)
		return rc;
	u->ready = true;
	return 0;
}

static void uring_prep(struct io_uring_sqe *sqe, const struct io_req *r)
{
	if (r->op == IO_READ)
		io_uring_prep_read(sqe, r->fd, r->buf, r->len, r->off);
	else if (r->op == IO_WRITE)
		io_uring_prep_write(sqe, r->fd, r->buf, r->len, r->off);
	else
		io_uring_prep_fsync(sqe, r->fd,
				    r->op == IO_FDATASYNC ? IORING_FSYNC_DATASYNC : 0);
}

static int uring_queue(void *priv, struct io_req *r)
{
	struct uring_data *u = priv;
	struct io_uring_sqe *sqe;

	/* Decide before taking an entry: a taken entry is always submitted. */
	switch (r->op) {
	case IO_READ:
	case IO_WRITE:
	case IO_FSYNC:
	case IO_FDATASYNC:
		break;
	case IO_DISCARD:
		return engine_sync.queue(NULL, r);
	default:
		return -EINVAL;
	}
	sqe = io_uring_get_sqe(&u->ring);
	if (!sqe)
		return -EBUSY;
	uring_prep(sqe, r);
	io_uring_sqe_set_data(sqe, r);
	return ENGINE_QUEUED;
}

/*
 * One io_uring_enter normally. The kernel stops early after an entry it
 * rejects (the rejection arrives as a completion); submit the rest too, or
 * getevents would wait for requests that never left the ring.
 */
static int uring_commit(void *priv)
{
	struct uring_data *u = priv;

	while (io_uring_sq_ready(&u->ring)) {
		int rc = io_uring_submit(&u->ring);
		if (rc < 0 && rc != -EINTR && rc != -EAGAIN)
			return rc;
	}
	return 0;
}

static int uring_getevents(void *priv, unsigned min, unsigned max, struct io_req **done)
{
	struct uring_data *u = priv;
	struct io_uring_cqe *cqe;
	unsigned n;

	if (max > u->ncqes)
		max = u->ncqes;
	if (min > max)
		min = max;
	while (io_uring_cq_ready(&u->ring) < min) {
		int rc = io_uring_wait_cqe_nr(&u->ring, &cqe, min);
		if (rc < 0 && rc != -EINTR)
			return rc;
	}
	n = io_uring_peek_batch_cqe(&u->ring, u->cqes, max);
	for (unsigned i = 0; i < n; i++) {
		done[i] = io_uring_cqe_get_data(u->cqes[i]);
		done[i]->res = u->cqes[i]->res;
	}
	io_uring_cq_advance(&u->ring, n);
	return (int)n;
}

const struct engine_ops engine_io_uring = {
	.name = "io_uring",
	.desc = "io_uring, one io_uring_enter per batch",
	.priv_size = sizeof(struct uring_data),
	.init = uring_init,
	.release = uring_release,
	.queue = uring_queue,
	.commit = uring_commit,
	.getevents = uring_getevents,
};

#endif /* HAVE_LIBURING */
