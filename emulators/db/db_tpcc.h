/*
 * db_tpcc.h - TPC-C against a real database, as Percona-Lab's sysbench-tpcc
 * runs it (the "TPC-C like" workload published beside SysBench results):
 * 'appio db prepare|run|check|cleanup tpcc'.
 *
 * Three parts, each called by the emulator "db" (db_emu.c, db_oltp.c) when
 * --workload is tpcc:
 *   db_tpcc.c        the run: the five transactions, their mix, the report
 *   db_tpcc_load.c   the schema, the parallel load, cleanup, the table probes
 *   db_tpcc_check.c  the consistency checks of sysbench-tpcc's check command
 *
 * Everything runs on the caller's thread except the emulator callbacks (see
 * emulator.h) and the threads db_tpcc_prepare() and db_tpcc_check() start
 * and join themselves. Errors: 0, -EINTR (Ctrl-C) or a DB_* code, with one
 * line in the caller's @err.
 */
#ifndef APPIO_DB_TPCC_H
#define APPIO_DB_TPCC_H

#include <signal.h>
#include <stdbool.h>

#include "db_oltp.h"

/* sysbench-tpcc's cardinalities (the specification's). */
#define TPCC_ITEMS       100000   /* rows of item and of stock per warehouse */
#define TPCC_DISTRICTS   10       /* per warehouse */
#define TPCC_CUSTOMERS   3000     /* per district; also the initial orders per district */
#define TPCC_FIRST_NEW   2101     /* the first initial order not yet delivered */
#define TPCC_NTABLES     9        /* tables in a set */

/* The nine tables of a set, in the order cleanup drops them (referrers first). */
extern const char *const db_tpcc_tables[TPCC_NTABLES];

/* sysbench-tpcc's Lastname(@num): three syllables of 0..999 into @buf (>= 16 bytes). */
void db_tpcc_lastname(unsigned num, char *buf);

/*
 * @tmpl into @out with each "$X" (X a capital letter) replaced by vals[X - 'A']
 * (a "$X" whose value is NULL is kept as it is); stops short of @len.
 */
void db_tpcc_expand(const char *tmpl, const char *const vals[26], char *out, size_t len);

/* ---- db_tpcc.c: the run (emu_db's callbacks when the workload is tpcc) ---- */
int db_tpcc_setup(struct emu_run *run, char *err, size_t errlen);
int db_tpcc_worker_init(struct emu_worker *w);
int db_tpcc_step(struct emu_worker *w);
void db_tpcc_worker_fini(struct emu_worker *w);

/* The TPC-C statistics after the run's table: TPS, tpmC, each type's latency. */
void db_tpcc_summary(const void *opts, const struct result *res, FILE *f);

/* The point's tpmC (committed New-Orders per minute) into the result's info. */
void db_tpcc_point_end(struct emu_run *run, const struct point_result *p);

/* Bytes of emu_db's run and worker state the tpcc run needs (asserted to fit). */
#define DB_TPCC_RUN_PRIV    512
#define DB_TPCC_WORKER_PRIV 128

/* ---- db_tpcc_load.c ---- */

/* What db_tpcc_prepare() did. */
struct db_tpcc_prep {
	uint64_t rows;
	unsigned loaders;
	double seconds;
};

/*
 * Create the --tables sets of nine tables with sysbench-tpcc's schema
 * (items, secondary indexes and, with --use-fk, foreign keys first, one set
 * per thread), then load --scale warehouses into each set, one warehouse
 * per thread at a time, up to @threads threads (one where the driver has a
 * single writer). @progress (may be NULL) gets a line as warehouses finish.
 * Ctrl-C (*@stop) ends it within a batch of rows with -EINTR.
 */
int db_tpcc_prepare(const struct db_opts *o, unsigned threads, uint64_t seed,
		    volatile sig_atomic_t *stop, void (*progress)(const char *line),
		    struct db_tpcc_prep *st, char *err, size_t errlen);

/* DROP TABLE IF EXISTS the nine tables of every set. */
int db_tpcc_cleanup(const struct db_opts *o, char *err, size_t errlen);

/*
 * Probe every table of every set on @c: with @want_present, each must be
 * there and hold at least --scale warehouses ('run', 'check'); without it,
 * none may be there ('prepare'). -EINVAL with a line naming the table and
 * what to do otherwise.
 */
int db_tpcc_probe(const struct db_opts *o, struct db_conn *c, bool want_present,
		  char *err, size_t errlen);

/* Open a connection as @o says, with sysbench-tpcc's session settings. */
int db_tpcc_connect(const struct db_opts *o, bool create, struct db_conn **c,
		    char *err, size_t errlen);

/* ---- db_tpcc_check.c ---- */

/*
 * Run sysbench-tpcc's consistency checks on every warehouse of every set,
 * up to @threads warehouses at a time. @report gets a line per check
 * ("check 1 pass: ..."); *@failed the number of checks that failed on some
 * warehouse. Returns 0 when the checks ran (passed or not), else an error.
 */
int db_tpcc_check(const struct db_opts *o, unsigned threads, volatile sig_atomic_t *stop,
		  char *report, size_t len, unsigned *failed, char *err, size_t errlen);


#endif
