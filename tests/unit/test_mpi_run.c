/*
 * test_mpi_run.c - what an MPI run's merge rests on, without MPI: per-rank
 * histograms merged bucket-wise give the percentiles of one histogram fed
 * every rank's samples (and stay within the bound of the exact sorted
 * samples); a shared target's slices tile it without overlap; --target
 * patterns expand per rank (built with MPI only).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/hist.h"
#include "appio/rand.h"
#include "check.h"
#include "mpi_run.h"

#define RANKS 4
#define PER_RANK 40000

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Ranks with different latency profiles, as hosts with different drives would have. */
static uint64_t sample(struct rng *r, int rank)
{
	uint64_t base = 20000 + (uint64_t)rank * 15000;
	uint64_t v = base + rng_next(r) % (base / 2);
	if (rng_next(r) % 1000 == 0)
		v *= 40;                /* a tail */
	return v;
}

static void merged_percentiles_are_exact(void)
{
	static struct hist rank[RANKS], merged, all;
	static uint64_t v[RANKS * PER_RANK];
	static const double ps[] = { 1, 50, 90, 99, 99.9, 99.99, 100 };
	struct rng r;
	size_t n = 0;

	hist_init(&merged);
	hist_init(&all);
	for (int k = 0; k < RANKS; k++) {
		hist_init(&rank[k]);
		rng_seed(&r, 11, (uint64_t)k);
		for (int i = 0; i < PER_RANK; i++) {
			uint64_t x = sample(&r, k);
			hist_record(&rank[k], x);
			hist_record(&all, x);
			v[n++] = x;
		}
	}
	/* the order of a reduction tree must not matter: merge 3,1,0,2 */
	static const int order[RANKS] = { 3, 1, 0, 2 };
	for (int k = 0; k < RANKS; k++)
		hist_merge(&merged, &rank[order[k]]);
	qsort(v, n, sizeof(*v), cmp_u64);
	CHECK(merged.count == n && merged.sum == all.sum && merged.sumsq == all.sumsq, "moments");
	CHECK(!memcmp(merged.b, all.b, sizeof(all.b)), "buckets add up");
	for (unsigned i = 0; i < sizeof(ps) / sizeof(ps[0]); i++) {
		uint64_t got = hist_percentile(&merged, ps[i]), want = hist_percentile(&all, ps[i]);
		size_t idx = (size_t)ceil(ps[i] / 100 * (double)n);
		uint64_t exact = v[(idx ? idx : 1) - 1];
		double err = got > exact ? (double)(got - exact) : (double)(exact - got);
		CHECK(got == want, "p%g: merged %llu, one histogram %llu", ps[i],
		      (unsigned long long)got, (unsigned long long)want);
		CHECK(err <= (double)exact / 256 + 1, "p%g: %llu vs exact %llu", ps[i],
		      (unsigned long long)got, (unsigned long long)exact);
	}
	/* the average of the ranks' p99s is not the p99 of all I/Os */
	double avg = 0;
	for (int k = 0; k < RANKS; k++)
		avg += (double)hist_percentile(&rank[k], 99) / RANKS;
	CHECK((uint64_t)avg != hist_percentile(&merged, 99), "averaged p99 differs");
}

static void slices_tile_the_target(void)
{
	static const uint64_t sizes[] = { 1ULL << 30, (1ULL << 30) + 12345, 10ULL << 20, 1ULL << 20 };
	for (unsigned s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++)
		for (unsigned n = 1; n <= 7; n++) {
			uint64_t end = 0;
			for (unsigned r = 0; r < n; r++) {
				uint64_t base, len;
				mpi_run_slice(sizes[s], 1 << 20, r, n, &base, &len);
				CHECK(base == end, "size %llu n %u rank %u: starts at %llu, previous ended %llu",
				      (unsigned long long)sizes[s], n, r, (unsigned long long)base,
				      (unsigned long long)end);
				CHECK(base % 4096 == 0 && len % 4096 == 0 && len > 0, "aligned, non-empty");
				end = base + len;
			}
			CHECK(end <= sizes[s], "inside the target");
			CHECK(sizes[s] - end < (uint64_t)n * (1 << 20), "little left over");
		}
}

static void target_patterns(void)
{
#ifdef HAVE_MPI
	char buf[64];
	CHECK(!mpi_run_expand("/d/%h/f%r.%l", 12, "node3", 2, buf, sizeof(buf)) &&
	      !strcmp(buf, "/d/node3/f12.2"), "%%h %%r %%l: %s", buf);
	CHECK(!mpi_run_expand("a%%b", 1, "h", 0, buf, sizeof(buf)) && !strcmp(buf, "a%b"), "%%%%");
	CHECK(mpi_run_expand("a%x", 1, "h", 0, buf, sizeof(buf)) == -EINVAL, "%%x refused");
	CHECK(mpi_run_expand("a%", 1, "h", 0, buf, sizeof(buf)) == -EINVAL, "trailing %% refused");
	CHECK(mpi_run_expand("%h%h%h", 1, "0123456789012345678901234", 0, buf, sizeof(buf)) ==
	      -ENAMETOOLONG, "too long");
#else
	SKIP("built without MPI");
#endif
}

int main(void)
{
	RUN(merged_percentiles_are_exact);
	RUN(slices_tile_the_target);
	RUN(target_patterns);
	return check_done();
}
