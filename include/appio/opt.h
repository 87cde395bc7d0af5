/*
 * opt.h - option tables and the parsers for sizes, lists and splits.
 *
 * Every option appio accepts is a row in a static table: the run options in
 * src/cli.c, and each plugin's own in its ops struct. The core parses argv
 * against the tables into the plugin's options struct (at @offset), applies
 * the defaults, and generates --help from the same rows, so help, defaults
 * and parsing cannot drift apart.
 *
 * Parse functions return 0 or -EINVAL and, on failure, write into @err one
 * line that names the option and the accepted form, for example
 *   --size: invalid size '12Q' (expected a number with an optional k, M, G or T suffix, e.g. 4k, 1G)
 * Called from the main thread only.
 */
#ifndef APPIO_OPT_H
#define APPIO_OPT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define OPT_LIST_MAX  64        /* entries in a list option */
#define OPT_SPLIT_MAX 32        /* entries in a block-size split */

enum opt_type {
	OPT_BOOL,       /* bool; "--x" alone, or "--x 0|1|yes|no|on|off" */
	OPT_UINT,       /* uint64_t; plain decimal */
	OPT_SIZE,       /* uint64_t bytes; k, M, G, T = 2^10.. (also KiB, MB...) */
	OPT_PCT,        /* unsigned 0..100 */
	OPT_DOUBLE,     /* double */
	OPT_STR,        /* const char * (points into argv or the default text) */
	OPT_ENUM,       /* int: index into @choices */
	OPT_ULIST,      /* struct opt_ulist: comma list of decimals, "2,4,8" */
	OPT_SIZELIST,   /* struct opt_ulist of sizes: "4k,8k" */
	OPT_SPLIT,      /* struct opt_split: "4k" or "512/10:1k/5:4k/85" */
	OPT_DIST,       /* struct opt_dist: uniform | zipf:THETA | pareto:H | normal:SIGMA */
};

struct opt_ulist {
	unsigned n;
	uint64_t v[OPT_LIST_MAX];
};

struct opt_split {
	unsigned n;
	uint32_t bs[OPT_SPLIT_MAX];     /* bytes */
	uint32_t pct[OPT_SPLIT_MAX];    /* weights summing to 100 */
};

enum dist_kind {
	DIST_UNIFORM,
	DIST_ZIPF,      /* param: theta > 0, != 1 */
	DIST_PARETO,    /* param: h in (0, 1), e.g. 0.9 = 90% of I/O to 10% of blocks */
	DIST_NORMAL,    /* param: sigma in percent of the range, > 0 */
};

struct opt_dist {
	enum dist_kind kind;
	double param;
};

struct opt_def {
	const char *name;               /* long name without "--" */
	enum opt_type type;
	size_t offset;                  /* where the value lives in the options struct */
	const char *def;                /* default as text, parsed like user input; NULL = none */
	const char *help;               /* one line; required (a test walks every table) */
	const char *const *choices;     /* OPT_ENUM: NULL-terminated names */
	uint64_t min, max;              /* OPT_UINT/OPT_SIZE/OPT_ULIST bounds; max 0 = none */
};

/* Table terminator. */
#define OPT_END { .name = NULL }

/* The row of @tab named @name, or NULL. */
const struct opt_def *opt_find(const struct opt_def *tab, const char *name);

/* Apply every default of @tab to the struct at @dst (rows without one are zeroed). */
int opt_defaults(const struct opt_def *tab, void *dst, char *err, size_t errlen);

/*
 * Parse @val for option @o into the struct at @dst. @val is NULL for a bare
 * boolean flag. The string must outlive @dst for OPT_STR.
 */
int opt_set(const struct opt_def *o, void *dst, const char *val, char *err, size_t errlen);

/*
 * Format the current value of @o in @src as text that opt_set() accepts
 * ("4k", "2,4,8", "512/10:4k/90", "zipf:1.2"), for results and help.
 * Returns @buf.
 */
char *opt_format(const struct opt_def *o, const void *src, char *buf, size_t len);

/* Print one help line per row of @tab: "  --name VALUE   help (default: X)". */
void opt_help(FILE *f, const struct opt_def *tab);

/* Standalone parsers, shared with job files and tests. */
int parse_size(const char *s, uint64_t *out);                 /* "4k" -> 4096; -EINVAL/-ERANGE */
int parse_uint(const char *s, uint64_t *out);                 /* decimal only */
int parse_ulist(const char *s, bool sizes, struct opt_ulist *out); /* comma list */
int parse_split(const char *s, struct opt_split *out);        /* weights must sum to 100 */
int parse_dist(const char *s, struct opt_dist *out);

/* "4k" style text for @bytes (exact: 1536 -> "1536", 4096 -> "4k"). */
char *fmt_size(uint64_t bytes, char *buf, size_t len);

#endif
