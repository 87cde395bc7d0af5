/*
 * test_db_driver.c - the database driver table and, on a temporary SQLite
 * file, the driver contract every backend follows: create a table with
 * SysBench's schema, bulk-load rows, prepare and execute the OLTP
 * statements, classify errors, report settings.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db_driver.h"
#include "db/db_oltp.h"
#include "check.h"

static void test_table(void)
{
	unsigned n = 0;

	for (const struct db_driver *const *d = db_driver_table; *d; d++, n++) {
		const struct db_driver *x = *d;
		CHECK(x->name && x->desc, "driver %u lacks a name or description", n);
		CHECK(x->connect && x->disconnect && x->exec && x->prepare && x->execute &&
		      x->begin && x->commit && x->rollback && x->create_table && x->load && x->info &&
		      x->query, "driver '%s' lacks a callback", x->name);
		const struct db_dialect *dl = x->dialect;
		CHECK(dl && dl->tinyint && dl->datetime && dl->table_opts && dl->for_update && dl->join_hint,
		      "driver '%s' lacks its SQL dialect", x->name);
		CHECK(db_driver_find(x->name) == x, "'%s' not found by name", x->name);
		for (const struct db_driver *const *e = db_driver_table; *e != x; e++)
			CHECK(strcmp((*e)->name, x->name), "'%s' registered twice", x->name);
		bool listed = false;
		for (const char *const *nm = db_driver_names; *nm; nm++)
			listed |= !strcmp(*nm, x->name);
		CHECK(listed, "'%s' is not a --driver choice", x->name);
	}
	CHECK(db_driver_find("nosuch") == NULL, "unknown name found");
	for (const struct opt_def *o = db_opt_table; o->name; o++)
		CHECK(o->help && *o->help, "--%s has no help", o->name);
}

/* A result keeps one row's values as text, cut to its buffer, NULL apart from "". */
static void test_result(void)
{
	struct db_result r = { .want = 3 };
	char big[DB_RESULT_BUF + 10];

	db_result_clear(&r);
	CHECK(r.want == 3 && r.rows == 0 && r.ncols == 0, "clear");
	db_result_put(&r, "-42.50", 6);
	db_result_put(&r, NULL, 0);
	db_result_put(&r, "abc", 2);
	CHECK(r.ncols == 3, "%u values", r.ncols);
	CHECK(db_result_int(&r, 0) == -42 && db_result_double(&r, 0) == -42.5, "numbers");
	CHECK(r.null[1] && !strcmp(db_result_str(&r, 1), ""), "NULL");
	CHECK(!strcmp(db_result_str(&r, 2), "ab"), "'%s'", db_result_str(&r, 2));
	CHECK(!strcmp(db_result_str(&r, 7), "") && db_result_int(&r, 7) == 0, "missing value");
	memset(big, 'x', sizeof(big));
	db_result_put(&r, big, sizeof(big));
	CHECK(r.ncols == 4 && strlen(db_result_str(&r, 3)) < DB_RESULT_BUF, "a long value is cut");
	db_result_put(&r, "1", 1);
	CHECK(r.ncols == 4, "no room, no value");
}

static void test_placeholders(void)
{
	char out[128];
	unsigned n = db_number_placeholders("SELECT c FROM t WHERE id BETWEEN ? AND ?", out, sizeof(out));

	CHECK(n == 2, "%u placeholders", n);
	CHECK(!strcmp(out, "SELECT c FROM t WHERE id BETWEEN $1 AND $2"), "'%s'", out);
}

#ifdef HAVE_SQLITE
static int gen(void *arg, uint64_t i, struct db_row *r)
{
	(void)arg;
	r->id = (int64_t)i + 1;
	r->k = (int64_t)(i % 7);
	memset(r->c, '1', sizeof(r->c));
	memset(r->pad, '2', sizeof(r->pad));
	return 0;
}

static void info(void *arg, const char *key, const char *val)
{
	if (!strcmp(key, "journal_mode"))
		strcpy(arg, val);
}

static void test_sqlite(void)
{
	char dir[] = "/tmp/appio-test-XXXXXX", path[64], err[512], mode[32] = "";
	const struct db_driver *d = db_driver_find("sqlite");
	struct db_conn *c;
	struct db_stmt *sel, *ins;
	enum db_type t1[] = { DB_INT, DB_INT }, t4[] = { DB_INT, DB_INT, DB_CHAR, DB_CHAR };

	CHECK(mkdtemp(dir) != NULL, "mkdtemp");
	snprintf(path, sizeof(path), "%s/t.db", dir);
	struct db_conn_cfg cfg = { .path = path, .journal = "wal", .synchronous = "normal",
				   .busy_timeout_ms = 1000, .create = true };
	CHECK(d->connect(&cfg, &c, err, sizeof(err)) == 0, "connect: %s", err);
	CHECK(d->create_table(c, 1) == 0, "create: %s", db_errmsg(c));
	CHECK(d->load(c, 1, 500, gen, NULL) == 0, "load: %s", db_errmsg(c));
	CHECK(d->prepare(c, "SELECT c FROM sbtest1 WHERE id BETWEEN ? AND ?", 2, t1, &sel) == 0,
	      "prepare: %s", db_errmsg(c));
	CHECK(d->prepare(c, "INSERT INTO sbtest1 (id, k, c, pad) VALUES (?, ?, ?, ?)", 4, t4, &ins) == 0,
	      "prepare: %s", db_errmsg(c));
	struct db_arg range[] = { { .i = 1 }, { .i = 100 } };
	CHECK(d->begin(c, true) == 0 && d->execute(c, sel, range) == 0 && d->commit(c) == 0,
	      "transaction: %s", db_errmsg(c));
	/* a duplicate id is a fatal error, not a retryable one */
	struct db_arg dup[] = { { .i = 5 }, { .i = 1 }, { .s = "x", .len = 1 }, { .s = "y", .len = 1 } };
	CHECK(d->execute(c, ins, dup) == DB_FATAL, "duplicate accepted");
	CHECK(strstr(db_errmsg(c), "UNIQUE") != NULL, "message '%s'", db_errmsg(c));
	CHECK(d->info(c, info, mode) == 0 && !strcmp(mode, "wal"), "journal_mode '%s'", mode);
	/* query: every row counted, the one asked for kept */
	struct db_result r = { .want = 2 };
	CHECK(d->query(c, "SELECT id, c, NULL FROM sbtest1 WHERE id <= 10 ORDER BY id DESC", &r) == 0,
	      "query: %s", db_errmsg(c));
	CHECK(r.rows == 10 && r.ncols == 3 && db_result_int(&r, 0) == 8 && r.null[2], "rows %llu, id %lld",
	      (unsigned long long)r.rows, (long long)db_result_int(&r, 0));
	r.want = 50;
	CHECK(d->query(c, "SELECT id FROM sbtest1 WHERE id <= 10", &r) == 0 && r.rows == 10 && !r.ncols,
	      "a row past the end keeps nothing");
	CHECK(d->query(c, "SELECT nosuch FROM sbtest1", &r) == DB_FATAL, "a bad query is fatal");
	d->disconnect(c);
	snprintf(err, sizeof(err), "rm -rf '%s'", dir);
	CHECK(system(err) == 0, "cleanup");
}
#endif

int main(void)
{
	RUN(test_table);
	RUN(test_placeholders);
	RUN(test_result);
#ifdef HAVE_SQLITE
	RUN(test_sqlite);
#endif
	return check_done();
}
