/*
 * cmd_man.c - 'appio man' (the manual page, roff) and 'appio completion
 * bash' (a bash completion script), both generated from the same tables as
 * --help and 'appio list': option tables, profiles, emulators, engines,
 * trace formats. 'make install' installs what they print, so the installed
 * manual never disagrees with the binary.
 */
#include <stdio.h>
#include <string.h>

#include "appio/emulator.h"
#include "appio/engine.h"
#include "appio/opt.h"
#include "appio/trace.h"
#include "cli.h"
#include "job.h"
#include "suite.h"
#include "version.h"

/* @s as roff text: '\' doubled, '-' as "\-", a line starting with '.' or '\'' kept as text. */
static void roff(FILE *f, const char *s)
{
	bool bol = true;

	for (; s && *s; s++) {
		if (bol && (*s == '.' || *s == '\''))
			fputs("\\&", f);
		if (*s == '\\')
			fputs("\\e", f);
		else if (*s == '-')
			fputs("\\-", f);
		else
			fputc(*s, f);
		bol = *s == '\n';
	}
}

static void man_options(FILE *f, const struct opt_def *tab)
{
	char left[512];

	for (const struct opt_def *o = tab; o && o->name; o++) {
		opt_usage(o, left, sizeof(left));
		fputs(".TP\n.B ", f);
		roff(f, left);
		fputc('\n', f);
		roff(f, o->help);
		if (o->alias) {
			fputs(" (also \\-\\-", f);
			roff(f, o->alias);
			fputc(')', f);
		}
		if (o->def && !(o->flags & OPT_SECRET)) {
			fputs(" (default: ", f);
			roff(f, o->def);
			fputc(')', f);
		}
		fputc('\n', f);
	}
}

static void man_item(FILE *f, const char *name, const char *desc)
{
	fputs(".TP\n.B ", f);
	roff(f, name);
	fputc('\n', f);
	roff(f, desc);
	fputc('\n', f);
}

static void man_emulator(FILE *f, const struct emu_ops *e)
{
	fputs(".SS ", f);
	roff(f, e->name);
	fputc('\n', f);
	roff(f, e->desc);
	fputs(".\n", f);
	if (e->default_args) {
		fputs("Defaults: ", f);
		roff(f, e->default_args);
		fputs(".\n", f);
	}
	if (e->actions) {
		fputs(".PP\nActions (\\fBappio ", f);
		roff(f, e->name);
		fputs(" ACTION\\fR):\n", f);
		man_item(f, "run", "measure: one point per --threads value");
		for (const struct emu_action *a = e->actions; a->name; a++)
			man_item(f, a->name, a->desc);
	}
	if (e->opts && e->opts[0].name) {
		fputs(".PP\nOptions:\n", f);
		man_options(f, e->opts);
	}
	for (const struct emu_list *l = e->lists; l && l->title; l++) {
		const char *name, *desc;
		fputs(".PP\n", f);
		roff(f, l->title);
		fputs(":\n", f);
		for (unsigned i = 0; l->item(i, &name, &desc); i++)
			man_item(f, name, desc);
	}
}

static void man_trace(void *arg, const char *name, const char *path)
{
	char what[200];

	cli_trace_about(path, what, sizeof(what));
	man_item(arg, name, what);
}

static void man_page(FILE *f)
{
	fputs(".TH APPIO 1 \"\" \"appio " APPIO_VERSION "\" \"User Commands\"\n"
	      ".SH NAME\nappio \\- application\\-level workload emulator for storage drives\n"
	      ".ad l\n.SH SYNOPSIS\n.nf\n", f);
	roff(f, cli_usage_text);
	fputs(".fi\n.SH DESCRIPTION\n"
	      "appio measures what applications get from a drive: the block\\-level profiles of\n"
	      "enterprise SSD reviews with preconditioning to steady state and thread x queue\n"
	      "sweeps, emulators that reproduce the I/O of databases, a NoSQL store, file, web\n"
	      "and mail servers and recorded traces, and real MariaDB, PostgreSQL and SQLite\n"
	      "servers driven through their client libraries. Results print as a table and are\n"
	      "written as JSON and CSV; \\fBappio report\\fR draws them as an HTML page and\n"
	      "\\fBappio compare\\fR ranks several drives. Sizes take k, M, G, T (powers of\n"
	      "1024); times are seconds.\n"
	      ".SH PROFILES\nEach is an emulator with preset options (\\fBappio run PROFILE\\fR).\n", f);
	for (const struct emu_preset *p = emu_preset_table; p->name; p++) {
		char desc[512];
		snprintf(desc, sizeof(desc), "%s (%s %s)", p->desc, p->emulator, p->args);
		man_item(f, p->name, desc);
	}
	fputs(".SH EMULATORS\n", f);
	for (const struct emu_ops *const *e = emulator_table; *e; e++)
		man_emulator(f, *e);
	fputs(".SH RUN OPTIONS\nOptions of every run, besides the emulator's own.\n", f);
	man_options(f, job_run_opt_table);
	fputs(".SH SUITE OPTIONS\n\\fBappio suite quick|review\\fR runs a whole drive evaluation.\n", f);
	for (const struct suite_def *s = suite_table; s->name; s++)
		man_item(f, s->name, s->desc);
	fputs(".PP\n", f);
	man_options(f, suite_opt_table);
	fputs(".SH REPORT AND COMPARE\n", f);
	man_item(f, "-o FILE", "appio report: write the HTML report (charts and rankings) to FILE; "
		 "without it the ranked summary is printed");
	man_item(f, "--label FILE=NAME", "name the drive of result FILE (by default its model, or its "
		 "block device and host)");
	man_item(f, "--slo LIMITS", "latency limits for the summary, as 'appio run --slo' (default: "
		 "those each run recorded): each workload's figure at the highest-throughput point "
		 "within them, ranked");
	man_item(f, "--price FILE=AMOUNT", "the price of the drive of result FILE: throughput per "
		 "unit of price (within the SLO, else at the reference point) and price per TB");
	man_item(f, "--currency NAME", "the unit of --price (default USD)");
	man_item(f, "--dwpd FILE=N", "the rated endurance of the drive of result FILE in drive "
		 "writes per day: how long it would last under each workload");
	man_item(f, "--warranty-years N", "the years over which --dwpd is rated (default 5)");
	fputs(".SH ENGINES\n", f);
	for (const struct engine_ops *const *e = engine_table; *e; e++)
		man_item(f, (*e)->name, (*e)->desc);
	fputs(".SH TRACE FORMATS\n\\fBappio trace info|convert\\fR and \\fBappio run replay\\fR read "
	      "them (\\-\\-from to name one).\n", f);
	for (const struct trace_format *const *t = trace_format_table; *t; t++)
		man_item(f, (*t)->name, (*t)->desc);
	fputs(".SH BUNDLED TRACES\nTraces appio captured on real software, replayed by name "
	      "(\\fBappio run replay \\-\\-trace NAME\\fR; \\fBappio list\\fR says what ran):\n", f);
	trace_bundled_each(man_trace, f);
	fputs(".SH EXIT STATUS\n"
	      ".TP\n0\nthe run completed\n"
	      ".TP\n1\nthe run failed (the message says why; results gathered so far are written)\n"
	      ".TP\n2\nbad input: an option, a file or a target refused, in one line naming it\n"
	      ".TP\n130\ninterrupted (Ctrl\\-C, SIGTERM); the results so far are written\n"
	      ".SH SEE ALSO\n"
	      "\\fBfio\\fR(1), \\fBsysbench\\fR(1), and the documents in the docs folder of "
	      "appio's sources.\n", f);
}

/* The options of @tabs (NULL-ended) as one shell word list. */
static void words(FILE *f, const struct opt_def *const *tabs)
{
	for (; *tabs; tabs++)
		for (const struct opt_def *o = *tabs; o->name; o++)
			fprintf(f, " --%s", o->name);
}

/* Every emulator and profile name, each after a space: what 'appio run' takes. */
static void workload_names(FILE *f)
{
	for (const struct emu_ops *const *e = emulator_table; *e; e++)
		fprintf(f, " %s", (*e)->name);
	for (const struct emu_preset *p = emu_preset_table; p->name; p++)
		fprintf(f, " %s", p->name);
}

static void completion_bash(FILE *f)
{
	fputs("# bash completion for appio " APPIO_VERSION ", generated by 'appio completion bash'\n"
	      "_appio_opts() {\n\tcase $1 in\n", f);
	for (const struct emu_ops *const *e = emulator_table; *e; e++) {
		fprintf(f, "\t%s", (*e)->name);
		for (const struct emu_preset *p = emu_preset_table; p->name; p++)
			if (!strcmp(p->emulator, (*e)->name))
				fprintf(f, "|%s", p->name);
		fputs(") echo \"", f);
		words(f, (const struct opt_def *const[]){ job_run_opt_table, (*e)->opts, NULL });
		fputs("\" ;;\n", f);
	}
	fputs("\tsuite) echo \"", f);
	words(f, (const struct opt_def *const[]){ suite_opt_table, NULL });
	fputs("\" ;;\n\tesac\n}\n"
	      "_appio() {\n"
	      "\tlocal cur=${COMP_WORDS[COMP_CWORD]} first=${COMP_WORDS[1]} w\n"
	      "\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n"
	      "\t\tCOMPREPLY=($(compgen -W \"list run suite report compare trace man completion", f);
	workload_names(f);
	fputs("\" -- \"$cur\"))\n\t\treturn\n\tfi\n"
	      "\tcase $first in\n"
	      "\treport|compare) COMPREPLY=($(compgen -W \"-o --label --slo --price --currency --dwpd --warranty-years\" -- \"$cur\") $(compgen -f -X '!*.json' -- \"$cur\"))\n"
	      "\t\treturn ;;\n"
	      "\ttrace) [ \"$COMP_CWORD\" -eq 2 ] && COMPREPLY=($(compgen -W \"info convert formats record\" -- \"$cur\")) ||\n"
	      "\t\tCOMPREPLY=($(compgen -W \"--from --to --queue --json -o\" -- \"$cur\") $(compgen -f -- \"$cur\"))\n"
	      "\t\treturn ;;\n"
	      "\tcompletion) COMPREPLY=($(compgen -W bash -- \"$cur\")); return ;;\n"
	      "\tsuite) [ \"$COMP_CWORD\" -eq 2 ] && { COMPREPLY=($(compgen -W \"", f);
	for (const struct suite_def *s = suite_table; s->name; s++)
		fprintf(f, " %s", s->name);
	fputs("\" -- \"$cur\")); return; }\n"
	      "\t\tw=suite ;;\n"
	      "\trun) [ \"$COMP_CWORD\" -eq 2 ] && { COMPREPLY=($(compgen -W \"", f);
	workload_names(f);
	fputs("\" -- \"$cur\")); return; }\n"
	      "\t\tw=${COMP_WORDS[2]} ;;\n", f);
	for (const struct emu_ops *const *e = emulator_table; *e; e++) {
		if (!(*e)->actions)
			continue;
		fprintf(f, "\t%s) [ \"$COMP_CWORD\" -eq 2 ] && { COMPREPLY=($(compgen -W \"run", (*e)->name);
		for (const struct emu_action *a = (*e)->actions; a->name; a++)
			fprintf(f, " %s", a->name);
		fputs("\" -- \"$cur\")); return; }\n", f);
		if ((*e)->action_word && (*e)->lists) {
			/* the word after the action: the emulator's last list (e.g. its workloads) */
			const struct emu_list *l = (*e)->lists;
			while (l[1].title)
				l++;
			const char *name, *desc;
			fputs("\t\t[ \"$COMP_CWORD\" -eq 3 ] && { COMPREPLY=($(compgen -W \"", f);
			for (unsigned i = 0; l->item(i, &name, &desc); i++)
				fprintf(f, " %s", name);
			fputs("\" -- \"$cur\")); return; }\n", f);
		}
		fprintf(f, "\t\tw=%s ;;\n", (*e)->name);
	}
	fputs("\t*) w=$first ;;\n\tesac\n"
	      "\tCOMPREPLY=($(compgen -W \"$(_appio_opts \"$w\") --help\" -- \"$cur\"))\n"
	      "}\ncomplete -o default -F _appio appio\n", f);
}

int cmd_man(int argc, char **argv)
{
	(void)argv;
	if (argc > 1)
		cli_usage_error("man: takes no arguments (usage: appio man > appio.1)");
	man_page(stdout);
	return 0;
}

int cmd_completion(int argc, char **argv)
{
	if (argc != 2 || strcmp(argv[1], "bash"))
		cli_usage_error("completion: expected 'appio completion bash' (the only shell so far)");
	completion_bash(stdout);
	return 0;
}
