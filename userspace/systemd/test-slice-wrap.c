// SPDX-License-Identifier: GPL-2.0
/*
 * For test-slice.sh: cpuset-toss built with
 * -Wl,--wrap=toss_cgroup_rel_of_pid,--wrap=toss_cgroup_from_path finds
 * cgroups in a directory of plain files, $FAKE_ROOT, the hierarchy's
 * root, and is itself in $FAKE_SELF ("/job42.slice/x.service"), as
 * systemd would have put cpuset-toss@.service's process.  A cgroup
 * without cpuset.mems.effective has no cpuset controller, as in the
 * kernel (systemd's services inside a slice often have none).  Everything
 * else is the real code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "toss.h"

int __wrap_toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
				 char *err, size_t errlen);
int __wrap_toss_cgroup_rel_of_pid(pid_t pid, char *rel, size_t len,
				  char *err, size_t errlen);

int __wrap_toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
				 char *err, size_t errlen)
{
	const char *root = getenv("FAKE_ROOT");
	struct stat st;

	memset(cg, 0, sizeof(*cg));
	while (path[0] == '/' && path[1] == '/')
		path++;
	if (!root || strstr(path, "..")) {
		snprintf(err, errlen, "no FAKE_ROOT, or \"..\" (test)");
		return -TOSS_ENOCGROUP;
	}
	snprintf(cg->rel, sizeof(cg->rel), "%s%s", path[0] == '/' ? "" : "/", path);
	snprintf(cg->dir, sizeof(cg->dir), "%s%s", root, strcmp(cg->rel, "/") ? cg->rel : "");
	if (stat(cg->dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "no cgroup %s (test)", cg->rel);
		return -TOSS_ENOCGROUP;
	}
	{
		char f[sizeof(cg->dir) + 32];

		snprintf(f, sizeof(f), "%s/cpuset.mems.effective", cg->dir);
		if (stat(f, &st)) {
			snprintf(err, errlen, "the cpuset controller is not enabled on cgroup %s (test)",
				 cg->rel);
			return -TOSS_ENOCPUSET;
		}
	}
	return 0;
}

int __wrap_toss_cgroup_rel_of_pid(pid_t pid, char *rel, size_t len,
				  char *err, size_t errlen)
{
	const char *self = getenv("FAKE_SELF");

	if (pid || !self) {
		snprintf(err, errlen, "only the caller, in FAKE_SELF (test)");
		return -TOSS_ENOCGROUP;
	}
	snprintf(rel, len, "%s", self);
	return 0;
}
