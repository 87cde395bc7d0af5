/*
 * health.h - what a drive says about itself (SMART / NVMe health log),
 * read with smartctl before and after a run, so the host's writes and the
 * drive's own counters sit side by side in the result.
 */
#ifndef APPIO_HEALTH_H
#define APPIO_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* One reading. Figures the drive does not report are -1. */
struct health {
	bool valid;                     /* the drive's figures were read */
	char why[200];                  /* when not valid: why, in one line */
	char protocol[16];              /* "NVMe", "ATA", "SCSI" */
	char model[96];
	int64_t data_read_bytes;        /* NVMe data units x 512,000; ATA LBAs read x 512 */
	int64_t data_written_bytes;
	int64_t media_errors;           /* NVMe media and data integrity errors; ATA reported uncorrectable */
	int64_t percentage_used;        /* of the rated endurance */
	int64_t temperature_c;
	int64_t power_on_hours;
};

/*
 * Parse smartctl's JSON (smartctl --json -a DEV, @len bytes at @text) into
 * @h. Returns 0 with @h valid, or -EINVAL with @h->why saying what smartctl
 * reported instead (its error message, or that the document holds no health
 * figures, or that it is not smartctl's JSON).
 */
int health_parse(const char *text, size_t len, struct health *h);

/*
 * Read block device @dev ("nvme0n1", "sda"; "" for none) with smartctl. Never
 * fails: @h is valid, or says why not (no device under the target, smartctl
 * not installed, the device has no SMART, no permission).
 */
void health_read(const char *dev, struct health *h);

/*
 * Write "health": {"before": H, "after": H} (no leading comma or newline);
 * @after may be NULL (not read yet: a suite still running). H is
 * {available, why} or {available, protocol, model, data_read_bytes,
 * data_written_bytes, media_errors, percentage_used, temperature_c,
 * power_on_hours}, figures the drive does not report null.
 */
void health_write_json(FILE *f, const struct health *before, const struct health *after);

/*
 * One line: what the drive counted as written between @a and @b beside
 * @host_written bytes the host wrote (@host_what says over what, e.g. "in
 * the measured points"), the temperatures, endurance used and media errors;
 * or "not available" and why.
 */
void health_print(FILE *f, const struct health *a, const struct health *b, uint64_t host_written,
		  const char *host_what);
#endif
