/*
 * db_driver.c - the table of database drivers this build has, and the small
 * helpers they share.
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db_driver.h"

const struct db_driver *const db_driver_table[] = {
#ifdef HAVE_SQLITE
	&db_sqlite_driver,
#endif
#ifdef HAVE_MYSQL
	&db_mysql_driver,
#endif
#ifdef HAVE_PGSQL
	&db_pgsql_driver,
#endif
	NULL,
};

const struct db_driver *db_driver_find(const char *name)
{
	for (unsigned i = 0; db_driver_table[i]; i++)
		if (!strcmp(db_driver_table[i]->name, name))
			return db_driver_table[i];
	return NULL;
}

unsigned db_number_placeholders(const char *sql, char *out, size_t outlen)
{
	unsigned n = 0;
	size_t j = 0;

	for (const char *p = sql; *p && j + 8 < outlen; p++) {
		if (*p != '?') {
			out[j++] = *p;
			continue;
		}
		int w = snprintf(out + j, outlen - j, "$%u", ++n);
		j += (size_t)w;
	}
	out[j] = '\0';
	return n;
}

void db_block_signals(void)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

void db_result_clear(struct db_result *r)
{
	r->rows = 0;
	r->ncols = 0;
	r->used = 0;
}

void db_result_put(struct db_result *r, const char *s, size_t len)
{
	if (r->ncols >= DB_RESULT_COLS)
		return;
	size_t room = sizeof(r->buf) - r->used;
	if (!room)
		return;
	if (len > room - 1)
		len = room - 1;
	unsigned c = r->ncols++;
	r->off[c] = (uint16_t)r->used;
	r->null[c] = s == NULL;
	if (s)
		memcpy(r->buf + r->used, s, len);
	else
		len = 0;
	r->buf[r->used + len] = '\0';
	r->used += (uint32_t)len + 1;
}

const char *db_result_str(const struct db_result *r, unsigned col)
{
	return col < r->ncols && !r->null[col] ? r->buf + r->off[col] : "";
}

int64_t db_result_int(const struct db_result *r, unsigned col)
{
	return strtoll(db_result_str(r, col), NULL, 10);
}

double db_result_double(const struct db_result *r, unsigned col)
{
	return strtod(db_result_str(r, col), NULL);
}

static void *watch_main(void *arg)
{
	struct db_watch *wt = arg;

	db_block_signals();
	while (!atomic_load(&wt->end)) {
		if (*wt->stop) {
			wt->c->drv->cancel(wt->c);
			break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 20000000 }, NULL);
	}
	return NULL;
}

void db_watch_begin(struct db_watch *wt, struct db_conn *c, volatile sig_atomic_t *stop)
{
	*wt = (struct db_watch){ .c = c, .stop = stop };
	atomic_init(&wt->end, false);
	wt->started = stop && c->drv->cancel && !pthread_create(&wt->tid, NULL, watch_main, wt);
}

void db_watch_end(struct db_watch *wt)
{
	if (!wt->started)
		return;
	atomic_store(&wt->end, true);
	pthread_join(wt->tid, NULL);
	wt->started = false;
}
