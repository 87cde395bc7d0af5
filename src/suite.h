/*
 * suite.h - the review method of docs/methodology.md as one run: purge, fill,
 * per-profile preconditioning to steady state and thread x queue-depth
 * sweeps, a write-percentage sweep, the application emulators, the replay
 * of a block I/O trace (--trace, optional) and the runs of outside services (EMU_NO_TARGET emulators: the real database), recorded
 * in one JSON document rewritten (atomically) as the suite goes, so an
 * interrupted suite leaves a readable partial result.
 *
 * Every phase is a job (src/job.h) built from an argument list, so it
 * accepts exactly the options 'appio run' does; a database phase also runs
 * the emulator's "cleanup" and "prepare" actions around its run. The plan
 * is built and every job parsed before anything runs: a typo in an
 * override is bad input at once, not a failure hours later.
 *
 * Suite document (format_version 1):
 *   appio_version, format_version, suite ("quick"|"review"), started, updated,
 *   seed, complete, interrupted, options { name: text },
 *   health? { before, after? } (the drive's own figures around the suite, as a run's),
 *   phases [ { name, kind ("purge"|"precondition"|"sweep"|"application"|"replay"|
 *              "database"), profile | emulator | trace | workload, args, status ("done"|"failed"|
 *              "interrupted"|"skipped"), error?, reason?, elapsed_s,
 *              headline { metric, value, at }?,
 *              steady_state {...}? (see steady.h), fill { bytes, passes }?,
 *              purge { method, bytes }?, driver? (database: the result's engine),
 *              prepare { rows, load_s }? (database: what its prepare action made),
 *              result { the document 'appio run' writes for the phase } } ]
 *
 * Only the main thread calls these. Functions return 0 or -errno with one
 * line in @err; -EINVAL is bad input.
 */
#ifndef APPIO_SUITE_H
#define APPIO_SUITE_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "appio/opt.h"
#include "appio/result.h"
#include "job.h"
#include "slo_search.h"
#include "steady.h"


/* A suite: its name, a line for people, and its defaults as arguments. */
struct suite_def {
	const char *name, *desc, *args;
};
extern const struct suite_def suite_table[];     /* NULL-terminated */

/* ---- preconditioning to steady state (also 'appio run --steady-state') ---- */

struct suite_steady {
	/* in: set by the caller */
	FILE *log;                      /* a line per round, or NULL */
	const char *label;              /* prefix of those lines */
	void (*on_round)(void *arg);    /* optional, after every round, before its line */
	void *arg;
	char note[96];                  /* appended to the round's line (on_round may set it) */
	/* out */
	unsigned round_s, max_rounds;   /* from the job's --round-time, --max-rounds */
	const char *metric;             /* "IOPS" or "TPS" (the headline class) */
	double *rounds;                 /* the figure of each round; owned */
	unsigned n;
	struct steady_verdict v;
	char *json;                     /* the verdict as JSON (steady_write_json); owned */
};

/*
 * Run job @j's first point in rounds of --round-time seconds until the last
 * STEADY_WINDOW rounds are steady or --max-rounds have run, appending one
 * point per round (with its per-second series) to @pre. Each round uses a
 * seed of its own, so rounds do not repeat each other's offsets. The target
 * must be open. Returns 0 (steady or not: see st->v), -EINTR when
 * interrupted (the rounds so far stay), or the runner's -errno.
 */
int suite_steady_run(struct job *j, struct suite_steady *st, struct result *pre,
		     volatile sig_atomic_t *interrupted, char *err, size_t errlen);

/* Free what suite_steady_run() allocated. Safe on a zeroed struct. */
void suite_steady_release(struct suite_steady *st);

/* ---- the suite ---- */

/* Extra arguments for a kind of phase (--*-args): "ARGS" for all, "NAME:ARGS" for one. */
enum { EXTRA_PRE, EXTRA_SWEEP, EXTRA_APP, EXTRA_DB, EXTRA_REPLAY, EXTRA_N };

struct suite_opts {
	const char *target, *json, *fs_dir;
	uint64_t size, fill_passes, round_time, max_rounds, pre_threads, pre_qd;
	uint64_t time, ramp, app_time, db_time, seed;
	const char *profiles, *apps, *engine, *db, *trace;
	struct opt_ulist threads, qd, write_sweep, app_threads, db_threads;
	bool purge, direct, force;
	struct opt_strlist extra[EXTRA_N];      /* every --*-args value */
	struct opt_strlist slo;                 /* --slo: for every sweep, application, database */
	uint64_t slo_search;                    /* --slo-search N: after every sweep */
};

enum suite_kind { PH_PURGE, PH_FILL, PH_PRECOND, PH_SWEEP, PH_APP, PH_REPLAY, PH_DB };
enum suite_status { ST_PENDING, ST_RUNNING, ST_DONE, ST_FAILED, ST_INTERRUPTED, ST_SKIPPED };

/* One phase: what to run (planned) and what came of it (run). */
struct suite_phase {
	enum suite_kind kind;
	char name[96];                  /* unique in the suite: "sweep 4k-randread" */
	const char *subject;            /* profile, emulator or database workload */
	char **argv;                    /* job arguments; owned */
	int argc;
	struct job job;                 /* parsed at plan time */
	char *scratch;                  /* "{dir}" in its arguments: a folder removed afterwards; owned */
	double est_s;                   /* longest it may take */
	const char *skip_reason;        /* planned but not run, and why */
	/* outcome */
	enum suite_status status;
	char *error;                    /* what failed; owned */
	bool bad_input;                 /* refused before measuring anything (-EINVAL, no point) */
	double elapsed_s;
	struct result res;              /* while running; released once @json is made */
	struct suite_steady st;         /* PH_PRECOND */
	uint64_t fill_bytes, purge_bytes, prep_rows;   /* prep_*: the prepare action's items, seconds */
	double prep_s;
	double trace_s;                 /* PH_REPLAY: the trace's span, for the estimate */
	const char *purge_method;
	const char *head_metric;        /* headline: "IOPS", "MB/s", "TPS" */
	double head_value;
	char head_at[32];               /* the point it was taken at: "16T/16Q" */
	char *json;                     /* the finished phase as JSON; owned */
	struct slo_search search;       /* PH_SWEEP with --slo-search */
};

struct suite {
	const char *name;               /* "quick" or "review" */
	const struct suite_def *def;
	char *defaults_words;           /* the suite's own arguments; option strings point here */
	struct suite_opts o;
	struct opt_tab tab;             /* suite_opt_table into @o; .given: what the user set */
	uint64_t seed;
	struct suite_phase *ph;
	unsigned nph;
	char started[32];
	bool interrupted, complete;
	bool target_is_dev;             /* --target is a block device */
	char *fs_dir_owned;             /* the default --fs-dir; owned */
	FILE *log;                      /* phase and round lines (stdout); NULL: silent */
	volatile sig_atomic_t *stop;    /* while running */
	unsigned cur;                   /* phase running */
	/* the drive's own figures before the first phase that opens the target and after the
	   last (health.h): has_health once the first is read, health_after once both are */
	bool has_health, health_after;
	char health_dev[64];
	struct health health[2];
	uint64_t host_written;          /* bytes the device counters saw written in measured points */
};

/* The options 'appio suite' accepts (help, parsing). */
extern const struct opt_def suite_opt_table[];


/*
 * Parse "NAME [options]" into @s (zeroed first): the suite's own defaults,
 * then the caller's options. Strings in @argv must outlive @s. Sets *@help
 * when --help was given (the rest is then not parsed).
 */
int suite_parse(struct suite *s, int argc, char **argv, bool *help, char *err, size_t errlen);

/*
 * Build the phases from the options and parse every job; nothing runs and
 * nothing is opened. Returns 0 or -EINVAL naming the phase and option.
 */
int suite_plan(struct suite *s, char *err, size_t errlen);

/* One line per phase with its arguments and time estimate, to @f. */
void suite_print_plan(const struct suite *s, FILE *f);

/*
 * Run the phases in order, writing the document after every phase (and
 * round). A failing phase is recorded and the suite goes on. Returns 0 when
 * every phase ran, -EINTR when interrupted, -EIO when a phase failed (named
 * in @err), -EINVAL when the first phase refused its input (a target that
 * cannot be opened: nothing ran), or the -errno of writing the document.
 */
int suite_run(struct suite *s, volatile sig_atomic_t *interrupted, char *err, size_t errlen);

/* The summary table: a line per phase with its headline figure, to @f. */
void suite_print_summary(const struct suite *s, FILE *f);

/* Free everything @s owns. */
void suite_release(struct suite *s);

/* ---- shared by suite.c and suite_run.c ---- */

/* Write a message into @err; returns -EINVAL. */
int suite_fail(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Was option @name given by the caller? */
bool suite_given(const struct suite *s, const char *name);

/*
 * Run point @idx of job @j for @ramp_s + @time_s seconds with @seed, appending it to
 * @res (the runner's return values). The target must be open.
 */
int suite_run_point(struct job *j, struct result *res, unsigned idx, double time_s,
		    double ramp_s, uint64_t seed, volatile sig_atomic_t *interrupted,
		    char *err, size_t errlen);

/* The suite named @name, or NULL. */
const struct suite_def *suite_find(const char *name);

/* "purge", "precondition", "sweep", "application", "replay", "database". */
const char *suite_kind_name(enum suite_kind k);

/* "1 h 05 min", "3 min 20 s", "12 s". */
char *suite_fmt_duration(double s, char *buf, size_t len);

/*
 * @word of an argument list as the suite shows it (plan, document): every
 * password replaced by "(secret)". *@after says the previous word was a bare
 * secret option and is updated for the next word. Returns a string to free().
 */
char *suite_shown_word(const char *word, bool *after);

#endif
