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

#endif
