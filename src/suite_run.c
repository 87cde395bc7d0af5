/*
 * suite_run.c - runs the planned phases in order and keeps the suite's JSON
 * document up to date: rewritten (temporary file + rename) when a phase
 * starts, after every preconditioning round and sweep point, and when a
 * phase ends, so whatever stops the suite leaves a readable document.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/falloc.h>
#include <linux/fs.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appio/runner.h"
#include "json_write.h"
#include "mpi_run.h"
#include "suite.h"
#include "version.h"
#include "appio/xalloc.h"

static const char *const status_names[] = {
	"pending", "running", "done", "failed", "interrupted", "skipped",
};

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

/* ---- the document ---- */

static void phase_facts(FILE *f, const struct suite_phase *ph)
{
	if (ph->head_metric) {
		fprintf(f, ",\n     \"headline\": {\"metric\": \"%s\", \"value\": ", ph->head_metric);
		json_num(f, round(ph->head_value * 10) / 10);
		fputs(", \"at\": ", f);
		json_str(f, ph->head_at);
		fputc('}', f);
	}
	if (ph->kind == PH_PRECOND)
		fprintf(f, ",\n     \"steady_state\": %s", ph->st.json ? ph->st.json : "null");
	if (ph->kind == PH_FILL && ph->status != ST_PENDING)
		fprintf(f, ",\n     \"fill\": {\"bytes\": %llu, \"passes\": %.2f}",
			(unsigned long long)ph->fill_bytes,
			ph->job.target.size ? (double)ph->fill_bytes / (double)ph->job.target.size : 0);
	if (ph->kind == PH_PURGE && ph->purge_method) {
		fputs(",\n     \"purge\": {\"method\": ", f);
		json_str(f, ph->purge_method);
		fprintf(f, ", \"bytes\": %llu}", (unsigned long long)ph->purge_bytes);
	}
	if (ph->kind == PH_DB && ph->job.emu) {
		const char *name, *engine;
		job_names(&ph->job, &name, &engine);
		fputs(", \"driver\": ", f);
		json_str(f, engine);
	}
	if (ph->kind == PH_DB && ph->status != ST_PENDING)
		fprintf(f, ",\n     \"prepare\": {\"rows\": %llu, \"load_s\": %.2f}",
			(unsigned long long)ph->prep_rows, ph->prep_s);
}

static void phase_json(FILE *f, const struct suite_phase *ph)
{
	static const char *const subject_key[] = {
		[PH_PURGE] = "profile", [PH_FILL] = "profile", [PH_PRECOND] = "profile",
		[PH_SWEEP] = "profile", [PH_APP] = "emulator", [PH_REPLAY] = "trace", [PH_DB] = "workload",
	};

	fputs("    {\"name\": ", f);
	json_str(f, ph->name);
	fprintf(f, ", \"kind\": \"%s\", \"%s\": ", suite_kind_name(ph->kind), subject_key[ph->kind]);
	json_str(f, ph->kind == PH_DB || ph->kind == PH_APP || ph->kind == PH_REPLAY ? ph->subject : ph->argv[0]);
	fprintf(f, ", \"status\": \"%s\"", status_names[ph->status]);
	if (ph->error || ph->skip_reason) {
		fprintf(f, ", \"%s\": ", ph->error ? "error" : "reason");
		json_str(f, ph->error ? ph->error : ph->skip_reason);
	}
	fputs(", \"elapsed_s\": ", f);
	json_num(f, round(ph->elapsed_s * 100) / 100);
	fputs(",\n     \"args\": [", f);
	bool after = false;
	for (int i = 0; i < ph->argc; i++) {
		char *shown = suite_shown_word(ph->argv[i], &after);
		fputs(i ? ", " : "", f);
		json_str(f, shown);
		free(shown);
	}
	fputc(']', f);
	phase_facts(f, ph);
	if (ph->status != ST_PENDING && ph->status != ST_SKIPPED) {
		fputs(",\n     \"result\": ", f);
		result_write_json_value(&ph->res, f, 5);
	}
	fputc('}', f);
}

static void options_json(FILE *f, const struct suite *s)
{
	char buf[1024];
	bool first = true;

	fputs("  \"options\": {", f);
	for (const struct opt_def *o = suite_opt_table; o->name; o++) {
		const struct opt_strlist *x = o->type == OPT_STRLIST ?
			(const struct opt_strlist *)((const char *)&s->o + o->offset) : NULL;
		if (x && !x->n)
			continue;
		fprintf(f, "%s\n    ", first ? "" : ",");
		first = false;
		json_str(f, o->name);
		fputs(": ", f);
		if (!x) {
			json_str(f, opt_format(o, &s->o, buf, sizeof(buf)));
			continue;
		}
		fputc('[', f);
		for (unsigned i = 0; i < x->n; i++) {
			bool after = false;
			char *shown = suite_shown_word(x->v[i], &after);
			fputs(i ? ", " : "", f);
			json_str(f, shown);
			free(shown);
		}
		fputc(']', f);
	}
	fputs("},\n", f);
}

static void document(FILE *f, const struct suite *s)
{
	char now[32];

	utc_now(now, sizeof(now));
	fprintf(f, "{\n  \"appio_version\": \"%s\",\n  \"format_version\": 1,\n  \"suite\": \"%s\",\n"
		"  \"started\": \"%s\",\n  \"updated\": \"%s\",\n  \"seed\": %llu,\n"
		"  \"complete\": %s,\n  \"interrupted\": %s,\n", APPIO_VERSION, s->name, s->started,
		now, (unsigned long long)s->seed, s->complete ? "true" : "false",
		s->interrupted ? "true" : "false");
	options_json(f, s);
	if (s->has_health) {
		fputs("  ", f);
		health_write_json(f, &s->health[0], s->health_after ? &s->health[1] : NULL);
		fputs(",\n", f);
	}
	fputs("  \"phases\": [\n", f);
	for (unsigned i = 0; i < s->nph; i++) {
		const struct suite_phase *ph = &s->ph[i];
		if (ph->json)
			fputs(ph->json, f);
		else
			phase_json(f, ph);
		fputs(i + 1 < s->nph ? ",\n" : "\n", f);
	}
	fputs("  ]\n}\n", f);
}

static int save(const struct suite *s, char *err, size_t errlen)
{
	char tmp[4200];
	FILE *f;

	if (!mpi_run_root())    /* under mpirun rank 0 writes the document */
		return 0;
	snprintf(tmp, sizeof(tmp), "%s.tmp", s->o.json);
	f = fopen(tmp, "w");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "cannot write '%s': %s", s->o.json, strerror(e));
		return -e;
	}
	document(f, s);
	if (ferror(f) | fclose(f) || rename(tmp, s->o.json)) {
		int e = errno ? errno : EIO;
		snprintf(err, errlen, "cannot write '%s': %s", s->o.json, strerror(e));
		unlink(tmp);
		return -e;
	}
	return 0;
}

/* ---- progress ---- */

/* The longest the rest of the suite may take, from now. */
static double eta(const struct suite *s, double cur_elapsed)
{
	double left = 0;

	for (unsigned i = s->cur; i < s->nph; i++)
		left += s->ph[i].skip_reason ? 0 : s->ph[i].est_s;
	return fmax(left - cur_elapsed, 0);
}

/* After each round: save the document, put the ETA on the round's line. */
static void on_round(void *arg)
{
	struct suite *s = arg;
	struct suite_phase *ph = &s->ph[s->cur];
	char err[256], d[32];
	double elapsed = (double)ph->st.n * ((double)ph->st.round_s + 0.3);

	/* a phase that stops early at steady state frees its remaining rounds */
	if (ph->st.v.reached)
		ph->est_s = elapsed;
	save(s, err, sizeof(err));
	snprintf(ph->st.note, sizeof(ph->st.note), "; suite ETA <= %s",
		 suite_fmt_duration(eta(s, elapsed), d, sizeof(d)));
}

static void announce(const struct suite *s, const struct suite_phase *ph)
{
	char d[32], e[32];

	if (!s->log)
		return;
	fprintf(s->log, "\n== [%u/%u] %s (<= %s; suite ETA <= %s)\n", s->cur + 1, s->nph, ph->name,
		suite_fmt_duration(ph->est_s, d, sizeof(d)), suite_fmt_duration(eta(s, 0), e, sizeof(e)));
	fflush(s->log);
}

/* ---- headline figures ---- */

static const struct cls_result *head_class(const struct point_result *p)
{
	const struct cls_result *c = point_class(p, p->headline ? p->headline : "total");
	return c ? c : p->ncls ? &p->cls[0] : NULL;
}

static void point_label(const struct point_result *p, bool app, char *buf, size_t len)
{
	if (p->pt.write_pct >= 0)
		snprintf(buf, len, "%d%% writes", p->pt.write_pct);
	else if (app)
		snprintf(buf, len, "%u threads", p->pt.threads);
	else
		snprintf(buf, len, "%uT/%uQ", p->pt.threads, p->pt.qd);
}

/*
 * The phase's figure: the last (most loaded) point of a sweep or run, the
 * steady-state window of preconditioning. Large sequential transfers are
 * judged in MB/s as the reviews do, everything else in operations per second.
 */
static void headline(struct suite_phase *ph)
{
	const struct result *r = &ph->res;

	if (ph->kind == PH_PRECOND && ph->st.n) {
		ph->head_metric = ph->st.metric;
		ph->head_value = ph->st.v.avg;
		snprintf(ph->head_at, sizeof(ph->head_at), "rounds %u-%u", ph->st.v.first, ph->st.v.last);
		return;
	}
	if (!r->npoints || ph->kind == PH_PURGE)
		return;
	const struct point_result *p = &r->points[r->npoints - 1];
	const struct cls_result *c = head_class(p);
	if (!c)
		return;
	bool mbs = ph->kind == PH_FILL || (!p->headline && c->ops && c->bytes / c->ops >= 65536);
	ph->head_metric = mbs ? "MB/s" : point_rate_unit(p);
	ph->head_value = mbs ? c->mb_per_s : c->ops_per_s;
	if (ph->kind == PH_FILL) {
		double secs = 0;
		for (unsigned i = 0; i < r->npoints; i++)
			secs += r->points[i].time_s;
		ph->head_value = secs > 0 ? (double)ph->fill_bytes / 1e6 / secs : 0;
	}
	point_label(p, ph->kind == PH_APP || ph->kind == PH_DB, ph->head_at, sizeof(ph->head_at));
	if (ph->kind == PH_REPLAY)      /* open loop: the trace sets the rate, the drive the latency */
		snprintf(ph->head_at, sizeof(ph->head_at), "p99 %.0f us", (double)c->lat.p99 / 1e3);
}

/* ---- the phases ---- */

static uint64_t written(const struct result *r)
{
	uint64_t b = 0;
	for (unsigned i = 0; i < r->npoints; i++) {
		const struct cls_result *c = point_class(&r->points[i], "write");
		b += c ? c->bytes : 0;
	}
	return b;
}

/*
 * The runner measures time, not bytes: a quarter-second probe measures the
 * sequential write rate, then one run long enough for the passes asked for
 * (10 % spare), topped up if the drive slowed down. Each run starts again at
 * the beginning of the target.
 */
static int run_fill(struct suite *s, struct suite_phase *ph, char *err, size_t errlen)
{
	struct job *j = &ph->job;
	uint64_t want = s->o.fill_passes * j->target.size, seed = j->ro.seed;
	double t0 = now_s();
	int rc = suite_run_point(j, &ph->res, 0, 0.25, 0, seed, s->stop, err, errlen);

	for (int tries = 0; !rc && tries < 4 && written(&ph->res) < want; tries++) {
		/* the rate of the last run's measured window, without its start-up */
		const struct point_result *p = &ph->res.points[ph->res.npoints - 1];
		const struct cls_result *w = point_class(p, "write");
		double rate = p->time_s > 0 && w ? (double)w->bytes / p->time_s : 0;
		if (rate <= 0) {
			snprintf(err, errlen, "fill: no bytes were written to '%.300s'", j->target.path);
			return -EIO;
		}
		double t = fmax((double)(want - written(&ph->res)) / rate * (tries ? 1.0 : 1.1), 0.1);
		ph->est_s = now_s() - t0 + t;
		rc = suite_run_point(j, &ph->res, 0, t, 0, ++seed, s->stop, err, errlen);
	}
	ph->fill_bytes = written(&ph->res);
	return rc;
}

static int run_purge(struct suite_phase *ph)
{
	struct target *t = &ph->job.target;
	uint64_t range[2] = { 0, t->size };

	ph->purge_bytes = t->size;
	if (t->kind == TARGET_BLOCK)
		ph->purge_method = ioctl(t->fd, BLKDISCARD, range) ? "not supported (discard failed)" : "discard";
	else if (fallocate(t->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, (off_t)t->size))
		ph->purge_method = "not supported (the file system cannot punch holes)";
	else
		ph->purge_method = "punch-hole";
	return 0;
}

/* After a phase's points (@rc their outcome): its --slo-search, when it asked for one. */
static int search_after(struct suite *s, struct suite_phase *ph, int rc, char *err, size_t errlen)
{
	struct job *j = &ph->job;

	if (!rc && j->ro.slo_search) {
		rc = slo_search_run(j, &ph->res, &ph->search, s->stop, s->log, err, errlen);
		ph->res.slo_search = &ph->search;
	}
	return rc;
}

/* Block-level sweeps point by point, so the document is saved after each. */
static int run_sweep(struct suite *s, struct suite_phase *ph, char *err, size_t errlen)
{
	struct job *j = &ph->job;
	int rc = 0;

	if (!j->emu->next_io)
		return search_after(s, ph, job_run(j, &ph->res, true, s->stop, err, errlen), err, errlen);
	for (unsigned i = 0; i < j->npoints && !rc; i++) {
		char werr[256];
		rc = suite_run_point(j, &ph->res, i, j->ro.time, j->ro.ramp, j->ro.seed, s->stop, err, errlen);
		save(s, werr, sizeof(werr));
	}
	ph->res.interrupted = rc == -EINTR;
	return search_after(s, ph, rc, err, errlen);
}

/* Empty and remove a phase's scratch folder (files only: what a database left). */
static void remove_scratch(const char *dir)
{
	DIR *d = dir ? opendir(dir) : NULL;
	struct dirent *e;
	char p[4200];

	if (!d)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			unlink(p);
		}
	}
	closedir(d);
	rmdir(dir);
}

/*
 * A run of an outside service: cleanup (what an interrupted suite left) and
 * prepare when the emulator has them, its check, the run, cleanup again.
 */
static int run_service(struct suite *s, struct suite_phase *ph, char *err, size_t errlen)
{
	struct job *j = &ph->job;
	const struct emu_action *prep = job_action(j, "prepare"), *clean = job_action(j, "cleanup");
	struct emu_action_out out;
	char cerr[600];
	int rc = 0;

	job_describe(j, &ph->res);
	if (ph->scratch && mkdir(ph->scratch, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "cannot create folder '%.300s': %s", ph->scratch, strerror(errno));
		return -errno;
	}
	if (clean)
		job_act(j, clean, s->stop, NULL, &out, cerr, sizeof(cerr));
	if (prep && !(rc = job_act(j, prep, s->stop, NULL, &out, err, errlen))) {
		ph->prep_rows = out.items;
		ph->prep_s = out.seconds;
	}
	if (!rc)
		rc = job_open_target(j, s->stop, err, errlen);
	if (!rc)
		rc = search_after(s, ph, job_run(j, &ph->res, true, s->stop, err, errlen), err, errlen);
	if (clean)
		job_act(j, clean, s->stop, NULL, &out, cerr, sizeof(cerr));
	remove_scratch(ph->scratch);
	return rc;
}

static int run_kind(struct suite *s, struct suite_phase *ph, char *err, size_t errlen)
{
	int rc;

	if (ph->kind == PH_DB)
		return run_service(s, ph, err, errlen);
	if ((rc = job_open_target(&ph->job, s->stop, err, errlen)) != 0)
		return rc;
	if (!s->has_health) {   /* before the first phase that touches the drive */
		snprintf(s->health_dev, sizeof(s->health_dev), "%s", ph->job.target.dev);
		health_read(s->health_dev, &s->health[0]);
		s->has_health = true;
	}
	job_describe(&ph->job, &ph->res);
	switch (ph->kind) {
	case PH_PURGE:
		return run_purge(ph);
	case PH_FILL:
		return run_fill(s, ph, err, errlen);
	case PH_PRECOND:
		ph->st.label = ph->name;
		ph->st.log = s->log;
		ph->st.on_round = on_round;
		ph->st.arg = s;
		return suite_steady_run(&ph->job, &ph->st, &ph->res, s->stop, err, errlen);
	case PH_SWEEP:
		return run_sweep(s, ph, err, errlen);
	default:
		return search_after(s, ph, job_run(&ph->job, &ph->res, true, s->stop, err, errlen), err, errlen);
	}
}

/* The phase's closing line: how it went and its figure. */
static void conclude(const struct suite *s, const struct suite_phase *ph)
{
	char d[32], v[160] = "";

	if (!s->log)
		return;
	if (ph->kind == PH_SWEEP || ph->kind == PH_APP || ph->kind == PH_REPLAY || ph->kind == PH_DB)
		result_print_table(&ph->res, s->log);
	if (ph->kind == PH_PRECOND)
		steady_describe(&ph->st.v, ph->st.n, ph->st.metric, v, sizeof(v));
	else if (ph->kind == PH_PURGE)
		snprintf(v, sizeof(v), "%s", ph->purge_method ? ph->purge_method : "");
	else if (ph->head_metric)
		snprintf(v, sizeof(v), "%.1f %s at %s", ph->head_value, ph->head_metric, ph->head_at);
	if (ph->kind == PH_FILL && ph->job.target.size)
		snprintf(v + strlen(v), sizeof(v) - strlen(v), ", %.2f passes",
			 (double)ph->fill_bytes / (double)ph->job.target.size);
	fprintf(s->log, "== %s %s in %s: %s\n", ph->name, status_names[ph->status],
		suite_fmt_duration(ph->elapsed_s, d, sizeof(d)), ph->error ? ph->error : v);
	fflush(s->log);
}

/* Freeze a finished phase into its JSON text and let go of its memory and target. */
static void freeze(struct suite_phase *ph)
{
	size_t len;
	FILE *m = open_memstream(&ph->json, &len);

	if (m) {
		phase_json(m, ph);
		fclose(m);
	}
	result_release(&ph->res);
	job_release(&ph->job);
}

static int run_phase(struct suite *s, struct suite_phase *ph, char *err, size_t errlen)
{
	char msg[600] = "";
	double t0 = now_s();

	if (ph->skip_reason) {
		ph->status = ST_SKIPPED;
		if (s->log)
			fprintf(s->log, "\n== [%u/%u] %s skipped: %s\n", s->cur + 1, s->nph, ph->name, ph->skip_reason);
		freeze(ph);
		return 0;
	}
	announce(s, ph);
	ph->status = ST_RUNNING;
	result_init(&ph->res);
	int rc = save(s, err, errlen);
	if (rc)
		return rc;
	rc = run_kind(s, ph, msg, sizeof(msg));
	ph->elapsed_s = now_s() - t0;
	ph->status = !rc ? ST_DONE : rc == -EINTR ? ST_INTERRUPTED : ST_FAILED;
	if (rc && rc != -EINTR)
		ph->error = xstrdup(*msg ? msg : strerror(-rc));
	ph->bad_input = rc == -EINVAL && !ph->res.npoints;
	headline(ph);
	conclude(s, ph);
	for (unsigned i = 0; i < ph->res.npoints; i++)
		s->host_written += ph->res.points[i].dev.valid ? ph->res.points[i].dev.write_bytes : 0;
	freeze(ph);
	return rc;
}

int suite_run(struct suite *s, volatile sig_atomic_t *interrupted, char *err, size_t errlen)
{
	int rc = 0, failed = 0, done = 0;

	s->stop = interrupted;
	utc_now(s->started, sizeof(s->started));
	for (s->cur = 0; s->cur < s->nph; s->cur++) {
		struct suite_phase *ph = &s->ph[s->cur];
		rc = run_phase(s, ph, err, errlen);
		if (rc == -EINTR || (rc && ph->status == ST_RUNNING))
			break;          /* interrupted, or the document cannot be written */
		if (rc && !failed++)
			snprintf(err, errlen, "%s: %s", ph->name, ph->error);
		if (ph->bad_input && !done)
			break;          /* the target is at fault: every phase would say so */
		done += ph->status == ST_DONE;
		rc = 0;
		if (*interrupted) {
			rc = -EINTR;
			break;
		}
	}
	s->interrupted = rc == -EINTR;
	s->complete = !rc && !failed && s->cur == s->nph;
	if (s->has_health) {
		health_read(s->health_dev, &s->health[1]);
		s->health_after = true;
	}
	int wrc = save(s, rc ? NULL : err, rc ? 0 : errlen);
	if (rc)
		return rc;
	return wrc ? wrc : failed ? -EIO : 0;
}

void suite_print_summary(const struct suite *s, FILE *f)
{
	char d[32], v[64];

	fprintf(f, "\n%-32s %-11s %10s %16s  %s\n", "phase", "status", "time", "figure", "at");
	for (unsigned i = 0; i < s->nph; i++) {
		const struct suite_phase *ph = &s->ph[i];
		if (ph->head_metric)
			snprintf(v, sizeof(v), "%.0f %s", ph->head_value, ph->head_metric);
		else
			snprintf(v, sizeof(v), "-");
		fprintf(f, "%-32s %-11s %10s %16s  %s%s\n", ph->name, status_names[ph->status],
			suite_fmt_duration(ph->elapsed_s, d, sizeof(d)), v, ph->head_at,
			ph->kind == PH_PRECOND && ph->st.n ? (ph->st.v.reached ? " (steady)" : " (not steady)") : "");
	}
}
