/*
 * db_emu.c - what the emulator "db" does around its run, through the
 * optional callbacks of struct emu_ops, so the core treats it like any
 * other emulator: SysBench's prepare and cleanup as actions, one connection
 * before the run (an unreachable server or missing tables are bad input,
 * not a failed run), the server's version and I/O settings in the result,
 * the SysBench workload and driver as the result's names, SysBench's "SQL
 * statistics" after the table, the drivers and workloads for 'appio list',
 * and the suite's variants (SQLite in a scratch folder, or a server).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "appio/result.h"
#include "db_oltp.h"
#include "db_tpcc.h"

/* The workloads db_oltp.c implements, with a line each for 'appio list'. */
static const struct {
	const char *name, *desc;
} workload_descs[] = {
	{ "oltp_read_write", "10 point SELECTs, 4 range SELECTs, 2 UPDATEs, DELETE + INSERT" },
	{ "oltp_read_only", "10 point SELECTs and 4 range SELECTs in a transaction" },
	{ "oltp_write_only", "2 UPDATEs and a DELETE + INSERT in a transaction" },
	{ "oltp_point_select", "one primary-key SELECT" },
	{ "oltp_update_index", "UPDATEs of the indexed column k" },
	{ "oltp_update_non_index", "UPDATEs of the column c" },
	{ "oltp_insert", "one INSERT of a new row" },
	{ "oltp_delete", "one DELETE by id" },
	{ "tpcc", "Percona-Lab sysbench-tpcc's TPC-C: New-Order, Payment, Order-Status, Delivery, "
		  "Stock-Level" },
};

static bool workload_item(unsigned i, const char **name, const char **desc)
{
	if (i >= sizeof(workload_descs) / sizeof(workload_descs[0]))
		return false;
	*name = workload_descs[i].name;
	*desc = workload_descs[i].desc;
	return true;
}

/* Only the drivers built in: their client library was found at build time. */
static bool driver_item(unsigned i, const char **name, const char **desc)
{
	for (unsigned k = 0; db_driver_table[k]; k++) {
		if (k == i) {
			*name = db_driver_table[k]->name;
			*desc = db_driver_table[k]->desc;
			return true;
		}
	}
	return false;
}

const struct emu_list db_lists[] = {
	{ "database drivers (appio db ACTION WORKLOAD --driver NAME)", driver_item },
	{ "database workloads (appio db ACTION NAME)", workload_item },
	{ NULL, NULL },
};

/* Connect once; any failure is the caller's input (server, password, path): -EINVAL. */
static int connect_check(const struct db_opts *o, bool create, struct db_conn **c,
			 char *err, size_t errlen)
{
	struct db_conn_cfg cfg;

	if (db_opts_check(o, err, errlen))
		return -EINVAL;
	db_opts_conn_cfg(o, &cfg);
	cfg.create = create;
	return db_opts_driver(o)->connect(&cfg, c, err, errlen) ? -EINVAL : 0;
}

/* 'run' needs the tables: say so plainly when they are missing. */
static int check_tables(const struct db_opts *o, struct db_conn *c, char *err, size_t errlen)
{
	char sql[96];

	for (unsigned t = 1; t <= o->tables; t++) {
		snprintf(sql, sizeof(sql), "SELECT id FROM sbtest%u WHERE id = 0", t);
		if (c->drv->exec(c, sql)) {
			snprintf(err, errlen, "db run: cannot use table sbtest%u (run 'appio db prepare' "
				 "first, with the same --tables): %s", t, db_errmsg(c));
			return -EINVAL;
		}
	}
	return 0;
}

int db_check(const void *opts, char *about, size_t aboutlen, char *err, size_t errlen)
{
	const struct db_opts *o = opts;
	struct db_conn *c;
	int rc = connect_check(o, false, &c, err, errlen);

	if (rc)
		return rc;
	if (db_is_tpcc(o)) {
		rc = db_tpcc_probe(o, c, true, err, errlen);
		snprintf(about, aboutlen, "tpcc on %s at '%s', %llu table set(s) x %llu warehouse(s)",
			 c->drv->name, c->where, (unsigned long long)o->tables,
			 (unsigned long long)o->scale);
		c->drv->disconnect(c);
		return rc;
	}
	rc = check_tables(o, c, err, errlen);
	snprintf(about, aboutlen, "%s on %s at '%s', %llu table(s) x %llu rows", o->workload,
		 c->drv->name, c->where, (unsigned long long)o->tables, (unsigned long long)o->table_size);
	c->drv->disconnect(c);
	return rc;
}

/*
 * 'prepare' makes the tables: one already there was left by an earlier
 * prepare, finished or cut off (a lost server, Ctrl-C), and its rows cannot
 * be trusted, so say what to do instead of failing on CREATE TABLE.
 */
static int check_no_tables(const struct db_opts *o, struct db_conn *c, char *err, size_t errlen)
{
	char sql[96];

	for (unsigned t = 1; t <= o->tables; t++) {
		snprintf(sql, sizeof(sql), "SELECT id FROM sbtest%u WHERE id = 0", t);
		if (c->drv->exec(c, sql) == 0) {
			snprintf(err, errlen, "table sbtest%u already exists on %s at '%s' "
				 "(from an earlier or interrupted prepare); run 'appio db cleanup' "
				 "first, with the same --tables", t, c->drv->name, c->where);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * --analyze: a freshly loaded table's optimizer statistics are the load's.
 * MariaDB may keep those taken while the table filled, and on them its
 * plans for Stock-Level's join and Order-Status read ten times the pages
 * (tpcc on 2 warehouses in a 128M pool: 29 page reads a transaction, 2-3
 * after ANALYZE TABLE); PostgreSQL's autovacuum makes its first pass over
 * every page of a new table within a minute, inside the first points.
 * The statistics are refreshed now, as the server would do on its own.
 * Seconds spent into *@secs; 0, -EINTR or -EIO with one line in @err.
 */
static int analyze(const struct emu_action_args *a, double *secs, char *err, size_t errlen)
{
	const struct db_opts *o = a->opts;
	const char *fmt = db_opts_driver(o)->dialect->analyze;
	bool tpcc = db_is_tpcc(o);
	uint64_t t0 = emu_now();
	struct db_conn *c;
	char table[64], sql[128];
	int rc = connect_check(o, false, &c, err, errlen);

	*secs = 0;
	if (rc)
		return rc == -EINVAL ? -EIO : rc;       /* it answered the load a moment ago */
	if (a->progress)
		a->progress("prepare: analyzing the tables (--analyze off skips it)");
	struct db_watch wt;        /* Ctrl-C cancels a long VACUUM on the server */
	db_watch_begin(&wt, c, a->stop);
	for (uint64_t t = 1; t <= o->tables && !rc; t++) {
		for (unsigned i = 0; i < (tpcc ? TPCC_NTABLES : 1) && !rc; i++) {
			snprintf(table, sizeof(table), "%s%llu", tpcc ? db_tpcc_tables[i] : "sbtest",
				 (unsigned long long)t);
			snprintf(sql, sizeof(sql), fmt, table);
			if (!*a->stop && !c->drv->exec(c, sql))
				continue;
			if (*a->stop) {
				snprintf(err, errlen, "interrupted while analyzing %s; the tables are "
					 "loaded, their statistics as the load left them", table);
				rc = -EINTR;
			} else {
				snprintf(err, errlen, "analyzing %s: %s", table, db_errmsg(c));
				rc = -EIO;
			}
		}
	}
	db_watch_end(&wt);
	c->drv->disconnect(c);
	*secs = (double)(emu_now() - t0) / 1e9;
	return rc;
}

/* ", statistics analyzed in N s" or what --analyze off says, for the prepare line. */
static const char *analyzed(const struct db_opts *o, double secs, char *buf, size_t len)
{
	if (o->analyze)
		snprintf(buf, len, ", statistics analyzed in %.2f s", secs);
	else
		snprintf(buf, len, ", statistics as loaded (--analyze off)");
	return buf;
}

static int tpcc_prepare(const struct emu_action_args *a, struct emu_action_out *out,
			char *err, size_t errlen)
{
	const struct db_opts *o = a->opts;
	struct db_tpcc_prep st;
	char msg[600] = "";
	int rc = db_tpcc_prepare(o, a->threads, a->seed, a->stop, a->progress, &st, msg, sizeof(msg));

	if (rc == -EINTR) {
		snprintf(err, errlen, "%s; run 'appio db cleanup tpcc' before preparing again", msg);
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "%s", msg);
		return -EIO;
	}
	double an_s = 0;
	char an[64];
	if (o->analyze && (rc = analyze(a, &an_s, err, errlen)) != 0)
		return rc;
	snprintf(out->line, sizeof(out->line), "prepared %llu table set(s) x %llu warehouse(s) = %llu "
		 "rows in %.2f s (%.0f rows/s), %u loader thread(s), foreign keys %s%s, seed %llu",
		 (unsigned long long)o->tables, (unsigned long long)o->scale,
		 (unsigned long long)st.rows, st.seconds, st.seconds > 0 ? (double)st.rows / st.seconds : 0,
		 st.loaders, o->use_fk && db_opts_driver(o)->dialect->fk ? "on" : "off",
		 analyzed(o, an_s, an, sizeof(an)), (unsigned long long)a->seed);
	out->items = st.rows;
	out->seconds = st.seconds + an_s;
	return 0;
}

static int prepare(const struct emu_action_args *a, struct emu_action_out *out, char *err, size_t errlen)
{
	const struct db_opts *o = a->opts;
	struct db_prep_stats st;
	struct db_conn *c;
	struct trace_record *rec = NULL;
	char msg[600] = "", cap[200] = "", cerr[600];
	int crc, rc = connect_check(o, true, &c, err, errlen);

	if (rc)
		return rc;
	if (db_is_tpcc(o) && o->capture) {
		c->drv->disconnect(c);
		snprintf(err, errlen, "--capture: not with the tpcc workload yet (only the OLTP ones)");
		return -EINVAL;
	}
	if (db_is_tpcc(o)) {
		rc = db_tpcc_probe(o, c, false, err, errlen);
		c->drv->disconnect(c);
		return rc ? rc : tpcc_prepare(a, out, err, errlen);
	}
	rc = check_no_tables(o, c, err, errlen);
	c->drv->disconnect(c);
	if (rc || (o->capture && (rc = db_capture_prepare(o, a->seed, &rec, err, errlen))))
		return rc;
	rc = db_load_prepare(o, a->threads, a->seed, a->stop, &st, msg, sizeof(msg));
	/* the load's own failure comes first; the trace is written either way */
	if (rec && (crc = db_capture_end(rec, rc ? 0 : st.threads, cap, sizeof(cap), rc ? cerr : err,
					 rc ? sizeof(cerr) : errlen)) && !rc)
		return -EIO;
	if (rc == -EINTR) {
		snprintf(err, errlen, "%s; run 'appio db cleanup' before preparing again", msg);
		return rc;
	}
	if (rc) {
		snprintf(err, errlen, "%s", msg);
		return -EIO;
	}
	double an_s = 0;
	char an[64];
	if (o->analyze && (rc = analyze(a, &an_s, err, errlen)) != 0)
		return rc;
	snprintf(out->line, sizeof(out->line), "prepared %u table(s) x %llu rows = %llu rows in %.2f s "
		 "(%.0f rows/s), %u loader thread(s), secondary indexes %.2f s%s, seed %llu%s%s%s%s%s",
		 st.tables, (unsigned long long)o->table_size, (unsigned long long)st.rows, st.load_s,
		 st.load_s > 0 ? (double)st.rows / st.load_s : 0, st.threads, st.index_s,
		 analyzed(o, an_s, an, sizeof(an)), (unsigned long long)a->seed, rec ? "; " : "",
		 rec ? cap : "", rec ? " to '" : "", rec ? o->capture : "", rec ? "'" : "");
	out->items = st.rows;
	out->seconds = st.load_s + st.index_s + an_s;
	return 0;
}

static int cleanup(const struct emu_action_args *a, struct emu_action_out *out, char *err, size_t errlen)
{
	const struct db_opts *o = a->opts;
	struct db_conn *c;
	int rc = connect_check(o, false, &c, err, errlen);

	if (rc)
		return rc;
	c->drv->disconnect(c);
	if (db_is_tpcc(o)) {
		if (db_tpcc_cleanup(o, err, errlen))
			return -EIO;
		snprintf(out->line, sizeof(out->line), "dropped the tpcc tables of set(s) 1..%llu",
			 (unsigned long long)o->tables);
	} else {
		if (db_load_cleanup(o, err, errlen))
			return -EIO;
		snprintf(out->line, sizeof(out->line), "dropped sbtest1..%llu", (unsigned long long)o->tables);
	}
	out->items = o->tables;
	return 0;
}

/* sysbench-tpcc's check command: a line per check; a failed check fails the action. */
static int check(const struct emu_action_args *a, struct emu_action_out *out, char *err, size_t errlen)
{
	const struct db_opts *o = a->opts;
	struct db_conn *c;
	unsigned failed = 0;
	int rc = connect_check(o, false, &c, err, errlen);

	if (rc)
		return rc;
	if (!db_is_tpcc(o)) {
		snprintf(err, errlen, "check: only the tpcc workload has consistency checks (not '%s')",
			 o->workload);
		rc = -EINVAL;
	} else {
		struct db_watch wt;
		db_watch_begin(&wt, c, a->stop);
		rc = db_tpcc_probe(o, c, true, err, errlen);
		db_watch_end(&wt);
		if (rc && a->stop && *a->stop) {
			snprintf(err, errlen, "interrupted");   /* the probe cancelled at Ctrl-C */
			rc = -EINTR;
		}
	}
	c->drv->disconnect(c);
	if (rc)
		return rc;
	uint64_t t0 = emu_now();
	rc = db_tpcc_check(o, a->threads, a->stop, out->line, sizeof(out->line), &failed, err, errlen);
	if (rc)
		return rc == -EINTR ? rc : -EIO;
	out->items = o->scale * o->tables;
	out->seconds = (double)(emu_now() - t0) / 1e9;
	if (failed) {
		snprintf(err, errlen, "%u of 10 checks failed on %llu warehouse(s) x %llu table set(s):\n%s",
			 failed, (unsigned long long)o->scale, (unsigned long long)o->tables, out->line);
		return -EIO;
	}
	return 0;
}

const struct emu_action db_actions[] = {
	{ "prepare", "create and load sbtest1..N (--tables x --table-size rows, --threads loaders), "
	  "or tpcc's table sets (--tables x --scale warehouses)", prepare },
	{ "cleanup", "drop sbtest1..N, or tpcc's table sets", cleanup },
	{ "check", "tpcc: run sysbench-tpcc's consistency checks, each reported pass or FAIL", check },
	{ NULL, NULL, NULL },
};

static void add_info(void *arg, const char *key, const char *val)
{
	emu_info(arg, key, val);
}

/* The server's version and I/O settings, from a connection of its own. */
void db_info(struct emu_run *run)
{
	const struct db_opts *o = run->opts;
	const struct db_driver *drv = db_opts_driver(o);
	struct db_conn_cfg cfg;
	struct db_conn *c;
	char err[600];

	emu_info(run, "driver", drv->name);
	db_opts_conn_cfg(o, &cfg);
	if (drv->connect(&cfg, &c, err, sizeof(err)))
		return;
	emu_info(run, "server", c->where);
	drv->info(c, add_info, run);
	drv->disconnect(c);
}

void db_describe(const void *opts, const char **name, const char **engine)
{
	const struct db_opts *o = opts;

	*name = o->workload;
	*engine = db_driver_names[o->driver];
}

/* SysBench's "SQL statistics", one row per point. */
void db_summary(const void *opts, const struct result *res, FILE *f)
{
	int pct = ((const struct db_opts *)opts)->percentile;
	char pname[16];

	if (!res->npoints)
		return;
	if (db_is_tpcc(opts)) {
		db_tpcc_summary(opts, res, f);
		return;
	}
	snprintf(pname, sizeof(pname), "p%s", db_percentile_names[pct]);
	fprintf(f, "\n%-8s %10s %10s %9s %9s %9s %10s %10s %10s %7s %7s %7s\n", "threads", "TPS", "QPS",
		"reads/s", "writes/s", "other/s", "mean", pname, "max", "errors", "retries", "reconn");
	for (unsigned i = 0; i < res->npoints; i++) {
		const struct point_result *p = &res->points[i];
		const struct cls_result *tx = point_class(p, "txn"), *rd = point_class(p, "read");
		const struct cls_result *wr = point_class(p, "write"), *ot = point_class(p, "other");
		if (!tx || !rd || !wr || !ot)
			continue;
		uint64_t lat[] = { tx->lat.p50, tx->lat.p90, tx->lat.p99, tx->lat.p999, tx->lat.p9999 };
		char m[32], q[32], x[32];
		fprintf(f, "%-8u %10.1f %10.1f %9.1f %9.1f %9.1f %10s %10s %10s %7llu %7llu %7llu%s\n",
			p->pt.threads, tx->ops_per_s, rd->ops_per_s + wr->ops_per_s + ot->ops_per_s,
			rd->ops_per_s, wr->ops_per_s, ot->ops_per_s, fmt_ns(tx->lat.mean, m, sizeof(m)),
			fmt_ns((double)lat[pct], q, sizeof(q)), fmt_ns((double)tx->lat.max, x, sizeof(x)),
			(unsigned long long)p->counters[DB_CNT_ERRORS],
			(unsigned long long)p->counters[DB_CNT_RETRIES],
			(unsigned long long)p->counters[DB_CNT_RECONNECTS], p->partial ? " (p)" : "");
	}
}

const struct emu_preset db_suite_variants[] = {
	{ "sqlite", NULL, "--driver sqlite --sqlite-db {dir}/appio-suite-sqlite.db",
	  "an SQLite file in a scratch folder beside the target (removed afterwards)" },
	{ "mysql", NULL, "--driver mysql", "a MySQL or MariaDB server: connection options in --db-args" },
	{ "pgsql", NULL, "--driver pgsql", "a PostgreSQL server: connection options in --db-args" },
	{ NULL, NULL, NULL, NULL },
};
