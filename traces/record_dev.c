/*
 * record_dev.c - a capture's device through sysfs: /sys/dev/block/MAJ:MIN
 * links to the device's folder, where a partition has "partition", "start"
 * and "size" files and sits in its disk's folder; a disk served by blk-mq
 * has "mq" (a request queue, so block_rq_issue fires), a device-mapper one
 * "dm" and "slaves".
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "record_dev.h"

/* The first line of @dir/@file into @buf: 0, or -1 if it cannot be read. */
static int read_line(const char *dir, const char *file, char *buf, size_t len)
{
	char p[PATH_MAX + 64];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	if (!(f = fopen(p, "r")))
		return -1;
	int ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -1;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

static const char *last_part(const char *path)
{
	const char *s = strrchr(path, '/');
	return s ? s + 1 : path;
}

static int parse_majmin(const char *s, unsigned *ma, unsigned *mi)
{
	char tail;

	return sscanf(s, "%u:%u%c", ma, mi, &tail) == 2 ? 0 : -1;
}

/* MAJ:MIN of @device: a number pair, a name in sysfs, or a block special file. */
static int device_majmin(const char *device, const char *sysfs, unsigned *ma, unsigned *mi,
			 char *err, size_t errlen)
{
	const char *name = strncmp(device, "/dev/", 5) ? device : device + 5;
	char dir[PATH_MAX], val[64];
	struct stat st;

	if (!parse_majmin(device, ma, mi))
		return 0;
	snprintf(dir, sizeof(dir), "%s/class/block/%s", sysfs, name);
	if (!strchr(name, '/') && !read_line(dir, "dev", val, sizeof(val)) && !parse_majmin(val, ma, mi))
		return 0;
	if (!stat(device[0] == '/' ? device : (snprintf(dir, sizeof(dir), "/dev/%s", name), dir), &st) &&
	    S_ISBLK(st.st_mode)) {
		*ma = major(st.st_rdev);
		*mi = minor(st.st_rdev);
		return 0;
	}
	snprintf(err, errlen, "--device: no block device '%s' (expected a name as lsblk lists it, "
		 "/dev/NAME or MAJ:MIN)", device);
	return -EINVAL;
}

static int path_majmin(const char *path, unsigned *ma, unsigned *mi, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st)) {
		snprintf(err, errlen, "--path: cannot find '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	if (!major(st.st_dev)) {
		snprintf(err, errlen, "--path: '%s' is on a file system without a block device of its own "
			 "(tmpfs, overlay, btrfs, NFS?): give the device with --device", path);
		return -EINVAL;
	}
	*ma = major(st.st_dev);
	*mi = minor(st.st_dev);
	return 0;
}

/* Why a disk without "mq" has no requests to trace, naming what is under it. */
static int no_requests(const char *dir, const struct record_dev *d, char *err, size_t errlen)
{
	char p[PATH_MAX + 16], under[200] = "";
	DIR *dd;
	struct dirent *e;
	size_t n = 0;

	snprintf(p, sizeof(p), "%s/slaves", dir);
	if ((dd = opendir(p))) {
		while ((e = readdir(dd)) && n < sizeof(under) - 1)
			if (e->d_name[0] != '.')
				n += (size_t)snprintf(under + n, sizeof(under) - n, "%s%s", n ? ", " : "", e->d_name);
		closedir(dd);
	}
	snprintf(err, errlen, "'%s' does not queue block requests (a device-mapper, md or zram device): "
		 "the block_rq tracepoints never see it; %s%s", d->disk, *under ? "record what is under it: " :
		 "record the device that holds its data", under);
	return -EINVAL;
}

int record_dev_find(const char *device, const char *path, const char *sysfs, struct record_dev *d,
		    char *err, size_t errlen)
{
	char link[PATH_MAX + 16], dir[PATH_MAX], val[64];
	unsigned ma, mi;
	int rc;

	memset(d, 0, sizeof(*d));
	rc = device ? device_majmin(device, sysfs, &ma, &mi, err, errlen) :
		      path_majmin(path, &ma, &mi, err, errlen);
	if (rc)
		return rc;
	snprintf(link, sizeof(link), "%s/dev/block/%u:%u", sysfs, ma, mi);
	if (!realpath(link, dir)) {
		snprintf(err, errlen, "%s: %u:%u is not a block device this machine knows (no %s)",
			 device ? "--device" : "--path", ma, mi, link);
		return -EINVAL;
	}
	snprintf(d->name, sizeof(d->name), "%.47s", last_part(dir));
	snprintf(d->disk, sizeof(d->disk), "%s", d->name);
	d->major = ma;
	d->minor = mi;
	if (!read_line(dir, "partition", val, sizeof(val))) {
		if (read_line(dir, "start", val, sizeof(val)) || sscanf(val, "%" SCNu64, &d->start) != 1 ||
		    read_line(dir, "size", val, sizeof(val)) || sscanf(val, "%" SCNu64, &d->sectors) != 1) {
			snprintf(err, errlen, "cannot read the start and size of partition '%s' in %s",
				 d->name, dir);
			return -EINVAL;
		}
		d->part = true;
		*strrchr(dir, '/') = 0;
		snprintf(d->disk, sizeof(d->disk), "%.47s", last_part(dir));
		if (read_line(dir, "dev", val, sizeof(val)) || parse_majmin(val, &d->major, &d->minor)) {
			snprintf(err, errlen, "cannot read the disk of partition '%s' (%s/dev)", d->name, dir);
			return -EINVAL;
		}
	}
	snprintf(link, sizeof(link), "%s/mq", dir);
	if (access(link, F_OK))
		return no_requests(dir, d, err, errlen);
	return 0;
}

uint64_t record_dev_kdev(const struct record_dev *d)
{
	/* the kernel's dev_t: 12 bits of major above 20 bits of minor */
	return ((uint64_t)d->major << 20) | d->minor;
}
