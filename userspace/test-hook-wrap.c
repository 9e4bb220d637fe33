// SPDX-License-Identifier: GPL-2.0
/*
 * For test-hook.sh: the OCI hook built with -Wl,--wrap=toss_cgroup_from_pid
 * finds the container's cgroup in a directory of plain files, named by
 * $FAKE_CG_DIR (its path in the hierarchy: $FAKE_CG_REL), instead of the
 * host's cgroup hierarchy.  Everything else is the real code.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toss.h"

int __wrap_toss_cgroup_from_pid(pid_t pid, struct toss_cgroup *cg,
				char *err, size_t errlen);

int __wrap_toss_cgroup_from_pid(pid_t pid, struct toss_cgroup *cg,
				char *err, size_t errlen)
{
	const char *dir = getenv("FAKE_CG_DIR"), *rel = getenv("FAKE_CG_REL");

	(void)pid;
	memset(cg, 0, sizeof(*cg));
	if (!dir || !rel) {
		snprintf(err, errlen, "no FAKE_CG_DIR or FAKE_CG_REL (test)");
		return -TOSS_ENOCGROUP;
	}
	snprintf(cg->dir, sizeof(cg->dir), "%s", dir);
	snprintf(cg->rel, sizeof(cg->rel), "%s", rel);
	return 0;
}
