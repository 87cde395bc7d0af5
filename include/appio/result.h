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
 *   health? { before, after: { available, why? | protocol, model, data_read_bytes,
 *             data_written_bytes, media_errors, percentage_used, temperature_c,
 *             power_on_hours } }      (the drive's own counters; null: not reported)
 *   info { key: text }                       (emulator/driver extras)
 *   precondition? { steady_state {...}, rounds [ points ] }   (--steady-state)
 *   points [ { threads, qd, write_pct?, time_s, partial, headline,
 *              classes { name: { ops, ops_per_s, bytes, mb_per_s,
 *                                lat_ns { mean, stddev, min, p50, p90, p99,
 *                                         p999, p9999, max },
 *                                sizes { "4096": ops, ... } } },
 *              counters { name: n },
 *              device { reads, read_bytes, writes, write_bytes, flushes, busy_pct },
 *              series [ { t, dur_s, classes { name: { ops_per_s, mb_per_s,
 *                                                      mean_ns, p99_ns, max_ns } } } ] } ]
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

struct point_result {
	struct emu_point pt;
	double time_s;                  /* measured seconds (shorter if partial) */
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

/* Find class @name in @p, or NULL. */
const struct cls_result *point_class(const struct point_result *p, const char *name);

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

/* "1.23 ms", "850 us", "2.1 s": @ns with a unit that suits it. */
char *fmt_ns(double ns, char *buf, size_t len);

#endif
