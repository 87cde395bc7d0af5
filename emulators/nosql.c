/*
 * nosql.c - a document store of the MarkLogic / LSM family at the I/O level:
 * the application behind the reviews' NoSQL test (docs/methodology.md
 * section 4: four forests on four drives, latency split into journal writes,
 * stand saves, merge reads and writes, and query reads, over 24 intervals).
 *
 * A database is --forests forests (default 4, as the reviews' four nodes),
 * each in its own folder; --target may list one folder per forest to spread
 * them over drives. A forest has a journal, an in-memory stand and on-disk
 * stands (immutable files), and does its I/O the way MarkLogic describes
 * (Administrator's Guide: "Understanding and Controlling Database Merges",
 * "Memory and Journal Settings"):
 *
 *  - insert and update: a journal frame (the document plus a 64-byte header)
 *    is appended and made durable before the operation is acknowledged;
 *    concurrent commits share one write + fdatasync (group commit,
 *    nosql_journal.h). The document goes into the in-memory stand; an update
 *    also makes an older version of a document obsolete (in whichever stand
 *    holds it, chosen in proportion to live documents).
 *  - save: when the in-memory stand reaches --in-memory-limit bytes of
 *    documents, a background saver writes it as a new on-disk stand, 1 MiB
 *    sequential writes then fsync, and the journal moves on to a new file (the
 *    one before it is deleted). If the next in-memory stand fills while a save
 *    is still running, writers wait for it (MarkLogic throttles inserts the
 *    same way), which is how slow saves reach client latency.
 *  - merge: a background merger per forest applies MarkLogic's merge policy
 *    (nosql_merge.h: --merge-ratio 2, --merge-min-size 1024 fragments,
 *    --merge-max-size 32768 MB) to its on-disk stands, reads the chosen ones
 *    sequentially in 1 MiB reads, writes their live share as one new stand
 *    (obsolete fragments are dropped), fsyncs, and deletes the inputs. Merges
 *    run at full speed and compete with the foreground for the drive, unless
 *    --merge-rate caps their read rate.
 *  - query: one index lookup per on-disk stand of the forest (a 4 KiB page at
 *    a random place in the stand's index part: more stands, slower queries,
 *    which is why merges exist) and --query-docs fragment reads (a document's
 *    size at a random offset of a stand chosen by its live share; a fragment
 *    still in memory costs no I/O), all through a --cache of stand pages.
 *
 * A stand file is its fragments followed by indexes of a quarter of their size
 * (our choice: MarkLogic's index share depends on the index settings). The
 * database starts with --data bytes of stands (one per forest, as after a
 * full merge), laid out by setup. --mix insert:update:query defaults to
 * 20:30:50 and --doc-size to 2k/25:4k/40:8k/25:32k/10 (mean 7.3 KiB), our
 * choices for a read-mostly document store: the reviews do not publish theirs.
 * --in-memory-limit defaults to 32 MiB per forest (ours: MarkLogic sizes its
 * in-memory stand from RAM at installation, typically hundreds of MiB, which
 * on a 30-60 s point would never save; 32 MiB saves every few seconds on an
 * SSD so saves and merges happen within a point; raise it for long runs).
 *
 * Classes: journal_write and journal_sync (a group's write and its
 * fdatasync), save_write, merge_read, merge_write, stand_sync (the fsync of
 * a saved or merged stand), query_read (I/O), update and query (what a client
 * sees, with every wait), and total. The reviews' per-interval chart is the
 * per-second series cut into --intervals equal parts (docs/nosql.md).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appio/ckd.h"
#include "nosql_int.h"
#include "appio/xalloc.h"

#define O(field) offsetof(struct nosql_opts, field)
static const struct opt_def nosql_opt_table[] = {
	{ "forests", OPT_UINT, O(forests), "4", "forests (one folder each; --target A,B,... spreads them)",
	  .min = 1, .max = 64 },
	{ "mix", OPT_STR, O(mix), "20:30:50", "percent insert:update:query, summing to 100" },
	{ "doc-size", OPT_SPLIT, O(doc_size), "2k/25:4k/40:8k/25:32k/10",
	  "document size, or a mix SIZE/PCT:... (up to 1M)" },
	{ "in-memory-limit", OPT_SIZE, O(in_memory_limit), "32M",
	  "document bytes in a forest's in-memory stand before it is saved", .min = 64 * 1024,
	  .flags = OPT_MEMORY },
	{ "merge-ratio", OPT_UINT, O(merge_ratio), "2",
	  "merge a stand with all smaller ones when it has fewer than RATIO x their fragments", .min = 1,
	  .max = 1000 },
	{ "merge-min-size", OPT_UINT, O(merge_min_size), "1024",
	  "stands with fewer fragments are always merged", .max = 1000000000 },
	{ "merge-max-size", OPT_SIZE, O(merge_max_size), "32768M",
	  "no merge makes a stand larger than this (0: no limit)",
	  .max = 1ULL << 50 },
	{ "merge-rate", OPT_SIZE, O(merge_rate), "0",
	  "cap each merge's reads at this many bytes per second (0: no cap)",
	  .max = 1ULL << 40 },
	{ "cache", OPT_SIZE, O(cache), "64M", "cache of stand pages shared by all forests",
	  .flags = OPT_MEMORY },
	{ "data", OPT_SIZE, O(data), "1G", "stand bytes the database starts with, over all forests",
	  .max = 1ULL << 50 },
	{ "query-docs", OPT_UINT, O(query_docs), "4", "fragments a query reads", .max = 1000 },
	{ "intervals", OPT_UINT, O(intervals), "24",
	  "intervals each point's series is cut into: mean latency per class per interval, "
	  "printed after the table, kept in the result and charted by the report",
	  .min = 1, .max = 10000 },
	OPT_END,
};
#undef O

static uint32_t doc_size(const struct nosql_opts *o, struct rng *r)
{
	unsigned x = (unsigned)rng_below(r, 100);
	for (unsigned i = 0; i < o->doc_size.n; i++) {
		if (x < o->doc_size.pct[i])
			return o->doc_size.bs[i];
		x -= o->doc_size.pct[i];
	}
	return o->doc_size.bs[o->doc_size.n - 1];
}

/* --- the journal's I/O, through the core (the leader's worker records it) --- */

struct jctx {
	struct emu_worker *w;
	struct forest *f;
};

static int journal_write(void *ctx, void *buf, uint32_t len, uint64_t off)
{
	struct jctx *c = ctx;
	int64_t rc = emu_io(c->w, CLS_JOURNAL_WRITE, IO_WRITE, c->f->jfd, buf, len, off);

	if (rc == len)
		rc = emu_io(c->w, CLS_JOURNAL_SYNC, IO_FDATASYNC, c->f->jfd, NULL, 0, 0);
	else if (rc >= 0)
		rc = -EIO;
	if (rc < 0)
		return emu_fail(c->w, (int)rc, "journal write in '%s' failed: %s", c->f->dir,
				strerror((int)-rc));
	emu_count(c->w, CNT_FLUSHES, 1);
	return 0;
}

static int open_journal(const struct nosql_run *nr, struct forest *f, uint32_t seq)
{
	char name[32];
	snprintf(name, sizeof(name), "journal-%06u", seq);
	return openat(f->dirfd, name, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC |
		      (nr->direct ? O_DIRECT : 0), 0644);
}

/* After a save: frames up to here are in a stand; keep one journal file back, delete older. */
static int journal_rotate(void *ctx)
{
	struct jctx *c = ctx;
	struct forest *f = c->f;
	char name[32];
	int fd = open_journal(c->w->run->priv, f, f->jseq + 1);

	if (fd < 0)
		return emu_fail(c->w, -errno, "cannot start a journal file in '%s': %s", f->dir,
				strerror(errno));
	if (f->jseq > 1) {
		snprintf(name, sizeof(name), "journal-%06u", f->jseq - 1);
		unlinkat(f->dirfd, name, 0);
	}
	close(f->jfd);
	f->jfd = fd;
	f->jseq++;
	return 0;
}

static bool journal_stopping(void *ctx)
{
	return emu_stopping(((struct jctx *)ctx)->w);
}

/* --- foreground: updates and queries --- */

/* Make one older version obsolete: in the in-memory, saving or an on-disk stand. */
static void obsolete_one(struct forest *f, struct rng *r)
{
	uint64_t total = f->mem_live + (f->save_pending ? f->save_live : 0);
	for (unsigned i = 0; i < f->nstands; i++)
		total += f->stands[i]->live;
	if (!total)
		return;
	uint64_t x = rng_below(r, total);
	if (x < f->mem_live) {
		f->mem_live--;
		return;
	}
	x -= f->mem_live;
	if (f->save_pending && x < f->save_live) {
		f->save_live--;
		return;
	}
	x -= f->save_pending ? f->save_live : 0;
	for (unsigned i = 0; i < f->nstands; i++) {
		if (x < f->stands[i]->live) {
			f->stands[i]->live--;
			return;
		}
		x -= f->stands[i]->live;
	}
}

/* Put the document in the in-memory stand; hand a full one to the saver. 1 if stopped. */
static int add_to_memory(struct emu_worker *w, struct forest *f, uint32_t size, bool insert)
{
	const struct nosql_opts *o = w->run->opts;
	bool waited = false;
	int rc = 0;

	pthread_mutex_lock(&f->lock);
	while (f->mem_bytes && f->mem_bytes + size > o->in_memory_limit) {
		if (!f->save_pending) {
			f->save_bytes = f->mem_bytes;
			f->save_frags = f->mem_frags;
			f->save_live = f->mem_live;
			f->save_pending = true;
			f->mem_bytes = f->mem_frags = f->mem_live = 0;
			pthread_cond_broadcast(&f->cv);
			break;
		}
		waited = true;                          /* the last save is still running */
		nosql_forest_wait(f, 10);
		if (emu_stopping(w)) {
			rc = 1;
			goto out;
		}
	}
	f->mem_bytes += size;
	f->mem_frags++;
	f->mem_live++;
	if (!insert)
		obsolete_one(f, &w->rng);
out:
	pthread_mutex_unlock(&f->lock);
	emu_count(w, CNT_SAVE_WAITS, waited);
	return rc;
}

static int do_update(struct emu_worker *w, struct forest *f, bool insert)
{
	uint64_t t0 = emu_step_start(w);
	uint32_t size = doc_size(w->run->opts, &w->rng), len = FRAME_HDR + size;
	uint32_t *frame = emu_buf(w, 0);
	struct jctx ctx = { w, f };
	const struct nosql_journal_io io = { journal_write, journal_rotate, journal_stopping, &ctx };

	emu_fill(w, frame, len);        /* the document: fresh data every time */
	frame[0] = 0x4a524e4c;          /* frame header: magic, length, kind */
	frame[1] = len;
	frame[2] = insert;
	int rc = nosql_journal_commit(&f->journal, frame, len, &io);
	if (!rc)
		rc = add_to_memory(w, f, size, insert);
	if (rc)
		return rc < 0 ? rc : 0;         /* stopped: not acknowledged, not recorded */
	emu_count(w, CNT_COMMITS, 1);
	emu_count(w, insert ? CNT_INSERTS : CNT_UPDATES, 1);
	emu_record(w, CLS_UPDATE, t0, size);
	return 0;
}

/* Read [off, off+len) of @s unless its first page is cached; then cache its pages. */
static int read_cached(struct emu_worker *w, struct stand *s, uint64_t off, uint32_t len)
{
	struct nosql_run *nr = w->run->priv;

	if (nosql_cache_lookup(&nr->cache, s->uid, off / PAGE)) {
		emu_count(w, CNT_HITS, 1);
		return 0;
	}
	int64_t got = emu_io(w, CLS_QUERY_READ, IO_READ, s->fd, emu_buf(w, 0), len, off);
	if (got != len)
		return emu_fail(w, got < 0 ? (int)got : -EIO, "query read of stand %u failed: %s",
				s->uid, strerror(got < 0 ? (int)-got : EIO));
	emu_count(w, CNT_MISSES, 1);
	for (uint64_t p = off / PAGE; p <= (off + len - 1) / PAGE; p++)
		nosql_cache_insert(&nr->cache, s->uid, p, &w->rng);
	return 0;
}

/* A fragment: a document's size at a random block-aligned place of the stand's fragments. */
static int read_fragment(struct emu_worker *w, struct stand *s)
{
	const struct nosql_run *nr = w->run->priv;
	uint64_t len = nosql_round_up(doc_size(w->run->opts, &w->rng), nr->lbs);

	if (len > s->data_area)
		len = s->data_area;
	uint64_t slots = (s->data_area - len) / nr->lbs + 1;
	return read_cached(w, s, rng_below(&w->rng, slots) * nr->lbs, (uint32_t)len);
}

/*
 * The forest's stands, referenced, with their live counts and the in-memory
 * one, taken under the lock: updates make versions obsolete (under the lock)
 * while the query reads, which then sees the stands as they were.
 */
static unsigned snapshot(struct forest *f, struct stand **snap, uint64_t *live, uint64_t *mem_live)
{
	pthread_mutex_lock(&f->lock);
	unsigned n = f->nstands;
	for (unsigned i = 0; i < n; i++) {
		snap[i] = f->stands[i];
		live[i] = snap[i]->live;
		atomic_fetch_add(&snap[i]->refs, 1);
	}
	*mem_live = f->mem_live + (f->save_pending ? f->save_live : 0);
	pthread_mutex_unlock(&f->lock);
	return n;
}

static int query_reads(struct emu_worker *w, struct stand **snap, const uint64_t *live, unsigned n,
		       uint64_t mem_live)
{
	const struct nosql_opts *o = w->run->opts;
	uint64_t total = mem_live;
	int rc = 0;

	/* every stand's index is consulted: the cost that grows with the stand count */
	for (unsigned i = 0; i < n && !rc; i++) {
		total += live[i];
		uint64_t pages = (snap[i]->file_bytes - snap[i]->data_area) / PAGE;
		rc = read_cached(w, snap[i], snap[i]->data_area + rng_below(&w->rng, pages) * PAGE, PAGE);
	}
	for (uint64_t k = 0; k < o->query_docs && total && !rc; k++) {
		uint64_t x = rng_below(&w->rng, total);
		if (x < mem_live)
			continue;               /* still in memory: no I/O */
		x -= mem_live;
		unsigned i = 0;
		while (i + 1 < n && x >= live[i])
			x -= live[i++];
		rc = read_fragment(w, snap[i]);
	}
	return rc;
}

static int do_query(struct emu_worker *w, struct forest *f)
{
	struct stand *snap[NOSQL_MAX_STANDS];
	uint64_t t0 = emu_step_start(w), mem_live, live[NOSQL_MAX_STANDS];
	unsigned n = snapshot(f, snap, live, &mem_live);
	int rc = query_reads(w, snap, live, n, mem_live);

	for (unsigned i = 0; i < n; i++)
		nosql_stand_put(snap[i]);
	if (!rc)
		emu_record(w, CLS_QUERY, t0, 0);
	return rc;
}

static int nosql_step(struct emu_worker *w)
{
	const struct nosql_run *nr = w->run->priv;
	struct forest *f = &nr->forests[rng_below(&w->rng, nr->nforests)];
	unsigned x = (unsigned)rng_below(&w->rng, 100);

	if (x < nr->mix[MIX_QUERY])
		return do_query(w, f);
	return do_update(w, f, x < nr->mix[MIX_QUERY] + nr->mix[MIX_INSERT]);
}

/* Background workers: per forest a saver, then per forest a merger. */
static int nosql_bg_step(struct emu_worker *w)
{
	const struct nosql_run *nr = w->run->priv;
	unsigned b = w->id - w->pt->threads;
	struct forest *f = &nr->forests[b % nr->nforests];

	return b < nr->nforests ? nosql_stand_save(w, f) : nosql_stand_merge(w, f);
}

/* --- setup and teardown --- */

static int parse_mix(const char *s, unsigned *mix, char *err, size_t errlen)
{
	unsigned v[3];
	int used = 0;

	if (strspn(s, "0123456789:") != strlen(s) ||
	    sscanf(s, "%u:%u:%u%n", &v[0], &v[1], &v[2], &used) != 3 || s[used] ||
	    v[0] + v[1] + v[2] != 100) {
		snprintf(err, errlen, "--mix: '%s' is not INSERT:UPDATE:QUERY percentages summing "
			 "to 100 (e.g. 20:30:50)", s);
		return -EINVAL;
	}
	memcpy(mix, v, sizeof(v));
	return 0;
}

static int check_opts(const struct nosql_opts *o, struct nosql_run *nr, char *err, size_t errlen)
{
	int rc = parse_mix(o->mix, nr->mix, err, errlen);

	for (unsigned i = 0; !rc && i < o->doc_size.n; i++) {
		if (o->doc_size.bs[i] > MAX_DOC || !o->doc_size.bs[i]) {
			snprintf(err, errlen, "--doc-size: %u bytes is outside 1 byte to 1M",
				 o->doc_size.bs[i]);
			rc = -EINVAL;
		}
		nr->mean_doc += (uint64_t)o->doc_size.bs[i] * o->doc_size.pct[i] / 100;
	}
	/* each bound alone is held to the memory by its row; together they must fit too */
	uint64_t mem;
	if (!rc && (ckd_mul_u64(o->in_memory_limit, o->forests, &mem) ||
		    ckd_add_u64(mem, o->cache, &mem) || mem > opt_phys_mem())) {
		snprintf(err, errlen, "--in-memory-limit x --forests + --cache: %.1fG is more than "
			 "this machine's memory (%.1fG)", (double)o->in_memory_limit * (double)o->forests /
			 (1 << 30) + (double)o->cache / (1 << 30), (double)opt_phys_mem() / (1 << 30));
		rc = -EINVAL;
	}
	nr->policy = (struct nosql_merge_policy){ .ratio = o->merge_ratio,
		.min_frags = o->merge_min_size, .max_bytes = o->merge_max_size };
	return rc;
}

static int folder_fail(char *err, size_t errlen, const char *what, const char *path, int e)
{
	if (e == EINVAL && !strcmp(what, "use O_DIRECT in"))
		snprintf(err, errlen, "--target: the file system of '%s' does not support O_DIRECT "
			 "(use --direct 0)", path);
	else
		snprintf(err, errlen, "--target: cannot %s '%s': %s", what, path, strerror(e));
	return e == EACCES || e == EPERM || e == EROFS || e == ENOENT || e == ENOTDIR ||
	       e == EINVAL ? -EINVAL : -e;
}

/* Remove what an earlier run left in a forest folder (our names only). */
static void clean_forest(struct forest *f)
{
	int fd = dup(f->dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	struct dirent *de;

	while (d && (de = readdir(d)) != NULL)
		if (!strncmp(de->d_name, "journal-", 8) || !strncmp(de->d_name, "stand-", 6))
			unlinkat(f->dirfd, de->d_name, 0);
	if (d)
		closedir(d);
	else if (fd >= 0)
		close(fd);
}

/* Folder @dir: made, opened, emptied of our files, with a journal. */
static int open_forest(struct nosql_run *nr, struct forest *f, const char *dir, uint32_t cap,
		       char *err, size_t errlen)
{
	snprintf(f->dir, sizeof(f->dir), "%s", dir);
	f->dirfd = f->jfd = -1;
	pthread_mutex_init(&f->lock, NULL);
	cond_init_mono(&f->cv);
	nosql_journal_init(&f->journal, cap, nr->lbs);
	f->next_uid = 1;
	if (mkdir(dir, 0755) && errno != EEXIST)
		return folder_fail(err, errlen, "create folder", dir, errno);
	f->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (f->dirfd < 0)
		return folder_fail(err, errlen, "open folder", dir, errno);
	clean_forest(f);
	f->jseq = 1;
	f->jfd = open_journal(nr, f, f->jseq);
	if (f->jfd < 0)
		return folder_fail(err, errlen, nr->direct && errno == EINVAL ? "use O_DIRECT in" :
				   "write in", dir, errno);
	return 0;
}

/* The starting data: one stand of random bytes, as after a full merge. */
static int lay_out(struct nosql_run *nr, struct forest *f, uint64_t bytes, void *buf,
		   volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	uint64_t data = bytes * 100 / (100 + INDEX_PCT);
	int e = 0;

	if (data < PAGE)
		return 0;
	struct stand *s = nosql_stand_create(nr, f, f->next_uid++, data);
	if (!s)
		return folder_fail(err, errlen, "write in", f->dir, errno);
	uint64_t off = 0;
	const char *op = "write";
	for (; off < s->file_bytes && !e; off += CHUNK) {
		size_t n = s->file_bytes - off < CHUNK ? (size_t)(s->file_bytes - off) : CHUNK;
		if (*stop) {
			e = EINTR;
			break;
		}
		((uint64_t *)buf)[0] ^= off;    /* no two chunks alike */
		ssize_t w = pwrite(s->fd, buf, n, (off_t)off);
		if (w != (ssize_t)n) {
			e = w < 0 ? errno : ENOSPC;
			break;
		}
	}
	if (!e && fsync(s->fd)) {
		e = errno;
		op = "fsync";
	}
	if (e) {
		nosql_stand_discard(f, s);
		if (e == EINTR)
			snprintf(err, errlen, "interrupted while laying out the data in '%s'", f->dir);
		else
			snprintf(err, errlen, "--data: cannot lay out %llu bytes in '%s': %s at offset "
				 "%llu: %s", (unsigned long long)bytes, f->dir, op,
				 (unsigned long long)off, strerror(e));
		return -e;
	}
	s->frags = s->live = data / (nr->mean_doc ? nr->mean_doc : 1);
	f->stands[f->nstands++] = s;
	return 0;
}

/* Forest i lives in folder i mod n of the --target list. */
static int open_forests(struct emu_run *run, uint32_t cap, char *err, size_t errlen)
{
	const struct nosql_opts *o = run->opts;
	struct nosql_run *nr = run->priv;
	char *spec = xstrdup(run->target_spec ? run->target_spec : run->target->path);
	char *folders[64], *save = NULL, dir[PATH_MAX];
	unsigned nf = 0;
	int rc = 0;

	for (char *d = strtok_r(spec, ",", &save); d && nf < 64; d = strtok_r(NULL, ",", &save))
		folders[nf++] = d;
	nr->lbs = nf > 1 || !run->target->lbs ? PAGE : run->target->lbs;
	nr->forests = xaligned(64, o->forests * sizeof(*nr->forests));
	void *buf = xaligned(4096, CHUNK);
	struct rng r;
	rng_seed(&r, run->seed, 0x1a7);
	for (size_t k = 0; k < CHUNK / 8; k++)
		((uint64_t *)buf)[k] = rng_next(&r);
	double t0 = (double)emu_now();
	for (unsigned i = 0; i < o->forests && !rc; i++, nr->nforests++) {
		if (snprintf(dir, sizeof(dir), "%s/forest-%02u", folders[i % nf], i) >= (int)sizeof(dir))
			rc = folder_fail(err, errlen, "use", folders[i % nf], ENAMETOOLONG);
		else if (!(rc = open_forest(nr, &nr->forests[i], dir, cap, err, errlen)))
			rc = lay_out(nr, &nr->forests[i], o->data / o->forests, buf, run->stop,
				     err, errlen);
	}
	nr->layout_s = ((double)emu_now() - t0) / 1e9;
	free(buf);
	free(spec);
	return rc;
}

static void close_forest(struct forest *f)
{
	char name[32];

	for (unsigned i = 0; i < f->nstands; i++)
		nosql_stand_discard(f, f->stands[i]);
	f->nstands = 0;
	if (f->jfd >= 0)
		close(f->jfd);
	for (uint32_t s = f->jseq > 1 ? f->jseq - 1 : 1; f->jseq && s <= f->jseq; s++) {
		snprintf(name, sizeof(name), "journal-%06u", s);
		unlinkat(f->dirfd, name, 0);
	}
	if (f->dirfd >= 0)
		close(f->dirfd);
	rmdir(f->dir);                  /* only if empty: the user's files stay */
	nosql_journal_release(&f->journal);
	pthread_mutex_destroy(&f->lock);
	pthread_cond_destroy(&f->cv);
}

/* The store's files go: a later run lays out its own. */
static void nosql_teardown(struct emu_run *run)
{
	struct nosql_run *nr = run->priv;

	for (unsigned i = 0; i < nr->nforests; i++)
		close_forest(&nr->forests[i]);
	free(nr->forests);
	nr->forests = NULL;
	nosql_cache_release(&nr->cache);
}

static int nosql_setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct nosql_opts *o = run->opts;
	struct nosql_run *nr = run->priv;
	int rc = check_opts(o, nr, err, errlen);
	uint32_t max_frame = 0;

	if (rc)
		return rc;
	for (unsigned i = 0; i < o->doc_size.n; i++)
		if (o->doc_size.bs[i] + FRAME_HDR > max_frame)
			max_frame = o->doc_size.bs[i] + FRAME_HDR;
	/* room for many frames per flush: group commit at any thread count of a sweep */
	uint32_t cap = (uint32_t)nosql_round_up(max_frame, PAGE) * 4;
	cap = cap > (4u << 20) ? cap : 4u << 20;
	nr->direct = run->target->direct;
	rc = open_forests(run, cap, err, errlen);
	if (rc) {
		nosql_teardown(run);    /* the runner calls teardown only after a setup that worked */
		return rc;
	}
	nosql_cache_init(&nr->cache, o->cache);
	run->max_io = CHUNK + PAGE;
	run->bg_workers = 2 * nr->nforests;
	run->headline = "update";
	return 0;
}

static int nosql_worker_init(struct emu_worker *w)
{
	const struct nosql_run *nr = w->run->priv;

	if (w->id == 0)
		emu_count(w, CNT_LAYOUT_MS, (uint64_t)(nr->layout_s * 1000));
	return 0;
}

const struct emu_ops emu_nosql = {
	.name = "nosql",
	.desc = "document store (MarkLogic/LSM): journal group commit, stand saves, merges, queries",
	.flags = EMU_TOTAL | EMU_TARGET_DIR | EMU_WRITES | EMU_RATE,
	.opts = nosql_opt_table,
	.opts_size = sizeof(struct nosql_opts),
	.run_priv_size = sizeof(struct nosql_run),
	.classes = (const char *const[]){ "journal_write", "journal_sync", "save_write",
		"merge_read", "merge_write", "stand_sync", "query_read", "update", "query", NULL },
	.counters = (const char *const[]){ "commits", "journal_flushes", "saves", "merges",
		"merge_read_bytes", "merge_write_bytes", "cache_hits", "cache_misses", "save_waits",
		"inserts", "updates", "layout_ms", NULL },
	.suite_review_args = "--threads 2,8,32 --time 600 --data 8G --engine sync",
	.suite_quick_args = "--threads 2,8 --time 6 --data 128M --in-memory-limit 2M --intervals 6 "
			    "--engine sync",
	.setup = nosql_setup,
	.worker_init = nosql_worker_init,
	.step = nosql_step,
	.bg_step = nosql_bg_step,
	.teardown = nosql_teardown,
	.point_end = nosql_point_end,
	.summary = nosql_summary,
};
