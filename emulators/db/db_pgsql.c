/*
 * db_pgsql.c - the PostgreSQL driver, on libpq.
 *
 * Statements are named server-side prepared statements executed with
 * PQexecPrepared, text parameters typed int4/bpchar and binary results, as
 * SysBench's PostgreSQL driver does. Bulk loads use COPY FROM STDIN, then
 * move the id sequence past the last row so later inserts that let the
 * server pick the id (SysBench's oltp_insert) do not collide. SQLSTATEs
 * 40P01 (deadlock), 40001 (serialization failure) and 23505 (unique
 * violation: two delete/insert pairs racing on one id) are retryable, the
 * set SysBench ignores.
 */
#ifdef HAVE_PGSQL

#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "db_driver.h"

#define OID_INT4   23
#define OID_BPCHAR 1042
#define COPY_BUF   (256 * 1024)

struct pg_stmt {
	char name[16];
	unsigned nparams;
	bool is_int[DB_MAX_PARAMS];
	const char *values[DB_MAX_PARAMS];
	char buf[DB_MAX_PARAMS][DB_MAX_CHAR + 1];
};

struct pg_conn {
	struct db_conn pub;             /* first: the driver casts between them */
	PGconn *pg;
	PGcancel *cancel;               /* for cancel(), from another thread */
	struct pg_stmt **stmts;
	unsigned nstmts;
};

static struct pg_conn *pg_of(struct db_conn *c)
{
	return (struct pg_conn *)c;
}

/* libpq's messages end in newlines and may span lines: make one line. */
static void one_line(char *s)
{
	char *out = s;

	for (const char *p = s; *p; p++) {
		bool space = *p == '\n' || *p == '\t' || *p == ' ';
		if (space && (out == s || out[-1] == ' '))
			continue;
		*out++ = space ? ' ' : *p;
	}
	while (out > s && out[-1] == ' ')
		out--;
	*out = '\0';
}

static int lost(struct pg_conn *c)
{
	char msg[300];

	snprintf(msg, sizeof(msg), "%s", PQerrorMessage(c->pg));
	one_line(msg);
	snprintf(c->pub.err, sizeof(c->pub.err), "lost connection to pgsql at '%s': %s",
		 c->pub.where, *msg ? msg : "server closed the connection");
	return DB_LOST;
}

/* Classify a finished command's result @res (consumed) as SysBench does. */
static int check(struct pg_conn *c, PGresult *res)
{
	ExecStatusType st = res ? PQresultStatus(res) : PGRES_FATAL_ERROR;

	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK) {
		PQclear(res);
		return 0;
	}
	if (PQstatus(c->pg) == CONNECTION_BAD) {
		PQclear(res);
		return lost(c);
	}
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	int rc = DB_FATAL;
	if (state && (!strcmp(state, "40P01") || !strcmp(state, "40001") ||
		      !strcmp(state, "23505"))) {
		rc = DB_RETRY;
		c->pub.why = !strcmp(state, "40P01") ? DB_WHY_DEADLOCK : DB_WHY_SERIALIZATION;
	}
	snprintf(c->pub.err, sizeof(c->pub.err), "pgsql: %s (SQLSTATE %s)",
		 msg ? msg : PQerrorMessage(c->pg), state ? state : "?");
	one_line(c->pub.err);
	PQclear(res);
	return rc;
}

static void pg_quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;      /* notices ("no transaction in progress") are not errors */
}

static void pg_disconnect(struct db_conn *dc)
{
	struct pg_conn *c = pg_of(dc);

	if (!c)
		return;
	for (unsigned i = 0; i < c->nstmts; i++)
		free(c->stmts[i]);
	free(c->stmts);
	if (c->cancel)
		PQfreeCancel(c->cancel);
	PQfinish(c->pg);
	free(c);
}

/* Add a connection keyword when it has a value; libpq's defaults apply otherwise. */
static unsigned put_kv(const char **keys, const char **vals, unsigned n, const char *k, const char *v)
{
	if (v) {
		keys[n] = k;
		vals[n++] = v;
	}
	return n;
}

static int pg_connect(const struct db_conn_cfg *cfg, struct db_conn **out, char *err, size_t errlen)
{
	struct pg_conn *c = xcalloc(1, sizeof(*c));
	const char *keys[8], *vals[8];
	char port[16];
	unsigned n = 0;

	*out = NULL;
	c->pub.drv = &db_pgsql_driver;
	snprintf(port, sizeof(port), "%u", cfg->port ? cfg->port : 5432);
	snprintf(c->pub.where, sizeof(c->pub.where), "%s:%s", cfg->host ? cfg->host : "localhost", port);
	n = put_kv(keys, vals, n, "host", cfg->host);
	n = put_kv(keys, vals, n, "port", port);
	n = put_kv(keys, vals, n, "user", cfg->user);
	n = put_kv(keys, vals, n, "password", cfg->password); /* else PGPASSWORD or ~/.pgpass */
	n = put_kv(keys, vals, n, "dbname", cfg->db);
	n = put_kv(keys, vals, n, "connect_timeout", "10");
	n = put_kv(keys, vals, n, "application_name", "appio");
	keys[n] = vals[n] = NULL;
	c->pg = PQconnectdbParams(keys, vals, 0);
	if (!c->pg || PQstatus(c->pg) != CONNECTION_OK) {
		char msg[300];
		snprintf(msg, sizeof(msg), "%s", c->pg ? PQerrorMessage(c->pg) : "out of memory");
		one_line(msg);
		snprintf(err, errlen, "cannot connect to pgsql at '%s': %s", c->pub.where, msg);
		pg_disconnect(&c->pub);
		return DB_LOST;
	}
	PQsetNoticeProcessor(c->pg, pg_quiet, NULL);
	c->cancel = PQgetCancel(c->pg);
	*out = &c->pub;
	return 0;
}

static void pg_cancel(struct db_conn *dc)
{
	struct pg_conn *c = pg_of(dc);
	char buf[256];

	if (c->cancel)
		PQcancel(c->cancel, buf, sizeof(buf));
}

static int pg_exec(struct db_conn *dc, const char *sql)
{
	struct pg_conn *c = pg_of(dc);

	return check(c, PQexec(c->pg, sql));
}

/* Copy row @res->want of the result @r, then classify it like check(). */
static int pg_query(struct db_conn *dc, const char *sql, struct db_result *res)
{
	struct pg_conn *c = pg_of(dc);
	PGresult *r = PQexec(c->pg, sql);

	if (!res)
		return check(c, r);
	db_result_clear(res);
	if (r && PQresultStatus(r) == PGRES_TUPLES_OK) {
		res->rows = (uint64_t)PQntuples(r);
		if (res->want < res->rows) {
			int row = (int)res->want;
			for (int i = 0; i < PQnfields(r) && i < DB_RESULT_COLS; i++)
				db_result_put(res, PQgetisnull(r, row, i) ? NULL : PQgetvalue(r, row, i),
					      (size_t)PQgetlength(r, row, i));
		}
	}
	return check(c, r);
}

static int pg_prepare(struct db_conn *dc, const char *sql, unsigned nparams,
		      const enum db_type *types, struct db_stmt **out)
{
	struct pg_conn *c = pg_of(dc);
	struct pg_stmt *s = xcalloc(1, sizeof(*s));
	char text[1024];
	Oid oids[DB_MAX_PARAMS];

	c->stmts = xrealloc(c->stmts, (c->nstmts + 1) * sizeof(*c->stmts));
	c->stmts[c->nstmts++] = s;
	snprintf(s->name, sizeof(s->name), "s%u", c->nstmts);
	s->nparams = db_number_placeholders(sql, text, sizeof(text));
	if (s->nparams != nparams) {
		snprintf(c->pub.err, sizeof(c->pub.err), "pgsql: '%s' has %u parameters, not %u",
			 sql, s->nparams, nparams);
		return DB_FATAL;
	}
	for (unsigned i = 0; i < nparams; i++) {
		s->is_int[i] = types[i] == DB_INT;
		oids[i] = s->is_int[i] ? OID_INT4 : OID_BPCHAR;
		s->values[i] = s->buf[i];
	}
	int rc = check(c, PQprepare(c->pg, s->name, text, (int)nparams, oids));
	if (!rc)
		*out = (struct db_stmt *)s;
	return rc;
}

/* Decimal text of @v into @buf; cheaper than snprintf on the hot path. */
static void put_int(char *buf, int64_t v)
{
	char tmp[24];
	unsigned n = 0;
	uint64_t u = v < 0 ? -(uint64_t)v : (uint64_t)v;

	do {
		tmp[n++] = (char)('0' + u % 10);
		u /= 10;
	} while (u);
	if (v < 0)
		*buf++ = '-';
	while (n)
		*buf++ = tmp[--n];
	*buf = '\0';
}

static int pg_execute(struct db_conn *dc, struct db_stmt *ds, const struct db_arg *args)
{
	struct pg_conn *c = pg_of(dc);
	struct pg_stmt *s = (struct pg_stmt *)ds;

	for (unsigned i = 0; i < s->nparams; i++) {
		if (s->is_int[i]) {
			put_int(s->buf[i], args[i].i);
		} else {
			uint32_t n = args[i].len < DB_MAX_CHAR ? args[i].len : DB_MAX_CHAR;
			memcpy(s->buf[i], args[i].s, n);
			s->buf[i][n] = '\0';
		}
	}
	return check(c, PQexecPrepared(c->pg, s->name, (int)s->nparams, s->values, NULL, NULL, 1));
}

static int pg_begin(struct db_conn *c, bool writes)
{
	(void)writes;
	return pg_exec(c, "BEGIN");
}

static int pg_commit(struct db_conn *c)
{
	return pg_exec(c, "COMMIT");
}

static int pg_rollback(struct db_conn *c)
{
	int rc = pg_exec(c, "ROLLBACK");
	return rc == DB_LOST ? rc : 0;
}

static int pg_create_table(struct db_conn *c, unsigned t)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "CREATE TABLE sbtest%u(\n"
		 "  id SERIAL,\n"
		 "  k INTEGER DEFAULT '0' NOT NULL,\n"
		 "  c CHAR(120) DEFAULT '' NOT NULL,\n"
		 "  pad CHAR(60) DEFAULT '' NOT NULL,\n"
		 "  PRIMARY KEY (id)\n"
		 ") ", t);
	return pg_exec(c, sql);
}

static int copy_rows(struct pg_conn *c, uint64_t n, db_row_fn gen, void *arg)
{
	char *buf = xmalloc(COPY_BUF + 512);
	size_t len = 0;
	struct db_row r;
	int rc = 0;

	for (uint64_t i = 0; i < n && !rc; i++) {
		if ((rc = gen(arg, i, &r)) != 0)
			break;
		len += (size_t)sprintf(buf + len, "%lld\t%lld\t%.*s\t%.*s\n", (long long)r.id,
				       (long long)r.k, (int)sizeof(r.c), r.c, (int)sizeof(r.pad), r.pad);
		if (len >= COPY_BUF || i + 1 == n) {
			if (PQputCopyData(c->pg, buf, (int)len) != 1)
				rc = lost(c);
			len = 0;
		}
	}
	free(buf);
	return rc;
}

static int pg_load(struct db_conn *dc, unsigned t, uint64_t n, db_row_fn gen, void *arg)
{
	struct pg_conn *c = pg_of(dc);
	char sql[160];
	PGresult *res;

	snprintf(sql, sizeof(sql), "COPY sbtest%u (id, k, c, pad) FROM STDIN", t);
	res = PQexec(c->pg, sql);
	if (PQresultStatus(res) != PGRES_COPY_IN)
		return check(c, res);
	PQclear(res);
	int rc = copy_rows(c, n, gen, arg);
	if (PQputCopyEnd(c->pg, rc ? "load failed" : NULL) != 1 && !rc)
		rc = lost(c);
	while ((res = PQgetResult(c->pg)) != NULL) {
		int r = check(c, res);
		if (!rc)
			rc = r;
	}
	if (rc || !n)
		return rc;
	snprintf(sql, sizeof(sql), "SELECT setval('sbtest%u_id_seq', (SELECT max(id) FROM sbtest%u))", t, t);
	return pg_exec(dc, sql);
}

static int pg_info(struct db_conn *dc, db_info_fn add, void *arg)
{
	static const char *const names[] = {
		"server_version", "shared_buffers", "synchronous_commit", "fsync",
		"wal_sync_method", "full_page_writes", "max_wal_size", "effective_io_concurrency",
	};
	struct pg_conn *c = pg_of(dc);
	char sql[512], ver[32];
	size_t len = (size_t)snprintf(sql, sizeof(sql), "SELECT ");

	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%scurrent_setting('%s')",
					i ? ", " : "", names[i]);
	PGresult *res = PQexec(c->pg, sql);
	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return check(c, res);
	for (int i = 0; PQntuples(res) == 1 && i < PQnfields(res); i++)
		add(arg, names[i], PQgetvalue(res, 0, i));
	PQclear(res);
	snprintf(ver, sizeof(ver), "%d", PQlibVersion());
	add(arg, "client_version", ver);
	return 0;
}

static int pg_datadir(struct db_conn *dc, char *buf, size_t len)
{
	struct pg_conn *c = pg_of(dc);
	PGresult *res = PQexec(c->pg, "SHOW data_directory");

	if (PQresultStatus(res) != PGRES_TUPLES_OK)
		return check(c, res);
	snprintf(buf, len, "%s", PQntuples(res) == 1 ? PQgetvalue(res, 0, 0) : "");
	PQclear(res);
	return 0;
}

/* sysbench-tpcc's PostgreSQL schema: foreign keys checked in every session. */
static const struct db_dialect pg_dialect = {
	.tinyint = "smallint",
	.datetime = "timestamp",
	.table_opts = "",
	.for_update = " FOR UPDATE",
	.join_hint = ",",
	.isolation = "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL %s",
	.analyze = "VACUUM ANALYZE %s",  /* autovacuum's first pass over a new table too */
	.fk = true,
};

const struct db_driver db_pgsql_driver = {
	.name = "pgsql",
	.desc = "PostgreSQL server (libpq)",
	.dialect = &pg_dialect,
	.connect = pg_connect,
	.disconnect = pg_disconnect,
	.exec = pg_exec,
	.query = pg_query,
	.prepare = pg_prepare,
	.execute = pg_execute,
	.begin = pg_begin,
	.commit = pg_commit,
	.rollback = pg_rollback,
	.create_table = pg_create_table,
	.load = pg_load,
	.info = pg_info,
	.datadir = pg_datadir,
	.cancel = pg_cancel,
};

#endif /* HAVE_PGSQL */
