/*
 * nosql_int.h - what the nosql emulator's two files share (nosql.c: options,
 * journal, updates, queries, setup; nosql_stand.c: on-disk stands, saves and
 * merges). Private to them; the model is described at the top of nosql.c.
 *
 * Locking: a forest's lock guards its in-memory stand, the stand being saved
 * and the list of on-disk stands; the journal has its own lock. A stand is
 * immutable once listed except for its live count (under the forest lock);
 * readers hold a reference (refs) so a merge can delete it under them.
 */
#ifndef APPIO_NOSQL_INT_H
#define APPIO_NOSQL_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <time.h>

#include "appio/cond.h"
#include "appio/emulator.h"
#include "nosql_cache.h"
#include "nosql_journal.h"
#include "nosql_merge.h"

#define CHUNK      (1u << 20)   /* save and merge I/O size */
#define FRAME_HDR  64           /* journal framing per document */
#define INDEX_PCT  25           /* index bytes per 100 bytes of fragments */
#define MAX_DOC    (1u << 20)
#define PAGE       NOSQL_CACHE_PAGE

enum { MIX_INSERT, MIX_UPDATE, MIX_QUERY };
enum { CLS_JOURNAL_WRITE, CLS_JOURNAL_SYNC, CLS_SAVE_WRITE, CLS_MERGE_READ, CLS_MERGE_WRITE,
       CLS_STAND_SYNC, CLS_QUERY_READ, CLS_UPDATE, CLS_QUERY };
enum { CNT_COMMITS, CNT_FLUSHES, CNT_SAVES, CNT_MERGES, CNT_MERGE_IN, CNT_MERGE_OUT, CNT_HITS,
       CNT_MISSES, CNT_SAVE_WAITS, CNT_INSERTS, CNT_UPDATES, CNT_LAYOUT_MS };

struct nosql_opts {
	uint64_t forests;
	const char *mix;
	struct opt_split doc_size;
	uint64_t in_memory_limit, merge_ratio, merge_min_size, merge_max_size, merge_rate;
	uint64_t cache, data, query_docs, intervals;
};

/* An on-disk stand: one immutable file, freed when its last reader lets go. */
struct stand {
	uint32_t uid;
	int fd;
	uint64_t frags, live;           /* fragments written, still current */
	uint64_t data_bytes;            /* fragment bytes; the file adds the indexes */
	uint64_t data_area, file_bytes; /* both multiples of PAGE */
	atomic_uint refs;               /* the forest's list holds one */
};

struct forest {
	pthread_mutex_t lock;           /* everything below but the journal */
	pthread_cond_t cv;              /* a save is due or done, the stands changed */
	int dirfd;
	char dir[PATH_MAX];
	struct nosql_journal journal;
	int jfd;                        /* current journal file (its flush leader's) */
	uint32_t jseq;
	uint64_t mem_bytes, mem_frags, mem_live;        /* the in-memory stand */
	bool save_pending;                              /* a full one waits for the saver */
	uint64_t save_bytes, save_frags, save_live;
	struct stand *stands[NOSQL_MAX_STANDS];
	unsigned nstands;
	uint32_t next_uid;
};

struct nosql_run {
	struct forest *forests;
	unsigned nforests;
	unsigned mix[3];                /* percent insert, update, query */
	struct nosql_merge_policy policy;
	struct nosql_cache cache;
	bool direct;
	uint32_t lbs;
	uint64_t mean_doc;
	double layout_s;
	unsigned npoints;               /* points ended (nosql_point_end) */
};

static inline uint64_t nosql_round_up(uint64_t v, uint64_t unit)
{
	return (v + unit - 1) / unit * unit;
}

/* Wait on the forest's condition for at most @ms; the forest lock is held. */
static inline void nosql_forest_wait(struct forest *f, long ms)
{
	cond_wait_ns(&f->cv, &f->lock, (uint64_t)ms * 1000000ULL);
}

/*
 * A new stand of @data_bytes fragment bytes in @f's folder: the file is
 * created (O_DIRECT when the run is), sized but not written, one reference.
 * NULL with errno set on failure. Any thread.
 */
struct stand *nosql_stand_create(const struct nosql_run *nr, struct forest *f, uint32_t uid,
				 uint64_t data_bytes);

/* Drop a reference; the last one closes and frees the stand. */
void nosql_stand_put(struct stand *s);

/* Delete a stand's file and drop a reference (a stand being given up). */
void nosql_stand_discard(struct forest *f, struct stand *s);

/*
 * The saver's round for forest @f (background worker): wait a little for a
 * full in-memory stand, write it as a stand, list it, rotate the journal.
 * 0, or -errno after emu_fail(). A stop mid-save leaves it to the next point.
 */
int nosql_stand_save(struct emu_worker *w, struct forest *f);

/*
 * The merger's round for forest @f (background worker): if the merge policy
 * picks stands, merge them into one and delete them; else wait a little.
 * 0, or -errno after emu_fail(). A stop mid-merge discards the output.
 */
int nosql_stand_merge(struct emu_worker *w, struct forest *f);

/* The per-interval latency split of a point into the result's info (emu_ops.point_end). */
void nosql_point_end(struct emu_run *run, const struct point_result *p);

/* The same split after the table, per point (emu_ops.summary). */
void nosql_summary(const void *opts, const struct result *res, FILE *f);

#endif
