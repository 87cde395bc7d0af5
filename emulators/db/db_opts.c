/*
 * db_opts.c - the options of the emulator "db" ('appio db'), named and
 * defaulted as SysBench 1.0 names and defaults them (oltp_common.lua, the
 * mysql and pgsql drivers), plus appio's own: --driver sqlite and its
 * settings, --reconnect. The general ones (--threads, --time, --warmup-time,
 * --seed, --report-interval, --json) are appio's run options.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>

#include "db_oltp.h"
#include "sysbench/db_rand.h"

#define OFF(f) offsetof(struct db_opts, f)

const char *const db_driver_names[] = { "mysql", "pgsql", "sqlite", NULL };
const char *const db_percentile_names[] = { "50", "90", "99", "99.9", "99.99", NULL };
const char *const db_trx_level_names[] = { "RR", "RC", "SER", NULL };
const char *const db_trx_level_sql[] = { "REPEATABLE READ", "READ COMMITTED", "SERIALIZABLE", NULL };
static const char *const journal_names[] = {
	"wal", "delete", "truncate", "persist", "memory", "off", NULL,
};
static const char *const sync_names[] = { "full", "normal", "off", "extra", NULL };

const struct opt_def db_opt_table[] = {
	{ "workload", OPT_STR, OFF(workload), "oltp_read_write",
	  "SysBench workload (see 'appio list'); 'appio db ACTION WORKLOAD' sets it" },
	{ "driver", OPT_ENUM, OFF(driver), "sqlite", "database driver", db_driver_names,
	  .alias = "db-driver" },
	{ "tables", OPT_UINT, OFF(tables), "1", "number of tables sbtest1..N", .min = 1, .max = 100000 },
	{ "table-size", OPT_UINT, OFF(table_size), "10000", "rows per table", .max = INT32_MAX },
	{ "percentile", OPT_ENUM, OFF(percentile), "99",
	  "latency percentile in the SQL statistics (all of them are in the JSON)", db_percentile_names,
	  .flags = OPT_WHERE },
	{ "scale", OPT_UINT, OFF(scale), "1", "tpcc: warehouses in each table set", .min = 1,
	  .max = 32767 },
	{ "use-fk", OPT_BOOL, OFF(use_fk), "on", "tpcc: foreign keys between the tables" },
	{ "analyze", OPT_BOOL, OFF(analyze), "on",
	  "prepare: after the load, refresh each table's optimizer statistics (MariaDB/MySQL ANALYZE "
	  "TABLE, PostgreSQL VACUUM ANALYZE, SQLite ANALYZE), as the server would on its own some time "
	  "after a load; off: leave the load's own, as sysbench does" },
	{ "trx-level", OPT_ENUM, OFF(trx_level), "RR", "tpcc: transaction isolation level",
	  db_trx_level_names },
	DB_MIX_OPTS(OFF(mix)),
	{ "reconnect", OPT_BOOL, OFF(reconnect), "off",
	  "on a lost connection, reconnect and go on (counted) instead of stopping" },
	{ "mysql-host", OPT_STR, OFF(mysql_host), "localhost", "MySQL server host",
	  .flags = OPT_WHERE },
	{ "mysql-port", OPT_UINT, OFF(mysql_port), "3306", "MySQL server port", .max = 65535,
	  .flags = OPT_WHERE },
	{ "mysql-socket", OPT_STR, OFF(mysql_socket), NULL, "MySQL unix socket (instead of host and port)",
	  .flags = OPT_WHERE },
	{ "mysql-user", OPT_STR, OFF(mysql_user), "sbtest", "MySQL user", .flags = OPT_WHERE },
	{ "mysql-password", OPT_STR, OFF(mysql_password), NULL,
	  "MySQL password (default: $MYSQL_PWD or the client option files)",
	  .flags = OPT_SECRET | OPT_WHERE },
	{ "mysql-db", OPT_STR, OFF(mysql_db), "sbtest", "MySQL database", .flags = OPT_WHERE },
	{ "pgsql-host", OPT_STR, OFF(pgsql_host), "localhost", "PostgreSQL host, or a socket directory",
	  .flags = OPT_WHERE },
	{ "pgsql-port", OPT_UINT, OFF(pgsql_port), "5432", "PostgreSQL port", .max = 65535,
	  .flags = OPT_WHERE },
	{ "pgsql-user", OPT_STR, OFF(pgsql_user), "sbtest", "PostgreSQL user", .flags = OPT_WHERE },
	{ "pgsql-password", OPT_STR, OFF(pgsql_password), NULL,
	  "PostgreSQL password (default: $PGPASSWORD or ~/.pgpass)",
	  .flags = OPT_SECRET | OPT_WHERE },
	{ "password-file", OPT_STR, OFF(password_file), NULL,
	  "read the MySQL or PostgreSQL password from the first line of FILE (out of sight of ps; "
	  "a --mysql-password or --pgsql-password given as well wins)",
	  .flags = OPT_SECRET | OPT_WHERE },   /* where the password is: kept out of sight like one */
	{ "pgsql-db", OPT_STR, OFF(pgsql_db), "sbtest", "PostgreSQL database", .flags = OPT_WHERE },
	{ "sqlite-db", OPT_STR, OFF(sqlite_db), "appio-sqlite.db",
	  "SQLite database file (put it on the drive under test)", .flags = OPT_WHERE },
	{ "sqlite-journal", OPT_ENUM, OFF(sqlite_journal), "wal", "SQLite journal_mode", journal_names },
	{ "sqlite-synchronous", OPT_ENUM, OFF(sqlite_synchronous), "full", "SQLite synchronous level",
	  sync_names },
	{ "sqlite-busy-timeout", OPT_UINT, OFF(sqlite_busy_timeout), "10000",
	  "milliseconds a writer waits for SQLite's write lock before retrying", .max = INT32_MAX },
	{ "capture", OPT_STR, OFF(capture), NULL,
	  "record the block requests of the device under the data (see --capture-path) to FILE, a "
	  "trace in appio's format, while the run (or prepare's load) lasts (needs root)" },
	{ "capture-path", OPT_STR, OFF(capture_path), NULL,
	  "the path whose device --capture records (default: the server's data directory, or the "
	  "SQLite file)" },
	OPT_END,
};

const struct db_driver *db_opts_driver(const struct db_opts *o)
{
	return db_driver_find(db_driver_names[o->driver]);
}

int db_opts_check(const struct db_opts *o, char *err, size_t errlen)
{
	if (!o->workload || (!db_oltp_workload_exists(o->workload) && !db_is_tpcc(o))) {
		snprintf(err, errlen, "unknown workload '%s' (expected one of: oltp_read_write, "
			 "oltp_read_only, oltp_write_only, oltp_point_select, oltp_update_index, "
			 "oltp_update_non_index, oltp_insert, oltp_delete, tpcc)", o->workload ? o->workload : "");
		return -EINVAL;
	}
	if (!db_opts_driver(o)) {
		snprintf(err, errlen, "--driver: '%s' is not built into this appio "
			 "(its client library was not found at build time)", db_driver_names[o->driver]);
		return -EINVAL;
	}
	if (o->mix.range_size > INT32_MAX - o->table_size) {
		snprintf(err, errlen, "--range-size: '%llu' is too large for --table-size %llu",
			 (unsigned long long)o->mix.range_size, (unsigned long long)o->table_size);
		return -EINVAL;
	}
	if (o->password_file) {
		char pw[sizeof(((struct db_conn_cfg *)0)->password_buf)];
		int rc = db_opts_read_password(o->password_file, pw, sizeof(pw), err, errlen);
		memset(pw, 0, sizeof(pw));
		return rc;
	}
	return 0;
}

int db_opts_read_password(const char *path, char *buf, size_t len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	const char *why = NULL;

	if (!f) {
		snprintf(err, errlen, "--password-file: cannot read '%s': %s", path, strerror(errno));
		return -EINVAL;
	}
	if (!fgets(buf, (int)len, f))
		why = "it is empty";
	else if (!strchr(buf, '\n') && !feof(f))
		why = "its first line is too long";
	fclose(f);
	if (!why) {
		buf[strcspn(buf, "\r\n")] = '\0';
		if (!buf[0])
			why = "its first line is empty";
	}
	if (why) {
		memset(buf, 0, len);
		snprintf(err, errlen, "--password-file: '%s': %s (expected the password on the first line)",
			 path, why);
		return -EINVAL;
	}
	return 0;
}

void db_opts_conn_cfg(const struct db_opts *o, struct db_conn_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	switch (o->driver) {
	case DB_OPT_MYSQL:
		cfg->host = o->mysql_host;
		cfg->port = (unsigned)o->mysql_port;
		cfg->socket = o->mysql_socket;
		cfg->user = o->mysql_user;
		cfg->password = o->mysql_password;
		cfg->db = o->mysql_db;
		break;
	case DB_OPT_PGSQL:
		cfg->host = o->pgsql_host;
		cfg->port = (unsigned)o->pgsql_port;
		cfg->user = o->pgsql_user;
		cfg->password = o->pgsql_password;
		cfg->db = o->pgsql_db;
		break;
	default:
		cfg->path = o->sqlite_db;
		cfg->journal = journal_names[o->sqlite_journal];
		cfg->synchronous = sync_names[o->sqlite_synchronous];
		cfg->busy_timeout_ms = (unsigned)o->sqlite_busy_timeout;
		return;
	}
	/* checked by db_opts_check(): a file that went since leaves the server's own defaults */
	char err[8];
	if (!cfg->password && o->password_file &&
	    !db_opts_read_password(o->password_file, cfg->password_buf, sizeof(cfg->password_buf),
				   err, sizeof(err)))
		cfg->password = cfg->password_buf;
}
