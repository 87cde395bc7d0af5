/*
 * record_mnt.h - what both capture back-ends need of the system: the
 * privilege check, and a pseudo file system (tracefs, debugfs) that is
 * either mounted already or mounted by appio on a temporary folder inside a
 * private mount namespace, so nothing shows in the system's mounts and
 * nothing outlives the process.
 */
#ifndef APPIO_TRACES_RECORD_MNT_H
#define APPIO_TRACES_RECORD_MNT_H

#include <stdbool.h>
#include <stddef.h>

/* Does this process hold CAP_SYS_ADMIN in its effective set? */
bool record_mnt_sys_admin(void);

/* One line "trace record needs CAP_SYS_ADMIN (run it as root) to @what" in @err; -EPERM. */
int record_mnt_perm(char *err, size_t errlen, const char *what);

/*
 * Where a file system of @type ("tracefs", "debugfs") is mounted, into
 * @dir; when it is not, mount it on /tmp/appio-@type-PID.XXXXXX in a private
 * mount namespace (it covers the calling thread and the threads it starts
 * after) and put that folder in @mnt too (else @mnt
 * is ""). Empty folders of earlier processes that are gone are removed
 * first. 0, or -EPERM / -errno with one line in @err.
 */
int record_mnt_get(const char *type, char *dir, size_t dirlen, char *mnt, size_t mntlen,
		   char *err, size_t errlen);

/* Unmount and remove @mnt when it is not ""; then @mnt is "". */
void record_mnt_put(char *mnt);

#endif
