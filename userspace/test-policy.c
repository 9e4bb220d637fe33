// SPDX-License-Identifier: GPL-2.0
/*
 * Host test of the shared code's parsers: the policy file, node and CPU
 * lists of any size, the OCI state and the container-cgroup check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "oci-state.h"
#include "toss.h"

static int failures;
static const char *dir;

#define CHECK(cond, ...) do {						\
	if (!(cond)) {							\
		failures++;						\
		printf("FAIL %s:%d: ", __FILE__, __LINE__);		\
		printf(__VA_ARGS__);					\
		printf("\n");						\
	}								\
} while (0)

static const char *policy_file(const char *text, mode_t mode)
{
	static char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/policy.conf", dir);
	unlink(path);
	f = fopen(path, "w");
	fputs(text, f);
	fclose(f);
	chmod(path, mode);
	return path;
}

static void test_policy(void)
{
	struct toss_policy p;
	char err[512];
	int ret;

	ret = toss_policy_load("/nonexistent/cpuset-toss.conf", "oci-hook", &p, err, sizeof(err));
	CHECK(!ret && p.keys == TOSS_KEY_FREE && p.nodes == TOSS_NODES_OWN &&
	      p.min_interval == 60 && p.timeout == 20 && !p.strict && !p.request[0],
	      "defaults when absent");
	ret = toss_policy_load(policy_file("# site\nmin_interval = 5\nkeys = free, slab\n"
					   "[oci-hook]\nnodes = pinned\nstrict = yes\n"
					   "[slurm]\nnodes = any\nrequest = 1 free=1G\n", 0644),
			       "oci-hook", &p, err, sizeof(err));
	CHECK(!ret && p.min_interval == 5 && p.keys == (TOSS_KEY_FREE | TOSS_KEY_SLAB) &&
	      p.nodes == TOSS_NODES_PINNED && p.strict && !p.request[0],
	      "oci-hook section: ret %d %s", ret, err);
	ret = toss_policy_load(policy_file("min_interval = 5\n[slurm]\nnodes = any\n"
					   "request = 1 free=1G\n", 0644),
			       "slurm", &p, err, sizeof(err));
	CHECK(!ret && p.nodes == TOSS_NODES_ANY && !strcmp(p.request, "1 free=1G"),
	      "slurm section: %d %s", ret, err);
	ret = toss_policy_load(policy_file("keys = none\n", 0644), NULL, &p, err, sizeof(err));
	CHECK(!ret && p.keys == 0, "keys = none");
	ret = toss_policy_load(policy_file("nodes = own\n", 0666), "oci-hook", &p, err, sizeof(err));
	CHECK(ret == -TOSS_EPOLICY && p.nodes == TOSS_NODES_NONE, "world-writable: %d", ret);
	ret = toss_policy_load(policy_file("nodes = mine\n", 0644), "oci-hook", &p, err, sizeof(err));
	CHECK(ret == -TOSS_EPOLICY && p.nodes == TOSS_NODES_NONE, "bad value: %d", ret);
	ret = toss_policy_load(policy_file("[slurm]\nnodez = any\n", 0644), "oci-hook", &p, err,
			       sizeof(err));
	CHECK(ret == -TOSS_EPOLICY, "unknown key in another section: %d", ret);
	ret = toss_policy_load(policy_file("[oci-hook\n", 0644), "oci-hook", &p, err, sizeof(err));
	CHECK(ret == -TOSS_EPOLICY, "bad section: %d", ret);
	ret = toss_policy_load(policy_file("min_interval = -1\n", 0644), NULL, &p, err, sizeof(err));
	CHECK(ret == -TOSS_EPOLICY, "negative interval: %d", ret);
	ret = toss_policy_load(policy_file("keys = free,nodes\ntimeout=0\n", 0600), NULL, &p, err,
			       sizeof(err));
	CHECK(!ret && p.keys == (TOSS_KEY_FREE | TOSS_KEY_NODES) && p.timeout == 0,
	      "keys list without spaces: %d %s", ret, err);

	/* review N17: a misspelt section, a key given twice */
	{
		static const char *const bad[] = {
			"[oci_hook]\nnodes = any\n",
			"[ oci-hook ]\nnodes = any\n",
			"[Slurm]\nnodes = any\n",
			"[]\n",
			"min_interval = 5\nmin_interval = 600\n",
			"[slurm]\nnodes = own\nnodes = any\n",
			"[slurm]\nnodes = own\n[oci-hook]\n[slurm]\nnodes = any\n",
		};
		size_t i;

		for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
			err[0] = '\0';
			ret = toss_policy_load(policy_file(bad[i], 0644), "slurm", &p, err,
					       sizeof(err));
			CHECK(ret == -TOSS_EPOLICY && p.nodes == TOSS_NODES_NONE && err[0],
			      "policy '%s' accepted: %d", bad[i], ret);
			printf("  refused: %s\n", err);
		}
		/* a key before the sections and again in one: the override */
		ret = toss_policy_load(policy_file("nodes = own\n[slurm]\nnodes = any\n"
						   "[oci-hook]\nnodes = pinned\n", 0644),
				       "slurm", &p, err, sizeof(err));
		CHECK(!ret && p.nodes == TOSS_NODES_ANY, "an override: %d %s", ret, err);
	}
}

static void test_lists(void)
{
	static const char *const bad[] = {
		"a", "1-", "-1", "1,,2", "2-1", "1,", ",1", "1--2", "0-3\n4", "1 2", "1024",
	};
	struct toss_nodes n;
	char buf[256];
	size_t i;

	CHECK(!toss_parse_list("0-2,5,1023", &n), "a node list");
	toss_format_list(&n, buf, sizeof(buf));
	CHECK(!strcmp(buf, "0-2,5,1023"), "formatted: %s", buf);
	CHECK(!toss_parse_list("", &n) && !toss_node_isset(&n, 0), "empty list");
	CHECK(!toss_parse_list("3\n", &n) && toss_node_isset(&n, 3), "a sysfs line");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(toss_parse_list(bad[i], &n) == -EINVAL, "node list '%s' accepted", bad[i]);
	CHECK(toss_cpulist_weight("0-3,1024,8191") == 6, "CPU ids past 1024: %d",
	      toss_cpulist_weight("0-3,1024,8191"));
	CHECK(toss_cpulist_weight("5-") < 0, "an open range");
	CHECK(toss_online_cpus() >= 1, "online CPUs");

	/* review N9: a huge id is refused before anything is allocated */
	{
		struct rusage r0, r1;

		getrusage(RUSAGE_SELF, &r0);
		CHECK(toss_parse_list("2147483647", &n) == -EINVAL, "node 2147483647");
		CHECK(toss_parse_list("0-2147483647", &n) == -EINVAL, "nodes 0-2147483647");
		CHECK(toss_cpulist_weight("2147483647") < 0, "CPU 2147483647: %d",
		      toss_cpulist_weight("2147483647"));
		CHECK(toss_cpulist_weight("0-2147483647") < 0, "CPUs 0-2147483647");
		CHECK(toss_cpulist_weight("65535") == 1, "CPU 65535");
		CHECK(toss_cpulist_weight("65536") < 0, "CPU 65536");
		getrusage(RUSAGE_SELF, &r1);
		printf("  maxrss %ld MiB before, %ld MiB after the huge lists\n",
		       r0.ru_maxrss / 1024, r1.ru_maxrss / 1024);
		CHECK(r1.ru_maxrss - r0.ru_maxrss < 32 * 1024, "the huge lists took %ld MiB",
		      (r1.ru_maxrss - r0.ru_maxrss) / 1024);
	}
}

static void test_state(void)
{
	static const char *const bad[] = {
		"{\"annotations\":{\"cpuset.memory_toss_cache\":\"1\"},\"pid\":123",
		"{\"annotations\":nu",
		"{\"pid\":4294967297}",
		"{\"pid\":0}",
		"{\"pid\":1.9e9}",
		"{\"pid\":\"12\"}",
		"{\"pid\":1,\"pid\":2}",
		"{\"annotations\":{\"cpuset.memory_toss_cache\":\"1\\u0000 slab=1\"}}",
		"{\"annotations\":{\"cpuset.memory_toss_cache\":\"1\\n\"}}",
		"{\"annotations\":{\"cpuset.memory_toss_cache\":1}}",
		"{\"annotations\":[]}",
		"[]",
		"{} trailing",
	};
	struct oci_state st;
	char err[512];
	size_t i;
	const char *ok = "{\"ociVersion\":\"1.0.2\",\"id\":\"c1\",\"status\":\"creating\",\"pid\":42,"
		"\"bundle\":\"/b\",\"annotations\":{\"cpuset.memory_toss_cache\":\"1 free=1G\"}}";

	CHECK(!oci_state_parse(ok, strlen(ok), &st, err, sizeof(err)) && st.pid == 42 &&
	      st.has_request && !strcmp(st.request, "1 free=1G") && !strcmp(st.id, "c1") &&
	      !strcmp(st.bundle, "/b"), "a good state: %s", err);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK(oci_state_parse(bad[i], strlen(bad[i]), &st, err, sizeof(err)) == -EINVAL,
		      "state '%s' accepted", bad[i]);

	/* review N14: config.json with runc's unlimited rlimit is read */
	{
		const char *cfg = "{\"process\":{\"rlimits\":[{\"type\":\"RLIMIT_MEMLOCK\","
			"\"hard\":18446744073709551615,\"soft\":18446744073709551615}]},"
			"\"linux\":{\"cgroupsPath\":\"/toss/c1\"}}";

		memset(&st, 0, sizeof(st));
		CHECK(!oci_config_parse(cfg, strlen(cfg), &st, err, sizeof(err)) &&
		      st.has_cgroups_path && !strcmp(st.cgroups_path, "/toss/c1"),
		      "config.json with a uint64: %s", err);
	}

	/* review N7: control characters never get in (ESC, BEL, DEL, C1) */
	{
		static const char *const ctl[] = {
			"{\"id\":\"c1\",\"annotations\":{\"cpuset.memory_toss_cache\":\"\\u001b[2J\\u001b]0;owned\\u0007 1\"}}",
			"{\"id\":\"\\u001b[31mRED\",\"annotations\":{\"cpuset.memory_toss_cache\":\"1\"}}",
			"{\"id\":\"c1\",\"annotations\":{\"cpuset.memory_toss_cache\":\"1\\u007f\"}}",
			"{\"id\":\"c1\",\"annotations\":{\"cpuset.memory_toss_cache\":\"1 \\u009b2J\"}}",
			"{\"id\":\"c1\",\"bundle\":\"/b\\r\"}",
		};
		char buf[64];

		for (i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++)
			CHECK(oci_state_parse(ctl[i], strlen(ctl[i]), &st, err, sizeof(err)) == -EINVAL,
			      "state with a control character accepted: %s", ctl[i]);
		toss_log_escape("a\033[2J\a\x7f\xc2\x9b\xc3\xa9z", buf, sizeof(buf));
		CHECK(!strcmp(buf, "a\\x1b[2J\\x07\\x7f\\x9b\xc3\xa9z"), "escaped: %s", buf);
		toss_log_escape("\033\033\033", buf, 6);
		CHECK(!strcmp(buf, "\\x1b"), "escaped, cut: %s", buf);
	}
}

static void test_cgroup_match(void)
{
	struct oci_state st;

	memset(&st, 0, sizeof(st));
	strcpy(st.id, "abc123");
	CHECK(oci_cgroup_matches(&st, "/machine.slice/libpod-abc123.scope"), "id, no path");
	CHECK(!oci_cgroup_matches(&st, "/user.slice/user-0.slice/session-1.scope"),
	      "id, caller's cgroup");
	/* review N11: the id is a whole component, or its end after '-' */
	CHECK(oci_cgroup_matches(&st, "/docker/abc123"), "id, cgroupfs");
	CHECK(oci_cgroup_matches(&st, "/kubepods/besteffort/pod1/abc123/sub"), "id, below");
	CHECK(oci_cgroup_matches(&st, "/system.slice/docker-abc123.scope"), "id, docker scope");
	CHECK(!oci_cgroup_matches(&st, "/machine.slice/libpod-abc1234.scope"), "id, a prefix of it");
	CHECK(!oci_cgroup_matches(&st, "/machine.slice/libpod-xabc123.scope"), "id, a suffix of it");
	CHECK(!oci_cgroup_matches(&st, "/abc123x/y"), "id, a component's prefix");
	strcpy(st.id, "1");
	CHECK(!oci_cgroup_matches(&st, "/user.slice/user-1000.slice"), "id 1, user-1000.slice");
	CHECK(oci_cgroup_matches(&st, "/libpod_parent/libpod-1"), "id 1, podman's cgroupfs");
	st.has_cgroups_path = 1;
	strcpy(st.cgroups_path, "machine.slice:libpod:abc123");
	CHECK(oci_cgroup_matches(&st, "/machine.slice/libpod-abc123.scope/container"),
	      "systemd form, subgroup");
	CHECK(!oci_cgroup_matches(&st, "/machine.slice/libpod-conmon-abc123.scope"),
	      "systemd form, conmon");
	strcpy(st.cgroups_path, "/toss/c1");
	CHECK(oci_cgroup_matches(&st, "/toss/c1"), "cgroupfs");
	CHECK(oci_cgroup_matches(&st, "/toss/c1/sub"), "cgroupfs, below");
	CHECK(!oci_cgroup_matches(&st, "/toss/c10"), "cgroupfs, a prefix only");
	CHECK(!oci_cgroup_matches(&st, "/"), "cgroupfs, the root");
	strcpy(st.cgroups_path, "/");
	CHECK(!oci_cgroup_matches(&st, "/"), "cgroupsPath /");
	strcpy(st.cgroups_path, "c1");
	CHECK(oci_cgroup_matches(&st, "/user.slice/c1"), "relative");
	CHECK(!oci_cgroup_matches(&st, "/user.slice/xc1"), "relative, a suffix only");
}

int main(int argc, char **argv)
{
	dir = argc > 1 ? argv[1] : "/tmp";
	test_policy();
	test_lists();
	test_state();
	test_cgroup_match();
	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return !!failures;
}
