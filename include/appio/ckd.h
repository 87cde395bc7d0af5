/*
 * ckd.h - checked arithmetic on numbers that come from the user.
 *
 * Every product or sum of option values (seconds to nanoseconds, pages to
 * bytes, files times sizes) goes through these so that an overflow becomes
 * -ERANGE the caller can report, never a wrapped value that runs the wrong
 * workload with exit 0. Pure functions; any thread.
 */
#ifndef APPIO_CKD_H
#define APPIO_CKD_H

#include <errno.h>
#include <stdint.h>

/* *@out = @a * @b; returns 0, or -ERANGE (and leaves *@out unspecified) on overflow. */
static inline int ckd_mul_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_mul_overflow(a, b, out) ? -ERANGE : 0;
}

/* *@out = @a + @b; returns 0, or -ERANGE on overflow. */
static inline int ckd_add_u64(uint64_t a, uint64_t b, uint64_t *out)
{
	return __builtin_add_overflow(a, b, out) ? -ERANGE : 0;
}

#endif
