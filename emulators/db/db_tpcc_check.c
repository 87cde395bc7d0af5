/*
 * db_tpcc_check.c - 'appio db check tpcc': the consistency checks of
 * Percona-Lab sysbench-tpcc's check command, per warehouse and table set.
 *
 * The checks and their numbers are sysbench-tpcc's (it has no 6 and no 11):
 * each query below is its query, wrapped where it returned one row per
 * district into a count of the districts that break the rule, so every
 * check reads one number and passes when it is 0. Money columns are
 * compared to the cent (abs(a - b) > 0.004 rather than a <> b): on MySQL
 * and PostgreSQL, whose decimals are exact, that is the same test, and
 * SQLite stores decimals as floating point. Checks 10 and 12 look up each
 * customer's orders by idx_orders ($O, an index hint where the dialect has
 * one): MariaDB, with the statistics it keeps from the middle of the load,
 * scanned the district's orders by the primary key for every customer
 * instead, 20 s for one warehouse after a run rather than 0.2 s.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "appio/xalloc.h"
#include "db_tpcc.h"

#define NCHECKS 10

/* A check: its number, what it asserts, its query ($N set, $W warehouse, $J join hint,
   $O index hint). */
static const struct {
	unsigned num;
	const char *what;
	const char *sql;
} checks[NCHECKS] = {
	{ 1, "w_ytd = sum(d_ytd)",
	  "SELECT count(*) FROM (SELECT d_w_id, sum(d_ytd)-max(w_ytd) diff FROM district$N, "
	  "warehouse$N WHERE d_w_id=w_id AND w_id=$W group by d_w_id) x WHERE abs(diff) > 0.004" },
	{ 2, "d_next_o_id - 1 = max(o_id) = max(no_o_id)",
	  "SELECT count(*) FROM (SELECT dis.d_id, d_next_o_id-1 d1, mo, mno FROM district$N dis, "
	  "(SELECT o_d_id,max(o_id) mo FROM orders$N WHERE o_w_id=$W GROUP BY o_d_id) q, "
	  "(select no_d_id,max(no_o_id) mno from new_orders$N where no_w_id=$W group by no_d_id) no "
	  "where d_w_id=$W and q.o_d_id=dis.d_id and no.no_d_id=dis.d_id) x WHERE d1 <> mo OR d1 <> mno" },
	{ 3, "new orders numbered without gaps",
	  "SELECT count(*) FROM (select no_d_id, max(no_o_id)-min(no_o_id)+1 d1, count(*) d2 from "
	  "new_orders$N where no_w_id=$W group by no_d_id) x WHERE d1 <> d2" },
	{ 4, "sum(o_ol_cnt) = order lines",
	  "SELECT count(*) FROM (SELECT o_d_id, SUM(o_ol_cnt) sm1, MAX(cn) as cn FROM orders$N,"
	  "(SELECT ol_d_id, COUNT(*) cn FROM order_line$N WHERE ol_w_id=$W GROUP BY ol_d_id) ol "
	  "WHERE o_w_id=$W AND ol_d_id=o_d_id GROUP BY o_d_id) t1 WHERE sm1<>cn" },
	{ 5, "a carrier exactly for orders not in new_orders",
	  "SELECT count(*) FROM orders$N LEFT JOIN new_orders$N ON (no_w_id=o_w_id AND o_d_id=no_d_id "
	  "AND o_id=no_o_id) where o_w_id=$W and ((o_carrier_id IS NULL and no_o_id IS NULL) OR "
	  "(o_carrier_id IS NOT NULL and no_o_id IS NOT NULL))" },
	{ 7, "delivery dates exactly on orders with a carrier",
	  "SELECT count(*) FROM orders$N, order_line$N WHERE o_id=ol_o_id AND o_d_id=ol_d_id AND "
	  "ol_w_id=o_w_id AND o_w_id=$W AND ((ol_delivery_d IS NULL and o_carrier_id IS NOT NULL) or "
	  "(o_carrier_id IS NULL and ol_delivery_d IS NOT NULL))" },
	{ 8, "w_ytd = sum(h_amount)",
	  "SELECT count(*) cn FROM (SELECT w_id,w_ytd,SUM(h_amount) sm FROM history$N,warehouse$N "
	  "WHERE h_w_id=w_id and w_id=$W GROUP BY w_id,w_ytd) t1 WHERE abs(w_ytd-sm) > 0.004" },
	{ 9, "d_ytd = sum(h_amount) per district",
	  "SELECT COUNT(*) FROM (select d_id,d_w_id,sum(d_ytd) s1 from district$N group by d_id,d_w_id) d,"
	  "(select h_d_id,h_w_id,sum(h_amount) s2 from history$N WHERE h_w_id=$W group by h_d_id, h_w_id) h "
	  "WHERE h_d_id=d_id AND d_w_id=h_w_id and d_w_id=$W and abs(s1-s2) > 0.004" },
	{ 10, "c_balance = delivered ol_amount - h_amount",
	  "SELECT count(*) FROM (SELECT c.c_id, c.c_d_id, c.c_w_id, c.c_balance c1, (SELECT "
	  "sum(ol_amount) FROM orders$N $O $J order_line$N WHERE OL_W_ID=O_W_ID AND OL_D_ID = O_D_ID AND "
	  "OL_O_ID = O_ID AND OL_DELIVERY_D IS NOT NULL AND O_W_ID=c.c_w_id AND O_D_ID=c.C_D_ID AND "
	  "O_C_ID=c.C_ID) sm, (SELECT sum(h_amount) from history$N WHERE H_C_W_ID=c.C_W_ID AND "
	  "H_C_D_ID=c.C_D_ID AND H_C_ID=c.C_ID) smh FROM customer$N c WHERE c.c_w_id=$W) t "
	  "WHERE abs(c1-(sm-smh)) > 0.004" },
	{ 12, "c_balance + c_ytd_payment = delivered ol_amount",
	  "SELECT count(*) FROM (SELECT c.c_id, c.c_d_id, c.c_balance c1, c_ytd_payment, (SELECT "
	  "sum(ol_amount) FROM orders$N $O $J order_line$N WHERE OL_W_ID=O_W_ID AND OL_D_ID = O_D_ID AND "
	  "OL_O_ID = O_ID AND OL_DELIVERY_D IS NOT NULL AND O_W_ID=c.c_w_id AND O_D_ID=c.C_D_ID AND "
	  "O_C_ID=c.C_ID) sm FROM customer$N c WHERE c.c_w_id=$W) t1 WHERE abs(c1+c_ytd_payment-sm) > 0.004" },
};

/* Expand $N (table set), $W (warehouse), $J and $O (@d's join and index hints) of @tmpl. */
static void expand(const char *tmpl, unsigned t, unsigned w, const struct db_dialect *d, char *out,
		   size_t len)
{
	char n[16], wh[16], idx[32], hint[64] = "";
	const char *vals[26] = { ['N' - 'A'] = n, ['W' - 'A'] = wh, ['J' - 'A'] = d->join_hint,
				 ['O' - 'A'] = hint };

	snprintf(n, sizeof(n), "%u", t);
	snprintf(wh, sizeof(wh), "%u", w);
	if (d->index_hint) {
		snprintf(idx, sizeof(idx), "idx_orders%u", t);
		snprintf(hint, sizeof(hint), d->index_hint, idx);
	}
	db_tpcc_expand(tmpl, vals, out, len);
}

struct checker {
	const struct db_opts *o;
	volatile sig_atomic_t *stop;
	unsigned first, step;           /* warehouses first, first + step, ... */
	unsigned fails[NCHECKS];        /* warehouse x set pairs that broke the check */
	unsigned first_w[NCHECKS], first_t[NCHECKS];
	int rc;
	char err[600];
	pthread_t tid;
	pthread_mutex_t mx;             /* guards conn against its disconnect while cancelled */
	struct db_conn *conn;           /* while connected, for a cancel from the main thread */
	atomic_bool done;
};

static int check_one(struct checker *k, struct db_conn *c, struct db_result *res, unsigned t,
		     unsigned w)
{
	char sql[1400];

	for (unsigned i = 0; i < NCHECKS; i++) {
		if (k->stop && *k->stop)
			return -EINTR;
		expand(checks[i].sql, t, w, c->drv->dialect, sql, sizeof(sql));
		int rc = c->drv->query(c, sql, res);
		if (rc && k->stop && *k->stop)
			return -EINTR;  /* the query cancelled at Ctrl-C */
		if (rc) {
			snprintf(k->err, sizeof(k->err), "check %u, warehouse %u, table set %u: %s",
				 checks[i].num, w, t, db_errmsg(c));
			return rc;
		}
		if (db_result_int(res, 0) != 0 && !k->fails[i]++) {
			k->first_w[i] = w;
			k->first_t[i] = t;
		}
	}
	return 0;
}

static void *checker_main(void *arg)
{
	struct checker *k = arg;
	struct db_result *res = xcalloc(1, sizeof(*res));
	struct db_conn *c;

	db_block_signals();
	k->rc = db_tpcc_connect(k->o, false, &c, k->err, sizeof(k->err));
	if (!k->rc) {
		pthread_mutex_lock(&k->mx);
		k->conn = c;
		pthread_mutex_unlock(&k->mx);
		for (unsigned w = k->first; w <= k->o->scale && !k->rc; w += k->step)
			for (unsigned t = 1; t <= k->o->tables && !k->rc; t++)
				k->rc = check_one(k, c, res, t, w);
		if (k->rc == -EINTR)
			snprintf(k->err, sizeof(k->err), "interrupted");
		pthread_mutex_lock(&k->mx);
		k->conn = NULL;
		pthread_mutex_unlock(&k->mx);
		c->drv->disconnect(c);
	}
	free(res);
	atomic_store(&k->done, true);
	return NULL;
}

/*
 * Wait for the @n checkers; at the stop, cancel the query each is running
 * (once), so Ctrl-C does not wait for a long check to end on the server.
 */
static void wait_checkers(struct checker *k, unsigned n, volatile sig_atomic_t *stop)
{
	bool cancelled = false;

	for (unsigned i = 0; i < n; i++) {
		while (!atomic_load(&k[i].done)) {
			if (stop && *stop && !cancelled) {
				cancelled = true;
				for (unsigned j = 0; j < n; j++) {
					pthread_mutex_lock(&k[j].mx);
					if (k[j].conn && k[j].conn->drv->cancel)
						k[j].conn->drv->cancel(k[j].conn);
					pthread_mutex_unlock(&k[j].mx);
				}
			}
			nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
		}
		pthread_join(k[i].tid, NULL);
	}
}

/* One line per check into @report; returns how many failed. */
static unsigned report_lines(const struct checker *k, unsigned n, char *report, size_t len)
{
	size_t j = 0;
	unsigned failed = 0;

	report[0] = '\0';
	for (unsigned i = 0; i < NCHECKS && j < len; i++) {
		unsigned fails = 0, fw = 0, ft = 0;
		for (unsigned x = 0; x < n; x++) {
			if (k[x].fails[i] && !fails) {
				fw = k[x].first_w[i];
				ft = k[x].first_t[i];
			}
			fails += k[x].fails[i];
		}
		failed += fails != 0;
		if (fails)
			j += (size_t)snprintf(report + j, len - j, "%scheck %u FAIL: %s (%u warehouse(s), "
					      "first warehouse %u of set %u)", j ? "\n" : "", checks[i].num,
					      checks[i].what, fails, fw, ft);
		else
			j += (size_t)snprintf(report + j, len - j, "%scheck %u pass: %s", j ? "\n" : "",
					      checks[i].num, checks[i].what);
	}
	return failed;
}

int db_tpcc_check(const struct db_opts *o, unsigned threads, volatile sig_atomic_t *stop,
		  char *report, size_t len, unsigned *failed, char *err, size_t errlen)
{
	unsigned n = threads ? threads : 1;
	int rc = 0;

	if (n > o->scale)
		n = (unsigned)o->scale;
	struct checker *k = xcalloc(n, sizeof(*k));
	unsigned started = 0;
	for (; started < n; started++) {
		k[started] = (struct checker){ .o = o, .stop = stop, .first = started + 1, .step = n };
		pthread_mutex_init(&k[started].mx, NULL);
		if (pthread_create(&k[started].tid, NULL, checker_main, &k[started])) {
			pthread_mutex_destroy(&k[started].mx);
			snprintf(err, errlen, "cannot start a checker thread");
			rc = -EAGAIN;
			break;
		}
	}
	wait_checkers(k, started, stop);
	for (unsigned i = 0; i < started; i++) {
		pthread_mutex_destroy(&k[i].mx);
		if (k[i].rc && !rc) {
			rc = k[i].rc;
			snprintf(err, errlen, "%s", k[i].err);
		}
	}
	if (!rc)
		*failed = report_lines(k, started, report, len);
	free(k);
	return rc;
}
