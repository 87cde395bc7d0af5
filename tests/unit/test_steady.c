/*
 * test_steady.c - the SNIA PTS steady-state detector on synthetic series:
 * flat, trending, noisy, settling late, never settling, and the edge cases.
 */
#include <math.h>
#include <stdlib.h>

#include "check.h"
#include "steady.h"

#define N 25

/* A reproducible uniform value in [-1, 1). */
static double noise(unsigned *state)
{
	*state = *state * 1103515245u + 12345u;
	return ((*state >> 8) & 0xffff) / 32768.0 - 1;
}

static void test_flat(void)
{
	double x[N];
	struct steady_verdict v;

	for (unsigned i = 0; i < N; i++)
		x[i] = 50000;
	CHECK(steady_first(x, N, &v) == 1, "flat series is steady");
	CHECK(v.reached && v.first == 1 && v.last == 5, "reached at round %u (window %u-%u)", v.last, v.first, v.last);
	CHECK(v.avg == 50000 && v.slope == 0 && v.excursion_pct == 0, "avg %g slope %g", v.avg, v.slope);
}

static void test_fewer_than_window(void)
{
	double x[] = { 100, 100, 100, 100 };
	struct steady_verdict v;

	CHECK(steady_check(x, 4, &v) == 0 && !v.reached, "4 flat rounds are not a window");
	CHECK(v.first == 1 && v.last == 4 && v.avg == 100, "window %u-%u avg %g", v.first, v.last, v.avg);
	CHECK(steady_check(x, 0, &v) == 0 && !v.reached && v.last == 0, "no rounds");
	CHECK(steady_check(NULL, 3, &v) < 0, "NULL series refused");
}

/* The least-squares slope against a naive two-pass computation. */
static void test_slope_reference(void)
{
	double x[] = { 3, 9, 4, 12, 8 };
	struct steady_verdict v;
	double mx = 2, my = 0, num = 0, den = 0;

	for (int i = 0; i < 5; i++)
		my += x[i] / 5;
	for (int i = 0; i < 5; i++) {
		num += (i - mx) * (x[i] - my);
		den += (i - mx) * (i - mx);
	}
	steady_check(x, 5, &v);
	CHECK(fabs(v.slope - num / den) < 1e-9, "slope %g, expected %g", v.slope, num / den);
	CHECK(v.min == 3 && v.max == 12 && fabs(v.avg - 7.2) < 1e-9, "min %g max %g avg %g", v.min, v.max, v.avg);
}

/* A steady 3 % climb per round (a drive still warming up): every round is near
 * the average, but the fitted line climbs 12 % across the window. */
static void test_trending(void)
{
	double x[N];
	struct steady_verdict v;

	for (unsigned i = 0; i < N; i++)
		x[i] = 10000 * pow(1.03, i);
	CHECK(steady_first(x, N, &v) == 0, "a trend is not steady (fit %.1f %%)", v.fit_pct);
	CHECK(v.excursion_pct < STEADY_EXCURSION_PCT, "excursion %.1f %% passes on its own", v.excursion_pct);
	CHECK(v.fit_pct > STEADY_SLOPE_PCT, "fit %.1f %% fails", v.fit_pct);
	CHECK(v.first == N - 4 && v.last == N, "reports the last window %u-%u", v.first, v.last);
}

/* +-10 % of uniform noise around a level: steady at once. */
static void test_noisy_steady(void)
{
	double x[N];
	struct steady_verdict v;
	unsigned st = 1;

	for (unsigned i = 0; i < N; i++)
		x[i] = 20000 * (1 + 0.10 * noise(&st));
	CHECK(steady_first(x, N, &v) == 1, "noise within 10 %% is steady (exc %.1f %%, fit %.1f %%)",
	      v.excursion_pct, v.fit_pct);
	CHECK(v.last == 5, "reached at round %u", v.last);
}

/* +-40 % noise: some round always strays beyond 20 % of the average. */
static void test_never_settling(void)
{
	double x[N];
	struct steady_verdict v;

	for (unsigned i = 0; i < N; i++)
		x[i] = i % 2 ? 14000 : 6000;
	CHECK(steady_first(x, N, &v) == 0, "alternating +-40 %% never settles");
	/* the last window (rounds 21-25) holds 6000 x3 and 14000 x2: avg 9200 */
	CHECK(fabs(v.avg - 9200) < 1e-6, "avg %g", v.avg);
	CHECK(fabs(v.excursion_pct - 4800 / 92.0) < 1e-6, "excursion %.1f %%", v.excursion_pct);
	CHECK(fabs(v.range_pct - 8000 / 92.0) < 1e-6, "range %.1f %%", v.range_pct);
}

/* A fresh drive: a burst that decays into a plateau; steady once the window sits on it. */
static void test_settles_late(void)
{
	double x[N];
	struct steady_verdict v;

	for (unsigned i = 0; i < N; i++)
		x[i] = 30000 + 90000 * exp(-(double)i);
	CHECK(steady_first(x, N, &v) == 1, "decay to a plateau settles");
	CHECK(v.last > 5 && v.last < 12, "reached at round %u, after the burst", v.last);
	struct steady_verdict w;
	steady_check(x, v.last - 1, &w);
	CHECK(!w.reached, "not yet one round earlier");
}

/* Each criterion on its boundary. */
static void test_boundaries(void)
{
	double in[] = { 80, 120, 100, 120, 80 };        /* 20 % off exactly, no trend */
	double out[] = { 79, 121, 100, 121, 79 };
	double zero[] = { 0, 0, 0, 0, 0 };
	struct steady_verdict v;

	steady_check(in, 5, &v);
	CHECK(v.reached, "20 %% excursion is allowed (exc %.2f %%, fit %.2f %%)", v.excursion_pct, v.fit_pct);
	steady_check(out, 5, &v);
	CHECK(!v.reached, "21 %% excursion is not (exc %.2f %%)", v.excursion_pct);
	steady_check(zero, 5, &v);
	CHECK(!v.reached, "a dead device is never steady");
}

int main(void)
{
	RUN(test_flat);
	RUN(test_fewer_than_window);
	RUN(test_slope_reference);
	RUN(test_trending);
	RUN(test_noisy_steady);
	RUN(test_never_settling);
	RUN(test_settles_late);
	RUN(test_boundaries);
	return check_done();
}
