/*
 * test_cpuload.c - the machine's CPU busy share: /proc/stat read sanely,
 * the share between two samples, and the burners' steering (toward the
 * target, in proportion to the gap and the CPUs per burner, within 0-1).
 */
#include <math.h>
#include <time.h>

#include "appio/cpuload.h"
#include "check.h"

static void sample_and_share(void)
{
	struct cpuload_sample a, b;

	CHECK(cpuload_sample(&a) == 0, "/proc/stat read");
	/* some CPU time passes: spin 50 ms */
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 50000000L);
	CHECK(cpuload_sample(&b) == 0, "/proc/stat read again");
	CHECK(a.busy <= a.total && b.busy <= b.total, "busy within total");
	CHECK(b.busy >= a.busy && b.total > a.total, "time moved on: busy %llu -> %llu, total %llu -> %llu",
	      (unsigned long long)a.busy, (unsigned long long)b.busy,
	      (unsigned long long)a.total, (unsigned long long)b.total);
	double pct = cpuload_busy_pct(&a, &b);
	CHECK(pct > 0 && pct <= 100, "a spinning thread shows: %.1f %%", pct);
	CHECK(cpuload_busy_pct(&b, &a) == -1, "no time passed: -1");
	struct cpuload_sample x = { 30, 100 }, y = { 60, 200 };
	CHECK(fabs(cpuload_busy_pct(&x, &y) - 30) < 1e-9, "30 of 100 ticks busy: 30 %%");
}

static void steering(void)
{
	struct cpuload c;

	cpuload_init(&c, 60, 2, 2);
	CHECK(fabs(cpuload_next_duty(&c, 0.2, 40) - 0.3) < 1e-9,
	      "20 points short on 2 CPUs, 2 burners: +0.1 each, got %g", cpuload_next_duty(&c, 0.2, 40));
	CHECK(fabs(cpuload_next_duty(&c, 0.2, 80) - 0.1) < 1e-9, "20 points over: -0.1");
	CHECK(cpuload_next_duty(&c, 0.2, 60) == 0.2, "on target: unchanged");
	CHECK(cpuload_next_duty(&c, 0.05, 100) == 0, "never below 0");
	CHECK(cpuload_next_duty(&c, 0.95, 0) == 1, "never above 1");
	cpuload_init(&c, 60, 1, 4);
	CHECK(fabs(cpuload_next_duty(&c, 0, 50) - 0.2) < 1e-9,
	      "10 points of 4 CPUs on one burner: +0.2, got %g", cpuload_next_duty(&c, 0, 50));
	CHECK(cpuload_reached_pct(&c) == -1, "nothing burnt yet: -1");
}

int main(void)
{
	RUN(sample_and_share);
	RUN(steering);
	return check_done();
}
