// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libFuzzer target: what cpuset-toss-oci-hook(8) reads from the runtime,
 * the state on stdin and config.json, through the hook's own parsers.
 * Run by test-oci-state.sh for a bounded time in `make check`.
 */
#include <stdint.h>
#include <string.h>

#include "oci-state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct oci_state st;
	char err[512];

	if (oci_state_parse((const char *)data, size, &st, err, sizeof(err)) == 0) {
		/* what the parser gave holds its promises */
		if (strlen(st.request) >= sizeof(st.request) || strchr(st.request, '\n') ||
		    (st.pid && st.pid < 1))
			__builtin_trap();
		oci_cgroup_matches(&st, "/machine.slice/libpod-abc.scope/container");
	}
	memset(&st, 0, sizeof(st));
	if (oci_config_parse((const char *)data, size, &st, err, sizeof(err)) == 0) {
		oci_cgroup_matches(&st, "/");
		oci_cgroup_matches(&st, "/a/b/c");
		oci_cgroup_matches(&st, "/system.slice/docker-0123.scope");
	}
	return 0;
}
