/*
 * profile.c - block-level access specifications, the synthetic half of the
 * enterprise SSD reviews (docs/methodology.md section 1): a transfer-size
 * mix, a read percentage, a random percentage and an offset distribution,
 * kept at qd requests in flight per thread. The named review profiles
 * (4k-randread, 8k-70-30, database, email, fileserver, webserver, ...) are
 * presets of this emulator in src/registry.c, with the reviews' own size
 * mixes.
 *
 * The mix is followed exactly, not just on average: each worker deals its
 * sizes and its read/write choices from shuffled decks of 100 cards made
 * from the percentages, so every 100 requests carry the mix to the request
 * and the mean transfer size of a run equals the mix's mean. (fio's default
 * random map silently shortens large requests of a mix; nothing here does.)
 *
 * Random offsets follow --dist over the whole range, aligned to --align
 * (default: the smallest transfer of the mix). Sequential streams give each
 * worker its own slice of the target, so threads do not read each other's
 * blocks, and wrap around at the slice's end.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "appio/dist.h"
#include "appio/emulator.h"

#define DECK 100

struct profile_opts {
	struct opt_split bs;
	unsigned read;
	unsigned random;
	struct opt_dist dist;
	uint64_t align;
};

struct profile_run {
	struct dist dist;       /* over align units of the whole target */
	uint64_t size, align;
	uint32_t min_bs;
};

struct profile_worker {
	uint32_t sizes[DECK];   /* a deck of transfer sizes */
	uint8_t writes[DECK];   /* a deck of read(0)/write(1) choices */
	uint8_t randoms[DECK];  /* a deck of random(1)/sequential(0) choices */
	unsigned card;          /* next card of the decks */
	uint64_t seq_off, slice_start, slice_end;
};

enum { CLS_READ, CLS_WRITE };

#define O(field) offsetof(struct profile_opts, field)
static const struct opt_def profile_opt_table[] = {
	{ "bs", OPT_SPLIT, O(bs), "4k",
	  "transfer size, or a mix SIZE/PCT:SIZE/PCT... summing to 100 (512/10:4k/90)" },
	{ "read", OPT_PCT, O(read), "100", "percentage of reads (the rest are writes)" },
	{ "random", OPT_PCT, O(random), "100", "percentage of random offsets (the rest sequential)" },
	{ "dist", OPT_DIST, O(dist), "uniform",
	  "random offset distribution: uniform, zipf:THETA, pareto:H, normal:SIGMA%" },
	{ "align", OPT_SIZE, O(align), NULL,
	  "offset alignment of random I/O (default: the smallest transfer size)",
	  .max = 1ULL << 30 },
	OPT_END,
};
#undef O

static unsigned read_pct(const struct profile_opts *o, const struct emu_point *pt)
{
	return pt && pt->write_pct >= 0 ? 100 - (unsigned)pt->write_pct : o->read;
}

static bool profile_will_write(const void *opts, bool write_sweep)
{
	const struct profile_opts *o = opts;
	return write_sweep || o->read < 100;
}

static int profile_setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct profile_opts *o = run->opts;
	struct profile_run *pr = run->priv;
	const struct target *t = run->target;
	uint32_t min_bs = UINT32_MAX, max_bs = 0;

	for (unsigned i = 0; i < o->bs.n; i++) {
		min_bs = o->bs.bs[i] < min_bs ? o->bs.bs[i] : min_bs;
		max_bs = o->bs.bs[i] > max_bs ? o->bs.bs[i] : max_bs;
		if (t->direct && o->bs.bs[i] % t->lbs) {
			snprintf(err, errlen, "--bs: %u-byte transfers are not a multiple of the logical "
				 "block size of '%s' (%u bytes) that O_DIRECT needs (use --direct 0 or "
				 "larger sizes)", o->bs.bs[i], t->path, t->lbs);
			return -EINVAL;
		}
	}
	pr->align = o->align ? o->align : min_bs;
	if (t->direct && pr->align % t->lbs) {
		snprintf(err, errlen, "--align: %llu is not a multiple of the logical block size of "
			 "'%s' (%u bytes) that O_DIRECT needs", (unsigned long long)pr->align,
			 t->path, t->lbs);
		return -EINVAL;
	}
	if (pr->align > t->size) {
		snprintf(err, errlen, "--align: %llu bytes is larger than the target '%s' (%llu bytes)",
			 (unsigned long long)pr->align, t->path, (unsigned long long)t->size);
		return -EINVAL;
	}
	if (t->size < max_bs) {
		snprintf(err, errlen, "--size: the target's %llu bytes hold no %u-byte transfer",
			 (unsigned long long)t->size, max_bs);
		return -EINVAL;
	}
	pr->size = t->size;
	pr->min_bs = min_bs;
	run->max_io = max_bs;
	run->writes = profile_will_write(o, false);
	/* random offsets: any aligned unit where a smallest transfer fits */
	int rc = dist_init(&pr->dist, &o->dist, (t->size - min_bs) / pr->align + 1);
	if (rc)
		snprintf(err, errlen, "--dist: invalid distribution parameter");
	return rc;
}

/* Deal a deck: @pct[i] cards of value i for each entry, then shuffle. */
static void shuffle(struct rng *r, void *deck, size_t elem)
{
	char *d = deck, tmp[4];
	for (unsigned i = DECK - 1; i > 0; i--) {
		unsigned j = (unsigned)rng_below(r, i + 1);
		memcpy(tmp, d + i * elem, elem);
		memcpy(d + i * elem, d + j * elem, elem);
		memcpy(d + j * elem, tmp, elem);
	}
}

static void deal(struct emu_worker *w)
{
	const struct profile_opts *o = w->run->opts;
	struct profile_worker *pw = w->priv;
	unsigned n = 0, reads = read_pct(o, w->pt);

	for (unsigned i = 0; i < o->bs.n; i++)
		for (unsigned k = 0; k < o->bs.pct[i]; k++)
			pw->sizes[n++] = o->bs.bs[i];
	for (unsigned i = 0; i < DECK; i++) {
		pw->writes[i] = i >= reads;
		pw->randoms[i] = i < o->random;
	}
	shuffle(&w->rng, pw->sizes, sizeof(pw->sizes[0]));
	shuffle(&w->rng, pw->writes, 1);
	shuffle(&w->rng, pw->randoms, 1);
	pw->card = 0;
}

static int profile_worker_init(struct emu_worker *w)
{
	const struct profile_run *pr = w->run->priv;
	struct profile_worker *pw = w->priv;
	unsigned n = w->pt->threads;
	uint64_t units = pr->size / pr->align;

	/* sequential slices, aligned; the last one takes the remainder */
	pw->slice_start = units * w->id / n * pr->align;
	pw->slice_end = w->id + 1 == n ? pr->size : units * (w->id + 1) / n * pr->align;
	pw->seq_off = pw->slice_start;
	deal(w);
	return 0;
}

static uint64_t next_seq(struct profile_worker *pw, uint32_t len)
{
	if (pw->seq_off + len > pw->slice_end)
		pw->seq_off = pw->slice_start;
	uint64_t off = pw->seq_off;
	pw->seq_off += len;
	return off;
}

static int profile_next_io(struct emu_worker *w, struct io_req *r)
{
	const struct profile_run *pr = w->run->priv;
	struct profile_worker *pw = w->priv;

	if (pw->card == DECK)
		deal(w);
	unsigned c = pw->card++;
	uint32_t len = pw->sizes[c];
	uint64_t off;

	if (pw->randoms[c] || pw->slice_end - pw->slice_start < len) {
		off = dist_next(&pr->dist, &w->rng) * pr->align;
		if (off + len > pr->size)   /* a large transfer near the end: back off, aligned */
			off = (pr->size - len) / pr->align * pr->align;
	} else {
		off = next_seq(pw, len);
	}
	r->op = pw->writes[c] ? IO_WRITE : IO_READ;
	r->cls = pw->writes[c] ? CLS_WRITE : CLS_READ;
	r->off = off;
	r->len = len;
	return 0;
}

const struct emu_ops emu_profile = {
	.name = "profile",
	.desc = "block-level access spec: size mix, read %, random %, offset distribution",
	.flags = EMU_TOTAL | EMU_WRITE_SWEEP,
	.opts = profile_opt_table,
	.opts_size = sizeof(struct profile_opts),
	.run_priv_size = sizeof(struct profile_run),
	.worker_priv_size = sizeof(struct profile_worker),
	.classes = (const char *const[]){ "read", "write", NULL },
	.will_write = profile_will_write,
	.setup = profile_setup,
	.worker_init = profile_worker_init,
	.next_io = profile_next_io,
};
