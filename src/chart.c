/*
 * chart.c - gnuplot as a child process per chart, and its SVG inlined in the
 * report page (see chart.h).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "chart.h"
#include "appio/xalloc.h"

void chart_html(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '&': fputs("&amp;", f); break;
		case '"': fputs("&quot;", f); break;
		default: fputc(*s, f);
		}
	}
}

/* Quotes are doubled inside gnuplot's single-quoted strings. */
void chart_gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; s && *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

void chart_begin(FILE *s, int w, int h, int rows, int cols, const char *title)
{
	static const char *const colours[CHART_COLOURS] = {
		"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf",
		"#bcbd22", "#7f7f7f",
	};
	/* filled circle, square, triangles, diamond, pentagon, then open ones:
	 * lines that cross stay apart without relying on colour alone */
	static const int points[CHART_COLOURS] = { 7, 5, 9, 11, 13, 15, 6, 4, 8, 12 };

	fprintf(s, "set terminal svg size %d,%d dynamic noenhanced font 'sans,12' background rgb 'white'\n"
		"set datafile missing 'NaN'\nset grid lc rgb '#dddddd'\nset tics nomirror\n"
		"set key tmargin center horizontal box lc rgb '#bbbbbb'\nset border 3 lc rgb '#444444'\n"
		"set format y '%%.6g'\n", w, h);
	for (unsigned i = 0; i < CHART_COLOURS; i++)
		fprintf(s, "set linetype %u lc rgb '%s' lw 2 pt %d ps 0.6\n", i + 1, colours[i], points[i]);
	fprintf(s, "set multiplot layout %d,%d title ", rows, cols);
	chart_gp_str(s, title);
	fputs(" font ',15'\n", s);
}

double chart_lat_unit(double max_ns, const char **unit)
{
	*unit = max_ns >= 1e6 ? "ms" : max_ns >= 1e3 ? "µs" : "ns";
	return max_ns >= 1e6 ? 1e6 : max_ns >= 1e3 ? 1e3 : 1;
}

static char *slurp(FILE *f, size_t *len)
{
	long n;

	fflush(f);
	if (fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET))
		return NULL;
	char *buf = xmalloc((size_t)n + 1);
	*len = fread(buf, 1, (size_t)n, f);
	buf[*len] = 0;
	return buf;
}

static void write_all(int fd, const char *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;         /* gnuplot died: its status tells */
		p += w;
		len -= (size_t)w;
	}
}

/* Run gnuplot on @script; its standard output (the SVG) comes back in *@svg. */
static int gnuplot(const char *script, size_t len, char **svg, char *err, size_t errlen)
{
	FILE *out = tmpfile(), *errs = tmpfile();
	int in[2], status = 0, rc = 0;
	size_t n;

	if (!out || !errs || pipe(in)) {
		rc = -errno;
		snprintf(err, errlen, "report: cannot start gnuplot: %s", strerror(errno));
		goto out;
	}
	pid_t pid = fork();
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(fileno(out), 1);
		dup2(fileno(errs), 2);
		close(in[0]);
		close(in[1]);
		execlp("gnuplot", "gnuplot", (char *)NULL);
		_exit(127);
	}
	close(in[0]);
	if (pid > 0)
		write_all(in[1], script, len);
	close(in[1]);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status)) {
		char *msg = slurp(errs, &n), *nl = msg ? strchr(msg, '\n') : NULL;
		if (nl)
			*nl = 0;
		snprintf(err, errlen, "report: gnuplot failed: %s", msg && *msg ? msg : "no output");
		free(msg);
		rc = -EIO;
		goto out;
	}
	*svg = slurp(out, &n);
	rc = *svg ? 0 : -EIO;
out:
	if (out)
		fclose(out);
	if (errs)
		fclose(errs);
	return rc;
}

/*
 * Inline @svg: drop the XML prolog, and give gnuplot's fixed element ids
 * (gpPt0, gnuplot_canvas...) the chart's prefix, since all charts share one
 * page.
 */
static void inline_svg(FILE *f, const char *svg, const char *prefix, const char *title)
{
	static const char *const ids[] = { "gpPt", "gpDot", "gnuplot_" };
	const char *p = strstr(svg, "<svg");

	for (p = p ? p : svg; *p; ) {
		size_t k;
		for (k = 0; k < 3 && strncmp(p, ids[k], strlen(ids[k])); k++)
			;
		if (k < 3) {
			fprintf(f, "%s%s", prefix, ids[k]);
			p += strlen(ids[k]);
		} else if (!strncmp(p, "<title>Gnuplot</title>", 22)) {
			fputs("<title>", f);
			chart_html(f, title);
			fputs("</title>", f);
			p += 22;
		} else {
			fputc(*p++, f);
		}
	}
}

int chart_figure(FILE *page, const char *script, size_t len, const struct chart_id *id,
		 char *err, size_t errlen)
{
	char *svg = NULL, prefix[64];
	int rc = gnuplot(script, len, &svg, err, errlen);

	if (rc)
		return rc;
	/* "fig-3-2" gives "c3-2": an XML id must not start with a digit */
	snprintf(prefix, sizeof(prefix), "c%s", strncmp(id->id, "fig-", 4) ? id->id : id->id + 4);
	fputs("<figure class=\"chart\" id=\"", page);
	chart_html(page, id->id);
	fputs("\" data-test=\"", page);
	chart_html(page, id->test);
	fputs("\" data-chart=\"", page);
	chart_html(page, id->kind);
	if (id->drive) {
		fputs("\" data-drive=\"", page);
		chart_html(page, id->drive);
	}
	fputs("\">\n", page);
	inline_svg(page, svg, prefix, id->title);
	fputs("</figure>\n", page);
	free(svg);
	return 0;
}
