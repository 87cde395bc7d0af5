/*
 * cmd_record.c - 'appio trace record': the block requests of one device
 * into a trace in appio's format, for a time, until Ctrl-C, or while a
 * command runs. The capture itself is traces/record.c; this is its command
 * line, the command's life, and the report of what the capture cost.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "appio/trace_record.h"
#include "cli.h"

#define TICK_NS 50000000L
#define CHILD_GRACE_S 10                /* after Ctrl-C, how long the command has to end */

static const char usage_text[] =
	"usage: appio trace record (--device NAME | --path PATH) -o FILE [--time S]\n"
	"                          [--rate IOPS] [--buffer-kb N] [--via tracefs|blktrace] [--desc TEXT]\n"
	"                          [-- COMMAND ARGS...]\n"
	"Records every block request of a device (vda, /dev/sdb, 8:16) or of the\n"
	"partition holding PATH (offsets relative to the partition) with its issue and\n"
	"completion times, size, flags and submitting thread, into FILE in appio's\n"
	"trace format, until --time seconds have passed, Ctrl-C, or COMMAND exits.\n"
	"--rate is the I/Os per second to expect (default 100000), which sizes the\n"
	"kernel's buffer per CPU; --buffer-kb sets that size itself. Lost events stop\n"
	"the capture with an error. --desc puts a line saying what ran in the trace's\n"
	"header. --via blktrace reads the requests through blktrace's ioctls and its\n"
	"relay files in debugfs instead of the block tracepoints in tracefs (the\n"
	"default); a kernel in lockdown refuses debugfs. Needs root (CAP_SYS_ADMIN).";

struct record_args {
	struct trace_record_opts o;
	double time_s;
	const char *desc;
	char **cmd;                     /* NULL-terminated, or NULL */
};

static uint64_t parse_u64(const char *opt, const char *v, const char *form)
{
	char *end;
	errno = 0;
	unsigned long long n = strtoull(v, &end, 10);
	if (errno || end == v || *end || v[0] == '-' || !n)
		cli_usage_error("trace record: %s expects %s, got '%s'", opt, form, v);
	return n;
}

static void parse_args(int argc, char **argv, struct record_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			puts(usage_text);
			exit(0);
		}
		if (!strcmp(o, "--")) {
			if (i + 1 == argc)
				cli_usage_error("trace record: '--' must be followed by a command to run");
			a->cmd = argv + i + 1;
			break;
		}
		if (strcmp(o, "--device") && strcmp(o, "--path") && strcmp(o, "--time") && strcmp(o, "-o") &&
		    strcmp(o, "--rate") && strcmp(o, "--buffer-kb") && strcmp(o, "--desc") && strcmp(o, "--via"))
			cli_usage_error("trace record: unknown %s '%s' (see 'appio trace record --help')",
					o[0] == '-' ? "option" : "argument", o);
		if (i + 1 == argc)
			cli_usage_error("trace record: %s needs a value (see 'appio trace record --help')", o);
		const char *v = argv[++i];
		if (!strcmp(o, "--device"))
			a->o.device = v;
		else if (!strcmp(o, "--path"))
			a->o.path = v;
		else if (!strcmp(o, "-o"))
			a->o.out = v;
		else if (!strcmp(o, "--desc"))
			a->desc = v;
		else if (!strcmp(o, "--via")) {
			if (strcmp(v, "tracefs") && strcmp(v, "blktrace"))
				cli_usage_error("trace record: --via expects tracefs or blktrace, got '%s'", v);
			a->o.via = strcmp(v, "blktrace") ? TRACE_RECORD_TRACEFS : TRACE_RECORD_BLKTRACE;
		}
		else if (!strcmp(o, "--rate"))
			a->o.rate = parse_u64(o, v, "I/Os per second, a positive whole number");
		else if (!strcmp(o, "--buffer-kb")) {
			a->o.buffer_kb = parse_u64(o, v, "KiB per CPU, 64 to 1048576");
			if (a->o.buffer_kb < 64 || a->o.buffer_kb > 1048576)
				cli_usage_error("trace record: --buffer-kb expects KiB per CPU, 64 to 1048576, got '%s'", v);
		} else {
			char *end;
			a->time_s = strtod(v, &end);
			if (end == v || *end || !(a->time_s > 0) || a->time_s > 1e7)
				cli_usage_error("trace record: --time expects seconds, a positive number, got '%s'", v);
		}
	}
	if (!a->o.device == !a->o.path)
		cli_usage_error("trace record: give the device to record: --device NAME or --path PATH (one of them)");
	if (!a->o.out)
		cli_usage_error("trace record: where to? give -o FILE (see 'appio trace record --help')");
}

static double mono_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static pid_t run_command(char **cmd)
{
	fflush(NULL);
	pid_t pid = fork();
	if (pid == 0) {
		execvp(cmd[0], cmd);
		fprintf(stderr, "appio: trace record: cannot run '%s': %s\n", cmd[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

/* Wait up to @secs for @pid; 1 if it ended (status in *st), 0 if not. */
static int wait_child(pid_t pid, double secs, int *st)
{
	double end = mono_s() + secs;

	do {
		pid_t w = waitpid(pid, st, WNOHANG);
		if (w == pid || (w < 0 && errno == ECHILD))
			return 1;
		nanosleep(&(struct timespec){ .tv_nsec = TICK_NS }, NULL);
	} while (mono_s() < end);
	return 0;
}

/* Ask a command still running to stop, as Ctrl-C would, then insist. */
static void stop_child(pid_t pid, int sig, int *st)
{
	kill(pid, sig);
	if (!wait_child(pid, CHILD_GRACE_S, st)) {
		kill(pid, SIGKILL);
		waitpid(pid, st, 0);
	}
}

static void command_meta(struct trace_record *rec, char **cmd)
{
	char line[160];
	size_t n = 0;

	for (int i = 0; cmd && cmd[i] && n < sizeof(line) - 1; i++)
		n += (size_t)snprintf(line + n, sizeof(line) - n, "%s%s", i ? " " : "", cmd[i]);
	if (cmd)
		trace_record_meta(rec, "capture.command", line);
}

static void report(const struct record_args *a, const struct trace_record_stats *st)
{
	double span = st->seconds > 0 ? st->seconds : 1;

	fprintf(stderr, "appio: trace record: %" PRIu64 " I/Os of %s in %.2f s to '%s'\n"
		"  capture: %" PRIu64 " events (%.0f/s, peak %.0f in one second) read with %.2f %% of one "
		"CPU, %" PRIu64 " KiB buffer per CPU, %s\n", st->ios, st->device, st->seconds, a->o.out,
		st->events, (double)st->events / span, st->peak_events_s, 100.0 * st->cpu_s / span,
		st->buffer_kb, st->lost ? "events LOST" : "no events lost");
	if (st->outside)
		fprintf(stderr, "  %" PRIu64 " requests of the disk outside the partition were left out\n",
			st->outside);
}

int cmd_trace_record(int argc, char **argv)
{
	struct record_args a;
	struct trace_record *rec;
	struct trace_record_stats st;
	char err[512];
	int status = 0, cst = 0, rc;
	pid_t child = -1;

	parse_args(argc, argv, &a);
	if ((rc = trace_record_start(&rec, &a.o, err, sizeof(err)))) {
		fprintf(stderr, "appio: trace record: %s\n", err);
		return rc == -EINVAL || rc == -EPERM || rc == -ENOTSUP || rc == -EBUSY ? EXIT_USAGE : 1;
	}
	command_meta(rec, a.cmd);
	if (a.desc)
		trace_record_meta(rec, "desc", a.desc);
	fprintf(stderr, "appio: trace record: recording %s into '%s'%s\n", trace_record_device(rec), a.o.out,
		a.cmd ? "" : a.time_s > 0 ? "" : " until Ctrl-C");
	if (a.cmd && (child = run_command(a.cmd)) < 0) {
		fprintf(stderr, "appio: trace record: cannot start '%s': %s\n", a.cmd[0], strerror(errno));
		trace_record_free(rec);
		return 1;
	}
	double end = a.time_s > 0 ? mono_s() + a.time_s : 0;
	while (!cli_interrupted && !trace_record_failed(rec) && (!end || mono_s() < end)) {
		if (child > 0 && waitpid(child, &cst, WNOHANG) == child) {
			child = -1;
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = TICK_NS }, NULL);
	}
	if (child > 0)
		stop_child(child, cli_interrupted ? SIGINT : SIGTERM, &cst);
	rc = trace_record_finish(rec, &st, err, sizeof(err));
	trace_record_free(rec);
	report(&a, &st);
	if (rc) {
		fprintf(stderr, "appio: trace record: %s\n", err);
		status = 1;
	} else if (a.cmd && child < 0 && !cli_interrupted && (!WIFEXITED(cst) || WEXITSTATUS(cst))) {
		fprintf(stderr, "appio: trace record: '%s' %s %d (the trace is kept)\n", a.cmd[0],
			WIFEXITED(cst) ? "exited with status" : "was killed by signal",
			WIFEXITED(cst) ? WEXITSTATUS(cst) : WTERMSIG(cst));
		status = 1;
	}
	return cli_interrupted && !status ? EXIT_INTERRUPTED : status;
}
