/*
 * text.h - the field parsing the text formats share: strict numbers (no sign,
 * no trailing junk), decimal seconds to nanoseconds without floating point,
 * and in-place splitting of a line into fields.
 */
#ifndef APPIO_TRACES_TEXT_H
#define APPIO_TRACES_TEXT_H

#include <stddef.h>
#include <stdint.h>

/* @s is all decimal digits (at least one) and fits 64 bits: 0, else -1. */
int text_u64(const char *s, uint64_t *v);

/*
 * @s is a decimal number of @unit_ns units, "12", "12.5" or "0.000001829",
 * converted to ns exactly up to 1 ns (digits past that are dropped): 0, else -1
 * (also when the result would pass 2^64 ns, some 584 years).
 */
int text_dec_ns(const char *s, uint64_t unit_ns, uint64_t *ns);

/* Split @s in place at @sep (' ' also splits at tabs and runs of blanks). Returns the field count, at most @max; past @max the last field keeps the rest. */
int text_split(char *s, char sep, char **f, int max);

/*
 * Copy the first line of @buf[0..len) (up to '\n' or '\r', at most @size - 1
 * bytes) into @line, NUL-terminated, for a format's probe. Returns @line.
 */
char *text_first_line(const char *buf, size_t len, char *line, size_t size);

/* @s with blanks trimmed at both ends, in place. */
char *text_trim(char *s);

#endif
