/*
 * opt.c - option tables: parsing, defaults, formatting and --help.
 *
 * Every value, whether typed by the user, read from a job file or taken from
 * a table's default text, goes through the one parser of its type, and
 * opt_format() writes text those parsers read back to the same value, so a
 * result file can always be replayed as a command line.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "appio/opt.h"

/* Why a value was refused and what would have been accepted instead. */
struct why {
	char what[192];
	char expect[256];
};

#define FRAC_DIGITS_MAX 40      /* a whole result never needs more: see frac_scaled() */
#define HELP_COLUMN     28      /* "--name VALUE" longer than this is not aligned */

static const char *const dist_names[] = {
	[DIST_UNIFORM] = "uniform",
	[DIST_ZIPF] = "zipf",
	[DIST_PARETO] = "pareto",
	[DIST_NORMAL] = "normal",
};

static int fail(struct why *w, int rc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Record why parsing failed (when the caller wants to know) and return @rc. */
static int fail(struct why *w, int rc, const char *fmt, ...)
{
	if (w) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->what, sizeof(w->what), fmt, ap);
		va_end(ap);
	}
	return rc;
}

static void append(char *buf, size_t len, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* snprintf() at the end of @buf; silently truncates like snprintf(). */
static void append(char *buf, size_t len, const char *fmt, ...)
{
	size_t used = strnlen(buf, len);
	if (used + 1 >= len)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf + used, len - used, fmt, ap);
	va_end(ap);
}

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Decimal digits only: no sign, no space, no "0x", so typos cannot slip through. */
static int uint_span(const char *s, size_t len, uint64_t *out)
{
	uint64_t v = 0;

	if (!len)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		if (!is_digit(s[i]))
			return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* k, M, G or T, then nothing, "B" or "iB" (any case): the power of two it means. */
static int unit_shift(const char *s, size_t len, unsigned *shift)
{
	static const char units[] = "kmgt";
	const char *u;

	if (!len || !s[0] || !(u = strchr(units, s[0] | 0x20)))
		return -EINVAL;
	s++;
	len--;
	if (len && !(len == 1 && (s[0] | 0x20) == 'b') &&
	    !(len == 2 && strncasecmp(s, "ib", 2) == 0))
		return -EINVAL;
	*shift = 10 * (unsigned)(u - units + 1);
	return 0;
}

/*
 * The whole part of 0.DIGITS * 2^shift, or -EINVAL when that is not a whole
 * number. Exact decimal arithmetic: the digits are doubled @shift times and
 * the carries out of the first digit form the result. Without trailing
 * zeros, a fraction of more than @shift (<= 40) digits is never whole.
 */
static int frac_scaled(const char *s, size_t len, unsigned shift, uint64_t *out)
{
	unsigned char d[FRAC_DIGITS_MAX];
	uint64_t whole = 0;

	while (len && s[len - 1] == '0')
		len--;
	if (len > FRAC_DIGITS_MAX)
		return -EINVAL;
	for (size_t i = 0; i < len; i++)
		d[i] = (unsigned char)(s[i] - '0');
	for (unsigned step = 0; step < shift; step++) {
		unsigned carry = 0;
		for (size_t i = len; i-- > 0;) {
			unsigned v = d[i] * 2u + carry;
			d[i] = (unsigned char)(v % 10);
			carry = v / 10;
		}
		whole = whole * 2 + carry;
	}
	for (size_t i = 0; i < len; i++)
		if (d[i])
			return -EINVAL;
	*out = whole;
	return 0;
}

/* "4k", "1.5M", "4096": see parse_size(). */
static int size_span(const char *s, size_t len, uint64_t *out)
{
	size_t i = 0, frac = 0, flen = 0;
	unsigned shift = 0;
	uint64_t v, part = 0;
	int rc;

	while (i < len && is_digit(s[i]))
		i++;
	size_t ilen = i;
	if (i < len && s[i] == '.') {
		frac = ++i;
		while (i < len && is_digit(s[i]))
			i++;
		flen = i - frac;
		if (!flen)
			return -EINVAL;
	}
	if (!ilen || (i < len && unit_shift(s + i, len - i, &shift)))
		return -EINVAL;
	if (frac && !shift)
		return -EINVAL;         /* a fraction of a byte means nothing */
	if (frac && frac_scaled(s + frac, flen, shift, &part))
		return -EINVAL;
	if ((rc = uint_span(s, ilen, &v)))
		return rc;
	if (v > (UINT64_MAX >> shift) || (v << shift) > UINT64_MAX - part)
		return -ERANGE;
	*out = (v << shift) + part;
	return 0;
}

int parse_size(const char *s, uint64_t *out)
{
	return s ? size_span(s, strlen(s), out) : -EINVAL;
}

int parse_uint(const char *s, uint64_t *out)
{
	return s ? uint_span(s, strlen(s), out) : -EINVAL;
}

/* Comma list of numbers or sizes; @w, if not NULL, learns which element failed. */
static int ulist_parse(const char *s, bool sizes, struct opt_ulist *out, struct why *w)
{
	struct opt_ulist l = { .n = 0 };
	const char *kind = sizes ? "size" : "number";
	const char *p = s;

	for (;;) {
		size_t len = strcspn(p, ",");
		if (l.n == OPT_LIST_MAX)
			return fail(w, -EINVAL, "more than %d values in '%s'", OPT_LIST_MAX, s);
		int rc = sizes ? size_span(p, len, &l.v[l.n]) : uint_span(p, len, &l.v[l.n]);
		if (rc == -ERANGE)
			return fail(w, rc, "%s '%.*s' is too large", kind, (int)len, p);
		if (rc)
			return fail(w, rc, "invalid %s '%.*s' in '%s'", kind, (int)len, p, s);
		l.n++;
		if (!p[len])
			break;
		p += len + 1;
	}
	*out = l;
	return 0;
}

int parse_ulist(const char *s, bool sizes, struct opt_ulist *out)
{
	return s ? ulist_parse(s, sizes, out, NULL) : -EINVAL;
}

/* One "SIZE/PCT" entry of a split; @alone allows a bare "SIZE" meaning 100 %. */
static int split_entry(const char *p, size_t len, bool alone,
		       uint32_t *bs, uint32_t *pct, struct why *w)
{
	const char *slash = memchr(p, '/', len);
	size_t slen = slash ? (size_t)(slash - p) : len;
	uint64_t size, weight = 100;
	int rc = size_span(p, slen, &size);

	if (rc == -ERANGE || (!rc && size > UINT32_MAX))
		return fail(w, -ERANGE, "block size '%.*s' is too large", (int)slen, p);
	if (rc)
		return fail(w, rc, "invalid size '%.*s'", (int)slen, p);
	if (!size)
		return fail(w, -EINVAL, "block size 0 is not allowed");
	if (!slash && !alone)
		return fail(w, -EINVAL, "missing weight after '%.*s'", (int)slen, p);
	if (slash) {
		const char *q = slash + 1;
		size_t qlen = len - slen - 1;
		rc = uint_span(q, qlen, &weight);
		if (rc == -EINVAL)
			return fail(w, -EINVAL, "invalid weight '%.*s'", (int)qlen, q);
		if (rc || weight < 1 || weight > 100)
			return fail(w, -EINVAL, "weight '%.*s' is not between 1 and 100",
				    (int)qlen, q);
	}
	*bs = (uint32_t)size;
	*pct = (uint32_t)weight;
	return 0;
}

/* Sizes must be distinct and the weights a whole distribution. */
static int split_check(const struct opt_split *sp, struct why *w)
{
	unsigned sum = 0;

	for (unsigned i = 0; i < sp->n; i++) {
		for (unsigned j = 0; j < i; j++) {
			if (sp->bs[i] == sp->bs[j]) {
				char b[32];
				return fail(w, -EINVAL, "size '%s' appears twice",
					    fmt_size(sp->bs[i], b, sizeof(b)));
			}
		}
		sum += sp->pct[i];
	}
	if (sum != 100)
		return fail(w, -EINVAL, "weights sum to %u, not 100", sum);
	return 0;
}

static int split_parse(const char *s, struct opt_split *out, struct why *w)
{
	struct opt_split sp = { .n = 0 };
	bool alone = !strchr(s, ':');
	const char *p = s;

	for (;;) {
		size_t len = strcspn(p, ":");
		if (sp.n == OPT_SPLIT_MAX)
			return fail(w, -EINVAL, "more than %d sizes", OPT_SPLIT_MAX);
		int rc = split_entry(p, len, alone, &sp.bs[sp.n], &sp.pct[sp.n], w);
		if (rc)
			return rc;
		sp.n++;
		if (!p[len])
			break;
		p += len + 1;
	}
	int rc = split_check(&sp, w);
	if (!rc)
		*out = sp;
	return rc;
}

int parse_split(const char *s, struct opt_split *out)
{
	return s ? split_parse(s, out, NULL) : -EINVAL;
}

/* strtod() without its leniency: no leading space, no trailing text, finite. */
static int parse_double(const char *s, double *out)
{
	char *end;

	if (!*s || *s == ' ' || (*s >= '\t' && *s <= '\r'))
		return -EINVAL;
	double v = strtod(s, &end);
	if (*end || !isfinite(v))
		return -EINVAL;
	*out = v;
	return 0;
}

static bool dist_param_ok(enum dist_kind kind, double p)
{
	switch (kind) {
	case DIST_UNIFORM:
		return true;
	case DIST_ZIPF:
		return p > 0 && p != 1;
	case DIST_PARETO:
		return p > 0 && p < 1;
	case DIST_NORMAL:
		return p > 0 && p <= 100;
	}
	return false;
}

static int dist_parse(const char *s, struct opt_dist *out, struct why *w)
{
	size_t len = strcspn(s, ":");
	double param = 0;

	for (int k = DIST_UNIFORM; k <= DIST_NORMAL; k++) {
		if (strlen(dist_names[k]) != len || strncmp(s, dist_names[k], len))
			continue;
		if (k == DIST_UNIFORM && s[len])
			return fail(w, -EINVAL, "uniform takes no parameter");
		if (k != DIST_UNIFORM && (!s[len] || parse_double(s + len + 1, &param) ||
					  !dist_param_ok((enum dist_kind)k, param)))
			return fail(w, -EINVAL, "invalid %s parameter in '%s'", dist_names[k], s);
		out->kind = (enum dist_kind)k;
		out->param = param;
		return 0;
	}
	return fail(w, -EINVAL, "unknown distribution '%s'", s);
}

int parse_dist(const char *s, struct opt_dist *out)
{
	return s ? dist_parse(s, out, NULL) : -EINVAL;
}

/* Shortest "%g" text that reads back as exactly @x. */
static void fmt_double(double x, char *buf, size_t len)
{
	for (int prec = 6; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

char *fmt_size(uint64_t bytes, char *buf, size_t len)
{
	unsigned u = 0;         /* 0 = bytes, 1 = k, ... 4 = T */

	while (u < 4 && bytes && !(bytes & ((UINT64_C(1) << (10 * (u + 1))) - 1)))
		u++;
	if (u)
		snprintf(buf, len, "%" PRIu64 "%c", bytes >> (10 * u), "kMGT"[u - 1]);
	else
		snprintf(buf, len, "%" PRIu64, bytes);
	return buf;
}

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
	append(buf, len, "one of:");
	for (const char *const *c = o->choices; c && *c; c++)
		append(buf, len, "%s %s", c == o->choices ? "" : ",", *c);
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
static int check_memory(const struct opt_def *o, uint64_t v, struct why *w)
{
	uint64_t mem = opt_phys_mem();
	char val[32], hi[32];

	if (!(o->flags & OPT_MEMORY) || v <= mem)
		return 0;
	fmt_size(v, val, sizeof(val));
	snprintf(hi, sizeof(hi), "%.1fG", (double)mem / (1 << 30));
	snprintf(w->expect, sizeof(w->expect), "at most %s", hi);
	return fail(w, -ERANGE, "'%s' is more than this machine's memory", val);
}

/* The row's min/max (max 0 = none); on failure the expected form is the range. */
static int check_bounds(const struct opt_def *o, uint64_t v, struct why *w)
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
	return fail(w, -ERANGE, "'%s' is out of range", val);
}

static int set_bool(const char *val, bool *out, struct why *w)
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
	return fail(w, -EINVAL, "invalid value '%s'", val);
}

/* OPT_UINT and OPT_SIZE. */
static int set_number(const struct opt_def *o, const char *val, uint64_t *out, struct why *w)
{
	const char *kind = o->type == OPT_SIZE ? "size" : "number";
	int rc = o->type == OPT_SIZE ? parse_size(val, out) : parse_uint(val, out);

	if (rc == -ERANGE)
		return fail(w, rc, "%s '%s' is too large", kind, val);
	if (rc)
		return fail(w, rc, "invalid %s '%s'", kind, val);
	return check_bounds(o, *out, w);
}

static int set_pct(const char *val, unsigned *out, struct why *w)
{
	uint64_t v;
	int rc = parse_uint(val, &v);

	if (rc == -EINVAL)
		return fail(w, rc, "invalid percentage '%s'", val);
	if (rc || v > 100)
		return fail(w, -ERANGE, "'%s' is out of range", val);
	*out = (unsigned)v;
	return 0;
}

static int set_enum(const struct opt_def *o, const char *val, int *out, struct why *w)
{
	for (int i = 0; o->choices && o->choices[i]; i++) {
		if (!strcmp(val, o->choices[i])) {
			*out = i;
			return 0;
		}
	}
	return fail(w, -EINVAL, "unknown value '%s'", val);
}

static int set_list(const struct opt_def *o, const char *val, struct opt_ulist *out,
		    struct why *w)
{
	int rc = ulist_parse(val, o->type == OPT_SIZELIST, out, w);

	for (unsigned i = 0; !rc && i < out->n; i++)
		rc = check_bounds(o, out->v[i], w);
	return rc;
}

/* Parse @val as @o's type into @v, or explain in @w why not. */
static int parse_value(const struct opt_def *o, const char *val, union opt_value *v,
		       struct why *w)
{
	if (!val && o->type != OPT_BOOL)
		return fail(w, -EINVAL, "missing value");
	switch (o->type) {
	case OPT_BOOL:
		return set_bool(val, &v->b, w);
	case OPT_UINT:
	case OPT_SIZE:
		return set_number(o, val, &v->u, w);
	case OPT_PCT:
		return set_pct(val, &v->pct, w);
	case OPT_DOUBLE:
		return parse_double(val, &v->d) ? fail(w, -EINVAL, "invalid number '%s'", val) : 0;
	case OPT_STR:
		v->s = val;
		return 0;
	case OPT_ENUM:
		return set_enum(o, val, &v->e, w);
	case OPT_ULIST:
	case OPT_SIZELIST:
		return set_list(o, val, &v->list, w);
	case OPT_SPLIT:
		return split_parse(val, &v->split, w);
	case OPT_DIST:
		return dist_parse(val, &v->dist, w);
	case OPT_STRLIST:       /* appended by apply() */
		return 0;
	}
	return fail(w, -EINVAL, "unsupported option type %d", (int)o->type);
}

/* Parse and store; on failure fill @w (both parts) and leave @dst untouched. */
static int apply(const struct opt_def *o, void *dst, const char *val, struct why *w)
{
	union opt_value v;

	memset(&v, 0, sizeof(v));
	w->what[0] = w->expect[0] = '\0';
	if (o->type == OPT_STRLIST) {   /* repeatable: each value joins the list */
		struct opt_strlist *l = (struct opt_strlist *)((char *)dst + o->offset);
		if (!val || l->n == OPT_LIST_MAX) {
			if (val)
				fail(w, -EINVAL, "given more than %d times", OPT_LIST_MAX);
			else
				fail(w, -EINVAL, "missing value");
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
	struct why w;

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
	struct why w;

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
		append(buf, len, "%s%s", i ? "," : "", b);
	}
}

static void format_split(const struct opt_split *sp, char *buf, size_t len)
{
	char b[32];

	if (sp->n == 1 && sp->pct[0] == 100) {
		fmt_size(sp->bs[0], buf, len);
		return;
	}
	for (unsigned i = 0; i < sp->n && i < OPT_SPLIT_MAX; i++)
		append(buf, len, "%s%s/%" PRIu32, i ? ":" : "",
		       fmt_size(sp->bs[i], b, sizeof(b)), sp->pct[i]);
}

static void format_dist(const struct opt_dist *d, char *buf, size_t len)
{
	char p[32];

	if ((unsigned)d->kind > DIST_NORMAL) {
		snprintf(buf, len, "?");
		return;
	}
	if (d->kind == DIST_UNIFORM) {
		snprintf(buf, len, "uniform");
		return;
	}
	fmt_double(d->param, p, sizeof(p));
	snprintf(buf, len, "%s:%s", dist_names[d->kind], p);
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
		fmt_double(*(const double *)p, buf, len);
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
		format_split((const struct opt_split *)p, buf, len);
		break;
	case OPT_DIST:
		format_dist((const struct opt_dist *)p, buf, len);
		break;
	case OPT_STRLIST:
		for (unsigned i = 0; i < ((const struct opt_strlist *)p)->n && i < OPT_LIST_MAX; i++)
			append(buf, len, "%s%s", i ? " " : "", ((const struct opt_strlist *)p)->v[i]);
		break;
	}
	if (o->flags & OPT_SECRET && buf[0])
		snprintf(buf, len, "(secret)");
	return buf;
}

/* "--name METAVAR", the left column of a help line. */
static void help_left(const struct opt_def *o, char *buf, size_t len)
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
			append(buf, len, "%c%s", c == o->choices ? ' ' : '|', *c);
	} else if ((unsigned)o->type < sizeof(metavars) / sizeof(metavars[0]) &&
		   metavars[o->type] && metavars[o->type][0]) {
		append(buf, len, " %s", metavars[o->type]);
	}
}

void opt_help(FILE *f, const struct opt_def *tab)
{
	char left[256];
	int width = 0;

	for (const struct opt_def *o = tab; o->name; o++) {
		help_left(o, left, sizeof(left));
		int n = (int)strlen(left);
		if (n > width && n <= HELP_COLUMN)
			width = n;      /* a long enum list overflows rather than push every line right */
	}
	for (const struct opt_def *o = tab; o->name; o++) {
		help_left(o, left, sizeof(left));
		fprintf(f, "  %-*s  %s", width, left, o->help ? o->help : "");
		if (o->alias)
			fprintf(f, " (also --%s)", o->alias);
		if (o->def && !(o->flags & OPT_SECRET))
			fprintf(f, " (default: %s)", o->def);
		fputc('\n', f);
	}
}
