/*
 * target.c - the file, block device or directory a run works on.
 *
 * Opening a target reads the facts a result records: the kind and usable
 * size, the O_DIRECT alignment (statx STATX_DIOALIGN for files, the block-size
 * ioctls for devices) and, from sysfs, the model, rotational flag and I/O
 * scheduler of the disk underneath. A new or short regular file is laid out
 * to its full size before the run, so reads hit allocated, written blocks as
 * they would in an application's data file. A block device that is mounted,
 * held, or carries a file system or partition table is not written to unless
 * forced: one mistyped --target must not cost anyone their data.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>
#include <linux/fiemap.h>
#include <linux/fs.h>

#ifdef HAVE_BLKID
#include <blkid/blkid.h>
#endif

#include "appio/opt.h"
#include "appio/rand.h"
#include "appio/target.h"
#include "fill.h"

#define LAYOUT_CHUNK  (1u << 20)
#define LAYOUT_STREAM UINT64_C(0x6c61796f7574)  /* "layout": a PRNG stream of its own */

const char *target_kind_name(enum target_kind k)
{
	switch (k) {
	case TARGET_FILE:
		return "file";
	case TARGET_BLOCK:
		return "block";
	case TARGET_DIR:
		return "dir";
	}
	return "unknown";
}

void target_close(struct target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}

/* ---- sysfs ------------------------------------------------------------ */

static void trim(char *s)
{
	size_t n = strlen(s);
	size_t skip = strspn(s, " \t\n");

	while (n > skip && strchr(" \t\n", s[n - 1]))
		n--;
	memmove(s, s + skip, n - skip);
	s[n - skip] = '\0';
}

/* Read the first line of @dir/@name, trimmed, into @buf; -errno if absent. */
static int sysfs_read(const char *dir, const char *name, char *buf, size_t len)
{
	char path[PATH_MAX];
	FILE *f;

	if (snprintf(path, sizeof(path), "%s/%s", dir, name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	f = fopen(path, "re");
	if (!f)
		return -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	trim(buf);
	return 0;
}

static unsigned sysfs_uint(const char *dir, const char *name)
{
	char buf[32];

	if (sysfs_read(dir, name, buf, sizeof(buf)) < 0)
		return 0;
	return (unsigned)strtoul(buf, NULL, 10);
}

/* The canonical sysfs directory of block device @d, e.g. /sys/devices/.../vda. */
static int sysfs_dir(dev_t d, char *dir)
{
	char link[64];

	snprintf(link, sizeof(link), "/sys/dev/block/%u:%u", major(d), minor(d));
	return realpath(link, dir) ? 0 : -errno;
}

/* "none [mq-deadline] kyber" -> "mq-deadline"; no brackets -> "none". */
static void parse_scheduler(const char *line, char *out, size_t len)
{
	const char *open = strchr(line, '[');
	const char *close = open ? strchr(open, ']') : NULL;

	if (!close) {
		snprintf(out, len, "none");
		return;
	}
	snprintf(out, len, "%.*s", (int)(close - open - 1), open + 1);
}

/*
 * Fill dev, model, rotational, scheduler and the sysfs block sizes from block
 * device @d. A partition has no queue or model of its own: read those from
 * the disk that holds it. A virtio disk has no model file; model stays "".
 */
static void read_dev_facts(struct target *t, dev_t d)
{
	char dir[PATH_MAX], buf[128];

	if (sysfs_dir(d, dir) < 0)
		return;
	snprintf(t->dev, sizeof(t->dev), "%s", strrchr(dir, '/') + 1);
	if (sysfs_read(dir, "partition", buf, sizeof(buf)) == 0)
		*strrchr(dir, '/') = '\0';
	if (sysfs_read(dir, "device/model", buf, sizeof(buf)) == 0)
		snprintf(t->model, sizeof(t->model), "%s", buf);
	if (sysfs_read(dir, "queue/rotational", buf, sizeof(buf)) == 0 &&
	    (buf[0] == '0' || buf[0] == '1'))
		t->rotational = buf[0] - '0';
	if (sysfs_read(dir, "queue/scheduler", buf, sizeof(buf)) == 0)
		parse_scheduler(buf, t->scheduler, sizeof(t->scheduler));
	t->lbs = sysfs_uint(dir, "queue/logical_block_size");
	t->pbs = sysfs_uint(dir, "queue/physical_block_size");
}

/* Defaults when neither the file system nor sysfs said: 512, as the kernel's. */
static void settle_block_sizes(struct target *t)
{
	if (!t->lbs)
		t->lbs = 512;
	if (t->pbs < t->lbs)
		t->pbs = t->lbs;
}

/* ---- the in-use guard ------------------------------------------------- */

/* First entry of directory @path other than . and ..; 1 if found, else 0. */
static int first_entry(const char *path, char *name, size_t len)
{
	DIR *d = opendir(path);
	struct dirent *e;
	int found = 0;

	if (!d)
		return 0;
	while (!found && (e = readdir(d))) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(name, len, "%s", e->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/* Is the disk or partition at sysfs @dir held by another device (dm, md)? */
static int held(const char *dir, const char *subject, char *what, size_t len)
{
	char path[PATH_MAX], holder[NAME_MAX + 1];

	if (snprintf(path, sizeof(path), "%s/holders", dir) >= (int)sizeof(path) ||
	    !first_entry(path, holder, sizeof(holder)))
		return 0;
	snprintf(what, len, "%s is held by '%s'", subject, holder);
	return 1;
}

/* Is the partition at sysfs @dir held or mounted? */
static int partition_busy(const char *dir, char *what, size_t len)
{
	const char *name = strrchr(dir, '/') + 1;
	char subject[NAME_MAX + 32], node[NAME_MAX + 8];
	int fd;

	snprintf(subject, sizeof(subject), "its partition '%s'", name);
	if (held(dir, subject, what, len))
		return 1;
	/* Not every kernel fails a disk's exclusive open while a partition is mounted. */
	snprintf(node, sizeof(node), "/dev/%s", name);
	fd = open(node, O_RDONLY | O_EXCL | O_CLOEXEC);
	if (fd >= 0)
		close(fd);
	if (fd >= 0 || errno != EBUSY)
		return 0;
	snprintf(what, len, "%s is mounted or in use", subject);
	return 1;
}

/* Is block device @d, or any of its partitions, held or mounted? */
static int holders_busy(dev_t d, char *what, size_t len)
{
	char dir[PATH_MAX], sub[PATH_MAX], buf[32];
	struct dirent *e;
	DIR *dp;
	int busy;

	if (sysfs_dir(d, dir) < 0)
		return 0;
	busy = held(dir, "it", what, len);
	dp = busy ? NULL : opendir(dir);
	while (dp && !busy && (e = readdir(dp))) {
		if (e->d_name[0] == '.' ||
		    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		if (sysfs_read(sub, "partition", buf, sizeof(buf)) == 0)
			busy = partition_busy(sub, what, len);
	}
	if (dp)
		closedir(dp);
	return busy;
}

#ifdef HAVE_BLKID
static const char *article(const char *word)
{
	return strchr("aeiouxAEIOUX", word[0]) ? "an" : "a";
}

/* Name the signature libblkid found: a file system, RAID member, table... */
static void describe_probe(blkid_probe pr, char *what, size_t len)
{
	const char *type = NULL, *usage = NULL;

	if (blkid_probe_lookup_value(pr, "TYPE", &type, NULL) == 0) {
		blkid_probe_lookup_value(pr, "USAGE", &usage, NULL);
		if (usage && !strcmp(usage, "filesystem"))
			snprintf(what, len, "it carries %s %s file system", article(type), type);
		else
			snprintf(what, len, "it carries %s %s signature", article(type), type);
	} else if (blkid_probe_lookup_value(pr, "PTTYPE", &type, NULL) == 0) {
		snprintf(what, len, "it carries %s %s partition table", article(type), type);
	} else {
		snprintf(what, len, "it carries an unnamed signature");
	}
}

/* Look for file-system, RAID and partition-table signatures. */
static int probe_signatures(const char *path, char *what, size_t len)
{
	blkid_probe pr;
	int rc;

	errno = 0;
	pr = blkid_new_probe_from_filename(path);
	if (!pr) {
		int e = errno ? errno : EIO;
		snprintf(what, len, "cannot probe '%s' for signatures: %s", path, strerror(e));
		return -e;
	}
	blkid_probe_enable_superblocks(pr, 1);
	blkid_probe_set_superblocks_flags(pr, BLKID_SUBLKS_TYPE | BLKID_SUBLKS_USAGE);
	blkid_probe_enable_partitions(pr, 1);
	rc = blkid_do_safeprobe(pr);
	if (rc == 0) {
		describe_probe(pr, what, len);
		rc = 1;
	} else if (rc == -2) {
		snprintf(what, len, "it carries several conflicting signatures");
		rc = 1;
	} else if (rc == 1) {
		rc = 0;         /* nothing found */
	} else {
		snprintf(what, len, "cannot probe '%s' for signatures", path);
		rc = -EIO;
	}
	blkid_free_probe(pr);
	return rc;
}
#else
static int probe_signatures(const char *path, char *what, size_t len)
{
	(void)path, (void)what, (void)len;
	return 0;       /* without libblkid, the O_EXCL open is the only guard */
}
#endif

int target_device_in_use(const char *path, char *what, size_t whatlen)
{
	struct stat st;
	int e, busy;
	/* An exclusive open fails while the kernel has the device mounted or claimed. */
	int fd = open(path, O_RDONLY | O_EXCL | O_CLOEXEC);

	if (fd < 0) {
		e = errno;
		if (e == EBUSY) {
			snprintf(what, whatlen, "it is mounted or in use");
			return 1;
		}
		snprintf(what, whatlen, "cannot open '%s': %s", path, strerror(e));
		return -e;
	}
	e = fstat(fd, &st) < 0 ? errno : 0;
	close(fd);
	if (e) {
		snprintf(what, whatlen, "cannot stat '%s': %s", path, strerror(e));
		return -e;
	}
	busy = S_ISBLK(st.st_mode) ? holders_busy(st.st_rdev, what, whatlen) : 0;
	return busy ? busy : probe_signatures(path, what, whatlen);
}

/* ---- opening ---------------------------------------------------------- */

/* Open @path for I/O; O_DIRECT's usual refusal gets a message with the way out. */
static int open_io(const char *path, int flags, bool direct, char *err, size_t errlen)
{
	int fd = open(path, flags | O_CLOEXEC | (direct ? O_DIRECT : 0));
	int e = errno;

	if (fd >= 0)
		return fd;
	if (direct && e == EINVAL)
		snprintf(err, errlen, "cannot open '%s' with O_DIRECT: its file system "
			 "does not support direct I/O (use --direct 0)", path);
	else
		snprintf(err, errlen, "cannot open '%s': %s", path, strerror(e));
	return -e;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int pwrite_full(int fd, const unsigned char *p, size_t n, uint64_t off)
{
	while (n) {
		ssize_t w = pwrite(fd, p, n, (off_t)off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return w < 0 ? -errno : -EIO;
		p += w, n -= (size_t)w, off += (uint64_t)w;
	}
	return 0;
}

/*
 * Write @from..t->size of @fd in 1 MiB sequential chunks, then fdatasync.
 * With O_DIRECT the first chunk starts at the block holding @from; that
 * block's existing bytes are read back first so none are lost.
 */
static int layout_write(struct target *t, const struct target_open_args *a, int fd,
			struct rng *r, uint64_t from, unsigned char *buf, uint64_t *at)
{
	uint64_t start = t->direct ? from - from % t->lbs : from;
	size_t head = (size_t)(from - start), n;
	int rc = 0;

	*at = start;
	if (head && pread(fd, buf, t->lbs, (off_t)start) < (ssize_t)head)
		return -EIO;
	/* random bytes once, then fresh sector heads per chunk (fill.h): nothing repeats */
	fill_random(r, buf + head, LAYOUT_CHUNK - head);
	for (uint64_t off = start; off < t->size && !rc; off += n, head = 0) {
		if (a->stop && *a->stop)
			return -EINTR;
		n = (size_t)(t->size - off < LAYOUT_CHUNK ? t->size - off : LAYOUT_CHUNK);
		if (off != start)
			fill_refresh(r, buf, n);
		*at = off;
		rc = pwrite_full(fd, buf, n, off);
	}
	if (!rc)
		*at = t->size;
	if (!rc && fdatasync(fd) < 0)
		rc = -errno;
	if (!rc)
		t->layout_bytes = t->size - start;
	return rc;
}

/*
 * Lay the file out from its current end @from to t->size and time it. A
 * buffered layout is dropped from the page cache afterwards so the run does
 * not start with its data cached by appio's own writes.
 */
static int layout(struct target *t, const struct target_open_args *a, uint64_t from,
		  char *err, size_t errlen)
{
	size_t align = t->lbs > 4096 ? t->lbs : 4096;
	unsigned char *buf = NULL;
	struct rng r;
	double t0 = now_s();
	int rc, fd;

	/* A descriptor of its own: the run's may be read-only. */
	fd = open_io(t->path, O_RDWR, t->direct, err, errlen);
	if (fd < 0)
		return fd;
	if (posix_memalign((void **)&buf, align, LAYOUT_CHUNK)) {
		close(fd);
		snprintf(err, errlen, "cannot allocate %u bytes to lay out '%s'", LAYOUT_CHUNK, t->path);
		return -ENOMEM;
	}
	rng_seed(&r, a->seed, LAYOUT_STREAM);
	uint64_t at;
	rc = layout_write(t, a, fd, &r, from, buf, &at);
	if (rc == -EINTR) {
		snprintf(err, errlen, "interrupted while laying out '%s' (at offset %llu of %llu)",
			 t->path, (unsigned long long)at, (unsigned long long)t->size);
	} else if (rc) {
		snprintf(err, errlen, "cannot lay out '%s' to %llu bytes: %s at offset %llu: %s",
			 t->path, (unsigned long long)t->size, at == t->size ? "fdatasync" : "write",
			 (unsigned long long)at, strerror(-rc));
		/* Give back a half-written extension's space; the write's error is reported. */
		int trc = ftruncate(fd, (off_t)from);
		(void)trc;
	} else if (!t->direct) {
		posix_fadvise(fd, (off_t)from, (off_t)(t->size - from), POSIX_FADV_DONTNEED);
	}
	t->layout_s = rc ? 0 : now_s() - t0;
	free(buf);
	close(fd);
	return rc;
}

/*
 * The O_DIRECT alignment of a file is its file system's business (statx
 * STATX_DIOALIGN); the disk's logical block size is the fallback.
 */
static int file_block_sizes(struct target *t, char *err, size_t errlen)
{
#ifdef STATX_DIOALIGN
	struct statx sx;

	if (statx(AT_FDCWD, t->path, 0, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN)) {
		if (t->direct && !sx.stx_dio_offset_align) {
			snprintf(err, errlen, "'%s' does not support direct I/O (use --direct 0)",
				 t->path);
			return -EINVAL;
		}
		if (sx.stx_dio_offset_align) {
			t->lbs = sx.stx_dio_offset_align;
			if (sx.stx_dio_mem_align > t->lbs)
				t->lbs = sx.stx_dio_mem_align;
		}
	}
#else
	(void)err, (void)errlen;
#endif
	settle_block_sizes(t);
	return 0;
}

/*
 * The bytes a file target uses: the wanted size, else the current one; whole
 * logical blocks only with O_DIRECT. A larger file is used, not truncated.
 */
static int file_size(struct target *t, const struct target_open_args *a, uint64_t cur,
		     char *err, size_t errlen)
{
	uint64_t want = a->size ? a->size : cur;

	if (!want) {
		snprintf(err, errlen, "target '%s' is empty (give --size)", t->path);
		return -EINVAL;
	}
	if (t->direct)
		want -= want % t->lbs;
	if (!want) {
		snprintf(err, errlen, "target '%s' is smaller than one logical block "
			 "(%u bytes), the smallest O_DIRECT transfer", t->path, t->lbs);
		return -EINVAL;
	}
	t->size = want;
	return 0;
}

/*
 * A size the file system cannot hold is bad input, said before writing: not
 * a layout that fills the disk and then fails. (It may still fill up while
 * the layout runs, with other writers: that is a failed run.)
 */
static int check_room(const struct target *t, uint64_t from, char *err, size_t errlen)
{
	struct statvfs sv;
	char need[32], have[32];

	if (statvfs(t->path, &sv) || (uint64_t)sv.f_bavail > UINT64_MAX / sv.f_frsize)
		return 0;               /* unknown: the layout will tell */
	uint64_t avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	if (t->size - from <= avail)
		return 0;
	snprintf(err, errlen, "'%s' needs %s more for a size of %s, but its file system has %.1fG free "
		 "(give a smaller --size)", t->path, fmt_size(t->size - from, need, sizeof(need)),
		 fmt_size(t->size, have, sizeof(have)), (double)avail / (1 << 30));
	return -EINVAL;
}

/*
 * Load the file's whole extent map into the kernel's cache now. After a
 * page-cache drop ext4 may hold a file's map in pieces, taken as I/O asked
 * for them, and a direct write that starts in the last block of a piece
 * goes out as two requests: the InnoDB model's log writes (each rewrites
 * the last, partly filled 512-byte block) came to 1.8 write requests each
 * on a cold 4 GiB target, MariaDB's to its own log file to one (traced with
 * the block layer's tracepoints), and a drive throttled by I/Os a second
 * counted both (docs/fidelity-history.md, "A throttled drive's cold start"). File
 * systems without FIEMAP_FLAG_CACHE refuse it, which changes nothing.
 */
static void precache_extents(int fd)
{
	struct fiemap fm = { .fm_length = FIEMAP_MAX_OFFSET, .fm_flags = FIEMAP_FLAG_CACHE };

	(void)ioctl(fd, FS_IOC_FIEMAP, &fm);
}

static int open_file(struct target *t, const struct target_open_args *a,
		     const struct stat *st, char *err, size_t errlen)
{
	int rc;

	t->kind = TARGET_FILE;
	read_dev_facts(t, st->st_dev);
	rc = file_block_sizes(t, err, errlen);
	if (!rc)
		rc = file_size(t, a, (uint64_t)st->st_size, err, errlen);
	if (!rc && (uint64_t)st->st_size < t->size)
		rc = check_room(t, (uint64_t)st->st_size, err, errlen);
	if (!rc && (uint64_t)st->st_size < t->size)
		rc = layout(t, a, (uint64_t)st->st_size, err, errlen);
	if (rc)
		return rc;
	rc = open_io(t->path, a->write ? O_RDWR : O_RDONLY, t->direct, err, errlen);
	if (rc < 0)
		return rc;
	t->fd = rc;
	precache_extents(t->fd);
	return 0;
}

int target_grow(struct target *t, uint64_t size, uint64_t seed, volatile sig_atomic_t *stop,
		char *err, size_t errlen)
{
	/* a stream of its own: the new bytes repeat none of the first layout's */
	struct target_open_args a = { .path = t->path, .size = size, .write = true,
				      .direct = t->direct, .seed = seed ^ (t->size * 0x9e3779b97f4a7c15ULL),
				      .stop = stop };
	uint64_t from = t->size, bytes = t->layout_bytes;
	double s = t->layout_s;

	if (t->kind != TARGET_FILE || !t->size_default) {
		snprintf(err, errlen, "'%s' was not made by this run at the default size: not grown",
			 t->path);
		return -EINVAL;
	}
	if (t->direct)
		size += (t->lbs - size % t->lbs) % t->lbs;
	if (size <= from)
		return 0;
	t->size = size;
	int rc = check_room(t, from, err, errlen) ? -ENOSPC : layout(t, &a, from, err, errlen);
	if (rc) {
		t->size = from;
		t->layout_bytes = bytes;
		t->layout_s = s;
		return rc;
	}
	t->layout_bytes += bytes;
	t->layout_s += s;
	return 0;
}

/* Size and block sizes from the device itself; args->size may cap the range. */
static int block_geometry(struct target *t, const struct target_open_args *a,
			  char *err, size_t errlen)
{
	uint64_t bytes = 0;
	int lbs = 0;
	unsigned int pbs = 0;

	if (ioctl(t->fd, BLKGETSIZE64, &bytes) < 0 || ioctl(t->fd, BLKSSZGET, &lbs) < 0 ||
	    ioctl(t->fd, BLKPBSZGET, &pbs) < 0) {
		int e = errno;
		snprintf(err, errlen, "cannot read the geometry of '%s': %s", t->path, strerror(e));
		return -e;
	}
	t->lbs = lbs > 0 ? (unsigned)lbs : 0;
	t->pbs = pbs;
	settle_block_sizes(t);
	if (!bytes) {
		snprintf(err, errlen, "block device '%s' is empty (0 bytes)", t->path);
		return -EINVAL;
	}
	if (a->size > bytes) {
		snprintf(err, errlen, "size %llu is larger than '%s', which has %llu bytes",
			 (unsigned long long)a->size, t->path, (unsigned long long)bytes);
		return -EINVAL;
	}
	t->size = a->size ? a->size - a->size % t->lbs : bytes;
	if (!t->size) {
		snprintf(err, errlen, "size %llu for '%s' is less than one %u-byte block",
			 (unsigned long long)a->size, t->path, t->lbs);
		return -EINVAL;
	}
	return 0;
}

/* Write access only if the device looks free, or the user said --force. */
static int refuse_if_in_use(const struct target *t, char *err, size_t errlen)
{
	char what[256];
	int rc = target_device_in_use(t->path, what, sizeof(what));

	if (rc < 0)
		snprintf(err, errlen, "%s", what);
	else if (rc > 0)
		snprintf(err, errlen, "refusing to write to '%s': %s (use --force to overwrite)",
			 t->path, what);
	return rc > 0 ? -EBUSY : rc;
}

static int open_block(struct target *t, const struct target_open_args *a,
		      const struct stat *st, char *err, size_t errlen)
{
	int rc;

	t->kind = TARGET_BLOCK;
	/* Before opening for write: a kernel may refuse that on a mounted device. */
	if (a->write && !a->force) {
		rc = refuse_if_in_use(t, err, errlen);
		if (rc)
			return rc;
	}
	rc = open_io(t->path, a->write ? O_RDWR : O_RDONLY, t->direct, err, errlen);
	if (rc < 0)
		return rc;
	t->fd = rc;
	read_dev_facts(t, st->st_rdev);
	return block_geometry(t, a, err, errlen);
}

/* A directory has no descriptor of its own; its facts are its disk's. */
static int open_dir(struct target *t, const struct target_open_args *a, const struct stat *st)
{
	t->kind = TARGET_DIR;
	read_dev_facts(t, st->st_dev);
	settle_block_sizes(t);
	t->size = a->size;
	return 0;
}

/* stat the path; a missing regular file is created empty when allowed. */
static int stat_or_create(struct target *t, const struct target_open_args *a,
			  struct stat *st, char *err, size_t errlen)
{
	int fd, e;

	if (stat(t->path, st) == 0)
		return 0;
	if (errno != ENOENT) {
		e = errno;
		snprintf(err, errlen, "cannot stat '%s': %s", t->path, strerror(e));
		return -e;
	}
	if (!a->create || !a->size) {
		snprintf(err, errlen, "target '%s' does not exist%s", t->path,
			 a->create ? " (give --size to create it)" : "");
		return -ENOENT;
	}
	/* Create it empty; the layout fills it with the size's worth of data. */
	fd = open(t->path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0 || fstat(fd, st) < 0) {
		e = errno;
		snprintf(err, errlen, "cannot create '%s': %s", t->path, strerror(e));
		if (fd >= 0)
			close(fd);
		return -e;
	}
	close(fd);
	t->created = true;
	t->size_default = a->size_default;
	return 0;
}

int target_open(struct target *t, const struct target_open_args *args, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	t->rotational = -1;
	t->direct = args->direct;
	if (snprintf(t->path, sizeof(t->path), "%s", args->path) >= (int)sizeof(t->path)) {
		snprintf(err, errlen, "target path '%.64s...' is too long", args->path);
		return -ENAMETOOLONG;
	}
	rc = stat_or_create(t, args, &st, err, errlen);
	if (rc)
		return rc;
	if (S_ISDIR(st.st_mode))
		rc = open_dir(t, args, &st);
	else if (S_ISREG(st.st_mode))
		rc = open_file(t, args, &st, err, errlen);
	else if (S_ISBLK(st.st_mode))
		rc = open_block(t, args, &st, err, errlen);
	else {
		snprintf(err, errlen, "'%s' is not a regular file, block device or directory", t->path);
		rc = -EINVAL;
	}
	if (rc) {
		target_close(t);
		if (t->created)
			unlink(t->path);
	}
	return rc;
}
