/*
 * opt.c - option tables: parsing, defaults, formatting and --help (the
 * grammars of the values themselves are in opt_value.c).
 *
 * Every value, whether typed by the user, read from a job file or taken from
 * a table's default text, goes through the one parser of its type, and
 * opt_format() writes text those parsers read back to the same value, so a
 * result file can always be replayed as a command line.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "appio/opt.h"
#include "opt_value.h"

#define HELP_COLUMN     28      /* "--name VALUE" longer than this is not aligned */

static size_t field_size(enum opt_type t)
{
	switch (t) {
	case OPT_BOOL:
		return sizeof(bool);
	case OPT_UINT:
	case OPT_SIZE:
		return sizeof(uint64_t);
	case OPT_PCT:
		return sizeof(unsigned);
	case OPT_DOUBLE:
		return sizeof(double);
	case OPT_STR:
		return sizeof(const char *);
	case OPT_ENUM:
		return sizeof(int);
	case OPT_ULIST:
	case OPT_SIZELIST:
		return sizeof(struct opt_ulist);
	case OPT_SPLIT:
		return sizeof(struct opt_split);
	case OPT_DIST:
		return sizeof(struct opt_dist);
	case OPT_STRLIST:
		return sizeof(struct opt_strlist);
	}
	return 0;
}

static bool is_size_type(enum opt_type t)
{
	return t == OPT_SIZE || t == OPT_SIZELIST;
}

/* The accepted form of @o's values, for error messages. */
static void expect_text(const struct opt_def *o, char *buf, size_t len)
{
	static const char *const forms[] = {
		[OPT_BOOL] = "one of: 1, 0, yes, no, on, off, true, false",
		[OPT_UINT] = "a decimal integer such as 16",
		[OPT_SIZE] = "a number with an optional k, M, G or T suffix, e.g. 4k or 1G",
		[OPT_PCT] = "a percentage from 0 to 100",
		[OPT_DOUBLE] = "a decimal number such as 0.5",
		[OPT_STR] = "a text value",
		[OPT_ULIST] = "comma-separated numbers such as 1,2,4",
		[OPT_SIZELIST] = "comma-separated sizes such as 4k,64k,1M",
		[OPT_SPLIT] = "SIZE/PCT pairs such as 512/10:4k/90",
		[OPT_DIST] = "uniform, zipf:THETA (THETA > 0, not 1), pareto:H (0 < H < 1) "
			     "or normal:SIGMA (0 < SIGMA <= 100, percent of the range)",
		[OPT_STRLIST] = "a text value",
	};

	buf[0] = '\0';
	if (o->type != OPT_ENUM) {
		snprintf(buf, len, "%s", (unsigned)o->type < sizeof(forms) / sizeof(forms[0]) &&
			 forms[o->type] ? forms[o->type] : "a valid value");
		return;
	}
	opt_append(buf, len, "one of:");
	for (const char *const *c = o->choices; c && *c; c++)
		opt_append(buf, len, "%s %s", c == o->choices ? "" : ",", *c);
}

static void bound_text(const struct opt_def *o, uint64_t v, char *buf, size_t len)
{
	if (is_size_type(o->type))
		fmt_size(v, buf, len);
	else
		snprintf(buf, len, "%" PRIu64, v);
}

uint64_t opt_phys_mem(void)
{
	long pages = sysconf(_SC_PHYS_PAGES), psz = sysconf(_SC_PAGESIZE);
	uint64_t bytes;

	if (pages <= 0 || psz <= 0 || __builtin_mul_overflow((uint64_t)pages, (uint64_t)psz, &bytes))
		return UINT64_MAX;      /* unknown: no bound rather than a wrong one */
	return bytes;
}

/* An OPT_MEMORY value larger than the machine's memory could never be allocated. */
static int check_memory(const struct opt_def *o, uint64_t v, struct opt_why *w)
{
	uint64_t mem = opt_phys_mem();
	char val[32], hi[32];

	if (!(o->flags & OPT_MEMORY) || v <= mem)
		return 0;
	fmt_size(v, val, sizeof(val));
	snprintf(hi, sizeof(hi), "%.1fG", (double)mem / (1 << 30));
	snprintf(w->expect, sizeof(w->expect), "at most %s", hi);
	return opt_fail(w, -ERANGE, "'%s' is more than this machine's memory", val);
}

/* The row's min/max (max 0 = none); on failure the expected form is the range. */
static int check_bounds(const struct opt_def *o, uint64_t v, struct opt_why *w)
{
	char val[32], lo[32], hi[32];

	if (v >= o->min && (!o->max || v <= o->max))
		return check_memory(o, v, w);
	bound_text(o, v, val, sizeof(val));
	bound_text(o, o->min, lo, sizeof(lo));
	bound_text(o, o->max, hi, sizeof(hi));
	if (o->max)
		snprintf(w->expect, sizeof(w->expect), "%s to %s", lo, hi);
	else
		snprintf(w->expect, sizeof(w->expect), "at least %s", lo);
	return opt_fail(w, -ERANGE, "'%s' is out of range", val);
}

static int set_bool(const char *val, bool *out, struct opt_why *w)
{
	static const char *const yes[] = { "1", "yes", "on", "true" };
	static const char *const no[] = { "0", "no", "off", "false" };

	if (!val) {             /* a bare "--flag" */
		*out = true;
		return 0;
	}
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(val, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(val, no[i])) {
			*out = false;
			return 0;
		}
	}
	return opt_fail(w, -EINVAL, "invalid value '%s'", val);
}

/* OPT_UINT and OPT_SIZE. */
static int set_number(const struct opt_def *o, const char *val, uint64_t *out, struct opt_why *w)
{
	const char *kind = o->type == OPT_SIZE ? "size" : "number";
	int rc = o->type == OPT_SIZE ? parse_size(val, out) : parse_uint(val, out);

	if (rc == -ERANGE)
		return opt_fail(w, rc, "%s '%s' is too large", kind, val);
	if (rc)
		return opt_fail(w, rc, "invalid %s '%s'", kind, val);
	return check_bounds(o, *out, w);
}

static int set_pct(const char *val, unsigned *out, struct opt_why *w)
{
	uint64_t v;
	int rc = parse_uint(val, &v);

	if (rc == -EINVAL)
		return opt_fail(w, rc, "invalid percentage '%s'", val);
	if (rc || v > 100)
		return opt_fail(w, -ERANGE, "'%s' is out of range", val);
	*out = (unsigned)v;
	return 0;
}

static int set_enum(const struct opt_def *o, const char *val, int *out, struct opt_why *w)
{
	for (int i = 0; o->choices && o->choices[i]; i++) {
		if (!strcmp(val, o->choices[i])) {
			*out = i;
			return 0;
		}
	}
	return opt_fail(w, -EINVAL, "unknown value '%s'", val);
}

static int set_list(const struct opt_def *o, const char *val, struct opt_ulist *out,
		    struct opt_why *w)
{
	int rc = opt_ulist_parse(val, o->type == OPT_SIZELIST, out, w);

	for (unsigned i = 0; !rc && i < out->n; i++)
		rc = check_bounds(o, out->v[i], w);
	return rc;
}

/* Parse @val as @o's type into @v, or explain in @w why not. */
static int parse_value(const struct opt_def *o, const char *val, union opt_value *v,
		       struct opt_why *w)
{
	if (!val && o->type != OPT_BOOL)
		return opt_fail(w, -EINVAL, "missing value");
	switch (o->type) {
	case OPT_BOOL:
		return set_bool(val, &v->b, w);
	case OPT_UINT:
	case OPT_SIZE:
		return set_number(o, val, &v->u, w);
	case OPT_PCT:
		return set_pct(val, &v->pct, w);
	case OPT_DOUBLE:
		return opt_double_parse(val, &v->d) ? opt_fail(w, -EINVAL, "invalid number '%s'", val) : 0;
	case OPT_STR:
		v->s = val;
		return 0;
	case OPT_ENUM:
		return set_enum(o, val, &v->e, w);
	case OPT_ULIST:
	case OPT_SIZELIST:
		return set_list(o, val, &v->list, w);
	case OPT_SPLIT:
		return opt_split_parse(val, &v->split, w);
	case OPT_DIST:
		return opt_dist_parse(val, &v->dist, w);
	case OPT_STRLIST:       /* appended by apply() */
		return 0;
	}
	return opt_fail(w, -EINVAL, "unsupported option type %d", (int)o->type);
}

/* Parse and store; on failure fill @w (both parts) and leave @dst untouched. */
static int apply(const struct opt_def *o, void *dst, const char *val, struct opt_why *w)
{
	union opt_value v;

	memset(&v, 0, sizeof(v));
	w->what[0] = w->expect[0] = '\0';
	if (o->type == OPT_STRLIST) {   /* repeatable: each value joins the list */
		struct opt_strlist *l = (struct opt_strlist *)((char *)dst + o->offset);
		if (!val || l->n == OPT_LIST_MAX) {
			if (val)
				opt_fail(w, -EINVAL, "given more than %d times", OPT_LIST_MAX);
			else
				opt_fail(w, -EINVAL, "missing value");
			snprintf(w->expect, sizeof(w->expect), "at most %d values", OPT_LIST_MAX);
			return -EINVAL;
		}
		l->v[l->n++] = val;
		return 0;
	}
	if ((o->flags & OPT_NONE) && val && !strcmp(val, "none")) {
		memset((char *)dst + o->offset, 0, field_size(o->type));
		return 0;
	}
	if (parse_value(o, val, &v, w)) {
		if (!w->expect[0])
			expect_text(o, w->expect, sizeof(w->expect));
		return -EINVAL;
	}
	memcpy((char *)dst + o->offset, &v, field_size(o->type));
	return 0;
}

int opt_set(const struct opt_def *o, void *dst, const char *val, char *err, size_t errlen)
{
	struct opt_why w;

	if (!apply(o, dst, val, &w))
		return 0;
	if (err && errlen)
		snprintf(err, errlen, "--%s: %s (expected %s)", o->name, w.what, w.expect);
	return -EINVAL;
}

/* Option names compare with '_' and '-' alike. */
static bool same_name(const char *row, const char *name)
{
	for (; *row && *name; row++, name++)
		if (*row != *name && !(*row == '-' && *name == '_'))
			return false;
	return !*row && !*name;
}

const struct opt_def *opt_find(const struct opt_def *tab, const char *name)
{
	for (const struct opt_def *o = tab; name && o->name; o++)
		if (same_name(o->name, name) || (o->alias && same_name(o->alias, name)))
			return o;
	return NULL;
}

bool opt_is_bool_word(const char *s)
{
	bool b;
	return s && !set_bool(s, &b, NULL);
}

bool opt_given(const struct opt_tab *t, const char *name)
{
	const struct opt_def *o = opt_find(t->defs, name);
	return o && (t->given & (UINT64_C(1) << (o - t->defs)));
}

/* The row named @name in the first table that has one; *@k is that table. */
static const struct opt_def *find_in(struct opt_tab *tabs, unsigned ntabs, const char *name,
				     unsigned *k)
{
	for (*k = 0; *k < ntabs; (*k)++) {
		const struct opt_def *o = tabs[*k].defs ? opt_find(tabs[*k].defs, name) : NULL;
		if (o)
			return o;
	}
	return NULL;
}

static int parse_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int parse_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

int opt_parse(struct opt_tab *tabs, unsigned ntabs, int argc, char **argv, unsigned flags,
	      bool *help, const char *see, char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *arg = argv[i], *val = NULL;
		char name[64];
		unsigned k;
		if (!strcmp(arg, "-h") || !strcmp(arg, "--help")) {
			*help = true;
			return 0;
		}
		if (strncmp(arg, "--", 2))
			return parse_fail(err, errlen, "unexpected argument '%s' (options start with --; "
					  "see '%s')", arg, see);
		val = strchr(arg, '=');
		snprintf(name, sizeof(name), "%.*s", (int)(val ? (size_t)(val - arg - 2) : strlen(arg + 2)),
			 arg + 2);
		const struct opt_def *o = find_in(tabs, ntabs, name, &k);
		if (!o)
			return parse_fail(err, errlen, "unknown option '--%s' (see '%s')", name, see);
		if (val)
			val++;
		else if (o->type != OPT_BOOL || (i + 1 < argc && opt_is_bool_word(argv[i + 1])))
			val = i + 1 < argc ? argv[++i] : NULL;
		if (!val && o->type != OPT_BOOL)
			return parse_fail(err, errlen, "--%s needs a value (see '%s')", o->name, see);
		if (opt_set(o, tabs[k].dst, val, err, errlen))
			return -EINVAL;
		if (flags & OPT_MARK_GIVEN)
			tabs[k].given |= UINT64_C(1) << (o - tabs[k].defs);
	}
	return 0;
}

int opt_defaults(const struct opt_def *tab, void *dst, char *err, size_t errlen)
{
	struct opt_why w;

	for (const struct opt_def *o = tab; o->name; o++) {
		memset((char *)dst + o->offset, 0, field_size(o->type));
		if (!o->def || !apply(o, dst, o->def, &w))
			continue;
		/* Table text, not user input: say so, so nobody hunts for a typo. */
		if (err && errlen)
			snprintf(err, errlen, "--%s: built-in default '%s' is broken: %s "
				 "(expected %s; a bug in the option table)",
				 o->name, o->def, w.what, w.expect);
		return -EINVAL;
	}
	return 0;
}

static void format_list(const struct opt_def *o, const struct opt_ulist *l, char *buf, size_t len)
{
	char b[32];

	for (unsigned i = 0; i < l->n && i < OPT_LIST_MAX; i++) {
		bound_text(o, l->v[i], b, sizeof(b));
		opt_append(buf, len, "%s%s", i ? "," : "", b);
	}
}

static void format_enum(const struct opt_def *o, int i, char *buf, size_t len)
{
	int n = 0;

	while (o->choices && o->choices[n])
		n++;
	snprintf(buf, len, "%s", i >= 0 && i < n ? o->choices[i] : "?");
}

char *opt_format(const struct opt_def *o, const void *src, char *buf, size_t len)
{
	const char *p = (const char *)src + o->offset;
	char b[32];

	if (!len)
		return buf;
	buf[0] = '\0';
	switch (o->type) {
	case OPT_BOOL:
		snprintf(buf, len, "%d", *(const bool *)p ? 1 : 0);
		break;
	case OPT_UINT:
	case OPT_SIZE:
		bound_text(o, *(const uint64_t *)p, b, sizeof(b));
		snprintf(buf, len, "%s", b);
		break;
	case OPT_PCT:
		snprintf(buf, len, "%u", *(const unsigned *)p);
		break;
	case OPT_DOUBLE:
		opt_double_format(*(const double *)p, buf, len);
		break;
	case OPT_STR:
		snprintf(buf, len, "%s", *(const char *const *)p ? *(const char *const *)p : "");
		break;
	case OPT_ENUM:
		format_enum(o, *(const int *)p, buf, len);
		break;
	case OPT_ULIST:
	case OPT_SIZELIST:
		format_list(o, (const struct opt_ulist *)p, buf, len);
		break;
	case OPT_SPLIT:
		opt_split_format((const struct opt_split *)p, buf, len);
		break;
	case OPT_DIST:
		opt_dist_format((const struct opt_dist *)p, buf, len);
		break;
	case OPT_STRLIST:
		for (unsigned i = 0; i < ((const struct opt_strlist *)p)->n && i < OPT_LIST_MAX; i++)
			opt_append(buf, len, "%s%s", i ? " " : "", ((const struct opt_strlist *)p)->v[i]);
		break;
	}
	if (o->flags & OPT_SECRET && buf[0])
		snprintf(buf, len, "(secret)");
	return buf;
}

void opt_usage(const struct opt_def *o, char *buf, size_t len)
{
	static const char *const metavars[] = {
		[OPT_BOOL] = "", [OPT_UINT] = "N", [OPT_SIZE] = "SIZE",
		[OPT_PCT] = "PCT", [OPT_DOUBLE] = "NUM", [OPT_STR] = "TEXT",
		[OPT_ULIST] = "LIST", [OPT_SIZELIST] = "LIST", [OPT_SPLIT] = "SPLIT",
		[OPT_DIST] = "DIST", [OPT_STRLIST] = "TEXT",
	};

	snprintf(buf, len, "--%s", o->name);
	if (o->type == OPT_ENUM) {
		for (const char *const *c = o->choices; c && *c; c++)
			opt_append(buf, len, "%c%s", c == o->choices ? ' ' : '|', *c);
	} else if ((unsigned)o->type < sizeof(metavars) / sizeof(metavars[0]) &&
		   metavars[o->type] && metavars[o->type][0]) {
		opt_append(buf, len, " %s", metavars[o->type]);
	}
}

void opt_help(FILE *f, const struct opt_def *tab)
{
	char left[256];
	int width = 0;

	for (const struct opt_def *o = tab; o->name; o++) {
		opt_usage(o, left, sizeof(left));
		int n = (int)strlen(left);
		if (n > width && n <= HELP_COLUMN)
			width = n;      /* a long enum list overflows rather than push every line right */
	}
	for (const struct opt_def *o = tab; o->name; o++) {
		opt_usage(o, left, sizeof(left));
		fprintf(f, "  %-*s  %s", width, left, o->help ? o->help : "");
		if (o->alias)
			fprintf(f, " (also --%s)", o->alias);
		if (o->def && !(o->flags & OPT_SECRET))
			fprintf(f, " (default: %s)", o->def);
		fputc('\n', f);
	}
}
