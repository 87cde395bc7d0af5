/*
 * suite.c - the suite's options, its plan (which phases, with which job
 * arguments), and preconditioning to steady state. Running the phases and
 * the document are in suite_run.c.
 *
 * Where the defaults come from: the review suite follows docs/methodology.md
 * (preconditioning at 16 threads x 16 I/Os in rounds of 60 s, at most 25;
 * sweep 2..16 threads x 2..16 I/Os, 5 minutes a point; write-% sweep in
 * steps of 10; applications over 2..32 threads; a real database). The quick
 * suite keeps the shape and scales every figure down to fit 5 minutes on a
 * 2-core machine with a 1 GiB file.
 */
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "appio/runner.h"
#include "appio/trace.h"
#include "suite.h"
#include "appio/xalloc.h"

#define DEFAULT_PROFILES "4k-randread,4k-randwrite,8k-70-30,128k-seqread,128k-seqwrite," \
			 "database,email,fileserver,webserver"

#define S(field) offsetof(struct suite_opts, field)
const struct opt_def suite_opt_table[] = {
	{ "target", OPT_STR, S(target), "appio.dat",
	  "file or block device under test; a new file is laid out first" },
	{ "size", OPT_SIZE, S(size), NULL,
	  "bytes of the target to use (a new file: 1G; an existing file or a device: all of it)",
	  .min = 4096, .max = 1ULL << 56 },
	{ "json", OPT_STR, S(json), "appio-suite.json",
	  "the suite's result document, rewritten after every phase and round" },
	{ "purge", OPT_BOOL, S(purge), NULL,
	  "first discard the whole device (or punch the file's range out) where supported" },
	{ "fill-passes", OPT_UINT, S(fill_passes), "2",
	  "sequential 128 KiB write passes over the target before the profiles (0: none)", .max = 100 },
	{ "profiles", OPT_STR, S(profiles), DEFAULT_PROFILES,
	  "comma list of profiles to precondition and sweep, or 'none'" },
	{ "pre-threads", OPT_UINT, S(pre_threads), "16", "threads while preconditioning",
	  .min = 1, .max = 1024 },
	{ "pre-qd", OPT_UINT, S(pre_qd), "16", "I/Os in flight per thread while preconditioning",
	  .min = 1, .max = 4096 },
	{ "round-time", OPT_UINT, S(round_time), "60", "seconds per preconditioning round", .min = 1,
	  .max = OPT_SECONDS_MAX },
	{ "max-rounds", OPT_UINT, S(max_rounds), "25",
	  "preconditioning rounds before going on without steady state", .min = 1, .max = 10000 },
	{ "threads", OPT_ULIST, S(threads), "2,4,8,16", "sweep threads, crossed with --qd",
	  .min = 1, .max = 1024 },
	{ "qd", OPT_ULIST, S(qd), "2,4,8,16", "sweep I/Os in flight per thread", .min = 1, .max = 4096 },
	{ "time", OPT_UINT, S(time), "300", "measured seconds per sweep point", .min = 1,
	  .max = OPT_SECONDS_MAX },
	{ "ramp", OPT_UINT, S(ramp), "0", "warm-up seconds per sweep point (not recorded)",
	  .max = OPT_SECONDS_MAX },
	{ "write-sweep", OPT_ULIST, S(write_sweep), NULL,
	  "write percentages of the 8 KiB random write-% sweep at --pre-threads x --pre-qd "
	  "('none': no sweep)", .max = 100, .flags = OPT_NONE },
	{ "apps", OPT_STR, S(apps), "all",
	  "application emulators: all (those with suite arguments), none, or a comma list" },
	{ "app-threads", OPT_ULIST, S(app_threads), NULL,
	  "threads of every application run (default: each emulator's own)", .min = 1, .max = 1024,
	  .flags = OPT_NONE },
	{ "app-time", OPT_UINT, S(app_time), NULL,
	  "measured seconds per application point (default: each emulator's own)",
	  .max = OPT_SECONDS_MAX },
	{ "fs-dir", OPT_STR, S(fs_dir), NULL,
	  "folder for the file-system emulators (default: appio-suite-fs beside a file target)" },
	{ "db", OPT_STR, S(db), NULL,
	  "the database run: 'none', or a variant of it as listed below (default: the first beside "
	  "a file target, none on a device)" },
	{ "db-threads", OPT_ULIST, S(db_threads), NULL,
	  "client threads of the database run (default: its emulator's own)", .min = 1, .max = 1024 },
	{ "db-time", OPT_UINT, S(db_time), NULL,
	  "measured seconds per database point (default: its emulator's own)", .min = 1,
	  .max = OPT_SECONDS_MAX },
	{ "trace", OPT_STR, S(trace), NULL,
	  "a block I/O trace to replay on the target after the applications ('appio run replay'): a "
	  "file, or the name of a bundled trace ('appio list'); default: no replay" },
	{ "engine", OPT_STR, S(engine), NULL, "I/O engine of every phase (see 'appio list')" },
	{ "direct", OPT_BOOL, S(direct), "1", "O_DIRECT for every phase (0 or 1)" },
	{ "force", OPT_BOOL, S(force), NULL,
	  "allow writes to a block device that is mounted or holds a file system or partitions" },
	{ "seed", OPT_UINT, S(seed), NULL, "random seed of the suite (each phase derives its own)",
	  .max = (1ULL << 53) - 1 },
	{ "slo", OPT_STRLIST, S(slo), NULL,
	  "latency limits for every sweep, application and database phase, as 'appio run --slo': "
	  "the highest-throughput point within them, e.g. p99=2ms or read.p99=1ms,write.p99=5ms" },
	{ "slo-search", OPT_UINT, S(slo_search), "0",
	  "after each profile's sweep and each application or database run, at most N "
	  "rate-limited runs (--ramp + --time each) to find the throughput at the --slo limits",
	  .max = SLO_SEARCH_PROBES },
	{ "pre-args", OPT_STRLIST, S(extra[EXTRA_PRE]), NULL,
	  "more 'appio run' options for preconditioning: 'ARGS' for all, 'PROFILE:ARGS' for one "
	  "(repeatable)" },
	{ "sweep-args", OPT_STRLIST, S(extra[EXTRA_SWEEP]), NULL,
	  "more 'appio run' options for the sweeps: 'ARGS' or 'PROFILE:ARGS' (repeatable)" },
	{ "app-args", OPT_STRLIST, S(extra[EXTRA_APP]), NULL,
	  "more 'appio run' options for the applications: 'ARGS' or 'EMULATOR:ARGS' (repeatable)" },
	{ "db-args", OPT_STRLIST, S(extra[EXTRA_DB]), NULL,
	  "more options for the database run ('appio db --help'), e.g. '--tables 8' (repeatable)" },
	{ "replay-args", OPT_STRLIST, S(extra[EXTRA_REPLAY]), NULL,
	  "more 'appio run replay' options for the --trace replay, e.g. '--timing afap' (repeatable)" },
	OPT_END,
};
#undef S

const struct suite_def suite_table[] = {
	{ "review", "the full method of the reviews: fill, steady state, 16-point sweeps of 5 "
	  "minutes, write-% sweep, applications, database (many hours)",
	  "--write-sweep 0,10,20,30,40,50,60,70,80,90,100" },
	{ "quick", "the same shape scaled down: about 5 minutes on a 1 GiB file, the database "
	  "step on a local file",
	  "--size 1G --fill-passes 1 --round-time 2 --max-rounds 5 --threads 2 --qd 2,16 --time 2 "
	  "--write-sweep 0,50,100" },
	{ NULL, NULL, NULL },
};

int suite_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* ---- preconditioning to steady state ---- */

/* Figure of a round: the headline class's operations per second. */
static double round_figure(const struct point_result *p)
{
	const struct cls_result *c = point_class(p, p->headline ? p->headline : "total");
	return c ? c->ops_per_s : p->ncls ? p->cls[0].ops_per_s : 0;
}

int suite_run_point(struct job *j, struct result *res, unsigned idx, double time_s,
		    double ramp_s, uint64_t seed, volatile sig_atomic_t *interrupted,
		    char *err, size_t errlen)
{
	bool target = !(j->emu->flags & EMU_NO_TARGET);

	if (!(time_s >= 0 && time_s <= OPT_SECONDS_MAX && ramp_s >= 0 && ramp_s <= OPT_SECONDS_MAX)) {
		snprintf(err, errlen, "a point of %g + %g seconds is out of range (at most %d each)",
			 ramp_s, time_s, OPT_SECONDS_MAX);
		return -EINVAL;
	}
	struct run_config cfg = {
		.emu = j->emu, .emu_opts = j->eo, .preset = j->preset ? j->preset->name : NULL,
		.target = target ? &j->target : NULL, .engine = target ? j->engine : NULL,
		.target_spec = j->ro.target, .points = &j->points[idx], .npoints = 1,
		.time_ns = (uint64_t)(time_s * 1e9), .ramp_ns = (uint64_t)(ramp_s * 1e9),
		.seed = seed, .qd_given = job_given(j, "qd"), .force = j->ro.force, .progress = true,
		.interrupted = interrupted, .rate = j->ro.rate,
	};
	return runner_run(&cfg, res, err, errlen);
}

static void log_round(const struct suite_steady *st, const struct point_result *p)
{
	const struct cls_result *c = point_class(p, p->headline ? p->headline : "total");
	char mean[32], max[32];

	if (!st->log)
		return;
	fprintf(st->log, "  %s round %u/%u: %.0f %s, mean %s, max %s%s%s%s\n",
		st->label ? st->label : "", st->n, st->max_rounds, st->rounds[st->n - 1], st->metric,
		fmt_ns(c ? c->lat.mean : 0, mean, sizeof(mean)),
		fmt_ns(c ? (double)c->lat.max : 0, max, sizeof(max)), p->partial ? " (partial)" : "",
		st->v.reached ? "; steady" : "", st->note);
	fflush(st->log);
}

/* Render the verdict as JSON text for the result documents. */
static void steady_json(struct suite_steady *st)
{
	size_t len;
	FILE *m;

	free(st->json);
	st->json = NULL;
	m = open_memstream(&st->json, &len);
	if (!m)
		return;
	steady_write_json(m, &st->v, st->rounds, st->n, st->max_rounds, st->round_s, st->metric);
	fclose(m);
}

int suite_steady_run(struct job *j, struct suite_steady *st, struct result *pre,
		     volatile sig_atomic_t *interrupted, char *err, size_t errlen)
{
	int rc = 0;

	st->round_s = (unsigned)j->ro.round_time;
	st->max_rounds = (unsigned)j->ro.max_rounds;
	st->rounds = xcalloc(st->max_rounds, sizeof(*st->rounds));
	st->n = 0;
	st->metric = "IOPS";
	while (st->n < st->max_rounds && !st->v.reached) {
		/* a seed per round: the same seed would replay the same offsets */
		uint64_t seed = (j->ro.seed + 0x9e3779b97f4a7c15ULL * (st->n + 1)) & ((1ULL << 53) - 1);
		rc = suite_run_point(j, pre, 0, st->round_s, 0, seed, interrupted, err, errlen);
		if (pre->npoints > st->n) {
			struct point_result *p = &pre->points[pre->npoints - 1];
			st->metric = point_rate_unit(p);
			st->rounds[st->n++] = round_figure(p);
			steady_check(st->rounds, st->n, &st->v);
			steady_json(st);
			if (st->on_round)
				st->on_round(st->arg);
			log_round(st, p);
		}
		if (rc)
			break;
	}
	return rc;
}

void suite_steady_release(struct suite_steady *st)
{
	free(st->rounds);
	free(st->json);
	st->rounds = NULL;
	st->json = NULL;
	st->n = 0;
}

/* ---- parsing ---- */

bool suite_given(const struct suite *s, const char *name)
{
	return opt_given(&s->tab, name);
}

const struct suite_def *suite_find(const char *name)
{
	for (const struct suite_def *d = suite_table; d->name; d++)
		if (!strcmp(d->name, name))
			return d;
	return NULL;
}

int suite_parse(struct suite *s, int argc, char **argv, bool *help, char *err, size_t errlen)
{
	char *words[64], *save = NULL, see[64], msg[512];
	int n = 0;

	memset(s, 0, sizeof(*s));
	*help = false;
	if (argc < 1 || !strncmp(argv[0], "-", 1)) {
		*help = argc >= 1 && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"));
		return *help ? 0 : suite_fail(err, errlen, "suite: which suite? (quick or review)");
	}
	const struct suite_def *d = suite_find(argv[0]);
	if (!d)
		return suite_fail(err, errlen, "suite: unknown suite '%s' (expected quick or review)", argv[0]);
	s->name = d->name;
	s->def = d;
	if (opt_defaults(suite_opt_table, &s->o, err, errlen))
		return -EINVAL;
	s->defaults_words = xstrdup(d->args);
	words[n++] = (char *)d->name;
	for (char *w = strtok_r(s->defaults_words, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	snprintf(see, sizeof(see), "appio suite %s --help", d->name);
	s->tab = (struct opt_tab){ .defs = suite_opt_table, .dst = &s->o };
	int rc = opt_parse(&s->tab, 1, n, words, 0, help, see, err, errlen);
	if (!rc)
		rc = opt_parse(&s->tab, 1, argc, argv, OPT_MARK_GIVEN, help, see, msg, sizeof(msg));
	if (rc)
		suite_fail(err, errlen, "suite: %s", msg);
	return rc;
}

/* ---- the plan ---- */

static void add_word(struct suite_phase *ph, const char *w)
{
	ph->argv = xrealloc(ph->argv, ((size_t)ph->argc + 2) * sizeof(*ph->argv));
	ph->argv[ph->argc++] = xstrdup(w);
	ph->argv[ph->argc] = NULL;
}

/* Space-separated words, as in presets and --*-args (no quoting). */
static void add_words(struct suite_phase *ph, const char *line)
{
	char *copy = xstrdup(line), *save = NULL;

	for (char *w = strtok_r(copy, " ", &save); w; w = strtok_r(NULL, " ", &save))
		add_word(ph, w);
	free(copy);
}

static void add_opt(struct suite_phase *ph, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void add_opt(struct suite_phase *ph, const char *name, const char *fmt, ...)
{
	char opt[64], val[4200];
	va_list ap;

	snprintf(opt, sizeof(opt), "--%s", name);
	add_word(ph, opt);
	va_start(ap, fmt);
	vsnprintf(val, sizeof(val), fmt, ap);
	va_end(ap);
	add_word(ph, val);
}

/* --slo (and, for a phase that takes --rate, --slo-search) passed on to a phase. */
static void add_slo(const struct suite *s, struct suite_phase *ph, bool search)
{
	for (unsigned i = 0; i < s->o.slo.n; i++)
		add_opt(ph, "slo", "%s", s->o.slo.v[i]);
	if (search && s->o.slo_search)
		add_opt(ph, "slo-search", "%llu", (unsigned long long)s->o.slo_search);
}

/* A list as opt_format() writes any OPT_ULIST ("2,4,8"), by way of a row that has one. */
static void add_list(struct suite_phase *ph, const char *name, const struct opt_ulist *l)
{
	const struct opt_def *o = opt_find(suite_opt_table, "threads");
	char buf[512];
	struct suite_opts tmp = { .threads = *l };

	add_opt(ph, name, "%s", opt_format(o, &tmp, buf, sizeof(buf)));
}

char *suite_shown_word(const char *word, bool *after)
{
	size_t len = strlen(word) * 5 + 16;     /* a 1-byte value becomes "(secret)" */
	char *out = xmalloc(len);

	opt_redact(word, *after, emulator_option_is_secret, 0, out, len, after);
	return out;
}

/* "NAME:ARGS" names a phase subject; "ARGS" (or "--x a:b") is for all. */
static size_t extra_prefix(const char *v)
{
	const char *colon = strchr(v, ':'), *space = strchr(v, ' ');
	if (!strncmp(v, "--", 2) || !colon || (space && space < colon))
		return 0;
	return (size_t)(colon - v);
}

static void add_extras(const struct suite *s, unsigned kind, struct suite_phase *ph)
{
	const struct opt_strlist *x = &s->o.extra[kind];

	for (unsigned i = 0; i < x->n; i++) {
		size_t n = extra_prefix(x->v[i]);
		if (!n)
			add_words(ph, x->v[i]);
		else if (strlen(ph->subject) == n && !strncmp(x->v[i], ph->subject, n))
			add_words(ph, x->v[i] + n + 1);
	}
}

static struct suite_phase *new_phase(struct suite *s, enum suite_kind kind, const char *subject,
				     const char *name)
{
	s->ph = xrealloc(s->ph, (s->nph + 1) * sizeof(*s->ph));
	struct suite_phase *ph = &s->ph[s->nph++];
	memset(ph, 0, sizeof(*ph));
	ph->kind = kind;
	ph->subject = subject;
	ph->job.target.fd = -1;
	snprintf(ph->name, sizeof(ph->name), "%s", name);
	return ph;
}

/* The job's first words: what runs, where, with which seed and engine. */
static void add_common(const struct suite *s, struct suite_phase *ph, const char *what,
		       const char *target, bool size)
{
	char sz[32];

	add_word(ph, what);
	add_opt(ph, "target", "%s", target);
	add_opt(ph, "seed", "%llu", (unsigned long long)((s->seed + 7919ULL * s->nph) & ((1ULL << 53) - 1)));
	if (size && s->o.size)
		add_opt(ph, "size", "%s", fmt_size(s->o.size, sz, sizeof(sz)));
	if (s->o.engine)
		add_opt(ph, "engine", "%s", s->o.engine);
	add_opt(ph, "direct", "%d", s->o.direct);
	if (s->o.force)
		add_word(ph, "--force");
}

/*
 * Workload-dependent preconditioning uses the profile itself, except where
 * the reviews precondition otherwise (docs/methodology.md section 1: the
 * web server, a read-only mix, is preconditioned at 100 % writes).
 */
static const struct { const char *profile, *args; } precondition_override[] = {
	{ "webserver", "--read 0" },
};

static void plan_profile(struct suite *s, const char *profile)
{
	char name[96];

	snprintf(name, sizeof(name), "precondition %s", profile);
	struct suite_phase *ph = new_phase(s, PH_PRECOND, profile, name);
	add_common(s, ph, profile, s->o.target, true);
	add_opt(ph, "threads", "%llu", (unsigned long long)s->o.pre_threads);
	add_opt(ph, "qd", "%llu", (unsigned long long)s->o.pre_qd);
	add_opt(ph, "round-time", "%llu", (unsigned long long)s->o.round_time);
	add_opt(ph, "max-rounds", "%llu", (unsigned long long)s->o.max_rounds);
	for (size_t i = 0; i < sizeof(precondition_override) / sizeof(precondition_override[0]); i++)
		if (!strcmp(precondition_override[i].profile, profile))
			add_words(ph, precondition_override[i].args);
	add_extras(s, EXTRA_PRE, ph);

	snprintf(name, sizeof(name), "sweep %s", profile);
	ph = new_phase(s, PH_SWEEP, profile, name);
	add_common(s, ph, profile, s->o.target, true);
	add_list(ph, "threads", &s->o.threads);
	add_list(ph, "qd", &s->o.qd);
	add_opt(ph, "time", "%llu", (unsigned long long)s->o.time);
	add_opt(ph, "ramp", "%llu", (unsigned long long)s->o.ramp);
	add_slo(s, ph, true);
	add_extras(s, EXTRA_SWEEP, ph);
}

static void plan_devices(struct suite *s)
{
	struct suite_phase *ph;

	if (s->o.purge) {
		ph = new_phase(s, PH_PURGE, "purge", "purge");
		add_common(s, ph, "128k-seqwrite", s->o.target, true);
	}
	if (s->o.fill_passes) {
		ph = new_phase(s, PH_FILL, "fill", "fill");
		add_common(s, ph, "128k-seqwrite", s->o.target, true);
		add_opt(ph, "threads", "1");
		add_opt(ph, "qd", "16");
		add_extras(s, EXTRA_PRE, ph);
	}
}

static int plan_profiles(struct suite *s, char *err, size_t errlen)
{
	if (strcmp(s->o.profiles, "none")) {
		char *list = xstrdup(s->o.profiles), *save = NULL;
		int rc = 0;
		for (char *p = strtok_r(list, ",", &save); p && !rc; p = strtok_r(NULL, ",", &save)) {
			const struct emu_preset *pr = emu_preset_find(p);
			if (!pr)
				rc = suite_fail(err, errlen, "suite: --profiles: unknown profile '%s' (see 'appio list')", p);
			else
				plan_profile(s, pr->name);
		}
		free(list);
		if (rc)
			return rc;
	}
	if (s->o.write_sweep.n) {
		struct suite_phase *ph = new_phase(s, PH_SWEEP, "write-sweep", "write sweep 8k");
		add_common(s, ph, "8k-randread", s->o.target, true);
		add_opt(ph, "threads", "%llu", (unsigned long long)s->o.pre_threads);
		add_opt(ph, "qd", "%llu", (unsigned long long)s->o.pre_qd);
		add_list(ph, "write-sweep", &s->o.write_sweep);
		add_opt(ph, "time", "%llu", (unsigned long long)s->o.time);
		add_opt(ph, "ramp", "%llu", (unsigned long long)s->o.ramp);
		add_extras(s, EXTRA_SWEEP, ph);
	}
	return 0;
}

/* A path beside a file target: scratch folders and the file-system emulators' folder. */
static char *beside_target(const struct suite *s, const char *name)
{
	char *copy = xstrdup(s->o.target), path[4200];

	snprintf(path, sizeof(path), "%s/%s", dirname(copy), name);
	free(copy);
	return xstrdup(path);
}

static bool in_list(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || !p[n]))
			return true;
	return false;
}

static void plan_app(struct suite *s, const struct emu_ops *e, const char *args)
{
	struct suite_phase *ph = new_phase(s, PH_APP, e->name, e->name);
	bool dir = e->flags & EMU_TARGET_DIR;

	if (dir && !s->o.fs_dir && s->target_is_dev) {
		ph->skip_reason = "a file-system emulator needs a folder: give --fs-dir on the drive";
		return;
	}
	if (dir && !s->o.fs_dir && !s->fs_dir_owned)
		s->fs_dir_owned = beside_target(s, "appio-suite-fs");
	add_common(s, ph, e->name, dir ? (s->o.fs_dir ? s->o.fs_dir : s->fs_dir_owned) : s->o.target, !dir);
	add_words(ph, args ? args : "");
	if (s->o.app_threads.n)
		add_list(ph, "threads", &s->o.app_threads);
	if (suite_given(s, "app-time"))
		add_opt(ph, "time", "%llu", (unsigned long long)s->o.app_time);
	add_slo(s, ph, e->flags & EMU_RATE);
	add_extras(s, EXTRA_APP, ph);
}

static int plan_apps(struct suite *s, char *err, size_t errlen)
{
	bool all = !strcmp(s->o.apps, "all"), quick = !strcmp(s->name, "quick");

	if (!strcmp(s->o.apps, "none"))
		return 0;
	if (!all) {     /* every name must exist */
		char *list = xstrdup(s->o.apps), *save = NULL;
		int rc = 0;
		for (char *p = strtok_r(list, ",", &save); p && !rc; p = strtok_r(NULL, ",", &save))
			if (!emulator_find(p) || emulator_find(p)->flags & EMU_NO_TARGET)
				rc = suite_fail(err, errlen, "suite: --apps: unknown emulator '%s' (see 'appio list')", p);
		free(list);
		if (rc)
			return rc;
	}
	for (const struct emu_ops *const *e = emulator_table; *e; e++) {
		const char *args = quick ? (*e)->suite_quick_args : (*e)->suite_review_args;
		if ((*e)->flags & EMU_NO_TARGET || (all ? !args : !in_list(s->o.apps, (*e)->name)))
			continue;
		plan_app(s, *e, args);
	}
	return 0;
}

/* --trace: "replay NAME" on the suite's target, offsets wrapped into it; the trace is read
 * through now: one that cannot be read is bad input at once, and its span is the estimate. */
static int plan_replay(struct suite *s, char *err, size_t errlen)
{
	struct trace_reader r = { 0 };
	struct trace_rec rec;
	char path[4200], name[96];
	const char *base = strrchr(s->o.trace ? s->o.trace : "", '/');
	uint64_t last = 0;
	int rc;

	if (!s->o.trace)
		return 0;
	rc = trace_open(&r, trace_resolve(s->o.trace, path, sizeof(path)), NULL, NULL);
	while (!rc && !(rc = trace_next(&r, &rec)))
		last = rec.issue_ns > last ? rec.issue_ns : last;
	if (rc < 0)
		suite_fail(err, errlen, "suite: --trace: %s", r.err);
	trace_close(&r);
	if (rc < 0)
		return -EINVAL;
	snprintf(name, sizeof(name), "replay %.80s", base ? base + 1 : s->o.trace);
	struct suite_phase *ph = new_phase(s, PH_REPLAY, s->o.trace, name);
	ph->trace_s = (double)last / 1e9;
	add_common(s, ph, "replay", s->o.target, true);
	add_opt(ph, "trace", "%s", s->o.trace);
	add_opt(ph, "map", "wrap");
	add_extras(s, EXTRA_REPLAY, ph);
	return 0;
}

/* The scratch folder of a phase whose arguments use "{dir}": made once, owned by the phase. */
static const char *scratch_dir(struct suite *s, struct suite_phase *ph)
{
	if (!ph->scratch)
		ph->scratch = beside_target(s, "appio-suite-scratch");
	return ph->scratch;
}

/* As add_words(), with "{dir}" in a word standing for the phase's scratch folder. */
static void add_words_dir(struct suite *s, struct suite_phase *ph, const char *line)
{
	char *copy = xstrdup(line), *save = NULL, w[4200];

	for (char *t = strtok_r(copy, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
		const char *d = strstr(t, "{dir}");
		if (d)
			snprintf(w, sizeof(w), "%.*s%s%s", (int)(d - t), t, scratch_dir(s, ph), d + 5);
		add_word(ph, d ? w : t);
	}
	free(copy);
}

/* --db: the variant of @e it names, the first by default on a file, or none. */
static int pick_variant(const struct suite *s, const struct emu_ops *e, const struct emu_preset **v,
			char *err, size_t errlen)
{
	char names[256] = "none";

	*v = NULL;
	if (!s->o.db)
		*v = s->target_is_dev || !e->suite_variants || !e->suite_variants->name ? NULL : e->suite_variants;
	for (const struct emu_preset *p = e->suite_variants; s->o.db && p && p->name; p++) {
		snprintf(names + strlen(names), sizeof(names) - strlen(names), ", %s", p->name);
		if (!strcmp(p->name, s->o.db))
			*v = p;
	}
	if (s->o.db && strcmp(s->o.db, "none") && !*v)
		return suite_fail(err, errlen, "suite: --db: unknown database run '%s' (expected one of: %s)",
				  s->o.db, names);
	return 0;
}

/*
 * The runs of outside services (EMU_NO_TARGET emulators with suite
 * arguments): their suite arguments, the --db variant's, then the suite's
 * --db-* options.
 */
static int plan_services(struct suite *s, char *err, size_t errlen)
{
	bool quick = !strcmp(s->name, "quick");

	for (const struct emu_ops *const *e = emulator_table; *e; e++) {
		const char *args = quick ? (*e)->suite_quick_args : (*e)->suite_review_args;
		const struct emu_preset *v;
		char name[96];
		if (!((*e)->flags & EMU_NO_TARGET) || !args)
			continue;
		int rc = pick_variant(s, *e, &v, err, errlen);
		if (rc)
			return rc;
		if (!v)
			continue;
		snprintf(name, sizeof(name), "database %s", (*e)->name);
		struct suite_phase *ph = new_phase(s, PH_DB, (*e)->name, name);
		add_word(ph, (*e)->name);
		add_opt(ph, "seed", "%llu", (unsigned long long)((s->seed + 7919ULL * s->nph) & ((1ULL << 53) - 1)));
		add_words_dir(s, ph, args);
		add_words_dir(s, ph, v->args);
		if (s->o.db_threads.n)
			add_list(ph, "threads", &s->o.db_threads);
		if (suite_given(s, "db-time"))
			add_opt(ph, "time", "%llu", (unsigned long long)s->o.db_time);
		add_slo(s, ph, (*e)->flags & EMU_RATE);
		add_extras(s, EXTRA_DB, ph);
	}
	return 0;
}

/* Every "NAME:ARGS" must name a phase of its kind, or it would be ignored silently. */
static int check_extras(const struct suite *s, char *err, size_t errlen)
{
	static const char *const opt[] = { "pre-args", "sweep-args", "app-args", "db-args", "replay-args" };
	static const enum suite_kind kinds[][2] = {
		{ PH_PRECOND, PH_FILL }, { PH_SWEEP, PH_SWEEP }, { PH_APP, PH_APP }, { PH_DB, PH_DB },
		{ PH_REPLAY, PH_REPLAY },
	};

	for (unsigned k = 0; k < EXTRA_N; k++) {
		for (unsigned i = 0; i < s->o.extra[k].n; i++) {
			const char *v = s->o.extra[k].v[i];
			size_t n = extra_prefix(v);
			bool found = !n;
			for (unsigned p = 0; p < s->nph && !found; p++)
				found = (s->ph[p].kind == kinds[k][0] || s->ph[p].kind == kinds[k][1]) &&
					strlen(s->ph[p].subject) == n && !strncmp(s->ph[p].subject, v, n);
			if (!found)
				return suite_fail(err, errlen, "suite: --%s: '%.*s' is not a phase of this suite "
						  "(expected 'ARGS' or 'NAME:ARGS' with NAME a profile, emulator, "
						  "'fill' or 'write-sweep')", opt[k], (int)n, v);
		}
	}
	return 0;
}

static double estimate(const struct suite *s, const struct suite_phase *ph)
{
	const struct job *j = &ph->job;
	double per_point = j->emu ? (double)(j->ro.time + j->ro.ramp) + 0.3 : 0;

	switch (ph->kind) {
	case PH_PURGE:
		return 1;
	case PH_FILL:   /* a guess until the first seconds measure the drive */
		return 2 + (double)s->o.fill_passes * (double)(s->o.size ? s->o.size : 1ULL << 30) / 300e6;
	case PH_PRECOND:
		return (double)j->ro.max_rounds * ((double)j->ro.round_time + 0.3);
	case PH_DB:     /* and a guess for loading the data */
		return j->npoints * per_point + 30;
	case PH_REPLAY: /* the trace's span at speed 1, or --time */
		return fmin((double)j->ro.time, ph->trace_s) + 2;
	default:
		return ph->skip_reason ? 0 : j->npoints * per_point;
	}
}

static int parse_jobs(struct suite *s, char *err, size_t errlen)
{
	char msg[512];

	for (unsigned i = 0; i < s->nph; i++) {
		struct suite_phase *ph = &s->ph[i];
		if (!ph->skip_reason && job_parse(&ph->job, ph->argc, ph->argv, msg, sizeof(msg)))
			return suite_fail(err, errlen, "suite: %s: %s", ph->name, msg);
		if (ph->job.help)
			return suite_fail(err, errlen, "suite: %s: --help is not an option of a phase", ph->name);
		if (ph->kind == PH_DB) {        /* named as its result names it: "database oltp_read_write" */
			const char *name, *engine;
			job_names(&ph->job, &name, &engine);
			ph->subject = name;
			snprintf(ph->name, sizeof(ph->name), "database %s", name);
		}
		ph->est_s = estimate(s, ph);
	}
	return 0;
}

/* Phases are found by name (NAME:ARGS, the report's tests): each name once. */
static int check_names(const struct suite *s, char *err, size_t errlen)
{
	for (unsigned i = 0; i < s->nph; i++)
		for (unsigned k = 0; k < i; k++)
			if (!strcmp(s->ph[i].name, s->ph[k].name))
				return suite_fail(err, errlen, "suite: phase '%s' comes twice: list each "
						  "profile and application once", s->ph[i].name);
	return 0;
}

int suite_plan(struct suite *s, char *err, size_t errlen)
{
	struct stat st;
	int rc;

	s->seed = s->o.seed;
	if (!suite_given(s, "seed") && getrandom(&s->seed, sizeof(s->seed), 0) != sizeof(s->seed))
		s->seed = (uint64_t)time(NULL);
	s->seed &= (1ULL << 53) - 1;
	s->target_is_dev = !stat(s->o.target, &st) && S_ISBLK(st.st_mode);
	plan_devices(s);
	if ((rc = plan_profiles(s, err, errlen)) || (rc = plan_apps(s, err, errlen)) ||
	    (rc = plan_replay(s, err, errlen)) || (rc = plan_services(s, err, errlen)) ||
	    (rc = check_names(s, err, errlen)) ||
	    (rc = check_extras(s, err, errlen)))
		return rc;
	if (!s->nph)
		return suite_fail(err, errlen, "suite: nothing to run (every phase was turned off)");
	return parse_jobs(s, err, errlen);
}

static const char *const kind_names[] = {
	[PH_PURGE] = "purge", [PH_FILL] = "precondition", [PH_PRECOND] = "precondition",
	[PH_SWEEP] = "sweep", [PH_APP] = "application", [PH_REPLAY] = "replay", [PH_DB] = "database",
};

const char *suite_kind_name(enum suite_kind k)
{
	return kind_names[k];
}

char *suite_fmt_duration(double sec, char *buf, size_t len)
{
	unsigned long s = (unsigned long)(sec + 0.5);

	if (s >= 3600)
		snprintf(buf, len, "%lu h %02lu min", s / 3600, s / 60 % 60);
	else if (s >= 60)
		snprintf(buf, len, "%lu min %02lu s", s / 60, s % 60);
	else
		snprintf(buf, len, "%lu s", s);
	return buf;
}

void suite_print_plan(const struct suite *s, FILE *f)
{
	double total = 0;
	char d[32];

	for (unsigned i = 0; i < s->nph; i++) {
		const struct suite_phase *ph = &s->ph[i];
		bool after = false;
		fprintf(f, "  %2u. %-28s ", i + 1, ph->name);
		if (ph->skip_reason) {
			fprintf(f, "skipped: %s\n", ph->skip_reason);
			continue;
		}
		fprintf(f, "<= %-12s", suite_fmt_duration(ph->est_s, d, sizeof(d)));
		for (int w = 1; w < ph->argc; w++) {
			char *shown = suite_shown_word(ph->argv[w], &after);
			fprintf(f, " %s", shown);
			free(shown);
		}
		fputc('\n', f);
		total += ph->est_s;
	}
	fprintf(f, "  at most %s in all (preconditioning stops early at steady state)\n",
		suite_fmt_duration(total, d, sizeof(d)));
}

void suite_release(struct suite *s)
{
	for (unsigned i = 0; i < s->nph; i++) {
		struct suite_phase *ph = &s->ph[i];
		job_release(&ph->job);
		for (int w = 0; w < ph->argc; w++)
			free(ph->argv[w]);
		free(ph->argv);
		free(ph->scratch);
		free(ph->error);
		free(ph->json);
		result_release(&ph->res);
		suite_steady_release(&ph->st);
	}
	free(s->ph);
	free(s->fs_dir_owned);
	free(s->defaults_words);
	memset(s, 0, sizeof(*s));
}
