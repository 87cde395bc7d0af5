/*
 * report_ranks.c - the per-host spread of an MPI run's points (see
 * report_ranks.h). Reads the document as untrusted: a figure that is not a
 * number is left blank, a host list of another shape is skipped.
 */
#include <math.h>
#include <stdio.h>

#include "chart.h"
#include "report_ranks.h"

static double num(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_number(v) ? json_number_value(v) : NAN;
}

static void cell_ns(FILE *f, double ns)
{
	if (isnan(ns))
		fputs("<td></td>", f);
	else if (ns >= 1e6)
		fprintf(f, "<td>%.2f ms</td>", ns / 1e6);
	else
		fprintf(f, "<td>%.1f us</td>", ns / 1e3);
}

/* The lowest and highest "ops_per_s" of @arr's objects; false when none. */
static bool spread(json_t *arr, double *lo, double *hi)
{
	size_t i;
	json_t *x;

	*lo = INFINITY;
	*hi = -INFINITY;
	json_array_foreach(arr, i, x) {
		double v = num(x, "ops_per_s");
		if (isnan(v))
			continue;
		*lo = v < *lo ? v : *lo;
		*hi = v > *hi ? v : *hi;
	}
	return *hi >= *lo;
}

static void host_rows(FILE *f, json_t *hosts, double total)
{
	size_t i;
	json_t *h;

	json_array_foreach(hosts, i, h) {
		json_t *lat = json_object_get(h, "lat_ns");
		const char *name = json_string_value(json_object_get(h, "host"));
		double ops = num(h, "ops_per_s");
		fputs("<tr data-host=\"", f);
		chart_html(f, name ? name : "?");
		fprintf(f, "\" data-ops-per-s=\"%.1f\"><td>", isnan(ops) ? 0 : ops);
		chart_html(f, name ? name : "?");
		fprintf(f, "</td><td>%.0f</td><td>%.0f</td><td>%.1f</td><td>%.1f%%</td>", num(h, "ranks"),
			ops, num(h, "mb_per_s"), total > 0 ? ops / total * 100 : NAN);
		cell_ns(f, num(lat, "mean"));
		cell_ns(f, num(lat, "p99"));
		cell_ns(f, num(lat, "max"));
		fputs("</tr>\n", f);
	}
}

void report_ranks_hosts(FILE *f, const struct json_read_doc *d, const struct json_read_test *t)
{
	for (unsigned i = 0; t && i < t->npts; i++) {
		json_t *r = json_object_get(t->pts[i].raw, "ranks");
		json_t *hosts = json_object_get(r, "per_host"), *ranks = json_object_get(r, "per_rank");
		double hlo, hhi, rlo, rhi, total = 0;
		size_t k;
		json_t *x;
		if (!json_is_array(hosts) || !json_array_size(hosts))
			continue;
		json_array_foreach(hosts, k, x)
			if (!isnan(num(x, "ops_per_s")))
				total += num(x, "ops_per_s");
		fputs("<table class=\"hosts\" data-drive=\"", f);
		chart_html(f, d->label);
		fputs("\" data-point=\"", f);
		chart_html(f, t->pts[i].key);
		fputs("\"><caption>", f);
		chart_html(f, d->label);
		fputs(", ", f);
		chart_html(f, t->pts[i].key);
		fprintf(f, ": %.0f ranks on %.0f host(s)", num(r, "ranks"), num(r, "hosts"));
		if (spread(hosts, &hlo, &hhi) && hhi > 0)
			fprintf(f, "; slowest host %.1f%% below the fastest", (1 - hlo / hhi) * 100);
		if (spread(ranks, &rlo, &rhi) && rhi > 0)
			fprintf(f, ", slowest rank %.1f%% below the fastest", (1 - rlo / rhi) * 100);
		fprintf(f, "</caption>\n<tr><th>host</th><th>ranks</th><th>%s</th><th>MB/s</th><th>share</th>"
			"<th>mean</th><th>p99</th><th>max</th></tr>\n", t->tx ? "TPS" : "IOPS");
		host_rows(f, hosts, total);
		fputs("</table>\n", f);
	}
}
