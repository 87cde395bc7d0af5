/*
 * db_rand.c - SysBench 1.0's row-picking distributions (see db_rand.h).
 */
#include <math.h>
#include <stddef.h>

#include "db_rand.h"

#define SPEC_ITER 12            /* --rand-spec-iter */
#define SPEC_PCT  1             /* --rand-spec-pct: hot spot, % of the rows */
#define SPEC_RES  75            /* --rand-spec-res: % of draws into the hot spot */
#define PARETO_H  0.2           /* --rand-pareto-h */
#define ZIPF_EXP  0.8           /* --rand-zipfian-exp */

const char *const db_rand_type_names[] = {
	"uniform", "gaussian", "special", "pareto", "zipfian", NULL,
};

/*
 * Zipfian by rejection-inversion (Hörmann and Derflinger, 1996): invert the
 * integral H of the hat h(x) = x^-e, round to an integer k, accept k when
 * the draw falls under the histogram bar of k. H(x) = (x^(1-e) - 1)/(1-e),
 * written with expm1/log1p so e = 1 and e near 1 stay exact.
 */
static double zipf_hat(double x, double e)
{
	return exp(-e * log(x));
}

static double zipf_h(double x, double e)
{
	double lx = log(x), t = (1 - e) * lx;
	return (fabs(t) > 1e-8 ? expm1(t) / t : 1 + t / 2 * (1 + t / 3 * (1 + t / 4))) * lx;
}

static double zipf_h_inv(double x, double e)
{
	double t = x * (1 - e);
	if (t < -1)
		t = -1;         /* rounding can push it just below the domain */
	return exp((fabs(t) > 1e-8 ? log1p(t) / t : 1 - t * (0.5 - t * (1.0 / 3 - t / 4))) * x);
}

static void zipf_init(struct db_rand *d, uint32_t n)
{
	d->n = n;
	d->zipf_h_x1 = zipf_h(1.5, ZIPF_EXP) - 1;
	d->zipf_h_n = zipf_h(n + 0.5, ZIPF_EXP);
	d->zipf_s = 2 - zipf_h_inv(zipf_h(2.5, ZIPF_EXP) - zipf_hat(2, ZIPF_EXP), ZIPF_EXP);
}

/* A Zipf-distributed integer in [1, n]. */
static uint32_t zipf(const struct db_rand *d, struct rng *r, uint32_t n)
{
	double h_n = n == d->n ? d->zipf_h_n : zipf_h(n + 0.5, ZIPF_EXP);

	for (;;) {
		double u = h_n + rng_double(r) * (d->zipf_h_x1 - h_n);
		double x = zipf_h_inv(u, ZIPF_EXP);
		uint32_t k = x < 1 ? 1 : x + 0.5 > n ? n : (uint32_t)(x + 0.5);
		if (k - x <= d->zipf_s || u >= zipf_h(k + 0.5, ZIPF_EXP) - zipf_hat(k, ZIPF_EXP))
			return k;
	}
}

void db_rand_init(struct db_rand *d, enum db_rand_type type, uint32_t n)
{
	d->type = type;
	d->iter_mult = 1.0 / SPEC_ITER;
	d->res_mult = 100.0 / (100.0 - SPEC_RES);
	d->pct_mult = SPEC_PCT / 100.0;
	d->pct_2_mult = SPEC_PCT / 200.0;
	d->pareto_power = log(PARETO_H) / log(1.0 - PARETO_H);
	zipf_init(d, n ? n : 1);
}

static uint32_t gaussian(const struct db_rand *d, struct rng *r, uint32_t a, uint32_t b)
{
	double t = (double)b - a + 1, sum = 0;

	for (int i = 0; i < SPEC_ITER; i++)
		sum += rng_double(r) * t;
	return a + (uint32_t)(sum * d->iter_mult);
}

/*
 * SysBench's "special": one uniform draw decides the branch. Below 1/4 of
 * the stretched range, a 12-term bell over [a, b]; otherwise the same draw,
 * rescaled, lands in the SPEC_PCT % of the range around its middle.
 */
static uint32_t special(const struct db_rand *d, struct rng *r, uint32_t a, uint32_t b)
{
	double t = (double)b - a;
	double rnd = rng_double(r);

	if (rnd * t * d->res_mult < t) {
		double sum = 0;
		for (int i = 0; i < SPEC_ITER; i++)
			sum += rng_double(r);
		return a + (uint32_t)(sum * t * d->iter_mult);
	}
	double res = rnd * (t * d->pct_mult + 1);
	res += t / 2 - t * d->pct_2_mult;
	return a + (uint32_t)res;
}

uint32_t db_rand_default(const struct db_rand *d, struct rng *r, uint32_t a, uint32_t b)
{
	switch (d->type) {
	case DB_RAND_GAUSSIAN:
		return gaussian(d, r, a, b);
	case DB_RAND_SPECIAL:
		return special(d, r, a, b);
	case DB_RAND_PARETO:
		return a + (uint32_t)(((double)b - a + 1) * pow(rng_double(r), d->pareto_power));
	case DB_RAND_ZIPFIAN:
		return a + zipf(d, r, b - a + 1) - 1;
	case DB_RAND_UNIFORM:
	default:
		return db_rand_uniform(r, a, b);
	}
}

/*
 * Each 64-bit draw is read as a binary fraction and yields several
 * characters by repeated multiplication (the integer part of x * base is the
 * next character). A draw is used for at most 40 bits' worth (4 per digit, 5
 * per letter), so at least 24 random bits lie under every character and each
 * is uniform to better than one part in a million, at a tenth of the cost of
 * a draw per character.
 */
void db_rand_str(struct rng *r, const char *tmpl, char *buf)
{
	uint64_t x = 0;
	unsigned budget = 0;

	for (size_t i = 0; tmpl[i]; i++) {
		unsigned base = tmpl[i] == '#' ? 10 : tmpl[i] == '@' ? 26 : 0;
		unsigned cost = base == 10 ? 4 : 5;
		if (!base) {
			buf[i] = tmpl[i];
			continue;
		}
		if (budget < cost) {
			x = rng_next(r);
			budget = 40;
		}
		unsigned __int128 m = (unsigned __int128)x * base;
		buf[i] = (char)((base == 10 ? '0' : 'a') + (unsigned)(m >> 64));
		x = (uint64_t)m;
		budget -= cost;
	}
}
