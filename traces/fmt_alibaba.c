/*
 * fmt_alibaba.c - the Alibaba Cloud block traces (alibaba/block-traces), one
 * CSV line per I/O:
 *
 *   device_id,opcode,offset,length,timestamp
 *   0,W,126703644672,4096,1577808144000853
 *
 * device_id is a virtual disk, opcode R or W, offset and length bytes,
 * timestamp µs since the Unix epoch. A header line is allowed.
 */
#include <string.h>

#include "appio/trace.h"
#include "text.h"

static int alibaba_probe(const char *buf, size_t len)
{
	char line[256], *f[8];
	uint64_t v;

	text_first_line(buf, len, line, sizeof(line));
	if (!strncmp(line, "device_id,opcode,offset,length,timestamp", 40))
		return 100;
	if (text_split(line, ',', f, 8) != 5 || text_u64(f[0], &v) || !strchr("RW", f[1][0]) ||
	    !f[1][0] || f[1][1] || text_u64(f[2], &v) || text_u64(f[3], &v) || text_u64(f[4], &v))
		return 0;
	return 90;
}

static int alibaba_open(struct trace_reader *r)
{
	r->unix_clock = 1;
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "Unix time in us");
	return 0;
}

static int alibaba_next(struct trace_reader *r, struct trace_rec *rec)
{
	char *f[6];
	uint64_t us;
	long len;
	int rc;

	while ((len = trace_getline(r)) >= 0) {
		if (!len || (r->line == 1 && !strncmp(r->buf, "device_id,", 10)))
			continue;
		trace_rec_init(rec);
		if (text_split(r->buf, ',', f, 6) != 5)
			return trace_bad(r, "expected 5 comma-separated fields (device_id,opcode,offset,length,"
					 "timestamp)");
		if (!strcmp(f[1], "R"))
			rec->op = TRACE_OP_READ;
		else if (!strcmp(f[1], "W"))
			rec->op = TRACE_OP_WRITE;
		else
			return trace_bad(r, "expected opcode R or W, got '%.20s'", f[1]);
		if (text_u64(f[2], &rec->offset) || text_u64(f[3], &rec->length))
			return trace_bad(r, "expected offset and length in bytes");
		if (text_u64(f[4], &us) || us > UINT64_MAX / 1000)
			return trace_bad(r, "expected timestamp in us since the Unix epoch, got '%.30s'", f[4]);
		rec->issue_ns = us * 1000;
		if ((rc = trace_dev(r, f[0], &rec->dev)))
			return rc;
		return 0;
	}
	return len == -1 ? 1 : (int)len;
}

const struct trace_format trace_fmt_alibaba = {
	.name = "alibaba",
	.desc = "Alibaba block-trace CSV: device, R/W, bytes, Unix time in us",
	.probe = alibaba_probe,
	.open = alibaba_open,
	.next = alibaba_next,
};
