/*
 * fuzz.h - what every fuzz target of tests/fuzz shares: libFuzzer's entry
 * point and must(), the check whose failure is a finding.
 */
#ifndef APPIO_FUZZ_H
#define APPIO_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken promise is a finding: abort, so the fuzzer keeps the input. */
#define must(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

#endif
