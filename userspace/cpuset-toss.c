// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset-toss(8): drop the clean page cache of a cpuset's NUMA nodes
 * through its cpuset.memory_toss_cache, and show what it did.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "toss.h"

#define VERSION "1.0"

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: cpuset-toss [OPTIONS] (CGROUP | --unit UNIT | --pid PID | --self |\n"
		"                   --slice SLICE)\n"
		"Drop the clean, unmapped page cache of a cpuset's NUMA nodes.\n\n"
		"  -n, --nodes LIST    only these nodes (e.g. 1,3 or 0-2)\n"
		"  -s, --size S        drop at most S bytes (K, M, G, T suffixes); default all\n"
		"  -f, --free S        on each node, stop once S bytes are free\n"
		"      --scope SCOPE   node (default: every cgroup's cache on the nodes,\n"
		"                      but what memory.min/low protect) or cgroup\n"
		"                      (only the cache charged to the cgroup)\n"
		"      --slab          also shrink unused dentries and inodes\n"
		"      --memory-reclaim  write \"SIZE|max clean_cache=1 [nodes=LIST]\" to\n"
		"                      the cgroup's memory.reclaim instead: only the\n"
		"                      cache charged to the cgroup, as --scope cgroup,\n"
		"                      on its cpuset's nodes (a cgroup without the\n"
		"                      cpuset controller: every node), for the owner\n"
		"                      of a delegated cgroup too\n"
		"  -w, --write REQ     write REQ as it is (e.g. \"1 free=2G\") instead\n"
		"  -u, --unit UNIT     the cgroup of a systemd unit\n"
		"  -p, --pid PID       the cgroup of a process (1..kernel.pid_max)\n"
		"      --self          the caller's own cgroup (an ExecStartPre=); never\n"
		"                      the root cgroup or init.scope\n"
		"      --slice SLICE   the slice the caller runs in (cpuset-toss@.service),\n"
		"                      read from /proc, not D-Bus; only a slice with\n"
		"                      memory nodes of its own (AllowedMemoryNodes=)\n"
		"  -j, --json          print the result as JSON\n"
		"  -q, --quiet         print nothing but errors\n"
		"  -h, --help          this help\n"
		"  -V, --version       the version\n\n"
		"CGROUP is a directory of the cgroup hierarchy that has the cpuset\n"
		"controller, absolute or relative to its mount (\"/\" is its root).\n"
		"Exit status (sysexits.h): 0 done, 64 usage, 65 request refused as\n"
		"invalid, 66 no such cgroup, unit or process or no cpuset there, 69\n"
		"kernel without cpuset.memory_toss_cache, 71 other error, 75 less\n"
		"dropped than asked, interrupted or cgroup removed, 77 not permitted,\n"
		"78 scope=cgroup without the memory controller.  See cpuset-toss(8).\n");
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
	case TOSS_EREFUSED:
		return "refused";
	case TOSS_EPOLICY:
		return "policy";
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

/* Print a JSON value on stdout, one line; the object is consumed. */
static void json_print(json_t *o)
{
	if (!o || json_dumpf(o, stdout, JSON_COMPACT | JSON_ENSURE_ASCII) ||
	    putchar('\n') == EOF)
		fprintf(stderr, "cpuset-toss: cannot write the JSON result\n");
	json_decref(o);
}

/*
 * A failure before anything was written: a message on stderr and, with
 * --json, the same as an object on stdout.  Returns the exit code.
 */
static int fail(int json, int err, const char *msg)
{
	int code = toss_exit_code(err);

	fprintf(stderr, "cpuset-toss: %s\n", msg);
	if (json)
		json_print(json_pack("{s:s, s:s, s:i}", "error", errno_name(err),
				     "message", msg, "exit_code", code));
	return code;
}

/*
 * The counters of cpuset.memory_toss_cache.stat the JSON output reports,
 * as the growth of each over the toss, and their JSON names.  The first
 * two are the ones the text output prints.
 */
static const struct {
	const char *stat, *json;
} kernel_keys[] = {
	{ "tossed_bytes", "tossed_bytes" },
	{ "toss_usec", "duration_us" },
	{ "scanned_bytes", "scanned_bytes" },
	{ "kept_dirty_bytes", "dirty_bytes" },
	{ "kept_writeback_bytes", "writeback_bytes" },
	{ "kept_mapped_bytes", "mapped_bytes" },
	{ "kept_busy_bytes", "busy_bytes" },
	{ "slab_objects", "slab_objects" },
};
#define NR_KERNEL_KEYS (sizeof(kernel_keys) / sizeof(kernel_keys[0]))

/*
 * --slice SLICE: the cgroup of the slice this process runs in, the parent
 * of its own (cpuset-toss@SLICE.service has Slice=SLICE), from
 * /proc/self/cgroup: no D-Bus, so it works in early boot.  Refused: a
 * parent that is not SLICE, the root slice, and a slice without memory
 * nodes of its own (an empty cpuset.mems, or no cpuset controller at all:
 * system.slice, user.slice), whose toss would be every node's.
 */
static int slice_cgroup(const char *slice, struct toss_cgroup *cg, char *err,
			size_t errlen)
{
	struct toss_nodes own;
	char self[PATH_MAX], rel[PATH_MAX], *base;
	size_t l = strlen(slice);
	int ret, node, empty = 1;

	if (l < 7 || strcmp(slice + l - 6, ".slice") || strchr(slice, '/')) {
		snprintf(err, errlen, "--slice %s: not the name of a slice", slice);
		return -TOSS_EUSAGE;
	}
	if (!strcmp(slice, "-.slice")) {
		snprintf(err, errlen, "--slice -.slice: the root slice is every node's: refused");
		return -TOSS_EREFUSED;
	}
	/* Its own cgroup need not have the cpuset controller: the slice's. */
	ret = toss_cgroup_rel_of_pid(0, self, sizeof(self), err, errlen);
	if (ret)
		return ret;
	snprintf(rel, sizeof(rel), "%s", self);
	base = strrchr(rel, '/');
	if (base)
		*base = '\0';	/* the parent */
	base = strrchr(rel, '/');
	if (!base || strcmp(base + 1, slice)) {
		snprintf(err, errlen, "--slice %s: this process runs in %s, not in a cgroup of that slice: refused",
			 slice, self);
		return base && !base[1] ? -TOSS_EREFUSED : -TOSS_ENOCGROUP;
	}
	ret = toss_cgroup_from_path(rel, cg, err, errlen);
	/* No cpuset controller (yet): no memory nodes of its own either. */
	if (ret && ret != -TOSS_ENOCPUSET)
		return ret;
	if (!ret)
		ret = toss_cgroup_own_mems(cg, &own);
	for (node = 0; !ret && node < TOSS_MAX_NODES; node++)
		if (toss_node_isset(&own, node))
			empty = 0;
	if (ret || empty) {
		snprintf(err, errlen, "--slice %s: %s has no memory nodes of its own (no AllowedMemoryNodes=, cpuset.mems %s): its toss would be its parent's nodes: refused",
			 slice, cg->rel, ret == -TOSS_ENOCPUSET ? "absent: no cpuset controller" :
			 ret ? "unreadable" : "empty");
		return -TOSS_EREFUSED;
	}
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "nodes", required_argument, NULL, 'n' },
		{ "size", required_argument, NULL, 's' },
		{ "free", required_argument, NULL, 'f' },
		{ "scope", required_argument, NULL, 'S' },
		{ "slab", no_argument, NULL, 'B' },
		{ "memory-reclaim", no_argument, NULL, 'R' },
		{ "write", required_argument, NULL, 'w' },
		{ "unit", required_argument, NULL, 'u' },
		{ "pid", required_argument, NULL, 'p' },
		{ "self", no_argument, NULL, 'P' },
		{ "slice", required_argument, NULL, 'L' },
		{ "json", no_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ "version", no_argument, NULL, 'V' },
		{ NULL, 0, NULL, 0 }
	};
	const char *nodes = NULL, *size = NULL, *free_target = NULL, *scope = NULL;
	const char *write_req = NULL, *unit = NULL, *pidarg = NULL, *path = NULL;
	const char *slice = NULL;
	unsigned long long before[TOSS_MAX_NODES], after[TOSS_MAX_NODES];
	long long t0, t1, tosses0 = -1, tosses1 = -1, v;
	long long kv0[NR_KERNEL_KEYS], kv1[NR_KERNEL_KEYS];
	struct toss_nodes memnodes, mems, want;
	size_t k;
	char req[TOSS_REQ_MAX], err[PATH_MAX + 256] = "", msg[PATH_MAX + 512];
	int slab = 0, json = 0, quiet = 0, self = 0, reclaim = 0, c, ret, node, i;
	const char *file = "cpuset.memory_toss_cache", *why;
	struct toss_cgroup cg = { 0 };
	int nocpuset = 0;

	/* --json is known before any error, so that every outcome is JSON */
	for (i = 1; i < argc && strcmp(argv[i], "--"); i++)
		if (!strcmp(argv[i], "--json") || !strcmp(argv[i], "-j"))
			json = 1;
	opterr = !json;
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
		case 'R':
			reclaim = 1;
			file = "memory.reclaim";
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
		case 'P':
			self = 1;
			break;
		case 'L':
			slice = optarg;
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
			if (!json)
				usage(stderr);
			snprintf(msg, sizeof(msg), "bad option %s", argv[optind - 1]);
			return fail(json, -TOSS_EUSAGE, msg);
		}
	}
	if (optind < argc)
		path = argv[optind++];
	if (optind < argc || !!path + !!unit + !!pidarg + self + !!slice != 1)
		return fail(json, -TOSS_EUSAGE,
			    "name exactly one cgroup: CGROUP, --unit, --pid, --self or --slice");
	if (write_req && (nodes || size || free_target || scope || slab))
		return fail(json, -TOSS_EUSAGE,
			    "--write takes the whole request: no --nodes, --size, --free, --scope or --slab with it");
	if (scope && strcmp(scope, "node") && strcmp(scope, "cgroup")) {
		snprintf(msg, sizeof(msg), "--scope is node or cgroup, not '%s'", scope);
		return fail(json, -TOSS_EUSAGE, msg);
	}
	if (reclaim && (write_req || free_target || slab || (scope && strcmp(scope, "cgroup"))))
		return fail(json, -TOSS_EUSAGE,
			    "--memory-reclaim takes --size and --nodes only: memory.reclaim has no free=, slab= or scope=node");
	if (nodes && toss_parse_list(nodes, &want)) {
		snprintf(msg, sizeof(msg), "--nodes '%s' is not a node list such as 1,3 or 0-2",
			 nodes);
		return fail(json, -TOSS_EUSAGE, msg);
	}
	if (write_req) {
		if (snprintf(req, sizeof(req), "%s", write_req) >= (int)sizeof(req) || !req[0]) {
			snprintf(msg, sizeof(msg), "--write: empty or longer than %d bytes",
				 TOSS_REQ_MAX - 1);
			return fail(json, -TOSS_EUSAGE, msg);
		}
		/* The kernel takes one line: what follows a newline would be lost. */
		if (strchr(req, '\n'))
			return fail(json, -TOSS_EUSAGE, "--write: the request is one line");
	} else if (reclaim) {
		/* Built once the cgroup's nodes are known (below). */
		if (size && (!size[0] || strpbrk(size, " \t")))
			return fail(json, -TOSS_EUSAGE, "an option value is empty or holds a space");
		if (nodes && strlen(nodes) >= TOSS_REQ_MAX / 2)
			return fail(json, -TOSS_EUSAGE, "--nodes: the list is too long");
	} else {
		ret = toss_build_request(req, sizeof(req), size, nodes, free_target, scope, slab);
		if (ret == -E2BIG) {
			snprintf(msg, sizeof(msg), "the options make a request longer than %d bytes",
				 TOSS_REQ_MAX - 1);
			return fail(json, -TOSS_EUSAGE, msg);
		}
		if (ret)
			return fail(json, -TOSS_EUSAGE, "an option value is empty or holds a space");
	}

	if (slice) {
		ret = slice_cgroup(slice, &cg, err, sizeof(err));
	} else if (unit) {
		ret = toss_cgroup_from_unit(unit, &cg, err, sizeof(err));
	} else if (pidarg || self) {
		long long pid = 0;
		char *end = NULL;

		if (pidarg) {
			errno = 0;
			pid = strtoll(pidarg, &end, 10);
			if (errno || end == pidarg || *end || pid <= 0 || pid > INT_MAX) {
				snprintf(msg, sizeof(msg), "--pid '%s' is not a process id (1..%d)",
					 pidarg, INT_MAX);
				return fail(json, -TOSS_EUSAGE, msg);
			}
		}
		ret = toss_cgroup_from_pid(pid, &cg, err, sizeof(err));
	} else {
		ret = toss_cgroup_from_path(path, &cg, err, sizeof(err));
	}
	/*
	 * memory.reclaim is the memory controller's: a v2 cgroup without
	 * the cpuset controller (a user's, delegated by default) has one.
	 */
	if (ret == -TOSS_ENOCPUSET && reclaim && cg.dir[0] && !cg.v1) {
		ret = 0;
		nocpuset = 1;
	}
	if (!ret && self && toss_cgroup_is_shared(&cg)) {
		snprintf(err, sizeof(err),
			 "--self: this process is in %s, the root cgroup or init.scope (on cgroup v1, systemd makes no cpuset cgroups): nothing is tossed",
			 cg.rel);
		ret = -TOSS_ENOCGROUP;
	}
	if (ret)
		return fail(json, ret, err[0] ? err : toss_strerror(ret));

	memset(&memnodes, 0, sizeof(memnodes));
	toss_memory_nodes(&memnodes);
	if (nocpuset)
		mems = memnodes;
	else if (toss_cgroup_mems(&cg, &mems))
		memset(&mems, 0, sizeof(mems));
	if (reclaim) {
		/*
		 * memory.reclaim's grammar: "max" for all, as "1" is here; the
		 * cpuset's nodes unless --nodes names others, as --scope cgroup
		 * has them; every node's without a cpuset.
		 */
		char list[TOSS_REQ_MAX / 2] = "";

		if (nodes)
			snprintf(list, sizeof(list), "%s", nodes);
		else if (!nocpuset)
			toss_format_list(&mems, list, sizeof(list));
		if (strlen(list) >= sizeof(list) - 1 ||
		    snprintf(req, sizeof(req), "%s clean_cache=1%s%s",
			     size && strcmp(size, "1") ? size : "max", list[0] ? " nodes=" : "",
			     list) >= (int)sizeof(req))
			return fail(json, -TOSS_EUSAGE, "an option value is too long");
	}
	if (!nodes && (!write_req || request_nodes(req, &want)))
		want = mems;
	for (node = 0; node < TOSS_MAX_NODES; node++)
		if (!toss_node_isset(&memnodes, node) || toss_node_file_bytes(node, &before[node]))
			before[node] = 0;
	if (toss_stat_value(&cg, "tosses", &v) == 0)
		tosses0 = v;
	for (k = 0; k < NR_KERNEL_KEYS; k++)
		if (toss_stat_value(&cg, kernel_keys[k].stat, &kv0[k]))
			kv0[k] = -1;

	if (reclaim && cg.v1)
		return fail(json, -TOSS_EUSAGE,
			    "--memory-reclaim: memory.reclaim is a cgroup v2 file");
	t0 = now_us();
	ret = toss_write_file(&cg, reclaim ? file : NULL, req);
	t1 = now_us();

	for (node = 0; node < TOSS_MAX_NODES; node++)
		if (!toss_node_isset(&memnodes, node) || toss_node_file_bytes(node, &after[node]))
			after[node] = 0;
	if (toss_stat_value(&cg, "tosses", &v) == 0)
		tosses1 = v;
	/* The counters' growth is this toss's when no other toss counted. */
	for (k = 0; k < NR_KERNEL_KEYS; k++)
		if (tosses0 < 0 || tosses1 != tosses0 + 1 || kv0[k] < 0 ||
		    toss_stat_value(&cg, kernel_keys[k].stat, &kv1[k]))
			kv1[k] = -1;
		else
			kv1[k] -= kv0[k];

	/* What went wrong, in memory.reclaim's terms there. */
	why = toss_strerror(ret);
	if (reclaim && ret == -TOSS_ENOFILE)
		why = "no memory.reclaim: the memory controller is not enabled on the cgroup";
	else if (reclaim && ret == -EINVAL)
		why = "memory.reclaim refused the request (a kernel without clean_cache=1, or nodes= outside the nodes with memory)";

	if (json) {
		json_t *o, *arr = json_array(), *kernel;

		for (node = 0; node < TOSS_MAX_NODES; node++)
			if (toss_node_isset(&memnodes, node))
				json_array_append_new(arr, json_pack("{s:i, s:b, s:I, s:I}",
					"node", node, "target", toss_node_isset(&want, node),
					"file_bytes_before", (json_int_t)before[node],
					"file_bytes_after", (json_int_t)after[node]));
		o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:s, s:i, s:I, s:o}",
			      "cgroup", cg.rel, "path", cg.dir, "hierarchy", cg.v1 ? "v1" : "v2",
			      "file", file, "request", req, "result", why,
			      "error", errno_name(ret), "exit_code", toss_exit_code(ret),
			      "duration_us", (json_int_t)(t1 - t0), "nodes", arr);
		if (o && tosses0 >= 0 && tosses1 == tosses0 + 1) {
			kernel = json_object();
			for (k = 0; k < NR_KERNEL_KEYS; k++)
				if (kv1[k] >= 0)
					json_object_set_new(kernel, kernel_keys[k].json,
							    json_integer(kv1[k]));
			json_object_set_new(o, "kernel", kernel);
		}
		json_print(o);
		if (ret)
			fprintf(stderr, "cpuset-toss: %s: %s (%s)\n", cg.rel, why, errno_name(ret));
	} else if (!quiet || ret) {
		if (!quiet) {
			printf("cgroup %s (cgroup %s), wrote \"%s\"%s\n", cg.rel, cg.v1 ? "v1" : "v2",
			       req, reclaim ? " to memory.reclaim" : "");
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
				why, errno_name(ret), (t1 - t0) / 1000.0);
		} else {
			printf("done in %.1f ms", (t1 - t0) / 1000.0);
			if (kv1[0] >= 0 && kv1[1] >= 0)
				printf("; the kernel dropped %.1f MiB in %.1f ms", mib(kv1[0]),
				       kv1[1] / 1000.0);
			printf("\n");
		}
	}
	return toss_exit_code(ret);
}
