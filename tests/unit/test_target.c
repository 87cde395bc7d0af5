/*
 * test_target.c - target_open() against real files, a directory, a FIFO and,
 * when run as root, a loop device.
 *
 * Files live in a scratch directory under $TMPDIR (or /tmp); the O_DIRECT
 * cases use one under ./build when it exists, because /tmp may be a tmpfs.
 */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/loop.h>

#include "appio/target.h"
#include "check.h"

#define MIB (UINT64_C(1) << 20)

static char scratch[PATH_MAX];  /* buffered cases */
static char directdir[PATH_MAX]; /* O_DIRECT cases */

static const char *path_in(const char *dir, const char *name)
{
	static char buf[4][PATH_MAX];
	static int next;
	char *p = buf[next++ % 4];

	snprintf(p, PATH_MAX, "%s/%s", dir, name);
	return p;
}

static int write_file(const char *path, const void *data, size_t n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ssize_t w = fd < 0 ? -1 : write(fd, data, n);

	if (fd >= 0)
		close(fd);
	return w == (ssize_t)n ? 0 : -1;
}

static off_t file_bytes(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? st.st_size : -1;
}

static int read_at(const char *path, void *buf, size_t n, off_t off)
{
	int fd = open(path, O_RDONLY);
	ssize_t r = fd < 0 ? -1 : pread(fd, buf, n, off);

	if (fd >= 0)
		close(fd);
	return r == (ssize_t)n ? 0 : -1;
}

static int is_pow2(unsigned x)
{
	return x && !(x & (x - 1));
}

static struct target_open_args args_for(const char *path, uint64_t size, bool direct)
{
	return (struct target_open_args){
		.path = path, .size = size, .write = true, .direct = direct,
		.create = true, .seed = 42,
	};
}

static void test_kind_names(void)
{
	CHECK(!strcmp(target_kind_name(TARGET_FILE), "file"), "%s", target_kind_name(TARGET_FILE));
	CHECK(!strcmp(target_kind_name(TARGET_BLOCK), "block"), "%s", target_kind_name(TARGET_BLOCK));
	CHECK(!strcmp(target_kind_name(TARGET_DIR), "dir"), "%s", target_kind_name(TARGET_DIR));
}

/* A new file is created, laid out to 4 MiB with random, non-repeating data. */
static void check_new_file(const char *dir, bool direct)
{
	const char *path = path_in(dir, direct ? "new-direct.dat" : "new.dat");
	struct target_open_args a = args_for(path, 4 * MIB, direct);
	static unsigned char b1[4096], b2[4096], zero[4096];
	struct target t;
	char err[256] = "";
	int rc = target_open(&t, &a, err, sizeof(err));

	CHECK(rc == 0, "rc %d: %s", rc, err);
	CHECK(t.kind == TARGET_FILE && t.fd >= 0, "kind %d fd %d", t.kind, t.fd);
	CHECK(t.direct == direct, "direct %d", t.direct);
	CHECK(t.size == 4 * MIB, "size %llu", (unsigned long long)t.size);
	CHECK(t.created, "not marked created");
	CHECK(t.layout_bytes == 4 * MIB, "layout_bytes %llu", (unsigned long long)t.layout_bytes);
	CHECK(t.layout_s > 0, "layout_s %f", t.layout_s);
	CHECK(is_pow2(t.lbs) && t.pbs >= t.lbs, "lbs %u pbs %u", t.lbs, t.pbs);
	CHECK(file_bytes(path) == (off_t)(4 * MIB), "on disk %lld", (long long)file_bytes(path));
	target_close(&t);
	CHECK(t.fd == -1, "fd %d after close", t.fd);
	CHECK(read_at(path, b1, sizeof(b1), 0) == 0 && read_at(path, b2, sizeof(b2), 3 * MIB) == 0,
	      "cannot read back");
	CHECK(memcmp(b1, zero, sizeof(b1)) && memcmp(b2, zero, sizeof(b2)), "zeros laid out");
	CHECK(memcmp(b1, b2, sizeof(b1)), "two 4 KiB blocks are equal");
}

static void test_new_file_layout(void)
{
	check_new_file(scratch, false);
}

static void test_new_file_layout_direct(void)
{
	check_new_file(directdir, true);
}

/* The same seed lays out the same bytes; another seed other bytes. */
static void test_layout_seeded(void)
{
	unsigned char a[4096], b[4096], c[4096];
	const char *p[3] = { path_in(scratch, "s1"), path_in(scratch, "s2"), path_in(scratch, "s3") };
	uint64_t seeds[3] = { 7, 7, 8 };
	char err[256];

	for (int i = 0; i < 3; i++) {
		struct target_open_args args = args_for(p[i], MIB, false);
		struct target t;
		args.seed = seeds[i];
		CHECK(target_open(&t, &args, err, sizeof(err)) == 0, "%s", err);
		target_close(&t);
	}
	CHECK(read_at(p[0], a, 4096, 8192) == 0 && read_at(p[1], b, 4096, 8192) == 0 &&
	      read_at(p[2], c, 4096, 8192) == 0, "cannot read back");
	CHECK(!memcmp(a, b, 4096), "same seed, different data");
	CHECK(memcmp(a, c, 4096), "different seeds, same data");
}

/* size 0 keeps an existing file's size; a smaller size caps without truncating. */
static void test_existing_file(void)
{
	const char *path = path_in(scratch, "existing.dat");
	static unsigned char data[100000];
	struct target t;
	char err[256];
	struct target_open_args a = args_for(path, 0, false);

	memset(data, 'x', sizeof(data));
	CHECK(write_file(path, data, sizeof(data)) == 0, "cannot write %s", path);
	CHECK(target_open(&t, &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(t.size == sizeof(data), "size %llu", (unsigned long long)t.size);
	CHECK(!t.created && t.layout_bytes == 0 && t.layout_s == 0, "laid out an existing file");
	target_close(&t);

	a.size = 4096;
	CHECK(target_open(&t, &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(t.size == 4096, "size %llu", (unsigned long long)t.size);
	CHECK(file_bytes(path) == sizeof(data), "truncated to %lld", (long long)file_bytes(path));
	target_close(&t);

	a.direct = true;
	a.size = 0;
	a.path = path_in(directdir, "existing.dat");
	CHECK(write_file(a.path, data, sizeof(data)) == 0, "cannot write %s", a.path);
	CHECK(target_open(&t, &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(t.size % t.lbs == 0 && t.size > sizeof(data) - t.lbs, "direct size %llu lbs %u",
	      (unsigned long long)t.size, t.lbs);
	target_close(&t);
}

/* A short file grows to the size asked; its existing bytes stay. */
static void check_extend(const char *dir, bool direct)
{
	const char *path = path_in(dir, direct ? "short-direct.dat" : "short.dat");
	unsigned char head[1000], back[1000];
	struct target_open_args a = args_for(path, MIB, direct);
	struct target t;
	char err[256];

	memset(head, 'A', sizeof(head));
	CHECK(write_file(path, head, sizeof(head)) == 0, "cannot write %s", path);
	CHECK(target_open(&t, &a, err, sizeof(err)) == 0, "%s", err);
	CHECK(t.size == MIB && !t.created, "size %llu created %d", (unsigned long long)t.size, t.created);
	CHECK(t.layout_bytes >= MIB - sizeof(head) && t.layout_bytes <= MIB, "layout_bytes %llu",
	      (unsigned long long)t.layout_bytes);
	target_close(&t);
	CHECK(file_bytes(path) == (off_t)MIB, "on disk %lld", (long long)file_bytes(path));
	CHECK(read_at(path, back, sizeof(back), 0) == 0 && !memcmp(head, back, sizeof(head)),
	      "existing bytes overwritten");
}

static void test_extend_short_file(void)
{
	check_extend(scratch, false);
	check_extend(directdir, true);
}

static void test_missing_file(void)
{
	const char *path = path_in(scratch, "missing.dat");
	struct target_open_args a = args_for(path, 0, false);
	struct target t;
	char err[256] = "";
	int rc = target_open(&t, &a, err, sizeof(err));

	CHECK(rc == -ENOENT, "rc %d", rc);
	CHECK(strstr(err, path) && strstr(err, "--size"), "message: %s", err);
	CHECK(t.fd == -1, "fd %d", t.fd);
	target_close(&t);

	a.size = MIB;
	a.create = false;
	rc = target_open(&t, &a, err, sizeof(err));
	CHECK(rc == -ENOENT && strstr(err, path), "rc %d: %s", rc, err);
	CHECK(access(path, F_OK) != 0, "created without create");
}

static void test_empty_file(void)
{
	const char *path = path_in(scratch, "empty.dat");
	struct target_open_args a = args_for(path, 0, false);
	struct target t;
	char err[256] = "";
	int rc;

	CHECK(write_file(path, "", 0) == 0, "cannot create %s", path);
	rc = target_open(&t, &a, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "empty") && strstr(err, path), "rc %d: %s", rc, err);
}

/* Rounding a tiny O_DIRECT size to 0 fails, and the file it created goes away. */
static void test_direct_too_small(void)
{
	const char *path = path_in(directdir, "tiny.dat");
	struct target_open_args a = args_for(path, 100, true);
	struct target t;
	char err[256] = "";
	int rc = target_open(&t, &a, err, sizeof(err));

	CHECK(rc == -EINVAL && strstr(err, path), "rc %d: %s", rc, err);
	CHECK(t.fd == -1, "fd %d", t.fd);
	CHECK(access(path, F_OK) != 0, "left the new file behind");
}

static void test_directory(void)
{
	struct target_open_args a = args_for(scratch, 0, false);
	struct target t;
	char err[256] = "";
	int rc = target_open(&t, &a, err, sizeof(err));

	CHECK(rc == 0, "rc %d: %s", rc, err);
	CHECK(t.kind == TARGET_DIR && t.fd == -1, "kind %d fd %d", t.kind, t.fd);
	CHECK(is_pow2(t.lbs) && t.pbs >= t.lbs, "lbs %u pbs %u", t.lbs, t.pbs);
	CHECK(t.rotational >= -1 && t.rotational <= 1, "rotational %d", t.rotational);
	target_close(&t);
}

static void test_fifo(void)
{
	const char *path = path_in(scratch, "fifo");
	struct target_open_args a = args_for(path, MIB, false);
	struct target t;
	char err[256] = "";
	int rc;

	CHECK(mkfifo(path, 0644) == 0, "mkfifo: %s", strerror(errno));
	rc = target_open(&t, &a, err, sizeof(err));
	CHECK(rc == -EINVAL, "rc %d", rc);
	CHECK(strstr(err, path) && strstr(err, "not a regular file"), "message: %s", err);
	CHECK(t.fd == -1, "fd %d", t.fd);
}

/* ---- loop device (root only) ---- */

/* Attach @file to a free loop device; its path into @dev. -1 if none. */
static int loop_attach(const char *file, char *dev, size_t len)
{
	int ctl = open("/dev/loop-control", O_RDWR | O_CLOEXEC);
	int ffd = open(file, O_RDWR | O_CLOEXEC);
	int rc = -1;

	for (int tries = 0; ctl >= 0 && ffd >= 0 && rc < 0 && tries < 8; tries++) {
		int n = ioctl(ctl, LOOP_CTL_GET_FREE);
		snprintf(dev, len, "/dev/loop%d", n);
		int lfd = n < 0 ? -1 : open(dev, O_RDWR | O_CLOEXEC);
		if (lfd >= 0 && ioctl(lfd, LOOP_SET_FD, ffd) == 0)
			rc = 0;
		if (lfd >= 0)
			close(lfd);
	}
	if (ctl >= 0)
		close(ctl);
	if (ffd >= 0)
		close(ffd);
	return rc;
}

static void loop_detach(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_CLOEXEC);

	if (fd >= 0) {
		ioctl(fd, LOOP_CLR_FD, 0);
		close(fd);
	}
}

#ifdef HAVE_BLKID
/* An MBR with one Linux partition: enough for libblkid to see a "dos" table. */
static int write_mbr(const char *dev)
{
	unsigned char s[512] = { 0 };
	uint32_t start = 2048, count = 2048;
	int fd = open(dev, O_WRONLY | O_CLOEXEC);
	int rc;

	s[446 + 4] = 0x83;
	memcpy(s + 446 + 8, &start, 4);
	memcpy(s + 446 + 12, &count, 4);
	s[510] = 0x55;
	s[511] = 0xaa;
	rc = fd >= 0 && pwrite(fd, s, sizeof(s), 0) == (ssize_t)sizeof(s) && fsync(fd) == 0 ? 0 : -1;
	if (fd >= 0)
		close(fd);
	return rc;
}
#endif

static void check_blank_device(const char *dev)
{
	struct target_open_args a = args_for(dev, 0, true);
	struct target t;
	char err[256] = "", what[256] = "";
	int rc = target_device_in_use(dev, what, sizeof(what));

	CHECK(rc == 0, "blank device in use (%d): %s", rc, what);
	rc = target_open(&t, &a, err, sizeof(err));
	CHECK(rc == 0, "rc %d: %s", rc, err);
	CHECK(t.kind == TARGET_BLOCK && t.fd >= 0 && t.size == 8 * MIB, "kind %d fd %d size %llu",
	      t.kind, t.fd, (unsigned long long)t.size);
	CHECK(is_pow2(t.lbs) && t.pbs >= t.lbs, "lbs %u pbs %u", t.lbs, t.pbs);
	CHECK(!strncmp(t.dev, "loop", 4) && !t.created && !t.layout_bytes, "dev '%s'", t.dev);
	target_close(&t);

	a.size = MIB;
	CHECK(target_open(&t, &a, err, sizeof(err)) == 0 && t.size == MIB, "capped: %s", err);
	target_close(&t);
	a.size = 9 * MIB;
	rc = target_open(&t, &a, err, sizeof(err));
	CHECK(rc == -EINVAL && strstr(err, "9437184") && strstr(err, "8388608"), "rc %d: %s", rc, err);
}

static void check_used_device(const char *dev)
{
	struct target_open_args a = args_for(dev, 0, false);
	struct target t;
	char err[256] = "", what[256] = "";
	int rc, excl = open(dev, O_RDONLY | O_EXCL | O_CLOEXEC);

	/* Held exclusively, as a mount holds it. */
	rc = target_device_in_use(dev, what, sizeof(what));
	CHECK(excl >= 0 && rc == 1 && strstr(what, "in use"), "rc %d: %s", rc, what);
	if (excl >= 0)
		close(excl);
#ifdef HAVE_BLKID
	CHECK(write_mbr(dev) == 0, "cannot write the MBR");
	rc = target_device_in_use(dev, what, sizeof(what));
	CHECK(rc == 1 && strstr(what, "dos partition table"), "rc %d: %s", rc, what);
	a.write = true;
	rc = target_open(&t, &a, err, sizeof(err));
	CHECK(rc == -EBUSY && strstr(err, "--force") && strstr(err, dev), "rc %d: %s", rc, err);
	CHECK(t.fd == -1, "fd %d", t.fd);
	a.force = true;
	CHECK(target_open(&t, &a, err, sizeof(err)) == 0, "forced: %s", err);
	target_close(&t);
	a.write = false, a.force = false;
#endif
	CHECK(target_open(&t, &a, err, sizeof(err)) == 0, "read-only: %s", err);
	target_close(&t);
}

static void test_loop_device(void)
{
	const char *file = path_in(scratch, "loop.img");
	char dev[64];

	if (geteuid() != 0 || write_file(file, "", 0) < 0 || truncate(file, (off_t)(8 * MIB)) < 0 ||
	    loop_attach(file, dev, sizeof(dev)) < 0)
		SKIP("needs root and a free loop device");
	check_blank_device(dev);
	check_used_device(dev);
	loop_detach(dev);
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st, (void)flag, (void)ftw;
	return remove(path);
}

/* Scratch directories; the O_DIRECT one under ./build when it exists. */
static int make_dirs(void)
{
	const char *tmp = getenv("TMPDIR");
	struct stat st;

	snprintf(scratch, sizeof(scratch), "%s/appio-target.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(scratch))
		return -1;
	if (stat("build", &st) == 0 && S_ISDIR(st.st_mode)) {
		snprintf(directdir, sizeof(directdir), "build/appio-target.XXXXXX");
		return mkdtemp(directdir) ? 0 : -1;
	}
	snprintf(directdir, sizeof(directdir), "%s", scratch);
	return 0;
}

int main(void)
{
	if (make_dirs() < 0) {
		perror("test_target: cannot make a scratch directory");
		return 1;
	}
	RUN(test_kind_names);
	RUN(test_new_file_layout);
	RUN(test_new_file_layout_direct);
	RUN(test_layout_seeded);
	RUN(test_existing_file);
	RUN(test_extend_short_file);
	RUN(test_missing_file);
	RUN(test_empty_file);
	RUN(test_direct_too_small);
	RUN(test_directory);
	RUN(test_fifo);
	RUN(test_loop_device);
	if (strcmp(directdir, scratch))
		nftw(directdir, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	nftw(scratch, rm_entry, 8, FTW_DEPTH | FTW_PHYS);
	return check_done();
}
