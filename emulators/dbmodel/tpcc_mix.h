/*
 * tpcc_mix.h - TPC-C's random choices: NURand (clause 2.1.6), the
 * transaction mix (clause 5.2.3: at least 43% Payment, 4% each Order-Status,
 * Delivery and Stock-Level, the rest New-Order; 45/43/4/4/4 is the standard
 * mix; sysbench-tpcc's tpcc.lua draws 10/10/1/1/1 out of 23 instead), dealt
 * from a shuffled deck as clause 5.2.4.2 allows, and the keying and think
 * times of clause 5.2.5.
 *
 * Pure functions over the caller's struct rng and deck: thread-compatible.
 */
#ifndef APPIO_TPCC_MIX_H
#define APPIO_TPCC_MIX_H

#include <stdint.h>

#include "appio/rand.h"

enum tpcc_txn { TPCC_NEW_ORDER, TPCC_PAYMENT, TPCC_ORDER_STATUS, TPCC_DELIVERY,
		TPCC_STOCK_LEVEL, TPCC_NTXN };

#define TPCC_DECK 100

/* The mixes: the specification's and sysbench-tpcc's. */
enum tpcc_mix { TPCC_MIX_SPEC, TPCC_MIX_SYSBENCH, TPCC_NMIX };

/* Each mix's weights, indexed by enum tpcc_txn; they sum to the deck's size
   (100 for the specification's, in percent; 23 for sysbench-tpcc's). */
extern const unsigned tpcc_mix_weight[TPCC_NMIX][TPCC_NTXN];

/* A worker's deck of transaction types; zeroed, it deals the specification's mix. */
struct tpcc_deck {
	uint8_t card[TPCC_DECK];
	unsigned next, size;
	enum tpcc_mix mix;
};

/* The next transaction type: cards dealt in order, reshuffled once all are dealt. */
enum tpcc_txn tpcc_deck_next(struct tpcc_deck *d, struct rng *r);

/* Uniform integer in [x, y] (the specification's random(x, y)). */
static inline uint64_t tpcc_random(struct rng *r, uint64_t x, uint64_t y)
{
	return x + rng_below(r, y - x + 1);
}

/* NURand(A, x, y) = (((random(0, A) | random(x, y)) + C) % (y - x + 1)) + x. */
static inline uint64_t tpcc_nurand(struct rng *r, uint64_t a, uint64_t x, uint64_t y, uint64_t c)
{
	return (((tpcc_random(r, 0, a) | tpcc_random(r, x, y)) + c) % (y - x + 1)) + x;
}

/* Keying time (clause 5.2.5.7) and mean think time (clause 5.2.5.4), seconds. */
extern const double tpcc_keying_s[TPCC_NTXN];
extern const double tpcc_think_s[TPCC_NTXN];

/* A think time: negative exponential with @mean, truncated at 10 x mean (clause 5.2.5.4). */
double tpcc_think(struct rng *r, double mean);

/*
 * What a statement costs the server grows with the rows it examines beyond
 * the first (--cpu-per-row each): an index range, a sort, a join. The rows
 * of sysbench-tpcc's multi-row statements, as the emulator charges them:
 */
#define TPCC_NAME_ROWS  2       /* by last name: count(c_id), then ORDER BY c_first; ~3 share a name */
#define TPCC_LINES_ROWS 9       /* over one order's ~10 lines: Order-Status's SELECT, Delivery's
				   UPDATE and SUM */
#define TPCC_SL_ROWS    399     /* Stock-Level's join: ~200 lines of 20 orders, a stock row each */

/* sysbench-tpcc's statements (BEGIN and COMMIT included) and extra rows per
   transaction type, means over its random choices (tpcc_mix.c says how). */
extern const double tpcc_sb_stmts[TPCC_NTXN];
extern const double tpcc_sb_rows[TPCC_NTXN];

#endif
