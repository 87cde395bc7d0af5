/*
 * replay.h - the trace replayer's shared pieces: its options, run-wide state
 * and the per-worker schedule statistics that replay_acc.c turns into the
 * accuracy figures of a point (private to emulators/replay*.c).
 */
#ifndef APPIO_REPLAY_H
#define APPIO_REPLAY_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "appio/cpuload.h"
#include "appio/emulator.h"
#include "appio/target.h"
#include "appio/trace.h"

#define REPLAY_MAX_WORKERS 1024         /* the --threads bound */
#define REPLAY_LATE_NS     1000000ULL   /* "late": issued more than 1 ms after its time */
#define REPLAY_LEAD_NS     5000000ULL   /* schedule starts 5 ms after the point, workers awake */
#define REPLAY_MAX_TARGETS 16           /* --device-map entries */

enum replay_timing { REPLAY_TRACE, REPLAY_AFAP, REPLAY_LOAD, REPLAY_BOUNDED };

/* Does @timing (enum replay_timing) keep the trace's schedule? */
static inline int replay_scheduled(int timing)
{
	return timing == REPLAY_TRACE || timing == REPLAY_BOUNDED;
}

/* Does @timing hold each I/O to the trace's in-flight count at it? */
static inline int replay_bounded(int timing)
{
	return timing == REPLAY_LOAD || timing == REPLAY_BOUNDED;
}
enum replay_map { REPLAY_MAP_ERROR, REPLAY_MAP_WRAP, REPLAY_MAP_SCALE };
enum replay_cls { RC_READ, RC_WRITE, RC_FLUSH, RC_DISCARD, RC_NR };
enum replay_counter { RCN_SKIPPED, RCN_LATE, RCN_CAP_WAITS, RCN_FEED_WAITS, RCN_NR };

struct replay_opts {
	const char *trace;
	const char *from;               /* format name, or NULL: guessed */
	int timing;                     /* enum replay_timing */
	double speed;
	uint64_t loops;
	int map;                        /* enum replay_map */
	uint64_t align;
	const char *ops;                /* comma list of op names */
	struct opt_strlist device_map;  /* SRC=PATH, each its own target */
	uint64_t spin_us;
	bool queue;                     /* blkparse/blktrace: Q events */
	const char *cpu_load;           /* off, PCT or recorded */
};

/*
 * One worker's view of the schedule, per second of it (second 0 starts at
 * the worker's schedule origin): I/Os due, I/Os submitted, I/Os due in that
 * second and submitted more than REPLAY_LATE_NS late, whether the worker
 * waited at the in-flight cap, and whether it found its feed of records
 * empty (the trace read too slowly). Allocated by worker_init, read and freed on
 * the main thread by point_end.
 */
struct replay_stats {
	uint64_t nsec;
	uint32_t *due, *done, *late;
	uint8_t *capped, *starved;
	uint64_t first_due, last_due;           /* relative to the origin, ns */
	uint64_t first_sub, last_sub;
	uint64_t ios, cap_seen;
};

struct replay_run {
	const char *trace;                      /* the file: --trace, or the bundled trace it names */
	char trace_buf[4096];
	const struct trace_format *fmt;
	struct trace_opts topts;
	unsigned ops_mask;                      /* 1 << enum trace_op */
	uint64_t align;
	uint32_t ndev;
	uint64_t *extent;                       /* ndev: highest byte each device touches */
	char (*names)[48];                      /* ndev: the trace's device names */
	uint8_t *dev_tgt;                       /* ndev: 0 the run's target, k the k-th map entry */
	struct target tgt[REPLAY_MAX_TARGETS + 1];  /* [0] a copy of the run's; then --device-map */
	unsigned ntgt;
	uint64_t size[REPLAY_MAX_TARGETS + 1];  /* bytes usable of each, aligned */
	uint64_t period_ns;                     /* one loop of the trace, on the trace's clock */
	uint64_t ios_per_loop;                  /* I/Os one loop submits */
	unsigned qd;                            /* the in-flight cap used by default */
	unsigned npoints;                       /* points ended so far */
	bool has_inflight;                      /* the trace tells in-flight counts */
	double recorded_busy;                   /* the capture's machine busy share, % (-1: not told) */
	bool load_on;                           /* --cpu-load: burners hold the busy share */
	struct cpuload load;
	struct replay_stats *ws[REPLAY_MAX_WORKERS];
};

/*
 * The verdict on the first @nsec seconds of @m into @buf. A second is late
 * when more than 1 % of the I/Os due in it were over 1 ms late. One late
 * second between seconds that kept time is a stall (the replay fell behind
 * for a moment and caught up); it could not keep up when two seconds in a row
 * were late, or when a late second met the in-flight cap (@qd) or a feeder
 * that fell behind. @timing is an enum replay_timing: only REPLAY_TRACE and
 * REPLAY_BOUNDED have a schedule to keep.
 */
void replay_verdict(const struct replay_stats *m, uint64_t nsec, int timing, unsigned qd,
		    char *buf, size_t len);

/* The accuracy of the point just ended into the result (emu_ops.point_end). */
void replay_point_end(struct emu_run *run, const struct point_result *p);

/* The accuracy block after the table (emu_ops.summary). */
void replay_summary(const void *opts, const struct result *res, FILE *f);

/* Free a worker's statistics; NULL is fine. */
void replay_stats_free(struct replay_stats *st);

#endif
