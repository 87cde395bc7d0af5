/*
 * test_dbm_cpu.c - the model's CPU run queue (dbmodel/dbm_cpu.h): never more
 * than its CPUs' worth of workers admitted at once, across the 32-bit
 * wrap of its tickets; waiters admitted in the order they came; a worker
 * told whether it waited. And the round trip's test of an idle CPU
 * (dbm_cpu_left_idle()): the workers not in an I/O, a wait or a round trip
 * against the CPUs; and which threads pay a round trip at all: those that
 * slept in an I/O or a wait lately (dbm_block_end(), dbm_blocks()). And
 * the burn (dbm_burn()): work at the rate measured, or time on the clock.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>

#include "dbmodel/dbm.h"
#include "dbmodel/dbm_cpu.h"
#include "check.h"

#define THREADS 6
#define ROUNDS 20000

static struct dbm_cpus q;
static atomic_uint inside, most, waits;

static void *churn(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		if (dbm_cpus_take(&q))
			atomic_fetch_add(&waits, 1);
		unsigned now = atomic_fetch_add(&inside, 1) + 1;
		unsigned m = atomic_load(&most);
		while (now > m && !atomic_compare_exchange_weak(&most, &m, now))
			;
		for (volatile int k = 0; k < 50; k++)
			;
		atomic_fetch_sub(&inside, 1);
		dbm_cpus_give(&q);
	}
	return NULL;
}

/* Six threads through a two-CPU queue whose tickets wrap past 2^32 midway. */
static void at_most_n_inside(void)
{
	pthread_t t[THREADS];

	dbm_cpus_init(&q, 2);
	atomic_store(&q.next, UINT32_MAX - 1000);
	atomic_store(&q.served, UINT32_MAX - 1000);
	atomic_store(&inside, 0);
	atomic_store(&most, 0);
	atomic_store(&waits, 0);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, churn, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	uint32_t done = (uint32_t)(UINT32_MAX - 1000) + THREADS * ROUNDS;
	CHECK(atomic_load(&most) <= 2, "at most 2 admitted at once, saw %u", atomic_load(&most));
	CHECK(atomic_load(&q.next) == done && atomic_load(&q.served) == done,
	      "every ticket handed out was served: next %u served %u, expected %u",
	      atomic_load(&q.next), atomic_load(&q.served), done);
	CHECK(dbm_cpus_queued(&q) == 0, "nobody left queued");
}

static atomic_uint order;
struct waiter { unsigned place; uint64_t waited; };    /* ns */

static void *wait_turn(void *arg)
{
	struct waiter *me = arg;
	me->waited = dbm_cpus_take(&q);
	me->place = atomic_fetch_add(&order, 1);
	dbm_cpus_give(&q);
	return NULL;
}

static void until_queued(uint32_t n)
{
	struct timespec ms = { 0, 1000000 };
	for (int i = 0; i < 5000 && dbm_cpus_queued(&q) != n; i++)
		nanosleep(&ms, NULL);
}

/* With the one CPU held, A then B queue; released, A runs before B. */
static void first_come_first_served(void)
{
	pthread_t ta, tb;
	struct waiter a = { 0, 0 }, b = { 0, 0 };
	struct timespec held = { 0, 20000000 };

	dbm_cpus_init(&q, 1);
	atomic_store(&order, 0);
	CHECK(!dbm_cpus_take(&q), "a free CPU is taken without waiting");
	CHECK(dbm_cpus_queued(&q) == 0, "nobody queued behind the one burning");
	pthread_create(&ta, NULL, wait_turn, &a);
	until_queued(1);
	pthread_create(&tb, NULL, wait_turn, &b);
	until_queued(2);
	CHECK(dbm_cpus_queued(&q) == 2, "two queued, saw %u", dbm_cpus_queued(&q));
	nanosleep(&held, NULL);
	dbm_cpus_give(&q);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	/* both queued before the CPU was held 20 ms more: the wait is counted (cpu_wait_us).
	   A ticket starts its clock just after it is taken (a thread preempted between the
	   two starts it late): half the hold is the bound, as an untimed wait returns 1 ns */
	CHECK(a.waited >= 10000000 && b.waited >= 10000000, "both waited 10 ms or more (%llu, %llu ns)",
	      (unsigned long long)a.waited, (unsigned long long)b.waited);
	CHECK(a.place == 0 && b.place == 1, "A before B: places %u, %u", a.place, b.place);
}

static atomic_bool woke;

static void *wake_up(void *arg)
{
	bool *waited = arg;
	*waited = dbm_cpus_wake(&q);
	atomic_store(&woke, true);
	return NULL;
}

/* One CPU held and A queued: a waker returns at the release, takes no ticket. */
static void waker_ahead_of_the_queue(void)
{
	pthread_t ta, tw;
	struct waiter a = { 0, 0 };
	bool waited = false;
	struct timespec ms1 = { 0, 1000000 };

	dbm_cpus_init(&q, 2);
	CHECK(!dbm_cpus_wake(&q), "both CPUs free: back at once");
	dbm_cpus_take(&q);
	CHECK(!dbm_cpus_wake(&q), "one CPU free: back at once");
	dbm_cpus_give(&q);

	dbm_cpus_init(&q, 1);
	atomic_store(&order, 0);
	atomic_store(&woke, false);
	dbm_cpus_take(&q);
	pthread_create(&ta, NULL, wait_turn, &a);
	until_queued(1);
	pthread_create(&tw, NULL, wake_up, &waited);
	for (int i = 0; i < 5000 && atomic_load(&q.wakers) != 1; i++)
		nanosleep(&ms1, NULL);
	nanosleep(&ms1, NULL);
	CHECK(atomic_load(&q.wakers) == 1 && !atomic_load(&woke), "the CPU held: the waker waits");
	CHECK(dbm_cpus_queued(&q) == 1, "the waker took no ticket: %u queued", dbm_cpus_queued(&q));
	dbm_cpus_give(&q);
	pthread_join(tw, NULL);
	pthread_join(ta, NULL);
	CHECK(waited, "the waker says it waited");
	CHECK(atomic_load(&q.next) == atomic_load(&q.served), "every ticket served, the waker's none");
}

static struct dbm db;

static void idle_cpu_beside(void)
{
	dbm_cpus_init(&db.cpuq, 2);
	atomic_store(&db.off_cpu, 0);
	CHECK(!dbm_cpu_left_idle(&db, 2), "2 workers on 2 CPUs: none idle");
	atomic_store(&db.off_cpu, 1);
	CHECK(dbm_cpu_left_idle(&db, 2), "2 workers, the other in an I/O: its CPU idle");
	atomic_store(&db.off_cpu, 14);
	CHECK(!dbm_cpu_left_idle(&db, 16), "16 workers, 14 off the CPU: 2 on it, none idle");
	atomic_store(&db.off_cpu, 15);
	CHECK(dbm_cpu_left_idle(&db, 16), "16 workers, 15 off the CPU: one idle");
	dbm_cpus_init(&db.cpuq, 1);
	CHECK(!dbm_cpu_left_idle(&db, 16), "one CPU: never another idle");
	atomic_store(&db.off_cpu, 0);
	CHECK(!dbm_cpu_left_idle(&db, 1), "one worker on one CPU: none idle");
}

static void blocked_lately(void)
{
	struct emu_worker w = { 0 }, bg = { .background = true };
	const struct timespec ms2 = { 0, 2000000 }, ms12 = { 0, 12000000 };

	db.rtt_ns = 50000;
	atomic_store(&db.off_cpu, 0);
	dbm_block_begin(&w, &db);
	CHECK(atomic_load(&db.off_cpu) == 1, "in the block: off the CPU");
	CHECK(!dbm_block_end(&w, &db) && !dbm_blocks(), "nothing slept in it: not blocked");
	CHECK(atomic_load(&db.off_cpu) == 0, "back on the CPU");
	dbm_block_begin(&w, &db);
	nanosleep(&ms2, NULL);
	CHECK(dbm_block_end(&w, &db) && dbm_blocks(), "slept 2 ms in it: blocked");
	nanosleep(&ms12, NULL);         /* outside a block: it does not renew */
	CHECK(!dbm_blocks(), "12 ms later: not blocked any more");
	dbm_block_begin(&bg, &db);
	nanosleep(&ms2, NULL);
	CHECK(!dbm_block_end(&bg, &db) && !dbm_blocks(), "a background thread's sleep: not the regime");
	db.rtt_ns = 0;
	dbm_block_begin(&w, &db);
	nanosleep(&ms2, NULL);
	CHECK(!dbm_block_end(&w, &db), "no round trip to pay: not counted");
	CHECK(atomic_load(&db.off_cpu) == 0, "every block left: %u off the CPU", atomic_load(&db.off_cpu));
}

/* ms of this thread's CPU clock that a burn of @ms took */
static double burn_took(enum dbm_burn how, double rate, double ms)
{
	uint64_t t0 = dbm_thread_cpu_ns();
	uint64_t t1 = dbm_burn(how, rate, t0, (uint64_t)(ms * 1e6));
	return (double)(t1 - t0) / 1e6;
}

/*
 * The work burn takes its steps at the rate measured, so a rate set to half
 * what it is takes half the CPU; the time burn takes the time whatever the
 * rate. Bounds are wide (a loaded machine puts milliseconds on the CPU
 * clock now and then): a burn counted in the wrong unit is 1,000x off, one
 * of time where work was asked (or the reverse) 2x.
 */
static void burn_work_or_time(void)
{
	double rate = dbm_burn_rate();
	CHECK(rate > 0.01 && rate < 100, "steps a ns: %.3f", rate);
	double work = burn_took(DBM_BURN_WORK, rate, 40);
	double half = burn_took(DBM_BURN_WORK, rate / 2, 40);
	double time = burn_took(DBM_BURN_TIME, rate / 2, 40);
	CHECK(work >= 28 && work < 60, "40 ms of work at the rate measured: %.1f ms", work);
	CHECK(half >= 12 && half < 30, "40 ms of work at half the rate: half the CPU, %.1f ms", half);
	CHECK(time >= 40 && time < 60, "40 ms of time: 40 ms whatever the rate, %.1f ms", time);
	CHECK(burn_took(DBM_BURN_WORK, rate, 0) < 1, "nothing to burn: nothing burnt");
}

int main(void)
{
	RUN(at_most_n_inside);
	RUN(first_come_first_served);
	RUN(waker_ahead_of_the_queue);
	RUN(idle_cpu_beside);
	RUN(blocked_lately);
	RUN(burn_work_or_time);
	return check_done();
}
