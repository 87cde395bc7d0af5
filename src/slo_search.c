/*
 * slo_search.c - bisection over --rate for the throughput at the --slo
 * limits (see slo_search.h).
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "job.h"
#include "json_write.h"
#include "slo_search.h"
#include "suite.h"

/* One rate-limited run of point @idx at @rate, judged against the limits. */
static int probe(struct job *j, unsigned idx, double rate, uint64_t seed, struct slo_probe *pr,
		 volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	struct result tmp;
	uint64_t saved = j->ro.rate;
	int rc;

	/*
	 * A probe is a run of its own: a transactional emulator starts it with a
	 * cold cache (a buffer pool, a journal, a RAM cache), whose misses at a
	 * fixed rate would pile up a backlog the sweep's warm points never had.
	 * It warms at the probe's rate for --ramp, at least --time, first.
	 */
	double ramp = (double)j->ro.ramp;
	if (!j->emu->next_io && ramp < (double)j->ro.time)
		ramp = (double)j->ro.time;
	result_init(&tmp);
	j->ro.rate = (uint64_t)(rate + 0.5);
	rc = suite_run_point(j, &tmp, idx, (double)j->ro.time, ramp, seed, stop, err, errlen);
	j->ro.rate = saved;
	*pr = (struct slo_probe){ .rate = (double)(uint64_t)(rate + 0.5), .broken = -1, .ns = NAN };
	if (!rc && tmp.npoints) {
		struct slo_pick pk;
		slo_pick_result(&j->slo, &tmp, &pk);
		pr->ops_per_s = point_rate_reached(&tmp.points[0]);
		pr->meets = pk.best == 0 && pr->ops_per_s >= 0.99 * pr->rate;
		pr->broken = pk.over == 0 ? pk.broken : -1;
		pr->ns = pk.over == 0 ? pk.over_ns : NAN;
	}
	result_release(&tmp);
	return rc;
}

/* The sweep's busiest whole point, or -1. */
static int busiest(const struct result *r)
{
	int b = -1;

	for (unsigned i = 0; i < r->npoints; i++)
		if (!r->points[i].partial && (b < 0 || point_rate_reached(&r->points[i]) > point_rate_reached(&r->points[b])))
			b = (int)i;
	return b;
}

static const char *unit_of(const struct slo_search *s)
{
	return s->unit ? s->unit : "IOPS";
}

/* Where the probes ran: "4T/32Q", or "4T" for a transactional emulator (no queue depth). */
static char *where(const struct slo_search *s, char *buf, size_t len)
{
	if (s->unit && strcmp(s->unit, "IOPS"))
		snprintf(buf, len, "%uT", s->threads);
	else
		snprintf(buf, len, "%uT/%uQ", s->threads, s->qd);
	return buf;
}

int slo_bisect(struct slo_search *s, unsigned max_probes, slo_probe_fn fn, void *ctx, FILE *log)
{
	double lo = s->lo, hi = s->hi;
	int rc = 0;

	s->ran = true;
	if (max_probes > SLO_SEARCH_PROBES)
		max_probes = SLO_SEARCH_PROBES;
	while (s->n < max_probes && hi - lo > 0.02 * hi) {
		struct slo_probe *pr = &s->p[s->n];
		double rate = floor((lo + hi) / 2 + 0.5);
		if (rate < 1 || rate <= lo || rate >= hi)
			break;
		if ((rc = fn(ctx, rate, pr)) != 0)
			break;
		s->n++;
		if (pr->meets)
			lo = pr->rate;
		else
			hi = pr->rate;
		if (log) {
			char a[32], w[32];
			fprintf(log, "slo search %u/%u at %s: %.0f %s asked, %.0f reached, %s%s%s\n",
				s->n, max_probes, where(s, w, sizeof(w)), pr->rate, unit_of(s), pr->ops_per_s,
				pr->meets ? "meets the limits" : "over", !pr->meets && pr->broken >= 0 ? ": " : "",
				!pr->meets && pr->broken >= 0 ? fmt_ns(pr->ns, a, sizeof(a)) : "");
			fflush(log);
		}
	}
	s->at_limit = lo;
	return rc;
}

struct probe_ctx {
	struct job *j;
	unsigned idx, k;
	volatile sig_atomic_t *stop;
	char *err;
	size_t errlen;
};

static int probe_fn(void *arg, double rate, struct slo_probe *pr)
{
	struct probe_ctx *c = arg;

	return probe(c->j, c->idx, rate, c->j->ro.seed + 104729ULL * ++c->k, pr, c->stop, c->err,
		     c->errlen);
}

int slo_search_run(struct job *j, const struct result *sweep, struct slo_search *out,
		   volatile sig_atomic_t *stop, FILE *log, char *err, size_t errlen)
{
	struct slo_pick pk;
	int b = busiest(sweep);

	memset(out, 0, sizeof(*out));
	out->slo = &j->slo;
	if (b < 0) {
		snprintf(out->why, sizeof(out->why), "no whole point to search from");
		return 0;
	}
	slo_pick_result(&j->slo, sweep, &pk);
	out->unit = sweep->points[b].events ? point_rate_unit(&sweep->points[b]) : "IOPS";
	out->threads = sweep->points[b].pt.threads;
	out->qd = sweep->points[b].pt.qd;
	out->hi = point_rate_reached(&sweep->points[b]);
	out->lo = pk.best >= 0 ? point_rate_reached(&sweep->points[pk.best]) : 0;
	if (pk.best == b) {
		out->at_limit = out->hi;
		snprintf(out->why, sizeof(out->why), "the busiest point meets the limits: the drive's "
			 "limit is above what the sweep reached");
		return 0;
	}
	struct probe_ctx c = { .j = j, .idx = (unsigned)b, .stop = stop, .err = err, .errlen = errlen };
	return slo_bisect(out, (unsigned)j->ro.slo_search, probe_fn, &c, log);
}

void slo_search_print(const struct slo_search *s, FILE *f)
{
	char lim[256], w[32];

	slo_format(s->slo, lim, sizeof(lim));
	where(s, w, sizeof(w));
	if (!s->ran) {
		fprintf(f, "SLO search %s: %s", lim, s->why);
		if (s->at_limit > 0)
			fprintf(f, " (%.0f %s at %s)", s->at_limit, unit_of(s), w);
		fputc('\n', f);
		return;
	}
	if (s->at_limit > 0)
		fprintf(f, "SLO search %s: %.0f %s at %s meet the limits, open loop, latency from "
			"the intended start (%u rate-limited run(s) between %.0f and %.0f %s)\n", lim,
			s->at_limit, unit_of(s), w, s->n, s->lo, s->hi, unit_of(s));
	else
		fprintf(f, "SLO search %s: no rate tried meets the limits at %s (%u run(s), lowest "
			"%.0f %s)\n", lim, w, s->n, s->n ? s->p[s->n - 1].rate : 0, unit_of(s));
}

void slo_search_write_json(const struct slo_search *s, FILE *f)
{
	fprintf(f, "\"slo_search\": {\"threads\": %u, \"qd\": %u, \"from_iops\": ", s->threads, s->qd);
	json_num(f, s->lo);
	fputs(", \"to_iops\": ", f);
	json_num(f, s->hi);
	fputs(", \"unit\": ", f);
	json_str(f, unit_of(s));
	fputs(", \"latency_from\": \"intended_start\", \"probes\": [", f);
	for (unsigned i = 0; i < s->n; i++) {
		const struct slo_probe *p = &s->p[i];
		fprintf(f, "%s{\"rate_iops\": ", i ? ", " : "");
		json_num(f, p->rate);
		fputs(", \"ops_per_s\": ", f);
		json_num(f, p->ops_per_s);
		fprintf(f, ", \"meets\": %s", p->meets ? "true" : "false");
		if (p->broken >= 0) {
			const struct slo_limit *l = &s->slo->lim[p->broken];
			char key[96];
			fputs(", \"broken\": ", f);
			json_str(f, slo_limit_name(l, key, sizeof(key)));
			fputs(", \"value_ns\": ", f);
			json_num(f, p->ns);
		}
		fputc('}', f);
	}
	fputs("], \"at_limit_iops\": ", f);
	json_num(f, s->at_limit);
	fputs(", \"note\": ", f);
	json_str(f, s->why);
	fputc('}', f);
}
