/*
 * dbm.h - the storage-engine model shared by the oltp and tpcc emulators:
 * the I/O an InnoDB (or PostgreSQL) server issues for a workload, without
 * the server. Page ids, not page contents. docs/oltp-tpcc.md describes the
 * model, its sources and its defaults; this header is the contract.
 *
 * Layout on the one target (file or block device), at fixed offsets:
 *
 *   [0, log_size)                 redo log / WAL: one header block (the
 *                                 checkpoint record), then a circular body
 *   [log_size, +dblwr)            InnoDB's doublewrite area, 128 pages
 *                                 (MariaDB: two blocks of 64 pages); none for
 *                                 postgres
 *   [data_off, +pages*page_size)  the tablespace: page p at data_off + p*page_size
 *
 * Shared state (buffer pool, log, flusher) lives in struct dbm inside the
 * emulator's run-wide private state. Three mutexes, always taken in the order
 * pool -> log (the cleaner's own mutex is never held with another). Every
 * wait is a timed wait that also ends when emu_stopping().
 *
 * Call order: dbm_config() (options -> page size...), dbm_alloc() for each
 * table (page ids), dbm_start() (checks the target, allocates the pool,
 * starts locks, sets run->bg_workers and run->max_io); dbm_release() in
 * teardown. Workers: dbm_stmt() per statement (CPU), dbm_page() per page
 * touched, dbm_undo() per row change, dbm_commit() / dbm_rollback() per
 * transaction. Background workers: dbm_bg_step().
 */
#ifndef APPIO_DBM_H
#define APPIO_DBM_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "appio/cond.h"
#include "appio/emulator.h"
#include "dbm_cpu.h"
#include "dbm_pool.h"
#include "dbm_sec.h"
#include "dbm_tree.h"
#include "dbm_undo.h"

enum dbm_model { DBM_INNODB, DBM_POSTGRES };

/* The engine options every emulator built on the model accepts. */
struct dbm_opts {
	int model;                      /* enum dbm_model */
	uint64_t buffer_pool;           /* bytes */
	uint64_t log_size;              /* bytes; 0: the model's default */
	uint64_t flush_log_at_commit;   /* 0, 1, 2 (innodb) */
	bool synchronous_commit;        /* postgres */
	bool autovacuum;                /* postgres */
	bool pool_memory;               /* hold the pool's bytes in memory (--direct 0) */
	bool doublewrite;               /* innodb */
	double cpu_per_stmt;            /* microseconds of CPU per statement */
	double cpu_per_read;            /* microseconds of CPU per page read; -1: the model's */
	double cpu_scale;               /* multiplies the statements' (and rows') CPU */
	int cpu_burn;                   /* enum dbm_burn */
	double cpu_per_backend;         /* percent more a statement per thread beyond the CPUs; -1: the model's */
	double client_rtt;              /* microseconds waited per statement */
	uint64_t io_capacity, io_capacity_max;  /* innodb page cleaner rates */
	uint64_t checkpoint_timeout;    /* postgres, seconds */
	const char *calibrate_from;     /* an 'appio db run' result: cpu_per_stmt and client_rtt
					   from it (NULL: none) */
};

extern const char *const dbm_model_names[];

/* Option rows for struct dbm_opts at offset @base of the emulator's options struct. */
#define DBM_OPT(b, f) ((b) + offsetof(struct dbm_opts, f))
#define DBM_OPTS(base) \
	{ "engine-model", OPT_ENUM, DBM_OPT(base, model), "innodb", \
	  "storage engine whose I/O is modelled: innodb (16 KiB pages) or postgres (8 KiB)", \
	  dbm_model_names }, \
	{ "buffer-pool", OPT_SIZE, DBM_OPT(base, buffer_pool), "128M", \
	  "buffer pool (innodb_buffer_pool_size / shared_buffers)", .min = 1 << 20, \
	  .flags = OPT_MEMORY }, \
	{ "log-size", OPT_SIZE, DBM_OPT(base, log_size), "0", \
	  "redo log / WAL region (0: innodb_log_file_size 96M, postgres max_wal_size 1G)", \
	  .max = 1ULL << 40 }, \
	{ "flush-log-at-commit", OPT_UINT, DBM_OPT(base, flush_log_at_commit), "1", \
	  "innodb_flush_log_at_trx_commit: 1 write+fsync per commit, 2 write only, 0 neither", \
	  .max = 2 }, \
	{ "synchronous-commit", OPT_BOOL, DBM_OPT(base, synchronous_commit), "on", \
	  "postgres synchronous_commit: on waits for the WAL fsync, off leaves it to the WAL writer" }, \
	{ "autovacuum", OPT_BOOL, DBM_OPT(base, autovacuum), "on", \
	  "postgres autovacuum, PostgreSQL 15's defaults: a worker visits the database every 60 s " \
	  "(first 40 s after the start), vacuums and analyzes the tables past their thresholds, " \
	  "cost-limited, through a 256 KiB ring; tables start vacuumed (oltp; tpcc: not yet)" }, \
	{ "pool-memory", OPT_BOOL, DBM_OPT(base, pool_memory), "on", \
	  "with --direct 0: hold --buffer-pool bytes of memory for the run, as the server's pool " \
	  "(postgres: its shared memory) takes them, so the page cache keeps what the server's " \
	  "would (off: the model's pool takes no memory and the page cache flatters the drive)" }, \
	{ "doublewrite", OPT_BOOL, DBM_OPT(base, doublewrite), "on", \
	  "innodb_doublewrite: page-cleaner batches go through the doublewrite area first" }, \
	{ "cpu-per-stmt", OPT_DOUBLE, DBM_OPT(base, cpu_per_stmt), "-1", \
	  "microseconds of real CPU per SQL statement, the server's own work " \
	  "(-1: calibrated default: oltp 48.5 innodb, 38.8 postgres, with its --cpu-per-row and " \
	  "--cpu-per-write; tpcc its own; 0: pure storage)" }, \
	{ "cpu-per-backend", OPT_DOUBLE, DBM_OPT(base, cpu_per_backend), "-1", \
	  "percent more CPU a statement takes for each thread (connection) beyond the CPUs: " \
	  "PostgreSQL serves each connection with a process, and more processes than CPUs " \
	  "take turns with cold caches (-1: the model's default, 3.4 postgres, 0 innodb, " \
	  "whose connections are threads of one process)" }, \
	{ "cpu-scale", OPT_DOUBLE, DBM_OPT(base, cpu_scale), "1", \
	  "multiply the statements' CPU (--cpu-per-stmt, --cpu-per-row, oltp's --cpu-per-write, " \
	  "given or default) " \
	  "by this: for a host whose CPU is slower (> 1) or faster (< 1) than the calibration's" }, \
	{ "cpu-burn", OPT_ENUM, DBM_OPT(base, cpu_burn), "work", \
	  "how the statements' CPU is burnt: work (a count of arithmetic steps, timed on this " \
	  "thread's CPU clock at the start: slowed, as the server's statements are, by whatever " \
	  "slows the CPU, such as a virtual machine's disk I/O) or time (on the CPU clock, which " \
	  "such losses do not slow)", dbm_burn_names }, \
	{ "cpu-per-read", OPT_DOUBLE, DBM_OPT(base, cpu_per_read), "-1", \
	  "microseconds of real CPU per page read into the pool, beyond the read itself, on the " \
	  "reading thread (-1: calibrated default: 108 innodb, 0 postgres)" }, \
	{ "client-rtt", OPT_DOUBLE, DBM_OPT(base, client_rtt), "50", \
	  "microseconds per statement waited, not computed, by a thread that slept in an I/O or a " \
	  "wait in the last 10 ms, while another CPU is idle or the threads are no more than the " \
	  "CPUs (two or more): the client's turn and the round trip, as idle CPUs wake up (0: none)" }, \
	{ "io-capacity", OPT_UINT, DBM_OPT(base, io_capacity), "200", \
	  "innodb_io_capacity: background flushing pages/s", .min = 100, .max = 100000000 }, \
	{ "io-capacity-max", OPT_UINT, DBM_OPT(base, io_capacity_max), "2000", \
	  "innodb_io_capacity_max: page-cleaner ceiling, pages/s", .min = 100, .max = 100000000 }, \
	{ "checkpoint-timeout", OPT_UINT, DBM_OPT(base, checkpoint_timeout), "300", \
	  "postgres checkpoint_timeout, seconds", .min = 1, .max = OPT_SECONDS_MAX }, \
	{ "calibrate-from", OPT_STR, DBM_OPT(base, calibrate_from), NULL, \
	  "an 'appio db run' result of a real server on this machine (a thread sweep up to 2 x " \
	  "the CPUs or more): --cpu-per-stmt and --client-rtt taken from it, overriding both" }

#define DBM_HIST_OPS (1u << 18)        /* history list capacity, purge records */
#define DBM_WQ_MAX 128                  /* pages in a page-cleaner batch (the doublewrite area) */

/* Statistics classes every model-based emulator starts with, in this order. */
enum dbm_class { DBM_CLS_TXN, DBM_CLS_PAGE_READ, DBM_CLS_PAGE_WRITE, DBM_CLS_LOG_WRITE,
		 DBM_CLS_DOUBLEWRITE, DBM_NCLS };
#define DBM_CLASS_NAMES "txn", "page_read", "page_write", "log_write", "doublewrite"

/* Counters every model-based emulator starts with, in this order (names below). */
enum dbm_counter {
	DBM_C_TXNS, DBM_C_STMTS, DBM_C_READ_REQ, DBM_C_READS, DBM_C_CREATED, DBM_C_DIRTIED,
	DBM_C_WRITTEN, DBM_C_DBLWR_PAGES, DBM_C_DBLWR_WRITES, DBM_C_SINGLE_FLUSH,
	DBM_C_LOG_BYTES, DBM_C_FPI_BYTES, DBM_C_LOG_WRITES, DBM_C_LOG_WRITE_BYTES,
	DBM_C_LOG_FSYNCS, DBM_C_LOG_FLUSHES, DBM_C_DATA_FSYNCS, DBM_C_CKPTS, DBM_C_STALLS,
	DBM_C_STALL_US, DBM_C_FREE_WAITS, DBM_C_SPLITS, DBM_C_MERGES, DBM_C_PURGED, DBM_C_CPU_US,
	DBM_C_CPU_OVER_US, DBM_C_LRU_WRITTEN, DBM_C_UNDO_READS, DBM_C_UNDO_WRITTEN,
	DBM_C_RSEG_WRITTEN, DBM_C_WRITE_FIX_WAITS, DBM_C_PURGE_CPU_US, DBM_C_NEIGHBORS,
	DBM_C_VAC_READS, DBM_C_VAC_WRITTEN, DBM_C_CPU_WAIT_US, DBM_NCOUNTERS
};
#define DBM_COUNTER_NAMES \
	"txns", "statements", "bp_read_requests", "bp_reads", "pages_created", "pages_dirtied", \
	"pages_written", "dblwr_pages", "dblwr_writes", "single_page_flushes", \
	"log_bytes", "fpi_bytes", "log_writes", "log_write_bytes", \
	"log_fsyncs", "log_flushes", "data_fsyncs", "checkpoints", "log_stalls", \
	"log_stall_us", "free_page_waits", "page_splits", "page_merges", "purge_records", \
	"cpu_model_us", "cpu_over_us", "pages_lru_flushed", "undo_pages_read", \
	"undo_pages_written", "rseg_pages_written", "write_fix_waits", "cpu_purge_us", \
	"pages_neighbor_flushed", "autovacuum_reads", "autovacuum_written", \
	"cpu_wait_us"

/* dbm_page() flags. */
enum dbm_page_flags {
	DBM_CREATE = 1 << 0,    /* a new page (append, undo): no read on a miss */
	DBM_NO_IMAGE = 1 << 1,  /* postgres: a change logged without a full-page image
				   (a visibility-map mark, with wal_log_hints off) */
	DBM_KEEP_OLD = 1 << 2,  /* a hit does not make the page young (dbm_space_headers()) */
	DBM_DIRTY = 1 << 3,     /* a change whose redo another change logged (@redo 0) */
};

/*
 * Work InnoDB's purge does after a transaction commits (its undo log read
 * back): reset DB_TRX_ID in a clustered-index record's page, or remove a
 * delete-marked secondary-index entry.
 */
enum dbm_purge_kind { DBM_PURGE_PAGE, DBM_PURGE_SEC, DBM_PURGE_FREE, DBM_PURGE_UNCACHE };
struct dbm_purge_op {
	struct dbm_sec *sec;    /* DBM_PURGE_SEC: the index */
	uint64_t arg;           /* the page (DBM_PURGE_FREE, _UNCACHE: an undo page), or the entry's rank */
	uint32_t redo;
	uint16_t kind;          /* enum dbm_purge_kind */
	uint16_t rseg;          /* DBM_PURGE_UNCACHE: the page's rollback segment ... */
	uint32_t t_ms;          /* when its transaction committed (ms, the model's clock) */
	uint32_t tag;           /* ... and its log's turn in it (dbm_undo_log.tag) */
};
#define DBM_MAX_WORKERS 1024    /* --threads' limit: the transactions dbm_horizon() sees */
#define DBM_TXN_PURGE 48        /* purge records kept per transaction; more are dropped */

/* What a worker's transaction has done so far (in its own private state). */
struct dbm_txn {
	bool wrote;             /* generated redo: its commit must be made durable */
	uint64_t undo_bytes;
	struct dbm_undo_log undo;       /* innodb: its undo log (purge reads back the last page) */
	unsigned npurge;
	struct dbm_purge_op purge[DBM_TXN_PURGE];
};

/*
 * PostgreSQL's writeback hints (bufmgr.c's WritebackContext): the pages a
 * writer wrote, until @after of them are pending; then the kernel is asked
 * to start writing them back (sync_file_range(SYNC_FILE_RANGE_WRITE)), in
 * runs of adjacent pages.
 */
#define DBM_WB_MAX 64
#define DBM_PG_CKPT_FLUSH_AFTER 32      /* checkpoint_flush_after 256 kB, 8 KiB pages */
#define DBM_PG_BGW_FLUSH_AFTER 64       /* bgwriter_flush_after 512 kB */
struct dbm_writeback {
	uint64_t page[DBM_WB_MAX];
	unsigned n, after;      /* pending; the flush_after setting, pages (0: off) */
};

/* The background flushers' own state: each field touched only by one thread. */
struct dbm_cleaner {
	uint64_t t_round;               /* when the current round began */
	uint64_t prev_lsn, lsn_avg_rate, avg_page_rate, sum_pages, last_pages;
	bool awake;                     /* innodb: woken (async point, LRU, 90% dirty), not yet idle */
	uint64_t t_prev;                /* innodb: last averaging; postgres: checkpoint start */
	unsigned n_iter;
	uint64_t ckpt_redo;             /* postgres: redo point of the running checkpoint */
	uint64_t ckpt_total, ckpt_done; /* postgres: pages to write in it, written */
	bool ckpt_running;
	uint64_t last_alloc;            /* postgres bgwriter: reads seen at its last round */
	double smoothed_alloc;          /* postgres bgwriter: its moving estimate of them a round */
	struct dbm_writeback ckpt_wb;   /* postgres checkpointer: checkpoint_flush_after */
	struct dbm_writeback bgw_wb;    /* postgres bgwriter: bgwriter_flush_after */
};

struct dbm {
	/* configuration: set by dbm_config/dbm_start, then read-only */
	enum dbm_model model;
	uint32_t page_size, log_block;
	unsigned commit_mode;           /* 0, 1, 2 as innodb_flush_log_at_trx_commit */
	bool doublewrite;
	bool autovacuum;                /* postgres: --autovacuum */
	bool flush_neighbors;           /* innodb_flush_neighbors = 1 on rotational storage */
	uint64_t cpu_ns, rtt_ns;
	uint64_t read_cpu_ns;           /* --cpu-per-read */
	double cpu_scale;               /* --cpu-scale, already applied to cpu_ns */
	enum dbm_burn burn;             /* --cpu-burn */
	double burn_rate;               /* its work's steps a ns, measured at the start */
	double backend_frac;            /* --cpu-per-backend / 100 */
	char calib[512];                /* how --calibrate-from set them ("" when it did not) */
	uint64_t io_capacity, io_capacity_max;
	int fd;
	const char *read_path;          /* PostgreSQL, buffered: what each worker opens to read
					   (dbm_worker_init()); NULL: reads use fd */
	uint64_t log_off, log_size, log_body;   /* header block at log_off, body after it */
	bool buffered;                  /* the target is read and written through the page cache */
	int log_fd;                     /* the log's reads and writes: fd, or (log_own_fd) a
					   descriptor of its own through the page cache */
	bool log_own_fd;
	void *log_map;                  /* a log through the page cache: its region mapped, for
					   msync() (dbm_start()); NULL: made durable with fdatasync() */
	uint64_t dblwr_off, dblwr_pages, data_off;
	uint64_t pages;                 /* tablespace pages allocated */
	uint32_t frames, scan_depth, user_scan, batch;
	uint64_t log_capacity, af_lwm, async_age, max_age;      /* innodb */
	uint64_t ckpt_wal, ckpt_timeout_ns;                     /* postgres */
	struct dbm_undo undo;           /* innodb: the undo pages (dbm_undo.h) */
	uint64_t rseg_first;            /* innodb: the rollback segments' header pages */
	uint32_t purge_lag_ms;          /* innodb: purge's mean lag behind the commits */
	uint64_t purge_ns;              /* innodb: purge's CPU a record (0: none burnt) */

	void *pool_mem;                 /* --pool-memory: the pool's bytes, touched (NULL: none) */
	size_t pool_mem_len;
	bool pool_memory;
	pthread_mutex_t pool_mx;
	pthread_cond_t pool_cv;         /* a read or write finished, a frame was freed */
	struct dbm_pool pool;
	uint64_t reads_total;           /* misses, for the bgwriter's pacing */

	pthread_mutex_t log_mx;
	pthread_cond_t log_cv;          /* the log moved: written, flushed, checkpointed */
	_Atomic uint64_t lsn;           /* advanced under pool_mx when pages are dirtied */
	uint64_t written_lsn, flushed_lsn;
	bool log_busy;                  /* a leader is writing */
	_Atomic uint64_t ckpt_lsn;
	uint64_t *space_first;          /* first page of each tablespace (file), ascending */
	bool *space_hdr;                /* its first DBM_SPACE_HDR pages are its header pages */
	uint32_t nspaces, space_cap;
	atomic_bool *space_unsynced;    /* [space]: pages written since its last fsync */
	_Atomic uint32_t epoch;         /* postgres: checkpoints begun (full-page images) */
	struct dbm_cpus cpuq;           /* the CPUs this process may run on, as a run queue */
	_Atomic uint32_t off_cpu;       /* foreground workers in an I/O, a wait or a round trip */
	uint32_t *page_epoch;           /* postgres: epoch of each page's last full-page image */
	uint8_t *page_hint;             /* postgres: 1 while a page's last change awaits its hint bits */
	/* postgres: when each worker's running transaction began (0: none),
	   and the running ANALYZE's snapshot: what dbm_horizon() reads */
	_Atomic uint64_t txn_began[DBM_MAX_WORKERS];
	_Atomic unsigned txn_workers;   /* 1 + the highest worker id that began one */
	_Atomic uint64_t analyze_began;

	pthread_mutex_t hist_mx;        /* the history list: committed work for purge */
	struct dbm_purge_op *hist;
	uint64_t hist_head, hist_tail;  /* ops [tail, head) wait, mod DBM_HIST_OPS */
	uint64_t purge_upto;            /* the batch being purged ends there */

	pthread_mutex_t cl_mx;
	pthread_cond_t cl_cv;           /* wakes the page cleaner / checkpointer */
	bool cl_kick;
	struct dbm_cleaner cl;

	/* innodb: the page cleaner's batch, written by the I/O workers and the
	   cleaner together (asynchronous page writes, innodb_write_io_threads) */
	pthread_mutex_t wq_mx;
	pthread_cond_t wq_cv;           /* a batch was posted, a page write finished */
	uint64_t wq_page[DBM_WQ_MAX];
	unsigned wq_n, wq_next, wq_done;
	int wq_rc;
	struct dbm_vac *vac;            /* postgres autovacuum (dbm_vacuum.h); NULL: none */
	bool started;
};

/* Fill @db's configuration from @o. 0, or -EINVAL with a message naming the option. */
int dbm_config(struct dbm *db, const struct dbm_opts *o, char *err, size_t errlen);

/* Reserve @npages tablespace pages; returns the first page id. Before dbm_start(). */
uint64_t dbm_alloc(struct dbm *db, uint64_t npages);

/*
 * The pages allocated from now on belong to a new tablespace: a file of its
 * own on the server (an InnoDB .ibd file, a PostgreSQL relation). A
 * checkpoint fsyncs each tablespace written since its last fsync, one
 * fdatasync each, as MariaDB's fil_flush_file_spaces() and PostgreSQL's
 * checkpointer do per file: the drive sees that many flush commands. An
 * emulator that never calls it has one tablespace (plus InnoDB's system
 * tablespace, which dbm_start() opens for the undo log). Before dbm_start().
 */
void dbm_space(struct dbm *db);

/*
 * InnoDB, right after dbm_space(): the new tablespace's header pages, its
 * first DBM_SPACE_HDR (page 0, the space header with the extent descriptors
 * of its first 16,384 pages; 1, the change buffer's bitmap; 2, the segment
 * inodes). Allocating a page or freeing one changes all three (extent
 * descriptor, bitmap bits, the segment's page counts); nothing else does.
 * Their accesses never make them young: measured on MariaDB 10.11.19
 * (INNODB_BUFFER_PAGE, m-big's sequence) they sat in the old sublist,
 * dirty, through every phase, and were written once every LRU round with
 * none read again (docs/fidelity-history.md, change 46). A no-op for PostgreSQL.
 */
#define DBM_SPACE_HDR 3
void dbm_space_headers(struct dbm *db);

/*
 * Check that the target holds the layout (else -EINVAL naming --size and
 * @what, the option that sizes the tables), allocate the pool, start the
 * locks, set run->bg_workers, run->max_io, run->writes. The pool starts cold
 * and stays warm from one sweep point to the next, as a server's does.
 */
int dbm_start(struct dbm *db, struct emu_run *run, const char *what, char *err, size_t errlen);

/*
 * Say in the result (emu_info, "PREFIX.cpu_per_stmt_us" ...) which CPU and
 * client costs the run modelled and whether they are the calibrated
 * defaults or the user's: a TPS figure is only as good as them. Main thread,
 * after dbm_config().
 */
void dbm_info(const struct dbm *db, const struct dbm_opts *o, struct emu_run *run, const char *prefix);

/*
 * --warmup-txns over --warmup-points (oltp, tpcc): the transactions that end
 * warm-up point @idx, shared evenly and at least one each; 0 for a point
 * after the warm-up or without a count (--time ends it). An emulator's
 * point_events().
 */
uint64_t dbm_warmup_events(uint64_t txns, uint64_t points, unsigned idx);

/*
 * --warmup-points must leave a point of the run's @npoints to measure, and
 * --warmup-txns needs warm-up points to bound: 0, or -EINVAL with one line
 * in @err.
 */
int dbm_warmup_check(uint64_t txns, uint64_t points, unsigned npoints, char *err, size_t errlen);

#define DBM_WARMUP_TXNS_HELP                                                                   \
	"the --warmup-points end after N transactions in all (shared evenly among them) "      \
	"instead of --time: a warm-up of the same work as a server's, whatever the model's "  \
	"rate (0: --time)"

/* Free the pool and destroy the locks. Safe after a failed or missing start. */
void dbm_release(struct dbm *db);

/*
 * A CPU-cost option's value @us (microseconds; -1 the model's default):
 * 0, or -EINVAL with one line in @err naming @opt ("--cpu-per-row").
 */
int dbm_check_cpu_us(const char *opt, double us, char *err, size_t errlen);

/* Microseconds given (checked, >= 0) as nanoseconds, rounded: 57.3 us is 57,300 ns. */
static inline uint64_t dbm_us_to_ns(double us)
{
	return (uint64_t)(us * 1000 + 0.5);
}

/* Queue for one of the model's CPUs (db->cpuq); the wait counts in cpu_wait_us. */
void dbm_cpu_take(struct emu_worker *w, struct dbm *db);

/* @ns of CPU on the calling thread's CPU clock (a statement's extra work). */
void dbm_cpu(struct emu_worker *w, struct dbm *db, uint64_t ns);

/* One SQL statement's CPU work (--cpu-per-stmt, and @extra_ns for the rows
   it examines or changes, in the same turn on a CPU), counted. */
void dbm_stmt_cpu(struct emu_worker *w, struct dbm *db, uint64_t extra_ns);

/*
 * PostgreSQL: the oldest snapshot still held (ns, the emulator's clock): the
 * start of the oldest transaction running, or of a running ANALYZE's.
 * Tuples that died before it are dead to every snapshot, and only those can
 * be pruned. UINT64_MAX when nothing runs.
 */
uint64_t dbm_horizon(struct dbm *db);

static inline void dbm_stmt(struct emu_worker *w, struct dbm *db)
{
	dbm_stmt_cpu(w, db, 0);
}

/*
 * A foreground worker leaves its CPU (@d 1: an I/O, a wait, its round trip)
 * or comes back (-1): dbm_stmt_cpu() counts the CPUs the others left idle.
 */
static inline void dbm_off_cpu(struct emu_worker *w, struct dbm *db, int d)
{
	if (!w->background)
		atomic_fetch_add(&db->off_cpu, (uint32_t)d);
}

/*
 * Does a CPU stand idle beside the caller's: fewer of the @threads
 * foreground workers on a CPU (not in an I/O, a wait or a round trip; the
 * caller is) than there are CPUs?
 */
static inline bool dbm_cpu_left_idle(struct dbm *db, unsigned threads)
{
	uint32_t off = atomic_load(&db->off_cpu);
	return (threads > off ? threads - off : 1) < db->cpuq.n;
}

/*
 * Around an I/O or a wait of a foreground worker: off the CPU meanwhile
 * (dbm_off_cpu()). dbm_block_end() returns whether the thread slept in it
 * (a voluntary context switch: a device's read or flush, a wait, not a
 * page-cache hit; never for a background thread or without a round trip),
 * which puts the thread's round trips in the regime of one that blocks for
 * a while (dbm_stmt_cpu()); dbm_blocks() says whether the caller is in it.
 */
void dbm_block_begin(struct emu_worker *w, struct dbm *db);
bool dbm_block_end(struct emu_worker *w, struct dbm *db);
bool dbm_blocks(void);

/* emu_io() and cond_wait_ns() for the model's threads: off the CPU meanwhile. */
static inline int64_t dbm_io_fd(struct emu_worker *w, struct dbm *db, int fd, unsigned cls,
				unsigned op, void *buf, uint32_t len, uint64_t off)
{
	dbm_block_begin(w, db);
	int64_t r = emu_io(w, cls, op, fd, buf, len, off);
	dbm_block_end(w, db);
	return r;
}

static inline int64_t dbm_io(struct emu_worker *w, struct dbm *db, unsigned cls, unsigned op,
			     void *buf, uint32_t len, uint64_t off)
{
	return dbm_io_fd(w, db, db->fd, cls, op, buf, len, off);
}

static inline void dbm_wait(struct emu_worker *w, struct dbm *db, pthread_cond_t *cv,
			    pthread_mutex_t *mx, uint64_t ns)
{
	dbm_block_begin(w, db);
	cond_wait_ns(cv, mx, ns);
	dbm_block_end(w, db);
}

/*
 * Touch page @page (a buffer-pool request): a miss reads it synchronously
 * (unless DBM_CREATE), after finding a free frame (possibly flushing one).
 * @redo > 0 modifies it: @redo bytes of redo are generated (after waiting
 * for log space), and the page becomes dirty. Returns 0, 1 when the run is
 * stopping (the caller abandons the transaction), or -errno.
 */
int dbm_page(struct emu_worker *w, struct dbm *db, uint64_t page, unsigned flags, uint32_t redo);

/* Touch every page of @tree's root-to-leaf path for @row; the leaf gets @redo. */
int dbm_path(struct emu_worker *w, struct dbm *db, const struct dbm_tree *t, uint64_t row,
	     unsigned flags, uint32_t redo);

/*
 * InnoDB: an undo record of @rec bytes for a row change of @t, on its undo
 * log's page (dbm_undo.h), modified with @redo bytes of redo. No-op for
 * postgres.
 */
int dbm_undo(struct emu_worker *w, struct dbm *db, struct dbm_txn *t, uint32_t rec, uint32_t redo);

/*
 * InnoDB: after @t commits, purge will modify @page with @redo bytes of redo
 * (DB_TRX_ID reset), or remove the delete-marked entry at @rank of @sec.
 * No-op for postgres.
 */
void dbm_purge_page(struct dbm *db, struct dbm_txn *t, uint64_t page, uint32_t redo);
void dbm_purge_sec(struct dbm *db, struct dbm_txn *t, struct dbm_sec *sec, uint64_t rank,
		   uint32_t redo);

/*
 * A change of @sec at position @rank: @delta 1 inserts an entry, -1 removes
 * one, 0 changes one in place (a delete mark). Touches the path and the
 * leaf (@redo bytes), and for a split or a merge the other leaf and the
 * parent, logging the entries moved; a merged-away leaf is freed.
 */
int dbm_sec_op(struct emu_worker *w, struct dbm *db, struct dbm_sec *sec, uint64_t rank,
	       int delta, uint32_t redo);

/*
 * Commit @t: a transaction that wrote appends its commit record and waits as
 * the commit mode says (group commit). A read-only one costs nothing.
 * @release(@arg), if given, is called once, where the engine releases the
 * transaction's row locks: InnoDB once the transaction is committed in
 * memory, before it waits for the log (trx_commit_in_memory() releases them,
 * trx_commit_complete_for_mysql() flushes the log after), PostgreSQL once
 * the commit record is flushed (RecordTransactionCommit() before
 * ProcArrayEndTransaction()); on an error, before returning.
 * Counts the transaction. Returns 0, 1 when stopping, or -errno.
 */
int dbm_commit(struct emu_worker *w, struct dbm *db, struct dbm_txn *t, void (*release)(void *),
	       void *arg);

/* Roll @t back: redo for undoing its changes, no wait for the log. */
int dbm_rollback(struct emu_worker *w, struct dbm *db, struct dbm_txn *t);

/* A background worker's round (innodb: page cleaner, log timer, purge;
   postgres: checkpointer, background writer, WAL writer, autovacuum). */
int dbm_bg_step(struct emu_worker *w, struct dbm *db);

/*
 * Internal to the model (dbm_log.c, dbm_flush.c), shared between its files.
 */
/* With pool_mx held: log a change of @page, @redo bytes and, when @image and
   it is the page's first change since the checkpoint's redo point
   (postgres), a full-page image. Returns the change's end LSN. */
uint64_t dbm_log_change(struct emu_worker *w, struct dbm *db, uint64_t page, uint32_t redo, bool image);
/* Advance the LSN by @bytes; caller holds pool_mx. Returns the new end LSN. */
uint64_t dbm_log_advance(struct emu_worker *w, struct dbm *db, uint64_t bytes);
/* Wait while the log has no space (checkpoint age over max): a stall. 0 or 1 (stopping). */
int dbm_log_space(struct emu_worker *w, struct dbm *db);
/* Make the log written (@durable: and fsynced) up to @lsn; group commit. 0, 1, -errno. */
int dbm_log_up_to(struct emu_worker *w, struct dbm *db, uint64_t lsn, bool durable);
/* Write the checkpoint header block and fsync it; the checkpoint LSN becomes @lsn. */
int dbm_log_checkpoint(struct emu_worker *w, struct dbm *db, uint64_t lsn);
/* Write frames @fi[0..n) (picked, on the writing list): WAL rule, doublewrite, in
   place; @lru: an LRU flush (counted apart; its frames stay, clean, for a
   later batch to free, as MariaDB's do); @wb: the writer's writeback hints
   (NULL: none). */
int dbm_flush_write(struct emu_worker *w, struct dbm *db, const uint32_t *fi, unsigned n,
		    bool dblwr, bool lru, struct dbm_writeback *wb);
/* Write @page in place (one request; the caller counts it). 0 or -errno. */
int dbm_page_write(struct emu_worker *w, struct dbm *db, uint64_t page);
/* An I/O worker's round: write pages of the posted batch, or wait a little (innodb). */
int dbm_flush_io_worker(struct emu_worker *w, struct dbm *db);
/* Wake the background flusher now. */
void dbm_flush_kick(struct dbm *db);
/* Round of the innodb page cleaner / the postgres checkpointer and bgwriter. */
int dbm_flush_cleaner(struct emu_worker *w, struct dbm *db);
int dbm_flush_checkpointer(struct emu_worker *w, struct dbm *db);
int dbm_flush_bgwriter(struct emu_worker *w, struct dbm *db);
/*
 * From the emulator's worker_init() and worker_fini(), on the worker's own
 * thread: with db->read_path, the worker's own read descriptors, one per
 * tablespace (a relation's file), as each PostgreSQL backend opens the
 * files it reads. 0 or -errno.
 */
int dbm_worker_init(struct dbm *db);
void dbm_worker_fini(struct dbm *db);
/* The tablespace @page belongs to. */
uint32_t dbm_space_of(const struct dbm *db, uint64_t page);
/* InnoDB: whether @page is an undo page, a rollback-segment header page. */
bool dbm_undo_page(const struct dbm *db, uint64_t page);
bool dbm_rseg_page(const struct dbm *db, uint64_t page);

#endif
