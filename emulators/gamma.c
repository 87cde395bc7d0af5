/*
 * gamma.c - gamma sampler (see gamma.h).
 */
#include <errno.h>
#include <math.h>

#include "gamma.h"

int gamma_init(struct gamma *g, double shape, double mean)
{
	if (!(shape > 0) || !(mean > 0) || !isfinite(shape) || !isfinite(mean))
		return -EINVAL;
	g->shape = shape;
	g->mean = mean;
	g->scale = mean / shape;
	/* below shape 1 the rejection step needs shape + 1 (boosted, see gamma_next) */
	g->d = (shape < 1 ? shape + 1 : shape) - 1.0 / 3.0;
	g->c = 1.0 / sqrt(9.0 * g->d);
	return 0;
}

double gamma_normal(struct rng *r)
{
	double u, v, s;

	do {
		u = 2.0 * rng_double(r) - 1.0;
		v = 2.0 * rng_double(r) - 1.0;
		s = u * u + v * v;
	} while (s >= 1.0 || s == 0.0);
	/* the pair's second value (v * factor) is dropped: state stays in struct rng only */
	return u * sqrt(-2.0 * log(s) / s);
}

/* A standard gamma(d + 1/3) draw by squeeze and rejection. */
static double marsaglia_tsang(const struct gamma *g, struct rng *r)
{
	for (;;) {
		double x = gamma_normal(r);
		double v = 1.0 + g->c * x;
		if (v <= 0)
			continue;
		v = v * v * v;
		double u = rng_double(r);
		double x2 = x * x;
		if (u < 1.0 - 0.0331 * x2 * x2)
			return g->d * v;
		if (u > 0 && log(u) < 0.5 * x2 + g->d * (1.0 - v + log(v)))
			return g->d * v;
	}
}

double gamma_next(const struct gamma *g, struct rng *r)
{
	double x = marsaglia_tsang(g, r);

	if (g->shape < 1) {
		double u;
		do
			u = rng_double(r);
		while (u == 0);
		x *= pow(u, 1.0 / g->shape);
	}
	return x * g->scale;
}
