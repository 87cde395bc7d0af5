/*
 * db_oltp.c - SysBench 1.0's OLTP workloads, run against a real database.
 *
 * What it reproduces: the transactions of SysBench's bundled scripts
 * (oltp_common.lua and oltp_read_write.lua, oltp_read_only.lua, ...), the
 * standard way MySQL and PostgreSQL are compared on a storage device. An
 * oltp_read_write transaction with the defaults is BEGIN, 10 primary-key
 * point SELECTs, four 100-row range SELECTs (plain, SUM, ORDER BY,
 * DISTINCT), an UPDATE of the indexed column k, an UPDATE of c, a DELETE
 * and an INSERT of the same id, COMMIT: 14 reads, 4 writes, 2 other. Each
 * group of statements picks its table uniformly (sysbench.rand.uniform) and
 * each statement its row id with the --rand-type distribution
 * (sysbench.rand.default; db_rand.h). Statements are prepared once per
 * connection, as SysBench prepares them.
 *
 * Counting follows SysBench: SELECTs are reads; INSERT, UPDATE and DELETE
 * writes; BEGIN and COMMIT other. Two differences make appio's counts exact
 * per transaction: SysBench counts a write that changed no row as "other"
 * where appio counts by statement, and appio counts the statements of
 * committed transactions only, recorded together with their transaction at
 * its commit, so a transaction that straddles the start or the end of the
 * measured window is counted with all its statements or with none. A
 * deadlock or serialization failure rolls the transaction back and runs it
 * again with fresh random values, counted under errors and retries; the
 * statements the failed attempt had run go to their own counter,
 * retried_stmts, never to reads, writes or other; the transaction's latency
 * includes its retries, as the application would see it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "appio/result.h"
#include "appio/trace_record.h"
#include "appio/xalloc.h"
#include "db_oltp.h"
#include "db_tpcc.h"
#include "sysbench/db_rand.h"

#define RECONNECT_NS (30ULL * 1000000000ULL)  /* give up reconnecting after this */

const char db_c_template[DB_C_LEN + 1] =
	"###########-###########-###########-###########-###########-"
	"###########-###########-###########-###########-###########";
const char db_pad_template[DB_PAD_LEN + 1] =
	"###########-###########-###########-###########-###########";

/* SysBench's stmt_defs: one prepared statement per kind and table. */
enum oltp_stmt {
	ST_POINT, ST_SIMPLE, ST_SUM, ST_ORDER, ST_DISTINCT,
	ST_INDEX_UPD, ST_NON_INDEX_UPD, ST_DELETE, ST_INSERT, ST_INSERT_AUTO,
	ST_N
};

struct stmt_def {
	const char *sql;                /* %u: the table number */
	unsigned cls;                   /* DB_CLS_READ or DB_CLS_WRITE */
	unsigned nparams;
	enum db_type types[DB_MAX_PARAMS];
};

static const struct stmt_def stmt_defs[ST_N] = {
	[ST_POINT] = { "SELECT c FROM sbtest%u WHERE id=?", DB_CLS_READ, 1, { DB_INT } },
	[ST_SIMPLE] = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ?", DB_CLS_READ, 2,
			{ DB_INT, DB_INT } },
	[ST_SUM] = { "SELECT SUM(k) FROM sbtest%u WHERE id BETWEEN ? AND ?", DB_CLS_READ, 2,
		     { DB_INT, DB_INT } },
	[ST_ORDER] = { "SELECT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c", DB_CLS_READ, 2,
		       { DB_INT, DB_INT } },
	[ST_DISTINCT] = { "SELECT DISTINCT c FROM sbtest%u WHERE id BETWEEN ? AND ? ORDER BY c",
			  DB_CLS_READ, 2, { DB_INT, DB_INT } },
	[ST_INDEX_UPD] = { "UPDATE sbtest%u SET k=k+1 WHERE id=?", DB_CLS_WRITE, 1, { DB_INT } },
	[ST_NON_INDEX_UPD] = { "UPDATE sbtest%u SET c=? WHERE id=?", DB_CLS_WRITE, 2,
			       { DB_CHAR, DB_INT } },
	[ST_DELETE] = { "DELETE FROM sbtest%u WHERE id=?", DB_CLS_WRITE, 1, { DB_INT } },
	[ST_INSERT] = { "INSERT INTO sbtest%u (id, k, c, pad) VALUES (?, ?, ?, ?)", DB_CLS_WRITE, 4,
			{ DB_INT, DB_INT, DB_CHAR, DB_CHAR } },
	/* oltp_insert: the server picks the id (AUTO_INCREMENT, SERIAL, rowid) */
	[ST_INSERT_AUTO] = { "INSERT INTO sbtest%u (k, c, pad) VALUES (?, ?, ?)", DB_CLS_WRITE, 3,
			     { DB_INT, DB_CHAR, DB_CHAR } },
};

/* Run-wide state, computed by setup() from the options. */
struct oltp_run {
	const struct oltp_workload *wl;
	const struct db_driver *drv;
	struct db_conn_cfg cfg;
	struct db_rand rand;
	unsigned tables;
	uint32_t table_size, range_size;
	bool use_trx, reconnect;
	unsigned stmt_mask;             /* 1 << enum oltp_stmt for each one used */
	unsigned stmts_per_txn;         /* statements in one transaction, BEGIN/COMMIT included */
	unsigned nplan;
	struct { unsigned group, count; } plan[16];
	struct trace_record *capture;   /* --capture, while the run lasts */
	char capture_threads[64];       /* the points' thread counts so far */
};

/* A worker's connection and its statements (tables x ST_N, NULL when unused). */
struct oltp_worker {
	struct db_conn *conn;
	struct db_stmt **st;
	struct emu_sample *done;        /* r->stmts_per_txn + 1: the statements, then the txn */
	unsigned ndone;
	char c[DB_C_LEN], pad[DB_PAD_LEN];
};

/* Note a statement of class @cls that began at @t and succeeded just now. */
static void note(struct oltp_worker *ow, unsigned cls, uint64_t t)
{
	ow->done[ow->ndone++] = (struct emu_sample){ .cls = cls, .lat_ns = emu_now() - t };
}

/*
 * The transaction that began at @t0 committed: record it and its statements
 * as one unit at the commit's time. A transaction rolled back for a retry
 * records none, so reads, writes and other per transaction are exactly the
 * workload's mix, in every second as in the whole point; the retry shows in
 * its counters and in the transaction's latency.
 */
static void flush_done(struct emu_worker *w, struct oltp_worker *ow, uint64_t t0)
{
	uint64_t t = emu_now();

	ow->done[ow->ndone++] = (struct emu_sample){ .cls = DB_CLS_TXN, .lat_ns = t - t0 };
	emu_record_group(w, ow->done, ow->ndone, t);
	ow->ndone = 0;
}

/* One timed statement, noted under its class when it succeeds. */
static int exec(struct emu_worker *w, struct db_stmt *const *st, enum oltp_stmt kind,
		const struct db_arg *args)
{
	struct oltp_worker *ow = w->priv;
	uint64_t t = emu_now();
	int rc = ow->conn->drv->execute(ow->conn, st[kind], args);

	if (!rc)
		note(ow, stmt_defs[kind].cls, t);
	return rc;
}

static uint32_t get_id(struct emu_worker *w, const struct oltp_run *r)
{
	return db_rand_default(&r->rand, &w->rng, 1, r->table_size);
}

/* Point SELECT, UPDATE of k, DELETE: one id. */
static int do_id(struct emu_worker *w, const struct oltp_run *r, struct db_stmt *const *st,
		 enum oltp_stmt kind)
{
	struct db_arg a[1] = { { .i = get_id(w, r) } };
	return exec(w, st, kind, a);
}

/* The range SELECTs: [id, id + range_size - 1]. */
static int do_range(struct emu_worker *w, const struct oltp_run *r, struct db_stmt *const *st,
		    enum oltp_stmt kind)
{
	uint32_t id = get_id(w, r);
	struct db_arg a[2] = { { .i = id }, { .i = (int64_t)id + r->range_size - 1 } };
	return exec(w, st, kind, a);
}

static int do_non_index(struct emu_worker *w, const struct oltp_run *r, struct db_stmt *const *st,
			enum oltp_stmt kind)
{
	struct oltp_worker *ow = w->priv;

	db_rand_str(&w->rng, db_c_template, ow->c);
	struct db_arg a[2] = { { .s = ow->c, .len = DB_C_LEN }, { .i = get_id(w, r) } };
	return exec(w, st, kind, a);
}

/* DELETE a row and INSERT it back with new k, c and pad. */
static int do_delete_insert(struct emu_worker *w, const struct oltp_run *r,
			    struct db_stmt *const *st, enum oltp_stmt kind)
{
	struct oltp_worker *ow = w->priv;
	uint32_t id = get_id(w, r), k = get_id(w, r);

	db_rand_str(&w->rng, db_c_template, ow->c);
	db_rand_str(&w->rng, db_pad_template, ow->pad);
	struct db_arg del[1] = { { .i = id } };
	struct db_arg ins[4] = { { .i = id }, { .i = k }, { .s = ow->c, .len = DB_C_LEN },
				 { .s = ow->pad, .len = DB_PAD_LEN } };
	int rc = exec(w, st, kind, del);
	return rc ? rc : exec(w, st, ST_INSERT, ins);
}

/* oltp_insert: a new row; the server picks its id. */
static int do_insert(struct emu_worker *w, const struct oltp_run *r, struct db_stmt *const *st,
		     enum oltp_stmt kind)
{
	struct oltp_worker *ow = w->priv;
	uint32_t k = get_id(w, r);

	db_rand_str(&w->rng, db_c_template, ow->c);
	db_rand_str(&w->rng, db_pad_template, ow->pad);
	struct db_arg a[3] = { { .i = k }, { .s = ow->c, .len = DB_C_LEN },
			       { .s = ow->pad, .len = DB_PAD_LEN } };
	return exec(w, st, kind, a);
}

/* SysBench's execute_* functions: each runs COUNT statements on one random table. */
enum oltp_group {
	G_END, G_POINT, G_SIMPLE, G_SUM, G_ORDER, G_DISTINCT,
	G_INDEX_UPD, G_NON_INDEX_UPD, G_DELETE_INSERT, G_DELETE, G_INSERT,
	G_N
};

struct group_def {
	int (*fn)(struct emu_worker *w, const struct oltp_run *r, struct db_stmt *const *st,
		  enum oltp_stmt kind);
	enum oltp_stmt stmt;
	unsigned stmts;                 /* every statement it needs prepared */
	size_t count;                   /* offset of its per-transaction count in db_mix; 0: once */
	bool range;                     /* off with --range-selects off */
};

#define ST(x) (1u << (x))
#define COUNT(f) offsetof(struct db_mix, f)

static const struct group_def groups[G_N] = {
	[G_POINT] = { do_id, ST_POINT, ST(ST_POINT), COUNT(point_selects), false },
	[G_SIMPLE] = { do_range, ST_SIMPLE, ST(ST_SIMPLE), COUNT(simple_ranges), true },
	[G_SUM] = { do_range, ST_SUM, ST(ST_SUM), COUNT(sum_ranges), true },
	[G_ORDER] = { do_range, ST_ORDER, ST(ST_ORDER), COUNT(order_ranges), true },
	[G_DISTINCT] = { do_range, ST_DISTINCT, ST(ST_DISTINCT), COUNT(distinct_ranges), true },
	[G_INDEX_UPD] = { do_id, ST_INDEX_UPD, ST(ST_INDEX_UPD), COUNT(index_updates), false },
	[G_NON_INDEX_UPD] = { do_non_index, ST_NON_INDEX_UPD, ST(ST_NON_INDEX_UPD),
			      COUNT(non_index_updates), false },
	[G_DELETE_INSERT] = { do_delete_insert, ST_DELETE, ST(ST_DELETE) | ST(ST_INSERT),
			      COUNT(delete_inserts), false },
	[G_DELETE] = { do_id, ST_DELETE, ST(ST_DELETE), 0, false },
	[G_INSERT] = { do_insert, ST_INSERT_AUTO, ST(ST_INSERT_AUTO), 0, false },
};

/* One SysBench script: its event() as a list of groups. */
struct oltp_workload {
	const char *name;
	bool trx;                       /* BEGIN ... COMMIT unless --skip-trx */
	bool writes;
	bool one_point;                 /* oltp_point_select: 1 point SELECT, whatever --point-selects */
	enum oltp_group seq[10];        /* G_END-terminated */
};

static const struct oltp_workload workloads[] = {
	{ "oltp_read_write", true, true, false,
	  { G_POINT, G_SIMPLE, G_SUM, G_ORDER, G_DISTINCT, G_INDEX_UPD, G_NON_INDEX_UPD,
	    G_DELETE_INSERT } },
	{ "oltp_read_only", true, false, false, { G_POINT, G_SIMPLE, G_SUM, G_ORDER, G_DISTINCT } },
	{ "oltp_write_only", true, true, false, { G_INDEX_UPD, G_NON_INDEX_UPD, G_DELETE_INSERT } },
	{ "oltp_point_select", false, false, true, { G_POINT } },
	{ "oltp_update_index", false, true, false, { G_INDEX_UPD } },
	{ "oltp_update_non_index", false, true, false, { G_NON_INDEX_UPD } },
	{ "oltp_insert", false, true, false, { G_INSERT } },
	{ "oltp_delete", false, true, false, { G_DELETE } },
	{ NULL },
};

static const struct oltp_workload *find_workload(const char *name)
{
	for (const struct oltp_workload *wl = workloads; wl->name; wl++)
		if (!strcmp(wl->name, name))
			return wl;
	return NULL;
}

bool db_oltp_workload_exists(const char *name)
{
	return find_workload(name) != NULL;
}

bool db_is_tpcc(const struct db_opts *o)
{
	return o->workload && !strcmp(o->workload, "tpcc");
}

/* How many statements of group @g a transaction runs, given the options. */
static unsigned group_count(const struct oltp_workload *wl, const struct db_opts *o, enum oltp_group g)
{
	const struct group_def *d = &groups[g];

	if (d->range && !o->mix.range_selects)
		return 0;
	if (g == G_POINT && wl->one_point)
		return 1;
	if (!d->count)
		return 1;
	return (unsigned)*(const uint64_t *)((const char *)&o->mix + d->count);
}

static int oltp_setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct db_opts *o = run->opts;
	struct oltp_run *r = run->priv;

	if (db_opts_check(o, err, errlen))
		return -EINVAL;
	r->wl = find_workload(o->workload);
	r->drv = db_opts_driver(o);
	db_opts_conn_cfg(o, &r->cfg);
	db_rand_init(&r->rand, (enum db_rand_type)o->mix.rand_type, (uint32_t)o->table_size);
	r->tables = (unsigned)o->tables;
	r->table_size = (uint32_t)o->table_size;
	r->range_size = (uint32_t)o->mix.range_size;
	r->use_trx = r->wl->trx && !o->mix.skip_trx;
	r->reconnect = o->reconnect;
	for (const enum oltp_group *g = r->wl->seq; *g != G_END; g++) {
		unsigned n = group_count(r->wl, o, *g);
		if (!n)
			continue;
		r->plan[r->nplan].group = *g;
		r->plan[r->nplan++].count = n;
		r->stmt_mask |= groups[*g].stmts;
		r->stmts_per_txn += n * (unsigned)__builtin_popcount(groups[*g].stmts);
	}
	r->stmts_per_txn += r->use_trx ? 2 : 0;
	run->headline = "txn";
	run->writes = false;            /* nothing goes to a target: the server writes */
	run->max_io = 0;
	/* last: nothing after it can fail, so finish() always stops what started */
	return o->capture ? db_capture_start(run, &r->capture, err, errlen) : 0;
}

static void oltp_point_end(struct emu_run *run, const struct point_result *p)
{
	struct oltp_run *r = run->priv;

	if (r->capture)
		db_capture_point(r->capture, p->pt.threads, r->capture_threads, sizeof(r->capture_threads));
}

static int oltp_finish(struct emu_run *run, char *err, size_t errlen)
{
	struct oltp_run *r = run->priv;
	int rc = r->capture ? db_capture_finish(run, r->capture, err, errlen) : 0;

	trace_record_free(r->capture);
	r->capture = NULL;
	return rc;
}

/* Prepare every statement the plan uses, for every table. */
static int prepare_all(const struct oltp_run *r, struct oltp_worker *ow)
{
	char sql[256];

	for (unsigned t = 1; t <= r->tables; t++) {
		for (unsigned k = 0; k < ST_N; k++) {
			if (!(r->stmt_mask & ST(k)))
				continue;
			const struct stmt_def *d = &stmt_defs[k];
			snprintf(sql, sizeof(sql), d->sql, t);
			int rc = r->drv->prepare(ow->conn, sql, d->nparams, d->types,
						 &ow->st[(size_t)(t - 1) * ST_N + k]);
			if (rc)
				return rc;
		}
	}
	return 0;
}

/* Connect and prepare; on failure @err says why and nothing stays open. */
static int open_conn(const struct oltp_run *r, struct oltp_worker *ow, char *err, size_t errlen)
{
	int rc = r->drv->connect(&r->cfg, &ow->conn, err, errlen);

	if (rc)
		return rc;
	memset(ow->st, 0, (size_t)r->tables * ST_N * sizeof(*ow->st));
	rc = prepare_all(r, ow);
	if (rc) {
		snprintf(err, errlen, "%s", db_errmsg(ow->conn));
		r->drv->disconnect(ow->conn);
		ow->conn = NULL;
	}
	return rc;
}

static int oltp_worker_init(struct emu_worker *w)
{
	const struct oltp_run *r = w->run->priv;
	struct oltp_worker *ow = w->priv;
	char err[512];

	db_block_signals();
	ow->st = xcalloc((size_t)r->tables * ST_N, sizeof(*ow->st));
	ow->done = xcalloc(r->stmts_per_txn + 1, sizeof(*ow->done));
	int rc = open_conn(r, ow, err, sizeof(err));
	if (rc) {
		free(ow->st);
		free(ow->done);
		ow->st = NULL;
		ow->done = NULL;
		return emu_fail(w, -EIO, "%s", err);
	}
	return 0;
}

static void oltp_worker_fini(struct emu_worker *w)
{
	const struct oltp_run *r = w->run->priv;
	struct oltp_worker *ow = w->priv;

	if (ow->conn)
		r->drv->disconnect(ow->conn);
	ow->conn = NULL;
	free(ow->st);
	free(ow->done);
	ow->st = NULL;
	ow->done = NULL;
}

/* BEGIN, COMMIT: timed as "other". */
static int tx_call(struct emu_worker *w, int (*fn)(struct db_conn *))
{
	struct oltp_worker *ow = w->priv;
	uint64_t t = emu_now();
	int rc = fn(ow->conn);

	if (!rc)
		note(ow, DB_CLS_OTHER, t);
	return rc;
}

static int begin_writes(struct db_conn *c)
{
	return c->drv->begin(c, true);
}

static int begin_reads(struct db_conn *c)
{
	return c->drv->begin(c, false);
}

/* SysBench's event(): one transaction, without retries. */
static int run_event(struct emu_worker *w, const struct oltp_run *r, struct oltp_worker *ow)
{
	int rc;

	if (r->use_trx && (rc = tx_call(w, r->wl->writes ? begin_writes : begin_reads)) != 0)
		return rc;
	for (unsigned i = 0; i < r->nplan; i++) {
		const struct group_def *g = &groups[r->plan[i].group];
		unsigned t = db_rand_uniform(&w->rng, 1, r->tables);
		struct db_stmt *const *st = ow->st + (size_t)(t - 1) * ST_N;
		for (unsigned n = 0; n < r->plan[i].count; n++)
			if ((rc = g->fn(w, r, st, g->stmt)) != 0)
				return rc;
	}
	if (r->use_trx)
		return tx_call(w, r->drv->commit);
	return 0;
}

/* --reconnect: replace a lost connection, trying for up to RECONNECT_NS. */
static int reconnect(struct emu_worker *w, const struct db_retry *rt)
{
	uint64_t give_up = emu_now() + RECONNECT_NS;
	char err[600];

	rt->drv->disconnect(*rt->conn);
	*rt->conn = NULL;
	while (rt->connect(w, err, sizeof(err))) {
		if (emu_stopping(w))
			return 1;
		if (emu_now() > give_up)
			return emu_fail(w, -EIO, "%s (gave up reconnecting after 30 s)", err);
		nanosleep(&(struct timespec){ .tv_nsec = 100000000 }, NULL);
	}
	emu_count(w, DB_CNT_RECONNECTS, 1);
	return 0;
}

bool db_txn_failed(struct emu_worker *w, const struct db_retry *rt, int rc, unsigned ndone, int *out)
{
	emu_count(w, DB_CNT_ERRORS, 1);
	emu_count(w, DB_CNT_RETRIED_STMTS, ndone);
	if (rc == DB_RETRY) {
		emu_count(w, DB_CNT_RETRIES, 1);
		if (rt->why_cnt)
			emu_count(w, rt->why_cnt[(*rt->conn)->why], 1);
		rc = rt->drv->rollback(*rt->conn);
	}
	if (rc == DB_LOST && rt->reconnect) {
		rc = reconnect(w, rt);
		if (rc) {
			*out = rc < 0 ? rc : 1;
			return true;
		}
	}
	if (rc) {
		*out = emu_fail(w, -EIO, "%s", db_errmsg(*rt->conn));
		return true;
	}
	*out = 0;
	return emu_stopping(w);
}

/* db_retry's connect: the worker's connection and its prepared statements. */
static int oltp_connect(struct emu_worker *w, char *err, size_t errlen)
{
	return open_conn(w->run->priv, w->priv, err, errlen);
}

static int oltp_step(struct emu_worker *w)
{
	const struct oltp_run *r = w->run->priv;
	struct oltp_worker *ow = w->priv;
	uint64_t t0 = emu_step_start(w);

	const struct db_retry rt = { .drv = r->drv, .conn = &ow->conn, .reconnect = r->reconnect,
				     .connect = oltp_connect };
	int out;

	for (;;) {
		ow->ndone = 0;
		int rc = run_event(w, r, ow);
		if (!rc) {
			flush_done(w, ow, t0);
			return 0;
		}
		if (db_txn_failed(w, &rt, rc, ow->ndone, &out))
			return out;
	}
}

/* emu_db runs either workload family: the options say which. */
static int db_setup(struct emu_run *run, char *err, size_t errlen)
{
	return db_is_tpcc(run->opts) ? db_tpcc_setup(run, err, errlen) : oltp_setup(run, err, errlen);
}

static int db_worker_init(struct emu_worker *w)
{
	return db_is_tpcc(w->run->opts) ? db_tpcc_worker_init(w) : oltp_worker_init(w);
}

static int db_step(struct emu_worker *w)
{
	return db_is_tpcc(w->run->opts) ? db_tpcc_step(w) : oltp_step(w);
}

static void db_worker_fini(struct emu_worker *w)
{
	if (db_is_tpcc(w->run->opts))
		db_tpcc_worker_fini(w);
	else
		oltp_worker_fini(w);
}

/* --capture is the OLTP workloads' (tpcc's setup refuses it) */
static void db_point_end(struct emu_run *run, const struct point_result *p)
{
	if (db_is_tpcc(run->opts))
		db_tpcc_point_end(run, p);
	else
		oltp_point_end(run, p);
}

static int db_finish(struct emu_run *run, char *err, size_t errlen)
{
	return db_is_tpcc(run->opts) ? 0 : oltp_finish(run, err, errlen);
}

#define MAX(a, b) ((a) > (b) ? (a) : (b))

static const char *const oltp_classes[] = { "txn", "read", "write", "other", NULL };
static const char *const oltp_counters[] = { "errors", "retries", "reconnects",
					      "retried_stmts", NULL };

const struct emu_ops emu_db = {
	.name = "db",
	.desc = "SysBench OLTP and TPC-C workloads against a real MySQL, PostgreSQL or SQLite database",
	.flags = EMU_NO_TARGET | EMU_RATE,
	.opts = db_opt_table,
	.opts_size = sizeof(struct db_opts),
	.run_priv_size = MAX(sizeof(struct oltp_run), DB_TPCC_RUN_PRIV),
	.worker_priv_size = MAX(sizeof(struct oltp_worker), DB_TPCC_WORKER_PRIV),
	.classes = oltp_classes,        /* tpcc's setup names its own */
	.counters = oltp_counters,
	.setup = db_setup,
	.worker_init = db_worker_init,
	.step = db_step,
	.worker_fini = db_worker_fini,
	.point_end = db_point_end,
	.finish = db_finish,
	/* around the run: db_emu.c */
	.default_args = "--time 10",
	.suite_review_args = "--workload oltp_read_write --tables 4 --table-size 100000 "
			     "--threads 2,4,8,16,32 --time 60",
	.suite_quick_args = "--workload oltp_read_write --tables 1 --table-size 10000 "
			    "--threads 2,8 --time 5",
	.actions = db_actions,
	.action_word = "workload",
	.check = db_check,
	.info = db_info,
	.describe = db_describe,
	.summary = db_summary,
	.lists = db_lists,
	.suite_variants = db_suite_variants,
};
