/*
 * cmd_run.c - 'appio run PROFILE [options]': a job from argv, a header, the
 * run, the table and files; and 'appio EMULATOR ACTION [WORD] [options]'
 * for emulators with actions (emu_ops.actions), whose "run" is the same
 * run. Bad input exits 2 with one line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "appio/xalloc.h"
#include "cli.h"
#include "job.h"
#include "mpi_run.h"
#include "slo_search.h"
#include "suite.h"
#include "version.h"

static void print_header(const struct job *j, FILE *f)
{
	const struct target *t = &j->target;
	char sz[32];

	if (j->emu->flags & EMU_NO_TARGET) {
		fprintf(f, "appio %s: %s%s%s, %u point(s) x (%llu s ramp + %llu s), seed %llu\n",
			APPIO_VERSION, j->emu->name, *j->about ? " " : "", j->about, j->npoints,
			(unsigned long long)j->ro.ramp, (unsigned long long)j->ro.time,
			(unsigned long long)j->ro.seed);
		fflush(f);
		return;
	}
	fprintf(f, "appio %s: %s on '%s' (%s, %s, logical block %u B%s%s), engine %s, %s,\n"
	       "  %u point(s) x (%llu s ramp + %llu s), seed %llu\n", APPIO_VERSION,
	       j->preset ? j->preset->name : j->emu->name, t->path, target_kind_name(t->kind),
	       fmt_size(t->size, sz, sizeof(sz)), t->lbs, *t->model ? ", " : "", t->model,
	       j->engine->name, t->direct ? "O_DIRECT" : "buffered", j->npoints,
	       (unsigned long long)j->ro.ramp, (unsigned long long)j->ro.time,
	       (unsigned long long)j->ro.seed);
	if (t->layout_bytes)
		fprintf(f, "  laid out %s in %.1f s (%.0f MB/s)\n",
		       fmt_size(t->layout_bytes, sz, sizeof(sz)), t->layout_s,
		       t->layout_s > 0 ? (double)t->layout_bytes / 1e6 / t->layout_s : 0);
	fflush(f);
}

/* --steady-state: rounds at the first point before the sweep, kept in @res. */
static int precondition(struct job *j, struct suite_steady *st, struct result *pre,
			struct result *res, FILE *f, char *err, size_t errlen)
{
	char line[320];

	*st = (struct suite_steady){ .log = f, .label = "precondition" };
	int rc = suite_steady_run(j, st, pre, &cli_interrupted, err, errlen);
	fprintf(f, "steady state %s\n", steady_describe(&st->v, st->n, st->metric, line, sizeof(line)));
	res->precondition = pre;
	res->steady_json = st->json;
	res->has_target = pre->has_target;      /* facts even if the sweep never starts */
	res->target = pre->target;
	return rc;
}

/* Parse a job from @argv (argv[0] its name); exits on bad input or after --help. */
static void parse_or_exit(struct job *j, int argc, char **argv)
{
	char err[512] = "";

	if (job_parse(j, argc, argv, err, sizeof(err)))
		cli_usage_error("%s", err);
	if (j->help) {
		job_help(j->emu ? j : NULL, stdout);
		job_release(j);
		exit(0);
	}
}

/* What the drive said of itself before and after, beside what the host wrote. */
static void print_health(const struct result *res, FILE *f)
{
	uint64_t host = 0;

	for (unsigned i = 0; i < res->npoints; i++)
		host += res->points[i].dev.valid ? res->points[i].dev.write_bytes : 0;
	health_print(f, &res->health[0], &res->health[1], host, "in the measured points");
}

/*
 * Open the target; under mpirun every rank's, in waves (rank 0, then the
 * first rank of every other host, then the rest) so that a target ranks
 * share is created and laid out once, and agree on the outcome: one rank
 * that cannot open its target stops them all, and rank 0 says which.
 */
static int open_target(struct job *j, char *err, size_t errlen)
{
	for (int wave = 0; wave < 3; wave++) {
		unsigned rank = mpi_run_rank(), local = mpi_run_local();
		bool mine = wave == 0 ? rank == 0 : wave == 1 ? rank && !local : local;
		int rc = mine ? job_open_target(j, &cli_interrupted, err, errlen) : 0;
		if ((rc = mpi_run_agree(rc, err, errlen)) || !mpi_run_active())
			return rc;
	}
	return 0;
}

/*
 * Open the target (or check the service), run, print the table, the files
 * and the emulator's summary; releases @j. Returns the exit status.
 */
static int run_job(struct job *j)
{
	struct result res;
	char err[600] = "";
	cli_check_outputs(j->ro.json, j->ro.csv);
	int rc = open_target(j, err, sizeof(err));

	if (rc) {
		if (mpi_run_root())
			fprintf(stderr, "appio: %s\n", err);
		job_release(j);
		return rc == -EINVAL ? EXIT_USAGE : rc == -EINTR ? EXIT_INTERRUPTED : 1;
	}

	struct result pre;
	struct suite_steady st = { 0 };
	FILE *out = j->ro.json && !strcmp(j->ro.json, "-") && mpi_run_root() ? stderr : stdout;
	result_init(&res);
	result_init(&pre);
	job_describe(j, &res);
	mpi_run_info(&res);
	print_header(j, out);
	if (!(j->emu->flags & EMU_NO_TARGET)) {
		health_read(j->target.dev, &res.health[0]);
		res.has_health = true;
	}
	rc = j->ro.steady_state ? precondition(j, &st, &pre, &res, out, err, sizeof(err)) : 0;
	if (!rc)
		rc = job_run(j, &res, true, &cli_interrupted, err, sizeof(err));
	struct slo_search search;
	if (!rc && j->ro.slo_search && mpi_run_root()) {
		rc = slo_search_run(j, &res, &search, &cli_interrupted, out, err, sizeof(err));
		res.slo_search = &search;
	}
	if (res.has_health)
		health_read(j->target.dev, &res.health[1]);
	int status = cli_finish(&res, rc, err, j->ro.json, j->ro.csv);
	if (res.has_health)
		print_health(&res, out);
	if (j->emu->summary) {
		j->emu->summary(j->eo, &res, out);
		fflush(out);
	}
	result_release(&res);
	result_release(&pre);
	suite_steady_release(&st);
	job_release(j);
	return status;
}

int cmd_run(int argc, char **argv)
{
	struct job j;

	/* argv[0] is "run" (or "appio" when called as 'appio PROFILE') */
	parse_or_exit(&j, argc - 1, argv + 1);
	return run_job(&j);
}

static void action_names(const struct emu_ops *e, char *buf, size_t len)
{
	size_t n = (size_t)snprintf(buf, len, "run");
	for (const struct emu_action *a = e->actions; a->name && n < len; a++)
		n += (size_t)snprintf(buf + n, len - n, "%s %s", a[1].name ? "," : " or", a->name);
}

/* An action's progress: rewritten in place on a terminal, a line each otherwise. */
static void action_progress(const char *line)
{
	if (isatty(STDERR_FILENO))
		fprintf(stderr, "\r\033[K%s", line);
	else
		fprintf(stderr, "%s\n", line);
	fflush(stderr);
}

/* An action other than "run": its one line, or why it failed. */
static int do_action(struct job *j, const struct emu_action *a)
{
	struct emu_action_out out;
	char err[1400] = "";
	/* under mpirun an action (prepare, cleanup) is done once, by rank 0 */
	int rc = mpi_run_root() ? job_act(j, a, &cli_interrupted, action_progress, &out, err, sizeof(err)) : 0;

	if (mpi_run_root() && isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	rc = mpi_run_agree(rc, err, sizeof(err));
	if (!rc && mpi_run_root())
		printf("%s\n", out.line);
	else if (mpi_run_root())
		fprintf(stderr, "appio: %s %s: %s\n", j->emu->name, a->name, *err ? err : strerror(-rc));
	job_release(j);
	return !rc ? 0 : rc == -EINTR ? EXIT_INTERRUPTED : rc == -EINVAL ? EXIT_USAGE : 1;
}

int cmd_action(int argc, char **argv)
{
	const struct emu_ops *e = emulator_find(argv[0]);
	char names[256], opt[64];
	struct job j;

	action_names(e, names, sizeof(names));
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (!job_parse(&j, 2, (char *[]){ argv[0], "--help", NULL }, opt, sizeof(opt)))
			job_help(&j, stdout);
		job_release(&j);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	const struct emu_action *a = NULL;
	if (strcmp(argv[1], "run"))
		for (a = e->actions; a->name && strcmp(a->name, argv[1]); a++)
			;
	if (a && !a->name)
		cli_usage_error("%s: unknown action '%s' (expected %s)", e->name, argv[1], names);
	/* "NAME ACTION WORD --opts" -> "NAME --WORD-OPTION WORD --opts" */
	char **args = xcalloc((size_t)argc + 2, sizeof(*args));
	int n = 0;
	args[n++] = argv[0];
	int i = 2;
	if (e->action_word && i < argc && argv[i][0] != '-') {
		snprintf(opt, sizeof(opt), "--%s", e->action_word);
		args[n++] = opt;
		args[n++] = argv[i++];
	}
	while (i < argc)
		args[n++] = argv[i++];
	parse_or_exit(&j, n, args);
	int status = a ? do_action(&j, a) : run_job(&j);
	free(args);
	return status;
}
