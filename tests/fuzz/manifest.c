/*
 * manifest.c - the file-set manifest reader ('.appio-fileset' in the folder
 * a file-system personality works in) on arbitrary text.
 *
 * Beyond not crashing: an accepted manifest holds values fileset_open()
 * accepts, reads back unchanged after fileset_format_manifest(), and gives
 * every entry a path (the tree it describes is what a mismatching set's
 * removal walks) and file sizes that are whole multiples of its rounding.
 */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fileset.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = strndup((const char *)data, size);
	struct fileset_params p, q;
	char out[512], path[PATH_MAX];

	if (fileset_parse_manifest(text, &p)) {
		free(text);
		return 0;
	}
	must(p.files >= 1 && p.files <= FILESET_FILES_MAX && p.width >= 2 && p.mean >= 1 &&
	     p.shape > 0 && p.prealloc <= 100 && p.round >= 1 && p.kind[0]);
	int n = fileset_format_manifest(&p, out, sizeof(out));
	must(n > 0 && (size_t)n < sizeof(out));
	must(!fileset_parse_manifest(out, &q) && fileset_params_match(&p, &q) && p.shape == q.shape);

	struct fileset fs = { .p = p, .rootfd = -1 };
	fs.depth = fileset_depth(p.files, p.width);
	const uint32_t some[] = { 0, p.files / 2, p.files - 1 };
	for (unsigned i = 0; i < 3; i++)
		must(fileset_path(&fs, some[i], path, sizeof(path)) > 0);
	if (!gamma_init(&fs.gamma, p.shape, (double)p.mean)) {
		struct rng r;
		rng_seed(&r, size, 1);
		for (int i = 0; i < 4; i++) {
			uint64_t s = fileset_draw_size(&fs, &r);
			must(s >= p.round && s % p.round == 0);
		}
	}
	free(text);
	return 0;
}
