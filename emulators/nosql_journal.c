/*
 * nosql_journal.c - group commit (see nosql_journal.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "appio/cond.h"
#include "appio/xalloc.h"
#include "nosql_journal.h"

#define WAIT_NS 10000000L       /* a waiter looks at the stop flag this often */

int nosql_journal_init(struct nosql_journal *j, uint32_t cap, uint32_t align)
{
	memset(j, 0, sizeof(*j));
	if (!align || (align & (align - 1)) || 4096 % align || !cap || cap % align)
		return -EINVAL;
	j->align = align;
	j->cap = cap;
	for (int i = 0; i < 2; i++)
		j->buf[i] = xaligned(4096, cap);
	pthread_mutex_init(&j->lock, NULL);
	cond_init_mono(&j->cv);
	return 0;
}

void nosql_journal_release(struct nosql_journal *j)
{
	if (!j->buf[0])
		return;
	free(j->buf[0]);
	free(j->buf[1]);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->cv);
	memset(j, 0, sizeof(*j));
}

void nosql_journal_rotate(struct nosql_journal *j)
{
	pthread_mutex_lock(&j->lock);
	j->rotate = true;
	pthread_mutex_unlock(&j->lock);
}

/* Wait on the journal's condition for a while; true if the run is stopping. */
static bool wait_a_while(struct nosql_journal *j, const struct nosql_journal_io *io)
{
	cond_wait_ns(&j->cv, &j->lock, WAIT_NS);
	return io->stopping(io->ctx);
}

/*
 * Lead one flush: take the fill buffer, let the others fill the second one,
 * write and sync without the lock. Called and returns with the lock held.
 */
static int lead_flush(struct nosql_journal *j, const struct nosql_journal_io *io)
{
	unsigned b = j->fill, nb = b ^ 1;
	uint32_t len = j->fill_len, tail = len % j->align;
	uint32_t padded = (len + j->align - 1) / j->align * j->align;
	uint64_t off = j->fill_off, end = j->lsn;
	bool rotate = j->rotate;

	j->flushing = true;
	j->rotate = false;
	/* the partial last block is rewritten by the next flush, unless a new file begins */
	j->fill = nb;
	j->fill_len = rotate ? 0 : tail;
	j->fill_off = rotate ? 0 : off + len - tail;
	if (!rotate)
		memcpy(j->buf[nb], j->buf[b] + len - tail, tail);
	memset(j->buf[b] + len, 0, padded - len);
	pthread_mutex_unlock(&j->lock);

	int rc = io->write(io->ctx, j->buf[b], padded, off);
	if (!rc && rotate)
		rc = io->rotate(io->ctx);

	pthread_mutex_lock(&j->lock);
	if (!rc)
		j->durable = end;
	j->flushing = false;
	j->flushes++;
	pthread_cond_broadcast(&j->cv);
	return rc;
}

int nosql_journal_commit(struct nosql_journal *j, const void *frame, uint32_t len,
			 const struct nosql_journal_io *io)
{
	int rc = 0;

	if (len > j->cap / 4)
		return -EINVAL;
	pthread_mutex_lock(&j->lock);
	/* no room: the buffer is full of frames waiting for a flush */
	while (j->fill_len + len > j->cap) {
		if (!j->flushing)
			rc = lead_flush(j, io);
		else if (wait_a_while(j, io))
			rc = 1;
		if (rc)
			goto out;
	}
	memcpy(j->buf[j->fill] + j->fill_len, frame, len);
	j->fill_len += len;
	j->lsn += len;
	j->commits++;
	uint64_t mine = j->lsn;
	while (j->durable < mine && !rc) {
		if (!j->flushing)
			rc = lead_flush(j, io);
		else if (wait_a_while(j, io))
			rc = 1;
	}
out:
	pthread_mutex_unlock(&j->lock);
	return rc;
}
