/*
 * fmt_fio.c - fio's I/O logs (fio HOWTO, "Trace file format"): read version
 * 2 and 3, write version 3 so that fio --read_iolog replays the same I/Os.
 *
 *   fio version 3 iolog
 *   TIMESTAMP FILENAME add|open|close
 *   TIMESTAMP FILENAME read|write|trim|sync|datasync OFFSET LENGTH
 *
 * Version 3's timestamp is in microseconds from the start of the run (fio
 * writes it with utime_since_now and sleeps that many µs between lines).
 * Version 2 has no timestamp: "FILENAME wait USEC" advances the clock by
 * USEC µs instead (version 3 ignores wait, as fio does). Offsets and lengths
 * are bytes. Each file is a device; sync and datasync are flushes of it.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "appio/trace.h"
#include "text.h"

#define V2 "fio version 2 iolog"
#define V3 "fio version 3 iolog"

struct fio_priv {
	int version;
	uint64_t clock_ns;              /* version 2: the sum of waits */
};

static int fio_probe(const char *buf, size_t len)
{
	if (len >= sizeof(V2) - 1 && (!memcmp(buf, V2, sizeof(V2) - 1) || !memcmp(buf, V3, sizeof(V3) - 1)))
		return 100;
	return 0;
}

static int fio_open(struct trace_reader *r)
{
	struct fio_priv *p = r->priv;
	long n = trace_getline(r);

	if (n < -1)
		return (int)n;
	if (n >= 0 && !strncmp(r->buf, V2, sizeof(V2) - 1))
		p->version = 2;
	else if (n >= 0 && !strncmp(r->buf, V3, sizeof(V3) - 1))
		p->version = 3;
	else
		return trace_bad(r, "expected 'fio version 2 iolog' or 'fio version 3 iolog' "
				 "(version 1 logs are not read, as fio no longer reads them)");
	snprintf(r->hdr.clock, sizeof(r->hdr.clock), p->version == 3 ? "fio iolog v3: us from the start" :
		 "fio iolog v2: sum of waits");
	snprintf(r->hdr.source, sizeof(r->hdr.source), "fio iolog v%d '%s'", p->version, r->path);
	return 0;
}

static const struct {
	const char *name;
	uint8_t op;
	uint16_t flags;
	int needs_range;
} fio_acts[] = {
	{ "read", TRACE_OP_READ, 0, 1 },
	{ "write", TRACE_OP_WRITE, 0, 1 },
	{ "trim", TRACE_OP_DISCARD, 0, 1 },
	{ "sync", TRACE_OP_FLUSH, 0, 0 },
	{ "datasync", TRACE_OP_FLUSH, TRACE_F_DATASYNC, 0 },
};

/* Fields after the timestamp: FILENAME ACTION [OFFSET LENGTH]. 0, 2 (no record), -EINVAL. */
static int fio_action(struct trace_reader *r, char **f, int n, uint64_t t_ns, struct trace_rec *rec)
{
	struct fio_priv *p = r->priv;
	uint64_t v;
	int rc;

	if (!strcmp(f[1], "add") || !strcmp(f[1], "open") || !strcmp(f[1], "close")) {
		if (n != 2)
			return trace_bad(r, "expected no offset after '%s'", f[1]);
		return trace_dev(r, f[0], &rec->dev) ? -EINVAL : 2;
	}
	if (!strcmp(f[1], "wait")) {
		if (n < 3 || text_u64(f[2], &v))
			return trace_bad(r, "expected 'FILENAME wait USEC'");
		if (p->version == 2 && v > (UINT64_MAX - p->clock_ns) / 1000)
			return trace_bad(r, "expected waits that add up to less than 2^64 ns, got 'wait %.30s'",
					 f[2]);
		if (p->version == 2)
			p->clock_ns += v * 1000;
		return 2;
	}
	for (size_t i = 0; i < sizeof(fio_acts) / sizeof(fio_acts[0]); i++) {
		if (strcmp(f[1], fio_acts[i].name))
			continue;
		if (n != 4 && (fio_acts[i].needs_range || n != 2))
			return trace_bad(r, "expected '%s OFFSET LENGTH' (bytes)", f[1]);
		if (n == 4 && (text_u64(f[2], &rec->offset) || text_u64(f[3], &rec->length)))
			return trace_bad(r, "expected offset and length in bytes, got '%.30s' '%.30s'", f[2], f[3]);
		if ((rc = trace_dev(r, f[0], &rec->dev)))
			return rc;
		rec->op = fio_acts[i].op;
		rec->flags = fio_acts[i].flags;
		rec->issue_ns = t_ns;
		return 0;
	}
	return trace_bad(r, "expected an action of add open close read write trim sync datasync wait, "
			 "got '%.30s'", f[1]);
}

static int fio_next(struct trace_reader *r, struct trace_rec *rec)
{
	struct fio_priv *p = r->priv;
	char *f[7];
	long len;

	while ((len = trace_getline(r)) >= 0) {
		int n = text_split(r->buf, ' ', f, 7);
		uint64_t t_ns = p->clock_ns, us;
		char **a = f;

		if (!n)
			continue;
		if (p->version == 3) {
			if (text_u64(f[0], &us) || us > UINT64_MAX / 1000)
				return trace_bad(r, "expected a timestamp in us first, got '%.30s'", f[0]);
			t_ns = us * 1000;
			a++;
			n--;
		}
		if (n < 2 || n > 4)
			return trace_bad(r, "expected %sFILENAME ACTION [OFFSET LENGTH]",
					 p->version == 3 ? "TIMESTAMP " : "");
		trace_rec_init(rec);
		int rc = fio_action(r, a, n, t_ns, rec);
		if (rc != 2)
			return rc;
	}
	return len == -1 ? 1 : (int)len;
}

/* ---- writer: version 3 ---- */

struct fio_wpriv {
	uint8_t opened[TRACE_MAX_DEVS / 8];
	uint64_t last_us;
};

/* fio reads file names with %256s: no blanks. */
static void fio_name(const char *in, char *out, size_t len)
{
	size_t i = 0;

	for (; in[i] && i + 1 < len; i++)
		out[i] = in[i] == ' ' || in[i] == '\t' ? '_' : in[i];
	out[i] = 0;
}

static int fio_wopen(struct trace_writer *w)
{
	fputs(V3 "\n", w->f);
	return 0;
}

static int fio_write(struct trace_writer *w, const struct trace_rec *rec)
{
	struct fio_wpriv *p = w->priv;
	uint64_t us = rec->issue_ns / 1000;
	char name[64];
	const char *act;

	fio_name(w->hdr->devs.d[rec->dev].name, name, sizeof(name));
	if (!(p->opened[rec->dev / 8] & (1u << (rec->dev % 8)))) {
		p->opened[rec->dev / 8] |= (uint8_t)(1u << (rec->dev % 8));
		fprintf(w->f, "%" PRIu64 " %s add\n%" PRIu64 " %s open\n", us, name, us, name);
	}
	switch (rec->op) {
	case TRACE_OP_READ: act = "read"; break;
	case TRACE_OP_WRITE: act = "write"; break;
	case TRACE_OP_DISCARD: act = "trim"; break;
	default: act = rec->flags & TRACE_F_DATASYNC ? "datasync" : "sync"; break;
	}
	fprintf(w->f, "%" PRIu64 " %s %s %" PRIu64 " %" PRIu64 "\n", us, name, act,
		rec->op == TRACE_OP_FLUSH ? 0 : rec->offset, rec->op == TRACE_OP_FLUSH ? 0 : rec->length);
	if (us > p->last_us)
		p->last_us = us;
	return 0;
}

static int fio_wclose(struct trace_writer *w)
{
	struct fio_wpriv *p = w->priv;
	char name[64];

	for (uint32_t d = 0; d < w->hdr->devs.n; d++) {
		if (!(p->opened[d / 8] & (1u << (d % 8))))
			continue;
		fio_name(w->hdr->devs.d[d].name, name, sizeof(name));
		fprintf(w->f, "%" PRIu64 " %s close\n", p->last_us, name);
	}
	return 0;
}

const struct trace_format trace_fmt_fio = {
	.name = "fio",
	.desc = "fio iolog: reads versions 2 and 3, writes 3 (timestamps in us, bytes)",
	.priv_size = sizeof(struct fio_priv),
	.wpriv_size = sizeof(struct fio_wpriv),
	.probe = fio_probe,
	.open = fio_open,
	.next = fio_next,
	.wopen = fio_wopen,
	.write = fio_write,
	.wclose = fio_wclose,
};
