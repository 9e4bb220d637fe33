// SPDX-License-Identifier: GPL-2.0
/*
 * For test-cli.sh: cpuset-toss built with -Wl,--wrap=toss_cgroup_from_path
 * finds a cgroup named by its path in a directory tree of plain files,
 * $FAKE_CG_ROOT, which stands for the cgroup v2 mount, instead of the
 * host's cgroup hierarchy.  What the wrapper returns is what the real
 * function returns for a v2 mount there: the cgroup's directory and path,
 * -TOSS_ENOCGROUP without the directory, and -TOSS_ENOCPUSET (with the
 * directory set) without cpuset.mems.effective.  Everything else is the
 * real code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "toss.h"

int __wrap_toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
				 char *err, size_t errlen);

int __wrap_toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
				 char *err, size_t errlen)
{
	const char *root = getenv("FAKE_CG_ROOT");
	char file[sizeof(cg->dir) + 32];
	struct stat st;

	memset(cg, 0, sizeof(*cg));
	if (!root) {
		snprintf(err, errlen, "no FAKE_CG_ROOT (test)");
		return -TOSS_ENOCGROUP;
	}
	while (path[0] == '/')
		path++;
	if (strstr(path, "..")) {
		snprintf(err, errlen, "cgroup path /%s contains \"..\"", path);
		return -TOSS_EUSAGE;
	}
	if (snprintf(cg->rel, sizeof(cg->rel), "/%s", path) >= (int)sizeof(cg->rel) ||
	    snprintf(cg->dir, sizeof(cg->dir), "%s/%s", root, path) >= (int)sizeof(cg->dir)) {
		snprintf(err, errlen, "cgroup path too long");
		return -TOSS_EUSAGE;
	}
	if (stat(cg->dir, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "no cgroup %s", cg->rel);
		return -TOSS_ENOCGROUP;
	}
	snprintf(file, sizeof(file), "%s/cpuset.mems.effective", cg->dir);
	if (access(file, F_OK)) {
		snprintf(err, errlen, "the cpuset controller is not enabled on cgroup %s",
			 cg->rel);
		return -TOSS_ENOCPUSET;
	}
	return 0;
}
