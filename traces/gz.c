/*
 * gz.c - a read-only FILE over a gzip stream: a fopencookie() whose read
 * inflates from the underlying FILE in 64 KiB steps. Concatenated members
 * are read one after another; bytes after the last member that are not a
 * gzip header are an error, as gzip -d says "trailing garbage".
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "gz.h"

#define IN_BYTES 65536

struct gz {
	FILE *under;
	z_stream z;
	int end;                        /* the last member ended and no bytes follow */
	unsigned char in[IN_BYTES];
};

int gz_magic(const char *buf, size_t len)
{
	return len >= 2 && (unsigned char)buf[0] == 0x1f && (unsigned char)buf[1] == 0x8b;
}

static int refill(struct gz *g)
{
	size_t n = fread(g->in, 1, sizeof(g->in), g->under);

	if (!n && ferror(g->under))
		return -1;
	g->z.next_in = g->in;
	g->z.avail_in = (uInt)n;
	return (int)(n > 0);
}

static ssize_t gz_read(void *cookie, char *out, size_t n)
{
	struct gz *g = cookie;

	g->z.next_out = (unsigned char *)out;
	g->z.avail_out = (uInt)(n > UINT32_MAX ? UINT32_MAX : n);
	while (g->z.avail_out && !g->end) {
		if (!g->z.avail_in) {
			int k = refill(g);
			if (k < 0) {
				errno = EIO;
				return -1;
			}
			if (!k) {
				/* the file ended: fine between members, truncated inside one */
				if (g->z.total_in || g->z.total_out) {
					errno = EIO;
					return -1;
				}
				g->end = 1;
				break;
			}
		}
		int rc = inflate(&g->z, Z_NO_FLUSH);
		if (rc == Z_STREAM_END) {
			inflateReset(&g->z);    /* total_* back to 0: between members */
			if (!g->z.avail_in && refill(g) <= 0)
				g->end = 1;
			else if (g->z.avail_in >= 1 && g->z.next_in[0] != 0x1f) {
				errno = EILSEQ;
				return -1;
			}
		} else if (rc != Z_OK && rc != Z_BUF_ERROR) {
			errno = EILSEQ;
			return -1;
		}
	}
	return (ssize_t)(n - g->z.avail_out);
}

static int gz_close(void *cookie)
{
	struct gz *g = cookie;
	int rc = g->under == stdin ? 0 : fclose(g->under);

	inflateEnd(&g->z);
	free(g);
	return rc;
}

FILE *gz_open(FILE *under)
{
	cookie_io_functions_t io = { .read = gz_read, .close = gz_close };
	struct gz *g = calloc(1, sizeof(*g));
	FILE *f;

	if (!g)
		return NULL;
	g->under = under;
	if (inflateInit2(&g->z, 15 + 16) != Z_OK) {    /* 15 + 16: a gzip header, not zlib's */
		free(g);
		errno = ENOMEM;
		return NULL;
	}
	if (!(f = fopencookie(g, "r", io))) {
		inflateEnd(&g->z);
		free(g);
	}
	return f;
}
