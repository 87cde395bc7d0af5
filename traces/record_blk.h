/*
 * record_blk.h - the blktrace side of a capture ('trace record --via
 * blktrace'): the block layer's own tracer, set up on the disk with the
 * BLKTRACESETUP and BLKTRACESTART ioctls, which writes struct blk_io_trace
 * events into per-CPU relay buffers that appear as debugfs files
 * (block/NAME/trace0, trace1...) and counts the events it could not keep
 * in block/NAME/dropped. debugfs is mounted in a private mount namespace
 * when it is not mounted. A kernel in lockdown refuses debugfs to root:
 * then the relay files cannot be opened and the capture says so.
 *
 * Only issue, completion and requeue events are asked for (the action
 * mask), so the buffers fill with what a trace keeps.
 */
#ifndef APPIO_TRACES_RECORD_BLK_H
#define APPIO_TRACES_RECORD_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fmt_blktrace.h"

#define RECORD_BLK_SUBBUF_KB 512        /* a relay sub-buffer, as blktrace's default */
#define RECORD_BLK_BUF_BYTES (256 * 1024)

/* Called for each event read, in the CPU's order. */
typedef void (*record_blk_cb)(void *ctx, const struct fmt_blktrace_ev *e);

/* One CPU's relay file and the bytes read from it that do not yet make a whole event. */
struct record_blk_cpu {
	int fd;                         /* -1: no such CPU */
	int swap;                       /* byte order, -1 until the first event */
	size_t len;
	unsigned char *buf;             /* RECORD_BLK_BUF_BYTES */
};

struct record_blk {
	int dev_fd;                     /* the disk the ioctls go to (when @opened) */
	bool opened, set_up, started;
	char mnt[64];                   /* our own debugfs mount, or "" */
	char dir[640];                  /* <debugfs>/block/NAME */
	int ncpu;
	struct record_blk_cpu *cpu;
};

/*
 * Set up blktrace on the disk /dev/@disk with @buffer_kb of relay buffer
 * per CPU (sub-buffers of RECORD_BLK_SUBBUF_KB, at least 4), open the
 * per-CPU relay files and start. 0, or -EPERM (no CAP_SYS_ADMIN), -ENOTSUP
 * (no blktrace in this kernel, or debugfs closed by lockdown), -EBUSY
 * (another block trace is set up on the disk), -EINVAL (no /dev/@disk) or
 * another -errno, with one line in @err; on failure record_blk_close()
 * undoes what was done (it is called by open itself).
 */
int record_blk_open(struct record_blk *b, const char *disk, uint64_t buffer_kb, char *err, size_t errlen);

/*
 * Read what CPU @cpu's relay file holds and hand each whole event to @cb.
 * Returns the bytes read (0: nothing new), -EINVAL (not blk_io_trace v7
 * data) or -errno.
 */
int record_blk_read(struct record_blk *b, int cpu, record_blk_cb cb, void *ctx);

/* Stop tracing (BLKTRACESTOP): what the buffers hold can still be read. */
void record_blk_stop(struct record_blk *b);

/* The kernel's count of events it could not keep (block/NAME/dropped). */
uint64_t record_blk_dropped(const struct record_blk *b);

/* Stop, tear down (BLKTRACETEARDOWN), close, unmount. Safe on a zeroed or failed one. */
void record_blk_close(struct record_blk *b);

/*
 * The whole events at the start of @buf (@len bytes) to @cb, with the byte
 * order in *@swap (-1 until known); *@used is the bytes they took (an event
 * cut at the end waits for the rest). 0, or -EINVAL at bytes that are not
 * a blk_io_trace v7 event. Pure: the reading above is built on it.
 */
int record_blk_parse(const unsigned char *buf, size_t len, int *swap, size_t *used, record_blk_cb cb, void *ctx);

#endif
