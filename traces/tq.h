/*
 * tq.h - a bounded min-heap of trace records ordered by issue or completion
 * time. Readers use it to put records back in issue order, writers to emit
 * completions in time order, the core to count I/Os outstanding at an issue.
 * The bound is the caller's: a push past it fails instead of growing.
 */
#ifndef APPIO_TRACES_TQ_H
#define APPIO_TRACES_TQ_H

#include "appio/trace.h"

struct tq {
	struct trace_rec *v;
	uint32_t n, alloc, cap;         /* records held, room allocated, the bound */
	int by_complete;                /* key: complete_ns when set, else issue_ns */
};

/*
 * An empty queue of at most @cap records. The room grows by doubling as
 * records arrive: a trace with little in flight never takes the bound's
 * megabytes. 0 or -ENOMEM.
 */
int tq_init(struct tq *q, uint32_t cap, int by_complete);
void tq_release(struct tq *q);
/* 0, or -ENOSPC when full. */
int tq_push(struct tq *q, const struct trace_rec *rec);
/* The earliest record, or NULL when empty. */
const struct trace_rec *tq_peek(const struct tq *q);
/* Remove the earliest into @out (may be NULL); 0, or 1 when empty. */
int tq_pop(struct tq *q, struct trace_rec *out);

#endif
