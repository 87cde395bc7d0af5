/*
 * dbm.c - the storage-engine model's front: configuration and layout, the
 * buffer-pool requests workers make (dbm_page), undo, commit, and the
 * background workers' dispatch. See dbm.h for the contract and
 * docs/oltp-tpcc.md for the model and the source of every default.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <time.h>

#include "appio/ckd.h"
#include "appio/xalloc.h"
#include "dbm.h"
#include "dbm_calib.h"
#include "dbm_vacuum.h"

const char *const dbm_model_names[] = { "innodb", "postgres", NULL };

#define MIB (1ULL << 20)
#define DBLWR_PAGES 128         /* MariaDB buf_dblwr: 2 blocks of 64 pages */
#define BATCH 64                /* postgres: pages its checkpointer and background writer pick at a time */
#define UNDO_PAGES 1024         /* the undo area: 16 MiB of 16 KiB pages */
/* The undo extents a load leaves used and free: after 'appio db prepare',
   MariaDB 10.11's undo pages had been in 3 extents (4 x 100,000 rows), 9 (4 x
   250,000), 8 (8 x 250,000) and 7 (2 x 1,000,000) of its system tablespace.
   New undo pages sweep through them (dbm_undo.h), which sets how long a
   freed undo page waits in the pool. */
#define UNDO_LOAD_EXTENTS 8
#define LRU_SCAN_DEPTH 1536     /* innodb_lru_scan_depth, MariaDB 10.5+ default */
#define LRU_USER_SCAN 100       /* InnoDB: a user thread looks this far from the LRU tail for a clean page */
#define COMMIT_REDO 40          /* innodb: undo-log header state + trx commit; pg: commit record */
#define WAIT_NS 10000000ULL     /* longest single wait before looking at the stop flag */
#define BLOCKED_NS 10000000ULL  /* a thread that slept in an I/O or a wait is one that blocks this long (dbm_stmt_cpu()) */
#define PG_WAL_SEG (16 * MIB)    /* PostgreSQL wal_segment_size default */
/*
 * Redo of a split or merge of a secondary-index leaf, calibrated to MariaDB
 * 10.11 (dbm_sec.h): about 5.3 KB per split, merge and page reorganisation,
 * 0.66 reorganisations per merge: the entries moved at 8 bytes each, plus a
 * merge's share of the reorganisations.
 */
#define SEC_MOVE_REDO 8
#define SEC_SMO_REDO 100        /* page allocation or free, record list ends */
#define SEC_REORG_REDO 3500
#define PARENT_REDO 60          /* node pointer inserted or deleted */
#define PURGE_BATCH 64          /* purge records taken from the history at a time */
#define PURGE_UNDO_REDO 20      /* purge's change to the undo log it has read */
/* InnoDB undo logs (dbm_undo.h): redo of an undo log's header written on
   its page (trx_undo_header_create()), and of an undo segment created or
   freed (its file segment in the tablespace's inode and header pages, the
   rollback segment's slot), logged against the rollback segment */
#define UNDO_HDR_REDO 50
#define UNDO_SEG_REDO 120
/*
 * InnoDB's purge runs behind the commits: MariaDB's history list held 74-381
 * transactions at the end of the calibrate points (Innodb_history_list_length,
 * 0.14-0.40 s of their commits, 0.3 s on average): a purge batch takes the
 * history as it is, and what commits meanwhile waits for the next one. So a
 * batch begins when the oldest record waiting is twice that old, and takes
 * them all: the lag runs from 0 to 0.6 s, 0.3 s on average. A
 * purge that follows within milliseconds finds the rows' pages still in the
 * pool; 0.3 s later, in a small pool, it reads them again and dirties them
 * again (a 32M pool: MariaDB read 8 and wrote 7 pages a transaction).
 * The redo log's fill does not slow it: MariaDB 10.11.19 purged 2.9-3.0
 * records a transaction with the checkpoint age at 89-95% of its maximum
 * (m-threads, m-wo 16), and fell behind with it at 6% (m-wo-small 16).
 */
#define PURGE_LAG_MS 300
#define PURGE_THREADS 4         /* innodb_purge_threads: purge's reads of evicted pages overlap */
/*
 * innodb_write_io_threads: MariaDB submits a page-cleaner batch's page
 * writes asynchronously, many in flight; I/O workers and the cleaner write
 * the model's batch together. Written one after another, a batch took so
 * long that the cleaner could not keep 1,536 frames free in a 32M pool at
 * 16 threads (MariaDB kept 1,350-1,520 free).
 */
#define WRITE_THREADS 4

int dbm_check_cpu_us(const char *opt, double us, char *err, size_t errlen)
{
	if (us == -1 || (us >= 0 && us <= 1e6))
		return 0;
	snprintf(err, errlen, "%s: %g is out of range (0 to 1000000 microseconds, or -1 for the "
		 "default)", opt, us);
	return -EINVAL;
}

int dbm_config(struct dbm *db, const struct dbm_opts *o, char *err, size_t errlen)
{
	bool innodb = o->model == DBM_INNODB;

	db->model = (enum dbm_model)o->model;
	db->page_size = innodb ? 16384 : 8192;  /* innodb_page_size; PostgreSQL BLCKSZ */
	db->commit_mode = innodb ? (unsigned)o->flush_log_at_commit : o->synchronous_commit ? 1 : 0;
	db->doublewrite = innodb && o->doublewrite;
	db->autovacuum = !innodb && o->autovacuum;
	db->pool_memory = o->pool_memory;
	db->io_capacity = o->io_capacity;
	db->io_capacity_max = o->io_capacity_max;
	/* MariaDB 10.11 innodb_log_file_size 96M; PostgreSQL 15 max_wal_size 1GB */
	db->log_size = o->log_size ? o->log_size : innodb ? 96 * MIB : 1024 * MIB;
	if (ckd_mul_u64(o->checkpoint_timeout, 1000000000ULL, &db->ckpt_timeout_ns)) {
		snprintf(err, errlen, "--checkpoint-timeout: %llu seconds is out of range",
			 (unsigned long long)o->checkpoint_timeout);
		return -EINVAL;
	}
	if (dbm_check_cpu_us("--cpu-per-stmt", o->cpu_per_stmt, err, errlen))
		return -EINVAL;
	/* -1: the emulator's own default, which it sets after this (oltp_cpu, tpcc_cpu) */
	db->cpu_ns = o->cpu_per_stmt < 0 ? 0 : dbm_us_to_ns(o->cpu_per_stmt);
	if (dbm_check_cpu_us("--cpu-per-read", o->cpu_per_read, err, errlen))
		return -EINVAL;
	/*
	 * MariaDB's machine CPU a transaction grows with the pages it reads
	 * into the pool, beyond what the same reads cost the emulator: 2 CPUs
	 * over its TPS at 16 threads is 1,714 us with the data in the pool
	 * (m-fit) and 2,267 us with 3.2 reads a transaction (m-big), where the
	 * emulator's 3.7 reads added 303 us; 108 us more per read brings m-big
	 * to the server's TPS (a regression over all read_write lines puts
	 * 140-160 us on a read and nothing on a write); on 3 December at 2
	 * threads, m-fit 1,406 and m-big 1,731 with 3.2 reads, 102 a read.
	 * PostgreSQL's grows with larger data too (p-fit 1,644 us, p-big 2,122
	 * at 2 threads: 219 us for each of its 2.2 more reads), but not by its
	 * reads: as a cost a read, those 219 us slowed the held-out lines that
	 * read little to 0.57-0.75x the server's TPS (p-ps, p-ro; change 32).
	 */
	db->read_cpu_ns = o->cpu_per_read < 0 ? (innodb ? 108000 : 0) : dbm_us_to_ns(o->cpu_per_read);
	if (!(o->client_rtt >= 0 && o->client_rtt <= 1e6)) {
		snprintf(err, errlen, "--client-rtt: %g is out of range (0 to 1000000 microseconds)",
			 o->client_rtt);
		return -EINVAL;
	}
	db->rtt_ns = dbm_us_to_ns(o->client_rtt);
	if (o->calibrate_from) {
		struct dbm_calib c;
		int rc = dbm_calib_load(o->calibrate_from, &c, err, errlen);
		if (rc)
			return rc;
		db->cpu_ns = dbm_us_to_ns(c.cpu_per_stmt_us);
		db->rtt_ns = dbm_us_to_ns(c.client_rtt_us);
		snprintf(db->calib, sizeof(db->calib), "calibrated from '%s': the machine's %.1f us of CPU "
			 "a statement at %u threads on %u CPUs, less %.0f us the emulator spends outside its "
			 "statements; --client-rtt from the reads of the %u-thread point", o->calibrate_from,
			 c.machine_us, c.bound_threads, c.cpus, DBM_CALIB_EMU_CPU_US, c.latency_threads);
	}
	if (!(o->cpu_scale > 0 && o->cpu_scale <= 100)) {
		snprintf(err, errlen, "--cpu-scale: %g is out of range (above 0, up to 100)", o->cpu_scale);
		return -EINVAL;
	}
	if (o->cpu_scale != 1 && o->calibrate_from) {
		snprintf(err, errlen, "--cpu-scale: not with --calibrate-from, whose costs are this "
			 "machine's already");
		return -EINVAL;
	}
	/*
	 * PostgreSQL's machine CPU a statement grows with its backends beyond
	 * the CPUs; MariaDB's does not. Same afternoon, data in the pool, 2 to
	 * 16 threads on 2 CPUs: p-ps-fit 30 to 46 us a transaction, p-ro-fit
	 * 805 to 1,164, p-fit 1,644 to 2,289, p-big 2,122 to 3,216 (1.39-1.53x,
	 * mean 1.47: 3.4 % for each of the 14 beyond the CPUs); MariaDB's m-ps-fit
	 * 30 to 35, m-fit 1,406 to 1,306. A backend is a process: 16 of them and
	 * their clients on 2 CPUs switch address spaces, cold, at every round
	 * trip; MariaDB's connections are threads of one (docs/fidelity-history.md,
	 * change 32).
	 */
	if (!(o->cpu_per_backend == -1 || (o->cpu_per_backend >= 0 && o->cpu_per_backend <= 100))) {
		snprintf(err, errlen, "--cpu-per-backend: %g is out of range (0 to 100 percent, or -1 "
			 "for the default)", o->cpu_per_backend);
		return -EINVAL;
	}
	db->backend_frac = o->cpu_per_backend < 0 ? (innodb ? 0 : 0.034) : o->cpu_per_backend / 100;
	db->cpu_scale = o->cpu_scale;
	db->burn = (enum dbm_burn)o->cpu_burn;
	db->cpu_ns = (uint64_t)((double)db->cpu_ns * o->cpu_scale);
	if (o->io_capacity_max < o->io_capacity) {
		snprintf(err, errlen, "--io-capacity-max: %llu is below --io-capacity %llu",
			 (unsigned long long)o->io_capacity_max, (unsigned long long)o->io_capacity);
		return -EINVAL;
	}
	if (db->log_size < 4 * MIB) {
		snprintf(err, errlen, "--log-size: at least 4M (got %llu bytes)",
			 (unsigned long long)db->log_size);
		return -EINVAL;
	}
	uint64_t frames = o->buffer_pool / db->page_size;
	if (frames < 64 || frames >= UINT32_MAX) {
		snprintf(err, errlen, "--buffer-pool: %llu bytes is not between 64 pages and 2^32 pages",
			 (unsigned long long)o->buffer_pool);
		return -EINVAL;
	}
	/* InnoDB's block descriptors share the pool's memory: MariaDB 10.11
	   reports 2,028, 4,056, 8,112 and 16,224 frames (POOL_SIZE) for 32M to
	   256M, 1,014 of each 1,024 pages */
	if (innodb)
		frames -= frames * 10 / 1024;
	db->frames = (uint32_t)frames;
	return 0;
}

uint64_t dbm_alloc(struct dbm *db, uint64_t npages)
{
	uint64_t first = db->pages;
	db->pages += npages;
	return first;
}

void dbm_space(struct dbm *db)
{
	if (db->nspaces && db->space_first[db->nspaces - 1] == db->pages)
		return;         /* the last one is still empty: it is this one */
	if (db->nspaces == db->space_cap) {
		db->space_cap = db->space_cap ? db->space_cap * 2 : 16;
		db->space_first = xrealloc(db->space_first, db->space_cap * sizeof(*db->space_first));
		db->space_hdr = xrealloc(db->space_hdr, db->space_cap * sizeof(*db->space_hdr));
	}
	db->space_hdr[db->nspaces] = false;
	db->space_first[db->nspaces++] = db->pages;
}

void dbm_space_headers(struct dbm *db)
{
	if (db->model != DBM_INNODB || !db->nspaces || db->space_first[db->nspaces - 1] != db->pages)
		return;
	db->space_hdr[db->nspaces - 1] = true;
	dbm_alloc(db, DBM_SPACE_HDR);
}

uint32_t dbm_space_of(const struct dbm *db, uint64_t page)
{
	uint32_t lo = 0, hi = db->nspaces;      /* the last space whose first page <= page */

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (db->space_first[mid] <= page)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

/* Where the log, doublewrite area and tablespace sit; the thresholds that follow. */
static void layout(struct dbm *db, const struct target *t)
{
	bool innodb = db->model == DBM_INNODB;
	unsigned pbs = t->pbs ? t->pbs : 512;

	/* MariaDB 10.8+ writes the log in physical-block units; PostgreSQL in XLOG_BLCKSZ */
	db->log_block = innodb ? (pbs < 512 ? 512 : pbs > 4096 ? 4096 : pbs) : 8192;
	db->log_size -= db->log_size % db->page_size;
	db->log_body = db->log_size - db->log_block;
	db->log_body -= db->log_body % db->log_block;
	db->dblwr_off = db->log_size;
	db->dblwr_pages = db->doublewrite ? DBLWR_PAGES : 0;
	db->data_off = db->dblwr_off + db->dblwr_pages * db->page_size;
	db->batch = BATCH;
	/* InnoDB keeps innodb_lru_scan_depth frames free whatever the pool's size,
	   as long as the LRU keeps BUF_LRU_MIN_LEN (256) pages: a 32M pool (2,048
	   frames) caches only 500-1,300 pages (MariaDB read 2-4x the pages per
	   transaction that a model with a quarter of the pool free did) */
	uint32_t room = innodb ? (db->frames > 512 ? db->frames - 256 : db->frames / 2) : db->frames / 4;
	db->scan_depth = LRU_SCAN_DEPTH < room ? LRU_SCAN_DEPTH : room;
	/* PostgreSQL's clock sweep takes the next unused buffer, dirty or not */
	db->user_scan = innodb ? (LRU_USER_SCAN < db->scan_depth ? LRU_USER_SCAN : db->scan_depth) : 1;
	if (innodb) {
		/* log_t::set_capacity (log_calc_max_ages): 90% usable, then 90% margin;
		   async flushing at 7/8 of it, writers stall beyond it */
		db->log_capacity = db->log_body - db->log_body / 10;
		uint64_t margin = db->log_capacity - db->log_capacity / 10;
		db->async_age = margin - margin / 8;
		db->max_age = margin;
		db->af_lwm = db->log_capacity / 10;     /* innodb_adaptive_flushing_lwm = 10 */
	} else {
		/* CheckPointSegments: max_wal_size / (1 + checkpoint_completion_target
		   0.9) in whole 16 MiB segments, at least one (XLogCheckpointNeeded()
		   asks at each segment's end). max_wal_size is a soft limit: no
		   backend ever waits for WAL space, the WAL grows past it while a
		   checkpoint runs behind (at full speed: IsCheckpointOnSchedule()).
		   A stall here deadlocked the model with max_wal_size 32M: the
		   checkpoint, paced by the WAL written, waited for the writers it
		   stalled. The region is reused circularly (page ids, not contents). */
		uint64_t segs = (uint64_t)((double)(db->log_size / PG_WAL_SEG) / 1.9);
		db->log_capacity = db->log_body;
		db->ckpt_wal = (segs ? segs : 1) * PG_WAL_SEG;
		db->max_age = UINT64_MAX;
		db->async_age = db->ckpt_wal;
	}
}

/* The pool's bytes, touched now so that they are resident from the start,
   as a server's pool is once it is warm. */
static int hold_pool(struct dbm *db, char *err, size_t errlen)
{
	size_t len = (size_t)db->frames * db->page_size;
	int share = db->model == DBM_POSTGRES ? MAP_SHARED : MAP_PRIVATE;
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, share | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED) {
		int e = errno;
		snprintf(err, errlen, "--buffer-pool: cannot hold %zu MiB in memory as the server's "
			 "pool would be (%s); --pool-memory off runs without", (size_t)(len / MIB), strerror(e));
		return -e;
	}
	db->pool_mem = p;
	db->pool_mem_len = len;
	return 0;
}

static int init_locks(struct dbm *db)
{
	pthread_mutex_init(&db->pool_mx, NULL);
	pthread_mutex_init(&db->log_mx, NULL);
	pthread_mutex_init(&db->cl_mx, NULL);
	pthread_mutex_init(&db->hist_mx, NULL);
	pthread_mutex_init(&db->wq_mx, NULL);
	cond_init_mono(&db->wq_cv);
	cond_init_mono(&db->pool_cv);
	cond_init_mono(&db->log_cv);
	cond_init_mono(&db->cl_cv);
	return 0;
}

int dbm_start(struct dbm *db, struct emu_run *run, const char *what, char *err, size_t errlen)
{
	const struct target *t = run->target;

	if (!db->nspaces || db->space_first[0] != 0) {
		/* pages allocated before the first dbm_space() call: a tablespace of
		   their own, in front (dbm_space() appends it, it moves to slot 0) */
		uint64_t pages = db->pages;
		db->pages = 0;
		dbm_space(db);
		db->pages = pages;
		memmove(db->space_first + 1, db->space_first, (db->nspaces - 1) * sizeof(*db->space_first));
		memmove(db->space_hdr + 1, db->space_hdr, (db->nspaces - 1) * sizeof(*db->space_hdr));
		db->space_first[0] = 0;
		db->space_hdr[0] = false;
	}
	if (db->model == DBM_INNODB) {
		dbm_space(db);          /* the system tablespace: undo logs, rollback segments */
		db->undo.first = dbm_alloc(db, UNDO_PAGES);
		db->undo.pages = UNDO_PAGES;
		db->purge_lag_ms = PURGE_LAG_MS;
		db->rseg_first = dbm_alloc(db, DBM_RSEGS);
	}
	layout(db, t);
	/* MariaDB 10.5+ honours innodb_flush_neighbors (default 1) only on rotational storage */
	db->flush_neighbors = db->model == DBM_INNODB && t->rotational == 1;
	uint64_t need;
	if (ckd_mul_u64(db->pages, db->page_size, &need) || ckd_add_u64(need, db->data_off, &need))
		need = UINT64_MAX;      /* more than any target holds: the message below says so */
	/* a file made for this run at the default 1G: laid out on to what it needs */
	if (t->size < need && t->size_default && need != UINT64_MAX) {
		int rc = target_grow(run->target, need, run->seed, run->stop, err, errlen);
		if (rc && rc != -ENOSPC)
			return rc;      /* no room: said below as the tables' need */
	}
	if (t->size < need) {
		snprintf(err, errlen, "--size: '%s' has %llu MiB; the tables (%s) and the log "
			 "(--log-size) need %llu MiB", t->path, (unsigned long long)(t->size / MIB),
			 what, (unsigned long long)((need + MIB - 1) / MIB));
		return -EINVAL;
	}
	if (t->direct && (db->page_size % t->lbs || db->log_block % t->lbs)) {
		snprintf(err, errlen, "--target: logical block size %u of '%s' does not divide "
			 "the %u-byte pages (use --direct 0)", t->lbs, t->path, db->page_size);
		return -EINVAL;
	}
	db->fd = t->fd;
	/* PostgreSQL reads through the page cache with the kernel's read-ahead
	   on, and the kernel keeps its read-ahead state per open file
	   (file_ra_state: where the last read ended, how far the window has
	   grown), while every backend opens each relation's file itself. So
	   each worker reads each tablespace through a descriptor of its own
	   (dbm_worker_init()): a range scan's consecutive heap pages are a
	   stream, as they are for the backend, and another relation's read
	   between them does not break it. On a loop device throttled to 300
	   I/Os a second (4 x 250k rows, shared_buffers 128M, 4 threads, a
	   448M memory cgroup) PostgreSQL 15 read 25-31 KiB a request, 3.1
	   requests a transaction; the model with read-ahead off (as it was
	   until 4 December) 7 KiB and 7.3, at 0.43x the server's TPS; with a
	   descriptor a worker and tablespace 30 KiB and 2.4, at 1.19x
	   (docs/fidelity-history.md, change 38). */
	if (db->model == DBM_POSTGRES && !t->direct) {
		db->read_path = t->path;
		/* 32 workers of 8 tables take some 800 descriptors; the usual
		   soft limit is 1,024, the hard one far more */
		struct rlimit rl;
		if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
			rl.rlim_cur = rl.rlim_max;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
		}
	}
	/* Through the page cache the pool's own memory matters: the server's
	   pool is resident (PostgreSQL's shared_buffers are shared memory, which
	   nothing reclaims without swap), so the kernel caches the data files
	   in what is left. The model's pool is a table of frames; without these
	   bytes its reads found a pool-size more of page cache than the
	   server's: under a 448M memory cgroup PostgreSQL read 30 pages a
	   transaction from the drive, the model 14 (docs/oltp-tpcc.md). */
	if (!t->direct && db->pool_memory) {
		int rc = hold_pool(db, err, errlen);
		if (rc)
			return rc;
	}
	/* The server's log is a file of its own (ib_logfile0, pg_wal's
	   segments), and fdatasync() of it writes back only the log's pages
	   before the cache flush. The model's log shares the target with the
	   data: through the page cache an fdatasync() of the target would also
	   write back every data page written since, which the server leaves to
	   the kernel's write-back and its checkpoint's fsync. msync() of the
	   log's mapping syncs that range alone (vfs_fsync_range(), datasync),
	   cache flush included, on a file or a block device. With PostgreSQL's
	   backends writing 3.8 evicted pages a transaction (2 x 1M rows,
	   shared_buffers 32M), the whole-target fdatasync made each commit
	   write them: the model ran 0.61-0.75x the server's TPS there against
	   0.70-0.89x with the default pool, where the server ran both alike
	   (docs/fidelity-history.md, change 54). */
	db->buffered = !t->direct;
	db->log_fd = db->fd;
	/* MariaDB 10.8+ writes ib_logfile0 with O_DIRECT, but started with
	   innodb_flush_log_at_trx_commit=2 it turns innodb_log_file_buffering
	   on (MDEV-28766; 10.11.19 here reports 1 with 2, 0 with 1): a commit's
	   write lands in the page cache and sleeps nowhere, and the drive sees
	   the log when the once-a-second flush syncs it. Written directly, each
	   commit waited for the drive: the model ran no faster with 2 than
	   with 1 (m-flush2 against m-big, 0.97-0.98x) where the server ran
	   1.07-1.16x faster (docs/fidelity-history.md, change 57). */
	if (!db->buffered && db->model == DBM_INNODB && db->commit_mode == 2) {
		int fd = open(t->path, O_RDWR | O_CLOEXEC);
		if (fd < 0) {
			int rc = -errno;
			snprintf(err, errlen, "--target: cannot open '%s' again for the log through "
				 "the page cache (%s)", t->path, strerror(-rc));
			return rc;
		}
		db->log_fd = fd;
		db->log_own_fd = true;
	}
	if (db->buffered || db->log_own_fd) {
		void *m = mmap(NULL, db->log_size, PROT_READ, MAP_SHARED, db->log_fd, (off_t)db->log_off);
		if (m == MAP_FAILED) {
			int rc = -errno;
			snprintf(err, errlen, "--target: cannot map the log region of '%s' (%s); "
				 "use --direct 1", t->path, strerror(-rc));
			return rc;
		}
		db->log_map = m;
	}
	db->space_unsynced = xcalloc(db->nspaces, sizeof(*db->space_unsynced));
	dbm_pool_init(&db->pool, db->frames);
	if (db->model == DBM_INNODB)    /* innodb_old_blocks_pct, innodb_old_blocks_time */
		dbm_pool_set_midpoint(&db->pool, 37, 1000);
	else
		dbm_pool_set_clock(&db->pool);
	if (db->model == DBM_POSTGRES) {
		db->cl.ckpt_wb.after = DBM_PG_CKPT_FLUSH_AFTER;
		db->cl.bgw_wb.after = DBM_PG_BGW_FLUSH_AFTER;
		db->page_epoch = xcalloc(db->pages, sizeof(*db->page_epoch));
		db->page_hint = xcalloc(db->pages, 1);
	}
	init_locks(db);
	if (db->model == DBM_INNODB) {
		db->hist = xmalloc(DBM_HIST_OPS * sizeof(*db->hist));
		dbm_undo_init(&db->undo, db->undo.first, UNDO_PAGES);
		dbm_undo_touch(&db->undo, UNDO_LOAD_EXTENTS);
	}
	/* LSNs start past zero so that 0 can mean "none" */
	atomic_store(&db->lsn, 8192);
	db->written_lsn = db->flushed_lsn = 8192;
	atomic_store(&db->ckpt_lsn, 8192);
	atomic_store(&db->epoch, 1);
	db->burn_rate = dbm_burn_rate();
	cpu_set_t set;
	dbm_cpus_init(&db->cpuq, sched_getaffinity(0, sizeof(set), &set) == 0 ? (unsigned)CPU_COUNT(&set) : 1);
	db->started = true;
	/* innodb: page cleaner, log timer, innodb_purge_threads (4) purge workers;
	   postgres: checkpointer, bgwriter, WAL writer, and the autovacuum worker
	   when the emulator gave it tables */
	run->bg_workers = db->model == DBM_INNODB ? 2 + PURGE_THREADS + WRITE_THREADS
						  : 3 + (db->vac != NULL);
	if (db->vac)
		dbm_vac_begin(db);
	/* a flush batch with its neighbours fills the doublewrite area (128 pages) */
	run->max_io = (uint32_t)(DBLWR_PAGES * db->page_size > MIB ? DBLWR_PAGES * db->page_size : MIB);
	run->writes = true;
	run->headline = "txn";
	return 0;
}

uint64_t dbm_warmup_events(uint64_t txns, uint64_t points, unsigned idx)
{
	if (!txns || idx >= points)
		return 0;
	uint64_t n = txns / points + (idx < txns % points);
	return n ? n : 1;       /* 0 would hand the point back to --time */
}

int dbm_warmup_check(uint64_t txns, uint64_t points, unsigned npoints, char *err, size_t errlen)
{
	if (points && points >= npoints) {
		snprintf(err, errlen, "--warmup-points: %llu warm-up point(s) leave none of the run's %u "
			 "to measure (expected fewer than the points --threads and --qd make)",
			 (unsigned long long)points, npoints);
		return -EINVAL;
	}
	if (!txns || points)
		return 0;
	snprintf(err, errlen, "--warmup-txns: %llu transactions but no --warmup-points to run them "
		 "(expected --warmup-points N with N >= 1)", (unsigned long long)txns);
	return -EINVAL;
}

void dbm_info(const struct dbm *db, const struct dbm_opts *o, struct emu_run *run, const char *prefix)
{
	char key[64], val[600];

	snprintf(key, sizeof(key), "%s.cpu_per_stmt_us", prefix);
	snprintf(val, sizeof(val), "%g", (double)db->cpu_ns / 1000);
	emu_info(run, key, val);
	snprintf(key, sizeof(key), "%s.cpu_per_stmt", prefix);
	if (db->calib[0])
		snprintf(val, sizeof(val), "modelled: %s", db->calib);
	else
		snprintf(val, sizeof(val), o->cpu_per_stmt < 0
			 ? "modelled: the %s default calibrated against the real server on 2 KVM cores "
			   "(docs/oltp-tpcc.md says how to calibrate it on another machine)"
			 : "modelled: given with --cpu-per-stmt (%s model)", dbm_model_names[db->model]);
	emu_info(run, key, val);
	snprintf(key, sizeof(key), "%s.cpu_scale", prefix);
	snprintf(val, sizeof(val), "%g", db->cpu_scale);
	emu_info(run, key, val);
	snprintf(key, sizeof(key), "%s.cpu_burn", prefix);
	if (db->burn == DBM_BURN_WORK)
		snprintf(val, sizeof(val), "work: %.1f steps a us of CPU, measured at the start",
			 db->burn_rate * 1000);
	else
		snprintf(val, sizeof(val), "time: on the CPU clock");
	emu_info(run, key, val);
	snprintf(key, sizeof(key), "%s.cpu_per_backend_pct", prefix);
	snprintf(val, sizeof(val), "%g", db->backend_frac * 100);
	emu_info(run, key, val);
	snprintf(key, sizeof(key), "%s.cpu_per_read_us", prefix);
	snprintf(val, sizeof(val), "%g", (double)db->read_cpu_ns / 1000);
	emu_info(run, key, val);
	snprintf(key, sizeof(key), "%s.pool_memory_mib", prefix);
	snprintf(val, sizeof(val), "%llu", (unsigned long long)(db->pool_mem_len / MIB));
	emu_info(run, key, val);
	snprintf(key, sizeof(key), "%s.client_rtt_us", prefix);
	snprintf(val, sizeof(val), "%g", (double)db->rtt_ns / 1000);
	emu_info(run, key, val);
}

void dbm_release(struct dbm *db)
{
	free(db->space_first);
	free(db->space_hdr);
	db->space_first = NULL;
	db->space_hdr = NULL;
	db->nspaces = db->space_cap = 0;
	dbm_vac_release(db);
	if (db->pool_mem) {
		munmap(db->pool_mem, db->pool_mem_len);
		db->pool_mem = NULL;
	}
	if (db->log_map) {
		munmap(db->log_map, db->log_size);
		db->log_map = NULL;
	}
	if (db->log_own_fd) {
		close(db->log_fd);
		db->log_own_fd = false;
	}
	if (!db->started)
		return;
	dbm_pool_release(&db->pool);
	free(db->space_unsynced);
	db->space_unsynced = NULL;
	free(db->page_epoch);
	db->page_epoch = NULL;
	free(db->page_hint);
	db->page_hint = NULL;
	pthread_mutex_destroy(&db->pool_mx);
	pthread_mutex_destroy(&db->log_mx);
	pthread_mutex_destroy(&db->cl_mx);
	pthread_mutex_destroy(&db->hist_mx);
	pthread_mutex_destroy(&db->wq_mx);
	pthread_cond_destroy(&db->wq_cv);
	free(db->hist);
	db->hist = NULL;
	dbm_undo_release(&db->undo);
	pthread_cond_destroy(&db->pool_cv);
	pthread_cond_destroy(&db->log_cv);
	pthread_cond_destroy(&db->cl_cv);
	db->started = false;
}

/*
 * The calling worker's CPU clock when its last statement's burn ended, and
 * what dbm_cpu() burnt since (a statement's extra work: pages read, rows):
 * dbm_stmt_cpu() counts the rest as the worker's own work.
 */
static _Thread_local uint64_t stmt_mark, extra_burnt;

/* @ns of a statement's CPU at the point's threads (--cpu-per-backend). */
static uint64_t at_threads(const struct emu_worker *w, const struct dbm *db, uint64_t ns)
{
	unsigned t = w->pt->threads;
	if (!db->backend_frac || t <= db->cpuq.n)
		return ns;
	return ns + (uint64_t)((double)ns * db->backend_frac * (t - db->cpuq.n));
}

void dbm_cpu_take(struct emu_worker *w, struct dbm *db)
{
	uint64_t ns = dbm_cpus_take(&db->cpuq);
	if (ns)
		emu_count(w, DBM_C_CPU_WAIT_US, ns / 1000);
}

/*
 * Burn the statement's CPU (dbm_burn()), in its turn for one of the CPUs
 * (dbm_cpu.h), so that with more threads than CPUs a statement takes
 * longer in wall time, as on a server. What the burn took on the clock, not
 * @ns, is kept out of the statement's own work: work that a slow CPU
 * stretched is not taken off the statement's burn.
 */
void dbm_cpu(struct emu_worker *w, struct dbm *db, uint64_t ns)
{
	if (!ns)
		return;
	ns = at_threads(w, db, ns);
	emu_count(w, DBM_C_CPU_US, ns / 1000);
	dbm_cpu_take(w, db);
	uint64_t t0 = dbm_thread_cpu_ns();
	extra_burnt += dbm_burn(db->burn, db->burn_rate, t0, ns) - t0;
	dbm_cpus_give(&db->cpuq);
}

/*
 * A statement's CPU is what the worker spends on it in all: its own work
 * since the last statement (the model's bookkeeping, its I/O calls, its
 * turn waiting next in line for a CPU) is part of the cost, and only the
 * rest is burnt. The costs are then the server's machine CPU a statement
 * at any thread count. Burnt on top of the worker's own work instead, a
 * cost fitted at 16 threads, where that work is 4-5x what it is at 2 (the
 * queue, the wake-ups), gave the emulator 0.65x the server's CPU a
 * transaction at 2 threads and up to 2.16x its TPS (MariaDB, the data in
 * the pool; docs/fidelity-history.md, change 32).
 */
static void stmt_burn(struct emu_worker *w, struct dbm *db, uint64_t cost)
{
	dbm_cpu_take(w, db);
	uint64_t now = dbm_thread_cpu_ns();
	uint64_t own = stmt_mark && now - stmt_mark > extra_burnt ? now - stmt_mark - extra_burnt : 0;
	/* the release's wake-up is the next statement's */
	stmt_mark = own < cost ? dbm_burn(db->burn, db->burn_rate, now, cost - own) : now;
	extra_burnt = 0;
	dbm_cpus_give(&db->cpuq);
	emu_count(w, DBM_C_CPU_US, (own > cost ? own : cost) / 1000);
	/* apart as well: it depends on the scheduler, the cost does not */
	if (own > cost)
		emu_count(w, DBM_C_CPU_OVER_US, own / 1000 - cost / 1000);
}

/*
 * A statement's CPU, then the client's round trip: the server thread sends
 * its result and waits, off the CPU, for the next statement. The wait is
 * the wake-ups of idle CPUs: the scheduler puts a woken thread (the client,
 * then the server thread again) on an idle CPU when there is one, and an
 * idle CPU must leave its sleep state first (a halted vCPU on a virtual
 * machine: tens of microseconds). So the round trip is slept (with 1 us of
 * timer slack, not the default 50) only while fewer workers are on a CPU
 * (burning, queued for one or doing their own work; not in an I/O, a wait
 * or a round trip) than there are CPUs. With every CPU taken, a woken thread
 * queues behind the running ones and their work fills the gap: the next
 * statement's turn in the queue is the round trip. Slept whenever no worker
 * was queued, the round trip held the emulator to 0.32-0.52x the TPS of
 * servers that keep both CPUs busy at 2 threads with the data in the pool
 * (docs/fidelity-history.md, change 31); slept at any load, it left idle CPUs the
 * server kept busy at 4 threads. On one CPU there is never another idle
 * one: client and server take turns on it.
 *
 * And only by a worker that blocked in the last BLOCKED_NS (slept in an
 * I/O or a wait: dbm_block_end()). At 2 threads the servers fall in two
 * regimes (the quiet reference, docs/fidelity-history.md, change 42): threads that
 * never block keep both CPUs 94-100 % busy and a transaction takes its CPU
 * (in-pool point_select and read_only, and all of PostgreSQL's read_only,
 * point_select and asynchronous commit, whose reads the page cache serves);
 * threads that block at all, on an fsync a transaction or on one device
 * read in twelve point selects, keep them 54-61 % busy and a transaction
 * takes 1.6-1.8x its CPU. A buffered read or write that the page cache
 * takes sleeps nowhere and leaves the worker where it was. With no more
 * threads than CPUs (and more than one CPU) a blocking worker pays the
 * round trip after every statement, as each server thread and its client
 * then take turns across CPUs that idle between them; with more, only
 * while a CPU is idle.
 * Before change 42 every worker paid it only while a CPU was idle: at
 * 2 threads up to 1.39x the servers' TPS where they block (above 1.15x
 * on nine of MariaDB's eleven such lines), 0.49x at PostgreSQL's
 * point_select where they do not.
 */
static _Thread_local struct {
	long nvcsw;             /* the thread's voluntary switches when the block began */
	uint64_t until;         /* its round trips are a blocking thread's until then (ns) */
} blocked;

static long voluntary_switches(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_THREAD, &ru) ? 0 : ru.ru_nvcsw;
}

void dbm_block_begin(struct emu_worker *w, struct dbm *db)
{
	dbm_off_cpu(w, db, 1);
	if (!w->background && db->rtt_ns)
		blocked.nvcsw = voluntary_switches();
}

bool dbm_block_end(struct emu_worker *w, struct dbm *db)
{
	bool slept = !w->background && db->rtt_ns && voluntary_switches() != blocked.nvcsw;
	if (slept)
		blocked.until = emu_now() + BLOCKED_NS;
	dbm_off_cpu(w, db, -1);
	return slept;
}

bool dbm_blocks(void)
{
	return emu_now() < blocked.until;
}

/* PostgreSQL: a transaction's first statement takes its snapshot. */
static void txn_begin(struct emu_worker *w, struct dbm *db)
{
	unsigned n = atomic_load(&db->txn_workers);
	while (n <= w->id && !atomic_compare_exchange_weak(&db->txn_workers, &n, w->id + 1))
		;
	atomic_store(&db->txn_began[w->id], emu_now());
}

static void txn_end(struct emu_worker *w, struct dbm *db)
{
	if (w->id < DBM_MAX_WORKERS)
		atomic_store_explicit(&db->txn_began[w->id], 0, memory_order_relaxed);
}

uint64_t dbm_horizon(struct dbm *db)
{
	uint64_t h = atomic_load_explicit(&db->analyze_began, memory_order_relaxed);
	unsigned n = atomic_load_explicit(&db->txn_workers, memory_order_relaxed);

	if (!h)
		h = UINT64_MAX;
	for (unsigned i = 0; i < n; i++) {
		uint64_t t = atomic_load_explicit(&db->txn_began[i], memory_order_relaxed);
		if (t && t < h)
			h = t;
	}
	return h;
}

void dbm_stmt_cpu(struct emu_worker *w, struct dbm *db, uint64_t extra_ns)
{
	static _Thread_local bool slack_set;

	emu_count(w, DBM_C_STMTS, 1);
	if (db->model == DBM_POSTGRES && w->id < DBM_MAX_WORKERS && !atomic_load(&db->txn_began[w->id]))
		txn_begin(w, db);
	if (db->cpu_ns + extra_ns) {
		stmt_burn(w, db, at_threads(w, db, db->cpu_ns + extra_ns));
	} else if (stmt_mark) {
		/* a statement given no cost keeps its own work: not the next one's */
		stmt_mark = dbm_thread_cpu_ns();
		extra_burnt = 0;
	}
	bool every = db->cpuq.n > 1 && w->pt->threads <= db->cpuq.n;
	if (!db->rtt_ns || !dbm_blocks() || (!every && !dbm_cpu_left_idle(db, w->pt->threads)))
		return;
	if (!slack_set) {
		prctl(PR_SET_TIMERSLACK, 1000UL, 0, 0, 0);
		slack_set = true;
	}
	struct timespec ts = { 0, (long)(db->rtt_ns % 1000000000ULL) };
	ts.tv_sec = (time_t)(db->rtt_ns / 1000000000ULL);
	dbm_off_cpu(w, db, 1);
	clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL);
	dbm_off_cpu(w, db, -1);
	blocked.until += db->rtt_ns;    /* the window is the thread's time outside its round trips */
}

/* The pool's clock (midpoint insertion's innodb_old_blocks_time). */
static uint32_t now_ms(void)
{
	return (uint32_t)(emu_now() / 1000000);
}

/*
 * With pool_mx held: a frame for a new page. Free stack first, then a clean
 * page from the LRU tail; then PostgreSQL's backend writes the dirty victim
 * itself (the lock is dropped for the write), while InnoDB's user thread
 * waits for the page cleaner's LRU flush: MariaDB 10.6+ has no single-page
 * flush (buf_LRU_get_free_block() waits on buf_pool.done_free). The model's
 * user threads used to write such pages one at a time through the
 * doublewrite area, a doublewrite write and fsync per page: 2.97 fsyncs a
 * transaction against the server's 0.78 (2 x 1M rows in a 32M pool, 16
 * threads), its doublewrite batches 115-120 pages at every thread count.
 * Returns 0 with *@out, 1 when stopping, -errno.
 */
static int get_frame(struct emu_worker *w, struct dbm *db, uint32_t *out)
{
	struct dbm_pool *p = &db->pool;

	for (;;) {
		uint32_t fi = dbm_pool_take_free(p), dirty;
		/* buf_pool.need_LRU_eviction(). PostgreSQL's backends wake
		   nobody: their clock sweep finds the victim itself, and the
		   background writer keeps its own time. A kick at every miss
		   woke the checkpointer, the background writer and the WAL
		   writer for nothing:
		   futex wake-ups that took more CPU than the page cache's reads
		   (change 55) */
		if (db->model == DBM_INNODB && p->nfree < db->scan_depth / 2)
			dbm_flush_kick(db);
		if (fi == DBM_NIL)
			fi = p->clock ? dbm_pool_clock_victim(p, &dirty) : dbm_pool_victim(p, db->user_scan, &dirty);
		if (fi != DBM_NIL && p->f[fi].state != DBM_FREE)
			dbm_pool_evict(p, fi);
		if (fi != DBM_NIL) {
			*out = fi;
			return 0;
		}
		if (dirty != DBM_NIL && db->model == DBM_POSTGRES) {
			dbm_pool_pick(p, dirty);
			pthread_mutex_unlock(&db->pool_mx);
			emu_count(w, DBM_C_SINGLE_FLUSH, 1);
			int rc = dbm_flush_write(w, db, &dirty, 1, db->doublewrite, false, NULL);
			pthread_mutex_lock(&db->pool_mx);
			if (rc)
				return rc;
			continue;
		}
		emu_count(w, DBM_C_FREE_WAITS, 1);
		dbm_flush_kick(db);
		dbm_wait(w, db, &db->pool_cv, &db->pool_mx, WAIT_NS / 10);
		if (emu_stopping(w))
			return 1;
	}
}

uint64_t dbm_log_change(struct emu_worker *w, struct dbm *db, uint64_t page, uint32_t redo, bool image)
{
	uint64_t bytes = redo;

	if (db->page_epoch && image) {
		/* PostgreSQL full_page_writes: the first change after a checkpoint's redo
		   point logs the whole page, less its free-space hole (~10%) */
		uint32_t e = atomic_load(&db->epoch);
		if (db->page_epoch[page] != e) {
			db->page_epoch[page] = e;
			uint32_t fpi = db->page_size - db->page_size / 10;
			bytes += fpi;
			emu_count(w, DBM_C_FPI_BYTES, fpi);
		}
	}
	return dbm_log_advance(w, db, bytes);
}

/* With pool_mx held: modify frame @fi, generating @redo bytes (plus a
   full-page image unless DBM_NO_IMAGE is in @flags). */
static void modify(struct emu_worker *w, struct dbm *db, uint32_t fi, uint32_t redo, unsigned flags)
{
	uint64_t page = db->pool.f[fi].page;
	uint64_t lsn = dbm_log_change(w, db, page, redo, !(flags & DBM_NO_IMAGE));

	if (dbm_pool_dirty(&db->pool, fi, lsn))
		emu_count(w, DBM_C_DIRTIED, 1);
	if (db->page_hint && !(flags & DBM_NO_IMAGE))
		db->page_hint[page] = 1;
}

/*
 * PostgreSQL: the first reader of a tuple after the transaction that wrote
 * it committed sets its hint bits (heap: HEAP_XMIN_COMMITTED, XMAX...;
 * B-tree: LP_DEAD on entries of dead tuples) and marks the page dirty
 * without WAL (MarkBufferDirtyHint, with wal_log_hints and checksums off,
 * their defaults). A page written out since its last change is thus written
 * again: the server's read-only run after a read-write one writes about a
 * page for each page it reads (pg_stat_bgwriter, 8 x 250,000 rows). With
 * pool_mx held; @fi is resident and not being modified by this access.
 */
static void hint(struct emu_worker *w, struct dbm *db, uint32_t fi)
{
	struct dbm_frame *f = &db->pool.f[fi];

	db->page_hint[f->page] = 0;
	if (f->dirty)
		return;
	/* no WAL: the page's LSN (the write-ahead rule's bound) stays */
	uint64_t newest = f->newest_lsn;
	dbm_pool_dirty(&db->pool, fi, atomic_load(&db->lsn));
	f->newest_lsn = newest;
	emu_count(w, DBM_C_DIRTIED, 1);
}

/* This worker thread's read descriptors (dbm_worker_init()), for db only. */
static _Thread_local struct {
	const struct dbm *db;
	int *fd;                /* [tablespace] */
} own;

int dbm_worker_init(struct dbm *db)
{
	if (!db->read_path)
		return 0;
	own.fd = xmalloc(db->nspaces * sizeof(*own.fd));
	for (uint32_t i = 0; i < db->nspaces; i++) {
		int fd = open(db->read_path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 && errno != EMFILE && errno != ENFILE) {
			int rc = -errno;
			while (i--)
				if (own.fd[i] != db->fd)
					close(own.fd[i]);
			free(own.fd);
			own.fd = NULL;
			return rc;
		}
		/* out of descriptors: the shared one, whose read-ahead all workers share */
		own.fd[i] = fd >= 0 ? fd : db->fd;
	}
	own.db = db;
	return 0;
}

void dbm_worker_fini(struct dbm *db)
{
	if (own.db != db)
		return;
	for (uint32_t i = 0; i < db->nspaces; i++)
		if (own.fd[i] != db->fd)
			close(own.fd[i]);
	free(own.fd);
	own.fd = NULL;
	own.db = NULL;
}

/* The page is not resident: get a frame and read it (or create it). Lock held. */
static int load(struct emu_worker *w, struct dbm *db, uint64_t page, unsigned flags, uint32_t *out)
{
	uint32_t fi;
	int rc = get_frame(w, db, &fi);

	if (rc)
		return rc;
	if (dbm_pool_lookup(&db->pool, page) != DBM_NIL) {     /* loaded meanwhile */
		dbm_pool_put_free(&db->pool, fi);
		*out = DBM_NIL;
		return 0;
	}
	if (flags & DBM_CREATE) {
		dbm_pool_install(&db->pool, fi, page, DBM_READY, now_ms());
		db->pool.f[fi].reinit = true;
		emu_count(w, DBM_C_CREATED, 1);
		*out = fi;
		return 0;
	}
	dbm_pool_install(&db->pool, fi, page, DBM_READING, now_ms());
	db->reads_total++;
	pthread_mutex_unlock(&db->pool_mx);
	int fd = own.db == db ? own.fd[dbm_space_of(db, page)] : db->fd;
	int64_t r = dbm_io_fd(w, db, fd, DBM_CLS_PAGE_READ, IO_READ, emu_buf(w, 0), db->page_size,
			      db->data_off + page * db->page_size);
	dbm_cpu(w, db, db->read_cpu_ns);        /* before the page is ready: its waiters wait it too */
	pthread_mutex_lock(&db->pool_mx);
	db->pool.f[fi].state = DBM_READY;
	pthread_cond_broadcast(&db->pool_cv);
	emu_count(w, DBM_C_READS, 1);
	if (dbm_undo_page(db, page))
		emu_count(w, DBM_C_UNDO_READS, 1);
	*out = fi;
	if (r != (int64_t)db->page_size)
		return emu_fail(w, r < 0 ? (int)r : -EIO, "page read at offset %llu failed",
				(unsigned long long)(db->data_off + page * db->page_size));
	return 0;
}

static int space_change(struct emu_worker *w, struct dbm *db, uint64_t page);

/*
 * PostgreSQL extends a relation by writing the new page at its end
 * (smgrextend(): zeros, before the buffer is filled; its content is
 * written later like any page's) and asks the checkpointer to fsync the
 * file; PostgreSQL 15 counts the write among the backends'
 * (pg_stat_bgwriter.buffers_backend: ForwardSyncRequest() counts every
 * request but the bgwriter's).
 */
static int extend(struct emu_worker *w, struct dbm *db, uint64_t page)
{
	int rc = dbm_page_write(w, db, page);

	if (rc)
		return rc;
	emu_count(w, DBM_C_WRITTEN, 1);
	atomic_store(&db->space_unsynced[dbm_space_of(db, page)], true);
	return 0;
}

int dbm_page(struct emu_worker *w, struct dbm *db, uint64_t page, unsigned flags, uint32_t redo)
{
	bool change = redo || (flags & DBM_DIRTY), created = false;
	int rc = 0;

	if (redo && (rc = dbm_log_space(w, db)) != 0)
		return rc;
	emu_count(w, DBM_C_READ_REQ, 1);
	pthread_mutex_lock(&db->pool_mx);
	for (bool fix_waited = false;;) {
		uint32_t fi = dbm_pool_lookup(&db->pool, page);
		if (fi == DBM_NIL) {
			if ((rc = load(w, db, page, flags, &fi)) != 0 || fi == DBM_NIL)
				goto next;
			created = flags & DBM_CREATE;
		} else if (db->pool.f[fi].state == DBM_READING) {
			dbm_wait(w, db, &db->pool_cv, &db->pool_mx, WAIT_NS / 10);
			rc = emu_stopping(w) ? 1 : 0;
			goto next;
		} else if (change && db->model == DBM_INNODB && db->pool.f[fi].writing) {
			/* InnoDB's page cleaner holds a page it flushes U-latched
			   from its pick to its write's completion (buf_flush_page()
			   to buf_page_write_complete()), the doublewrite batch and
			   its fsync included: a change, which needs the X latch,
			   waits for all of it. Readers share the latch and go on.
			   (PostgreSQL's backends wait only for a copy into the
			   page cache.) */
			if (!fix_waited)
				emu_count(w, DBM_C_WRITE_FIX_WAITS, 1);
			fix_waited = true;
			dbm_wait(w, db, &db->pool_cv, &db->pool_mx, WAIT_NS / 10);
			rc = emu_stopping(w) ? 1 : 0;
			goto next;
		} else {
			if (db->pool.f[fi].freed) {     /* a freed page allocated again */
				dbm_pool_reuse(&db->pool, fi);
				emu_count(w, DBM_C_CREATED, 1);
				created = true;
			}
			if (!(flags & DBM_KEEP_OLD))
				dbm_pool_touch(&db->pool, fi, now_ms());
		}
		/* PostgreSQL logs a page it initialises (the first tuple of a new
		   heap page, XLOG_HEAP_INIT_PAGE; a B-tree split's new right page)
		   with REGBUF_WILL_INIT: redo rebuilds it from the record, so its
		   first change after a checkpoint carries no full-page image */
		if (redo && (flags & DBM_CREATE) && db->page_epoch)
			db->page_epoch[page] = atomic_load(&db->epoch);
		if (change)
			modify(w, db, fi, redo, flags);
		else if (db->page_hint && db->page_hint[page])
			hint(w, db, fi);
		break;
next:
		if (rc)
			break;
	}
	pthread_mutex_unlock(&db->pool_mx);
	if (!rc && created)
		rc = db->model == DBM_POSTGRES ? extend(w, db, page) : space_change(w, db, page);
	return rc;
}

/* A page of @page's tablespace allocated or freed: its header pages change,
   under the allocating change's redo (dbm_space_headers()). */
static int space_change(struct emu_worker *w, struct dbm *db, uint64_t page)
{
	uint32_t s = dbm_space_of(db, page);
	int rc = 0;

	if (!db->space_hdr || !db->space_hdr[s] || page < db->space_first[s] + DBM_SPACE_HDR)
		return 0;
	for (unsigned i = 0; i < DBM_SPACE_HDR && !rc; i++)
		rc = dbm_page(w, db, db->space_first[s] + i, DBM_KEEP_OLD | DBM_DIRTY, 0);
	return rc;
}

int dbm_path(struct emu_worker *w, struct dbm *db, const struct dbm_tree *t, uint64_t row,
	     unsigned flags, uint32_t redo)
{
	uint64_t pages[DBM_TREE_MAX_DEPTH];
	unsigned n = dbm_tree_path(t, row, pages);

	for (unsigned i = 0; i < n; i++) {
		bool leaf = i + 1 == n;
		int rc = dbm_page(w, db, pages[i], leaf ? flags : 0, leaf ? redo : 0);
		if (rc)
			return rc;
	}
	return 0;
}

bool dbm_undo_page(const struct dbm *db, uint64_t page)
{
	return db->model == DBM_INNODB && dbm_undo_has(&db->undo, page);
}

bool dbm_rseg_page(const struct dbm *db, uint64_t page)
{
	return db->model == DBM_INNODB && page >= db->rseg_first && page - db->rseg_first < DBM_RSEGS;
}

int dbm_undo(struct emu_worker *w, struct dbm *db, struct dbm_txn *t, uint32_t rec, uint32_t redo)
{
	t->wrote = true;
	if (db->model != DBM_INNODB)
		return 0;
	bool first = !t->undo.npages, created;
	uint64_t page = dbm_undo_add(&db->undo, &t->undo, rec, db->page_size, &created);
	int rc = 0;

	t->undo_bytes += redo;
	/* a new undo segment: its slot in the rollback segment */
	if (first && created)
		rc = dbm_page(w, db, db->rseg_first + t->undo.rseg, 0, UNDO_SEG_REDO);
	/* the record's redo, a record header (and the log's header on its first) */
	return rc ? rc : dbm_page(w, db, page, created ? DBM_CREATE : 0,
				  redo + 12 + (first ? UNDO_HDR_REDO : 0));
}

static void purge_add(struct dbm *db, struct dbm_txn *t, struct dbm_purge_op op)
{
	if (db->model == DBM_INNODB && t->npurge < DBM_TXN_PURGE)
		t->purge[t->npurge++] = op;
}

void dbm_purge_page(struct dbm *db, struct dbm_txn *t, uint64_t page, uint32_t redo)
{
	purge_add(db, t, (struct dbm_purge_op){ .arg = page, .redo = redo, .kind = DBM_PURGE_PAGE });
}

void dbm_purge_sec(struct dbm *db, struct dbm_txn *t, struct dbm_sec *sec, uint64_t rank,
		   uint32_t redo)
{
	purge_add(db, t, (struct dbm_purge_op){ .sec = sec, .arg = rank, .redo = redo,
						.kind = DBM_PURGE_SEC });
}

/* Free @page: never written; its frame waits for a flush, the LRU's tail or reuse. */
static void page_free(struct dbm *db, uint64_t page)
{
	pthread_mutex_lock(&db->pool_mx);
	uint32_t fi = dbm_pool_lookup(&db->pool, page);
	if (fi != DBM_NIL)
		dbm_pool_free_page(&db->pool, fi);
	pthread_mutex_unlock(&db->pool_mx);
}

/* Free undo page @page: in the pool as any freed page, and the area's to take again. */
static void undo_page_free(struct dbm *db, uint64_t page)
{
	page_free(db, page);
	dbm_undo_free(&db->undo, page);
}

/*
 * A committed transaction's purge work joins the history list (full:
 * dropped), its undo page read back last. Its undo log's pages, unless
 * cached for the next transaction, are freed once purge has done it.
 */
static void history_add(struct dbm *db, struct dbm_txn *t)
{
	if (!db->hist || !t->undo.npages)
		return;
	struct dbm_undo_log log = t->undo;
	dbm_purge_page(db, t, log.page[log.npages - 1], PURGE_UNDO_REDO);
	bool cached = dbm_undo_end(&db->undo, &t->undo, db->page_size);
	if (!cached)    /* purge frees the undo segment: its rollback segment's slot */
		dbm_purge_page(db, t, db->rseg_first + log.rseg, UNDO_SEG_REDO);
	uint32_t now = now_ms();
	unsigned freed = cached ? log.npages : 0;
	pthread_mutex_lock(&db->hist_mx);
	for (unsigned i = 0; i < t->npurge && db->hist_head - db->hist_tail < DBM_HIST_OPS; i++) {
		t->purge[i].t_ms = now;
		db->hist[db->hist_head++ % DBM_HIST_OPS] = t->purge[i];
	}
	if (cached && db->hist_head - db->hist_tail < DBM_HIST_OPS)
		db->hist[db->hist_head++ % DBM_HIST_OPS] = (struct dbm_purge_op){
			.arg = log.page[0], .kind = DBM_PURGE_UNCACHE, .rseg = (uint16_t)log.rseg,
			.tag = log.tag, .t_ms = now };
	for (; freed < log.npages && db->hist_head - db->hist_tail < DBM_HIST_OPS; freed++)
		db->hist[db->hist_head++ % DBM_HIST_OPS] = (struct dbm_purge_op){
			.arg = log.page[freed], .kind = DBM_PURGE_FREE, .t_ms = now };
	pthread_mutex_unlock(&db->hist_mx);
	for (; freed < log.npages; freed++)     /* no room: freed now */
		undo_page_free(db, log.page[freed]);
}

int dbm_sec_op(struct emu_worker *w, struct dbm *db, struct dbm_sec *sec, uint64_t rank,
	       int delta, uint32_t redo)
{
	uint64_t path[DBM_TREE_MAX_DEPTH];
	unsigned n = dbm_tree_path(&sec->geo, rank, path);
	struct dbm_sec_change c = { 0 };
	int rc = 0;

	for (unsigned i = 0; i + 1 < n && !rc; i++)
		rc = dbm_page(w, db, path[i], 0, 0);
	if (rc)
		return rc;
	if (delta)
		dbm_sec_change(sec, rank, delta, &c);
	else
		c.leaf = dbm_sec_leaf(sec, rank);
	if ((rc = dbm_page(w, db, c.leaf, 0, redo)) != 0 || c.event == DBM_SEC_NONE)
		return rc;
	/* PostgreSQL's XLOG_BTREE_SPLIT_L/R carries the new right page's
	   tuples: about half a page */
	uint32_t moved = (db->model == DBM_POSTGRES ? db->page_size / 2 : c.moved * SEC_MOVE_REDO) + SEC_SMO_REDO;
	if (c.event == DBM_SEC_SPLIT) {
		emu_count(w, DBM_C_SPLITS, 1);
		rc = dbm_page(w, db, c.other, DBM_CREATE, moved);
	} else {
		emu_count(w, DBM_C_MERGES, 1);
		rc = dbm_page(w, db, c.other, 0, moved + SEC_REORG_REDO);
		page_free(db, c.leaf);
		if (!rc)
			rc = space_change(w, db, c.leaf);
	}
	return rc ? rc : dbm_page(w, db, n >= 2 ? path[n - 2] : c.other, 0, PARENT_REDO);
}

int dbm_commit(struct emu_worker *w, struct dbm *db, struct dbm_txn *t, void (*release)(void *),
	       void *arg)
{
	int rc = 0;
	uint64_t lsn;

	if (!t->wrote)
		goto done;
	if (db->model == DBM_INNODB) {
		/* the undo log moves to "committed", into its rollback segment's history */
		rc = dbm_page(w, db, db->rseg_first + t->undo.rseg, 0, COMMIT_REDO);
		lsn = atomic_load(&db->lsn);
	} else {
		if ((rc = dbm_log_space(w, db)) != 0)
			goto fail;
		pthread_mutex_lock(&db->pool_mx);
		lsn = dbm_log_advance(w, db, COMMIT_REDO);
		pthread_mutex_unlock(&db->pool_mx);
	}
	if (rc)
		goto fail;
	history_add(db, t);
	if (release && db->model == DBM_INNODB) {
		release(arg);
		release = NULL;
	}
	if (db->commit_mode == 1)
		rc = dbm_log_up_to(w, db, lsn, true);
	else if (db->commit_mode == 2)
		rc = dbm_log_up_to(w, db, lsn, false);
done:
	if (release)
		release(arg);
	if (!rc)
		emu_count(w, DBM_C_TXNS, 1);
	*t = (struct dbm_txn){ 0 };
	txn_end(w, db);
	return rc;
fail:
	if (release)
		release(arg);
	return rc;
}

int dbm_rollback(struct emu_worker *w, struct dbm *db, struct dbm_txn *t)
{
	/* undoing writes compensation redo about the size of the undo log;
	   pages touched are already dirty and resident; nobody waits for the log */
	pthread_mutex_lock(&db->pool_mx);
	dbm_log_advance(w, db, t->undo_bytes + COMMIT_REDO);
	pthread_mutex_unlock(&db->pool_mx);
	/* its undo log, emptied, cached again or freed */
	if (db->model == DBM_INNODB && !dbm_undo_end(&db->undo, &t->undo, db->page_size))
		for (unsigned i = 0; i < t->undo.npages; i++)
			undo_page_free(db, t->undo.page[i]);
	*t = (struct dbm_txn){ 0 };
	txn_end(w, db);
	return 0;
}

/* The log timer: InnoDB's master thread flushes the log once a second, the
   PostgreSQL WAL writer every wal_writer_delay (200 ms). */
static int log_timer(struct emu_worker *w, struct dbm *db)
{
	uint64_t period = db->model == DBM_INNODB ? 1000000000ULL : 200000000ULL;
	uint64_t end = emu_now() + period;

	pthread_mutex_lock(&db->log_mx);
	bool behind = db->flushed_lsn < atomic_load(&db->lsn);
	pthread_mutex_unlock(&db->log_mx);
	if (behind) {
		int rc = dbm_log_up_to(w, db, atomic_load(&db->lsn), true);
		if (rc)
			return rc < 0 ? rc : 0;
	}
	pthread_mutex_lock(&db->cl_mx);
	while (!emu_stopping(w) && emu_now() < end)
		dbm_wait(w, db, &db->cl_cv, &db->cl_mx, WAIT_NS * 5);
	pthread_mutex_unlock(&db->cl_mx);
	return 0;
}

/*
 * InnoDB's purge: take the oldest committed transactions' records from the
 * history list and do them (DB_TRX_ID resets, delete-marked entries removed,
 * the undo log read back), the purge threads together on a batch of the
 * history (PURGE_LAG_MS), @PURGE_BATCH records at a time; idle 10 ms when
 * there is none.
 *
 * Their CPU is burnt in the CPUs' queue, batch by batch, as the server's
 * purge threads take it from the connections: MariaDB 10.11's purge ran
 * in bursts of 60-100 ms every 0.6-1.1 s (performance_schema's waits, write
 * only at 2 threads), and the transactions that fell in them took 2-6 ms
 * where the rest took 0.7 (1.3-1.8 % of them over 2 ms). Its thread pool's
 * threads took 26-47 us of CPU a transaction (write only, read write).
 * Spread over the statements, that CPU gave the emulator a p99 of 0.6x
 * the server's there (docs/fidelity-history.md, change 44).
 */
static int purge(struct emu_worker *w, struct dbm *db)
{
	struct dbm_purge_op op[PURGE_BATCH];
	unsigned n = 0;
	int rc = 0;

	pthread_mutex_lock(&db->hist_mx);
	if (db->hist_tail >= db->purge_upto && db->hist_tail < db->hist_head &&
	    now_ms() - db->hist[db->hist_tail % DBM_HIST_OPS].t_ms >= 2 * db->purge_lag_ms) {
		db->purge_upto = db->hist_head;
		pthread_mutex_lock(&db->cl_mx);         /* the other purge threads join in */
		pthread_cond_broadcast(&db->cl_cv);
		pthread_mutex_unlock(&db->cl_mx);
	}
	while (n < PURGE_BATCH && db->hist_tail < db->purge_upto)
		op[n++] = db->hist[db->hist_tail++ % DBM_HIST_OPS];
	pthread_mutex_unlock(&db->hist_mx);
	if (!n) {
		pthread_mutex_lock(&db->cl_mx);
		if (!emu_stopping(w))
			dbm_wait(w, db, &db->cl_cv, &db->cl_mx, WAIT_NS);
		pthread_mutex_unlock(&db->cl_mx);
		return 0;
	}
	unsigned done = 0;
	for (unsigned i = 0; i < n && !rc; i++) {
		if (op[i].kind == DBM_PURGE_FREE) {     /* no record: the segment's pages go */
			undo_page_free(db, op[i].arg);
			continue;
		}
		if (op[i].kind == DBM_PURGE_UNCACHE) {  /* a cached page nobody took since */
			if (dbm_undo_uncache(&db->undo, op[i].rseg, op[i].arg, op[i].tag)) {
				page_free(db, op[i].arg);
				rc = dbm_page(w, db, db->rseg_first + op[i].rseg, 0, UNDO_SEG_REDO);
			}
			continue;
		}
		rc = op[i].kind == DBM_PURGE_SEC ? dbm_sec_op(w, db, op[i].sec, op[i].arg, -1, op[i].redo)
						 : dbm_page(w, db, op[i].arg, 0, op[i].redo);
		emu_count(w, DBM_C_PURGED, 1);
		done++;
	}
	if (!rc && db->purge_ns && done) {
		dbm_cpu(w, db, done * db->purge_ns);
		emu_count(w, DBM_C_PURGE_CPU_US, done * db->purge_ns / 1000);
	}
	return rc < 0 ? rc : 0;
}

int dbm_bg_step(struct emu_worker *w, struct dbm *db)
{
	unsigned role = w->id - w->pt->threads;

	if (db->model == DBM_INNODB) {
		if (role == 0)
			return dbm_flush_cleaner(w, db);
		if (role == 1)
			return log_timer(w, db);
		if (role >= 2 + PURGE_THREADS && role < 2 + PURGE_THREADS + WRITE_THREADS)
			return dbm_flush_io_worker(w, db);
		return purge(w, db);
	}
	switch (role) {
	case 0:
		return dbm_flush_checkpointer(w, db);
	case 1:
		return dbm_flush_bgwriter(w, db);
	case 2:
		return log_timer(w, db);
	default:
		return dbm_vac_step(w, db);
	}
}
