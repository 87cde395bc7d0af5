/*
 * record_dev.h - which block device a capture traces: a device named by the
 * user (--device vda, /dev/vda, 254:0) or the device holding a path
 * (--path /var/lib/mysql), found through sysfs. The kernel's block_rq_*
 * tracepoints name the whole disk and give its sector numbers, so a
 * partition is traced as its disk, and its first sector and size are kept to
 * keep the partition's requests only and make their offsets relative to it.
 */
#ifndef APPIO_TRACES_RECORD_DEV_H
#define APPIO_TRACES_RECORD_DEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct record_dev {
	char name[48];                  /* what is recorded: "vda", "sda2", "loop3" */
	char disk[48];                  /* the whole disk whose requests are traced */
	unsigned major, minor;          /* of @disk */
	bool part;                      /* @name is a partition of @disk */
	uint64_t start, sectors;        /* the partition's first sector and size (512 B) */
};

/*
 * Fill @d for @device (a name under /sys/class/block or /dev, a /dev path,
 * or MAJ:MIN), or, when @device is NULL, for the device that holds @path.
 * @sysfs is the sysfs mount ("/sys"; tests give a tree of their own).
 * Returns 0, or -EINVAL with one line in @err: no such device, a path on a
 * file system without a block device (tmpfs, overlay, btrfs), or a device
 * without block requests (device mapper, zram): the tracepoints never see
 * those, and the message names the devices under it when there are some.
 */
int record_dev_find(const char *device, const char *path, const char *sysfs, struct record_dev *d,
		    char *err, size_t errlen);

/* The kernel's internal dev_t of @d's disk, as the tracepoints' dev field holds it. */
uint64_t record_dev_kdev(const struct record_dev *d);

#endif
