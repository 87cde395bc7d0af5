/*
 * result.c - the result-document reader behind 'appio report' and 'appio
 * compare', on arbitrary bytes.
 *
 * The input is a document as a mailed file would hold it. It goes through
 * json_read_loadb() (the reader json_read_load() uses for files); a
 * document it accepts is then put beside a second copy of itself and
 * through what the commands do with the numbers: the option check, the
 * comparison tables and the summary (written to /dev/null), and the HTML
 * report with its per-interval splits. The report's charts are drawn by
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

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
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

/* A broken promise is a finding: abort, so the fuzzer keeps the input. */
#define must(cond) do { \
	if (!(cond)) { \
		fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
		abort(); \
	} \
} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_read_doc d[2];
	char err[600] = "";

	if (!devnull) {
		devnull = fopen("/dev/null", "w");
		must(devnull && mkdtemp(dir));
		snprintf(page, sizeof(page), "%s/report.html", dir);
		atexit(cleanup);
	}
	if (json_read_loadb(&d[0], "a/drive.json", (const char *)data, size, err, sizeof(err))) {
		must(err[0] && strstr(err, "a/drive.json") && !d[0].root && !d[0].ntests);
		return 0;
	}
	must(!json_read_loadb(&d[1], "b/drive.json", (const char *)data, size, err, sizeof(err)));
	json_read_labels(d, 2);
	must(strcmp(d[0].label, d[1].label));
	must(!compare_check(d, 2, err, sizeof(err)));   /* a document matches itself */
	compare_print(d, 2, devnull);
	compare_print_summary(d, 2, devnull);
	if (report_write_html(d, 2, page, err, sizeof(err)))
		must(err[0]);
	json_read_release(&d[0]);
	json_read_release(&d[1]);
	return 0;
}
