/*
 * emulator.h - the workload plugin contract.
 *
 * An emulator produces the I/O of one application (or one block-level access
 * spec) and is registered in emulator_table[] (src/registry.c). It comes in
 * one of two shapes:
 *
 *  - block-level (has next_io): the core keeps @qd requests in flight per
 *    worker and asks next_io() to describe each new one; the core times,
 *    submits in batches, reaps and records every request. Used by the review
 *    profiles and trace replay.
 *  - transactional (has step): step() performs one unit of application work
 *    (a transaction, a file operation) synchronously, issuing dependent I/O
 *    through emu_io() and recording application-level latency with
 *    emu_record(). Used by oltp, tpcc, nosql, the file-system personalities
 *    and the real-database emulator "db".
 *
 * An emulator of an outside service (a database server: EMU_NO_TARGET) has
 * no target and may declare what such a run needs around it, all optional:
 * named actions besides the run (prepare, cleanup), a check before the run,
 * facts for the result, its own summary, named lists for 'appio list'. The
 * core calls them by capability, never by the emulator's name.
 *
 * Open loop for transactional emulators (--rate, EMU_RATE): the core starts
 * units of work (step() calls) at a fixed rate over all foreground workers;
 * a worker takes the next intended start when it is free and calls step()
 * at once when that start has passed. step() takes the latency of its unit
 * (the transaction, the request, the loop) from emu_step_start(), the
 * intended start, so that the wait for a late start counts in it
 * (coordinated omission excluded); the latencies of the unit's parts (its
 * I/O, its statements) stay their own. An emulator sets EMU_RATE once every
 * unit latency it records is taken that way.
 *
 * The core owns all memory: it allocates the options struct (opts_size, filled
 * from the @opts table), the run-wide private state (run_priv_size) and each
 * worker's private state (worker_priv_size), zeroed and 64-byte aligned. An
 * emulator keeps no file-scope mutable state.
 *
 * Threads: setup()/teardown() run on the main thread; worker_init(), next_io(),
 * step() and worker_fini() run on the worker's own thread. During a point,
 * workers may read the run-wide state but must synchronise any writes to it
 * themselves (the core does not lock anything).
 *
 * Latency classes: @classes names the statistics classes, in index order;
 * every recorded sample carries one index. With EMU_TOTAL the core adds a
 * "total" class, merged from all the others at report time (no hot-path cost).
 *
 * Scheduled (open-loop) block-level emulators (EMU_SCHEDULED, trace replay):
 * next_io() may set r->t_intended, the absolute time (emu_now() clock) the
 * request should be submitted. The core holds it until then (sleeping until
 * emu_run.spin_ns before, then spinning), never submits it earlier, and
 * never waits for completions to submit except when all @qd slots are in
 * flight (the in-flight cap; each such wait counts in emu_worker.cap_waits).
 * Each request is then recorded three times: its service time (submission
 * to completion) in its class c, its response time (intended time to
 * completion, free of coordinated omission) in class c + N and its issue lag
 * (submission minus intended time) in class c + 2N, where N = ncls / 3: such
 * an emulator lists N classes ("read", "write"), then their response classes
 * ("read.response", ...), then their lag classes ("read.lag", ...); N is at
 * most 4, as 3N + 3 merged classes must fit in RESULT_MAX_CLASSES. Its
 * "total" merges the first N only; the core adds "response" and "lag"
 * merged from the other two groups likewise. A request with t_intended 0 is
 * submitted at once and recorded only in class c. While waiting for an
 * intended time the core reaps completions without blocking at least every
 * SCHED_POLL_NS (src/worker.c: 20 us), which bounds how late a completion is
 * seen.
 * @counters names plain event counters (buffer-pool hits, fsyncs, retries...)
 * summed over workers into the result.
 */
#ifndef APPIO_EMULATOR_H
#define APPIO_EMULATOR_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "appio/engine.h"
#include "appio/opt.h"
#include "appio/rand.h"
#include "appio/target.h"

struct result;
struct point_result;

#define EMU_MAX_CLASSES  16
#define EMU_MAX_COUNTERS 48

enum emu_flags {
	EMU_TOTAL       = 1 << 0, /* add a merged "total" class */
	EMU_WRITES      = 1 << 1, /* may write to the target (needs --force on a used device) */
	EMU_NO_TARGET   = 1 << 2, /* needs no target or engine: it drives an outside service */
	EMU_TARGET_DIR  = 1 << 3, /* the target is a directory (file-system personalities) */
	EMU_WRITE_SWEEP = 1 << 4, /* accepts --write-sweep: a point per write percentage */
	EMU_SCHEDULED   = 1 << 5, /* block-level, open loop: requests carry t_intended */
	EMU_RATE        = 1 << 6, /* transactional: step() takes its unit's latency from
				     emu_step_start(), so --rate (open loop) applies */
};

/* One sweep point: the parameters every worker of the point shares. */
struct emu_point {
	unsigned threads;
	unsigned qd;            /* requests in flight per worker (block-level) */
	int write_pct;          /* 0..100 on a --write-sweep point, else -1 */
};

/* Run-wide context, filled by the core before setup(). */
struct emu_run {
	const struct emu_ops *ops;
	void *opts;             /* the emulator's options struct, parsed */
	void *priv;             /* run_priv_size bytes */
	struct target *target;  /* NULL with EMU_NO_TARGET */
	const char *target_spec;/* --target as the user gave it: a comma list of folders is
				   how file-system emulators spread over several drives */
	uint64_t seed;          /* the run's seed; derive streams with rng_seed() */
	const char *preset;     /* preset name the run was started from, or NULL */
	/*
	 * Nonzero once the user asked to stop (Ctrl-C, SIGTERM); never NULL.
	 * setup() must look at it in every loop that can take more than a
	 * fraction of a second (laying out tables, building a file set, filling
	 * a cache) and then return -EINTR after undoing what it made, so that a
	 * run stops within a second from its first instruction to its last.
	 */
	volatile sig_atomic_t *stop;
	/*
	 * Set by setup() for block-level emulators: the largest transfer it will
	 * issue and the alignment of its offsets (defaults: 64 KiB, target lbs).
	 * Set @writes false when the configured mix never writes.
	 */
	uint32_t max_io;
	bool writes;
	/*
	 * Set by setup(): the application's own headline, shown in the table
	 * instead of IOPS when not NULL (e.g. "txn" makes the table show TPS of
	 * that class). Must name one of @classes.
	 */
	const char *headline;
	/*
	 * Set by setup() for emulators with background work (a log writer, a
	 * page cleaner, a merger): how many background workers to run beside
	 * the @threads foreground workers of every point. Each calls bg_step()
	 * in a loop until the point stops; its I/O counts in the same classes.
	 */
	unsigned bg_workers;
	/*
	 * Set by setup() of EMU_SCHEDULED emulators, both optional: the in-flight
	 * cap per worker for points whose --qd the user did not give (0: --qd),
	 * and how long before an intended time the core stops sleeping and spins
	 * (0: 50 us). Spinning costs a CPU; sleeping alone is late by the
	 * scheduler's wake-up latency.
	 */
	unsigned qd;
	uint64_t spin_ns;
	/*
	 * Set by setup(), optional: the classes and counters of this run when
	 * they depend on its options (a database emulator's workload: TPC-C's
	 * transaction types); same rules as ops->classes and ops->counters.
	 * NULL: those of the ops.
	 */
	const char *const *classes;
	const char *const *counters;
	uint64_t expect_ns;     /* set by setup(), optional: how long a point will last when
				   it ends before --time (a trace's span), for the progress line */
	uint64_t time_ns;       /* --time: a point's measured time (0: no limit) */
	unsigned npoints;       /* the points this run will sweep, for setup() to refuse
				   options that count them */
	uint64_t rate;          /* --rate: units of work (or I/Os) a second the core starts, 0:
				   closed loop; for setup() to refuse what cannot run open loop */
	bool force;             /* the run's --force, for emulators that open more targets
				   of their own with target_open() (a replay's device map) */
	struct result *result;  /* the core's; opaque to emulators: use emu_info() */
};

/* Per-worker context. The public part of the core's worker. */
struct emu_worker {
	unsigned id;                    /* 0 .. threads-1; background: threads .. */
	bool background;                /* a background worker (bg_step) */
	const struct emu_point *pt;
	const struct emu_run *run;
	void *priv;                     /* worker_priv_size bytes */
	struct rng rng;                 /* this worker's own stream */
	uint64_t *counters;             /* one per name in ops->counters */
	uint64_t t0;                    /* the point's start (emu_now() clock): workers begin */
	uint64_t cap_waits;             /* EMU_SCHEDULED: waits for a free slot at the cap */
	/*
	 * EMU_SCHEDULED: set by next_io() for the request it describes: submit it
	 * only once fewer than this many requests are in flight (a closed loop at
	 * a depth that changes request by request); 0 or above qd: the cap alone.
	 */
	unsigned inflight_limit;
	/*
	 * --rate on a transactional emulator: when the current step() was due to
	 * start (emu_now() clock; earlier than now when the run is behind its
	 * schedule); 0 in a closed loop. Read it through emu_step_start().
	 */
	uint64_t t_due;
	struct worker *core;            /* opaque to emulators */
};

/* What an action (see emu_ops.actions) is given. */
struct emu_action_args {
	const void *opts;               /* the emulator's options, parsed */
	uint64_t seed;                  /* the run's seed */
	unsigned threads;               /* the largest --threads value: how parallel it may be */
	volatile sig_atomic_t *stop;    /* nonzero (Ctrl-C): give up soon and return -EINTR */
	/*
	 * Optional (may be NULL): show @line (one line, no newline) as the
	 * action's progress; for an action that takes minutes. Main thread only.
	 */
	void (*progress)(const char *line);
};

/* What an action did, for the user and for the suite's document. */
struct emu_action_out {
	char line[1024];                /* one line saying what was done (a check: a line each) */
	uint64_t items;                 /* how many things it made (rows loaded...) */
	double seconds;                 /* how long that took */
};

/*
 * A named action besides the run: 'appio NAME ACTION' runs it instead of a
 * measurement (SysBench's prepare and cleanup). The suite runs "cleanup",
 * "prepare" before its run of the emulator and "cleanup" after it when the
 * emulator has them.
 */
struct emu_action {
	const char *name;
	const char *desc;               /* one line for --help */
	/*
	 * Runs on the main thread; prints nothing. Returns 0 with @out filled, or
	 * -EINVAL (bad input or an unreachable service: the CLI exits 2),
	 * -EINTR when *stop became nonzero, or another -errno, with one line in
	 * @err.
	 */
	int (*fn)(const struct emu_action_args *a, struct emu_action_out *out, char *err, size_t errlen);
};

/*
 * A named list of the emulator's own parts for 'appio list' and --help
 * (database drivers, workloads). item() gives the @i-th entry's name and
 * one-line description and returns false past the last.
 */
struct emu_list {
	const char *title;              /* "database drivers (--driver NAME)" */
	bool (*item)(unsigned i, const char **name, const char **desc);
};

struct emu_ops {
	const char *name;
	const char *desc;               /* one line for 'appio list' */
	unsigned flags;                 /* enum emu_flags */
	const struct opt_def *opts;     /* option table, OPT_END-terminated */
	size_t opts_size;
	size_t run_priv_size;
	size_t worker_priv_size;
	const char *const *classes;     /* NULL-terminated, at most EMU_MAX_CLASSES */
	const char *const *counters;    /* NULL-terminated or NULL */

	/*
	 * Arguments for this emulator's run in 'appio suite review' and in the
	 * scaled-down 'appio suite quick' (which must stay within its 5-minute
	 * budget), e.g. "--threads 2,4,8,16,32 --time 60". The suite adds
	 * --target and --seed. NULL: not part of the suite.
	 */
	const char *suite_review_args;
	const char *suite_quick_args;

	/*
	 * Optional. Run options this emulator defaults to, applied like a
	 * preset's arguments before the user's (who may override them), e.g.
	 * "--threads 50" for a personality whose application runs 50 threads.
	 * NULL: the core's defaults.
	 */
	const char *default_args;

	/*
	 * Optional. Will a run with these options write to the target? Asked
	 * before the target is opened (write access, the --force guard). Without
	 * it, EMU_WRITES decides. @write_sweep: a --write-sweep is given.
	 */
	bool (*will_write)(const void *opts, bool write_sweep);

	/*
	 * Optional. After options are parsed and the target is open: validate,
	 * precompute, lay out files. Returns 0 or -errno with a message in @err
	 * naming the option at fault (-EINVAL for bad input).
	 */
	int (*setup)(struct emu_run *run, char *err, size_t errlen);

	/* Optional. Per worker, before the clock starts; may allocate. 0 or -errno. */
	int (*worker_init)(struct emu_worker *w);

	/*
	 * Block-level shape. Fill r->op, r->off, r->len and r->cls (r->buf, r->fd
	 * are preset by the core; override fd for multi-file layouts). Hot path:
	 * no allocation, no locks, no stdio. Return 0, or 1 when the emulator has
	 * no more I/O (end of a trace), or -errno.
	 */
	int (*next_io)(struct emu_worker *w, struct io_req *r);

	/*
	 * Optional, block-level. Called on the worker's thread for every request
	 * that completed successfully, in or out of the measured window, with
	 * r->t_start (submission), r->t_intended and the completion time @t_done.
	 * Hot path: no allocation, no locks, no stdio. For the emulator's own
	 * accounting (a replay's per-second schedule).
	 */
	void (*complete_io)(struct emu_worker *w, const struct io_req *r, uint64_t t_done);

	/*
	 * Transactional shape. Do one unit of work. Return 0, 1 when done (no
	 * more work), or -errno to stop the run (message via emu_fail()).
	 */
	int (*step)(struct emu_worker *w);

	/*
	 * Optional, transactional. The units of work (step() calls) that end
	 * point @idx, or 0 to leave it to --events and --time. A point given a
	 * count here has no time limit (Ctrl-C and a failure still end it): a
	 * warm-up of the same work as another run's, whatever this run's rate.
	 */
	uint64_t (*point_events)(const struct emu_run *run, unsigned idx);

	/*
	 * Optional: one round of background work (see emu_run.bg_workers). Same
	 * return values as step(). It must not wait unboundedly for foreground
	 * workers, and foreground steps must not wait unboundedly for it: all
	 * workers see the stop at once; use emu_stopping() in any wait loop.
	 */
	int (*bg_step)(struct emu_worker *w);

	/* Optional. Per worker, after the last step; frees what worker_init made. */
	void (*worker_fini)(struct emu_worker *w);

	/*
	 * Optional. On the main thread after each point's workers have ended
	 * (also a partial point), with the point's merged figures in @p, before
	 * the result is saved: add facts about the point with emu_info() (a
	 * replay's accuracy). Worker state is gone by then: keep what is needed
	 * in run->priv, one slot per worker id.
	 */
	void (*point_end)(struct emu_run *run, const struct point_result *p);

	/*
	 * Optional. After the last point, on the main thread, before teardown,
	 * also after an error or an interrupt (then its own error is not the
	 * run's): finish what ran beside the points (a capture of the device),
	 * add facts with emu_info(), and return 0, or -errno with one line in
	 * @err to fail a run that was going to succeed.
	 */
	int (*finish)(struct emu_run *run, char *err, size_t errlen);

	/* Optional. After the last point (also after an error or interrupt). */
	void (*teardown)(struct emu_run *run);

	/* ---- optional, mostly for emulators of an outside service ---- */

	/* Actions besides the run, terminated by .name = NULL (see struct emu_action). */
	const struct emu_action *actions;

	/*
	 * The option a bare word after the action sets: 'appio db run
	 * oltp_read_write' = 'appio run db --workload oltp_read_write'. NULL: none.
	 */
	const char *action_word;

	/*
	 * Before the run, on the main thread, once the options are parsed: check
	 * that what the run needs is there (a server that answers, its tables),
	 * so a problem is one line before anything starts. Writes a short phrase
	 * for the run's header line into @about ("oltp_read_write on sqlite at
	 * 'x.db', 1 table(s) x 10000 rows"). Returns 0, or -EINVAL (the CLI exits
	 * 2) or -errno with one line in @err.
	 */
	int (*check)(const void *opts, char *about, size_t aboutlen, char *err, size_t errlen);

	/*
	 * After setup(), on the main thread: add facts about the run to the
	 * result with emu_info() (a server's version and the settings that
	 * decide its I/O). Must not fail the run.
	 */
	void (*info)(struct emu_run *run);

	/*
	 * The names the result gives the run: *@name the workload (default: the
	 * emulator's name) and *@engine what carries its I/O (default: the I/O
	 * engine's name). Strings must live as long as @opts.
	 */
	void (*describe)(const void *opts, const char **name, const char **engine);

	/* After the run's table, on the main thread: the emulator's own summary of @res to @f. */
	void (*summary)(const void *opts, const struct result *res, FILE *f);

	/* Named lists of the emulator's parts, terminated by .title = NULL. */
	const struct emu_list *lists;

	/*
	 * For EMU_NO_TARGET emulators in the suite: the variants its --db option
	 * picks from by name (.emulator unused), each adding its .args; "{dir}"
	 * in them, and in suite_*_args, is a scratch folder beside the suite's
	 * target, removed with its contents after the phase. The first is the
	 * default on a file target; on a block device the phase is off unless
	 * --db names one. Terminated by .name = NULL.
	 */
	const struct emu_preset *suite_variants;
};

/* NULL-terminated registry (src/registry.c). */
extern const struct emu_ops *const emulator_table[];
const struct emu_ops *emulator_find(const char *name);

/*
 * Is --NAME (the @len bytes at @name) an OPT_SECRET option of any
 * registered emulator? An opt_secret_fn: what start-up scrubs from argv and
 * what no output ever shows.
 */
bool emulator_option_is_secret(const char *name, size_t len);

/*
 * A preset is a named, documented set of options for an emulator: the review
 * profiles ("4k-randread" = profile --bs 4k --read 100 --random 100). The
 * user's own options are applied after @args, so they override it.
 */
struct emu_preset {
	const char *name;
	const char *emulator;
	const char *args;               /* space-separated "--opt value" pairs */
	const char *desc;
};
extern const struct emu_preset emu_preset_table[];   /* terminated by .name = NULL */
const struct emu_preset *emu_preset_find(const char *name);

/*
 * The presets and emulators whose names begin with @word, then those that
 * hold it elsewhere, as "a, b, c" in @buf (empty when none): what a user who
 * typed "4k" or "tpc" may have meant.
 */
void emu_names_like(const char *word, char *buf, size_t len);

/*
 * Core services for emulators (src/worker.c). Called on the worker's thread.
 */

/*
 * Add @key = @val to the result's "info" section (copied). Main thread
 * only: from setup(), info(), point_end() or finish().
 */
void emu_info(struct emu_run *run, const char *key, const char *val);

/* Monotonic time in ns. */
uint64_t emu_now(void);

/*
 * Synchronous I/O through the worker's engine, timed and recorded under class
 * @cls (bytes counted for read/write). Returns bytes transferred (0 for
 * fsync) or -errno. A failed call stops the point like emu_fail() with the
 * message every emulator shares: the operation, its length and offset, the
 * file (the target's path, or the file @fd names) and the errno text; the
 * caller just passes the -errno up. The buffer must be aligned to the
 * target's lbs for O_DIRECT; use emu_buf(). Flushes (IO_FSYNC, IO_FDATASYNC)
 * are the blocking system call in the calling thread whatever the engine,
 * as the applications emulated make them (the null engine still does none).
 */
int64_t emu_io(struct emu_worker *w, unsigned cls, unsigned op, int fd,
	       void *buf, uint32_t len, uint64_t off);

/*
 * When the current unit of work (step()) began, for its latency: the
 * intended start under --rate (emu_worker.t_due), else now. Call it once, at
 * the top of step(), where a closed loop would read emu_now().
 */
static inline uint64_t emu_step_start(const struct emu_worker *w)
{
	return w->t_due ? w->t_due : emu_now();
}

/* Record an application-level operation of class @cls that began at @t_start (emu_now()) and ends now. */
void emu_record(struct emu_worker *w, unsigned cls, uint64_t t_start, uint64_t bytes);

/* As emu_record() with an explicit end time. */
void emu_record_span(struct emu_worker *w, unsigned cls, uint64_t t_start, uint64_t t_end, uint64_t bytes);

/* One operation for emu_record_group(): its class, latency and bytes. */
struct emu_sample {
	unsigned cls;
	uint64_t lat_ns;
	uint64_t bytes;
};

/*
 * Record @n operations that belong together (a transaction and its
 * statements) as one unit ending at @t: either all of them are counted, in
 * the same per-second interval, or, when @t falls outside the measured
 * window, none. Each keeps its own latency. Recording them one by one with
 * their own end times would count the statements of a transaction that
 * straddles the start or the end of the window without the transaction, or
 * the reverse, and split it across two seconds.
 */
void emu_record_group(struct emu_worker *w, const struct emu_sample *s, unsigned n, uint64_t t);

/*
 * The worker's I/O buffer @i (0 <= i < max(qd,1)), run->max_io bytes, aligned
 * to 4096; its contents are refilled with fresh random data by emu_fill().
 */
void *emu_buf(struct emu_worker *w, unsigned i);

/* Refill @len bytes at @buf with fresh incompressible, non-repeating data; cheap. */
void emu_fill(struct emu_worker *w, void *buf, uint32_t len);

/* Has the run been told to stop (time up, Ctrl-C, another worker failed)? */
bool emu_stopping(const struct emu_worker *w);

/* Report a fatal error for the run (printed once by the CLI) and return @rc. */
int emu_fail(struct emu_worker *w, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static inline void emu_count(struct emu_worker *w, unsigned counter, uint64_t n)
{
	w->counters[counter] += n;
}

#endif
