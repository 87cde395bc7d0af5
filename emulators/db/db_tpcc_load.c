/*
 * db_tpcc_load.c - 'appio db prepare|cleanup tpcc': sysbench-tpcc's schema
 * and data set, and the probes 'run' and 'prepare' make first.
 *
 * The schema is Percona-Lab sysbench-tpcc's, per table set N (--tables):
 * warehouseN, districtN, customerN, historyN (no primary key), ordersN,
 * new_ordersN, order_lineN, stockN and itemN with its columns, types and
 * primary keys, its six secondary indexes (idx_customerN, idx_ordersN,
 * fkey_stock_2N, fkey_order_line_2N, fkey_history_1N, fkey_history_2N) and,
 * with --use-fk (the default), its ten foreign keys. Types follow the
 * server as sysbench-tpcc's do: tinyint and datetime on MySQL, smallint and
 * timestamp elsewhere. SQLite cannot add a foreign key to a table, so it
 * has none.
 *
 * The data follow sysbench-tpcc's loader: per set 100,000 items; per
 * warehouse 10 districts (d_next_o_id 3001), 30,000 customers (the first
 * 1,000 of a district named by their number, the rest by NURand(255),
 * 10 % bad credit, c_data a letter repeated 300 to 500 times), one history
 * row each, 3,000 orders per district for a shuffled permutation of the
 * customers (orders 2101..3000 undelivered, with a new_orders row and no
 * carrier), 5 to 15 order lines each, and 100,000 stock rows. Random text is
 * sysbench's: '@' a lowercase letter, '#' a digit. Dates are the load's
 * start time.
 *
 * As sysbench-tpcc does, each set is created (items, indexes, foreign keys
 * included) by one thread before any warehouse is loaded, and warehouses are
 * then loaded in parallel, one per thread at a time, each into every set;
 * unlike its loader, which sleeps 30 s between the two phases, appio joins
 * the first phase's threads. Rows go in as multi-row INSERTs of about
 * 256 KiB, each its own transaction, as sysbench's bulk inserts go.
 */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "appio/xalloc.h"
#include "db_tpcc.h"
#include "dbmodel/tpcc_mix.h"
#include "sysbench/db_rand.h"

#define BULK_MAX    (256 * 1024)        /* flush an INSERT at this many bytes */
#define ROW_MAX     2048                /* longest row text */
#define LOAD_STREAM 0x7C000000ULL       /* row streams: + (set << 20) + warehouse */

const char *const db_tpcc_tables[TPCC_NTABLES] = {
	"history", "new_orders", "order_line", "orders", "customer", "district", "stock",
	"item", "warehouse",
};

/* sysbench-tpcc's schema; $N is the set's number, $T the tinyint type, $D the datetime type. */
static const char *const create_sql[TPCC_NTABLES] = {
	"CREATE TABLE warehouse$N (w_id smallint not null, w_name varchar(10), "
	"w_street_1 varchar(20), w_street_2 varchar(20), w_city varchar(20), w_state char(2), "
	"w_zip char(9), w_tax decimal(4,2), w_ytd decimal(12,2), primary key (w_id))",
	"CREATE TABLE district$N (d_id $T not null, d_w_id smallint not null, d_name varchar(10), "
	"d_street_1 varchar(20), d_street_2 varchar(20), d_city varchar(20), d_state char(2), "
	"d_zip char(9), d_tax decimal(4,2), d_ytd decimal(12,2), d_next_o_id int, "
	"primary key (d_w_id, d_id))",
	"CREATE TABLE customer$N (c_id int not null, c_d_id $T not null, c_w_id smallint not null, "
	"c_first varchar(16), c_middle char(2), c_last varchar(16), c_street_1 varchar(20), "
	"c_street_2 varchar(20), c_city varchar(20), c_state char(2), c_zip char(9), "
	"c_phone char(16), c_since $D, c_credit char(2), c_credit_lim bigint, "
	"c_discount decimal(4,2), c_balance decimal(12,2), c_ytd_payment decimal(12,2), "
	"c_payment_cnt smallint, c_delivery_cnt smallint, c_data text, "
	"PRIMARY KEY(c_w_id, c_d_id, c_id))",
	"CREATE TABLE history$N (h_c_id int, h_c_d_id $T, h_c_w_id smallint, h_d_id $T, "
	"h_w_id smallint, h_date $D, h_amount decimal(6,2), h_data varchar(24))",
	"CREATE TABLE orders$N (o_id int not null, o_d_id $T not null, o_w_id smallint not null, "
	"o_c_id int, o_entry_d $D, o_carrier_id $T, o_ol_cnt $T, o_all_local $T, "
	"PRIMARY KEY(o_w_id, o_d_id, o_id))",
	"CREATE TABLE new_orders$N (no_o_id int not null, no_d_id $T not null, "
	"no_w_id smallint not null, PRIMARY KEY(no_w_id, no_d_id, no_o_id))",
	"CREATE TABLE order_line$N (ol_o_id int not null, ol_d_id $T not null, "
	"ol_w_id smallint not null, ol_number $T not null, ol_i_id int, ol_supply_w_id smallint, "
	"ol_delivery_d $D, ol_quantity $T, ol_amount decimal(6,2), ol_dist_info char(24), "
	"PRIMARY KEY(ol_w_id, ol_d_id, ol_o_id, ol_number))",
	"CREATE TABLE stock$N (s_i_id int not null, s_w_id smallint not null, s_quantity smallint, "
	"s_dist_01 char(24), s_dist_02 char(24), s_dist_03 char(24), s_dist_04 char(24), "
	"s_dist_05 char(24), s_dist_06 char(24), s_dist_07 char(24), s_dist_08 char(24), "
	"s_dist_09 char(24), s_dist_10 char(24), s_ytd decimal(8,0), s_order_cnt smallint, "
	"s_remote_cnt smallint, s_data varchar(50), PRIMARY KEY(s_w_id, s_i_id))",
	"CREATE TABLE item$N (i_id int not null, i_im_id int, i_name varchar(24), "
	"i_price decimal(5,2), i_data varchar(50), PRIMARY KEY(i_id))",
};

static const char *const index_sql[] = {
	"CREATE INDEX idx_customer$N ON customer$N (c_w_id,c_d_id,c_last,c_first)",
	"CREATE INDEX idx_orders$N ON orders$N (o_w_id,o_d_id,o_c_id,o_id)",
	"CREATE INDEX fkey_stock_2$N ON stock$N (s_i_id)",
	"CREATE INDEX fkey_order_line_2$N ON order_line$N (ol_supply_w_id,ol_i_id)",
	"CREATE INDEX fkey_history_1$N ON history$N (h_c_w_id,h_c_d_id,h_c_id)",
	"CREATE INDEX fkey_history_2$N ON history$N (h_w_id,h_d_id)",
	NULL,
};

static const char *const fk_sql[] = {
	"ALTER TABLE new_orders$N ADD CONSTRAINT fkey_new_orders_1_$N FOREIGN KEY(no_w_id,no_d_id,no_o_id) "
	"REFERENCES orders$N(o_w_id,o_d_id,o_id)",
	"ALTER TABLE orders$N ADD CONSTRAINT fkey_orders_1_$N FOREIGN KEY(o_w_id,o_d_id,o_c_id) "
	"REFERENCES customer$N(c_w_id,c_d_id,c_id)",
	"ALTER TABLE customer$N ADD CONSTRAINT fkey_customer_1_$N FOREIGN KEY(c_w_id,c_d_id) "
	"REFERENCES district$N(d_w_id,d_id)",
	"ALTER TABLE history$N ADD CONSTRAINT fkey_history_1_$N FOREIGN KEY(h_c_w_id,h_c_d_id,h_c_id) "
	"REFERENCES customer$N(c_w_id,c_d_id,c_id)",
	"ALTER TABLE history$N ADD CONSTRAINT fkey_history_2_$N FOREIGN KEY(h_w_id,h_d_id) "
	"REFERENCES district$N(d_w_id,d_id)",
	"ALTER TABLE district$N ADD CONSTRAINT fkey_district_1_$N FOREIGN KEY(d_w_id) "
	"REFERENCES warehouse$N(w_id)",
	"ALTER TABLE order_line$N ADD CONSTRAINT fkey_order_line_1_$N FOREIGN KEY(ol_w_id,ol_d_id,ol_o_id) "
	"REFERENCES orders$N(o_w_id,o_d_id,o_id)",
	"ALTER TABLE order_line$N ADD CONSTRAINT fkey_order_line_2_$N FOREIGN KEY(ol_supply_w_id,ol_i_id) "
	"REFERENCES stock$N(s_w_id,s_i_id)",
	"ALTER TABLE stock$N ADD CONSTRAINT fkey_stock_1_$N FOREIGN KEY(s_w_id) REFERENCES warehouse$N(w_id)",
	"ALTER TABLE stock$N ADD CONSTRAINT fkey_stock_2_$N FOREIGN KEY(s_i_id) REFERENCES item$N(i_id)",
	NULL,
};

void db_tpcc_lastname(unsigned num, char *buf)
{
	static const char *const syl[10] = {
		"BAR", "OUGHT", "ABLE", "PRI", "PRES", "ESE", "ANTI", "CALLY", "ATION", "EING",
	};
	snprintf(buf, 16, "%s%s%s", syl[num / 100 % 10], syl[num / 10 % 10], syl[num % 10]);
}

void db_tpcc_expand(const char *tmpl, const char *const vals[26], char *out, size_t len)
{
	size_t j = 0;

	for (const char *p = tmpl; *p && j + 1 < len; p++) {
		const char *v = p[0] == '$' && p[1] >= 'A' && p[1] <= 'Z' ? vals[p[1] - 'A'] : NULL;
		if (!v) {
			out[j++] = *p;
			continue;
		}
		p++;
		j += (size_t)snprintf(out + j, len - j, "%s", v);
		if (j >= len)
			j = len - 1;
	}
	out[j] = '\0';
}

/* Expand $N (table set @t), $T and $D (the dialect's tiny integer and date-time types). */
static void expand(const char *tmpl, unsigned t, const struct db_dialect *d, char *out, size_t len)
{
	char n[16];
	const char *vals[26] = { ['N' - 'A'] = n, ['T' - 'A'] = d->tinyint, ['D' - 'A'] = d->datetime };

	snprintf(n, sizeof(n), "%u", t);
	db_tpcc_expand(tmpl, vals, out, len);
}

int db_tpcc_connect(const struct db_opts *o, bool create, struct db_conn **c,
		    char *err, size_t errlen)
{
	const struct db_driver *drv = db_opts_driver(o);
	const struct db_dialect *d = drv->dialect;
	struct db_conn_cfg cfg;
	char sql[160];

	db_opts_conn_cfg(o, &cfg);
	cfg.create = create;
	int rc = drv->connect(&cfg, c, err, errlen);
	if (rc)
		return rc;
	if (d->isolation) {
		snprintf(sql, sizeof(sql), d->isolation, db_trx_level_sql[o->trx_level]);
		rc = drv->exec(*c, sql);
	}
	if (!rc && d->run_session)
		rc = drv->exec(*c, d->run_session);
	if (rc) {
		snprintf(err, errlen, "%s", db_errmsg(*c));
		drv->disconnect(*c);
		*c = NULL;
	}
	return rc;
}

/* ---- multi-row INSERTs ---- */

struct bulk {
	struct db_conn *c;
	char *buf;
	size_t head, len;
	uint64_t *rows;
	volatile sig_atomic_t *stop;
	int rc;
};

static int bulk_flush(struct bulk *b)
{
	if (!b->rc && b->len > b->head) {
		b->buf[b->len] = '\0';
		b->rc = b->c->drv->exec(b->c, b->buf);
		if (!b->rc && b->stop && *b->stop)
			b->rc = -EINTR;
	}
	b->len = b->head;
	return b->rc;
}

/* Start an INSERT INTO @table (@cols) VALUES ... */
static void bulk_start(struct bulk *b, const char *table, unsigned t, const char *cols)
{
	b->len = b->head = (size_t)snprintf(b->buf, BULK_MAX, "INSERT INTO %s%u (%s) VALUES ",
					    table, t, cols);
}

__attribute__((format(printf, 2, 3)))
static int bulk_row(struct bulk *b, const char *fmt, ...)
{
	va_list ap;

	if (b->rc)
		return b->rc;
	if (b->len > b->head)
		b->buf[b->len++] = ',';
	va_start(ap, fmt);
	int n = vsnprintf(b->buf + b->len, BULK_MAX + ROW_MAX - b->len, fmt, ap);
	va_end(ap);
	b->len += n > 0 ? (size_t)n : 0;
	(*b->rows)++;
	return b->len >= BULK_MAX ? bulk_flush(b) : 0;
}

/* ---- random text, as sysbench.rand.string makes it ---- */

static uint32_t uni(struct rng *r, uint32_t a, uint32_t b)
{
	return db_rand_uniform(r, a, b);
}

/* @n random lowercase letters ('@'), or digits ('#'), NUL-terminated. */
static char *rnd(struct rng *r, char kind, unsigned n, char *buf)
{
	for (unsigned i = 0; i < n; i++)
		buf[i] = kind == '#' ? (char)('0' + uni(r, 0, 9)) : (char)('a' + uni(r, 0, 25));
	buf[n] = '\0';
	return buf;
}

/* One random letter repeated @n times (sysbench-tpcc's string.rep of a one-letter string). */
static char *rep(struct rng *r, unsigned n, char *buf)
{
	memset(buf, 'a' + (int)uni(r, 0, 25), n);
	buf[n] = '\0';
	return buf;
}

/* ---- loaders ---- */

struct loader {
	const struct db_opts *o;
	uint64_t seed;
	volatile sig_atomic_t *stop;
	unsigned first, step;           /* sets or warehouses first, first + step, ... */
	bool phase2;                    /* loading warehouses, not creating sets */
	atomic_uint *done;              /* warehouses finished, all loaders */
	atomic_uint *finished;          /* loaders finished */
	const char *now;
	uint64_t rows;
	struct bulk b;
	uint16_t perm[TPCC_CUSTOMERS];
	uint8_t ol_cnt[TPCC_DISTRICTS][TPCC_CUSTOMERS];
	int rc;
	char err[600];
	pthread_t tid;
};

static int load_items(struct loader *l, unsigned t)
{
	struct bulk *b = &l->b;
	struct rng r;
	char name[64], data[96], s1[8], s2[8];

	rng_seed(&r, l->seed, LOAD_STREAM + ((uint64_t)t << 20));
	bulk_start(b, "item", t, "i_id, i_im_id, i_name, i_price, i_data");
	for (unsigned i = 1; i <= TPCC_ITEMS && !b->rc; i++) {
		unsigned im = uni(&r, 1, 10000);
		double price = rng_double(&r) * 100 + 1;
		snprintf(name, sizeof(name), "item-%u-%f-%s", im, price, rnd(&r, '@', 5, s1));
		snprintf(data, sizeof(data), "data-%s-%s", name, rnd(&r, '@', 5, s2));
		bulk_row(b, "(%u,%u,'%.24s',%.2f,'%.50s')", i, im, name, price, data);
	}
	return bulk_flush(b);
}

static int exec_all(struct db_conn *c, const char *const *sql, unsigned t, char *buf, size_t len)
{
	int rc = 0;

	for (unsigned i = 0; sql[i] && !rc; i++) {
		expand(sql[i], t, c->drv->dialect, buf, len);
		rc = c->drv->exec(c, buf);
	}
	return rc;
}

/* Phase 1: set @t's tables, items, indexes and foreign keys. */
static int create_set(struct loader *l, struct db_conn *c, unsigned t)
{
	const struct db_dialect *d = c->drv->dialect;
	char sql[1200];
	int rc = 0;

	for (unsigned i = 0; i < TPCC_NTABLES && !rc; i++) {
		expand(create_sql[i], t, d, sql, sizeof(sql) - 64);
		strcat(sql, d->table_opts);
		rc = c->drv->exec(c, sql);
	}
	if (!rc)
		rc = load_items(l, t);
	if (!rc)
		rc = exec_all(c, index_sql, t, sql, sizeof(sql));
	if (!rc && l->o->use_fk && d->fk)
		rc = exec_all(c, fk_sql, t, sql, sizeof(sql));
	return rc;
}

/* The warehouse row and its districts: names and addresses of random letters. */
static int load_heads(struct loader *l, struct rng *r, unsigned t, unsigned w)
{
	struct bulk *b = &l->b;
	char a[6][16];

	bulk_start(b, "warehouse", t, "w_id, w_name, w_street_1, w_street_2, w_city, w_state, "
		   "w_zip, w_tax, w_ytd");
	bulk_row(b, "(%u,'name-%s','street1-%s','street2-%s','city-%s','%s','zip-%s',%.2f,300000)", w,
		 rnd(r, '@', 5, a[0]), rnd(r, '@', 10, a[1]), rnd(r, '@', 10, a[2]),
		 rnd(r, '@', 10, a[3]), rnd(r, '@', 2, a[4]), rnd(r, '#', 5, a[5]), rng_double(r) * 0.2);
	bulk_flush(b);
	bulk_start(b, "district", t, "d_id, d_w_id, d_name, d_street_1, d_street_2, d_city, "
		   "d_state, d_zip, d_tax, d_ytd, d_next_o_id");
	for (unsigned d = 1; d <= TPCC_DISTRICTS; d++)
		bulk_row(b, "(%u,%u,'name-%s','street1-%s','street2-%s','city-%s','%s','zip-%s',%.2f,"
			 "30000,%u)", d, w, rnd(r, '@', 5, a[0]), rnd(r, '@', 10, a[1]),
			 rnd(r, '@', 10, a[2]), rnd(r, '@', 10, a[3]), rnd(r, '@', 2, a[4]),
			 rnd(r, '#', 5, a[5]), rng_double(r) * 0.2, TPCC_CUSTOMERS + 1);
	return bulk_flush(b);
}

static int load_customers(struct loader *l, struct rng *r, unsigned t, unsigned w, uint32_t c255)
{
	struct bulk *b = &l->b;
	char a[7][24], last[16], data[512];

	bulk_start(b, "customer", t, "c_id, c_d_id, c_w_id, c_first, c_middle, c_last, c_street_1, "
		   "c_street_2, c_city, c_state, c_zip, c_phone, c_since, c_credit, c_credit_lim, "
		   "c_discount, c_balance, c_ytd_payment, c_payment_cnt, c_delivery_cnt, c_data");
	for (unsigned d = 1; d <= TPCC_DISTRICTS; d++) {
		for (unsigned c = 1; c <= TPCC_CUSTOMERS && !b->rc; c++) {
			db_tpcc_lastname(c <= 1000 ? c - 1 : (unsigned)tpcc_nurand(r, 255, 0, 999, c255),
					 last);
			bulk_row(b, "(%u,%u,%u,'first-%s','OE','%s','street1-%s','street2-%s','city-%s',"
				 "'%s','zip-%s','%s','%s','%s',50000,%.2f,-10,10,1,0,'%s')", c, d, w,
				 rnd(r, '@', uni(r, 2, 10), a[0]), last, rnd(r, '@', 10, a[1]),
				 rnd(r, '@', 10, a[2]), rnd(r, '@', 10, a[3]), rnd(r, '@', 2, a[4]),
				 rnd(r, '#', 5, a[5]), rnd(r, '#', 16, a[6]), l->now,
				 uni(r, 1, 100) > 10 ? "GC" : "BC", rng_double(r) * 0.5,
				 rep(r, uni(r, 300, 500), data));
		}
	}
	bulk_flush(b);
	bulk_start(b, "history", t, "h_c_id, h_c_d_id, h_c_w_id, h_d_id, h_w_id, h_date, h_amount, h_data");
	for (unsigned d = 1; d <= TPCC_DISTRICTS; d++)
		for (unsigned c = 1; c <= TPCC_CUSTOMERS && !b->rc; c++)
			bulk_row(b, "(%u,%u,%u,%u,%u,'%s',10,'%s')", c, d, w, d, w, l->now,
				 rep(r, uni(r, 12, 24), data));
	return bulk_flush(b);
}

/* Orders for a shuffled permutation of the customers, their lines, new_orders. */
static int load_orders(struct loader *l, struct rng *r, unsigned t, unsigned w)
{
	struct bulk *b = &l->b;
	char dist[32], carrier[8], sql[256];

	for (unsigned i = 0; i < TPCC_CUSTOMERS; i++)
		l->perm[i] = (uint16_t)(i + 1);
	for (unsigned i = 0; i < TPCC_CUSTOMERS; i++) {
		unsigned j = uni(r, i, TPCC_CUSTOMERS - 1);
		uint16_t x = l->perm[i];
		l->perm[i] = l->perm[j];
		l->perm[j] = x;
	}
	bulk_start(b, "orders", t, "o_id, o_d_id, o_w_id, o_c_id, o_entry_d, o_carrier_id, o_ol_cnt, "
		   "o_all_local");
	for (unsigned d = 1; d <= TPCC_DISTRICTS; d++) {
		for (unsigned o = 1; o <= TPCC_CUSTOMERS && !b->rc; o++) {
			l->ol_cnt[d - 1][o - 1] = (uint8_t)uni(r, 5, 15);
			if (o < TPCC_FIRST_NEW)
				snprintf(carrier, sizeof(carrier), "%u", uni(r, 1, 10));
			bulk_row(b, "(%u,%u,%u,%u,'%s',%s,%u,1)", o, d, w, l->perm[o - 1], l->now,
				 o < TPCC_FIRST_NEW ? carrier : "NULL", l->ol_cnt[d - 1][o - 1]);
		}
	}
	if (bulk_flush(b))
		return b->rc;
	snprintf(sql, sizeof(sql), "INSERT INTO new_orders%u (no_o_id, no_d_id, no_w_id) SELECT o_id, "
		 "o_d_id, o_w_id FROM orders%u WHERE o_id>%u and o_w_id=%u", t, t, TPCC_FIRST_NEW - 1, w);
	if ((b->rc = b->c->drv->exec(b->c, sql)) != 0)
		return b->rc;
	*b->rows += (uint64_t)TPCC_DISTRICTS * (TPCC_CUSTOMERS - TPCC_FIRST_NEW + 1);
	bulk_start(b, "order_line", t, "ol_o_id, ol_d_id, ol_w_id, ol_number, ol_i_id, ol_supply_w_id, "
		   "ol_delivery_d, ol_quantity, ol_amount, ol_dist_info");
	for (unsigned d = 1; d <= TPCC_DISTRICTS; d++) {
		for (unsigned o = 1; o <= TPCC_CUSTOMERS && !b->rc; o++) {
			bool old = o < TPCC_FIRST_NEW;
			char when[40] = "NULL";
			if (old)
				snprintf(when, sizeof(when), "'%s'", l->now);
			for (unsigned n = 1; n <= l->ol_cnt[d - 1][o - 1]; n++)
				bulk_row(b, "(%u,%u,%u,%u,%u,%u,%s,5,%.2f,'%s')", o, d, w, n,
					 uni(r, 1, TPCC_ITEMS), w, when, old ? 0 : rng_double(r) * 9999.99,
					 rep(r, 24, dist));
		}
	}
	return bulk_flush(b);
}

static int load_stock(struct loader *l, struct rng *r, unsigned t, unsigned w)
{
	struct bulk *b = &l->b;
	char s[10][32], data[64];

	bulk_start(b, "stock", t, "s_i_id, s_w_id, s_quantity, s_dist_01, s_dist_02, s_dist_03, "
		   "s_dist_04, s_dist_05, s_dist_06, s_dist_07, s_dist_08, s_dist_09, s_dist_10, s_ytd, "
		   "s_order_cnt, s_remote_cnt, s_data");
	for (unsigned i = 1; i <= TPCC_ITEMS && !b->rc; i++) {
		for (unsigned k = 0; k < 10; k++)
			rep(r, 24, s[k]);
		bulk_row(b, "(%u,%u,%u,'%s','%s','%s','%s','%s','%s','%s','%s','%s','%s',0,0,0,'%s')",
			 i, w, uni(r, 10, 100), s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7], s[8],
			 s[9], rep(r, uni(r, 26, 50), data));
	}
	return bulk_flush(b);
}

/* Phase 2: warehouse @w of set @t, in sysbench-tpcc's order (parents before children). */
static int load_warehouse(struct loader *l, unsigned t, unsigned w)
{
	struct rng r;
	int rc;

	rng_seed(&r, l->seed, LOAD_STREAM + ((uint64_t)t << 20) + w);
	uint32_t c255 = uni(&r, 0, 255);
	if ((rc = load_heads(l, &r, t, w)) != 0 || (rc = load_customers(l, &r, t, w, c255)) != 0)
		return rc;
	if ((rc = load_stock(l, &r, t, w)) != 0)
		return rc;
	return load_orders(l, &r, t, w);
}

static void *loader_main(void *arg)
{
	struct loader *l = arg;
	struct db_conn *c;
	unsigned last = l->phase2 ? (unsigned)l->o->scale : (unsigned)l->o->tables;

	db_block_signals();     /* Ctrl-C reaches the main thread, which sets @stop */
	l->rc = db_tpcc_connect(l->o, true, &c, l->err, sizeof(l->err));
	if (l->rc)
		goto out;
	l->b = (struct bulk){ .c = c, .buf = xmalloc(BULK_MAX + ROW_MAX), .rows = &l->rows,
			      .stop = l->stop };
	for (unsigned i = l->first; i <= last && !l->rc; i += l->step) {
		for (unsigned t = 1; t <= (l->phase2 ? l->o->tables : 1) && !l->rc; t++)
			l->rc = l->phase2 ? load_warehouse(l, t, i) : create_set(l, c, i);
		if (l->rc == -EINTR)
			snprintf(l->err, sizeof(l->err), "interrupted while loading %s %u",
				 l->phase2 ? "warehouse" : "table set", i);
		else if (l->rc)
			snprintf(l->err, sizeof(l->err), "%s %u: %s", l->phase2 ? "warehouse" : "table set",
				 i, db_errmsg(c));
		else if (l->phase2)
			atomic_fetch_add(l->done, 1);
	}
	free(l->b.buf);
	c->drv->disconnect(c);
out:
	atomic_fetch_add(l->finished, 1);
	return NULL;
}

/* Run @n loaders of one phase, showing progress, and return the first error. */
static int run_phase(struct loader *l, unsigned n, void (*progress)(const char *), unsigned total,
		     uint64_t t0, char *err, size_t errlen)
{
	atomic_uint *finished = l[0].finished, *done = l[0].done;
	unsigned started = 0, shown = 0;
	char line[160];
	int rc = 0;

	for (; started < n; started++) {
		if (pthread_create(&l[started].tid, NULL, loader_main, &l[started])) {
			snprintf(err, errlen, "cannot start a loader thread");
			rc = -EAGAIN;
			break;
		}
	}
	while (atomic_load(finished) < started) {
		nanosleep(&(struct timespec){ .tv_nsec = 200000000 }, NULL);
		unsigned d = atomic_load(done);
		if (progress && l[0].phase2 && d != shown) {
			shown = d;
			snprintf(line, sizeof(line), "tpcc prepare: %u of %u warehouse(s) loaded in %.0f s "
				 "(%u loader(s))", d, total, (double)(emu_now() - t0) / 1e9, n);
			progress(line);
		}
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(l[i].tid, NULL);
		if (l[i].rc && !rc) {
			rc = l[i].rc;
			snprintf(err, errlen, "%s", l[i].err);
		}
	}
	return rc;
}

static unsigned loaders(const struct db_opts *o, unsigned threads, uint64_t items)
{
	uint64_t n = threads ? threads : 1;

	if (n > items)
		n = items;
	if (db_opts_driver(o)->flags & DB_SERIAL_WRITES)
		n = 1;
	return (unsigned)n;
}

int db_tpcc_prepare(const struct db_opts *o, unsigned threads, uint64_t seed,
		    volatile sig_atomic_t *stop, void (*progress)(const char *line),
		    struct db_tpcc_prep *st, char *err, size_t errlen)
{
	unsigned n1 = loaders(o, threads, o->tables), n2 = loaders(o, threads, o->scale);
	unsigned n = n1 > n2 ? n1 : n2;
	struct loader *l = xcalloc(n, sizeof(*l));
	atomic_uint done = 0, finished = 0;
	char now[32];
	time_t tt = time(NULL);
	struct tm tm;

	strftime(now, sizeof(now), "%Y-%m-%d %H:%M:%S", localtime_r(&tt, &tm));
	uint64_t t0 = emu_now();
	for (unsigned i = 0; i < n; i++)
		l[i] = (struct loader){ .o = o, .seed = seed, .stop = stop, .first = i + 1, .step = n1,
					.done = &done, .finished = &finished, .now = now };
	int rc = run_phase(l, n1, progress, (unsigned)o->scale, t0, err, errlen);
	if (!rc && progress) {
		char line[160];
		snprintf(line, sizeof(line), "tpcc prepare: %llu table set(s) created with their items "
			 "and indexes in %.0f s", (unsigned long long)o->tables,
			 (double)(emu_now() - t0) / 1e9);
		progress(line);
	}
	atomic_store(&finished, 0);
	for (unsigned i = 0; i < n && !rc; i++) {
		l[i].phase2 = true;
		l[i].step = n2;
	}
	if (!rc)
		rc = run_phase(l, n2, progress, (unsigned)o->scale, t0, err, errlen);
	memset(st, 0, sizeof(*st));
	for (unsigned i = 0; i < n; i++)
		st->rows += l[i].rows;
	st->loaders = n;
	st->seconds = (double)(emu_now() - t0) / 1e9;
	free(l);
	return rc;
}

int db_tpcc_cleanup(const struct db_opts *o, char *err, size_t errlen)
{
	struct db_conn *c;
	char sql[64];
	int rc = db_tpcc_connect(o, false, &c, err, errlen);

	if (rc)
		return rc;
	for (unsigned t = 1; t <= o->tables && !rc; t++) {
		for (unsigned i = 0; i < TPCC_NTABLES && !rc; i++) {
			snprintf(sql, sizeof(sql), "DROP TABLE IF EXISTS %s%u", db_tpcc_tables[i], t);
			if ((rc = c->drv->exec(c, sql)) != 0)
				snprintf(err, errlen, "%s", db_errmsg(c));
		}
	}
	c->drv->disconnect(c);
	return rc;
}

int db_tpcc_probe(const struct db_opts *o, struct db_conn *c, bool want_present,
		  char *err, size_t errlen)
{
	struct db_result res = { .want = 0 };
	char sql[96];

	for (unsigned t = 1; t <= o->tables; t++) {
		for (unsigned i = 0; i < TPCC_NTABLES; i++) {
			snprintf(sql, sizeof(sql), "SELECT 1 FROM %s%u WHERE 1 = 0", db_tpcc_tables[i], t);
			bool there = c->drv->exec(c, sql) == 0;
			if (there == want_present)
				continue;
			if (there)
				snprintf(err, errlen, "table %s%u already exists on %s at '%s' (from an earlier "
					 "or interrupted prepare); run 'appio db cleanup tpcc' first, with "
					 "the same --tables", db_tpcc_tables[i], t, c->drv->name, c->where);
			else
				snprintf(err, errlen, "cannot use table %s%u (run 'appio db prepare tpcc' "
					 "first, with the same --tables and --scale): %s", db_tpcc_tables[i],
					 t, db_errmsg(c));
			return -EINVAL;
		}
		if (!want_present)
			continue;
		snprintf(sql, sizeof(sql), "SELECT count(*) FROM warehouse%u", t);
		if (c->drv->query(c, sql, &res) || db_result_int(&res, 0) < (int64_t)o->scale) {
			snprintf(err, errlen, "--scale %llu: table set %u holds %lld warehouse(s) (run "
				 "with the --scale it was prepared with)", (unsigned long long)o->scale, t,
				 (long long)db_result_int(&res, 0));
			return -EINVAL;
		}
	}
	return 0;
}
