/*
 * test_record_blk.c - the blktrace capture's reading of relay data: events
 * written here as the kernel lays out struct blk_io_trace (in either byte
 * order, some with a payload) go through a non-blocking pipe in pieces cut
 * at every size, as a relay file may give them, and come out whole, in
 * order, with their fields; bytes that are not blktrace's stop the reading;
 * categories map to the trace's ops and flags as blkparse reads them.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appio/trace.h"
#include "check.h"
#include "record_blk.h"

#define NEV 40

static void put32(unsigned char *p, uint32_t v, int swap)
{
	v = swap ? __builtin_bswap32(v) : v;
	memcpy(p, &v, 4);
}

static void put64(unsigned char *p, uint64_t v, int swap)
{
	v = swap ? __builtin_bswap64(v) : v;
	memcpy(p, &v, 8);
}

/* Event @i into @p: its bytes (48 and a payload of i % 3 * 8 bytes). */
static size_t make_event(unsigned char *p, int i, int swap)
{
	uint16_t pdu = (uint16_t)(i % 3 * 8);

	memset(p, 0xee, FMT_BLKTRACE_SIZE + pdu);
	put32(p, 0x65617407u, swap);
	put32(p + 4, (uint32_t)i, swap);
	put64(p + 8, 1000000u + (uint64_t)i * 1000, swap);
	put64(p + 16, (uint64_t)i * 8, swap);
	put32(p + 24, 4096, swap);
	put32(p + 28, (uint32_t)(i % 2 ? FMT_BLKTRACE_COMPLETE | FMT_BLKTRACE_TC_COMPLETE << 16 :
				FMT_BLKTRACE_ISSUE | FMT_BLKTRACE_TC_ISSUE << 16) | FMT_BLKTRACE_TC_WRITE << 16, swap);
	put32(p + 32, 100u + (uint32_t)i, swap);
	put32(p + 36, 7u << 20, swap);
	put32(p + 40, 0, swap);
	uint16_t e = 0, l = swap ? __builtin_bswap16(pdu) : pdu;
	memcpy(p + 44, &e, 2);
	memcpy(p + 46, &l, 2);
	return FMT_BLKTRACE_SIZE + pdu;
}

struct seen {
	int n, bad;
};

static void collect(void *ctx, const struct fmt_blktrace_ev *e)
{
	struct seen *s = ctx;
	int i = s->n++;

	if (e->time != 1000000u + (uint64_t)i * 1000 || e->sector != (uint64_t)i * 8 || e->bytes != 4096 ||
	    e->pid != 100u + (uint32_t)i || e->pdu_len != i % 3 * 8 || (e->action & 0xffff) != (i % 2 ? 8u : 7u))
		s->bad++;
}

/* Every event through a pipe in pieces of @piece bytes, read by the capture's own reader. */
static int through_pipe(const unsigned char *data, size_t len, size_t piece, struct seen *s)
{
	struct record_blk b = { .ncpu = 1 };
	struct record_blk_cpu c = { .swap = -1 };
	int fds[2], rc = 0;

	if (pipe2(fds, O_NONBLOCK))
		return -errno;
	c.fd = fds[0];
	c.buf = malloc(RECORD_BLK_BUF_BYTES);
	b.cpu = &c;
	for (size_t off = 0; off < len && rc >= 0; off += piece) {
		size_t k = len - off < piece ? len - off : piece;
		if (write(fds[1], data + off, k) != (ssize_t)k)
			rc = -EIO;
		else
			rc = record_blk_read(&b, 0, collect, s);
	}
	if (rc >= 0 && c.len)
		rc = -EPIPE;            /* bytes left over: an event never finished */
	free(c.buf);
	close(fds[0]);
	close(fds[1]);
	return rc < 0 ? rc : 0;
}

static void test_events_in_pieces(void)
{
	unsigned char data[NEV * 72];

	for (int swap = 0; swap < 2; swap++) {
		size_t len = 0;
		for (int i = 0; i < NEV; i++)
			len += make_event(data + len, i, swap);
		for (size_t piece = 1; piece <= len; piece += piece < 100 ? 1 : 97) {
			struct seen s = { 0 };
			int rc = through_pipe(data, len, piece, &s);
			CHECK(rc == 0 && s.n == NEV && !s.bad, "swap %d, pieces of %zu: rc %d, %d events, %d wrong",
			      swap, piece, rc, s.n, s.bad);
		}
	}
}

static void test_not_blktrace(void)
{
	unsigned char data[3 * 72];
	size_t len = make_event(data, 0, 0);
	size_t used = 99;
	int swap = -1;
	struct seen s = { 0 };

	len += make_event(data + len, 1, 1);     /* the other byte order after the first */
	CHECK(record_blk_parse(data, len, &swap, &used, collect, &s) == -EINVAL && used == 48 && s.n == 1,
	      "a change of byte order: used %zu, %d events", used, s.n);
	swap = -1;
	make_event(data, 0, 0);
	data[0] = 0x06;                          /* version 6 */
	CHECK(record_blk_parse(data, 48, &swap, &used, collect, &s) == -EINVAL && used == 0,
	      "another version is refused");
	memset(data, 'x', 100);
	CHECK(through_pipe(data, 100, 100, &s) == -EINVAL, "text is not blktrace");
}

static void test_ops(void)
{
	static const struct {
		uint32_t tc, bytes;
		int rc;
		uint8_t op;
		uint16_t flags;
	} cases[] = {
		{ FMT_BLKTRACE_TC_READ | FMT_BLKTRACE_TC_AHEAD, 4096, 0, TRACE_OP_READ, TRACE_F_AHEAD },
		{ FMT_BLKTRACE_TC_WRITE | FMT_BLKTRACE_TC_SYNC | FMT_BLKTRACE_TC_FUA, 512, 0, TRACE_OP_WRITE,
		  TRACE_F_SYNC | TRACE_F_FUA },
		{ FMT_BLKTRACE_TC_WRITE | FMT_BLKTRACE_TC_FLUSH | FMT_BLKTRACE_TC_META, 8192, 0, TRACE_OP_WRITE,
		  TRACE_F_PREFLUSH | TRACE_F_META },
		{ FMT_BLKTRACE_TC_FLUSH, 0, 0, TRACE_OP_FLUSH, 0 },
		{ FMT_BLKTRACE_TC_WRITE | FMT_BLKTRACE_TC_DISCARD, 1 << 20, 0, TRACE_OP_DISCARD, 0 },
		{ FMT_BLKTRACE_TC_READ, 0, -1, 0, 0 },  /* no data and no flush */
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		uint8_t op = 99;
		uint16_t flags = 99;
		int rc = fmt_blktrace_op(cases[i].tc << 16 | FMT_BLKTRACE_ISSUE, cases[i].bytes, &op, &flags);
		CHECK(rc == cases[i].rc && (rc || (op == cases[i].op && flags == cases[i].flags)),
		      "case %zu: rc %d op %u flags %#x", i, rc, op, flags);
	}
}

int main(void)
{
	RUN(test_events_in_pieces);
	RUN(test_not_blktrace);
	RUN(test_ops);
	return check_done();
}
