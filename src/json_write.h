/*
 * json_write.h - the two primitives every JSON writer in appio needs. The
 * documents themselves are written by result.c and suite_run.c with stdio;
 * none of this is on a hot path.
 */
#ifndef APPIO_JSON_WRITE_H
#define APPIO_JSON_WRITE_H

#include <stdbool.h>
#include <stdio.h>

/*
 * @s as a quoted JSON string, escaped; NULL writes "". Text that is not valid
 * UTF-8 (a path in Latin-1, a device model with a stray byte) never makes
 * the document unreadable: each byte that does not belong to a well-formed
 * UTF-8 sequence is written as \u00XX, the code point with the byte's value
 * (reading it as Latin-1), as are control characters. Every JSON reader,
 * jansson and appio's own included, takes the document; a Latin-1 name reads
 * back as the characters it meant.
 */
void json_str(FILE *f, const char *s);

/* @v as a JSON number: integers without a fraction, others to 6 significant digits, null if not finite. */
void json_num(FILE *f, double v);

#endif
