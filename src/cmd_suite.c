/*
 * cmd_suite.c - 'appio suite quick|review [options]': parse, plan (every
 * phase checked before anything runs), run, summarise. Bad input exits 2
 * with one line; Ctrl-C exits 130 with the document so far saved.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "mpi_run.h"
#include "suite.h"
#include "version.h"

static void print_help(const struct suite_def *d)
{
	puts("usage: appio suite quick|review [options]\n\n"
	     "Evaluates a drive the way the reference reviews do, in one run: optional purge,\n"
	     "sequential fill, then for each profile preconditioning at 16 threads x 16 I/Os in\n"
	     "rounds until steady state (SNIA PTS) and a threads x queue-depth sweep, a\n"
	     "write-percentage sweep, the application emulators, and a real-database run.\n"
	     "One JSON document holds every phase; 'appio report' turns it into HTML.\n\nsuites:");
	for (const struct suite_def *s = suite_table; s->name; s++)
		printf("  %-8s %s\n", s->name, s->desc);
	puts("\noptions (defaults are the review suite's):");
	opt_help(stdout, suite_opt_table);
	for (const struct emu_ops *const *e = emulator_table; *e; e++) {
		const struct emu_preset *v = (*e)->suite_variants;
		if (!v || !v->name)
			continue;
		printf("\nthe database run (%s): --db NAME\n", (*e)->name);
		for (; v->name; v++)
			printf("  %-8s %s\n", v->name, v->desc);
	}
	for (const struct suite_def *s = suite_table; s->name; s++)
		if (!d || d == s)
			printf("\n%s sets: %s\n", s->name, *s->args ? s->args : "(nothing: the defaults above)");
	puts("\nEvery phase is an 'appio run' job: --pre-args, --sweep-args and --app-args add\n"
	     "options to it ('--ramp 5' for all, '4k-randread:--time 60' for one), and\n"
	     "--db-args to the database run.\n"
	     "Exit status: 0 ok, 1 a phase failed (the others ran), 2 bad input,\n"
	     "130 interrupted (the document keeps what ran).");
}

/* Fail now, not after the first phase, when the document cannot be written. */
static void check_writable(const char *path)
{
	char tmp[4200];

	if (!strcmp(path, "-"))
		cli_usage_error("suite: --json needs a file (the document is rewritten as the suite goes)");
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	/* under mpirun the document is rank 0's: it checks, and every rank learns the outcome */
	FILE *f = mpi_run_root() ? fopen(tmp, "w") : NULL;
	uint64_t err = mpi_run_root() && !f ? (uint64_t)errno : 0;
	mpi_run_bcast_u64(&err);
	if (err)
		cli_usage_error("suite: --json: cannot write '%s': %s", path, strerror((int)err));
	if (f) {
		fclose(f);
		unlink(tmp);
	}
}

int cmd_suite(int argc, char **argv)
{
	struct suite s;
	char err[700] = "";
	bool help;

	if (suite_parse(&s, argc - 1, argv + 1, &help, err, sizeof(err)))
		cli_usage_error("%s", err);
	if (help) {
		print_help(s.def);
		suite_release(&s);
		return 0;
	}
	check_writable(s.o.json);
	if (suite_plan(&s, err, sizeof(err)))
		cli_usage_error("%s", err);
	printf("appio %s: suite %s on '%s', seed %llu, %u phases; document '%s'\n", APPIO_VERSION,
	       s.name, s.o.target, (unsigned long long)s.seed, s.nph, s.o.json);
	suite_print_plan(&s, stdout);
	fflush(stdout);
	s.log = stdout;
	int rc = suite_run(&s, &cli_interrupted, err, sizeof(err));
	suite_print_summary(&s, stdout);
	if (s.health_after)
		health_print(stdout, &s.health[0], &s.health[1], s.host_written,
			     "in the measured points of the suite");
	fflush(stdout);
	int status = 0;
	bool talk = mpi_run_root();
	if (rc == -EINTR) {
		if (talk)
			fprintf(stderr, "appio: interrupted; the phases so far are in '%s'\n", s.o.json);
		status = EXIT_INTERRUPTED;
	} else if (rc) {
		if (talk)
			fprintf(stderr, "appio: suite: %s\n", *err ? err : strerror(-rc));
		status = rc == -EINVAL ? EXIT_USAGE : 1;
	} else {
		printf("results: %s (appio report %s -o report.html)\n", s.o.json, s.o.json);
	}
	suite_release(&s);
	return status;
}
