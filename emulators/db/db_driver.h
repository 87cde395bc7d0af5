/*
 * db_driver.h - the contract between appio's SysBench-style workloads and a
 * real database client library (libmariadb/libmysqlclient, libpq, SQLite).
 *
 * A driver is one static const struct db_driver, compiled only when its
 * library was found (HAVE_MYSQL, HAVE_PGSQL, HAVE_SQLITE) and listed in
 * db_driver_table[] (db_driver.c). The workload code never asks for a
 * driver's name: it asks for capabilities (enum db_flags) and speaks SQL
 * through prepared statements, so the same statement mix runs on every
 * backend.
 *
 * Errors are classified the way SysBench classifies them, so a run can tell
 * contention (retry the transaction, count it) from a lost server (stop, or
 * reconnect with --reconnect) from a broken workload (stop with the server's
 * message):
 *   0            success
 *   DB_RETRY     deadlock, lock wait timeout, serialization failure, busy;
 *                the caller rolls the transaction back and may run it again
 *   DB_LOST      the connection is gone; the handle can only be closed
 *   DB_FATAL     anything else; the message is in db_errmsg()
 *
 * Threads: a connection and its statements belong to one thread at a time.
 * Driver callbacks never print; they leave one line in the connection's
 * message buffer (lowercase, no trailing newline, never a password).
 */
#ifndef APPIO_DB_DRIVER_H
#define APPIO_DB_DRIVER_H

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum {
	DB_RETRY = -EAGAIN,
	DB_LOST = -ENOTCONN,
	DB_FATAL = -EIO,
};

enum db_flags {
	DB_SERIAL_WRITES = 1 << 0, /* one writer at a time: load tables one by one */
	DB_FILE          = 1 << 1, /* an embedded database file, not a server */
};

/* Parameter types of a prepared statement. */
enum db_type {
	DB_INT,         /* 32-bit signed integer */
	DB_CHAR,        /* fixed-width text: CHAR(n) */
};

#define DB_MAX_PARAMS 4
#define DB_MAX_CHAR   120     /* longest CHAR parameter (column c) */

/* One parameter value; @s is not NUL-terminated, @len bytes long. */
struct db_arg {
	int64_t i;
	const char *s;
	uint32_t len;
};

/* Where and how to connect; filled from the command line. */
struct db_conn_cfg {
	const char *host, *socket, *user, *password, *db;
	unsigned port;                  /* 0: the library's default */
	const char *path;               /* SQLite: database file */
	const char *journal;            /* SQLite: journal_mode */
	const char *synchronous;        /* SQLite: synchronous */
	unsigned busy_timeout_ms;       /* SQLite: wait this long for the write lock */
	bool create;                    /* SQLite: create the file if missing (prepare only) */
	char password_buf[256];         /* --password-file's password; @password points here */
};

/* Why a statement returned DB_RETRY, for the counters. */
enum db_retry_why {
	DB_WHY_DEADLOCK,                /* the server chose this transaction as a deadlock's victim */
	DB_WHY_LOCK_WAIT,               /* a lock wait (or SQLite's busy wait) timed out */
	DB_WHY_SERIALIZATION,           /* a serialization failure, a changed record, a duplicate */
};

/* The common head of every driver's connection struct. */
struct db_conn {
	const struct db_driver *drv;
	char where[160];                /* "127.0.0.1:3306", a socket or file path */
	char err[512];                  /* the last error, one line */
	enum db_retry_why why;          /* set with every DB_RETRY */
};

struct db_stmt;

/* SysBench's values for c and pad: 119 and 59 characters in CHAR(120), CHAR(60). */
#define DB_C_LEN   119
#define DB_PAD_LEN 59

/* One row of an sbtest table, as the bulk loader produces it (text not NUL-terminated). */
struct db_row {
	int64_t id, k;
	char c[DB_C_LEN], pad[DB_PAD_LEN];
};

/*
 * Produces row @i (0-based) of a load into @row; called on the loader's
 * thread. Returns 0, or -EINTR to abandon the load (the driver stops and
 * returns -EINTR).
 */
typedef int (*db_row_fn)(void *arg, uint64_t i, struct db_row *row);

/*
 * What a text query returned: how many rows, and the values of one of them
 * (row @want, 0-based), each kept NUL-terminated in @buf. TPC-C reads one
 * row of most results: the first, or the middle customer of a name.
 */
#define DB_RESULT_COLS 16
#define DB_RESULT_BUF  2048

struct db_result {
	uint64_t want;                  /* in: the row whose values to keep */
	uint64_t rows;                  /* out: rows the statement returned */
	unsigned ncols;                 /* out: values kept; 0 when there is no row @want */
	uint16_t off[DB_RESULT_COLS];
	bool null[DB_RESULT_COLS];
	uint32_t used;
	char buf[DB_RESULT_BUF];
};

/*
 * The SQL a workload writes differently per server, so the workload never
 * asks for a driver's name. Strings are never NULL unless said so.
 */
struct db_dialect {
	const char *tinyint;            /* a one-byte integer column type */
	const char *datetime;           /* a date and time column type */
	const char *table_opts;         /* after CREATE TABLE (...): " ENGINE = innodb" */
	const char *for_update;         /* " FOR UPDATE", or "" where rows are not locked so */
	const char *join_hint;          /* a join that keeps its tables' order ("STRAIGHT_JOIN"), or "," */
	const char *index_hint;         /* printf format naming an index ("FORCE INDEX (%s)"), or NULL */
	const char *isolation;          /* printf format taking "REPEATABLE READ"...; NULL: none */
	const char *run_session;        /* a statement for each run connection, or NULL */
	const char *analyze;            /* printf format taking a table's name: refresh the
					   optimizer's statistics of a freshly loaded table */
	bool fk;                        /* ALTER TABLE ... ADD CONSTRAINT ... FOREIGN KEY works */
};

/* Receives one server fact or setting for the result's info section. */
typedef void (*db_info_fn)(void *arg, const char *key, const char *val);

struct db_driver {
	const char *name;               /* the --driver value: "mysql", "pgsql", "sqlite" */
	const char *desc;
	unsigned flags;                 /* enum db_flags */
	const struct db_dialect *dialect;

	/*
	 * Open a connection as @cfg says. On success *@out is a new connection
	 * the caller frees with disconnect(). On failure returns DB_LOST or
	 * DB_FATAL with a message in @err naming where it tried to connect, and
	 * *@out is NULL.
	 */
	int (*connect)(const struct db_conn_cfg *cfg, struct db_conn **out,
		       char *err, size_t errlen);

	/* Close @c and its statements and free it. Accepts NULL. */
	void (*disconnect)(struct db_conn *c);

	/* Run one SQL text without parameters, discarding any rows. */
	int (*exec)(struct db_conn *c, const char *sql);

	/*
	 * Run one SQL text without parameters and read every row it returns,
	 * counting them in @res->rows and keeping the values of row @res->want
	 * (see struct db_result; a value too long for what is left of its
	 * buffer is cut). @res may be NULL: exec(). Hot path: no allocation of
	 * its own beyond what the client library does.
	 */
	int (*query)(struct db_conn *c, const char *sql, struct db_result *res);

	/*
	 * Prepare @sql with @nparams parameters of @types (at most DB_MAX_PARAMS),
	 * written with '?' placeholders (drivers that number them rewrite).
	 * The statement lives until disconnect().
	 */
	int (*prepare)(struct db_conn *c, const char *sql, unsigned nparams,
		       const enum db_type *types, struct db_stmt **out);

	/*
	 * Execute @s with @args (one per parameter) and read every row it
	 * returns, as a client must before the next statement. Hot path: no
	 * allocation of its own beyond what the client library does.
	 */
	int (*execute)(struct db_conn *c, struct db_stmt *s, const struct db_arg *args);

	/*
	 * Start a transaction; @writes tells the driver the transaction will
	 * write, so an engine that locks the whole database takes the write
	 * lock at once (SQLite: BEGIN IMMEDIATE) instead of failing later.
	 */
	int (*begin)(struct db_conn *c, bool writes);
	int (*commit)(struct db_conn *c);
	/* Roll back; errors are ignored beyond DB_LOST (nothing else to do). */
	int (*rollback)(struct db_conn *c);

	/*
	 * Create the empty table sbtest@table with SysBench's schema for this
	 * SQL dialect: id primary key (auto-increment), k INTEGER, c CHAR(120),
	 * pad CHAR(60), without the secondary index.
	 */
	int (*create_table)(struct db_conn *c, unsigned table);

	/*
	 * Bulk-insert @n rows made by @gen into sbtest@table the fastest way
	 * the server offers (multi-row INSERT, COPY, batched transactions),
	 * committing as it goes. Leaves an auto-increment counter past the
	 * highest id loaded.
	 */
	int (*load)(struct db_conn *c, unsigned table, uint64_t n, db_row_fn gen, void *arg);

	/*
	 * Report the server's version and the settings that decide its I/O
	 * behaviour through @add. Returns 0 or an error as above.
	 */
	int (*info)(struct db_conn *c, db_info_fn add, void *arg);

	/*
	 * Optional (servers): the server's data directory, as the server names
	 * it, into @buf of @len bytes. Returns 0 or an error as above (a user
	 * not allowed to ask: DB_FATAL with the server's message).
	 */
	int (*datadir)(struct db_conn *c, char *buf, size_t len);

	/*
	 * Ask that the statement running on @c stop: called from another
	 * thread than the one running it, which keeps owning @c (the caller
	 * makes sure @c is not disconnected meanwhile). The statement then
	 * fails, and the connection stays usable. Harmless when no statement
	 * runs. MySQL: KILL QUERY over a connection of its own; PostgreSQL: a
	 * cancel request (PQcancel); SQLite: sqlite3_interrupt().
	 */
	void (*cancel)(struct db_conn *c);
};

/* The drivers, each defined in db_<name>.c when its library was found. */
extern const struct db_driver db_mysql_driver;
extern const struct db_driver db_pgsql_driver;
extern const struct db_driver db_sqlite_driver;

/* NULL-terminated: the drivers this build has (db_driver.c). */
extern const struct db_driver *const db_driver_table[];

/* The driver named @name, or NULL when unknown or not built in. */
const struct db_driver *db_driver_find(const char *name);

/* Empty @r for a new result, keeping @r->want. For drivers. */
void db_result_clear(struct db_result *r);

/* Append the next value of row @r->want: @len bytes at @s, or SQL NULL when @s is NULL. */
void db_result_put(struct db_result *r, const char *s, size_t len);

/* Value @col as text (NUL-terminated; "" when NULL or missing). */
const char *db_result_str(const struct db_result *r, unsigned col);

/* Value @col as a number (0 when NULL, missing or not a number). */
int64_t db_result_int(const struct db_result *r, unsigned col);
double db_result_double(const struct db_result *r, unsigned col);

/* The last error on @c (never NULL). */
static inline const char *db_errmsg(const struct db_conn *c)
{
	return c->err;
}

/*
 * Write into @out (at least 8 * DB_MAX_PARAMS bytes longer than @sql) the
 * text of @sql with each '?' replaced by $1, $2, ... for servers that number
 * their placeholders. Returns the number of placeholders.
 */
unsigned db_number_placeholders(const char *sql, char *out, size_t outlen);

/*
 * Block SIGINT and SIGTERM in the calling thread, so they reach the main
 * thread (which sets the stop flag) and never interrupt a client library
 * call in the middle of a round trip. For loader and worker threads.
 */
void db_block_signals(void);

/*
 * A thread that cancels the statement running on @c (its driver's cancel())
 * once *@stop is set, so Ctrl-C also ends a statement of the main thread
 * that waits on the server (the probe of the tables before tpcc's checks,
 * a prepare's VACUUM). db_watch_end() stops the thread; @c must live until
 * then. If the thread cannot start, nothing is watched.
 */
struct db_watch {
	pthread_t tid;
	struct db_conn *c;
	volatile sig_atomic_t *stop;
	atomic_bool end;
	bool started;
};
void db_watch_begin(struct db_watch *wt, struct db_conn *c, volatile sig_atomic_t *stop);
void db_watch_end(struct db_watch *wt);

#endif
