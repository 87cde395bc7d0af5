/*
 * trace.c - the trace core: opening with a guessed format, the relative
 * clock, in-flight counts from completion times, writers, and the helpers
 * every format shares (lines, errors, device names, RWBS letters).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "appio/trace.h"
#include "gz.h"
#include "tq.h"

#define PEEK_BYTES 4096
#define LINE_MAX_BYTES 65536

const struct trace_format *trace_format_find(const char *name)
{
	for (int i = 0; trace_format_table[i]; i++)
		if (!strcmp(trace_format_table[i]->name, name))
			return trace_format_table[i];
	return NULL;
}

const struct trace_format *trace_format_guess(const char *buf, size_t len)
{
	const struct trace_format *best = NULL;
	int best_score = 0;

	for (int i = 0; trace_format_table[i]; i++) {
		const struct trace_format *f = trace_format_table[i];
		int s = f->probe && f->next ? f->probe(buf, len) : 0;
		if (s > best_score) {
			best = f;
			best_score = s;
		}
	}
	return best;
}

const char *trace_op_name(unsigned op)
{
	static const char *const names[TRACE_OP_NR] = { "read", "write", "flush", "discard" };
	return op < TRACE_OP_NR ? names[op] : "?";
}

int trace_hdr_meta(struct trace_hdr *h, const char *key, const char *val)
{
	char k[sizeof(h->meta[0].key)];
	uint32_t i;

	snprintf(k, sizeof(k), "%.*s", (int)strcspn(key, " \t\r\n"), key);
	for (i = 0; i < h->nmeta && strcmp(h->meta[i].key, k); i++)
		;
	if (i == TRACE_META_MAX)
		return -ENOSPC;
	if (i == h->nmeta)
		h->nmeta++;
	memcpy(h->meta[i].key, k, sizeof(k));
	snprintf(h->meta[i].val, sizeof(h->meta[i].val), "%.*s", (int)strcspn(val, "\r\n"), val);
	return 0;
}

const char *trace_hdr_meta_get(const struct trace_hdr *h, const char *key)
{
	for (uint32_t i = 0; i < h->nmeta; i++)
		if (!strcmp(h->meta[i].key, key))
			return h->meta[i].val;
	return NULL;
}

void trace_rec_init(struct trace_rec *rec)
{
	memset(rec, 0, sizeof(*rec));
	rec->complete_ns = TRACE_NS_UNKNOWN;
	rec->inflight = -1;
	rec->pid = -1;
}

/* ---- peeking at a pipe: the peeked bytes are read again through a cookie FILE ---- */

struct peek {
	FILE *under;
	char buf[PEEK_BYTES];
	size_t len, pos;
};

static ssize_t peek_read(void *cookie, char *out, size_t n)
{
	struct peek *p = cookie;

	if (p->pos < p->len) {
		size_t k = p->len - p->pos < n ? p->len - p->pos : n;
		memcpy(out, p->buf + p->pos, k);
		p->pos += k;
		return (ssize_t)k;
	}
	return (ssize_t)fread(out, 1, n, p->under);
}

static int peek_close(void *cookie)
{
	struct peek *p = cookie;
	int rc = p->under == stdin ? 0 : fclose(p->under);
	free(p);
	return rc;
}

/* A FILE that reads the @n bytes at @buf again and then the rest of @f; owns @f. */
static FILE *wrap_peek(FILE *f, const char *buf, size_t n)
{
	cookie_io_functions_t io = { .read = peek_read, .close = peek_close };
	struct peek *p = malloc(sizeof(*p));
	FILE *w = NULL;

	if (p) {
		p->under = f;
		memcpy(p->buf, buf, n);
		p->len = n;
		p->pos = 0;
		w = fopencookie(p, "r", io);
	}
	if (!w) {
		free(p);
		if (f != stdin)
			fclose(f);
	}
	return w;
}

/*
 * Open @path and read its first bytes into @buf; r->f then reads from byte 0.
 * Regular files are rewound, pipes wrapped; a gzip file is read through
 * zlib and @buf holds its first decompressed bytes. Returns the byte count
 * or -errno.
 */
static long open_peek(struct trace_reader *r, char *buf, int *seekable)
{
	FILE *f = strcmp(r->path, "-") ? fopen(r->path, "rb") : stdin;
	struct stat st;

	if (!f) {
		int e = errno;
		snprintf(r->err, sizeof(r->err), "cannot open '%s': %s", r->path, strerror(e));
		return -e;
	}
	size_t n = fread(buf, 1, PEEK_BYTES, f);
	*seekable = !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
	int rewound = *seekable && !fseeko(f, 0, SEEK_SET);
	if (rewound && !gz_magic(buf, n)) {
		r->f = f;
		return (long)n;
	}
	*seekable = 0;
	r->f = rewound ? f : wrap_peek(f, buf, n);
	if (r->f && gz_magic(buf, n)) {
		FILE *g = gz_open(r->f);
		if (!g)
			fclose(r->f);
		n = g ? fread(buf, 1, PEEK_BYTES, g) : 0;
		if (g && ferror(g)) {
			fclose(g);
			r->f = NULL;
			snprintf(r->err, sizeof(r->err), "'%s': a broken gzip stream at its start", r->path);
			return -EINVAL;
		}
		r->f = g ? wrap_peek(g, buf, n) : NULL;
	}
	if (!r->f) {
		snprintf(r->err, sizeof(r->err), "cannot read '%s': out of memory", r->path);
		return -ENOMEM;
	}
	return (long)n;
}

int trace_open(struct trace_reader *r, const char *path, const struct trace_format *fmt,
	       const struct trace_opts *opts)
{
	char head[PEEK_BYTES + 1];
	int seekable = 0, rc;

	memset(r, 0, sizeof(*r));
	r->path = path;
	if (opts)
		r->opts = *opts;
	r->hdr.sector_size = 512;
	long n = open_peek(r, head, &seekable);
	if (n < 0)
		return (int)n;
	head[n] = 0;
	if (!fmt && !n) {
		snprintf(r->err, sizeof(r->err), "'%s' is empty: no trace format to guess", path);
		return -EINVAL;
	}
	if (!fmt && !(fmt = trace_format_guess(head, (size_t)n))) {
		snprintf(r->err, sizeof(r->err), "'%s': unknown trace format (give one with --from; "
			 "see 'appio trace formats')", path);
		return -EINVAL;
	}
	r->fmt = fmt;
	if (!fmt->next) {
		snprintf(r->err, sizeof(r->err), "'%s': appio writes %s but cannot read it", path, fmt->name);
		return -EINVAL;
	}
	if ((fmt->flags & TRACE_FMT_SEEK) && !seekable) {
		snprintf(r->err, sizeof(r->err), "'%s': a %s trace must be a regular file, not a pipe "
			 "or compressed",
			 path, fmt->name);
		return -EINVAL;
	}
	r->buf = malloc(LINE_MAX_BYTES);
	r->priv = calloc(1, fmt->priv_size ? fmt->priv_size : 1);
	struct tq *q = calloc(1, sizeof(*q));
	r->qd = q;
	if (!r->buf || !r->priv || !q || tq_init(q, TRACE_INFLIGHT_MAX, 1)) {
		snprintf(r->err, sizeof(r->err), "'%s': out of memory", path);
		return -ENOMEM;
	}
	r->cap = LINE_MAX_BYTES;
	snprintf(r->hdr.source, sizeof(r->hdr.source), "%s '%s'", fmt->name, path);
	rc = fmt->open ? fmt->open(r) : 0;
	return rc;
}

/* In-flight count at issue from completion times, for sources that give those only. */
static void count_inflight(struct trace_reader *r, struct trace_rec *rec)
{
	struct tq *q = r->qd;
	struct trace_rec done;

	while (tq_peek(q) && tq_peek(q)->complete_ns <= rec->issue_ns) {
		tq_pop(q, &done);
		r->hdr.devs.d[done.dev].outstanding--;
	}
	if (tq_push(q, rec))
		return;                 /* more outstanding than the bound: leave it unknown */
	rec->inflight = ++r->hdr.devs.d[rec->dev].outstanding;
}

int trace_next(struct trace_reader *r, struct trace_rec *rec)
{
	int rc = r->fmt->next(r, rec);

	if (rc)
		return rc;
	if (rec->dev >= r->hdr.devs.n)
		return trace_bad(r, "record names device %u, which was never declared", rec->dev);
	if (rec->length > UINT64_MAX - rec->offset)
		return trace_bad(r, "expected offset + length below 2^64 bytes, got %" PRIu64 " + %" PRIu64,
				 rec->offset, rec->length);
	if (rec->inflight < 0 && rec->complete_ns != TRACE_NS_UNKNOWN)
		count_inflight(r, rec);
	if (!r->count++) {
		r->base_ns = rec->issue_ns;
		if (r->unix_clock)
			r->hdr.epoch_ns = rec->issue_ns;
		else if (r->hdr.epoch_ns)
			r->hdr.epoch_ns += rec->issue_ns;
	}
	if (rec->issue_ns < r->base_ns) {
		r->early++;
		if (rec->complete_ns != TRACE_NS_UNKNOWN)
			rec->complete_ns = rec->complete_ns > r->base_ns ? rec->complete_ns - r->base_ns : 0;
		rec->issue_ns = 0;
		return 0;
	}
	rec->issue_ns -= r->base_ns;
	if (rec->complete_ns != TRACE_NS_UNKNOWN)
		rec->complete_ns -= r->base_ns;
	return 0;
}

void trace_close(struct trace_reader *r)
{
	if (r->fmt && r->fmt->close && r->priv)
		r->fmt->close(r);
	if (r->f && r->f != stdin)
		fclose(r->f);
	if (r->qd)
		tq_release(r->qd);
	free(r->qd);
	free(r->priv);
	free(r->buf);
	trace_devs_release(&r->hdr.devs);
	r->f = NULL;
	r->qd = r->priv = NULL;
	r->buf = NULL;
}

/* ---- writers ---- */

int trace_writer_open(struct trace_writer *w, const char *path, const struct trace_format *fmt,
		      const struct trace_hdr *hdr)
{
	memset(w, 0, sizeof(*w));
	w->path = path;
	w->fmt = fmt;
	w->hdr = hdr;
	if (!fmt->write) {
		snprintf(w->err, sizeof(w->err), "appio reads %s traces but does not write them "
			 "(it writes appio, fio-v3 and blkparse)", fmt->name);
		return -EINVAL;
	}
	w->f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	if (!w->f) {
		int e = errno;
		snprintf(w->err, sizeof(w->err), "cannot create '%s': %s", path, strerror(e));
		return -e;
	}
	w->priv = calloc(1, fmt->wpriv_size ? fmt->wpriv_size : 1);
	if (!w->priv) {
		snprintf(w->err, sizeof(w->err), "'%s': out of memory", path);
		return -ENOMEM;
	}
	return fmt->wopen ? fmt->wopen(w) : 0;
}

int trace_write(struct trace_writer *w, const struct trace_rec *rec)
{
	int rc = w->fmt->write(w, rec);

	w->count += !rc;
	return rc;
}

int trace_writer_close(struct trace_writer *w)
{
	int rc = 0;

	if (w->f && w->priv && w->fmt->wclose)
		rc = w->fmt->wclose(w);
	if (w->f) {
		if ((fflush(w->f) || ferror(w->f)) && !rc) {
			snprintf(w->err, sizeof(w->err), "cannot write '%s': %s", w->path, strerror(errno));
			rc = -EIO;
		}
		if (w->f != stdout)
			fclose(w->f);
	}
	free(w->priv);
	w->priv = NULL;
	w->f = NULL;
	return rc;
}

/* ---- helpers for formats ---- */

long trace_getline(struct trace_reader *r)
{
	if (!fgets(r->buf, (int)r->cap, r->f)) {
		/* a compressed trace that breaks off mid-stream is an error, not its end */
		if (ferror(r->f))
			return trace_bad(r, "cannot read further: %s", strerror(errno ? errno : EIO));
		return -1;
	}
	r->line++;
	size_t n = strlen(r->buf);
	if (n == r->cap - 1 && r->buf[n - 1] != '\n')
		return trace_bad(r, "expected a line shorter than %zu bytes", r->cap);
	/* fgets stopped at neither a newline, the end nor the size: a NUL cut the line short */
	if ((!n || r->buf[n - 1] != '\n') && !feof(r->f))
		return trace_bad(r, "expected text, got a NUL byte (is this a binary file?)");
	while (n && (r->buf[n - 1] == '\n' || r->buf[n - 1] == '\r'))
		r->buf[--n] = 0;
	return (long)n;
}

int trace_bad(struct trace_reader *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof(r->err), "'%s' line %llu: ", r->path, (unsigned long long)r->line);

	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int devs_grow(struct trace_devs *ds)
{
	uint32_t cap = ds->cap ? ds->cap * 2 : 16;
	struct trace_dev *d = realloc(ds->d, cap * sizeof(*d));
	uint32_t *h = calloc(cap * 2, sizeof(*h));

	if (!d || !h) {
		free(h);
		if (d)
			ds->d = d;
		return -ENOMEM;
	}
	ds->d = d;
	free(ds->hash);
	ds->hash = h;
	ds->cap = cap;
	ds->hcap = cap * 2;
	for (uint32_t i = 0; i < ds->n; i++) {
		uint32_t k = name_hash(d[i].name) & (ds->hcap - 1);
		while (h[k])
			k = (k + 1) & (ds->hcap - 1);
		h[k] = i + 1;
	}
	return 0;
}

int trace_devs_id(struct trace_devs *ds, const char *name, uint32_t *id)
{
	char key[sizeof(ds->d->name)];

	snprintf(key, sizeof(key), "%s", name);
	if (ds->cap) {
		uint32_t k = name_hash(key) & (ds->hcap - 1);
		for (; ds->hash[k]; k = (k + 1) & (ds->hcap - 1))
			if (!strcmp(ds->d[ds->hash[k] - 1].name, key)) {
				*id = ds->hash[k] - 1;
				return 0;
			}
	}
	if (ds->n == TRACE_MAX_DEVS)
		return -ENOSPC;
	if (ds->n == ds->cap && devs_grow(ds))
		return -ENOMEM;
	struct trace_dev *d = &ds->d[ds->n];
	memset(d, 0, sizeof(*d));
	memcpy(d->name, key, sizeof(key));
	uint32_t k = name_hash(key) & (ds->hcap - 1);
	while (ds->hash[k])
		k = (k + 1) & (ds->hcap - 1);
	ds->hash[k] = ds->n + 1;
	*id = ds->n++;
	return 0;
}

void trace_devs_release(struct trace_devs *ds)
{
	free(ds->d);
	free(ds->hash);
	memset(ds, 0, sizeof(*ds));
}

int trace_dev(struct trace_reader *r, const char *name, uint32_t *id)
{
	int rc = trace_devs_id(&r->hdr.devs, name, id);

	if (rc == -ENOSPC)
		return trace_bad(r, "more than %d devices; appio keeps at most that many", TRACE_MAX_DEVS);
	if (rc)
		return trace_bad(r, "out of memory for device names");
	return 0;
}

int trace_rwbs_parse(const char *s, uint8_t *op, uint16_t *flags)
{
	uint16_t fl = 0;
	int i = 0;
	char main;

	if (s[0] == 'F' && s[1] && strchr("RWDNF", s[1])) {
		fl |= TRACE_F_PREFLUSH;
		i = 1;
	}
	main = s[i++];
	switch (main) {
	case 'R': *op = TRACE_OP_READ; break;
	case 'W': *op = TRACE_OP_WRITE; break;
	case 'D': *op = TRACE_OP_DISCARD; i += s[i] == 'E'; break;     /* DE: secure erase */
	case 'F': *op = TRACE_OP_FLUSH; break;
	case 'N': *op = TRACE_OP_FLUSH; break;
	default: return -2;
	}
	for (; s[i]; i++) {
		switch (s[i]) {
		case 'F': fl |= TRACE_F_FUA; break;
		case 'A': fl |= TRACE_F_AHEAD; break;
		case 'S': fl |= TRACE_F_SYNC; break;
		case 'M': fl |= TRACE_F_META; break;
		case 'B': fl |= TRACE_F_PREFLUSH | TRACE_F_FUA; break;       /* old kernels' barrier */
		case 'E': break;
		default: return -2;
		}
	}
	if (main == 'N' && !(fl & TRACE_F_PREFLUSH))
		return -1;              /* no data and no flush: nothing to replay */
	if (*op == TRACE_OP_FLUSH)
		fl &= (uint16_t)~TRACE_F_PREFLUSH;
	*flags = fl;
	return 0;
}

void trace_rwbs_format(uint8_t op, uint16_t flags, char *buf)
{
	int i = 0;

	if (op == TRACE_OP_FLUSH) {
		buf[i++] = 'F';
		buf[i++] = 'N';
	} else {
		if (flags & TRACE_F_PREFLUSH)
			buf[i++] = 'F';
		buf[i++] = "RWFD"[op < TRACE_OP_NR ? op : 0];
	}
	if (flags & TRACE_F_FUA)
		buf[i++] = 'F';
	if (flags & TRACE_F_AHEAD)
		buf[i++] = 'A';
	if (flags & TRACE_F_SYNC)
		buf[i++] = 'S';
	if (flags & TRACE_F_META)
		buf[i++] = 'M';
	buf[i] = 0;
}
