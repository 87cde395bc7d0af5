/*
 * pair.h - issue events matched with completion events, records given back
 * in issue order.
 *
 * blkparse, blktrace and the kernel's tracepoints report a request twice: at
 * issue (D, or Q) and at completion (C), matched by device and sector. Issued
 * requests wait in a ring of at most @cap slots, in issue order, with a hash
 * on (device, sector); the oldest is handed out once it has completed. A
 * request whose completion never comes (lost event, trace cut short) holds
 * the ring until it is full: then pair_issue fails with -ENOSPC and the
 * reader says how many requests were in flight. At the end of the trace the
 * rest are handed out with their completion unknown.
 */
#ifndef APPIO_TRACES_PAIR_H
#define APPIO_TRACES_PAIR_H

#include <stdbool.h>

#include "appio/trace.h"

struct pair_slot {
	struct trace_rec rec;
	uint64_t sector;
	uint32_t next;                  /* hash chain: slot index + 1, 0 ends */
	uint8_t state;                  /* 0 free, 1 waiting for completion, 2 done, 3 requeued */
};

struct pair {
	/*
	 * A second issue of a waiting (device, sector) is a request of its own
	 * (two reads of one block in flight), and completions go to the oldest;
	 * for sources that report requeues apart (pair_cancel). Off (the
	 * default): such an issue is taken for a requeue and ignored.
	 */
	bool dups;
	struct pair_slot *s;
	uint32_t room, head, n;         /* ring of issued requests, oldest at head */
	uint32_t cap;                   /* the bound: the ring doubles up to it */
	uint32_t *bucket;               /* nb chains of slot index + 1 */
	uint32_t nb;
};

/* A pairing table of @cap requests; its ring starts small and doubles as
   requests wait. 0 or -ENOMEM. */
int pair_init(struct pair *p, uint32_t cap);
void pair_release(struct pair *p);

/*
 * Queue a request issued at @rec->issue_ns at @sector; sets rec->inflight
 * from the device's pending count. 0, 1 if the same (device, sector) is
 * already waiting (a requeue: ignored), -ENOSPC when @cap are waiting,
 * -ENOMEM when the ring cannot grow.
 */
int pair_issue(struct pair *p, struct trace_rec *rec, uint64_t sector, struct trace_devs *ds);

/*
 * The oldest waiting request on @dev at @sector completed at @t_ns
 * (TRACE_NS_UNKNOWN: it left without a completion of its own, e.g. merged).
 * Returns 1 if one was waiting, 0 if none (issued before the trace began).
 */
int pair_complete(struct pair *p, uint32_t dev, uint64_t sector, uint64_t t_ns,
		  struct trace_devs *ds);

/*
 * The oldest waiting request on @dev at @sector was requeued: it is dropped,
 * its issue to come again. 1 if one was waiting, 0 if none.
 */
int pair_cancel(struct pair *p, uint32_t dev, uint64_t sector, struct trace_devs *ds);

/*
 * The oldest request into @out if it has completed, or whatever its state
 * when @drain. 0, or 1 when none is ready.
 */
int pair_pop(struct pair *p, struct trace_rec *out, int drain, struct trace_devs *ds);

#endif
