/*
 * test_replay_verdict.c - the replay's verdict from per-second counts: kept
 * up, the 1 % threshold, a lone late second as a stall, two late seconds in
 * a row as falling behind and catching up, late seconds to the end as not
 * keeping up, the in-flight cap and a slow feeder named, the trace's
 * in-flight counts named under --timing bounded, and no schedule to judge
 * with --timing afap or load.
 */
#include <string.h>

#include "check.h"
#include "replay.h"

#define NSEC 8

static uint32_t due[NSEC], done_[NSEC], late[NSEC];
static uint8_t capped[NSEC], starved[NSEC];
static struct replay_stats st = {
	.nsec = NSEC, .due = due, .done = done_, .late = late, .capped = capped, .starved = starved,
};
static char got[160];

static const char *judge(int timing)
{
	replay_verdict(&st, NSEC, timing, 16, got, sizeof(got));
	return got;
}

static void reset(void)
{
	for (int i = 0; i < NSEC; i++) {
		due[i] = done_[i] = 1000;
		late[i] = 0;
		capped[i] = starved[i] = 0;
	}
}

#define EXPECT(timing, want) \
	CHECK(!strcmp(judge(timing), want), "got \"%s\", want \"%s\"", got, want)

static void test_kept_up(void)
{
	reset();
	EXPECT(REPLAY_TRACE, "kept up");
	late[3] = 10;                   /* exactly 1 %: not a late second */
	EXPECT(REPLAY_TRACE, "kept up");
}

static void test_stalls(void)
{
	reset();
	late[3] = 11;
	EXPECT(REPLAY_TRACE, "kept up but for 1 stalled second(s), the first second 3 (late, then caught up)");
	late[6] = 500;
	EXPECT(REPLAY_TRACE, "kept up but for 2 stalled second(s), the first second 3 (late, then caught up)");
	reset();
	late[7] = 500;                  /* the last second, alone */
	EXPECT(REPLAY_TRACE, "kept up but for 1 stalled second(s), the first second 7 (late, then caught up)");
}

static void test_fell_behind(void)
{
	reset();
	late[2] = late[3] = 500;        /* two in a row, then on time again */
	late[6] = 11;
	EXPECT(REPLAY_TRACE, "fell behind 1 time(s), the first for 2 s from second 2 (submissions late "
	       "two seconds or more in a row), and caught up");
	reset();
	late[2] = 50;
	capped[1] = 1;                  /* the cap in the second before counts */
	late[4] = late[5] = 50;
	EXPECT(REPLAY_TRACE, "fell behind 2 time(s), the first for 1 s from second 2 (the in-flight cap "
	       "was reached: --qd 16), and caught up");
	reset();
	late[4] = 50;
	starved[4] = 1;
	EXPECT(REPLAY_TRACE, "fell behind 1 time(s), the first for 1 s from second 4 (the trace was read "
	       "too slowly: feed_waits), and caught up");
}

static void test_could_not_keep_up(void)
{
	reset();
	late[3] = 11;
	late[6] = late[7] = 500;        /* late to the end of the schedule */
	EXPECT(REPLAY_TRACE, "could not keep up from second 6 (submissions late two seconds or more in a row)");
	late[2] = late[3] = 500;        /* an earlier run that caught up does not hide it */
	EXPECT(REPLAY_TRACE, "could not keep up from second 6 (submissions late two seconds or more in a row)");
	reset();
	late[7] = 50;
	capped[7] = 1;
	EXPECT(REPLAY_TRACE, "could not keep up from second 7 (the in-flight cap was reached: --qd 16)");
}

/* --timing bounded keeps the schedule: judged as trace, its own waits named */
static void test_bounded(void)
{
	reset();
	EXPECT(REPLAY_BOUNDED, "kept up");
	late[2] = late[3] = 500;
	EXPECT(REPLAY_BOUNDED, "fell behind 1 time(s), the first for 2 s from second 2 (held to the "
	       "trace's in-flight counts: slower than the traced drive), and caught up");
	late[6] = late[7] = 500;
	capped[7] = 1;                  /* the cap, when reached, is still what is named */
	EXPECT(REPLAY_BOUNDED, "could not keep up from second 6 (the in-flight cap was reached: --qd 16)");
}

static void test_no_schedule(void)
{
	reset();
	late[2] = late[3] = 500;
	EXPECT(REPLAY_AFAP, "as fast as possible (no schedule to keep)");
	EXPECT(REPLAY_LOAD, "as fast as possible (no schedule to keep) at the trace's in-flight counts");
}

int main(void)
{
	RUN(test_kept_up);
	RUN(test_stalls);
	RUN(test_fell_behind);
	RUN(test_could_not_keep_up);
	RUN(test_bounded);
	RUN(test_no_schedule);
	return check_done();
}
