/*
 * test_registry.c - walks every registry: engines, emulators, presets, the
 * database drivers and workloads, the trace formats, and every option table (the run options,
 * the suite's, each emulator's). Names are unique, everything has a
 * description or help, each emulator has exactly one shape, every preset
 * and every emulator's defaults parse.
 */
#include <stdlib.h>
#include <string.h>

#include "appio/emulator.h"
#include "appio/engine.h"
#include "appio/trace.h"
#include "check.h"
#include "db/db_oltp.h"
#include "job.h"
#include "suite.h"

static bool has_text(const char *s)
{
	return s && *s;
}

/* Unique names and aliases, help on every row, a bitset's worth of rows, defaults that parse. */
static void check_table(const char *what, const struct opt_def *tab, size_t size)
{
	char err[512];
	unsigned n = 0;

	for (const struct opt_def *o = tab; o->name; o++, n++) {
		CHECK(has_text(o->help), "%s: --%s has no help", what, o->name);
		CHECK(!strchr(o->name, '_'), "%s: --%s: words are joined by '-'", what, o->name);
		CHECK(opt_find(tab, o->name) == o, "%s: --%s appears twice", what, o->name);
		CHECK(!o->alias || opt_find(tab, o->alias) == o, "%s: alias --%s is taken", what, o->alias);
		CHECK(o->type != OPT_ENUM || (o->choices && o->choices[0]), "%s: --%s has no choices",
		      what, o->name);
		/* numbers have limits: the code multiplies values it trusts to be in range */
		bool number = o->type == OPT_UINT || o->type == OPT_SIZE || o->type == OPT_ULIST ||
			      o->type == OPT_SIZELIST;
		CHECK(!number || o->max || (o->flags & OPT_MEMORY), "%s: --%s has no upper bound",
		      what, o->name);
		CHECK(!(o->flags & OPT_MEMORY) || o->type == OPT_SIZE, "%s: --%s: OPT_MEMORY on a "
		      "row that is not a size", what, o->name);
	}
	CHECK(n <= OPT_TABLE_MAX, "%s: %u rows, more than the given record holds", what, n);
	void *dst = calloc(1, size ? size : 1);
	CHECK(opt_defaults(tab, dst, err, sizeof(err)) == 0, "%s: %s", what, err);
	free(dst);
}

static void test_engines(void)
{
	for (const struct engine_ops *const *e = engine_table; *e; e++) {
		CHECK(has_text((*e)->name) && has_text((*e)->desc), "an engine without name or desc");
		CHECK(engine_find((*e)->name) == *e, "engine '%s' appears twice", (*e)->name);
	}
	CHECK(engine_default() != NULL, "no default engine");
}

static void test_run_and_suite_options(void)
{
	check_table("run options", job_run_opt_table, sizeof(struct job_run_opts));
	check_table("suite options", suite_opt_table, sizeof(struct suite_opts));
	for (const struct suite_def *d = suite_table; d->name; d++) {
		struct suite s;
		char err[512];
		bool help;
		CHECK(suite_parse(&s, 1, (char *[]){ (char *)d->name, NULL }, &help, err, sizeof(err)) == 0,
		      "suite %s: %s", d->name, err);
		suite_release(&s);
	}
}

/* Each part of an emulator's optional contract is whole when present. */
static void check_extras(const struct emu_ops *e)
{
	for (const struct emu_action *a = e->actions; a && a->name; a++)
		CHECK(has_text(a->desc) && a->fn && strcmp(a->name, "run"), "%s: action '%s'", e->name, a->name);
	CHECK(!e->action_word || opt_find(e->opts, e->action_word), "%s: action word --%s is no option",
	      e->name, e->action_word);
	for (const struct emu_list *l = e->lists; l && l->title; l++) {
		const char *name, *desc;
		unsigned i = 0;
		for (; l->item(i, &name, &desc); i++)
			CHECK(has_text(name) && has_text(desc), "%s: '%s' item %u", e->name, l->title, i);
		CHECK(i > 0, "%s: list '%s' is empty", e->name, l->title);
	}
	for (const struct emu_preset *v = e->suite_variants; v && v->name; v++)
		CHECK(has_text(v->args) && has_text(v->desc), "%s: suite variant '%s'", e->name, v->name);
	CHECK(!e->suite_variants || (e->flags & EMU_NO_TARGET), "%s: suite variants need EMU_NO_TARGET",
	      e->name);
}

/* A scheduled emulator's classes come in three equal runs named "c", "c.response", "c.lag". */
static void check_scheduled(const struct emu_ops *e)
{
	unsigned n = 0;
	char want[64];

	while (e->classes[n])
		n++;
	CHECK(e->next_io && (e->flags & EMU_TOTAL), "%s: scheduled needs next_io and EMU_TOTAL", e->name);
	CHECK(n % 3 == 0 && n + 3 <= RESULT_MAX_CLASSES, "%s: %u classes, not 3 runs", e->name, n);
	for (unsigned c = 0; n % 3 == 0 && c < n / 3; c++) {
		snprintf(want, sizeof(want), "%s.response", e->classes[c]);
		CHECK(!strcmp(e->classes[c + n / 3], want), "%s: class %u is not '%s'", e->name,
		      c + n / 3, want);
		snprintf(want, sizeof(want), "%s.lag", e->classes[c]);
		CHECK(!strcmp(e->classes[c + 2 * n / 3], want), "%s: class %u is not '%s'", e->name,
		      c + 2 * n / 3, want);
	}
}

static void test_emulators(void)
{
	char err[512];

	for (const struct emu_ops *const *p = emulator_table; *p; p++) {
		const struct emu_ops *e = *p;
		CHECK(has_text(e->name) && has_text(e->desc), "an emulator without name or desc");
		CHECK(emulator_find(e->name) == e, "emulator '%s' appears twice", e->name);
		CHECK(!e->next_io != !e->step, "%s: needs exactly one of next_io and step", e->name);
		CHECK(e->classes && e->classes[0], "%s: no latency classes", e->name);
		unsigned nc = 0, nk = 0;
		while (e->classes[nc])
			nc++;
		while (e->counters && e->counters[nk])
			nk++;
		/* a worker keeps EMU_MAX_COUNTERS counters: one more would overwrite what follows */
		CHECK(nc <= EMU_MAX_CLASSES && nk <= EMU_MAX_COUNTERS, "%s: %u classes, %u counters",
		      e->name, nc, nk);
		if (e->flags & EMU_SCHEDULED)
			check_scheduled(e);
		if (e->opts) {
			check_table(e->name, e->opts, e->opts_size);
			for (const struct opt_def *o = e->opts; o->name; o++)
				CHECK(!opt_find(job_run_opt_table, o->name) &&
				      !(o->alias && opt_find(job_run_opt_table, o->alias)),
				      "%s: --%s is hidden by the run option of that name", e->name, o->name);
		}
		check_extras(e);
		/* its name alone, with its default arguments, is a valid job */
		struct job j;
		CHECK(job_parse(&j, 1, (char *[]){ (char *)e->name, NULL }, err, sizeof(err)) == 0,
		      "%s: %s", e->name, err);
		job_release(&j);
	}
}

static void test_presets(void)
{
	char err[512];

	for (const struct emu_preset *p = emu_preset_table; p->name; p++) {
		struct job j;
		CHECK(has_text(p->desc) && p->args, "preset '%s' without desc or args", p->name);
		CHECK(emu_preset_find(p->name) == p, "preset '%s' appears twice", p->name);
		CHECK(!emulator_find(p->name), "preset '%s' hides an emulator", p->name);
		CHECK(emulator_find(p->emulator), "preset '%s': no emulator '%s'", p->name, p->emulator);
		CHECK(job_parse(&j, 1, (char *[]){ (char *)p->name, NULL }, err, sizeof(err)) == 0 &&
		      j.preset == p, "preset '%s': %s", p->name, err);
		job_release(&j);
	}
}

/* What a user who typed part of a name may have meant: beginnings first, then the rest. */
static void test_names_like(void)
{
	char buf[160];

	emu_names_like("4k", buf, sizeof(buf));
	CHECK(!strcmp(buf, "4k-randread, 4k-randwrite"), "4k: got '%s'", buf);
	emu_names_like("TPC", buf, sizeof(buf));
	CHECK(!strcmp(buf, "tpcc"), "TPC: got '%s'", buf);
	emu_names_like("server", buf, sizeof(buf));
	CHECK(!strncmp(buf, "fileserver, webserver, ", 23) && strstr(buf, "mailserver-fs"),
	      "server (inside names only): got '%s'", buf);
	emu_names_like("zzz", buf, sizeof(buf));
	CHECK(!buf[0], "zzz: got '%s'", buf);
	emu_names_like("", buf, sizeof(buf));
	CHECK(!buf[0], "empty word: got '%s'", buf);
	emu_names_like("e", buf, 8);
	CHECK(strlen(buf) < 8, "a short buffer holds '%s'", buf);
}

/* The database emulator's own registries: drivers built in, the workloads it lists. */
static void test_db_parts(void)
{
	const struct emu_ops *db = emulator_find("db");
	unsigned workloads = 0;

	CHECK(db && (db->flags & EMU_NO_TARGET) && db->check && db->actions, "emulator 'db'");
	for (unsigned i = 0; db_driver_table[i]; i++) {
		CHECK(has_text(db_driver_table[i]->name) && has_text(db_driver_table[i]->desc), "driver %u", i);
		CHECK(db_driver_find(db_driver_table[i]->name) == db_driver_table[i], "driver '%s' twice",
		      db_driver_table[i]->name);
	}
	for (const struct emu_list *l = db ? db->lists : NULL; l && l->title; l++) {
		const char *name, *desc;
		for (unsigned i = 0; l->item(i, &name, &desc); i++) {
			if (!strncmp(name, "oltp_", 5)) {
				CHECK(db_oltp_workload_exists(name), "listed workload '%s' does not exist", name);
				workloads++;
			}
		}
	}
	CHECK(workloads == 8, "%u workloads listed, SysBench has 8", workloads);
}

/* Trace formats: unique names, a description, readers and writers complete as groups. */
static void test_trace_formats(void)
{
	unsigned readers = 0, writers = 0;

	for (const struct trace_format *const *f = trace_format_table; *f; f++) {
		const struct trace_format *t = *f;
		CHECK(has_text(t->name) && has_text(t->desc), "a trace format without name or desc");
		CHECK(trace_format_find(t->name) == t, "trace format '%s' appears twice", t->name);
		CHECK(!t->open == !t->next && !t->open == !t->probe,
		      "trace format '%s': probe, open and next come together", t->name);
		CHECK(!t->wopen == !t->write, "trace format '%s': wopen and write come together", t->name);
		readers += t->open != NULL;
		writers += t->wopen != NULL;
	}
	CHECK(readers >= 10 && writers >= 3, "%u readers, %u writers", readers, writers);
}

int main(void)
{
	RUN(test_engines);
	RUN(test_run_and_suite_options);
	RUN(test_emulators);
	RUN(test_presets);
	RUN(test_names_like);
	RUN(test_db_parts);
	RUN(test_trace_formats);
	return check_done();
}
