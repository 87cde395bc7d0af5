/*
 * test_buyer.c - the buyer's summary and cost: the arithmetic against
 * figures worked out by hand, and the summary of two hand-made drives (who
 * wins at the reference point, who wins within the limits, the cost lines).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "buyer.h"
#include "check.h"
#include "json_read.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-9 * fabs(b);
}

static void test_arithmetic(void)
{
	/* 120,000 IOPS for 1,299: 92.378 IOPS per unit */
	CHECK(near(buyer_per_price(120000, 1299), 120000.0 / 1299), "%g", buyer_per_price(120000, 1299));
	CHECK(isnan(buyer_per_price(120000, 0)) && isnan(buyer_per_price(NAN, 10)) &&
	      isnan(buyer_per_price(1, -5)), "no price, no figure: NAN");
	/* 1,299 for 3.84 TB (3.84e12 bytes): 338.28 per TB */
	CHECK(near(buyer_price_per_tb(1299, 3.84e12), 338.28125), "%g", buyer_price_per_tb(1299, 3.84e12));
	CHECK(isnan(buyer_price_per_tb(1299, 0)), "size 0: NAN");
	/* 100 MB/s of writes on 3.84 TB: 8.64e12 bytes a day = 2.25 drive writes per day */
	CHECK(near(buyer_dwpd(100e6, 3.84e12), 2.25), "%g", buyer_dwpd(100e6, 3.84e12));
	CHECK(buyer_dwpd(0, 1e12) == 0 && isnan(buyer_dwpd(1, 0)), "no writes: 0; no size: NAN");
	/* rated 1 DWPD over 5 years, used at 2.25 a day: 5 / 2.25 = 2.22 years */
	CHECK(near(buyer_life_years(1, 5, 2.25), 5 / 2.25), "%g", buyer_life_years(1, 5, 2.25));
	CHECK(near(buyer_life_years(3, 5, 0.5), 30), "3 DWPD rated, 0.5 used: 30 years");
	CHECK(isinf(buyer_life_years(1, 5, 0)), "no writes: forever");
	CHECK(isnan(buyer_life_years(NAN, 5, 1)) && isnan(buyer_life_years(1, 5, NAN)), "unknown: NAN");
}

/*
 * Drive A: 1T 10k IOPS p99 1 ms, 4T 40k IOPS p99 5 ms; drive B: 1T 20k p99
 * 1.5 ms, 4T 30k p99 1.8 ms. At the reference point (4T) A wins; within
 * p99=2ms B wins (30k against A's 10k). Writes: 50 MB/s at every point, on
 * 1 TB (A) and 2 TB (B) targets.
 */
static const char doc_fmt[] =
	"{\"appio_version\": \"0.1.0\", \"format_version\": 1, \"interrupted\": false,\n"
	" \"host\": {\"hostname\": \"h\"},\n"
	" \"target\": {\"path\": \"%s.dat\", \"kind\": \"file\", \"size\": %s},\n"
	" \"workload\": {\"name\": \"profile\", \"preset\": \"8k-70-30\", \"engine\": \"null\",\n"
	"   \"options\": {\"slo\": \"%s\"}},\n"
	" \"points\": [%s, %s]}\n";

static char *pt(char *buf, size_t len, unsigned t, double iops, double p99)
{
	snprintf(buf, len,
		 "{\"threads\": %u, \"qd\": 1, \"time_s\": 2, \"partial\": false, \"headline\": \"total\",\n"
		 " \"classes\": {\"total\": {\"ops\": %g, \"ops_per_s\": %g, \"bytes\": 1, \"mb_per_s\": 1,\n"
		 "   \"lat_ns\": {\"mean\": 100, \"p99\": %g, \"max\": %g}},\n"
		 "  \"write\": {\"ops\": 1, \"bytes\": 100000000, \"ops_per_s\": 1, \"lat_ns\": {\"mean\": 1}}}}",
		 t, iops * 2, iops, p99, p99 * 2);
	return buf;
}

static void load(struct json_read_doc *d, const char *name, const char *size, const char *slo,
		 double i1, double l1, double i4, double l4)
{
	char a[1024], b[1024], doc[4096], err[256];

	snprintf(doc, sizeof(doc), doc_fmt, name, size, slo, pt(a, sizeof(a), 1, i1, l1),
		 pt(b, sizeof(b), 4, i4, l4));
	int rc = json_read_loadb(d, name, doc, strlen(doc), err, sizeof(err));
	CHECK(rc == 0, "%s: %s", name, err);
	free(d->label);
	d->label = strdup(name);
}

static void test_summary(void)
{
	struct json_read_doc d[2] = { 0 };
	double price[2] = { 1000, 500 }, dwpd[2] = { 1, NAN };
	struct buyer_opts o = { .price = price, .dwpd = dwpd, .currency = "USD", .warranty_years = 5 };
	struct buyer b;
	char err[256];

	load(&d[0], "A", "1e12", "", 10000, 1e6, 40000, 5e6);
	load(&d[1], "B", "2e12", "", 20000, 1.5e6, 30000, 1.8e6);
	CHECK(buyer_build(&b, d, 2, &o, err, sizeof(err)) == 0, "%s", err);
	CHECK(b.nrows == 1 && !b.rows[0].has_slo && b.rows[0].winner == 0 &&
	      !strcmp(b.rows[0].ref_at, "4T/1Q"), "no limits: A wins at 4T/1Q (%d, %s)", b.rows[0].winner,
	      b.rows[0].ref_at);
	CHECK(b.rows[0].c[0].ref == 40000 && b.rows[0].c[1].rank == 2 && b.wins[0] == 1, "figures and ranks");
	buyer_release(&b);

	CHECK(slo_parse(&o.slo, "p99=2ms", err, sizeof(err)) == 0, "%s", err);
	CHECK(buyer_build(&b, d, 2, &o, err, sizeof(err)) == 0, "%s", err);
	const struct buyer_row *r = &b.rows[0];
	CHECK(r->has_slo && r->winner == 1 && r->c[0].slo == 10000 && !strcmp(r->c[0].slo_at, "1T/1Q") &&
	      r->c[1].slo == 30000 && !strcmp(r->c[1].slo_at, "4T/1Q") && b.wins[1] == 1,
	      "within p99=2ms: B wins, 30k at 4T against A's 10k at 1T (winner %d)", r->winner);
	CHECK(near(r->c[0].write_bps, 50e6), "writes: 100 MB over 2 s (%g)", r->c[0].write_bps);

	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	buyer_print(&b, d, &o, f);
	fclose(f);
	/* A: 10,000 IOPS / 1,000 = 10 per USD; 50 MB/s on 1 TB = 4.32 DWPD; 1 x 5 / 4.32 = 1.16 years */
	CHECK(strstr(text, "  A                                     10 IOPS/USD  4.32 DWPD, lasts 1.2 years"),
	      "A's cost line: %s", text);
	/* B: 30,000 / 500 = 60 per USD; 2.16 DWPD; no rating */
	CHECK(strstr(text, "  B                                     60 IOPS/USD  2.16 DWPD, lasts -"),
	      "B's cost line: %s", text);
	CHECK(strstr(text, "B                                       500            2          250            -"),
	      "B: 500 for 2 TB, 250 per TB: %s", text);
	CHECK(strstr(text, "within SLO 30,000 IOPS at 4T/1Q   winner"), "the winner is marked: %s", text);
	free(text);
	buyer_release(&b);

	/* the limits a run recorded apply when none are given here */
	json_read_release(&d[0]);
	json_read_release(&d[1]);
	load(&d[0], "A", "1e12", "p99=1.2ms", 10000, 1e6, 40000, 5e6);
	load(&d[1], "B", "2e12", "p99=1.2ms", 20000, 1.5e6, 30000, 1.8e6);
	o.slo.n = 0;
	CHECK(buyer_build(&b, d, 2, &o, err, sizeof(err)) == 0, "%s", err);
	CHECK(b.rows[0].has_slo && !strcmp(b.rows[0].slo_text, "p99=1.2ms") && b.rows[0].winner == 0 &&
	      isnan(b.rows[0].c[1].slo), "recorded p99=1.2ms: only A meets it (%s)", b.rows[0].slo_text);
	buyer_release(&b);
	json_read_release(&d[0]);
	json_read_release(&d[1]);
}

int main(void)
{
	RUN(test_arithmetic);
	RUN(test_summary);
	return check_done();
}
