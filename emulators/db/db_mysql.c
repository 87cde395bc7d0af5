/*
 * db_mysql.c - the MySQL/MariaDB driver, on libmariadb or libmysqlclient.
 *
 * Statements run as server-side prepared statements over the binary
 * protocol, as SysBench's MySQL driver runs them; BEGIN and COMMIT go as
 * plain queries (one round trip each either way). Bulk loads are multi-row
 * INSERTs of about 512 KiB, well under every server's default
 * max_allowed_packet. Errors 1213 (deadlock), 1205 (lock wait timeout) and
 * 1020 (record changed) are retryable, SysBench's --mysql-ignore-errors
 * default.
 */
#ifdef HAVE_MYSQL

#include <errmsg.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "db_driver.h"

#define LOAD_BUF (512 * 1024)

struct my_stmt {
	MYSQL_STMT *st;
	unsigned nparams;
	bool has_result;                /* a SELECT: rows must be read */
	MYSQL_BIND bind[DB_MAX_PARAMS];
	int32_t ival[DB_MAX_PARAMS];
	unsigned long len[DB_MAX_PARAMS];
	char sval[DB_MAX_PARAMS][DB_MAX_CHAR];
};

struct my_conn {
	struct db_conn pub;             /* first: the driver casts between them */
	MYSQL *m;
	struct my_stmt **stmts;         /* for disconnect() */
	unsigned nstmts;
	struct db_conn_cfg cfg;         /* cancel() connects as this one did: strings below */
	char cfg_str[5][256];
	unsigned long thread_id;        /* the server's id of this session, for KILL QUERY */
};

static struct my_conn *my_of(struct db_conn *c)
{
	return (struct my_conn *)c;
}

/* SysBench's default ignorable errors, and the codes of a vanished server. */
static int classify(struct my_conn *c, unsigned no)
{
	switch (no) {
	case ER_LOCK_DEADLOCK:
		c->pub.why = DB_WHY_DEADLOCK;
		return DB_RETRY;
	case ER_LOCK_WAIT_TIMEOUT:
		c->pub.why = DB_WHY_LOCK_WAIT;
		return DB_RETRY;
	case ER_CHECKREAD:
		c->pub.why = DB_WHY_SERIALIZATION;
		return DB_RETRY;
	case CR_SERVER_GONE_ERROR:
	case CR_SERVER_LOST:
	case CR_SERVER_LOST_EXTENDED:
		return DB_LOST;
	default:
		return DB_FATAL;
	}
}

/* Record the error @no/@msg on @c and return its class. */
static int fail(struct my_conn *c, unsigned no, const char *msg)
{
	int rc = classify(c, no);

	if (rc == DB_LOST)
		snprintf(c->pub.err, sizeof(c->pub.err), "lost connection to mysql at '%s': %s",
			 c->pub.where, msg);
	else
		snprintf(c->pub.err, sizeof(c->pub.err), "mysql: %s (error %u)", msg, no);
	return rc;
}

static int conn_fail(struct my_conn *c)
{
	return fail(c, mysql_errno(c->m), mysql_error(c->m));
}

static int stmt_fail(struct my_conn *c, struct my_stmt *s)
{
	return fail(c, mysql_stmt_errno(s->st), mysql_stmt_error(s->st));
}

static void describe(const struct db_conn_cfg *cfg, char *where, size_t len)
{
	if (cfg->socket && *cfg->socket)
		snprintf(where, len, "%s", cfg->socket);
	else if (!cfg->host || !strcmp(cfg->host, "localhost"))
		snprintf(where, len, "localhost");
	else
		snprintf(where, len, "%s:%u", cfg->host, cfg->port ? cfg->port : 3306);
}

static void my_disconnect(struct db_conn *dc)
{
	struct my_conn *c = my_of(dc);

	if (!c)
		return;
	for (unsigned i = 0; i < c->nstmts; i++) {
		mysql_stmt_close(c->stmts[i]->st);
		free(c->stmts[i]);
	}
	free(c->stmts);
	if (c->m)
		mysql_close(c->m);
	free(c);
}

/* Keep a copy of what @cfg says (it may not outlive the connection), for cancel(). */
static void keep_cfg(struct my_conn *c, const struct db_conn_cfg *cfg, const char *pw)
{
	const char *src[5] = { cfg->host, cfg->user, pw, cfg->db, cfg->socket };
	const char **dst[5] = { &c->cfg.host, &c->cfg.user, &c->cfg.password, &c->cfg.db,
				&c->cfg.socket };

	c->cfg.port = cfg->port;
	for (unsigned i = 0; i < 5; i++) {
		*dst[i] = src[i] ? c->cfg_str[i] : NULL;
		if (src[i])
			snprintf(c->cfg_str[i], sizeof(c->cfg_str[i]), "%s", src[i]);
	}
}

static int my_exec(struct db_conn *dc, const char *sql);

static int my_connect(const struct db_conn_cfg *cfg, struct db_conn **out, char *err, size_t errlen)
{
	struct my_conn *c = xcalloc(1, sizeof(*c));
	const char *pw = cfg->password ? cfg->password : getenv("MYSQL_PWD");
	unsigned timeout = 10;

	*out = NULL;
	c->pub.drv = &db_mysql_driver;
	describe(cfg, c->pub.where, sizeof(c->pub.where));
	mysql_thread_init();
	c->m = mysql_init(NULL);
	if (!c->m) {
		snprintf(err, errlen, "cannot connect to mysql at '%s': out of memory", c->pub.where);
		my_disconnect(&c->pub);
		return DB_FATAL;
	}
	/* the [client] and [appio] groups of the usual option files */
	mysql_options(c->m, MYSQL_READ_DEFAULT_GROUP, "appio");
	mysql_options(c->m, MYSQL_OPT_CONNECT_TIMEOUT, &timeout);
	if (!mysql_real_connect(c->m, cfg->host, cfg->user, pw, cfg->db, cfg->port,
				cfg->socket && *cfg->socket ? cfg->socket : NULL, 0)) {
		unsigned no = mysql_errno(c->m);
		snprintf(err, errlen, "cannot connect to mysql at '%s': %s", c->pub.where,
			 mysql_error(c->m));
		my_disconnect(&c->pub);
		return no >= 2000 && no < 3000 ? DB_LOST : DB_FATAL;
	}
	c->thread_id = mysql_thread_id(c->m);
	keep_cfg(c, cfg, pw);
	*out = &c->pub;
	return 0;
}

/* KILL QUERY over a connection of its own: the session's statement fails at once. */
static void my_cancel(struct db_conn *dc)
{
	struct my_conn *c = my_of(dc);
	struct db_conn *k;
	char sql[64], err[300];

	if (my_connect(&c->cfg, &k, err, sizeof(err)))
		return;
	snprintf(sql, sizeof(sql), "KILL QUERY %lu", c->thread_id);
	my_exec(k, sql);
	my_disconnect(k);
}

static int my_exec(struct db_conn *dc, const char *sql)
{
	struct my_conn *c = my_of(dc);

	if (mysql_real_query(c->m, sql, strlen(sql)))
		return conn_fail(c);
	/* a statement that returns rows (SHOW, SELECT) must be drained */
	MYSQL_RES *res = mysql_store_result(c->m);
	if (res)
		mysql_free_result(res);
	else if (mysql_errno(c->m))
		return conn_fail(c);
	return 0;
}

static int my_query(struct db_conn *dc, const char *sql, struct db_result *res)
{
	struct my_conn *c = my_of(dc);

	if (!res)
		return my_exec(dc, sql);
	db_result_clear(res);
	if (mysql_real_query(c->m, sql, strlen(sql)))
		return conn_fail(c);
	MYSQL_RES *r = mysql_store_result(c->m);
	if (!r)
		return mysql_errno(c->m) ? conn_fail(c) : 0;
	res->rows = mysql_num_rows(r);
	if (res->want < res->rows) {
		mysql_data_seek(r, res->want);
		MYSQL_ROW row = mysql_fetch_row(r);
		unsigned long *len = mysql_fetch_lengths(r);
		for (unsigned i = 0; row && len && i < mysql_num_fields(r); i++)
			db_result_put(res, row[i], row[i] ? len[i] : 0);
	}
	mysql_free_result(r);
	return 0;
}

static void bind_params(struct my_stmt *s, const enum db_type *types)
{
	for (unsigned i = 0; i < s->nparams; i++) {
		MYSQL_BIND *b = &s->bind[i];
		if (types[i] == DB_INT) {
			b->buffer_type = MYSQL_TYPE_LONG;
			b->buffer = &s->ival[i];
		} else {
			b->buffer_type = MYSQL_TYPE_STRING;
			b->buffer = s->sval[i];
			b->buffer_length = DB_MAX_CHAR;
			b->length = &s->len[i];
		}
	}
}

static int my_prepare(struct db_conn *dc, const char *sql, unsigned nparams,
		      const enum db_type *types, struct db_stmt **out)
{
	struct my_conn *c = my_of(dc);
	struct my_stmt *s = xcalloc(1, sizeof(*s));

	s->nparams = nparams;
	s->st = mysql_stmt_init(c->m);
	if (!s->st) {
		free(s);
		return conn_fail(c);
	}
	c->stmts = xrealloc(c->stmts, (c->nstmts + 1) * sizeof(*c->stmts));
	c->stmts[c->nstmts++] = s;
	if (mysql_stmt_prepare(s->st, sql, strlen(sql)))
		return stmt_fail(c, s);
	if (mysql_stmt_param_count(s->st) != nparams) {
		snprintf(c->pub.err, sizeof(c->pub.err), "mysql: '%s' has %lu parameters, not %u",
			 sql, mysql_stmt_param_count(s->st), nparams);
		return DB_FATAL;
	}
	s->has_result = mysql_stmt_field_count(s->st) > 0;
	bind_params(s, types);
	if (nparams && mysql_stmt_bind_param(s->st, s->bind))
		return stmt_fail(c, s);
	*out = (struct db_stmt *)s;
	return 0;
}

static int my_execute(struct db_conn *dc, struct db_stmt *ds, const struct db_arg *args)
{
	struct my_conn *c = my_of(dc);
	struct my_stmt *s = (struct my_stmt *)ds;

	for (unsigned i = 0; i < s->nparams; i++) {
		if (s->bind[i].buffer_type == MYSQL_TYPE_LONG) {
			s->ival[i] = (int32_t)args[i].i;
		} else {
			uint32_t n = args[i].len < DB_MAX_CHAR ? args[i].len : DB_MAX_CHAR;
			memcpy(s->sval[i], args[i].s, n);
			s->len[i] = n;
		}
	}
	if (mysql_stmt_execute(s->st))
		return stmt_fail(c, s);
	if (!s->has_result)
		return 0;
	int rc = mysql_stmt_store_result(s->st) ? stmt_fail(c, s) : 0;
	mysql_stmt_free_result(s->st);
	return rc;
}

static int my_begin(struct db_conn *c, bool writes)
{
	(void)writes;
	return my_exec(c, "BEGIN");
}

static int my_commit(struct db_conn *c)
{
	return my_exec(c, "COMMIT");
}

static int my_rollback(struct db_conn *c)
{
	int rc = my_exec(c, "ROLLBACK");
	return rc == DB_LOST ? rc : 0;
}

static int my_create_table(struct db_conn *c, unsigned t)
{
	char sql[512];

	snprintf(sql, sizeof(sql),
		 "CREATE TABLE sbtest%u(\n"
		 "  id INTEGER NOT NULL AUTO_INCREMENT,\n"
		 "  k INTEGER DEFAULT '0' NOT NULL,\n"
		 "  c CHAR(120) DEFAULT '' NOT NULL,\n"
		 "  pad CHAR(60) DEFAULT '' NOT NULL,\n"
		 "  PRIMARY KEY (id)\n"
		 ") /*! ENGINE = innodb */ ", t);
	return my_exec(c, sql);
}

/* Append one "(id, k, 'c', 'pad')" tuple; the strings hold only digits and dashes. */
static size_t put_row(char *buf, const struct db_row *r, bool first)
{
	return (size_t)sprintf(buf, "%s(%lld,%lld,'%.*s','%.*s')", first ? "" : ",",
			       (long long)r->id, (long long)r->k, (int)sizeof(r->c), r->c,
			       (int)sizeof(r->pad), r->pad);
}

static int my_load(struct db_conn *dc, unsigned t, uint64_t n, db_row_fn gen, void *arg)
{
	struct my_conn *c = my_of(dc);
	char *buf = xmalloc(LOAD_BUF + 1024);
	size_t head = (size_t)sprintf(buf, "INSERT INTO sbtest%u(id, k, c, pad) VALUES ", t);
	size_t len = head;
	struct db_row row;
	int rc = 0;

	for (uint64_t i = 0; i < n && !rc; i++) {
		if ((rc = gen(arg, i, &row)) != 0)
			break;
		len += put_row(buf + len, &row, len == head);
		if (len >= LOAD_BUF || i + 1 == n) {
			if (mysql_real_query(c->m, buf, len))
				rc = conn_fail(c);
			len = head;
		}
	}
	free(buf);
	return rc;
}

/* Report one row of (name, value) pairs from a single-row query. */
static int my_info(struct db_conn *dc, db_info_fn add, void *arg)
{
	static const char *const names[] = {
		"server_version", "innodb_buffer_pool_size", "innodb_flush_log_at_trx_commit",
		"innodb_flush_method", "sync_binlog", "innodb_doublewrite", "innodb_log_file_size",
	};
	struct my_conn *c = my_of(dc);
	const char *sql = "SELECT VERSION(), @@innodb_buffer_pool_size, "
			  "@@innodb_flush_log_at_trx_commit, @@innodb_flush_method, @@sync_binlog, "
			  "@@innodb_doublewrite, @@innodb_log_file_size";

	if (mysql_query(c->m, sql))
		return conn_fail(c);
	MYSQL_RES *res = mysql_store_result(c->m);
	if (!res)
		return conn_fail(c);
	MYSQL_ROW row = mysql_fetch_row(res);
	for (unsigned i = 0; row && i < mysql_num_fields(res) && i < 7; i++)
		add(arg, names[i], row[i] ? row[i] : "NULL");
	mysql_free_result(res);
	add(arg, "client_version", mysql_get_client_info());
	return 0;
}

static int my_datadir(struct db_conn *dc, char *buf, size_t len)
{
	struct my_conn *c = my_of(dc);

	if (mysql_query(c->m, "SELECT @@datadir"))
		return conn_fail(c);
	MYSQL_RES *res = mysql_store_result(c->m);
	if (!res)
		return conn_fail(c);
	MYSQL_ROW row = mysql_fetch_row(res);
	snprintf(buf, len, "%s", row && row[0] ? row[0] : "");
	mysql_free_result(res);
	return 0;
}

/* sysbench-tpcc's MySQL schema and sessions: foreign key checks off in every session. */
static const struct db_dialect my_dialect = {
	.tinyint = "tinyint",
	.datetime = "datetime",
	.table_opts = " /*! ENGINE = innodb */",
	.for_update = " FOR UPDATE",
	.join_hint = "STRAIGHT_JOIN",
	.index_hint = "FORCE INDEX (%s)",
	.isolation = "SET SESSION TRANSACTION ISOLATION LEVEL %s",
	.run_session = "SET FOREIGN_KEY_CHECKS=0",
	.analyze = "ANALYZE TABLE %s",
	.fk = true,
};

const struct db_driver db_mysql_driver = {
	.name = "mysql",
	.desc = "MySQL or MariaDB server (libmariadb/libmysqlclient)",
	.dialect = &my_dialect,
	.connect = my_connect,
	.disconnect = my_disconnect,
	.exec = my_exec,
	.query = my_query,
	.prepare = my_prepare,
	.execute = my_execute,
	.begin = my_begin,
	.commit = my_commit,
	.rollback = my_rollback,
	.create_table = my_create_table,
	.load = my_load,
	.info = my_info,
	.datadir = my_datadir,
	.cancel = my_cancel,
};

#endif /* HAVE_MYSQL */
