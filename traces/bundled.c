/*
 * bundled.c - the traces that come with appio (NAME.trace.gz in traces/ of
 * the source tree, in share/appio/traces when installed), found by name so that
 * 'appio run replay --trace mariadb-oltp' needs no path.
 */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appio/trace.h"

static const char *const suffixes[] = { ".trace.gz", ".trace" };

static int is_dir(const char *p)
{
	struct stat st;
	return !stat(p, &st) && S_ISDIR(st.st_mode);
}

int trace_bundled_dir(char *buf, size_t len)
{
	const char *env = getenv("APPIO_TRACES");
	char exe[PATH_MAX];
	ssize_t n;

	if (env && *env) {
		snprintf(buf, len, "%s", env);
		return is_dir(buf) ? 0 : -ENOENT;
	}
	if ((n = readlink("/proc/self/exe", exe, sizeof(exe) - 1)) <= 0)
		return -ENOENT;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	snprintf(buf, len, "%s/traces", exe);
	if (is_dir(buf))
		return 0;
	snprintf(buf, len, "%s/../share/appio/traces", exe);
	return is_dir(buf) ? 0 : -ENOENT;
}

/* The name of bundled trace file @file ("x.trace.gz" -> "x"), or 0 if it is none. */
static size_t name_len(const char *file)
{
	size_t n = strlen(file);

	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		size_t k = strlen(suffixes[i]);
		if (n > k && !strcmp(file + n - k, suffixes[i]))
			return n - k;
	}
	return 0;
}

int trace_bundled_find(const char *name, char *path, size_t len)
{
	char dir[PATH_MAX];
	struct stat st;

	if (!*name || strchr(name, '/') || trace_bundled_dir(dir, sizeof(dir)))
		return -ENOENT;
	for (size_t i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++) {
		snprintf(path, len, "%s/%s%s", dir, name, suffixes[i]);
		if (!stat(path, &st) && S_ISREG(st.st_mode))
			return 0;
	}
	return -ENOENT;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int trace_bundled_each(void (*fn)(void *arg, const char *name, const char *path), void *arg)
{
	char dir[PATH_MAX], path[PATH_MAX + 300], name[256];
	char *names[256];
	int n = 0;
	DIR *d;
	struct dirent *e;

	if (trace_bundled_dir(dir, sizeof(dir)) || !(d = opendir(dir)))
		return -ENOENT;
	while ((e = readdir(d)) && n < 256)
		if (name_len(e->d_name) && (names[n] = strdup(e->d_name)))
			n++;
	closedir(d);
	qsort(names, (size_t)n, sizeof(*names), by_name);
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof(name), "%.*s", (int)name_len(names[i]), names[i]);
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		fn(arg, name, path);
		free(names[i]);
	}
	return n;
}

const char *trace_resolve(const char *path, char *buf, size_t len)
{
	if (!strcmp(path, "-") || !access(path, F_OK) || trace_bundled_find(path, buf, len))
		return path;
	return buf;
}
