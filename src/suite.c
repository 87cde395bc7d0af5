/*
 * suite.c - the suite's options, its plan (which phases, with which job
 * arguments), and preconditioning to steady state. Running the phases and
 * the document are in suite_run.c.
 *
 * Where the defaults come from: the review suite follows docs/methodology.md
 * (preconditioning at 16 threads x 16 I/Os in rounds of 60 s, at most 25;
 * sweep 2..16 threads x 2..16 I/Os, 5 minutes a point; write-% sweep in
 * steps of 10; applications over 2..32 threads; SysBench OLTP). The quick
 * suite keeps the shape and scales every figure down to fit 5 minutes on a
 * 2-core machine with a 1 GiB file.
 */
#include <errno.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "../emulators/db/db_oltp.h"
#include "appio/runner.h"
#include "suite.h"
#include "xalloc.h"

#define DEFAULT_PROFILES "4k-randread,4k-randwrite,8k-70-30,128k-seqread,128k-seqwrite," \
			 "database,email,fileserver,webserver"

#define S(field) offsetof(struct suite_opts, field)
const struct opt_def suite_opt_table[] = {
	{ "target", OPT_STR, S(target), "appio.dat",
	  "file or block device under test; a new file is laid out first" },
	{ "size", OPT_SIZE, S(size), NULL,
	  "bytes of the target to use (a new file: 1G; an existing file or a device: all of it)",
	  .min = 4096 },
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
	{ "round-time", OPT_UINT, S(round_time), "60", "seconds per preconditioning round", .min = 1 },
	{ "max-rounds", OPT_UINT, S(max_rounds), "25",
	  "preconditioning rounds before going on without steady state", .min = 1, .max = 10000 },
	{ "threads", OPT_ULIST, S(threads), "2,4,8,16", "sweep threads, crossed with --qd",
	  .min = 1, .max = 1024 },
	{ "qd", OPT_ULIST, S(qd), "2,4,8,16", "sweep I/Os in flight per thread", .min = 1, .max = 4096 },
	{ "time", OPT_UINT, S(time), "300", "measured seconds per sweep point", .min = 1 },
	{ "ramp", OPT_UINT, S(ramp), "0", "warm-up seconds per sweep point (not recorded)" },
	{ "write-sweep", OPT_ULIST, S(write_sweep), NULL,
	  "write percentages of the 8 KiB random write-% sweep at --pre-threads x --pre-qd "
	  "('none': no sweep)", .max = 100 },
	{ "apps", OPT_STR, S(apps), "all",
	  "application emulators: all (those with suite arguments), none, or a comma list" },
	{ "app-threads", OPT_ULIST, S(app_threads), NULL,
	  "threads of every application run (default: each emulator's own)", .min = 1, .max = 1024 },
	{ "app-time", OPT_UINT, S(app_time), NULL,
	  "measured seconds per application point (default: each emulator's own)" },
	{ "fs-dir", OPT_STR, S(fs_dir), NULL,
	  "folder for the file-system emulators (default: appio-suite-fs beside a file target)" },
	{ "db", OPT_STR, S(db), NULL,
	  "driver of the real-database run: sqlite, mysql, pgsql or none (default: sqlite beside "
	  "a file target, none for a device)" },
	{ "db-workload", OPT_STR, S(db_workload), "oltp_read_write", "SysBench workload of the database run" },
	{ "db-threads", OPT_ULIST, S(db_threads), "2,4,8,16,32", "client threads of the database run",
	  .min = 1, .max = 4096 },
	{ "db-time", OPT_UINT, S(db_time), "60", "measured seconds per database point", .min = 1 },
	{ "db-tables", OPT_UINT, S(db_tables), "4", "tables of the database run", .min = 1 },
	{ "db-table-size", OPT_UINT, S(db_table_size), "100000", "rows per table of the database run" },
	{ "engine", OPT_STR, S(engine), NULL, "I/O engine of every phase (see 'appio list')" },
	{ "direct", OPT_BOOL, S(direct), "1", "O_DIRECT for every phase (0 or 1)" },
	{ "force", OPT_BOOL, S(force), NULL,
	  "allow writes to a block device that is mounted or holds a file system or partitions" },
	{ "seed", OPT_UINT, S(seed), NULL, "random seed of the suite (each phase derives its own)" },
	{ "pre-args", OPT_STR, S(extra_last[EXTRA_PRE]), NULL,
	  "more 'appio run' options for preconditioning: 'ARGS' for all, 'PROFILE:ARGS' for one "
	  "(repeatable)" },
	{ "sweep-args", OPT_STR, S(extra_last[EXTRA_SWEEP]), NULL,
	  "more 'appio run' options for the sweeps: 'ARGS' or 'PROFILE:ARGS' (repeatable)" },
	{ "app-args", OPT_STR, S(extra_last[EXTRA_APP]), NULL,
	  "more 'appio run' options for the applications: 'ARGS' or 'EMULATOR:ARGS' (repeatable)" },
	{ "db-args", OPT_STR, S(extra_last[EXTRA_DB]), NULL,
	  "more 'appio db run' options for the database run, e.g. '--mysql-socket /run/x.sock' "
	  "(repeatable)" },
	OPT_END,
};
#undef S

const struct suite_def suite_table[] = {
	{ "review", "the full method of the reviews: fill, steady state, 16-point sweeps of 5 "
	  "minutes, write-% sweep, applications, database (many hours)",
	  "--write-sweep 0,10,20,30,40,50,60,70,80,90,100" },
	{ "quick", "the same shape scaled down: about 5 minutes on a 1 GiB file, SQLite for the "
	  "database step",
	  "--size 1G --fill-passes 1 --round-time 2 --max-rounds 5 --threads 2 --qd 2,16 --time 2 "
	  "--write-sweep 0,50,100 --db-threads 2,8 --db-time 5 --db-tables 1 --db-table-size 10000" },
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
	struct run_config cfg = {
		.emu = j->emu, .emu_opts = j->eo, .preset = j->preset ? j->preset->name : NULL,
		.target = target ? &j->target : NULL, .engine = target ? j->engine : NULL,
		.target_spec = j->ro.target, .points = &j->points[idx], .npoints = 1,
		.time_ns = (uint64_t)(time_s * 1e9), .ramp_ns = (uint64_t)(ramp_s * 1e9),
		.seed = seed, .progress = true,
		.interrupted = interrupted,
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

static bool is_extra(const struct opt_def *o)
{
	size_t n = strlen(o->name);
	return n > 5 && !strcmp(o->name + n - 5, "-args");
}

static int apply(struct suite *s, char **argv, int argc, bool from_caller, bool *help,
		 char *err, size_t errlen)
{
	for (int i = 0; i < argc; i++) {
		char *arg = argv[i], name[64];
		if (strncmp(arg, "--", 2))
			return suite_fail(err, errlen, "suite: unexpected argument '%s' (options start with --)", arg);
		const char *val = strchr(arg, '=');
		size_t len = val ? (size_t)(val - arg - 2) : strlen(arg + 2);
		snprintf(name, sizeof(name), "%.*s", (int)len, arg + 2);
		if (!strcmp(name, "help")) {
			*help = true;
			return 0;
		}
		const struct opt_def *o = opt_find(suite_opt_table, name);
		if (!o)
			return suite_fail(err, errlen, "suite: unknown option '--%s' (see 'appio suite %s --help')",
					  name, s->name);
		if (val)
			val++;
		else if (o->type != OPT_BOOL || (i + 1 < argc && strncmp(argv[i + 1], "--", 2)))
			val = i + 1 < argc ? argv[++i] : NULL;
		if (!val && o->type != OPT_BOOL)
			return suite_fail(err, errlen, "suite: --%s needs a value (see --help)", name);
		if (o->type == OPT_ULIST && !strcmp(val, "none"))      /* an empty list: the phase is off */
			memset((char *)&s->o + o->offset, 0, sizeof(struct opt_ulist));
		else if (opt_set(o, &s->o, val, err, errlen))
			return -EINVAL;
		if (is_extra(o)) {
			struct suite_extra *x = &s->o.extra[(o->offset - offsetof(struct suite_opts, extra_last))
							     / sizeof(char *)];
			if (x->n == SUITE_MAX_EXTRA)
				return suite_fail(err, errlen, "suite: --%s given more than %d times", name,
						  SUITE_MAX_EXTRA);
			x->v[x->n++] = val;
		}
		if (from_caller)
			s->given |= 1ULL << (o - suite_opt_table);
	}
	return 0;
}

bool suite_given(const struct suite *s, const char *name)
{
	return s->given & (1ULL << (opt_find(suite_opt_table, name) - suite_opt_table));
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
	char *words[64], *save = NULL;
	int n = 0;

	memset(s, 0, sizeof(*s));
	*help = false;
	if (argc < 1 || !strncmp(argv[0], "--", 2)) {
		*help = argc >= 1 && !strcmp(argv[0], "--help");
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
	for (char *w = strtok_r(s->defaults_words, " ", &save); w && n < 64; w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	int rc = apply(s, words, n, false, help, err, errlen);
	return rc ? rc : apply(s, argv + 1, argc - 1, true, help, err, errlen);
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

/* A list as opt_format() writes any OPT_ULIST ("2,4,8"), by way of a row that has one. */
static void add_list(struct suite_phase *ph, const char *name, const struct opt_ulist *l)
{
	const struct opt_def *o = opt_find(suite_opt_table, "threads");
	char buf[512];
	struct suite_opts tmp = { .threads = *l };

	add_opt(ph, name, "%s", opt_format(o, &tmp, buf, sizeof(buf)));
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
	const struct suite_extra *x = &s->o.extra[kind];

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

/* The folder beside a file target, for the SQLite file and file-system emulators. */
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

/* 'appio db run' options as SysBench spells them too (--table_size, --db-driver). */
static int db_apply(struct db_opts *o, char **argv, int argc, char *err, size_t errlen)
{
	for (int i = 0; i < argc; i++) {
		char name[64];
		const char *arg = argv[i] + 2, *val = strchr(arg, '=');
		if (strncmp(argv[i], "--", 2))
			return suite_fail(err, errlen, "suite: --db-args: unexpected argument '%s'", argv[i]);
		snprintf(name, sizeof(name), "%.*s", (int)(val ? (size_t)(val - arg) : strlen(arg)), arg);
		for (char *p = name; *p; p++)
			*p = *p == '_' ? '-' : *p;
		const struct opt_def *d = opt_find(db_opt_table, strcmp(name, "db-driver") ? name : "driver");
		if (!d || !strcmp(name, "json"))
			return suite_fail(err, errlen, "suite: --db-args: unknown option '--%s' (see 'appio db --help')", name);
		if (val)
			val++;
		else if (d->type != OPT_BOOL || (i + 1 < argc && strncmp(argv[i + 1], "--", 2)))
			val = i + 1 < argc ? argv[++i] : NULL;
		if (!val && d->type != OPT_BOOL)
			return suite_fail(err, errlen, "suite: --db-args: --%s needs a value", name);
		if (opt_set(d, o, val, err, errlen))
			return -EINVAL;
	}
	return 0;
}

static int plan_db(struct suite *s, char *err, size_t errlen)
{
	const char *drv = s->o.db ? s->o.db : s->target_is_dev ? "none" : "sqlite";
	char name[96];

	if (!strcmp(drv, "none"))
		return 0;
	snprintf(name, sizeof(name), "database %s", s->o.db_workload);
	struct suite_phase *ph = new_phase(s, PH_DB, s->o.db_workload, name);
	add_opt(ph, "driver", "%s", drv);
	add_opt(ph, "tables", "%llu", (unsigned long long)s->o.db_tables);
	add_opt(ph, "table-size", "%llu", (unsigned long long)s->o.db_table_size);
	add_list(ph, "threads", &s->o.db_threads);
	add_opt(ph, "time", "%llu", (unsigned long long)s->o.db_time);
	add_opt(ph, "seed", "%llu", (unsigned long long)((s->seed + 7919ULL * s->nph) & ((1ULL << 53) - 1)));
	if (!strcmp(drv, "sqlite")) {
		ph->db_file = beside_target(s, "appio-suite-sqlite.db");
		add_opt(ph, "sqlite-db", "%s", ph->db_file);
	}
	add_extras(s, EXTRA_DB, ph);

	ph->db = xcalloc(1, sizeof(*ph->db));
	if (opt_defaults(db_opt_table, ph->db, err, errlen) ||
	    db_apply(ph->db, ph->argv, ph->argc, err, errlen))
		return -EINVAL;
	ph->db->workload = s->o.db_workload;
	if (db_opts_check(ph->db, err, errlen)) {
		char msg[512];
		snprintf(msg, sizeof(msg), "%s", err);
		return suite_fail(err, errlen, "suite: database run: %s", msg);
	}
	return 0;
}

/* Every "NAME:ARGS" must name a phase of its kind, or it would be ignored silently. */
static int check_extras(const struct suite *s, char *err, size_t errlen)
{
	static const char *const opt[] = { "pre-args", "sweep-args", "app-args", "db-args" };
	static const enum suite_kind kinds[][2] = {
		{ PH_PRECOND, PH_FILL }, { PH_SWEEP, PH_SWEEP }, { PH_APP, PH_APP }, { PH_DB, PH_DB },
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
	case PH_DB:
		return (double)ph->db->threads.n * (double)(ph->db->time + ph->db->warmup_time) +
		       (double)(ph->db->tables * ph->db->table_size) / 20000.0 + 1;
	default:
		return ph->skip_reason ? 0 : j->npoints * per_point;
	}
}

static int parse_jobs(struct suite *s, char *err, size_t errlen)
{
	char msg[512];

	for (unsigned i = 0; i < s->nph; i++) {
		struct suite_phase *ph = &s->ph[i];
		if (ph->kind != PH_DB && !ph->skip_reason &&
		    job_parse(&ph->job, ph->argc, ph->argv, msg, sizeof(msg)))
			return suite_fail(err, errlen, "suite: %s: %s", ph->name, msg);
		if (ph->job.help)
			return suite_fail(err, errlen, "suite: %s: --help is not an option of a phase", ph->name);
		ph->est_s = estimate(s, ph);
	}
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
	    (rc = plan_db(s, err, errlen)) || (rc = check_extras(s, err, errlen)))
		return rc;
	if (!s->nph)
		return suite_fail(err, errlen, "suite: nothing to run (every phase was turned off)");
	return parse_jobs(s, err, errlen);
}

static const char *const kind_names[] = {
	[PH_PURGE] = "purge", [PH_FILL] = "precondition", [PH_PRECOND] = "precondition",
	[PH_SWEEP] = "sweep", [PH_APP] = "application", [PH_DB] = "database",
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
		fprintf(f, "  %2u. %-28s ", i + 1, ph->name);
		if (ph->skip_reason) {
			fprintf(f, "skipped: %s\n", ph->skip_reason);
			continue;
		}
		fprintf(f, "<= %-12s", suite_fmt_duration(ph->est_s, d, sizeof(d)));
		for (int w = ph->kind == PH_DB ? 0 : 1; w < ph->argc; w++)
			fprintf(f, " %s", ph->argv[w]);
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
		free(ph->db);
		free(ph->db_file);
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
