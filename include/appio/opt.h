/*
 * opt.h - option tables and the parsers for sizes, lists and splits.
 *
 * Every option appio accepts is a row in a static table: the run options in
 * src/job.c, the suite's in src/suite.c, and each plugin's own in its ops
 * struct. One parser, opt_parse(), reads argv against an array of tables
 * into their structs (at @offset), so every command accepts the same
 * spellings; the defaults come from the same rows, and so does --help
 * (opt_help), so help, defaults and parsing cannot drift apart. A unit test
 * (tests/unit/test_registry.c) walks every table: unique names, help text.
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
	OPT_STRLIST,    /* struct opt_strlist: repeatable text, every value kept in order */
};

struct opt_ulist {
	unsigned n;
	uint64_t v[OPT_LIST_MAX];
};

struct opt_strlist {
	unsigned n;
	const char *v[OPT_LIST_MAX];    /* point into argv, like OPT_STR */
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

/*
 * Room for one value of any option type. A value is parsed into one of these
 * and copied into the options struct only when it is accepted, so a refused
 * value leaves the struct as it was.
 */
union opt_value {
	bool b;
	uint64_t u;
	unsigned pct;
	double d;
	const char *s;
	int e;
	struct opt_ulist list;
	struct opt_split split;
	struct opt_dist dist;
};

enum opt_flags {
	OPT_SECRET = 1 << 0,    /* a password: never written to a result, printed or echoed */
	OPT_NONE   = 1 << 1,    /* OPT_ULIST/OPT_SIZELIST: "none" means an empty list */
	OPT_TARGET = 1 << 2,    /* about the target: left out of the results of runs without one */
	OPT_WHERE  = 1 << 3,    /* where or how wide a run went, not what it did: results that
				   differ only in it still compare ('appio compare') */
	OPT_MEMORY = 1 << 4,    /* OPT_SIZE held in memory (a buffer pool, a cache): bounded by
				   the machine's physical memory at parse time */
};

struct opt_def {
	const char *name;               /* long name without "--", words joined by '-' */
	enum opt_type type;
	size_t offset;                  /* where the value lives in the options struct */
	const char *def;                /* default as text, parsed like user input; NULL = none */
	const char *help;               /* one line; required (a test walks every table) */
	const char *const *choices;     /* OPT_ENUM: NULL-terminated names */
	uint64_t min, max;              /* OPT_UINT/OPT_SIZE/OPT_ULIST bounds; max 0 = none.
					   Every number row gets a max that makes sense for it:
					   the code multiplies values it trusts to be in range */
	const char *alias;              /* another accepted name (e.g. another tool's), or NULL */
	unsigned flags;                 /* enum opt_flags */
};

/* Table terminator. */
#define OPT_END { .name = NULL }

/* Rows a table may have: opt_tab.given has a bit per row. */
#define OPT_TABLE_MAX 64

/*
 * The row of @tab named @name (or whose alias it is), or NULL. '_' in @name
 * counts as '-', so SysBench's "--table_size" finds "table-size".
 */
const struct opt_def *opt_find(const struct opt_def *tab, const char *name);

/* One table of a parse: its rows, the struct they fill, and which rows were given. */
struct opt_tab {
	const struct opt_def *defs;     /* OPT_END-terminated, at most OPT_TABLE_MAX rows */
	void *dst;                      /* the options struct the rows' offsets point into */
	uint64_t given;                 /* out: bit i set when row i was set by a marked parse */
};

enum opt_parse_flags {
	OPT_MARK_GIVEN = 1 << 0,        /* record the rows set in opt_tab.given (the caller's
					   arguments, as opposed to a preset's or defaults) */
};

/*
 * Parse @argv (options only, argv[0] included) against @tabs in order: a name
 * is looked up in each table in turn and the first row found wins. Accepted,
 * the same everywhere:
 *   --name value, --name=value, '_' for '-' in the name, a row's alias;
 *   a bare boolean "--flag", optionally followed by a bool word (1, 0, yes,
 *   no, on, off, true, false); --help or -h sets *@help and stops.
 * @see names the help to point to in an error ("appio run oltp --help").
 * Strings in @argv must outlive the destination structs (OPT_STR values
 * point into them). Returns 0 or -EINVAL with one line in @err naming the
 * option; a value already stored stays.
 */
int opt_parse(struct opt_tab *tabs, unsigned ntabs, int argc, char **argv, unsigned flags,
	      bool *help, const char *see, char *err, size_t errlen);

/* Was the row of @t named @name given by a marked parse? false for an unknown name. */
bool opt_given(const struct opt_tab *t, const char *name);

/* Is @s a word a bare boolean flag may be followed by (1, 0, yes, no, on, off, true, false)? */
bool opt_is_bool_word(const char *s);

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

/* "--name METAVAR" (or "--name a|b|c"): how @o is typed, the left column of its help line. */
void opt_usage(const struct opt_def *o, char *buf, size_t len);

/*
 * Print one help line per row of @tab: "  --name VALUE   help (default: X)",
 * with "(also --alias)" for a row that has one.
 */
void opt_help(FILE *f, const struct opt_def *tab);

/* Passwords out of sight (src/opt_redact.c). */

/* Does option --NAME (the @len bytes at @name, without "--") hold a secret? */
typedef bool (*opt_secret_fn)(const char *name, size_t len);

/* Is the row of @tab named by the @len bytes at @name (or its alias) OPT_SECRET? */
bool opt_secret_in(const struct opt_def *tab, const char *name, size_t len);

/*
 * Write @word to @out (@len bytes) with every secret value hidden: the whole
 * word when @after_name (it follows a bare "--password"), the part after '='
 * of "--password=X", and inside a word of several words (a suite's
 * "--db-args '--x 1 --password X'") each value of a secret option. @secret
 * says which names are secret. A @mask of 0 writes "(secret)" in place of a
 * value; any other character overwrites it byte for byte (same length: what
 * scrubbing argv in place needs). *@next_secret: @word is a bare secret name,
 * so the next word is its value. Returns true when anything was hidden.
 */
bool opt_redact(const char *word, bool after_name, opt_secret_fn secret, char mask,
		char *out, size_t len, bool *next_secret);

/* Standalone parsers, shared with job files and tests. */
int parse_size(const char *s, uint64_t *out);                 /* "4k" -> 4096; -EINVAL/-ERANGE */
int parse_uint(const char *s, uint64_t *out);                 /* decimal only */
int parse_ulist(const char *s, bool sizes, struct opt_ulist *out); /* comma list */
int parse_split(const char *s, struct opt_split *out);        /* weights must sum to 100 */
int parse_dist(const char *s, struct opt_dist *out);

/* Bytes of physical memory of this machine (what OPT_MEMORY rows are held to). */
uint64_t opt_phys_mem(void);

/* Seconds options are at most this (a year): their nanoseconds fit in 64 bits many times. */
#define OPT_SECONDS_MAX 31536000

/* "4k" style text for @bytes (exact: 1536 -> "1536", 4096 -> "4k"). */
char *fmt_size(uint64_t bytes, char *buf, size_t len);

#endif
