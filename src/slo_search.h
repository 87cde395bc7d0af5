/*
 * slo_search.h - --slo-search: the throughput at the --slo limits, found by
 * rate-limited runs (--rate, latency from each I/O's intended start) where
 * the sweep's points are too coarse to show it.
 *
 * Rates are I/Os a second for block-level profiles and units of work a
 * second (point_rate_reached) for transactional emulators, whose --rate
 * counts those. The runs are at the sweep's busiest whole point (its threads and queue
 * depth: the most I/O the sweep could keep in flight), each for the job's
 * --ramp + --time, bisecting between the best point's throughput (or 0) and
 * the busiest point's. A rate passes when every limit holds and the point
 * reached 99 % of it. The search stops when the bracket is within 2 % of
 * its top or after --slo-search N runs (at most SLO_SEARCH_PROBES). Main thread only.
 */
#ifndef APPIO_SLO_SEARCH_H
#define APPIO_SLO_SEARCH_H

#include <signal.h>
#include <stdbool.h>
#include <stdio.h>

#include "appio/result.h"
#include "slo.h"

#define SLO_SEARCH_PROBES 8

struct slo_probe {
	double rate;                    /* asked, IOPS */
	double ops_per_s;               /* reached */
	bool meets;
	int broken;                     /* the limit it broke (index), -1 */
	double ns;                      /* its figure there */
};

struct slo_search {
	const struct slo *slo;          /* not owned */
	bool ran;                       /* a search was made (else @why says why not) */
	unsigned threads, qd;           /* where the probes ran */
	const char *unit;               /* of the rates: "IOPS", or TPS... for a transactional
					   emulator (units of work a second); NULL: IOPS */
	double lo, hi;                  /* the bracket it started from, IOPS */
	unsigned n;
	struct slo_probe p[SLO_SEARCH_PROBES];
	double at_limit;                /* the highest rate that passed (0: none) */
	char why[160];                  /* a search not made, or its outcome in words */
};

struct job;

/* Run at @rate and judge it (fill every field of @out). 0 or the runner's -errno. */
typedef int (*slo_probe_fn)(void *ctx, double rate, struct slo_probe *out);

/*
 * The bisection alone: from the bracket s->lo (passes, or 0) .. s->hi
 * (fails), at most @max_probes (capped at SLO_SEARCH_PROBES) calls of @fn at
 * the middle rate (whole IOPS), until the bracket is within 2 % of its top.
 * Sets s->ran, s->n, s->p, s->at_limit (the highest rate that passed, or
 * s->lo). A line per probe to @log (may be NULL). Returns 0 or @fn's error.
 */
int slo_bisect(struct slo_search *s, unsigned max_probes, slo_probe_fn fn, void *ctx, FILE *log);

/*
 * Search for job @j (its target open, its sweep finished in @sweep) and
 * fill @out; a line per probe to @log (may be NULL). Returns 0, -EINTR when
 * *@stop became nonzero (the probes so far are in @out), or the runner's
 * -errno with one line in @err.
 */
int slo_search_run(struct job *j, const struct result *sweep, struct slo_search *out,
		   volatile sig_atomic_t *stop, FILE *log, char *err, size_t errlen);

/* The search's outcome in one line (after the table). */
void slo_search_print(const struct slo_search *s, FILE *f);

/*
 * "slo_search": {threads, qd, from_iops, to_iops, unit, probes [ {rate_iops,
 * ops_per_s, meets, broken?, value_ns?} ], at_limit_iops, note} (no leading comma).
 */
void slo_search_write_json(const struct slo_search *s, FILE *f);

#endif
