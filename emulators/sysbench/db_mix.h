/*
 * db_mix.h - SysBench's OLTP statement mix and row choice as options, shared
 * by `appio db` (real databases) and the `oltp` emulator, so that both take
 * the same names, defaults and limits (oltp_common.lua).
 */
#ifndef APPIO_DB_MIX_H
#define APPIO_DB_MIX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "appio/opt.h"
#include "db_rand.h"

struct db_mix {
	int rand_type;                  /* enum db_rand_type; first: no count at offset 0 */
	uint64_t range_size, point_selects, simple_ranges, sum_ranges;
	uint64_t order_ranges, distinct_ranges, index_updates, non_index_updates;
	uint64_t delete_inserts;
	bool range_selects, skip_trx;
};

/* Option rows for struct db_mix at offset @base of an options struct. */
#define DB_MIX(b, f) ((b) + offsetof(struct db_mix, f))
#define DB_MIX_OPTS(base) \
	{ "rand-type", OPT_ENUM, DB_MIX(base, rand_type), "special", \
	  "distribution of row ids, as SysBench's --rand-type", db_rand_type_names }, \
	{ "range-size", OPT_UINT, DB_MIX(base, range_size), "100", "rows in each range SELECT", .min = 1, \
	  .max = INT32_MAX }, \
	{ "point-selects", OPT_UINT, DB_MIX(base, point_selects), "10", \
	  "point SELECTs per transaction", .max = 100000 }, \
	{ "simple-ranges", OPT_UINT, DB_MIX(base, simple_ranges), "1", \
	  "simple range SELECTs per transaction", .max = 100000 }, \
	{ "sum-ranges", OPT_UINT, DB_MIX(base, sum_ranges), "1", \
	  "SELECT SUM() ranges per transaction", .max = 100000 }, \
	{ "order-ranges", OPT_UINT, DB_MIX(base, order_ranges), "1", \
	  "SELECT ... ORDER BY ranges per transaction", .max = 100000 }, \
	{ "distinct-ranges", OPT_UINT, DB_MIX(base, distinct_ranges), "1", \
	  "SELECT DISTINCT ranges per transaction", .max = 100000 }, \
	{ "index-updates", OPT_UINT, DB_MIX(base, index_updates), "1", \
	  "UPDATEs of the indexed column k per transaction", .max = 100000 }, \
	{ "non-index-updates", OPT_UINT, DB_MIX(base, non_index_updates), "1", \
	  "UPDATEs of column c per transaction", .max = 100000 }, \
	{ "delete-inserts", OPT_UINT, DB_MIX(base, delete_inserts), "1", \
	  "DELETE + INSERT pairs per transaction", .max = 100000 }, \
	{ "range-selects", OPT_BOOL, DB_MIX(base, range_selects), "on", "run the range SELECTs at all" }, \
	{ "skip-trx", OPT_BOOL, DB_MIX(base, skip_trx), "off", \
	  "no BEGIN/COMMIT: every statement commits on its own" }

#endif
