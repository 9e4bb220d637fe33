// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset-toss(8): drop the clean page cache of a cpuset's NUMA nodes
 * through its cpuset.memory_toss_cache, and show what it did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "toss.h"

#define VERSION "1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cpuset-toss [OPTIONS] (CGROUP | --unit UNIT | --pid PID)\n"
		"Drop the clean, unmapped page cache of a cpuset's NUMA nodes.\n\n"
		"  -n, --nodes LIST    only these nodes (e.g. 1,3 or 0-2)\n"
		"  -s, --size S        drop at most S bytes (K, M, G, T suffixes); default all\n"
		"  -f, --free S        on each node, stop once S bytes are free\n"
		"      --scope SCOPE   node (default: all the nodes' cache) or cgroup\n"
		"                      (only the cache charged to the cgroup)\n"
		"      --slab          also shrink unused dentries and inodes\n"
		"  -w, --write REQ     write REQ as it is (e.g. \"1 free=2G\") instead\n"
		"  -u, --unit UNIT     the cgroup of a systemd unit\n"
		"  -p, --pid PID       the cgroup of a process\n"
		"  -j, --json          print the result as JSON\n"
		"  -q, --quiet         print nothing but errors\n"
		"  -h, --help          this help\n"
		"  -V, --version       the version\n\n"
		"CGROUP is a directory of the cgroup hierarchy that has the cpuset\n"
		"controller, absolute or relative to its mount (\"/\" is its root).\n"
		"Exit status: 0 done, 1 other error, 2 usage, 3 no such cgroup or no\n"
		"cpuset there, 4 kernel without cpuset.memory_toss_cache, 5 request\n"
		"refused as invalid, 6 not permitted, 7 less dropped than asked,\n"
		"8 scope=cgroup without memory controller, 9 interrupted or cgroup\n"
		"removed.  See cpuset-toss(8).\n");
}

static void json_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		unsigned char c = *s;

		if (c == '"' || c == '\\')
			printf("\\%c", c);
		else if (c < 0x20)
			printf("\\u%04x", c);
		else
			putchar(c);
	}
	putchar('"');
}

static double mib(unsigned long long b)
{
	return b / 1048576.0;
}

static const char *errno_name(int err)
{
	switch (-err) {
	case 0:
		return "0";
	case EINVAL:
		return "EINVAL";
	case ERANGE:
		return "ERANGE";
	case E2BIG:
		return "E2BIG";
	case EPERM:
		return "EPERM";
	case EACCES:
		return "EACCES";
	case EROFS:
		return "EROFS";
	case EAGAIN:
		return "EAGAIN";
	case EOPNOTSUPP:
		return "EOPNOTSUPP";
	case EINTR:
		return "EINTR";
	case ENODEV:
		return "ENODEV";
	case ENOMEM:
		return "ENOMEM";
	case ENOENT:
		return "ENOENT";
	case TOSS_ENOCGROUP:
		return "no-cgroup";
	case TOSS_ENOCPUSET:
		return "no-cpuset";
	case TOSS_ENOFILE:
		return "no-toss-file";
	case TOSS_EUSAGE:
		return "usage";
	default:
		return "other";
	}
}

/* The nodes= of a request given with --write, for the table only. */
static int request_nodes(const char *req, struct toss_nodes *n)
{
	const char *p = strstr(req, "nodes=");
	char list[256];
	size_t l;

	if (!p || (p != req && p[-1] != ' '))
		return -1;
	p += 6;
	l = strcspn(p, " \t\n");
	if (l >= sizeof(list))
		return -1;
	memcpy(list, p, l);
	list[l] = '\0';
	return toss_parse_list(list, n);
}

static long long now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "free", required_argument, NULL, 'f' },
		{ "scope", required_argument, NULL, 'S' },
		{ "slab", no_argument, NULL, 'B' },
		{ "write", required_argument, NULL, 'w' },
		{ "unit", required_argument, NULL, 'u' },
		{ "pid", required_argument, NULL, 'p' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *nodes = NULL, *size = NULL, *free_target = NULL, *scope = NULL;
	const char *write_req = NULL, *unit = NULL, *pidarg = NULL, *path = NULL;
	unsigned long long before[TOSS_MAX_NODES], after[TOSS_MAX_NODES];
	long long t0, t1, tosses0 = -1, tosses1 = -1, v;
	struct toss_nodes memnodes, mems, want;
	char req[TOSS_REQ_MAX], err[PATH_MAX + 256] = "";
	int slab = 0, json = 0, quiet = 0, c, ret, node, targets;
	struct toss_cgroup cg;

	while ((c = getopt_long(argc, argv, "n:s:f:w:u:p:jqhV", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			nodes = optarg;
			break;
		case 's':
			size = optarg;
			break;
		case 'f':
			free_target = optarg;
			break;
		case 'S':
			scope = optarg;
			break;
		case 'B':
			slab = 1;
			break;
		case 'w':
			write_req = optarg;
			break;
		case 'u':
			unit = optarg;
			break;
		case 'p':
			pidarg = optarg;
			break;
		case 'j':
			json = 1;
			break;
		case 'q':
			quiet = 1;
			break;
		case 'h':
			usage(stdout);
			return TOSS_EXIT_OK;
		case 'V':
			printf("cpuset-toss " VERSION "\n");
			return TOSS_EXIT_OK;
		default:
			usage(stderr);
			return TOSS_EXIT_USAGE;
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc || !!path + !!unit + !!pidarg != 1) {
		fprintf(stderr, "cpuset-toss: name exactly one cgroup: CGROUP, --unit or --pid\n");
		usage(stderr);
		return TOSS_EXIT_USAGE;
	}
	if (write_req && (nodes || size || free_target || scope || slab)) {
		fprintf(stderr, "cpuset-toss: --write takes the whole request: no --nodes, --size, --free, --scope or --slab with it\n");
		return TOSS_EXIT_USAGE;
	}
	if (scope && strcmp(scope, "node") && strcmp(scope, "cgroup")) {
		fprintf(stderr, "cpuset-toss: --scope is node or cgroup, not '%s'\n", scope);
		return TOSS_EXIT_USAGE;
	}
	if (nodes && toss_parse_list(nodes, &want)) {
		fprintf(stderr, "cpuset-toss: --nodes '%s' is not a node list such as 1,3 or 0-2\n", nodes);
		return TOSS_EXIT_USAGE;
	}
	if (write_req) {
		if (snprintf(req, sizeof(req), "%s", write_req) >= (int)sizeof(req) || !req[0]) {
			fprintf(stderr, "cpuset-toss: --write: empty or longer than %d bytes\n", TOSS_REQ_MAX - 1);
			return TOSS_EXIT_USAGE;
		}
	} else if (toss_build_request(req, sizeof(req), size, nodes, free_target, scope, slab)) {
		fprintf(stderr, "cpuset-toss: an option value is empty or holds a space\n");
		return TOSS_EXIT_USAGE;
	}

	if (unit) {
		ret = toss_cgroup_from_unit(unit, &cg, err, sizeof(err));
	} else if (pidarg) {
		char *end;
		long pid = strtol(pidarg, &end, 10);

		if (*end || pid <= 0) {
			fprintf(stderr, "cpuset-toss: --pid '%s' is not a process id\n", pidarg);
			return TOSS_EXIT_USAGE;
		}
		ret = toss_cgroup_from_pid(pid, &cg, err, sizeof(err));
	} else {
		ret = toss_cgroup_from_path(path, &cg, err, sizeof(err));
	}
	if (ret) {
		fprintf(stderr, "cpuset-toss: %s\n", err[0] ? err : toss_strerror(ret));
		return toss_exit_code(ret);
	}

	memset(&memnodes, 0, sizeof(memnodes));
	toss_memory_nodes(&memnodes);
	if (toss_cgroup_mems(&cg, &mems))
		memset(&mems, 0, sizeof(mems));
	if (!nodes && (!write_req || request_nodes(req, &want)))
		want = mems;
	for (node = 0; node < TOSS_MAX_NODES; node++)
		if (!toss_node_isset(&memnodes, node) || toss_node_file_bytes(node, &before[node]))
			before[node] = 0;
	if (toss_stat_value(&cg, "tosses", &v) == 0)
		tosses0 = v;

	t0 = now_us();
	ret = toss_write(&cg, req);
	t1 = now_us();

	for (node = 0; node < TOSS_MAX_NODES; node++)
		if (!toss_node_isset(&memnodes, node) || toss_node_file_bytes(node, &after[node]))
			after[node] = 0;
	if (toss_stat_value(&cg, "tosses", &v) == 0)
		tosses1 = v;

	if (json) {
		printf("{\"cgroup\":");
		json_str(cg.rel);
		printf(",\"path\":");
		json_str(cg.dir);
		printf(",\"hierarchy\":\"%s\",\"request\":", cg.v1 ? "v1" : "v2");
		json_str(req);
		printf(",\"result\":");
		json_str(toss_strerror(ret));
		printf(",\"error\":\"%s\",\"exit_code\":%d,\"duration_us\":%lld,\"nodes\":[",
		       errno_name(ret), toss_exit_code(ret), t1 - t0);
		for (node = 0, targets = 0; node < TOSS_MAX_NODES; node++) {
			if (!toss_node_isset(&memnodes, node))
				continue;
			printf("%s{\"node\":%d,\"target\":%s,\"file_bytes_before\":%llu,\"file_bytes_after\":%llu}",
			       targets++ ? "," : "", node,
			       toss_node_isset(&want, node) ? "true" : "false",
			       before[node], after[node]);
		}
		printf("]");
		if (tosses0 >= 0 && tosses1 == tosses0 + 1) {
			static const char * const keys[] = {
				"last_tossed_bytes", "last_scanned_bytes", "last_duration_us",
				"last_dirty_bytes", "last_writeback_bytes", "last_mapped_bytes",
				"last_busy_bytes", "last_slab_objects"
			};
			size_t k;

			printf(",\"kernel\":{");
			for (k = 0; k < sizeof(keys) / sizeof(keys[0]); k++)
				if (toss_stat_value(&cg, keys[k], &v) == 0)
					printf("%s\"%s\":%lld", k ? "," : "", keys[k] + 5, v);
			printf("}");
		}
		printf("}\n");
	} else if (!quiet || ret) {
		if (!quiet) {
			printf("cgroup %s (cgroup %s), wrote \"%s\"\n", cg.rel, cg.v1 ? "v1" : "v2", req);
			printf("node  target  page cache before       after      change\n");
			for (node = 0; node < TOSS_MAX_NODES; node++) {
				if (!toss_node_isset(&memnodes, node))
					continue;
				printf("%4d  %-6s  %13.1f MiB  %10.1f MiB  %+8.1f MiB\n", node,
				       toss_node_isset(&want, node) ? "yes" : "no",
				       mib(before[node]), mib(after[node]),
				       mib(after[node]) - mib(before[node]));
			}
		}
		if (ret) {
			fprintf(stderr, "cpuset-toss: %s: %s (%s) after %.1f ms\n", cg.rel,
				toss_strerror(ret), errno_name(ret), (t1 - t0) / 1000.0);
		} else {
			long long tb, td;

			printf("done in %.1f ms", (t1 - t0) / 1000.0);
			if (tosses0 >= 0 && tosses1 == tosses0 + 1 &&
			    !toss_stat_value(&cg, "last_tossed_bytes", &tb) &&
			    !toss_stat_value(&cg, "last_duration_us", &td))
				printf("; the kernel dropped %.1f MiB in %.1f ms", mib(tb), td / 1000.0);
			printf("\n");
		}
	}
	return toss_exit_code(ret);
}
