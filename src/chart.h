/*
 * chart.h - what every chart of the HTML report shares: HTML and gnuplot
 * quoting, the script's preamble (SVG terminal, the page's colours), the
 * latency unit of a panel, and running gnuplot on a script to inline its SVG
 * as one <figure>. Used by report.c (one chart per test) and report_apps.c
 * (the applications' extra charts).
 *
 * Every chart is a <figure class="chart" id="ID" data-test="TEST"
 * data-chart="KIND"> (and data-drive="LABEL" when it shows one drive), so
 * tests and readers can count and find them.
 *
 * Main thread only. Functions return 0 or -errno with one line in @err.
 */
#ifndef APPIO_CHART_H
#define APPIO_CHART_H

#include <stdbool.h>
#include <stdio.h>

/* Colours (gnuplot linetypes 1..CHART_COLOURS) the preamble defines. */
#define CHART_COLOURS 10

/* How a chart is named on the page; every string is borrowed. */
struct chart_id {
	const char *id;                 /* "fig-3", "fig-3-2": unique on the page */
	const char *test;               /* data-test: the test's name */
	const char *kind;               /* data-chart: "test", "intervals", "intervals-drives" */
	const char *drive;              /* data-drive, or NULL for a chart of every drive */
	const char *title;              /* the SVG's <title> */
};

/* Write @s to @f with HTML's special characters escaped (NULL writes nothing). */
void chart_html(FILE *f, const char *s);

/* Write @s to @f as a gnuplot single-quoted string. */
void chart_gp_str(FILE *f, const char *s);

/*
 * Begin a gnuplot script on @s: an SVG of @w x @h pixels, the page's colours
 * as linetypes 1..CHART_COLOURS (each with its own point type), and a
 * multiplot of @rows x @cols panels under @title.
 */
void chart_begin(FILE *s, int w, int h, int rows, int cols, const char *title);

/*
 * The unit a latency panel whose largest figure is @max_ns reads best in:
 * returns the divisor (1, 1e3, 1e6) and sets *@unit ("ns", "µs", "ms").
 */
double chart_lat_unit(double max_ns, const char **unit);

/*
 * Run gnuplot on @script (@len bytes) and write its SVG into @page as the
 * figure @id. Nothing is written when gnuplot fails (-EIO, its first line
 * of errors in @err).
 */
int chart_figure(FILE *page, const char *script, size_t len, const struct chart_id *id,
		 char *err, size_t errlen);

#endif
