/*
 * xalloc.h - allocation that cannot fail silently. Out of memory is not a
 * condition appio can run on: these print the size asked for and abort.
 * Never called on the hot path.
 */
#ifndef APPIO_XALLOC_H
#define APPIO_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/* Zeroed memory aligned to @align (a power of two >= sizeof(void *)); free() it. */
void *xaligned(size_t align, size_t size);

#endif
