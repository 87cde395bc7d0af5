/*
 * cmd_run.c - 'appio run PROFILE [options]': a job from argv, a header, the
 * run, the table and files. Bad input exits 2 with one line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "job.h"
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

	result_init(&res);
	job_describe(&j, &res);
	print_header(&j, j.ro.json && !strcmp(j.ro.json, "-") ? stderr : stdout);
	int rc = job_run(&j, &res, true, &cli_interrupted, err, sizeof(err));
	int status = cli_finish(&res, rc, err, j.ro.json, j.ro.csv);
	result_release(&res);
	job_release(&j);
	return status;
}
