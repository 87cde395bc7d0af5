/*
 * compare.h - several drives' results side by side: which tests and points
 * they share, rankings per figure (higher throughput is better, lower
 * latency is better), the difference from the best in percent, and the
 * refusal to compare results whose workload options differ.
 *
 * Used by 'appio compare' (text tables) and 'appio report' (summary tables).
 * Pure over the documents json_read.h loads; only the print functions write.
 */
#ifndef APPIO_COMPARE_H
#define APPIO_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "json_read.h"

struct compare_metric {
	const char *name;               /* "IOPS", "mean latency" */
	const char *unit;               /* "IOPS", "MB/s", "ns" */
	bool lower_better;
};

/* Name and direction of metric @m for test @t ("TPS" instead of "IOPS" when transactional). */
struct compare_metric compare_metric(const struct json_read_test *t, enum json_read_metric m);

/*
 * Rank @n figures @v (NAN: absent, rank 0). The best is rank 1; equal
 * figures share a rank. @diff_pct[i] = (v[i] - best) / best x 100, so 0 for
 * the best and negative for worse throughput, positive for worse latency;
 * NAN when absent or the best is 0.
 */
void compare_rank(const double *v, unsigned n, bool lower_better, unsigned *rank, double *diff_pct);

/*
 * Names of every test in any of @d, in order of first appearance (drive 0's
 * order first). Returns how many; *@names is allocated (free() it), its
 * strings borrowed from @d.
 */
unsigned compare_tests(const struct json_read_doc *d, unsigned n, const char ***names);

/* Point keys of test @name across @d, in order of first appearance; as above. */
unsigned compare_points(const struct json_read_doc *d, unsigned n, const char *name, const char ***keys);

/*
 * The metrics a test of @t's kind is compared on, in table order; returns
 * how many were written to @m (at most JR_METRICS).
 */
unsigned compare_metrics_of(const struct json_read_test *t, enum json_read_metric *m);

/* The metric a test ranks drives by in summaries. */
enum json_read_metric compare_headline(const struct json_read_test *t);

/*
 * Refuse results run with different workload options: for every test two
 * drives share, every workload option (but where the run went: target,
 * size, seed, files, database connection, and the sweep lists, whose points
 * are matched one by one) and the engine must be equal. Returns 0, or
 * -EINVAL with one line in @err naming the option, the test and both values.
 */
int compare_check(const struct json_read_doc *d, unsigned n, char *err, size_t errlen);

/* Format figure @v of metric @m with its unit ("12,345 IOPS", "1.23 ms"). */
char *compare_fmt(double v, enum json_read_metric m, const struct json_read_test *t,
		  char *buf, size_t len);

/* Every test and metric as a text table: points x drives (figure, rank, % from best). */
void compare_print(const struct json_read_doc *d, unsigned n, FILE *f);

/* One table per test at its summary point (the last, most loaded one), drives ranked. */
void compare_print_summary(const struct json_read_doc *d, unsigned n, FILE *f);

#endif
