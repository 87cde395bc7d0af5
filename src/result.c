/*
 * result.c - the in-memory result and its JSON, CSV and text forms.
 * The JSON keys are a contract (result.h); add keys, never rename them.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "appio/hist.h"
#include "appio/result.h"
#include "json_write.h"
#include "slo.h"
#include "slo_search.h"
#include "version.h"
#include "appio/xalloc.h"

static void point_ranks_free(struct point_ranks *pr)
{
	if (!pr)
		return;
	free(pr->rank);
	free(pr->host);
	free(pr->hist_off);
	free(pr->hist);
	free(pr);
}

void result_init(struct result *r)
{
	memset(r, 0, sizeof(*r));
}

static void release_kv(struct result_kv *kv, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].val);
	}
	free(kv);
}

void result_release(struct result *r)
{
	release_kv(r->opts, r->nopts);
	release_kv(r->info, r->ninfo);
	for (unsigned i = 0; i < r->npoints; i++) {
		for (unsigned c = 0; c < r->points[i].ncls; c++)
			free(r->points[i].cls[c].hist);
		free(r->points[i].series);
		free(r->points[i].sec_dur);
		point_ranks_free(r->points[i].ranks);
	}
	free(r->points);
	result_init(r);
}

static void add_kv(struct result_kv **kv, unsigned *n, const char *key, const char *val)
{
	for (unsigned i = 0; i < *n; i++) {
		if (!strcmp((*kv)[i].key, key)) {
			free((*kv)[i].val);
			(*kv)[i].val = xstrdup(val);
			return;
		}
	}
	*kv = xrealloc(*kv, (*n + 1) * sizeof(**kv));
	(*kv)[*n] = (struct result_kv){ xstrdup(key), xstrdup(val) };
	(*n)++;
}

void result_add_opt(struct result *r, const char *key, const char *val)
{
	add_kv(&r->opts, &r->nopts, key, val);
}

void result_add_info(struct result *r, const char *key, const char *val)
{
	add_kv(&r->info, &r->ninfo, key, val);
}

struct point_result *result_add_point(struct result *r)
{
	r->points = xrealloc(r->points, (r->npoints + 1) * sizeof(*r->points));
	struct point_result *p = &r->points[r->npoints++];
	memset(p, 0, sizeof(*p));
	return p;
}

const char *point_rate_unit(const struct point_result *p)
{
	if (!p->headline)
		return "IOPS";
	return strcmp(p->headline, "loop") ? "TPS" : "loops/s";
}

double point_rate_reached(const struct point_result *p)
{
	if (p->events)
		return p->time_s > 0 ? (double)p->events / p->time_s : 0;
	const struct cls_result *c = point_class(p, p->headline ? p->headline : "total");
	return c ? c->ops_per_s : p->ncls ? p->cls[0].ops_per_s : 0;
}

void result_cls_keep_hist(struct cls_result *c, const struct hist *h)
{
	uint32_t n = h->over > 0;

	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		n += h->b[i] > 0;
	free(c->hist);
	c->hist = xmalloc(2 * (size_t)(n ? n : 1) * sizeof(*c->hist));
	c->nhist = 0;
	for (unsigned i = 0; i < HIST_BUCKETS; i++)
		if (h->b[i]) {
			c->hist[2 * c->nhist] = i;
			c->hist[2 * c->nhist++ + 1] = h->b[i];
		}
	if (h->over) {
		c->hist[2 * c->nhist] = HIST_BUCKETS;
		c->hist[2 * c->nhist++ + 1] = h->over;
	}
}

double result_cls_percentile(const struct cls_result *c, double p)
{
	static const double listed[] = { 50, 90, 99, 99.9, 99.99, 100 };
	const struct lat_summary *l = &c->lat;
	const uint64_t fig[] = { l->p50, l->p90, l->p99, l->p999, l->p9999, l->max };

	if (!c->hist) {
		for (size_t i = 0; i < sizeof(listed) / sizeof(listed[0]); i++)
			if (p == listed[i])
				return (double)fig[i];
		return NAN;
	}
	/* the histogram again, with its exact min and max: hist_percentile's own answer */
	struct hist *h = xmalloc(sizeof(*h));
	hist_init(h);
	h->min = l->min;
	h->max = l->max;
	for (uint32_t k = 0; k < c->nhist; k++) {
		uint64_t i = c->hist[2 * k], n = c->hist[2 * k + 1];
		h->count += n;
		if (i < HIST_BUCKETS)
			h->b[i] += n;
		else
			h->over += n;
	}
	double v = (double)hist_percentile(h, p);
	free(h);
	return v;
}

const struct cls_result *point_class(const struct point_result *p, const char *name)
{
	for (unsigned i = 0; i < p->ncls; i++)
		if (!strcmp(p->cls[i].name, name))
			return &p->cls[i];
	return NULL;
}

char *fmt_ns(double ns, char *buf, size_t len)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.2f s", ns / 1e9);
	else if (ns >= 1e6)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else if (ns >= 1e4)
		snprintf(buf, len, "%.0f us", ns / 1e3);
	else if (ns >= 1e3)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%.0f ns", ns);
	return buf;
}

/* ---- JSON ---- */

static void json_kv_object(FILE *f, const struct result_kv *kv, unsigned n)
{
	fputc('{', f);
	for (unsigned i = 0; i < n; i++) {
		fputs(i ? ", " : "", f);
		json_str(f, kv[i].key);
		fputs(": ", f);
		json_str(f, kv[i].val);
	}
	fputc('}', f);
}

static void json_host(FILE *f)
{
	char host[256] = "";
	struct utsname u;
	struct sysinfo si;

	gethostname(host, sizeof(host) - 1);
	uname(&u);
	sysinfo(&si);
	fputs("  \"host\": {\"hostname\": ", f);
	json_str(f, host);
	fputs(", \"kernel\": ", f);
	json_str(f, u.release);
	fprintf(f, ", \"cpus\": %ld, \"memory_bytes\": %llu},\n", sysconf(_SC_NPROCESSORS_ONLN),
		(unsigned long long)si.totalram * si.mem_unit);
}

static void json_target(FILE *f, const struct target *t)
{
	fputs("  \"target\": {\"path\": ", f);
	json_str(f, t->path);
	fprintf(f, ", \"kind\": \"%s\", \"size\": %llu, \"logical_block_size\": %u, "
		"\"physical_block_size\": %u, \"device\": ", target_kind_name(t->kind),
		(unsigned long long)t->size, t->lbs, t->pbs);
	json_str(f, t->dev);
	fputs(", \"model\": ", f);
	json_str(f, t->model);
	fputs(", \"rotational\": ", f);
	fputs(t->rotational < 0 ? "null" : t->rotational ? "true" : "false", f);
	fputs(", \"scheduler\": ", f);
	json_str(f, t->scheduler);
	fprintf(f, ", \"created\": %s, \"layout_s\": ", t->created ? "true" : "false");
	json_num(f, t->layout_s);
	fprintf(f, ", \"layout_bytes\": %llu},\n", (unsigned long long)t->layout_bytes);
}

/*
 * [low, width, count] per bucket of @n (index, count) @pairs; over the range:
 * [2^40, 0, n]. Without spaces: a class's histogram has hundreds of them.
 */
static void json_hist_triples(FILE *f, const uint64_t *pairs, uint32_t n)
{
	for (uint32_t k = 0; k < n; k++) {
		unsigned i = (unsigned)pairs[2 * k];
		uint64_t low = i < HIST_BUCKETS ? hist_bucket_low(i) : HIST_MAX_NS + 1;
		uint64_t width = i < HIST_BUCKETS ? hist_bucket_width(i) : 0;
		fprintf(f, "%s[%llu,%llu,%llu]", k ? "," : "", (unsigned long long)low,
			(unsigned long long)width, (unsigned long long)pairs[2 * k + 1]);
	}
}

/* The percentiles --slo names that lat_ns does not list already ("p95"). */
static void json_slo_pcts(FILE *f, const struct cls_result *c, const struct slo *slo)
{
	for (unsigned k = 0; slo && k < slo->n; k++) {
		const struct slo_limit *l = &slo->lim[k];
		char key[32], name[32];
		bool dup = false;
		if (l->stat != SLO_PCT || strcmp(slo_doc_key(l, key, sizeof(key)),
						   slo_stat_name(l, name, sizeof(name))))
			continue;       /* mean, max, or a key of its own (p99 -> "p99", p99.9 -> "p999") */
		for (unsigned j = 0; j < k && !dup; j++)
			dup = slo->lim[j].stat == SLO_PCT && slo->lim[j].pct == l->pct;
		if (dup)
			continue;
		fputs(", ", f);
		json_str(f, key);
		fputs(": ", f);
		json_num(f, c->ops ? result_cls_percentile(c, l->pct) : 0);
	}
}

static void json_class(FILE *f, const struct cls_result *c, const struct slo *slo)
{
	const struct lat_summary *l = &c->lat;
	json_str(f, c->name);
	fprintf(f, ": {\"ops\": %llu, \"ops_per_s\": ", (unsigned long long)c->ops);
	json_num(f, c->ops_per_s);
	fprintf(f, ", \"bytes\": %llu, \"mb_per_s\": ", (unsigned long long)c->bytes);
	json_num(f, c->mb_per_s);
	fputs(", \"lat_ns\": {\"mean\": ", f);
	json_num(f, round(l->mean * 10) / 10);
	fputs(", \"stddev\": ", f);
	json_num(f, round(l->stddev * 10) / 10);
	fprintf(f, ", \"min\": %llu, \"p50\": %llu, \"p90\": %llu, \"p99\": %llu, "
		"\"p999\": %llu, \"p9999\": %llu, \"max\": %llu",
		(unsigned long long)l->min, (unsigned long long)l->p50,
		(unsigned long long)l->p90, (unsigned long long)l->p99,
		(unsigned long long)l->p999, (unsigned long long)l->p9999,
		(unsigned long long)l->max);
	json_slo_pcts(f, c, slo);
	fputs("}, \"sizes\": {", f);
	bool first = true;
	for (unsigned b = 0; b < RESULT_SIZE_BUCKETS; b++) {
		if (!c->sizes[b])
			continue;
		fprintf(f, "%s\"%llu\": %llu", first ? "" : ", ", 1ULL << b,
			(unsigned long long)c->sizes[b]);
		first = false;
	}
	fputc('}', f);
	if (c->nhist) {
		fputs(", \"hist\": [", f);
		json_hist_triples(f, c->hist, c->nhist);
		fputc(']', f);
	}
	fputc('}', f);
}

static void json_series(FILE *f, const struct point_result *p)
{
	fputs(",\n     \"series\": [", f);
	for (unsigned s = 0; s < p->nsec; s++) {
		double d = p->sec_dur[s];
		fprintf(f, "%s\n      {\"t\": %u, \"dur_s\": ", s ? "," : "", s + 1);
		json_num(f, round(d * 1000) / 1000);
		fputs(", \"classes\": {", f);
		for (unsigned c = 0; c < p->ncls; c++) {
			const struct sec_cls *x = &p->series[(size_t)s * p->ncls + c];
			fputs(c ? ", " : "", f);
			json_str(f, p->cls[c].name);
			fputs(": {\"ops_per_s\": ", f);
			json_num(f, d > 0 ? round((double)x->ops / d * 10) / 10 : 0);
			fputs(", \"mb_per_s\": ", f);
			json_num(f, d > 0 ? round((double)x->bytes / 1e6 / d * 1000) / 1000 : 0);
			fputs(", \"mean_ns\": ", f);
			json_num(f, x->ops ? round((double)x->sum_ns / (double)x->ops) : 0);
			fprintf(f, ", \"p99_ns\": %llu, \"max_ns\": %llu}",
				(unsigned long long)x->p99_ns, (unsigned long long)x->max_ns);
		}
		fputs("}}", f);
	}
	fputs("]", f);
}

static void json_fig(FILE *f, const struct rank_fig *x)
{
	fprintf(f, "\"ops\": %llu, \"bytes\": %llu, \"time_s\": ", (unsigned long long)x->ops,
		(unsigned long long)x->bytes);
	json_num(f, round(x->time_s * 1000) / 1000);
	fputs(", \"cpu_s\": ", f);
	json_num(f, round(x->cpu_s * 1000) / 1000);
	fputs(", \"ops_per_s\": ", f);
	json_num(f, round(x->ops_per_s * 10) / 10);
	fputs(", \"mb_per_s\": ", f);
	json_num(f, round(x->mb_per_s * 1000) / 1000);
	fputs(", \"lat_ns\": {\"mean\": ", f);
	json_num(f, round(x->mean_ns * 10) / 10);
	fprintf(f, ", \"p50\": %llu, \"p99\": %llu, \"max\": %llu}", (unsigned long long)x->p50,
		(unsigned long long)x->p99, (unsigned long long)x->max_ns);
}

/* An MPI run's per-rank and per-host figures; each rank's histogram as [low, width, count]. */
static void json_ranks(FILE *f, const struct point_ranks *pr)
{
	fprintf(f, ",\n     \"ranks\": {\"class\": ");
	json_str(f, pr->cls);
	fprintf(f, ", \"ranks\": %u, \"hosts\": %u,\n      \"per_rank\": [", pr->nranks, pr->nhosts);
	for (unsigned r = 0; r < pr->nranks; r++) {
		const struct rank_fig *x = &pr->rank[r];
		fprintf(f, "%s\n       {\"rank\": %u, \"host\": ", r ? "," : "", x->rank);
		json_str(f, pr->hosts[x->host]);
		fprintf(f, ", \"local_rank\": %u, \"seed\": %llu, \"status\": ", x->local_rank,
			(unsigned long long)x->seed);
		json_str(f, !x->rc ? "ok" : x->rc == -EINTR ? "interrupted" : strerror(-x->rc));
		fputs(", ", f);
		json_fig(f, x);
		fputs(", \"hist\": [", f);
		json_hist_triples(f, &pr->hist[2 * (size_t)pr->hist_off[r]],
				  pr->hist_off[r + 1] - pr->hist_off[r]);
		fputs("]}", f);
	}
	fputs("],\n      \"per_host\": [", f);
	for (unsigned h = 0; h < pr->nhosts; h++) {
		fprintf(f, "%s\n       {\"host\": ", h ? "," : "");
		json_str(f, pr->hosts[h]);
		fprintf(f, ", \"ranks\": %u, ", pr->host[h].nranks);
		json_fig(f, &pr->host[h]);
		fputc('}', f);
	}
	fputs("]}", f);
}

static void json_point(FILE *f, const struct point_result *p, const struct slo *slo)
{
	fprintf(f, "    {\"threads\": %u, \"qd\": %u, ", p->pt.threads, p->pt.qd);
	if (p->pt.write_pct >= 0)
		fprintf(f, "\"write_pct\": %d, ", p->pt.write_pct);
	fputs("\"time_s\": ", f);
	json_num(f, round(p->time_s * 1000) / 1000);
	fputs(", \"cpu_s\": ", f);
	json_num(f, round(p->cpu_s * 1000) / 1000);
	fprintf(f, ", \"partial\": %s, \"headline\": ", p->partial ? "true" : "false");
	json_str(f, p->headline ? p->headline : "total");
	fputs(",\n     \"classes\": {", f);
	for (unsigned c = 0; c < p->ncls; c++) {
		fputs(c ? ",\n       " : "\n       ", f);
		json_class(f, &p->cls[c], slo);
	}
	fputs("},\n     \"counters\": {", f);
	for (unsigned k = 0; k < p->ncounters; k++) {
		fputs(k ? ", " : "", f);
		json_str(f, p->counter_names[k]);
		fprintf(f, ": %llu", (unsigned long long)p->counters[k]);
	}
	fputc('}', f);
	if (p->events)
		fprintf(f, ", \"events\": %llu", (unsigned long long)p->events);
	if (p->dev.valid) {
		const struct dev_stats *d = &p->dev;
		fprintf(f, ",\n     \"device\": {\"reads\": %llu, \"read_bytes\": %llu, \"writes\": %llu, "
			"\"write_bytes\": %llu, \"flushes\": %llu, \"busy_pct\": ",
			(unsigned long long)d->reads, (unsigned long long)d->read_bytes,
			(unsigned long long)d->writes, (unsigned long long)d->write_bytes,
			(unsigned long long)d->flushes);
		json_num(f, p->time_s > 0 ? round((double)d->busy_ms / (p->time_s * 10) * 10) / 10 : 0);
		fputc('}', f);
	}
	json_series(f, p);
	if (p->ranks)
		json_ranks(f, p->ranks);
	fputc('}', f);
}

static void json_health(FILE *f, const struct result *r)
{
	fputs("  ", f);
	health_write_json(f, &r->health[0], &r->health[1]);
	fputs(",\n", f);
}

static void json_document(FILE *f, const struct result *r)
{
	fprintf(f, "{\n  \"appio_version\": \"%s\",\n  \"format_version\": %d,\n",
		APPIO_VERSION, RESULT_FORMAT_VERSION);
	fputs("  \"started\": ", f);
	json_str(f, r->started);
	fprintf(f, ",\n  \"seed\": %llu,\n  \"interrupted\": %s,\n  \"incomplete\": %s,\n",
		(unsigned long long)r->seed, r->interrupted || r->incomplete ? "true" : "false",
		r->incomplete ? "true" : "false");
	json_host(f);
	if (r->has_target)
		json_target(f, &r->target);
	fputs("  \"workload\": {\"name\": ", f);
	json_str(f, r->workload);
	fputs(", \"preset\": ", f);
	json_str(f, r->preset);
	fputs(", \"engine\": ", f);
	json_str(f, r->engine);
	fputs(", \"options\": ", f);
	json_kv_object(f, r->opts, r->nopts);
	fputs("},\n", f);
	if (r->has_health)
		json_health(f, r);
	if (r->slo) {
		fputs("  ", f);
		slo_write_json(r->slo, r, f);
		fputs(",\n", f);
	}
	if (r->slo_search) {
		fputs("  ", f);
		slo_search_write_json(r->slo_search, f);
		fputs(",\n", f);
	}
	if (r->rate)
		fprintf(f, "  \"rate_iops\": %llu,\n  \"rate_unit\": \"%s\",\n  \"latency_from\": "
			"\"intended_start\",\n", (unsigned long long)r->rate,
			r->npoints ? point_rate_unit(&r->points[0]) : "IOPS");
	fputs("  \"info\": ", f);
	json_kv_object(f, r->info, r->ninfo);
	fputs(",\n  \"points\": [\n", f);
	for (unsigned i = 0; i < r->npoints; i++) {
		json_point(f, &r->points[i], r->slo);
		fputs(i + 1 < r->npoints ? ",\n" : "\n", f);
	}
	fputs("  ]", f);
	if (r->precondition) {
		const struct result *pre = r->precondition;
		fprintf(f, ",\n  \"precondition\": {\"steady_state\": %s,\n  \"rounds\": [\n",
			r->steady_json ? r->steady_json : "null");
		for (unsigned i = 0; i < pre->npoints; i++) {
			json_point(f, &pre->points[i], r->slo);
			fputs(i + 1 < pre->npoints ? ",\n" : "\n", f);
		}
		fputs("  ]}", f);
	}
	fputs("\n}\n", f);
}

int result_write_json_value(const struct result *r, FILE *f, int indent)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return -errno;
	json_document(m, r);
	if (fclose(m))
		return -ENOMEM;
	while (len && buf[len - 1] == '\n')
		len--;
	for (size_t i = 0; i < len; i++) {
		fputc(buf[i], f);
		if (buf[i] == '\n')
			fprintf(f, "%*s", indent, "");
	}
	free(buf);
	return ferror(f) ? -EIO : 0;
}

int result_write_json(const struct result *r, const char *path, char *err, size_t errlen)
{
	if (!strcmp(path, "-")) {
		json_document(stdout, r);
		return fflush(stdout) ? -errno : 0;
	}
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	json_document(f, r);
	if (ferror(f) | fclose(f) || rename(tmp, path)) {
		int e = errno ? errno : EIO;
		snprintf(err, errlen, "cannot write '%s': %s", path, strerror(e));
		unlink(tmp);
		return -e;
	}
	return 0;
}

/* ---- CSV ---- */

static int csv_class(const struct result *r, const char *prefix, unsigned c,
		     char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s_%s.csv", prefix, r->points[0].cls[c].name);
	FILE *f = fopen(path, "w");
	if (!f) {
		int e = errno;
		snprintf(err, errlen, "--csv: cannot write '%s': %s", path, strerror(e));
		return -e;
	}
	fputs("point,threads,qd,write_pct,second,ops_per_s,mb_per_s,mean_us,p99_us,max_us\n", f);
	for (unsigned i = 0; i < r->npoints; i++) {
		const struct point_result *p = &r->points[i];
		for (unsigned s = 0; s < p->nsec && c < p->ncls; s++) {
			const struct sec_cls *x = &p->series[(size_t)s * p->ncls + c];
			double d = p->sec_dur[s] > 0 ? p->sec_dur[s] : 1;
			fprintf(f, "%u,%u,%u,%d,%u,%.1f,%.3f,%.2f,%.2f,%.2f\n", i + 1, p->pt.threads,
				p->pt.qd, p->pt.write_pct, s + 1, (double)x->ops / d,
				(double)x->bytes / 1e6 / d,
				x->ops ? (double)x->sum_ns / (double)x->ops / 1e3 : 0,
				(double)x->p99_ns / 1e3, (double)x->max_ns / 1e3);
		}
	}
	if (ferror(f) | fclose(f)) {
		snprintf(err, errlen, "--csv: cannot write '%s'", path);
		return -EIO;
	}
	return 0;
}

int result_write_csv(const struct result *r, const char *prefix, char *err, size_t errlen)
{
	if (!r->npoints)
		return 0;
	for (unsigned c = 0; c < r->points[0].ncls; c++) {
		int rc = csv_class(r, prefix, c, err, errlen);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- text table ---- */

static const struct cls_result *headline(const struct point_result *p)
{
	const struct cls_result *c = point_class(p, p->headline ? p->headline : "total");
	return c ? c : &p->cls[0];
}

/*
 * MB/s of a row. A transaction or a loop carries no bytes of its own, so
 * such a row shows what the drive moved (reads + writes from its counters,
 * other I/O on it included); *@dev says so.
 */
static double row_mb_per_s(const struct point_result *p, const struct cls_result *h, bool *dev)
{
	if (h->bytes || !p->headline || !p->dev.valid || p->time_s <= 0)
		return h->mb_per_s;
	*dev = true;
	return (double)(p->dev.read_bytes + p->dev.write_bytes) / p->time_s / 1e6;
}

/* Under MPI the row above is the aggregate; below it, the rank that did least. */
static void print_slowest(const struct point_ranks *pr, FILE *f)
{
	const struct rank_fig *s = &pr->rank[0];
	char a[32], b[32], c[32];

	for (unsigned r = 1; r < pr->nranks; r++)
		if (pr->rank[r].ops_per_s < s->ops_per_s)
			s = &pr->rank[r];
	fprintf(f, "  %u ranks on %u host(s); slowest: rank %u (%s) %.0f at %.1f MB/s, mean %s, "
		"p99 %s, max %s\n", pr->nranks, pr->nhosts, s->rank, pr->hosts[s->host], s->ops_per_s,
		s->mb_per_s, fmt_ns(s->mean_ns, a, sizeof(a)), fmt_ns((double)s->p99, b, sizeof(b)),
		fmt_ns((double)s->max_ns, c, sizeof(c)));
}

/* --rate: how latency was taken, and the points whose target did not keep up. */
static void print_rate(const struct result *r, FILE *f)
{
	const struct point_result *p0 = &r->points[0];
	const char *unit = point_rate_unit(p0);

	if (p0->events)
		fprintf(f, "open loop at %llu %s a point: latency from each unit of work's intended "
			"start (coordinated omission excluded)\n", (unsigned long long)r->rate, unit);
	else
		fprintf(f, "open loop at %llu IOPS a point: latency from each I/O's intended start "
			"(coordinated omission excluded)\n", (unsigned long long)r->rate);
	for (unsigned i = 0; i < r->npoints; i++) {
		const struct point_result *p = &r->points[i];
		double got = point_rate_reached(p);
		char where[32];
		if (p->events)
			snprintf(where, sizeof(where), "%uT", p->pt.threads);
		else
			snprintf(where, sizeof(where), "%uT/%uQ", p->pt.threads, p->pt.qd);
		if (!p->partial && got < 0.99 * (double)r->rate)
			fprintf(f, "  %s: %.0f %s of %llu: the target fell behind, and its latency "
				"includes the wait\n", where, got, p->events ? unit : "IOPS",
				(unsigned long long)r->rate);
	}
}

void result_print_class_rows(const struct point_result *p, const char *what,
			     const char *const *names, FILE *f)
{
	fprintf(f, "  %-14s %10s %10s %10s %10s\n", what, "count", "mean", "p99", "max");
	for (; *names; names++) {
		const struct cls_result *c = point_class(p, *names);
		char m[32], q[32], x[32];
		if (!c)
			continue;
		fprintf(f, "  %-14s %10llu %10s %10s %10s\n", c->name, (unsigned long long)c->ops,
			fmt_ns(c->lat.mean, m, sizeof(m)), fmt_ns((double)c->lat.p99, q, sizeof(q)),
			fmt_ns((double)c->lat.max, x, sizeof(x)));
	}
}

void result_print_table(const struct result *r, FILE *f)
{
	if (!r->npoints)
		return;
	const struct point_result *p0 = &r->points[0];
	bool tx = p0->headline != NULL;
	bool sweep = p0->pt.write_pct >= 0, dev_mbps = false;
	char a[32], b[32], c[32], d[32], e[32];

	fprintf(f, "%-8s %4s %4s%s %12s %10s %10s %10s %10s %10s %10s\n", "threads",
		tx ? "" : "qd", "", sweep ? " write%" : "", point_rate_unit(p0), "MB/s",
		"mean", "p50", "p99", "max", "stddev");
	for (unsigned i = 0; i < r->npoints; i++) {
		const struct point_result *p = &r->points[i];
		const struct cls_result *h = headline(p);
		char qd[16] = "";
		if (!tx)
			snprintf(qd, sizeof(qd), "%u", p->pt.qd);
		fprintf(f, "%-8u %4s %4s", p->pt.threads, qd, p->partial ? "(p)" : "");
		if (sweep)
			fprintf(f, " %6d", p->pt.write_pct);
		fprintf(f, " %12.0f %10.1f %10s %10s %10s %10s %10s\n", h->ops_per_s,
			row_mb_per_s(p, h, &dev_mbps),
			fmt_ns(h->lat.mean, a, sizeof(a)), fmt_ns((double)h->lat.p50, b, sizeof(b)),
			fmt_ns((double)h->lat.p99, c, sizeof(c)), fmt_ns((double)h->lat.max, d, sizeof(d)),
			fmt_ns(h->lat.stddev, e, sizeof(e)));
		if (p->ranks)
			print_slowest(p->ranks, f);
	}
	if (r->rate)
		print_rate(r, f);
	if (r->slo)
		slo_print(r->slo, r, f);
	if (r->slo_search)
		slo_search_print(r->slo_search, f);
	if (dev_mbps)
		fprintf(f, "MB/s: what the drive read and wrote during the point (its own counters)\n");
	if (r->interrupted)
		fputs("(p) partial: interrupted before the point's time was up\n", f);
}
