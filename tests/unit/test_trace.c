/*
 * test_trace.c - every trace reader on small hand-written files (in
 * tests/unit/data/traces/ or built here), blktrace in both byte orders,
 * FILETIME, malformed lines with their exact message, the bounded in-flight
 * table, and round trips through the writers.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appio/trace.h"
#include "appio/trace_stats.h"
#include "check.h"
#include "pair.h"
#include "tq.h"

#define DATA "tests/unit/data/traces/"
#define MAXR 64

struct got {
	int n, rc;
	struct trace_rec r[MAXR];
	char names[8][48];
	char err[320], note[200];
	uint64_t epoch;
	const char *fmt;
};

/* Read all of @path (format @fmt, NULL to guess) into @g. */
static void read_all(const char *path, const char *fmt, int queue, struct got *g)
{
	struct trace_reader r;
	struct trace_opts o = { .queue_events = queue };

	memset(g, 0, sizeof(*g));
	g->rc = trace_open(&r, path, fmt ? trace_format_find(fmt) : NULL, &o);
	while (!g->rc && g->n < MAXR && !(g->rc = trace_next(&r, &g->r[g->n])))
		g->n++;
	for (uint32_t i = 0; i < r.hdr.devs.n && i < 8; i++)
		memcpy(g->names[i], r.hdr.devs.d[i].name, 48);
	snprintf(g->err, sizeof(g->err), "%s", r.err);
	snprintf(g->note, sizeof(g->note), "%s", r.hdr.note);
	g->epoch = r.hdr.epoch_ns;
	g->fmt = r.fmt ? r.fmt->name : "";
	trace_close(&r);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
}

/* The error of reading @text as @fmt (NULL: guess). */
static const char *bad(const char *fmt, const char *text)
{
	static struct got g;
	write_file("build/tests/trace-bad.tmp", text);
	read_all("build/tests/trace-bad.tmp", fmt, 0, &g);
	return g.rc < 0 ? g.err : "(no error)";
}

#define REC(g, i, is, cp, o, fl, off, len) do { \
	const struct trace_rec *x_ = &(g).r[i]; \
	CHECK(x_->issue_ns == (is) && x_->complete_ns == (uint64_t)(cp) && x_->op == (o) && \
	      x_->flags == (fl) && x_->offset == (off) && x_->length == (len), \
	      "record %d: issue %llu complete %llu op %d flags %#x offset %llu length %llu", i, \
	      (unsigned long long)x_->issue_ns, (unsigned long long)x_->complete_ns, x_->op, \
	      x_->flags, (unsigned long long)x_->offset, (unsigned long long)x_->length); \
} while (0)
#define U TRACE_NS_UNKNOWN

static void test_registry(void)
{
	int n = 0;
	for (int i = 0; trace_format_table[i]; i++, n++) {
		const struct trace_format *f = trace_format_table[i];
		CHECK(f->name && f->desc && f->probe, "format %d lacks name, desc or probe", i);
		CHECK(f->next && f->open, "%s: no reader", f->name);
		CHECK(!f->write || f->wopen, "%s: a writer without wopen", f->name);
		CHECK(trace_format_find(f->name) == f, "%s: name not unique", f->name);
	}
	CHECK(n == 10, "%d formats", n);
	CHECK(!trace_format_find("nope"), "unknown name found");
}

static void test_guess(void)
{
	static const char *const files[][2] = {
		{ "sda.blkparse", "blkparse" }, { "msr.csv", "msr" }, { "spc.csv", "spc" },
		{ "alibaba.csv", "alibaba" }, { "tencent.csv", "tencent" }, { "tracefs.txt", "tracefs" },
		{ "biosnoop.txt", "biosnoop" }, { "v2.iolog", "fio" },
	};
	struct got g;
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char path[128];
		snprintf(path, sizeof(path), DATA "%s", files[i][0]);
		read_all(path, NULL, 0, &g);
		CHECK(g.rc == 1 && !strcmp(g.fmt, files[i][1]), "%s guessed as '%s' (rc %d: %s)",
		      files[i][0], g.fmt, g.rc, g.err);
	}
	CHECK(!strcmp(bad(NULL, "hello world\n"), "'build/tests/trace-bad.tmp': unknown trace format "
		      "(give one with --from; see 'appio trace formats')"), "%s", bad(NULL, "hello world\n"));
}

static void test_rwbs(void)
{
	static const struct { const char *s; int rc; uint8_t op; uint16_t fl; } t[] = {
		{ "R", 0, TRACE_OP_READ, 0 }, { "WS", 0, TRACE_OP_WRITE, TRACE_F_SYNC },
		{ "FWFS", 0, TRACE_OP_WRITE, TRACE_F_PREFLUSH | TRACE_F_FUA | TRACE_F_SYNC },
		{ "WFS", 0, TRACE_OP_WRITE, TRACE_F_FUA | TRACE_F_SYNC }, { "RA", 0, TRACE_OP_READ, TRACE_F_AHEAD },
		{ "RM", 0, TRACE_OP_READ, TRACE_F_META }, { "D", 0, TRACE_OP_DISCARD, 0 },
		{ "DE", 0, TRACE_OP_DISCARD, 0 }, { "FN", 0, TRACE_OP_FLUSH, 0 }, { "F", 0, TRACE_OP_FLUSH, 0 },
		{ "FF", 0, TRACE_OP_FLUSH, 0 }, { "N", -1, 0, 0 }, { "X", -2, 0, 0 }, { "WQ", -2, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		uint8_t op = 99;
		uint16_t fl = 99;
		int rc = trace_rwbs_parse(t[i].s, &op, &fl);
		CHECK(rc == t[i].rc && (rc || (op == t[i].op && fl == t[i].fl)), "'%s': rc %d op %d flags %#x",
		      t[i].s, rc, op, fl);
		if (!rc && strcmp(t[i].s, "DE") && strcmp(t[i].s, "F") && strcmp(t[i].s, "FF")) {
			char back[8];
			trace_rwbs_format(op, fl, back);
			CHECK(!strcmp(back, t[i].s), "'%s' formats back as '%s'", t[i].s, back);
		}
	}
}

static void test_blkparse(void)
{
	struct got g;

	read_all(DATA "sda.blkparse", "blkparse", 0, &g);
	CHECK(g.rc == 1 && g.n == 5, "rc %d, %d records: %s", g.rc, g.n, g.err);
	/* D events; times relative to the first D at 0.000008917 s */
	REC(g, 0, 0, 112039, TRACE_OP_WRITE, TRACE_F_SYNC, 3417048ull * 512, 16 * 512);
	REC(g, 1, 1083, 191083, TRACE_OP_READ, TRACE_F_AHEAD, 1000 * 512, 256 * 512);
	REC(g, 2, 11083, 301083, TRACE_OP_WRITE, TRACE_F_PREFLUSH | TRACE_F_FUA | TRACE_F_SYNC, 2000 * 512, 4096);
	REC(g, 3, 12083, 291083, TRACE_OP_FLUSH, 0, 0, 0);
	REC(g, 4, 21083, 391083, TRACE_OP_DISCARD, 0, 5000 * 512, 2048 * 512);
	CHECK(g.r[3].inflight == 4 && g.r[0].inflight == 1 && g.r[2].pid == 701, "inflight %d %d, pid %d",
	      g.r[3].inflight, g.r[0].inflight, g.r[2].pid);
	CHECK(!strcmp(g.names[0], "8,0"), "device '%s'", g.names[0]);
	/* Q events: the merged bio has no completion of its own */
	read_all(DATA "sda.blkparse", "blkparse", 1, &g);
	CHECK(g.rc == 1 && g.n == 2, "Q: rc %d, %d records", g.rc, g.n);
	REC(g, 0, 0, 120956, TRACE_OP_WRITE, TRACE_F_SYNC, 3417048ull * 512, 4096);
	REC(g, 1, 2500, U, TRACE_OP_WRITE, TRACE_F_SYNC, 3417056ull * 512, 4096);
	CHECK(!strcmp(bad("blkparse", "  8,0 0 1 0.1 5 D WS 10 + 8 [x]\n  8,0 0 2 0.2 5 D WZ 10 + 8 [x]\n"),
		      "'build/tests/trace-bad.tmp' line 2: expected RWBS letters (e.g. R, WS, FWFS, D), got 'WZ'"),
	      "%s", bad("blkparse", "  8,0 0 2 0.2 5 D WZ 10 + 8 [x]\n"));
	CHECK(!strcmp(bad("blkparse", "  8,0 0 1 abc 5 D WS 10 + 8 [x]\n"),
		      "'build/tests/trace-bad.tmp' line 1: expected time in seconds and a pid, got 'abc' '5'"),
	      "%s", bad("blkparse", "  8,0 0 1 abc 5 D WS 10 + 8 [x]\n"));
	CHECK(!strcmp(bad("blkparse", "garbage\n"), "'build/tests/trace-bad.tmp' line 1: expected a blkparse "
		      "event 'MAJ,MIN CPU SEQ SECONDS PID ACTION RWBS ...', got 'garbage'"), "%s",
	      bad("blkparse", "garbage\n"));
}

/* More issues than the in-flight table holds, none completed: a clear error. */
static void test_inflight_bound(void)
{
	FILE *f = fopen("build/tests/trace-bound.tmp", "w");
	struct got g;
	for (int i = 0; i <= TRACE_INFLIGHT_MAX; i++)
		fprintf(f, "8,0 0 %d 0.%09d 1 D R %d + 8 [x]\n", i + 1, i, i * 8);
	fclose(f);
	read_all("build/tests/trace-bound.tmp", "blkparse", 0, &g);
	CHECK(g.rc == -EINVAL && !strcmp(g.err, "'build/tests/trace-bound.tmp' line 65537: more than 65536 "
					 "requests in flight (completion events missing?)"), "rc %d: %s", g.rc, g.err);
	unlink("build/tests/trace-bound.tmp");
}

/* ---- blktrace: files written here in either byte order ---- */

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

static void bt_put(FILE *f, int swap, uint64_t t, uint64_t sector, uint32_t bytes, uint32_t act,
		   uint32_t tc, uint16_t pdu)
{
	unsigned char b[48] = { 0 };
	uint16_t p = swap ? __builtin_bswap16(pdu) : pdu;

	put32(b, 0x65617407, swap);
	put64(b + 8, t, swap);
	put64(b + 16, sector, swap);
	put32(b + 24, bytes, swap);
	put32(b + 28, act | tc << 16, swap);
	put32(b + 32, 42, swap);
	put32(b + 36, 8u << 20 | 16, swap);
	memcpy(b + 46, &p, 2);
	fwrite(b, 1, 48, f);
	for (int i = 0; i < pdu; i++)
		fputc('x', f);
}

static void test_blktrace(void)
{
	for (int swap = 0; swap < 2; swap++) {
		FILE *c0 = fopen("build/tests/bt.blktrace.0", "wb"), *c1 = fopen("build/tests/bt.blktrace.1", "wb");
		struct got g;
		bt_put(c0, swap, 500, 0, 0, 0, 1 << 10, 12);                    /* a notify with payload */
		bt_put(c0, swap, 1000, 100, 4096, 1, 1 << 1 | 1 << 3, 0);       /* Q WS */
		bt_put(c0, swap, 1100, 100, 4096, 7, 1 << 1 | 1 << 3, 0);       /* D WS */
		bt_put(c1, swap, 1050, 900, 8192, 7, 1 << 0 | 1 << 11 | 1 << 12, 0); /* D RAM, other CPU */
		bt_put(c1, swap, 1200, 0, 0, 7, 1 << 2, 0);                     /* D flush */
		bt_put(c0, swap, 1300, 200, 4096, 7, 1 << 1 | 1 << 2 | 1 << 15, 0); /* D FWF */
		bt_put(c1, swap, 1400, 300, 65536, 7, 1 << 13, 0);              /* D discard */
		bt_put(c1, swap, 2000, 900, 8192, 8, 1 << 0, 0);
		bt_put(c0, swap, 2100, 100, 4096, 8, 1 << 1, 0);
		bt_put(c0, swap, 2200, 0, 0, 8, 1 << 2, 0);
		bt_put(c1, swap, 2300, 200, 4096, 8, 1 << 1, 0);
		bt_put(c0, swap, 2400, 300, 65536, 8, 1 << 13, 0);
		fclose(c0);
		fclose(c1);
		read_all("build/tests/bt.blktrace.1", NULL, 0, &g);
		CHECK(g.rc == 1 && g.n == 5 && !strcmp(g.fmt, "blktrace"), "swap %d: rc %d, %d records, %s: %s",
		      swap, g.rc, g.n, g.fmt, g.err);
		REC(g, 0, 0, 950, TRACE_OP_READ, TRACE_F_AHEAD | TRACE_F_META, 900 * 512, 8192);
		REC(g, 1, 50, 1050, TRACE_OP_WRITE, TRACE_F_SYNC, 100 * 512, 4096);
		REC(g, 2, 150, 1150, TRACE_OP_FLUSH, 0, 0, 0);
		REC(g, 3, 250, 1250, TRACE_OP_WRITE, TRACE_F_PREFLUSH | TRACE_F_FUA, 200 * 512, 4096);
		REC(g, 4, 350, 1350, TRACE_OP_DISCARD, 0, 300 * 512, 65536);
		CHECK(!strcmp(g.names[0], "8,16") && g.r[4].inflight == 5 && g.r[0].pid == 42,
		      "device '%s', inflight %d, pid %d", g.names[0], g.r[4].inflight, g.r[0].pid);
		read_all("build/tests/bt.blktrace.0", NULL, 1, &g);
		CHECK(g.n == 1 && g.r[0].complete_ns == 1100, "Q: %d records, completion %llu", g.n,
		      (unsigned long long)g.r[0].complete_ns);
	}
	FILE *f = fopen("build/tests/bt.blktrace.1", "wb");
	bt_put(f, 0, 1, 1, 512, 7, 1, 0);
	fwrite("\x07\x74\x61\x65 short", 1, 10, f);
	fclose(f);
	struct got g;
	read_all("build/tests/bt.blktrace.1", "blktrace", 0, &g);
	CHECK(g.rc == -EINVAL && !strcmp(g.err, "'build/tests/bt.blktrace.1' record 2: expected a 48-byte "
					 "record, the file ends inside one"), "%s", g.err);
	f = fopen("build/tests/bt.blktrace.1", "wb");
	unsigned char v6[48] = { 0x06, 0x74, 0x61, 0x65 };
	fwrite(v6, 1, 48, f);
	fclose(f);
	read_all("build/tests/bt.blktrace.1", "blktrace", 0, &g);
	CHECK(g.rc == -EINVAL && strstr(g.err, "record 1: expected blk_io_trace version 0x07"), "%s", g.err);
	unlink("build/tests/bt.blktrace.0");
	unlink("build/tests/bt.blktrace.1");
}

static void test_tracefs(void)
{
	struct got g;

	read_all(DATA "tracefs.txt", "tracefs", 0, &g);
	CHECK(g.rc == 1 && g.n == 3, "rc %d, %d records: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, 120000, TRACE_OP_WRITE, TRACE_F_SYNC, 12345ull * 512, 4096);
	REC(g, 1, 10000, 210000, TRACE_OP_READ, 0, 2048 * 512, 65536);   /* 6.10+ layout with ioprio */
	REC(g, 2, 1110000, 1610000, TRACE_OP_FLUSH, 0, 0, 0);
	CHECK(g.r[0].pid == 1234 && g.r[1].pid == 88 && !strcmp(g.names[1], "259,0"), "pids %d %d, '%s'",
	      g.r[0].pid, g.r[1].pid, g.names[1]);
	/* a flush as kernel 6.x prints it: sector 0 at issue, -1 at completion */
	write_file("build/tests/f.tmp", "k-10 [001] ..... 5.000001: block_rq_issue: 7,0 FF 0 () 0 + 0 none,0,0 [k]\n"
		   "s-22 [001] ..s.. 5.000003: block_rq_complete: 7,0 FF () 18446744073709551615 + 0 none,0,0 [0]\n");
	read_all("build/tests/f.tmp", "tracefs", 0, &g);
	CHECK(g.rc == 1 && g.n == 1, "flush: rc %d, %d records: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, 2000, TRACE_OP_FLUSH, 0, 0, 0);
	unlink("build/tests/f.tmp");
	CHECK(!strcmp(bad("tracefs", "x-1 [000] .... 5.0: block_rq_issue: 8,0 WS 4096 () 12 8 [x]\n"),
		      "'build/tests/trace-bad.tmp' line 1: expected 'MAJ,MIN RWBS ... SECTOR + SECTORS ...' "
		      "after the event name"), "%s", bad("tracefs", "x-1 [000] .... 5.0: block_rq_issue: 8,0 WS\n"));
}

static void test_biosnoop(void)
{
	struct got g;

	read_all(DATA "biosnoop.txt", "biosnoop", 0, &g);
	CHECK(g.rc == 1 && g.n == 3, "rc %d, %d records: %s", g.rc, g.n, g.err);
	/* issue = TIME - LAT, put back in issue order: the 1 ms read first */
	REC(g, 0, 0, 1000000, TRACE_OP_READ, 0, 100 * 512, 8192);
	REC(g, 1, 564000, 994000, TRACE_OP_WRITE, 0, 4203912ull * 512, 4096);
	REC(g, 2, 2980000, 2990000, TRACE_OP_WRITE, 0, 0, 4096);
	CHECK(g.r[0].pid == 500 && g.r[1].inflight == 2 && !strcmp(g.names[g.r[2].dev], "nvme0n1"),
	      "pid %d (comm with a blank), inflight %d", g.r[0].pid, g.r[1].inflight);
	CHECK(!strcmp(bad("biosnoop", "TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n0.1 a 1 sda W 8 x 0.1\n"),
		      "'build/tests/trace-bad.tmp' line 2: expected SECTOR (below 2^55) and BYTES as numbers"), "%s",
	      bad("biosnoop", "TIME(s) COMM PID DISK T SECTOR BYTES LAT(ms)\n0.1 a 1 sda W 8 x 0.1\n"));
}

static void test_msr(void)
{
	struct got g;
	uint64_t ns = 1;

	CHECK(!trace_msr_filetime_ns(116444736000000000ull, &ns) && ns == 0, "the Unix epoch: %llu",
	      (unsigned long long)ns);
	/* 2007-02-22 17:00:00.3061629 UTC, the first line of an MSR file */
	CHECK(!trace_msr_filetime_ns(128166372003061629ull, &ns) && ns == 1172160000306162900ull + 3600000000000ull,
	      "%llu", (unsigned long long)ns);
	CHECK(trace_msr_filetime_ns(116444735999999999ull, &ns) == -1, "before 1970 accepted");
	read_all(DATA "msr.csv", "msr", 0, &g);
	CHECK(g.rc == 1 && g.n == 3, "rc %d, %d records: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, 1301900, TRACE_OP_READ, 0, 3154152960ull, 4096);
	REC(g, 1, 2000000, 2200000, TRACE_OP_WRITE, 0, 3154157056ull, 8192);
	REC(g, 2, 1000000000, 1000010000, TRACE_OP_WRITE, 0, 0, 512);
	CHECK(g.epoch == 1172163600306162900ull && !strcmp(g.names[0], "hm_1") && !strcmp(g.names[1], "src1_0"),
	      "epoch %llu, devices '%s' '%s'", (unsigned long long)g.epoch, g.names[0], g.names[1]);
	CHECK(!strcmp(bad("msr", "128166372003061629,hm,1,Erase,0,4096,1\n"),
		      "'build/tests/trace-bad.tmp' line 1: expected Type Read or Write, got 'Erase'"), "%s",
	      bad("msr", "128166372003061629,hm,1,Erase,0,4096,1\n"));
	CHECK(!strcmp(bad("msr", "12,hm,1,Read,0,4096,1\n"), "'build/tests/trace-bad.tmp' line 1: expected "
		      "Timestamp as a Windows FILETIME (100 ns units since 1601), got '12'"), "%s",
	      bad("msr", "12,hm,1,Read,0,4096,1\n"));
}

static void test_csv_traces(void)
{
	struct got g;

	read_all(DATA "spc.csv", "spc", 0, &g);
	CHECK(g.rc == 1 && g.n == 3, "spc: rc %d, %d: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, U, TRACE_OP_WRITE, 0, 303567ull * 512, 3584);
	REC(g, 1, 367000, U, TRACE_OP_READ, 0, 55590ull * 512, 3072);
	REC(g, 2, 26214000, U, TRACE_OP_WRITE, 0, 303574ull * 512, 4096);
	CHECK(!strcmp(g.names[1], "asu1") && g.r[1].dev == 1, "spc device '%s'", g.names[1]);
	CHECK(!strcmp(bad("spc", "0,1,512,x,0.5\n"), "'build/tests/trace-bad.tmp' line 1: expected Opcode r or w, "
		      "got 'x'"), "%s", bad("spc", "0,1,512,x,0.5\n"));

	read_all(DATA "alibaba.csv", "alibaba", 0, &g);
	CHECK(g.rc == 1 && g.n == 3, "alibaba: rc %d, %d: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, U, TRACE_OP_WRITE, 0, 126703644672ull, 4096);
	REC(g, 1, 47000, U, TRACE_OP_READ, 0, 4096, 16384);
	REC(g, 2, 1000000000, U, TRACE_OP_WRITE, 0, 126703648768ull, 4096);
	CHECK(g.epoch == 1577808144000853000ull && !strcmp(g.names[1], "3"), "epoch %llu",
	      (unsigned long long)g.epoch);
	CHECK(!strcmp(bad("alibaba", "0,W,1,2,3\n0,W,1,2\n"), "'build/tests/trace-bad.tmp' line 2: expected 5 "
		      "comma-separated fields (device_id,opcode,offset,length,timestamp)"), "%s",
	      bad("alibaba", "0,W,1,2,3\n0,W,1,2\n"));

	read_all(DATA "tencent.csv", "tencent", 0, &g);
	CHECK(g.rc == 1 && g.n == 7, "tencent: rc %d, %d: %s", g.rc, g.n, g.err);
	/* four I/Os in the first second spread at quarters, one alone, two at halves */
	REC(g, 0, 0, U, TRACE_OP_WRITE, 0, 12345678ull * 512, 4096);
	REC(g, 1, 250000000, U, TRACE_OP_READ, 0, 100 * 512, 8192);
	REC(g, 2, 500000000, U, TRACE_OP_READ, 0, 200 * 512, 4096);
	REC(g, 3, 750000000, U, TRACE_OP_WRITE, 0, 300 * 512, 4096);
	REC(g, 4, 1000000000, U, TRACE_OP_READ, 0, 400 * 512, 4096);
	REC(g, 5, 3000000000ull, U, TRACE_OP_WRITE, 0, 500 * 512, 4096);
	REC(g, 6, 3500000000ull, U, TRACE_OP_WRITE, 0, 508 * 512, 4096);
	CHECK(strstr(g.note, "spread evenly") && g.epoch == 1538323200000000000ull, "note '%s'", g.note);
	CHECK(!strcmp(bad("tencent", "1538323200,1,8,2,5\n"), "'build/tests/trace-bad.tmp' line 1: expected "
		      "IOType 0 (read) or 1 (write), got '2'"), "%s", bad("tencent", "1538323200,1,8,2,5\n"));
}

static void test_fio(void)
{
	struct got g;

	read_all(DATA "v2.iolog", NULL, 0, &g);
	CHECK(g.rc == 1 && g.n == 5, "v2: rc %d, %d: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, U, TRACE_OP_READ, 0, 0, 4096);
	REC(g, 1, 1000000, U, TRACE_OP_WRITE, 0, 8192, 8192);       /* after "wait 1000" (us) */
	REC(g, 2, 1000000, U, TRACE_OP_FLUSH, 0, 0, 0);
	REC(g, 3, 1000000, U, TRACE_OP_FLUSH, TRACE_F_DATASYNC, 0, 0);
	REC(g, 4, 1000000, U, TRACE_OP_DISCARD, 0, 1048576, 65536);
	CHECK(!strcmp(g.names[0], "/dev/sda"), "'%s'", g.names[0]);
	write_file("build/tests/v3.tmp", "fio version 3 iolog\n5 /a add\n5 /a open\n10 /a read 0 512\n"
		   "12 /b write 4096 4096\n30 /a sync\n40 /a wait 100\n50 /a close\n");
	read_all("build/tests/v3.tmp", NULL, 0, &g);
	CHECK(g.rc == 1 && g.n == 3, "v3: rc %d, %d: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, U, TRACE_OP_READ, 0, 0, 512);
	REC(g, 1, 2000, U, TRACE_OP_WRITE, 0, 4096, 4096);
	REC(g, 2, 20000, U, TRACE_OP_FLUSH, 0, 0, 0);
	CHECK(!strcmp(bad("fio", "fio version 3 iolog\n1 /a frobnicate 0 1\n"), "'build/tests/trace-bad.tmp' "
		      "line 2: expected an action of add open close read write trim sync datasync wait, got "
		      "'frobnicate'"), "%s", bad("fio", "fio version 3 iolog\n1 /a frobnicate 0 1\n"));
	CHECK(!strcmp(bad("fio", "fio version 3 iolog\n1 /a read 0\n"), "'build/tests/trace-bad.tmp' line 2: "
		      "expected 'read OFFSET LENGTH' (bytes)"), "%s", bad("fio", "fio version 3 iolog\n1 /a read 0\n"));
	CHECK(!strcmp(bad("fio", "fio version 1 iolog\n"), "'build/tests/trace-bad.tmp' line 1: expected "
		      "'fio version 2 iolog' or 'fio version 3 iolog' (version 1 logs are not read, as fio no "
		      "longer reads them)"), "%s", bad("fio", "fio version 1 iolog\n"));
	unlink("build/tests/v3.tmp");
}

static void test_appio_format(void)
{
	struct got g;

	write_file("build/tests/a.tmp", "appio-trace 1\n# comment\nsource test\nclock ns\nsector-size 4096\n"
		   "epoch-ns 1000\ndevice 0 nvme0n1\n100 300 W PUS 0 4096 8192 3 77\n"
		   "device 1 sdb\n150 - D - 1 0 1048576 - -\n200 250 F Y 0 0 0 1 -\n");
	read_all("build/tests/a.tmp", NULL, 0, &g);
	CHECK(g.rc == 1 && g.n == 3 && !strcmp(g.fmt, "appio"), "rc %d, %d: %s", g.rc, g.n, g.err);
	REC(g, 0, 0, 200, TRACE_OP_WRITE, TRACE_F_PREFLUSH | TRACE_F_FUA | TRACE_F_SYNC, 4096, 8192);
	REC(g, 1, 50, U, TRACE_OP_DISCARD, 0, 0, 1048576);
	REC(g, 2, 100, 150, TRACE_OP_FLUSH, TRACE_F_DATASYNC, 0, 0);
	CHECK(g.r[0].inflight == 3 && g.r[0].pid == 77 && g.r[1].inflight == -1 && g.r[1].pid == -1 &&
	      g.r[1].dev == 1 && g.epoch == 1100, "inflight %d pid %d epoch %llu", g.r[0].inflight, g.r[0].pid,
	      (unsigned long long)g.epoch);
	CHECK(!strcmp(bad("appio", "appio-trace 1\ndevice 0 a\n5 - W - 1 0 512 - -\n"),
		      "'build/tests/trace-bad.tmp' line 3: expected a declared device id (0..0), got '1'"), "%s",
	      bad("appio", "appio-trace 1\ndevice 0 a\n5 - W - 1 0 512 - -\n"));
	CHECK(!strcmp(bad("appio", "appio-trace 3\n"), "'build/tests/trace-bad.tmp' line 1: this is version 3 "
		      "of appio's format; this appio reads versions 1 to 2"), "%s", bad("appio", "appio-trace 3\n"));
	CHECK(strstr(bad("appio", "appio-trace 1\nmeta a b\n"), "trace-bad.tmp' line 2: expected a header line"),
	      "%s", bad("appio", "appio-trace 1\nmeta a b\n"));
	CHECK(!strcmp(bad("appio", "appio-trace 2\nmeta x\n"), "'build/tests/trace-bad.tmp' line 2: expected "
		      "'meta KEY VALUE', got 'meta x'"), "%s", bad("appio", "appio-trace 2\nmeta x\n"));
	/* version 2: meta lines, kept in the header, a repeated key replaced */
	struct trace_reader r;
	struct trace_rec rec;
	write_file("build/tests/a.tmp", "appio-trace 2\nmeta run.workload oltp_read_write\n"
		   "meta capture.device  vda (254:0)\nmeta run.workload oltp_write_only\ndevice 0 vda\n"
		   "0 10 R - 0 0 4096 1 5\n");
	CHECK(!trace_open(&r, "build/tests/a.tmp", NULL, NULL) && trace_next(&r, &rec) == 0 &&
	      r.hdr.nmeta == 2 && !strcmp(trace_hdr_meta_get(&r.hdr, "run.workload"), "oltp_write_only") &&
	      !strcmp(trace_hdr_meta_get(&r.hdr, "capture.device"), "vda (254:0)") &&
	      !trace_hdr_meta_get(&r.hdr, "run.threads"), "meta: %u, %s", r.hdr.nmeta, r.err);
	trace_close(&r);
	CHECK(!strcmp(bad("appio", "appio-trace 1\ndevice 0 a\n5 3 W - 0 0 512 - -\n"),
		      "'build/tests/trace-bad.tmp' line 3: expected complete_ns in ns, not before issue_ns, "
		      "or '-', got '3'"), "%s", bad("appio", "appio-trace 1\ndevice 0 a\n5 3 W - 0 0 512 - -\n"));
	unlink("build/tests/a.tmp");
}

/* Convert @in (format guessed) to @out in @to, as 'appio trace convert' does. */
static int convert(const char *in, const char *out, const char *to)
{
	struct trace_reader r;
	struct trace_writer w;
	struct trace_rec rec;
	int rc = trace_open(&r, in, NULL, NULL);

	if (!rc)
		rc = trace_next(&r, &rec);
	if (rc >= 0 && trace_writer_open(&w, out, trace_format_find(to), &r.hdr))
		rc = -1;
	for (; !rc; rc = trace_next(&r, &rec))
		trace_write(&w, &rec);
	if (rc == 1)
		rc = trace_writer_close(&w);
	trace_close(&r);
	return rc;
}

static int same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "r"), *fb = fopen(b, "r");
	int ca, cb;

	do {
		ca = fgetc(fa);
		cb = fgetc(fb);
	} while (ca == cb && ca != EOF);
	fclose(fa);
	fclose(fb);
	return ca == cb;
}

static void test_round_trips(void)
{
	/* what fio carries: us times, op, offset, length, file; no completions */
	write_file("build/tests/rt0.tmp", "appio-trace 1\nsource handmade\nclock ns\nsector-size 512\n"
		   "device 0 /dev/nvme0n1\n0 - R - 0 0 4096 - -\n1000 - W - 0 4096 8192 - -\n"
		   "device 1 /dev/sdb\n5000 - F - 1 0 0 - -\n5000 - F Y 0 0 0 - -\n"
		   "123456000 - D - 1 1048576 1048576 - -\n");
	CHECK(!convert("build/tests/rt0.tmp", "build/tests/rt1.tmp", "fio"), "appio -> fio");
	CHECK(!convert("build/tests/rt1.tmp", "build/tests/rt2.tmp", "appio"), "fio -> appio");
	CHECK(!convert("build/tests/rt2.tmp", "build/tests/rt3.tmp", "fio"), "appio -> fio again");
	struct got a, b;
	read_all("build/tests/rt0.tmp", NULL, 0, &a);
	read_all("build/tests/rt2.tmp", NULL, 0, &b);
	CHECK(a.n == 5 && a.n == b.n && !memcmp(a.r, b.r, sizeof(a.r[0]) * (size_t)a.n) &&
	      !strcmp(a.names[1], b.names[1]), "appio -> fio v3 -> appio differs (%d, %d records)", a.n, b.n);
	CHECK(same_file("build/tests/rt1.tmp", "build/tests/rt3.tmp"), "the two fio logs differ");

	/* every field through appio's own format, and blkparse's share through blkparse */
	CHECK(!convert(DATA "sda.blkparse", "build/tests/rt4.tmp", "appio"), "blkparse -> appio");
	CHECK(!convert("build/tests/rt4.tmp", "build/tests/rt5.tmp", "blkparse"), "appio -> blkparse");
	CHECK(!convert("build/tests/rt5.tmp", "build/tests/rt6.tmp", "appio"), "blkparse -> appio again");
	read_all(DATA "sda.blkparse", NULL, 0, &a);
	read_all("build/tests/rt6.tmp", NULL, 0, &b);
	CHECK(a.n == 5 && a.n == b.n, "%d, %d records", a.n, b.n);
	for (int i = 0; i < a.n && i < b.n; i++)
		CHECK(!memcmp(&a.r[i], &b.r[i], sizeof(a.r[i])), "record %d differs after blkparse -> appio -> "
		      "blkparse -> appio", i);
	for (int i = 0; i <= 6; i++) {
		char p[64];
		snprintf(p, sizeof(p), "build/tests/rt%d.tmp", i);
		unlink(p);
	}
}

static void test_stats(void)
{
	struct trace_stats *s = malloc(sizeof(*s));
	struct trace_rec r;

	trace_stats_init(s);
	trace_rec_init(&r);
	for (int i = 0; i < 1000; i++) {
		r.issue_ns = (uint64_t)i * 1000000;     /* 1000 IOPS over 1 s */
		r.complete_ns = r.issue_ns + 100000;
		r.inflight = 1 + i % 2;
		r.op = i % 4 ? TRACE_OP_READ : TRACE_OP_WRITE;
		r.offset = (uint64_t)(i % 500) * 4096;  /* 500 distinct blocks, sequential runs */
		r.length = 4096;
		trace_stats_add(s, &r);
	}
	double fp = trace_stats_footprint(s);
	CHECK(s->ios == 1000 && s->op_ios[TRACE_OP_READ] == 750, "ios %llu", (unsigned long long)s->ios);
	CHECK(fp > 500 * 4096 * 0.97 && fp < 500 * 4096 * 1.03, "footprint %.0f, expected ~2048000", fp);
	CHECK(s->seq == 998, "sequential %llu, expected 998", (unsigned long long)s->seq);
	CHECK(s->iat_n == 999 && s->iat_sum == 999 * 1000000ull, "inter-arrival sum %llu",
	      (unsigned long long)s->iat_sum);
	CHECK(s->qd_hist[0] == 500 && s->qd_hist[1] == 500, "qd %llu %llu", (unsigned long long)s->qd_hist[0],
	      (unsigned long long)s->qd_hist[1]);
	CHECK(trace_stats_log_pct(s->svc_hist, 0.5) == 131071, "p50 service bin %llu",
	      (unsigned long long)trace_stats_log_pct(s->svc_hist, 0.5));
	r.issue_ns = 5000ull * 1000000000;      /* 5000 s: buckets double to fit */
	r.complete_ns = TRACE_NS_UNKNOWN;
	trace_stats_add(s, &r);
	CHECK(s->bucket_ns == 16000000000ull && s->b_ios[0] == 1000 && s->b_ios[312] == 1, "bucket %llu",
	      (unsigned long long)s->bucket_ns);
	free(s);
}

/* Every reader on mutated copies of every sample: an error or the end, never a crash. */
#define BAD(fmt, text, want) CHECK(!strcmp(bad(fmt, text), "'build/tests/trace-bad.tmp' " want), \
				       "%s: %s", fmt, bad(fmt, text))

/* The heap grows past its first room up to its bound, and keeps its order. */
static void test_tq(void)
{
	struct tq q;
	struct trace_rec rec = { 0 }, out;
	uint64_t seed = 7, prev = 0;
	int bad = 0;

	CHECK(tq_init(&q, 1000, 0) == 0, "tq_init");
	for (int i = 0; i < 1000; i++) {
		seed = seed * 6364136223846793005ull + 1442695040888963407ull;
		rec.issue_ns = seed >> 20;
		bad += tq_push(&q, &rec) != 0;
	}
	CHECK(bad == 0 && q.n == 1000, "1000 pushes into a bound of 1000: %d failed", bad);
	CHECK(tq_push(&q, &rec) == -ENOSPC, "the 1001st is refused");
	for (int i = 0; i < 1000; i++) {
		bad += tq_pop(&q, &out) != 0 || out.issue_ns < prev;
		prev = out.issue_ns;
	}
	CHECK(bad == 0 && tq_pop(&q, &out) == 1, "popped in issue order, then empty (%d out of order)", bad);
	tq_release(&q);
}

/*
 * The pairing ring grows while requests wait, also when its oldest is not
 * at slot 0: every completion still finds its issue, records come back in
 * issue order, and the bound holds.
 */
static void test_pair_grows(void)
{
	struct pair p;
	struct trace_dev dev = { 0 };
	struct trace_devs ds = { .d = &dev, .n = 1, .cap = 1 };
	struct trace_rec rec = { 0 }, out;
	int bad = 0, got = 0;

	CHECK(pair_init(&p, 1200) == 0, "pair_init");
	for (uint64_t i = 0; i < 300; i++) {     /* 300 waiting: past the first room */
		rec.issue_ns = i;
		bad += pair_issue(&p, &rec, 1000 + i, &ds) != 0;
	}
	for (uint64_t i = 0; i < 100; i++)       /* the oldest 100 done and out: the head moves */
		bad += pair_complete(&p, 0, 1000 + i, 10000 + i, &ds) != 1 || pair_pop(&p, &out, 0, &ds) ||
		       out.issue_ns != i || out.complete_ns != 10000 + i;
	for (uint64_t i = 300; i < 1300; i++) {  /* 1200 waiting: two more doublings, then the bound */
		rec.issue_ns = i;
		bad += pair_issue(&p, &rec, 1000 + i, &ds) != 0;
	}
	CHECK(bad == 0 && p.n == 1200, "1300 issued, 100 out, 1200 waiting: %d wrong, %u waiting", bad, p.n);
	rec.issue_ns = 1300;
	CHECK(pair_issue(&p, &rec, 5000, &ds) == -ENOSPC, "the bound refuses the 1201st");
	for (uint64_t i = 1299; i >= 100; i--)   /* completions newest first */
		bad += pair_complete(&p, 0, 1000 + i, 20000 + i, &ds) != 1;
	for (uint64_t i = 100; pair_pop(&p, &out, 0, &ds) == 0; i++, got++)
		bad += out.issue_ns != i || out.complete_ns != 20000 + i;
	CHECK(bad == 0 && got == 1200 && dev.pending == 0, "1200 paired in issue order: %d wrong, %d out",
	      bad, got);
	pair_release(&p);
}

/* Numbers past 64 bits once scaled: an error naming the field, not a wrapped value. */
static void test_bounds(void)
{
	BAD("blkparse", "8,0 0 1 18446744074.5 1 D W 8 + 8 [x]\n",
	    "line 1: expected time in seconds and a pid, got '18446744074.5' '1'");
	BAD("blkparse", "8,0 0 1 0.5 1 D W 36028797018963968 + 8 [x]\n",
	    "line 1: expected SECTOR and SECTORS below 2^55 (512-byte sectors)");
	BAD("blkparse", "8,0 0 1 0.5 1 D W 8 + 36028797018963968 [x]\n",
	    "line 1: expected SECTOR and SECTORS below 2^55 (512-byte sectors)");
	BAD("tracefs", "x-1 [000] .... 5.0: block_rq_issue: 8,0 WS 0 () 36028797018963968 + 8 [x]\n",
	    "line 1: expected SECTOR and SECTORS below 2^55 (512-byte sectors)");
	BAD("biosnoop", "TIME(s) DISK T SECTOR BYTES LAT(ms)\n18446740473.8 sda W 8 4096 0.1\n",
	    "line 2: expected TIME below 2^64 ns less an hour");
	BAD("biosnoop", "TIME(s) DISK T SECTOR BYTES LAT(ms)\n0.1 sda W 36028797018963968 4096 0.1\n",
	    "line 2: expected SECTOR (below 2^55) and BYTES as numbers");
	BAD("msr", "128166372003061629,hm,1,Read,0,4096,999999999999999999\n",
	    "line 1: expected a ResponseTime that ends before the year 2554, got '999999999999999999'");
	BAD("fio", "fio version 2 iolog\na add\na wait 18446744073709551\na read 0 1\n"
	    "a wait 18446744073709551\na read 0 1\n",
	    "line 5: expected waits that add up to less than 2^64 ns, got 'wait 18446744073709551'");
	BAD("spc", "0,1,512,w,18446744074.5\n", "line 1: expected Timestamp in seconds, got '18446744074.5'");
	BAD("spc", "0,1,512,w,18446744073.709551616\n",
	    "line 1: expected Timestamp in seconds, got '18446744073.709551616'");
	/* the largest time that fits is still read */
	CHECK(!strcmp(bad("spc", "0,1,512,w,18446744073.709551615\n"), "(no error)"), "%s",
	      bad("spc", "0,1,512,w,18446744073.709551615\n"));
	/* a NUL byte in a text trace is no end of line: the rest would be lost */
	write_file("build/tests/trace-nul.tmp", "0,W,1,2,3");
	FILE *nf = fopen("build/tests/trace-nul.tmp", "ab");
	fwrite("\0,junk\n0,W,1,2,4\n", 1, 17, nf);
	fclose(nf);
	struct got ng;
	read_all("build/tests/trace-nul.tmp", "alibaba", 0, &ng);
	CHECK(ng.rc == -EINVAL && ng.n == 0 && !strcmp(ng.err, "'build/tests/trace-nul.tmp' line 1: expected text, "
						      "got a NUL byte (is this a binary file?)"), "%s", ng.err);
	unlink("build/tests/trace-nul.tmp");
	/* the core: whatever the format, a byte range within 64 bits */
	BAD("alibaba", "0,W,18446744073709547520,4096,1\n",
	    "line 1: expected offset + length below 2^64 bytes, got 18446744073709547520 + 4096");
	CHECK(!strcmp(bad("alibaba", "0,W,18446744073709547520,4095,1\n"), "(no error)"), "%s",
	      bad("alibaba", "0,W,18446744073709547520,4095,1\n"));
	BAD("appio", "appio-trace 1\ndevice 0 d\n0 - R - 0 18446744073709547520 4097 - -\n",
	    "line 3: expected offset + length below 2^64 bytes, got 18446744073709547520 + 4097");

	FILE *f = fopen("build/tests/bt-bounds.blktrace", "wb");
	bt_put(f, 1, 1000, 1ull << 55, 4096, 7, 1 << 1, 0);
	fclose(f);
	struct got g;
	read_all("build/tests/bt-bounds.blktrace", "blktrace", 0, &g);
	CHECK(g.rc == -EINVAL && !strcmp(g.err, "'build/tests/bt-bounds.blktrace' record 1: expected a "
					 "sector and bytes that end below 2^64 bytes"), "%s", g.err);
	f = fopen("build/tests/bt-bounds.blktrace", "wb");
	bt_put(f, 0, 1000, (1ull << 55) - 8, 4096, 7, 1 << 1, 0);
	fclose(f);
	read_all("build/tests/bt-bounds.blktrace", "blktrace", 0, &g);
	CHECK(g.rc == -EINVAL && strstr(g.err, "record 1: expected a sector and bytes that end below 2^64"),
	      "%s", g.err);
	f = fopen("build/tests/bt-bounds.blktrace", "wb");
	bt_put(f, 0, 1000, (1ull << 55) - 8, 4095, 7, 1 << 1, 0);
	fclose(f);
	read_all("build/tests/bt-bounds.blktrace", "blktrace", 0, &g);
	CHECK(g.rc == 1 && g.n == 1 && g.r[0].offset + g.r[0].length == UINT64_MAX, "rc %d: %s", g.rc, g.err);
	unlink("build/tests/bt-bounds.blktrace");
}

static void test_garbage(void)
{
	static const char *const files[] = { "sda.blkparse", "msr.csv", "spc.csv", "alibaba.csv",
					     "tencent.csv", "tracefs.txt", "biosnoop.txt", "v2.iolog" };
	static const char junk[] = "\n\r,+ -[]()0123456789.:RWDFNSx\xff";
	uint64_t seed = 42;
	char buf[2048];
	int runs = 0;

	for (size_t fi = 0; fi < sizeof(files) / sizeof(files[0]); fi++) {
		char path[128];
		snprintf(path, sizeof(path), DATA "%s", files[fi]);
		FILE *f = fopen(path, "rb");
		size_t n = fread(buf, 1, sizeof(buf), f);
		fclose(f);
		for (int k = 0; k < 40; k++) {
			char mut[2048];
			memcpy(mut, buf, n);
			size_t len = n;
			for (int e = 0; e < 4; e++) {
				seed = seed * 6364136223846793005ull + 1442695040888963407ull;
				mut[(seed >> 33) % len] = junk[(seed >> 17) % (sizeof(junk) - 1)];
			}
			if (k % 5 == 0)
				len = (seed >> 40) % len;
			FILE *o = fopen("build/tests/garbage.tmp", "wb");
			fwrite(mut, 1, len, o);
			fclose(o);
			for (int fmt = 0; trace_format_table[fmt]; fmt++) {
				struct got g;
				read_all("build/tests/garbage.tmp", trace_format_table[fmt]->name, 0, &g);
				CHECK(g.rc == 1 || g.rc == -EINVAL || g.n == MAXR, "%s as %s: rc %d", files[fi],
				      trace_format_table[fmt]->name, g.rc);
				CHECK(g.rc != -EINVAL || strstr(g.err, "garbage.tmp"), "message without the file: %s", g.err);
				runs++;
			}
		}
	}
	CHECK(runs == 8 * 40 * 10, "%d runs", runs);
	unlink("build/tests/garbage.tmp");
}

int main(void)
{
	RUN(test_registry);
	RUN(test_guess);
	RUN(test_rwbs);
	RUN(test_blkparse);
	RUN(test_inflight_bound);
	RUN(test_blktrace);
	RUN(test_tracefs);
	RUN(test_biosnoop);
	RUN(test_msr);
	RUN(test_csv_traces);
	RUN(test_fio);
	RUN(test_appio_format);
	RUN(test_round_trips);
	RUN(test_stats);
	RUN(test_tq);
	RUN(test_pair_grows);
	RUN(test_bounds);
	RUN(test_garbage);
	return check_done();
}
