/*
 * test_record_dev.c - which device a capture traces, on a sysfs tree made
 * here (a disk with a partition, a device-mapper device over two disks):
 * names, MAJ:MIN and /dev paths found, a partition's disk, start and size,
 * devices without requests refused naming what is under them; the kernel
 * dev_t of the filter, and the buffer sized from the expected rate.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "appio/trace_record.h"
#include "check.h"
#include "record_dev.h"

static char root[64];

static void put(const char *path, const char *text)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, path);
	FILE *f = fopen(p, "w");
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void dir(const char *path)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, path);
	mkdir(p, 0755);
}

static void link_to(const char *target, const char *path)
{
	char p[256];
	snprintf(p, sizeof(p), "%s/%s", root, path);
	CHECK(!symlink(target, p), "symlink %s", p);
}

static void make_tree(void)
{
	static const char *const dirs[] = { "devices", "devices/virtual", "devices/virtual/block",
		"devices/virtual/block/loop9", "devices/virtual/block/loop9/mq",
		"devices/virtual/block/loop9/loop9p1", "devices/virtual/block/dm-3",
		"devices/virtual/block/dm-3/dm", "devices/virtual/block/dm-3/slaves",
		"devices/virtual/block/dm-3/slaves/vdb", "dev", "dev/block", "class", "class/block" };

	snprintf(root, sizeof(root), "build/tests/sysfs-%d", (int)getpid());
	mkdir(root, 0755);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		dir(dirs[i]);
	put("devices/virtual/block/loop9/dev", "7:9\n");
	put("devices/virtual/block/loop9/loop9p1/dev", "259:9\n");
	put("devices/virtual/block/loop9/loop9p1/partition", "1\n");
	put("devices/virtual/block/loop9/loop9p1/start", "2048\n");
	put("devices/virtual/block/loop9/loop9p1/size", "65536\n");
	put("devices/virtual/block/dm-3/dev", "253:3\n");
	link_to("../../devices/virtual/block/loop9", "dev/block/7:9");
	link_to("../../devices/virtual/block/loop9/loop9p1", "dev/block/259:9");
	link_to("../../devices/virtual/block/dm-3", "dev/block/253:3");
	link_to("../../devices/virtual/block/loop9", "class/block/loop9");
	link_to("../../devices/virtual/block/loop9/loop9p1", "class/block/loop9p1");
	link_to("../../devices/virtual/block/dm-3", "class/block/dm-3");
}

static void test_find(void)
{
	struct record_dev d;
	char err[400];

	make_tree();
	CHECK(!record_dev_find("loop9p1", NULL, root, &d, err, sizeof(err)) && d.part &&
	      !strcmp(d.name, "loop9p1") && !strcmp(d.disk, "loop9") && d.major == 7 && d.minor == 9 &&
	      d.start == 2048 && d.sectors == 65536, "loop9p1: %s %s %u:%u %d %llu %llu (%s)", d.name, d.disk,
	      d.major, d.minor, d.part, (unsigned long long)d.start, (unsigned long long)d.sectors, err);
	CHECK(!record_dev_find("259:9", NULL, root, &d, err, sizeof(err)) && d.part && !strcmp(d.disk, "loop9"),
	      "259:9: %s", err);
	CHECK(!record_dev_find("/dev/loop9", NULL, root, &d, err, sizeof(err)) && !d.part &&
	      !strcmp(d.name, "loop9") && d.start == 0, "/dev/loop9: %s", err);
	CHECK(record_dev_kdev(&d) == (7u << 20 | 9), "kdev %llu", (unsigned long long)record_dev_kdev(&d));
	CHECK(record_dev_find("dm-3", NULL, root, &d, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "'dm-3' does not queue block requests") && strstr(err, "vdb"), "dm-3: %s", err);
	CHECK(record_dev_find("no-such", NULL, root, &d, err, sizeof(err)) == -EINVAL &&
	      !strcmp(err, "--device: no block device 'no-such' (expected a name as lsblk lists it, "
		      "/dev/NAME or MAJ:MIN)"), "no-such: %s", err);
	CHECK(record_dev_find("9:99", NULL, root, &d, err, sizeof(err)) == -EINVAL && strstr(err, "9:99"),
	      "9:99: %s", err);
	CHECK(record_dev_find(NULL, "/no/such/path", root, &d, err, sizeof(err)) == -EINVAL &&
	      strstr(err, "--path: cannot find '/no/such/path'"), "path: %s", err);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	CHECK(!system(cmd), "%s", cmd);
}

static void test_buffer(void)
{
	CHECK(trace_record_buffer_kb(0) == trace_record_buffer_kb(TRACE_RECORD_RATE), "default rate");
	CHECK(trace_record_buffer_kb(TRACE_RECORD_RATE) == 9375, "%llu",
	      (unsigned long long)trace_record_buffer_kb(TRACE_RECORD_RATE));
	CHECK(trace_record_buffer_kb(10) == 1024, "at least 1 MiB");
	CHECK(trace_record_buffer_kb(UINT64_MAX / 1000) == 1024 * 1024, "at most 1 GiB");
}

int main(void)
{
	RUN(test_find);
	RUN(test_buffer);
	return check_done();
}
