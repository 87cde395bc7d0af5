/*
 * fault.c - an LD_PRELOAD shim that makes one I/O call fail, so that every
 * emulator's error path runs in the tests against the real engines.
 *
 *   FAULT_OP     the call to fail: pread, pwrite, fsync or fdatasync
 *                (pread64/pwrite64 count as pread/pwrite)
 *   FAULT_NTH    which matching call fails, counting from 1 (default 1)
 *   FAULT_ERRNO  EIO (default), ENOSPC, EDQUOT or EROFS
 *   FAULT_PATH   only calls on files whose path contains this text count
 *                (so that appio's own result files are left alone)
 *   FAULT_ALL    1: every matching call from the Nth on fails, not just it
 *
 * Without FAULT_OP nothing changes. libaio and io_uring submit their I/O
 * without these calls: use --engine sync. Test code only; never installed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

static atomic_ulong calls;

static int fault_errno(void)
{
	const char *e = getenv("FAULT_ERRNO");

	if (!e || !strcmp(e, "EIO"))
		return EIO;
	if (!strcmp(e, "ENOSPC"))
		return ENOSPC;
	if (!strcmp(e, "EDQUOT"))
		return EDQUOT;
	if (!strcmp(e, "EROFS"))
		return EROFS;
	return EIO;
}

static bool path_matches(int fd)
{
	const char *want = getenv("FAULT_PATH");
	char link[64], path[4096];
	ssize_t n;

	if (!want || !*want)
		return true;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, path, sizeof(path) - 1);
	if (n <= 0)
		return false;
	path[n] = '\0';
	return strstr(path, want) != NULL;
}

/* Should this call of @op on @fd fail? Sets errno when it should. */
static bool hit(const char *op, int fd)
{
	const char *want = getenv("FAULT_OP"), *nth_s = getenv("FAULT_NTH"), *all = getenv("FAULT_ALL");

	if (!want || strcmp(want, op) || !path_matches(fd))
		return false;
	unsigned long nth = nth_s ? strtoul(nth_s, NULL, 10) : 1;
	unsigned long n = atomic_fetch_add(&calls, 1) + 1;
	if (nth == 0)
		nth = 1;
	if (n == nth || (all && !strcmp(all, "1") && n > nth)) {
		errno = fault_errno();
		return true;
	}
	return false;
}

#define REAL(name, type) ((type)dlsym(RTLD_NEXT, name))

typedef ssize_t (*rw_fn)(int, void *, size_t, off_t);
typedef ssize_t (*wr_fn)(int, const void *, size_t, off_t);
typedef int (*sync_fn)(int);

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
	return hit("pread", fd) ? -1 : REAL("pread", rw_fn)(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
	return hit("pread", fd) ? -1 : REAL("pread64", rw_fn)(fd, buf, n, off);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return hit("pwrite", fd) ? -1 : REAL("pwrite", wr_fn)(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
	return hit("pwrite", fd) ? -1 : REAL("pwrite64", wr_fn)(fd, buf, n, off);
}

int fsync(int fd)
{
	return hit("fsync", fd) ? -1 : REAL("fsync", sync_fn)(fd);
}

int fdatasync(int fd)
{
	return hit("fdatasync", fd) ? -1 : REAL("fdatasync", sync_fn)(fd);
}
