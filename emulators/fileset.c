/*
 * fileset.c - a personality's files: layout, build, reuse, pick (fileset.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appio/opt.h"
#include "fileset.h"
#include "appio/xalloc.h"

#define BUILD_CHUNK (1u << 20)
#define PICK_PROBES 64          /* random tries before a scan */

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* errno of a failed write in the user's folder: their input if they may not write there. */
static int folder_rc(int e)
{
	return e == EACCES || e == EPERM || e == EROFS || e == ENOENT || e == ENOTDIR ? -EINVAL : -e;
}

static int fail(char *err, size_t errlen, int e, const char *what, const struct fileset *fs,
		const char *name)
{
	snprintf(err, errlen, "--target: cannot %s '%s/%s': %s", what, fs->root, name, strerror(e));
	return folder_rc(e);
}

/* Has the user asked to stop? Then say where the build was and give up. */
static bool stopped(const struct fileset *fs, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	if (!stop || !*stop)
		return false;
	snprintf(err, errlen, "interrupted while building the file set in '%s'", fs->root);
	return true;
}

unsigned fileset_depth(uint32_t files, uint32_t width)
{
	uint64_t leaves = (files + (uint64_t)width - 1) / width, cap = 1;
	unsigned d = 0;

	while (leaves > 1 && cap < leaves) {
		cap *= width;
		d++;
	}
	return d;
}

static size_t put_uint(char *p, uint64_t v)
{
	char tmp[20];
	size_t n = 0;

	do
		tmp[n++] = (char)('0' + v % 10);
	while (v /= 10);
	for (size_t i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* "dA/dB/.../" for the first @levels levels of leaf folder @leaf. */
static int dir_prefix(const struct fileset *fs, uint64_t leaf, unsigned levels, char *buf, size_t len)
{
	uint32_t digits[40];
	size_t n = 0;

	for (unsigned j = fs->depth; j-- > 0;) {
		digits[j] = (uint32_t)(leaf % fs->p.width);
		leaf /= fs->p.width;
	}
	for (unsigned j = 0; j < levels; j++) {
		if (n + 13 > len)
			return -ENAMETOOLONG;
		buf[n++] = 'd';
		n += put_uint(buf + n, digits[j]);
		buf[n++] = '/';
	}
	buf[n] = '\0';
	return (int)n;
}

int fileset_path(const struct fileset *fs, uint32_t i, char *buf, size_t len)
{
	int n = dir_prefix(fs, i / fs->p.width, fs->depth, buf, len);

	if (n < 0 || (size_t)n + 13 > len)
		return -ENAMETOOLONG;
	buf[n++] = 'f';
	n += (int)put_uint(buf + n, i);
	buf[n] = '\0';
	return n;
}

uint64_t fileset_draw_size(const struct fileset *fs, struct rng *r)
{
	double units = round(gamma_next(&fs->gamma, r) / fs->p.round);
	double most = (double)(FILESET_SIZE_MAX / fs->p.round);

	/* range-checked before the cast: a huge mean's tail would not fit 64 bits */
	if (!(units <= most))
		units = most;
	return (units >= 1 ? (uint64_t)units : 1) * fs->p.round;
}

bool fileset_params_match(const struct fileset_params *a, const struct fileset_params *b)
{
	return !strcmp(a->kind, b->kind) && a->files == b->files && a->width == b->width &&
	       a->mean == b->mean && fabs(a->shape - b->shape) < 1e-9 &&
	       a->prealloc == b->prealloc && a->round == b->round;
}

int fileset_format_manifest(const struct fileset_params *p, char *buf, size_t len)
{
	return snprintf(buf, len, "appio-fileset 1\nkind %s\nfiles %u\nwidth %u\nmean %llu\n"
			"shape %.17g\nprealloc %u\nround %u\n", p->kind, p->files, p->width,
			(unsigned long long)p->mean, p->shape, p->prealloc, p->round);
}

/*
 * Line "KEY VALUE\n" at *@text: the value's span, and *@text moved past the
 * line. The manifest is read exactly as fileset_format_manifest() writes it.
 */
static int manifest_line(const char **text, const char *key, const char **val, size_t *len)
{
	size_t k = strlen(key);
	const char *p = *text;

	if (strncmp(p, key, k) || p[k] != ' ')
		return -EINVAL;
	*val = p + k + 1;
	*len = strcspn(*val, "\n");
	if ((*val)[*len] != '\n')
		return -EINVAL;
	*text = *val + *len + 1;
	return 0;
}

/* A decimal "KEY N" line with @lo <= N <= @hi. */
static int manifest_uint(const char **text, const char *key, uint64_t lo, uint64_t hi, uint64_t *out)
{
	const char *val;
	char num[24];
	size_t len;

	if (manifest_line(text, key, &val, &len) || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, val, len);
	num[len] = '\0';
	if (parse_uint(num, out) || *out < lo || *out > hi)
		return -EINVAL;
	return 0;
}

/* "shape X": a finite number above 0, in full (strtod's own reading, nothing after). */
static int manifest_shape(const char **text, double *out)
{
	const char *val;
	char num[40], *end;
	size_t len;

	if (manifest_line(text, "shape", &val, &len) || !len || len >= sizeof(num))
		return -EINVAL;
	memcpy(num, val, len);
	num[len] = '\0';
	*out = strtod(num, &end);
	return *end || num[0] == ' ' || !isfinite(*out) || !(*out > 0) ? -EINVAL : 0;
}

int fileset_parse_manifest(const char *text, struct fileset_params *p)
{
	uint64_t version, files, width, mean, prealloc, round;
	const char *kind;
	size_t klen;

	memset(p, 0, sizeof(*p));
	if (manifest_uint(&text, "appio-fileset", 1, 1, &version) ||
	    manifest_line(&text, "kind", &kind, &klen) || !klen || klen >= sizeof(p->kind) ||
	    strcspn(kind, " \t\v\f\r") < klen ||
	    manifest_uint(&text, "files", 1, FILESET_FILES_MAX, &files) ||
	    manifest_uint(&text, "width", 2, UINT32_MAX, &width) ||
	    manifest_uint(&text, "mean", 1, FILESET_MEAN_MAX, &mean) ||
	    manifest_shape(&text, &p->shape) ||
	    manifest_uint(&text, "prealloc", 0, 100, &prealloc) ||
	    manifest_uint(&text, "round", 1, UINT32_MAX, &round)) {
		memset(p, 0, sizeof(*p));
		return -EINVAL;
	}
	memcpy(p->kind, kind, klen);
	p->files = (uint32_t)files;
	p->width = (uint32_t)width;
	p->mean = mean;
	p->prealloc = (unsigned)prealloc;
	p->round = (uint32_t)round;
	return 0;
}

/* Write the manifest atomically (temporary name, rename). */
static int write_manifest(struct fileset *fs, char *err, size_t errlen)
{
	char text[512];
	int n = fileset_format_manifest(&fs->p, text, sizeof(text));
	int fd = openat(fs->rootfd, FILESET_MANIFEST ".tmp", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return fail(err, errlen, errno, "write", fs, FILESET_MANIFEST);
	bool ok = write(fd, text, (size_t)n) == n;
	int e = errno;
	close(fd);
	if (!ok || renameat(fs->rootfd, FILESET_MANIFEST ".tmp", fs->rootfd, FILESET_MANIFEST))
		return fail(err, errlen, ok ? errno : e, "write", fs, FILESET_MANIFEST);
	return 0;
}

/* The manifest in the root, if any: 0 and @p, -ENOENT, or -EINVAL if unreadable. */
static int read_manifest(const struct fileset *fs, struct fileset_params *p)
{
	char text[512];
	int fd = openat(fs->rootfd, FILESET_MANIFEST, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, text, sizeof(text) - 1);
	close(fd);
	if (n <= 0)
		return -EINVAL;
	text[n] = '\0';
	return fileset_parse_manifest(text, p);
}

/* Make every folder of the tree (those that exist are fine). */
static int make_dirs(struct fileset *fs, char *err, size_t errlen)
{
	uint64_t leaves = (fs->p.files + (uint64_t)fs->p.width - 1) / fs->p.width;
	uint64_t span[40];
	char path[PATH_MAX];

	/* span[l]: leaves under one folder of level l; the first of them makes it */
	span[fs->depth] = 1;
	for (unsigned l = fs->depth; l > 1; l--)
		span[l - 1] = span[l] * fs->p.width;
	for (uint64_t leaf = 0; leaf < leaves; leaf++) {
		if (stopped(fs, fs->p.stop, err, errlen))
			return -EINTR;
		for (unsigned l = 1; l <= fs->depth; l++) {
			if (leaf % span[l])
				continue;
			if (dir_prefix(fs, leaf, l, path, sizeof(path)) < 0)
				return fail(err, errlen, ENAMETOOLONG, "create", fs, "...");
			if (mkdirat(fs->rootfd, path, 0755) && errno != EEXIST)
				return fail(err, errlen, errno, "create folder", fs, path);
		}
	}
	return 0;
}

/* Fill @len bytes of @buf with new data for file @i: random words, changed per sector. */
static void refresh(uint64_t *buf, uint64_t len, uint32_t i, struct rng *r)
{
	uint64_t salt = rng_next(r) ^ i;
	for (uint64_t k = 0; k < len / 8; k += 64)      /* one word per 512-byte sector */
		buf[k] ^= salt + k;
}

/* Create entry @i with @size bytes of data. */
static int create_file(struct fileset *fs, uint32_t i, uint64_t size, uint64_t *buf,
		       struct rng *r, char *err, size_t errlen)
{
	char path[PATH_MAX];
	fileset_path(fs, i, path, sizeof(path));
	int fd = openat(fs->rootfd, path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

	if (fd < 0)
		return fail(err, errlen, errno, "create", fs, path);
	for (uint64_t off = 0; off < size;) {
		size_t n = size - off < BUILD_CHUNK ? (size_t)(size - off) : BUILD_CHUNK;
		refresh(buf, n, i, r);
		ssize_t w = pwrite(fd, buf, n, (off_t)off);
		if (w <= 0) {
			int e = w < 0 ? errno : ENOSPC;
			close(fd);
			snprintf(err, errlen, "--target: cannot write '%s/%s' at offset %llu: %s",
				 fs->root, path, (unsigned long long)off, strerror(e));
			return folder_rc(e);
		}
		off += (uint64_t)w;
	}
	close(fd);
	atomic_store(&fs->size[i], size);
	atomic_store(&fs->state[i], FILESET_PRESENT);
	fs->build_bytes += size;
	return 0;
}

static int delete_file(struct fileset *fs, uint32_t i, char *err, size_t errlen)
{
	char path[PATH_MAX];
	fileset_path(fs, i, path, sizeof(path));
	if (unlinkat(fs->rootfd, path, 0) && errno != ENOENT)
		return fail(err, errlen, errno, "delete", fs, path);
	atomic_store(&fs->state[i], 0);
	atomic_store(&fs->size[i], 0);
	return 0;
}

/* Entries in state @present (ignoring holds), listed into @out (files entries). */
static uint32_t list_entries(const struct fileset *fs, bool present, uint32_t *out)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < fs->p.files; i++)
		if (((atomic_load(&fs->state[i]) & FILESET_PRESENT) != 0) == present)
			out[n++] = i;
	return n;
}

uint32_t fileset_count(const struct fileset *fs)
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < fs->p.files; i++)
		n += atomic_load(&fs->state[i]) & FILESET_PRESENT;
	return n;
}

/* Create or delete random entries until @want are present. */
static int top_up(struct fileset *fs, struct rng *r, volatile sig_atomic_t *stop,
		  char *err, size_t errlen)
{
	uint32_t have = fileset_count(fs), *idx = xmalloc(fs->p.files * sizeof(*idx));
	bool grow = have < fs->want;
	uint32_t n = list_entries(fs, !grow, idx), todo = grow ? fs->want - have : have - fs->want;
	uint64_t *buf = grow && todo ? xaligned(4096, BUILD_CHUNK) : NULL;
	int rc = 0;

	for (uint64_t k = 0; k < BUILD_CHUNK / 8 && buf; k++)
		buf[k] = rng_next(r);
	/* a partial Fisher-Yates shuffle picks @todo distinct entries at random */
	for (uint32_t k = 0; k < todo && k < n && !rc; k++) {
		if (stopped(fs, stop, err, errlen)) {
			rc = -EINTR;
			break;
		}
		uint32_t j = k + (uint32_t)rng_below(r, n - k), t = idx[k];
		idx[k] = idx[j];
		idx[j] = t;
		rc = grow ? create_file(fs, idx[k], fileset_draw_size(fs, r), buf, r, err, errlen)
			  : delete_file(fs, idx[k], err, errlen);
	}
	free(buf);
	free(idx);
	return rc;
}

/* Read the entries' states and sizes from the folder. */
static int scan(struct fileset *fs, char *err, size_t errlen)
{
	char path[PATH_MAX];
	struct stat st;

	for (uint32_t i = 0; i < fs->p.files; i++) {
		if (!(i & 1023) && stopped(fs, fs->p.stop, err, errlen))
			return -EINTR;
		fileset_path(fs, i, path, sizeof(path));
		if (fstatat(fs->rootfd, path, &st, AT_SYMLINK_NOFOLLOW)) {
			if (errno != ENOENT && errno != ENOTDIR)
				return fail(err, errlen, errno, "use", fs, path);
		} else if (!S_ISREG(st.st_mode)) {
			return fail(err, errlen, EEXIST, "use (not a regular file)", fs, path);
		} else {
			atomic_store(&fs->state[i], FILESET_PRESENT);
			atomic_store(&fs->size[i], (uint64_t)st.st_size);
		}
	}
	return 0;
}

/* Remove the set an old manifest describes: its files, then its folders, deepest first. */
static void remove_old(struct fileset *fs, const struct fileset_params *old)
{
	struct fileset o = { .p = *old, .rootfd = fs->rootfd };
	char path[PATH_MAX];

	o.depth = fileset_depth(old->files, old->width);
	for (uint32_t i = 0; i < old->files; i++)
		if (fileset_path(&o, i, path, sizeof(path)) > 0)
			unlinkat(fs->rootfd, path, 0);
	uint64_t leaves = (old->files + (uint64_t)old->width - 1) / old->width;
	for (unsigned l = o.depth; l >= 1; l--)
		for (uint64_t leaf = 0; leaf < leaves; leaf++)
			if (dir_prefix(&o, leaf, l, path, sizeof(path)) > 0)
				unlinkat(fs->rootfd, path, AT_REMOVEDIR);
	unlinkat(fs->rootfd, FILESET_MANIFEST, 0);
}

static int check_params(const struct fileset_params *p, char *err, size_t errlen)
{
	const char *bad = !p->files ? "--files: at least 1" :
			  p->files > FILESET_FILES_MAX ? "--files: at most 100000000" :
			  p->width < 2 ? "--dir-width: at least 2" :
			  !p->mean ? "--mean-size: at least 1 byte" :
			  p->mean > FILESET_MEAN_MAX ? "--mean-size: at most 1T" :
			  p->prealloc > 100 ? "--prealloc: 0 to 100" : NULL;
	if (bad) {
		snprintf(err, errlen, "%s", bad);
		return -EINVAL;
	}
	return 0;
}

/* Arrays, root descriptor, gamma: everything but the files. */
static int prepare(struct fileset *fs, const char *root, const struct fileset_params *p,
		   char *err, size_t errlen)
{
	memset(fs, 0, sizeof(*fs));
	fs->rootfd = -1;
	fs->p = *p;
	if (check_params(p, err, errlen))
		return -EINVAL;
	if (gamma_init(&fs->gamma, p->shape, (double)p->mean)) {
		snprintf(err, errlen, "--gamma: the shape must be a number above 0 (e.g. 1.5)");
		return -EINVAL;
	}
	snprintf(fs->root, sizeof(fs->root), "%s", root);
	fs->rootfd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fs->rootfd < 0) {
		int e = errno;
		snprintf(err, errlen, "--target: cannot open folder '%s': %s", root, strerror(e));
		return folder_rc(e);
	}
	fs->depth = fileset_depth(p->files, p->width);
	fs->want = (uint32_t)((uint64_t)p->files * p->prealloc / 100);
	fs->state = xaligned(64, p->files * sizeof(*fs->state));
	fs->size = xaligned(64, p->files * sizeof(*fs->size));
	return 0;
}

int fileset_open(struct fileset *fs, const char *root, const struct fileset_params *p,
		 uint64_t seed, char *err, size_t errlen)
{
	struct fileset_params old;
	struct rng r;
	int rc = prepare(fs, root, p, err, errlen);

	if (rc)
		goto out;
	rng_seed(&r, seed, 0xf11e5e7);
	double t0 = now_s();
	int mrc = read_manifest(fs, &old);
	fs->reused = mrc == 0 && fileset_params_match(&old, p);
	if (mrc == 0 && !fs->reused)
		remove_old(fs, &old);
	rc = make_dirs(fs, err, errlen);
	/* without a manifest too: a build that failed or was interrupted left files
	   the set must know of, or creating them again would find them there */
	if (!rc)
		rc = scan(fs, err, errlen);
	if (!rc)
		rc = top_up(fs, &r, fs->p.stop, err, errlen);
	if (!rc && fs->build_bytes && syncfs(fs->rootfd))
		rc = fail(err, errlen, errno, "sync", fs, ".");
	if (!rc)
		rc = write_manifest(fs, err, errlen);
	fs->build_s = now_s() - t0;
out:
	if (rc)
		fileset_release(fs);
	return rc;
}

int fileset_settle(struct fileset *fs, struct rng *r, char *err, size_t errlen)
{
	/* after the run, interrupted or not: a few files, not to be cut short */
	int rc = top_up(fs, r, NULL, err, errlen);
	return rc ? rc : write_manifest(fs, err, errlen);
}

int fileset_pick(struct fileset *fs, struct rng *r, bool present, bool hold, uint32_t *idx)
{
	uint8_t want = present ? FILESET_PRESENT : 0;
	uint32_t n = fs->p.files, start = (uint32_t)rng_below(r, n);

	/* random probes find one fast when many qualify; the scan finds the last few */
	for (uint32_t k = 0; k < PICK_PROBES + n; k++) {
		uint32_t i = k < PICK_PROBES ? (uint32_t)rng_below(r, n) : (start + k - PICK_PROBES) % n;
		uint8_t s = atomic_load_explicit(&fs->state[i], memory_order_relaxed);
		if (s != want)
			continue;
		if (!hold || atomic_compare_exchange_strong(&fs->state[i], &s, (uint8_t)(s | FILESET_HELD))) {
			*idx = i;
			return 0;
		}
	}
	return -EAGAIN;
}

void fileset_put(struct fileset *fs, uint32_t idx, bool present, uint64_t size)
{
	atomic_store_explicit(&fs->size[idx], present ? size : 0, memory_order_relaxed);
	atomic_store_explicit(&fs->state[idx], present ? FILESET_PRESENT : 0, memory_order_release);
}

void fileset_release(struct fileset *fs)
{
	if (!fs)
		return;
	if (fs->rootfd >= 0)
		close(fs->rootfd);
	fs->rootfd = -1;
	free(fs->state);
	free(fs->size);
	fs->state = NULL;
	fs->size = NULL;
}
