/*
 * record.c - a capture (include/appio/trace_record.h): a reader thread
 * empties the per-CPU ring buffers every POLL_NS, decodes block_rq_issue and
 * block_rq_complete events, puts them in time order, pairs each issue with
 * its completion (traces/pair.h, as the tracefs text reader does) and
 * writes the requests in issue order to a body file; finish writes the
 * header, now that every fact is known, and then the body.
 *
 * Order: each CPU's buffer is in time order, but an issue and its completion
 * may sit on different CPUs, so events wait in a pending array until no CPU
 * can still hold an earlier one: those stamped before the round's start
 * minus SLACK_NS (an event being written when the round starts is stamped
 * microseconds before it) are sorted and handed on; the rest wait for the
 * next round.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "appio/cpuload.h"
#include "appio/trace.h"
#include "appio/trace_record.h"
#include "record_dev.h"

#define EVENT_BYTES 96                  /* a block_rq event in the ring buffer, rounded up */
#define MIN_BUFFER_KB 1024
#define MAX_BUFFER_KB (1024 * 1024)

uint64_t trace_record_buffer_kb(uint64_t rate)
{
	/* two events per I/O, for 0.5 s: ten rounds of the reader late before a loss */
	uint64_t kb = (rate ? rate : TRACE_RECORD_RATE) * 2 * EVENT_BYTES / 2 / 1024;

	return kb < MIN_BUFFER_KB ? MIN_BUFFER_KB : kb > MAX_BUFFER_KB ? MAX_BUFFER_KB : kb;
}

#ifndef HAVE_TRACEFS

int trace_record_start(struct trace_record **out, const struct trace_record_opts *o, char *err, size_t errlen)
{
	(void)o;
	*out = NULL;
	snprintf(err, errlen, "this appio was built without libtracefs (Debian: libtracefs-dev), "
		 "which capturing needs");
	return -ENOTSUP;
}

int trace_record_meta(struct trace_record *r, const char *key, const char *val)
{
	(void)r, (void)key, (void)val;
	return -ENOTSUP;
}

bool trace_record_failed(const struct trace_record *r)
{
	(void)r;
	return true;
}

const char *trace_record_device(const struct trace_record *r)
{
	(void)r;
	return "";
}

int trace_record_finish(struct trace_record *r, struct trace_record_stats *st, char *err, size_t errlen)
{
	(void)r, (void)st;
	snprintf(err, errlen, "no capture");
	return -ENOTSUP;
}

void trace_record_free(struct trace_record *r)
{
	(void)r;
}

#else

#include <event-parse.h>
#include <kbuffer.h>

#include "pair.h"
#include "record_blk.h"
#include "record_fs.h"

#define NSEC 1000000000ULL
#define POLL_NS (50 * 1000000ULL)
#define SLACK_NS (5 * 1000000ULL)
#define PEAK_SECONDS 86400              /* per-second event counts kept for the peak */
#define FLUSH_KEY UINT64_MAX            /* the pairing table's sector for every flush */

struct ev {
	uint64_t ts, sector, seq;
	uint32_t nsect, bytes;
	int32_t pid;
	uint16_t flags;
	uint8_t kind;                   /* enum ev_kind */
	int8_t op;                      /* enum trace_op, or -1: no data and no flush */
};

enum ev_kind { EV_COMPLETE, EV_ISSUE, EV_REQUEUE };

struct trace_record {
	struct record_dev dev;
	bool blk;                       /* --via blktrace: @bt, else @fs */
	struct record_fs fs;
	struct record_blk bt;
	struct trace_hdr hdr;           /* devs: the one device; meta: the caller's facts */
	struct pair pair;
	FILE *out, *body;
	struct trace_writer bw;         /* the body: records and their device line */
	const char *out_path;
	char desc[112];                 /* the device, described */
	uint64_t buffer_kb;
	pthread_t thread;
	bool running;
	atomic_bool stop;
	atomic_bool failed;
	/* the reader thread's own, read by finish after the join */
	struct ev *pend;
	size_t npend, cap;
	uint64_t seq, base_ns, t0, t_end, events, outside, lost, ios;
	uint32_t *per_sec;
	double cpu_s;
	struct cpuload_sample cpu0, cpu1;       /* the machine's CPU time at t0 and t_end */
	bool cpu_known;
	int werr;
	char err[320];
};

static uint64_t now_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * NSEC + (uint64_t)ts.tv_nsec;
}

static uint64_t num(const struct tep_format_field *f, void *data)
{
	unsigned long long v = 0;
	if (f)
		tep_read_number_field((struct tep_format_field *)f, data, &v);
	return v;
}

static void fail(struct trace_record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail(struct trace_record *r, const char *fmt, ...)
{
	va_list ap;

	if (atomic_load(&r->failed))
		return;
	va_start(ap, fmt);
	vsnprintf(r->err, sizeof(r->err), fmt, ap);
	va_end(ap);
	atomic_store(&r->failed, true);
}

static void lost(struct trace_record *r, uint64_t n, int cpu, uint64_t ts)
{
	char where[24] = "";

	if (cpu >= 0)
		snprintf(where, sizeof(where), " on CPU %d", cpu);
	r->lost += n;
	fail(r, "lost %" PRIu64 " event%s%s after %.1f s: the kernel's trace buffer (%" PRIu64
	     " KiB per CPU) filled before appio read it; capture again with a larger --buffer-kb "
	     "(e.g. %" PRIu64 ") or --rate IOPS", n, n == 1 ? "" : "s", where,
	     ts > r->t0 ? (double)(ts - r->t0) / 1e9 : 0.0, r->buffer_kb,
	     r->buffer_kb * 4 > MAX_BUFFER_KB ? MAX_BUFFER_KB : r->buffer_kb * 4);
}

/* A slot at the end of the pending array, or NULL (the capture has failed). */
static struct ev *push(struct trace_record *r, uint64_t ts)
{
	if (r->npend == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 4096;
		struct ev *p = realloc(r->pend, cap * sizeof(*p));
		if (!p) {
			fail(r, "out of memory for %zu pending events", cap);
			return NULL;
		}
		r->pend = p;
		r->cap = cap;
	}
	struct ev *e = &r->pend[r->npend++];
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->seq = r->seq++;
	if (ts >= r->t0 && (ts - r->t0) / NSEC < PEAK_SECONDS)
		r->per_sec[(ts - r->t0) / NSEC]++;
	r->events++;
	return e;
}

static void push_fs(struct trace_record *r, const struct record_fields *f, void *data, uint64_t ts)
{
	struct ev *e = push(r, ts);
	char rwbs[11] = "";
	uint8_t op;

	if (!e)
		return;
	e->kind = f == &r->fs.issue ? EV_ISSUE : f == &r->fs.requeue ? EV_REQUEUE : EV_COMPLETE;
	e->sector = num(f->sector, data);
	e->nsect = (uint32_t)num(f->nr_sector, data);
	e->bytes = (uint32_t)num(f->bytes, data);
	e->pid = (int32_t)num(f->pid, data);
	memcpy(rwbs, (char *)data + f->rwbs->offset,
	       f->rwbs->size < (int)sizeof(rwbs) - 1 ? (size_t)f->rwbs->size : sizeof(rwbs) - 1);
	e->op = trace_rwbs_parse(rwbs, &op, &e->flags) ? -1 : (int8_t)op;
}

/* A blktrace event: issues, completions and requeues of file-system requests only. */
static void push_blk(void *ctx, const struct fmt_blktrace_ev *b)
{
	struct trace_record *r = ctx;
	uint32_t act = b->action & 0xffff, tc = b->action >> 16;
	uint8_t op;
	struct ev *e;

	if (tc & (FMT_BLKTRACE_TC_NOTIFY | FMT_BLKTRACE_TC_PC) ||
	    (act != FMT_BLKTRACE_ISSUE && act != FMT_BLKTRACE_COMPLETE && act != FMT_BLKTRACE_REQUEUE) ||
	    !(e = push(r, b->time)))
		return;
	e->kind = act == FMT_BLKTRACE_ISSUE ? EV_ISSUE : act == FMT_BLKTRACE_REQUEUE ? EV_REQUEUE : EV_COMPLETE;
	e->sector = b->sector;
	e->bytes = b->bytes;
	e->nsect = b->bytes / 512;
	e->pid = (int32_t)b->pid;
	e->op = fmt_blktrace_op(b->action, b->bytes, &op, &e->flags) ? -1 : (int8_t)op;
}

/* Every event of the sub-buffer in fs.kbuf. */
static void decode_page(struct trace_record *r, int cpu)
{
	unsigned long long ts;
	void *data;

	for (data = kbuffer_read_event(r->fs.kbuf, &ts); data; data = kbuffer_next_event(r->fs.kbuf, &ts)) {
		int missed = kbuffer_missed_events(r->fs.kbuf);
		if (missed)
			lost(r, missed > 0 ? (uint64_t)missed : 1, cpu, ts);
		int type = (int)*(unsigned short *)data;
		if (type == r->fs.issue.id)
			push_fs(r, &r->fs.issue, data, ts);
		else if (type == r->fs.complete.id)
			push_fs(r, &r->fs.complete, data, ts);
		else if (type == r->fs.requeue.id)
			push_fs(r, &r->fs.requeue, data, ts);
	}
}

static int ev_cmp(const void *a, const void *b)
{
	const struct ev *x = a, *y = b;
	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void write_rec(struct trace_record *r, struct trace_rec *rec)
{
	if (!r->ios++)
		r->base_ns = rec->issue_ns;
	rec->issue_ns -= r->base_ns;
	if (rec->complete_ns != TRACE_NS_UNKNOWN)
		rec->complete_ns = rec->complete_ns > r->base_ns ? rec->complete_ns - r->base_ns : 0;
	if (trace_write(&r->bw, rec) && !r->werr) {
		r->werr = errno ? errno : EIO;
		fail(r, "cannot write the trace's records (to a temporary file beside '%s'): %s",
		     r->out_path, strerror(r->werr));
	}
}

/*
 * An issue event to a record in the pairing table, or a completion to its
 * issue. A flush has no sector of its own: the kernel gives 0 at issue and
 * -1 at completion, so flushes pair among themselves, oldest first.
 */
static void pair_event(struct trace_record *r, const struct ev *e)
{
	struct trace_rec rec;
	uint64_t sector = e->op == TRACE_OP_FLUSH ? FLUSH_KEY : e->sector;

	if (e->kind == EV_COMPLETE) {
		pair_complete(&r->pair, 0, sector, e->ts, &r->hdr.devs);
		return;
	}
	if (e->kind == EV_REQUEUE) {
		pair_cancel(&r->pair, 0, sector, &r->hdr.devs);
		return;
	}
	trace_rec_init(&rec);
	if (e->op < 0)
		return;                 /* no data and no flush (or letters this appio does not know) */
	rec.op = (uint8_t)e->op;
	rec.flags = e->flags;
	rec.issue_ns = e->ts;
	rec.pid = e->pid;
	if (rec.op != TRACE_OP_FLUSH) {
		if (r->dev.part && (sector < r->dev.start || sector - r->dev.start >= r->dev.sectors)) {
			r->outside++;
			return;
		}
		rec.offset = (sector - (r->dev.part ? r->dev.start : 0)) * 512;
		rec.length = e->bytes ? e->bytes : (uint64_t)e->nsect * 512;
	}
	int rc = pair_issue(&r->pair, &rec, sector, &r->hdr.devs);
	if (rc == -ENOMEM)
		fail(r, "out of memory pairing requests");
	else if (rc == -ENOSPC)
		fail(r, "more than %d requests in flight (completion events missing?)", TRACE_INFLIGHT_MAX);
}

/* Hand on the pending events stamped before @cutoff (all of them with UINT64_MAX). */
static void process(struct trace_record *r, uint64_t cutoff, bool drain)
{
	struct trace_rec rec;
	size_t n = 0;

	if (r->npend) {
		qsort(r->pend, r->npend, sizeof(*r->pend), ev_cmp);
		while (n < r->npend && r->pend[n].ts < cutoff)
			pair_event(r, &r->pend[n++]);
		memmove(r->pend, r->pend + n, (r->npend - n) * sizeof(*r->pend));
		r->npend -= n;
	}
	while (!pair_pop(&r->pair, &rec, drain, &r->hdr.devs))
		write_rec(r, &rec);
}

static void read_round(struct trace_record *r)
{
	for (int c = 0; r->blk && c < r->bt.ncpu; c++) {
		int n = record_blk_read(&r->bt, c, push_blk, r);
		if (n < 0)
			fail(r, "blktrace: reading the buffer of CPU %d failed: %s", c,
			     n == -EINVAL ? "not blk_io_trace version 7 events" : strerror(-n));
	}
	for (int c = 0; !r->blk && c < r->fs.ncpu; c++) {
		int n;
		while ((n = record_fs_read(&r->fs, c)) > 0)
			decode_page(r, c);
		if (n < 0)
			fail(r, "tracefs: reading the buffer of CPU %d failed: %s", c, strerror(-n));
	}
	/* relay buffers flag no page: their count of drops is the first sign */
	uint64_t dropped = r->blk ? record_blk_dropped(&r->bt) : 0;
	if (dropped && !r->lost)
		lost(r, dropped, -1, now_ns(CLOCK_MONOTONIC));
}

static void *reader(void *arg)
{
	struct trace_record *r = arg;

	while (!atomic_load(&r->stop) && !atomic_load(&r->failed)) {
		uint64_t t = now_ns(CLOCK_MONOTONIC);
		read_round(r);
		process(r, t > SLACK_NS ? t - SLACK_NS : 0, false);
		uint64_t d = now_ns(CLOCK_MONOTONIC) - t;
		if (d < POLL_NS)
			nanosleep(&(struct timespec){ .tv_nsec = (long)(POLL_NS - d) }, NULL);
	}
	r->t_end = now_ns(CLOCK_MONOTONIC);
	r->cpu_known = r->cpu_known && cpuload_sample(&r->cpu1) == 0;
	if (r->blk)
		record_blk_stop(&r->bt);
	else
		record_fs_stop(&r->fs);
	if (!atomic_load(&r->failed)) {
		read_round(r);
		uint64_t dropped = r->blk ? record_blk_dropped(&r->bt) : record_fs_dropped(&r->fs);
		if (dropped && !r->lost)
			lost(r, dropped, -1, r->t_end);
	}
	process(r, UINT64_MAX, true);
	r->cpu_s = (double)now_ns(CLOCK_THREAD_CPUTIME_ID) / 1e9;
	return NULL;
}

static int make_body(struct trace_record *r, char *err, size_t errlen)
{
	const struct trace_format *fmt = trace_format_find("appio");
	char dir[4096];
	const char *slash = strrchr(r->out_path, '/');
	int fd;

	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - r->out_path) + 1 : 1, slash ? r->out_path : ".");
	if (!strcmp(r->out_path, "-"))
		snprintf(dir, sizeof(dir), "/tmp");
	fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (fd < 0 && errno == EOPNOTSUPP) {     /* a file system without O_TMPFILE */
		char tmp[4200];
		snprintf(tmp, sizeof(tmp), "%s/.appio-record.XXXXXX", dir);
		if ((fd = mkstemp(tmp)) >= 0)
			unlink(tmp);
	}
	if (fd < 0 || !(r->body = fdopen(fd, "w+"))) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		snprintf(err, errlen, "-o: cannot make a temporary file in '%s' for the records: %s", dir, strerror(e));
		return -EINVAL;
	}
	r->bw = (struct trace_writer){ .fmt = fmt, .path = r->out_path, .f = r->body, .hdr = &r->hdr };
	r->bw.priv = calloc(1, fmt->wpriv_size);
	return r->bw.priv ? 0 : -ENOMEM;
}

static int open_out(struct trace_record *r, const struct trace_record_opts *o, char *err, size_t errlen)
{
	r->out_path = o->out;
	r->out = strcmp(o->out, "-") ? fopen(o->out, "w") : stdout;
	if (!r->out) {
		snprintf(err, errlen, "-o: cannot create '%s': %s", o->out, strerror(errno));
		return -EINVAL;
	}
	return make_body(r, err, errlen);
}

static void describe_dev(const struct record_dev *d, char *buf, size_t len)
{
	if (d->part)
		snprintf(buf, len, "%.20s of %.20s (%u:%u), from sector %" PRIu64 ", %" PRIu64 " sectors", d->name,
			 d->disk, d->major, d->minor, d->start, d->sectors);
	else
		snprintf(buf, len, "%.47s (%u:%u)", d->name, d->major, d->minor);
}

int trace_record_start(struct trace_record **out, const struct trace_record_opts *o, char *err, size_t errlen)
{
	struct trace_record *r = calloc(1, sizeof(*r));
	uint32_t id;
	int rc;

	*out = NULL;
	if (!r || !(r->per_sec = calloc(PEAK_SECONDS, sizeof(*r->per_sec)))) {
		free(r);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	r->buffer_kb = o->buffer_kb ? o->buffer_kb : trace_record_buffer_kb(o->rate);
	if ((rc = record_dev_find(o->device, o->path, "/sys", &r->dev, err, errlen)) ||
	    (rc = open_out(r, o, err, errlen)))
		goto fail;
	if (pair_init(&r->pair, TRACE_INFLIGHT_MAX) || trace_devs_id(&r->hdr.devs, r->dev.name, &id)) {
		rc = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	r->pair.dups = true;            /* requeues come as events of their own */
	describe_dev(&r->dev, r->desc, sizeof(r->desc));
	snprintf(r->hdr.source, sizeof(r->hdr.source), "appio trace record of %s", r->desc);
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "ns from the first issue (CLOCK_MONOTONIC)");
	r->hdr.sector_size = 512;
	trace_hdr_meta(&r->hdr, "capture.device", r->desc);
	r->blk = o->via == TRACE_RECORD_BLKTRACE;
	trace_hdr_meta(&r->hdr, "capture.via", r->blk ? "blktrace" : "tracefs");
	rc = r->blk ? record_blk_open(&r->bt, r->dev.disk, r->buffer_kb, err, errlen) :
		record_fs_open(&r->fs, record_dev_kdev(&r->dev), r->buffer_kb, err, errlen);
	if (rc)
		goto fail;
	r->t0 = now_ns(CLOCK_MONOTONIC);
	r->cpu_known = cpuload_sample(&r->cpu0) == 0;
	/* Unix time of the monotonic clock's zero; epoch_ns is fixed from it at finish */
	r->hdr.epoch_ns = now_ns(CLOCK_REALTIME) - r->t0;
	if ((rc = -pthread_create(&r->thread, NULL, reader, r))) {
		snprintf(err, errlen, "cannot start the capture's reader thread: %s", strerror(-rc));
		goto fail;
	}
	r->running = true;
	*out = r;
	return 0;
fail:
	if (r->out && r->out != stdout) {
		fclose(r->out);
		unlink(o->out);
		r->out = NULL;
	}
	trace_record_free(r);
	return rc;
}

int trace_record_meta(struct trace_record *r, const char *key, const char *val)
{
	return trace_hdr_meta(&r->hdr, key, val);
}

bool trace_record_failed(const struct trace_record *r)
{
	return atomic_load(&((struct trace_record *)r)->failed);
}

const char *trace_record_device(const struct trace_record *r)
{
	return r->desc;
}

static void join(struct trace_record *r)
{
	if (!r->running)
		return;
	atomic_store(&r->stop, true);
	pthread_join(r->thread, NULL);
	r->running = false;
}

static void fill_stats(const struct trace_record *r, struct trace_record_stats *st)
{
	memset(st, 0, sizeof(*st));
	st->ios = r->ios;
	st->events = r->events;
	st->outside = r->outside;
	st->lost = r->lost;
	st->seconds = (double)(r->t_end - r->t0) / 1e9;
	st->cpu_s = r->cpu_s;
	st->machine_busy_pct = r->cpu_known ? cpuload_busy_pct(&r->cpu0, &r->cpu1) : -1;
	st->buffer_kb = r->buffer_kb;
	for (uint64_t s = 0; s < PEAK_SECONDS && s * NSEC < r->t_end - r->t0; s++)
		if (r->per_sec[s] > st->peak_events_s)
			st->peak_events_s = r->per_sec[s];
	describe_dev(&r->dev, st->device, sizeof(st->device));
}

/* The facts of the capture itself, in the header. */
static void capture_meta(struct trace_record *r, const struct trace_record_stats *st)
{
	char v[160];

	snprintf(v, sizeof(v), "%.3f", st->seconds);
	trace_hdr_meta(&r->hdr, "capture.seconds", v);
	snprintf(v, sizeof(v), "%" PRIu64 " KiB per CPU", st->buffer_kb);
	trace_hdr_meta(&r->hdr, "capture.buffer", v);
	snprintf(v, sizeof(v), "%" PRIu64 " events, peak %.0f/s, reader CPU %.3f s", st->events,
		 st->peak_events_s, st->cpu_s);
	trace_hdr_meta(&r->hdr, "capture.events", v);
	snprintf(v, sizeof(v), "%" PRIu64, st->lost);
	trace_hdr_meta(&r->hdr, "capture.lost", v);
	if (st->machine_busy_pct >= 0) {        /* what replay --cpu-load recorded holds */
		snprintf(v, sizeof(v), "%.1f %% of %ld CPUs busy (the machine's)", st->machine_busy_pct,
			 sysconf(_SC_NPROCESSORS_ONLN));
		trace_hdr_meta(&r->hdr, "capture.cpu_busy", v);
	}
	if (r->dev.part) {
		snprintf(v, sizeof(v), "%" PRIu64 " requests of %s outside %s", st->outside, r->dev.disk, r->dev.name);
		trace_hdr_meta(&r->hdr, "capture.outside", v);
	}
}

/* Header, then the body's bytes, into r->out; closes it. */
static int write_out(struct trace_record *r, char *err, size_t errlen)
{
	struct trace_writer w = { .fmt = r->bw.fmt, .path = r->out_path, .f = r->out, .hdr = &r->hdr };
	char buf[65536];
	size_t n;
	int rc = 0;

	w.priv = calloc(1, w.fmt->wpriv_size);
	r->out = NULL;
	if (!w.priv || w.fmt->wopen(&w))
		rc = -EIO;
	fflush(r->body);
	rewind(r->body);
	while (!rc && (n = fread(buf, 1, sizeof(buf), r->body)) > 0)
		if (fwrite(buf, 1, n, w.f) != n)
			rc = -EIO;
	if (ferror(r->body))
		rc = -EIO;
	if (trace_writer_close(&w) && !rc)
		rc = -EIO;
	if (rc)
		snprintf(err, errlen, "cannot write the trace '%s': %s", r->out_path, strerror(errno ? errno : EIO));
	return rc;
}

int trace_record_finish(struct trace_record *r, struct trace_record_stats *st, char *err, size_t errlen)
{
	struct trace_record_stats s;
	int rc;

	join(r);
	fill_stats(r, &s);
	capture_meta(r, &s);
	if (r->ios)
		r->hdr.epoch_ns += r->base_ns;
	else
		r->hdr.epoch_ns = 0;
	if (r->lost)
		snprintf(r->hdr.note, sizeof(r->hdr.note), "incomplete: the capture lost events and stopped "
			 "there (%.140s)", r->err);
	rc = write_out(r, err, errlen);
	if (!rc && atomic_load(&r->failed)) {
		snprintf(err, errlen, "%s", r->err);
		rc = r->lost ? -ENOBUFS : -EIO;
	}
	if (st)
		*st = s;
	return rc;
}

void trace_record_free(struct trace_record *r)
{
	if (!r)
		return;
	join(r);
	record_fs_close(&r->fs);
	record_blk_close(&r->bt);
	if (r->out && r->out != stdout)
		fclose(r->out);
	if (r->body)
		fclose(r->body);
	free(r->bw.priv);
	pair_release(&r->pair);
	trace_devs_release(&r->hdr.devs);
	free(r->pend);
	free(r->per_sec);
	free(r);
}

#endif /* HAVE_TRACEFS */
