/*
 * cache_stats.c - the flash cache's figures of a point: RAM and flash hit
 * ratios of gets and the write amplification the cache causes (bytes it
 * wrote to the drive per value byte it admitted), kept in the result's info
 * and printed after the table. From the point's counters (cache.c).
 */
#include <stdio.h>

#include "appio/emulator.h"
#include "appio/result.h"
#include "cache_int.h"


static double ratio(uint64_t a, uint64_t b)
{
	return b ? (double)a / (double)b : 0;
}

static void point_figures(const struct point_result *p, double *ram, double *flash, double *wa)
{
	const uint64_t *c = p->counters;

	*ram = ratio(c[C_RAM_HITS], c[C_GETS]) * 100;
	*flash = ratio(c[C_FLASH_HITS], c[C_GETS]) * 100;
	*wa = ratio(c[C_DRIVE_WRITTEN], c[C_INSERTED]);
}

void cache_point_end(struct emu_run *run, const struct point_result *p, unsigned *npoints)
{
	double ram, flash, wa;
	char key[64], val[32], pre[24] = "cache.";
	static const char *const names[] = { "ram_hit_pct", "flash_hit_pct", "hit_pct",
					     "write_amplification" };

	if (++*npoints > 1)
		snprintf(pre, sizeof(pre), "cache.%u.", *npoints);
	point_figures(p, &ram, &flash, &wa);
	double v[] = { ram, flash, ram + flash, wa };
	for (unsigned i = 0; i < 4; i++) {
		snprintf(key, sizeof(key), "%s%s", pre, names[i]);
		snprintf(val, sizeof(val), i < 3 ? "%.2f" : "%.3f", v[i]);
		emu_info(run, key, val);
	}
}

static double class_mb_s(const struct point_result *p, const char *a, const char *b)
{
	const struct cls_result *x = point_class(p, a), *y = point_class(p, b);
	return (x ? x->mb_per_s : 0) + (y ? y->mb_per_s : 0);
}

void cache_summary(const void *opts, const struct result *res, FILE *f)
{
	(void)opts;
	for (unsigned i = 0; i < res->npoints; i++) {
		const struct point_result *p = &res->points[i];
		double ram, flash, wa;
		point_figures(p, &ram, &flash, &wa);
		fprintf(f, "cache, %u thread%s: hits %.1f%% (RAM %.1f%%, flash %.1f%%), misses %.1f%%; "
			"write amplification %.2f; drive reads %.1f MB/s, writes %.1f MB/s\n",
			p->pt.threads, p->pt.threads == 1 ? "" : "s", ram + flash, ram, flash,
			p->counters[C_GETS] ? 100 - ram - flash : 0, wa,
			class_mb_s(p, "item_read", "bucket_read"), class_mb_s(p, "region_write", "bucket_write"));
	}
}
