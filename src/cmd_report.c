/*
 * cmd_report.c - 'appio report RESULT.json... [-o report.html]' and
 * 'appio compare A.json B.json...': read result documents (a suite's or a
 * single run's), refuse to put different methods side by side, then write
 * the HTML report, print the summary, or print the comparison tables.
 */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "buyer.h"
#include "cli.h"
#include "compare.h"
#include "json_read.h"
#include "report.h"
#include "appio/xalloc.h"

struct docs {
	struct json_read_doc *d;
	unsigned n;
	const char *out;                /* -o FILE, or NULL */
	struct buyer_opts bo;           /* --slo, --price, --dwpd, --currency, --warranty-years */
};

static void release(struct docs *ds)
{
	for (unsigned i = 0; i < ds->n; i++)
		json_read_release(&ds->d[i]);
	free(ds->d);
	free(ds->bo.price);
	free(ds->bo.dwpd);
}

/* Ctrl-C between documents or before the output: exit 130, nothing written. */
static void stop_if_interrupted(struct docs *ds)
{
	if (!cli_interrupted)
		return;
	release(ds);
	fputs("appio: interrupted\n", stderr);
	exit(EXIT_INTERRUPTED);
}

/* Is @out the file @in (the same inode), so that writing it would destroy an input? */
static bool same_file(const char *out, const char *in)
{
	struct stat so, si;

	return !stat(out, &so) && !stat(in, &si) && so.st_dev == si.st_dev && so.st_ino == si.st_ino;
}

/* --label FILE=NAME: name the drive of result FILE (as given on the command line). */
static void set_label(struct docs *ds, const char *cmd, const char *arg)
{
	const char *eq = arg ? strrchr(arg, '=') : NULL;

	if (!eq || eq == arg || !eq[1])
		cli_usage_error("%s: --label: expected FILE=NAME, e.g. --label nvme1.json='PM9A3 3.84T'", cmd);
	for (unsigned i = 0; i < ds->n; i++) {
		if (strlen(ds->d[i].path) != (size_t)(eq - arg) || strncmp(ds->d[i].path, arg, (size_t)(eq - arg)))
			continue;
		free(ds->d[i].label);
		ds->d[i].label = xstrdup(eq + 1);
		ds->d[i].label_given = true;
		return;
	}
	cli_usage_error("%s: --label: '%.*s' is not one of the results read (--label FILE=NAME)",
			cmd, (int)(eq - arg), arg);
}

/* Options that take a value and are applied once every result is read. */
static bool later_opt(const char *a)
{
	return !strcmp(a, "--label") || !strcmp(a, "--price") || !strcmp(a, "--dwpd") ||
	       !strcmp(a, "--slo") || !strcmp(a, "--currency") || !strcmp(a, "--warranty-years");
}

/* A positive number, all of @s; NAN when it is not one. */
static double positive(const char *s)
{
	char *end;
	double v = s && *s ? strtod(s, &end) : NAN;
	return !isnan(v) && !*end && v > 0 && isfinite(v) ? v : NAN;
}

/* --price FILE=AMOUNT, --dwpd FILE=N: into @v[the document's index]. */
static void set_number(struct docs *ds, const char *cmd, const char *opt, const char *arg, double *v,
		       const char *example)
{
	const char *eq = arg ? strrchr(arg, '=') : NULL;
	double x = eq ? positive(eq + 1) : NAN;

	if (!eq || eq == arg || isnan(x))
		cli_usage_error("%s: %s: expected FILE=NUMBER (a positive number), e.g. %s %s", cmd, opt,
				opt, example);
	for (unsigned i = 0; i < ds->n; i++)
		if (strlen(ds->d[i].path) == (size_t)(eq - arg) && !strncmp(ds->d[i].path, arg, (size_t)(eq - arg))) {
			v[i] = x;
			return;
		}
	cli_usage_error("%s: %s: '%.*s' is not one of the results read (%s FILE=NUMBER)", cmd, opt,
			(int)(eq - arg), arg, opt);
}

/* Every option applied after the results are read, in order. */
static void apply_later(struct docs *ds, int argc, char **argv)
{
	char err[600];
	struct buyer_opts *o = &ds->bo;

	o->currency = "USD";
	o->warranty_years = 5;
	o->price = xcalloc(ds->n, sizeof(*o->price));
	o->dwpd = xcalloc(ds->n, sizeof(*o->dwpd));
	for (unsigned i = 0; i < ds->n; i++)
		o->price[i] = o->dwpd[i] = NAN;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		if (!later_opt(a))
			continue;
		i++;
		if (!strcmp(a, "--label"))
			set_label(ds, argv[0], v);
		else if (!strcmp(a, "--price"))
			set_number(ds, argv[0], a, v, o->price, "nvme1.json=1299");
		else if (!strcmp(a, "--dwpd"))
			set_number(ds, argv[0], a, v, o->dwpd, "nvme1.json=1");
		else if (!strcmp(a, "--slo") && (!v || slo_parse(&o->slo, v, err, sizeof(err))))
			cli_usage_error("%s: %s", argv[0], v ? err : "--slo: expected [CLASS.]STAT=TIME, e.g. p99=2ms");
		else if (!strcmp(a, "--currency") && (!v || !*v || strlen(v) > 8 || strpbrk(v, " <>&\"'")))
			cli_usage_error("%s: --currency: expected a short currency name, e.g. --currency USD", argv[0]);
		else if (!strcmp(a, "--currency"))
			o->currency = v;
		else if (!strcmp(a, "--warranty-years") && !(positive(v) <= 100))
			cli_usage_error("%s: --warranty-years: expected a number of years (0 to 100), e.g. "
					"--warranty-years 5", argv[0]);
		else if (!strcmp(a, "--warranty-years"))
			o->warranty_years = positive(v);
	}
}

/*
 * Load every file argument; -o FILE when @allow_out; --label FILE=NAME (after
 * every file is read). Exits 2 on bad input.
 */
static void load(struct docs *ds, int argc, char **argv, bool allow_out, const char *usage)
{
	char err[600];

	memset(ds, 0, sizeof(*ds));
	ds->d = xcalloc((size_t)argc, sizeof(*ds->d));
	for (int i = 1; i < argc; i++) {
		if (later_opt(argv[i])) {
			i++;                    /* applied once every result is read */
			continue;
		}
		if (allow_out && (!strcmp(argv[i], "-o") || !strcmp(argv[i], "--output"))) {
			if (++i == argc)
				cli_usage_error("%s: -o needs a file name (e.g. -o report.html)", argv[0]);
			ds->out = argv[i];
			continue;
		}
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			puts(usage);
			exit(0);
		}
		if (argv[i][0] == '-' && argv[i][1])
			cli_usage_error("%s: unknown option '%s' (%s)", argv[0], argv[i], usage);
		if (json_read_load(&ds->d[ds->n], argv[i], err, sizeof(err))) {
			stop_if_interrupted(ds);        /* a read cut short by Ctrl-C: not bad input */
			cli_usage_error("%s: %s", argv[0], err);
		}
		ds->n++;
		stop_if_interrupted(ds);
	}
	if (!ds->n)
		cli_usage_error("%s: which results? (%s)", argv[0], usage);
	for (int i = 1; ds->out && i < argc; i++)
		if (argv[i] != ds->out && same_file(ds->out, argv[i]))
			cli_usage_error("%s: -o '%s' is one of the results read; write the report to "
					"another file", argv[0], ds->out);
	apply_later(ds, argc, argv);
	json_read_labels(ds->d, ds->n);
	stop_if_interrupted(ds);
	if (compare_check(ds->d, ds->n, err, sizeof(err)))
		cli_usage_error("%s: %s", argv[0], err + (strncmp(err, "compare: ", 9) ? 0 : 9));
}

static void print_drives(const struct docs *ds, FILE *f)
{
	char path[256], model[256], size[64], kind[64];

	for (unsigned i = 0; i < ds->n; i++) {
		const struct json_read_doc *d = &ds->d[i];
		json_read_fact(d, "target", "model", model, sizeof(model));
		fprintf(f, "%-24s %s%s on '%s' (%s, %.2f GiB%s%s), %u test(s)\n", d->label,
			d->suite ? "suite " : "run", d->suite ? d->suite : "",
			json_read_fact(d, "target", "path", path, sizeof(path)),
			json_read_fact(d, "target", "kind", kind, sizeof(kind)),
			atof(json_read_fact(d, "target", "size", size, sizeof(size))) / (1 << 30),
			*model ? ", " : "", model, d->ntests);
		if (!d->complete)
			fprintf(f, "%-24s (partial: the run was interrupted or a phase failed)\n", "");
	}
}

/* The summary (and cost) as text; 1 when a recorded limit cannot be read. */
static int print_buyer(const struct docs *ds, FILE *f)
{
	struct buyer b;
	char err[600];
	int rc = buyer_build(&b, ds->d, ds->n, &ds->bo, err, sizeof(err));

	if (!rc)
		buyer_print(&b, ds->d, &ds->bo, f);
	else
		fprintf(stderr, "appio: %s\n", err);
	buyer_release(&b);
	return rc ? 1 : 0;
}

int cmd_report(int argc, char **argv)
{
	static const char usage[] = "usage: appio report RESULT.json [MORE.json ...] [-o report.html] "
		"[--label FILE=NAME ...] [--slo p99=2ms] [--price FILE=AMOUNT ...] [--currency USD] "
		"[--dwpd FILE=N ...] [--warranty-years 5]";
	struct docs ds;
	char err[600];
	int status = 0;

	load(&ds, argc, argv, true, usage);
	if (!ds.out) {
		print_drives(&ds, stdout);
		status = print_buyer(&ds, stdout);
		compare_print_summary(ds.d, ds.n, stdout);
	} else if (!report_have_gnuplot()) {
		release(&ds);
		cli_usage_error("report: gnuplot is not installed; it draws the charts "
				"(Debian package gnuplot-nox, or scripts/install-deps.sh)");
	} else {
		signal(SIGPIPE, SIG_IGN);       /* a gnuplot that dies early is reported, not fatal */
		int rc = report_write_html(ds.d, ds.n, ds.out, &ds.bo, &cli_interrupted, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "appio: %s\n", err);
			status = rc == -EINTR ? EXIT_INTERRUPTED : 1;
		} else {
			printf("report: %s (%u drive(s))\n", ds.out, ds.n);
		}
	}
	release(&ds);
	return status;
}

int cmd_compare(int argc, char **argv)
{
	static const char usage[] = "usage: appio compare A.json B.json [MORE.json ...] [--label FILE=NAME ...] "
		"[--slo p99=2ms] [--price FILE=AMOUNT ...] [--currency USD] [--dwpd FILE=N ...] [--warranty-years 5]";
	struct docs ds;

	load(&ds, argc, argv, false, usage);
	if (ds.n < 2) {
		release(&ds);
		cli_usage_error("compare: give two or more results (%s)", usage);
	}
	print_drives(&ds, stdout);
	compare_print(ds.d, ds.n, stdout);
	int status = print_buyer(&ds, stdout);
	release(&ds);
	return status;
}
