/*
 * fmt_msr.c - the MSR Cambridge block traces (SNIA IOTTA), one CSV line per
 * I/O:
 *
 *   Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime
 *   128166372003061629,hm,1,Read,3154152960,4096,13019
 *
 * Timestamp is a Windows FILETIME: 100 ns units since 1601-01-01 UTC;
 * ResponseTime is in the same 100 ns units; Offset and Size are bytes; Type
 * is Read or Write. Each Hostname,DiskNumber pair is a device, named
 * "hm_1" as the trace files are. A header line is allowed.
 */
#include <strings.h>
#include <string.h>

#include "appio/trace.h"
#include "text.h"

/* FILETIME of 1970-01-01 00:00:00 UTC. */
#define FILETIME_UNIX_EPOCH 116444736000000000ull

int trace_msr_filetime_ns(uint64_t ft, uint64_t *ns)
{
	if (ft < FILETIME_UNIX_EPOCH || ft - FILETIME_UNIX_EPOCH > UINT64_MAX / 100)
		return -1;
	*ns = (ft - FILETIME_UNIX_EPOCH) * 100;
	return 0;
}

static int msr_probe(const char *buf, size_t len)
{
	char line[256], *f[8];
	uint64_t v;

	text_first_line(buf, len, line, sizeof(line));
	if (!strncmp(line, "Timestamp,Hostname,DiskNumber", 30))
		return 100;
	if (text_split(line, ',', f, 8) != 7 || text_u64(f[0], &v) || trace_msr_filetime_ns(v, &v))
		return 0;
	return !strcasecmp(f[3], "Read") || !strcasecmp(f[3], "Write") ? 95 : 0;
}

static int msr_open(struct trace_reader *r)
{
	r->unix_clock = 1;
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "Windows FILETIME (100 ns units)");
	return 0;
}

static int msr_next(struct trace_reader *r, struct trace_rec *rec)
{
	char *f[8], name[48];
	uint64_t ft, rt;
	long len;
	int rc;

	while ((len = trace_getline(r)) >= 0) {
		if (!len || (r->line == 1 && !strncmp(r->buf, "Timestamp,", 10)))
			continue;
		trace_rec_init(rec);
		if (text_split(r->buf, ',', f, 8) != 7)
			return trace_bad(r, "expected 7 comma-separated fields (Timestamp,Hostname,"
					 "DiskNumber,Type,Offset,Size,ResponseTime)");
		if (text_u64(f[0], &ft) || trace_msr_filetime_ns(ft, &rec->issue_ns))
			return trace_bad(r, "expected Timestamp as a Windows FILETIME (100 ns units since 1601), "
					 "got '%.30s'", f[0]);
		if (!strcasecmp(f[3], "Read"))
			rec->op = TRACE_OP_READ;
		else if (!strcasecmp(f[3], "Write"))
			rec->op = TRACE_OP_WRITE;
		else
			return trace_bad(r, "expected Type Read or Write, got '%.30s'", f[3]);
		if (text_u64(f[4], &rec->offset) || text_u64(f[5], &rec->length) || text_u64(f[6], &rt))
			return trace_bad(r, "expected Offset and Size in bytes and ResponseTime in 100 ns units");
		if (rt > (UINT64_MAX - 1 - rec->issue_ns) / 100)
			return trace_bad(r, "expected a ResponseTime that ends before the year 2554, got '%.30s'",
					 f[6]);
		rec->complete_ns = rec->issue_ns + rt * 100;
		snprintf(name, sizeof(name), "%.30s_%.12s", f[1], f[2]);
		if ((rc = trace_dev(r, name, &rec->dev)))
			return rc;
		return 0;
	}
	return len == -1 ? 1 : (int)len;
}

const struct trace_format trace_fmt_msr = {
	.name = "msr",
	.desc = "SNIA IOTTA MSR Cambridge CSV: FILETIME (100 ns), bytes, response in 100 ns",
	.probe = msr_probe,
	.open = msr_open,
	.next = msr_next,
};
