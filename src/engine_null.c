/*
 * engine_null.c - completes every request at once without touching a device,
 * so a run with it measures appio's own cost per I/O (the bar is fio's null
 * engine). The hot path is a few stores into a ring of request pointers: no
 * system call, no allocation after init.
 */
#include <errno.h>
#include <stdlib.h>

#include "appio/engine.h"

/*
 * Free-running counters index a power-of-two ring; unsigned wrap-around keeps
 * the differences right. [head, committed) are complete, [committed, tail)
 * wait for commit().
 */
struct null_data {
	struct io_req **ring;
	unsigned mask;
	unsigned head;
	unsigned committed;
	unsigned tail;
};

static void null_release(void *priv)
{
	struct null_data *n = priv;

	free(n->ring);
}

static int null_init(void *priv, unsigned qd)
{
	struct null_data *n = priv;
	unsigned size = 1;

	if (qd == 0 || qd > (1u << 31))
		return -EINVAL;
	while (size < qd)
		size <<= 1;
	n->ring = calloc(size, sizeof(*n->ring));
	if (!n->ring)
		return -ENOMEM;
	n->mask = size - 1;
	return 0;
}

static int null_queue(void *priv, struct io_req *r)
{
	struct null_data *n = priv;

	if (n->tail - n->head > n->mask)
		return -EBUSY;
	r->res = r->len;
	n->ring[n->tail++ & n->mask] = r;
	return ENGINE_QUEUED;
}

static int null_commit(void *priv)
{
	struct null_data *n = priv;

	n->committed = n->tail;
	return 0;
}

/* Never blocks: @min is met whenever that many were committed. */
static int null_getevents(void *priv, unsigned min, unsigned max, struct io_req **done)
{
	struct null_data *n = priv;
	unsigned avail = n->committed - n->head;

	(void)min;
	if (avail > max)
		avail = max;
	for (unsigned i = 0; i < avail; i++)
		done[i] = n->ring[(n->head + i) & n->mask];
	n->head += avail;
	return (int)avail;
}

const struct engine_ops engine_null = {
	.name = "null",
	.desc = "no I/O: completes at once, measures appio's own overhead",
	.flags = ENGINE_NO_IO,
	.priv_size = sizeof(struct null_data),
	.init = null_init,
	.release = null_release,
	.queue = null_queue,
	.commit = null_commit,
	.getevents = null_getevents,
};
