/*
 * test_worker.c - the worker's recording against the measured window,
 * through the real runner: operations recorded as a group (a transaction
 * and its statements) are counted together or not at all, in the window as
 * in every second of the series, even for the transactions that straddle
 * the end of the ramp and the end of the point; each point's workers draw
 * from streams of their own, the same for the same seed; an emulator's
 * flush is a system call in its own thread whatever the engine.
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "appio/emulator.h"
#include "appio/engine.h"
#include "appio/rand.h"
#include "appio/result.h"
#include "appio/runner.h"
#include "check.h"

#define STMTS 3
#define STMT_NS 2000000L        /* each statement sleeps 2 ms: transactions of ~6 ms */

enum { CLS_TXN, CLS_STMT };

/* A transaction of STMTS statements, recorded at its end as one group. */
static int txn_step(struct emu_worker *w)
{
	struct emu_sample s[STMTS + 1];
	uint64_t t0 = emu_now();

	for (int i = 0; i < STMTS; i++) {
		uint64_t t = emu_now();
		nanosleep(&(struct timespec){ .tv_nsec = STMT_NS }, NULL);
		s[i] = (struct emu_sample){ .cls = CLS_STMT, .lat_ns = emu_now() - t };
	}
	uint64_t t1 = emu_now();
	s[STMTS] = (struct emu_sample){ .cls = CLS_TXN, .lat_ns = t1 - t0 };
	emu_record_group(w, s, STMTS + 1, t1);
	return 0;
}

static const char *const txn_classes[] = { "txn", "stmt", NULL };

static const struct emu_ops txn_ops = {
	.name = "txn-test",
	.desc = "transactions of three statements, for the worker test",
	.flags = EMU_NO_TARGET,
	.classes = txn_classes,
	.step = txn_step,
};

static void test_group_counted_whole(void)
{
	static const struct emu_point pts[] = { { .threads = 2, .qd = 1, .write_pct = -1 },
						 { .threads = 1, .qd = 1, .write_pct = -1 } };
	const struct run_config cfg = {
		.emu = &txn_ops, .points = pts, .npoints = 2, .seed = 1,
		.ramp_ns = 100000000, .time_ns = 1300000000,      /* 0.1 s ramp, 1.3 s: 2 seconds */
	};
	struct result res;
	char err[256] = "";

	result_init(&res);
	int rc = runner_run(&cfg, &res, err, sizeof(err));
	CHECK(rc == 0 && res.npoints == 2, "rc %d, %u points: %s", rc, res.npoints, err);
	for (unsigned i = 0; i < res.npoints; i++) {
		const struct point_result *p = &res.points[i];
		uint64_t txn = p->cls[CLS_TXN].ops, stmt = p->cls[CLS_STMT].ops;
		CHECK(txn > 10, "point %u: %llu transactions", i, (unsigned long long)txn);
		CHECK(stmt == STMTS * txn, "point %u: %llu statements for %llu transactions", i,
		      (unsigned long long)stmt, (unsigned long long)txn);
		CHECK(p->cls[CLS_STMT].lat.max < p->cls[CLS_TXN].lat.max,
		      "point %u: a statement's own latency, not its transaction's", i);
		CHECK(p->nsec == 2, "point %u: %u seconds in the series", i, p->nsec);
		uint64_t sum = 0;
		for (unsigned s = 0; s < p->nsec; s++) {
			const struct sec_cls *c = &p->series[s * p->ncls];
			CHECK(c[CLS_STMT].ops == STMTS * c[CLS_TXN].ops,
			      "point %u second %u: %llu statements for %llu transactions", i, s,
			      (unsigned long long)c[CLS_STMT].ops, (unsigned long long)c[CLS_TXN].ops);
			sum += c[CLS_TXN].ops;
		}
		CHECK(sum == txn, "point %u: the series holds %llu of %llu transactions", i,
		      (unsigned long long)sum, (unsigned long long)txn);
	}
	result_release(&res);
}

/* Each worker's first draw, in the order the workers start (points run one after another). */
static uint64_t draws[8];
static unsigned ndraws;
static pthread_mutex_t draws_lock = PTHREAD_MUTEX_INITIALIZER;

static int draw_init(struct emu_worker *w)
{
	pthread_mutex_lock(&draws_lock);
	if (ndraws < 8)
		draws[ndraws++] = rng_next(&w->rng);
	pthread_mutex_unlock(&draws_lock);
	return 0;
}

static int done_step(struct emu_worker *w)
{
	(void)w;
	return 1;                       /* no work: the point ends at once */
}

static const struct emu_ops draw_ops = {
	.name = "draw-test",
	.desc = "records each worker's first random number, for the worker test",
	.flags = EMU_NO_TARGET,
	.classes = txn_classes,
	.worker_init = draw_init,
	.step = done_step,
};

/* Two points of two workers with @seed: the four first draws, each point's in ascending order. */
static void two_points(uint64_t seed, uint64_t out[4])
{
	static const struct emu_point pts[] = { { .threads = 2, .qd = 1, .write_pct = -1 },
						 { .threads = 2, .qd = 1, .write_pct = -1 } };
	const struct run_config cfg = {
		.emu = &draw_ops, .points = pts, .npoints = 2, .seed = seed, .time_ns = 1000000000,
	};
	struct result res;
	char err[256] = "";

	ndraws = 0;
	result_init(&res);
	int rc = runner_run(&cfg, &res, err, sizeof(err));
	CHECK(rc == 0 && ndraws == 4, "rc %d, %u workers started: %s", rc, ndraws, err);
	for (int p = 0; p < 2; p++) {
		uint64_t a = draws[2 * p], b = draws[2 * p + 1];
		out[2 * p] = a < b ? a : b;
		out[2 * p + 1] = a < b ? b : a;
	}
	result_release(&res);
}

static void test_streams_per_point(void)
{
	uint64_t one[4], again[4], other[4];

	two_points(7, one);
	for (int i = 0; i < 4; i++)
		for (int k = i + 1; k < 4; k++)
			CHECK(one[i] != one[k], "draws %d and %d are the same: a point repeats another's "
			      "or a worker another's", i, k);
	two_points(7, again);
	CHECK(!memcmp(one, again, sizeof(one)), "the same seed, other draws");
	two_points(8, other);
	CHECK(memcmp(one, other, sizeof(one)), "another seed, the same draws");
}

/* An asynchronous engine that counts what it is handed and completes it at once. */
static unsigned eng_ops[IO_DISCARD + 1];
static struct io_req *eng_held;

static int count_queue(void *priv, struct io_req *r)
{
	(void)priv;
	eng_ops[r->op]++;
	r->res = r->len;
	eng_held = r;
	return ENGINE_QUEUED;
}

static int count_commit(void *priv)
{
	(void)priv;
	return 0;
}

static int count_getevents(void *priv, unsigned min, unsigned max, struct io_req **done)
{
	(void)priv, (void)min, (void)max;
	done[0] = eng_held;
	return 1;
}

static struct engine_ops count_engine = {
	.name = "count", .desc = "counts requests, for the worker test",
	.queue = count_queue, .commit = count_commit, .getevents = count_getevents,
};

static int flush_fd = -1;
static int64_t flush_res = 1;

/* One write and one fdatasync of a scratch file, then done. */
static int flush_step(struct emu_worker *w)
{
	char buf[512] = { 0 };
	if (emu_io(w, CLS_TXN, IO_WRITE, flush_fd, buf, sizeof(buf), 0) != sizeof(buf))
		return -5;
	flush_res = emu_io(w, CLS_TXN, IO_FDATASYNC, flush_fd, NULL, 0, 0);
	return 1;
}

static const struct emu_ops flush_ops = {
	.name = "flush-test",
	.desc = "a write and a flush through emu_io(), for the worker test",
	.flags = EMU_NO_TARGET,
	.classes = txn_classes,
	.step = flush_step,
};

static void flush_once(unsigned engine_flags)
{
	static const struct emu_point pts[] = { { .threads = 1, .qd = 1, .write_pct = -1 } };
	const struct run_config cfg = {
		.emu = &flush_ops, .points = pts, .npoints = 1, .seed = 1, .time_ns = 1000000000,
		.engine = &count_engine,
	};
	struct result res;
	char err[256] = "";

	count_engine.flags = engine_flags;
	memset(eng_ops, 0, sizeof(eng_ops));
	flush_res = 1;
	result_init(&res);
	int rc = runner_run(&cfg, &res, err, sizeof(err));
	CHECK(rc == 0, "rc %d: %s", rc, err);
	CHECK(eng_ops[IO_WRITE] == 1, "the engine took %u writes, not 1", eng_ops[IO_WRITE]);
	CHECK(flush_res == 0, "the flush returned %lld", (long long)flush_res);
	result_release(&res);
}

static void test_flush_in_thread(void)
{
	char path[] = "/tmp/appio-test-worker-XXXXXX";
	flush_fd = mkstemp(path);
	CHECK(flush_fd >= 0, "mkstemp failed");
	if (flush_fd < 0)
		return;
	unlink(path);
	flush_once(0);
	CHECK(eng_ops[IO_FDATASYNC] == 0, "an asynchronous engine was handed %u flushes",
	      eng_ops[IO_FDATASYNC]);
	flush_once(ENGINE_NO_IO);       /* a null engine keeps them: no I/O at all */
	CHECK(eng_ops[IO_FDATASYNC] == 1, "a no-I/O engine was handed %u flushes, not 1",
	      eng_ops[IO_FDATASYNC]);
	close(flush_fd);
}

int main(void)
{
	RUN(test_group_counted_whole);
	RUN(test_streams_per_point);
	RUN(test_flush_in_thread);
	return check_done();
}
