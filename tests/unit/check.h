/*
 * check.h - the unit tests' few macros.
 *
 * A test file defines static void test functions and a main() that calls
 * RUN(fn) for each and returns check_done(). Every RUN prints "ok - fn" or
 * "not ok - fn" (TAP style); tests/run.sh counts those lines. CHECK() records
 * a failure with file, line and a printf-style explanation and goes on.
 * SKIP() ends a test that cannot run here (no root, no device): RUN then
 * prints "ok - fn # skip REASON", which tests/run.sh counts as skipped, not
 * passed; a failure checked before the SKIP still makes it "not ok".
 */
#ifndef APPIO_TEST_CHECK_H
#define APPIO_TEST_CHECK_H

#include <stdio.h>

static int check_case_failures;
static int check_total_failures;
static char check_skip_reason[160];

#define CHECK(cond, ...) do { \
	if (!(cond)) { \
		check_case_failures++; \
		fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
		fprintf(stderr, __VA_ARGS__); \
		fputc('\n', stderr); \
	} \
} while (0)

/* Skip the rest of this test function (it returns), with a printf-style reason. */
#define SKIP(...) do { \
	snprintf(check_skip_reason, sizeof(check_skip_reason), __VA_ARGS__); \
	return; \
} while (0)

#define RUN(fn) do { \
	check_case_failures = 0; \
	check_skip_reason[0] = '\0'; \
	fn(); \
	if (check_case_failures) \
		printf("not ok - %s\n", #fn); \
	else if (check_skip_reason[0]) \
		printf("ok - %s # skip %s\n", #fn, check_skip_reason); \
	else \
		printf("ok - %s\n", #fn); \
	fflush(stdout); \
	if (check_case_failures) \
		check_total_failures++; \
} while (0)

static inline int check_done(void)
{
	return check_total_failures ? 1 : 0;
}

#endif
