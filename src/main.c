/*
 * main.c - entry point: installs the interrupt handler and dispatches to the
 * subcommands.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/emulator.h"
#include "appio/xalloc.h"
#include "cli.h"
#include "version.h"

static void on_signal(int sig)
{
	(void)sig;
	cli_interrupted = 1;
}

/*
 * A password given as an option would show in ps and /proc/PID/cmdline for
 * the whole run: the parser gets a copy of each word that holds one, and
 * the original bytes, which are what the kernel shows, are overwritten.
 */
static void scrub_secrets(int argc, char **argv)
{
	bool after = false;

	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		char *masked = xmalloc(n + 1);
		bool next;
		if (opt_redact(argv[i], after, emulator_option_is_secret, 'x', masked, n + 1, &next)) {
			char *copy = xstrdup(argv[i]);
			memcpy(argv[i], masked, n);
			argv[i] = copy;         /* lives as long as the process */
		}
		free(masked);
		after = next;
	}
}

static void usage(FILE *f)
{
	fputs("appio " APPIO_VERSION " - application-level workload emulator for storage drives\n\n", f);
	/* the same lines, the first with "usage: " and the rest indented under it */
	const char *line = cli_usage_text;
	for (bool first = true; *line; first = false) {
		const char *nl = strchr(line, '\n');
		fprintf(f, "%s%.*s\n", first ? "usage: " : "       ", (int)(nl - line), line);
		line = nl + 1;
	}
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	scrub_secrets(argc, argv);

	if (argc < 2 || !strcmp(argv[1], "help") || !strcmp(argv[1], "--help") ||
	    !strcmp(argv[1], "-h")) {
		usage(stdout);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "version")) {
		puts("appio " APPIO_VERSION);
		return 0;
	}
	if (!strcmp(argv[1], "list"))
		return cmd_list(argc - 1, argv + 1);
	if (!strcmp(argv[1], "run"))
		return cmd_run(argc - 1, argv + 1);
	if (!strcmp(argv[1], "suite"))
		return cmd_suite(argc - 1, argv + 1);
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 1, argv + 1);
	if (!strcmp(argv[1], "compare"))
		return cmd_compare(argc - 1, argv + 1);
	if (!strcmp(argv[1], "trace"))
		return cmd_trace(argc - 1, argv + 1);
	if (!strcmp(argv[1], "man"))
		return cmd_man(argc - 1, argv + 1);
	if (!strcmp(argv[1], "completion"))
		return cmd_completion(argc - 1, argv + 1);
	if (emulator_find(argv[1]) && emulator_find(argv[1])->actions)
		return cmd_action(argc - 1, argv + 1);  /* "appio db prepare oltp_read_write ..." */
	if (emu_preset_find(argv[1]) || emulator_find(argv[1]))
		return cmd_run(argc, argv);   /* "appio 4k-randread ..." */
	cli_usage_error("unknown command or profile '%s' (see 'appio --help' and 'appio list')", argv[1]);
}
