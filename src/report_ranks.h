/*
 * report_ranks.h - the report's per-host spread for results of MPI runs
 * (docs/scale-out.md): per drive and point, a table of every host's figures
 * from the point's "ranks" object (IOPS or TPS, MB/s, mean, p99, max), each
 * host's share of the aggregate, and the spread between the slowest and
 * the fastest host (and rank). Nothing for results of a single process.
 *
 * The table is <table class="hosts" data-drive="LABEL" data-point="KEY">,
 * one row per host with data-host="NAME" and data-ops-per-s.
 * Main thread only; writes HTML, runs nothing.
 */
#ifndef APPIO_REPORT_RANKS_H
#define APPIO_REPORT_RANKS_H

#include <stdio.h>

#include "json_read.h"

/* Write test @t's per-host tables of drive @d into @page (nothing without ranks). */
void report_ranks_hosts(FILE *page, const struct json_read_doc *d, const struct json_read_test *t);

#endif
