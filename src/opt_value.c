/*
 * opt_value.c - the grammars of option values: whole numbers, sizes with
 * their units, comma lists, block-size splits, distributions, and the text
 * that reads back as the same value. The option tables (opt.c) parse every
 * value through these, whoever typed it.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "appio/opt.h"
#include "opt_value.h"

#define FRAC_DIGITS_MAX 40      /* a whole result never needs more: see frac_scaled() */

static const char *const dist_names[] = {
	[DIST_UNIFORM] = "uniform",
	[DIST_ZIPF] = "zipf",
	[DIST_PARETO] = "pareto",
	[DIST_NORMAL] = "normal",
};

int opt_fail(struct opt_why *w, int rc, const char *fmt, ...)
{
	if (w) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->what, sizeof(w->what), fmt, ap);
		va_end(ap);
	}
	return rc;
}

void opt_append(char *buf, size_t len, const char *fmt, ...)
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

int opt_ulist_parse(const char *s, bool sizes, struct opt_ulist *out, struct opt_why *w)
{
	struct opt_ulist l = { .n = 0 };
	const char *kind = sizes ? "size" : "number";
	const char *p = s;

	for (;;) {
		size_t len = strcspn(p, ",");
		if (l.n == OPT_LIST_MAX)
			return opt_fail(w, -EINVAL, "more than %d values in '%s'", OPT_LIST_MAX, s);
		int rc = sizes ? size_span(p, len, &l.v[l.n]) : uint_span(p, len, &l.v[l.n]);
		if (rc == -ERANGE)
			return opt_fail(w, rc, "%s '%.*s' is too large", kind, (int)len, p);
		if (rc)
			return opt_fail(w, rc, "invalid %s '%.*s' in '%s'", kind, (int)len, p, s);
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
	return s ? opt_ulist_parse(s, sizes, out, NULL) : -EINVAL;
}

/* One "SIZE/PCT" entry of a split; @alone allows a bare "SIZE" meaning 100 %. */
static int split_entry(const char *p, size_t len, bool alone,
		       uint32_t *bs, uint32_t *pct, struct opt_why *w)
{
	const char *slash = memchr(p, '/', len);
	size_t slen = slash ? (size_t)(slash - p) : len;
	uint64_t size, weight = 100;
	int rc = size_span(p, slen, &size);

	if (rc == -ERANGE || (!rc && size > UINT32_MAX))
		return opt_fail(w, -ERANGE, "block size '%.*s' is too large", (int)slen, p);
	if (rc)
		return opt_fail(w, rc, "invalid size '%.*s'", (int)slen, p);
	if (!size)
		return opt_fail(w, -EINVAL, "block size 0 is not allowed");
	if (!slash && !alone)
		return opt_fail(w, -EINVAL, "missing weight after '%.*s'", (int)slen, p);
	if (slash) {
		const char *q = slash + 1;
		size_t qlen = len - slen - 1;
		rc = uint_span(q, qlen, &weight);
		if (rc == -EINVAL)
			return opt_fail(w, -EINVAL, "invalid weight '%.*s'", (int)qlen, q);
		if (rc || weight < 1 || weight > 100)
			return opt_fail(w, -EINVAL, "weight '%.*s' is not between 1 and 100",
				    (int)qlen, q);
	}
	*bs = (uint32_t)size;
	*pct = (uint32_t)weight;
	return 0;
}

/* Sizes must be distinct and the weights a whole distribution. */
static int split_check(const struct opt_split *sp, struct opt_why *w)
{
	unsigned sum = 0;

	for (unsigned i = 0; i < sp->n; i++) {
		for (unsigned j = 0; j < i; j++) {
			if (sp->bs[i] == sp->bs[j]) {
				char b[32];
				return opt_fail(w, -EINVAL, "size '%s' appears twice",
					    fmt_size(sp->bs[i], b, sizeof(b)));
			}
		}
		sum += sp->pct[i];
	}
	if (sum != 100)
		return opt_fail(w, -EINVAL, "weights sum to %u, not 100", sum);
	return 0;
}

int opt_split_parse(const char *s, struct opt_split *out, struct opt_why *w)
{
	struct opt_split sp = { .n = 0 };
	bool alone = !strchr(s, ':');
	const char *p = s;

	for (;;) {
		size_t len = strcspn(p, ":");
		if (sp.n == OPT_SPLIT_MAX)
			return opt_fail(w, -EINVAL, "more than %d sizes", OPT_SPLIT_MAX);
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
	return s ? opt_split_parse(s, out, NULL) : -EINVAL;
}

int opt_double_parse(const char *s, double *out)
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

int opt_dist_parse(const char *s, struct opt_dist *out, struct opt_why *w)
{
	size_t len = strcspn(s, ":");
	double param = 0;

	for (int k = DIST_UNIFORM; k <= DIST_NORMAL; k++) {
		if (strlen(dist_names[k]) != len || strncmp(s, dist_names[k], len))
			continue;
		if (k == DIST_UNIFORM && s[len])
			return opt_fail(w, -EINVAL, "uniform takes no parameter");
		if (k != DIST_UNIFORM && (!s[len] || opt_double_parse(s + len + 1, &param) ||
					  !dist_param_ok((enum dist_kind)k, param)))
			return opt_fail(w, -EINVAL, "invalid %s parameter in '%s'", dist_names[k], s);
		out->kind = (enum dist_kind)k;
		out->param = param;
		return 0;
	}
	return opt_fail(w, -EINVAL, "unknown distribution '%s'", s);
}

int parse_dist(const char *s, struct opt_dist *out)
{
	return s ? opt_dist_parse(s, out, NULL) : -EINVAL;
}

/* Shortest "%g" text that reads back as exactly @x. */
void opt_double_format(double x, char *buf, size_t len)
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

void opt_split_format(const struct opt_split *sp, char *buf, size_t len)
{
	char b[32];

	if (sp->n == 1 && sp->pct[0] == 100) {
		fmt_size(sp->bs[0], buf, len);
		return;
	}
	for (unsigned i = 0; i < sp->n && i < OPT_SPLIT_MAX; i++)
		opt_append(buf, len, "%s%s/%" PRIu32, i ? ":" : "",
		       fmt_size(sp->bs[i], b, sizeof(b)), sp->pct[i]);
}

void opt_dist_format(const struct opt_dist *d, char *buf, size_t len)
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
	opt_double_format(d->param, p, sizeof(p));
	snprintf(buf, len, "%s:%s", dist_names[d->kind], p);
}

