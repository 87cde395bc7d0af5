/*
 * cond.c - condition variables timed on the monotonic clock (see cond.h).
 */
#include <time.h>

#include "appio/cond.h"

void cond_init_mono(pthread_cond_t *cv)
{
	pthread_condattr_t ca;

	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &ca);
	pthread_condattr_destroy(&ca);
}

void cond_wait_ns(pthread_cond_t *cv, pthread_mutex_t *mx, uint64_t ns)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t t = (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec + ns;
	ts.tv_sec = (time_t)(t / 1000000000ULL);
	ts.tv_nsec = (long)(t % 1000000000ULL);
	pthread_cond_timedwait(cv, mx, &ts);
}
