/*
 * test_nosql_journal.c - group commit, against a model journal file: many
 * threads commit frames; the test's write callback stands for write +
 * fdatasync (it copies into a shadow file and sleeps like a flush). Checked:
 * a commit returns only when its frame is in the shadow file; frames end up
 * back to back, each exactly once; writes are aligned whole blocks; one
 * thread gets one flush per commit, eight share flushes; rotation starts a new
 * file at offset 0; a waiter gives up when the run stops.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nosql_journal.h"
#include "check.h"

#define ALIGN   512
#define THREADS 8
#define PER     200
#define FILES   4
#define MAGIC   0xC0117u

struct frame {
	uint32_t magic;
	uint16_t len, thread;
	uint32_t seq;
};

struct model {
	pthread_mutex_t lock;
	char file[FILES][1 << 20];      /* shadow journal files */
	unsigned cur;                   /* file being written */
	uint64_t parsed[FILES];         /* parse position per file */
	bool durable[THREADS][PER];
	unsigned seen[THREADS][PER];
	unsigned writes, misaligned;
	long sleep_us;
	atomic_bool stop;
	atomic_int blocked;             /* the write callback waits while set */
};

/* Mark every complete frame of @f from the parse position on as durable. */
static void parse(struct model *m, unsigned f)
{
	for (;;) {
		struct frame h;
		memcpy(&h, m->file[f] + m->parsed[f], sizeof(h));
		if (h.magic != MAGIC)
			return;
		if (h.thread < THREADS && h.seq < PER) {
			m->durable[h.thread][h.seq] = true;
			m->seen[h.thread][h.seq]++;
		}
		m->parsed[f] += h.len;
	}
}

static int model_write(void *ctx, void *buf, uint32_t len, uint64_t off)
{
	struct model *m = ctx;

	while (atomic_load(&m->blocked))
		usleep(100);
	if (m->sleep_us)
		usleep((useconds_t)m->sleep_us);
	pthread_mutex_lock(&m->lock);
	m->writes++;
	if (off % ALIGN || len % ALIGN || off + len > sizeof(m->file[0]))
		m->misaligned++;
	else
		memcpy(m->file[m->cur] + off, buf, len);
	parse(m, m->cur);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static int model_rotate(void *ctx)
{
	struct model *m = ctx;
	pthread_mutex_lock(&m->lock);
	m->cur = (m->cur + 1) % FILES;
	pthread_mutex_unlock(&m->lock);
	return 0;
}

static bool model_stopping(void *ctx)
{
	return atomic_load(&((struct model *)ctx)->stop);
}

struct committer {
	struct nosql_journal *j;
	struct model *m;
	unsigned id, n, not_durable, failed;
	bool rotate_midway;
};

static void *commit_loop(void *arg)
{
	struct committer *c = arg;
	const struct nosql_journal_io io = { model_write, model_rotate, model_stopping, c->m };
	char buf[512];

	for (unsigned s = 0; s < c->n; s++) {
		struct frame h = { MAGIC, (uint16_t)(sizeof(h) + (c->id * 37 + s * 11) % 300),
				   (uint16_t)c->id, s };
		memset(buf, 0xa5, sizeof(buf));
		memcpy(buf, &h, sizeof(h));
		if (nosql_journal_commit(c->j, buf, h.len, &io))
			c->failed++;
		pthread_mutex_lock(&c->m->lock);
		c->not_durable += !c->m->durable[c->id][s];
		pthread_mutex_unlock(&c->m->lock);
		if (c->rotate_midway && s == c->n / 2)
			nosql_journal_rotate(c->j);
	}
	return NULL;
}

static struct model *model_new(long sleep_us)
{
	struct model *m = calloc(1, sizeof(*m));
	pthread_mutex_init(&m->lock, NULL);
	m->sleep_us = sleep_us;
	return m;
}

/* Run @threads committers of @per frames; returns the journal's flush count. */
static uint64_t run(struct model *m, unsigned threads, unsigned per, bool rotate)
{
	struct nosql_journal j;
	struct committer c[THREADS];
	pthread_t t[THREADS];

	CHECK(nosql_journal_init(&j, 4 * 4096, ALIGN) == 0, "init");
	for (unsigned i = 0; i < threads; i++) {
		c[i] = (struct committer){ .j = &j, .m = m, .id = i, .n = per,
					   .rotate_midway = rotate && i == 0 };
		pthread_create(&t[i], NULL, commit_loop, &c[i]);
	}
	for (unsigned i = 0; i < threads; i++) {
		pthread_join(t[i], NULL);
		CHECK(c[i].failed == 0, "thread %u: %u commits failed", i, c[i].failed);
		CHECK(c[i].not_durable == 0, "thread %u: %u commits returned before durable",
		      i, c[i].not_durable);
	}
	CHECK(j.commits == (uint64_t)threads * per, "commits %llu", (unsigned long long)j.commits);
	CHECK(j.durable == j.lsn, "everything durable at the end");
	uint64_t flushes = j.flushes;
	nosql_journal_release(&j);
	for (unsigned i = 0; i < threads; i++)
		for (unsigned s = 0; s < per; s++)
			CHECK(m->seen[i][s] == 1, "frame %u/%u written %u times", i, s, m->seen[i][s]);
	CHECK(m->misaligned == 0, "%u misaligned writes", m->misaligned);
	return flushes;
}

static void one_thread_one_flush_per_commit(void)
{
	struct model *m = model_new(0);
	uint64_t flushes = run(m, 1, PER, false);
	CHECK(flushes == PER, "%llu flushes for %d commits", (unsigned long long)flushes, PER);
	free(m);
}

static void threads_share_flushes(void)
{
	struct model *m = model_new(1000);     /* a 1 ms "fdatasync" */
	uint64_t flushes = run(m, THREADS, PER, false);
	CHECK(flushes * 2 < THREADS * PER, "%llu flushes for %d commits: no grouping",
	      (unsigned long long)flushes, THREADS * PER);
	free(m);
}

static void rotation_starts_a_new_file(void)
{
	struct model *m = model_new(200);
	run(m, 4, PER, true);
	CHECK(m->cur == 1, "one rotation (file %u)", m->cur);
	CHECK(m->parsed[0] > 0 && m->parsed[1] > 0, "frames in both files (%llu, %llu)",
	      (unsigned long long)m->parsed[0], (unsigned long long)m->parsed[1]);
	free(m);
}

static void *lone_commit(void *arg)
{
	commit_loop(arg);
	return NULL;
}

/* The leader sets the flag under the journal's lock: read it under the lock too. */
static bool flushing(struct nosql_journal *j)
{
	pthread_mutex_lock(&j->lock);
	bool f = j->flushing;
	pthread_mutex_unlock(&j->lock);
	return f;
}

static void stop_releases_waiters(void)
{
	struct model *m = model_new(0);
	struct nosql_journal j;
	const struct nosql_journal_io io = { model_write, model_rotate, model_stopping, m };
	struct committer c = { .j = &j, .m = m, .id = 0, .n = 1 };
	pthread_t t;
	char frame[64] = { 0 };

	nosql_journal_init(&j, 4 * 4096, ALIGN);
	atomic_store(&m->blocked, 1);           /* the leader's flush hangs */
	pthread_create(&t, NULL, lone_commit, &c);
	while (!flushing(&j))
		usleep(100);
	atomic_store(&m->stop, true);
	CHECK(nosql_journal_commit(&j, frame, sizeof(frame), &io) == 1,
	      "a waiter returns 1 when the run stops");
	atomic_store(&m->blocked, 0);
	pthread_join(t, NULL);
	CHECK(nosql_journal_commit(&j, frame, 4 * 4096, &io) == -EINVAL, "oversized frame refused");
	nosql_journal_release(&j);
	free(m);
}

int main(void)
{
	RUN(one_thread_one_flush_per_commit);
	RUN(threads_share_flushes);
	RUN(rotation_starts_a_new_file);
	RUN(stop_releases_waiters);
	return check_done();
}
