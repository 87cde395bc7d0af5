/*
 * health.c - SMART and NVMe health figures through smartctl (smartmontools):
 * it knows every protocol's quirks, and its JSON output (--json, format
 * version 1) is stable. Run twice per run, outside any measured window.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "appio/health.h"
#include "json_write.h"
#include "appio/xalloc.h"

extern char **environ;

#define SMARTCTL_OUT_MAX (4 << 20)      /* a full -a report is tens of KiB */
#define SMARTCTL_TIMEOUT_MS 20000       /* a device that never answers must not hold the run */

static void unknown(struct health *h)
{
	memset(h, 0, sizeof(*h));
	h->data_read_bytes = h->data_written_bytes = h->media_errors = -1;
	h->percentage_used = h->temperature_c = h->power_on_hours = -1;
}

static int64_t int_of(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	return json_is_integer(v) && json_integer_value(v) >= 0 ? (int64_t)json_integer_value(v) : -1;
}

/* Raw value of ATA attribute @id, or -1. */
static int64_t ata_raw(json_t *root, int id)
{
	json_t *table = json_object_get(json_object_get(root, "ata_smart_attributes"), "table"), *a;
	size_t i;

	json_array_foreach(table, i, a)
		if (int_of(a, "id") == id)
			return int_of(json_object_get(a, "raw"), "value");
	return -1;
}

static int64_t scaled(int64_t v, int64_t unit)
{
	return v < 0 || v > INT64_MAX / unit ? -1 : v * unit;
}

int health_parse(const char *text, size_t len, struct health *h)
{
	json_error_t je;
	json_t *root = json_loadb(text, len, 0, &je);

	unknown(h);
	if (!json_is_object(root) || !json_is_object(json_object_get(root, "smartctl"))) {
		snprintf(h->why, sizeof(h->why), "smartctl's output is not its JSON");
		json_decref(root);
		return -EINVAL;
	}
	json_t *nvme = json_object_get(root, "nvme_smart_health_information_log");
	json_t *ata = json_object_get(root, "ata_smart_attributes");
	if (!json_is_object(nvme) && !json_is_object(ata)) {
		/* smartctl's own words: the first error message, else the first message */
		json_t *msgs = json_object_get(json_object_get(root, "smartctl"), "messages"), *m;
		const char *why = NULL;
		size_t i;
		json_array_foreach(msgs, i, m) {
			const char *s = json_string_value(json_object_get(m, "string"));
			const char *sev = json_string_value(json_object_get(m, "severity"));
			if (s && (!why || (sev && !strcmp(sev, "error"))))
				why = s;
			if (why && sev && !strcmp(sev, "error"))
				break;
		}
		snprintf(h->why, sizeof(h->why), "%s", why ? why : "the device reports no SMART health figures");
		for (char *c = h->why; *c; c++)
			if (*c == '\n' || *c == '\r')
				*c = ' ';
		json_decref(root);
		return -EINVAL;
	}
	const char *proto = json_string_value(json_object_get(json_object_get(root, "device"), "protocol"));
	const char *model = json_string_value(json_object_get(root, "model_name"));
	snprintf(h->protocol, sizeof(h->protocol), "%s", proto ? proto : nvme ? "NVMe" : "ATA");
	snprintf(h->model, sizeof(h->model), "%s", model ? model : "");
	h->temperature_c = int_of(json_object_get(root, "temperature"), "current");
	h->power_on_hours = int_of(json_object_get(root, "power_on_time"), "hours");
	if (json_is_object(nvme)) {
		h->data_read_bytes = scaled(int_of(nvme, "data_units_read"), 512000);
		h->data_written_bytes = scaled(int_of(nvme, "data_units_written"), 512000);
		h->media_errors = int_of(nvme, "media_errors");
		h->percentage_used = int_of(nvme, "percentage_used");
		if (h->temperature_c < 0)
			h->temperature_c = int_of(nvme, "temperature");
	} else {
		/* 241/242: Total_LBAs_Written/Read (512-byte units on the drives that have them) */
		h->data_written_bytes = scaled(ata_raw(root, 241), 512);
		h->data_read_bytes = scaled(ata_raw(root, 242), 512);
		h->media_errors = ata_raw(root, 187);   /* Reported_Uncorrect */
		json_t *end = json_object_get(root, "endurance_used");
		h->percentage_used = int_of(end, "current_percent");
	}
	h->valid = true;
	json_decref(root);
	return 0;
}

/* Run smartctl on @path; its stdout (owned, NUL-terminated) and length, or NULL with @h->why. */
static char *run_smartctl(const char *path, size_t *len, struct health *h)
{
	int fds[2];
	pid_t pid;
	posix_spawn_file_actions_t fa;
	char *argv[] = { "smartctl", "--json", "-a", (char *)path, NULL };

	if (pipe2(fds, O_CLOEXEC)) {
		snprintf(h->why, sizeof(h->why), "cannot run smartctl: %s", strerror(errno));
		return NULL;
	}
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fds[1], 1);
	posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	int rc = posix_spawnp(&pid, "smartctl", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fds[1]);
	if (rc) {
		close(fds[0]);
		snprintf(h->why, sizeof(h->why), rc == ENOENT ? "smartctl is not installed (Debian package "
			 "smartmontools)" : "cannot run smartctl: %s", strerror(rc));
		return NULL;
	}
	size_t cap = 65536, n = 0;
	char *buf = xmalloc(cap);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fds[0], .events = POLLIN };
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long left = SMARTCTL_TIMEOUT_MS - ((t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0 || poll(&p, 1, (int)left) == 0) {
			kill(pid, SIGKILL);
			snprintf(h->why, sizeof(h->why), "smartctl did not answer within %d s", SMARTCTL_TIMEOUT_MS / 1000);
			n = 0;
			break;
		}
		if (n + 1 >= cap) {
			if (cap >= SMARTCTL_OUT_MAX)
				break;
			buf = xrealloc(buf, cap *= 2);
		}
		ssize_t r = read(fds[0], buf + n, cap - n - 1);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += (size_t)r;
	}
	close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	if (!n) {
		free(buf);
		if (!h->why[0])
			snprintf(h->why, sizeof(h->why), "smartctl printed nothing");
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

void health_read(const char *dev, struct health *h)
{
	char path[128];
	size_t len;

	unknown(h);
	if (!dev || !*dev) {
		snprintf(h->why, sizeof(h->why), "no block device under the target");
		return;
	}
	snprintf(path, sizeof(path), "/dev/%s", dev);
	char *out = run_smartctl(path, &len, h);
	if (!out)
		return;
	health_parse(out, len, h);
	free(out);
}

static void json_count(FILE *f, const char *key, int64_t v)
{
	fprintf(f, ", \"%s\": ", key);
	if (v < 0)
		fputs("null", f);
	else
		fprintf(f, "%lld", (long long)v);
}

static void json_one(FILE *f, const char *key, const struct health *h)
{
	fprintf(f, "\"%s\": {\"available\": %s", key, h->valid ? "true" : "false");
	if (!h->valid) {
		fputs(", \"why\": ", f);
		json_str(f, h->why);
		fputc('}', f);
		return;
	}
	fputs(", \"protocol\": ", f);
	json_str(f, h->protocol);
	fputs(", \"model\": ", f);
	json_str(f, h->model);
	json_count(f, "data_read_bytes", h->data_read_bytes);
	json_count(f, "data_written_bytes", h->data_written_bytes);
	json_count(f, "media_errors", h->media_errors);
	json_count(f, "percentage_used", h->percentage_used);
	json_count(f, "temperature_c", h->temperature_c);
	json_count(f, "power_on_hours", h->power_on_hours);
	fputc('}', f);
}

void health_write_json(FILE *f, const struct health *before, const struct health *after)
{
	fputs("\"health\": {", f);
	json_one(f, "before", before);
	if (after) {
		fputs(", ", f);
		json_one(f, "after", after);
	}
	fputc('}', f);
}

void health_print(FILE *f, const struct health *a, const struct health *b, uint64_t host_written,
		  const char *host_what)
{
	if (!a->valid || !b->valid) {
		fprintf(f, "drive health (smartctl): not available: %s\n", a->valid ? b->why : a->why);
		return;
	}
	fputs("drive health (smartctl):", f);
	if (a->data_written_bytes >= 0 && b->data_written_bytes >= 0)
		fprintf(f, " the drive counted %.2f GB written (the host %.2f GB %s);",
			(double)(b->data_written_bytes - a->data_written_bytes) / 1e9,
			(double)host_written / 1e9, host_what);
	if (b->temperature_c >= 0)
		fprintf(f, " %lld -> %lld C;", (long long)a->temperature_c, (long long)b->temperature_c);
	if (b->percentage_used >= 0)
		fprintf(f, " %lld %% of its rated endurance used;", (long long)b->percentage_used);
	if (b->media_errors >= 0)
		fprintf(f, " %lld media errors", (long long)b->media_errors);
	fputc('\n', f);
}
