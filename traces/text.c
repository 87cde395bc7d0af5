/*
 * text.c - field parsing for the text formats (text.h).
 */
#include <ctype.h>
#include <string.h>

#include "text.h"

int text_u64(const char *s, uint64_t *v)
{
	uint64_t x = 0;

	if (!*s)
		return -1;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || x > (UINT64_MAX - 9) / 10)
			return -1;
		x = x * 10 + (uint64_t)(*s - '0');
	}
	*v = x;
	return 0;
}

int text_dec_ns(const char *s, uint64_t unit_ns, uint64_t *ns)
{
	uint64_t whole = 0, frac = 0, scale = unit_ns;
	int digits = 0;

	for (; *s >= '0' && *s <= '9'; s++, digits++) {
		if (whole > UINT64_MAX / 10 / unit_ns)
			return -1;
		whole = whole * 10 + (uint64_t)(*s - '0');
	}
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++, digits++) {
			if (scale >= 10) {
				scale /= 10;
				frac += (uint64_t)(*s - '0') * scale;
			}
		}
	}
	if (*s || !digits || whole > UINT64_MAX / unit_ns || frac > UINT64_MAX - whole * unit_ns)
		return -1;
	*ns = whole * unit_ns + frac;
	return 0;
}

int text_split(char *s, char sep, char **f, int max)
{
	int n = 0;

	if (sep == ' ') {
		while (*s && n < max) {
			while (*s == ' ' || *s == '\t')
				s++;
			if (!*s)
				break;
			f[n++] = s;
			if (n == max)
				break;
			while (*s && *s != ' ' && *s != '\t')
				s++;
			if (*s)
				*s++ = 0;
		}
		return n;
	}
	f[n++] = s;
	while (n < max && (s = strchr(s, sep))) {
		*s++ = 0;
		f[n++] = s;
	}
	return n;
}

char *text_trim(char *s)
{
	while (isspace((unsigned char)*s))
		s++;
	size_t n = strlen(s);
	while (n && isspace((unsigned char)s[n - 1]))
		s[--n] = 0;
	return s;
}

char *text_first_line(const char *buf, size_t len, char *line, size_t size)
{
	size_t n = 0;

	while (n < len && n + 1 < size && buf[n] != '\n' && buf[n] != '\r')
		n++;
	memcpy(line, buf, n);
	line[n] = 0;
	return line;
}
