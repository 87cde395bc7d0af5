/*
 * test_engine.c - every I/O engine in this build against a real file: data
 * written through it reads back byte for byte, flushes and EOF reads report
 * the right res, errors arrive as completions, discard punches a hole; the
 * null engine's counts add up.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appio/engine.h"
#include "check.h"

extern const struct engine_ops engine_null, engine_threads;
#ifdef HAVE_LIBAIO
extern const struct engine_ops engine_libaio;
#endif
#ifdef HAVE_LIBURING
extern const struct engine_ops engine_io_uring;
#endif

static const struct engine_ops *const engines[] = {
	&engine_sync,
	&engine_threads,
#ifdef HAVE_LIBAIO
	&engine_libaio,
#endif
#ifdef HAVE_LIBURING
	&engine_io_uring,
#endif
	NULL,
};

enum {
	QD = 8,
	BS = 4096,
	FILE_SIZE = 1 << 20,
};

struct eng {
	const struct engine_ops *ops;
	void *priv;
	unsigned qd;
};

static int eng_open(struct eng *e, const struct engine_ops *ops, unsigned qd)
{
	e->ops = ops;
	e->qd = qd;
	if (posix_memalign(&e->priv, 64, ops->priv_size ? ops->priv_size : 64))
		abort();
	memset(e->priv, 0, ops->priv_size);
	return ops->init ? ops->init(e->priv, qd) : 0;
}

static void eng_close(struct eng *e)
{
	if (e->ops->release)
		e->ops->release(e->priv);
	free(e->priv);
}

/*
 * Queue all @n requests, commit once, reap until every one is back. Each
 * request's slot is its index, to check that each comes back exactly once.
 */
static void eng_batch(struct eng *e, struct io_req *reqs, unsigned n)
{
	struct io_req *done[64];
	bool seen[64] = { false };
	unsigned inflight = 0;

	for (unsigned i = 0; i < n; i++) {
		reqs[i].slot = (uint16_t)i;
		reqs[i].res = INT64_MIN;
		int rc = e->ops->queue(e->priv, &reqs[i]);
		CHECK(rc == ENGINE_QUEUED || rc == ENGINE_COMPLETED,
		      "%s: queue #%u returned %d", e->ops->name, i, rc);
		if (rc == ENGINE_QUEUED)
			inflight++;
		else
			seen[i] = true;
	}
	if (!inflight)
		return;
	CHECK(e->ops->commit(e->priv) == 0, "%s: commit failed", e->ops->name);
	while (inflight) {
		int got = e->ops->getevents(e->priv, 1, e->qd, done);
		CHECK(got > 0 && (unsigned)got <= inflight,
		      "%s: getevents returned %d with %u in flight", e->ops->name, got, inflight);
		if (got <= 0 || (unsigned)got > inflight)
			return;
		for (int i = 0; i < got; i++) {
			unsigned s = done[i]->slot;
			CHECK(s < n && &reqs[s] == done[i] && !seen[s],
			      "%s: unexpected completion", e->ops->name);
			if (s < n)
				seen[s] = true;
		}
		inflight -= (unsigned)got;
	}
}

static struct io_req req(int fd, enum io_op op, void *buf, uint32_t len, uint64_t off)
{
	return (struct io_req){ .fd = fd, .op = op, .buf = buf, .len = len, .off = off };
}

static void *xbuf(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		abort();
	return p;
}

/*
 * A FILE_SIZE temporary file, unlinked, reopened with O_DIRECT unless the
 * file system refuses it with EINVAL (tmpfs on older kernels).
 */
static int temp_file(void)
{
	const char *dir = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char path[4096];
	int fd, dfd;

	snprintf(path, sizeof(path), "%s/appio-test-engine-XXXXXX", dir);
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	dfd = open(path, O_RDWR | O_DIRECT);
	unlink(path);
	if (dfd >= 0) {
		close(fd);
		fd = dfd;
	} else if (errno != EINVAL) {
		close(fd);
		return -1;
	}
	if (ftruncate(fd, FILE_SIZE) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

static void fill(void *buf, size_t len, unsigned seed)
{
	unsigned char *p = buf;

	for (size_t i = 0; i < len; i++)
		p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* A temporary file and engine @ops at QD; false (and a failed check) if not. */
static bool setup(struct eng *e, const struct engine_ops *ops, int *fd)
{
	int rc;

	*fd = temp_file();
	CHECK(*fd >= 0, "cannot create a temporary file: %s", strerror(errno));
	if (*fd < 0)
		return false;
	rc = eng_open(e, ops, QD);
	CHECK(rc == 0, "%s: init failed: %s", ops->name, strerror(-rc));
	if (rc == 0)
		return true;
	eng_close(e);
	close(*fd);
	return false;
}

static void teardown(struct eng *e, int fd)
{
	eng_close(e);
	close(fd);
}

static void test_write_read(void)
{
	static const uint64_t blocks[QD] = { 0, 3, 17, 64, 65, 100, 200, 255 };
	char *wbuf = xbuf(QD * BS), *rbuf = xbuf(QD * BS);

	for (const struct engine_ops *const *o = engines; *o; o++) {
		struct io_req w[QD], r[QD];
		struct eng e;
		int fd;

		if (!setup(&e, *o, &fd))
			continue;
		for (unsigned i = 0; i < QD; i++) {
			fill(wbuf + i * BS, BS, i + 1);
			w[i] = req(fd, IO_WRITE, wbuf + i * BS, BS, blocks[i] * BS);
			r[i] = req(fd, IO_READ, rbuf + i * BS, BS, blocks[i] * BS);
		}
		memset(rbuf, 0xee, QD * BS);
		eng_batch(&e, w, QD);
		eng_batch(&e, r, QD);
		for (unsigned i = 0; i < QD; i++) {
			CHECK(w[i].res == BS, "%s: write #%u res %lld", (*o)->name, i, (long long)w[i].res);
			CHECK(r[i].res == BS, "%s: read #%u res %lld", (*o)->name, i, (long long)r[i].res);
		}
		CHECK(!memcmp(wbuf, rbuf, QD * BS), "%s: data read back differs", (*o)->name);
		teardown(&e, fd);
	}
	free(wbuf);
	free(rbuf);
}

static void test_flush_and_eof(void)
{
	char *buf = xbuf(2 * BS);

	for (const struct engine_ops *const *o = engines; *o; o++) {
		struct eng e;
		int fd;

		if (!setup(&e, *o, &fd))
			continue;
		struct io_req q[4] = {
			req(fd, IO_FSYNC, NULL, 0, 0),
			req(fd, IO_FDATASYNC, NULL, 0, 0),
			req(fd, IO_READ, buf, BS, FILE_SIZE),
			req(fd, IO_READ, buf, 2 * BS, FILE_SIZE - BS),
		};
		eng_batch(&e, q, 4);
		CHECK(q[0].res == 0, "%s: fsync res %lld", (*o)->name, (long long)q[0].res);
		CHECK(q[1].res == 0, "%s: fdatasync res %lld", (*o)->name, (long long)q[1].res);
		CHECK(q[2].res == 0, "%s: read at EOF res %lld", (*o)->name, (long long)q[2].res);
		CHECK(q[3].res == BS, "%s: read across EOF res %lld", (*o)->name, (long long)q[3].res);
		teardown(&e, fd);
	}
	free(buf);
}

/* Bad descriptors amid good requests: all complete, the bad ones with -EBADF. */
static void test_bad_fd(void)
{
	char *buf = xbuf(3 * BS);

	fill(buf, BS, 9);
	for (const struct engine_ops *const *o = engines; *o; o++) {
		struct eng e;
		int fd, closed;

		if (!setup(&e, *o, &fd))
			continue;
		/* Only now: the engine's own descriptors must not reuse the number. */
		closed = open("/dev/null", O_RDONLY);
		close(closed);
		struct io_req q[6] = {
			req(fd, IO_WRITE, buf, BS, 0),
			req(-1, IO_READ, buf + BS, BS, 0),
			req(closed, IO_WRITE, buf + 2 * BS, BS, 0),
			req(-1, IO_FSYNC, NULL, 0, 0),
			req(closed, IO_DISCARD, NULL, BS, 0),
			req(fd, IO_READ, buf + 2 * BS, BS, BS),
		};
		eng_batch(&e, q, 6);
		CHECK(q[0].res == BS, "%s: good write res %lld", (*o)->name, (long long)q[0].res);
		for (unsigned i = 1; i < 5; i++)
			CHECK(q[i].res == -EBADF, "%s: bad request #%u res %lld",
			      (*o)->name, i, (long long)q[i].res);
		CHECK(q[5].res == BS, "%s: good read res %lld", (*o)->name, (long long)q[5].res);
		teardown(&e, fd);
	}
	free(buf);
}

static void test_discard(void)
{
	char *wbuf = xbuf(2 * BS), *rbuf = xbuf(2 * BS), *zero = xbuf(BS);
	const uint64_t off = 16 * BS;

	memset(zero, 0, BS);
	fill(wbuf, 2 * BS, 5);
	for (const struct engine_ops *const *o = engines; *o; o++) {
		struct eng e;
		int fd;

		if (!setup(&e, *o, &fd))
			continue;
		struct io_req w = req(fd, IO_WRITE, wbuf, 2 * BS, off);
		struct io_req d = req(fd, IO_DISCARD, NULL, BS, off);
		struct io_req r = req(fd, IO_READ, rbuf, 2 * BS, off);
		eng_batch(&e, &w, 1);
		eng_batch(&e, &d, 1);
		eng_batch(&e, &r, 1);
		CHECK(w.res == 2 * BS, "%s: write res %lld", (*o)->name, (long long)w.res);
		CHECK(d.res == BS, "%s: discard res %lld", (*o)->name, (long long)d.res);
		CHECK(r.res == 2 * BS, "%s: read res %lld", (*o)->name, (long long)r.res);
		CHECK(!memcmp(rbuf, zero, BS), "%s: discarded block is not zero", (*o)->name);
		CHECK(!memcmp(rbuf + BS, wbuf + BS, BS), "%s: block after the hole changed",
		      (*o)->name);
		teardown(&e, fd);
	}
	free(wbuf);
	free(rbuf);
	free(zero);
}

/*
 * release() must cope with whatever a failed init() left: qd 0 fails before
 * anything is allocated; 1 Mi entries is past io_uring's ring limit and the
 * default aio-max-nr, so those fail after allocating. Either way nothing may
 * crash, and the sanitizer build checks nothing leaks.
 */
static void check_init_release(const struct engine_ops *ops)
{
	struct eng e;

	if (!ops->init)
		return;
	CHECK(eng_open(&e, ops, 0) < 0, "%s: init with qd 0 succeeded", ops->name);
	eng_close(&e);
	eng_open(&e, ops, 1u << 20);
	eng_close(&e);
}

static void test_release_after_failed_init(void)
{
	for (const struct engine_ops *const *o = engines; *o; o++)
		check_init_release(*o);
	check_init_release(&engine_null);
}

/*
 * The threads engine holds a request until commit(), refuses one past its
 * qd, and takes a thread back once its completion is reaped: rounds of qd
 * requests on the same threads, each round read back.
 */
static void test_threads_handoff(void)
{
	char *buf = xbuf(QD * BS);
	struct io_req q[QD], extra, *done[QD];
	struct eng e;
	int fd;

	if (!setup(&e, &engine_threads, &fd))
		return;
	CHECK(engine_threads.getevents(e.priv, 0, QD, done) == 0, "threads: a completion from nothing");
	for (unsigned round = 0; round < 20; round++) {
		for (unsigned i = 0; i < QD; i++) {
			q[i] = req(fd, round % 2 ? IO_READ : IO_WRITE, buf + i * BS, BS,
				   (uint64_t)(round * QD + i) * BS);
			q[i].res = INT64_MIN;
			CHECK(engine_threads.queue(e.priv, &q[i]) == ENGINE_QUEUED,
			      "threads: round %u queue #%u", round, i);
		}
		extra = req(fd, IO_READ, buf, BS, 0);
		CHECK(engine_threads.queue(e.priv, &extra) == -EBUSY, "threads: took qd + 1 requests");
		if (round == 0) {
			usleep(20000);
			for (unsigned i = 0; i < QD; i++)
				CHECK(q[i].res == INT64_MIN, "threads: #%u ran before commit", i);
		}
		CHECK(engine_threads.commit(e.priv) == 0, "threads: commit");
		unsigned got = 0;
		while (got < QD) {
			int n = engine_threads.getevents(e.priv, 1, QD, done);
			CHECK(n > 0, "threads: getevents returned %d", n);
			if (n <= 0)
				break;
			for (int k = 0; k < n; k++)
				CHECK(done[k]->res == BS, "threads: round %u res %lld", round,
				      (long long)done[k]->res);
			got += (unsigned)n;
		}
		CHECK(got == QD, "threads: round %u: %u of %u back", round, got, QD);
	}
	teardown(&e, fd);
	free(buf);
}

static void test_null(void)
{
	enum { NQD = 32 };
	struct io_req q[NQD], extra = req(3, IO_READ, NULL, 512, 0), *done[NQD];
	struct eng e;
	unsigned got = 0;

	CHECK(engine_null.flags & ENGINE_NO_IO, "null lacks ENGINE_NO_IO");
	CHECK(eng_open(&e, &engine_null, NQD) == 0, "null: init failed");
	for (unsigned round = 0; round < 5; round++) {
		/* Commit after 20 of 32: only those 20 may come back before the next commit. */
		for (unsigned i = 0; i < NQD; i++) {
			q[i] = req(3, i % 3 ? IO_READ : IO_FSYNC, NULL, i % 3 ? 512 * i : 0, 0);
			CHECK(engine_null.queue(e.priv, &q[i]) == ENGINE_QUEUED, "null: queue #%u", i);
			if (i == 19)
				CHECK(engine_null.commit(e.priv) == 0, "null: commit");
		}
		CHECK(engine_null.queue(e.priv, &extra) == -EBUSY, "null: accepted more than qd");
		int n = engine_null.getevents(e.priv, 0, 7, done);
		int m = engine_null.getevents(e.priv, 13, NQD, done + 7);
		CHECK(n == 7 && m == 13, "null: got %d and %d, expected 7 and 13", n, m);
		CHECK(engine_null.getevents(e.priv, 0, NQD, done + 20) == 0,
		      "null: an uncommitted request came back");
		CHECK(engine_null.commit(e.priv) == 0, "null: commit");
		n = engine_null.getevents(e.priv, 12, NQD, done + 20);
		CHECK(n == 12, "null: got %d, expected 12", n);
		for (unsigned i = 0; i < NQD; i++) {
			CHECK(done[i] == &q[i], "null: completion #%u out of order", i);
			CHECK(q[i].res == q[i].len, "null: res %lld != len %u",
			      (long long)q[i].res, q[i].len);
			got += done[i] == &q[i];
		}
	}
	CHECK(got == 5 * NQD, "null: %u completions", got);
	eng_close(&e);
}

int main(void)
{
	/* A lost completion makes getevents wait forever: fail instead of hanging. */
	alarm(120);
	RUN(test_write_read);
	RUN(test_flush_and_eof);
	RUN(test_bad_fd);
	RUN(test_discard);
	RUN(test_release_after_failed_init);
	RUN(test_threads_handoff);
	RUN(test_null);
	return check_done();
}
