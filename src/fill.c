/*
 * fill.c - random buffer contents (see fill.h for why and how).
 */
#include <string.h>

#include "fill.h"

void fill_random(struct rng *r, void *buf, size_t len)
{
	char *p = buf;
	size_t i = 0;
	for (; i + 8 <= len; i += 8) {
		uint64_t v = rng_next(r);
		memcpy(p + i, &v, sizeof(v));
	}
	if (i < len) {
		uint64_t v = rng_next(r);
		memcpy(p + i, &v, len - i);
	}
}
