/*
 * tpcc_mix.c - TPC-C's mix, keying and think times (see tpcc_mix.h).
 */
#include <math.h>

#include "tpcc_mix.h"

const unsigned tpcc_mix_weight[TPCC_NMIX][TPCC_NTXN] = {
	[TPCC_MIX_SPEC] = { 45, 43, 4, 4, 4 },
	[TPCC_MIX_SYSBENCH] = { 10, 10, 1, 1, 1 },
};
const double tpcc_keying_s[TPCC_NTXN] = { 18, 3, 2, 2, 2 };
const double tpcc_think_s[TPCC_NTXN] = { 12, 12, 10, 5, 5 };

/*
 * New-Order: BEGIN, customer+warehouse, district read and updated, order and
 * new-order inserted, 10 lines (5..15) of item, stock read and updated,
 * order line; COMMIT. Payment: BEGIN, warehouse and district each updated
 * and read, 60% by name (2 statements), the customer read, 10% its c_data,
 * updated, history inserted, COMMIT. Order-Status: BEGIN, the customer (2
 * statements by name, 60%), its orders, the lines, COMMIT. Delivery: BEGIN,
 * 7 statements in each of 10 districts, COMMIT. Stock-Level: BEGIN,
 * district, the join, COMMIT.
 */
const double tpcc_sb_stmts[TPCC_NTXN] = { 47, 10.3, 5.6, 72, 4 };
const double tpcc_sb_rows[TPCC_NTXN] = {
	0, 0.6 * 2 * TPCC_NAME_ROWS, 0.6 * 2 * TPCC_NAME_ROWS + TPCC_LINES_ROWS,
	10 * 2 * TPCC_LINES_ROWS, TPCC_SL_ROWS,
};

static void deal(struct tpcc_deck *d, struct rng *r)
{
	unsigned n = 0;

	for (unsigned t = 0; t < TPCC_NTXN; t++)
		for (unsigned k = 0; k < tpcc_mix_weight[d->mix][t]; k++)
			d->card[n++] = (uint8_t)t;
	d->size = n;
	for (unsigned i = n - 1; i > 0; i--) {
		unsigned j = (unsigned)rng_below(r, i + 1);
		uint8_t tmp = d->card[i];
		d->card[i] = d->card[j];
		d->card[j] = tmp;
	}
	d->next = 0;
}

enum tpcc_txn tpcc_deck_next(struct tpcc_deck *d, struct rng *r)
{
	if (d->next == 0 || d->next >= d->size)
		deal(d, r);
	return (enum tpcc_txn)d->card[d->next++];
}

double tpcc_think(struct rng *r, double mean)
{
	double u = rng_double(r);
	double t = -log(u > 1e-300 ? u : 1e-300) * mean;
	return t > 10 * mean ? 10 * mean : t;
}
