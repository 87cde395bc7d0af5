/*
 * replay_feed.h - a bounded single-producer, single-consumer ring of trace
 * records between a replay worker's feeder thread (which reads and parses
 * the trace) and the worker (which replays it), so that the worker's hot
 * path takes records with two atomic loads and a store: no stdio, no
 * parsing, no lock, no allocation.
 *
 * Threads: exactly two. The consumer (the worker) owns the struct: it calls
 * replay_feed_init() before the producer starts and replay_feed_release()
 * after the producer has been joined. Between those:
 *  - the producer alone calls replay_feed_put(), replay_feed_finish() (once,
 *    last) and replay_feed_cancelled();
 *  - the consumer alone calls replay_feed_get(), replay_feed_ready(),
 *    replay_feed_cancel() and reads f->waits and replay_feed_error() (the
 *    latter once replay_feed_get() returned an error).
 * head is written by the producer only (release: the record is written
 * before it is published), tail by the consumer only (release: a slot is
 * read before it is handed back); each reads the other's index with acquire,
 * and only when its own copy of it (tail_seen, head_seen) says full or empty,
 * so the two threads seldom touch each other's cache line.
 * The final status is stored after the last record, so a consumer that sees
 * it has seen every record.
 *
 * Memory: replay_feed_init() allocates the ring once; nothing grows after.
 */
#ifndef APPIO_REPLAY_FEED_H
#define APPIO_REPLAY_FEED_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "appio/trace.h"

#define REPLAY_FEED_RECS     16384      /* ring size of a replay of up to REPLAY_FEED_FULL threads */
#define REPLAY_FEED_FULL     16
#define REPLAY_FEED_MIN_RECS 1024
#define REPLAY_FEED_SPINS    256        /* looks at an empty ring before the first sleep */
#define REPLAY_FEED_NAP_NS   20000ULL   /* the consumer's sleep on an empty ring */
#define REPLAY_FEED_IDLE_NS  1000000ULL /* the producer's sleep on a full ring */

/* What replay_feed_get() returns besides a record (0) and an error (-errno). */
enum replay_feed_status {
	REPLAY_FEED_REC = 0,            /* a record */
	REPLAY_FEED_END = 1,            /* the producer finished: no more records */
	REPLAY_FEED_STOPPED = 2,        /* the ring was empty and @stop said stop */
};

struct replay_feed {
	struct trace_rec *ring;
	uint64_t cap;                   /* a power of two */
	uint64_t waits;                 /* consumer's: gets that found the ring empty */
	alignas(64) _Atomic uint64_t head;      /* records put, ever (producer) */
	uint64_t tail_seen;                     /* producer's: tail when last read */
	alignas(64) _Atomic uint64_t tail;      /* records got, ever (consumer) */
	uint64_t head_seen;                     /* consumer's: head when last read */
	alignas(64) _Atomic int status; /* 0 running, then REPLAY_FEED_END or -errno (producer) */
	_Atomic bool cancel;            /* the consumer gave up: stop producing */
	char err[320];                  /* the producer's message with a -errno status */
};

/*
 * The ring size for one of @threads workers: REPLAY_FEED_RECS up to
 * REPLAY_FEED_FULL threads, then shrinking so that all rings together hold
 * REPLAY_FEED_RECS * REPLAY_FEED_FULL records, down to REPLAY_FEED_MIN_RECS
 * each. Always a power of two. Pure.
 */
uint64_t replay_feed_size(unsigned threads);

/* Make @f an empty ring of @cap (a power of two >= 2) records. Consumer, before the producer runs. */
void replay_feed_init(struct replay_feed *f, uint64_t cap);

/* Free the ring; the producer must have ended. Safe on a zeroed struct. */
void replay_feed_release(struct replay_feed *f);

/*
 * Producer: append a copy of @rec, waiting while the ring is full (sleeping
 * REPLAY_FEED_IDLE_NS at a time until half of it is free, so a producer
 * far ahead wakes about once per half ring). 0, or -ECANCELED once the
 * consumer called replay_feed_cancel().
 */
int replay_feed_put(struct replay_feed *f, const struct trace_rec *rec);

/*
 * Producer, last call: no more records. @status is REPLAY_FEED_END or a
 * -errno with @msg (copied; may be NULL) for the consumer's message.
 */
void replay_feed_finish(struct replay_feed *f, int status, const char *msg);

/* Producer: has the consumer cancelled? For long stretches without a put. */
bool replay_feed_cancelled(const struct replay_feed *f);

/*
 * Consumer: the next record into @rec. When the ring is empty it spins
 * REPLAY_FEED_SPINS times, then sleeps REPLAY_FEED_NAP_NS at a time, asking
 * @stop(@arg) (may be NULL: never) before each sleep, and counts one wait in
 * f->waits. Returns REPLAY_FEED_REC, REPLAY_FEED_END once every record was
 * got, REPLAY_FEED_STOPPED, or the producer's -errno (replay_feed_error()).
 */
int replay_feed_get(struct replay_feed *f, struct trace_rec *rec, bool (*stop)(void *), void *arg);

/* Consumer: is the ring full, or has the producer finished? Never waits. */
bool replay_feed_ready(const struct replay_feed *f);

/* Consumer: tell the producer to stop (its put returns -ECANCELED). */
void replay_feed_cancel(struct replay_feed *f);

/* Consumer: the producer's message with a -errno status ("" without). */
const char *replay_feed_error(const struct replay_feed *f);

#endif
