/*
 * db_capture.c - 'appio db run ... --capture FILE': the block requests of
 * the device under the database's data while the run lasts, as a trace in
 * appio's format (traces/record.c). The data is where --capture-path says,
 * else where the server says its data directory is (MySQL's @@datadir,
 * PostgreSQL's data_directory), else the SQLite file. The trace's header
 * names the run (workload, driver, tables, threads of each point, seed)
 * and the server (version and the settings that decide its I/O, as the
 * result has them); the result names the trace and what it holds.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "appio/trace_record.h"
#include "db_oltp.h"

/* Where the data is: --capture-path, the server's data directory, or the SQLite file. */
static int data_path(const struct db_opts *o, char *buf, size_t len, char *err, size_t errlen)
{
	const struct db_driver *drv = db_opts_driver(o);
	struct db_conn_cfg cfg;
	struct db_conn *c;
	struct stat st;

	if (o->capture_path) {
		snprintf(buf, len, "%s", o->capture_path);
		return 0;
	}
	if (drv->flags & DB_FILE) {
		snprintf(buf, len, "%s", o->sqlite_db);
		return 0;
	}
	db_opts_conn_cfg(o, &cfg);
	if (!drv->datadir || drv->connect(&cfg, &c, err, errlen)) {
		if (!drv->datadir)
			snprintf(err, errlen, "--capture: cannot ask %s for its data directory; give --capture-path",
				 drv->name);
		return -EINVAL;
	}
	int rc = drv->datadir(c, buf, len);
	if (rc)
		snprintf(err, errlen, "--capture: cannot ask the server for its data directory (%s); give "
			 "--capture-path", db_errmsg(c));
	drv->disconnect(c);
	if (!rc && (!buf[0] || stat(buf, &st))) {
		snprintf(err, errlen, "--capture: the server's data directory '%s' is not on this machine; "
			 "give --capture-path", buf);
		rc = -EINVAL;
	}
	return rc ? -EINVAL : 0;
}

static void add_server(void *arg, const char *key, const char *val)
{
	char k[48];

	snprintf(k, sizeof(k), "server.%s", key);
	trace_record_meta(arg, k, val);
}

static void run_meta(const struct db_opts *o, uint64_t seed, const char *phase, struct trace_record *rec)
{
	const struct db_driver *drv = db_opts_driver(o);
	struct db_conn_cfg cfg;
	struct db_conn *c;
	char v[64], err[512];

	trace_record_meta(rec, "run.workload", o->workload);
	trace_record_meta(rec, "run.phase", phase);
	trace_record_meta(rec, "run.driver", drv->name);
	snprintf(v, sizeof(v), "%" PRIu64 " x %" PRIu64 " rows", o->tables, o->table_size);
	trace_record_meta(rec, "run.tables", v);
	snprintf(v, sizeof(v), "%" PRIu64, seed);
	trace_record_meta(rec, "run.seed", v);
	db_opts_conn_cfg(o, &cfg);
	if (!drv->connect(&cfg, &c, err, sizeof(err))) {
		drv->info(c, add_server, rec);
		drv->disconnect(c);
	}
}

static int begin(const struct db_opts *o, uint64_t seed, const char *phase, struct trace_record **out,
		 char *err, size_t errlen)
{
	struct trace_record_opts ro = { .out = o->capture };
	char path[512], msg[512];
	int rc;

	*out = NULL;
	if ((rc = data_path(o, path, sizeof(path), err, errlen)))
		return rc;
	ro.path = path;
	if ((rc = trace_record_start(out, &ro, msg, sizeof(msg)))) {
		snprintf(err, errlen, "--capture: %s", msg);
		return rc == -EPERM || rc == -ENOTSUP ? -EINVAL : rc;
	}
	trace_record_meta(*out, "capture.path", path);
	run_meta(o, seed, phase, *out);
	return 0;
}

int db_capture_start(struct emu_run *run, struct trace_record **out, char *err, size_t errlen)
{
	const struct db_opts *o = run->opts;
	int rc = begin(o, run->seed, "run", out, err, errlen);

	if (!rc)
		emu_info(run, "capture.trace", o->capture);
	return rc;
}

int db_capture_prepare(const struct db_opts *o, uint64_t seed, struct trace_record **out, char *err, size_t errlen)
{
	return begin(o, seed, "prepare", out, err, errlen);
}

int db_capture_end(struct trace_record *rec, unsigned loaders, char *line, size_t len, char *err, size_t errlen)
{
	struct trace_record_stats st;
	char msg[512];
	int rc;

	if (loaders) {
		snprintf(msg, sizeof(msg), "%u", loaders);
		trace_record_meta(rec, "run.threads", msg);
	}
	rc = trace_record_finish(rec, &st, msg, sizeof(msg));
	trace_record_free(rec);
	snprintf(line, len, "captured %" PRIu64 " I/Os of %s in %.1f s", st.ios, st.device, st.seconds);
	if (rc)
		snprintf(err, errlen, "--capture: %s", msg);
	return rc;
}

void db_capture_point(struct trace_record *rec, unsigned threads, char *list, size_t len)
{
	size_t n = strlen(list);

	snprintf(list + n, len - n, "%s%u", n ? "," : "", threads);
	trace_record_meta(rec, "run.threads", list);
}

int db_capture_finish(struct emu_run *run, struct trace_record *rec, char *err, size_t errlen)
{
	struct trace_record_stats st;
	char v[200], msg[512];
	int rc = trace_record_finish(rec, &st, msg, sizeof(msg));

	emu_info(run, "capture.device", st.device);
	snprintf(v, sizeof(v), "%" PRIu64 " I/Os in %.1f s, %" PRIu64 " events lost", st.ios, st.seconds, st.lost);
	emu_info(run, "capture.ios", v);
	if (rc)
		snprintf(err, errlen, "--capture: %s", msg);
	return rc;
}
