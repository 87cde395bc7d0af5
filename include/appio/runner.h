/*
 * runner.h - runs an emulator over its sweep points and fills a result.
 *
 * For each point: start @threads workers (each with its own engine context,
 * buffers, histograms), release them together through a barrier, let them
 * run @ramp (not recorded) then @time (recorded), stop them, merge their
 * statistics into a point of the result, and write the JSON document so far.
 * The calling thread meanwhile collects the per-second series and draws the
 * live progress line.
 *
 * Called from the main thread. Not reentrant.
 */
#ifndef APPIO_RUNNER_H
#define APPIO_RUNNER_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>

#include "appio/emulator.h"
#include "appio/engine.h"
#include "appio/result.h"

struct run_config {
	const struct emu_ops *emu;
	void *emu_opts;                 /* parsed options of @emu */
	const char *preset;             /* or NULL */
	struct target *target;          /* open target; NULL with EMU_NO_TARGET */
	const char *target_spec;        /* --target as given (may list several paths) */
	const struct engine_ops *engine;/* NULL with EMU_NO_TARGET */
	const struct emu_point *points;
	unsigned npoints;
	uint64_t time_ns;               /* measured time per point */
	uint64_t ramp_ns;               /* unrecorded warm-up per point */
	uint64_t events;                /* >0: a point ends after this many measured steps */
	uint64_t seed;
	bool force;                     /* --force: passed on to emu_run.force */
	bool qd_given;                  /* --qd given: an emulator's own default (emu_run.qd) yields */
	bool progress;                  /* live line on stderr (only when it is a terminal) */
	bool stonewall;                 /* MPI: the first rank to finish its work ends the point */
	/*
	 * >0: open loop at this many I/Os per second per point (all threads
	 * together), block-level emulators only (not EMU_SCHEDULED): worker i of
	 * T issues its k-th request at t_start + (k T + i) / rate, and a
	 * request's latency is taken from that intended time, so time spent
	 * waiting for a free slot behind a stalled target counts (no
	 * coordinated omission).
	 */
	uint64_t rate;
	unsigned report_interval_s;     /* >0: a line on stderr every so many measured seconds */
	const char *json_path;          /* rewritten after every point; NULL: none */
	volatile sig_atomic_t *interrupted; /* set by the SIGINT/SIGTERM handler */
};

/*
 * Run every point. Returns 0 when all finished, -EINTR when interrupted (the
 * finished points and the interrupted one, marked partial, are in @res), or
 * -errno on failure with a message in @err (points finished before the
 * failure stay in @res). -EINVAL with no point in @res means the emulator's
 * setup() refused its options: bad input, not a failed run. @res must be initialised by the caller, who fills
 * its workload fields; the runner fills target facts, points and interrupted.
 */
int runner_run(const struct run_config *cfg, struct result *res, char *err, size_t errlen);

#endif
