/*
 * test_json_write.c - json_str() writes every string as valid JSON that
 * jansson reads back: valid UTF-8 unchanged, stray bytes and control
 * characters as \u00XX (read back as U+00XX).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "json_write.h"

/* json_str(@in) parsed back by jansson, or NULL (caller frees). */
static char *round_trip(const char *in, char *text, size_t len)
{
	FILE *f = fmemopen(text, len, "w");
	json_error_t e;

	json_str(f, in);
	fclose(f);
	json_t *j = json_loads(text, JSON_DECODE_ANY, &e);
	char *out = j && json_is_string(j) ? strdup(json_string_value(j)) : NULL;
	json_decref(j);
	return out;
}

static void expect(const char *in, const char *want, const char *want_text)
{
	char text[256] = "";
	char *out = round_trip(in, text, sizeof(text));

	CHECK(out && !strcmp(out, want), "'%s' read back as '%s' (written %s)", want, out ? out : "(unreadable)", text);
	CHECK(!want_text || !strcmp(text, want_text), "written %s, want %s", text, want_text);
	free(out);
}

static void test_valid_utf8(void)
{
	expect("plain/path.dat", "plain/path.dat", "\"plain/path.dat\"");
	expect("caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe", "caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x92\xbe", NULL);
	expect("q\"b\\n\nt\t", "q\"b\\n\nt\t", "\"q\\\"b\\\\n\\nt\\t\"");
}

static void test_stray_bytes(void)
{
	/* Latin-1 e-acute: the byte 0xe9 becomes U+00E9 */
	expect("caf\xe9.dat", "caf\xc3\xa9.dat", "\"caf\\u00e9.dat\"");
	expect("\xff\xfe", "\xc3\xbf\xc3\xbe", "\"\\u00ff\\u00fe\"");
	/* truncated, overlong, surrogate, past U+10FFFF: each byte alone */
	expect("a\xe2\x82", "a\xc3\xa2\xc2\x82", "\"a\\u00e2\\u0082\"");
	expect("\xc0\xaf", "\xc3\x80\xc2\xaf", "\"\\u00c0\\u00af\"");
	expect("\xed\xa0\x80", "\xc3\xad\xc2\xa0\xc2\x80", NULL);
	expect("\xf4\x90\x80\x80", "\xc3\xb4\xc2\x90\xc2\x80\xc2\x80", NULL);
	/* a stray continuation byte before a good sequence leaves the sequence alone */
	expect("\x80\xc3\xa9", "\xc2\x80\xc3\xa9", "\"\\u0080\xc3\xa9\"");
}

static void test_controls(void)
{
	expect("\x01\x1f\x7f", "\x01\x1f\x7f", "\"\\u0001\\u001f\\u007f\"");
	expect(NULL, "", "\"\"");
}

int main(void)
{
	RUN(test_valid_utf8);
	RUN(test_stray_bytes);
	RUN(test_controls);
	return check_done();
}
