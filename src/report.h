/*
 * report.h - one self-contained HTML page from one or more drives' results:
 * the target facts of each drive, and per test a summary table ranking the
 * drives and a chart in the reviews' style (one series per drive):
 *   fill            MB/s per second;
 *   precondition    IOPS per second and mean latency per second (log scale);
 *   sweep           throughput, mean, max latency and latency stddev per T/Q point;
 *   write sweep     the same per write percentage;
 *   application,
 *   database        TPS (loops/s for a file-system personality, whose
 *                   headline class is "loop"), mean and p99 latency versus
 *                   threads; results that record intervals (nosql) also get
 *                   the per-interval latency charts of report_apps.h.
 * Charts are drawn by gnuplot (its SVG terminal), run as a child process
 * per chart, and inlined: the page loads nothing from anywhere. Test N's
 * own chart is <figure class="chart" id="fig-N" data-test="TEST NAME"
 * data-chart="test">; its extra charts are fig-N-1, fig-N-2... (chart.h).
 *
 * Main thread only. Functions return 0 or -errno with one line in @err.
 */
#ifndef APPIO_REPORT_H
#define APPIO_REPORT_H

#include <stdbool.h>

#include <signal.h>

#include "buyer.h"
#include "json_read.h"

/* Is a gnuplot executable on $PATH? */
bool report_have_gnuplot(void);

/*
 * Write the page for drives @d[0..n) to @path (temporary file + rename): first
 * the buyer's summary (and cost, with prices in @o; buyer.h), then the rest.
 * SIGPIPE should be ignored by the caller (a gnuplot that dies early).
 * Between charts it looks at *@stop (may be NULL): nonzero (Ctrl-C) leaves
 * no file and returns -EINTR.
 */
int report_write_html(const struct json_read_doc *d, unsigned n, const char *path,
		      const struct buyer_opts *o, volatile sig_atomic_t *stop, char *err, size_t errlen);

#endif
