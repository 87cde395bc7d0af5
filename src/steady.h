/*
 * steady.h - the steady-state detector of SNIA's Performance Test
 * Specification, applied to one figure per round (IOPS or TPS).
 *
 * A device is preconditioned in rounds of fixed length; after each round the
 * caller asks whether the last STEADY_WINDOW rounds (the measurement window)
 * are steady:
 *   - data excursion: every round's value lies within STEADY_EXCURSION_PCT
 *     (20 %) of the window's average, |x - avg| <= 0.20 avg;
 *   - slope excursion: the least-squares line through the window changes by
 *     at most STEADY_SLOPE_PCT (10 %) of the average across the window,
 *     |slope| x (window - 1) <= 0.10 avg.
 * The PTS words the data criterion as max - min <= 20 % of the average,
 * which is stricter than the per-round test above; the verdict records that
 * range too (range_pct) so a reader can apply the stricter form.
 *
 * Pure functions on arrays: no I/O, no allocation, callable from any thread.
 */
#ifndef APPIO_STEADY_H
#define APPIO_STEADY_H

#include <stdbool.h>
#include <stdio.h>

#define STEADY_WINDOW        5       /* rounds in the measurement window */
#define STEADY_EXCURSION_PCT 20.0    /* every round within this % of the window average */
#define STEADY_SLOPE_PCT     10.0    /* fitted change across the window, % of the average */

struct steady_verdict {
	bool reached;           /* both criteria hold for the window */
	unsigned first, last;   /* 1-based rounds of the window examined (0, 0: no rounds) */
	double avg, min, max;   /* of the window's values */
	double slope;           /* least-squares slope, figure per round */
	double excursion_pct;   /* largest |x - avg| / avg, in % */
	double range_pct;       /* (max - min) / avg, in % (the PTS wording) */
	double fit_pct;         /* |slope| x (window - 1) / avg, in % */
};

/*
 * Judge the window that ends at the last of @n rounds @x (the window is all
 * of them while n < STEADY_WINDOW, and then never steady). An average of 0
 * or less (a dead device, an empty round) is never steady. Returns 0, or
 * -EINVAL when @x or @v is NULL.
 */
int steady_check(const double *x, unsigned n, struct steady_verdict *v);

/*
 * Find the first round at which the series became steady: the earliest
 * window of @x[0..n) that passes steady_check(). Fills @v with that window,
 * or with the last window when none passes. Returns 1 when steady state was
 * reached, 0 when not, -EINVAL on NULL arguments.
 */
int steady_first(const double *x, unsigned n, struct steady_verdict *v);

/*
 * Write the verdict as one JSON object value (no trailing newline):
 *   {"reached", "round" (the round it was reached, or null), "rounds_run",
 *    "max_rounds", "round_s", "metric", "rounds": [figure per round],
 *    "window": {first, last, avg, min, max, slope_per_round,
 *               excursion_pct, range_pct, fit_pct},
 *    "criteria": {window, excursion_pct, slope_pct}}
 * @metric names the figure ("IOPS", "TPS").
 */
void steady_write_json(FILE *f, const struct steady_verdict *v, const double *x, unsigned n,
		       unsigned max_rounds, double round_s, const char *metric);

/* One line for people: "reached at round 7 (window 3-7: avg 12,345 ...)" or "not reached after 25 rounds (...)". */
char *steady_describe(const struct steady_verdict *v, unsigned n, const char *metric,
		      char *buf, size_t len);

#endif
