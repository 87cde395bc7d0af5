/*
 * fmt_biosnoop.c - the output of bcc's biosnoop (and libbpf-tools'):
 *
 *   TIME(s)     COMM           PID    DISK    T SECTOR     BYTES   LAT(ms)
 *   0.000004    jbd2/sda1-8    471    sda     W 4203912    4096       0.43
 *
 * TIME is seconds from the first event, taken when the I/O completes; LAT
 * is ms from issue to completion, so an I/O was issued at TIME - LAT. With
 * -Q a QUE(ms) column (time queued before issue) comes before LAT. T is R or
 * W (or RWBS letters); SECTOR is in 512-byte sectors, BYTES in bytes. Columns
 * are found by their header, so the order of optional ones does not matter;
 * a COMM with blanks is what lies between PID's left and right neighbours.
 *
 * Lines arrive in completion order; they wait in a bounded queue (at most
 * TRACE_INFLIGHT_MAX) until no later line can have been issued before them
 * (the longest latency seen so far has passed), and leave in issue order.
 */
#include <errno.h>
#include <string.h>

#include "appio/trace.h"
#include "text.h"
#include "tq.h"

#define BIAS_NS 3600000000000ull

enum { C_TIME, C_COMM, C_PID, C_DISK, C_T, C_SECTOR, C_BYTES, C_LAT, C_NR };
static const char *const col_names[C_NR] = {
	"TIME(s)", "COMM", "PID", "DISK", "T", "SECTOR", "BYTES", "LAT(ms)",
};

struct bio_priv {
	int col[C_NR];                  /* column index of each, -1 if absent */
	int ncols;
	struct tq q;
	uint64_t max_lat, now;
	int done;
};

static int biosnoop_probe(const char *buf, size_t len)
{
	return len > 8 && !strncmp(buf, "TIME(s)", 7) && memmem(buf, len, "LAT(ms)", 7) ? 100 : 0;
}

static int biosnoop_open(struct trace_reader *r)
{
	struct bio_priv *p = r->priv;
	char *f[32];
	long n;

	while ((n = trace_getline(r)) == 0)
		;
	if (n < -1)
		return (int)n;
	p->ncols = n < 0 ? 0 : text_split(r->buf, ' ', f, 32);
	for (int c = 0; c < C_NR; c++) {
		p->col[c] = -1;
		for (int i = 0; i < p->ncols; i++)
			if (!strcmp(f[i], col_names[c]))
				p->col[c] = i;
		if (p->col[c] < 0 && c != C_COMM && c != C_PID)
			return trace_bad(r, "expected a biosnoop header with TIME(s) DISK T SECTOR BYTES LAT(ms)");
	}
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "biosnoop: s from the first event");
	if (tq_init(&p->q, TRACE_INFLIGHT_MAX, 0))
		return trace_bad(r, "out of memory for the reorder queue");
	return 0;
}

static void biosnoop_close(struct trace_reader *r)
{
	struct bio_priv *p = r->priv;
	tq_release(&p->q);
}

/* The field of column @c: columns right of COMM count from the right. */
static char *field(const struct bio_priv *p, char **f, int n, int c)
{
	int i = p->col[c];
	int comm = p->col[C_COMM];

	if (i < 0)
		return NULL;
	if (comm >= 0 && i > comm)
		i = n - (p->ncols - i);
	return i >= 0 && i < n ? f[i] : NULL;
}

static int biosnoop_line(struct trace_reader *r)
{
	struct bio_priv *p = r->priv;
	char *f[64], *s;
	int n = text_split(r->buf, ' ', f, 64);
	struct trace_rec rec;
	uint64_t t, lat, sector, v;
	int rc;

	if (!n || !strcmp(f[0], "TIME(s)"))
		return 0;
	trace_rec_init(&rec);
	if (n < p->ncols || text_dec_ns(field(p, f, n, C_TIME), 1000000000, &t) ||
	    text_dec_ns(field(p, f, n, C_LAT), 1000000, &lat))
		return trace_bad(r, "expected %d columns with TIME in s and LAT in ms", p->ncols);
	if (t > UINT64_MAX - BIAS_NS)
		return trace_bad(r, "expected TIME below 2^64 ns less an hour");
	if (text_u64(field(p, f, n, C_SECTOR), &sector) || text_u64(field(p, f, n, C_BYTES), &rec.length) ||
	    sector > UINT64_MAX / 512)
		return trace_bad(r, "expected SECTOR (below 2^55) and BYTES as numbers");
	rc = trace_rwbs_parse(field(p, f, n, C_T), &rec.op, &rec.flags);
	if (rc == -1)
		return 0;
	if (rc)
		return trace_bad(r, "expected T as R, W or RWBS letters, got '%.20s'", field(p, f, n, C_T));
	if ((s = field(p, f, n, C_PID)) && !text_u64(s, &v) && v <= INT32_MAX)
		rec.pid = (int32_t)v;
	if ((rc = trace_dev(r, field(p, f, n, C_DISK), &rec.dev)))
		return rc;
	/* TIME starts at 0 with the first completion: an hour's bias keeps earlier issues positive */
	rec.complete_ns = t + BIAS_NS;
	rec.issue_ns = t + BIAS_NS > lat ? t + BIAS_NS - lat : 0;
	rec.offset = sector * 512;
	p->now = t + BIAS_NS;
	if (lat > p->max_lat)
		p->max_lat = lat;
	rc = tq_push(&p->q, &rec);
	if (rc == -ENOMEM)
		return trace_bad(r, "out of memory putting I/Os in issue order");
	if (rc)
		return trace_bad(r, "more than %d I/Os waiting to be put in issue order", TRACE_INFLIGHT_MAX);
	return 0;
}

static int biosnoop_next(struct trace_reader *r, struct trace_rec *rec)
{
	struct bio_priv *p = r->priv;
	long len;

	for (;;) {
		const struct trace_rec *h = tq_peek(&p->q);
		if (h && (p->done || h->issue_ns + p->max_lat < p->now))
			return tq_pop(&p->q, rec);
		if (p->done)
			return 1;
		if ((len = trace_getline(r)) < 0) {
			if (len < -1)
				return (int)len;
			p->done = 1;
			continue;
		}
		int rc = biosnoop_line(r);
		if (rc)
			return rc;
	}
}

const struct trace_format trace_fmt_biosnoop = {
	.name = "biosnoop",
	.desc = "bcc/libbpf-tools biosnoop output: TIME(s) at completion, LAT(ms), 512-byte sectors",
	.priv_size = sizeof(struct bio_priv),
	.probe = biosnoop_probe,
	.open = biosnoop_open,
	.next = biosnoop_next,
	.close = biosnoop_close,
};
