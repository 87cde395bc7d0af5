/*
 * db_oltp.h - SysBench 1.0's OLTP workloads against a real database: the
 * options, the workload table, the emulator "db", and prepare/cleanup. The
 * emulator also runs TPC-C (--workload tpcc: db_tpcc.h) with the same
 * options, connections and conventions.
 *
 * The core parses the command line into struct db_opts with db_opt_table
 * (beside its run options: --threads, --time, --ramp alias --warmup-time,
 * --seed, --json, --report-interval) and runs emu_db like any
 * emulator; 'appio db prepare|cleanup' are its actions (db_emu.c), which
 * call db_load_prepare() and db_load_cleanup(). Everything here runs on the
 * caller's thread except the emulator callbacks (see emulator.h) and the
 * loader threads db_load_prepare() starts and joins itself.
 */
#ifndef APPIO_DB_OLTP_H
#define APPIO_DB_OLTP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "appio/emulator.h"
#include "appio/opt.h"
#include "db_driver.h"
#include "sysbench/db_mix.h"

/* Parsed options; field names follow SysBench's option names. */
struct db_opts {
	const char *workload;           /* oltp_read_write, ... */
	int driver;                     /* index into db_driver_names */
	uint64_t tables, table_size;
	uint64_t scale;                 /* tpcc: warehouses per table set */
	bool use_fk;                    /* tpcc: foreign keys */
	bool analyze;                   /* prepare: refresh the tables' statistics after the load */
	int trx_level;                  /* tpcc: index into db_trx_level_names */
	int percentile;                 /* index into db_percentile_names */
	struct db_mix mix;              /* the statement mix, as the oltp emulator's */
	bool reconnect;
	const char *mysql_host, *mysql_socket, *mysql_user, *mysql_password, *mysql_db;
	uint64_t mysql_port;
	const char *pgsql_host, *pgsql_user, *pgsql_password, *pgsql_db;
	uint64_t pgsql_port;
	const char *password_file;      /* the server password's file (first line) */
	const char *sqlite_db;
	int sqlite_journal, sqlite_synchronous;
	uint64_t sqlite_busy_timeout;
	const char *capture, *capture_path;     /* --capture FILE: record the data's device */
};

/* --driver values, --percentile values, in option-index order; NULL-terminated. */
enum { DB_OPT_MYSQL, DB_OPT_PGSQL, DB_OPT_SQLITE };
extern const char *const db_driver_names[];
extern const char *const db_percentile_names[];
extern const char *const db_trx_level_names[];      /* RR, RC, SER */
extern const char *const db_trx_level_sql[];        /* "REPEATABLE READ", ... */

/* The emulator's own options, OPT_END-terminated. */
extern const struct opt_def db_opt_table[];

/* The emulator "db" (EMU_NO_TARGET), registered in emulator_table. */
extern const struct emu_ops emu_db;

/*
 * db_emu.c: what the emulator does around the run (see the optional
 * callbacks of struct emu_ops): prepare and cleanup, the connection check,
 * the server's facts, the names in the result, SysBench's SQL statistics,
 * the lists of drivers and workloads, the suite's variants.
 */
extern const struct emu_action db_actions[];
extern const struct emu_list db_lists[];
extern const struct emu_preset db_suite_variants[];
int db_check(const void *opts, char *about, size_t aboutlen, char *err, size_t errlen);
void db_info(struct emu_run *run);
void db_describe(const void *opts, const char **name, const char **engine);
void db_summary(const void *opts, const struct result *res, FILE *f);

/* Class and counter indexes of emu_db. */
enum { DB_CLS_TXN, DB_CLS_READ, DB_CLS_WRITE, DB_CLS_OTHER };
enum { DB_CNT_ERRORS, DB_CNT_RETRIES, DB_CNT_RECONNECTS, DB_CNT_RETRIED_STMTS };

/*
 * How a worker gets over a failed transaction (db_txn_failed()): its
 * driver, its connection, whether --reconnect was given, the counters a
 * retry is counted under by cause (indexed by enum db_retry_why; NULL: not
 * counted by cause), and @connect, which opens the worker's connection
 * again (*@conn) with whatever the worker prepares on it, or returns
 * nonzero with one line in @err.
 */
struct db_retry {
	const struct db_driver *drv;
	struct db_conn **conn;
	bool reconnect;
	const unsigned *why_cnt;
	int (*connect)(struct emu_worker *w, char *err, size_t errlen);
};

/*
 * What both workload families do when a transaction of a worker's step
 * failed with @rc (a driver code) after @ndone statements: count the error
 * (DB_CNT_ERRORS) and the statements to be run again (DB_CNT_RETRIED_STMTS);
 * roll a retryable one (DB_RETRY) back and count it (DB_CNT_RETRIES and its
 * cause); replace a lost connection (DB_LOST) when @rt->reconnect says so,
 * trying for 30 s (DB_CNT_RECONNECTS). Returns false when the caller is to
 * run the transaction again; true when its step is to return *@out: 0 (the
 * run is stopping), 1 (stopping while reconnecting), or emu_fail()'s result
 * naming the server's error. Worker thread.
 */
bool db_txn_failed(struct emu_worker *w, const struct db_retry *rt, int rc, unsigned ndone, int *out);

/* SysBench's templates for c and pad (sysbench.rand.string: '#' = a digit). */
extern const char db_c_template[DB_C_LEN + 1];
extern const char db_pad_template[DB_PAD_LEN + 1];

/* Is @name one of SysBench's OLTP workloads that appio implements? */
bool db_oltp_workload_exists(const char *name);

/* Is @o's workload TPC-C (db_tpcc.c) rather than one of the OLTP scripts? */
bool db_is_tpcc(const struct db_opts *o);

/*
 * db_opts.c. Check @o: the workload exists, the driver is built in, the
 * numbers fit. Returns 0 or -EINVAL with one line in @err naming what is
 * wrong.
 */
int db_opts_check(const struct db_opts *o, char *err, size_t errlen);

/* The driver @o selects, or NULL when it is not built in. */
const struct db_driver *db_opts_driver(const struct db_opts *o);

/* Fill @cfg from @o's connection options for its driver (strings point into @o). */
void db_opts_conn_cfg(const struct db_opts *o, struct db_conn_cfg *cfg);

/*
 * The first line of @path (without its newline) into @buf of @len bytes:
 * 0, or -EINVAL with one line in @err naming --password-file (unreadable,
 * empty or too long). Never puts the password in @err.
 */
int db_opts_read_password(const char *path, char *buf, size_t len, char *err, size_t errlen);

struct trace_record;

/*
 * db_capture.c, main thread. Start recording the block device under the
 * database's data (--capture-path, the server's data directory or the
 * SQLite file) into o->capture, its header naming the run and the server.
 * 0, or -EINVAL (no privilege, no such path, a server elsewhere) or -errno
 * with one line in @err.
 */
int db_capture_start(struct emu_run *run, struct trace_record **out, char *err, size_t errlen);
/* A point with @threads ran: add it to @list (the points so far) and the header. */
void db_capture_point(struct trace_record *rec, unsigned threads, char *list, size_t len);
/* Stop and write the trace; facts into the result. 0 or -errno with @err (lost events). */
int db_capture_finish(struct emu_run *run, struct trace_record *rec, char *err, size_t errlen);
/*
 * 'db prepare --capture': start recording as db_capture_start does, the
 * header naming the load (run.phase "prepare").
 */
int db_capture_prepare(const struct db_opts *o, uint64_t seed, struct trace_record **out, char *err, size_t errlen);
/*
 * Stop, write the trace (its run.threads the @loaders, when not 0) and free
 * @rec; @line says what was captured ("captured N I/Os of DEV in S s").
 * 0, or -errno with @err (lost events).
 */
int db_capture_end(struct trace_record *rec, unsigned loaders, char *line, size_t len, char *err, size_t errlen);

/* What db_load_prepare() did. */
struct db_prep_stats {
	uint64_t rows;
	unsigned tables, threads;
	double load_s, index_s;         /* loading rows; building secondary indexes */
};

/*
 * db_load.c. Create and fill sbtest1..N with SysBench's schema and data, then build the
 * secondary index k_N on each. Tables are loaded by up to @threads
 * threads (one table per thread at a time; one thread when the driver
 * serialises writers), each on its own connection. Row data come from
 * streams of @seed. When *@stop becomes nonzero (Ctrl-C), the loaders give
 * up within a few thousand rows and -EINTR is returned. Returns 0, -EINTR
 * or a DB_* error with a message in @err.
 */
int db_load_prepare(const struct db_opts *o, unsigned threads, uint64_t seed,
		    volatile sig_atomic_t *stop, struct db_prep_stats *st, char *err, size_t errlen);

/* DROP TABLE IF EXISTS sbtest1..N. Returns 0 or a DB_* error with @err. */
int db_load_cleanup(const struct db_opts *o, char *err, size_t errlen);

#endif
