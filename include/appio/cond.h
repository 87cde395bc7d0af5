/*
 * cond.h - condition variables timed on the monotonic clock. The emulators'
 * background threads (a journal's flusher, a page cleaner, a lock waiter)
 * wake on a signal or after a while to look at the stop flag; timing the
 * while on CLOCK_REALTIME would let a clock step stretch or skip it.
 */
#ifndef APPIO_COND_H
#define APPIO_COND_H

#include <pthread.h>
#include <stdint.h>

/* Initialise @cv to be waited on with cond_wait_ns(). */
void cond_init_mono(pthread_cond_t *cv);

/* Wait on @cv (with @mx held, as pthread_cond_wait) for a signal or @ns nanoseconds. */
void cond_wait_ns(pthread_cond_t *cv, pthread_mutex_t *mx, uint64_t ns);

#endif
