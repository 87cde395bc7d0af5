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
		      x->begin && x->commit && x->rollback && x->create_table && x->load && x->info,
		      "driver '%s' lacks a callback", x->name);
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
	d->disconnect(c);
	snprintf(err, sizeof(err), "rm -rf '%s'", dir);
	CHECK(system(err) == 0, "cleanup");
}
#endif

int main(void)
{
	RUN(test_table);
	RUN(test_placeholders);
#ifdef HAVE_SQLITE
	RUN(test_sqlite);
#endif
	return check_done();
}
