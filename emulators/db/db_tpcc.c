/*
 * db_tpcc.c - 'appio db run tpcc': Percona-Lab sysbench-tpcc's transactions
 * against a real database.
 *
 * What it reproduces: the "TPC-C like" workload people publish beside
 * SysBench results (sysbench-tpcc's tpcc.lua and tpcc_run.lua), so that a
 * run here compares with theirs. Each transaction picks a table set and a
 * warehouse uniformly, then one of five types with sysbench-tpcc's weights
 * out of 23: New-Order 10, Payment 10, Order-Status, Delivery and
 * Stock-Level 1 each (not the specification's 45/43/4/4/4). The statements
 * are sysbench-tpcc's, in its order, sent as text as it sends them (it
 * prepares none): New-Order reads the customer and warehouse, locks and
 * bumps the district's next order id, inserts the order and its new_orders
 * row, then per line (5 to 15) reads the item, locks and updates the stock
 * and inserts the line; 1 % of New-Orders name an unused item on their
 * next-to-last line and roll back, as the specification asks. Payment,
 * Order-Status (60 % of customers by last name, the middle one of the
 * name), Delivery (ten districts' oldest new order) and Stock-Level
 * (distinct low-stock items of the last 20 orders) follow likewise.
 *
 * Two behaviours of sysbench-tpcc are kept because they shape what the
 * server does and results must compare: its "other warehouse" for remote
 * stock and remote customers is always the home warehouse (its loop ends
 * when the draw equals the home warehouse), and Order-Status reads the
 * lines of order number d_id rather than of the customer's last order (its
 * format arguments are off by one). Order amounts are truncated to whole
 * units as its "%d" truncates them.
 *
 * Counting: a committed transaction is recorded under "txn", under its
 * type and with its statements (reads: SELECT; writes: INSERT, UPDATE,
 * DELETE; other: BEGIN, COMMIT, ROLLBACK) as one unit at its commit. A
 * New-Order rolled back on purpose counts under "txn" (sysbench counts it
 * as an event) and under "rollback", not under new_order, so tpmC = committed
 * New-Orders per minute = 60 x new_order's rate. A deadlock, lock-wait
 * timeout or serialization failure rolls the attempt back and runs the
 * same type again with fresh values: the transaction is counted once, with
 * the retries in its latency, and "retries" (split into "deadlocks",
 * "lock_waits", "serialization") counts the attempts, their statements in
 * "retried_stmts". Any other server error stops the run with its message.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "appio/result.h"
#include "appio/xalloc.h"
#include "db_tpcc.h"
#include "dbmodel/tpcc_mix.h"
#include "sysbench/db_rand.h"

#define SQL_MAX      2048
#define MAX_STMTS    80              /* New-Order with 15 lines: 67; Delivery: 62 */
#define ROLLED_BACK  2               /* a transaction's own rollback (not an error) */

enum { C_TXN, C_READ, C_WRITE, C_OTHER, C_TYPE0,                 /* C_TYPE0 + enum tpcc_txn */
       C_ROLLBACK = C_TYPE0 + TPCC_NTXN };
/* the first four as every db workload's (DB_CNT_*: db_txn_failed() counts them) */
enum { K_ERRORS, K_RETRIES, K_RECONNECTS, K_RETRIED_STMTS, K_DEADLOCKS, K_LOCK_WAITS,
       K_SERIALIZATION };
_Static_assert((int)K_ERRORS == (int)DB_CNT_ERRORS && (int)K_RETRIES == (int)DB_CNT_RETRIES &&
	       (int)K_RECONNECTS == (int)DB_CNT_RECONNECTS &&
	       (int)K_RETRIED_STMTS == (int)DB_CNT_RETRIED_STMTS,
	       "tpcc counts errors and retries where every db workload does");

static const char *const tpcc_classes[] = {
	"txn", "read", "write", "other", "new_order", "payment", "order_status", "delivery",
	"stock_level", "rollback", NULL,
};
static const char *const tpcc_counters[] = {
	"errors", "retries", "reconnects", "retried_stmts", "deadlocks", "lock_waits",
	"serialization", NULL,
};

struct tpcc_run {
	const struct db_opts *o;
	const struct db_driver *drv;
	unsigned tables, scale;
	bool reconnect;
	unsigned npoints;               /* points ended, for their tpmC keys */
};

struct tpcc_worker {
	struct db_conn *conn;
	struct db_result *res;
	char *sql;
	struct emu_sample *done;
	unsigned ndone;
	uint32_t c255, c1023, c8191;    /* NURand's C, drawn per thread as sysbench-tpcc draws them */
};

_Static_assert(sizeof(struct tpcc_run) <= DB_TPCC_RUN_PRIV, "tpcc run state");
_Static_assert(sizeof(struct tpcc_worker) <= DB_TPCC_WORKER_PRIV, "tpcc worker state");

/* One timed statement, formatted from @fmt; rows go to ow->res when @want >= 0. */
__attribute__((format(printf, 4, 5)))
static int sql(struct emu_worker *w, unsigned cls, int want, const char *fmt, ...)
{
	struct tpcc_worker *ow = w->priv;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ow->sql, SQL_MAX, fmt, ap);
	va_end(ap);
	if (want >= 0)
		ow->res->want = (uint64_t)want;
	uint64_t t = emu_now();
	int rc = ow->conn->drv->query(ow->conn, ow->sql, want >= 0 ? ow->res : NULL);
	if (!rc && ow->ndone < MAX_STMTS)
		ow->done[ow->ndone++] = (struct emu_sample){ .cls = cls, .lat_ns = emu_now() - t };
	return rc;
}

/* BEGIN, COMMIT, ROLLBACK through the driver (SQLite: BEGIN IMMEDIATE for writers). */
static int tx(struct emu_worker *w, int what)
{
	struct tpcc_worker *ow = w->priv;
	struct db_conn *c = ow->conn;
	uint64_t t = emu_now();
	int rc = what == 'c' ? c->drv->commit(c) : what == 'r' ? c->drv->rollback(c) :
		 c->drv->begin(c, what == 'w');

	if (!rc && ow->ndone < MAX_STMTS)
		ow->done[ow->ndone++] = (struct emu_sample){ .cls = C_OTHER, .lat_ns = emu_now() - t };
	return rc;
}

static uint32_t uni(struct emu_worker *w, uint32_t a, uint32_t b)
{
	return db_rand_uniform(&w->rng, a, b);
}

/* sysbench-tpcc's other_ware(): its loop only ends on the home warehouse. */
static unsigned other_ware(unsigned home)
{
	return home;
}

/* Which of @n customers of a name: sysbench-tpcc's middle one, 0-based. */
static int middle(int64_t n)
{
	if (n > 1 && n % 2 == 1)
		n++;
	return (int)(n / 2);
}

struct pick {
	unsigned t, w, d;
};

static struct pick pick(struct emu_worker *w, const struct tpcc_run *r)
{
	return (struct pick){ uni(w, 1, r->tables), uni(w, 1, r->scale), uni(w, 1, TPCC_DISTRICTS) };
}

static int new_order_line(struct emu_worker *w, struct pick p, int64_t o_id, unsigned n,
			  const int32_t *item, const unsigned *sup, const unsigned *qty, double mult)
{
	struct tpcc_worker *ow = w->priv;
	const char *fu = ow->conn->drv->dialect->for_update;
	char dist[32];
	int rc;

	if ((rc = sql(w, C_READ, 0, "SELECT i_price, i_name, i_data FROM item%u WHERE i_id = %d",
		      p.t, item[n])) != 0)
		return rc;
	if (!ow->res->rows) {
		rc = tx(w, 'r');
		return rc ? rc : ROLLED_BACK;
	}
	double price = db_result_double(ow->res, 0);
	if ((rc = sql(w, C_READ, 0, "SELECT s_quantity, s_data, s_dist_%02u s_dist FROM stock%u "
		      "WHERE s_i_id = %d AND s_w_id= %u%s", p.d, p.t, item[n], sup[n], fu)) != 0)
		return rc;
	int64_t q = db_result_int(ow->res, 0);
	snprintf(dist, sizeof(dist), "%.24s", db_result_str(ow->res, 2));
	q = q > qty[n] ? q - qty[n] : q - qty[n] + 91;
	if ((rc = sql(w, C_WRITE, -1, "UPDATE stock%u SET s_quantity = %lld WHERE s_i_id = %d "
		      "AND s_w_id= %u", p.t, (long long)q, item[n], sup[n])) != 0)
		return rc;
	return sql(w, C_WRITE, -1, "INSERT INTO order_line%u (ol_o_id, ol_d_id, ol_w_id, ol_number, "
		   "ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, ol_dist_info) VALUES "
		   "(%lld,%u,%u,%u,%d,%u,%u,%lld,'%s')", p.t, (long long)o_id, p.d, p.w, n + 1, item[n],
		   sup[n], qty[n], (long long)(qty[n] * price * mult), dist);
}

static int new_order(struct emu_worker *w, const struct tpcc_run *r, struct tpcc_worker *ow)
{
	struct pick p = pick(w, r);
	const char *fu = ow->conn->drv->dialect->for_update;
	unsigned c_id = (unsigned)tpcc_nurand(&w->rng, 1023, 1, TPCC_CUSTOMERS, ow->c1023);
	unsigned cnt = uni(w, 5, 15), rbk = uni(w, 1, 100), all_local = 1, sup[15], qty[15];
	int32_t item[15];
	int rc;

	for (unsigned i = 0; i < cnt; i++) {
		item[i] = (int32_t)tpcc_nurand(&w->rng, 8191, 1, TPCC_ITEMS, ow->c8191);
		if (i + 2 == cnt && rbk == 1)
			item[i] = -1;
		sup[i] = p.w;
		if (uni(w, 1, 100) == 1) {
			sup[i] = other_ware(p.w);
			all_local = 0;
		}
		qty[i] = uni(w, 1, 10);
	}
	if ((rc = tx(w, 'w')) != 0 ||
	    (rc = sql(w, C_READ, 0, "SELECT c_discount, c_last, c_credit, w_tax FROM customer%u, "
		      "warehouse%u WHERE w_id = %u AND c_w_id = w_id AND c_d_id = %u AND c_id = %u",
		      p.t, p.t, p.w, p.d, c_id)) != 0)
		return rc;
	double disc = db_result_double(ow->res, 0), w_tax = db_result_double(ow->res, 3);
	if ((rc = sql(w, C_READ, 0, "SELECT d_next_o_id, d_tax FROM district%u WHERE d_w_id = %u "
		      "AND d_id = %u%s", p.t, p.w, p.d, fu)) != 0)
		return rc;
	int64_t o_id = db_result_int(ow->res, 0);
	double mult = (1 + w_tax + db_result_double(ow->res, 1)) * (1 - disc);
	if ((rc = sql(w, C_WRITE, -1, "UPDATE district%u SET d_next_o_id = %lld WHERE d_id = %u AND "
		      "d_w_id= %u", p.t, (long long)o_id + 1, p.d, p.w)) != 0 ||
	    (rc = sql(w, C_WRITE, -1, "INSERT INTO orders%u (o_id, o_d_id, o_w_id, o_c_id, o_entry_d, "
		      "o_ol_cnt, o_all_local) VALUES (%lld,%u,%u,%u,CURRENT_TIMESTAMP,%u,%u)", p.t,
		      (long long)o_id, p.d, p.w, c_id, cnt, all_local)) != 0 ||
	    (rc = sql(w, C_WRITE, -1, "INSERT INTO new_orders%u (no_o_id, no_d_id, no_w_id) VALUES "
		      "(%lld,%u,%u)", p.t, (long long)o_id, p.d, p.w)) != 0)
		return rc;
	for (unsigned n = 0; n < cnt; n++)
		if ((rc = new_order_line(w, p, o_id, n, item, sup, qty, mult)) != 0)
			return rc;
	return tx(w, 'c');
}

/* Payment's and Order-Status's customer by last name: count, then the middle one. */
static int by_name(struct emu_worker *w, struct pick p, unsigned c_w, unsigned c_d,
		   const char *cols, unsigned id_col, unsigned *c_id)
{
	struct tpcc_worker *ow = w->priv;
	char last[16];
	int rc;

	db_tpcc_lastname((unsigned)tpcc_nurand(&w->rng, 255, 0, 999, ow->c255), last);
	if ((rc = sql(w, C_READ, 0, "SELECT count(c_id) namecnt FROM customer%u WHERE c_w_id = %u "
		      "AND c_d_id= %u AND c_last='%s'", p.t, c_w, c_d, last)) != 0)
		return rc;
	int k = middle(db_result_int(ow->res, 0));
	if ((rc = sql(w, C_READ, k, "SELECT %s FROM customer%u WHERE c_w_id = %u AND c_d_id= %u AND "
		      "c_last='%s' ORDER BY c_first", cols, p.t, c_w, c_d, last)) != 0)
		return rc;
	if (ow->res->ncols > id_col)
		*c_id = (unsigned)db_result_int(ow->res, id_col);
	return 0;
}

static int payment_customer(struct emu_worker *w, struct pick p, unsigned c_w, unsigned c_d,
			    unsigned c_id, unsigned h, const char *w_name, const char *d_name)
{
	struct tpcc_worker *ow = w->priv;
	char data[520], when[16];
	int rc;

	if ((rc = sql(w, C_READ, 0, "SELECT c_first, c_middle, c_last, c_street_1, c_street_2, c_city, "
		      "c_state, c_zip, c_phone, c_credit, c_credit_lim, c_discount, c_balance, "
		      "c_ytd_payment, c_since FROM customer%u WHERE c_w_id = %u AND c_d_id= %u AND "
		      "c_id=%u%s", p.t, c_w, c_d, c_id, ow->conn->drv->dialect->for_update)) != 0)
		return rc;
	double bal = db_result_double(ow->res, 12) - h, ytd = db_result_double(ow->res, 13) + h;
	if (!strcmp(db_result_str(ow->res, 9), "BC")) {
		if ((rc = sql(w, C_READ, 0, "SELECT c_data FROM customer%u WHERE c_w_id = %u AND "
			      "c_d_id=%u AND c_id= %u", p.t, c_w, c_d, c_id)) != 0)
			return rc;
		snprintf(when, sizeof(when), "%lld", (long long)time(NULL));
		snprintf(data, 501, "| %4u %2u %4u %2u %4u $%7.2f %12s %24s", c_id, c_d, c_w, p.d, p.w,
			 (double)h, when, db_result_str(ow->res, 0));
		rc = sql(w, C_WRITE, -1, "UPDATE customer%u SET c_balance=%f, c_ytd_payment=%f, "
			 "c_data='%s' WHERE c_w_id = %u AND c_d_id=%u AND c_id=%u", p.t, bal, ytd, data,
			 c_w, c_d, c_id);
	} else {
		rc = sql(w, C_WRITE, -1, "UPDATE customer%u SET c_balance=%f, c_ytd_payment=%f WHERE "
			 "c_w_id = %u AND c_d_id=%u AND c_id=%u", p.t, bal, ytd, c_w, c_d, c_id);
	}
	if (rc)
		return rc;
	return sql(w, C_WRITE, -1, "INSERT INTO history%u (h_c_d_id, h_c_w_id, h_c_id, h_d_id, h_w_id, "
		   "h_date, h_amount, h_data) VALUES (%u,%u,%u,%u,%u,CURRENT_TIMESTAMP,%u,'%10s %10s   ')",
		   p.t, c_d, c_w, c_id, p.d, p.w, h, w_name, d_name);
}

static int payment(struct emu_worker *w, const struct tpcc_run *r, struct tpcc_worker *ow)
{
	struct pick p = pick(w, r);
	unsigned c_id = (unsigned)tpcc_nurand(&w->rng, 1023, 1, TPCC_CUSTOMERS, ow->c1023);
	unsigned h = uni(w, 1, 5000), c_w = p.w, c_d = p.d;
	bool byname = uni(w, 1, 100) <= 60;
	char w_name[16], d_name[16];
	int rc;

	if (uni(w, 1, 100) > 85) {
		c_w = other_ware(p.w);
		c_d = uni(w, 1, TPCC_DISTRICTS);
	}
	if ((rc = tx(w, 'w')) != 0 ||
	    (rc = sql(w, C_WRITE, -1, "UPDATE warehouse%u SET w_ytd = w_ytd + %u WHERE w_id = %u",
		      p.t, h, p.w)) != 0 ||
	    (rc = sql(w, C_READ, 0, "SELECT w_street_1, w_street_2, w_city, w_state, w_zip, w_name "
		      "FROM warehouse%u WHERE w_id = %u", p.t, p.w)) != 0)
		return rc;
	snprintf(w_name, sizeof(w_name), "%.10s", db_result_str(ow->res, 5));
	if ((rc = sql(w, C_WRITE, -1, "UPDATE district%u SET d_ytd = d_ytd + %u WHERE d_w_id = %u "
		      "AND d_id= %u", p.t, h, p.w, p.d)) != 0 ||
	    (rc = sql(w, C_READ, 0, "SELECT d_street_1, d_street_2, d_city, d_state, d_zip, d_name "
		      "FROM district%u WHERE d_w_id = %u AND d_id = %u", p.t, p.w, p.d)) != 0)
		return rc;
	snprintf(d_name, sizeof(d_name), "%.10s", db_result_str(ow->res, 5));
	if (byname && (rc = by_name(w, p, c_w, c_d, "c_id", 0, &c_id)) != 0)
		return rc;
	if ((rc = payment_customer(w, p, c_w, c_d, c_id, h, w_name, d_name)) != 0)
		return rc;
	return tx(w, 'c');
}

static int order_status(struct emu_worker *w, const struct tpcc_run *r, struct tpcc_worker *ow)
{
	struct pick p = pick(w, r);
	unsigned c_id = (unsigned)tpcc_nurand(&w->rng, 1023, 1, TPCC_CUSTOMERS, ow->c1023);
	bool byname = uni(w, 1, 100) <= 60;
	int rc;

	if ((rc = tx(w, 'b')) != 0)
		return rc;
	if (byname)
		rc = by_name(w, p, p.w, p.d, "c_balance, c_first, c_middle, c_id", 3, &c_id);
	else
		rc = sql(w, C_READ, 0, "SELECT c_balance, c_first, c_middle, c_last FROM customer%u "
			 "WHERE c_w_id = %u AND c_d_id=%u AND c_id=%u", p.t, p.w, p.d, c_id);
	if (rc || (rc = sql(w, C_READ, 0, "SELECT o_id, o_carrier_id, o_entry_d FROM orders%u WHERE "
			    "o_w_id = %u AND o_d_id = %u AND o_c_id = %u ORDER BY o_id DESC", p.t, p.w,
			    p.d, c_id)) != 0)
		return rc;
	/* sysbench-tpcc reads the lines of order d_id (see the top of the file) */
	if ((rc = sql(w, C_READ, -1, "SELECT ol_i_id, ol_supply_w_id, ol_quantity, ol_amount, "
		      "ol_delivery_d FROM order_line%u WHERE ol_w_id = %u AND ol_d_id = %u AND "
		      "ol_o_id = %u", p.t, p.w, p.d, p.d)) != 0)
		return rc;
	return tx(w, 'c');
}

static int deliver_district(struct emu_worker *w, struct pick p, unsigned carrier)
{
	struct tpcc_worker *ow = w->priv;
	int rc;

	if ((rc = sql(w, C_READ, 0, "SELECT no_o_id FROM new_orders%u WHERE no_d_id = %u AND "
		      "no_w_id = %u ORDER BY no_o_id ASC LIMIT 1%s", p.t, p.d, p.w,
		      ow->conn->drv->dialect->for_update)) != 0 || !ow->res->rows)
		return rc;
	long long o = (long long)db_result_int(ow->res, 0);
	if ((rc = sql(w, C_WRITE, -1, "DELETE FROM new_orders%u WHERE no_o_id = %lld AND no_d_id = %u "
		      "AND no_w_id = %u", p.t, o, p.d, p.w)) != 0 ||
	    (rc = sql(w, C_READ, 0, "SELECT o_c_id FROM orders%u WHERE o_id = %lld AND o_d_id = %u "
		      "AND o_w_id = %u", p.t, o, p.d, p.w)) != 0)
		return rc;
	long long c = (long long)db_result_int(ow->res, 0);
	if ((rc = sql(w, C_WRITE, -1, "UPDATE orders%u SET o_carrier_id = %u WHERE o_id = %lld AND "
		      "o_d_id = %u AND o_w_id = %u", p.t, carrier, o, p.d, p.w)) != 0 ||
	    (rc = sql(w, C_WRITE, -1, "UPDATE order_line%u SET ol_delivery_d = CURRENT_TIMESTAMP WHERE "
		      "ol_o_id = %lld AND ol_d_id = %u AND ol_w_id = %u", p.t, o, p.d, p.w)) != 0 ||
	    (rc = sql(w, C_READ, 0, "SELECT SUM(ol_amount) sm FROM order_line%u WHERE ol_o_id = %lld "
		      "AND ol_d_id = %u AND ol_w_id = %u", p.t, o, p.d, p.w)) != 0)
		return rc;
	return sql(w, C_WRITE, -1, "UPDATE customer%u SET c_balance = c_balance + %f, c_delivery_cnt = "
		   "c_delivery_cnt + 1 WHERE c_id = %lld AND c_d_id = %u AND c_w_id = %u", p.t,
		   db_result_double(ow->res, 0), c, p.d, p.w);
}

static int delivery(struct emu_worker *w, const struct tpcc_run *r, struct tpcc_worker *ow)
{
	struct pick p = pick(w, r);
	unsigned carrier = uni(w, 1, 10);
	int rc;

	(void)ow;
	if ((rc = tx(w, 'w')) != 0)
		return rc;
	for (p.d = 1; p.d <= TPCC_DISTRICTS; p.d++)
		if ((rc = deliver_district(w, p, carrier)) != 0)
			return rc;
	return tx(w, 'c');
}

static int stock_level(struct emu_worker *w, const struct tpcc_run *r, struct tpcc_worker *ow)
{
	struct pick p = pick(w, r);
	unsigned level = uni(w, 10, 20);
	int rc;

	if ((rc = tx(w, 'b')) != 0 ||
	    (rc = sql(w, C_READ, 0, "SELECT d_next_o_id FROM district%u WHERE d_id = %u AND d_w_id= %u",
		      p.t, p.d, p.w)) != 0)
		return rc;
	long long next = (long long)db_result_int(ow->res, 0);
	if ((rc = sql(w, C_READ, -1, "SELECT COUNT(DISTINCT (s_i_id)) FROM order_line%u, stock%u "
		      "WHERE ol_w_id = %u AND ol_d_id = %u AND ol_o_id < %lld AND ol_o_id >= %lld AND "
		      "s_w_id= %u AND s_i_id=ol_i_id AND s_quantity < %u", p.t, p.t, p.w, p.d, next,
		      next - 20, p.w, level)) != 0)
		return rc;
	return tx(w, 'c');
}

/* The mix: sysbench-tpcc's event(), weights out of 23, by enum tpcc_txn. */
static const struct {
	unsigned upto;                  /* uniform(1, 23) <= upto */
	int (*fn)(struct emu_worker *w, const struct tpcc_run *r, struct tpcc_worker *ow);
} mix[TPCC_NTXN] = {
	[TPCC_NEW_ORDER] = { 10, new_order },
	[TPCC_PAYMENT] = { 20, payment },
	[TPCC_ORDER_STATUS] = { 21, order_status },
	[TPCC_DELIVERY] = { 22, delivery },
	[TPCC_STOCK_LEVEL] = { 23, stock_level },
};

int db_tpcc_setup(struct emu_run *run, char *err, size_t errlen)
{
	const struct db_opts *o = run->opts;
	struct tpcc_run *r = run->priv;

	if (db_opts_check(o, err, errlen))
		return -EINVAL;
	if (o->capture) {
		snprintf(err, errlen, "--capture: not with the tpcc workload yet (only the OLTP ones)");
		return -EINVAL;
	}
	r->o = o;
	r->drv = db_opts_driver(o);
	r->tables = (unsigned)o->tables;
	r->scale = (unsigned)o->scale;
	r->reconnect = o->reconnect;
	run->classes = tpcc_classes;
	run->counters = tpcc_counters;
	run->headline = "txn";
	run->writes = false;            /* nothing goes to a target: the server writes */
	run->max_io = 0;
	return 0;
}

int db_tpcc_worker_init(struct emu_worker *w)
{
	const struct tpcc_run *r = w->run->priv;
	struct tpcc_worker *ow = w->priv;
	char err[600];

	db_block_signals();
	ow->res = xcalloc(1, sizeof(*ow->res));
	ow->sql = xmalloc(SQL_MAX);
	ow->done = xcalloc(MAX_STMTS + 2, sizeof(*ow->done));
	ow->c255 = uni(w, 0, 255);
	ow->c1023 = uni(w, 0, 1023);
	ow->c8191 = uni(w, 0, 8191);
	if (db_tpcc_connect(r->o, false, &ow->conn, err, sizeof(err)))
		return emu_fail(w, -EIO, "%s", err);
	return 0;
}

void db_tpcc_worker_fini(struct emu_worker *w)
{
	const struct tpcc_run *r = w->run->priv;
	struct tpcc_worker *ow = w->priv;

	if (ow->conn)
		r->drv->disconnect(ow->conn);
	free(ow->res);
	free(ow->sql);
	free(ow->done);
	memset(ow, 0, sizeof(*ow));
}

/* db_retry's connect: the worker's connection, its session set as the options say. */
static int tpcc_connect(struct emu_worker *w, char *err, size_t errlen)
{
	const struct tpcc_run *r = w->run->priv;
	struct tpcc_worker *ow = w->priv;

	return db_tpcc_connect(r->o, false, &ow->conn, err, errlen);
}

/* A retry counted by its cause, indexed by enum db_retry_why. */
static const unsigned why_counter[] = {
	[DB_WHY_DEADLOCK] = K_DEADLOCKS, [DB_WHY_LOCK_WAIT] = K_LOCK_WAITS,
	[DB_WHY_SERIALIZATION] = K_SERIALIZATION,
};

/* Record the finished transaction and its statements as one unit under @cls. */
static void record(struct emu_worker *w, struct tpcc_worker *ow, uint64_t t0, unsigned cls)
{
	uint64_t t = emu_now();

	ow->done[ow->ndone++] = (struct emu_sample){ .cls = cls, .lat_ns = t - t0 };
	ow->done[ow->ndone++] = (struct emu_sample){ .cls = C_TXN, .lat_ns = t - t0 };
	emu_record_group(w, ow->done, ow->ndone, t);
	ow->ndone = 0;
}

int db_tpcc_step(struct emu_worker *w)
{
	const struct tpcc_run *r = w->run->priv;
	struct tpcc_worker *ow = w->priv;
	unsigned draw = uni(w, 1, 23), type = 0;
	uint64_t t0 = emu_step_start(w);
	const struct db_retry rt = { .drv = r->drv, .conn = &ow->conn, .reconnect = r->reconnect,
				     .why_cnt = why_counter, .connect = tpcc_connect };
	int out;

	while (draw > mix[type].upto)
		type++;
	for (;;) {
		ow->ndone = 0;
		int rc = mix[type].fn(w, r, ow);
		if (rc == 0 || rc == ROLLED_BACK) {
			record(w, ow, t0, rc ? C_ROLLBACK : C_TYPE0 + type);
			return 0;
		}
		if (db_txn_failed(w, &rt, rc, ow->ndone, &out))
			return out;
	}
}

/* tpmC into the result's info, as the tpcc emulator keeps it: tpcc.tpmC, tpcc.2.tpmC, ... */
void db_tpcc_point_end(struct emu_run *run, const struct point_result *p)
{
	struct tpcc_run *r = run->priv;
	const struct cls_result *no = point_class(p, "new_order");
	char key[32], val[32];

	if (++r->npoints > 1)
		snprintf(key, sizeof(key), "tpcc.%u.tpmC", r->npoints);
	else
		snprintf(key, sizeof(key), "tpcc.tpmC");
	snprintf(val, sizeof(val), "%.1f", no ? no->ops_per_s * 60 : 0);
	emu_info(run, key, val);
}

void db_tpcc_summary(const void *opts, const struct result *res, FILE *f)
{
	(void)opts;
	for (unsigned i = 0; i < res->npoints; i++) {
		const struct point_result *p = &res->points[i];
		const struct cls_result *tx = point_class(p, "txn"), *no = point_class(p, "new_order");
		const struct cls_result *rb = point_class(p, "rollback");
		if (!tx || !no || !rb || p->ncounters <= K_SERIALIZATION)
			continue;
		const uint64_t *k = p->counters;
		fprintf(f, "\n%-8s %10s %10s %8s %9s %10s %13s %9s %7s\n", "threads", "TPS", "tpmC",
			"retries", "deadlocks", "lock_waits", "serialization", "rollbacks", "reconn");
		fprintf(f, "%-8u %10.1f %10.1f %8llu %9llu %10llu %13llu %9llu %7llu%s\n",
			p->pt.threads, tx->ops_per_s, no->ops_per_s * 60,
			(unsigned long long)k[K_RETRIES], (unsigned long long)k[K_DEADLOCKS],
			(unsigned long long)k[K_LOCK_WAITS], (unsigned long long)k[K_SERIALIZATION],
			(unsigned long long)rb->ops, (unsigned long long)k[K_RECONNECTS],
			p->partial ? " (p)" : "");
		result_print_class_rows(p, "transaction", &tpcc_classes[C_TYPE0], f);
	}
}
