/*
 * dist.c - which block an I/O touches: uniform, zipf, pareto and normal.
 *
 * zipf uses rejection-inversion (Hörmann & Derflinger, "Rejection-inversion
 * to generate variates from monotone discrete distributions", ACM TOMACS
 * 6(3), 1996) with the integral H(x) = (x^(1-theta) - 1) / (1 - theta), which
 * has a limit at theta = 1 and so works for every theta > 0. Set-up is a few
 * logarithms and a draw needs about one uniform number, so a 2^40-block
 * device costs no more than a small file; a table of n ranks would not fit.
 *
 * pareto uses fio's formula, n * u^(log h / log(1 - h)), so "pareto:0.9"
 * means the same skew in both tools: a fraction h of the accesses goes to
 * the hottest 1 - h of the blocks.
 *
 * Ranks (hottest first) are spread over the range by multiplying with a
 * constant coprime to n modulo n: a permutation, so each block keeps exactly
 * one rank's share, and the hot set is not a run of neighbouring blocks that
 * a device cache or read-ahead would favour.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "appio/dist.h"

#define SCATTER_SEED  UINT64_C(0x9e3779b97f4a7c15)    /* 2^64 / golden ratio, odd */
#define NORMAL_TRIES  64        /* redraws before clamping: 1 in 10^13 at sigma 100 */
#define TAYLOR_EDGE   1e-8      /* below this, series beat log1p(x)/x and expm1(x)/x */

static uint64_t gcd(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;
		a = b;
		b = t;
	}
	return a;
}

/* First multiplier from SCATTER_SEED mod n on that is coprime to n (1 always is). */
static uint64_t scatter_for(uint64_t n)
{
	uint64_t m = SCATTER_SEED % n;

	while (gcd(m, n) != 1)
		m = (m + 1) % n;
	return m;
}

static uint64_t scatter(const struct dist *d, uint64_t rank)
{
	return (uint64_t)((unsigned __int128)rank * d->scatter % d->n);
}

/* log1p(x) / x, continuous at 0. */
static double helper1(double x)
{
	if (fabs(x) > TAYLOR_EDGE)
		return log1p(x) / x;
	return 1 - x * (0.5 - x * (1.0 / 3 - 0.25 * x));
}

/* expm1(x) / x, continuous at 0. */
static double helper2(double x)
{
	if (fabs(x) > TAYLOR_EDGE)
		return expm1(x) / x;
	return 1 + x * 0.5 * (1 + x / 3 * (1 + 0.25 * x));
}

/* The hat function h(x) = x^-theta, its integral H and H's inverse. */
static double zipf_h(double x, double theta)
{
	return exp(-theta * log(x));
}

static double zipf_hint(double x, double theta)
{
	double lx = log(x);
	return helper2((1 - theta) * lx) * lx;
}

static double zipf_hint_inv(double x, double theta)
{
	double t = x * (1 - theta);
	if (t < -1)
		t = -1;         /* rounding can push t just past the domain of log1p */
	return exp(helper1(t) * x);
}

static void zipf_init(struct dist *d)
{
	double theta = d->param;

	d->c[0] = theta;
	d->c[1] = zipf_hint(1.5, theta) - 1;                   /* H(x1), x1 below rank 1 */
	d->c[2] = zipf_hint((double)d->n + 0.5, theta);        /* H(n + 1/2) */
	/* squeeze: k - x <= c[3] accepts without evaluating H (Theorem 2) */
	d->c[3] = 2 - zipf_hint_inv(zipf_hint(2.5, theta) - zipf_h(2, theta), theta);
}

/* Rank in [0, n), 0 the hottest, with P(rank k-1) proportional to k^-theta. */
static uint64_t zipf_rank(const struct dist *d, struct rng *r)
{
	double theta = d->c[0], hx1 = d->c[1], hn = d->c[2], nd = (double)d->n;

	for (;;) {
		/* u is uniform on (H(x1), H(n + 1/2)] */
		double u = hn + rng_double(r) * (hx1 - hn);
		double x = zipf_hint_inv(u, theta);
		double k = floor(x + 0.5);
		if (k < 1)
			k = 1;
		else if (k > nd)
			k = nd;
		if (k - x <= d->c[3] || u >= zipf_hint(k + 0.5, theta) - zipf_h(k, theta)) {
			uint64_t rank = (uint64_t)k - 1;
			return rank < d->n ? rank : d->n - 1;
		}
	}
}

/* fio's pareto: the density grows towards the top of the range, so flip it. */
static uint64_t pareto_rank(const struct dist *d, struct rng *r)
{
	uint64_t v = (uint64_t)((double)d->n * pow(rng_double(r), d->c[0]));

	if (v >= d->n)
		v = d->n - 1;   /* u^p rounds to 1.0 for u close enough to 1 */
	return d->n - 1 - v;
}

/* Standard normal deviate, Marsaglia's polar method. */
static double gauss(struct rng *r)
{
	for (;;) {
		double a = 2 * rng_double(r) - 1;
		double b = 2 * rng_double(r) - 1;
		double q = a * a + b * b;
		if (q > 0 && q < 1)
			return a * sqrt(-2 * log(q) / q);
	}
}

/* Redraw values outside the range rather than clamp them, which would pile up the ends. */
static uint64_t normal_next(const struct dist *d, struct rng *r)
{
	double x = 0, nd = (double)d->n;

	for (int i = 0; i < NORMAL_TRIES; i++) {
		x = d->c[0] + d->c[1] * gauss(r);
		if (x >= 0 && x < nd) {
			uint64_t b = (uint64_t)x;
			return b < d->n ? b : d->n - 1;
		}
	}
	return x < 0 ? 0 : d->n - 1;
}

static bool param_ok(const struct opt_dist *spec)
{
	double p = spec->param;

	switch (spec->kind) {
	case DIST_UNIFORM:
		return true;
	case DIST_ZIPF:
		return p > 0 && p != 1 && isfinite(p);
	case DIST_PARETO:
		return p > 0 && p < 1;
	case DIST_NORMAL:
		return p > 0 && p <= 100;
	}
	return false;
}

int dist_init(struct dist *d, const struct opt_dist *spec, uint64_t n)
{
	if (!n || !param_ok(spec))
		return -EINVAL;
	memset(d, 0, sizeof(*d));
	d->kind = spec->kind;
	d->param = spec->param;
	d->n = n;
	d->scatter = scatter_for(n);
	switch (d->kind) {
	case DIST_UNIFORM:
		break;
	case DIST_ZIPF:
		zipf_init(d);
		break;
	case DIST_PARETO:
		d->c[0] = log(d->param) / log(1 - d->param);
		break;
	case DIST_NORMAL:
		d->c[0] = (double)n / 2;
		d->c[1] = d->param / 100 * (double)n;
		break;
	}
	return 0;
}

uint64_t dist_next(const struct dist *d, struct rng *r)
{
	switch (d->kind) {
	case DIST_UNIFORM:
		break;
	case DIST_ZIPF:
		return scatter(d, zipf_rank(d, r));
	case DIST_PARETO:
		return scatter(d, pareto_rank(d, r));
	case DIST_NORMAL:
		return normal_next(d, r);
	}
	return rng_below(r, d->n);
}
