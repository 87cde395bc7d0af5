/*
 * json_read.h - reads result documents back for 'appio report' and 'appio
 * compare': a suite's document (include/appio/result.h embedded per phase,
 * src/suite.h) or one 'appio run' / 'appio db run' document. Each becomes a
 * drive with a list of tests (named as the suite names its phases, so a
 * single run of 4k-randread lines up with the suite's "sweep 4k-randread"),
 * each test with its points and their figures. Parsing is jansson's.
 *
 * Figures are the headline class's (the emulator's own, e.g. "txn", or
 * "total"); an absent figure is NAN. Latencies are in ns.
 * Main thread only; nothing here prints.
 */
#ifndef APPIO_JSON_READ_H
#define APPIO_JSON_READ_H

#include <jansson.h>
#include <stdbool.h>

enum json_read_metric {
	JR_OPS,         /* operations (IOPS) or transactions (TPS) per second */
	JR_MBPS,        /* 10^6 bytes per second */
	JR_MEAN,        /* latency, ns */
	JR_P99,
	JR_MAX,
	JR_STDDEV,
	JR_METRICS
};

struct json_read_point {
	char key[32];                   /* "2T/2Q", "8 threads", "30% writes", "window", "fill" */
	double x;                       /* threads, write %, or the point's index */
	double m[JR_METRICS];
	bool partial;
	json_t *raw;                    /* the point's object in the document (borrowed) */
};

enum json_read_kind { JR_FILL, JR_PRECOND, JR_SWEEP, JR_WSWEEP, JR_APP, JR_DB, JR_REPLAY };

struct json_read_test {
	char *name;                     /* "sweep 4k-randread", "oltp", "database oltp_read_write" */
	enum json_read_kind kind;
	bool tx;                        /* transactional: JR_OPS is TPS */
	bool mbs;                       /* large transfers: JR_MBPS is the headline */
	json_t *options;                /* workload options { name: text } (borrowed) */
	json_t *info;                   /* the result's info { key: text }, or NULL (borrowed) */
	const char *engine;             /* I/O engine or database driver (borrowed) */
	const char *headline;           /* the figures' class: "total", "txn", "loop"... (borrowed) */
	unsigned intervals;             /* workload option "intervals": the run asks for its
					   points cut into that many intervals (0: none) */
	struct json_read_point *pts;
	unsigned npts;
	/* precondition, fill and replay: the per-second series across all rounds */
	double *sec_ops, *sec_mbs, *sec_mean;
	unsigned nsec;
	bool reached;                   /* steady state (JR_PRECOND) */
	unsigned steady_round, rounds_run;
};

struct json_read_doc {
	char *path, *label;             /* owned; label: what the drive is called (json_read_labels) */
	bool label_given;               /* the user named it (--label): kept as given */
	json_t *root;
	const char *suite;              /* "quick", "review", or NULL for a single run */
	bool interrupted, complete;
	json_t *target, *host;          /* facts of the first result that has them, or NULL */
	struct json_read_test *tests;
	unsigned ntests;
};

/*
 * Read @path into @d. Returns 0, or -EINVAL with one line in @err naming the
 * file (not JSON, not an appio result, an unknown format_version) or -errno
 * when it cannot be read. A document is read as untrusted input: a number
 * the reader would count or size with (the steady-state window and rounds,
 * a point's threads, queue depth and write %, the "intervals" option, the
 * classes of a second) outside what appio writes is -EINVAL too, the
 * message naming the test and the key. On failure @d holds nothing.
 */
int json_read_load(struct json_read_doc *d, const char *path, char *err, size_t errlen);

/*
 * json_read_load() of a document already in memory (@len bytes at @buf, no
 * terminator needed); @name stands for its path in labels and messages.
 */
int json_read_loadb(struct json_read_doc *d, const char *name, const char *buf, size_t len,
		    char *err, size_t errlen);

/* Free what @d owns. Safe on a zeroed doc. */
void json_read_release(struct json_read_doc *d);

/*
 * Name the drive of each document that the user did not name: the target's
 * model, or else its block device (or, with none, the target's file name)
 * and the host, e.g. "vda on db1". Documents whose names clash take their
 * file's name in parentheses after it, and then its path.
 */
void json_read_labels(struct json_read_doc *d, unsigned n);

/* Test @name of @d, or NULL. */
const struct json_read_test *json_read_find(const struct json_read_doc *d, const char *name);

/* Point @key of @t, or NULL. */
const struct json_read_point *json_read_point(const struct json_read_test *t, const char *key);

/* One class over one interval of a point: exact over the interval's seconds. */
struct json_read_ival {
	double ops;                     /* operations in the interval */
	double mean, max;               /* latency, ns; NAN without operations */
};

/* A point's per-second series cut into intervals, per class. */
struct json_read_split {
	unsigned nint, ncls;
	const char **cls;               /* class names in the document's order, "total" left
					   out (borrowed from the document) */
	unsigned *first;                /* [nint + 1]: interval k is seconds first[k] to
					   first[k + 1] - 1 (0-based); first[nint]: all seconds */
	struct json_read_ival *iv;      /* [k * ncls + c]: interval k, class cls[c] */
};

/*
 * Cut point @p's per-second series into @nint equal groups of whole seconds
 * (of S seconds, interval k is floor(k S / nint) to floor((k + 1) S / nint) - 1,
 * so the last takes the remainder), and per class and interval sum the
 * operations (ops_per_s x dur_s of each second), weigh the seconds' means by
 * them, and take the largest second's max. An interval with no seconds
 * (fewer seconds than intervals) or no operations has NAN figures.
 * Returns 0, or -ENODATA (and an empty @s) when the point has no series.
 * @s is filled whatever the result: free it with json_read_split_release().
 */
int json_read_split(const struct json_read_point *p, unsigned nint, struct json_read_split *s);

/* Free what @s owns. Safe on a zeroed split. */
void json_read_split_release(struct json_read_split *s);

/* Index of class @name in @s, or -1. */
int json_read_split_class(const struct json_read_split *s, const char *name);

/* A target or host fact as text ("" when absent), e.g. ("target", "model"). */
const char *json_read_fact(const struct json_read_doc *d, const char *obj, const char *key,
			   char *buf, size_t len);

#endif
