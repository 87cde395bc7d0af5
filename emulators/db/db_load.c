/*
 * db_load.c - 'appio db prepare' and 'cleanup': SysBench's data set.
 *
 * Each table sbtestN gets --table-size rows with ids 1..N in order, k drawn
 * with the --rand-type distribution over [1, table-size] and c and pad
 * random digit strings, exactly as oltp_common.lua's create_table() fills
 * them; the secondary index k_N on k is built after the rows are in, as
 * SysBench does, which is also the fast way to load. Like SysBench, tables
 * are loaded in parallel, one table per thread at a time, each thread on
 * its own connection; an engine that serialises writers (SQLite) is loaded
 * by one thread, since more would only queue for its lock.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"
#include "appio/emulator.h"
#include "db_oltp.h"
#include "sysbench/db_rand.h"

#define LOAD_STREAM 0x10000     /* row streams: LOAD_STREAM + table number */

struct loader {
	const struct db_opts *o;
	const struct db_driver *drv;
	const struct db_conn_cfg *cfg;
	const struct db_rand *rand;
	uint64_t seed;
	volatile sig_atomic_t *stop;    /* set on Ctrl-C: abandon the load */
	unsigned first, step;           /* tables first, first + step, ... */
	uint64_t index_ns;              /* spent building secondary indexes */
	int rc;
	char err[600];
	pthread_t tid;
};

/* Row @i of a table: what oltp_common.lua's create_table() inserts. */
struct row_gen {
	struct rng rng;
	const struct db_rand *rand;
	uint32_t table_size;
	volatile sig_atomic_t *stop;
};

static int gen_row(void *arg, uint64_t i, struct db_row *row)
{
	struct row_gen *g = arg;

	if (i % 4096 == 0 && g->stop && *g->stop)
		return -EINTR;
	row->id = (int64_t)i + 1;
	row->k = db_rand_default(g->rand, &g->rng, 1, g->table_size);
	db_rand_str(&g->rng, db_c_template, row->c);
	db_rand_str(&g->rng, db_pad_template, row->pad);
	return 0;
}

static int load_table(struct loader *l, struct db_conn *c, unsigned t)
{
	struct row_gen g = { .rand = l->rand, .table_size = (uint32_t)l->o->table_size,
			     .stop = l->stop };
	char sql[128];
	int rc;

	rng_seed(&g.rng, l->seed, LOAD_STREAM + t);
	if ((rc = l->drv->create_table(c, t)) != 0)
		return rc;
	if ((rc = l->drv->load(c, t, l->o->table_size, gen_row, &g)) != 0)
		return rc;
	uint64_t t0 = emu_now();
	snprintf(sql, sizeof(sql), "CREATE INDEX k_%u ON sbtest%u(k)", t, t);
	rc = l->drv->exec(c, sql);
	l->index_ns += emu_now() - t0;
	return rc;
}

static void *loader_main(void *arg)
{
	struct loader *l = arg;
	struct db_conn *c;

	db_block_signals();     /* Ctrl-C reaches the main thread, which sets @stop */
	l->rc = l->drv->connect(l->cfg, &c, l->err, sizeof(l->err));
	if (l->rc)
		return NULL;
	for (unsigned t = l->first; t <= l->o->tables && !l->rc; t += l->step) {
		l->rc = l->stop && *l->stop ? -EINTR : load_table(l, c, t);
		if (l->rc == -EINTR)
			snprintf(l->err, sizeof(l->err), "interrupted while loading sbtest%u", t);
		else if (l->rc)
			snprintf(l->err, sizeof(l->err), "sbtest%u: %s", t, db_errmsg(c));
	}
	l->drv->disconnect(c);
	return NULL;
}

/* Loader threads: @threads (the largest --threads value), at most one per table. */
static unsigned loader_count(const struct db_opts *o, unsigned threads, const struct db_driver *drv)
{
	uint64_t n = threads ? threads : 1;

	if (n > o->tables)
		n = o->tables;
	if (drv->flags & DB_SERIAL_WRITES)
		n = 1;
	return (unsigned)n;
}

int db_load_prepare(const struct db_opts *o, unsigned threads, uint64_t seed,
		    volatile sig_atomic_t *stop, struct db_prep_stats *st, char *err, size_t errlen)
{
	const struct db_driver *drv = db_opts_driver(o);
	unsigned n = loader_count(o, threads, drv);
	struct loader *l = xcalloc(n, sizeof(*l));
	struct db_conn_cfg cfg;
	struct db_rand rand;
	int rc = 0;

	db_opts_conn_cfg(o, &cfg);
	cfg.create = true;
	db_rand_init(&rand, (enum db_rand_type)o->mix.rand_type, (uint32_t)o->table_size);
	uint64_t t0 = emu_now();
	unsigned started = 0;
	for (; started < n; started++) {
		l[started] = (struct loader){ .o = o, .drv = drv, .cfg = &cfg, .rand = &rand,
					      .seed = seed, .stop = stop, .first = started + 1, .step = n };
		if (pthread_create(&l[started].tid, NULL, loader_main, &l[started])) {
			snprintf(err, errlen, "cannot start a loader thread");
			rc = -EAGAIN;
			break;
		}
	}
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < started; i++) {
		pthread_join(l[i].tid, NULL);
		if (l[i].rc && !rc) {
			rc = l[i].rc;
			snprintf(err, errlen, "%s", l[i].err);
		}
		st->index_s += (double)l[i].index_ns / 1e9;
	}
	st->load_s = (double)(emu_now() - t0) / 1e9;
	st->rows = o->tables * o->table_size;
	st->tables = (unsigned)o->tables;
	st->threads = n;
	free(l);
	return rc;
}

int db_load_cleanup(const struct db_opts *o, char *err, size_t errlen)
{
	const struct db_driver *drv = db_opts_driver(o);
	struct db_conn_cfg cfg;
	struct db_conn *c;
	char sql[64];

	db_opts_conn_cfg(o, &cfg);
	int rc = drv->connect(&cfg, &c, err, errlen);
	if (rc)
		return rc;
	for (unsigned t = 1; t <= o->tables && !rc; t++) {
		snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS sbtest%u", t);
		rc = drv->exec(c, sql);
		if (rc)
			snprintf(err, errlen, "%s", db_errmsg(c));
	}
	drv->disconnect(c);
	return rc;
}
