/*
 * gamma.h - gamma-distributed random numbers, for file sizes.
 *
 * filebench gives its file sets gamma-distributed sizes (shape 1.5 by
 * default): most files near the mean, a long thin tail of large ones. The
 * sampler is Marsaglia and Tsang's (ACM TOMS 26(3), 2000): one normal and one
 * uniform draw per try, accepted about 98% of the time for shape >= 1; a
 * shape below 1 is drawn as shape + 1 and scaled by U^(1/shape).
 *
 * Parameterised by shape k and mean m (scale = m / k): the mean is m and the
 * variance m^2 / k, so the shape can be checked from a sample as mean^2/var.
 * A struct gamma is read-only after gamma_init(), so one can be shared by
 * all threads, each with its own struct rng.
 */
#ifndef APPIO_GAMMA_H
#define APPIO_GAMMA_H

#include "appio/rand.h"

struct gamma {
	double shape, mean;
	double d, c;            /* Marsaglia-Tsang constants for max(shape, shape + 1) */
	double scale;           /* mean / shape */
};

/* Prepare @g. Returns 0, or -EINVAL unless shape > 0 and mean > 0 (both finite). */
int gamma_init(struct gamma *g, double shape, double mean);

/* One draw (> 0). */
double gamma_next(const struct gamma *g, struct rng *r);

/* One standard normal draw (Marsaglia's polar method). */
double gamma_normal(struct rng *r);

#endif
