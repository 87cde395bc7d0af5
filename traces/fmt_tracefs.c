/*
 * fmt_tracefs.c - the text of the kernel's block tracepoints as tracefs
 * prints them (/sys/kernel/tracing/trace, trace-cmd report):
 *
 *   fio-1234  [002] d..1.  1234.567890: block_rq_issue: 8,0 WS 4096 () 12345 + 8 [fio]
 *   <idle>-0  [002] ..s1.  1234.568010: block_rq_complete: 8,0 WS () 12345 + 8 [0]
 *
 * TASK-PID, [CPU], flags, the timestamp in seconds (µs or ns digits, the
 * trace clock's), then the event: device MAJ,MIN, RWBS, bytes (issue only),
 * the command in parentheses, SECTOR + SECTORS (512-byte sectors), on newer
 * kernels an I/O priority, and [comm] or [error]. The fields are found around
 * the '+', so all these kernel variants read alike. block_rq_issue is paired
 * with the block_rq_complete of the same device and sector; other events and
 * '#' comments are skipped.
 */
#include <errno.h>
#include <string.h>

#include "appio/trace.h"
#include "pair.h"
#include "text.h"

#define ISSUE " block_rq_issue: "
#define COMPLETE " block_rq_complete: "
#define FLUSH_KEY UINT64_MAX            /* the pairing table's sector for every flush */

struct tracefs_priv {
	struct pair pair;
	int done;
};

static int tracefs_probe(const char *buf, size_t len)
{
	char tmp[4097];
	size_t n = len < sizeof(tmp) - 1 ? len : sizeof(tmp) - 1;

	memcpy(tmp, buf, n);
	tmp[n] = 0;
	if (strstr(tmp, ISSUE) || strstr(tmp, COMPLETE))
		return 90;
	return !strncmp(tmp, "# tracer:", 9) ? 60 : 0;
}

static int tracefs_open(struct trace_reader *r)
{
	struct tracefs_priv *p = r->priv;

	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "tracefs: s of the trace clock");
	if (pair_init(&p->pair, TRACE_INFLIGHT_MAX))
		return trace_bad(r, "out of memory for the in-flight table");
	return 0;
}

static void tracefs_close(struct trace_reader *r)
{
	struct tracefs_priv *p = r->priv;
	pair_release(&p->pair);
}

/* The timestamp ending just before @ev ("1234.567890:") and the pid of TASK-PID. */
static int prefix(struct trace_reader *r, char *ev, uint64_t *t, int32_t *pid)
{
	char *end = ev, *start;
	uint64_t v;

	while (end > r->buf && end[-1] == ' ')
		end--;
	if (end == r->buf || end[-1] != ':')
		return trace_bad(r, "expected 'SECONDS:' before the event name");
	*--end = 0;
	for (start = end; start > r->buf && start[-1] != ' '; start--)
		;
	if (text_dec_ns(start, 1000000000, t))
		return trace_bad(r, "expected a timestamp in seconds, got '%.30s'", start);
	char *br = strchr(r->buf, '[');
	*pid = -1;
	if (br) {
		char *dash = br;
		while (dash > r->buf && dash[-1] == ' ')
			dash--;
		*dash = 0;
		dash = strrchr(r->buf, '-');
		if (dash && !text_u64(dash + 1, &v) && v <= INT32_MAX)
			*pid = (int32_t)v;
	}
	return 0;
}

static int tracefs_event(struct trace_reader *r, char *ev, int issue)
{
	struct tracefs_priv *p = r->priv;
	char *f[32];
	struct trace_rec rec;
	uint64_t t, sector, count;
	int n, k, rc;

	trace_rec_init(&rec);
	if ((rc = prefix(r, ev, &t, &rec.pid)))
		return rc;
	n = text_split(ev + strlen(issue ? ISSUE : COMPLETE), ' ', f, 32);
	for (k = 2; k < n - 1 && strcmp(f[k], "+"); k++)
		;
	if (n < 4 || k >= n - 1)
		return trace_bad(r, "expected 'MAJ,MIN RWBS ... SECTOR + SECTORS ...' after the event name");
	rc = trace_rwbs_parse(f[1], &rec.op, &rec.flags);
	if (rc == -1)
		return 0;
	if (rc)
		return trace_bad(r, "expected RWBS letters (e.g. R, WS, FWFS, D), got '%.30s'", f[1]);
	/* a flush has no sector (0 at issue, 2^64 - 1 at completion): flushes pair among themselves */
	if (rec.op == TRACE_OP_FLUSH)
		sector = count = 0;
	else if (text_u64(f[k - 1], &sector) || text_u64(f[k + 1], &count))
		return trace_bad(r, "expected 'MAJ,MIN RWBS ... SECTOR + SECTORS ...' after the event name");
	if (sector > UINT64_MAX / 512 || count > UINT64_MAX / 512)
		return trace_bad(r, "expected SECTOR and SECTORS below 2^55 (512-byte sectors)");
	if ((rc = trace_dev(r, f[0], &rec.dev)))
		return rc;
	if (!issue) {
		pair_complete(&p->pair, rec.dev, rec.op == TRACE_OP_FLUSH ? FLUSH_KEY : sector, t, &r->hdr.devs);
		return 0;
	}
	rec.issue_ns = t;
	rec.offset = sector * 512;
	rec.length = count * 512;
	rc = pair_issue(&p->pair, &rec, rec.op == TRACE_OP_FLUSH ? FLUSH_KEY : sector, &r->hdr.devs);
	if (rc == -ENOMEM)
		return trace_bad(r, "out of memory pairing requests");
	if (rc == -ENOSPC)
		return trace_bad(r, "more than %d requests in flight (completion events missing?)",
				 TRACE_INFLIGHT_MAX);
	return 0;
}

static int tracefs_next(struct trace_reader *r, struct trace_rec *rec)
{
	struct tracefs_priv *p = r->priv;
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
		char *ev = strstr(r->buf, ISSUE);
		int issue = ev != NULL;
		if (!ev)
			ev = strstr(r->buf, COMPLETE);
		if (r->buf[0] == '#' || !ev)
			continue;
		int rc = tracefs_event(r, ev, issue);
		if (rc)
			return rc;
	}
}

const struct trace_format trace_fmt_tracefs = {
	.name = "tracefs",
	.desc = "kernel block_rq_issue/block_rq_complete tracepoint text; seconds, 512-byte sectors",
	.priv_size = sizeof(struct tracefs_priv),
	.probe = tracefs_probe,
	.open = tracefs_open,
	.next = tracefs_next,
	.close = tracefs_close,
};
