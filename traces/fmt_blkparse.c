/*
 * fmt_blkparse.c - blkparse's default text output (blkparse(1), "DEFAULT
 * OUTPUT FORMAT"): one line per event,
 *
 *   8,0    3        5     0.000008917   697  D  WS 3417048 + 8 [kjournald]
 *   dev   cpu  sequence   seconds       pid act RWBS sector + sectors [process]
 *
 * with completions as "C  WS 3417048 + 8 [0]" (the last field the error).
 * A request is taken at its D (issued to the driver) event, or at its Q
 * (queued) event with trace_opts.queue_events, and paired with the C event of
 * the same device and sector for its completion time; a bio merged into
 * another request (M, F) then has no completion of its own. Sectors are 512
 * bytes; times are seconds from the start of the trace. Other events (G, I,
 * P, U, X, A, m...) are skipped, and so is the summary blkparse prints at the
 * end ("CPU0 (8,0):" ...).
 *
 * The writer prints the same layout: a D line per record and a C line at its
 * completion, in time order (completions wait in a bounded queue).
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "appio/trace.h"
#include "pair.h"
#include "text.h"
#include "tq.h"

struct blkparse_priv {
	struct pair pair;
	int done;                       /* the end of events: drain the pairing table */
};

/* "8,0" -> 0; anything else -> -1. */
static int devno(const char *s)
{
	const char *c = strchr(s, ',');
	uint64_t v;
	char maj[16];

	if (!c || c == s || (size_t)(c - s) >= sizeof(maj))
		return -1;
	memcpy(maj, s, (size_t)(c - s));
	maj[c - s] = 0;
	return text_u64(maj, &v) || text_u64(c + 1, &v) ? -1 : 0;
}

static int blkparse_probe(const char *buf, size_t len)
{
	char line[256];
	char *f[8];
	uint64_t v;

	text_first_line(buf, len, line, sizeof(line));
	if (text_split(line, ' ', f, 8) < 7 || devno(f[0]) || text_u64(f[1], &v) ||
	    text_u64(f[2], &v) || !strchr(f[3], '.') || text_u64(f[4], &v))
		return 0;
	return strlen(f[5]) <= 2 ? 90 : 0;
}

static int blkparse_open(struct trace_reader *r)
{
	struct blkparse_priv *p = r->priv;

	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "blkparse: s from the start of the trace");
	if (pair_init(&p->pair, TRACE_INFLIGHT_MAX))
		return trace_bad(r, "out of memory for the in-flight table");
	return 0;
}

static void blkparse_close(struct trace_reader *r)
{
	struct blkparse_priv *p = r->priv;
	pair_release(&p->pair);
}

/* "SECTOR + N" at @f (n fields): the sector and count, or 0 + 0 when absent. */
static int sector_range(char **f, int n, uint64_t *sector, uint64_t *count)
{
	*sector = *count = 0;
	if (n >= 3 && !strcmp(f[1], "+"))
		return text_u64(f[0], sector) || text_u64(f[2], count) ? -1 : 0;
	return n >= 1 && f[0][0] != '[' && f[0][0] != '(' ? -1 : 0;
}

/* One event line split in @f; feeds the pairing table. */
static int blkparse_event(struct trace_reader *r, char **f, int n)
{
	struct blkparse_priv *p = r->priv;
	uint64_t t, pid, sector, count;
	char act = f[5][0];
	int issue = f[5][1] == 0 && act == (r->opts.queue_events ? 'Q' : 'D');
	struct trace_rec rec;
	int rc;

	int merge = r->opts.queue_events && (act == 'M' || act == 'F');

	if (f[5][1] || !(issue || merge || act == 'C'))
		return 0;
	if (text_dec_ns(f[3], 1000000000, &t) || text_u64(f[4], &pid))
		return trace_bad(r, "expected time in seconds and a pid, got '%.30s' '%.30s'", f[3], f[4]);
	if (sector_range(f + 7, n - 7, &sector, &count))
		return trace_bad(r, "expected 'SECTOR + SECTORS [...]' after '%s %s'", f[5], f[6]);
	if (sector > UINT64_MAX / 512 || count > UINT64_MAX / 512)
		return trace_bad(r, "expected SECTOR and SECTORS below 2^55 (512-byte sectors)");
	trace_rec_init(&rec);
	if ((rc = trace_dev(r, f[0], &rec.dev)))
		return rc;
	if (!issue) {
		pair_complete(&p->pair, rec.dev, sector, act == 'C' ? t : TRACE_NS_UNKNOWN, &r->hdr.devs);
		return 0;
	}
	rc = trace_rwbs_parse(f[6], &rec.op, &rec.flags);
	if (rc == -1)
		return 0;
	if (rc)
		return trace_bad(r, "expected RWBS letters (e.g. R, WS, FWFS, D), got '%.30s'", f[6]);
	rec.issue_ns = t;
	rec.offset = sector * 512;
	rec.length = count * 512;
	rec.pid = (int32_t)pid;
	rc = pair_issue(&p->pair, &rec, sector, &r->hdr.devs);
	if (rc == -ENOMEM)
		return trace_bad(r, "out of memory pairing requests");
	if (rc == -ENOSPC)
		return trace_bad(r, "more than %d requests in flight (completion events missing?)",
				 TRACE_INFLIGHT_MAX);
	return 0;
}

static int blkparse_next(struct trace_reader *r, struct trace_rec *rec)
{
	struct blkparse_priv *p = r->priv;
	char *f[16];
	long len;

	for (;;) {
		if (!pair_pop(&p->pair, rec, p->done, &r->hdr.devs))
			return 0;
		if (p->done)
			return 1;
		if ((len = trace_getline(r)) < 0) {
			if (len < -1)
				return (int)len;
			p->done = 1;
			continue;
		}
		int n = text_split(r->buf, ' ', f, 16);
		if (!n)
			continue;
		if (!strncmp(f[0], "CPU", 3) || !strcmp(f[0], "Total")) {
			p->done = 1;            /* the summary: events are over */
			continue;
		}
		if (n < 7 || devno(f[0]))
			return trace_bad(r, "expected a blkparse event 'MAJ,MIN CPU SEQ SECONDS PID "
					 "ACTION RWBS ...', got '%.40s'", f[0]);
		int rc = blkparse_event(r, f, n);
		if (rc)
			return rc;
	}
}

/* ---- writer ---- */

struct blkparse_wpriv {
	struct tq done;                 /* completions not yet printed */
	uint64_t seq;
};

static int blkparse_wopen(struct trace_writer *w)
{
	struct blkparse_wpriv *p = w->priv;

	if (tq_init(&p->done, TRACE_INFLIGHT_MAX, 1)) {
		snprintf(w->err, sizeof(w->err), "'%s': out of memory", w->path);
		return -ENOMEM;
	}
	return 0;
}

static void line(struct trace_writer *w, const struct trace_rec *rec, char act, uint64_t t)
{
	struct blkparse_wpriv *p = w->priv;
	const char *name = w->hdr->devs.d[rec->dev].name;
	char dev[48], rwbs[8];

	if (devno(name))
		snprintf(dev, sizeof(dev), "0,%u", rec->dev);   /* not a MAJ,MIN name */
	else
		snprintf(dev, sizeof(dev), "%.47s", name);
	trace_rwbs_format(rec->op, rec->flags, rwbs);
	fprintf(w->f, "%7s %2d %8" PRIu64 " %5" PRIu64 ".%09" PRIu64 " %5d  %c %3s %" PRIu64 " + %" PRIu64
		" [%s]\n", dev, 0, ++p->seq, t / 1000000000, t % 1000000000,
		act == 'C' || rec->pid < 0 ? 0 : rec->pid, act, rwbs, rec->offset / 512,
		rec->length / 512, act == 'C' ? "0" : "appio");
}

static void flush_done(struct trace_writer *w, uint64_t until)
{
	struct blkparse_wpriv *p = w->priv;
	struct trace_rec c;

	while (tq_peek(&p->done) && tq_peek(&p->done)->complete_ns <= until) {
		tq_pop(&p->done, &c);
		line(w, &c, 'C', c.complete_ns);
	}
}

static int blkparse_write(struct trace_writer *w, const struct trace_rec *rec)
{
	struct blkparse_wpriv *p = w->priv;

	flush_done(w, rec->issue_ns);
	line(w, rec, 'D', rec->issue_ns);
	int rc = rec->complete_ns != TRACE_NS_UNKNOWN ? tq_push(&p->done, rec) : 0;
	if (rc == -ENOMEM)
		snprintf(w->err, sizeof(w->err), "'%s': out of memory", w->path);
	else if (rc)
		snprintf(w->err, sizeof(w->err), "'%s': more than %d requests in flight at %.9f s",
			 w->path, TRACE_INFLIGHT_MAX, rec->issue_ns / 1e9);
	return rc;
}

static int blkparse_wclose(struct trace_writer *w)
{
	struct blkparse_wpriv *p = w->priv;

	flush_done(w, UINT64_MAX);
	tq_release(&p->done);
	return 0;
}

const struct trace_format trace_fmt_blkparse = {
	.name = "blkparse",
	.desc = "blkparse default text: D (or Q) events paired with C; seconds, 512-byte sectors",
	.priv_size = sizeof(struct blkparse_priv),
	.wpriv_size = sizeof(struct blkparse_wpriv),
	.probe = blkparse_probe,
	.open = blkparse_open,
	.next = blkparse_next,
	.close = blkparse_close,
	.wopen = blkparse_wopen,
	.write = blkparse_write,
	.wclose = blkparse_wclose,
};
