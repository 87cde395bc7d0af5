/*
 * replay.c - replays a block I/O trace (any format 'appio trace formats'
 * reads) against the target, open loop: every I/O is due at
 * t0 + T_i / --speed on the monotonic clock, T_i being its issue time in the
 * trace, and the core submits it then, whether or not earlier I/Os have
 * completed (up to the in-flight cap, --qd or four times the trace's own
 * maximum). So
 * the replay keeps the trace's arrival process, bursts included, and a slow
 * target shows as response time and issue lag rather than as a stretched
 * schedule (no coordinated omission). --timing afap drops the schedule and
 * replays at --qd in flight as fast as the target goes; --timing load too,
 * but submits each I/O only once fewer than the trace's in-flight count at
 * that I/O (itself included) are in flight, so the target sees the trace's
 * queue depths, moment by moment, at its own pace. --timing bounded keeps
 * the schedule and that bound both: an I/O goes out at its time, or later
 * when the trace's count is in flight already, as the application, whose
 * threads wait for their I/Os, would have issued it later on a slower drive.
 * Open loop alone piles up I/Os where the application would have waited
 * (on a quiet machine, a MariaDB capture replayed on its own drive had 5.7
 * requests in flight at a read's issue against the trace's 4.2, and a read
 * p99 2.4 times the recorded one).
 *
 * Flushes replay as flushes (fdatasync when the trace says datasync, else
 * fsync: the engine's flush), discards as discards (BLKDISCARD on a device,
 * hole punching on a file); a preflush write is a flush then the write, a
 * FUA write the write then a flush, both due at the write's time.
 *
 * Offsets are the trace's, aligned down to --align (lengths up); when a
 * device's footprint exceeds the target, --map refuses (error), wraps the
 * offsets around the target (wrap) or scales them into it (scale). The
 * trace's devices share the run's target, except those --device-map sends to
 * targets of their own (opened here, with the run's O_DIRECT and --force).
 *
 * Each worker replays the devices whose index modulo --threads is its id.
 * setup() reads the trace once first for its devices, footprint, largest
 * transfer and in-flight maximum, so the trace must be a file, not a pipe.
 * Then each worker has a feeder, a thread of its own started by
 * worker_init(), that streams the trace with the worker's own reader (no
 * sharing across workers), keeps the records of the worker's devices and
 * --ops, adds each loop's offset, and puts them in a bounded ring
 * (replay_feed.h) up to 16,384 records ahead of the replay. next_io() only
 * takes the next record from the ring: reading and parsing stay off the hot
 * path, and memory stays constant whatever the trace's length. A ring found
 * empty (the feeder behind) counts in "feed_waits", and the seconds it
 * happened in tell the accuracy verdict why the replay fell behind. The
 * feeder's end of the trace, or its reader's error, comes through the ring
 * after its last record.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "replay.h"
#include "replay_feed.h"

#define MAX_DISCARD (1ULL << 30)        /* discards are split into pieces this large */
#define MAX_BUFFERS (256ULL << 20)      /* bytes of I/O buffers a worker may hold */
#define PREFILL_NS  1000000000ULL       /* worker_init waits this long at most for a full ring */
#define REPLAY_CAP_HEADROOM 4           /* --timing trace, bounded: the default cap over the trace's maximum */

struct replay_worker {
	struct replay_feed feed;
	struct trace_reader rd;         /* the feeder's, once it runs */
	pthread_t feeder;
	struct replay_stats *st;
	uint64_t origin;                /* t0 of the schedule on the monotonic clock */
	struct trace_rec rec;           /* the record being replayed, its loop's offset added */
	uint8_t parts[3];               /* its I/Os: enum io_op */
	unsigned nparts, ipart;
	uint64_t disc_off, disc_left;   /* a discard being split */
	uint64_t last_cap;              /* cap_waits at the last completion */
};

static const char *const timing_names[] = { "trace", "afap", "load", "bounded", NULL };
static const char *const map_names[] = { "error", "wrap", "scale", NULL };

#define O(field) offsetof(struct replay_opts, field)
static const struct opt_def replay_opt_table[] = {
	{ "trace", OPT_STR, O(trace), NULL, "the trace to replay: a file ('appio trace formats'), or "
	  "the name of a bundled trace ('appio list')" },
	{ "from", OPT_STR, O(from), NULL, "the trace's format (default: guessed from its start)" },
	{ "timing", OPT_ENUM, O(timing), "trace",
	  "trace: each I/O at its time in the trace; afap: as fast as possible at --qd; load: as "
	  "fast as possible at the trace's own in-flight count of each I/O; bounded: at its time, "
	  "or later while the trace's in-flight count at it is in flight", timing_names },
	{ "speed", OPT_DOUBLE, O(speed), "1", "time scale: 2 replays twice as fast (> 0)" },
	{ "loops", OPT_UINT, O(loops), "1", "replay the trace this many times, back to back",
	  .min = 1, .max = 1000000 },
	{ "map", OPT_ENUM, O(map), "error",
	  "a footprint larger than the target: error, wrap (offsets modulo the size), scale",
	  map_names },
	{ "align", OPT_SIZE, O(align), NULL,
	  "align offsets down and lengths up to this (default: the target's logical block "
	  "size with O_DIRECT, else 512)", .max = 1ULL << 30 },
	{ "ops", OPT_STR, O(ops), "read,write,flush,discard",
	  "the ops to replay, a comma list of read, write, flush, discard" },
	{ "device-map", OPT_STRLIST, O(device_map), NULL,
	  "SRC=PATH: replay the trace's device SRC (its name or index) on PATH, an existing file "
	  "or device, instead of --target; repeatable" },
	{ "spin", OPT_UINT, O(spin_us), "1000",
	  "microseconds before an I/O's time to stop sleeping and spin: waking from a sleep can "
	  "take milliseconds on a virtual machine; less saves CPU and costs lag",
	  .min = 1, .max = 1000000 },
	{ "queue", OPT_BOOL, O(queue), NULL,
	  "blkparse/blktrace: take requests at their Q (queued) event, not D (issued)" },
	{ "cpu-load", OPT_STR, O(cpu_load), "off",
	  "hold the machine's CPUs this busy while replaying, with burner threads: off, a "
	  "percentage (0-100), or recorded (the share the capture noted: 'appio trace record' "
	  "notes it); service times on a busy machine are longer (docs/traces.md)" },
	OPT_END,
};
#undef O

static int bad(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* "read,flush" -> a mask of 1 << TRACE_OP_*; -1 for an unknown name. */
static int parse_ops(const char *s)
{
	char buf[128];
	int mask = 0;

	snprintf(buf, sizeof(buf), "%s", s);
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned op = 0;
		while (op < TRACE_OP_NR && strcmp(trace_op_name(op), w))
			op++;
		if (op == TRACE_OP_NR)
			return -1;
		mask |= 1 << op;
	}
	return mask ? mask : -1;
}

static bool replay_will_write(const void *opts, bool write_sweep)
{
	const struct replay_opts *o = opts;
	int mask = parse_ops(o->ops);

	(void)write_sweep;
	return mask < 0 || mask & (1 << TRACE_OP_WRITE | 1 << TRACE_OP_DISCARD);
}

/* What the first pass learns. */
struct scan {
	uint64_t n, last_ns, max_len;
	int32_t max_inflight;
	uint32_t max_dev_inflight_sum;
	bool writes;
};

/* Room for devices 0..n-1 in the per-device tables. */
static void grow_devs(struct replay_run *rr, uint32_t n, int32_t **dev_max)
{
	if (n <= rr->ndev)
		return;
	rr->extent = xrealloc(rr->extent, n * sizeof(*rr->extent));
	rr->names = xrealloc(rr->names, n * sizeof(*rr->names));
	rr->dev_tgt = xrealloc(rr->dev_tgt, n * sizeof(*rr->dev_tgt));
	*dev_max = xrealloc(*dev_max, n * sizeof(**dev_max));
	memset(rr->extent + rr->ndev, 0, (n - rr->ndev) * sizeof(*rr->extent));
	memset(rr->names + rr->ndev, 0, (n - rr->ndev) * sizeof(*rr->names));
	memset(rr->dev_tgt + rr->ndev, 0, (n - rr->ndev) * sizeof(*rr->dev_tgt));
	memset(*dev_max + rr->ndev, 0, (n - rr->ndev) * sizeof(**dev_max));
	rr->ndev = n;
}

static void scan_rec(struct replay_run *rr, struct scan *sc, const struct trace_rec *rec,
		     int32_t **dev_max)
{
	grow_devs(rr, rec->dev + 1, dev_max);
	if (rec->inflight > (*dev_max)[rec->dev])
		(*dev_max)[rec->dev] = rec->inflight;
	rr->has_inflight |= rec->inflight > 0;
	sc->last_ns = rec->issue_ns > sc->last_ns ? rec->issue_ns : sc->last_ns;
	if (!(rr->ops_mask & (1u << rec->op)))
		return;
	sc->n += 1 + (rec->op == TRACE_OP_WRITE && (rec->flags & TRACE_F_PREFLUSH)) +
		 (rec->op == TRACE_OP_WRITE && (rec->flags & TRACE_F_FUA));
	if (rec->op == TRACE_OP_FLUSH)
		return;
	sc->writes |= rec->op != TRACE_OP_READ;
	if (rec->op != TRACE_OP_DISCARD && rec->length > sc->max_len)
		sc->max_len = rec->length;
	uint64_t end = rec->offset + rec->length;
	if (end > rr->extent[rec->dev])
		rr->extent[rec->dev] = end;
}

/* One pass over the trace: devices, footprints, sizes, in flight; -EINVAL names the line. */
static int scan_trace(struct replay_run *rr, struct scan *sc,
		      volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	struct trace_reader r;
	struct trace_rec rec;
	int32_t *dev_max = NULL;
	int rc;

	memset(&r, 0, sizeof(r));
	if ((rc = trace_open(&r, rr->trace, rr->fmt, &rr->topts)) != 0) {
		rc = bad(err, errlen, "--trace: %s", r.err);
		goto out;
	}
	rr->fmt = r.fmt;
	const char *busy = trace_hdr_meta_get(&r.hdr, "capture.cpu_busy");
	if (!busy || sscanf(busy, "%lf", &rr->recorded_busy) != 1)
		rr->recorded_busy = -1;
	for (uint64_t n = 1; (rc = trace_next(&r, &rec)) == 0; n++) {
		scan_rec(rr, sc, &rec, &dev_max);
		if (!(n & 0xffff) && *stop) {
			rc = -EINTR;
			snprintf(err, errlen, "interrupted while reading the trace '%s'", rr->trace);
			goto out;
		}
	}
	if (rc < 0) {
		rc = bad(err, errlen, "--trace: %s", r.err);
		goto out;
	}
	rc = 0;
	grow_devs(rr, r.hdr.devs.n, &dev_max);
	for (uint32_t d = 0; d < r.hdr.devs.n; d++)
		memcpy(rr->names[d], r.hdr.devs.d[d].name, sizeof(rr->names[d]));
	for (uint32_t d = 0; d < rr->ndev; d++) {
		sc->max_dev_inflight_sum += dev_max[d] > 0 ? (uint32_t)dev_max[d] : 0;
		if (dev_max[d] > sc->max_inflight)
			sc->max_inflight = dev_max[d];
	}
	/* a loop lasts the trace plus one mean gap, so the seam is no burst */
	rr->period_ns = sc->last_ns + (r.count > 1 ? sc->last_ns / (r.count - 1) : 1000000);
	rr->ios_per_loop = sc->n;
out:
	free(dev_max);
	trace_close(&r);
	return rc;
}

static int check_fit(const struct replay_opts *o, const struct replay_run *rr,
		     const struct scan *sc, char *err, size_t errlen)
{
	for (uint32_t d = 0; d < rr->ndev; d++) {
		const struct target *t = &rr->tgt[rr->dev_tgt[d]];
		uint64_t size = rr->size[rr->dev_tgt[d]];
		uint64_t end = (rr->extent[d] + rr->align - 1) / rr->align * rr->align;
		if (rr->extent[d] && sc->max_len > size)
			return bad(err, errlen, "--trace: a %llu-byte transfer does not fit in the %llu "
				   "bytes of '%s'", (unsigned long long)sc->max_len,
				   (unsigned long long)size, t->path);
		if (o->map == REPLAY_MAP_ERROR && end > size)
			return bad(err, errlen, "--map error: device %u of the trace reaches byte %llu, "
				   "beyond the target's %llu bytes (use --map wrap or --map scale, or "
				   "a larger --size)", d, (unsigned long long)end,
				   (unsigned long long)size);
	}
	return 0;
}

/* The index of the trace's device @src (a name, or a number), or -1. */
static long find_dev(const struct replay_run *rr, const char *src, size_t len)
{
	char *end;
	unsigned long n = strtoul(src, &end, 10);

	for (uint32_t d = 0; d < rr->ndev; d++)
		if (strlen(rr->names[d]) == len && !strncmp(rr->names[d], src, len))
			return d;
	return end == src + len && len && n < rr->ndev ? (long)n : -1;
}

/* Open each --device-map target and point its device at it. */
static int open_map(struct emu_run *run, bool writes, char *err, size_t errlen)
{
	const struct replay_opts *o = run->opts;
	struct replay_run *rr = run->priv;
	char msg[400];

	for (unsigned i = 0; i < o->device_map.n; i++) {
		const char *m = o->device_map.v[i], *eq = strchr(m, '=');
		long d = eq ? find_dev(rr, m, (size_t)(eq - m)) : -1;
		if (!eq || !eq[1])
			return bad(err, errlen, "--device-map: expected SRC=PATH, got '%s'", m);
		if (d < 0)
			return bad(err, errlen, "--device-map: the trace has no device '%.*s'",
				   (int)(eq - m), m);
		if (rr->ntgt == REPLAY_MAX_TARGETS)
			return bad(err, errlen, "--device-map: at most %d entries", REPLAY_MAX_TARGETS);
		struct target *t = &rr->tgt[++rr->ntgt];
		struct target_open_args ta = { .path = eq + 1, .write = writes,
					       .direct = run->target->direct, .force = run->force };
		if (target_open(t, &ta, msg, sizeof(msg))) {
			rr->ntgt--;
			return bad(err, errlen, "--device-map: %s", msg);
		}
		if (t->kind == TARGET_DIR)
			return bad(err, errlen, "--device-map: '%s' is a folder", t->path);
		rr->dev_tgt[d] = (uint8_t)rr->ntgt;
	}
	return 0;
}

/* --cpu-load: one burner per CPU this process may use, as background workers */
static int setup_load(struct emu_run *run, char *err, size_t errlen)
{
	const struct replay_opts *o = run->opts;
	struct replay_run *rr = run->priv;
	double pct;
	char *end;

	if (!strcmp(o->cpu_load, "off"))
		return 0;
	if (!strcmp(o->cpu_load, "recorded")) {
		if (rr->recorded_busy < 0)
			return bad(err, errlen, "--cpu-load recorded: '%s' does not note the CPU busy share "
				   "of its capture (traces of 'appio trace record' do); give a percentage",
				   rr->trace);
		pct = rr->recorded_busy;
	} else {
		pct = strtod(o->cpu_load, &end);
		if (end == o->cpu_load || (*end && strcmp(end, "%")) || !(pct >= 0 && pct <= 100))
			return bad(err, errlen, "--cpu-load: expected off, recorded or a percentage "
				   "from 0 to 100, got '%s'", o->cpu_load);
	}
	cpu_set_t set;
	unsigned cpus = sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1;
	cpuload_init(&rr->load, pct, cpus, cpus);
	rr->load_on = true;
	run->bg_workers = cpus;
	return 0;
}

static int setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct replay_opts *o = run->opts;
	struct replay_run *rr = run->priv;
	const struct target *t = run->target;
	struct scan sc = { 0 };
	int mask = parse_ops(o->ops);
	int rc;

	if (!o->trace)
		return bad(err, errlen, "--trace: which trace? (--trace FILE)");
	if (!strcmp(o->trace, "-"))
		return bad(err, errlen, "--trace: the replay reads the trace more than once: "
			   "give a file, not '-'");
	if (mask < 0)
		return bad(err, errlen, "--ops: expected a comma list of read, write, flush, discard, "
			   "got '%s'", o->ops);
	if (!(o->speed > 0) || o->speed > 1e6)
		return bad(err, errlen, "--speed: expected a number above 0 (up to 1e6), got %g", o->speed);
	if (o->from && !(rr->fmt = trace_format_find(o->from)))
		return bad(err, errlen, "--from: unknown trace format '%s' (see 'appio trace formats')",
			   o->from);
	rr->trace = trace_resolve(o->trace, rr->trace_buf, sizeof(rr->trace_buf));
	rr->ops_mask = (unsigned)mask;
	rr->topts.queue_events = o->queue;
	rr->tgt[0] = *t;
	if ((rc = scan_trace(rr, &sc, run->stop, err, errlen)) != 0)
		return rc;
	if (!sc.n)
		return bad(err, errlen, "--trace: '%s' has no I/O to replay%s", rr->trace,
			   mask != 15 ? " with these --ops" : "");
	if ((rc = open_map(run, sc.writes, err, errlen)) != 0)
		return rc;
	if ((rc = setup_load(run, err, errlen)) != 0)
		return rc;
	unsigned lbs = t->direct ? t->lbs : 512;
	for (unsigned k = 0; k <= rr->ntgt; k++)
		lbs = rr->tgt[k].lbs > lbs ? rr->tgt[k].lbs : lbs;
	rr->align = o->align ? o->align : t->direct ? lbs : 512;
	if (t->direct && rr->align % lbs)
		return bad(err, errlen, "--align: %llu is not a multiple of the logical block size "
			   "(%u bytes) that O_DIRECT needs", (unsigned long long)rr->align, lbs);
	for (unsigned k = 0; k <= rr->ntgt; k++)
		rr->size[k] = rr->tgt[k].size / rr->align * rr->align;
	if ((rc = check_fit(o, rr, &sc, err, errlen)) != 0)
		return rc;
	if (replay_bounded(o->timing) && !rr->has_inflight)
		return bad(err, errlen, "--timing %s: '%s' tells neither in-flight counts nor "
			   "completion times to count them from", timing_names[o->timing], rr->trace);
	if (sc.max_len > MAX_BUFFERS)
		return bad(err, errlen, "--trace: a %llu-byte read or write; appio replays transfers "
			   "of up to %llu bytes", (unsigned long long)sc.max_len,
			   (unsigned long long)MAX_BUFFERS);
	run->max_io = (uint32_t)((sc.max_len + rr->align - 1) / rr->align * rr->align);
	if (!run->max_io)
		run->max_io = (uint32_t)rr->align;
	run->writes = sc.writes;
	/*
	 * The trace's own maximum in flight (64 when it does not tell), and on
	 * its own schedule REPLAY_CAP_HEADROOM times that, within the buffers'
	 * bound. The trace counts a request from its issue to the driver to its
	 * completion; the replayer from its submission to when it reaps the
	 * completion, which adds the block layer's queue and, on a busy machine,
	 * the milliseconds its thread waits for a CPU. At the same moment its
	 * count runs well above the trace's, and a cap at the trace's maximum
	 * held back I/Os that were due: measured on a MariaDB capture replayed
	 * on a loaded 2-core machine, the replay stopped being open loop from
	 * its first second and its service times grew with the queue it built.
	 */
	uint64_t qd = sc.max_dev_inflight_sum ? sc.max_dev_inflight_sum : 64;
	if (replay_scheduled(o->timing))
		qd *= REPLAY_CAP_HEADROOM;
	uint64_t most = MAX_BUFFERS / run->max_io;
	rr->qd = (unsigned)(qd < most ? qd : most ? most : 1);
	if (rr->qd > 4096)
		rr->qd = 4096;
	run->qd = rr->qd;
	run->spin_ns = o->spin_us * 1000;
	if (replay_scheduled(o->timing))
		run->expect_ns = (uint64_t)((double)rr->period_ns * (double)o->loops / o->speed) +
				 REPLAY_LEAD_NS;
	return 0;
}

static void release(struct replay_run *rr)
{
	for (unsigned k = 1; k <= rr->ntgt; k++)
		target_close(&rr->tgt[k]);
	rr->ntgt = 0;
	free(rr->extent);
	free(rr->names);
	free(rr->dev_tgt);
	rr->extent = NULL;
	rr->names = NULL;
	rr->dev_tgt = NULL;
}

/* teardown() does not follow a failed setup(): free here what it made */
static int replay_setup(struct emu_run *run, char *err, size_t errlen)
{
	struct replay_run *rr = run->priv;
	int rc = setup(run, err, errlen);

	if (rc)
		release(rr);
	return rc;
}

static void replay_info(struct emu_run *run)
{
	const struct replay_opts *o = run->opts;
	const struct replay_run *rr = run->priv;
	char buf[320];

	snprintf(buf, sizeof(buf), "'%s' (%s), %u device(s), %llu I/Os per loop", rr->trace,
		 rr->fmt ? rr->fmt->name : "?", rr->ndev, (unsigned long long)rr->ios_per_loop);
	emu_info(run, "replay.trace", buf);
	snprintf(buf, sizeof(buf), "%s, speed %g, %llu loop(s), map %s, align %llu, ops %s",
		 timing_names[o->timing], o->speed, (unsigned long long)o->loops, map_names[o->map],
		 (unsigned long long)rr->align, o->ops);
	emu_info(run, "replay.mode", buf);
	snprintf(buf, sizeof(buf), "%u", rr->qd);
	emu_info(run, "replay.trace_qd", buf);
	for (uint32_t d = 0; d < rr->ndev; d++) {
		char key[80];
		if (!rr->dev_tgt[d])
			continue;
		snprintf(key, sizeof(key), "replay.device.%.48s", rr->names[d]);
		snprintf(buf, sizeof(buf), "%.300s", rr->tgt[rr->dev_tgt[d]].path);
		emu_info(run, key, buf);
	}
}

/* Open the worker's reader at the trace's start: 0, or -errno with rw->rd.err. */
static int open_reader(struct replay_worker *rw, const struct replay_run *rr, const char *path)
{
	trace_close(&rw->rd);
	memset(&rw->rd, 0, sizeof(rw->rd));
	int rc = trace_open(&rw->rd, path, rr->fmt, &rr->topts);
	/* read by one thread alone, the feeder: no stdio lock per line */
	if (!rc && rw->rd.f)
		__fsetlocking(rw->rd.f, FSETLOCKING_BYCALLER);
	return rc;
}

/* Does worker @w replay @rec? Its devices, the --ops. */
static bool mine(const struct emu_worker *w, const struct replay_run *rr, const struct trace_rec *rec)
{
	return rec->dev % w->pt->threads == w->id && (rr->ops_mask & (1u << rec->op));
}

/*
 * The feeder: the trace, --loops times, into the worker's ring. Ends with the
 * feed's final status, or at once when the worker cancels it; a loop that
 * holds nothing for this worker ends the feed, as the next ones would too.
 */
static void *feeder_main(void *arg)
{
	struct emu_worker *w = arg;
	struct replay_worker *rw = w->priv;
	const struct replay_run *rr = w->run->priv;
	const struct replay_opts *o = w->run->opts;
	struct replay_feed *f = &rw->feed;
	uint64_t loop = 0, loop_off = 0, kept = 0;
	struct trace_rec rec;

	for (uint64_t n = 1;; n++) {
		int rc = trace_next(&rw->rd, &rec);
		if (rc < 0) {
			replay_feed_finish(f, -EINVAL, rw->rd.err);
			return NULL;
		}
		if (rc == 1) {
			if (++loop >= o->loops || !kept) {
				replay_feed_finish(f, REPLAY_FEED_END, NULL);
				return NULL;
			}
			loop_off += rr->period_ns;
			kept = 0;
			if ((rc = open_reader(rw, rr, rr->trace)) != 0) {
				replay_feed_finish(f, rc, rw->rd.err);
				return NULL;
			}
			continue;
		}
		if (mine(w, rr, &rec)) {
			rec.issue_ns += loop_off;
			kept++;
			if (replay_feed_put(f, &rec))
				return NULL;
		} else if (!(n & 0xfff) && replay_feed_cancelled(f)) {
			return NULL;
		}
	}
}

static int replay_worker_init(struct emu_worker *w)
{
	struct replay_run *rr = w->run->priv;
	const struct replay_opts *o = w->run->opts;
	struct replay_worker *rw = w->priv;
	int rc;

	if (w->background) {            /* a --cpu-load burner; the first one steers */
		if (w->id == w->pt->threads)
			rr->load.started = false;
		return 0;
	}
	struct replay_stats *st = xcalloc(1, sizeof(*st));

	/* seconds of the whole schedule, a few more for lag; beyond, the last second counts */
	double secs = (double)rr->period_ns * (double)o->loops / o->speed / 1e9;
	st->nsec = secs < 1e7 ? (uint64_t)secs + 3 : 10000003;
	st->due = xcalloc(st->nsec, sizeof(*st->due));
	st->done = xcalloc(st->nsec, sizeof(*st->done));
	st->late = xcalloc(st->nsec, sizeof(*st->late));
	st->capped = xcalloc(st->nsec, 1);
	st->starved = xcalloc(st->nsec, 1);
	st->first_due = st->first_sub = UINT64_MAX;
	replay_stats_free(rr->ws[w->id]);
	rr->ws[w->id] = st;
	rw->st = st;
	if ((rc = open_reader(rw, rr, rr->trace)) != 0) {
		emu_fail(w, rc, "--trace: %s", rw->rd.err);
		goto fail;
	}
	replay_feed_init(&rw->feed, replay_feed_size(w->pt->threads));
	if ((rc = pthread_create(&rw->feeder, NULL, feeder_main, w)) != 0) {
		rc = emu_fail(w, -rc, "cannot start the thread reading the trace: %s", strerror(rc));
		replay_feed_release(&rw->feed);
		goto fail;
	}
	/* the clock has not started: let the feeder get ahead before the first I/O */
	for (uint64_t end = emu_now() + PREFILL_NS; !replay_feed_ready(&rw->feed) && emu_now() < end;)
		nanosleep(&(struct timespec){ .tv_nsec = 1000000 }, NULL);
	return 0;
fail:
	trace_close(&rw->rd);
	return rc;
}

static void replay_worker_fini(struct emu_worker *w)
{
	struct replay_worker *rw = w->priv;

	if (w->background)
		return;
	replay_feed_cancel(&rw->feed);
	pthread_join(rw->feeder, NULL);
	trace_close(&rw->rd);
	replay_feed_release(&rw->feed);
	emu_count(w, RCN_CAP_WAITS, w->cap_waits);
}

/* The record's offset on the target: aligned, mapped, inside. */
static uint64_t map_off(const struct replay_run *rr, int map, uint32_t dev, uint64_t off, uint64_t len)
{
	uint64_t size = rr->size[rr->dev_tgt[dev]];

	if (map == REPLAY_MAP_WRAP)
		off %= size;
	else if (map == REPLAY_MAP_SCALE && rr->extent[dev] > size)
		off = (uint64_t)((unsigned __int128)off * size / rr->extent[dev]);
	off = off / rr->align * rr->align;
	if (off + len > size)
		off = len < size ? (size - len) / rr->align * rr->align : 0;
	return off;
}

/* The I/Os of one record; false when it has none to replay. */
static bool plan(struct emu_worker *w, const struct trace_rec *rec)
{
	const struct replay_run *rr = w->run->priv;
	struct replay_worker *rw = w->priv;
	uint8_t flush = rec->flags & TRACE_F_DATASYNC ? IO_FDATASYNC : IO_FSYNC;

	rw->nparts = rw->ipart = 0;
	if (rec->op != TRACE_OP_FLUSH && !rec->length) {
		emu_count(w, RCN_SKIPPED, 1);
		return false;
	}
	if (rec->op == TRACE_OP_WRITE && (rec->flags & TRACE_F_PREFLUSH))
		rw->parts[rw->nparts++] = flush;
	rw->parts[rw->nparts++] = rec->op == TRACE_OP_READ ? IO_READ : rec->op == TRACE_OP_WRITE ?
				  IO_WRITE : rec->op == TRACE_OP_FLUSH ? flush : IO_DISCARD;
	if (rec->op == TRACE_OP_WRITE && (rec->flags & TRACE_F_FUA))
		rw->parts[rw->nparts++] = flush;
	if (rec->op == TRACE_OP_DISCARD) {
		uint64_t len = (rec->length + rr->align - 1) / rr->align * rr->align;
		uint64_t size = rr->size[rr->dev_tgt[rec->dev]];
		rw->disc_left = len < size ? len : size;
		rw->disc_off = map_off(rr, ((const struct replay_opts *)w->run->opts)->map, rec->dev,
				       rec->offset, rw->disc_left);
	}
	return true;
}

static bool feed_stop(void *w)
{
	return emu_stopping(w);
}

/* The next record of this worker from its feeder; 1 at the end of the last loop. */
static int next_rec(struct emu_worker *w)
{
	struct replay_worker *rw = w->priv;

	for (;;) {
		uint64_t waits = rw->feed.waits;
		int rc = replay_feed_get(&rw->feed, &rw->rec, feed_stop, w);
		if (rw->feed.waits != waits) {
			/* the feeder fell behind: cold, the ring was empty */
			uint64_t now = emu_now(), sec = now > rw->origin ? (now - rw->origin) / 1000000000ULL : 0;
			rw->st->starved[sec < rw->st->nsec ? sec : rw->st->nsec - 1] = 1;
			emu_count(w, RCN_FEED_WAITS, 1);
		}
		if (rc < 0)
			return emu_fail(w, rc, "--trace: %s", replay_feed_error(&rw->feed));
		if (rc != REPLAY_FEED_REC)
			return 1;
		if (plan(w, &rw->rec))
			return 0;
	}
}

static int replay_next_io(struct emu_worker *w, struct io_req *r)
{
	const struct replay_run *rr = w->run->priv;
	const struct replay_opts *o = w->run->opts;
	struct replay_worker *rw = w->priv;
	const struct trace_rec *rec = &rw->rec;

	if (!rw->origin)
		rw->origin = w->t0 + REPLAY_LEAD_NS;
	if (rw->ipart == rw->nparts) {
		int rc = next_rec(w);
		if (rc)
			return rc;
	}
	uint8_t op = rw->parts[rw->ipart];
	r->op = op;
	r->cls = op == IO_READ ? RC_READ : op == IO_WRITE ? RC_WRITE : op == IO_DISCARD ?
		 RC_DISCARD : RC_FLUSH;
	r->off = 0;
	r->len = 0;
	r->fd = rr->tgt[rr->dev_tgt[rec->dev]].fd;
	if (op == IO_DISCARD) {
		r->off = rw->disc_off;
		r->len = (uint32_t)(rw->disc_left < MAX_DISCARD ? rw->disc_left : MAX_DISCARD);
		rw->disc_off += r->len;
		rw->disc_left -= r->len;
		if (!rw->disc_left || rw->disc_off >= rr->size[rr->dev_tgt[rec->dev]])
			rw->ipart++;
	} else {
		if (op <= IO_WRITE) {
			uint64_t len = (rec->length + rr->align - 1) / rr->align * rr->align;
			r->len = (uint32_t)len;
			r->off = map_off(rr, o->map, rec->dev, rec->offset, len);
		}
		rw->ipart++;
	}
	uint64_t due = (uint64_t)((double)rec->issue_ns / o->speed);
	uint64_t sec = due / 1000000000ULL;
	struct replay_stats *st = rw->st;
	st->due[sec < st->nsec ? sec : st->nsec - 1]++;
	if (due < st->first_due)
		st->first_due = due;
	if (due > st->last_due)
		st->last_due = due;
	st->ios++;
	if (replay_scheduled(o->timing))
		r->t_intended = rw->origin + due;
	if (replay_bounded(o->timing))
		w->inflight_limit = rec->inflight > 0 ? (unsigned)rec->inflight : 1;
	return 0;
}

static void replay_complete_io(struct emu_worker *w, const struct io_req *r, uint64_t t_done)
{
	struct replay_worker *rw = w->priv;
	struct replay_stats *st = rw->st;
	uint64_t sub = r->t_start > rw->origin ? r->t_start - rw->origin : 0;
	uint64_t sec = sub / 1000000000ULL;

	(void)t_done;
	if (sec >= st->nsec)
		sec = st->nsec - 1;
	st->done[sec]++;
	if (sub < st->first_sub)
		st->first_sub = sub;
	if (sub > st->last_sub)
		st->last_sub = sub;
	if (w->cap_waits != rw->last_cap) {
		st->capped[sec] = 1;
		rw->last_cap = w->cap_waits;
	}
	if (r->t_intended && r->t_start - r->t_intended > REPLAY_LATE_NS) {
		uint64_t due = (r->t_intended - rw->origin) / 1000000000ULL;
		st->late[due < st->nsec ? due : st->nsec - 1]++;
		emu_count(w, RCN_LATE, 1);
	}
}

/* A --cpu-load burner's period. */
static int replay_bg_step(struct emu_worker *w)
{
	struct replay_run *rr = w->run->priv;

	cpuload_period(&rr->load, w->id - w->pt->threads);
	return 0;
}

static void point_end(struct emu_run *run, const struct point_result *p)
{
	struct replay_run *rr = run->priv;
	char key[40], buf[96];

	if (rr->load_on) {      /* keyed as replay_point_end keys this point's figures */
		if (rr->npoints)
			snprintf(key, sizeof(key), "replay.%u.cpu_load", rr->npoints + 1);
		else
			snprintf(key, sizeof(key), "replay.cpu_load");
		snprintf(buf, sizeof(buf), "%.1f %% held, %.1f %% reached (the machine's CPUs busy)",
			 rr->load.target_pct, cpuload_reached_pct(&rr->load));
		emu_info(run, key, buf);
	}
	replay_point_end(run, p);
}

static void replay_teardown(struct emu_run *run)
{
	struct replay_run *rr = run->priv;

	for (unsigned i = 0; i < REPLAY_MAX_WORKERS; i++) {
		replay_stats_free(rr->ws[i]);
		rr->ws[i] = NULL;
	}
	release(rr);
}

static void replay_describe(const void *opts, const char **name, const char **engine)
{
	(void)opts;
	(void)engine;
	*name = "replay";
}

const struct emu_ops emu_replay = {
	.name = "replay",
	.desc = "replays a block I/O trace on its own schedule (open loop), or as fast as possible",
	.flags = EMU_TOTAL | EMU_WRITES | EMU_SCHEDULED,
	.opts = replay_opt_table,
	.opts_size = sizeof(struct replay_opts),
	.run_priv_size = sizeof(struct replay_run),
	.worker_priv_size = sizeof(struct replay_worker),
	.classes = (const char *const[]){
		"read", "write", "flush", "discard",
		"read.response", "write.response", "flush.response", "discard.response",
		"read.lag", "write.lag", "flush.lag", "discard.lag", NULL },
	.counters = (const char *const[]){ "skipped", "late_1ms", "cap_waits", "feed_waits", NULL },
	.default_args = "--time 86400",
	.will_write = replay_will_write,
	.setup = replay_setup,
	.info = replay_info,
	.worker_init = replay_worker_init,
	.next_io = replay_next_io,
	.complete_io = replay_complete_io,
	.worker_fini = replay_worker_fini,
	.bg_step = replay_bg_step,
	.point_end = point_end,
	.teardown = replay_teardown,
	.describe = replay_describe,
	.summary = replay_summary,
};
