/*
 * cmd_run.c - 'appio run PROFILE [options]': a job from argv, a header, the
 * run, the table and files. Bad input exits 2 with one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "job.h"
#include "suite.h"
#include "version.h"

static void print_header(const struct job *j, FILE *f)
{
	const struct target *t = &j->target;
	char sz[32];

	fprintf(f, "appio %s: %s on '%s' (%s, %s, logical block %u B%s%s), engine %s, %s,\n"
	       "  %u point(s) x (%llu s ramp + %llu s), seed %llu\n", APPIO_VERSION,
	       j->preset ? j->preset->name : j->emu->name, t->path, target_kind_name(t->kind),
	       fmt_size(t->size, sz, sizeof(sz)), t->lbs, *t->model ? ", " : "", t->model,
	       j->engine->name, t->direct ? "O_DIRECT" : "buffered", j->npoints,
	       (unsigned long long)j->ro.ramp, (unsigned long long)j->ro.time,
	       (unsigned long long)j->ro.seed);
	if (t->layout_bytes)
		fprintf(f, "  laid out %s in %.1f s (%.0f MB/s)\n",
		       fmt_size(t->layout_bytes, sz, sizeof(sz)), t->layout_s,
		       t->layout_s > 0 ? (double)t->layout_bytes / 1e6 / t->layout_s : 0);
	fflush(f);
}

/* --steady-state: rounds at the first point before the sweep, kept in @res. */
static int precondition(struct job *j, struct suite_steady *st, struct result *pre,
			struct result *res, FILE *f, char *err, size_t errlen)
{
	char line[320];

	*st = (struct suite_steady){ .log = f, .label = "precondition" };
	int rc = suite_steady_run(j, st, pre, &cli_interrupted, err, errlen);
	fprintf(f, "steady state %s\n", steady_describe(&st->v, st->n, st->metric, line, sizeof(line)));
	res->precondition = pre;
	res->steady_json = st->json;
	res->has_target = pre->has_target;      /* facts even if the sweep never starts */
	res->target = pre->target;
	return rc;
}

int cmd_run(int argc, char **argv)
{
	struct job j;
	struct result res;
	char err[512] = "";

	/* argv[0] is "run" (or "appio" when called as 'appio PROFILE') */
	if (job_parse(&j, argc - 1, argv + 1, err, sizeof(err)))
		cli_usage_error("%s", err);
	if (j.help) {
		job_help(j.emu ? &j : NULL, stdout);
		job_release(&j);
		return 0;
	}
	if (job_open_target(&j, err, sizeof(err)))
		cli_usage_error("%s", err);

	struct result pre;
	struct suite_steady st = { 0 };
	FILE *out = j.ro.json && !strcmp(j.ro.json, "-") ? stderr : stdout;
	result_init(&res);
	result_init(&pre);
	job_describe(&j, &res);
	print_header(&j, out);
	int rc = j.ro.steady_state ? precondition(&j, &st, &pre, &res, out, err, sizeof(err)) : 0;
	if (!rc)
		rc = job_run(&j, &res, true, &cli_interrupted, err, sizeof(err));
	int status = cli_finish(&res, rc, err, j.ro.json, j.ro.csv);
	result_release(&res);
	result_release(&pre);
	suite_steady_release(&st);
	job_release(&j);
	return status;
}
