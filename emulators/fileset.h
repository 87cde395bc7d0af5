/*
 * fileset.h - the set of files a file-system personality works on.
 *
 * A fileset is @files numbered entries under one root folder, each either
 * present (a file exists) or absent (a free name a personality may create).
 * Entries live in a directory tree of width @width: leaf folders hold up to
 * @width files, folders above them up to @width subfolders, so a fileset of
 * 10,000 files at width 20 is three folder levels deep (root/d1/d7/d13/f2713),
 * the shape filebench gives its filesets; a width at least @files is one flat
 * folder (the mail server's). Sizes are gamma-distributed (gamma.h) with the
 * given mean and shape, rounded to a multiple of @round bytes (the target's
 * logical block size) so that whole-file writes can bypass the page cache
 * with O_DIRECT; appends later make sizes any number of bytes.
 *
 * Building: fileset_open() makes @prealloc percent of the entries present
 * (a random choice of which) with random data, syncs the file system, and
 * writes a small manifest ('.appio-fileset') with the parameters. A later
 * fileset_open() with the same parameters reuses the files: it scans the
 * entries (one fstatat each) and creates or deletes files until the present
 * count is again the configured one. Different parameters remove the old
 * set (only the names its manifest describes) and build anew.
 *
 * Concurrency: after fileset_open() (main thread), workers pick and release
 * entries with fileset_pick()/fileset_put(): lock-free, one compare-and-swap
 * on the entry's state, so two workers never hold the same entry and a
 * holder may create, delete or resize it. Read-only personalities may pick
 * present entries without holding them. fileset_settle() and
 * fileset_release() run on the main thread with no worker running.
 */
#ifndef APPIO_FILESET_H
#define APPIO_FILESET_H

#include <limits.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "appio/rand.h"
#include "gamma.h"

#define FILESET_MANIFEST ".appio-fileset"
#define FILESET_FILES_MAX 100000000     /* entries of one set (the personalities' --files) */
#define FILESET_MEAN_MAX  (UINT64_C(1) << 40)   /* mean file size: 1 TiB (--mean-size) */
#define FILESET_SIZE_MAX  (UINT64_C(1) << 50)   /* gamma's tail is cut here: 1 PiB */

enum fileset_state {
	FILESET_PRESENT = 1 << 0,       /* the file exists */
	FILESET_HELD    = 1 << 1,       /* a worker holds the entry */
};

/* What defines a fileset; a manifest records it. */
struct fileset_params {
	char kind[32];          /* who made it ("fileserver-fs"): a different kind never reuses it */
	uint32_t files;         /* entries, >= 1 */
	uint32_t width;         /* folder width, >= 2 */
	uint64_t mean;          /* mean file size in bytes, >= 1 */
	double shape;           /* gamma shape, > 0 */
	unsigned prealloc;      /* percent of entries present, 0..100 */
	uint32_t round;         /* sizes are multiples of this, >= 1 */
	/* Not part of the set's identity (never in the manifest): nonzero (Ctrl-C)
	   makes fileset_open() give up within a file and return -EINTR. May be NULL. */
	volatile sig_atomic_t *stop;
};

struct fileset {
	struct fileset_params p;
	char root[PATH_MAX];
	int rootfd;             /* O_PATH|O_DIRECTORY descriptor of @root, -1 when closed */
	unsigned depth;         /* folder levels above the files (0: flat) */
	uint32_t want;          /* present entries the set keeps: files * prealloc / 100 */
	struct gamma gamma;
	_Atomic uint8_t *state; /* files entries, enum fileset_state bits */
	_Atomic uint64_t *size; /* files entries: bytes of a present file (kept by its holder) */
	/* how it was opened, for the result */
	bool reused;            /* an existing set matched the parameters */
	double build_s;         /* seconds spent building or repairing it */
	uint64_t build_bytes;   /* bytes written to build or repair it */
};

/* Folder levels above the files for @files entries of width @width (pure). */
unsigned fileset_depth(uint32_t files, uint32_t width);

/*
 * Write entry @i's path relative to the root ("d0/d3/f71", or "f71" when
 * flat) into @buf of @len bytes. Returns its length, or -ENAMETOOLONG.
 * Allocation-free; callable from any thread.
 */
int fileset_path(const struct fileset *fs, uint32_t i, char *buf, size_t len);

/*
 * A new file's size: a gamma draw rounded to the nearest multiple of round,
 * at least one and at most FILESET_SIZE_MAX (so no size overflows).
 */
uint64_t fileset_draw_size(const struct fileset *fs, struct rng *r);

/*
 * Open the fileset of @p in folder @root (which must exist): reuse a matching
 * one, else remove a mismatching one and build. Leaves exactly @want entries
 * present and the manifest written. Returns 0 or -errno with one line in
 * @err (-EINVAL for parameters out of range or a folder that cannot be
 * written). On failure @fs holds nothing (fileset_release() is still safe).
 */
int fileset_open(struct fileset *fs, const char *root, const struct fileset_params *p,
		 uint64_t seed, char *err, size_t errlen);

/*
 * Restore the present count to @want (create or delete random entries) and
 * rewrite the manifest: after a run, whose interrupted loops may have left
 * one file too many or too few. Returns 0 or -errno with a message.
 */
int fileset_settle(struct fileset *fs, struct rng *r, char *err, size_t errlen);

/* Present entries now (a scan of the states). */
uint32_t fileset_count(const struct fileset *fs);

/*
 * Pick a random entry that is present (@present) or absent and not held.
 * With @hold, take it (the caller must fileset_put() it); without, only
 * report it (read-only sets). Returns 0 with *@idx set, or -EAGAIN when
 * every such entry is held right now (the caller waits and retries).
 */
int fileset_pick(struct fileset *fs, struct rng *r, bool present, bool hold, uint32_t *idx);

/* Give back held entry @idx, now present (with @size bytes) or absent. */
void fileset_put(struct fileset *fs, uint32_t idx, bool present, uint64_t size);

/* Close the root and free the arrays. Safe on a zeroed or failed set; the files stay. */
void fileset_release(struct fileset *fs);

/* Parameters equal for reuse (exported for tests). */
bool fileset_params_match(const struct fileset_params *a, const struct fileset_params *b);

/*
 * Write @p as a manifest's text into @buf of @len bytes (snprintf()'s
 * return). Pure; exported for tests.
 */
int fileset_format_manifest(const struct fileset_params *p, char *buf, size_t len);

/*
 * Parse a manifest's text into @p: 0, or -EINVAL (and @p zeroed) unless it
 * is exactly what fileset_format_manifest() writes, with every value in the
 * range fileset_open() accepts. The manifest sits in the user's folder, so
 * it is read as untrusted text. Exported for tests.
 */
int fileset_parse_manifest(const char *text, struct fileset_params *p);

#endif
