/*
 * buyer.h - what a buyer reads first: per workload, each drive's headline
 * figure at the reference point and within the latency limits (--slo),
 * ranked, with the winner of each row; and, with prices, what a unit of
 * money buys (throughput per price, price per usable TB) and, with a rated
 * endurance, how long the drive would last under the workload.
 *
 * The reference point of a workload is the one the reviews headline: the
 * last (most loaded) point the drives share, as the comparison's summaries
 * use (16T/16Q in the review suite's sweeps, the most threads for an
 * application). The SLO point is the highest-throughput point within the
 * limits (src/slo.h): the limits given to 'appio report'/'compare' (--slo),
 * or else those the run itself recorded (its --slo option). A row ranks by
 * the SLO figure when the workload has limits, else by the reference one.
 *
 * Cost arithmetic (pure, the functions below):
 *   per price      = figure / price                 (IOPS, TPS or MB/s per unit)
 *   price per TB   = price / (target size / 10^12)  (the target's usable bytes)
 *   workload DWPD  = bytes written per second x 86,400 / target size
 *   life (years)   = rated DWPD x warranty years / workload DWPD
 * The rated endurance of a drive is its DWPD over its warranty (--dwpd,
 * --warranty-years, 5 by default), so its rated writes are rated DWPD x
 * size x 365 x years; a workload writing W drive-writes a day uses them up
 * in rated DWPD x years / W years. Writes per second come from the point's
 * device counters (what reached the drive), else from its write class.
 *
 * Main thread only; nothing here exits.
 */
#ifndef APPIO_BUYER_H
#define APPIO_BUYER_H

#include <stdbool.h>
#include <stdio.h>

#include "json_read.h"
#include "slo.h"

struct buyer_opts {
	struct slo slo;                 /* --slo given to report/compare (n == 0: none) */
	double *price;                  /* per document, NAN: not given (owned by the caller) */
	double *dwpd;                   /* rated drive writes per day, NAN: not given */
	const char *currency;           /* "USD" */
	double warranty_years;          /* over which the rated DWPD holds */
};

struct buyer_cell {
	double ref;                     /* headline figure at the reference point (NAN: none) */
	double slo;                     /* at the SLO point (NAN: none meets the limits / no limits) */
	char slo_at[32];                /* that point's key */
	double write_bps;               /* bytes written per second at the ranked point (NAN) */
	unsigned rank;                  /* 1 = the best; 0 = no figure */
};

struct buyer_row {
	const char *test;               /* borrowed from the documents */
	const struct json_read_test *any;
	enum json_read_metric m;        /* the headline metric */
	char ref_at[32];
	bool has_slo;
	char slo_text[128];
	struct buyer_cell *c;           /* one per drive */
	int winner;                     /* drive index, -1 */
};

struct buyer {
	unsigned nd, nrows;
	struct buyer_row *rows;
	unsigned *wins;                 /* per drive */
};

/*
 * Build the summary of @n drives. Returns 0, or -EINVAL with one line in @err
 * when a recorded limit cannot be read (--slo of a run: not expected).
 */
int buyer_build(struct buyer *b, const struct json_read_doc *d, unsigned n,
		const struct buyer_opts *o, char *err, size_t errlen);

/* Free what buyer_build made. Safe on a zeroed struct. */
void buyer_release(struct buyer *b);

/* The summary and (with prices) the cost tables as text. */
void buyer_print(const struct buyer *b, const struct json_read_doc *d, const struct buyer_opts *o, FILE *f);

/*
 * The same as HTML: <section id="summary"> with <table id="summary-table">
 * (a row per workload, class "winner" on each row's best cell), and with
 * prices <section id="cost"> with <table id="cost-table">.
 */
void buyer_html(const struct buyer *b, const struct json_read_doc *d, const struct buyer_opts *o, FILE *f);

/* ---- the arithmetic ---- */

/* @figure per unit of @price; NAN unless both are positive numbers. */
double buyer_per_price(double figure, double price);

/* Price per 10^12 bytes of @bytes; NAN unless both are positive. */
double buyer_price_per_tb(double price, double bytes);

/* Drive writes per day of @write_bps bytes per second on @bytes; NAN unless bytes > 0. */
double buyer_dwpd(double write_bps, double bytes);

/* Years a drive rated @rated DWPD over @years lasts at @dwpd; INFINITY when dwpd is 0. */
double buyer_life_years(double rated, double years, double dwpd);

#endif
