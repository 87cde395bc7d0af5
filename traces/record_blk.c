/*
 * record_blk.c - a capture through blktrace's ioctl interface
 * (record_blk.h). The kernel's blktrace writes one struct blk_io_trace per
 * event into a relay channel per CPU; a relay file is read like a pipe (a
 * read returns what was written since the last one, 0 when nothing is new)
 * and may end inside an event, so each CPU keeps the cut event's bytes
 * until the rest comes.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/blktrace_api.h>
#include <linux/fs.h>

#include "record_blk.h"
#include "record_mnt.h"

#define MIN_SUBBUFS 4

int record_blk_parse(const unsigned char *buf, size_t len, int *swap, size_t *used, record_blk_cb cb, void *ctx)
{
	struct fmt_blktrace_ev e;
	size_t off = 0;

	while (len - off >= FMT_BLKTRACE_SIZE) {
		if (fmt_blktrace_decode(buf + off, swap, &e)) {
			*used = off;
			return -EINVAL;
		}
		if (len - off < FMT_BLKTRACE_SIZE + (size_t)e.pdu_len)
			break;
		cb(ctx, &e);
		off += FMT_BLKTRACE_SIZE + e.pdu_len;
	}
	*used = off;
	return 0;
}

int record_blk_read(struct record_blk *b, int cpu, record_blk_cb cb, void *ctx)
{
	struct record_blk_cpu *c = &b->cpu[cpu];
	int total = 0;

	if (c->fd < 0)
		return 0;
	for (;;) {
		ssize_t n = read(c->fd, c->buf + c->len, RECORD_BLK_BUF_BYTES - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno != EAGAIN)
			return -errno;
		if (n <= 0)
			return total;
		c->len += (size_t)n;
		total += (int)n;
		size_t used;
		int rc = record_blk_parse(c->buf, c->len, &c->swap, &used, cb, ctx);
		memmove(c->buf, c->buf + used, c->len - used);
		c->len -= used;
		if (rc)
			return rc;
	}
}

/* The lockdown mode as securityfs gives it (" (lockdown=integrity)"), or "". */
static void lockdown_mode(char *buf, size_t len)
{
	char dir[512], mnt[64], line[128], err[256], *a, *z;
	FILE *f;

	buf[0] = 0;
	if (record_mnt_get("securityfs", dir, sizeof(dir), mnt, sizeof(mnt), err, sizeof(err)))
		return;
	strncat(dir, "/lockdown", sizeof(dir) - strlen(dir) - 1);
	if ((f = fopen(dir, "r"))) {
		if (fgets(line, sizeof(line), f) && (a = strchr(line, '[')) && (z = strchr(a, ']')))
			snprintf(buf, len, " (lockdown=%.*s)", (int)(z - a - 1), a + 1);
		fclose(f);
	}
	record_mnt_put(mnt);
}

static int open_cpus(struct record_blk *b, char *err, size_t errlen)
{
	b->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (b->ncpu < 1)
		b->ncpu = 1;
	b->cpu = calloc((size_t)b->ncpu, sizeof(*b->cpu));
	if (!b->cpu)
		return -ENOMEM;
	for (int i = 0; i < b->ncpu; i++)
		b->cpu[i].fd = -1;
	for (int i = 0; i < b->ncpu; i++) {
		char path[700];
		struct record_blk_cpu *c = &b->cpu[i];
		snprintf(path, sizeof(path), "%s/trace%d", b->dir, i);
		c->swap = -1;
		if ((c->fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
			int e = errno;
			char mode[48];
			if (e == ENOENT)        /* a CPU that is not there */
				continue;
			if (e == EPERM || e == EACCES) {
				lockdown_mode(mode, sizeof(mode));
				snprintf(err, errlen, "--via blktrace: this kernel refuses debugfs files to root%s, "
					 "so blktrace's buffers (debugfs block/%s/trace%d) cannot be read; record "
					 "without --via blktrace (through tracefs)", mode[0] ? mode : " (lockdown?)",
					 strrchr(b->dir, '/') + 1, i);
				return -ENOTSUP;
			}
			snprintf(err, errlen, "--via blktrace: cannot open blktrace's buffer '%s': %s", path, strerror(e));
			return -e;
		}
		if (!(c->buf = malloc(RECORD_BLK_BUF_BYTES)))
			return -ENOMEM;
	}
	return 0;
}

static int setup(struct record_blk *b, const char *disk, uint64_t buffer_kb, const char *debugfs,
		 char *err, size_t errlen)
{
	struct blk_user_trace_setup s;
	uint64_t nr = buffer_kb / RECORD_BLK_SUBBUF_KB;

	memset(&s, 0, sizeof(s));
	s.act_mask = BLK_TC_ISSUE | BLK_TC_COMPLETE | BLK_TC_REQUEUE;
	s.buf_size = RECORD_BLK_SUBBUF_KB * 1024;
	s.buf_nr = (uint32_t)(nr < MIN_SUBBUFS ? MIN_SUBBUFS : nr);
	if (ioctl(b->dev_fd, BLKTRACESETUP, &s)) {
		int e = errno;
		if (e == EBUSY)
			snprintf(err, errlen, "--via blktrace: a block trace is already set up on '%s' (a blktrace "
				 "running, or one killed before it removed it: 'blktrace -k -d /dev/%s' removes it)",
				 disk, disk);
		else if (e == ENOTTY || e == EINVAL || e == ENOSYS)
			snprintf(err, errlen, "--via blktrace: this kernel has no blktrace (CONFIG_BLK_DEV_IO_TRACE); "
				 "record without --via blktrace (through tracefs)");
		else if (e == EPERM || e == EACCES)
			return record_mnt_perm(err, errlen, "set up blktrace");
		else
			snprintf(err, errlen, "--via blktrace: BLKTRACESETUP on '/dev/%s' failed: %s", disk, strerror(e));
		return e == EBUSY ? -EBUSY : e == ENOTTY || e == EINVAL || e == ENOSYS ? -ENOTSUP : -e;
	}
	b->set_up = true;
	s.name[sizeof(s.name) - 1] = 0;
	snprintf(b->dir, sizeof(b->dir), "%s/block/%s", debugfs, s.name);
	return 0;
}

int record_blk_open(struct record_blk *b, const char *disk, uint64_t buffer_kb, char *err, size_t errlen)
{
	char path[128], debugfs[512];
	int rc;

	memset(b, 0, sizeof(*b));
	if (!record_mnt_sys_admin())
		return record_mnt_perm(err, errlen, "trace the block layer");
	snprintf(path, sizeof(path), "/dev/%s", disk);
	if ((b->dev_fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)) < 0) {
		snprintf(err, errlen, "--via blktrace: cannot open '%s' for blktrace's ioctls: %s", path, strerror(errno));
		return -EINVAL;
	}
	b->opened = true;
	if ((rc = record_mnt_get("debugfs", debugfs, sizeof(debugfs), b->mnt, sizeof(b->mnt), err, errlen)) ||
	    (rc = setup(b, disk, buffer_kb, debugfs, err, errlen)) || (rc = open_cpus(b, err, errlen)))
		goto fail;
	if (ioctl(b->dev_fd, BLKTRACESTART)) {
		rc = -errno;
		snprintf(err, errlen, "--via blktrace: BLKTRACESTART on '%s' failed: %s", path, strerror(-rc));
		goto fail;
	}
	b->started = true;
	return 0;
fail:
	if (rc == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	record_blk_close(b);
	return rc;
}

void record_blk_stop(struct record_blk *b)
{
	if (b->started)
		ioctl(b->dev_fd, BLKTRACESTOP);
	b->started = false;
}

uint64_t record_blk_dropped(const struct record_blk *b)
{
	char path[700];
	unsigned long long v = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/dropped", b->dir);
	if (!b->set_up || !(f = fopen(path, "r")))
		return 0;
	if (fscanf(f, "%llu", &v) != 1)
		v = 0;
	fclose(f);
	return v;
}

void record_blk_close(struct record_blk *b)
{
	if (!b->opened)
		return;
	record_blk_stop(b);
	for (int i = 0; b->cpu && i < b->ncpu; i++) {
		if (b->cpu[i].fd >= 0)
			close(b->cpu[i].fd);
		free(b->cpu[i].buf);
	}
	free(b->cpu);
	if (b->set_up)
		ioctl(b->dev_fd, BLKTRACETEARDOWN);
	close(b->dev_fd);
	record_mnt_put(b->mnt);
	memset(b, 0, sizeof(*b));
}
