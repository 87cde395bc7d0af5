/*
 * slo.h - latency limits (--slo) and the points of a sweep that meet them.
 *
 * A limit is "[CLASS.]STAT=TIME": STAT mean, max or any percentile pN with
 * 0 < N <= 100 (p50, p95, p99.5, p99.99; p999 and p9999 are read as p99.9
 * and p99.99), TIME with a unit (ns, us, ms, s), CLASS a latency class of
 * the workload ("read", "write", "txn"...) or,
 * when left out, the class the workload headlines ("total", "txn", "loop").
 * Several limits (a comma or space list, or --slo given again) must all
 * hold. A limit on a class a point does not have, or in which it did no
 * operation, does not apply to that point (read.p99 on a write-only point).
 *
 * For a sweep, the point chosen is the one of highest throughput among the
 * whole (not partial) points that meet every limit; "first over" is the
 * point that brackets the limit from above: of the whole points that break
 * a limit, the one of lowest throughput above the chosen point's (or, when
 * none meets the limits, the lowest of all). Selection is a pure function
 * of the points' figures, fed either from a result in memory ('appio run',
 * the suite) or from a document read back ('appio report', 'appio compare').
 *
 * Nothing here prints except slo_print; main thread only.
 */
#ifndef APPIO_SLO_H
#define APPIO_SLO_H

#include <stdbool.h>
#include <stdio.h>

#include "appio/result.h"
#include "json_read.h"

enum slo_stat { SLO_MEAN, SLO_PCT, SLO_MAX };

#define SLO_MAX_LIMITS 8

struct slo_limit {
	char cls[48];                   /* "" = the headline class */
	enum slo_stat stat;
	double pct;                     /* SLO_PCT: the percentile, 0 < pct <= 100 */
	double ns;
};

struct slo {
	unsigned n;
	struct slo_limit lim[SLO_MAX_LIMITS];
};

/* One class of one point, as the selection sees it. */
struct slo_fig {
	double ops;                     /* operations in the point (0: the limit does not apply) */
	double ns;                      /* the limit's figure (NAN: not recorded) */
};

/*
 * The figure limit @l names (its class, "" = headline, and its stat) at
 * point @i; false when the point has no such class.
 */
typedef bool (*slo_fig_fn)(void *ctx, unsigned i, const struct slo_limit *l, struct slo_fig *out);

struct slo_pick {
	int best;                       /* point index, -1: none meets the limits */
	int over;                       /* point index, -1: none breaks them */
	int broken;                     /* the limit @over breaks first (index in slo.lim) */
	double over_ns;                 /* its figure there */
};

/*
 * Parse @spec and append its limits to @s (zeroed by the caller first).
 * Returns 0, or -EINVAL with one line in @err naming --slo and the accepted
 * form.
 */
int slo_parse(struct slo *s, const char *spec, char *err, size_t errlen);

/* The limits as text, "p99=2ms,read.p99=1ms" (round-trips through slo_parse). */
char *slo_format(const struct slo *s, char *buf, size_t len);

/* The stat of @l as a limit writes it: "mean", "max", "p99.9", "p95". */
char *slo_stat_name(const struct slo_limit *l, char *buf, size_t len);

/* "read.p99.9": the class and stat of @l, as the text and the document name the limit. */
char *slo_limit_name(const struct slo_limit *l, char *buf, size_t len);

/* The key of @l's figure in a result's lat_ns ("p99", "p999", "p95", "p99.5", "mean"). */
char *slo_doc_key(const struct slo_limit *l, char *buf, size_t len);

/*
 * Does point @i meet every limit? Returns -1 if so, else the index of the
 * first limit it breaks (its figure in *@ns).
 */
int slo_check(const struct slo *s, unsigned i, slo_fig_fn fn, void *ctx, double *ns);

/*
 * Choose the points (see the header comment) among @n points of throughput
 * @rate[i] (any unit; one for all points), @partial[i] true for points to
 * leave out (NULL: none).
 */
void slo_pick(const struct slo *s, unsigned n, const double *rate, const bool *partial,
	      slo_fig_fn fn, void *ctx, struct slo_pick *out);

/* slo_pick over the points of a result in memory, by their headline throughput. */
void slo_pick_result(const struct slo *s, const struct result *r, struct slo_pick *out);

/* slo_pick over a test read back from a document (its JR_OPS; its points' raw classes). */
void slo_pick_test(const struct slo *s, const struct json_read_test *t, struct slo_pick *out);

/*
 * The lines after a run's table: the chosen point and the first over the
 * limits, with their throughput and the limited figures.
 */
void slo_print(const struct slo *s, const struct result *r, FILE *f);

/*
 * The result document's "slo" member (without a leading comma):
 * "slo": {"limits": TEXT, "best": POINT|null, "first_over": POINT|null},
 * POINT = {index, threads, qd, write_pct?, ops_per_s, unit, lat_ns {STAT: ns}},
 * first_over also {broken: LIMIT, value_ns}.
 */
void slo_write_json(const struct slo *s, const struct result *r, FILE *f);

#endif
