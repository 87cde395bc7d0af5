/*
 * check.h - the unit tests' few macros.
 *
 * A test file defines static void test functions and a main() that calls
 * RUN(fn) for each and returns check_done(). Every RUN prints "ok - fn" or
 * "not ok - fn" (TAP style); tests/run.sh counts those lines. CHECK() records
 * a failure with file, line and a printf-style explanation and goes on.
 */
#ifndef APPIO_TEST_CHECK_H
#define APPIO_TEST_CHECK_H

#include <stdio.h>

static int check_case_failures;
static int check_total_failures;

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		check_case_failures++; \
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

#define RUN(fn) do { \
	check_case_failures = 0; \
	fn(); \
	printf("%s - %s\n", check_case_failures ? "not ok" : "ok", #fn); \
	fflush(stdout); \
	if (check_case_failures) \
		check_total_failures++; \
} while (0)

static inline int check_done(void)
{
	return check_total_failures ? 1 : 0;
}

#endif
