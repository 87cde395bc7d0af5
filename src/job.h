/*
 * job.h - one 'appio run': an emulator (or a preset of one) with its options,
 * the run options, the sweep points, the engine and the open target.
 *
 * The CLI builds a job from argv; the suite builds jobs from argument lists
 * of its own, so both parse, validate and run exactly alike. Nothing here
 * prints (except job_help) or exits: errors come back as -EINVAL (bad input)
 * or -errno with a one-line message in @err.
 */
#ifndef APPIO_JOB_H
#define APPIO_JOB_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "appio/emulator.h"
#include "appio/opt.h"
#include "appio/result.h"
#include "appio/target.h"
#include "slo.h"

struct job_run_opts {
	const char *target;
	uint64_t size;
	struct opt_ulist threads, qd, write_sweep;
	uint64_t time, ramp, seed, report_interval, events;
	const char *engine, *json, *csv;
	bool direct, force;
	bool steady_state;                      /* precondition to steady state first (src/suite.h) */
	bool target_split, stonewall;           /* under mpirun (src/mpi_run.h); MPI builds only */
	uint64_t round_time, max_rounds;
	uint64_t rate;                          /* --rate: open loop, I/Os per second per point */
	struct opt_strlist slo;                 /* --slo: latency limits (src/slo.h) */
	uint64_t slo_search;                    /* --slo-search N: rate-limited runs to the limit */
};

struct job {
	const struct emu_ops *emu;
	const struct emu_preset *preset;        /* NULL when run by emulator name */
	struct job_run_opts ro;
	void *eo;                               /* the emulator's options struct */
	struct opt_tab tabs[2];                 /* run options into @ro, the emulator's into @eo;
						   .given: what the caller set (not a preset) */
	bool help;                              /* --help was among the arguments */
	char *preset_words;                     /* preset arguments; OPT_STR values point here */
	const struct engine_ops *engine;
	struct emu_point *points;
	unsigned npoints;
	struct target target;
	char *target_path;                      /* --target with %r/%h/%l expanded for this rank */
	char about[256];                        /* EMU_NO_TARGET: what emu->check() found */
	struct slo slo;                         /* every --slo limit, parsed */
};

/* The run options every job accepts (for help and for the suite). */
extern const struct opt_def job_run_opt_table[];

/*
 * Parse @argv: argv[0] is a preset or emulator name, then options as
 * opt_parse() reads them. Strings in @argv must outlive @j. Sets j->help and
 * stops at --help. Resolves the engine, seed and points.
 */
int job_parse(struct job *j, int argc, char **argv, char *err, size_t errlen);

/* Can the job's emulator run open loop at a set rate (--rate, --slo-search)? */
bool job_can_rate(const struct job *j);

/* Was run option @name given by the caller (not a default)? */
bool job_given(const struct job *j, const char *name);

/*
 * Open (create, lay out) the target the job names; for an emulator without
 * a target (EMU_NO_TARGET), run its check() instead (filling j->about).
 * Returns 0, -EINVAL (the target is bad input: missing, a directory where a
 * file is needed...), -EINTR (*@stop became nonzero during the layout), or
 * another -errno (the layout failed: disk full, I/O error), with one line
 * in @err.
 */
int job_open_target(struct job *j, volatile sig_atomic_t *stop, char *err, size_t errlen);

/* The workload and engine names the result gives this job (emu_ops.describe). */
void job_names(const struct job *j, const char **name, const char **engine);

/* The emulator's action named @name, or NULL. */
const struct emu_action *job_action(const struct job *j, const char *name);

/*
 * Run action @a with the job's options, seed and largest --threads value
 * (see struct emu_action for the return values); @progress (may be NULL)
 * shows its progress lines.
 */
int job_act(struct job *j, const struct emu_action *a, volatile sig_atomic_t *stop,
	    void (*progress)(const char *line),
	    struct emu_action_out *out, char *err, size_t errlen);

/* Fill @res's header (workload, options, seed, start time) for this job. */
void job_describe(const struct job *j, struct result *res);

/*
 * Run every point into @res (see runner_run for the return values).
 * @progress: draw the live line on stderr when it is a terminal.
 */
int job_run(struct job *j, struct result *res, bool progress,
	    volatile sig_atomic_t *interrupted, char *err, size_t errlen);

/*
 * Usage (with the emulator's actions, if any), run options, the emulator's
 * options and its named lists (emu_ops.lists), to @f. @j may be NULL.
 */
void job_help(const struct job *j, FILE *f);

/* Free what the job owns and close its target. Safe on a zeroed job. */
void job_release(struct job *j);

#endif
