/*
 * nosql_journal.h - a forest's journal with group commit.
 *
 * An update transaction appends one frame (its document plus a header) to the
 * forest's journal and is acknowledged only when the frame is durable. The
 * journal does what MarkLogic's (and InnoDB's, and PostgreSQL's WAL) does to
 * make that affordable: committers copy their frames into an in-memory
 * buffer under the journal lock, and whichever committer finds no write in
 * progress becomes the leader: it takes the whole buffer (every frame
 * appended so far, its own and other threads'), writes it with one call and
 * makes it durable with one fdatasync, while the others wait, and meanwhile
 * new frames go to the second buffer. So at one thread there is one fsync per
 * commit, and at 32 threads one fsync covers many commits.
 *
 * Writes are whole blocks of @align bytes at aligned offsets, so the journal
 * file can be opened with O_DIRECT: a flush that ends inside a block pads it
 * with zeros, and the next flush rewrites that block with the frames that
 * followed (InnoDB's redo log does the same).
 *
 * The I/O itself is the caller's (struct nosql_journal_io): the emulator
 * writes through the core's engine and records the latency; the unit test
 * counts and checks the writes. Any thread may commit; every wait is a timed
 * wait that gives up when io->stopping() says the run is over.
 */
#ifndef APPIO_NOSQL_JOURNAL_H
#define APPIO_NOSQL_JOURNAL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

struct nosql_journal_io {
	/*
	 * Write @len bytes (a multiple of align) at @off (aligned) to the current
	 * journal file and make them durable. 0 or -errno. Called by the leader,
	 * without the journal lock, one call at a time.
	 */
	int (*write)(void *ctx, void *buf, uint32_t len, uint64_t off);
	/* Start a new journal file (after a write, when asked by nosql_journal_rotate()). 0 or -errno. */
	int (*rotate)(void *ctx);
	/* Has the run been told to stop? Polled by waiting committers. */
	bool (*stopping)(void *ctx);
	void *ctx;
};

struct nosql_journal {
	pthread_mutex_t lock;
	pthread_cond_t cv;
	uint32_t align;         /* write unit: the target's logical block size */
	uint32_t cap;           /* bytes per buffer */
	char *buf[2];           /* 4096-aligned */
	unsigned fill;          /* buffer frames are copied into */
	uint32_t fill_len;      /* its bytes, from fill_off (may start with a carried partial block) */
	uint64_t fill_off;      /* file offset of its first byte, aligned */
	uint64_t lsn;           /* frame bytes appended, ever */
	uint64_t durable;       /* frame bytes known durable */
	bool flushing;          /* a leader is writing */
	bool rotate;            /* the next flush ends the file: later frames start a new one */
	uint64_t commits, flushes;
};

/*
 * Prepare @j with two buffers of @cap bytes (a multiple of @align, which is
 * a power of two dividing 4096). 0 or -EINVAL.
 */
int nosql_journal_init(struct nosql_journal *j, uint32_t cap, uint32_t align);

/* Free the buffers. Safe on a zeroed journal. No commit may be running. */
void nosql_journal_release(struct nosql_journal *j);

/*
 * Append @frame (@len bytes, at most cap / 4) and return when it is durable:
 * 0; 1 if the run stopped before it was (not acknowledged); -errno if this
 * thread led a flush and the write failed.
 */
int nosql_journal_commit(struct nosql_journal *j, const void *frame, uint32_t len,
			 const struct nosql_journal_io *io);

/* Ask for a new journal file after the next flush (a stand was saved). Any thread. */
void nosql_journal_rotate(struct nosql_journal *j);

#endif
