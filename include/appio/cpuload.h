/*
 * cpuload.h - the machine's CPU busy share, read and reproduced.
 *
 * A device's service time as the kernel sees it (issue to completion) is
 * not the device's alone: the completion waits for a CPU to run the
 * interrupt's work and, behind a loop device or a software stack, the
 * request waits for the kernel threads that carry it. So a trace captured
 * while a database kept the CPUs 60 % busy records longer service times
 * than a replay of it on an idle machine gives: on this project's 2-core
 * machine a MariaDB capture was taken at 61 % busy and its bounded replay
 * ran at 37 %, with read and write p99 22-26 % below the recorded ones
 * (docs/traces.md). A capture notes the busy share (trace_record), and a
 * replay can hold the machine at it with burner threads.
 *
 * Busy is /proc/stat's user + nice + system + irq + softirq + steal over
 * all of those plus idle and iowait, for the whole machine.
 */
#ifndef APPIO_CPULOAD_H
#define APPIO_CPULOAD_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

struct cpuload_sample {
	uint64_t busy, total;           /* clock ticks since boot */
};

/* Read the machine's CPU time so far. 0, or -errno (no /proc/stat). */
int cpuload_sample(struct cpuload_sample *s);

/* The busy share between two samples, in % (-1 when no time passed). */
double cpuload_busy_pct(const struct cpuload_sample *a, const struct cpuload_sample *b);

/*
 * Burners that hold the machine's busy share at a target: each runs
 * periods of CPULOAD_PERIOD_NS, busy for a duty share of it and asleep for
 * the rest (short bursts, as a server's statements are, rather than a
 * spinning hog that the scheduler would time-slice), and burner 0 moves the
 * shared duty every CPULOAD_ADJUST_NS toward the target.
 */
#define CPULOAD_PERIOD_NS 1000000ULL
#define CPULOAD_ADJUST_NS 100000000ULL

struct cpuload {
	double target_pct;              /* the busy share to hold, 0-100 */
	unsigned burners, cpus;
	_Atomic uint32_t duty_ppm;      /* each burner's busy share of a period */
	struct cpuload_sample first, last;  /* burner 0's: the run's start, its last adjustment */
	uint64_t next_adjust_ns;
	bool started;
};

/* Set @c up to hold @target_pct with @burners threads on @cpus CPUs. */
void cpuload_init(struct cpuload *c, double target_pct, unsigned burners, unsigned cpus);

/*
 * One period of burner @idx (0 to burners - 1), on its own thread; returns
 * when the period is over. Burner 0 also steers. No allocation, no lock.
 */
void cpuload_period(struct cpuload *c, unsigned idx);

/* The duty after @duty gave @measured_pct busy (pure; 0 to 1). */
double cpuload_next_duty(const struct cpuload *c, double duty, double measured_pct);

/* The busy share since burner 0's first period, in % (-1 if none yet). */
double cpuload_reached_pct(const struct cpuload *c);

#endif
