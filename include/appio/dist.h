/*
 * dist.h - offset distributions: which block of the target an I/O touches.
 *
 * A distribution draws a block number in [0, n). uniform covers the range
 * evenly; zipf, pareto and normal concentrate accesses on hot blocks the way
 * fio's random_distribution does, with the same parameter meanings:
 *   zipf:THETA     rank k drawn with probability proportional to 1/k^THETA
 *                  (THETA > 0, != 1; 1.2 is a common "hot" setting)
 *   pareto:H       H in (0,1): the fraction of accesses that go to the
 *                  hottest (1-H) fraction of blocks (0.9 -> 90/10 rule)
 *   normal:SIGMA   Gaussian around the middle of the range, SIGMA in percent
 *                  of the range
 * For zipf and pareto the hot ranks are scattered over the whole range by a
 * bijective permutation, so hot blocks are not all at the start of the device.
 *
 * dist_init() may do O(1) set-up work only (no table over n), so it is
 * usable on a multi-terabyte device. dist_next() is O(1), allocation-free
 * and reads @d only, so one struct dist can be shared by all workers, each
 * with its own struct rng.
 */
#ifndef APPIO_DIST_H
#define APPIO_DIST_H

#include <stdint.h>

#include "appio/opt.h"
#include "appio/rand.h"

struct dist {
	enum dist_kind kind;
	double param;
	uint64_t n;             /* range size */
	double c[6];            /* precomputed constants, meaning per kind */
	uint64_t scatter;       /* multiplier coprime to n for the permutation */
};

/* Prepare @d to draw from [0, @n), n >= 1. 0 or -EINVAL for a bad parameter. */
int dist_init(struct dist *d, const struct opt_dist *spec, uint64_t n);

/* Draw one block number in [0, d->n). */
uint64_t dist_next(const struct dist *d, struct rng *r);

#endif
