/*
 * trace.c - one trace reader on arbitrary bytes, and the writers on what it
 * reads. Built once per format with -DTRACE_FORMAT="name" (trace-NAME).
 *
 * The input is a whole trace file. It goes through trace_open() with the
 * format given, as 'appio trace convert --from NAME' does, from a regular
 * file (a memfd under /proc/self/fd: the tencent reader seeks, and the
 * blktrace reader opens its path itself; the name has no ".blktrace.N" so no
 * sibling per-CPU files are looked for). Every record is read until the end
 * or an error. Then what the reader promises is checked: an error is one
 * non-empty line naming the file; a record has a known op, a declared
 * device, a byte range within 64 bits, and completes no earlier than it is
 * issued. Each record is also
 * written by every format that writes (into a second memfd, never a path
 * of the system such as /dev/null), as convert does, and
 * the probes all look at the input's first bytes, and the records are
 * counted as 'appio trace info' counts them. Readers with a choice of
 * issue event (blkparse, blktrace) read the input both ways.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "appio/trace.h"
#include "appio/trace_stats.h"
#include "fuzz.h"

#ifndef TRACE_FORMAT
#error "build with -DTRACE_FORMAT=\"name\""
#endif

#define MAX_WRITERS 8

static const struct trace_format *fmt;
static const struct trace_format *writers[MAX_WRITERS];
static int nwriters, memfd = -1, sinkfd = -1;
static char path[64], sink[64];

static void setup(void)
{
	fmt = trace_format_find(TRACE_FORMAT);
	must(fmt && fmt->next);
	for (int i = 0; trace_format_table[i]; i++)
		if (trace_format_table[i]->write && nwriters < MAX_WRITERS)
			writers[nwriters++] = trace_format_table[i];
	memfd = memfd_create("appio-fuzz-trace", 0);
	sinkfd = memfd_create("appio-fuzz-trace-out", 0);
	must(memfd >= 0 && sinkfd >= 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", memfd);
	snprintf(sink, sizeof(sink), "/proc/self/fd/%d", sinkfd);
}

/* An error message: one non-empty line that names the file. */
static void check_err(const char *err, const char *file)
{
	must(err[0] && !strchr(err, '\n') && strstr(err, file));
}

static void read_all(const struct trace_opts *opts)
{
	static struct trace_stats st;
	struct trace_reader r;
	struct trace_writer w[MAX_WRITERS];
	struct trace_rec rec;
	int rc, nw = 0;

	rc = trace_open(&r, path, fmt, opts);
	if (rc) {
		must(rc < 0);
		check_err(r.err, path);
		trace_close(&r);
		return;
	}
	trace_stats_init(&st);
	/* as convert does: the first record fixes epoch_ns, which writers' headers carry */
	rc = trace_next(&r, &rec);
	if (rc == 0)
		for (; nw < nwriters; nw++)
			if (trace_writer_open(&w[nw], sink, writers[nw], &r.hdr)) {
				check_err(w[nw].err, sink);
				trace_writer_close(&w[nw]);
				break;
			}
	for (; rc == 0; rc = trace_next(&r, &rec)) {
		must(rec.op < TRACE_OP_NR);
		must(rec.dev < r.hdr.devs.n);
		must(rec.complete_ns == TRACE_NS_UNKNOWN || rec.complete_ns >= rec.issue_ns);
		must(rec.length <= UINT64_MAX - rec.offset);
		trace_stats_add(&st, &rec);
		for (int i = 0; i < nw; i++)
			if (trace_write(&w[i], &rec))
				check_err(w[i].err, sink);
	}
	must(rc == 1 || rc < 0);
	must(st.ios == r.count);
	must(trace_stats_footprint(&st) >= 0);
	must(trace_stats_log_pct(st.svc_hist, 0.99) <= trace_stats_log_pct(st.svc_hist, 1.0));
	if (rc < 0)
		check_err(r.err, path);
	for (int i = 0; i < nw; i++)
		if (trace_writer_close(&w[i]))
			check_err(w[i].err, sink);
	trace_close(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char head[4097];
	struct trace_opts opts = { 0 };
	size_t n = size < 4096 ? size : 4096;

	if (!fmt)
		setup();
	/* as trace_open() peeks: at most 4096 bytes, NUL-terminated */
	memcpy(head, data, n);
	head[n] = 0;
	trace_format_guess(head, n);
	must(!ftruncate(memfd, 0));
	must(pwrite(memfd, data, size, 0) == (ssize_t)size);
	read_all(&opts);
	if (!strcmp(fmt->name, "blkparse") || !strcmp(fmt->name, "blktrace")) {
		opts.queue_events = 1;
		read_all(&opts);
	}
	return 0;
}
