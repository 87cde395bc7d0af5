/*
 * cmd_db.c - 'appio db prepare|run|cleanup WORKLOAD [options]': SysBench's
 * OLTP workloads against a real MySQL/MariaDB, PostgreSQL or SQLite
 * database (emulators/db/). Parses the options, checks the database can be
 * reached before anything starts (one line and exit 2 when it cannot), then
 * loads, drops, or runs the sweep through the runner and reports it like
 * 'appio run' plus SysBench's SQL statistics.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include "db/db_oltp.h"
#include "appio/opt.h"
#include "appio/result.h"
#include "appio/runner.h"
#include "cli.h"
#include "version.h"

enum db_cmd { CMD_PREPARE, CMD_RUN, CMD_CLEANUP };
static const char *const cmd_names[] = { "prepare", "run", "cleanup", NULL };

struct db_args {
	enum db_cmd cmd;
	struct db_opts o;
	bool seed_given;
};

static void print_help(void)
{
	puts("usage: appio db prepare|run|cleanup WORKLOAD [options]\n\n"
	     "SysBench 1.0's OLTP workloads, statements, schema and defaults against a real\n"
	     "database. WORKLOAD: oltp_read_write, oltp_read_only, oltp_write_only,\n"
	     "oltp_point_select, oltp_update_index, oltp_update_non_index, oltp_insert,\n"
	     "oltp_delete. 'prepare' creates and loads sbtest1..N, 'run' measures one point\n"
	     "per --threads value, 'cleanup' drops the tables. SysBench's own spellings\n"
	     "(--table_size, --db-driver) are accepted too.\n\noptions:");
	opt_help(stdout, db_opt_table);
	puts("\ndrivers built in:");
	for (unsigned i = 0; db_driver_table[i]; i++)
		printf("  %-8s %s\n", db_driver_table[i]->name, db_driver_table[i]->desc);
	puts("\nExit status: 0 ok, 1 the run failed, 2 bad input or the database cannot be\n"
	     "reached, 130 interrupted (results so far are kept).");
}

/* "--table_size" and "--db-driver" as SysBench spells them. */
static void normalize(char *name)
{
	for (char *p = name; *p; p++)
		if (*p == '_')
			*p = '-';
	if (!strcmp(name, "db-driver"))
		strcpy(name, "driver");
}

static bool is_bool_word(const char *s)
{
	static const char *const words[] = { "on", "off", "yes", "no", "1", "0", "true", "false", NULL };
	for (const char *const *w = words; *w; w++)
		if (!strcmp(s, *w))
			return true;
	return false;
}

/* Apply one option at argv[*i] (advancing past its value); exits on bad input. */
static void apply_option(struct db_args *a, int argc, char **argv, int *i)
{
	char name[64], err[512];
	const char *arg = argv[*i] + 2;
	const char *val = strchr(arg, '=');
	size_t len = val ? (size_t)(val - arg) : strlen(arg);

	snprintf(name, sizeof(name), "%.*s", (int)len, arg);
	normalize(name);
	if (!strcmp(name, "help")) {
		print_help();
		exit(0);
	}
	const struct opt_def *o = opt_find(db_opt_table, name);
	if (!o)
		cli_usage_error("db: unknown option '--%s' (see 'appio db --help')", name);
	if (val)
		val++;
	else if (o->type != OPT_BOOL || (*i + 1 < argc && is_bool_word(argv[*i + 1])))
		val = *i + 1 < argc ? argv[++*i] : NULL;
	if (!val && o->type != OPT_BOOL)
		cli_usage_error("db: --%s needs a value (see 'appio db --help')", name);
	if (opt_set(o, &a->o, val, err, sizeof(err)))
		cli_usage_error("db: %s", err);
	if (!strcmp(o->name, "seed"))
		a->seed_given = true;
}

static void parse(struct db_args *a, int argc, char **argv)
{
	char err[512];
	const char *pos[2] = { NULL, NULL };
	int npos = 0;

	if (opt_defaults(db_opt_table, &a->o, err, sizeof(err)))
		cli_usage_error("db: %s", err);
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-h"))
			argv[i] = "--help";
		if (!strncmp(argv[i], "--", 2))
			apply_option(a, argc, argv, &i);
		else if (npos < 2)
			pos[npos++] = argv[i];
		else
			cli_usage_error("db: unexpected argument '%s'", argv[i]);
	}
	if (!pos[0]) {
		print_help();
		exit(EXIT_USAGE);
	}
	int c = -1;
	for (int k = 0; cmd_names[k]; k++)
		if (!strcmp(pos[0], cmd_names[k]))
			c = k;
	if (c < 0)
		cli_usage_error("db: unknown command '%s' (expected prepare, run or cleanup)", pos[0]);
	if (!pos[1])
		cli_usage_error("db %s: which workload? (e.g. oltp_read_write; see 'appio db --help')", pos[0]);
	a->cmd = (enum db_cmd)c;
	a->o.workload = pos[1];
	if (db_opts_check(&a->o, err, sizeof(err)))
		cli_usage_error("db: %s", err);
}

/*
 * Connect once on this thread before anything starts, so an unreachable
 * server or a wrong password is one line and exit 2, not a failed run.
 */
static struct db_conn *connect_or_die(const struct db_opts *o, bool create)
{
	const struct db_driver *drv = db_opts_driver(o);
	struct db_conn_cfg cfg;
	struct db_conn *c;
	char err[600];

	db_opts_conn_cfg(o, &cfg);
	cfg.create = create;
	if (drv->connect(&cfg, &c, err, sizeof(err)))
		cli_usage_error("%s", err);
	return c;
}

/* 'run' needs the tables: say so plainly when they are missing. */
static void check_tables(const struct db_opts *o, struct db_conn *c)
{
	char sql[96];

	for (unsigned t = 1; t <= o->tables; t++) {
		snprintf(sql, sizeof(sql), "SELECT id FROM sbtest%u WHERE id = 0", t);
		if (c->drv->exec(c, sql)) {
			fprintf(stderr, "appio: db run: cannot use table sbtest%u (run 'appio db prepare' "
				"first, with the same --tables): %s\n", t, db_errmsg(c));
			c->drv->disconnect(c);
			exit(EXIT_USAGE);
		}
	}
}

static uint64_t pick_seed(const struct db_args *a)
{
	uint64_t seed = a->o.seed;

	if (!a->seed_given && getrandom(&seed, sizeof(seed), 0) != sizeof(seed))
		seed = (uint64_t)time(NULL);
	return seed & ((1ULL << 53) - 1);       /* exact in any JSON reader */
}

static int do_prepare(struct db_args *a)
{
	struct db_prep_stats st;
	char err[600] = "";
	uint64_t seed = pick_seed(a);

	int rc = db_load_prepare(&a->o, seed, &cli_interrupted, &st, err, sizeof(err));
	if (rc == -EINTR) {
		fprintf(stderr, "appio: db prepare: %s; run 'appio db cleanup' before preparing again\n", err);
		return EXIT_INTERRUPTED;
	}
	if (rc) {
		fprintf(stderr, "appio: db prepare: %s\n", err);
		return 1;
	}
	printf("prepared %u table(s) x %llu rows = %llu rows in %.2f s (%.0f rows/s), "
	       "%u loader thread(s), secondary indexes %.2f s, seed %llu\n",
	       st.tables, (unsigned long long)a->o.table_size, (unsigned long long)st.rows,
	       st.load_s, st.load_s > 0 ? (double)st.rows / st.load_s : 0, st.threads,
	       st.index_s, (unsigned long long)seed);
	return 0;
}

static int do_cleanup(struct db_args *a)
{
	char err[600] = "";

	if (db_load_cleanup(&a->o, err, sizeof(err))) {
		fprintf(stderr, "appio: db cleanup: %s\n", err);
		return 1;
	}
	printf("dropped sbtest1..%llu\n", (unsigned long long)a->o.tables);
	return 0;
}

/* The options as text for the result, never a password. */
static void record_options(struct result *res, const struct db_opts *o)
{
	char buf[1024];

	result_add_opt(res, "workload", o->workload);
	for (const struct opt_def *d = db_opt_table; d->name; d++) {
		if (strstr(d->name, "password") || !strcmp(d->name, "json"))
			continue;
		result_add_opt(res, d->name, opt_format(d, o, buf, sizeof(buf)));
	}
}

static void add_info(void *arg, const char *key, const char *val)
{
	result_add_info(arg, key, val);
}

/* Server version and I/O settings, from the check connection (or a new one). */
static void record_server(struct result *res, const struct db_opts *o, struct db_conn *c)
{
	const struct db_driver *drv = c->drv;
	struct db_conn_cfg cfg;
	char err[600];

	result_add_info(res, "driver", drv->name);
	result_add_info(res, "server", c->where);
	if (!drv->info(c, add_info, res))
		return;
	db_opts_conn_cfg(o, &cfg);
	struct db_conn *fresh;
	if (!drv->connect(&cfg, &fresh, err, sizeof(err))) {
		drv->info(fresh, add_info, res);
		drv->disconnect(fresh);
	}
}

/* SysBench's "SQL statistics", one row per point. */
static void print_sql_stats(const struct result *res, int pct)
{
	char pname[16];

	if (!res->npoints)
		return;
	snprintf(pname, sizeof(pname), "p%s", db_percentile_names[pct]);
	printf("\n%-8s %10s %10s %9s %9s %9s %10s %10s %10s %7s %7s %7s\n", "threads", "TPS", "QPS",
	       "reads/s", "writes/s", "other/s", "mean", pname, "max",
	       "errors", "retries", "reconn");
	for (unsigned i = 0; i < res->npoints; i++) {
		const struct point_result *p = &res->points[i];
		const struct cls_result *tx = point_class(p, "txn"), *rd = point_class(p, "read");
		const struct cls_result *wr = point_class(p, "write"), *ot = point_class(p, "other");
		if (!tx || !rd || !wr || !ot)
			continue;
		uint64_t lat[] = { tx->lat.p50, tx->lat.p90, tx->lat.p99, tx->lat.p999, tx->lat.p9999 };
		char m[32], q[32], x[32];
		printf("%-8u %10.1f %10.1f %9.1f %9.1f %9.1f %10s %10s %10s %7llu %7llu %7llu%s\n",
		       p->pt.threads, tx->ops_per_s, rd->ops_per_s + wr->ops_per_s + ot->ops_per_s,
		       rd->ops_per_s, wr->ops_per_s, ot->ops_per_s, fmt_ns(tx->lat.mean, m, sizeof(m)),
		       fmt_ns((double)lat[pct], q, sizeof(q)), fmt_ns((double)tx->lat.max, x, sizeof(x)),
		       (unsigned long long)p->counters[DB_CNT_ERRORS],
		       (unsigned long long)p->counters[DB_CNT_RETRIES],
		       (unsigned long long)p->counters[DB_CNT_RECONNECTS], p->partial ? " (p)" : "");
	}
}

static void utc_now(char *buf, size_t len)
{
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static void init_result(struct result *res, const struct db_opts *o, uint64_t seed)
{
	result_init(res);
	utc_now(res->started, sizeof(res->started));
	res->seed = seed;
	snprintf(res->workload, sizeof(res->workload), "%s", o->workload);
	snprintf(res->engine, sizeof(res->engine), "%s", db_driver_names[o->driver]);
	record_options(res, o);
}

static unsigned build_points(const struct db_opts *o, struct emu_point *pts)
{
	for (unsigned i = 0; i < o->threads.n; i++)
		pts[i] = (struct emu_point){ .threads = (unsigned)o->threads.v[i], .qd = 1, .write_pct = -1 };
	return o->threads.n;
}

static int do_run(struct db_args *a, struct db_conn *check)
{
	const struct db_opts *o = &a->o;
	struct emu_point pts[OPT_LIST_MAX];
	struct result res;
	char err[600] = "";
	uint64_t seed = pick_seed(a);
	unsigned npoints = build_points(o, pts);

	init_result(&res, o, seed);
	printf("appio %s: db %s on %s at '%s', %llu table(s) x %llu rows, %u point(s) x "
	       "(%llu s warm-up + %llu s), seed %llu\n", APPIO_VERSION, o->workload,
	       check->drv->name, check->where, (unsigned long long)o->tables,
	       (unsigned long long)o->table_size, npoints, (unsigned long long)o->warmup_time,
	       (unsigned long long)o->time, (unsigned long long)seed);
	fflush(stdout);
	struct run_config cfg = {
		.emu = &db_oltp_ops, .emu_opts = &a->o, .points = pts, .npoints = npoints,
		.time_ns = o->time * 1000000000ULL, .ramp_ns = o->warmup_time * 1000000000ULL,
		.seed = seed, .progress = isatty(2), .report_interval_s = (unsigned)o->report_interval,
		.json_path = o->json, .interrupted = &cli_interrupted,
	};
	int rc = runner_run(&cfg, &res, err, sizeof(err));
	record_server(&res, o, check);
	int status = cli_finish(&res, rc, err, o->json, NULL);
	print_sql_stats(&res, o->percentile);
	result_release(&res);
	return status;
}

int cmd_db(int argc, char **argv)
{
	struct db_args a;
	int status;

	memset(&a, 0, sizeof(a));
	parse(&a, argc, argv);
	struct db_conn *c = connect_or_die(&a.o, a.cmd == CMD_PREPARE);
	switch (a.cmd) {
	case CMD_PREPARE:
		c->drv->disconnect(c);
		return do_prepare(&a);
	case CMD_CLEANUP:
		c->drv->disconnect(c);
		return do_cleanup(&a);
	case CMD_RUN:
	default:
		check_tables(&a.o, c);
		status = do_run(&a, c);
		c->drv->disconnect(c);
		return status;
	}
}
