/*
 * opt_redact.c - keeping passwords out of sight: which options hold one, and
 * argument words with their values hidden (see opt.h). Used at start-up to
 * scrub the process's visible arguments and by everything that shows
 * arguments back (a suite's plan and document). Pure; any thread.
 */
#include <string.h>

#include "appio/opt.h"

bool opt_secret_in(const struct opt_def *tab, const char *name, size_t len)
{
	char buf[64];

	if (!tab || len >= sizeof(buf))
		return false;
	memcpy(buf, name, len);
	buf[len] = '\0';
	const struct opt_def *o = opt_find(tab, buf);
	return o && (o->flags & OPT_SECRET);
}

/* Append @n bytes of @s, or its mask, to @out (@len bytes) at *@at. */
static void redact_put(char *out, size_t len, size_t *at, const char *s, size_t n, bool hide, char mask)
{
	if (hide && !mask) {
		s = "(secret)";
		n = strlen(s);
	}
	for (size_t i = 0; i < n && *at + 1 < len; i++)
		out[(*at)++] = hide && mask ? mask : s[i];
	out[*at < len ? *at : len - 1] = '\0';
}

bool opt_redact(const char *word, bool after_name, opt_secret_fn secret, char mask,
		char *out, size_t len, bool *next_secret)
{
	bool pending = after_name, hid = false, several = strchr(word, ' ') != NULL;
	size_t at = 0;

	if (!len)
		return false;
	out[0] = '\0';
	for (const char *p = word; *p;) {
		size_t sp = strspn(p, " "), n;
		redact_put(out, len, &at, p, sp, false, mask);
		p += sp;
		n = strcspn(p, " ");
		if (!n)
			break;
		const char *eq = memchr(p, '=', n);
		if (pending) {
			redact_put(out, len, &at, p, n, true, mask);
			hid = true;
			pending = false;
		} else if (n > 2 && !strncmp(p, "--", 2) &&
			   secret(p + 2, (eq ? (size_t)(eq - p) : n) - 2)) {
			size_t keep = eq ? (size_t)(eq - p) + 1 : n;
			redact_put(out, len, &at, p, keep, false, mask);
			if (eq) {
				redact_put(out, len, &at, eq + 1, n - keep, true, mask);
				hid = true;
			} else {
				pending = true;
			}
		} else {
			redact_put(out, len, &at, p, n, false, mask);
		}
		p += n;
	}
	if (next_secret)
		*next_secret = pending && !several;
	return hid;
}
