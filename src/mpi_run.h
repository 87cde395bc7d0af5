/*
 * mpi_run.h - scale-out: one appio per MPI rank, results merged on rank 0
 * (docs/scale-out.md).
 *
 * Built only when the Makefile finds Open MPI (pkg-config ompi-c; it then
 * defines HAVE_MPI and compiles src/mpi_run.c). Without it every function
 * below is an inline stub that says "one process, rank 0", so the core calls
 * the hooks unconditionally and a build without MPI runs exactly as before.
 * With MPI built, a process started outside mpirun is also a plain single
 * process: MPI is initialised only when a launcher's environment says so.
 *
 * The rules the hooks keep:
 *   - every rank parses the same argv and reaches the same collective calls
 *     in the same order; a decision that could differ between ranks (a
 *     target that will not open on one host, a failure mid-point) is agreed
 *     first (mpi_run_agree, mpi_run_point_end), so no rank waits forever;
 *   - only rank 0 talks: its stdout and its messages; other ranks' stdout
 *     goes to /dev/null and the CLI asks mpi_run_root() before printing;
 *   - every rank gets the merged point (an all-reduce), so what follows from
 *     a result (the next phase of a suite, steady-state rounds) is decided
 *     alike everywhere; rank 0 alone keeps per-rank and per-host figures and
 *     writes files.
 *
 * All functions are called from the main thread (MPI_THREAD_FUNNELED).
 */
#ifndef APPIO_MPI_RUN_H
#define APPIO_MPI_RUN_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "appio/hist.h"
#include "appio/result.h"

/* Why a rank wants the point to stop early (mpi_run_poll). */
enum mpi_stop {
	MPI_RUN_GO = 0,
	MPI_RUN_DONE = 1,               /* its work is done (--stonewall ends it for all) */
	MPI_RUN_FAILED = 2,             /* an I/O error or a worker that failed */
	MPI_RUN_INTERRUPTED = 3,        /* SIGINT/SIGTERM */
};

/* What a rank brings to the end of a point (mpi_run_point_end). */
struct mpi_point {
	struct point_result *p;         /* this rank's point, filled from its own workers */
	struct hist *hists;             /* p->ncls histograms behind p->cls, merged in place */
	int rc;                         /* this rank's point result: 0, -EINTR or -errno */
	const char *err;                /* its message when rc is a failure */
	int headline;                   /* class index the per-rank figures describe */
};

/*
 * Rank @rank's slice of a target of @size bytes shared by @n ranks
 * (--target-split): equal parts in rank order, each a multiple of @align (a
 * power of two, at least 4096) when it is at least that large, else of
 * 4096. Pure.
 */
static inline void mpi_run_slice(uint64_t size, uint64_t align, unsigned rank, unsigned n,
				 uint64_t *base, uint64_t *len)
{
	uint64_t slice = size / (n ? n : 1);

	slice &= ~((slice >= align ? align : 4096) - 1);       /* O_DIRECT needs 4 KiB at least */
	*len = slice;
	*base = slice * rank;
}

#ifdef HAVE_MPI

/*
 * Start MPI when this process was started by mpirun (its environment says
 * so), else do nothing. Registers MPI_Finalize with atexit(). Ranks other
 * than 0 get /dev/null as stdout. Returns 0 or -errno (MPI would not start).
 */
int mpi_run_init(int *argc, char ***argv);

/* Under mpirun with MPI started? (Also true for mpirun -np 1.) */
bool mpi_run_active(void);
unsigned mpi_run_rank(void);
unsigned mpi_run_size(void);
unsigned mpi_run_local(void);           /* rank among the ranks on this host */

/* Does this process print and write files: rank 0, or no MPI at all. */
static inline bool mpi_run_root(void) { return mpi_run_rank() == 0; }

/* "open MPI 4.1.4, 4 ranks on 1 host" or the like, for 'appio list'. */
const char *mpi_run_describe(char *buf, size_t len);

/*
 * Before exit(@status) on a path that every rank may or may not take (bad
 * input): when all ranks arrive within a few seconds they exit together
 * (MPI_Finalize needs them all); when not, this rank alone found it (a
 * check that depends on its host): it prints @msg naming itself and its
 * host, and ends the job (MPI_Abort with @status).
 */
void mpi_run_exit_together(int status, const char *msg);

/* Rank 0's value of @v on every rank (a fresh seed, chosen once). */
void mpi_run_bcast_u64(uint64_t *v);

/* This rank's stream of --seed: rank 0 keeps @seed, others derive their own. */
uint64_t mpi_run_seed(uint64_t seed);

/*
 * Expand %r (rank), %h (host name), %l (rank within its host) and %% in
 * @pattern into @buf. Pure; exposed for tests. 0, or -ENAMETOOLONG, or
 * -EINVAL for a '%' followed by anything else.
 */
int mpi_run_expand(const char *pattern, unsigned rank, const char *host, unsigned local,
		   char *buf, size_t len);

/* mpi_run_expand() for this rank (a copy of @pattern when MPI is not active). */
int mpi_run_expand_here(const char *pattern, char *buf, size_t len);

/*
 * Agree on an outcome every rank reached on its own: returns the first
 * failing rank's @rc (0 when all are 0; a failure wins over -EINTR) on every
 * rank, and on rank 0 rewrites @err as "rank R (HOST): <its message>" when
 * that rank is not 0. Collective.
 */
int mpi_run_agree(int rc, char *err, size_t errlen);

/*
 * Start of a point: a barrier, then the moment every rank begins, on this
 * rank's CLOCK_MONOTONIC (rank 0's clock plus the offset measured at start-
 * up). The caller sleeps until then. 0 when MPI is not active. Collective.
 */
uint64_t mpi_run_start_at(void);

/*
 * During a point, every tick: tell rank 0 why this rank stops (@why, once)
 * and learn whether rank 0 asked every rank to stop. Returns true when the
 * point must end now on this rank. @stonewall: a rank's MPI_RUN_DONE stops
 * everyone. Not collective: point-to-point messages, drained by
 * mpi_run_point_end().
 */
bool mpi_run_poll(enum mpi_stop why, bool stonewall);

/*
 * End of a point: merge every rank's histograms, bytes, sizes, counters and
 * per-second series into mp->p and mp->hists on every rank (the caller
 * refills the class summaries from the merged histograms over the returned
 * *@secs, the longest rank's measured time), agree on the outcome as
 * mpi_run_agree() does, and on rank 0 attach per-rank and per-host figures
 * (p->ranks). Returns the agreed rc. Collective.
 */
int mpi_run_point_end(struct mpi_point *mp, double *secs, char *err, size_t errlen);

/* Add what the result should say about the ranks (info "mpi_*") to @res. */
void mpi_run_info(struct result *res);

#else   /* no MPI built in: one process, rank 0 */

static inline int mpi_run_init(int *argc, char ***argv) { (void)argc; (void)argv; return 0; }
static inline bool mpi_run_active(void) { return false; }
static inline unsigned mpi_run_rank(void) { return 0; }
static inline unsigned mpi_run_size(void) { return 1; }
static inline unsigned mpi_run_local(void) { return 0; }
static inline bool mpi_run_root(void) { return true; }
static inline const char *mpi_run_describe(char *buf, size_t len)
{
	(void)len;
	buf[0] = '\0';
	return NULL;
}
static inline void mpi_run_bcast_u64(uint64_t *v) { (void)v; }
static inline void mpi_run_exit_together(int status, const char *msg)
{
	(void)status;
	(void)msg;
}
static inline int mpi_run_expand_here(const char *pattern, char *buf, size_t len)
{
	if (strlen(pattern) >= len)
		return -ENAMETOOLONG;
	strcpy(buf, pattern);
	return 0;
}
static inline uint64_t mpi_run_seed(uint64_t seed) { return seed; }
static inline int mpi_run_agree(int rc, char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	return rc;
}
static inline uint64_t mpi_run_start_at(void) { return 0; }
static inline bool mpi_run_poll(enum mpi_stop why, bool stonewall)
{
	(void)why;
	(void)stonewall;
	return false;
}
static inline void mpi_run_info(struct result *res) { (void)res; }
static inline int mpi_run_point_end(struct mpi_point *mp, double *secs, char *err, size_t errlen)
{
	(void)secs;
	(void)err;
	(void)errlen;
	return mp->rc;
}

#endif
#endif
