/*
 * worker.h - a worker thread's state and the point it belongs to (private to
 * the runner and worker modules).
 *
 * Statistics flow without locks: each worker records into its own cumulative
 * histograms (merged once, after the point) and into one of two interval
 * buffers for the per-second series. When a completion crosses a second
 * boundary the worker seals the buffer it was filling (release store) and
 * moves to the other one; the runner's thread merges sealed buffers, clears
 * them and hands them back (release store). A worker never waits for the
 * runner: if the other buffer is not back yet it keeps filling the current
 * one, and that second's data is reported with the earlier second.
 */
#ifndef APPIO_WORKER_H
#define APPIO_WORKER_H

#include <pthread.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "appio/emulator.h"
#include "appio/hist.h"
#include "appio/result.h"
#include "appio/runner.h"

#define NSEC 1000000000ULL

/* One class's share of one second, as a worker collects it. */
struct ival_cls {
	uint64_t ops, bytes, sum_ns, max_ns;
	uint64_t b[HIST_BUCKETS];       /* bucket counts only: moments are above */
};

struct ival {
	atomic_int sealed;              /* 1: handed to the runner */
	int64_t sec;                    /* second of the window it holds */
	struct ival_cls *c;             /* ncls */
};

/* What all workers of a point share; written by the runner before "go". */
struct point_ctx {
	const struct run_config *cfg;
	struct emu_run *er;
	const struct emu_point *pt;
	unsigned idx;                   /* the point's place in the run: its random streams */
	unsigned ncls;                  /* emulator classes (without "total") */
	unsigned ncounters;
	/* start gate: workers report ready, then wait for go (times are set by then) */
	pthread_mutex_t gate_lock;
	pthread_cond_t gate_cv;
	unsigned gate_ready;
	bool gate_go;
	uint64_t t_start;               /* workers begin */
	uint64_t t_measure;             /* ramp ends, recording begins */
	_Atomic uint64_t t_end;         /* recording ends (lowered on interrupt) */
	atomic_bool stop;               /* stop issuing now */
	atomic_int failed;              /* first failure wins the message */
	atomic_uint fg_done;            /* foreground workers whose loop has ended */
	uint64_t max_events;            /* cfg->events, or the emulator's own for this point */
	bool counted;                   /* the emulator's count alone ends it: no time limit */
	_Atomic uint64_t events;        /* measured steps begun (max_events) */
	_Atomic uint64_t starts;        /* --rate on a step emulator: intended starts handed out */
	char err[512];
};

struct worker {
	alignas(64) struct emu_worker pub;
	struct point_ctx *pc;
	pthread_t tid;
	int rc;                         /* worker_init / loop result */

	const struct engine_ops *eng;
	void *eng_priv;
	unsigned qd, inflight, nfree;
	struct io_req *reqs;            /* qd */
	struct io_req **free, **done;   /* qd each */
	struct io_req **batch;          /* qd: queued since the last commit */
	uint64_t now;                   /* latest clock reading of this worker */
	uint64_t base;                  /* added to next_io()'s offsets: the target's base */
	void *bufs;                     /* qd * buf_size, 4 KiB aligned */
	size_t buf_size;
	struct rng fill_rng;

	struct hist *hist;              /* ncls cumulative */
	uint64_t *bytes;                /* ncls */
	uint64_t (*sizes)[RESULT_SIZE_BUCKETS];

	struct ival iv[2];
	unsigned cur;
	int64_t cur_sec;
	uint64_t next_boundary;
	uint64_t t_measure;             /* copy of pc->t_measure */
	bool rated;                     /* --rate: open loop, latency from the intended start */
	uint64_t events;                /* step() calls that ended in the measured window */

	uint64_t counters[EMU_MAX_COUNTERS];
};

/* Allocate and prepare @w for point @pc (main thread). 0 or -ENOMEM. */
int worker_alloc(struct worker *w, struct point_ctx *pc, unsigned id);

/* Free what worker_alloc() made. Safe on a zeroed worker. */
void worker_release(struct worker *w);

/* Thread body: init, wait for go, run, fini. */
void *worker_main(void *arg);

/* Runner side of the interval hand-over: clear a merged buffer and give it back. */
void worker_ival_return(struct ival *iv, unsigned ncls);

#endif
