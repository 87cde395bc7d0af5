/*
 * gz.h - reading gzip-compressed traces as a stream (zlib's inflate), so a
 * bundled trace or a compressed capture reads like the plain text it holds.
 */
#ifndef APPIO_TRACES_GZ_H
#define APPIO_TRACES_GZ_H

#include <stddef.h>
#include <stdio.h>

/* Do the @len bytes at @buf start a gzip member? */
int gz_magic(const char *buf, size_t len);

/*
 * A FILE that reads the decompressed bytes of @under (gzip members one after
 * another, as gzip -d reads them), or NULL with errno. The FILE owns @under
 * and closes it when closed, except stdin. A corrupt stream reads as an error
 * (ferror) at the point where it breaks.
 */
FILE *gz_open(FILE *under);

#endif
