/*
 * cpuload.c - the machine's CPU busy share, read and reproduced (see
 * include/appio/cpuload.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "appio/cpuload.h"

int cpuload_sample(struct cpuload_sample *s)
{
	char buf[512];
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	int e = errno;
	close(fd);
	if (n < 0)
		return -e;
	buf[n] = '\0';
	uint64_t v[8] = { 0 };
	/* cpu  user nice system idle iowait irq softirq steal ... */
	if (sscanf(buf, "cpu %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64 " %" SCNu64, &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]) != 8)
		return -EINVAL;
	s->busy = v[0] + v[1] + v[2] + v[5] + v[6] + v[7];
	s->total = s->busy + v[3] + v[4];
	return 0;
}

double cpuload_busy_pct(const struct cpuload_sample *a, const struct cpuload_sample *b)
{
	if (b->total <= a->total)
		return -1;
	return 100.0 * (double)(b->busy - a->busy) / (double)(b->total - a->total);
}

void cpuload_init(struct cpuload *c, double target_pct, unsigned burners, unsigned cpus)
{
	memset(c, 0, sizeof(*c));
	c->target_pct = target_pct;
	c->burners = burners ? burners : 1;
	c->cpus = cpus ? cpus : 1;
	atomic_store(&c->duty_ppm, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/*
 * The duty moves by a share of the gap between the target and the busy
 * share measured, spread over the burners (a gap of 10 % of 2 CPUs is 0.2
 * CPU, 0.1 more duty for each of 2 burners); the share taken (0.5) keeps
 * the loop from overshooting what the other work on the machine does
 * meanwhile.
 */
double cpuload_next_duty(const struct cpuload *c, double duty, double measured_pct)
{
	duty += 0.5 * (c->target_pct - measured_pct) / 100 * c->cpus / c->burners;
	return duty < 0 ? 0 : duty > 1 ? 1 : duty;
}

/* Burner 0, between periods: the busy share since the last look steers the duty. */
static void steer(struct cpuload *c, uint64_t now)
{
	struct cpuload_sample s;

	if (cpuload_sample(&s))
		return;
	if (!c->started) {
		c->first = c->last = s;
		c->started = true;
		c->next_adjust_ns = now + CPULOAD_ADJUST_NS;
		return;
	}
	double pct = cpuload_busy_pct(&c->last, &s);
	c->last = s;
	c->next_adjust_ns = now + CPULOAD_ADJUST_NS;
	if (pct >= 0)
		atomic_store(&c->duty_ppm,
			     (uint32_t)(cpuload_next_duty(c, atomic_load(&c->duty_ppm) / 1e6, pct) * 1e6));
}

void cpuload_period(struct cpuload *c, unsigned idx)
{
	uint64_t start = mono_ns();

	if (idx == 0 && (!c->started || start >= c->next_adjust_ns))
		steer(c, start);
	uint64_t busy = CPULOAD_PERIOD_NS * atomic_load(&c->duty_ppm) / 1000000;
	volatile uint64_t x = idx;
	while (mono_ns() - start < busy)
		for (int i = 0; i < 64; i++)
			x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	uint64_t end = start + CPULOAD_PERIOD_NS;
	struct timespec ts = { (time_t)(end / 1000000000ULL), (long)(end % 1000000000ULL) };
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

double cpuload_reached_pct(const struct cpuload *c)
{
	struct cpuload_sample s;

	if (!c->started || cpuload_sample(&s))
		return -1;
	return cpuload_busy_pct(&c->first, &s);
}
