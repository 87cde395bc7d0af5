/*
 * cli.c - what the subcommands share: usage errors, finishing a run
 * (table, files, exit status), and 'appio list', which prints every kind
 * of plugin from its table: profiles, emulators, engines, and the named
 * lists emulators declare (emu_ops.lists: database drivers, workloads).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appio/emulator.h"
#include "appio/engine.h"
#include "appio/trace.h"
#include "cli.h"
#include "mpi_run.h"

/* The one mutable global: set by main()'s signal handler, read by the runner. */
volatile sig_atomic_t cli_interrupted;

_Noreturn void cli_usage_error(const char *fmt, ...)
{
	char msg[4600];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	mpi_run_exit_together(EXIT_USAGE, msg);
	if (mpi_run_root())     /* every rank parses alike: rank 0 says it once */
		fprintf(stderr, "appio: %s\n", msg);
	exit(EXIT_USAGE);
}

/* Create and remove @path: the surest test that a file can be written there. */
static int try_create(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);

	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	close(fd);
	unlink(path);
	return 0;
}

/* Why the --json document or the --csv files cannot be written (0 when they can). */
static int outputs_error(const char *json, const char *csv_prefix, char *msg, size_t len)
{
	char tmp[4200];
	struct stat st;
	int rc;

	if (json && strcmp(json, "-")) {
		if (!*json)
			return snprintf(msg, len, "--json: empty file name (expected FILE, or - for stdout)");
		if (stat(json, &st) == 0 && S_ISDIR(st.st_mode))
			return snprintf(msg, len, "--json: '%s' is a directory (expected a file name)", json);
		snprintf(tmp, sizeof(tmp), "%s.tmp", json);     /* written there, then renamed */
		if ((rc = try_create(tmp)))
			return snprintf(msg, len, "--json: cannot write '%s': %s", json, strerror(-rc));
	}
	if (csv_prefix) {
		if (!*csv_prefix)
			return snprintf(msg, len, "--csv: empty prefix (expected PREFIX, files PREFIX_<class>.csv)");
		snprintf(tmp, sizeof(tmp), "%s_appio-check.tmp", csv_prefix);
		if ((rc = try_create(tmp)))
			return snprintf(msg, len, "--csv: cannot write '%s_<class>.csv': %s", csv_prefix,
					strerror(-rc));
	}
	return 0;
}

void cli_check_outputs(const char *json, const char *csv_prefix)
{
	char msg[4400] = "";
	/* under mpirun the files are rank 0's: it checks, and every rank learns the outcome */
	uint64_t bad = mpi_run_root() && outputs_error(json, csv_prefix, msg, sizeof(msg)) > 0;

	mpi_run_bcast_u64(&bad);
	if (bad)
		cli_usage_error("%s", msg);
}

int cli_finish(const struct result *res, int rc, const char *err,
	       const char *json_path, const char *csv_prefix)
{
	char werr[512] = "";
	int status = 0;

	if (!mpi_run_root())    /* rank 0 prints and writes the merged result */
		return rc == -EINTR ? EXIT_INTERRUPTED : !rc ? 0 :
		       rc == -EINVAL && !res->npoints ? EXIT_USAGE : 1;
	/* with the JSON document on stdout, the table goes to stderr */
	FILE *out = json_path && !strcmp(json_path, "-") ? stderr : stdout;
	result_print_table(res, out);
	fflush(out);
	if (json_path && result_write_json(res, json_path, werr, sizeof(werr))) {
		fprintf(stderr, "appio: %s\n", werr);
		status = 1;
	}
	if (csv_prefix && result_write_csv(res, csv_prefix, werr, sizeof(werr))) {
		fprintf(stderr, "appio: %s\n", werr);
		status = 1;
	}
	if (rc == -EINTR) {
		if (err && *err)        /* stopped in a set-up: where it was */
			fprintf(stderr, "appio: %s\n", err);
		else
			fputs("appio: interrupted; results so far were kept\n", stderr);
		return EXIT_INTERRUPTED;
	}
	if (rc) {
		/* a document that cannot be saved stopped the run: said once above */
		if (!(status && err && !strcmp(err, werr)))
			fprintf(stderr, "appio: %s\n", err && *err ? err : strerror(-rc));
		return rc == -EINVAL && !res->npoints ? EXIT_USAGE : 1;
	}
	return status;
}


const char cli_usage_text[] =
	"appio list                       profiles, emulators, engines and their parts\n"
	"appio run PROFILE [options]      run a profile or emulator (see --help)\n"
	"appio PROFILE [options]          the same\n"
	"appio EMULATOR ACTION [WORD] [options]\n"
	"                                 an emulator's actions, e.g. 'appio db\n"
	"                                 prepare|run|cleanup WORKLOAD' (real databases)\n"
	"appio suite quick|review [options]\n"
	"                                 a whole drive evaluation (see --help)\n"
	"appio report RESULT.json... [-o report.html] [--label FILE=NAME]\n"
	"                                 the summary first, then charts and rankings;\n"
	"                                 text without -o\n"
	"appio compare A.json B.json...   a table per test: figure, rank, % from best\n"
	"  (both: --slo p99=2ms, --price FILE=1299, --currency USD, --dwpd FILE=1)\n"
	"appio trace info|convert|formats a block trace's figures; convert between formats\n"
	"appio trace record --device D -o F  capture a device's block requests (root)\n"
	"appio run --help                 options common to every run\n"
	"appio run PROFILE --help         a profile's options and defaults\n"
	"appio man                        this manual page in roff (make install installs it)\n"
	"appio completion bash            a bash completion script\n";

static const char *or_unknown(const char *s)
{
	return s ? s : "?";
}

void cli_trace_about(const char *path, char *what, size_t len)
{
	struct trace_reader r;

	if (trace_open(&r, path, NULL, NULL)) {
		snprintf(what, len, "(unreadable: %s)", r.err);
		trace_close(&r);
		return;
	}
	const struct trace_hdr *h = &r.hdr;
	const char *wl = trace_hdr_meta_get(h, "run.workload"), *cmd = trace_hdr_meta_get(h, "capture.command");
	const char *ver = trace_hdr_meta_get(h, "server.server_version"), *desc = trace_hdr_meta_get(h, "desc");
	if (desc)
		snprintf(what, len, "%s", desc);
	else if (wl)
		snprintf(what, len, "%s on %s %s, threads %s", wl,
			 or_unknown(trace_hdr_meta_get(h, "run.driver")), ver ? ver : "",
			 or_unknown(trace_hdr_meta_get(h, "run.threads")));
	else if (cmd)
		snprintf(what, len, "%s", cmd);
	else
		snprintf(what, len, "%s", h->source);
	trace_close(&r);
}

/* A bundled trace's line in 'appio list'. */
static void list_trace(void *arg, const char *name, const char *path)
{
	char what[200];
	(void)arg;

	cli_trace_about(path, what, sizeof(what));
	printf("  %-22s %s\n", name, what);
}

int cmd_list(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		cli_usage_error("list takes no arguments");
	puts("profiles (block-level access specs; appio run NAME):");
	for (const struct emu_preset *p = emu_preset_table; p->name; p++)
		printf("  %-16s %s\n", p->name, p->desc);
	puts("\nemulators (appio run NAME):");
	for (const struct emu_ops *const *e = emulator_table; *e; e++)
		printf("  %-16s %s\n", (*e)->name, (*e)->desc);
	puts("\nengines (--engine NAME):");
	for (const struct engine_ops *const *e = engine_table; *e; e++)
		printf("  %-16s %s%s\n", (*e)->name, (*e)->desc,
		       *e == engine_default() ? " (default)" : "");
	char mpi[300];
	const char *m = mpi_run_describe(mpi, sizeof(mpi));
	printf("\nscale-out (mpirun -np N appio ...): %s\n",
	       m ? m : "not built in (install libopenmpi-dev and rebuild: docs/scale-out.md)");
	puts("\ntrace formats (appio trace ... --from/--to NAME):");
	for (const struct trace_format *const *f = trace_format_table; *f; f++)
		printf("  %-16s %s\n", (*f)->name, (*f)->desc);
	puts("\nbundled traces (appio run replay --trace NAME; appio trace info NAME):");
	if (trace_bundled_each(list_trace, NULL) <= 0)
		puts("  (none found: set APPIO_TRACES to the folder that holds them)");
	/* what emulators bring of their own: database drivers, workloads... */
	for (const struct emu_ops *const *e = emulator_table; *e; e++) {
		for (const struct emu_list *l = (*e)->lists; l && l->title; l++) {
			const char *name, *desc;
			printf("\n%s:\n", l->title);
			for (unsigned i = 0; l->item(i, &name, &desc); i++)
				printf("  %-22s %s\n", name, desc);
		}
	}
	return 0;
}
