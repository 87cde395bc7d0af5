/*
 * trace_record.h - capturing the block requests of one device into a trace
 * in appio's format ('appio trace record', 'appio db run --capture').
 *
 * The kernel's block_rq_issue and block_rq_complete tracepoints, read in
 * binary from a tracefs instance of appio's own (so nothing else using
 * tracefs is disturbed), filtered in the kernel on the device. Each request
 * is kept at its issue to the driver with its completion time (so the trace
 * carries the recorded service time), the submitting thread as the kernel
 * saw it at issue, its size, offset and flags. A partition is traced as its
 * disk: requests outside it are dropped and offsets are made relative to its
 * first byte, so the trace replays on another drive as it was on this one.
 *
 * Lost events are an error, not a footnote: the kernel's per-CPU buffers are
 * sized from the expected rate of I/Os, a reader thread empties them every
 * 50 ms, and the first sign of an overflow (a page flagged with missed
 * events, or the buffer's own count of dropped events) stops the capture
 * with a message saying how to raise the buffer.
 *
 * Or, when asked (TRACE_RECORD_BLKTRACE), through blktrace's ioctls and its
 * per-CPU relay files in debugfs (traces/record_blk.h), into the same
 * records with the same guarantees: the relay's count of dropped events is
 * read every round.
 *
 * Privileges: tracing the block layer needs CAP_SYS_ADMIN. When tracefs is
 * not mounted, the capture mounts it in a private mount namespace of its
 * own (nothing appears in the system's mount table, and it goes with the
 * process) and removes its instance when it stops.
 *
 * Threads: start, meta, failed, finish and free belong to one thread (the
 * caller's); the capture runs a reader thread of its own in between.
 */
#ifndef APPIO_TRACE_RECORD_H
#define APPIO_TRACE_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define TRACE_RECORD_RATE 100000        /* expected I/Os per second when not told */

/* How the block requests are read from the kernel. */
enum trace_record_via {
	TRACE_RECORD_TRACEFS,           /* block_rq_* tracepoints in a tracefs instance */
	TRACE_RECORD_BLKTRACE,          /* blktrace's ioctls and relay files in debugfs */
};

/* What to record; zeros mean the defaults. */
struct trace_record_opts {
	const char *device;             /* a block device: "vda", "/dev/vda", "254:0" */
	const char *path;               /* or, when @device is NULL, the one holding this path */
	uint64_t rate;                  /* expected I/Os per second: sizes the buffers */
	uint64_t buffer_kb;             /* the kernel's buffer per CPU in KiB (default: from @rate) */
	const char *out;                /* the trace file to write ("-": stdout); opened by start */
	enum trace_record_via via;
};

/* What a capture did, for its report and the trace's header. */
struct trace_record_stats {
	uint64_t ios;                   /* requests written to the trace */
	uint64_t events;                /* tracepoint events read */
	uint64_t outside;               /* requests of the disk outside the partition, dropped */
	uint64_t lost;                  /* events the kernel could not keep (0 on success) */
	double seconds;                 /* from start to finish */
	double peak_events_s;           /* events in the busiest whole second */
	double cpu_s;                   /* CPU time of the reader thread */
	double machine_busy_pct;        /* the machine's CPUs busy meanwhile, % (-1 unknown) */
	uint64_t buffer_kb;             /* per CPU */
	char device[112];               /* "vda (254:0)", "sda2 of sda (8:0), from sector 2048" */
};

struct trace_record;

/*
 * Check the privileges, find the device, mount tracefs if needed, set up an
 * instance and its buffers, create @o->out and start tracing and the reader
 * thread. On success *@out is the running capture. Returns 0, or -EPERM
 * (missing privileges: the message names them), -EINVAL (bad device or
 * output), -ENOTSUP (built without libtracefs) or another -errno, with one
 * line in @err; nothing is left behind then. With TRACE_RECORD_BLKTRACE
 * also -ENOTSUP when this kernel has no blktrace or refuses debugfs to root
 * (lockdown), -EBUSY when another block trace is set up on the disk.
 */
int trace_record_start(struct trace_record **out, const struct trace_record_opts *o,
		       char *err, size_t errlen);

/*
 * Add the fact @key = @val to the trace's header ("run.workload",
 * "server.version"...; see trace_hdr_meta). Any time before finish.
 */
int trace_record_meta(struct trace_record *r, const char *key, const char *val);

/* What is recorded: "vda (254:0)", "sda2 of sda (8:0), from sector 2048, N sectors". */
const char *trace_record_device(const struct trace_record *r);

/* Has the capture stopped on an error (lost events, a write that failed)? */
bool trace_record_failed(const struct trace_record *r);

/*
 * Stop tracing, read what the kernel still holds, and write the trace: its
 * header (source, clock, device, meta facts) and every request, in issue
 * order. Requests still in flight get an unknown completion. Fills @st (may
 * be NULL). Returns 0, or -ENOBUFS (events were lost: the trace holds what
 * was read until the capture stopped and says so in a note), -EIO (writing failed),
 * with one line in @err. The trace file is complete either way.
 */
int trace_record_finish(struct trace_record *r, struct trace_record_stats *st, char *err, size_t errlen);

/* Stop if still running (nothing written), unmount, free. Accepts NULL. */
void trace_record_free(struct trace_record *r);

/* The per-CPU buffer in KiB for @rate I/Os per second (pure; for tests and help). */
uint64_t trace_record_buffer_kb(uint64_t rate);

#endif
