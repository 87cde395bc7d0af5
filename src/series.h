/*
 * series.h - the per-second series of one point, assembled by the runner's
 * thread from the interval buffers the workers hand over.
 *
 * Counts, bytes, sums and maxima per second are exact whenever they arrive.
 * The 99th percentile of a second needs the merged buckets of all workers,
 * so the last few seconds are kept open in a small ring and a second's p99 is
 * computed when it is flushed; data that arrives for a second already flushed
 * (a worker stuck in one I/O for seconds) still enters its exact counters.
 */
#ifndef APPIO_SERIES_H
#define APPIO_SERIES_H

#include <stdbool.h>
#include <stdint.h>

#include "appio/result.h"
#include "worker.h"

#define SERIES_RING 4

struct series_slot {
	int64_t sec;                    /* -1: free */
	uint64_t (*b)[HIST_BUCKETS];    /* ncls bucket arrays */
};

struct series {
	unsigned ncls, ncol;            /* ncol = ncls + nmerged */
	unsigned nmerged;               /* merged columns after the classes: column m sums
					   the m-th of nmerged equal runs of classes */
	struct sec_cls *sec;            /* nsec * ncol */
	unsigned nsec, cap;
	int64_t flushed;                /* seconds below this are final */
	struct series_slot ring[SERIES_RING];
	uint64_t *scratch;              /* HIST_BUCKETS, for the merged columns */
};

/*
 * @nmerged: 0 (no merged column), 1 (a total of all classes) or 3 (a
 * scheduled emulator's total, response and lag, each of a third of the
 * classes: emulator.h); @ncls must be a multiple of it.
 */
void series_init(struct series *s, unsigned ncls, unsigned nmerged);
void series_release(struct series *s);

/* Add one worker's interval buffer (ncls classes) for second @sec. */
void series_add(struct series *s, int64_t sec, const struct ival_cls *c);

/* Compute p99 for every open second below @sec and close it. */
void series_flush_before(struct series *s, int64_t sec);

/*
 * Exact counters of second @sec for class @cls, or summed over the classes of
 * the total (all of them, or a scheduled emulator's first third) when @cls is
 * negative. Zero when there is no such second yet.
 */
void series_second(const struct series *s, int64_t sec, int cls, struct sec_cls *out);

/* Copy the series into @p: ceil(@secs) seconds, the last one possibly short. */
void series_export(const struct series *s, struct point_result *p, double secs);

#endif
