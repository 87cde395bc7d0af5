/*
 * cmd_trace.c - 'appio trace info FILE', 'appio trace convert IN -o OUT' and
 * 'appio trace formats': what a storage engineer asks of a trace first, and
 * moving a trace between formats, both in one streaming pass ('appio trace
 * record' is src/cmd_record.c).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "appio/trace.h"
#include "appio/trace_stats.h"
#include "cli.h"
#include "json_write.h"

struct trace_args {
	const char *in, *out;
	const struct trace_format *from, *to;
	struct trace_opts opts;
	int json;
};

static const char usage_text[] =
	"usage: appio trace info FILE [--from FORMAT] [--queue] [--json]\n"
	"       appio trace convert IN -o OUT [--from FORMAT] [--to FORMAT] [--queue]\n"
	"       appio trace formats\n"
	"       appio trace record (--device NAME | --path PATH) -o FILE [--time S] [-- COMMAND...]\n"
	"FILE '-' is stdin, OUT '-' stdout, or the name of a bundled trace ('appio list').\n"
	"The input format is guessed from the content (gzip-compressed files are read too)\n"
	"unless --from gives it; --to defaults to appio, or fio for OUT ending in .iolog\n"
	"and blkparse for OUT ending in .blkparse. --queue takes blkparse/blktrace\n"
	"requests at their Q (queued) events instead of D (issued to the driver).";

static const struct trace_format *format_arg(const char *cmd, const char *name)
{
	const struct trace_format *f = trace_format_find(name);

	if (!f) {
		char list[256] = "";
		for (int i = 0; trace_format_table[i]; i++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "",
				 trace_format_table[i]->name);
		cli_usage_error("trace %s: unknown format '%s' (one of %s)", cmd, name, list);
	}
	return f;
}

static void parse_args(const char *cmd, int argc, char **argv, struct trace_args *a)
{
	memset(a, 0, sizeof(*a));
	for (int i = 1; i < argc; i++) {
		const char *o = argv[i];
		int has_val = i + 1 < argc;
		if (!strcmp(o, "-h") || !strcmp(o, "--help")) {
			puts(usage_text);
			exit(0);
		} else if (!strcmp(o, "--from") || !strcmp(o, "--to") || !strcmp(o, "-o")) {
			if (!has_val)
				cli_usage_error("trace %s: %s needs a value (see 'appio trace --help')", cmd, o);
			if (!strcmp(o, "-o"))
				a->out = argv[++i];
			else if (!strcmp(o, "--from"))
				a->from = format_arg(cmd, argv[++i]);
			else
				a->to = format_arg(cmd, argv[++i]);
		} else if (!strcmp(o, "--queue")) {
			a->opts.queue_events = 1;
		} else if (!strcmp(o, "--json") && !strcmp(cmd, "info")) {
			a->json = 1;
		} else if (o[0] == '-' && o[1]) {
			cli_usage_error("trace %s: unknown option '%s' (see 'appio trace --help')", cmd, o);
		} else if (a->in) {
			cli_usage_error("trace %s: one input file only ('%s' and '%s')", cmd, a->in, o);
		} else {
			a->in = o;
		}
	}
	if (!a->in)
		cli_usage_error("trace %s: which trace? (see 'appio trace --help')", cmd);
}

static void open_or_die(const char *cmd, struct trace_reader *r, const struct trace_args *a)
{
	char err[sizeof(r->err)];
	static char bundled[4096];      /* lives as long as the reader's path */

	if (trace_open(r, trace_resolve(a->in, bundled, sizeof(bundled)), a->from, &a->opts)) {
		memcpy(err, r->err, sizeof(err));
		trace_close(r);
		cli_usage_error("trace %s: %s", cmd, err);
	}
}

static int cmd_formats(void)
{
	for (int i = 0; trace_format_table[i]; i++) {
		const struct trace_format *f = trace_format_table[i];
		printf("%-10s %-3s %s\n", f->name, f->next && f->write ? "r/w" : f->write ? "w" : "r", f->desc);
	}
	return 0;
}

static int cmd_convert(int argc, char **argv)
{
	struct trace_args a;
	struct trace_reader r;
	struct trace_writer w = { 0 };
	struct trace_rec rec;
	int rc;

	parse_args("convert", argc, argv, &a);
	if (!a.out)
		cli_usage_error("trace convert: where to? give -o OUT (see 'appio trace --help')");
	if (!a.to) {
		size_t n = strlen(a.out);
		a.to = trace_format_find(n > 6 && !strcmp(a.out + n - 6, ".iolog") ? "fio" :
					 n > 9 && !strcmp(a.out + n - 9, ".blkparse") ? "blkparse" : "appio");
	}
	if (!a.to->write)
		cli_usage_error("trace convert: appio does not write %s traces (it writes appio, fio "
				"and blkparse)", a.to->name);
	open_or_die("convert", &r, &a);
	/* the first record fixes epoch_ns, which the writer's header carries */
	rc = trace_next(&r, &rec);
	if (rc >= 0 && trace_writer_open(&w, a.out, a.to, &r.hdr)) {
		fprintf(stderr, "appio: trace convert: %s\n", w.err);
		trace_writer_close(&w);
		trace_close(&r);
		return EXIT_USAGE;
	}
	for (; rc == 0 && !cli_interrupted; rc = trace_next(&r, &rec))
		if (trace_write(&w, &rec)) {
			rc = -EIO;
			break;
		}
	if (rc == -EIO || (rc >= 0 && trace_writer_close(&w))) {
		fprintf(stderr, "appio: trace convert: %s\n", w.err);
		trace_close(&r);
		return 1;
	}
	if (rc < 0) {
		struct stat st;
		trace_writer_close(&w);
		/* no half-converted trace left behind; but -o /dev/null, a FIFO or a link stays */
		if (w.path && strcmp(w.path, "-") && !lstat(w.path, &st) && S_ISREG(st.st_mode))
			unlink(w.path);
		fprintf(stderr, "appio: trace convert: %s\n", r.err);
		trace_close(&r);
		return EXIT_USAGE;
	}
	fprintf(stderr, "appio: %llu records from %s to %s '%s'%s\n", (unsigned long long)w.count,
		r.fmt->name, a.to->name, a.out, r.hdr.note[0] ? " (see the note in its header)" : "");
	trace_close(&r);
	return cli_interrupted ? EXIT_INTERRUPTED : 0;
}

/* ---- trace info ---- */

static void human_bytes(double b, char *buf, size_t len)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB", "PiB" };
	int u = 0;

	while (b >= 1024 && u < 5) {
		b /= 1024;
		u++;
	}
	snprintf(buf, len, u ? "%.2f %s" : "%.0f %s", b, units[u]);
}

static void human_ns(double ns, char *buf, size_t len)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", ns / 1e9);
}

static double pct(uint64_t a, uint64_t b)
{
	return b ? 100.0 * (double)a / (double)b : 0;
}

static void print_times(const char *what, const uint64_t *hist, uint64_t sum, uint64_t n)
{
	char m[32], p50[32], p99[32], mx[32];

	if (!n) {
		printf("%-14s unknown (the trace has none)\n", what);
		return;
	}
	human_ns((double)sum / (double)n, m, sizeof(m));
	human_ns((double)trace_stats_log_pct(hist, 0.5), p50, sizeof(p50));
	human_ns((double)trace_stats_log_pct(hist, 0.99), p99, sizeof(p99));
	human_ns((double)trace_stats_log_pct(hist, 1.0), mx, sizeof(mx));
	printf("%-14s mean %s, p50 < %s, p99 < %s, max < %s (log2 bins)\n", what, m, p50, p99, mx);
}

static void print_over_time(const struct trace_stats *s)
{
	uint32_t per_row = (s->nbuckets + 19) / 20;
	double w = (double)s->bucket_ns * per_row / 1e9;

	if (!per_row)
		return;
	printf("over time:     %.0f s per row\n", w);
	for (uint32_t i = 0; i < s->nbuckets; i += per_row) {
		uint64_t ios = 0, bytes = 0;
		for (uint32_t k = i; k < i + per_row && k < s->nbuckets; k++) {
			ios += s->b_ios[k];
			bytes += s->b_bytes[k];
		}
		printf("  %8.0f s - %8.0f s  %12.1f IOPS  %10.2f MB/s\n", i / per_row * w,
		       (i / per_row + 1) * w, (double)ios / w, (double)bytes / w / 1e6);
	}
}

static void print_info(const struct trace_reader *r, const struct trace_stats *s)
{
	static const char *const flag_names[TS_NFLAGS] = { "FUA", "preflush", "sync", "metadata",
							  "read-ahead", "datasync" };
	double dur = (double)(s->last_ns - s->first_ns) / 1e9, span = dur > 0 ? dur : 1;
	uint64_t bytes = s->op_bytes[TRACE_OP_READ] + s->op_bytes[TRACE_OP_WRITE];
	char b1[32], b2[32];

	printf("trace:         %s (format %s)\nclock:         %s\n", r->hdr.source, r->fmt->name, r->hdr.clock);
	if (r->hdr.note[0])
		printf("note:          %s\n", r->hdr.note);
	for (uint32_t i = 0; i < r->hdr.nmeta; i++)
		printf("%-14s %s: %s\n", i ? "" : "made by:", r->hdr.meta[i].key, r->hdr.meta[i].val);
	if (r->hdr.epoch_ns) {
		time_t t = (time_t)(r->hdr.epoch_ns / 1000000000);
		struct tm tm;
		char when[32];
		strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S", gmtime_r(&t, &tm));
		printf("starts:        %s UTC\n", when);
	}
	human_ns((double)(s->last_ns - s->first_ns), b1, sizeof(b1));
	printf("duration:      %s from first to last issue\n", b1);
	printf("I/Os:          %llu, %.1f IOPS, %.2f MB/s read+write (mean over the duration)\n",
	       (unsigned long long)s->ios, (double)s->ios / span, (double)bytes / span / 1e6);
	printf("ops:          ");
	for (int op = 0; op < TRACE_OP_NR; op++) {
		human_bytes((double)s->op_bytes[op], b1, sizeof(b1));
		printf(" %s %.1f %% (%s)%s", trace_op_name((unsigned)op), pct(s->op_ios[op], s->ios),
		       b1, op + 1 < TRACE_OP_NR ? "," : "\n");
	}
	printf("flags:        ");
	for (int i = 0; i < TS_NFLAGS; i++)
		printf(" %s %.1f %%%s", flag_names[i], pct(s->flag_ios[i], s->ios), i + 1 < TS_NFLAGS ? "," : "\n");
	human_bytes(s->size_n ? (double)s->size_sum / (double)s->size_n : 0, b1, sizeof(b1));
	printf("transfer size: mean %s over reads, writes and discards\n", b1);
	for (int i = 0; i < TS_SIZE_BINS; i++) {
		uint64_t lo, hi;
		if (!s->size_hist[i])
			continue;
		trace_stats_size_bin(i, &lo, &hi);
		human_bytes((double)(i == TS_SIZE_BINS - 1 ? lo - 1 : hi), b1, sizeof(b1));
		printf("  %s %-10s %6.2f %% of I/Os\n", i == TS_SIZE_BINS - 1 ? "> " : "<=", b1,
		       pct(s->size_hist[i], s->size_n));
	}
	human_bytes(trace_stats_footprint(s), b1, sizeof(b1));
	printf("footprint:     %s in distinct 4 KiB blocks read or written (estimate, ~1 %%)\n", b1);
	printf("sequential:    %.1f %% of data I/Os start where their device's previous one ended\n",
	       pct(s->seq, s->data_ios));
	print_times("inter-arrival:", s->iat_hist, s->iat_sum, s->iat_n);
	print_times("service time:", s->svc_hist, s->svc_sum, s->svc_n);
	if (!s->qd_n)
		printf("queue depth:   unknown (no completion times or in-flight counts)\n");
	else {
		printf("queue depth:   mean %.2f I/Os in flight at issue (this one included)\n",
		       (double)s->qd_sum / (double)s->qd_n);
		for (int i = 0; i < TS_QD_BINS; i++) {
			int lo, hi;
			char range[32];
			if (!s->qd_hist[i])
				continue;
			trace_stats_qd_bin(i, &lo, &hi);
			if (hi == INT32_MAX)
				snprintf(range, sizeof(range), "> %d", lo - 1);
			else if (lo == hi)
				snprintf(range, sizeof(range), "%d", lo);
			else
				snprintf(range, sizeof(range), "%d-%d", lo, hi);
			printf("  %-10s %6.2f %% of I/Os\n", range, pct(s->qd_hist[i], s->qd_n));
		}
	}
	if (s->out_of_order || r->early)
		printf("order:         %llu I/Os issued before the one above them; %llu before the first "
		       "(counted at 0 s)\n", (unsigned long long)s->out_of_order, (unsigned long long)r->early);
	print_over_time(s);
	printf("per device:    %u device%s%s\n", r->hdr.devs.n, r->hdr.devs.n == 1 ? "" : "s",
	       r->hdr.devs.n > TS_DEV_MAX ? " (the first 64 shown)" : "");
	for (uint32_t d = 0; d < s->ndev; d++) {
		const struct trace_stats_dev *v = &s->dev[d];
		human_bytes((double)v->bytes, b1, sizeof(b1));
		human_bytes((double)v->max_end, b2, sizeof(b2));
		printf("  %-16s %llu I/Os (%.1f %%), read %.1f %%, %s moved, sequential %.1f %%, "
		       "highest byte %s\n", r->hdr.devs.d[d].name, (unsigned long long)v->ios,
		       pct(v->ios, s->ios), pct(v->op_ios[TRACE_OP_READ], v->ios), b1,
		       pct(v->seq, v->data_ios), b2);
	}
}

static void json_times(FILE *f, const char *key, const uint64_t *hist, uint64_t sum, uint64_t n)
{
	fprintf(f, ",\n  \"%s\": ", key);
	if (!n) {
		fputs("null", f);
		return;
	}
	fputs("{\"mean\": ", f);
	json_num(f, (double)sum / (double)n);
	fprintf(f, ", \"p50_below\": %llu, \"p99_below\": %llu}",
		(unsigned long long)trace_stats_log_pct(hist, 0.5), (unsigned long long)trace_stats_log_pct(hist, 0.99));
}

static void print_json(const struct trace_reader *r, const struct trace_stats *s)
{
	FILE *f = stdout;
	double dur = (double)(s->last_ns - s->first_ns) / 1e9, span = dur > 0 ? dur : 1;

	fputs("{\n  \"source\": ", f);
	json_str(f, r->hdr.source);
	fputs(",\n  \"format\": ", f);
	json_str(f, r->fmt->name);
	fputs(",\n  \"note\": ", f);
	json_str(f, r->hdr.note);
	fputs(",\n  \"meta\": {", f);
	for (uint32_t i = 0; i < r->hdr.nmeta; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, r->hdr.meta[i].key);
		fputs(": ", f);
		json_str(f, r->hdr.meta[i].val);
	}
	fputs("}", f);
	fprintf(f, ",\n  \"epoch_ns\": %llu,\n  \"duration_s\": ", (unsigned long long)r->hdr.epoch_ns);
	json_num(f, dur);
	fprintf(f, ",\n  \"ios\": %llu,\n  \"iops\": ", (unsigned long long)s->ios);
	json_num(f, (double)s->ios / span);
	fputs(",\n  \"ops\": {", f);
	for (int op = 0; op < TRACE_OP_NR; op++)
		fprintf(f, "%s\"%s\": {\"ios\": %llu, \"bytes\": %llu}", op ? ", " : "", trace_op_name((unsigned)op),
			(unsigned long long)s->op_ios[op], (unsigned long long)s->op_bytes[op]);
	fputs("},\n  \"size_mean_bytes\": ", f);
	json_num(f, s->size_n ? (double)s->size_sum / (double)s->size_n : 0);
	fputs(",\n  \"size_hist\": [", f);
	for (int i = 0, first = 1; i < TS_SIZE_BINS; i++) {
		uint64_t lo, hi;
		if (!s->size_hist[i])
			continue;
		trace_stats_size_bin(i, &lo, &hi);
		fprintf(f, "%s{\"from_bytes\": %llu, \"ios\": %llu}", first ? "" : ", ", (unsigned long long)lo,
			(unsigned long long)s->size_hist[i]);
		first = 0;
	}
	fputs("],\n  \"footprint_bytes\": ", f);
	json_num(f, trace_stats_footprint(s));
	fputs(",\n  \"sequential_pct\": ", f);
	json_num(f, pct(s->seq, s->data_ios));
	json_times(f, "interarrival_ns", s->iat_hist, s->iat_sum, s->iat_n);
	json_times(f, "service_ns", s->svc_hist, s->svc_sum, s->svc_n);
	fputs(",\n  \"queue_depth_mean\": ", f);
	if (s->qd_n)
		json_num(f, (double)s->qd_sum / (double)s->qd_n);
	else
		fputs("null", f);
	fputs(",\n  \"over_time\": {\"bucket_s\": ", f);
	json_num(f, (double)s->bucket_ns / 1e9);
	fputs(", \"ios\": [", f);
	for (uint32_t i = 0; i < s->nbuckets; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)s->b_ios[i]);
	fputs("], \"bytes\": [", f);
	for (uint32_t i = 0; i < s->nbuckets; i++)
		fprintf(f, "%s%llu", i ? ", " : "", (unsigned long long)s->b_bytes[i]);
	fputs("]},\n  \"devices\": [", f);
	for (uint32_t d = 0; d < s->ndev; d++) {
		fprintf(f, "%s\n    {\"name\": ", d ? "," : "");
		json_str(f, r->hdr.devs.d[d].name);
		fprintf(f, ", \"ios\": %llu, \"reads\": %llu, \"bytes\": %llu, \"sequential_pct\": ",
			(unsigned long long)s->dev[d].ios, (unsigned long long)s->dev[d].op_ios[TRACE_OP_READ],
			(unsigned long long)s->dev[d].bytes);
		json_num(f, pct(s->dev[d].seq, s->dev[d].data_ios));
		fputs("}", f);
	}
	fputs("\n  ]\n}\n", f);
}

static int cmd_info(int argc, char **argv)
{
	struct trace_args a;
	struct trace_reader r;
	struct trace_rec rec;
	struct trace_stats *s = malloc(sizeof(*s));
	int rc;

	if (!s) {
		fputs("appio: trace info: out of memory\n", stderr);
		return 1;
	}
	parse_args("info", argc, argv, &a);
	open_or_die("info", &r, &a);
	trace_stats_init(s);
	while (!(rc = trace_next(&r, &rec)) && !cli_interrupted)
		trace_stats_add(s, &rec);
	if (rc < 0) {
		fprintf(stderr, "appio: trace info: %s\n", r.err);
		trace_close(&r);
		free(s);
		return EXIT_USAGE;
	}
	if (a.json)
		print_json(&r, s);
	else
		print_info(&r, s);
	trace_close(&r);
	free(s);
	return cli_interrupted ? EXIT_INTERRUPTED : 0;
}

int cmd_trace(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		puts(usage_text);
		return argc < 2 ? EXIT_USAGE : 0;
	}
	if (!strcmp(argv[1], "info"))
		return cmd_info(argc - 1, argv + 1);
	if (!strcmp(argv[1], "convert"))
		return cmd_convert(argc - 1, argv + 1);
	if (!strcmp(argv[1], "formats"))
		return cmd_formats();
	if (!strcmp(argv[1], "record"))
		return cmd_trace_record(argc - 1, argv + 1);
	cli_usage_error("trace: unknown subcommand '%s' (info, convert, formats or record)", argv[1]);
}
