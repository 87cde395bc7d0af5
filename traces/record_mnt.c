/*
 * record_mnt.c - the privilege check and the pseudo file systems of a
 * capture (record_mnt.h). A private mount namespace keeps appio's own
 * mounts out of the system's table: they go when the process does.
 */
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include "record_mnt.h"

#define CAP_SYS_ADMIN_BIT 21

bool record_mnt_sys_admin(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long caps = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return (caps >> CAP_SYS_ADMIN_BIT) & 1;
}

int record_mnt_perm(char *err, size_t errlen, const char *what)
{
	snprintf(err, errlen, "trace record needs CAP_SYS_ADMIN (run it as root) to %s", what);
	return -EPERM;
}

/* An existing mount of @type from /proc/self/mounts into @dir, or -1. */
static int find_mount(const char *type, char *dir, size_t len)
{
	FILE *f = fopen("/proc/self/mounts", "r");
	char line[1024], mnt[512], t[64];
	int rc = -1;

	if (!f)
		return -1;
	while (rc && fgets(line, sizeof(line), f))
		if (sscanf(line, "%*s %511s %63s", mnt, t) == 2 && !strcmp(t, type)) {
			snprintf(dir, len, "%s", mnt);
			rc = 0;
		}
	fclose(f);
	return rc;
}

/* Remove the empty mount points "appio-TYPE-PID.*" of captures whose process is gone. */
static void remove_stale_dirs(const char *type)
{
	DIR *d = opendir("/tmp");
	struct dirent *e;
	char prefix[64];
	size_t plen = (size_t)snprintf(prefix, sizeof(prefix), "appio-%s-", type);
	int pid;

	if (!d)
		return;
	while ((e = readdir(d)))
		if (!strncmp(e->d_name, prefix, plen) && sscanf(e->d_name + plen, "%d.", &pid) == 1 && pid > 0 &&
		    kill(pid, 0) && errno == ESRCH) {
			char p[300];
			snprintf(p, sizeof(p), "/tmp/%s", e->d_name);
			rmdir(p);       /* only an empty folder goes */
		}
	closedir(d);
}

static int mount_private(const char *type, char *mnt, size_t mntlen, char *err, size_t errlen)
{
	char what[32];

	snprintf(what, sizeof(what), "mount %s", type);
	remove_stale_dirs(type);
	if (unshare(CLONE_NEWNS) || mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) {
		if (errno == EPERM)
			return record_mnt_perm(err, errlen, what);
		snprintf(err, errlen, "cannot make a private mount namespace for %s: %s", type, strerror(errno));
		return -errno;
	}
	snprintf(mnt, mntlen, "/tmp/appio-%s-%d.XXXXXX", type, (int)getpid());
	if (!mkdtemp(mnt)) {
		int e = errno;
		snprintf(err, errlen, "cannot make a folder to mount %s on ('%s'): %s", type, mnt, strerror(e));
		mnt[0] = 0;
		return -e;
	}
	if (mount("nodev", mnt, type, 0, NULL)) {
		int e = errno;
		rmdir(mnt);
		mnt[0] = 0;
		if (e == EPERM)
			return record_mnt_perm(err, errlen, what);
		snprintf(err, errlen, "cannot mount %s: %s (is it configured out of this kernel?)", type, strerror(e));
		return -e;
	}
	return 0;
}

int record_mnt_get(const char *type, char *dir, size_t dirlen, char *mnt, size_t mntlen,
		   char *err, size_t errlen)
{
	int rc;

	mnt[0] = 0;
	if (!find_mount(type, dir, dirlen))
		return 0;
	if ((rc = mount_private(type, mnt, mntlen, err, errlen)))
		return rc;
	snprintf(dir, dirlen, "%s", mnt);
	return 0;
}

void record_mnt_put(char *mnt)
{
	if (!mnt[0])
		return;
	umount2(mnt, MNT_DETACH);
	rmdir(mnt);
	mnt[0] = 0;
}
