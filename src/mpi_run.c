/*
 * mpi_run.c - scale-out on Open MPI (see mpi_run.h and docs/scale-out.md).
 *
 * The module keeps MPI's own process-wide facts (rank, size, the host
 * table, this rank's clock offset) in one file-scope struct: MPI_COMM_WORLD
 * is itself process-global, and threading it through every run context
 * would touch the whole core for a fact that never changes after start-up.
 * Only the main thread calls in (MPI_THREAD_FUNNELED).
 *
 * Messages during a point are two tags: NOTE (a rank tells rank 0 why it
 * stops: failed, interrupted, or done under --stonewall) and STOP (rank 0
 * tells every other rank to end the point now). Each rank sends at most one
 * NOTE and rank 0 one round of STOPs per point; mpi_run_point_end() first
 * agrees how many were sent and receives the rest, so nothing is left
 * in flight when the next point starts.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>

#include "appio/emulator.h"
#include "appio/xalloc.h"
#include "mpi_run.h"

#define TAG_NOTE        11
#define TAG_STOP        12
#define TAG_MSG         13
#define CLOCK_ROUNDS    8               /* ping-pongs per rank; the fastest one counts */
#define START_LEAD_NS   20000000ULL     /* a point starts this long after rank 0 says when */
#define HOST_LEN        64

static struct {
	bool active;
	int rank, size, local, nlocal;
	char (*names)[HOST_LEN];        /* size: each rank's host name */
	unsigned *host_of;              /* size: each rank's host index */
	const char **hosts;             /* nhosts: host names in order of first rank */
	unsigned nhosts;
	int64_t offset_ns;              /* this rank's CLOCK_MONOTONIC minus rank 0's */
	MPI_Comm hostcomm;
	MPI_Comm exitcomm;              /* its own: an exit barrier must not meet other collectives */
	MPI_Datatype hist_type, sec_type;
	MPI_Op hist_op, sec_op;
	/* the current point's messages */
	bool noted, got_stop, stop_sent;
	int notes_received;
	MPI_Request note_req, *stop_reqs;
	int note_why;
	uint64_t seed;                  /* this rank's stream (mpi_run_seed) */
} mr;

bool mpi_run_active(void)
{
	return mr.active;
}

unsigned mpi_run_rank(void)
{
	return mr.active ? (unsigned)mr.rank : 0;
}

unsigned mpi_run_size(void)
{
	return mr.active ? (unsigned)mr.size : 1;
}

unsigned mpi_run_local(void)
{
	return mr.active ? (unsigned)mr.local : 0;
}

/* MPI hands user operations buffers of its own: copy through aligned ones. */
static void hist_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
	struct hist *a = xaligned(64, sizeof(*a)), *b = xaligned(64, sizeof(*b));

	(void)type;
	for (int i = 0; i < *len; i++) {
		memcpy(a, (char *)in + (size_t)i * sizeof(*a), sizeof(*a));
		memcpy(b, (char *)inout + (size_t)i * sizeof(*b), sizeof(*b));
		hist_merge(b, a);
		memcpy((char *)inout + (size_t)i * sizeof(*b), b, sizeof(*b));
	}
	free(a);
	free(b);
}

/* One second of one class: counts and sums add, maxima (and the p99 bound) take the larger. */
static void sec_reduce(void *in, void *inout, int *len, MPI_Datatype *type)
{
	(void)type;
	for (int i = 0; i < *len; i++) {
		struct sec_cls a, b;
		memcpy(&a, (char *)in + (size_t)i * sizeof(a), sizeof(a));
		memcpy(&b, (char *)inout + (size_t)i * sizeof(b), sizeof(b));
		b.ops += a.ops;
		b.bytes += a.bytes;
		b.sum_ns += a.sum_ns;
		b.max_ns = a.max_ns > b.max_ns ? a.max_ns : b.max_ns;
		b.p99_ns = a.p99_ns > b.p99_ns ? a.p99_ns : b.p99_ns;
		memcpy((char *)inout + (size_t)i * sizeof(b), &b, sizeof(b));
	}
}

static void finalize(void)
{
	int done = 0;

	MPI_Finalized(&done);
	if (!done)
		MPI_Finalize();
}

/* Host names of all ranks, and a host index per rank in order of first appearance. */
static void host_table(void)
{
	char me[HOST_LEN] = "";

	gethostname(me, sizeof(me) - 1);
	mr.names = xcalloc((size_t)mr.size, sizeof(*mr.names));
	mr.host_of = xcalloc((size_t)mr.size, sizeof(*mr.host_of));
	mr.hosts = xcalloc((size_t)mr.size, sizeof(*mr.hosts));
	MPI_Allgather(me, HOST_LEN, MPI_CHAR, mr.names, HOST_LEN, MPI_CHAR, MPI_COMM_WORLD);
	for (int r = 0; r < mr.size; r++) {
		unsigned h = 0;
		while (h < mr.nhosts && strcmp(mr.hosts[h], mr.names[r]))
			h++;
		if (h == mr.nhosts)
			mr.hosts[mr.nhosts++] = mr.names[r];
		mr.host_of[r] = h;
	}
}

/*
 * Cristian's method, rank 0 against each rank in turn: of CLOCK_ROUNDS
 * round trips the shortest bounds the error of the offset by half its time.
 */
static void clock_offsets(void)
{
	uint64_t t;

	if (mr.rank == 0) {
		for (int r = 1; r < mr.size; r++) {
			uint64_t best = UINT64_MAX;
			int64_t off = 0;
			for (int k = 0; k < CLOCK_ROUNDS; k++) {
				uint64_t t0 = emu_now();
				MPI_Send(&t0, 1, MPI_UINT64_T, r, TAG_MSG, MPI_COMM_WORLD);
				MPI_Recv(&t, 1, MPI_UINT64_T, r, TAG_MSG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
				uint64_t t1 = emu_now();
				if (t1 - t0 < best) {
					best = t1 - t0;
					off = (int64_t)(t - t0 - (t1 - t0) / 2);
				}
			}
			MPI_Send(&off, 1, MPI_INT64_T, r, TAG_MSG, MPI_COMM_WORLD);
		}
		return;
	}
	for (int k = 0; k < CLOCK_ROUNDS; k++) {
		MPI_Recv(&t, 1, MPI_UINT64_T, 0, TAG_MSG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		t = emu_now();
		MPI_Send(&t, 1, MPI_UINT64_T, 0, TAG_MSG, MPI_COMM_WORLD);
	}
	MPI_Recv(&mr.offset_ns, 1, MPI_INT64_T, 0, TAG_MSG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
}

int mpi_run_init(int *argc, char ***argv)
{
	int provided;

	/* only under a launcher: a plain start stays a plain process */
	if (!getenv("OMPI_COMM_WORLD_SIZE") && !getenv("PMIX_RANK"))
		return 0;
	if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
		return -EIO;
	atexit(finalize);
	mr.active = true;
	MPI_Comm_rank(MPI_COMM_WORLD, &mr.rank);
	MPI_Comm_size(MPI_COMM_WORLD, &mr.size);
	MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, mr.rank, MPI_INFO_NULL, &mr.hostcomm);
	MPI_Comm_rank(mr.hostcomm, &mr.local);
	MPI_Comm_size(mr.hostcomm, &mr.nlocal);
	host_table();
	MPI_Comm_dup(MPI_COMM_WORLD, &mr.exitcomm);
	MPI_Type_contiguous((int)sizeof(struct hist), MPI_BYTE, &mr.hist_type);
	MPI_Type_commit(&mr.hist_type);
	MPI_Type_contiguous((int)sizeof(struct sec_cls), MPI_BYTE, &mr.sec_type);
	MPI_Type_commit(&mr.sec_type);
	MPI_Op_create(hist_reduce, 1, &mr.hist_op);
	MPI_Op_create(sec_reduce, 1, &mr.sec_op);
	mr.stop_reqs = xcalloc((size_t)mr.size, sizeof(*mr.stop_reqs));
	clock_offsets();
	if (mr.rank) {
		int fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd >= 0) {
			dup2(fd, STDOUT_FILENO);
			close(fd);
		}
	}
	return 0;
}

const char *mpi_run_describe(char *buf, size_t len)
{
	char lib[MPI_MAX_LIBRARY_VERSION_STRING] = "";
	int n = 0;

	MPI_Get_library_version(lib, &n);
	lib[strcspn(lib, ",\n")] = '\0';
	if (mr.active)
		snprintf(buf, len, "%s; this run: %d rank(s) on %u host(s)", lib, mr.size, mr.nhosts);
	else
		snprintf(buf, len, "%s; run under mpirun for several ranks", lib);
	return buf;
}

#define EXIT_WAIT_NS (5 * 1000000000ULL)

void mpi_run_exit_together(int status, const char *msg)
{
	MPI_Request req;
	int done = 0;

	if (!mr.active)
		return;
	MPI_Ibarrier(mr.exitcomm, &req);
	for (uint64_t end = emu_now() + EXIT_WAIT_NS; !done && emu_now() < end;) {
		MPI_Test(&req, &done, MPI_STATUS_IGNORE);
		if (!done)
			usleep(1000);
	}
	if (done)
		return;
	fprintf(stderr, "appio: rank %d (%s): %s\n", mr.rank, mr.names[mr.rank], msg);
	MPI_Abort(MPI_COMM_WORLD, status);
}

void mpi_run_bcast_u64(uint64_t *v)
{
	if (mr.active)
		MPI_Bcast(v, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
}

uint64_t mpi_run_seed(uint64_t seed)
{
	if (!mr.active || mr.rank == 0)
		return mr.seed = seed;
	/* splitmix64 of seed and rank: streams that share no prefix; 53 bits as --seed */
	uint64_t z = seed + (uint64_t)mr.rank * 0x9E3779B97F4A7C15ULL;
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return mr.seed = (z ^ (z >> 31)) & ((1ULL << 53) - 1);
}

int mpi_run_expand(const char *pattern, unsigned rank, const char *host, unsigned local,
		   char *buf, size_t len)
{
	size_t n = 0;

	for (const char *s = pattern; *s; s++) {
		char num[24];
		const char *add = num;
		if (*s != '%') {
			num[0] = *s;
			num[1] = '\0';
		} else if (s[1] == 'r' || s[1] == 'l') {
			snprintf(num, sizeof(num), "%u", *++s == 'r' ? rank : local);
		} else if (s[1] == 'h') {
			add = host;
			s++;
		} else if (s[1] == '%') {
			add = "%";
			s++;
		} else {
			return -EINVAL;
		}
		size_t k = strlen(add);
		if (n + k >= len)
			return -ENAMETOOLONG;
		memcpy(buf + n, add, k);
		n += k;
	}
	buf[n] = '\0';
	return 0;
}

int mpi_run_expand_here(const char *pattern, char *buf, size_t len)
{
	if (!mr.active) {
		if (strlen(pattern) >= len)
			return -ENAMETOOLONG;
		strcpy(buf, pattern);
		return 0;
	}
	return mpi_run_expand(pattern, (unsigned)mr.rank, mr.names[mr.rank], (unsigned)mr.local,
			      buf, len);
}

int mpi_run_agree(int rc, char *err, size_t errlen)
{
	if (!mr.active)
		return rc;
	/* the lowest rank that failed; then the lowest interrupted; else none */
	int key = rc && rc != -EINTR ? mr.rank : rc ? mr.size + mr.rank : 2 * mr.size, first;
	MPI_Allreduce(&key, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
	if (first == 2 * mr.size)
		return 0;
	int who = first < mr.size ? first : first - mr.size, agreed = rc;
	MPI_Bcast(&agreed, 1, MPI_INT, who, MPI_COMM_WORLD);
	char msg[512] = "";
	if (who == mr.rank)
		snprintf(msg, sizeof(msg), "%s", err ? err : "");
	if (who != 0) {
		if (mr.rank == who)
			MPI_Send(msg, sizeof(msg), MPI_CHAR, 0, TAG_MSG, MPI_COMM_WORLD);
		else if (mr.rank == 0)
			MPI_Recv(msg, sizeof(msg), MPI_CHAR, who, TAG_MSG, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	}
	if (mr.rank == 0 && err && agreed != -EINTR && mr.size > 1)
		snprintf(err, errlen, "rank %d (%s): %s", who, mr.names[who],
			 *msg ? msg : strerror(-agreed));
	else if (mr.rank == 0 && err && who != 0)
		snprintf(err, errlen, "%s", msg);
	return agreed;
}

uint64_t mpi_run_start_at(void)
{
	uint64_t t0 = 0;

	if (!mr.active)
		return 0;
	mr.noted = mr.got_stop = mr.stop_sent = false;
	mr.notes_received = 0;
	MPI_Barrier(MPI_COMM_WORLD);
	if (mr.rank == 0)
		t0 = emu_now() + START_LEAD_NS;
	MPI_Bcast(&t0, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
	return (uint64_t)((int64_t)t0 + mr.offset_ns);
}

static void root_stop(void)
{
	static int dummy;

	if (mr.stop_sent)
		return;
	for (int r = 1; r < mr.size; r++)
		MPI_Isend(&dummy, 1, MPI_INT, r, TAG_STOP, MPI_COMM_WORLD, &mr.stop_reqs[r]);
	mr.stop_sent = true;
}

bool mpi_run_poll(enum mpi_stop why, bool stonewall)
{
	int flag = 0, w;
	MPI_Status st;

	if (!mr.active)
		return false;
	if ((why > MPI_RUN_DONE || (why == MPI_RUN_DONE && stonewall)) && !mr.noted) {
		mr.noted = true;
		mr.note_why = (int)why;
		if (mr.rank)
			MPI_Isend(&mr.note_why, 1, MPI_INT, 0, TAG_NOTE, MPI_COMM_WORLD, &mr.note_req);
		else
			root_stop();
	}
	if (mr.rank == 0) {
		while (MPI_Iprobe(MPI_ANY_SOURCE, TAG_NOTE, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag) {
			MPI_Recv(&w, 1, MPI_INT, st.MPI_SOURCE, TAG_NOTE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			mr.notes_received++;
			root_stop();
		}
		return mr.stop_sent;
	}
	if (!mr.got_stop && MPI_Iprobe(0, TAG_STOP, MPI_COMM_WORLD, &flag, &st) == MPI_SUCCESS && flag) {
		MPI_Recv(&w, 1, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		mr.got_stop = true;
	}
	return mr.got_stop;
}

/* Receive what is still in flight of this point's NOTE and STOP messages. */
static void drain(void)
{
	int mine[2] = { mr.rank && mr.noted, mr.rank == 0 && mr.stop_sent }, all[2], w;

	MPI_Allreduce(mine, all, 2, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (mr.rank == 0) {
		for (; mr.notes_received < all[0]; mr.notes_received++)
			MPI_Recv(&w, 1, MPI_INT, MPI_ANY_SOURCE, TAG_NOTE, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		if (mr.stop_sent)
			MPI_Waitall(mr.size - 1, mr.stop_reqs + 1, MPI_STATUSES_IGNORE);
		return;
	}
	if (all[1] && !mr.got_stop)
		MPI_Recv(&w, 1, MPI_INT, 0, TAG_STOP, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
	if (mr.noted)
		MPI_Wait(&mr.note_req, MPI_STATUS_IGNORE);
}

static void fig_of(struct rank_fig *f, const struct cls_result *c, double secs, double cpu)
{
	f->ops = c->ops;
	f->bytes = c->bytes;
	f->time_s = secs;
	f->ops_per_s = c->ops_per_s;
	f->mb_per_s = c->mb_per_s;
	f->mean_ns = c->lat.mean;
	f->cpu_s = cpu;
	f->p50 = c->lat.p50;
	f->p99 = c->lat.p99;
	f->max_ns = c->lat.max;
}

/* A host's figures: its ranks' headline histograms merged on its first rank. */
static void host_figs(struct mpi_point *mp, double secs, struct point_ranks *pr)
{
	struct hist *h = xaligned(64, sizeof(*h));
	struct rank_fig me = { 0 }, *all = NULL;
	uint64_t bytes = mp->p->cls[mp->headline].bytes, hbytes = 0;
	double hsecs = 0, hcpu = 0;

	MPI_Reduce(&mp->hists[mp->headline], h, 1, mr.hist_type, mr.hist_op, 0, mr.hostcomm);
	MPI_Reduce(&mp->p->cpu_s, &hcpu, 1, MPI_DOUBLE, MPI_SUM, 0, mr.hostcomm);
	MPI_Reduce(&bytes, &hbytes, 1, MPI_UINT64_T, MPI_SUM, 0, mr.hostcomm);
	MPI_Reduce(&secs, &hsecs, 1, MPI_DOUBLE, MPI_MAX, 0, mr.hostcomm);
	if (mr.local == 0) {
		struct cls_result c = { 0 };
		c.ops = h->count;
		c.bytes = hbytes;
		c.ops_per_s = hsecs > 0 ? (double)h->count / hsecs : 0;
		c.mb_per_s = hsecs > 0 ? (double)hbytes / 1e6 / hsecs : 0;
		c.lat.mean = hist_mean(h);
		c.lat.p50 = hist_percentile(h, 50);
		c.lat.p99 = hist_percentile(h, 99);
		c.lat.max = h->count ? h->max : 0;
		fig_of(&me, &c, hsecs, hcpu);
		me.rank = (uint32_t)mr.rank;
		me.host = mr.host_of[mr.rank];
		me.nranks = (uint32_t)mr.nlocal;
	}
	if (mr.rank == 0)
		all = xcalloc((size_t)mr.size, sizeof(*all));
	MPI_Gather(&me, sizeof(me), MPI_BYTE, all, sizeof(me), MPI_BYTE, 0, MPI_COMM_WORLD);
	if (pr) {
		pr->host = xcalloc(mr.nhosts, sizeof(*pr->host));
		for (int r = 0; r < mr.size; r++)
			if (all[r].nranks)
				pr->host[all[r].host] = all[r];
	}
	free(all);
	free(h);
}

/* Per-rank figures and histograms (sparse: bucket index, count) gathered on rank 0. */
static void rank_figs(struct mpi_point *mp, double secs, int rc, struct point_ranks *pr)
{
	const struct hist *h = &mp->hists[mp->headline];
	struct rank_fig me = { .rank = (uint32_t)mr.rank, .local_rank = (uint32_t)mr.local,
			       .host = mr.host_of[mr.rank], .nranks = 1, .rc = rc,
			       .seed = mr.seed };
	int n = 0, *counts = NULL, *displs = NULL;

	fig_of(&me, &mp->p->cls[mp->headline], secs, mp->p->cpu_s);
	uint64_t *sparse = xcalloc(2 * HIST_BUCKETS + 2, sizeof(*sparse));
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		if (h->b[i]) {
			sparse[2 * n] = i;
			sparse[2 * n + 1] = h->b[i];
			n++;
		}
	if (h->over) {          /* above the buckets: one pseudo-bucket past the last */
		sparse[2 * n] = HIST_BUCKETS;
		sparse[2 * n + 1] = h->over;
		n++;
	}
	n *= 2;
	if (pr) {
		pr->rank = xcalloc((size_t)mr.size, sizeof(*pr->rank));
		pr->hist_off = xcalloc((size_t)mr.size + 1, sizeof(*pr->hist_off));
		counts = xcalloc((size_t)mr.size, sizeof(*counts));
		displs = xcalloc((size_t)mr.size, sizeof(*displs));
	}
	MPI_Gather(&me, sizeof(me), MPI_BYTE, pr ? pr->rank : NULL, sizeof(me), MPI_BYTE, 0,
		   MPI_COMM_WORLD);
	MPI_Gather(&n, 1, MPI_INT, counts, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (pr) {
		for (int r = 0; r < mr.size; r++) {
			displs[r] = (int)pr->hist_off[r] * 2;
			pr->hist_off[r + 1] = pr->hist_off[r] + (uint32_t)counts[r] / 2;
		}
		pr->hist = xcalloc((size_t)pr->hist_off[mr.size] * 2 + 1, sizeof(*pr->hist));
	}
	MPI_Gatherv(sparse, n, MPI_UINT64_T, pr ? pr->hist : NULL, counts, displs, MPI_UINT64_T, 0,
		    MPI_COMM_WORLD);
	free(sparse);
	free(counts);
	free(displs);
}

/* Sum bytes, sizes, counters and units of work; merge histograms and the series. */
static void merge(struct mpi_point *mp)
{
	struct point_result *p = mp->p;
	size_t per = 1 + RESULT_SIZE_BUCKETS, n = p->ncls * per + p->ncounters;
	uint64_t *v = xcalloc(n + 1, sizeof(*v));
	unsigned nsec = p->nsec;

	MPI_Allreduce(MPI_IN_PLACE, mp->hists, (int)p->ncls, mr.hist_type, mr.hist_op, MPI_COMM_WORLD);
	for (unsigned c = 0; c < p->ncls; c++) {
		v[c * per] = p->cls[c].bytes;
		memcpy(&v[c * per + 1], p->cls[c].sizes, sizeof(p->cls[c].sizes));
	}
	memcpy(&v[p->ncls * per], p->counters, p->ncounters * sizeof(*v));
	v[n] = p->events;
	MPI_Allreduce(MPI_IN_PLACE, v, (int)n + 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
	for (unsigned c = 0; c < p->ncls; c++) {
		p->cls[c].bytes = v[c * per];
		memcpy(p->cls[c].sizes, &v[c * per + 1], sizeof(p->cls[c].sizes));
	}
	memcpy(p->counters, &v[p->ncls * per], p->ncounters * sizeof(*v));
	p->events = v[n];
	free(v);

	/* the series: as long as the longest rank's, on the common clock */
	MPI_Allreduce(MPI_IN_PLACE, &nsec, 1, MPI_UNSIGNED, MPI_MAX, MPI_COMM_WORLD);
	if (nsec > p->nsec) {
		size_t row = p->ncls * sizeof(*p->series);
		p->series = xrealloc(p->series, nsec * row);
		memset((char *)p->series + p->nsec * row, 0, (nsec - p->nsec) * row);
		p->sec_dur = xrealloc(p->sec_dur, nsec * sizeof(*p->sec_dur));
		memset(p->sec_dur + p->nsec, 0, (nsec - p->nsec) * sizeof(*p->sec_dur));
		p->nsec = nsec;
	}
	if (nsec) {
		MPI_Allreduce(MPI_IN_PLACE, p->series, (int)(nsec * p->ncls), mr.sec_type, mr.sec_op,
			      MPI_COMM_WORLD);
		MPI_Allreduce(MPI_IN_PLACE, p->sec_dur, (int)nsec, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	}
}

int mpi_run_point_end(struct mpi_point *mp, double *secs, char *err, size_t errlen)
{
	struct point_ranks *pr = NULL;
	int partial = mp->p->partial;

	drain();
	if (mp->rc && mp->err)
		snprintf(err, errlen, "%s", mp->err);
	int rc = mpi_run_agree(mp->rc, err, errlen);
	if (mr.rank == 0) {
		pr = xcalloc(1, sizeof(*pr));
		pr->nranks = (unsigned)mr.size;
		pr->nhosts = mr.nhosts;
		pr->hosts = mr.hosts;
		pr->cls = mp->p->cls[mp->headline].name;
	}
	rank_figs(mp, *secs, mp->rc, pr);
	host_figs(mp, *secs, pr);
	merge(mp);
	MPI_Allreduce(MPI_IN_PLACE, secs, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &mp->p->cpu_s, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	MPI_Allreduce(MPI_IN_PLACE, &partial, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
	mp->p->partial = partial || rc;
	mp->p->time_s = *secs;
	mp->p->ranks = pr;
	return rc;
}

void mpi_run_info(struct result *res)
{
	char buf[32];

	if (!mr.active)
		return;
	snprintf(buf, sizeof(buf), "%d", mr.size);
	result_add_info(res, "mpi_ranks", buf);
	snprintf(buf, sizeof(buf), "%u", mr.nhosts);
	result_add_info(res, "mpi_hosts", buf);
}
