/*
 * fmt_tencent.c - the Tencent Cloud Block Storage traces (SNIA IOTTA), one
 * CSV line per I/O:
 *
 *   Timestamp,Offset,Size,IOType,VolumeID
 *   1538323200,12345678,8,1,1283
 *
 * Timestamp is whole seconds since the Unix epoch, Offset and Size are
 * 512-byte sectors, IOType 0 read and 1 write, VolumeID the volume (device).
 *
 * One-second timestamps would replay as bursts, so the I/Os of each second
 * are spread evenly over it: the i-th of n lines stamped s is issued at
 * s + i/n seconds. Counting n reads the second's lines ahead and seeks back,
 * so the trace must be a regular file (TRACE_FMT_SEEK); memory stays constant.
 */
#include <errno.h>
#include <string.h>

#include "appio/trace.h"
#include "text.h"

struct tencent_priv {
	uint64_t sec, i, n;             /* the current second, this line's rank, its line count */
};

static int tencent_probe(const char *buf, size_t len)
{
	char line[256], *f[8];
	uint64_t v;

	text_first_line(buf, len, line, sizeof(line));
	if (!strncmp(line, "Timestamp,Offset,Size,IOType,VolumeID", 37))
		return 100;
	if (text_split(line, ',', f, 8) != 5 || strlen(f[0]) != 10 || text_u64(f[0], &v) ||
	    text_u64(f[1], &v) || text_u64(f[2], &v) || (strcmp(f[3], "0") && strcmp(f[3], "1")) ||
	    text_u64(f[4], &v))
		return 0;
	return 80;
}

static int tencent_open(struct trace_reader *r)
{
	r->unix_clock = 1;
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "Unix time in whole seconds");
	snprintf(r->hdr.note, sizeof(r->hdr.note), "Tencent CBS timestamps are whole seconds: "
		 "the I/Os of each second are spread evenly over it");
	return 0;
}

/* The number of lines from here on stamped like the next one; the position is kept. */
static int count_second(struct trace_reader *r, uint64_t *sec, uint64_t *n)
{
	off_t pos = ftello(r->f);
	uint64_t line = r->line, t;
	long len;

	*n = 0;
	while ((len = trace_getline(r)) >= 0) {
		char *comma = strchr(r->buf, ',');
		if (!len || (r->line == 1 && !strncmp(r->buf, "Timestamp,", 10)))
			continue;
		if (comma)
			*comma = 0;
		if (text_u64(r->buf, &t))
			break;                  /* the main pass reports it */
		if (*n && t != *sec)
			break;
		*sec = t;
		++*n;
	}
	if (len < -1)
		return (int)len;
	r->line = line;
	if (pos < 0 || fseeko(r->f, pos, SEEK_SET))
		return trace_bad(r, "cannot seek back in the file: %s", strerror(errno));
	return 0;
}

static int tencent_next(struct trace_reader *r, struct trace_rec *rec)
{
	struct tencent_priv *p = r->priv;
	char *f[6];
	uint64_t sec, type, off, size, vol;
	long len;
	int rc;

	if (p->i == p->n) {
		if ((rc = count_second(r, &p->sec, &p->n)))
			return rc;
		p->i = 0;
	}
	while ((len = trace_getline(r)) >= 0) {
		if (!len || (r->line == 1 && !strncmp(r->buf, "Timestamp,", 10)))
			continue;
		trace_rec_init(rec);
		if (text_split(r->buf, ',', f, 6) != 5)
			return trace_bad(r, "expected 5 comma-separated fields (Timestamp,Offset,Size,IOType,"
					 "VolumeID)");
		if (text_u64(f[0], &sec) || sec > UINT64_MAX / 1000000000 - 1)
			return trace_bad(r, "expected Timestamp in whole seconds, got '%.30s'", f[0]);
		if (text_u64(f[1], &off) || text_u64(f[2], &size) || off > UINT64_MAX / 512 ||
		    size > UINT32_MAX)
			return trace_bad(r, "expected Offset and Size in 512-byte sectors");
		if (text_u64(f[3], &type) || type > 1)
			return trace_bad(r, "expected IOType 0 (read) or 1 (write), got '%.20s'", f[3]);
		if (text_u64(f[4], &vol))
			return trace_bad(r, "expected VolumeID as a number, got '%.20s'", f[4]);
		rec->op = type ? TRACE_OP_WRITE : TRACE_OP_READ;
		rec->offset = off * 512;
		rec->length = size * 512;
		rec->issue_ns = sec * 1000000000 + (p->n ? p->i * 1000000000 / p->n : 0);
		p->i += p->i < p->n;
		return trace_dev(r, f[4], &rec->dev);
	}
	return len == -1 ? 1 : (int)len;
}

const struct trace_format trace_fmt_tencent = {
	.name = "tencent",
	.desc = "Tencent CBS CSV: whole seconds (spread evenly), 512-byte sectors, 0/1 read/write",
	.flags = TRACE_FMT_SEEK,
	.priv_size = sizeof(struct tencent_priv),
	.probe = tencent_probe,
	.open = tencent_open,
	.next = tencent_next,
};
