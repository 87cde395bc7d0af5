/*
 * engine_libaio.c - Linux native AIO (io_submit / io_getevents), the interface
 * InnoDB uses for its O_DIRECT data files. queue() only prepares an iocb;
 * commit() hands the whole batch to one io_submit. Discard has no AIO command,
 * so it completes synchronously in queue(), as in the sync engine.
 */
#include "appio/engine.h"

#ifdef HAVE_LIBAIO

#include <errno.h>
#include <libaio.h>
#include <limits.h>
#include <stdlib.h>

struct libaio_data {
	io_context_t ctx;
	unsigned qd;
	unsigned nqueued;        /* iocbs prepared since the last commit */
	unsigned nfailed;        /* requests io_submit refused, for getevents */
	struct iocb *iocbs;      /* qd; reusable once submitted (the kernel copies them) */
	struct iocb **iocbp;     /* iocbp[i] = &iocbs[i], io_submit's argument */
	struct io_event *events; /* qd */
	struct io_req **failed;  /* qd */
};

static void libaio_release(void *priv)
{
	struct libaio_data *a = priv;

	if (a->ctx)
		io_destroy(a->ctx);
	free(a->iocbs);
	free(a->iocbp);
	free(a->events);
	free(a->failed);
}

static int libaio_init(void *priv, unsigned qd)
{
	struct libaio_data *a = priv;

	if (qd == 0 || qd > INT_MAX)
		return -EINVAL;
	a->qd = qd;
	a->iocbs = calloc(qd, sizeof(*a->iocbs));
	a->iocbp = calloc(qd, sizeof(*a->iocbp));
	a->events = calloc(qd, sizeof(*a->events));
	a->failed = calloc(qd, sizeof(*a->failed));
	if (!a->iocbs || !a->iocbp || !a->events || !a->failed)
		return -ENOMEM;
	for (unsigned i = 0; i < qd; i++)
		a->iocbp[i] = &a->iocbs[i];
	return io_setup((int)qd, &a->ctx);
}

static int libaio_queue(void *priv, struct io_req *r)
{
	struct libaio_data *a = priv;
	struct iocb *cb;

	if (r->op == IO_DISCARD)
		return engine_sync.queue(NULL, r);
	if (a->nqueued == a->qd)
		return -EBUSY;
	cb = &a->iocbs[a->nqueued];
	switch (r->op) {
	case IO_READ:
		io_prep_pread(cb, r->fd, r->buf, r->len, (long long)r->off);
		break;
	case IO_WRITE:
		io_prep_pwrite(cb, r->fd, r->buf, r->len, (long long)r->off);
		break;
	case IO_FSYNC:
		io_prep_fsync(cb, r->fd);
		break;
	case IO_FDATASYNC:
		io_prep_fdsync(cb, r->fd);
		break;
	default:
		return -EINVAL;
	}
	cb->data = r;
	a->nqueued++;
	return ENGINE_QUEUED;
}

/*
 * io_submit stops at the first iocb it refuses and reports that iocb's error
 * only if it is the first of the call. Such a request completes through
 * getevents with that error, and the rest of the batch is submitted.
 */
static int libaio_commit(void *priv)
{
	struct libaio_data *a = priv;
	unsigned done = 0;

	while (done < a->nqueued) {
		int n = io_submit(a->ctx, (long)(a->nqueued - done), a->iocbp + done);
		if (n == -EINTR || n == -EAGAIN)
			continue;
		if (n < 0) {
			struct io_req *r = a->iocbs[done].data;
			r->res = n;
			a->failed[a->nfailed++] = r;
			n = 1;
		}
		done += (unsigned)n;
	}
	a->nqueued = 0;
	return 0;
}

static int libaio_getevents(void *priv, unsigned min, unsigned max, struct io_req **done)
{
	struct libaio_data *a = priv;
	unsigned got = 0, want, need;
	int n;

	while (a->nfailed && got < max)
		done[got++] = a->failed[--a->nfailed];
	if (got && got >= min)
		return (int)got;
	want = max - got < a->qd ? max - got : a->qd;
	if (!want)
		return (int)got;
	need = min > got ? min - got : 0;
	if (need > want)
		need = want;
	do
		n = io_getevents(a->ctx, need, want, a->events, NULL);
	while (n == -EINTR);
	if (n < 0)
		return n;
	for (int i = 0; i < n; i++) {
		struct io_req *r = a->events[i].data;
		r->res = (long)a->events[i].res;
		done[got++] = r;
	}
	return (int)got;
}

const struct engine_ops engine_libaio = {
	.name = "libaio",
	.desc = "Linux native AIO, one io_submit per batch",
	.priv_size = sizeof(struct libaio_data),
	.init = libaio_init,
	.release = libaio_release,
	.queue = libaio_queue,
	.commit = libaio_commit,
	.getevents = libaio_getevents,
};

#endif /* HAVE_LIBAIO */
