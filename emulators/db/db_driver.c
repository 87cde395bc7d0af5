/*
 * db_driver.c - the table of database drivers this build has, and the small
 * helpers they share.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

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
