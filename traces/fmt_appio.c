/*
 * fmt_appio.c - appio's own trace format, versions 1 and 2: a text file that
 * keeps every field of struct trace_rec and the header of struct trace_hdr.
 *
 *   appio-trace 2
 *   source blkparse 'sda.txt'            free text
 *   clock since boot                     free text: the source's clock
 *   sector-size 512                      bytes
 *   epoch-ns 1577808144000853000         Unix time of issue 0, when known
 *   note ...                             a caveat, when there is one
 *   meta run.workload oltp_read_write    version 2: how the trace was made, KEY VALUE
 *   device 0 8,0                         ids 0, 1, 2... in order, before first use
 *   0 120956 W S 0 1749528576 4096 1 697
 *
 * A record: issue_ns complete_ns op flags dev offset length inflight pid,
 * separated by one or more blanks; '-' marks an unknown complete_ns, inflight
 * or pid, and no flags. op is R W F D (read write flush discard); flags are
 * any of P (preflush) U (FUA) S (sync) M (metadata) A (read-ahead) Y
 * (datasync). Lines starting with '#' are comments. 'device' lines may also
 * come between records (a converter learns devices as it goes); the other
 * header lines only before the first record. Version 2 adds the 'meta' lines;
 * a trace without any is written as version 1, which older readers know.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "appio/trace.h"
#include "text.h"

#define MAGIC "appio-trace "
#define VERSION 2                       /* the newest this reader knows */

static const char flag_letters[] = "PUSMAY";       /* bit i of trace_flags */
static const uint16_t flag_bits[] = { TRACE_F_PREFLUSH, TRACE_F_FUA, TRACE_F_SYNC,
				      TRACE_F_META, TRACE_F_AHEAD, TRACE_F_DATASYNC };

struct appio_priv {
	int pending;                    /* r->buf holds a record line open() read ahead */
	int version;
};

static int appio_probe(const char *buf, size_t len)
{
	return len >= sizeof(MAGIC) - 1 && !memcmp(buf, MAGIC, sizeof(MAGIC) - 1) ? 100 : 0;
}

static int device_line(struct trace_reader *r, char *arg)
{
	char *f[2];
	uint64_t id;
	uint32_t got;

	if (text_split(arg, ' ', f, 2) != 2 || text_u64(f[0], &id))
		return trace_bad(r, "expected 'device ID NAME', got 'device %s'", arg);
	if (id != r->hdr.devs.n)
		return trace_bad(r, "expected device %u next (ids count up from 0), got %" PRIu64,
				 r->hdr.devs.n, id);
	return trace_dev(r, text_trim(f[1]), &got);
}

static int meta_line(struct trace_reader *r, char *arg)
{
	char *sp = strchr(arg, ' ');

	if (!sp || sp == arg)
		return trace_bad(r, "expected 'meta KEY VALUE', got 'meta %.40s'", arg);
	*sp = 0;
	if (strlen(arg) >= sizeof(r->hdr.meta[0].key))
		return trace_bad(r, "expected a meta key of at most %zu bytes, got '%.40s'",
				 sizeof(r->hdr.meta[0].key) - 1, arg);
	if (trace_hdr_meta(&r->hdr, arg, text_trim(sp + 1)))
		return trace_bad(r, "more than %d meta lines", TRACE_META_MAX);
	return 0;
}

/* A header line "KEY VALUE"; record lines are handled by the caller. */
static int header_line(struct trace_reader *r, char *line)
{
	struct appio_priv *p = r->priv;
	char *sp = strchr(line, ' ');
	char *val = sp ? text_trim(sp + 1) : "";
	uint64_t v;

	if (sp)
		*sp = 0;
	if (!strcmp(line, "device"))
		return device_line(r, val);
	if (!strcmp(line, "source"))
		snprintf(r->hdr.source, sizeof(r->hdr.source), "%s", val);
	else if (!strcmp(line, "clock"))
		snprintf(r->hdr.clock, sizeof(r->hdr.clock), "%s", val);
	else if (!strcmp(line, "note"))
		snprintf(r->hdr.note, sizeof(r->hdr.note), "%s", val);
	else if (!strcmp(line, "sector-size") && !text_u64(val, &v) && v && v <= 65536)
		r->hdr.sector_size = (uint32_t)v;
	else if (!strcmp(line, "epoch-ns") && !text_u64(val, &v))
		r->hdr.epoch_ns = v;
	else if (!strcmp(line, "meta") && p->version >= 2)
		return meta_line(r, val);
	else
		return trace_bad(r, "expected a header line (source, clock, note, sector-size N, "
				 "epoch-ns N, %sdevice ID NAME) or a record, got '%.40s'",
				 p->version >= 2 ? "meta KEY VALUE, " : "", line);
	return 0;
}

static int appio_open(struct trace_reader *r)
{
	struct appio_priv *p = r->priv;
	long n = trace_getline(r);
	uint64_t ver;

	if (n < -1)
		return (int)n;
	if (n < 0 || strncmp(r->buf, MAGIC, sizeof(MAGIC) - 1) ||
	    text_u64(r->buf + sizeof(MAGIC) - 1, &ver))
		return trace_bad(r, "expected 'appio-trace VERSION' as the first line");
	if (ver < 1 || ver > VERSION)
		return trace_bad(r, "this is version %" PRIu64 " of appio's format; this appio reads "
				 "versions 1 to %d", ver, VERSION);
	p->version = (int)ver;
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "ns from the first issue");
	while ((n = trace_getline(r)) >= 0) {
		if (!n || r->buf[0] == '#')
			continue;
		if (r->buf[0] >= '0' && r->buf[0] <= '9') {
			p->pending = 1;
			return 0;
		}
		int rc = header_line(r, r->buf);
		if (rc)
			return rc;
	}
	return n < -1 ? (int)n : 0;
}

static int opt_field(const char *s, int64_t *v)
{
	uint64_t u;

	if (!strcmp(s, "-")) {
		*v = -1;
		return 0;
	}
	if (text_u64(s, &u) || u > INT32_MAX)
		return -1;
	*v = (int64_t)u;
	return 0;
}

static int parse_flags(const char *s, uint16_t *flags)
{
	*flags = 0;
	if (!strcmp(s, "-"))
		return 0;
	for (; *s; s++) {
		const char *c = strchr(flag_letters, *s);
		if (!c || !*s)
			return -1;
		*flags |= flag_bits[c - flag_letters];
	}
	return 0;
}

static int parse_record(struct trace_reader *r, struct trace_rec *rec)
{
	char *f[10];
	int64_t inflight, pid;
	uint64_t dev;
	const char *op;

	trace_rec_init(rec);
	if (text_split(r->buf, ' ', f, 10) != 9)
		return trace_bad(r, "expected 9 fields (issue_ns complete_ns op flags dev offset length "
				 "inflight pid)");
	if (text_u64(f[0], &rec->issue_ns))
		return trace_bad(r, "expected issue_ns in ns, got '%.40s'", f[0]);
	if (strcmp(f[1], "-") && (text_u64(f[1], &rec->complete_ns) || rec->complete_ns < rec->issue_ns))
		return trace_bad(r, "expected complete_ns in ns, not before issue_ns, or '-', got '%.40s'", f[1]);
	if (!f[2][0] || f[2][1] || !(op = strchr("RWFD", f[2][0])))
		return trace_bad(r, "expected op R, W, F or D, got '%.40s'", f[2]);
	rec->op = (uint8_t)(op - "RWFD");
	if (parse_flags(f[3], &rec->flags))
		return trace_bad(r, "expected flags of P U S M A Y, or '-', got '%.40s'", f[3]);
	if (text_u64(f[4], &dev) || dev >= r->hdr.devs.n)
		return trace_bad(r, "expected a declared device id (0..%d), got '%.40s'",
				 (int)r->hdr.devs.n - 1, f[4]);
	rec->dev = (uint32_t)dev;
	if (text_u64(f[5], &rec->offset) || text_u64(f[6], &rec->length))
		return trace_bad(r, "expected offset and length in bytes, got '%.40s' '%.40s'", f[5], f[6]);
	if (opt_field(f[7], &inflight) || opt_field(f[8], &pid))
		return trace_bad(r, "expected inflight and pid as numbers or '-', got '%.40s' '%.40s'",
				 f[7], f[8]);
	rec->inflight = (int32_t)inflight;
	rec->pid = (int32_t)pid;
	return 0;
}

static int appio_next(struct trace_reader *r, struct trace_rec *rec)
{
	struct appio_priv *p = r->priv;

	for (;;) {
		if (p->pending)
			p->pending = 0;
		else {
			long n = trace_getline(r);
			if (n == -1)
				return 1;
			if (n < 0)
				return (int)n;
			if (!n || r->buf[0] == '#')
				continue;
		}
		if (r->buf[0] >= '0' && r->buf[0] <= '9')
			return parse_record(r, rec);
		if (strncmp(r->buf, "device ", 7))
			return trace_bad(r, "expected a record or 'device ID NAME', got '%.40s'", r->buf);
		int rc = device_line(r, r->buf + 7);
		if (rc)
			return rc;
	}
}

/* ---- writer ---- */

struct appio_wpriv {
	uint32_t declared;              /* devices 0..declared-1 have their line */
};

static int appio_wopen(struct trace_writer *w)
{
	const struct trace_hdr *h = w->hdr;

	fprintf(w->f, MAGIC "%d\n# fields: issue_ns complete_ns op flags dev offset length inflight pid\n",
		h->nmeta ? VERSION : 1);
	if (h->source[0])
		fprintf(w->f, "source %s\n", h->source);
	if (h->clock[0])
		fprintf(w->f, "clock %s\n", h->clock);
	if (h->note[0])
		fprintf(w->f, "note %s\n", h->note);
	fprintf(w->f, "sector-size %u\n", h->sector_size ? h->sector_size : 512);
	if (h->epoch_ns)
		fprintf(w->f, "epoch-ns %" PRIu64 "\n", h->epoch_ns);
	for (uint32_t i = 0; i < h->nmeta; i++)
		fprintf(w->f, "meta %s %s\n", h->meta[i].key, h->meta[i].val);
	return 0;
}

static void opt_format(char *buf, size_t len, int32_t v)
{
	if (v < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%d", v);
}

static int appio_write(struct trace_writer *w, const struct trace_rec *rec)
{
	struct appio_wpriv *p = w->priv;
	char cbuf[24], fbuf[8], ibuf[16], pbuf[16];
	int k = 0;

	for (; p->declared <= rec->dev && p->declared < w->hdr->devs.n; p->declared++)
		fprintf(w->f, "device %u %s\n", p->declared, w->hdr->devs.d[p->declared].name);
	for (int i = 0; flag_letters[i]; i++)
		if (rec->flags & flag_bits[i])
			fbuf[k++] = flag_letters[i];
	strcpy(fbuf + k, k ? "" : "-");
	if (rec->complete_ns == TRACE_NS_UNKNOWN)
		strcpy(cbuf, "-");
	else
		snprintf(cbuf, sizeof(cbuf), "%" PRIu64, rec->complete_ns);
	opt_format(ibuf, sizeof(ibuf), rec->inflight);
	opt_format(pbuf, sizeof(pbuf), rec->pid);
	fprintf(w->f, "%" PRIu64 " %s %c %s %u %" PRIu64 " %" PRIu64 " %s %s\n", rec->issue_ns, cbuf,
		"RWFD"[rec->op < TRACE_OP_NR ? rec->op : 0], fbuf, rec->dev, rec->offset, rec->length,
		ibuf, pbuf);
	return 0;
}

const struct trace_format trace_fmt_appio = {
	.name = "appio",
	.desc = "appio's own text format, versions 1 and 2: every field, times in ns",
	.priv_size = sizeof(struct appio_priv),
	.wpriv_size = sizeof(struct appio_wpriv),
	.probe = appio_probe,
	.open = appio_open,
	.next = appio_next,
	.wopen = appio_wopen,
	.write = appio_write,
};
