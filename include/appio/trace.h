/*
 * trace.h - block I/O traces: one record type, one reader/writer per format,
 * one registry table (traces/registry.c).
 *
 * Every reader streams: it holds one line or one record plus bounded tables,
 * never the whole trace, so a trace of any length is read in constant memory.
 * Sources that report an I/O as two events (issue, then completion) are
 * paired through a bounded in-flight table of TRACE_INFLIGHT_MAX requests;
 * more than that in flight at once is an error naming the line, not growth.
 *
 * Times: a reader gives times on its source's clock in nanoseconds; the core
 * (trace_next) makes them relative to the first record, so issue_ns of the
 * first record is 0. Records are returned in issue order as far as the source
 * is in issue order; one earlier than the first record is clamped to 0 and
 * counted in trace_reader.early.
 *
 * Threads: a reader or writer belongs to one thread; none is used on a hot path.
 */
#ifndef APPIO_TRACE_H
#define APPIO_TRACE_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define TRACE_NS_UNKNOWN   UINT64_MAX  /* complete_ns when the source has no completion */
#define TRACE_MAX_DEVS     65536       /* distinct devices (volumes, files) per trace */
#define TRACE_INFLIGHT_MAX 65536       /* pending requests while pairing or reordering */

enum trace_op {
	TRACE_OP_READ,
	TRACE_OP_WRITE,
	TRACE_OP_FLUSH,                 /* cache flush, fsync or fdatasync: no data */
	TRACE_OP_DISCARD,               /* discard / trim / unmap */
	TRACE_OP_NR,
};

enum trace_flags {
	TRACE_F_FUA = 1 << 0,           /* forced unit access: written through the cache */
	TRACE_F_PREFLUSH = 1 << 1,      /* the cache is flushed before the data */
	TRACE_F_SYNC = 1 << 2,          /* the submitter waits for it (REQ_SYNC) */
	TRACE_F_META = 1 << 3,          /* file-system metadata */
	TRACE_F_AHEAD = 1 << 4,         /* read-ahead */
	TRACE_F_DATASYNC = 1 << 5,      /* a flush from fdatasync rather than fsync */
};

/* One I/O. Unknown fields: complete_ns TRACE_NS_UNKNOWN, inflight and pid -1. */
struct trace_rec {
	uint64_t issue_ns;              /* since the trace's first issue */
	uint64_t complete_ns;           /* same clock; >= issue_ns, or TRACE_NS_UNKNOWN */
	uint64_t offset;                /* bytes from the start of the device */
	uint64_t length;                /* bytes; 0 for a flush; offset + length < 2^64 */
	uint32_t dev;                   /* index into trace_hdr.devs */
	int32_t inflight;               /* I/Os outstanding on dev at issue, this one included */
	int32_t pid;                    /* submitting process or thread */
	uint16_t flags;                 /* enum trace_flags */
	uint8_t op;                     /* enum trace_op */
};

/* A device, volume or file that records name by index. */
struct trace_dev {
	char name[48];
	int32_t pending;                /* pairing readers' running count of issued, not completed */
	int32_t outstanding;            /* the core's count, from completion times */
};

/* Device table: grows up to TRACE_MAX_DEVS, looked up by name through a hash. */
struct trace_devs {
	struct trace_dev *d;
	uint32_t n, cap;
	uint32_t *hash;                 /* hcap slots of index + 1, 0 empty */
	uint32_t hcap;
};

#define TRACE_META_MAX 48          /* "meta KEY VALUE" lines per trace */

/* One fact about how a trace was made: "run.workload" = "oltp_read_write". */
struct trace_meta {
	char key[40];                   /* no blanks */
	char val[160];                  /* free text, one line */
};

/* What a trace says about itself (appio's format stores all of it). */
struct trace_hdr {
	char source[160];               /* where the records come from: format and file */
	char clock[64];                 /* the source clock, e.g. "unix", "since boot" */
	char note[200];                 /* a caveat to tell the user, or "" */
	uint32_t sector_size;           /* bytes per sector of the source's sector numbers */
	uint64_t epoch_ns;              /* Unix time of issue_ns 0 in ns, or 0 if unknown */
	struct trace_devs devs;
	struct trace_meta meta[TRACE_META_MAX];  /* appio's format (version 2) keeps them */
	uint32_t nmeta;
};

/* Reading options; zero means the defaults. */
struct trace_opts {
	int queue_events;               /* blkparse/blktrace: issue = Q (queued), not D (dispatched) */
};

struct trace_format;

/* A reader. The caller owns the struct; trace_open fills it, trace_close releases it. */
struct trace_reader {
	const struct trace_format *fmt;
	const char *path;               /* as given; "-" is stdin */
	FILE *f;                        /* positioned at byte 0, peeked bytes included */
	uint64_t line;                  /* line (or record) number of the last line read */
	char *buf;                      /* trace_getline's buffer */
	size_t cap;
	void *priv;                     /* fmt->priv_size zeroed bytes, the format's own */
	struct trace_hdr hdr;
	struct trace_opts opts;
	uint64_t count;                 /* records returned */
	uint64_t early;                 /* records issued before the first one, clamped to 0 */
	uint64_t base_ns;               /* source time of issue_ns 0 */
	int unix_clock;                 /* set by open: source times are Unix ns */
	void *qd;                       /* completion-time queue for inflight (core) */
	char err[320];
};

/* A writer: trace_writer_open fills it, trace_writer_close releases it. */
struct trace_writer {
	const struct trace_format *fmt;
	const char *path;               /* "-" is stdout */
	FILE *f;
	const struct trace_hdr *hdr;    /* the reader's: names of devices, source */
	void *priv;                     /* fmt->wpriv_size zeroed bytes */
	uint64_t count;
	char err[320];
};

enum trace_fmt_flags {
	TRACE_FMT_SEEK = 1 << 0,        /* the reader re-reads: needs a regular file, not a pipe */
};

/*
 * A trace format. Reading callbacks are optional as a group (a write-only
 * format has no open/next), likewise writing ones. Every callback returns 0 or
 * -errno with a message in the reader's or writer's err naming the file and
 * the line or record; next returns 1 at the end of the trace.
 */
struct trace_format {
	const char *name;               /* for --from/--to */
	const char *desc;               /* one line: what produces it, units */
	unsigned flags;                 /* enum trace_fmt_flags */
	size_t priv_size;               /* reader state the core allocates and zeroes */
	size_t wpriv_size;              /* writer state likewise */
	/* Confidence 0..100 that @buf, the first @len bytes of a file, is this format. */
	int (*probe)(const char *buf, size_t len);
	/* Read the header (if any) and fill r->hdr; r->f is at byte 0. */
	int (*open)(struct trace_reader *r);
	/* Fill @rec with times on the source clock; 0, 1 at the end, or -errno. */
	int (*next)(struct trace_reader *r, struct trace_rec *rec);
	/* Optional: release what open allocated beyond priv. */
	void (*close)(struct trace_reader *r);
	/* Write a header from w->hdr. */
	int (*wopen)(struct trace_writer *w);
	/* Write one record; relative times, devices named by w->hdr->devs. */
	int (*write)(struct trace_writer *w, const struct trace_rec *rec);
	/* Optional: write what is buffered and a trailer; the core closes the file. */
	int (*wclose)(struct trace_writer *w);
};

/* NULL-terminated, in probing order (traces/registry.c). */
extern const struct trace_format *const trace_format_table[];

/* The format called @name, or NULL. */
const struct trace_format *trace_format_find(const char *name);

/* The most likely reader for a file starting with @buf[0..len), or NULL if none fits. */
const struct trace_format *trace_format_guess(const char *buf, size_t len);

/*
 * Open @path ("-" for stdin) with @fmt, or the guessed format when @fmt is
 * NULL, and read its header. @opts may be NULL. Returns 0, or -errno with a
 * one-line message in r->err; r needs trace_close either way.
 */
int trace_open(struct trace_reader *r, const char *path, const struct trace_format *fmt,
	       const struct trace_opts *opts);

/* The next record, times relative to the first. 0, 1 at the end, -errno (r->err). */
int trace_next(struct trace_reader *r, struct trace_rec *rec);

/* Release everything; safe on a zeroed or failed reader. */
void trace_close(struct trace_reader *r);

/*
 * Create @path ("-" for stdout) in @fmt, which must have a writer, with the
 * header @hdr (kept by pointer: it must outlive the writer). 0 or -errno (w->err).
 */
int trace_writer_open(struct trace_writer *w, const char *path, const struct trace_format *fmt,
		      const struct trace_hdr *hdr);
int trace_write(struct trace_writer *w, const struct trace_rec *rec);
/* Flush, close and release; returns the first error (w->err). Safe on a failed writer. */
int trace_writer_close(struct trace_writer *w);

/* "read", "write", "flush", "discard". */
const char *trace_op_name(unsigned op);

/* ---- bundled traces (traces/bundled.c) ---- */

/*
 * Traces that come with appio, NAME.trace.gz (or NAME.trace) in the first of
 * these folders that exists: $APPIO_TRACES; traces/ beside the appio binary
 * (a build tree); ../share/appio/traces from the binary (an install).
 */

/* The folder bundled traces are read from into @buf, or -ENOENT. */
int trace_bundled_dir(char *buf, size_t len);

/*
 * The file of bundled trace @name into @path: 0, or -ENOENT when @name is
 * no bundled trace (or holds a '/', which makes it a path).
 */
int trace_bundled_find(const char *name, char *path, size_t len);

/*
 * Call @fn for each bundled trace in name order with its name and file.
 * Returns the count, or -ENOENT when there is no folder of them.
 */
int trace_bundled_each(void (*fn)(void *arg, const char *name, const char *path), void *arg);

/*
 * @path as given when it names a file, else the bundled trace of that name:
 * the path to open into @buf (at least 4096 bytes) and returns it.
 */
const char *trace_resolve(const char *path, char *buf, size_t len);

/* ---- for format readers and writers ---- */

/*
 * Read the next line into r->buf without its end of line, counting r->line.
 * Returns its length, or -1 at the end of the file.
 */
long trace_getline(struct trace_reader *r);

/* Set r->err to "'path' line N: " + the message; returns -EINVAL. */
int trace_bad(struct trace_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* The index of device @name, added if new. 0, or -ENOSPC past TRACE_MAX_DEVS. */
int trace_devs_id(struct trace_devs *ds, const char *name, uint32_t *id);
void trace_devs_release(struct trace_devs *ds);

/* Reader helper: the id of @name, or trace_bad naming the bound. */
int trace_dev(struct trace_reader *r, const char *name, uint32_t *id);

/*
 * RWBS letters as the kernel and blkparse print them ("WS", "FWFS", "RA",
 * "D", "FN") to op and flags. Returns 0, or -1 for letters naming no I/O to
 * keep (e.g. "N" alone), -2 for a malformed string.
 */
int trace_rwbs_parse(const char *s, uint8_t *op, uint16_t *flags);
/* The RWBS letters of op and flags into @buf (8 bytes suffice). */
void trace_rwbs_format(uint8_t op, uint16_t flags, char *buf);

/* Unix ns of a Windows FILETIME (100 ns units since 1601-01-01): 0, or -1 outside 1970..2554. */
int trace_msr_filetime_ns(uint64_t ft, uint64_t *ns);

/*
 * Add (or replace) the fact @key = @val to @h; @key is cut at its first blank
 * and to 39 bytes, @val at a line end and to 159 bytes. 0, or -ENOSPC past
 * TRACE_META_MAX facts.
 */
int trace_hdr_meta(struct trace_hdr *h, const char *key, const char *val);

/* The value of fact @key in @h, or NULL. */
const char *trace_hdr_meta_get(const struct trace_hdr *h, const char *key);

/* A record with nothing known but the defaults (unknown completion, inflight, pid). */
void trace_rec_init(struct trace_rec *rec);

#endif
