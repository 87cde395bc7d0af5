/*
 * opt.c - every option-value parser on arbitrary text.
 *
 * Input: byte 0 picks the option type (enum opt_type), byte 1 the row's
 * bounds (none, small, 1..max), the rest is the value as typed after
 * "--name". Beyond not crashing, an accepted value must survive the
 * round trip results rely on: opt_format() text parses back to the same
 * value (opt.h), and a refused one leaves a message naming the option.
 * The standalone parsers (parse_size...) see the same text.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "appio/opt.h"
#include "fuzz.h"

static const char *const choices[] = { "libaio", "io_uring", "sync", "null", "", NULL };

static const struct { uint64_t min, max; } bounds[] = {
	{ 0, 0 }, { 1, 0 }, { 1, 100 }, { 512, 1ULL << 30 }, { 4096, UINT64_MAX }, { 2, 3 },
};

static void standalone(const char *val)
{
	uint64_t u;
	struct opt_ulist l;
	struct opt_split sp;
	struct opt_dist d;
	char buf[64];

	if (!parse_size(val, &u))
		must(!parse_size(fmt_size(u, buf, sizeof(buf)), &u));
	parse_uint(val, &u);
	parse_ulist(val, false, &l);
	parse_ulist(val, true, &l);
	if (!parse_split(val, &sp)) {
		unsigned sum = 0;
		for (unsigned i = 0; i < sp.n; i++)
			sum += sp.pct[i];
		must(sp.n >= 1 && sp.n <= OPT_SPLIT_MAX && sum == 100);
	}
	parse_dist(val, &d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	struct opt_def o = {
		.name = "opt", .type = (enum opt_type)(data[0] % (OPT_DIST + 1)), .offset = 0,
		.help = "fuzzed", .choices = choices,
		.min = bounds[data[1] % (sizeof(bounds) / sizeof(bounds[0]))].min,
		.max = bounds[data[1] % (sizeof(bounds) / sizeof(bounds[0]))].max,
	};
	char *val = strndup((const char *)data + 2, size - 2);   /* argv strings end at a NUL */
	union opt_value a, b;
	char err[512] = "", text[8192];

	memset(&a, 0, sizeof(a));
	memset(&b, 0, sizeof(b));
	if (opt_set(&o, &a, val, err, sizeof(err))) {
		must(!strncmp(err, "--opt: ", 7) && strstr(err, "(expected "));
	} else {
		/* what a result records must replay as the same command line */
		opt_format(&o, &a, text, sizeof(text));
		must(strlen(text) + 1 < sizeof(text));
		must(!opt_set(&o, &b, text, err, sizeof(err)));
		if (o.type != OPT_STR)
			must(!memcmp(&a, &b, sizeof(a)));
		else
			must(!strcmp(a.s, b.s));
	}
	if (o.type == OPT_BOOL)
		must(!opt_set(&o, &a, NULL, err, sizeof(err)) && a.b);     /* a bare flag */
	else
		must(opt_set(&o, &a, NULL, err, sizeof(err)) == -EINVAL);
	standalone(val);
	free(val);
	return 0;
}
