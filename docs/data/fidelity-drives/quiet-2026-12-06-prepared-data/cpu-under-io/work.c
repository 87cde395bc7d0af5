/* work.c: fixed chunks of work (pointer chase over MB MiB + arithmetic); prints the
   median and mean thread-CPU and wall time per chunk over SECS seconds, THREADS threads */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static size_t N; static uint32_t *next; static double secs; static int sleep_us;
static uint64_t ns(clockid_t c) { struct timespec t; clock_gettime(c, &t); return t.tv_sec * 1000000000ull + t.tv_nsec; }
static int cmp(const void *a, const void *b) { uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b; return x < y ? -1 : x > y; }
static void *run(void *arg) {
	uint64_t *cpu = malloc(1000000 * sizeof(uint64_t)); size_t n = 0; uint32_t p = (uint32_t)(uintptr_t)arg; volatile uint64_t sink = 0;
	uint64_t end = ns(CLOCK_MONOTONIC) + (uint64_t)(secs * 1e9), tot_c = 0, tot_w = 0;
	while (ns(CLOCK_MONOTONIC) < end && n < 1000000) {
		uint64_t c0 = ns(CLOCK_THREAD_CPUTIME_ID), w0 = ns(CLOCK_MONOTONIC), x = p;
		for (int i = 0; i < 2000; i++) { p = next[p]; for (int j = 0; j < 20; j++) x = x * 6364136223846793005ull + 1442695040888963407ull; }
		sink += x;
		uint64_t c1 = ns(CLOCK_THREAD_CPUTIME_ID), w1 = ns(CLOCK_MONOTONIC);
		cpu[n++] = c1 - c0; tot_c += c1 - c0; tot_w += w1 - w0;
		if (sleep_us) { struct timespec t = { 0, sleep_us * 1000L }; nanosleep(&t, NULL); }
	}
	qsort(cpu, n, sizeof(*cpu), cmp);
	printf("chunks %zu cpu median %.1f us mean %.1f us wall mean %.1f us\n", n, cpu[n / 2] / 1e3, tot_c / 1e3 / n, tot_w / 1e3 / n);
	free(cpu); return NULL;
}
int main(int argc, char **argv) {
	size_t mb = argc > 1 ? atoi(argv[1]) : 32; secs = argc > 2 ? atof(argv[2]) : 5; int th = argc > 3 ? atoi(argv[3]) : 1; sleep_us = argc > 4 ? atoi(argv[4]) : 0;
	N = mb * 1048576 / 4; next = malloc(N * 4);
	for (size_t i = 0; i < N; i++) next[i] = i;
	srand(1); for (size_t i = N - 1; i > 0; i--) { size_t j = ((size_t)rand() * 65536u + rand()) % i; uint32_t t = next[i]; next[i] = next[j]; next[j] = t; }
	pthread_t t[64]; for (int i = 0; i < th; i++) pthread_create(&t[i], NULL, run, (void *)(uintptr_t)(i * 7919));
	for (int i = 0; i < th; i++) pthread_join(t[i], NULL);
	return 0;
}
