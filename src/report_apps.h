/*
 * report_apps.h - the report's extra charts for application results that
 * ask for a per-interval view (workload option "intervals", which nosql
 * records from --intervals): the reviews of a journal/merge database show,
 * per interval of the run, the latency of each operation class, and explain
 * a drive's rank by which class spikes. For such a test the page gets
 *   - per drive, a chart of each class's mean and maximum latency per
 *     interval (log scale, one line per class), with the figures as a
 *     table (<table class="intervals" data-drive="LABEL" data-point="KEY">,
 *     each cell carrying its exact figures as data-mean-ns, data-max-ns
 *     and data-ops);
 *   - with two or more drives, a chart of the headline class's mean and
 *     maximum latency per interval, one line per drive.
 * The points shown are every point when the test has at most two, else the
 * one with the most threads.
 *
 * Main thread only. Functions return 0 or -errno with one line in @err.
 */
#ifndef APPIO_REPORT_APPS_H
#define APPIO_REPORT_APPS_H

#include <stdio.h>

#include "json_read.h"

/*
 * Write test @name's interval charts of drives @d[0..n) into @page as
 * figures fig-@id-1, fig-@id-2...; nothing when no drive's result has
 * intervals. Runs gnuplot (chart.h).
 */
int report_apps_charts(FILE *page, const struct json_read_doc *d, unsigned n, const char *name,
		       unsigned id, char *err, size_t errlen);

#endif
