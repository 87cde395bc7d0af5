/*
 * engine.h - I/O engines: how a worker's requests reach the kernel.
 *
 * An engine is a small ops table (sync, libaio, io_uring, null) registered in
 * engine_table[] (src/registry.c). The split follows fio's batching model so
 * that one system call can submit many requests:
 *
 *   queue()      hand over one prepared request. A synchronous engine does the
 *                I/O right here and returns ENGINE_COMPLETED; an asynchronous
 *                one stores it and returns ENGINE_QUEUED.
 *   commit()     submit everything queued since the last commit in as few
 *                system calls as possible (one io_submit / io_uring_enter).
 *   getevents()  wait for at least @min and return at most @max completions.
 *
 * The core owns the engine's private state (priv_size bytes, zeroed, 64-byte
 * aligned) and the requests; an engine never allocates per I/O. One engine
 * context belongs to one worker thread; no callback takes a lock shared with
 * another worker.
 */
#ifndef APPIO_ENGINE_H
#define APPIO_ENGINE_H

#include <stddef.h>
#include <stdint.h>

enum io_op {
	IO_READ,
	IO_WRITE,
	IO_FSYNC,
	IO_FDATASYNC,
	IO_DISCARD,             /* BLKDISCARD on a device, FALLOC_FL_PUNCH_HOLE on a file */
};

/*
 * One request. The core (or an emulator through the core) fills fd, op, buf,
 * len, off and cls; the engine fills res on completion. A request stays owned
 * by the engine from queue() until getevents() hands it back.
 */
struct io_req {
	void *buf;              /* aligned to the target's logical block size */
	uint64_t off;           /* byte offset */
	uint32_t len;           /* bytes; 0 for fsync/fdatasync */
	uint8_t op;             /* enum io_op */
	uint8_t cls;            /* statistics class index, for the core */
	uint16_t slot;          /* index in the worker's request array, for the core */
	int fd;
	int64_t res;            /* bytes transferred (0 for fsync) or -errno */
	uint64_t t_start;       /* submission time in ns, for the core */
	uint64_t t_intended;    /* scheduled emulators: when it should be submitted
				   (emu_now() clock, ns); 0: as soon as a slot is free */
};

enum engine_flags {
	ENGINE_SYNC  = 1 << 0,  /* queue() completes every request itself */
	ENGINE_NO_IO = 1 << 1,  /* touches no device: measures appio's own cost */
};

enum engine_queue_result {
	ENGINE_QUEUED    = 0,   /* held until commit(); reported by getevents() */
	ENGINE_COMPLETED = 1,   /* done inside queue(); res is set */
};

struct engine_ops {
	const char *name;
	const char *desc;       /* one line for 'appio list' */
	unsigned flags;         /* enum engine_flags */
	size_t priv_size;       /* bytes of private state the core allocates */

	/*
	 * Optional. Prepare @priv for up to @qd requests in flight. Called by the
	 * worker thread before the clock starts; may allocate. Returns 0 or -errno.
	 */
	int (*init)(void *priv, unsigned qd);

	/* Optional. Free what init() allocated; called even if init() failed. */
	void (*release)(void *priv);

	/*
	 * Required. Take @r. Returns ENGINE_COMPLETED (r->res set), ENGINE_QUEUED,
	 * or -errno if the request could not be accepted (nothing queued).
	 * Never called with more than @qd requests outstanding.
	 */
	int (*queue)(void *priv, struct io_req *r);

	/* Optional (required unless ENGINE_SYNC). Submit all queued requests. 0 or -errno. */
	int (*commit)(void *priv);

	/*
	 * Optional (required unless ENGINE_SYNC). Wait until at least @min of the
	 * submitted requests completed and store up to @max of them in @done,
	 * with res set. Returns how many were stored, or -errno. EINTR is retried
	 * inside the engine.
	 */
	int (*getevents)(void *priv, unsigned min, unsigned max, struct io_req **done);
};

/* NULL-terminated registry of the engines this build has (src/registry.c). */
extern const struct engine_ops *const engine_table[];

/* The blocking engine, which the others and emu_io() borrow for what they
   must do synchronously (discard; an emulated application's flushes). */
extern const struct engine_ops engine_sync;

/* The engine named @name, or NULL. */
const struct engine_ops *engine_find(const char *name);

/* The default engine: libaio if built in, else sync. */
const struct engine_ops *engine_default(void);

/* Name of @op for messages ("read", "write", ...). */
const char *io_op_name(unsigned op);

#endif
