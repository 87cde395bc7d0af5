/*
 * dbm_cpu.c - the server's CPUs as a first-come, first-served run queue,
 * and the burn of a statement's CPU on them (see dbm_cpu.h for why).
 */
#include <limits.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "appio/emulator.h"
#include "dbm_cpu.h"

const char *const dbm_burn_names[] = { "work", "time", NULL };

uint64_t dbm_thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* the chain's steps depend each on the last: no compiler folds or widens them */
static uint64_t chain(uint64_t x, uint64_t steps)
{
	while (steps--)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

static _Thread_local volatile uint64_t sink;

double dbm_burn_rate(void)
{
	enum { RUNS = 15, STEPS = 100000 };     /* some 100 us each */
	double r[RUNS];

	for (int i = 0; i < RUNS; i++) {
		uint64_t t0 = dbm_thread_cpu_ns();
		sink = chain(t0, STEPS);
		uint64_t t = dbm_thread_cpu_ns() - t0;
		double x = (double)STEPS / (double)(t ? t : 1);
		int j = i;
		for (; j > 0 && r[j - 1] > x; j--)
			r[j] = r[j - 1];
		r[j] = x;
	}
	return r[RUNS / 2];
}

uint64_t dbm_burn(enum dbm_burn how, double rate, uint64_t start, uint64_t ns)
{
	if (how == DBM_BURN_WORK) {
		sink = chain(start, (uint64_t)((double)ns * rate));
		return dbm_thread_cpu_ns();
	}
	uint64_t end = start + ns, now, x = start;
	while ((now = dbm_thread_cpu_ns()) < end)
		x = chain(x, 256);
	sink = x;
	return now;
}

void dbm_cpus_init(struct dbm_cpus *c, unsigned n)
{
	atomic_store(&c->next, 0);
	atomic_store(&c->served, 0);
	atomic_store(&c->wakers, 0);
	c->n = n ? n : 1;
	for (unsigned i = 0; i < DBM_CPU_RING; i++)
		atomic_store(&c->ring[i], 0);
}

uint64_t dbm_cpus_take(struct dbm_cpus *c)
{
	uint32_t t = atomic_fetch_add(&c->next, 1);
	_Atomic uint32_t *word = &c->ring[t & (DBM_CPU_RING - 1)];
	uint64_t from = 0;      /* the clock is read only by a ticket that waits */

	for (;;) {
		/* the word is read before the count: a release between the two
		   changes the word, and the futex then does not sleep */
		uint32_t v = atomic_load(word);
		uint32_t ahead = t - atomic_load(&c->served);
		if ((int32_t)(ahead - c->n) < 0)
			return from ? emu_now() - from + 1 : 0;
		if (!from)
			from = emu_now();
		if (ahead == c->n)
			sched_yield();  /* next in line: on the CPU when one frees */
		else
			syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, v, NULL, NULL, 0);
	}
}

void dbm_cpus_give(struct dbm_cpus *c)
{
	uint32_t s = atomic_fetch_add(&c->served, 1);
	uint32_t t = s + 1 + c->n;      /* next in line now (s + n runs: it was next, awake) */

	/* the count is read after the release: a waker that counted itself
	   before it did sees the new count, or is woken here */
	if (atomic_load(&c->wakers))
		syscall(SYS_futex, &c->served, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);

	/* not handed out yet: its taker will see the count (no system call) */
	if ((int32_t)(atomic_load(&c->next) - t) <= 0)
		return;
	_Atomic uint32_t *word = &c->ring[t & (DBM_CPU_RING - 1)];
	atomic_fetch_add(word, 1);
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

bool dbm_cpus_wake(struct dbm_cpus *c)
{
	uint32_t s = atomic_load(&c->served);

	if ((int32_t)(atomic_load(&c->next) - s - c->n) < 0)
		return false;
	atomic_fetch_add(&c->wakers, 1);
	while (atomic_load(&c->served) == s)
		syscall(SYS_futex, &c->served, FUTEX_WAIT_PRIVATE, s, NULL, NULL, 0);
	atomic_fetch_sub(&c->wakers, 1);
	return true;
}
