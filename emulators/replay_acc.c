/*
 * replay_acc.c - how faithfully a replay kept the trace's schedule, from the
 * workers' per-second counts (replay.h) and the point's lag class:
 *
 *  - duration: first due time to last submission against first to last due
 *    time (the trace's span at --speed), as an error in percent: how late
 *    the replay ended;
 *  - per-second IOPS: I/Os submitted in each second of the schedule against
 *    I/Os due in it, as the mean absolute error over the seconds, also in
 *    percent of the trace's mean;
 *  - issue lag (submission minus due time) percentiles, and the share of
 *    I/Os more than 1 ms late;
 *  - a verdict: a second is late when more than 1 % of the I/Os due in it
 *    were over 1 ms late. "could not keep up from second N" when late
 *    seconds run on to the end of the schedule; "fell behind K time(s)" when
 *    late seconds came two or more in a row, or with a worker waiting at the
 *    in-flight cap or for its feeder (feed_waits), but the replay caught up,
 *    saying why the first time; "kept up but for K stalled second(s)" when
 *    every late second stands alone; "kept up" when none is late.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "appio/result.h"
#include "appio/xalloc.h"
#include "replay.h"

void replay_stats_free(struct replay_stats *st)
{
	if (!st)
		return;
	free(st->due);
	free(st->done);
	free(st->late);
	free(st->capped);
	free(st->starved);
	free(st);
}

/* The workers' statistics summed into one (owned by the caller). */
static struct replay_stats *merge(struct replay_run *rr, unsigned threads)
{
	struct replay_stats *m = xcalloc(1, sizeof(*m));

	m->first_due = m->first_sub = UINT64_MAX;
	for (unsigned i = 0; i < threads && i < REPLAY_MAX_WORKERS; i++)
		if (rr->ws[i] && rr->ws[i]->nsec > m->nsec)
			m->nsec = rr->ws[i]->nsec;
	m->due = xcalloc(m->nsec + 1, sizeof(*m->due));
	m->done = xcalloc(m->nsec + 1, sizeof(*m->done));
	m->late = xcalloc(m->nsec + 1, sizeof(*m->late));
	m->capped = xcalloc(m->nsec + 1, 1);
	m->starved = xcalloc(m->nsec + 1, 1);
	for (unsigned i = 0; i < threads && i < REPLAY_MAX_WORKERS; i++) {
		const struct replay_stats *s = rr->ws[i];
		if (!s)
			continue;
		for (uint64_t k = 0; k < s->nsec; k++) {
			m->due[k] += s->due[k];
			m->done[k] += s->done[k];
			m->late[k] += s->late[k];
			m->capped[k] |= s->capped[k];
			m->starved[k] |= s->starved[k];
		}
		m->first_due = s->first_due < m->first_due ? s->first_due : m->first_due;
		m->first_sub = s->first_sub < m->first_sub ? s->first_sub : m->first_sub;
		m->last_due = s->last_due > m->last_due ? s->last_due : m->last_due;
		m->last_sub = s->last_sub > m->last_sub ? s->last_sub : m->last_sub;
	}
	return m;
}

static void info(struct emu_run *run, const char *prefix, const char *key, const char *fmt, double v)
{
	char k[64], val[64];

	snprintf(k, sizeof(k), "%s%s", prefix, key);
	snprintf(val, sizeof(val), fmt, v);
	emu_info(run, k, val);
}

/* Second @s of @m is late: more than 1 % of the I/Os due in it were over 1 ms late. */
static bool late_second(const struct replay_stats *m, uint64_t s)
{
	return m->late[s] && (uint64_t)m->late[s] * 100 > m->due[s];
}

/*
 * Why the late run from second @s on (@cap, @starved over it) was late, into
 * @why. With --timing bounded an I/O also waits while the trace's in-flight
 * count at it is in flight: the target was slower there than the traced drive.
 */
static void late_reason(bool cap, bool starved, bool bounded, unsigned qd, char *why, size_t len)
{
	if (cap)
		snprintf(why, len, "the in-flight cap was reached: --qd %u%s", qd,
			 starved ? "; the trace was read too slowly" : "");
	else if (starved)
		snprintf(why, len, "the trace was read too slowly: feed_waits");
	else if (bounded)
		snprintf(why, len, "held to the trace's in-flight counts: slower than the traced drive");
	else
		snprintf(why, len, "submissions late two seconds or more in a row");
}

void replay_verdict(const struct replay_stats *m, uint64_t nsec, int timing, unsigned qd,
		    char *buf, size_t len)
{
	uint64_t stalls = 0, first_stall = 0, runs = 0, run_at = 0, run_len = 0;
	char why[96] = "";
	bool bounded = replay_bounded(timing);

	if (!replay_scheduled(timing)) {
		snprintf(buf, len, "as fast as possible (no schedule to keep)%s",
			 timing == REPLAY_LOAD ? " at the trace's in-flight counts" : "");
		return;
	}
	/*
	 * Runs of late seconds. A lone late second with nothing to explain it is
	 * a stall; a longer run, or one at the in-flight cap or waiting for the
	 * feeder, is falling behind. Falling behind and catching up before the
	 * schedule ends (a drive's write burst that blocked submission for two
	 * seconds) is not the same verdict as being late to the end.
	 */
	for (uint64_t s = 0; s < nsec;) {
		if (!late_second(m, s)) {
			s++;
			continue;
		}
		uint64_t e = s;
		bool cap = false, starved = false;
		while (e < nsec && late_second(m, e)) {
			cap |= m->capped[e] || (e && m->capped[e - 1]);
			starved |= m->starved[e] || (e && m->starved[e - 1]);
			e++;
		}
		if (e - s == 1 && !cap && !starved) {
			if (!stalls++)
				first_stall = s;
		} else if (e == nsec) {
			late_reason(cap, starved, bounded, qd, why, sizeof(why));
			snprintf(buf, len, "could not keep up from second %llu (%s)", (unsigned long long)s, why);
			return;
		} else if (!runs++) {
			run_at = s;
			run_len = e - s;
			late_reason(cap, starved, bounded, qd, why, sizeof(why));
		}
		s = e;
	}
	if (runs)
		snprintf(buf, len, "fell behind %llu time(s), the first for %llu s from second %llu (%s), "
			 "and caught up", (unsigned long long)runs, (unsigned long long)run_len,
			 (unsigned long long)run_at, why);
	else if (stalls)
		snprintf(buf, len, "kept up but for %llu stalled second(s), the first second %llu "
			 "(late, then caught up)",
			 (unsigned long long)stalls, (unsigned long long)first_stall);
	else
		snprintf(buf, len, "kept up");
}

void replay_point_end(struct emu_run *run, const struct point_result *p)
{
	const struct replay_opts *o = run->opts;
	struct replay_run *rr = run->priv;
	struct replay_stats *m = merge(rr, p->pt.threads);
	char prefix[32], buf[160];
	uint64_t ios = 0, late = 0, due_all = 0;

	if (++rr->npoints > 1)
		snprintf(prefix, sizeof(prefix), "replay.%u.", rr->npoints);
	else
		snprintf(prefix, sizeof(prefix), "replay.");
	/* the seconds the schedule spans, and with any the replay ran over into */
	uint64_t nsec = 0, nsec_due = 0;
	for (uint64_t k = 0; k < m->nsec; k++) {
		if (m->due[k] || m->done[k])
			nsec = k + 1;
		if (m->due[k])
			nsec_due = k + 1;
	}
	double sum_err = 0;
	for (uint64_t k = 0; k < nsec; k++) {
		sum_err += fabs((double)m->done[k] - (double)m->due[k]);
		ios += m->done[k];
		due_all += m->due[k];
		late += m->late[k];
	}
	double trace_s = ios && m->last_due > m->first_due ? (double)(m->last_due - m->first_due) / 1e9 : 0;
	/* from the first due time: a late first I/O does not shorten the replay */
	double replay_s = ios && m->last_sub > m->first_due ? (double)(m->last_sub - m->first_due) / 1e9 : 0;
	/* the trace's own rate: a late replay spilling into one more second does not halve it */
	double mean = nsec_due ? (double)due_all / (double)nsec_due : 0;
	double mae = nsec ? sum_err / (double)nsec : 0;
	const struct cls_result *lag = point_class(p, "lag");

	replay_verdict(m, nsec, o->timing, p->pt.qd, buf, sizeof(buf));
	char key[64];
	snprintf(key, sizeof(key), "%sverdict", prefix);
	emu_info(run, key, buf);
	info(run, prefix, "ios", "%.0f", (double)ios);
	info(run, prefix, "duration_s", "%.6f", replay_s);
	info(run, prefix, "trace_duration_s", "%.6f", trace_s);
	info(run, prefix, "duration_error_pct", "%.4f", trace_s > 0 ? (replay_s - trace_s) / trace_s * 100 : 0);
	info(run, prefix, "trace_iops_mean", "%.1f", mean);
	info(run, prefix, "iops_mae", "%.2f", mae);
	info(run, prefix, "iops_mae_pct", "%.3f", mean > 0 ? mae / mean * 100 : 0);
	info(run, prefix, "late_1ms_pct", "%.3f", ios ? (double)late / (double)ios * 100 : 0);
	if (lag && lag->ops) {
		info(run, prefix, "lag_p50_ns", "%.0f", (double)lag->lat.p50);
		info(run, prefix, "lag_p99_ns", "%.0f", (double)lag->lat.p99);
		info(run, prefix, "lag_p999_ns", "%.0f", (double)lag->lat.p999);
		info(run, prefix, "lag_max_ns", "%.0f", (double)lag->lat.max);
	}
	replay_stats_free(m);
	for (unsigned i = 0; i < REPLAY_MAX_WORKERS; i++) {
		replay_stats_free(rr->ws[i]);
		rr->ws[i] = NULL;
	}
}

/* The value of info key @prefix@key, or NULL. */
static const char *get(const struct result *res, const char *prefix, const char *key)
{
	char k[64];

	snprintf(k, sizeof(k), "%s%s", prefix, key);
	for (unsigned i = 0; i < res->ninfo; i++)
		if (!strcmp(res->info[i].key, k))
			return res->info[i].val;
	return NULL;
}

static double num(const struct result *res, const char *prefix, const char *key)
{
	const char *v = get(res, prefix, key);
	return v ? strtod(v, NULL) : 0;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/*
 * Flushes are a database's commits (the log's fsync or FUA write): their
 * latency as a DBA reads it, over the point and second by second: the
 * median and the worst of the seconds' p99 of the response time (from when
 * the trace issued the flush, so a slow drive that delays it counts).
 */
static void flush_summary(const struct point_result *p, FILE *f)
{
	const struct cls_result *svc = point_class(p, "flush"), *resp = point_class(p, "flush.response");
	char a[32], b[32], c[32], d[32], e[32], g[32];
	unsigned ci = 0, n = 0;

	if (!svc || !svc->ops)
		return;
	fprintf(f, "  flushes (commits): %llu, service p50 %s, p99 %s", (unsigned long long)svc->ops,
		fmt_ns((double)svc->lat.p50, a, sizeof(a)), fmt_ns((double)svc->lat.p99, b, sizeof(b)));
	if (!resp || !resp->ops) {
		fputc('\n', f);
		return;
	}
	while (ci < p->ncls && &p->cls[ci] != resp)
		ci++;
	uint64_t *sec = xcalloc(p->nsec ? p->nsec : 1, sizeof(*sec));
	for (unsigned s = 0; s < p->nsec; s++)
		if (p->series[(size_t)s * p->ncls + ci].ops)
			sec[n++] = p->series[(size_t)s * p->ncls + ci].p99_ns;
	qsort(sec, n, sizeof(*sec), cmp_u64);
	fprintf(f, "; response p50 %s, p99 %s", fmt_ns((double)resp->lat.p50, c, sizeof(c)),
		fmt_ns((double)resp->lat.p99, d, sizeof(d)));
	if (n)
		fprintf(f, "; p99 per second: median %s, worst %s", fmt_ns((double)sec[n / 2], e, sizeof(e)),
			fmt_ns((double)sec[n - 1], g, sizeof(g)));
	fputc('\n', f);
	free(sec);
}

void replay_summary(const void *opts, const struct result *res, FILE *f)
{
	char prefix[32], a[32], b[32], c[32], d[32];

	(void)opts;
	for (unsigned n = 1; n <= res->npoints; n++) {
		if (n > 1)
			snprintf(prefix, sizeof(prefix), "replay.%u.", n);
		else
			snprintf(prefix, sizeof(prefix), "replay.");
		const char *v = get(res, prefix, "verdict");
		if (!v)
			continue;
		fprintf(f, "replay%s%.0u: %s\n", n > 1 ? " point " : "", n > 1 ? n : 0, v);
		fprintf(f, "  duration %.4f s against the trace's %.4f s (%+.3f %%), %.0f I/Os\n",
			num(res, prefix, "duration_s"), num(res, prefix, "trace_duration_s"),
			num(res, prefix, "duration_error_pct"), num(res, prefix, "ios"));
		fprintf(f, "  per-second IOPS: mean absolute error %.1f (%.2f %% of the trace's mean %.1f)\n",
			num(res, prefix, "iops_mae"), num(res, prefix, "iops_mae_pct"),
			num(res, prefix, "trace_iops_mean"));
		if (get(res, prefix, "lag_p50_ns"))
			fprintf(f, "  issue lag: p50 %s, p99 %s, p99.9 %s, max %s; %.2f %% of I/Os more than 1 ms late\n",
				fmt_ns(num(res, prefix, "lag_p50_ns"), a, sizeof(a)),
				fmt_ns(num(res, prefix, "lag_p99_ns"), b, sizeof(b)),
				fmt_ns(num(res, prefix, "lag_p999_ns"), c, sizeof(c)),
				fmt_ns(num(res, prefix, "lag_max_ns"), d, sizeof(d)),
				num(res, prefix, "late_1ms_pct"));
		flush_summary(&res->points[n - 1], f);
	}
}
