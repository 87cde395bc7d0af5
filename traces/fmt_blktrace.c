/*
 * fmt_blktrace.c - blktrace's binary per-CPU files (NAME.blktrace.0, .1...):
 * a stream of struct blk_io_trace (48 bytes, as in the kernel's
 * include/uapi/linux/blktrace_api.h) each followed by pdu_len bytes of
 * payload, in the byte order of the machine that traced.
 *
 *   u32 magic      0x65617400 | version (0x07)
 *   u32 sequence
 *   u64 time       ns
 *   u64 sector     512-byte sectors
 *   u32 bytes
 *   u32 action     low 16 bits: what happened (1 queue, 2 back merge,
 *                  3 front merge, 7 issue, 8 complete...); high 16 bits:
 *                  BLK_TC_* categories (read, write, flush, sync, FUA...)
 *   u32 pid
 *   u32 device     kernel dev_t: major << 20 | minor
 *   u32 cpu
 *   u16 error
 *   u16 pdu_len
 *
 * Given one file NAME.blktrace.N, every NAME.blktrace.<number> beside it is
 * read too (at most BT_MAX_FILES), and their events merged by time, one
 * event per file in memory. Requests are paired as blkparse pairs them: the
 * issue (D) event, or the queue (Q) event with trace_opts.queue_events, with
 * the completion (C) of the same device and sector.
 */
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "appio/trace.h"
#include "fmt_blktrace.h"
#include "pair.h"

#define BT_MAGIC 0x65617400u
#define BT_VERSION 0x07
#define BT_SIZE FMT_BLKTRACE_SIZE
#define BT_MAX_FILES 1024

struct bt_file {
	FILE *f;
	char *path;
	uint64_t recno;
	int swap;                       /* -1 until the first record tells */
	int valid;                      /* ev holds the next event */
	struct fmt_blktrace_ev ev;
};

struct bt_priv {
	struct bt_file *files;
	int n;
	struct pair pair;
	int done;
};

static uint32_t get32(const unsigned char *p, int swap)
{
	uint32_t v;
	memcpy(&v, p, 4);
	return swap ? __builtin_bswap32(v) : v;
}

static uint64_t get64(const unsigned char *p, int swap)
{
	uint64_t v;
	memcpy(&v, p, 8);
	return swap ? __builtin_bswap64(v) : v;
}

/* 0 native, 1 swapped, -1 not blktrace; *version the low byte. */
static int magic_order(const unsigned char *p, int *version)
{
	for (int swap = 0; swap < 2; swap++) {
		uint32_t m = get32(p, swap);
		if ((m & 0xffffff00u) == BT_MAGIC) {
			*version = (int)(m & 0xff);
			return swap;
		}
	}
	return -1;
}

int fmt_blktrace_decode(const unsigned char *b, int *swap, struct fmt_blktrace_ev *e)
{
	int version, sw = magic_order(b, &version);
	uint16_t pdu;

	if (sw < 0 || (*swap >= 0 && sw != *swap))
		return -1;
	if (version != BT_VERSION)
		return -2;
	*swap = sw;
	e->time = get64(b + 8, sw);
	e->sector = get64(b + 16, sw);
	e->bytes = get32(b + 24, sw);
	e->action = get32(b + 28, sw);
	e->pid = get32(b + 32, sw);
	e->device = get32(b + 36, sw);
	memcpy(&pdu, b + 46, 2);
	e->pdu_len = sw ? __builtin_bswap16(pdu) : pdu;
	return 0;
}

static int blktrace_probe(const char *buf, size_t len)
{
	int version;

	if (len < BT_SIZE || magic_order((const unsigned char *)buf, &version) < 0)
		return 0;
	return version == BT_VERSION ? 100 : 60;
}

static int bt_bad(struct trace_reader *r, const struct bt_file *bf, const char *what)
{
	snprintf(r->err, sizeof(r->err), "'%s' record %" PRIu64 ": %s", bf->path, bf->recno, what);
	return -EINVAL;
}

/* Read the next event of @bf into bf->ev; bf->valid 0 at its end. */
static int bt_read(struct trace_reader *r, struct bt_file *bf)
{
	unsigned char b[BT_SIZE], skip[256];
	size_t got = fread(b, 1, BT_SIZE, bf->f);

	bf->valid = 0;
	if (!got)
		return 0;
	bf->recno++;
	if (got < BT_SIZE)
		return bt_bad(r, bf, "expected a 48-byte record, the file ends inside one");
	int rc = fmt_blktrace_decode(b, &bf->swap, &bf->ev);
	if (rc == -1)
		return bt_bad(r, bf, "expected the magic 0x65617407 (in the byte order of the first record)");
	if (rc)
		return bt_bad(r, bf, "expected blk_io_trace version 0x07");
	uint16_t pdu = bf->ev.pdu_len;
	while (pdu) {
		size_t k = pdu < sizeof(skip) ? pdu : sizeof(skip);
		if (fread(skip, 1, k, bf->f) != k)
			return bt_bad(r, bf, "expected pdu_len bytes of payload, the file ends first");
		pdu = (uint16_t)(pdu - k);
	}
	bf->valid = 1;
	return 0;
}

static int add_file(struct trace_reader *r, const char *path, FILE *f)
{
	struct bt_priv *p = r->priv;
	struct bt_file *bf = &p->files[p->n];

	bf->path = strdup(path);
	bf->f = f ? f : fopen(path, "rb");
	bf->swap = -1;
	if (!bf->path || !bf->f) {
		snprintf(r->err, sizeof(r->err), "cannot open '%s': %s", path, strerror(errno));
		free(bf->path);
		bf->path = NULL;
		return -EINVAL;
	}
	p->n++;
	return bt_read(r, bf);
}

/* NAME.blktrace.N -> every NAME.blktrace.<digits> beside it. */
static int open_siblings(struct trace_reader *r)
{
	const char *dot = strstr(r->path, ".blktrace.");
	size_t plen = dot ? (size_t)(dot - r->path) + 10 : 0;
	char pat[4096];
	glob_t g;
	int rc = 0;

	if (!dot || strspn(dot + 10, "0123456789") != strlen(dot + 10) || plen + 8 > sizeof(pat))
		return add_file(r, r->path, NULL);
	snprintf(pat, sizeof(pat), "%.*s[0-9]*", (int)plen, r->path);
	if (glob(pat, 0, NULL, &g))
		return add_file(r, r->path, NULL);
	for (size_t i = 0; i < g.gl_pathc && !rc; i++) {
		const char *suffix = g.gl_pathv[i] + plen;
		if (strspn(suffix, "0123456789") != strlen(suffix))
			continue;
		if (((struct bt_priv *)r->priv)->n == BT_MAX_FILES) {
			snprintf(r->err, sizeof(r->err), "'%s': more than %d per-CPU files", r->path, BT_MAX_FILES);
			rc = -EINVAL;
			break;
		}
		rc = add_file(r, g.gl_pathv[i], NULL);
	}
	globfree(&g);
	return rc;
}

static int blktrace_open(struct trace_reader *r)
{
	struct bt_priv *p = r->priv;

	snprintf(r->hdr.clock, sizeof(r->hdr.clock), "blktrace: ns");
	p->files = calloc(BT_MAX_FILES, sizeof(*p->files));
	if (!p->files || pair_init(&p->pair, TRACE_INFLIGHT_MAX)) {
		snprintf(r->err, sizeof(r->err), "'%s': out of memory", r->path);
		return -ENOMEM;
	}
	if (!strcmp(r->path, "-"))
		return add_file(r, "-", r->f);
	return open_siblings(r);
}

static void blktrace_close(struct trace_reader *r)
{
	struct bt_priv *p = r->priv;

	for (int i = 0; i < p->n; i++) {
		if (p->files[i].f && p->files[i].f != r->f)
			fclose(p->files[i].f);
		free(p->files[i].path);
	}
	free(p->files);
	pair_release(&p->pair);
}

int fmt_blktrace_op(uint32_t action, uint32_t bytes, uint8_t *op, uint16_t *flags)
{
	uint32_t tc = action >> 16;

	if (tc & FMT_BLKTRACE_TC_DISCARD)
		*op = TRACE_OP_DISCARD;
	else if (tc & FMT_BLKTRACE_TC_WRITE)
		*op = TRACE_OP_WRITE;
	else if (bytes)
		*op = TRACE_OP_READ;
	else if (tc & FMT_BLKTRACE_TC_FLUSH)
		*op = TRACE_OP_FLUSH;
	else
		return -1;
	*flags = (uint16_t)((tc & FMT_BLKTRACE_TC_FLUSH && *op != TRACE_OP_FLUSH ? TRACE_F_PREFLUSH : 0) |
			    (tc & FMT_BLKTRACE_TC_FUA ? TRACE_F_FUA : 0) | (tc & FMT_BLKTRACE_TC_SYNC ? TRACE_F_SYNC : 0) |
			    (tc & FMT_BLKTRACE_TC_META ? TRACE_F_META : 0) |
			    (tc & FMT_BLKTRACE_TC_AHEAD ? TRACE_F_AHEAD : 0));
	return 0;
}

static int bt_event(struct trace_reader *r, const struct bt_file *bf)
{
	struct bt_priv *p = r->priv;
	const struct fmt_blktrace_ev *e = &bf->ev;
	uint32_t act = e->action & 0xffff, tc = e->action >> 16;
	int issue = act == (r->opts.queue_events ? FMT_BLKTRACE_QUEUE : FMT_BLKTRACE_ISSUE);
	int merge = r->opts.queue_events && (act == FMT_BLKTRACE_BACKMERGE || act == FMT_BLKTRACE_FRONTMERGE);
	struct trace_rec rec;
	char name[24];

	if ((tc & (FMT_BLKTRACE_TC_NOTIFY | FMT_BLKTRACE_TC_PC)) || !(issue || merge || act == FMT_BLKTRACE_COMPLETE))
		return 0;
	trace_rec_init(&rec);
	snprintf(name, sizeof(name), "%u,%u", e->device >> 20, e->device & 0xfffff);
	if (trace_dev(r, name, &rec.dev))
		return bt_bad(r, bf, "too many devices");
	if (!issue) {
		pair_complete(&p->pair, rec.dev, e->sector, merge ? TRACE_NS_UNKNOWN : e->time, &r->hdr.devs);
		return 0;
	}
	if (fmt_blktrace_op(e->action, e->bytes, &rec.op, &rec.flags))
		return 0;
	/* here, not in trace_next, whose message would name a line rather than this record */
	if (e->sector > (UINT64_MAX - e->bytes) / 512)
		return bt_bad(r, bf, "expected a sector and bytes that end below 2^64 bytes");
	rec.issue_ns = e->time;
	rec.offset = e->sector * 512;
	rec.length = e->bytes;
	rec.pid = (int32_t)e->pid;
	int rc = pair_issue(&p->pair, &rec, e->sector, &r->hdr.devs);
	if (rc == -ENOMEM)
		return bt_bad(r, bf, "out of memory pairing requests");
	if (rc == -ENOSPC)
		return bt_bad(r, bf, "more than 65536 requests in flight (completion events missing?)");
	return 0;
}

static int blktrace_next(struct trace_reader *r, struct trace_rec *rec)
{
	struct bt_priv *p = r->priv;

	for (;;) {
		if (!pair_pop(&p->pair, rec, p->done, &r->hdr.devs))
			return 0;
		if (p->done)
			return 1;
		struct bt_file *min = NULL;
		for (int i = 0; i < p->n; i++)
			if (p->files[i].valid && (!min || p->files[i].ev.time < min->ev.time))
				min = &p->files[i];
		if (!min) {
			p->done = 1;
			continue;
		}
		int rc = bt_event(r, min);
		if (!rc)
			rc = bt_read(r, min);
		if (rc)
			return rc;
	}
}

const struct trace_format trace_fmt_blktrace = {
	.name = "blktrace",
	.desc = "blktrace binary per-CPU files (blk_io_trace v0x07, either byte order), merged by time",
	.priv_size = sizeof(struct bt_priv),
	.probe = blktrace_probe,
	.open = blktrace_open,
	.next = blktrace_next,
	.close = blktrace_close,
};
