/*
 * xalloc.c - allocation wrappers: one place that reports running out of memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/xalloc.h"

static _Noreturn void oom(size_t size)
{
	fprintf(stderr, "appio: out of memory allocating %zu bytes\n", size);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		oom(n * size);
	return p;
}

void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size ? size : 1);
	if (!p)
		oom(size);
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

void *xaligned(size_t align, size_t size)
{
	void *p;
	if (posix_memalign(&p, align, size ? size : 1))
		oom(size);
	memset(p, 0, size);
	return p;
}
