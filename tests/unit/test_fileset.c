/*
 * test_fileset.c - a personality's fileset: tree shape and names, the
 * manifest, building with the configured share of files present, reuse and
 * repair by a later open, replacement when the parameters change, and the
 * pick/put protocol that keeps two workers off one file. Builds real files
 * in a scratch folder under build/.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fileset.h"
#include "check.h"

static char scratch[] = "build/test-fileset.XXXXXX";
static unsigned regular_files;

static int count_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)f;
	if (flag == FTW_F && S_ISREG(st->st_mode) && !strstr(path, FILESET_MANIFEST))
		regular_files++;
	return 0;
}

static unsigned files_on_disk(void)
{
	regular_files = 0;
	nftw(scratch, count_one, 16, FTW_PHYS);
	return regular_files;
}

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st, (void)flag, (void)f;
	return remove(path);
}

static struct fileset_params params(uint32_t files, uint32_t width)
{
	struct fileset_params p = { .files = files, .width = width, .mean = 4096, .shape = 1.5,
				    .prealloc = 80, .round = 512 };
	snprintf(p.kind, sizeof(p.kind), "test");
	return p;
}

static void tree_shape(void)
{
	struct fileset fs = { .p = params(10000, 20) };
	char path[256];

	CHECK(fileset_depth(10000, 20) == 3, "10,000 files at width 20: %u levels", fileset_depth(10000, 20));
	CHECK(fileset_depth(1000, 20) == 2, "1,000 at 20: %u", fileset_depth(1000, 20));
	CHECK(fileset_depth(20, 20) == 0, "one folder's worth is flat");
	CHECK(fileset_depth(21, 20) == 1, "one more needs a level");
	CHECK(fileset_depth(1000, 1000000) == 0, "the mail server's flat folder");
	fs.depth = fileset_depth(10000, 20);
	fileset_path(&fs, 0, path, sizeof(path));
	CHECK(!strcmp(path, "d0/d0/d0/f0"), "entry 0: %s", path);
	fileset_path(&fs, 9999, path, sizeof(path));    /* leaf 499 = 1*400 + 4*20 + 19 */
	CHECK(!strcmp(path, "d1/d4/d19/f9999"), "entry 9999: %s", path);
	CHECK(fileset_path(&fs, 9999, path, 8) == -ENAMETOOLONG, "short buffer refused");
}

static void manifest_round_trip(void)
{
	struct fileset_params p;
	const char *text = "appio-fileset 1\nkind fileserver-fs\nfiles 10000\nwidth 20\n"
			   "mean 131072\nshape 1.5\nprealloc 80\nround 512\n";

	CHECK(fileset_parse_manifest(text, &p) == 0, "parses");
	CHECK(!strcmp(p.kind, "fileserver-fs") && p.files == 10000 && p.width == 20 &&
	      p.mean == 131072 && p.shape == 1.5 && p.prealloc == 80 && p.round == 512, "fields");
	struct fileset_params q = p;
	CHECK(fileset_params_match(&p, &q), "equal parameters match");
	q.mean = 131073;
	CHECK(!fileset_params_match(&p, &q), "another mean does not");
	CHECK(fileset_parse_manifest("appio-fileset 2\nkind x\n", &p) == -EINVAL, "other version");
	CHECK(fileset_parse_manifest("garbage", &p) == -EINVAL, "garbage");
}

/* The manifest is the user's folder's text: whatever is out of range is refused, not wrapped. */
static void manifest_refuses_bad_values(void)
{
	static const char *const bad[] = {
		"files -1\nwidth 20\nmean 131072\nshape 1.5\nprealloc 80\nround 512\n",
		"files 4294967297\nwidth 20\nmean 131072\nshape 1.5\nprealloc 80\nround 512\n",
		"files 100000001\nwidth 20\nmean 131072\nshape 1.5\nprealloc 80\nround 512\n",
		"files 10x\nwidth 20\nmean 131072\nshape 1.5\nprealloc 80\nround 512\n",
		"files 10\nwidth 1\nmean 131072\nshape 1.5\nprealloc 80\nround 512\n",
		"files 10\nwidth 20\nmean -5\nshape 1.5\nprealloc 80\nround 512\n",
		"files 10\nwidth 20\nmean 10000000000000000000\nshape 1\nprealloc 80\nround 12\n",
		"files 10\nwidth 20\nmean 131072\nshape inf\nprealloc 80\nround 512\n",
		"files 10\nwidth 20\nmean 131072\nshape nan\nprealloc 80\nround 512\n",
		"files 10\nwidth 20\nmean 131072\nshape -1.5\nprealloc 80\nround 512\n",
		"files 10\nwidth 20\nmean 131072\nshape 1.5\nprealloc 101\nround 512\n",
		"files 10\nwidth 20\nmean 131072\nshape 1.5\nprealloc 80\nround 0\n",
		"files 10\nwidth 20\nmean 131072\nshape 1.5\nprealloc 80\nround 512",
	};
	struct fileset_params p = { .kind = "mailserver-fs", .files = 1000, .width = 1000000,
				    .mean = 16384, .shape = 0.1, .prealloc = 80, .round = 4096 }, q;
	char text[512], doc[600];

	fileset_format_manifest(&p, text, sizeof(text));
	CHECK(fileset_parse_manifest(text, &q) == 0 && fileset_params_match(&p, &q) &&
	      q.shape == p.shape, "written then read: %s", text);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(doc, sizeof(doc), "appio-fileset 1\nkind fileserver-fs\n%s", bad[i]);
		CHECK(fileset_parse_manifest(doc, &q) == -EINVAL && q.files == 0, "accepted: %s", doc);
	}
}

/*
 * Draws far beyond 64 bits (a mean of 1e19 bytes, as a manifest once said):
 * every size a whole multiple of round, none past the cap, which they reach.
 */
static void sizes_stay_in_range(void)
{
	struct fileset fs = { .p = params(10, 10) };
	struct rng r;
	uint64_t most = 0;

	fs.p.round = 4096;
	CHECK(gamma_init(&fs.gamma, 1, 1e19) == 0, "gamma");
	rng_seed(&r, 3, 1);
	for (int i = 0; i < 1000; i++) {
		uint64_t s = fileset_draw_size(&fs, &r);
		CHECK(s >= 4096 && s % 4096 == 0 && s <= FILESET_SIZE_MAX, "draw %d: %llu", i,
		      (unsigned long long)s);
		most = s > most ? s : most;
	}
	CHECK(most == FILESET_SIZE_MAX / 4096 * 4096, "the tail reaches the cap (largest %llu)",
	      (unsigned long long)most);
}

static void build_reuse_repair_replace(void)
{
	struct fileset fs;
	struct fileset_params p = params(200, 10);
	char err[512] = "", path[256];

	CHECK(fileset_open(&fs, scratch, &p, 1, err, sizeof(err)) == 0, "build: %s", err);
	CHECK(!fs.reused && fs.build_bytes > 0, "a new set is built");
	CHECK(fileset_count(&fs) == 160 && files_on_disk() == 160, "80%% of 200 present (%u on disk)",
	      files_on_disk());
	for (uint32_t i = 0; i < 200; i++)
		CHECK(atomic_load(&fs.size[i]) % 512 == 0, "entry %u: size is whole blocks", i);
	fileset_release(&fs);

	CHECK(fileset_open(&fs, scratch, &p, 2, err, sizeof(err)) == 0, "reopen: %s", err);
	CHECK(fs.reused && fs.build_bytes == 0, "same parameters: reused, nothing written");
	/* two files vanish (an interrupted run): the next open puts two back */
	uint32_t gone = 0;
	for (uint32_t i = 0; i < 200 && gone < 2; i++) {
		if (atomic_load(&fs.state[i]) & FILESET_PRESENT) {
			fileset_path(&fs, i, path, sizeof(path));
			char full[512];
			snprintf(full, sizeof(full), "%s/%s", scratch, path);
			gone += unlink(full) == 0;
		}
	}
	fileset_release(&fs);
	CHECK(fileset_open(&fs, scratch, &p, 3, err, sizeof(err)) == 0, "repair: %s", err);
	CHECK(fs.reused && files_on_disk() == 160, "repaired to 160 (%u)", files_on_disk());
	fileset_release(&fs);

	p = params(100, 1000);          /* other parameters: the old set goes */
	CHECK(fileset_open(&fs, scratch, &p, 4, err, sizeof(err)) == 0, "replace: %s", err);
	CHECK(!fs.reused && fs.depth == 0 && files_on_disk() == 80, "80 flat files (%u)", files_on_disk());
	DIR *d = opendir(scratch);
	unsigned dirs = 0;
	for (struct dirent *de; d && (de = readdir(d));)
		dirs += de->d_name[0] == 'd';
	closedir(d);
	CHECK(dirs == 0, "the old folders are gone (%u left)", dirs);
	fileset_release(&fs);
}

static void pick_and_put(void)
{
	struct fileset fs;
	struct fileset_params p = params(10, 10);
	struct rng r;
	uint32_t a, b;
	char err[512] = "";

	p.prealloc = 10;                /* one file present */
	rng_seed(&r, 5, 1);
	CHECK(fileset_open(&fs, scratch, &p, 5, err, sizeof(err)) == 0, "open: %s", err);
	CHECK(fileset_pick(&fs, &r, true, true, &a) == 0, "the present file is picked");
	CHECK(fileset_pick(&fs, &r, true, true, &b) == -EAGAIN, "while held, no other present file");
	CHECK(fileset_pick(&fs, &r, true, false, &b) == -EAGAIN, "nor for a reader");
	CHECK(fileset_pick(&fs, &r, false, true, &b) == 0 && b != a, "an absent entry is");
	fileset_put(&fs, b, true, 4096);        /* created */
	fileset_put(&fs, a, false, 0);          /* deleted */
	CHECK(fileset_count(&fs) == 1, "still one present");
	CHECK(fileset_pick(&fs, &r, true, false, &a) == 0 && a == b, "the new one");
	for (int i = 0; i < 1000; i++) {
		uint64_t s = fileset_draw_size(&fs, &r);
		CHECK(s >= 512 && s % 512 == 0, "draw %llu", (unsigned long long)s);
	}
	/* the count the set keeps is restored by settle */
	fileset_put(&fs, a, false, 0);
	CHECK(fileset_settle(&fs, &r, err, sizeof(err)) == 0 && fileset_count(&fs) == 1, "settled");
	fileset_release(&fs);
}

int main(void)
{
	mkdir("build", 0755);
	if (!mkdtemp(scratch)) {
		perror("mkdtemp");
		return 1;
	}
	RUN(tree_shape);
	RUN(manifest_round_trip);
	RUN(manifest_refuses_bad_values);
	RUN(sizes_stay_in_range);
	RUN(build_reuse_repair_replace);
	RUN(pick_and_put);
	nftw(scratch, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	return check_done();
}
