/*
 * result.c - the result-document reader behind 'appio report' and 'appio
 * compare', on arbitrary bytes.
 *
 * The input is one document as a mailed file would hold it, or two joined
 * by a form feed (a byte no JSON text holds outside a string, where it must
 * be escaped): drive A and drive B. Each goes through json_read_loadb() (the
 * reader json_read_load() uses for files); what it accepts then goes through
 * what the commands do with the numbers: the option check, the comparison
 * tables and the summary (written to /dev/null), and the HTML report with
 * its per-interval splits. One document is put beside a copy of itself,
 * which the option check must accept. The report's charts are drawn by
 * gnuplot, a child process: this target links with --wrap=chart_figure and
 * keeps the script instead, so everything up to gnuplot's input is fuzzed.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "chart.h"
#include "compare.h"
#include "json_read.h"
#include "report.h"
#include "fuzz.h"

int __wrap_chart_figure(FILE *page, const char *script, size_t len, const struct chart_id *id,
			char *err, size_t errlen);

static FILE *devnull;
static char dir[] = "/tmp/appio-fuzz-result-XXXXXX", page[64];

static void cleanup(void)
{
	unlink(page);
	rmdir(dir);
}

/* A chart without gnuplot: the script must at least be what @len says. */
int __wrap_chart_figure(FILE *out, const char *script, size_t len, const struct chart_id *id,
			char *err, size_t errlen)
{
	(void)err;
	(void)errlen;
	if (strlen(script) != len)
		abort();
	fprintf(out, "<figure class=\"chart\" id=\"%s\"></figure>\n", id->id);
	return 0;
}

/* Load one drive; on failure the message names it and nothing is held. */
static bool load(struct json_read_doc *d, const char *name, const uint8_t *p, size_t len)
{
	char err[600] = "";

	if (!json_read_loadb(d, name, (const char *)p, len, err, sizeof(err)))
		return true;
	must(err[0] && strstr(err, name) && !strchr(err, '\n') && !d->root && !d->ntests);
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *ff = memchr(data, '\f', size);
	size_t alen = ff ? (size_t)(ff - data) : size;
	struct json_read_doc d[2];
	char err[600] = "";

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		must(devnull && mkdtemp(dir));
		snprintf(page, sizeof(page), "%s/report.html", dir);
		atexit(cleanup);
	}
	if (!load(&d[0], "a/drive.json", data, alen))
		return 0;
	if (!load(&d[1], "b/drive.json", ff ? ff + 1 : data, ff ? size - alen - 1 : size)) {
		json_read_release(&d[0]);
		return 0;
	}
	json_read_labels(d, 2);
	must(strcmp(d[0].label, d[1].label));
	if (compare_check(d, 2, err, sizeof(err))) {
		must(ff);       /* only two documents may differ: one matches itself */
		must(err[0]);
	} else {
		compare_print(d, 2, devnull);
		compare_print_summary(d, 2, devnull);
		static volatile sig_atomic_t never;

		if (report_write_html(d, 2, page, &(struct buyer_opts){ .currency = "USD", .warranty_years = 5 },
				      &never, err, sizeof(err)))
			must(err[0]);
	}
	json_read_release(&d[0]);
	json_read_release(&d[1]);
	return 0;
}
