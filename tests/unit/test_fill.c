/*
 * test_fill.c - write buffers must neither compress nor deduplicate.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "fill.h"

#define LEN (128 * 1024)

/* Shannon entropy in bits per byte. */
static double entropy(const unsigned char *p, size_t n)
{
	double count[256] = { 0 }, h = 0;
	for (size_t i = 0; i < n; i++)
		count[p[i]]++;
	for (int i = 0; i < 256; i++)
		if (count[i])
			h -= count[i] / (double)n * log2(count[i] / (double)n);
	return h;
}

static void random_fill_is_incompressible(void)
{
	static unsigned char buf[LEN];
	struct rng r;
	rng_seed(&r, 9, 1);
	fill_random(&r, buf, sizeof(buf) - 3);   /* an odd length fills the tail too */
	CHECK(entropy(buf, sizeof(buf) - 3) > 7.99, "entropy %.4f bits/byte", entropy(buf, sizeof(buf) - 3));
	CHECK(buf[sizeof(buf) - 4] | buf[sizeof(buf) - 5] | buf[sizeof(buf) - 6], "tail filled");
}

static void no_sector_repeats_across_writes(void)
{
	enum { WRITES = 64, SECTORS = 8 };     /* 64 writes of one 4 KiB buffer */
	static unsigned char buf[4096], seen[WRITES * SECTORS][FILL_SECTOR];
	struct rng r;
	rng_seed(&r, 9, 2);
	fill_random(&r, buf, sizeof(buf));
	for (int w = 0; w < WRITES; w++) {
		fill_refresh(&r, buf, sizeof(buf));
		for (int s = 0; s < SECTORS; s++)
			memcpy(seen[w * SECTORS + s], buf + s * FILL_SECTOR, FILL_SECTOR);
	}
	int dups = 0;
	for (int i = 0; i < WRITES * SECTORS; i++)
		for (int j = i + 1; j < WRITES * SECTORS; j++)
			dups += !memcmp(seen[i], seen[j], FILL_SECTOR);
	CHECK(dups == 0, "%d repeated 512-byte sectors among %d written", dups, WRITES * SECTORS);
	CHECK(entropy(buf, sizeof(buf)) > 7.9, "still random after refreshes");
}

static void refresh_touches_only_sector_heads(void)
{
	static unsigned char a[8192], b[8192];
	struct rng r;
	rng_seed(&r, 9, 3);
	fill_random(&r, a, sizeof(a));
	memcpy(b, a, sizeof(a));
	fill_refresh(&r, b, sizeof(b));
	int changed_heads = 0, changed_rest = 0;
	for (size_t s = 0; s < sizeof(a); s += FILL_SECTOR) {
		changed_heads += memcmp(a + s, b + s, 8) != 0;
		changed_rest += memcmp(a + s + 8, b + s + 8, FILL_SECTOR - 8) != 0;
	}
	CHECK(changed_heads == (int)(sizeof(a) / FILL_SECTOR), "%d heads changed", changed_heads);
	CHECK(changed_rest == 0, "cheap: the rest of each sector is left alone");
}

int main(void)
{
	RUN(random_fill_is_incompressible);
	RUN(no_sector_repeats_across_writes);
	RUN(refresh_touches_only_sector_heads);
	return check_done();
}
