/*
 * runner.c - runs the sweep points: starts the workers together, keeps time,
 * collects the per-second series while they run, merges their statistics
 * when they are done, and saves the result after every point so that an
 * interrupted or failed run still leaves what it measured.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "appio/runner.h"
#include "mpi_run.h"
#include "series.h"
#include "worker.h"
#include "appio/xalloc.h"

#define TICK_NS (NSEC / 10)     /* how often the runner looks at the workers */

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / NSEC), .tv_nsec = (long)(t % NSEC) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

static unsigned count_names(const char *const *names)
{
	unsigned n = 0;
	while (names && names[n])
		n++;
	return n;
}

/* Take every buffer the workers sealed (or, after the join, all of them). */
static void collect(struct series *s, struct worker *w, unsigned nw, bool joined)
{
	for (unsigned i = 0; i < nw; i++) {
		for (int b = 0; b < 2; b++) {
			struct ival *iv = &w[i].iv[b];
			bool sealed = atomic_load_explicit(&iv->sealed, memory_order_acquire);
			if (!sealed && !(joined && b == (int)w[i].cur))
				continue;
			series_add(s, joined && !sealed ? w[i].cur_sec : iv->sec, iv->c);
			worker_ival_return(iv, s->ncls);
		}
	}
}

/* Index of the class the table headlines, or -1 for all of them. */
static const char *const *run_classes(const struct emu_run *er)
{
	return er->classes ? er->classes : er->ops->classes;
}

static const char *const *run_counters(const struct emu_run *er)
{
	return er->counters ? er->counters : er->ops->counters;
}

static int headline_index(const struct emu_run *er)
{
	const char *const *cls = run_classes(er);

	for (int i = 0; er->headline && cls[i]; i++)
		if (!strcmp(cls[i], er->headline))
			return i;
	return -1;
}

static void progress(const struct point_ctx *pc, const struct series *s,
		     unsigned idx, unsigned npoints, uint64_t now)
{
	const struct run_config *cfg = pc->cfg;
	char lat[32], head[64];
	uint64_t run_ns = pc->er->expect_ns && pc->er->expect_ns < cfg->time_ns ? pc->er->expect_ns :
			  cfg->time_ns;
	double el = (double)(now - pc->t_start) / NSEC;
	char total[32] = "";    /* none for a point its count alone ends */
	if (!pc->counted)
		snprintf(total, sizeof(total), "/%.0f", (double)(cfg->ramp_ns + run_ns) / NSEC);
	int n = snprintf(head, sizeof(head), "[%u/%u] %uT", idx + 1, npoints, pc->pt->threads);
	if (!pc->er->ops->step)
		snprintf(head + n, sizeof(head) - (size_t)n, "/%uQ", pc->pt->qd);

	if (now < pc->t_measure + NSEC) {       /* no complete measured second yet */
		fprintf(stderr, "\r\033[K%s  %.0f%s s  %s", head, el, total,
			now < pc->t_measure ? "ramp" : "measuring");
	} else {
		struct sec_cls sum;
		int64_t sec = (int64_t)((now - pc->t_measure) / NSEC) - 1;
		series_second(s, sec, headline_index(pc->er), &sum);
		fprintf(stderr, "\r\033[K%s  %.0f%s s  %s %.0f  %.1f MB/s  mean %s", head,
			el, total, pc->er->headline ? "TPS" : "IOPS", (double)sum.ops,
			(double)sum.bytes / 1e6,
			fmt_ns(sum.ops ? (double)sum.sum_ns / (double)sum.ops : 0, lat, sizeof(lat)));
	}
	fflush(stderr);
}

/* SysBench's --report-interval: a plain line per interval, terminal or not. */
static void interval_report(const struct point_ctx *pc, const struct series *s, int64_t last)
{
	unsigned n = pc->cfg->report_interval_s;
	struct sec_cls sum = { 0 }, one;
	char lat[32];

	for (int64_t sec = last - (int64_t)n + 1; sec <= last; sec++) {
		series_second(s, sec, headline_index(pc->er), &one);
		sum.ops += one.ops;
		sum.bytes += one.bytes;
		sum.sum_ns += one.sum_ns;
	}
	fprintf(stderr, "[ %llds ] threads %u  %s %.1f  %.1f MB/s  mean %s\n", (long long)last + 1,
		pc->pt->threads, pc->er->headline ? "TPS" : "IOPS", (double)sum.ops / n,
		(double)sum.bytes / 1e6 / n,
		fmt_ns(sum.ops ? (double)sum.sum_ns / (double)sum.ops : 0, lat, sizeof(lat)));
}

/* The runner's side while the workers run: time, interrupts, series, progress. */
/* The device's counters now; -errno when there are none to read. */
static int read_dev_stats(const struct target *t, struct dev_stats *d)
{
	char path[160];
	unsigned long long v[17] = { 0 };

	if (!t || !*t->dev)
		return -ENOENT;
	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", t->dev);
	FILE *f = fopen(path, "r");
	if (!f)
		return -errno;
	int n = 0;
	while (n < 17 && fscanf(f, "%llu", &v[n]) == 1)
		n++;
	fclose(f);
	if (n < 11)
		return -EINVAL;
	/* fields: reads, merges, sectors, ms, writes, merges, sectors, ms, in flight, busy ms, ...,
	   and from Linux 5.5 on, flushes as field 15 (0-based) */
	*d = (struct dev_stats){
		.valid = true, .reads = v[0], .read_bytes = v[2] * 512, .writes = v[4],
		.write_bytes = v[6] * 512, .busy_ms = v[9], .flushes = n >= 17 ? v[15] : 0,
	};
	return 0;
}

static struct dev_stats dev_stats_delta(const struct dev_stats *a, const struct dev_stats *b)
{
	return (struct dev_stats){
		.valid = true, .reads = b->reads - a->reads,
		.read_bytes = b->read_bytes - a->read_bytes, .writes = b->writes - a->writes,
		.write_bytes = b->write_bytes - a->write_bytes, .flushes = b->flushes - a->flushes,
		.busy_ms = b->busy_ms - a->busy_ms,
	};
}

/* Why this rank's point is ending early, for the other ranks (mpi_run_poll). */
static enum mpi_stop stop_reason(struct point_ctx *pc, bool interrupted)
{
	if (interrupted)
		return MPI_RUN_INTERRUPTED;
	if (atomic_load(&pc->failed))
		return MPI_RUN_FAILED;
	return atomic_load(&pc->stop) ? MPI_RUN_DONE : MPI_RUN_GO;
}

static bool supervise(struct point_ctx *pc, struct worker *w, unsigned nw,
		      struct series *s, unsigned idx, unsigned npoints, struct dev_stats *dev0)
{
	const struct run_config *cfg = pc->cfg;
	bool show = cfg->progress && isatty(STDERR_FILENO) && mpi_run_root();
	bool interrupted = false, told = false;
	uint64_t next_show = pc->t_start + NSEC;
	unsigned every = mpi_run_root() ? cfg->report_interval_s : 0;
	int64_t next_report = every;    /* measured seconds complete before the next line */

	/* ticks fall half a tick after second boundaries, when workers have handed seconds over */
	for (uint64_t t = pc->t_start + TICK_NS / 2;; t += TICK_NS) {
		sleep_until(t);
		uint64_t now = emu_now();
		if (cfg->interrupted && *cfg->interrupted && !interrupted) {
			interrupted = true;
			uint64_t end = atomic_load(&pc->t_end);
			if (now < end)
				atomic_store(&pc->t_end, now);
			atomic_store(&pc->stop, true);
		}
		if (!told && mpi_run_poll(stop_reason(pc, interrupted), cfg->stonewall)) {
			told = true;    /* another rank failed, was stopped, or finished first */
			uint64_t end = atomic_load(&pc->t_end);
			if (now < end)
				atomic_store(&pc->t_end, now);
			atomic_store(&pc->stop, true);
		}
		if (!dev0->valid && now >= pc->t_measure)
			read_dev_stats(cfg->target, dev0);
		collect(s, w, nw, false);
		series_flush_before(s, (int64_t)((now - pc->t_measure) / NSEC) - 3);
		bool ended = now >= atomic_load(&pc->t_end) || atomic_load(&pc->stop);
		int64_t done = now > pc->t_measure ? (int64_t)((now - pc->t_measure) / NSEC) : 0;
		if (every && done >= next_report && !ended) {
			if (show)
				fputs("\r\033[K", stderr);
			interval_report(pc, s, next_report - 1);
			next_report += every;
		}
		if (show && now >= next_show && !ended) {
			progress(pc, s, idx, npoints, now);
			next_show += NSEC;
		}
		if (ended)
			break;
	}
	if (show)
		fputs("\r\033[K", stderr);
	return interrupted;
}

static void fill_class(struct cls_result *c, const char *name, const struct hist *h,
		       uint64_t bytes, const uint64_t *sizes, double secs)
{
	c->name = name;
	c->ops = h->count;
	c->bytes = bytes;
	c->ops_per_s = secs > 0 ? (double)h->count / secs : 0;
	c->mb_per_s = secs > 0 ? (double)bytes / 1e6 / secs : 0;
	c->lat = (struct lat_summary){
		.mean = hist_mean(h), .stddev = hist_stddev(h), .min = hist_min(h),
		.p50 = hist_percentile(h, 50), .p90 = hist_percentile(h, 90),
		.p99 = hist_percentile(h, 99), .p999 = hist_percentile(h, 99.9),
		.p9999 = hist_percentile(h, 99.99), .max = h->count ? h->max : 0,
	};
	result_cls_keep_hist(c, h);     /* any other percentile, later (--slo p95) */
	memcpy(c->sizes, sizes, sizeof(c->sizes));
}

/* A scheduled emulator's "response" and "lag": its second and third thirds of classes merged. */
static void merge_groups(struct point_result *p, const struct point_ctx *pc,
			 const struct worker *w, unsigned nw, double secs, struct hist *hs)
{
	static const char *const names[] = { "response", "lag" };
	uint64_t none[RESULT_SIZE_BUCKETS] = { 0 };
	unsigned n = pc->ncls / 3;

	for (unsigned g = 1; g <= 2; g++) {
		struct hist *h = &hs[p->ncls];
		hist_init(h);
		for (unsigned c = g * n; c < (g + 1) * n; c++)
			for (unsigned i = 0; i < nw; i++)
				hist_merge(h, &w[i].hist[c]);
		fill_class(&p->cls[p->ncls++], names[g - 1], h, 0, none, secs);
	}
}

/*
 * Merge the workers' statistics into @p, keeping each class's merged
 * histogram in @hs (RESULT_MAX_CLASSES of them) for a merge across ranks.
 */
static void merge_point(struct point_result *p, const struct point_ctx *pc,
			const struct worker *w, unsigned nw, double secs, struct hist *hs)
{
	const struct emu_ops *emu = pc->er->ops;
	unsigned ncls = pc->ncls;
	struct hist *all = &hs[ncls];
	uint64_t all_bytes = 0, all_sizes[RESULT_SIZE_BUCKETS] = { 0 };

	hist_init(all);
	unsigned nbase = emu->flags & EMU_SCHEDULED ? ncls / 3 : ncls;
	for (unsigned c = 0; c < ncls; c++) {
		uint64_t bytes = 0, sizes[RESULT_SIZE_BUCKETS] = { 0 };
		struct hist *h = &hs[c];
		hist_init(h);
		for (unsigned i = 0; i < nw; i++) {
			hist_merge(h, &w[i].hist[c]);
			bytes += w[i].bytes[c];
			for (unsigned b = 0; b < RESULT_SIZE_BUCKETS; b++)
				sizes[b] += w[i].sizes[c][b];
		}
		fill_class(&p->cls[c], run_classes(pc->er)[c], h, bytes, sizes, secs);
		if (c >= nbase)
			continue;
		hist_merge(all, h);
		all_bytes += bytes;
		for (unsigned b = 0; b < RESULT_SIZE_BUCKETS; b++)
			all_sizes[b] += sizes[b];
	}
	p->ncls = ncls;
	if (emu->flags & EMU_TOTAL)
		fill_class(&p->cls[p->ncls++], "total", all, all_bytes, all_sizes, secs);
	if (emu->flags & EMU_SCHEDULED)
		merge_groups(p, pc, w, nw, secs, hs);
	p->ncounters = pc->ncounters;
	p->counter_names = run_counters(pc->er);
	for (unsigned i = 0; i < nw; i++) {
		for (unsigned k = 0; k < pc->ncounters; k++)
			p->counters[k] += w[i].counters[k];
		p->events += w[i].events;
	}
}

/*
 * Under MPI: merge the point across ranks and agree on how it ended; the
 * classes are summarised again from the merged histograms. Returns the
 * agreed rc (rank 0 gets the failing rank's message in @err).
 */
static int merge_ranks(struct point_result *p, struct hist *hs, const struct emu_run *er,
		       int rc, const char *msg, char *err, size_t errlen)
{
	int head = headline_index(er);
	double secs = p->time_s;

	if (head < 0) {         /* "total" when there is one, else the first class */
		const struct cls_result *t = point_class(p, "total");
		head = t ? (int)(t - p->cls) : 0;
	}
	struct mpi_point mp = { .p = p, .hists = hs, .rc = rc, .err = msg, .headline = head };
	rc = mpi_run_point_end(&mp, &secs, err, errlen);
	for (unsigned c = 0; c < p->ncls; c++) {
		uint64_t sizes[RESULT_SIZE_BUCKETS];
		memcpy(sizes, p->cls[c].sizes, sizeof(sizes));
		fill_class(&p->cls[c], p->cls[c].name, &hs[c], p->cls[c].bytes, sizes, secs);
	}
	return rc;
}

/* Start the workers and wait until each is set up; returns how many started. */
static unsigned start_workers(struct point_ctx *pc, struct worker *w)
{
	unsigned n = pc->pt->threads + pc->er->bg_workers, started = 0;

	pthread_mutex_init(&pc->gate_lock, NULL);
	pthread_cond_init(&pc->gate_cv, NULL);
	for (; started < n; started++) {
		worker_alloc(&w[started], pc, started);
		int rc = pthread_create(&w[started].tid, NULL, worker_main, &w[started]);
		if (rc) {
			worker_release(&w[started]);
			snprintf(pc->err, sizeof(pc->err), "cannot start worker thread %u: %s",
				 started, strerror(rc));
			atomic_store(&pc->failed, -rc);
			break;
		}
	}
	pthread_mutex_lock(&pc->gate_lock);
	while (pc->gate_ready < started)
		pthread_cond_wait(&pc->gate_cv, &pc->gate_lock);
	pthread_mutex_unlock(&pc->gate_lock);
	return started;
}

/* Set the point's clock and release the workers together. */
static void open_gate(struct point_ctx *pc)
{
	const struct run_config *cfg = pc->cfg;
	uint64_t at = mpi_run_start_at();       /* under MPI: every rank at once */

	if (at)
		sleep_until(at);
	pthread_mutex_lock(&pc->gate_lock);
	pc->t_start = emu_now();
	pc->t_measure = pc->t_start + cfg->ramp_ns;
	uint64_t end = pc->counted ? UINT64_MAX : pc->t_measure + cfg->time_ns;
	atomic_store(&pc->t_end, atomic_load(&pc->failed) ? pc->t_start : end);
	pc->gate_go = true;
	pthread_cond_broadcast(&pc->gate_cv);
	pthread_mutex_unlock(&pc->gate_lock);
}

/* CPU seconds (user + system) this process has used so far. */
static double process_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		return 0;
	return (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	       (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

static int run_point(const struct run_config *cfg, struct emu_run *er, unsigned idx,
		     struct result *res, char *err, size_t errlen)
{
	struct emu_point pt = cfg->points[idx];
	struct point_ctx pc = { .cfg = cfg, .er = er, .pt = &pt, .idx = idx };
	struct dev_stats dev0 = { 0 }, dev1 = { 0 };
	struct series s;

	if (er->qd && !cfg->qd_given)
		pt.qd = er->qd;
	/* a point the emulator bounds by its own count has no time limit */
	pc.max_events = er->ops->point_events ? er->ops->point_events(er, idx) : 0;
	pc.counted = pc.max_events != 0;
	if (!pc.max_events)
		pc.max_events = cfg->events;
	pc.ncls = count_names(run_classes(er));
	pc.ncounters = count_names(run_counters(er));
	/* a worker's arrays hold this many (an emulator's mistake, not the user's) */
	if (pc.ncls > EMU_MAX_CLASSES || pc.ncounters > EMU_MAX_COUNTERS) {
		snprintf(err, errlen, "%s: %u latency classes and %u counters, at most %d and %d",
			 er->ops->name, pc.ncls, pc.ncounters, EMU_MAX_CLASSES, EMU_MAX_COUNTERS);
		return -EINVAL;
	}
	struct worker *w = xaligned(64, (pc.pt->threads + er->bg_workers) * sizeof(*w));
	series_init(&s, pc.ncls, er->ops->flags & EMU_SCHEDULED ? 3 : er->ops->flags & EMU_TOTAL ? 1 : 0);
	unsigned n = start_workers(&pc, w);
	if (!cfg->ramp_ns)      /* else supervise() reads them when the ramp ends */
		read_dev_stats(cfg->target, &dev0);
	open_gate(&pc);
	double cpu0 = process_cpu();

	bool interrupted = supervise(&pc, w, n, &s, idx, cfg->npoints, &dev0);
	for (unsigned i = 0; i < n; i++)
		pthread_join(w[i].tid, NULL);
	collect(&s, w, n, true);
	series_flush_before(&s, INT64_MAX);

	uint64_t end = atomic_load(&pc.t_end);
	double secs = end > pc.t_measure ? (double)(end - pc.t_measure) / NSEC : 0;
	struct point_result *p = result_add_point(res);
	struct hist *hs = xaligned(64, RESULT_MAX_CLASSES * sizeof(*hs));
	p->pt = *pc.pt;
	p->time_s = secs;
	p->cpu_s = process_cpu() - cpu0;
	p->partial = interrupted || atomic_load(&pc.failed) != 0;
	p->headline = er->headline;
	merge_point(p, &pc, w, n, secs, hs);
	if (dev0.valid && read_dev_stats(cfg->target, &dev1) == 0)
		p->dev = dev_stats_delta(&dev0, &dev1);
	series_export(&s, p, secs);

	int rc = atomic_load(&pc.failed);
	if (mpi_run_active())
		rc = merge_ranks(p, hs, er, rc ? rc : interrupted ? -EINTR : 0, pc.err, err, errlen);
	else if (rc)
		snprintf(err, errlen, "%s", pc.err);
	free(hs);
	if (er->ops->point_end)
		er->ops->point_end(er, p);
	for (unsigned i = 0; i < n; i++)
		worker_release(&w[i]);
	free(w);
	series_release(&s);
	pthread_mutex_destroy(&pc.gate_lock);
	pthread_cond_destroy(&pc.gate_cv);
	if (rc)
		return rc;
	return interrupted ? -EINTR : 0;
}

static void copy_target(struct result *res, const struct target *t)
{
	if (!t)
		return;
	res->has_target = true;
	res->target = *t;
	res->target.fd = -1;
}

void emu_info(struct emu_run *run, const char *key, const char *val)
{
	result_add_info(run->result, key, val);
}

int runner_run(const struct run_config *cfg, struct result *res, char *err, size_t errlen)
{
	const struct emu_ops *emu = cfg->emu;
	struct emu_run er = {
		.ops = emu, .opts = cfg->emu_opts, .target = cfg->target,
		.target_spec = cfg->target_spec, .seed = cfg->seed,
		.preset = cfg->preset, .max_io = 64 * 1024, .writes = emu->flags & EMU_WRITES,
		.force = cfg->force, .rate = cfg->rate, .time_ns = cfg->time_ns, .npoints = cfg->npoints,
		.result = res, .stop = cfg->interrupted ? cfg->interrupted : &(volatile sig_atomic_t){ 0 },
	};
	int rc = 0;

	if (emu->run_priv_size)
		er.priv = xaligned(64, emu->run_priv_size);
	if (emu->setup)
		rc = emu->setup(&er, err, errlen);
	copy_target(res, cfg->target);  /* after: a set-up may grow a file made for the run */
	int agreed = mpi_run_agree(rc, err, errlen);  /* a set-up that failed on any rank */
	if (agreed) {
		if (!rc && emu->teardown)
			emu->teardown(&er);
		rc = agreed;
		goto out;
	}
	if (emu->info)
		emu->info(&er);
	for (unsigned i = 0; i < cfg->npoints; i++) {
		char werr[256];
		rc = run_point(cfg, &er, i, res, err, errlen);
		res->incomplete = !rc && i + 1 < cfg->npoints;
		res->interrupted = rc == -EINTR;
		if (cfg->json_path && result_write_json(res, cfg->json_path, werr, sizeof(werr)) && !rc) {
			snprintf(err, errlen, "%s", werr);
			rc = -EIO;
		}
		if (rc)
			break;
	}
	if (emu->finish) {
		char ferr[512] = "";
		int frc = emu->finish(&er, ferr, sizeof(ferr));
		if (frc && !rc) {
			snprintf(err, errlen, "%s", ferr);
			rc = frc;
		}
	}
	if (emu->teardown)
		emu->teardown(&er);
out:
	res->incomplete = false;
	res->interrupted = rc == -EINTR;
	free(er.priv);
	return rc;
}
