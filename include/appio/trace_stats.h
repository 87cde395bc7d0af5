/*
 * trace_stats.h - the figures 'appio trace info' prints, gathered in one
 * streaming pass in constant memory (the struct is the whole state, ~100 KiB).
 *
 * Histograms of times use log2 bins (bin k holds values in [2^(k-1), 2^k) ns,
 * bin 0 holds 0), so their percentiles are upper bounds within a factor of
 * two; means are exact. The footprint counts distinct 4 KiB blocks that reads
 * and writes touch with a HyperLogLog of 2^14 registers: about 0.8 % standard
 * error. Rates over time use at most TS_BUCKETS buckets: the bucket width
 * starts at 1 s and doubles whenever the trace outgrows them. Per-device
 * figures are kept for the first TS_DEV_MAX devices; later ones count only in
 * the totals.
 */
#ifndef APPIO_TRACE_STATS_H
#define APPIO_TRACE_STATS_H

#include <stdint.h>

#include "appio/trace.h"

#define TS_BUCKETS 512
#define TS_SIZE_BINS 16                 /* <= 512 B, 1 KiB, ... 8 MiB, > 8 MiB */
#define TS_LOG_BINS 65                 /* 0, then [2^(k-1), 2^k) for k = 1..64 */
#define TS_QD_BINS 12                   /* 1, 2, 3-4, 5-8, ... 513-1024, > 1024 */
#define TS_DEV_MAX 64
#define TS_HLL_BITS 14
#define TS_NFLAGS 6                     /* bits of enum trace_flags */

struct trace_stats_dev {
	uint64_t ios, bytes, seq, data_ios;
	uint64_t op_ios[TRACE_OP_NR];
	uint64_t last_end, min_off, max_end;
};

struct trace_stats {
	uint64_t ios, out_of_order;
	uint64_t first_ns, last_ns, end_ns;     /* first and last issue, last completion */
	uint64_t prev_issue;
	uint64_t op_ios[TRACE_OP_NR], op_bytes[TRACE_OP_NR];
	uint64_t flag_ios[TS_NFLAGS];
	uint64_t size_hist[TS_SIZE_BINS], size_sum, size_n;
	uint64_t iat_hist[TS_LOG_BINS], iat_sum, iat_n;
	uint64_t svc_hist[TS_LOG_BINS], svc_sum, svc_n;
	uint64_t qd_hist[TS_QD_BINS], qd_sum, qd_n;
	uint64_t seq, data_ios;
	uint64_t bucket_ns;
	uint32_t nbuckets;
	uint64_t b_ios[TS_BUCKETS], b_bytes[TS_BUCKETS];
	uint8_t hll[1 << TS_HLL_BITS];
	struct trace_stats_dev dev[TS_DEV_MAX];
	uint32_t ndev;
};

/* Empty figures. */
void trace_stats_init(struct trace_stats *s);
/* Count one record (relative times, as trace_next returns them). */
void trace_stats_add(struct trace_stats *s, const struct trace_rec *rec);
/* Estimated bytes in distinct 4 KiB blocks read or written. */
double trace_stats_footprint(const struct trace_stats *s);
/* Upper bound of the bin holding the @p-th percentile (0..1) of a log2 histogram, in ns. */
uint64_t trace_stats_log_pct(const uint64_t *hist, double p);
/* Lower and upper bound (bytes) of size bin @i; upper UINT64_MAX for the last. */
void trace_stats_size_bin(int i, uint64_t *lo, uint64_t *hi);
/* Lower and upper bound of queue-depth bin @i; upper INT32_MAX for the last. */
void trace_stats_qd_bin(int i, int *lo, int *hi);

#endif
