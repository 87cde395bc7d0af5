/*
 * test_gamma.c - the file-size sampler: over 100,000 draws the sample mean
 * and the shape estimated by moments (mean^2 / variance) are within 2% of
 * what was asked, for filebench's shape 1.5 and shapes on either side of 1.
 */
#include <errno.h>
#include <math.h>

#include "gamma.h"
#include "check.h"

#define DRAWS 100000

static void moments(double shape, double mean, uint64_t seed)
{
	struct gamma g;
	struct rng r;
	double sum = 0, sum2 = 0, min = INFINITY;

	CHECK(gamma_init(&g, shape, mean) == 0, "init %g %g", shape, mean);
	rng_seed(&r, seed, 1);
	for (int i = 0; i < DRAWS; i++) {
		double x = gamma_next(&g, &r);
		sum += x;
		sum2 += x * x;
		min = x < min ? x : min;
	}
	double m = sum / DRAWS;
	double var = sum2 / DRAWS - m * m;
	double k = m * m / var;
	CHECK(min > 0, "draws are positive (min %g)", min);
	CHECK(fabs(m / mean - 1) < 0.02, "shape %g: mean %g, wanted %g", shape, m, mean);
	CHECK(fabs(k / shape - 1) < 0.02, "shape %g: estimated shape %g", shape, k);
}

static void filebench_sizes(void)
{
	moments(1.5, 128 * 1024, 42);
	moments(1.5, 16 * 1024, 7);
}

static void other_shapes(void)
{
	moments(0.7, 1000, 3);
	moments(1.0, 1000, 4);
	moments(4.0, 1000, 5);
}

static void bad_parameters(void)
{
	struct gamma g;
	CHECK(gamma_init(&g, 0, 1) == -EINVAL, "shape 0");
	CHECK(gamma_init(&g, 1.5, 0) == -EINVAL, "mean 0");
	CHECK(gamma_init(&g, -1, 5) == -EINVAL, "negative shape");
	CHECK(gamma_init(&g, NAN, 5) == -EINVAL, "NaN shape");
	CHECK(gamma_init(&g, INFINITY, 5) == -EINVAL, "infinite shape");
}

static void normal_moments(void)
{
	struct rng r;
	double sum = 0, sum2 = 0;

	rng_seed(&r, 9, 1);
	for (int i = 0; i < DRAWS; i++) {
		double x = gamma_normal(&r);
		sum += x;
		sum2 += x * x;
	}
	CHECK(fabs(sum / DRAWS) < 0.02, "normal mean %g", sum / DRAWS);
	CHECK(fabs(sum2 / DRAWS - 1) < 0.02, "normal variance %g", sum2 / DRAWS);
}

int main(void)
{
	RUN(filebench_sizes);
	RUN(other_shapes);
	RUN(bad_parameters);
	RUN(normal_moments);
	return check_done();
}
