/*
 * fmt_blktrace.h - one blktrace event (struct blk_io_trace, 48 bytes, as in
 * the kernel's include/uapi/linux/blktrace_api.h), shared by the reader of
 * blktrace's files (fmt_blktrace.c) and the capture that reads the
 * kernel's relay buffers itself (record_blk.c).
 */
#ifndef APPIO_TRACES_FMT_BLKTRACE_H
#define APPIO_TRACES_FMT_BLKTRACE_H

#include <stdint.h>

#define FMT_BLKTRACE_SIZE 48            /* bytes of an event before its payload */

/* What happened: the action's low 16 bits. */
enum fmt_blktrace_act {
	FMT_BLKTRACE_QUEUE = 1,
	FMT_BLKTRACE_BACKMERGE = 2,
	FMT_BLKTRACE_FRONTMERGE = 3,
	FMT_BLKTRACE_REQUEUE = 6,
	FMT_BLKTRACE_ISSUE = 7,
	FMT_BLKTRACE_COMPLETE = 8,
};

/* Categories: the action's high 16 bits (BLK_TC_*). */
enum fmt_blktrace_tc {
	FMT_BLKTRACE_TC_READ = 1 << 0,
	FMT_BLKTRACE_TC_WRITE = 1 << 1,
	FMT_BLKTRACE_TC_FLUSH = 1 << 2,
	FMT_BLKTRACE_TC_SYNC = 1 << 3,
	FMT_BLKTRACE_TC_REQUEUE = 1 << 6,
	FMT_BLKTRACE_TC_ISSUE = 1 << 7,
	FMT_BLKTRACE_TC_COMPLETE = 1 << 8,
	FMT_BLKTRACE_TC_PC = 1 << 9,    /* passthrough: no block I/O of a file system */
	FMT_BLKTRACE_TC_NOTIFY = 1 << 10,
	FMT_BLKTRACE_TC_AHEAD = 1 << 11,
	FMT_BLKTRACE_TC_META = 1 << 12,
	FMT_BLKTRACE_TC_DISCARD = 1 << 13,
	FMT_BLKTRACE_TC_FUA = 1 << 15,
};

struct fmt_blktrace_ev {
	uint64_t time, sector;          /* ns (the kernel's ktime_get), 512-byte sectors */
	uint32_t bytes, action, pid, device;
	uint16_t pdu_len;               /* payload bytes after the 48 */
};

/*
 * Decode the FMT_BLKTRACE_SIZE bytes at @b into @e. *@swap is -1 until the
 * first event tells the byte order (0 native, 1 swapped), then every event
 * must be in it. Returns 0, -1 (not blktrace's magic, or not in *@swap's
 * order) or -2 (a version other than 0x07).
 */
int fmt_blktrace_decode(const unsigned char *b, int *swap, struct fmt_blktrace_ev *e);

/*
 * The op and flags of an event from its categories and bytes: discard,
 * write, read (with bytes), flush (without); a flush category with data is
 * a preflush. 0, or -1 for an event that moves no data and is no flush.
 */
int fmt_blktrace_op(uint32_t action, uint32_t bytes, uint8_t *op, uint16_t *flags);

#endif
