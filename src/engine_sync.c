/*
 * engine_sync.c - one blocking system call per request (pread, pwrite, fsync,
 * fdatasync, discard), the way most applications do their I/O. Every request
 * completes inside queue(), so the engine has no state, commit or getevents.
 * The asynchronous engines borrow its queue() for discard, which neither
 * libaio nor this build's io_uring can do asynchronously.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appio/engine.h"

/* Loop over short transfers; a read that hits EOF reports what it got. */
static int64_t sync_rw(const struct io_req *r)
{
	char *p = r->buf;
	uint64_t done = 0;

	while (done < r->len) {
		ssize_t n = r->op == IO_READ
			? pread(r->fd, p + done, r->len - done, (off_t)(r->off + done))
			: pwrite(r->fd, p + done, r->len - done, (off_t)(r->off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		done += (uint64_t)n;
		if (r->op == IO_READ && done < r->len)
			break;  /* a short read of a file is its end: no second call to hear 0 */
	}
	return (int64_t)done;
}

static int64_t sync_flush(const struct io_req *r)
{
	int rc;

	do
		rc = r->op == IO_FSYNC ? fsync(r->fd) : fdatasync(r->fd);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : 0;
}

/* res is the length discarded, like a write's. */
static int64_t sync_discard(const struct io_req *r)
{
	struct stat st;
	int rc;

	if (fstat(r->fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		uint64_t range[2] = { r->off, r->len };
		rc = ioctl(r->fd, BLKDISCARD, range);
	} else if (S_ISREG(st.st_mode)) {
		rc = fallocate(r->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
			       (off_t)r->off, (off_t)r->len);
	} else {
		return -EOPNOTSUPP;
	}
	return rc < 0 ? -errno : (int64_t)r->len;
}

static int sync_queue(void *priv, struct io_req *r)
{
	(void)priv;
	switch (r->op) {
	case IO_READ:
	case IO_WRITE:
		r->res = sync_rw(r);
		break;
	case IO_FSYNC:
	case IO_FDATASYNC:
		r->res = sync_flush(r);
		break;
	case IO_DISCARD:
		r->res = sync_discard(r);
		break;
	default:
		return -EINVAL;
	}
	return ENGINE_COMPLETED;
}

const struct engine_ops engine_sync = {
	.name = "sync",
	.desc = "pread/pwrite/fsync, one blocking system call per request",
	.flags = ENGINE_SYNC,
	.priv_size = 0,
	.queue = sync_queue,
};
