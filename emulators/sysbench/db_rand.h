/*
 * db_rand.h - SysBench's random functions, so appio picks rows the way
 * SysBench 1.0 picks them.
 *
 * SysBench's OLTP scripts draw every row id with sysbench.rand.default(),
 * whose shape --rand-type chooses (1.0's default is "special": a quarter of
 * the draws are a sum of 12 uniforms, a bell around the middle of the table,
 * and three quarters fall uniformly into 1 % of the rows at its centre, a hot
 * spot). Table numbers use sysbench.rand.uniform(), and the c and pad
 * columns are sysbench.rand.string() of templates such as
 * "###########-###########", each '#' a random digit and each '@' a random
 * lowercase letter. The formulas here reproduce SysBench's (sb_rand.c,
 * including its default parameters: 12 iterations, 1 % of the range,
 * 75 % of the draws; Pareto h = 0.2; Zipfian exponent 0.8) over appio's
 * own generator, so the distributions match while the streams differ.
 *
 * All functions are pure apart from the caller's struct rng, and may be
 * called from any thread on its own rng.
 */
#ifndef APPIO_DB_RAND_H
#define APPIO_DB_RAND_H

#include <stdint.h>

#include "appio/rand.h"

enum db_rand_type {
	DB_RAND_UNIFORM,
	DB_RAND_GAUSSIAN,
	DB_RAND_SPECIAL,
	DB_RAND_PARETO,
	DB_RAND_ZIPFIAN,
};

/* Names for --rand-type, in enum order, NULL-terminated. */
extern const char *const db_rand_type_names[];

/* A distribution with its constants precomputed for the range [1, n]. */
struct db_rand {
	enum db_rand_type type;
	uint32_t n;                     /* the range the zipfian constants suit */
	double iter_mult;               /* 1 / iterations (gaussian, special) */
	double res_mult;                /* 100 / (100 - special share) */
	double pct_mult, pct_2_mult;    /* special range: pct / 100, pct / 200 */
	double pareto_power;            /* log(h) / log(1 - h) */
	double zipf_s, zipf_h_x1, zipf_h_n; /* rejection-inversion constants */
};

/* Fill @d for @type with SysBench's default parameters over [1, @n]. */
void db_rand_init(struct db_rand *d, enum db_rand_type type, uint32_t n);

/* sysbench.rand.uniform(a, b): a + floor(u * (b - a + 1)), u in [0, 1). */
static inline uint32_t db_rand_uniform(struct rng *r, uint32_t a, uint32_t b)
{
	return a + (uint32_t)(rng_double(r) * ((double)b - a + 1));
}

/* sysbench.rand.default(a, b) with the distribution @d. */
uint32_t db_rand_default(const struct db_rand *d, struct rng *r, uint32_t a, uint32_t b);

/*
 * sysbench.rand.string(@tmpl): write strlen(@tmpl) bytes to @buf (no NUL):
 * '#' becomes a random digit, '@' a random lowercase letter, anything else
 * is copied.
 */
void db_rand_str(struct rng *r, const char *tmpl, char *buf);

#endif
