/*
 * job.c - parse, validate, open and run one job (see job.h). Shared by
 * 'appio run' and the suite so that both accept exactly the same options.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appio/ckd.h"
#include "appio/runner.h"
#include "job.h"
#include "mpi_run.h"
#include "slo_search.h"
#include "appio/xalloc.h"

#define MAX_POINTS 4096

#define R(field) offsetof(struct job_run_opts, field)
const struct opt_def job_run_opt_table[] = {
	{ "target", OPT_STR, R(target), "appio.dat",
	  "file or block device to test (a folder for file-system emulators); a new file is laid out first",
	  .flags = OPT_TARGET | OPT_WHERE },
	{ "size", OPT_SIZE, R(size), NULL,
	  "bytes of the target to use (k/M/G/T); a new file is 1G (oltp and tpcc lay it out further when their tables and log need more), a device is used whole",
	  .min = 4096, .max = 1ULL << 56, .flags = OPT_TARGET | OPT_WHERE },
	{ "threads", OPT_ULIST, R(threads), "1",
	  "worker threads, a comma list: each value is a sweep point (e.g. 2,4,8,16)",
	  .min = 1, .max = 1024, .flags = OPT_WHERE },
	{ "qd", OPT_ULIST, R(qd), "1",
	  "I/Os in flight per thread, a comma list crossed with --threads", .min = 1, .max = 4096,
	  .flags = OPT_TARGET | OPT_WHERE },
	{ "time", OPT_UINT, R(time), "30", "measured seconds per sweep point", .min = 1,
	  .max = OPT_SECONDS_MAX },
	{ "events", OPT_UINT, R(events), "0",
	  "end each point after N units of work in all threads (a transaction of db, oltp and "
	  "tpcc; an operation of nosql, cache and the file-system emulators) begun in the measured "
	  "time, as sysbench's --events; --time still ends it first when given (0: no limit)", .max = UINT64_MAX / 2 },
	{ "ramp", OPT_UINT, R(ramp), "0",
	  "seconds of warm-up per point before measuring (not recorded)", .max = OPT_SECONDS_MAX,
	  .alias = "warmup-time" },
	{ "engine", OPT_STR, R(engine), NULL,
	  "I/O engine by name, one of this build's ('appio list' shows them): libaio by default when built, else sync",
	  .flags = OPT_TARGET },
	{ "direct", OPT_BOOL, R(direct), "1", "O_DIRECT: bypass the page cache (0 or 1)",
	  .flags = OPT_TARGET },
	{ "write-sweep", OPT_ULIST, R(write_sweep), NULL,
	  "run every point at each write percentage of a comma list, e.g. 0,30,50,70,100",
	  .max = 100, .flags = OPT_TARGET | OPT_WHERE },
	{ "json", OPT_STR, R(json), NULL, "write the result document to FILE (- for stdout)",
	  .flags = OPT_WHERE },
	{ "csv", OPT_STR, R(csv), NULL, "write per-second series to PREFIX_<class>.csv",
	  .flags = OPT_WHERE },
	{ "seed", OPT_UINT, R(seed), NULL, "random seed (default: a fresh one, saved in the result)",
	  .max = (1ULL << 53) - 1, .flags = OPT_WHERE },   /* exact in any JSON reader */
	{ "report-interval", OPT_UINT, R(report_interval), "0",
	  "also print a line on stderr every N measured seconds, terminal or not (0: none)",
	  .max = OPT_SECONDS_MAX, .flags = OPT_WHERE },
	{ "force", OPT_BOOL, R(force), NULL,
	  "allow writes to a block device that is mounted or holds a file system or partitions",
	  .flags = OPT_TARGET | OPT_WHERE },
	{ "steady-state", OPT_BOOL, R(steady_state), NULL,
	  "first precondition at the first point in rounds until steady state (SNIA PTS: 5 rounds "
	  "within 20 % of their average, fitted change <= 10 %), then run the points" },
	{ "round-time", OPT_UINT, R(round_time), "60", "seconds per --steady-state round", .min = 1,
	  .max = OPT_SECONDS_MAX },
	{ "rate", OPT_UINT, R(rate), "0",
	  "open loop: start this many I/Os (block-level profiles) or units of work (transactions "
	  "of oltp and tpcc, operations of nosql and cache, loops of the file-system emulators) "
	  "per second per point over all threads, each at its intended time, as sysbench's "
	  "--rate; latency is measured from that time (0: closed loop)",
	  .max = 1000000000 },
	{ "slo", OPT_STRLIST, R(slo), NULL,
	  "latency limits, [CLASS.]STAT=TIME (STAT mean, max or any percentile pN, 0 < N <= 100: "
	  "p50, p95, p99.9...): the highest-throughput point that meets them, e.g. p99=2ms or "
	  "read.p99=1ms,write.p99.9=5ms", .flags = OPT_WHERE },
	{ "slo-search", OPT_UINT, R(slo_search), "0",
	  "after the sweep, find the throughput at the --slo limits by at most N rate-limited runs "
	  "(bisection over --rate at the sweep's busiest point, --ramp + --time each; a "
	  "transactional emulator warms for at least --time)",
	  .max = SLO_SEARCH_PROBES, .flags = OPT_WHERE },
	{ "max-rounds", OPT_UINT, R(max_rounds), "25",
	  "--steady-state gives up (and says so) after this many rounds", .min = 1, .max = 10000 },
#ifdef HAVE_MPI
	{ "target-split", OPT_BOOL, R(target_split), NULL,
	  "under mpirun: the ranks share one --target, each on its own equal slice (block-level "
	  "profiles); else --target takes %r (rank), %h (host), %l (rank on its host)",
	  .flags = OPT_TARGET | OPT_WHERE },
	{ "stonewall", OPT_BOOL, R(stonewall), NULL,
	  "under mpirun: a point whose work runs out ends for every rank when the first one is done" },
#endif
	OPT_END,
};
#undef R

static int fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* Parse @argv (argv[0] is a name, not an option) into the job's two tables. */
static int apply(struct job *j, int argc, char **argv, unsigned flags, char *err, size_t errlen)
{
	char see[96];

	snprintf(see, sizeof(see), "appio run %s --help", j->preset ? j->preset->name : j->emu->name);
	return opt_parse(j->tabs, 2, argc, argv, flags, &j->help, see, err, errlen);
}

bool job_can_rate(const struct job *j)
{
	if (j->emu->next_io)
		return !(j->emu->flags & EMU_SCHEDULED);
	return j->emu->step && (j->emu->flags & EMU_RATE);
}

bool job_given(const struct job *j, const char *name)
{
	return opt_given(&j->tabs[0], name);
}

/* Split a preset's "--a 1 --b 2" into words and apply them. */
static int apply_preset(struct job *j, const char *args, char *err, size_t errlen)
{
	char *words[64], *save = NULL;
	int n = 1;

	j->preset_words = xstrdup(args);
	words[0] = (char *)j->emu->name;
	for (char *w = strtok_r(j->preset_words, " ", &save); w && n < 64;
	     w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	return apply(j, n, words, 0, err, errlen);
}

static int build_points(struct job *j, char *err, size_t errlen)
{
	const struct opt_ulist *ws = &j->ro.write_sweep;
	unsigned nw = ws->n ? ws->n : 1;

	if ((uint64_t)nw * j->ro.threads.n * j->ro.qd.n > MAX_POINTS)
		return fail(err, errlen, "--threads x --qd x --write-sweep make more than %d points",
			    MAX_POINTS);
	j->points = xcalloc((size_t)nw * j->ro.threads.n * j->ro.qd.n, sizeof(*j->points));
	for (unsigned w = 0; w < nw; w++)
		for (unsigned t = 0; t < j->ro.threads.n; t++)
			for (unsigned q = 0; q < j->ro.qd.n; q++)
				j->points[j->npoints++] = (struct emu_point){
					.threads = (unsigned)j->ro.threads.v[t],
					.qd = (unsigned)j->ro.qd.v[q],
					.write_pct = ws->n ? (int)ws->v[w] : -1,
				};
	return 0;
}

/* Engine, seed, points: what follows from the options. */
static int resolve(struct job *j, char *err, size_t errlen)
{
	j->engine = j->ro.engine ? engine_find(j->ro.engine) : engine_default();
	if (!j->engine) {
		char names[256] = "";
		for (const struct engine_ops *const *e = engine_table; *e; e++)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s",
				 e == engine_table ? "" : ", ", (*e)->name);
		return fail(err, errlen, "--engine: unknown engine '%s' (one of: %s)", j->ro.engine, names);
	}
	if (j->ro.write_sweep.n && !(j->emu->flags & EMU_WRITE_SWEEP))
		return fail(err, errlen, "--write-sweep: '%s' has no read/write mix to sweep", j->emu->name);
	if (j->ro.events && !j->emu->step)
		return fail(err, errlen, "--events: '%s' issues I/Os, not units of work; use --time "
			    "(--events counts the transactions or operations of db, oltp, tpcc, nosql, "
			    "cache and the file-system emulators)", j->preset ? j->preset->name : j->emu->name);
	/* a point ends by its work alone unless a time is given too */
	if (j->ro.events && !job_given(j, "time"))
		j->ro.time = OPT_SECONDS_MAX;
	if (j->ro.rate && !job_can_rate(j))
		return fail(err, errlen, "--rate: '%s' %s; --rate applies to the block-level profiles "
			    "and the transactional emulators oltp, tpcc, nosql, cache and the file-system "
			    "ones", j->emu->name, j->emu->next_io ? "keeps its own schedule" :
			    "cannot start its units of work at a set rate");
	for (unsigned i = 0; i < j->ro.slo.n; i++)
		if (slo_parse(&j->slo, j->ro.slo.v[i], err, errlen))
			return -EINVAL;
	if (j->ro.slo_search && !j->slo.n)
		return fail(err, errlen, "--slo-search: needs the limits to search for (--slo p99=2ms)");
	if (j->ro.slo_search && !job_can_rate(j))
		return fail(err, errlen, "--slo-search: '%s' cannot run at a set rate; --slo-search "
			    "applies to the block-level profiles and the transactional emulators oltp, "
			    "tpcc, nosql, cache and the file-system ones", j->emu->name);
	/* each of their runs sets the model up afresh for a point of its own */
	if ((j->ro.steady_state || j->ro.slo_search) && opt_given(&j->tabs[1], "warmup-points"))
		return fail(err, errlen, "--warmup-points: not with --%s, whose runs each start a fresh "
			    "model at one point (they warm it with --ramp)",
			    j->ro.steady_state ? "steady-state" : "slo-search");
	if (!job_given(j, "seed") &&
	    getrandom(&j->ro.seed, sizeof(j->ro.seed), 0) != sizeof(j->ro.seed))
		j->ro.seed = (uint64_t)time(NULL);
	j->ro.seed &= (1ULL << 53) - 1;         /* exact in any JSON reader */
	mpi_run_bcast_u64(&j->ro.seed);         /* under mpirun: rank 0's, for every rank */
	return build_points(j, err, errlen);
}

int job_parse(struct job *j, int argc, char **argv, char *err, size_t errlen)
{
	memset(j, 0, sizeof(*j));
	j->target.fd = -1;
	if (argc < 1 || !argv[0] || !strncmp(argv[0], "-", 1)) {
		j->help = argc >= 1 && argv[0] && (!strcmp(argv[0], "--help") || !strcmp(argv[0], "-h"));
		return j->help ? 0 : fail(err, errlen, "which profile or emulator? (see 'appio list')");
	}
	j->preset = emu_preset_find(argv[0]);
	j->emu = emulator_find(j->preset ? j->preset->emulator : argv[0]);
	if (!j->emu) {
		char like[160];
		emu_names_like(argv[0], like, sizeof(like));
		return fail(err, errlen, "unknown profile or emulator '%s' (%s%s%s'appio list' shows them all)",
			    argv[0], like[0] ? "did you mean " : "", like, like[0] ? "? " : "");
	}
	j->eo = xcalloc(1, j->emu->opts_size ? j->emu->opts_size : 1);
	j->tabs[0] = (struct opt_tab){ .defs = job_run_opt_table, .dst = &j->ro };
	j->tabs[1] = (struct opt_tab){ .defs = j->emu->opts, .dst = j->eo };
	if (opt_defaults(job_run_opt_table, &j->ro, err, errlen) ||
	    (j->emu->opts && opt_defaults(j->emu->opts, j->eo, err, errlen)))
		return -EINVAL;
	/* a preset's arguments, or else the emulator's own defaults; the caller's come after */
	const char *pre = j->preset ? j->preset->args : j->emu->default_args;
	int rc = pre ? apply_preset(j, pre, err, errlen) : 0;
	if (!rc)
		rc = apply(j, argc, argv, OPT_MARK_GIVEN, err, errlen);
	if (rc || j->help)
		return rc;
	return resolve(j, err, errlen);
}

static bool will_write(const struct job *j)
{
	if (j->emu->will_write)
		return j->emu->will_write(j->eo, j->ro.write_sweep.n > 0);
	return j->emu->flags & EMU_WRITES;
}

/* File-system emulators work in a folder: make it if it is missing. */
static int make_dir(const char *path, char *err, size_t errlen)
{
	if (mkdir(path, 0755) && errno != EEXIST) {
		int e = errno;
		snprintf(err, errlen, "--target: cannot create folder '%s': %s", path, strerror(e));
		return e == EACCES || e == ENOENT || e == EROFS ? -EINVAL : -e;
	}
	return 0;
}

/*
 * Is a target_open() error the caller's target at fault (bad input, exit 2)?
 * A layout that ran out of space or hit an I/O error is a failed run
 * (exit 1), an interrupted one is -EINTR.
 */
static bool input_error(int rc)
{
	switch (-rc) {
	case ENOENT: case ENOTDIR: case EISDIR: case EACCES: case EPERM: case EROFS:
	case EBUSY: case ENAMETOOLONG: case EINVAL: case ELOOP: case ENXIO: case ENODEV:
		return true;
	}
	return false;
}

/* This rank's --target: %r, %h and %l expanded under mpirun, as given otherwise. */
static int expand_target(struct job *j, char *err, size_t errlen)
{
	char path[PATH_MAX];
	int rc = mpi_run_expand_here(j->ro.target, path, sizeof(path));

	if (rc == -EINVAL)
		return fail(err, errlen, "--target: '%s': a %% must be followed by r (rank), h (host "
			    "name), l (rank on its host) or %%", j->ro.target);
	if (rc)
		return fail(err, errlen, "--target: '%s' is too long once expanded", j->ro.target);
	free(j->target_path);
	j->target_path = xstrdup(path);
	return 0;
}

int job_open_target(struct job *j, volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	bool writes = will_write(j);
	char msg[512];
	int rc = expand_target(j, err, errlen);
	if (rc)
		return rc;
	const char *path = j->target_path;
	struct target_open_args ta = {
		.path = path, .size = j->ro.size, .write = writes,
		.direct = j->ro.direct, .force = j->ro.force, .seed = mpi_run_seed(j->ro.seed),
		.create = job_given(j, "size") || writes, .stop = stop,
	};

	if (j->emu->flags & EMU_NO_TARGET)
		return j->emu->check ? j->emu->check(j->eo, j->about, sizeof(j->about), err, errlen) : 0;
	if (j->ro.target_split && (!j->emu->next_io || (j->emu->flags & EMU_TARGET_DIR)))
		return fail(err, errlen, "--target-split: '%s' keeps its own layout in the target; give "
			    "each rank its own with %%r in --target", j->emu->name);
	if (j->emu->flags & EMU_TARGET_DIR) {
		/* a comma list spreads the emulator over several folders: make each */
		char *spec = xstrdup(path), *save = NULL;
		for (char *d = strtok_r(spec, ",", &save); d && !rc; d = strtok_r(NULL, ",", &save))
			rc = make_dir(d, err, errlen);
		snprintf(msg, sizeof(msg), "%s", spec);     /* the first folder: strtok ended it */
		free(spec);
		if (rc)
			return rc;
		ta.path = msg;
	} else if (access(path, F_OK) && errno == ENOENT) {
		if (!writes && !ta.create)
			return fail(err, errlen, "--target: '%s' does not exist; a read-only profile "
				    "needs existing data (give --size to create and lay it out)",
				    path);
		if (!ta.size) { /* a new file for a writing workload: the documented default */
			ta.size = 1ULL << 30;
			ta.size_default = true;
		}
	}
	char first[sizeof(msg)];
	if (ta.path == msg) {
		snprintf(first, sizeof(first), "%s", msg);
		ta.path = first;
	}
	rc = target_open(&j->target, &ta, msg, sizeof(msg));
	if (rc) {
		snprintf(err, errlen, "--target: %s", msg);
		return input_error(rc) ? -EINVAL : rc;
	}
	if ((j->emu->flags & EMU_TARGET_DIR) && j->target.kind != TARGET_DIR)
		return fail(err, errlen, "--target: '%s' is not a folder ('%s' works on files in a folder)",
			    path, j->emu->name);
	if (!(j->emu->flags & EMU_TARGET_DIR) && j->target.kind == TARGET_DIR)
		return fail(err, errlen, "--target: '%s' is a directory ('%s' needs a file or a block "
			    "device)", path, j->preset ? j->preset->name : j->emu->name);
	if (j->ro.target_split) {
		mpi_run_slice(j->target.size, 1 << 20, mpi_run_rank(), mpi_run_size(), &j->target.base,
			      &j->target.size);
		j->target.size_default = false;         /* a slice of a shared file: not grown */
	}
	return 0;
}

void job_describe(const struct job *j, struct result *res)
{
	const struct opt_def *tabs[] = { job_run_opt_table, j->emu->opts };
	const void *src[] = { &j->ro, j->eo };
	char buf[1024];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(res->started, sizeof(res->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	res->seed = j->ro.seed;
	res->rate = j->ro.rate;
	res->slo = j->slo.n ? &j->slo : NULL;
	const char *name, *engine;
	job_names(j, &name, &engine);
	snprintf(res->workload, sizeof(res->workload), "%s", name);
	snprintf(res->preset, sizeof(res->preset), "%s", j->preset ? j->preset->name : "");
	snprintf(res->engine, sizeof(res->engine), "%s", engine);
	for (int k = 0; k < 2; k++)
		for (const struct opt_def *o = tabs[k]; o && o->name; o++)
			if (strcmp(o->name, "json") && strcmp(o->name, "csv") && !(o->flags & OPT_SECRET) &&
			    !(k == 0 && (j->emu->flags & EMU_NO_TARGET) && (o->flags & OPT_TARGET)))
				result_add_opt(res, o->name, opt_format(o, src[k], buf, sizeof(buf)));
}

void job_names(const struct job *j, const char **name, const char **engine)
{
	*name = j->emu->name;
	*engine = j->emu->flags & EMU_NO_TARGET ? "" : j->engine->name;
	if (j->emu->describe)
		j->emu->describe(j->eo, name, engine);
}

const struct emu_action *job_action(const struct job *j, const char *name)
{
	for (const struct emu_action *a = j->emu->actions; a && a->name; a++)
		if (!strcmp(a->name, name))
			return a;
	return NULL;
}

int job_act(struct job *j, const struct emu_action *a, volatile sig_atomic_t *stop,
	    void (*progress)(const char *line), struct emu_action_out *out, char *err, size_t errlen)
{
	struct emu_action_args args = { .opts = j->eo, .seed = j->ro.seed, .stop = stop,
					 .progress = progress };

	for (unsigned i = 0; i < j->ro.threads.n; i++)
		if (j->ro.threads.v[i] > args.threads)
			args.threads = (unsigned)j->ro.threads.v[i];
	memset(out, 0, sizeof(*out));
	return a->fn(&args, out, err, errlen);
}

int job_run(struct job *j, struct result *res, bool progress,
	    volatile sig_atomic_t *interrupted, char *err, size_t errlen)
{
	bool target = !(j->emu->flags & EMU_NO_TARGET);
	uint64_t time_ns, ramp_ns;

	if (ckd_mul_u64(j->ro.time, 1000000000ULL, &time_ns) ||
	    ckd_mul_u64(j->ro.ramp, 1000000000ULL, &ramp_ns) ||
	    ckd_add_u64(time_ns, ramp_ns, &(uint64_t){ 0 }))
		return fail(err, errlen, "--time/--ramp: %llu + %llu seconds do not fit in a run "
			    "(expected at most %d each)", (unsigned long long)j->ro.time,
			    (unsigned long long)j->ro.ramp, OPT_SECONDS_MAX);
	struct run_config cfg = {
		.emu = j->emu, .emu_opts = j->eo, .preset = j->preset ? j->preset->name : NULL,
		.target = target ? &j->target : NULL, .engine = target ? j->engine : NULL,
		.target_spec = j->target_path ? j->target_path : j->ro.target,
		.points = j->points, .npoints = j->npoints, .time_ns = time_ns, .ramp_ns = ramp_ns,
		.events = j->ro.events,
		.seed = mpi_run_seed(j->ro.seed), .stonewall = j->ro.stonewall, .qd_given = job_given(j, "qd"), .force = j->ro.force, .progress = progress,
		.report_interval_s = (unsigned)j->ro.report_interval, .rate = j->ro.rate,
		/* saved after every point, except to stdout: one document there, at the end */
		.json_path = j->ro.json && strcmp(j->ro.json, "-") && mpi_run_root() ? j->ro.json : NULL,
		.interrupted = interrupted,
	};
	int rc = runner_run(&cfg, res, err, errlen);
	/*
	 * Some bad input shows only once the emulator lays itself out on the
	 * target (tables larger than --size): a file made for this run, with
	 * nothing measured on it, goes with the error.
	 */
	if (rc == -EINVAL && target && j->target.created && !res->npoints)
		unlink(j->target.path);
	return rc;
}

void job_help(const struct job *j, FILE *f)
{
	const struct emu_ops *emu = j ? j->emu : NULL;
	const struct emu_preset *p = j ? j->preset : NULL;

	if (p)
		fprintf(f, "usage: appio run %s [options]\n  %s\n  (= %s %s)\n\n", p->name, p->desc,
			p->emulator, p->args);
	else if (emu)
		fprintf(f, "usage: appio run %s [options]\n  %s\n%s%s%s\n", emu->name, emu->desc,
			emu->default_args ? "  (defaults: " : "",
			emu->default_args ? emu->default_args : "", emu->default_args ? ")\n" : "");
	else
		fputs("usage: appio run PROFILE|EMULATOR [options]   ('appio list' shows them)\n\n", f);
	if (emu && emu->actions) {
		char word[64] = "";
		for (size_t i = 0; emu->action_word && emu->action_word[i] && i + 2 < sizeof(word); i++)
			word[i + 1] = (char)toupper((unsigned char)emu->action_word[i]);
		word[0] = emu->action_word ? ' ' : '\0';
		fprintf(f, "  or: appio %s ACTION%s [options]\n\nactions:\n  %-16s %s\n", emu->name, word,
			"run", "measure: one point per --threads value");
		for (const struct emu_action *a = emu->actions; a->name; a++)
			fprintf(f, "  %-16s %s\n", a->name, a->desc);
		fputc('\n', f);
	}
	fputs("run options:\n", f);
	opt_help(f, job_run_opt_table);
	if (emu && emu->opts && emu->opts[0].name) {
		fprintf(f, "\n%s options:\n", emu->name);
		opt_help(f, emu->opts);
	}
	for (const struct emu_list *l = emu ? emu->lists : NULL; l && l->title; l++) {
		const char *name, *desc;
		fprintf(f, "\n%s:\n", l->title);
		for (unsigned i = 0; l->item(i, &name, &desc); i++)
			fprintf(f, "  %-16s %s\n", name, desc);
	}
	fputs("\nsizes take k, M, G, T (powers of 1024); times are seconds. Exit status: 0 ok,\n"
	      "1 the run failed, 2 bad input, 130 interrupted (results so far are kept).\n", f);
}

void job_release(struct job *j)
{
	target_close(&j->target);
	free(j->target_path);
	free(j->eo);
	free(j->preset_words);
	free(j->points);
	memset(j, 0, sizeof(*j));
	j->target.fd = -1;
}
