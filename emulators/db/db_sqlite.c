/*
 * db_sqlite.c - the embedded SQLite driver, on libsqlite3.
 *
 * Each worker opens its own connection to one database file (multi-thread
 * mode: no library mutexes, one connection per thread). The journal mode
 * (WAL by default) and the synchronous level are set on every connection.
 * SQLite lets one writer at a time hold the database: a transaction that
 * will write starts with BEGIN IMMEDIATE so it queues for the write lock in
 * the busy handler (up to --sqlite-busy-timeout) rather than failing when it
 * upgrades from reading; SQLITE_BUSY past the timeout is retryable. That
 * serialisation is SQLite's real behaviour and is what a run measures.
 */
#ifdef HAVE_SQLITE

#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "db_driver.h"

#define LOAD_BATCH 10000        /* rows per load transaction */

enum { TX_BEGIN, TX_BEGIN_WRITE, TX_COMMIT, TX_ROLLBACK, TX_N };

struct lite_stmt {
	sqlite3_stmt *st;
	unsigned nparams;
	bool is_int[DB_MAX_PARAMS];
};

struct lite_conn {
	struct db_conn pub;             /* first: the driver casts between them */
	sqlite3 *db;
	sqlite3_stmt *tx[TX_N];
	struct lite_stmt **stmts;
	unsigned nstmts;
};

static struct lite_conn *lite_of(struct db_conn *c)
{
	return (struct lite_conn *)c;
}

static int fail(struct lite_conn *c, int code)
{
	int prim = code & 0xff;

	snprintf(c->pub.err, sizeof(c->pub.err), "sqlite: %s (error %d) on '%s'",
		 sqlite3_errmsg(c->db), code, c->pub.where);
	if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED) {
		c->pub.why = DB_WHY_LOCK_WAIT;
		return DB_RETRY;
	}
	return DB_FATAL;
}

/* Step @st to its end, discarding rows, and reset it for the next use. */
static int run(struct lite_conn *c, sqlite3_stmt *st)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		;
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : fail(c, rc);
}

static int lite_exec(struct db_conn *dc, const char *sql)
{
	struct lite_conn *c = lite_of(dc);
	sqlite3_stmt *st;
	int rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);

	if (rc != SQLITE_OK)
		return fail(c, rc);
	rc = run(c, st);
	sqlite3_finalize(st);
	return rc;
}

/* Step to the end, counting rows and keeping row @res->want. */
static int lite_query(struct db_conn *dc, const char *sql, struct db_result *res)
{
	struct lite_conn *c = lite_of(dc);
	sqlite3_stmt *st;

	if (!res)
		return lite_exec(dc, sql);
	db_result_clear(res);
	int rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(c, rc);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (res->rows++ != res->want)
			continue;
		for (int i = 0; i < sqlite3_column_count(st); i++) {
			const char *v = (const char *)sqlite3_column_text(st, i);
			db_result_put(res, v, v ? (size_t)sqlite3_column_bytes(st, i) : 0);
		}
	}
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : fail(c, rc);
}

static void lite_disconnect(struct db_conn *dc)
{
	struct lite_conn *c = lite_of(dc);

	if (!c)
		return;
	for (unsigned i = 0; i < c->nstmts; i++) {
		sqlite3_finalize(c->stmts[i]->st);
		free(c->stmts[i]);
	}
	for (unsigned i = 0; i < TX_N; i++)
		sqlite3_finalize(c->tx[i]);
	free(c->stmts);
	sqlite3_close(c->db);
	free(c);
}

/* Journal mode, synchronous level and the transaction statements. */
static int lite_setup(struct lite_conn *c, const struct db_conn_cfg *cfg)
{
	static const char *const tx_sql[TX_N] = { "BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK" };
	char sql[96];
	int rc;

	sqlite3_extended_result_codes(c->db, 1);
	sqlite3_busy_timeout(c->db, (int)cfg->busy_timeout_ms);
	snprintf(sql, sizeof(sql), "PRAGMA journal_mode=%s", cfg->journal ? cfg->journal : "wal");
	if ((rc = lite_exec(&c->pub, sql)) != 0)
		return rc;
	snprintf(sql, sizeof(sql), "PRAGMA synchronous=%s", cfg->synchronous ? cfg->synchronous : "full");
	if ((rc = lite_exec(&c->pub, sql)) != 0)
		return rc;
	for (unsigned i = 0; i < TX_N; i++) {
		rc = sqlite3_prepare_v3(c->db, tx_sql[i], -1, SQLITE_PREPARE_PERSISTENT, &c->tx[i], NULL);
		if (rc != SQLITE_OK)
			return fail(c, rc);
	}
	return 0;
}

static int lite_connect(const struct db_conn_cfg *cfg, struct db_conn **out, char *err, size_t errlen)
{
	struct lite_conn *c = xcalloc(1, sizeof(*c));
	const char *path = cfg->path ? cfg->path : "appio-sqlite.db";
	int rc;

	*out = NULL;
	c->pub.drv = &db_sqlite_driver;
	snprintf(c->pub.where, sizeof(c->pub.where), "%s", path);
	rc = sqlite3_open_v2(path, &c->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX |
			     (cfg->create ? SQLITE_OPEN_CREATE : 0), NULL);
	if (rc == SQLITE_OK)
		rc = lite_setup(c, cfg);
	else
		fail(c, rc);
	if (rc) {
		snprintf(err, errlen, "cannot open sqlite database '%s': %s", path,
			 c->db ? sqlite3_errmsg(c->db) : "out of memory");
		lite_disconnect(&c->pub);
		return DB_FATAL;
	}
	*out = &c->pub;
	return 0;
}

static int lite_prepare(struct db_conn *dc, const char *sql, unsigned nparams,
			const enum db_type *types, struct db_stmt **out)
{
	struct lite_conn *c = lite_of(dc);
	struct lite_stmt *s = xcalloc(1, sizeof(*s));
	int rc = sqlite3_prepare_v3(c->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->st, NULL);

	c->stmts = xrealloc(c->stmts, (c->nstmts + 1) * sizeof(*c->stmts));
	c->stmts[c->nstmts++] = s;
	if (rc != SQLITE_OK)
		return fail(c, rc);
	if ((unsigned)sqlite3_bind_parameter_count(s->st) != nparams) {
		snprintf(c->pub.err, sizeof(c->pub.err), "sqlite: '%s' has %d parameters, not %u",
			 sql, sqlite3_bind_parameter_count(s->st), nparams);
		return DB_FATAL;
	}
	s->nparams = nparams;
	for (unsigned i = 0; i < nparams; i++)
		s->is_int[i] = types[i] == DB_INT;
	*out = (struct db_stmt *)s;
	return 0;
}

static int lite_execute(struct db_conn *dc, struct db_stmt *ds, const struct db_arg *args)
{
	struct lite_conn *c = lite_of(dc);
	struct lite_stmt *s = (struct lite_stmt *)ds;

	for (unsigned i = 0; i < s->nparams; i++) {
		if (s->is_int[i])
			sqlite3_bind_int64(s->st, (int)i + 1, args[i].i);
		else
			sqlite3_bind_text(s->st, (int)i + 1, args[i].s, (int)args[i].len, SQLITE_STATIC);
	}
	return run(c, s->st);
}

static int lite_begin(struct db_conn *dc, bool writes)
{
	struct lite_conn *c = lite_of(dc);

	return run(c, c->tx[writes ? TX_BEGIN_WRITE : TX_BEGIN]);
}

static int lite_commit(struct db_conn *dc)
{
	struct lite_conn *c = lite_of(dc);

	return run(c, c->tx[TX_COMMIT]);
}

static int lite_rollback(struct db_conn *dc)
{
	struct lite_conn *c = lite_of(dc);

	if (!sqlite3_get_autocommit(c->db))
		run(c, c->tx[TX_ROLLBACK]);
	return 0;
}

static int lite_create_table(struct db_conn *c, unsigned t)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "CREATE TABLE sbtest%u(\n"
		 "  id INTEGER NOT NULL PRIMARY KEY,\n"
		 "  k INTEGER DEFAULT '0' NOT NULL,\n"
		 "  c CHAR(120) DEFAULT '' NOT NULL,\n"
		 "  pad CHAR(60) DEFAULT '' NOT NULL\n"
		 ")", t);
	return lite_exec(c, sql);
}

static int load_rows(struct lite_conn *c, sqlite3_stmt *ins, uint64_t n, db_row_fn gen, void *arg)
{
	struct db_row r;
	int rc = 0;

	for (uint64_t i = 0; i < n && !rc; i++) {
		if (i % LOAD_BATCH == 0 && (rc = run(c, c->tx[TX_BEGIN_WRITE])) != 0)
			break;
		if ((rc = gen(arg, i, &r)) != 0)
			break;
		sqlite3_bind_int64(ins, 1, r.id);
		sqlite3_bind_int64(ins, 2, r.k);
		sqlite3_bind_text(ins, 3, r.c, sizeof(r.c), SQLITE_STATIC);
		sqlite3_bind_text(ins, 4, r.pad, sizeof(r.pad), SQLITE_STATIC);
		rc = run(c, ins);
		if (!rc && ((i + 1) % LOAD_BATCH == 0 || i + 1 == n))
			rc = run(c, c->tx[TX_COMMIT]);
	}
	if (rc)
		lite_rollback(&c->pub);
	return rc;
}

static int lite_load(struct db_conn *dc, unsigned t, uint64_t n, db_row_fn gen, void *arg)
{
	struct lite_conn *c = lite_of(dc);
	sqlite3_stmt *ins;
	char sql[128];

	snprintf(sql, sizeof(sql), "INSERT INTO sbtest%u(id, k, c, pad) VALUES (?, ?, ?, ?)", t);
	int rc = sqlite3_prepare_v2(c->db, sql, -1, &ins, NULL);
	if (rc != SQLITE_OK)
		return fail(c, rc);
	rc = load_rows(c, ins, n, gen, arg);
	sqlite3_finalize(ins);
	return rc;
}

/* The text of a one-value PRAGMA into @buf. */
static int pragma(struct lite_conn *c, const char *name, char *buf, size_t len)
{
	char sql[64];
	sqlite3_stmt *st;

	snprintf(sql, sizeof(sql), "PRAGMA %s", name);
	int rc = sqlite3_prepare_v2(c->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return fail(c, rc);
	rc = sqlite3_step(st);
	snprintf(buf, len, "%s", rc == SQLITE_ROW && sqlite3_column_text(st, 0) ?
		 (const char *)sqlite3_column_text(st, 0) : "");
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? 0 : fail(c, rc);
}

static void lite_cancel(struct db_conn *dc)
{
	sqlite3_interrupt(lite_of(dc)->db);
}

static int lite_info(struct db_conn *dc, db_info_fn add, void *arg)
{
	static const char *const sync_names[] = { "off", "normal", "full", "extra" };
	static const char *const names[] = { "journal_mode", "synchronous", "page_size", "cache_size" };
	struct lite_conn *c = lite_of(dc);
	char val[64];

	add(arg, "server_version", sqlite3_libversion());
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		int rc = pragma(c, names[i], val, sizeof(val));
		if (rc)
			return rc;
		if (i == 1 && val[0] >= '0' && val[0] <= '3' && !val[1])
			snprintf(val, sizeof(val), "%s", sync_names[val[0] - '0']);
		add(arg, names[i], val);
	}
	return 0;
}

/*
 * SQLite locks the whole database for a writer (BEGIN IMMEDIATE), so it has
 * no FOR UPDATE, and its transactions are serializable whatever is asked; it
 * cannot add a foreign key to an existing table.
 */
static const struct db_dialect lite_dialect = {
	.tinyint = "smallint",
	.datetime = "timestamp",
	.table_opts = "",
	.for_update = "",
	.join_hint = "CROSS JOIN",      /* SQLite's way to keep orders before order_line */
	.analyze = "ANALYZE %s",
};

const struct db_driver db_sqlite_driver = {
	.name = "sqlite",
	.desc = "embedded SQLite database file (libsqlite3)",
	.flags = DB_SERIAL_WRITES | DB_FILE,
	.dialect = &lite_dialect,
	.connect = lite_connect,
	.disconnect = lite_disconnect,
	.exec = lite_exec,
	.query = lite_query,
	.prepare = lite_prepare,
	.execute = lite_execute,
	.begin = lite_begin,
	.commit = lite_commit,
	.rollback = lite_rollback,
	.create_table = lite_create_table,
	.load = lite_load,
	.info = lite_info,
	.cancel = lite_cancel,
};

#endif /* HAVE_SQLITE */
