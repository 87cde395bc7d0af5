/*
 * nosql_stand.c - a forest's on-disk stands: files, references, the saver
 * and the merger (see nosql_int.h and the model at the top of nosql.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nosql_int.h"
#include "appio/xalloc.h"

void nosql_stand_put(struct stand *s)
{
	if (atomic_fetch_sub(&s->refs, 1) == 1) {
		if (s->fd >= 0)
			close(s->fd);
		free(s);
	}
}

static void stand_name(uint32_t uid, char *buf, size_t len)
{
	snprintf(buf, len, "stand-%08u", uid);
}

/* A new stand of @data_bytes fragment bytes: the file is created, not yet written. */
struct stand *nosql_stand_create(const struct nosql_run *nr, struct forest *f, uint32_t uid,
				  uint64_t data_bytes)
{
	struct stand *s = xcalloc(1, sizeof(*s));
	char name[32];

	stand_name(uid, name, sizeof(name));
	s->uid = uid;
	s->data_bytes = data_bytes;
	s->data_area = nosql_round_up(data_bytes ? data_bytes : 1, PAGE);
	s->file_bytes = s->data_area + nosql_round_up(data_bytes * INDEX_PCT / 100 + 1, PAGE);
	atomic_init(&s->refs, 1);
	s->fd = openat(f->dirfd, name, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC |
		       (nr->direct ? O_DIRECT : 0), 0644);
	if (s->fd < 0) {
		free(s);
		return NULL;
	}
	return s;
}

/* Give up a stand that was never listed: its file goes too. */
void nosql_stand_discard(struct forest *f, struct stand *s)
{
	char name[32];
	stand_name(s->uid, name, sizeof(name));
	unlinkat(f->dirfd, name, 0);
	nosql_stand_put(s);
}

/* --- background: saves and merges --- */

/* Sleep until @bytes at @rate bytes/s since @t0 are due; true if the run stopped meanwhile. */
static bool throttle(struct emu_worker *w, uint64_t rate, uint64_t t0, uint64_t bytes)
{
	if (!rate)
		return emu_stopping(w);
	uint64_t due = t0 + (uint64_t)((double)bytes / (double)rate * 1e9);
	for (uint64_t now = emu_now(); now < due; now = emu_now()) {
		if (emu_stopping(w))
			return true;
		uint64_t ns = due - now < 50000000 ? due - now : 50000000;
		nanosleep(&(struct timespec){ .tv_nsec = (long)ns }, NULL);
	}
	return emu_stopping(w);
}

static int io_fail(struct emu_worker *w, int64_t got, const char *what, const struct stand *s)
{
	int rc = got < 0 ? (int)got : -EIO;
	return emu_fail(w, rc, "%s of stand %u failed: %s", what, s->uid, strerror(-rc));
}

/* Write [off, end) of @s in CHUNK writes under @cls; 1 if the run stopped first. */
static int write_range(struct emu_worker *w, struct stand *s, unsigned cls, uint64_t off,
		       uint64_t end)
{
	void *buf = emu_buf(w, 0);

	for (; off < end; off += CHUNK) {
		uint32_t n = end - off < CHUNK ? (uint32_t)(end - off) : CHUNK;
		int64_t got = emu_io(w, cls, IO_WRITE, s->fd, buf, n, off);
		if (got != n)
			return io_fail(w, got, cls == CLS_SAVE_WRITE ? "save" : "merge write", s);
		if (emu_stopping(w))
			return 1;
	}
	return 0;
}

static int sync_stand(struct emu_worker *w, struct stand *s)
{
	int64_t got = emu_io(w, CLS_STAND_SYNC, IO_FSYNC, s->fd, NULL, 0, 0);
	return got < 0 ? io_fail(w, got, "fsync", s) : 0;
}

/* List a new stand (waiting while the forest is at MarkLogic's 64-stand limit). */
static bool add_stand(struct emu_worker *w, struct forest *f, struct stand *s)
{
	while (f->nstands == NOSQL_MAX_STANDS) {
		nosql_forest_wait(f, 10);
		if (emu_stopping(w))
			return false;
	}
	f->stands[f->nstands++] = s;
	pthread_cond_broadcast(&f->cv);
	return true;
}

/* The saver: write the full in-memory stand as a new stand file. */
int nosql_stand_save(struct emu_worker *w, struct forest *f)
{
	struct nosql_run *nr = w->run->priv;

	pthread_mutex_lock(&f->lock);
	if (!f->save_pending)
		nosql_forest_wait(f, 50);
	bool due = f->save_pending;
	uint64_t bytes = f->save_bytes;
	uint32_t uid = due ? f->next_uid++ : 0;
	pthread_mutex_unlock(&f->lock);
	if (!due)
		return 0;

	struct stand *s = nosql_stand_create(nr, f, uid, bytes);
	if (!s)
		return emu_fail(w, -errno, "cannot create a stand in '%s': %s", f->dir, strerror(errno));
	int rc = write_range(w, s, CLS_SAVE_WRITE, 0, s->file_bytes);
	if (!rc)
		rc = sync_stand(w, s);
	pthread_mutex_lock(&f->lock);
	s->frags = f->save_frags;
	s->live = f->save_live;
	bool listed = !rc && add_stand(w, f, s);
	if (listed)
		f->save_pending = false;        /* else the next point saves it again */
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->lock);
	if (!listed) {
		nosql_stand_discard(f, s);
		return rc < 0 ? rc : 0;
	}
	nosql_journal_rotate(&f->journal);
	emu_count(w, CNT_SAVES, 1);
	return 0;
}

/* The policy's choice among the forest's stands, referenced; under the lock. */
static unsigned choose_merge(const struct nosql_run *nr, struct forest *f, struct stand **in,
			     uint64_t *out_bytes, uint64_t *out_frags)
{
	struct nosql_merge_stand ms[NOSQL_MAX_STANDS];
	bool chosen[NOSQL_MAX_STANDS];
	unsigned k = 0;

	for (unsigned i = 0; i < f->nstands; i++) {
		const struct stand *s = f->stands[i];
		ms[i] = (struct nosql_merge_stand){ .frags = s->frags, .bytes = s->file_bytes,
			.out_bytes = s->frags ? s->data_bytes * s->live / s->frags : 0 };
	}
	if (!nosql_merge_pick(ms, f->nstands, &nr->policy, chosen))
		return 0;
	*out_bytes = *out_frags = 0;
	for (unsigned i = 0; i < f->nstands; i++) {
		if (!chosen[i])
			continue;
		in[k++] = f->stands[i];
		atomic_fetch_add(&f->stands[i]->refs, 1);
		*out_bytes += ms[i].out_bytes;
		*out_frags += f->stands[i]->live;
	}
	return k;
}

/* Read the inputs in order, writing the output's share as it accrues; 1 if stopped. */
static int merge_io(struct emu_worker *w, struct stand **in, unsigned k, struct stand *out)
{
	const struct nosql_opts *o = w->run->opts;
	uint64_t total = 0, done = 0, out_off = 0, t0 = emu_now();
	double owed = 0;
	int rc = 0;

	for (unsigned i = 0; i < k; i++)
		total += in[i]->file_bytes;
	for (unsigned i = 0; i < k && !rc; i++) {
		for (uint64_t off = 0; off < in[i]->file_bytes && !rc; off += CHUNK) {
			uint32_t n = in[i]->file_bytes - off < CHUNK ? (uint32_t)(in[i]->file_bytes - off) : CHUNK;
			int64_t got = emu_io(w, CLS_MERGE_READ, IO_READ, in[i]->fd, emu_buf(w, 0), n, off);
			if (got != n)
				return io_fail(w, got, "merge read", in[i]);
			done += n;
			owed += (double)n * (double)out->file_bytes / (double)total;
			uint64_t upto = out_off + (uint64_t)owed / CHUNK * CHUNK;
			upto = upto < out->file_bytes ? upto : out->file_bytes;
			rc = write_range(w, out, CLS_MERGE_WRITE, out_off, upto);
			owed -= (double)(upto - out_off);
			out_off = upto;
			if (!rc && throttle(w, o->merge_rate, t0, done))
				rc = 1;
		}
	}
	if (!rc)
		rc = write_range(w, out, CLS_MERGE_WRITE, out_off, out->file_bytes);
	emu_count(w, CNT_MERGE_IN, done);
	emu_count(w, CNT_MERGE_OUT, out_off);
	return rc ? rc : sync_stand(w, out);
}

/* Swap the inputs for the output in the forest's list; delete the inputs' files. */
static void install_merge(struct forest *f, struct stand **in, unsigned k, struct stand *out)
{
	char name[32];
	unsigned n = 0;

	out->live = 0;
	for (unsigned i = 0; i < k; i++)
		out->live += in[i]->live;       /* updates during the merge made some obsolete */
	for (unsigned i = 0; i < f->nstands; i++) {
		bool input = false;
		for (unsigned q = 0; q < k; q++)
			input |= f->stands[i] == in[q];
		if (!input)
			f->stands[n++] = f->stands[i];
	}
	f->stands[n++] = out;
	f->nstands = n;
	pthread_cond_broadcast(&f->cv);
	for (unsigned i = 0; i < k; i++) {
		stand_name(in[i]->uid, name, sizeof(name));
		unlinkat(f->dirfd, name, 0);    /* readers still holding it keep their descriptor */
		nosql_stand_put(in[i]);               /* the list's reference */
	}
}

/* The merger: one merge if the policy asks for one. */
int nosql_stand_merge(struct emu_worker *w, struct forest *f)
{
	struct nosql_run *nr = w->run->priv;
	struct stand *in[NOSQL_MAX_STANDS];
	uint64_t out_bytes, out_frags;

	pthread_mutex_lock(&f->lock);
	unsigned k = choose_merge(nr, f, in, &out_bytes, &out_frags);
	if (!k)
		nosql_forest_wait(f, 100);
	uint32_t uid = k ? f->next_uid++ : 0;
	pthread_mutex_unlock(&f->lock);
	if (!k)
		return 0;

	struct stand *out = nosql_stand_create(nr, f, uid, out_bytes);
	int rc = out ? merge_io(w, in, k, out) :
		 emu_fail(w, -errno, "cannot create a stand in '%s': %s", f->dir, strerror(errno));
	if (!rc) {
		out->frags = out_frags;
		pthread_mutex_lock(&f->lock);
		install_merge(f, in, k, out);
		pthread_mutex_unlock(&f->lock);
		emu_count(w, CNT_MERGES, 1);
	} else if (out) {
		nosql_stand_discard(f, out);
	}
	for (unsigned i = 0; i < k; i++)
		nosql_stand_put(in[i]);               /* this merge's references */
	return rc < 0 ? rc : 0;
}
