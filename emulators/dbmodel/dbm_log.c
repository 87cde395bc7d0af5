/*
 * dbm_log.c - the redo log / WAL: LSN allocation, group commit, log-space
 * stalls and checkpoints.
 *
 * Group commit is leader/follower, as MariaDB 10.5+ (group_commit_lock in
 * log_write_up_to) and PostgreSQL (XLogFlush under WALWriteLock) do it: a
 * committer that finds its LSN not yet durable and nobody writing becomes the
 * leader, writes everything appended so far (its own and every other pending
 * commit) in one sequential write, fsyncs once, and wakes the others; those
 * that arrive while it writes wait, and usually find their LSN covered when
 * it is done. N workers committing together thus cost fewer than N fsyncs.
 *
 * The log region is circular: LSN l lives at body offset l mod body size.
 * Writes cover whole blocks (the last partial block is written again by the
 * next write), which is why physical log bytes exceed the LSN bytes.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "dbm.h"

#define WAIT_NS 10000000ULL
#define CHUNK (1U << 20)        /* largest single log write (run->max_io) */

uint64_t dbm_log_advance(struct emu_worker *w, struct dbm *db, uint64_t bytes)
{
	emu_count(w, DBM_C_LOG_BYTES, bytes);
	return atomic_fetch_add(&db->lsn, bytes) + bytes;
}

int dbm_log_space(struct emu_worker *w, struct dbm *db)
{
	if (atomic_load(&db->lsn) - atomic_load(&db->ckpt_lsn) <= db->max_age)
		return 0;
	/* log_free_check(): the checkpoint is too old; wait for the flusher to
	   advance it (InnoDB's sync flush point; the real cause of TPS dips) */
	uint64_t t0 = emu_now();
	int rc = 0;
	emu_count(w, DBM_C_STALLS, 1);
	pthread_mutex_lock(&db->log_mx);
	while (atomic_load(&db->lsn) - atomic_load(&db->ckpt_lsn) > db->max_age) {
		if (emu_stopping(w)) {
			rc = 1;
			break;
		}
		pthread_mutex_unlock(&db->log_mx);
		dbm_flush_kick(db);
		pthread_mutex_lock(&db->log_mx);
		dbm_wait(w, db, &db->log_cv, &db->log_mx, WAIT_NS);
	}
	pthread_mutex_unlock(&db->log_mx);
	emu_count(w, DBM_C_STALL_US, (emu_now() - t0) / 1000);
	return rc;
}

/* Write LSN range [from, to) to the circular body, whole blocks, in chunks. */
static int write_range(struct emu_worker *w, struct dbm *db, uint64_t from, uint64_t to)
{
	uint64_t a = from - from % db->log_block;
	uint64_t b = (to + db->log_block - 1) / db->log_block * db->log_block;

	while (a < b) {
		uint64_t pos = a % db->log_body;
		uint64_t len = b - a;
		if (len > CHUNK)
			len = CHUNK;
		if (len > db->log_body - pos)
			len = db->log_body - pos;
		int64_t r = dbm_io_fd(w, db, db->log_fd, DBM_CLS_LOG_WRITE, IO_WRITE, emu_buf(w, 0),
				      (uint32_t)len, db->log_off + db->log_block + pos);
		if (r != (int64_t)len)
			return emu_fail(w, r < 0 ? (int)r : -EIO, "log write of %llu bytes failed",
					(unsigned long long)len);
		emu_count(w, DBM_C_LOG_WRITES, 1);
		emu_count(w, DBM_C_LOG_WRITE_BYTES, len);
		a += len;
	}
	return 0;
}

/* The log's pages only, then the drive's cache (dbm_start() says why). */
static int log_fsync(struct emu_worker *w, struct dbm *db)
{
	int64_t r;

	if (db->log_map) {
		dbm_block_begin(w, db);
		uint64_t t0 = emu_now();
		r = msync(db->log_map, db->log_size, MS_SYNC) ? -errno : 0;
		emu_record(w, DBM_CLS_LOG_WRITE, t0, 0);
		dbm_block_end(w, db);
	} else {
		r = dbm_io(w, db, DBM_CLS_LOG_WRITE, IO_FDATASYNC, NULL, 0, 0);
	}
	if (r < 0)
		return emu_fail(w, (int)r, "log fsync failed");
	emu_count(w, DBM_C_LOG_FSYNCS, 1);
	emu_count(w, DBM_C_LOG_FLUSHES, 1);
	return 0;
}

/* As the leader: write what is pending (and fsync if @durable). Called without locks. */
static int lead(struct emu_worker *w, struct dbm *db, uint64_t from, uint64_t to, bool durable)
{
	int rc = to > from ? write_range(w, db, from, to) : 0;
	if (!rc && durable)
		rc = log_fsync(w, db);
	return rc;
}

int dbm_log_up_to(struct emu_worker *w, struct dbm *db, uint64_t lsn, bool durable)
{
	int rc = 0;

	pthread_mutex_lock(&db->log_mx);
	while ((durable ? db->flushed_lsn : db->written_lsn) < lsn) {
		if (db->log_busy) {     /* a follower: the leader may cover us */
			dbm_wait(w, db, &db->log_cv, &db->log_mx, WAIT_NS);
			if (emu_stopping(w)) {
				rc = 1;
				break;
			}
			continue;
		}
		db->log_busy = true;
		uint64_t from = db->written_lsn;
		pthread_mutex_unlock(&db->log_mx);
		/*
		 * InnoDB: the leader needs a CPU to issue the write; a server
		 * thread woken from the last group's wait queues for one behind
		 * the statements, and commits that come meanwhile join its group.
		 * Without this wait, at 16-32 threads the model fsynced 1.1-2.1x
		 * as often a transaction as MariaDB; with it, 0.75-1.29x. The same
		 * wait made PostgreSQL's groups too large (0.41-0.67x its WAL
		 * fsyncs at 16 threads; 0.87-1.50x without), so it is InnoDB's
		 * alone (docs/fidelity-history.md, "The CPUs as a run queue").
		 */
		if (db->model == DBM_INNODB) {
			dbm_cpu_take(w, db);
			dbm_cpus_give(&db->cpuq);
		}
		uint64_t to = atomic_load(&db->lsn);
		rc = lead(w, db, from, to, durable);
		/*
		 * PostgreSQL: the backend is woken from the fsync and needs a CPU
		 * again before it releases WALWriteLock, and commits that come
		 * meanwhile queue on the lock for the next flush. Its wal_sync_time
		 * (track_wal_io_timing) shows the wait: 0.14 ms an fsync at 2
		 * threads, 0.27 ms at 16 (4 x 100k rows, 15 s, 5 December).
		 */
		if (db->model == DBM_POSTGRES && durable)
			dbm_cpus_wake(&db->cpuq);
		pthread_mutex_lock(&db->log_mx);
		db->log_busy = false;
		if (!rc) {
			db->written_lsn = to > db->written_lsn ? to : db->written_lsn;
			if (durable && to > db->flushed_lsn)
				db->flushed_lsn = to;
		}
		pthread_cond_broadcast(&db->log_cv);
		if (rc)
			break;
	}
	pthread_mutex_unlock(&db->log_mx);
	return rc;
}

int dbm_log_checkpoint(struct emu_worker *w, struct dbm *db, uint64_t lsn)
{
	if (lsn <= atomic_load(&db->ckpt_lsn))
		return 0;
	/* the checkpoint LSN itself must be durable before the header names it */
	int rc = dbm_log_up_to(w, db, lsn, true);
	if (rc)
		return rc;
	int64_t r = dbm_io_fd(w, db, db->log_fd, DBM_CLS_LOG_WRITE, IO_WRITE, emu_buf(w, 0),
			      db->log_block, db->log_off);
	if (r != (int64_t)db->log_block)
		return emu_fail(w, r < 0 ? (int)r : -EIO, "checkpoint write failed");
	emu_count(w, DBM_C_LOG_WRITES, 1);
	emu_count(w, DBM_C_LOG_WRITE_BYTES, db->log_block);
	if ((rc = log_fsync(w, db)) != 0)
		return rc;
	emu_count(w, DBM_C_CKPTS, 1);
	pthread_mutex_lock(&db->log_mx);
	atomic_store(&db->ckpt_lsn, lsn);
	pthread_cond_broadcast(&db->log_cv);
	pthread_mutex_unlock(&db->log_mx);
	return 0;
}
