/*
 * test_db_opts.c - 'appio db' options: SysBench 1.0's defaults, the checks
 * that turn bad input into one message, and the connection settings each
 * driver receives.
 */
#include <string.h>

#include "db/db_oltp.h"
#include "sysbench/db_rand.h"
#include "check.h"

static void defaults(struct db_opts *o)
{
	char err[256];

	memset(o, 0, sizeof(*o));
	CHECK(opt_defaults(db_opt_table, o, err, sizeof(err)) == 0, "%s", err);
}

/* The values oltp_common.lua and sysbench's drivers default to. */
static void test_sysbench_defaults(void)
{
	struct db_opts o;

	defaults(&o);
	CHECK(o.tables == 1 && o.table_size == 10000, "%llu x %llu", (unsigned long long)o.tables,
	      (unsigned long long)o.table_size);
	const struct db_mix *m = &o.mix;
	CHECK(m->range_size == 100 && m->point_selects == 10, "range %llu, points %llu",
	      (unsigned long long)m->range_size, (unsigned long long)m->point_selects);
	CHECK(m->simple_ranges == 1 && m->sum_ranges == 1 && m->order_ranges == 1 &&
	      m->distinct_ranges == 1 && m->index_updates == 1 && m->non_index_updates == 1 &&
	      m->delete_inserts == 1, "one of each other statement");
	CHECK(m->range_selects && !m->skip_trx, "range selects on, transactions on");
	CHECK(m->rand_type == DB_RAND_SPECIAL, "rand-type %d", m->rand_type);
	CHECK(!strcmp(o.workload, "oltp_read_write"), "workload '%s'", o.workload);
	CHECK(!strcmp(o.mysql_user, "sbtest") && !strcmp(o.mysql_db, "sbtest") && o.mysql_port == 3306,
	      "mysql defaults");
	CHECK(!strcmp(o.pgsql_user, "sbtest") && o.pgsql_port == 5432, "pgsql defaults");
	CHECK(!strcmp(db_driver_names[o.driver], "sqlite"), "driver %d", o.driver);
	CHECK(!strcmp(o.sqlite_db, "appio-sqlite.db"), "sqlite-db '%s'", o.sqlite_db);
}

static void test_check(void)
{
	struct db_opts o;
	char err[512];

	defaults(&o);
	o.driver = DB_OPT_SQLITE;
	CHECK(db_opts_check(&o, err, sizeof(err)) == 0 || !db_opts_driver(&o), "%s", err);
	o.workload = "oltp_nosuch";
	CHECK(db_opts_check(&o, err, sizeof(err)) == -EINVAL, "unknown workload accepted");
	CHECK(strstr(err, "'oltp_nosuch'") && strstr(err, "oltp_read_write"), "message '%s'", err);
	defaults(&o);
	o.table_size = 2147483000;
	o.mix.range_size = 1000;
	CHECK(db_opts_check(&o, err, sizeof(err)) == -EINVAL, "id overflow accepted");
	for (const char *const *w = (const char *const[]){ "oltp_read_write", "oltp_read_only",
		"oltp_write_only", "oltp_point_select", "oltp_update_index", "oltp_update_non_index",
		"oltp_insert", "oltp_delete", NULL }; *w; w++)
		CHECK(db_oltp_workload_exists(*w), "'%s' missing", *w);
}

static void test_conn_cfg(void)
{
	struct db_opts o;
	struct db_conn_cfg c;

	defaults(&o);
	o.driver = DB_OPT_PGSQL;
	o.pgsql_host = "/tmp/sock";
	o.pgsql_password = "pw";
	db_opts_conn_cfg(&o, &c);
	CHECK(!strcmp(c.host, "/tmp/sock") && c.port == 5432 && !strcmp(c.password, "pw") &&
	      !strcmp(c.db, "sbtest") && !c.path, "pgsql cfg");
	o.driver = DB_OPT_MYSQL;
	o.mysql_socket = "/run/m.sock";
	db_opts_conn_cfg(&o, &c);
	CHECK(!strcmp(c.socket, "/run/m.sock") && !c.password && c.port == 3306, "mysql cfg");
	o.driver = DB_OPT_SQLITE;
	db_opts_conn_cfg(&o, &c);
	CHECK(!strcmp(c.path, "appio-sqlite.db") && !strcmp(c.journal, "wal") &&
	      !strcmp(c.synchronous, "full") && c.busy_timeout_ms == 10000 && !c.host, "sqlite cfg");
}

int main(void)
{
	RUN(test_sysbench_defaults);
	RUN(test_check);
	RUN(test_conn_cfg);
	return check_done();
}
