/*
 * opt_value.h - what the option tables (opt.c) share with the value
 * grammars (opt_value.c); private to the two.
 */
#ifndef APPIO_OPT_VALUE_H
#define APPIO_OPT_VALUE_H

#include <stdbool.h>
#include <stddef.h>

#include "appio/opt.h"

/* Why a value was refused and what would have been accepted instead. */
struct opt_why {
	char what[192];
	char expect[256];
};

/* Record why parsing failed (when @w is not NULL) and return @rc. */
int opt_fail(struct opt_why *w, int rc, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* snprintf() at the end of @buf; silently truncates like snprintf(). */
void opt_append(char *buf, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Comma list of numbers or sizes; @w, if not NULL, learns which element failed. */
int opt_ulist_parse(const char *s, bool sizes, struct opt_ulist *out, struct opt_why *w);

/* "SIZE/PCT:SIZE/PCT..." or a bare "SIZE"; sizes distinct, weights summing to 100. */
int opt_split_parse(const char *s, struct opt_split *out, struct opt_why *w);

/* "uniform", "zipf:THETA", "pareto:H", "normal:SIGMA" (opt.h's bounds). */
int opt_dist_parse(const char *s, struct opt_dist *out, struct opt_why *w);

/* strtod() without its leniency: no leading space, no trailing text, finite. */
int opt_double_parse(const char *s, double *out);

/* Text each parser above reads back as exactly the same value. */
void opt_double_format(double x, char *buf, size_t len);
void opt_split_format(const struct opt_split *sp, char *buf, size_t len);
void opt_dist_format(const struct opt_dist *d, char *buf, size_t len);

#endif
