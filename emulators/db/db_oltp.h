/*
 * db_oltp.h - SysBench 1.0's OLTP workloads against a real database: the
 * options, the workload table, the run-phase emulator, and prepare/cleanup.
 *
 * The CLI (src/cmd_db.c) parses the command line into struct db_opts with
 * db_opt_table, then calls db_load_prepare(), db_load_cleanup(), or hands
 * db_oltp_ops and the options to the runner. Everything here runs on the
 * caller's thread except the emulator callbacks (see emulator.h) and the
 * loader threads db_load_prepare() starts and joins itself.
 */
#ifndef APPIO_DB_OLTP_H
#define APPIO_DB_OLTP_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "appio/emulator.h"
#include "appio/opt.h"
#include "db_driver.h"
#include "db_mix.h"

/* Parsed options; field names follow SysBench's option names. */
struct db_opts {
	const char *workload;           /* set by the CLI: oltp_read_write, ... */
	int driver;                     /* index into db_driver_names */
	uint64_t tables, table_size;
	struct opt_ulist threads;
	uint64_t time, warmup_time, report_interval;
	int percentile;                 /* index into db_percentile_names */
	uint64_t seed;
	struct db_mix mix;              /* the statement mix, as the oltp emulator's */
	bool reconnect;
	const char *mysql_host, *mysql_socket, *mysql_user, *mysql_password, *mysql_db;
	uint64_t mysql_port;
	const char *pgsql_host, *pgsql_user, *pgsql_password, *pgsql_db;
	uint64_t pgsql_port;
	const char *sqlite_db;
	int sqlite_journal, sqlite_synchronous;
	uint64_t sqlite_busy_timeout;
	const char *json;
};

/* --driver values, --percentile values, in option-index order; NULL-terminated. */
enum { DB_OPT_MYSQL, DB_OPT_PGSQL, DB_OPT_SQLITE };
extern const char *const db_driver_names[];
extern const char *const db_percentile_names[];

/* Every option of 'appio db', OPT_END-terminated. */
extern const struct opt_def db_opt_table[];

/* The run phase as a transactional emulator for the runner (EMU_NO_TARGET). */
extern const struct emu_ops db_oltp_ops;

/* Class and counter indexes of db_oltp_ops. */
enum { DB_CLS_TXN, DB_CLS_READ, DB_CLS_WRITE, DB_CLS_OTHER };
enum { DB_CNT_ERRORS, DB_CNT_RETRIES, DB_CNT_RECONNECTS, DB_CNT_RETRIED_STMTS };

/* SysBench's templates for c and pad (sysbench.rand.string: '#' = a digit). */
extern const char db_c_template[DB_C_LEN + 1];
extern const char db_pad_template[DB_PAD_LEN + 1];

/* Is @name one of SysBench's OLTP workloads that appio implements? */
bool db_oltp_workload_exists(const char *name);

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

/* What db_load_prepare() did. */
struct db_prep_stats {
	uint64_t rows;
	unsigned tables, threads;
	double load_s, index_s;         /* loading rows; building secondary indexes */
};

/*
 * db_load.c. Create and fill sbtest1..N with SysBench's schema and data, then build the
 * secondary index k_N on each. Tables are loaded by up to max(--threads)
 * threads (one table per thread at a time; one thread when the driver
 * serialises writers), each on its own connection. Row data come from
 * streams of @seed. When *@stop becomes nonzero (Ctrl-C), the loaders give
 * up within a few thousand rows and -EINTR is returned. Returns 0, -EINTR
 * or a DB_* error with a message in @err.
 */
int db_load_prepare(const struct db_opts *o, uint64_t seed, volatile sig_atomic_t *stop,
		    struct db_prep_stats *st, char *err, size_t errlen);

/* DROP TABLE IF EXISTS sbtest1..N. Returns 0 or a DB_* error with @err. */
int db_load_cleanup(const struct db_opts *o, char *err, size_t errlen);

#endif
