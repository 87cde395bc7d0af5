/*
 * cli.h - what the command-line layer shares between its subcommands.
 *
 * Only the CLI prints to the user and exits; everything below it returns
 * -errno with a message. Exit statuses: 0 success, 1 a run failed, 2 bad
 * input (usage), 130 interrupted.
 */
#ifndef APPIO_CLI_H
#define APPIO_CLI_H

#include <signal.h>

#include "appio/result.h"
#include "appio/runner.h"

enum {
	EXIT_USAGE = 2,
	EXIT_INTERRUPTED = 130,
};

/* Set by the SIGINT/SIGTERM handler that main() installs. */
extern volatile sig_atomic_t cli_interrupted;

/* Print "appio: <message>" and exit with EXIT_USAGE. */
_Noreturn void cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Print the result's table to stdout, write --json/--csv files if given,
 * and turn the runner's return code into an exit status (0, 1, 130).
 */
int cli_finish(const struct result *res, int rc, const char *err,
	       const char *json_path, const char *csv_prefix);

/*
 * Before a run: can the --json document (@json, "-" is stdout) and the
 * --csv files (@csv_prefix) be written? Either may be NULL. Exits 2 with
 * one line naming the option when not, so that no run's results are lost
 * for want of a place to put them.
 */
void cli_check_outputs(const char *json, const char *csv_prefix);

/* Subcommands (each parses its own argv, argv[0] being the subcommand). */
int cmd_list(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_action(int argc, char **argv);      /* src/cmd_run.c: appio EMULATOR ACTION [WORD] [options] */
int cmd_suite(int argc, char **argv);       /* src/cmd_suite.c: appio suite quick|review */
int cmd_report(int argc, char **argv);      /* src/cmd_report.c: appio report RESULT.json... */
int cmd_compare(int argc, char **argv);     /* src/cmd_report.c: appio compare A.json B.json... */
int cmd_trace(int argc, char **argv);       /* src/cmd_trace.c: appio trace info|convert|formats */
int cmd_man(int argc, char **argv);         /* src/cmd_man.c: appio man (roff manual page) */
int cmd_completion(int argc, char **argv);  /* src/cmd_man.c: appio completion bash */

/* The usage lines of 'appio --help' and of the manual's synopsis. */
extern const char cli_usage_text[];

#endif
