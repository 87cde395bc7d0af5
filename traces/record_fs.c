/*
 * record_fs.c - a capture's tracefs instance through libtracefs. tracefs is
 * one file system per kernel: an instance (a folder under instances/) has
 * ring buffers, a clock, events and filters of its own, so appio's settings
 * change nothing another tracer uses. The instance is named after the
 * process; one left by a capture that was killed (its process gone) is
 * removed by the next capture. When tracefs is not mounted anywhere, it is
 * mounted on a temporary folder inside a private mount namespace: nothing
 * shows in the system's mounts and nothing outlives the process.
 */
#ifdef HAVE_TRACEFS

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "record_fs.h"
#include "record_mnt.h"

/* Remove instances "appio-PID" whose process is gone (a capture that was killed). */
static void remove_stale(const char *root)
{
	char dir[600];
	DIR *d;
	struct dirent *e;
	int pid;

	snprintf(dir, sizeof(dir), "%s/instances", root);
	if (!(d = opendir(dir)))
		return;
	while ((e = readdir(d)))
		if (sscanf(e->d_name, "appio-%d", &pid) == 1 && pid > 0 && kill(pid, 0) && errno == ESRCH) {
			char p[900];
			snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
			rmdir(p);
		}
	closedir(d);
}

static const char *const block_events[] = { "block_rq_issue", "block_rq_complete", "block_rq_requeue" };

/*
 * The parser knows the ring buffer's page header and the three block events,
 * nothing more. tracefs_local_events_system() would also read /proc/kallsyms,
 * the saved command lines and the printk formats, which a capture never
 * prints: megabytes read at every start (seconds under a sanitizer).
 */
static struct tep_handle *load_block_formats(void)
{
	struct tep_handle *tep = tep_alloc();
	char *buf;
	int size;

	if (!tep)
		return NULL;
	buf = tracefs_instance_file_read(NULL, "events/header_page", &size);
	if (!buf || tep_parse_header_page(tep, buf, (unsigned long)size, (int)sizeof(long))) {
		free(buf);
		tep_free(tep);
		return NULL;
	}
	free(buf);
	/* the kernel's long, which the ring buffer's page header (its commit field) is made of */
	tep_set_long_size(tep, tep_get_header_page_size(tep));
	for (int i = 0; i < 3; i++) {
		/* an event the kernel lacks is named by find_fields() */
		if ((buf = tracefs_event_file_read(NULL, "block", block_events[i], "format", &size)))
			tep_parse_event(tep, buf, (unsigned long)size, "block");
		free(buf);
	}
	return tep;
}

static int find_fields(struct record_fs *fs, const char *name, struct record_fields *f,
		       char *err, size_t errlen)
{
	struct tep_event *ev = tep_find_event_by_name(fs->tep, "block", name);

	if (ev) {
		f->id = ev->id;
		f->pid = tep_find_common_field(ev, "common_pid");
		f->dev = tep_find_field(ev, "dev");
		f->sector = tep_find_field(ev, "sector");
		f->nr_sector = tep_find_field(ev, "nr_sector");
		f->bytes = tep_find_field(ev, "bytes");
		f->rwbs = tep_find_field(ev, "rwbs");
	}
	if (!ev || !f->pid || !f->dev || !f->sector || !f->nr_sector || !f->rwbs) {
		snprintf(err, errlen, "tracefs: the event block/%s is missing or lacks dev, sector, "
			 "nr_sector or rwbs (CONFIG_BLK_DEV_IO_TRACE off?)", name);
		return -ENOTSUP;
	}
	return 0;
}

/* Write @val to the instance's @file; -errno with a message naming both. */
static int set(struct record_fs *fs, const char *file, const char *val, char *err, size_t errlen)
{
	if (tracefs_instance_file_write(fs->inst, file, val) >= 0)
		return 0;
	int e = errno ? errno : EIO;
	if (e == EPERM || e == EACCES)
		return record_mnt_perm(err, errlen, "set up a tracefs instance");
	snprintf(err, errlen, "tracefs: cannot write '%s' to %s/instances/%s/%s: %s", val, fs->root,
		 fs->name, file, strerror(e));
	return -e;
}

static int set_events(struct record_fs *fs, uint64_t kdev, char *err, size_t errlen)
{
	char file[96], filter[64];
	int rc;

	snprintf(filter, sizeof(filter), "dev == %" PRIu64, kdev);
	for (int i = 0; i < 3; i++) {
		snprintf(file, sizeof(file), "events/block/%s/filter", block_events[i]);
		if ((rc = set(fs, file, filter, err, errlen)))
			return rc;
		snprintf(file, sizeof(file), "events/block/%s/enable", block_events[i]);
		if ((rc = set(fs, file, "1", err, errlen)))
			return rc;
	}
	return set(fs, "tracing_on", "1", err, errlen);
}

static int open_readers(struct record_fs *fs, char *err, size_t errlen)
{
	fs->ncpu = (int)sysconf(_SC_NPROCESSORS_CONF);
	fs->cpu = calloc((size_t)(fs->ncpu > 0 ? fs->ncpu : 1), sizeof(*fs->cpu));
	if (!fs->cpu)
		return -ENOMEM;
	for (int c = 0; c < fs->ncpu; c++) {
		fs->cpu[c] = tracefs_cpu_open(fs->inst, c, true);
		if (!fs->cpu[c] && errno != ENOENT) {     /* ENOENT: a CPU that is not there */
			snprintf(err, errlen, "tracefs: cannot open the buffer of CPU %d: %s", c, strerror(errno));
			return -EIO;
		}
		int sz = fs->cpu[c] ? tracefs_cpu_read_size(fs->cpu[c]) : 0;
		if (sz > fs->page_size)
			fs->page_size = sz;
	}
	fs->page = fs->page_size > 0 ? malloc((size_t)fs->page_size) : NULL;
	fs->kbuf = tep_kbuffer(fs->tep);
	if (!fs->page || !fs->kbuf) {
		snprintf(err, errlen, "tracefs: cannot read the ring buffers (sub-buffer size %d)", fs->page_size);
		return -EIO;
	}
	return 0;
}

int record_fs_open(struct record_fs *fs, uint64_t kdev, uint64_t buffer_kb, char *err, size_t errlen)
{
	char val[32];
	int rc;

	memset(fs, 0, sizeof(*fs));
	if (!record_mnt_sys_admin())
		return record_mnt_perm(err, errlen, "trace the block layer");
	if ((rc = record_mnt_get("tracefs", fs->root, sizeof(fs->root), fs->mnt, sizeof(fs->mnt), err, errlen)))
		return rc;
	if (tracefs_set_tracing_dir(fs->root)) {
		snprintf(err, errlen, "tracefs: cannot use '%s'", fs->root);
		return -EIO;
	}
	remove_stale(fs->root);
	snprintf(fs->name, sizeof(fs->name), "appio-%d", (int)getpid());
	if (!(fs->inst = tracefs_instance_create(fs->name))) {
		snprintf(err, errlen, "tracefs: cannot create the instance '%s' in %s/instances: %s", fs->name,
			 fs->root, strerror(errno));
		return -EIO;
	}
	if (!(fs->tep = load_block_formats())) {
		snprintf(err, errlen, "tracefs: cannot read the formats of the block events in %s/events",
			 fs->root);
		return -EIO;
	}
	if ((rc = find_fields(fs, "block_rq_issue", &fs->issue, err, errlen)) ||
	    (rc = find_fields(fs, "block_rq_complete", &fs->complete, err, errlen)) ||
	    (rc = find_fields(fs, "block_rq_requeue", &fs->requeue, err, errlen)))
		return rc;
	snprintf(val, sizeof(val), "%" PRIu64, buffer_kb);
	if ((rc = set(fs, "tracing_on", "0", err, errlen)) || (rc = set(fs, "buffer_size_kb", val, err, errlen)) ||
	    (rc = set(fs, "trace_clock", "mono", err, errlen)) ||
	    (rc = set(fs, "options/overwrite", "0", err, errlen)) ||
	    (rc = open_readers(fs, err, errlen)))
		return rc;
	return set_events(fs, kdev, err, errlen);
}

void record_fs_stop(struct record_fs *fs)
{
	if (fs->inst)
		tracefs_instance_file_write(fs->inst, "tracing_on", "0");
}

int record_fs_read(struct record_fs *fs, int cpu)
{
	if (!fs->cpu[cpu])
		return 0;
	/* a non-blocking read of an empty buffer is -1 (EAGAIN) or 0, depending on the version */
	int n = tracefs_cpu_read(fs->cpu[cpu], fs->page, true);
	if (n <= 0)
		return 0;
	if (kbuffer_load_subbuffer(fs->kbuf, fs->page) < 0)
		return -EIO;
	return n;
}

uint64_t record_fs_dropped(struct record_fs *fs)
{
	uint64_t sum = 0;

	for (int c = 0; c < fs->ncpu; c++) {
		char file[64], *text, *p;
		unsigned long long v;
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		if (!(text = tracefs_instance_file_read(fs->inst, file, NULL)))
			continue;
		if ((p = strstr(text, "overrun:")) && sscanf(p, "overrun: %llu", &v) == 1)
			sum += v;
		if ((p = strstr(text, "dropped events:")) && sscanf(p, "dropped events: %llu", &v) == 1)
			sum += v;
		free(text);
	}
	return sum;
}

void record_fs_close(struct record_fs *fs)
{
	for (int c = 0; fs->cpu && c < fs->ncpu; c++)
		if (fs->cpu[c])
			tracefs_cpu_close(fs->cpu[c]);
	free(fs->cpu);
	free(fs->page);
	if (fs->kbuf)
		kbuffer_free(fs->kbuf);
	if (fs->tep)
		tep_free(fs->tep);
	if (fs->inst) {
		tracefs_instance_file_write(fs->inst, "tracing_on", "0");
		tracefs_instance_destroy(fs->inst);
		tracefs_instance_free(fs->inst);
	}
	record_mnt_put(fs->mnt);
	memset(fs, 0, sizeof(*fs));
}

#endif /* HAVE_TRACEFS */
