/*
 * fsperson.c - file-system personalities: a file server, a web server and a
 * mail server, as filebench's fileserver, webserver and varmail workloads
 * define them (filebench workloads/fileserver.f, webserver.f, varmail.f),
 * re-specified here and run on a folder of the drive under test.
 *
 *   fileserver-fs  10,000 files in folders of width 20, sizes gamma(mean
 *                  128 KiB, shape 1.5), 80% present. A loop: create a file
 *                  and write it whole in 1 MiB writes, close; open another,
 *                  append 1 B-16 KiB, close; open another, read it whole,
 *                  close; delete one; stat one. 50 threads in filebench.
 *   webserver-fs   1,000 files of mean 16 KiB, all present, never changed.
 *                  A loop: ten times open, read whole, close; then append
 *                  1 B-16 KiB to one log file all threads share. 100 threads.
 *   mailserver-fs  1,000 files of mean 16 KiB in one flat folder, 80%
 *                  present. A loop: delete one; create one, append, fsync,
 *                  close; open one, read whole, append, fsync, close; open
 *                  one, read whole, close. 16 threads.
 *
 * Every number is an option (--files, --mean-size, --gamma, --dir-width,
 * --prealloc, --append-max, --io-size; --threads and --time are run
 * options). The three are named with "-fs" because 'fileserver' and
 * 'webserver' already name the reviews' block-level profiles, which the
 * reviews and older results use; the suffix marks the file-system kind.
 *
 * A loop is a table of file operations (filebench's flowops) that one
 * interpreter runs; each operation is recorded in its class (create, open,
 * read, write, append, fsync, close, delete, stat: one sample per system
 * call) and the whole loop in "loop", the headline.
 *
 * The page cache must not fake the drive's speed. By default (O_DIRECT on,
 * no --cached): whole-file reads and whole-file writes use O_DIRECT (new
 * files' sizes are multiples of the logical block size; a read asks for the
 * file's known size rounded up to a block); appends are at any byte offset,
 * so they are buffered like the application's, and the writeback of what
 * they dirtied is started before close (sync_file_range) unless an fsync
 * already made it durable, so the data reaches the drive during the loop,
 * not 30 s later. A file opened to be read and then appended (mail server)
 * switches O_DIRECT off with one fcntl before the append. Those two calls
 * are all appio adds to a loop (scripts/bench-fs.sh counts them). --cached
 * (or --direct 0) does everything through the page cache. The
 * point's "device" figures say what the drive transferred; the classes'
 * bytes say what the application asked for.
 *
 * Which files an operation touches: a random present (open, delete, stat)
 * or absent (create) entry, held by the worker until its close, so no two
 * workers touch one file at a time (filebench does the same); the web
 * server's files are read-only and shared. The fileset is built once and
 * reused by later points and runs (fileset.h); after a run it is restored
 * to its configured file count.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appio/emulator.h"
#include "fileset.h"

#define LOG_NAME   "weblog"
#define LOG_ROTATE (256ULL << 20)       /* our choice: truncate the shared log beyond this */

enum fsp_op {
	OP_END, OP_DELETE, OP_CREATE, OP_OPEN, OP_WRITE_WHOLE, OP_APPEND, OP_READ_WHOLE,
	OP_FSYNC, OP_CLOSE, OP_STAT, OP_LOG_APPEND,
};

enum { CLS_CREATE, CLS_OPEN, CLS_READ, CLS_WRITE, CLS_APPEND, CLS_FSYNC, CLS_CLOSE,
       CLS_DELETE, CLS_STAT, CLS_LOOP };

enum { CNT_FILES, CNT_BYTES, CNT_BUILD_MS, CNT_REUSED, CNT_WRITEBACK, CNT_TOGGLE };

struct fsp_personality {
	const char *kind;
	const uint8_t *flow;            /* OP_END-terminated */
	bool shared;                    /* files are read-only: picked without holding */
	bool creates;                   /* needs absent entries */
	bool log;                       /* appends to a shared log file */
};

static const uint8_t fileserver_flow[] = {
	OP_CREATE, OP_WRITE_WHOLE, OP_CLOSE, OP_OPEN, OP_APPEND, OP_CLOSE,
	OP_OPEN, OP_READ_WHOLE, OP_CLOSE, OP_DELETE, OP_STAT, OP_END,
};
#define ORC OP_OPEN, OP_READ_WHOLE, OP_CLOSE
static const uint8_t webserver_flow[] = {
	ORC, ORC, ORC, ORC, ORC, ORC, ORC, ORC, ORC, ORC, OP_LOG_APPEND, OP_END,
};
#undef ORC
static const uint8_t mailserver_flow[] = {
	OP_DELETE, OP_CREATE, OP_APPEND, OP_FSYNC, OP_CLOSE,
	OP_OPEN, OP_READ_WHOLE, OP_APPEND, OP_FSYNC, OP_CLOSE,
	OP_OPEN, OP_READ_WHOLE, OP_CLOSE, OP_END,
};

static const struct fsp_personality fileserver = {
	.kind = "fileserver-fs", .flow = fileserver_flow, .creates = true,
};
static const struct fsp_personality webserver = {
	.kind = "webserver-fs", .flow = webserver_flow, .shared = true, .log = true,
};
static const struct fsp_personality mailserver = {
	.kind = "mailserver-fs", .flow = mailserver_flow, .creates = true,
};

struct fsp_opts {
	uint64_t files, mean, dir_width, append_max, io_size;
	double gamma;
	unsigned prealloc;
	bool cached;
};

struct fsp_run {
	const struct fsp_personality *pers;
	struct fileset fs;
	bool direct;                    /* bypass the page cache (O_DIRECT + writeback) */
	uint32_t io;                    /* read/write call size, a multiple of the lbs */
	uint32_t lbs;                   /* the target's logical block size */
	uint32_t append_max;
	char log_path[PATH_MAX];
	_Atomic uint64_t log_bytes;
};

struct fsp_worker {
	int fd;                         /* the open file, -1 if none */
	int logfd;                      /* web server: this worker's descriptor of the log */
	uint32_t idx;                   /* entry held (fd's file, or being deleted) */
	bool held;
	bool is_direct;                 /* fd has O_DIRECT */
	bool dirty;                     /* buffered data written since the last fsync */
	int flags;                      /* fd's open flags, for the O_DIRECT switch */
	uint64_t size;                  /* the held file's bytes */
};

/* --- options: one table per personality, differing only in defaults --- */

#define O(field) offsetof(struct fsp_opts, field)
#define FSP_OPTS(FILES, MEAN, WIDTH, PREALLOC) { \
	{ "files", OPT_UINT, O(files), FILES, "entries in the fileset", .min = 1, .max = FILESET_FILES_MAX }, \
	{ "mean-size", OPT_SIZE, O(mean), MEAN, "mean file size (gamma-distributed)", .min = 1, \
	  .max = FILESET_MEAN_MAX }, \
	{ "gamma", OPT_DOUBLE, O(gamma), "1.5", "shape of the gamma size distribution (> 0)" }, \
	{ "dir-width", OPT_UINT, O(dir_width), WIDTH, "files per folder and folders per folder", \
	  .min = 2, .max = 1000000 }, \
	{ "prealloc", OPT_PCT, O(prealloc), PREALLOC, "percentage of the entries that exist" }, \
	{ "append-max", OPT_SIZE, O(append_max), "16k", "appends are uniform from 1 byte to this", \
	  .min = 1, .max = 1ULL << 30 }, \
	{ "io-size", OPT_SIZE, O(io_size), "1M", "bytes per read/write call of whole-file I/O", \
	  .min = 512, .max = 1ULL << 30 }, \
	{ "cached", OPT_BOOL, O(cached), NULL, \
	  "run through the page cache (default: O_DIRECT reads and writes, writeback started at close)" }, \
	OPT_END, \
}
static const struct opt_def fileserver_opts[] = FSP_OPTS("10000", "128k", "20", "80");
static const struct opt_def webserver_opts[] = FSP_OPTS("1000", "16k", "20", "100");
static const struct opt_def mailserver_opts[] = FSP_OPTS("1000", "16k", "1000000", "80");
#undef FSP_OPTS
#undef O

/* --- setup --- */

/* Can files in @root be opened with O_DIRECT? (tmpfs and some others refuse) */
static int probe_direct(const char *root, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	snprintf(path, sizeof(path), "%s/.appio-direct-probe", root);
	int fd = open(path, O_WRONLY | O_CREAT | O_DIRECT | O_CLOEXEC, 0644);
	int e = errno;

	if (fd >= 0) {
		close(fd);
		unlink(path);
		return 0;
	}
	if (e == EINVAL)
		snprintf(err, errlen, "--target: the file system of '%s' does not support O_DIRECT "
			 "(use --cached or --direct 0)", root);
	else
		snprintf(err, errlen, "--target: cannot write in folder '%s': %s", root, strerror(e));
	return e == EINVAL || e == EACCES || e == EPERM || e == EROFS ? -EINVAL : -e;
}

static int check_opts(const struct fsp_opts *o, const struct fsp_personality *p,
		      char *err, size_t errlen)
{
	uint64_t present = o->files * o->prealloc / 100;

	if (!present) {
		snprintf(err, errlen, "--prealloc: %u%% of %llu files is none; %s needs files to "
			 "open", o->prealloc, (unsigned long long)o->files, p->kind);
		return -EINVAL;
	}
	if (p->creates && present == o->files) {
		snprintf(err, errlen, "--prealloc: %s creates files and needs free entries "
			 "(use less than 100)", p->kind);
		return -EINVAL;
	}
	if (!(o->gamma > 0) || o->gamma > 1e6) {
		snprintf(err, errlen, "--gamma: the shape must be a number above 0 (e.g. 1.5)");
		return -EINVAL;
	}
	return 0;
}

/* <target>/<kind>: each personality its own subfolder, so they can share a target. */
static int make_root(const struct emu_run *run, const char *kind, char *root, size_t len,
		     char *err, size_t errlen)
{
	if (snprintf(root, len, "%s/%s", run->target->path, kind) >= (int)len) {
		snprintf(err, errlen, "--target: the path '%s' is too long", run->target->path);
		return -EINVAL;
	}
	if (mkdir(root, 0755) && errno != EEXIST) {
		int e = errno;
		snprintf(err, errlen, "--target: cannot create folder '%s': %s", root, strerror(e));
		return e == EACCES || e == EPERM || e == EROFS || e == ENOENT ? -EINVAL : -e;
	}
	return 0;
}

static int open_log(struct fsp_run *fr, const char *root, char *err, size_t errlen)
{
	if (snprintf(fr->log_path, sizeof(fr->log_path), "%s/%s", root, LOG_NAME) >=
	    (int)sizeof(fr->log_path)) {
		snprintf(err, errlen, "--target: the path '%s' is too long", root);
		return -EINVAL;
	}
	int fd = open(fr->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		snprintf(err, errlen, "--target: cannot create '%s': %s", fr->log_path, strerror(errno));
		return -EINVAL;
	}
	close(fd);
	return 0;
}

static int fsp_setup(struct emu_run *run, const struct fsp_personality *p, char *err, size_t errlen)
{
	const struct fsp_opts *o = run->opts;
	struct fsp_run *fr = run->priv;
	uint32_t lbs = run->target->lbs ? run->target->lbs : 512;
	char root[PATH_MAX];
	int rc = check_opts(o, p, err, errlen);

	if (!rc)
		rc = make_root(run, p->kind, root, sizeof(root), err, errlen);
	fr->pers = p;
	fr->direct = run->target->direct && !o->cached;
	if (!rc && fr->direct)
		rc = probe_direct(root, err, errlen);
	if (rc)
		return rc;
	fr->io = (uint32_t)((o->io_size + lbs - 1) / lbs * lbs);
	fr->lbs = lbs;
	fr->append_max = (uint32_t)o->append_max;
	run->max_io = fr->io > fr->append_max ? fr->io : fr->append_max;
	run->headline = "loop";
	struct fileset_params fp = {
		.files = (uint32_t)o->files, .width = o->dir_width > UINT32_MAX ? UINT32_MAX :
		(uint32_t)o->dir_width, .mean = o->mean, .shape = o->gamma,
		.prealloc = o->prealloc, .round = lbs, .stop = run->stop,
	};
	snprintf(fp.kind, sizeof(fp.kind), "%s", p->kind);
	rc = fileset_open(&fr->fs, root, &fp, run->seed, err, errlen);
	if (!rc && p->log && (rc = open_log(fr, root, err, errlen)) != 0)
		fileset_release(&fr->fs);       /* no teardown follows a failed setup */
	return rc;
}

static int fileserver_setup(struct emu_run *run, char *err, size_t errlen)
{
	return fsp_setup(run, &fileserver, err, errlen);
}

static int webserver_setup(struct emu_run *run, char *err, size_t errlen)
{
	return fsp_setup(run, &webserver, err, errlen);
}

static int mailserver_setup(struct emu_run *run, char *err, size_t errlen)
{
	return fsp_setup(run, &mailserver, err, errlen);
}

/* Leave the configured file count for the next run, whatever interrupted loops did. */
static void fsp_teardown(struct emu_run *run)
{
	struct fsp_run *fr = run->priv;
	struct rng r;
	char err[512];

	/* teardown has no one to tell: if this fails, the next run's scan repairs the set */
	if (fr->fs.state) {
		rng_seed(&r, run->seed, 0x5e771e);
		fileset_settle(&fr->fs, &r, err, sizeof(err));
	}
	fileset_release(&fr->fs);
}

/* --- workers --- */

static int fsp_worker_init(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;

	fw->fd = fw->logfd = -1;
	if (fr->pers->log) {
		fw->logfd = open(fr->log_path, O_WRONLY | O_APPEND | O_CLOEXEC);
		if (fw->logfd < 0)
			return emu_fail(w, -errno, "cannot open '%s': %s", fr->log_path, strerror(errno));
	}
	if (w->id == 0) {       /* the fileset's facts, once per point */
		uint64_t bytes = 0;
		for (uint32_t i = 0; i < fr->fs.p.files; i++)
			bytes += atomic_load(&fr->fs.size[i]);
		emu_count(w, CNT_FILES, fileset_count(&fr->fs));
		emu_count(w, CNT_BYTES, bytes);
		emu_count(w, CNT_BUILD_MS, (uint64_t)(fr->fs.build_s * 1000));
		emu_count(w, CNT_REUSED, fr->fs.reused);
	}
	return 0;
}

/* Close and give back whatever an interrupted loop still holds. */
static void drop(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;

	if (fw->fd >= 0)
		close(fw->fd);
	if (fw->held)
		fileset_put(&fr->fs, fw->idx, true, fw->size);
	fw->fd = -1;
	fw->held = false;
}

static void fsp_worker_fini(struct emu_worker *w)
{
	struct fsp_worker *fw = w->priv;

	drop(w);
	if (fw->logfd >= 0)
		close(fw->logfd);
	fw->logfd = -1;
}

/* Hold a random present or absent entry; 1 if the run stopped while every one was busy. */
static int pick(struct emu_worker *w, bool present)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	bool hold = !fr->pers->shared;

	while (fileset_pick(&fr->fs, &w->rng, present, hold, &fw->idx)) {
		if (emu_stopping(w))
			return 1;
		sched_yield();  /* each worker holds at most one entry: this ends soon */
	}
	fw->held = hold;
	fw->size = atomic_load_explicit(&fr->fs.size[fw->idx], memory_order_relaxed);
	return 0;
}

static int sys_fail(struct emu_worker *w, const char *what, uint32_t idx)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	char path[PATH_MAX];
	int e = errno;

	fileset_path(&fr->fs, idx, path, sizeof(path));
	return emu_fail(w, -e, "cannot %s '%s/%s': %s", what, fr->fs.root, path, strerror(e));
}

/* What the use of a file up to its close needs: reads, writes, appends. */
static void scan_use(const uint8_t *op, bool *reads, bool *appends, bool *whole_write)
{
	*reads = *appends = *whole_write = false;
	for (op++; *op != OP_CLOSE && *op != OP_END; op++) {
		*reads |= *op == OP_READ_WHOLE;
		*appends |= *op == OP_APPEND;
		*whole_write |= *op == OP_WRITE_WHOLE;
	}
}

/* Create or open the held entry, timed. O_DIRECT when the first data call may use it. */
static int open_entry(struct emu_worker *w, const uint8_t *op)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	bool reads, appends, whole, create = *op == OP_CREATE;
	char path[PATH_MAX];

	scan_use(op, &reads, &appends, &whole);
	fw->is_direct = fr->direct && (reads || whole);
	fw->flags = (reads && (appends || whole) ? O_RDWR : reads ? O_RDONLY : O_WRONLY) |
		    (create ? O_CREAT | O_EXCL : 0) | O_CLOEXEC;
	fw->dirty = false;
	fileset_path(&fr->fs, fw->idx, path, sizeof(path));
	uint64_t t0 = emu_now();
	fw->fd = openat(fr->fs.rootfd, path, fw->flags | (fw->is_direct ? O_DIRECT : 0), 0644);
	if (fw->fd < 0)
		return sys_fail(w, create ? "create" : "open", fw->idx);
	emu_record(w, create ? CLS_CREATE : CLS_OPEN, t0, 0);
	if (create)
		fw->size = 0;
	return 0;
}

/* Whole-file write of a new file: a fresh size, io-size calls, O_DIRECT when bypassing. */
static int write_whole(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	uint64_t size = fileset_draw_size(&fr->fs, &w->rng);
	void *buf = emu_buf(w, 0);

	for (uint64_t off = 0; off < size;) {
		uint32_t n = size - off < fr->io ? (uint32_t)(size - off) : fr->io;
		int64_t got = emu_io(w, CLS_WRITE, IO_WRITE, fw->fd, buf, n, off);
		if (got != n)
			return got < 0 ? emu_fail(w, (int)got, "write to '%s' failed: %s", fr->fs.root,
						  strerror((int)-got)) : emu_fail(w, -EIO, "short write");
		off += n;
	}
	fw->size = size;
	fw->dirty = !fw->is_direct;
	return 0;
}

/*
 * Read the file whole: io-size calls, the last one for what is left (rounded
 * up to the block size under O_DIRECT), so a file takes ceil(size / io)
 * calls, no extra call to find the end. The size is known: the worker holds
 * the file, or the files never change (web server).
 */
static int read_whole(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	void *buf = emu_buf(w, 0);

	for (uint64_t off = 0; off < fw->size;) {
		uint64_t left = fw->size - off;
		uint32_t n = left >= fr->io ? fr->io :
			     fw->is_direct ? (uint32_t)((left + fr->lbs - 1) / fr->lbs * fr->lbs) : (uint32_t)left;
		int64_t got = emu_io(w, CLS_READ, IO_READ, fw->fd, buf, n, off);
		if (got < 0)
			return emu_fail(w, (int)got, "read from '%s' failed: %s", fr->fs.root,
					strerror((int)-got));
		if (got == 0)
			return 0;       /* shorter than we knew: nothing more to read */
		off += (uint64_t)got;
	}
	return 0;
}

/* Append 1 B..append-max at the end; buffered (any offset), so O_DIRECT goes off first. */
static int append(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	uint32_t n = 1 + (uint32_t)rng_below(&w->rng, fr->append_max);

	if (fw->is_direct) {
		if (fcntl(fw->fd, F_SETFL, fw->flags))  /* F_SETFL keeps the access mode */
			return sys_fail(w, "switch O_DIRECT off for", fw->idx);
		fw->is_direct = false;
		emu_count(w, CNT_TOGGLE, 1);
	}
	int64_t got = emu_io(w, CLS_APPEND, IO_WRITE, fw->fd, emu_buf(w, 0), n, fw->size);
	if (got != n)
		return emu_fail(w, got < 0 ? (int)got : -EIO, "append to '%s' failed: %s",
				fr->fs.root, strerror(got < 0 ? (int)-got : EIO));
	fw->size += n;
	fw->dirty = true;
	return 0;
}

/* Start writing back what buffered writes dirtied (bypass mode, no fsync since). */
static void start_writeback(struct emu_worker *w, int fd)
{
	sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
	emu_count(w, CNT_WRITEBACK, 1);
}

/* The web server's access log: one O_APPEND descriptor per worker, like filebench's. */
static int log_append(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	uint32_t n = 1 + (uint32_t)rng_below(&w->rng, fr->append_max);

	/* O_APPEND: the kernel writes at the end whatever the offset */
	int64_t got = emu_io(w, CLS_APPEND, IO_WRITE, fw->logfd, emu_buf(w, 0), n, 0);
	if (got != n)
		return emu_fail(w, got < 0 ? (int)got : -EIO, "append to '%s' failed: %s",
				fr->log_path, strerror(got < 0 ? (int)-got : EIO));
	if (fr->direct)
		start_writeback(w, fw->logfd);
	/* whoever takes the log past the limit truncates it: it must not fill the drive */
	uint64_t total = atomic_fetch_add(&fr->log_bytes, n) + n;
	if (total > LOG_ROTATE && atomic_compare_exchange_strong(&fr->log_bytes, &total, 0) &&
	    ftruncate(fw->logfd, 0))
		return emu_fail(w, -errno, "cannot truncate '%s': %s", fr->log_path, strerror(errno));
	return 0;
}

static int close_entry(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;

	if (fw->dirty && fr->direct)
		start_writeback(w, fw->fd);
	uint64_t t0 = emu_now();
	int rc = close(fw->fd);
	fw->fd = -1;
	if (rc)
		return sys_fail(w, "close", fw->idx);
	emu_record(w, CLS_CLOSE, t0, 0);
	if (fw->held)
		fileset_put(&fr->fs, fw->idx, true, fw->size);
	fw->held = false;
	return 0;
}

static int delete_entry(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	char path[PATH_MAX];

	fileset_path(&fr->fs, fw->idx, path, sizeof(path));
	uint64_t t0 = emu_now();
	if (unlinkat(fr->fs.rootfd, path, 0))
		return sys_fail(w, "delete", fw->idx);
	emu_record(w, CLS_DELETE, t0, 0);
	fileset_put(&fr->fs, fw->idx, false, 0);
	fw->held = false;
	return 0;
}

static int stat_entry(struct emu_worker *w)
{
	struct fsp_run *fr = (struct fsp_run *)w->run->priv;
	struct fsp_worker *fw = w->priv;
	char path[PATH_MAX];
	struct stat st;

	fileset_path(&fr->fs, fw->idx, path, sizeof(path));
	uint64_t t0 = emu_now();
	if (fstatat(fr->fs.rootfd, path, &st, 0))
		return sys_fail(w, "stat", fw->idx);
	emu_record(w, CLS_STAT, t0, 0);
	if (fw->held)
		fileset_put(&fr->fs, fw->idx, true, fw->size);
	fw->held = false;
	return 0;
}

/* One operation of the loop: 0, 1 (stopped while waiting for a file), or -errno. */
static int run_op(struct emu_worker *w, const uint8_t *op)
{
	struct fsp_worker *fw = w->priv;
	int rc;

	switch (*op) {
	case OP_CREATE:
	case OP_OPEN:
		rc = pick(w, *op == OP_OPEN);
		return rc ? rc : open_entry(w, op);
	case OP_DELETE:
	case OP_STAT:
		rc = pick(w, true);
		return rc ? rc : *op == OP_DELETE ? delete_entry(w) : stat_entry(w);
	case OP_WRITE_WHOLE:
		return write_whole(w);
	case OP_APPEND:
		return append(w);
	case OP_READ_WHOLE:
		return read_whole(w);
	case OP_FSYNC: {
		int64_t r = emu_io(w, CLS_FSYNC, IO_FSYNC, fw->fd, NULL, 0, 0);
		fw->dirty = false;
		return r < 0 ? emu_fail(w, (int)r, "fsync failed: %s", strerror((int)-r)) : 0;
	}
	case OP_CLOSE:
		return close_entry(w);
	case OP_LOG_APPEND:
		return log_append(w);
	}
	return -EINVAL;
}

/* One loop of the personality's table: the application-level operation. */
static int fsp_step(struct emu_worker *w)
{
	const struct fsp_run *fr = w->run->priv;
	uint64_t t0 = emu_step_start(w);

	for (const uint8_t *op = fr->pers->flow; *op != OP_END; op++) {
		int rc = run_op(w, op);
		if (rc) {
			drop(w);
			return rc < 0 ? rc : 0;
		}
	}
	emu_record(w, CLS_LOOP, t0, 0);
	return 0;
}

static const char *const fsp_classes[] = {
	"create", "open", "read", "write", "append", "fsync", "close", "delete", "stat", "loop", NULL,
};
static const char *const fsp_counters[] = {
	"fileset_files", "fileset_bytes", "fileset_build_ms", "fileset_reused",
	"writeback_starts", "direct_switches", NULL,
};

#define FSP_OPS(NAME, DESC, OPTS, SETUP, DEFAULTS, REVIEW, QUICK) { \
	.name = NAME, .desc = DESC, .flags = EMU_TARGET_DIR | EMU_WRITES | EMU_RATE, .opts = OPTS, \
	.opts_size = sizeof(struct fsp_opts), .run_priv_size = sizeof(struct fsp_run), \
	.worker_priv_size = sizeof(struct fsp_worker), .classes = fsp_classes, \
	.counters = fsp_counters, .suite_review_args = REVIEW, .suite_quick_args = QUICK, \
	.default_args = DEFAULTS, \
	.setup = SETUP, .worker_init = fsp_worker_init, .step = fsp_step, \
	.worker_fini = fsp_worker_fini, .teardown = fsp_teardown, \
}

const struct emu_ops emu_fileserver_fs = FSP_OPS("fileserver-fs",
	"file-system personality: file server (create, write, append, read, delete, stat)",
	fileserver_opts, fileserver_setup, "--threads 50",
	"--threads 1,2,4,8,16,32,50 --time 60 --engine sync",
	"--threads 4,16 --time 3 --files 1000 --engine sync");
const struct emu_ops emu_webserver_fs = FSP_OPS("webserver-fs",
	"file-system personality: web server (10 whole-file reads, one log append)",
	webserver_opts, webserver_setup, "--threads 100",
	"--threads 1,2,4,8,16,32,64,100 --time 60 --engine sync",
	"--threads 4,16 --time 3 --files 500 --engine sync");
const struct emu_ops emu_mailserver_fs = FSP_OPS("mailserver-fs",
	"file-system personality: mail server (delete, create, append, fsync, read)",
	mailserver_opts, mailserver_setup, "--threads 16",
	"--threads 1,2,4,8,16,32 --time 60 --engine sync",
	"--threads 4,16 --time 3 --files 500 --engine sync");
