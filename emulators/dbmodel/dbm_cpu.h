/*
 * dbm_cpu.h - the server's CPUs as a first-come, first-served run queue,
 * and the burn of a statement's CPU on them.
 *
 * A database server's threads block between statements (on the client's
 * socket) and queue for a CPU when they wake; with more threads than CPUs a
 * statement waits behind the statements queued before it and then runs to
 * its end, mostly unpreempted. Emulator workers that burn their statements'
 * CPU and never block are instead time-sliced by the kernel mid-statement
 * and pay a switch at every slice: at 16 threads on 2 CPUs (MariaDB,
 * oltp_read_write) the emulator spent 1,105 us of CPU a transaction of
 * which the model burnt 360, and its p99 came out up to 4x the server's
 * (docs/oltp-tpcc.md). So a worker takes a ticket before it burns and
 * sleeps, off the CPU, until fewer than @n tickets before its own are still
 * burning: a queue the kernel does not see, handed on in ticket order.
 *
 * The ticket next in line does not sleep: it yields the CPU in a loop, so
 * that it is on a CPU, or first in its run queue, when a burner gives one
 * back. Woken instead by the release (a futex), it left the CPU idle for
 * the wake-up: at 16 threads the queue kept 1.58 of the 2 CPUs busy where
 * the server keeps both. The others sleep on a futex word of a small ring,
 * indexed by their ticket, that the release which makes them next in line
 * bumps; waiters whose tickets share a word all wake and look again.
 * Tickets and the count served are 32-bit and compared modulo 2^32.
 *
 * A thread woken from a sleep (an fsync) is not queued behind them: the
 * kernel's scheduler credits a sleeper, and it runs on the first CPU that
 * a statement gives back (dbm_cpus_wake()).
 */
/*
 * And how a statement's CPU is burnt. By default as work: a count of steps of
 * an arithmetic chain, from the rate its steps take on this thread's CPU
 * clock when the model starts. A server's statement is work too, so
 * whatever makes the CPU slower while it runs makes the statement take
 * longer, and so it does the model's. On this project's virtual machine the
 * virtio disk's I/O does: fsyncs on it, by another process on the other
 * CPU, made the same arithmetic take 1.07-1.10x its CPU time on the mean
 * (the median unchanged: a few slices lose much), cache-resident work
 * 1.11-1.14x and work over 32 MiB 1.17-1.55x; on the RAM loop drive they did
 * not. The servers' CPU a transaction on that disk was 1.04-1.38x their CPU
 * on the RAM drive (medians of three rounds), and a model that burnt time
 * on the CPU clock, which counts the lost time as the thread's, kept its own
 * at 0.92-1.05x. Burning work, the model takes 2.4 % more CPU a transaction
 * on the disk: the chain, in registers, feels only the time lost, not the
 * cache misses that slow the servers' code more (docs/fidelity-history.md, change
 * 53). --cpu-burn time keeps the clock instead.
 */
#ifndef APPIO_DBM_CPU_H
#define APPIO_DBM_CPU_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#define DBM_CPU_RING 1024       /* futex words; a power of two */

struct dbm_cpus {
	_Atomic uint32_t next;          /* the next ticket to hand out */
	_Atomic uint32_t served;        /* tickets released so far (the wakers' futex word) */
	_Atomic uint32_t wakers;        /* threads in dbm_cpus_wake() */
	uint32_t n;                     /* tickets burning at once: the CPUs */
	_Atomic uint32_t ring[DBM_CPU_RING];
};

enum dbm_burn { DBM_BURN_WORK, DBM_BURN_TIME };
extern const char *const dbm_burn_names[];

/* This thread's CPU clock, ns. */
uint64_t dbm_thread_cpu_ns(void);

/* The work burn's steps a ns of this thread's CPU clock, measured now (the median of short runs). */
double dbm_burn_rate(void);

/*
 * Burn @ns of CPU from @start (this thread's CPU clock): as @ns x @rate
 * steps of work, or (DBM_BURN_TIME) until the clock reads @start + @ns.
 * Returns the clock at the end.
 */
uint64_t dbm_burn(enum dbm_burn how, double rate, uint64_t start, uint64_t ns);

/* Set @c up for @n CPUs (at least 1). */
void dbm_cpus_init(struct dbm_cpus *c, unsigned n);

/* Queue for a CPU and return once this thread may burn: the ns it waited (0: none). */
uint64_t dbm_cpus_take(struct dbm_cpus *c);

/* Give the CPU back: the next ticket in line may run. */
void dbm_cpus_give(struct dbm_cpus *c);

/*
 * Back from a sleep: return once a CPU is free, at once when fewer than
 * @n burn, else when the next one is given back, ahead of the queued
 * tickets and without taking one. True if it waited.
 */
bool dbm_cpus_wake(struct dbm_cpus *c);

/* Workers queued behind the ones burning now. */
static inline uint32_t dbm_cpus_queued(struct dbm_cpus *c)
{
	uint32_t q = atomic_load(&c->next) - atomic_load(&c->served);
	return q > c->n ? q - c->n : 0;
}

#endif
