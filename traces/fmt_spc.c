/*
 * fmt_spc.c - the SPC trace format of the UMass Trace Repository (the
 * Financial and WebSearch traces), one CSV line per I/O:
 *
 *   ASU,LBA,Size,Opcode,Timestamp[,more fields]
 *   0,303567,3584,w,0.000000
 *
 * ASU is the application storage unit (a device, named "asu0"...), LBA a
 * 512-byte block number, Size bytes, Opcode r or w (either case), Timestamp
 * seconds from the start of the trace. Fields past the fifth are ignored.
 */
#include <string.h>

#include "appio/trace.h"
#include "text.h"

static int op_of(const char *s, uint8_t *op)
{
	if ((s[0] == 'r' || s[0] == 'R') && !s[1])
		*op = TRACE_OP_READ;
	else if ((s[0] == 'w' || s[0] == 'W') && !s[1])
		*op = TRACE_OP_WRITE;
	else
		return -1;
	return 0;
}

static int spc_probe(const char *buf, size_t len)
{
	char line[256], *f[8];
	uint64_t v;
	uint8_t op;

	text_first_line(buf, len, line, sizeof(line));
	if (text_split(line, ',', f, 8) < 5 || text_u64(f[0], &v) || text_u64(f[1], &v) ||
	    text_u64(f[2], &v) || op_of(f[3], &op) || text_dec_ns(f[4], 1000000000, &v))
		return 0;
	return 90;
}

static int spc_open(struct trace_reader *r)
{
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "SPC: s from the start of the trace");
	return 0;
}

static int spc_next(struct trace_reader *r, struct trace_rec *rec)
{
	char *f[6], name[32];
	uint64_t asu, lba;
	long len;
	int rc;

	while ((len = trace_getline(r)) >= 0) {
		if (!len)
			continue;
		trace_rec_init(rec);
		if (text_split(r->buf, ',', f, 6) < 5)
			return trace_bad(r, "expected 5 comma-separated fields (ASU,LBA,Size,Opcode,Timestamp)");
		if (text_u64(text_trim(f[0]), &asu) || text_u64(text_trim(f[1]), &lba) ||
		    text_u64(text_trim(f[2]), &rec->length) || lba > UINT64_MAX / 512)
			return trace_bad(r, "expected ASU, LBA (512-byte blocks) and Size (bytes) as numbers");
		if (op_of(text_trim(f[3]), &rec->op))
			return trace_bad(r, "expected Opcode r or w, got '%.20s'", f[3]);
		if (text_dec_ns(text_trim(f[4]), 1000000000, &rec->issue_ns))
			return trace_bad(r, "expected Timestamp in seconds, got '%.30s'", f[4]);
		rec->offset = lba * 512;
		snprintf(name, sizeof(name), "asu%llu", (unsigned long long)asu);
		if ((rc = trace_dev(r, name, &rec->dev)))
			return rc;
		return 0;
	}
	return len == -1 ? 1 : (int)len;
}

const struct trace_format trace_fmt_spc = {
	.name = "spc",
	.desc = "SPC/UMass ASCII: ASU, LBA (512 B), size (bytes), r/w, seconds",
	.probe = spc_probe,
	.open = spc_open,
	.next = spc_next,
};
