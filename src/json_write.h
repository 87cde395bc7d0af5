/*
 * json_write.h - the two primitives every JSON writer in appio needs. The
 * documents themselves are written by result.c and suite_run.c with stdio;
 * none of this is on a hot path.
 */
#ifndef APPIO_JSON_WRITE_H
#define APPIO_JSON_WRITE_H

#include <stdio.h>

/* @s as a quoted JSON string, escaped; NULL writes "". */
void json_str(FILE *f, const char *s);

/* @v as a JSON number: integers without a fraction, others to 6 significant digits, null if not finite. */
void json_num(FILE *f, double v);

#endif
