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

/* The one mutable global: set by main()'s signal handler, read by the runner. */
volatile sig_atomic_t cli_interrupted;

_Noreturn void cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	fputs("appio: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
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

void cli_check_outputs(const char *json, const char *csv_prefix)
{
	char tmp[4200];
	struct stat st;
	int rc;

	if (json && strcmp(json, "-")) {
		if (!*json)
			cli_usage_error("--json: empty file name (expected FILE, or - for stdout)");
		if (stat(json, &st) == 0 && S_ISDIR(st.st_mode))
			cli_usage_error("--json: '%s' is a directory (expected a file name)", json);
		snprintf(tmp, sizeof(tmp), "%s.tmp", json);     /* written there, then renamed */
		if ((rc = try_create(tmp)))
			cli_usage_error("--json: cannot write '%s': %s", json, strerror(-rc));
	}
	if (csv_prefix) {
		if (!*csv_prefix)
			cli_usage_error("--csv: empty prefix (expected PREFIX, files PREFIX_<class>.csv)");
		snprintf(tmp, sizeof(tmp), "%s_appio-check.tmp", csv_prefix);
		if ((rc = try_create(tmp)))
			cli_usage_error("--csv: cannot write '%s_<class>.csv': %s", csv_prefix,
					strerror(-rc));
	}
}

int cli_finish(const struct result *res, int rc, const char *err,
	       const char *json_path, const char *csv_prefix)
{
	char werr[512] = "";
	int status = 0;

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
	"                                 charts and rankings; text without -o\n"
	"appio compare A.json B.json...   a table per test: figure, rank, % from best\n"
	"appio trace info|convert|formats a block trace's figures; convert between formats\n"
	"appio run --help                 options common to every run\n"
	"appio run PROFILE --help         a profile's options and defaults\n"
	"appio man                        this manual page in roff (make install installs it)\n"
	"appio completion bash            a bash completion script\n";
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
	puts("\ntrace formats (appio trace ... --from/--to NAME):");
	for (const struct trace_format *const *f = trace_format_table; *f; f++)
		printf("  %-16s %s\n", (*f)->name, (*f)->desc);
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
