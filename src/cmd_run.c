/*
 * cmd_run.c - 'appio run PROFILE [options]': parse the run options and the
 * emulator's own, open the target, build the sweep, run, report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "appio/emulator.h"
#include "appio/opt.h"
#include "appio/runner.h"
#include "appio/target.h"
#include "cli.h"
#include "version.h"
#include "xalloc.h"

#define MAX_POINTS 4096

struct run_opts {
	const char *target;
	uint64_t size;
	struct opt_ulist threads, qd, write_sweep;
	uint64_t time, ramp, seed;
	const char *engine, *json, *csv;
	bool direct, force;
};

#define R(field) offsetof(struct run_opts, field)
static const struct opt_def run_opt_table[] = {
	{ "target", OPT_STR, R(target), "appio.dat",
	  "file or block device to test; a new file is created and laid out first" },
	{ "size", OPT_SIZE, R(size), NULL,
	  "bytes of the target to use (k/M/G/T); a new file is 1G, a device is used whole",
	  .min = 4096 },
	{ "threads", OPT_ULIST, R(threads), "1",
	  "worker threads, a comma list: each value is a sweep point (e.g. 2,4,8,16)",
	  .min = 1, .max = 1024 },
	{ "qd", OPT_ULIST, R(qd), "1",
	  "I/Os in flight per thread, a comma list crossed with --threads", .min = 1, .max = 4096 },
	{ "time", OPT_UINT, R(time), "30", "measured seconds per sweep point", .min = 1 },
	{ "ramp", OPT_UINT, R(ramp), "0",
	  "seconds of warm-up per point before measuring (not recorded)" },
	{ "engine", OPT_STR, R(engine), NULL,
	  "I/O engine: libaio (default when built), io_uring, sync, null (see 'appio list')" },
	{ "direct", OPT_BOOL, R(direct), "1", "O_DIRECT: bypass the page cache (0 or 1)" },
	{ "write-sweep", OPT_ULIST, R(write_sweep), NULL,
	  "run every point at each write percentage, e.g. 0,10,20,...,100", .max = 100 },
	{ "json", OPT_STR, R(json), NULL, "write the result document to FILE (- for stdout)" },
	{ "csv", OPT_STR, R(csv), NULL, "write per-second series to PREFIX_<class>.csv" },
	{ "seed", OPT_UINT, R(seed), NULL, "random seed (default: a fresh one, saved in the result)" },
	{ "force", OPT_BOOL, R(force), NULL,
	  "allow writes to a block device that is mounted or holds a file system or partitions" },
	OPT_END,
};
#undef R

struct run_args {
	const struct emu_ops *emu;
	const struct emu_preset *preset;
	struct run_opts ro;
	void *eo;               /* emulator options */
	uint64_t set;           /* run options given by the user, by row */
	char *preset_words;     /* the preset's arguments, split; OPT_STR values point here */
};

static void print_help(const struct emu_ops *emu, const struct emu_preset *preset)
{
	if (preset)
		printf("usage: appio run %s [options]\n  %s\n  (= %s %s)\n\n", preset->name,
		       preset->desc, preset->emulator, preset->args);
	else if (emu)
		printf("usage: appio run %s [options]\n  %s\n\n", emu->name, emu->desc);
	else
		printf("usage: appio run PROFILE|EMULATOR [options]   ('appio list' shows them)\n\n");
	puts("run options:");
	opt_help(stdout, run_opt_table);
	if (emu && emu->opts && emu->opts[0].name) {
		printf("\n%s options:\n", emu->name);
		opt_help(stdout, emu->opts);
	}
	puts("\nsizes take k, M, G, T (powers of 1024); times are seconds. Exit status: 0 ok,\n"
	     "1 the run failed, 2 bad input, 130 interrupted (results so far are kept).");
}

/* Apply "--name value" / "--name=value" / bare booleans; exits on bad input. */
static void apply(struct run_args *a, char **argv, int argc, bool from_user)
{
	char err[512];

	for (int i = 0; i < argc; i++) {
		char *arg = argv[i];
		if (strncmp(arg, "--", 2))
			cli_usage_error("unexpected argument '%s' (options start with --)", arg);
		char name[64];
		const char *val = strchr(arg, '=');
		size_t len = val ? (size_t)(val - arg - 2) : strlen(arg + 2);
		snprintf(name, sizeof(name), "%.*s", (int)len, arg + 2);
		if (!strcmp(name, "help")) {
			print_help(a->emu, a->preset);
			exit(0);
		}
		const struct opt_def *o = opt_find(run_opt_table, name);
		void *dst = &a->ro;
		if (!o && a->emu->opts) {
			o = opt_find(a->emu->opts, name);
			dst = a->eo;
		}
		if (!o)
			cli_usage_error("unknown option '--%s' for '%s' (see 'appio run %s --help')",
					name, a->emu->name, a->preset ? a->preset->name : a->emu->name);
		if (val)
			val++;
		else if (o->type != OPT_BOOL || (i + 1 < argc && strncmp(argv[i + 1], "--", 2)))
			val = i + 1 < argc ? argv[++i] : NULL;
		if (!val && o->type != OPT_BOOL)
			cli_usage_error("--%s needs a value (see --help)", name);
		if (opt_set(o, dst, val, err, sizeof(err)))
			cli_usage_error("%s", err);
		if (from_user && dst == &a->ro)
			a->set |= 1ULL << (o - run_opt_table);
	}
}

static bool given(const struct run_args *a, const char *name)
{
	return a->set & (1ULL << (opt_find(run_opt_table, name) - run_opt_table));
}

/* Split a preset's "--a 1 --b 2" into words and apply them. */
static void apply_preset(struct run_args *a)
{
	char *words[64], *save = NULL;
	int n = 0;
	a->preset_words = xstrdup(a->preset->args);
	for (char *w = strtok_r(a->preset_words, " ", &save); w && n < 64;
	     w = strtok_r(NULL, " ", &save))
		words[n++] = w;
	apply(a, words, n, false);
}

static void parse(struct run_args *a, int argc, char **argv)
{
	char err[512];
	const char *name = argc > 1 ? argv[1] : NULL;

	if (!name || !strcmp(name, "--help") || !strcmp(name, "-h")) {
		print_help(NULL, NULL);
		exit(name ? 0 : EXIT_USAGE);
	}
	a->preset = emu_preset_find(name);
	a->emu = emulator_find(a->preset ? a->preset->emulator : name);
	if (!a->emu)
		cli_usage_error("unknown profile or emulator '%s' (see 'appio list')", name);
	a->eo = xcalloc(1, a->emu->opts_size ? a->emu->opts_size : 1);
	if (opt_defaults(run_opt_table, &a->ro, err, sizeof(err)) ||
	    (a->emu->opts && opt_defaults(a->emu->opts, a->eo, err, sizeof(err))))
		cli_usage_error("%s", err);
	if (a->preset)
		apply_preset(a);
	apply(a, argv + 2, argc - 2, true);
}

static unsigned build_points(const struct run_args *a, struct emu_point *pts)
{
	const struct opt_ulist *ws = &a->ro.write_sweep;
	unsigned nw = ws->n ? ws->n : 1, n = 0;

	if ((uint64_t)nw * a->ro.threads.n * a->ro.qd.n > MAX_POINTS)
		cli_usage_error("--threads x --qd x --write-sweep make more than %d points", MAX_POINTS);
	for (unsigned w = 0; w < nw; w++)
		for (unsigned t = 0; t < a->ro.threads.n; t++)
			for (unsigned q = 0; q < a->ro.qd.n; q++)
				pts[n++] = (struct emu_point){
					.threads = (unsigned)a->ro.threads.v[t],
					.qd = (unsigned)a->ro.qd.v[q],
					.write_pct = ws->n ? (int)ws->v[w] : -1,
				};
	return n;
}

static bool will_write(const struct run_args *a)
{
	bool sweep = a->ro.write_sweep.n > 0;
	if (a->emu->will_write)
		return a->emu->will_write(a->eo, sweep);
	return a->emu->flags & EMU_WRITES;
}

static void open_target(struct run_args *a, struct target *t)
{
	char err[512];
	bool writes = will_write(a);
	bool exists = access(a->ro.target, F_OK) == 0;
	struct target_open_args ta = {
		.path = a->ro.target, .size = a->ro.size, .write = writes,
		.direct = a->ro.direct, .force = a->ro.force, .seed = a->ro.seed,
		.create = given(a, "size") || writes,
	};

	/* a new file for a writing workload gets the documented default size */
	if (!exists && writes && !ta.size)
		ta.size = 1ULL << 30;
	int rc = target_open(t, &ta, err, sizeof(err));
	if (rc == -ENOENT && !writes)
		cli_usage_error("--target: '%s' does not exist; a read-only profile needs existing "
				"data (give --size to create and lay it out)", a->ro.target);
	if (rc)
		cli_usage_error("--target: %s", err);
}

static void record_options(struct result *res, const struct run_args *a)
{
	char buf[1024];
	const struct opt_def *tabs[] = { run_opt_table, a->emu->opts };
	const void *src[] = { &a->ro, a->eo };

	for (int k = 0; k < 2; k++) {
		for (const struct opt_def *o = tabs[k]; o && o->name; o++) {
			if (!strcmp(o->name, "json") || !strcmp(o->name, "csv"))
				continue;
			result_add_opt(res, o->name, opt_format(o, src[k], buf, sizeof(buf)));
		}
	}
}

static void print_header(const struct run_args *a, const struct target *t,
			 const struct engine_ops *eng, unsigned npoints)
{
	char sz[32];
	printf("appio %s: %s on '%s' (%s, %s, logical block %u B%s%s), engine %s, %s,\n"
	       "  %u point(s) x (%llu s ramp + %llu s), seed %llu\n", APPIO_VERSION,
	       a->preset ? a->preset->name : a->emu->name, t->path, target_kind_name(t->kind),
	       fmt_size(t->size, sz, sizeof(sz)), t->lbs, *t->model ? ", " : "", t->model,
	       eng->name, t->direct ? "O_DIRECT" : "buffered", npoints,
	       (unsigned long long)a->ro.ramp, (unsigned long long)a->ro.time,
	       (unsigned long long)a->ro.seed);
	if (t->layout_bytes)
		printf("  laid out %s in %.1f s (%.0f MB/s)\n",
		       fmt_size(t->layout_bytes, sz, sizeof(sz)), t->layout_s,
		       t->layout_s > 0 ? (double)t->layout_bytes / 1e6 / t->layout_s : 0);
	fflush(stdout);
}

static void utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;
	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int cmd_run(int argc, char **argv)
{
	struct run_args a = { 0 };
	struct target t = { .fd = -1 };
	struct emu_point *pts = xcalloc(MAX_POINTS, sizeof(*pts));
	struct result res;
	char err[512] = "";

	parse(&a, argc, argv);
	const struct engine_ops *eng = a.ro.engine ? engine_find(a.ro.engine) : engine_default();
	if (!eng)
		cli_usage_error("--engine: unknown engine '%s' (see 'appio list')", a.ro.engine);
	if (a.ro.write_sweep.n && !(a.emu->flags & EMU_WRITE_SWEEP))
		cli_usage_error("--write-sweep: '%s' has no read/write mix to sweep", a.emu->name);
	if (!given(&a, "seed") && getrandom(&a.ro.seed, sizeof(a.ro.seed), 0) != sizeof(a.ro.seed))
		a.ro.seed = (uint64_t)time(NULL);
	a.ro.seed &= (1ULL << 53) - 1;  /* exact in any JSON reader */
	unsigned npoints = build_points(&a, pts);
	open_target(&a, &t);

	result_init(&res);
	utc_now(res.started, sizeof(res.started));
	res.seed = a.ro.seed;
	snprintf(res.workload, sizeof(res.workload), "%s", a.emu->name);
	snprintf(res.preset, sizeof(res.preset), "%s", a.preset ? a.preset->name : "");
	snprintf(res.engine, sizeof(res.engine), "%s", eng->name);
	res.counter_names = a.emu->counters;
	record_options(&res, &a);
	print_header(&a, &t, eng, npoints);

	struct run_config cfg = {
		.emu = a.emu, .emu_opts = a.eo, .preset = a.preset ? a.preset->name : NULL,
		.target = &t, .engine = eng, .points = pts, .npoints = npoints,
		.time_ns = a.ro.time * 1000000000ULL, .ramp_ns = a.ro.ramp * 1000000000ULL,
		.seed = a.ro.seed, .progress = true, .json_path = a.ro.json,
		.interrupted = &cli_interrupted,
	};
	int rc = runner_run(&cfg, &res, err, sizeof(err));
	int status = cli_finish(&res, rc, err, a.ro.json, a.ro.csv);
	target_close(&t);
	result_release(&res);
	free(pts);
	free(a.eo);
	free(a.preset_words);
	return status;
}
