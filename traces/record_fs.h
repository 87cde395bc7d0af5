/*
 * record_fs.h - the tracefs side of a capture: a mount when there is none
 * (in a private mount namespace), an instance of appio's own with its
 * buffers, clock, filter and the two block_rq events, and per-CPU readers of
 * its raw ring buffers (libtracefs, libtraceevent).
 */
#ifndef APPIO_TRACES_RECORD_FS_H
#define APPIO_TRACES_RECORD_FS_H

#include <stddef.h>
#include <stdint.h>

struct tracefs_instance;
struct tracefs_cpu;
struct tep_handle;
struct tep_event;
struct tep_format_field;
struct kbuffer;

/* The fields a capture reads of an event, found once from its format. */
struct record_fields {
	int id;                         /* the event's type number */
	struct tep_format_field *pid, *dev, *sector, *nr_sector, *bytes, *rwbs;
};

struct record_fs {
	char mnt[64];                   /* our own mount point, or "" (tracefs was mounted) */
	char root[512];                 /* the tracefs root in use */
	char name[32];                  /* the instance: "appio-PID" */
	struct tracefs_instance *inst;
	struct tep_handle *tep;
	struct record_fields issue, complete, requeue;
	int ncpu;
	struct tracefs_cpu **cpu;       /* ncpu raw readers, non-blocking */
	struct kbuffer *kbuf;
	void *page;                     /* one sub-buffer */
	int page_size;
};

/*
 * Mount tracefs if needed, create the instance with @buffer_kb per CPU, the
 * "mono" clock (CLOCK_MONOTONIC, so times compare with the caller's), no
 * overwriting (a full buffer drops new events and counts them), the
 * block_rq_issue, _complete and _requeue events filtered on the kernel dev_t @kdev, enabled, and open the per-CPU
 * readers. 0, or -EPERM / -errno with one line in @err; on failure
 * record_fs_close() undoes what was done.
 */
int record_fs_open(struct record_fs *fs, uint64_t kdev, uint64_t buffer_kb, char *err, size_t errlen);

/* Stop tracing into the buffers (what they hold can still be read). */
void record_fs_stop(struct record_fs *fs);

/*
 * Read one sub-buffer of CPU @cpu into fs->kbuf: its size in bytes, 0 when
 * the CPU's buffer is empty, -errno on failure.
 */
int record_fs_read(struct record_fs *fs, int cpu);

/* Events the kernel dropped, summed over the CPUs ("dropped events" + "overrun"). */
uint64_t record_fs_dropped(struct record_fs *fs);

/* Close the readers, remove the instance, unmount; safe on a zeroed or failed one. */
void record_fs_close(struct record_fs *fs);

#endif
