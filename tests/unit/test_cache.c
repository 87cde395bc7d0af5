/*
 * test_cache.c - the flash cache's bookkeeping (emulators/cache_index.c):
 * the RAM LRU against a naive LRU request by request and, under zipf keys
 * from the core's generator, against Che's approximation of an LRU's hit
 * ratio; BlockCache regions filled in order, sealed whole and evicted
 * whole (FIFO and LRU); BigHash buckets as a read-modify-write FIFO.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "appio/dist.h"
#include "appio/rand.h"
#include "cache_int.h"
#include "check.h"

/* One request: the LRU's answer (hit or not), with evictions down to capacity. */
static bool lru_request(struct cache_lru *l, struct cache_keys *k, uint32_t key)
{
	uint32_t out;

	if (cache_lru_touch(l, k, key))
		return true;
	cache_lru_insert(l, k, key);
	while (cache_lru_evict(l, k, &out))
		;
	return false;
}

/* The same by brute force: last-use times, evict the smallest until within capacity. */
struct naive {
	uint64_t *last, now, bytes, cap;
	uint8_t *in;
	const uint32_t *size;
	uint32_t n;
};

static bool naive_request(struct naive *m, uint32_t key)
{
	bool hit = m->in[key];

	m->last[key] = ++m->now;
	if (!hit) {
		m->in[key] = 1;
		m->bytes += m->size[key];
	}
	while (m->bytes > m->cap) {
		uint32_t v = UINT32_MAX;
		for (uint32_t i = 0; i < m->n; i++)
			if (m->in[i] && (v == UINT32_MAX || m->last[i] < m->last[v]))
				v = i;
		m->in[v] = 0;
		m->bytes -= m->size[v];
	}
	return hit;
}

static void lru_matches_naive(void)
{
	enum { N = 300, REQ = 20000 };
	struct cache_keys k;
	struct cache_lru l;
	struct rng r;
	struct naive m = { .last = calloc(N, 8), .in = calloc(N, 1), .cap = 40000, .n = N };
	unsigned diff = 0, hits = 0;

	cache_keys_init(&k, N);
	rng_seed(&r, 7, 1);
	for (uint32_t i = 0; i < N; i++)
		k.size[i] = 100 + (uint32_t)rng_below(&r, 1900);       /* 100..1999 bytes */
	m.size = k.size;
	cache_lru_init(&l, m.cap);
	for (unsigned i = 0; i < REQ; i++) {
		uint32_t key = (uint32_t)rng_below(&r, N);
		bool a = lru_request(&l, &k, key), b = naive_request(&m, key);
		diff += a != b;
		hits += a;
	}
	CHECK(diff == 0, "%u of %u answers differ from the naive LRU", diff, REQ);
	CHECK(hits > REQ / 10 && hits < REQ * 9 / 10, "a cache that both hits and misses: %u", hits);
	CHECK(l.bytes == m.bytes && l.bytes <= l.cap, "bytes %llu vs %llu",
	      (unsigned long long)l.bytes, (unsigned long long)m.bytes);
	free(m.last);
	free(m.in);
	cache_keys_release(&k);
}

/*
 * Che's approximation (Che, Tung, Wang 2002; Fricker, Robert, Roberts 2012):
 * an LRU of C items under independent requests with popularities p_i hits
 * key i with probability 1 - exp(-p_i T), T the characteristic time solving
 * sum_i (1 - exp(-p_i T)) = C.
 */
static double che_hit_ratio(uint32_t n, double theta, uint32_t c)
{
	double *p = malloc(n * sizeof(*p)), sum = 0, lo = 0, hi = 1, hit = 0;

	for (uint32_t i = 0; i < n; i++)
		sum += p[i] = pow(i + 1, -theta);
	for (uint32_t i = 0; i < n; i++)
		p[i] /= sum;
	for (;;) {                      /* grow hi until it holds more than C */
		double occ = 0;
		for (uint32_t i = 0; i < n; i++)
			occ += -expm1(-p[i] * hi);
		if (occ > c)
			break;
		hi *= 2;
	}
	for (int it = 0; it < 100; it++) {
		double mid = (lo + hi) / 2, occ = 0;
		for (uint32_t i = 0; i < n; i++)
			occ += -expm1(-p[i] * mid);
		*(occ < c ? &lo : &hi) = mid;
	}
	for (uint32_t i = 0; i < n; i++)
		hit += p[i] * -expm1(-p[i] * lo);
	free(p);
	return hit;
}

/*
 * The measured hit ratio with 1-byte items of @n keys drawn from zipf:@theta
 * (the core's generator): one LRU of @c items, or with @sharded the
 * emulator's RAM cache, CACHE_SHARDS LRUs of c / CACHE_SHARDS items each.
 */
static double lru_zipf_hit_ratio(uint32_t n, double theta, uint32_t c, bool sharded)
{
	static struct cache_lru l[CACHE_SHARDS];
	unsigned nl = sharded ? CACHE_SHARDS : 1;
	struct cache_keys k;
	struct dist d;
	struct rng r;
	uint64_t hits = 0, req = 2000000, items = 0;

	cache_keys_init(&k, n);
	for (uint32_t i = 0; i < n; i++)
		k.size[i] = 1;
	for (unsigned i = 0; i < nl; i++)
		cache_lru_init(&l[i], c / nl);
	CHECK(dist_init(&d, &(struct opt_dist){ DIST_ZIPF, theta }, n) == 0, "zipf:%g", theta);
	rng_seed(&r, 42, 3);
	for (uint64_t i = 0; i < 200000 + req; i++) {   /* the first 200000 warm it up */
		uint32_t key = (uint32_t)dist_next(&d, &r);
		bool hit = lru_request(&l[sharded ? cache_shard(key) : 0], &k, key);
		hits += hit && i >= 200000;
	}
	for (unsigned i = 0; i < nl; i++)
		items += l[i].items;
	CHECK(items == c / nl * nl, "the LRU is full: %llu of %u items", (unsigned long long)items, c);
	cache_keys_release(&k);
	return (double)hits / (double)req;
}

static void lru_hit_ratio_che(void)
{
	static const struct { uint32_t n, c; double theta; bool sharded; } cases[] = {
		{ 100000, 1000, 0.8, false }, { 100000, 10000, 0.8, false }, { 50000, 2000, 1.2, false },
		{ 50000, 5000, 0.6, false }, { 100000, 12800, 0.8, true }, { 200000, 6400, 1.1, true },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		double want = che_hit_ratio(cases[i].n, cases[i].theta, cases[i].c);
		double got = lru_zipf_hit_ratio(cases[i].n, cases[i].theta, cases[i].c, cases[i].sharded);
		printf("# zipf:%.1f, %u keys, %u cached%s: hit ratio %.2f%%, Che %.2f%%\n", cases[i].theta,
		       cases[i].n, cases[i].c, cases[i].sharded ? " in 64 shards" : "", got * 100, want * 100);
		CHECK(fabs(got - want) < 0.02, "zipf:%.1f %u/%u: %.4f vs Che %.4f", cases[i].theta,
		      cases[i].c, cases[i].n, got, want);
	}
}

/* Fill @bc with items of random sizes; every sealed region is "written" and noted in @sealed. */
static unsigned fill_regions(struct cache_bc *bc, struct rng *r, unsigned items, uint32_t *sealed,
			     unsigned max_sealed, unsigned *bad)
{
	unsigned ns = 0;
	uint32_t last_region = CACHE_NIL, last_end = 0;

	for (unsigned i = 0; i < items; i++) {
		struct cache_slot s;
		uint32_t size = 1 + (uint32_t)rng_below(r, 20000);
		if (cache_bc_alloc(bc, size, &s)) {
			(*bad)++;
			continue;
		}
		/* a slot lies inside its region, after the previous one in the same region */
		if (s.off + s.len > bc->region_size || s.len < size + CACHE_ITEM_HDR || s.off % CACHE_SLOT_ALIGN ||
		    (s.region == last_region && s.off != last_end))
			(*bad)++;
		last_region = s.region;
		last_end = s.off + s.len;
		if (s.sealed != CACHE_NIL) {
			if (ns < max_sealed)
				sealed[ns++] = s.sealed;
			cache_bc_written(bc, s.sealed);
		}
	}
	return ns;
}

static void regions_sequential_fifo(void)
{
	struct cache_bc bc;
	struct rng r;
	uint32_t sealed[4096];
	unsigned bad = 0;

	rng_seed(&r, 3, 4);
	cache_bc_init(&bc, 8, 64 * 1024, EVICT_FIFO);
	unsigned ns = fill_regions(&bc, &r, 20000, sealed, 4096, &bad);
	CHECK(bad == 0, "%u allocations out of place or failed", bad);
	CHECK(ns > 100, "regions sealed: %u", ns);
	CHECK(sealed[0] == 0, "the first region sealed is region 0: %u", sealed[0]);
	/* each pass writes regions 0..7 in order: the next sealed is the next region */
	unsigned out_of_order = 0;
	for (unsigned i = 1; i < ns; i++)
		out_of_order += sealed[i] != (sealed[i - 1] + 1) % 8;
	CHECK(out_of_order == 0, "%u region writes out of sequence", out_of_order);
	CHECK(bc.evicted == ns + 1 - 8, "evictions: %llu for %u sealed regions",
	      (unsigned long long)bc.evicted, ns);
	cache_bc_release(&bc);
}

static void regions_evicted_whole(void)
{
	struct cache_bc bc;
	struct cache_slot a, b, s;
	bool in_mem;

	cache_bc_init(&bc, 3, 64 * 1024, EVICT_FIFO);
	CHECK(cache_bc_alloc(&bc, 1000, &a) == 0 && a.region == 0, "first item in region 0");
	CHECK(cache_bc_lookup(&bc, a.region, a.gen, true, &in_mem) && in_mem,
	      "valid and still in memory before its region is written");
	CHECK(cache_bc_alloc(&bc, 100000, &s) == -E2BIG, "an item larger than a region is refused");
	/* fill region 0 and 1 with 63 KiB items: one each */
	CHECK(cache_bc_alloc(&bc, 64000, &b) == 0 && b.region == 1 && b.sealed == 0, "region 0 sealed");
	CHECK(cache_bc_alloc(&bc, 64000, &s) == 0 && s.region == 2 && s.sealed == 1, "region 1 sealed");
	/* region 0 not yet written: no region can be evicted for the next one */
	CHECK(cache_bc_alloc(&bc, 64000, &s) == -EAGAIN, "every region in flight: -EAGAIN");
	CHECK(s.sealed == 2, "region 2 sealed by that call: %u", s.sealed);
	cache_bc_written(&bc, 0);
	cache_bc_written(&bc, 1);
	cache_bc_written(&bc, 2);
	CHECK(cache_bc_lookup(&bc, a.region, a.gen, true, &in_mem) && !in_mem, "on flash once written");
	CHECK(cache_bc_alloc(&bc, 64000, &s) == 0 && s.region == 0 && s.evicted, "region 0 evicted");
	CHECK(!cache_bc_lookup(&bc, a.region, a.gen, true, &in_mem), "its item is gone with it");
	CHECK(cache_bc_lookup(&bc, b.region, b.gen, true, &in_mem), "region 1's item stays");
	cache_bc_release(&bc);

	/* LRU: region 0 read recently survives, region 1 goes */
	cache_bc_init(&bc, 3, 64 * 1024, EVICT_LRU);
	CHECK(cache_bc_alloc(&bc, 60000, &a) == 0 && cache_bc_alloc(&bc, 60000, &b) == 0 &&
	      cache_bc_alloc(&bc, 60000, &s) == 0, "three regions filled");
	cache_bc_written(&bc, 0);
	cache_bc_written(&bc, 1);
	CHECK(cache_bc_lookup(&bc, a.region, a.gen, true, &in_mem), "region 0 read");
	CHECK(cache_bc_alloc(&bc, 60000, &s) == 0 && s.sealed == 2, "region 2 sealed");
	cache_bc_written(&bc, 2);
	CHECK(s.region == 1 && s.evicted, "LRU evicts region 1 (read longest ago): got %u", s.region);
	CHECK(cache_bc_lookup(&bc, a.region, a.gen, true, &in_mem), "region 0's item stays");
	CHECK(!cache_bc_lookup(&bc, b.region, b.gen, true, &in_mem), "region 1's item is gone");
	cache_bc_release(&bc);
}

static void bighash_rmw(void)
{
	enum { N = 100 };
	struct cache_keys k;
	struct cache_bh bh;
	unsigned ev = 0;

	cache_keys_init(&k, N);
	cache_bh_init(&bh, 1);                  /* one bucket: every key shares it */
	for (uint32_t i = 0; i < N; i++)
		k.size[i] = 984;                /* 1000 bytes an entry: 4 fit in 4072 */
	for (uint32_t i = 0; i < 4; i++)
		ev += cache_bh_insert(&bh, &k, i);
	CHECK(ev == 0 && bh.used[0] == 4000, "four items fit: %u evicted, %u used", ev, bh.used[0]);
	CHECK(cache_bh_insert(&bh, &k, 2) == 0 && bh.used[0] == 4000, "a rewrite replaces its old copy");
	CHECK(cache_bh_insert(&bh, &k, 4) == 1 && !k.in_bh[0] && k.in_bh[1] && k.in_bh[4],
	      "a fifth evicts the oldest (key 0)");
	CHECK(bh.head[0] == 1 && bh.tail[0] == 4, "bucket order 1,3,2,4: head %u tail %u", bh.head[0],
	      bh.tail[0]);
	k.size[10] = 3000;
	CHECK(cache_bh_insert(&bh, &k, 10) == 3, "a 3000-byte item evicts three: used %u", bh.used[0]);
	CHECK(bh.used[0] == 4016 && k.in_bh[4] && k.in_bh[10], "4 and 10 left: used %u", bh.used[0]);
	cache_bh_remove(&bh, &k, 4);
	CHECK(!k.in_bh[4] && bh.used[0] == 3016 && bh.head[0] == 10, "removal frees its bytes");
	cache_bh_release(&bh);

	/* many buckets: every key lands in the bucket its hash names, never over 4 KiB */
	cache_bh_init(&bh, 64);
	for (uint32_t i = 0; i < N; i++)
		k.size[i] = 100 + i * 17;
	for (int round = 0; round < 3; round++)
		for (uint32_t i = 0; i < N; i++)
			cache_bh_insert(&bh, &k, i);
	unsigned over = 0, present = 0;
	for (uint32_t b = 0; b < 64; b++)
		over += bh.used[b] > CACHE_BUCKET - CACHE_BUCKET_HDR;
	for (uint32_t i = 0; i < N; i++)
		present += k.in_bh[i];
	CHECK(over == 0, "%u buckets over 4 KiB", over);
	CHECK(present > N / 2, "most keys present: %u", present);
	cache_bh_release(&bh);
	cache_keys_release(&k);
}

int main(void)
{
	RUN(lru_matches_naive);
	RUN(lru_hit_ratio_che);
	RUN(regions_sequential_fifo);
	RUN(regions_evicted_whole);
	RUN(bighash_rmw);
	return check_done();
}
