/*
 * test_replay_feed.c - the replay's record ring: order kept across many
 * wrap-arounds, the end and an error after the last record, the ring sizes,
 * a stop while empty, and two threads with the producer far faster than the
 * consumer (it waits on a full ring) and far slower (the consumer waits and
 * counts it), every record arriving once, in order.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "replay_feed.h"

static struct trace_rec rec_of(uint64_t i)
{
	struct trace_rec r;
	memset(&r, 0, sizeof(r));
	r.issue_ns = i * 1000;
	r.offset = i * 4096;
	r.length = 4096;
	r.dev = (uint32_t)(i % 7);
	r.op = (uint8_t)(i % TRACE_OP_NR);
	return r;
}

static bool same(const struct trace_rec *a, uint64_t i)
{
	struct trace_rec b = rec_of(i);
	return a->issue_ns == b.issue_ns && a->offset == b.offset && a->length == b.length &&
	       a->dev == b.dev && a->op == b.op;
}

static void test_sizes(void)
{
	CHECK(replay_feed_size(1) == REPLAY_FEED_RECS, "%llu", (unsigned long long)replay_feed_size(1));
	CHECK(replay_feed_size(16) == REPLAY_FEED_RECS, "%llu", (unsigned long long)replay_feed_size(16));
	CHECK(replay_feed_size(17) == REPLAY_FEED_RECS / 2, "%llu", (unsigned long long)replay_feed_size(17));
	CHECK(replay_feed_size(64) == REPLAY_FEED_RECS / 4, "%llu", (unsigned long long)replay_feed_size(64));
	CHECK(replay_feed_size(1024) == REPLAY_FEED_MIN_RECS, "%llu",
	      (unsigned long long)replay_feed_size(1024));
	for (unsigned t = 1; t <= 1024; t++) {
		uint64_t n = replay_feed_size(t);
		if (n & (n - 1))
			CHECK(0, "%u threads: %llu is no power of two", t, (unsigned long long)n);
	}
}

/* One thread, a ring of 8: fill, drain, in rounds that wrap the indices around. */
static void test_order_and_wrap(void)
{
	struct replay_feed f;
	struct trace_rec r;
	uint64_t put = 0, got = 0;

	replay_feed_init(&f, 8);
	for (int round = 0; round < 50; round++) {
		unsigned n = 1 + (unsigned)(round * 3) % 8;     /* 1..8 records at a time */
		for (unsigned i = 0; i < n; i++) {
			struct trace_rec in = rec_of(put++);
			CHECK(replay_feed_put(&f, &in) == 0, "put %llu", (unsigned long long)put);
		}
		CHECK(replay_feed_ready(&f) == (n == 8), "round %d: ready with %u of 8", round, n);
		for (unsigned i = 0; i < n; i++) {
			int rc = replay_feed_get(&f, &r, NULL, NULL);
			CHECK(rc == REPLAY_FEED_REC && same(&r, got), "round %d: record %llu (rc %d)",
			      round, (unsigned long long)got, rc);
			got++;
		}
	}
	CHECK(got == put && put > 8 * 20, "%llu put, %llu got", (unsigned long long)put,
	      (unsigned long long)got);
	replay_feed_finish(&f, REPLAY_FEED_END, NULL);
	replay_feed_release(&f);
}

/* The end and an error both come after every record put before them. */
static void test_end_status(void)
{
	struct replay_feed f;
	struct trace_rec r;

	replay_feed_init(&f, 4);
	for (uint64_t i = 0; i < 3; i++) {
		struct trace_rec in = rec_of(i);
		replay_feed_put(&f, &in);
	}
	CHECK(!replay_feed_ready(&f), "3 of 4, running: not ready");
	replay_feed_finish(&f, REPLAY_FEED_END, NULL);
	CHECK(replay_feed_ready(&f), "finished: ready");
	for (uint64_t i = 0; i < 3; i++)
		CHECK(replay_feed_get(&f, &r, NULL, NULL) == REPLAY_FEED_REC && same(&r, i),
		      "record %llu before the end", (unsigned long long)i);
	CHECK(replay_feed_get(&f, &r, NULL, NULL) == REPLAY_FEED_END, "then the end");
	CHECK(replay_feed_get(&f, &r, NULL, NULL) == REPLAY_FEED_END, "and again the end");
	CHECK(f.waits == 0, "no waits: %llu", (unsigned long long)f.waits);
	replay_feed_release(&f);

	replay_feed_init(&f, 4);
	struct trace_rec in = rec_of(5);
	replay_feed_put(&f, &in);
	replay_feed_finish(&f, -EINVAL, "'x.trace' line 9: expected op R, W, F or D, got 'Q'");
	CHECK(replay_feed_get(&f, &r, NULL, NULL) == REPLAY_FEED_REC && same(&r, 5), "the record first");
	CHECK(replay_feed_get(&f, &r, NULL, NULL) == -EINVAL, "then the error");
	CHECK(!strcmp(replay_feed_error(&f), "'x.trace' line 9: expected op R, W, F or D, got 'Q'"),
	      "its message: '%s'", replay_feed_error(&f));
	replay_feed_release(&f);
}

static bool stop_after(void *arg)
{
	int *n = arg;
	return --*n <= 0;
}

/* An empty ring with the producer running: a stop ends the wait, counted once. */
static void test_stop_while_empty(void)
{
	struct replay_feed f;
	struct trace_rec r;
	int asks = 3;

	replay_feed_init(&f, 4);
	CHECK(replay_feed_get(&f, &r, stop_after, &asks) == REPLAY_FEED_STOPPED, "stopped");
	CHECK(asks == 0, "asked 3 times, napping between: %d left", asks);
	CHECK(f.waits == 1, "one wait: %llu", (unsigned long long)f.waits);
	replay_feed_cancel(&f);
	CHECK(replay_feed_cancelled(&f), "cancelled");
	struct trace_rec in = rec_of(0);
	for (int i = 0; i < 4; i++)
		replay_feed_put(&f, &in);
	CHECK(replay_feed_put(&f, &in) == -ECANCELED, "a put on a full, cancelled ring gives up");
	replay_feed_release(&f);
}

#define N_RECS 100000ULL

struct prod {
	struct replay_feed *f;
	uint64_t n, every;      /* sleep 1 us after every @every records (0: never) */
	int rc;
};

static void *producer(void *arg)
{
	struct prod *p = arg;
	for (uint64_t i = 0; i < p->n; i++) {
		struct trace_rec in = rec_of(i);
		if ((p->rc = replay_feed_put(p->f, &in)) != 0)
			return NULL;
		if (p->every && i % p->every == 0)
			nanosleep(&(struct timespec){ .tv_nsec = 1000 }, NULL);
	}
	replay_feed_finish(p->f, REPLAY_FEED_END, NULL);
	return NULL;
}

/* Two threads; the consumer sleeps 1 us after every @every_c records. */
static void two_threads(uint64_t cap, uint64_t every_p, uint64_t every_c, uint64_t *waits)
{
	struct replay_feed f;
	struct prod p = { .f = &f, .n = N_RECS, .every = every_p };
	struct trace_rec r;
	pthread_t t;
	uint64_t got = 0, bad = 0;
	int rc;

	replay_feed_init(&f, cap);
	CHECK(pthread_create(&t, NULL, producer, &p) == 0, "thread");
	while ((rc = replay_feed_get(&f, &r, NULL, NULL)) == REPLAY_FEED_REC) {
		bad += !same(&r, got);
		got++;
		if (every_c && got % every_c == 0)
			nanosleep(&(struct timespec){ .tv_nsec = 1000 }, NULL);
	}
	pthread_join(t, NULL);
	CHECK(rc == REPLAY_FEED_END, "ends with the end: %d", rc);
	CHECK(got == N_RECS && !bad, "%llu of %llu records, %llu out of order", (unsigned long long)got,
	      N_RECS, (unsigned long long)bad);
	CHECK(p.rc == 0, "producer: %d", p.rc);
	*waits = f.waits;
	replay_feed_release(&f);
}

static void test_producer_faster(void)
{
	uint64_t waits;
	/*
	 * The consumer naps every 16 records: the producer keeps meeting a full
	 * ring, and its nap until half is free is shorter than the consumer
	 * takes to drain that half (128 naps), so the ring is seldom empty.
	 */
	two_threads(4096, 0, 16, &waits);
	CHECK(waits < 20, "the consumer rarely found it empty: %llu waits", (unsigned long long)waits);
}

static void test_producer_slower(void)
{
	uint64_t waits;
	/* the producer naps every 16 records: the consumer keeps finding the ring empty */
	two_threads(1024, 16, 0, &waits);
	CHECK(waits >= 100, "the consumer's waits are counted: %llu", (unsigned long long)waits);
}

int main(void)
{
	RUN(test_sizes);
	RUN(test_order_and_wrap);
	RUN(test_end_status);
	RUN(test_stop_while_empty);
	RUN(test_producer_faster);
	RUN(test_producer_slower);
	return check_done();
}
