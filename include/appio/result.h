/*
 * result.h - one run's results and their output forms.
 *
 * The runner fills a struct result point by point; the CLI prints it as a
 * text table and writes it as JSON (the versioned document later tools read)
 * and CSV (the per-second series). Every figure traces to counted events:
 * ops and bytes are counts, latencies come from the merged histograms (exact
 * mean, stddev, min, max; percentiles within 0.4 %).
 *
 * JSON document (RESULT_FORMAT_VERSION 1), stable keys:
 *   appio_version, format_version, started (ISO 8601 UTC), seed, interrupted,
 *   incomplete (true in a document saved between points, before the last is
 *   in: such a document also says interrupted, so a run killed outright
 *   (SIGKILL, power loss) reads as one that did not finish),
 *   host { hostname, kernel, cpus, memory_bytes },
 *   target { path, kind, size, logical_block_size, physical_block_size,
 *            device, model, rotational, scheduler, created, layout_s },
 *   workload { name, preset, engine, options { name: text } },
 *   rate_iops?, rate_unit?, latency_from? ("intended_start": an open-loop --rate
 *   run, every latency taken from the I/O's (or the unit of work's) scheduled
 *   start, waits for the target included; rate_iops is the rate asked, in
 *   rate_unit: IOPS, or TPS/loops/s for transactional emulators),
 *   slo? { limits, best, first_over }, slo_search? { threads, qd, probes, at_limit }
 *   (--slo, --slo-search: src/slo.h),
 *   health? { before, after: { available, why? | protocol, model, data_read_bytes,
 *             data_written_bytes, media_errors, percentage_used, temperature_c,
 *             power_on_hours } }      (the drive's own counters; null: not reported)
 *   info { key: text }                       (emulator/driver extras)
 *   precondition? { steady_state {...}, rounds [ points ] }   (--steady-state)
 *   points [ { threads, qd, write_pct?, time_s, cpu_s, partial, headline,
 *              classes { name: { ops, ops_per_s, bytes, mb_per_s,
 *                                lat_ns { mean, stddev, min, p50, p90, p99,
 *                                         p999, p9999, max, pN? },
 *                                sizes { "4096": ops, ... },
 *                                hist [ [low_ns, width_ns, count] ] } },
 *              counters { name: n }, events?,
 *              device { reads, read_bytes, writes, write_bytes, flushes, busy_pct },
 *              series [ { t, dur_s, classes { name: { ops_per_s, mb_per_s,
 *                                                      mean_ns, p99_ns, max_ns } } } ],
 *              ranks? { class, ranks, hosts,                 (MPI runs: docs/scale-out.md)
 *                       per_rank [ { rank, host, local_rank, seed, status, ops, bytes, time_s,
 *                                    cpu_s, ops_per_s, mb_per_s, lat_ns { mean, p50, p99, max },
 *                                    hist [ [low_ns, width_ns, count] ] } ],
 *                       per_host [ { host, ranks, ops, bytes, time_s, cpu_s, ops_per_s, mb_per_s,
 *                                    lat_ns { mean, p50, p99, max } } ] } } ]
 * In an MPI run every figure is the ranks' aggregate (ops and bytes summed,
 * histograms merged, time_s the longest rank's), except a per-second p99_ns
 * (the highest rank's p99 of that second: an upper bound) and device (the
 * counters of rank 0's host); info has mpi_ranks and mpi_hosts.
 * lat_ns has, besides the listed percentiles, every other percentile the
 * run's --slo names ("p95", "p99.5"); hist is the class's merged latency
 * histogram (nonempty buckets; a bucket above the range has low_ns 2^40 and
 * width 0), from which a later reader gets any percentile exactly as the run
 * would have. events: transactional emulators' units of work (step() calls)
 * ended in the measured window.
 * MB/s is 10^6 bytes per second. sizes buckets transfer sizes by power of two
 * (the key is the bucket's lower bound in bytes).
 */
#ifndef APPIO_RESULT_H
#define APPIO_RESULT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "appio/emulator.h"
#include "appio/health.h"
#include "appio/target.h"

struct slo;
struct slo_search;

#define RESULT_FORMAT_VERSION 1
#define RESULT_SIZE_BUCKETS   33      /* 2^0 .. 2^32 */
#define RESULT_MAX_CLASSES    (EMU_MAX_CLASSES + 1)

struct lat_summary {
	double mean, stddev;            /* ns */
	uint64_t min, p50, p90, p99, p999, p9999, max;
};

struct cls_result {
	const char *name;
	uint64_t ops, bytes;
	double ops_per_s, mb_per_s;
	struct lat_summary lat;
	uint64_t sizes[RESULT_SIZE_BUCKETS];
	/*
	 * The merged latency histogram, so that any percentile can be answered
	 * later (--slo p95): @nhist (bucket index, count) pairs of its nonempty
	 * buckets in order, index HIST_BUCKETS counting the samples above its
	 * range; owned by the result (result_cls_keep_hist), or NULL.
	 */
	uint32_t nhist;
	uint64_t *hist;
};

/* One second of one class. */
struct sec_cls {
	uint64_t ops, bytes;
	uint64_t sum_ns, max_ns, p99_ns;
};

/*
 * What the block device under the target did during a point, from its
 * kernel counters (/sys/class/block/DEV/stat). It includes any other I/O on
 * that device, and for a file the file system's own (journal, metadata).
 */
struct dev_stats {
	bool valid;
	uint64_t reads, read_bytes, writes, write_bytes, flushes;
	uint64_t busy_ms;               /* time the device had I/O in flight */
};

/*
 * One rank's figures of a point under MPI (docs/scale-out.md), for the class
 * the table headlines; the same struct holds one host's (its ranks merged).
 * Fixed-size and pointer-free: ranks send it to rank 0 as bytes.
 */
struct rank_fig {
	uint32_t rank, local_rank;      /* world rank (a host's: its first), rank on its host */
	uint32_t host;                  /* index into point_ranks.hosts */
	uint32_t nranks;                /* 1 for a rank; the ranks of a host */
	int32_t rc;                     /* the rank's own outcome: 0, -EINTR, -errno */
	uint64_t seed;                  /* the rank's stream of --seed */
	uint64_t ops, bytes;
	double time_s, ops_per_s, mb_per_s, mean_ns;
	double cpu_s;                   /* the rank's (a host's: its ranks') CPU in the point */
	uint64_t p50, p99, max_ns;
};

/* Per-rank and per-host figures of a point, kept by rank 0 of an MPI run. */
struct point_ranks {
	const char *cls;                /* the class described (not owned) */
	unsigned nranks, nhosts;
	struct rank_fig *rank;          /* nranks, owned */
	struct rank_fig *host;          /* nhosts, owned */
	const char *const *hosts;       /* nhosts names (not owned: live until exit) */
	uint32_t *hist_off;             /* nranks + 1: rank r's buckets are pairs
					   hist_off[r] .. hist_off[r+1]-1 of @hist; owned */
	uint64_t *hist;                 /* (bucket index, count) pairs; index HIST_BUCKETS
					   counts the samples above the range; owned */
};

struct point_result {
	struct emu_point pt;
	double time_s;                  /* measured seconds (shorter if partial) */
	double cpu_s;                   /* CPU (user + system) the process used from the point's
					   start to its end, ramp included; MPI: summed over ranks */
	bool partial;                   /* interrupted before its time was up */
	const char *headline;           /* class the table headlines, or NULL (IOPS of "total") */
	unsigned ncls;
	struct cls_result cls[RESULT_MAX_CLASSES];
	unsigned nsec;                  /* seconds in the series */
	struct sec_cls *series;         /* nsec * ncls, second-major; owned */
	double *sec_dur;                /* nsec durations in s (the last may be short); owned */
	unsigned ncounters;
	const char *const *counter_names;  /* the emulator's, ncounters of them */
	uint64_t counters[EMU_MAX_COUNTERS];
	struct dev_stats dev;           /* over the measured window */
	uint64_t events;                /* transactional emulators: units of work (step() calls)
					   that ended in the measured window; 0 for block-level */
	struct point_ranks *ranks;      /* MPI runs, rank 0: per rank and host; owned; or NULL */
};

struct result_kv {
	char *key, *val;
};

struct result {
	char started[32];               /* ISO 8601 UTC */
	uint64_t seed;
	bool interrupted;
	bool incomplete;                /* more points are to come: saved between points */
	bool has_target;
	struct target target;           /* facts copied at open; fd not used */
	char workload[64];
	char preset[64];
	char engine[32];
	struct result_kv *opts;         /* workload options as text, in table order */
	unsigned nopts;
	struct result_kv *info;         /* extras: server version, settings... */
	unsigned ninfo;
	struct point_result *points;
	unsigned npoints;
	/*
	 * Preconditioning before the points ('appio run --steady-state'): its
	 * rounds as points of a result of their own, and the steady-state
	 * verdict as a JSON object text. Written as "precondition":
	 * {"steady_state": ..., "rounds": [points]} when set. Not owned.
	 */
	const struct result *precondition;
	const char *steady_json;
	/*
	 * The drive's own health figures before and after the points (smartctl),
	 * when health[0] was read or tried: written as "health" {before, after}.
	 */
	bool has_health;
	struct health health[2];
	/*
	 * --rate: the open-loop rate asked for (I/Os per second per point), 0 for
	 * a closed loop. When set the document says "rate_iops" and
	 * "latency_from": "intended_start" (coordinated omission excluded).
	 */
	uint64_t rate;
	/*
	 * --slo: the latency limits (not owned); the document then has "slo"
	 * (src/slo.h: the best point and the first over) and the table a line.
	 * --slo-search: what the search found (not owned), as "slo_search".
	 */
	const struct slo *slo;
	const struct slo_search *slo_search;
};

/* Empty @r; the caller owns it. */
void result_init(struct result *r);

/* Free everything @r owns. Safe on an initialised, empty result. */
void result_release(struct result *r);

/* Append (copies of) an option or an info pair. */
void result_add_opt(struct result *r, const char *key, const char *val);
void result_add_info(struct result *r, const char *key, const char *val);

/* Append an empty point and return it (owned by @r). */
struct point_result *result_add_point(struct result *r);

/* The unit of a point's headline rate: "IOPS", "TPS", or "loops/s" for file-system loops. */
const char *point_rate_unit(const struct point_result *p);

/*
 * The rate a point reached in the unit --rate asks for: units of work per
 * second for transactional emulators (@events), else the headline's ops/s.
 */
double point_rate_reached(const struct point_result *p);

/* Find class @name in @p, or NULL. */
const struct cls_result *point_class(const struct point_result *p, const char *name);

struct hist;

/* Keep the nonempty buckets of @h as @c's histogram (replacing any it had). */
void result_cls_keep_hist(struct cls_result *c, const struct hist *h);

/*
 * Latency percentile @p (0 < p <= 100) of class @c in ns, exactly as
 * hist_percentile() gives it on the merged histogram; without a kept
 * histogram the lat_summary figure when @p is one it lists, else NAN.
 */
double result_cls_percentile(const struct cls_result *c, double p);

/*
 * Write the JSON document to @path ("-" = stdout), atomically for files
 * (temporary file + rename), so a reader never sees half a document.
 */
int result_write_json(const struct result *r, const char *path, char *err, size_t errlen);

/*
 * Write @r as one JSON object value (the document result_write_json writes,
 * without its final newline) into @f, every line after the first indented by
 * @indent more spaces: for documents that embed results (the suite's).
 * Returns 0 or -errno.
 */
int result_write_json_value(const struct result *r, FILE *f, int indent);

/*
 * Write the per-second series as CSV: one file per class,
 * PREFIX_<class>.csv, columns point,threads,qd,write_pct,second,ops_per_s,
 * mb_per_s,mean_us,p99_us,max_us.
 */
int result_write_csv(const struct result *r, const char *prefix, char *err, size_t errlen);

/* The text table: a row per point, units on every number. */
void result_print_table(const struct result *r, FILE *f);

/*
 * Under a header whose first column is @what, a row per class of @names
 * (NULL-terminated) that point @p has: its count, mean, p99 and maximum
 * latency, indented by two spaces (a point's breakdown, e.g. by transaction type).
 */
void result_print_class_rows(const struct point_result *p, const char *what,
			     const char *const *names, FILE *f);

/* "1.23 ms", "850 us", "2.1 s": @ns with a unit that suits it. */
char *fmt_ns(double ns, char *buf, size_t len);

#endif
