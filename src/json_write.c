/*
 * json_write.c - JSON string and number output (see json_write.h).
 */
#include <math.h>

#include "json_write.h"

static bool cont(unsigned char c)
{
	return (c & 0xc0) == 0x80;
}

/*
 * Bytes of the well-formed UTF-8 sequence at @s (1 to 4), or 0 when it is
 * not one: overlong forms, surrogates and code points past U+10FFFF are
 * refused, as RFC 3629 and every strict reader (jansson among them) do.
 */
static int utf8_len(const unsigned char *s)
{
	unsigned char c = s[0];
	unsigned char lo = 0x80, hi = 0xbf;       /* the second byte's range */
	int n;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4;
	else
		return 0;
	if (c == 0xe0)
		lo = 0xa0;                      /* overlong */
	else if (c == 0xed)
		hi = 0x9f;                      /* surrogates */
	else if (c == 0xf0)
		lo = 0x90;                      /* overlong */
	else if (c == 0xf4)
		hi = 0x8f;                      /* past U+10FFFF */
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (int i = 2; i < n; i++)
		if (!cont(s[i]))
			return 0;
	return n;
}

void json_str(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	fputc('"', f);
	while (p && *p) {
		unsigned char c = *p;
		int n = utf8_len(p);
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c == '\n')
			fputs("\\n", f);
		else if (c == '\t')
			fputs("\\t", f);
		else if (c < 0x20 || c == 0x7f || !n)
			fprintf(f, "\\u%04x", c);       /* a stray byte: U+00XX, see json_write.h */
		else
			fwrite(p, 1, (size_t)n, f);
		p += n ? n : 1;
	}
	fputc('"', f);
}

void json_num(FILE *f, double v)
{
	if (!isfinite(v))
		fputs("null", f);
	else if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%.0f", v);
	else
		fprintf(f, "%.6g", v);
}
