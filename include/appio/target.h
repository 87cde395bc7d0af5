/*
 * target.h - the file, block device or directory appio runs against.
 *
 * target_open() opens the path and reads the facts the result records: kind,
 * size, logical/physical block size, and for the block device underneath (the
 * device itself, or the one holding the file) its model, rotational flag and
 * I/O scheduler from sysfs. It lays a new or short regular file out to its full
 * size with random data and times that, and it refuses destructive writes to a
 * block device that is in use or carries a file system or partition table
 * unless forced.
 *
 * All functions return 0 or -errno and write a one-line message (no trailing
 * newline, no "appio:" prefix) into @err on failure. Called from the main
 * thread only.
 */
#ifndef APPIO_TARGET_H
#define APPIO_TARGET_H

#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

enum target_kind {
	TARGET_FILE,
	TARGET_BLOCK,
	TARGET_DIR,
};

struct target {
	char path[PATH_MAX];
	enum target_kind kind;
	int fd;                 /* O_RDWR or O_RDONLY, O_DIRECT if asked; -1 for a directory */
	bool direct;            /* fd was opened with O_DIRECT */
	uint64_t size;          /* bytes usable for I/O */
	uint64_t base;          /* offset of byte 0 of that range: a rank's slice of a target
				   the ranks share (--target-split); else 0 */
	unsigned lbs;           /* logical block size: smallest O_DIRECT transfer and alignment */
	unsigned pbs;           /* physical block size */
	char dev[64];           /* underlying block device name ("vda"), "" if unknown */
	char model[128];        /* device model from sysfs, "" if unknown */
	int rotational;         /* 1, 0, or -1 if unknown */
	char scheduler[32];     /* active I/O scheduler, "" if unknown */
	bool created;           /* the file did not exist before this run */
	bool size_default;      /* created at the default size, none asked for: an
				   emulator whose layout needs more may grow it */
	double layout_s;        /* seconds spent laying the file out (0 if none) */
	uint64_t layout_bytes;  /* bytes written to lay it out */
};

struct target_open_args {
	const char *path;
	uint64_t size;          /* wanted size in bytes; 0: keep an existing file's size */
	bool write;             /* the workload writes */
	bool direct;            /* open with O_DIRECT */
	bool force;             /* allow writing to a device that looks in use */
	bool create;            /* a missing regular file may be created (needs size > 0) */
	bool size_default;      /* @size is the new-file default, not the user's */
	uint64_t seed;          /* for the random data of the layout */
	volatile sig_atomic_t *stop;    /* nonzero (Ctrl-C): the layout gives up within a
					   chunk and target_open() returns -EINTR; may be NULL */
};

/*
 * Open the target, read its facts, and for a regular file create it (if
 * allowed) and lay it out to args->size. For a block device, args->size may
 * cap the range used but not exceed the device. Fills @t; on failure @t holds
 * no open descriptor. Refuses:
 *   - a missing path unless args->create (-ENOENT);
 *   - writes to a block device that is mounted, held, or carries a file-system
 *     or partition-table signature, unless args->force (-EBUSY);
 *   - a size larger than a block device (-EINVAL).
 * A failed layout (disk full, an I/O error) returns that -errno with the
 * offset in @err; an interrupted one -EINTR. Either way a file this call
 * created is removed.
 */
int target_open(struct target *t, const struct target_open_args *args,
		char *err, size_t errlen);

/*
 * Grow a file this run created at the default size (t->size_default) to
 * @size bytes, laid out as target_open() lays out a new file; t->size,
 * layout_bytes and layout_s follow. -ENOSPC when its file system has not
 * the room, -EINVAL for any other target (@err says why).
 */
int target_grow(struct target *t, uint64_t size, uint64_t seed, volatile sig_atomic_t *stop,
		char *err, size_t errlen);

/* Close the descriptor (if any). Safe on a target that failed to open. */
void target_close(struct target *t);

/* "file", "block" or "dir". */
const char *target_kind_name(enum target_kind k);

/*
 * Does the block device at @path look in use: mounted or claimed (an O_EXCL
 * open fails with EBUSY), it or one of its partitions held by another device
 * (a non-empty sysfs holders folder: device-mapper, md RAID), one of its
 * partitions mounted, or carrying a
 * file-system / RAID / partition-table signature (libblkid, when built with
 * it)? Returns 1 and names what was found in @what, 0 if it looks free, or
 * -errno with the reason in @what when @path cannot be opened or probed.
 * Used by target_open() before writing to a device; exposed for tests.
 */
int target_device_in_use(const char *path, char *what, size_t whatlen);

#endif
