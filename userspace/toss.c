// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libcpusettoss: find a cgroup and write its cpuset.memory_toss_cache.
 * See toss.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <hwloc.h>

#include "toss.h"

#define NODE_SYS	"/sys/devices/system/node"
#define TOSS_FILE	"memory_toss_cache"
#define BITS_PER_LONG	(8 * sizeof(unsigned long))

static void seterr(char *err, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!err || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(err, len, fmt, ap);
	va_end(ap);
}

/* Read a small file into buf, without its trailing newline. */
static int read_small(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '))
		buf[--n] = '\0';
	return 0;
}

/*
 * The mount of the hierarchy with the cpuset controller: a cgroup v1
 * mount with the cpuset option if there is one (then cpuset is bound to
 * it, not to v2), else the cgroup2 mount whose root offers cpuset.
 * Fields of /proc/self/mountinfo: id parent dev root mountpoint opts
 * [optional...] - fstype source superopts.
 */
static int find_mount(char *mnt, size_t len, int *v1, int *noprefix)
{
	char line[4096], v2mnt[PATH_MAX] = "";
	int found = 0;
	FILE *f;

	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *fld[6], *sep, *fstype, *super, *save = NULL, *p = line;
		int i;

		for (i = 0; i < 6; i++) {
			fld[i] = strtok_r(p, " ", &save);
			p = NULL;
			if (!fld[i])
				break;
		}
		if (i < 6)
			continue;
		sep = strstr(save ? save : "", "- ");
		if (!sep)
			continue;
		fstype = strtok_r(sep + 2, " ", &save);
		strtok_r(NULL, " ", &save);	/* source */
		super = strtok_r(NULL, " \n", &save);
		if (!fstype || !super)
			continue;
		/* only the mount of the hierarchy's root */
		if (strcmp(fld[3], "/"))
			continue;
		if (!strcmp(fstype, "cgroup")) {
			char *o, *s2 = NULL, opts[1024];
			int cpuset = 0, np = 0;

			snprintf(opts, sizeof(opts), "%s", super);
			for (o = strtok_r(opts, ",", &s2); o; o = strtok_r(NULL, ",", &s2)) {
				if (!strcmp(o, "cpuset"))
					cpuset = 1;
				else if (!strcmp(o, "noprefix"))
					np = 1;
			}
			if (cpuset) {
				snprintf(mnt, len, "%s", fld[4]);
				*v1 = 1;
				*noprefix = np;
				found = 1;
				break;
			}
		} else if (!strcmp(fstype, "cgroup2") && !v2mnt[0]) {
			snprintf(v2mnt, sizeof(v2mnt), "%s", fld[4]);
		}
	}
	fclose(f);
	if (found)
		return 0;
	if (v2mnt[0]) {
		char path[PATH_MAX + 32], ctl[1024];

		snprintf(path, sizeof(path), "%s/cgroup.controllers", v2mnt);
		if (read_small(path, ctl, sizeof(ctl)) == 0) {
			char *w, *s2 = NULL;

			for (w = strtok_r(ctl, " ", &s2); w; w = strtok_r(NULL, " ", &s2))
				if (!strcmp(w, "cpuset")) {
					snprintf(mnt, len, "%s", v2mnt);
					*v1 = 0;
					*noprefix = 0;
					return 0;
				}
		}
	}
	return -TOSS_ENOCPUSET;
}

/*
 * The path of one of the cpuset files, "cpuset.<name>", of the cgroup
 * directory @dir in the hierarchy of @cg.  Return: whether it fits.
 */
static int cg_file_in(const struct toss_cgroup *cg, const char *dir,
		      const char *name, char *buf, size_t len)
{
	/* a v1 mount with noprefix names them without "cpuset." */
	if (cg->v1 && cg->noprefix)
		return snprintf(buf, len, "%s/%s", dir, name) < (int)len;
	return snprintf(buf, len, "%s/cpuset.%s", dir, name) < (int)len;
}

/* The path of one of the cgroup's cpuset files, "cpuset.<name>". */
static void cg_file(const struct toss_cgroup *cg, const char *name,
		    char *buf, size_t len)
{
	cg_file_in(cg, cg->dir, name, buf, len);
}

/*
 * The path of the cpuset.cpus.effective of the cgroup directory @dir in
 * the hierarchy of @cg (on v1 "effective_cpus" where there is no such
 * file).  Return: whether it fits.
 */
static int cpus_effective_file(const struct toss_cgroup *cg, const char *dir,
			       char *buf, size_t len)
{
	if (!cg_file_in(cg, dir, "cpus.effective", buf, len))
		return 0;
	if (cg->v1 && access(buf, F_OK))
		return cg_file_in(cg, dir, "effective_cpus", buf, len);
	return 1;
}

static int set_cgroup(struct toss_cgroup *cg, const char *rel,
		      char *err, size_t errlen)
{
	char mnt[PATH_MAX], path[PATH_MAX * 2];
	struct stat st;
	int v1, np, ret;

	ret = find_mount(mnt, sizeof(mnt), &v1, &np);
	if (ret) {
		seterr(err, errlen, "no cgroup hierarchy with the cpuset controller is mounted");
		return ret;
	}
	while (rel[0] == '/' && rel[1] == '/')
		rel++;
	if (rel[0] == '/')
		rel++;
	if (strstr(rel, "..")) {
		seterr(err, errlen, "cgroup path /%s contains \"..\"", rel);
		return -TOSS_EUSAGE;
	}
	if (snprintf(cg->rel, sizeof(cg->rel), "/%s", rel) >= (int)sizeof(cg->rel) ||
	    snprintf(cg->dir, sizeof(cg->dir), "%s%s%s", mnt, rel[0] ? "/" : "", rel) >=
	    (int)sizeof(cg->dir)) {
		seterr(err, errlen, "cgroup path too long");
		return -ENAMETOOLONG;
	}
	/* no trailing slash */
	for (ret = strlen(cg->dir); ret > 1 && cg->dir[ret - 1] == '/'; ret--)
		cg->dir[ret - 1] = '\0';
	for (ret = strlen(cg->rel); ret > 1 && cg->rel[ret - 1] == '/'; ret--)
		cg->rel[ret - 1] = '\0';
	cg->v1 = v1;
	cg->noprefix = np;
	if (stat(cg->dir, &st) || !S_ISDIR(st.st_mode)) {
		seterr(err, errlen, "no cgroup %s (%s)", cg->rel, cg->dir);
		return -TOSS_ENOCGROUP;
	}
	cg_file(cg, "mems.effective", path, sizeof(path));
	if (access(path, F_OK) && cg->v1)
		cg_file(cg, "effective_mems", path, sizeof(path));
	if (access(path, F_OK)) {
		seterr(err, errlen, "the cpuset controller is not enabled on cgroup %s", cg->rel);
		return -TOSS_ENOCPUSET;
	}
	return 0;
}

/**
 * toss_cgroup_from_path() - a cgroup named by its path
 * @path: absolute under the mount, or relative to the hierarchy's root
 * @cg: filled in
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
			  char *err, size_t errlen)
{
	char mnt[PATH_MAX];
	size_t l;
	int v1, np, ret;

	ret = find_mount(mnt, sizeof(mnt), &v1, &np);
	if (ret) {
		seterr(err, errlen, "no cgroup hierarchy with the cpuset controller is mounted");
		return ret;
	}
	l = strlen(mnt);
	if (!strncmp(path, mnt, l) && (path[l] == '/' || path[l] == '\0'))
		path += l;
	return set_cgroup(cg, path, err, errlen);
}

/**
 * toss_cgroup_from_pid() - the cpuset cgroup of a process
 * @pid: the process, 0 for the caller
 * @cg: filled in
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_from_pid(pid_t pid, struct toss_cgroup *cg,
			 char *err, size_t errlen)
{
	char rel[PATH_MAX];
	int ret;

	ret = toss_cgroup_rel_of_pid(pid, rel, sizeof(rel), err, errlen);
	return ret ? ret : set_cgroup(cg, rel, err, errlen);
}

/**
 * toss_cgroup_rel_of_pid() - the path of a process's cpuset cgroup
 * @pid: the process, 0 for the caller
 * @rel: its path relative to the hierarchy's root ("/job.slice/x.service")
 * @len: the size of @rel
 * @err: a message on failure
 * @errlen: its size
 *
 * Unlike toss_cgroup_from_pid(), the cgroup need not have the cpuset
 * controller enabled (a service inside a slice that has it).
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_rel_of_pid(pid_t pid, char *rel, size_t len, char *err, size_t errlen)
{
	char path[64], line[PATH_MAX + 128], mnt[PATH_MAX];
	int v1, np, ret, found = 0;
	long long pid_max = 4194304;
	FILE *f;

	if (read_small("/proc/sys/kernel/pid_max", line, sizeof(line)) == 0)
		pid_max = strtoll(line, NULL, 10);
	if (pid < 0 || pid > pid_max) {
		seterr(err, errlen, "pid %lld is outside 1..%lld (kernel.pid_max)",
		       (long long)pid, pid_max);
		return -TOSS_EUSAGE;
	}
	ret = find_mount(mnt, sizeof(mnt), &v1, &np);
	if (ret) {
		seterr(err, errlen, "no cgroup hierarchy with the cpuset controller is mounted");
		return ret;
	}
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
	else
		snprintf(path, sizeof(path), "/proc/self/cgroup");
	f = fopen(path, "re");
	if (!f) {
		seterr(err, errlen, "no process %d", (int)pid);
		return -TOSS_ENOCGROUP;
	}
	/* "hierarchy-id:controllers:path"; v2 is "0::path" */
	while (!found && fgets(line, sizeof(line), f)) {
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		char *nl;

		if (!c2)
			continue;
		*c1 = '\0';
		*c2 = '\0';
		nl = strchr(c2 + 1, '\n');
		if (nl)
			*nl = '\0';
		if (v1) {
			char *w, *s = NULL;

			for (w = strtok_r(c1 + 1, ",", &s); w; w = strtok_r(NULL, ",", &s))
				if (!strcmp(w, "cpuset"))
					found = 1;
		} else if (!strcmp(line, "0") && c1[1] == '\0') {	/* "0::" */
			found = 1;
		}
		if (found && snprintf(rel, len, "%s", c2 + 1) >= (int)len) {
			fclose(f);
			seterr(err, errlen, "cgroup path too long");
			return -ENAMETOOLONG;
		}
	}
	fclose(f);
	if (!found) {
		seterr(err, errlen, "process %d is in no cpuset cgroup", (int)pid);
		return -TOSS_ENOCGROUP;
	}
	return 0;
}

/**
 * toss_cgroup_is_shared() - a cgroup no integration tosses for someone
 * @cg: the cgroup
 *
 * The root of the hierarchy (on cgroup v1 also where systemd's services
 * sit in the cpuset hierarchy) and systemd's init.scope: their mems are
 * every node, their tasks everyone's.
 *
 * Return: 1 or 0.
 */
int toss_cgroup_is_shared(const struct toss_cgroup *cg)
{
	return !strcmp(cg->rel, "/") || !strcmp(cg->rel, "/init.scope");
}

/**
 * toss_write() - write one request to the cgroup's cpuset.memory_toss_cache
 * @cg: the cgroup
 * @request: what is written, e.g. "1" or "1 nodes=1"
 *
 * Return: 0, -errno of the open or the write, or -TOSS_ENOFILE.
 */
int toss_write(const struct toss_cgroup *cg, const char *request)
{
	return toss_write_file(cg, NULL, request);
}

/**
 * toss_write_file() - write a request to one file of a cgroup
 * @cg: the cgroup
 * @file: the file's whole name ("memory.reclaim"); NULL for the cpuset's
 *	toss file, whatever its prefix on this hierarchy
 * @request: the request, one line without its newline
 *
 * Return: 0, -TOSS_ENOFILE when the cgroup has no such file, or the
 * negative errno of the write.
 */
int toss_write_file(const struct toss_cgroup *cg, const char *file, const char *request)
{
	char path[PATH_MAX + 64];
	size_t len = strlen(request);
	ssize_t n;
	int fd;

	if (!len || len >= TOSS_REQ_MAX || strchr(request, '\n'))
		return -EINVAL;
	if (file)
		snprintf(path, sizeof(path), "%s/%s", cg->dir, file);
	else
		cg_file(cg, TOSS_FILE, path, sizeof(path));
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -TOSS_ENOFILE : -errno;
	n = write(fd, request, len);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	return (size_t)n == len ? 0 : -EIO;
}

/**
 * toss_build_request() - the request for these parts
 * @buf: the request
 * @len: its size
 * @size: the amount ("1", "512M"); NULL for "1", all
 * @nodes: a node list or NULL
 * @free_target: a free= size or NULL
 * @scope: "node", "cgroup" or NULL
 * @slab: slab=1 if non-zero
 *
 * Return: 0, -EINVAL when a part is empty or holds a space, or -E2BIG when
 * the request would be TOSS_REQ_MAX bytes or longer.
 */
int toss_build_request(char *buf, size_t len, const char *size,
		       const char *nodes, const char *free_target,
		       const char *scope, int slab)
{
	const char *parts[] = { size, nodes, free_target, scope };
	size_t i;
	int n;

	for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++)
		if (parts[i] && (!parts[i][0] || strpbrk(parts[i], " \t\n")))
			return -EINVAL;
	n = snprintf(buf, len, "%s%s%s%s%s%s%s%s", size ? size : "1",
		     nodes ? " nodes=" : "", nodes ? nodes : "",
		     free_target ? " free=" : "", free_target ? free_target : "",
		     scope ? " scope=" : "", scope ? scope : "",
		     slab ? " slab=1" : "");
	if (n < 0)
		return -EINVAL;
	return (size_t)n >= len || (size_t)n >= TOSS_REQ_MAX ? -E2BIG : 0;
}

/**
 * toss_node_isset() - is a node in a node set
 * @n: the set
 * @node: the node
 *
 * Return: 1 or 0.
 */
int toss_node_isset(const struct toss_nodes *n, int node)
{
	if (node < 0 || node >= TOSS_MAX_NODES)
		return 0;
	return !!(n->bits[node / BITS_PER_LONG] & (1UL << (node % BITS_PER_LONG)));
}

/**
 * toss_node_set() - add a node to a node set
 * @n: the set
 * @node: the node
 */
void toss_node_set(struct toss_nodes *n, int node)
{
	if (node >= 0 && node < TOSS_MAX_NODES)
		n->bits[node / BITS_PER_LONG] |= 1UL << (node % BITS_PER_LONG);
}

/*
 * A CPU or node list ("0-2,5", empty for none) as a hwloc bitmap, its ids
 * at most @max, checked before hwloc allocates anything (a bitmap up to
 * "2147483647" would take 256 MiB).  hwloc's parser takes "3-" as "3 and
 * above": refused, as is anything but digits, '-' and ','.  Return: 0 or
 * -EINVAL.
 */
static int list_to_bitmap(const char *list, hwloc_bitmap_t map, unsigned long max)
{
	size_t n = strspn(list, "0123456789-,");
	const char *p;
	char *copy;
	int ret = 0;

	if (list[n] && strcmp(list + n, "\n"))
		return -EINVAL;
	hwloc_bitmap_zero(map);
	if (!n)
		return 0;
	/*
	 * hwloc takes "3-" as "3 and above", and "1,,2", "-1" or "2-1" as
	 * lists: the kernel's lists have none of these.
	 */
	for (p = list; p < list + n; p++) {
		unsigned long a, b;
		char *end;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtoul(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			b = strtoul(end + 1, &end, 10);
		}
		if (b < a || b > max || (end < list + n && (*end != ',' || end + 1 == list + n)))
			return -EINVAL;
		p = end;
	}
	copy = strndup(list, n);
	if (!copy)
		return -ENOMEM;
	if (hwloc_bitmap_list_sscanf(map, copy) < 0 || hwloc_bitmap_weight(map) < 0)
		ret = -EINVAL;
	free(copy);
	return ret;
}

/**
 * toss_parse_list() - parse a node list such as "0-2,5"
 * @list: the list; empty is the empty set
 * @n: the set
 *
 * Return: 0 or -EINVAL (also for a node >= TOSS_MAX_NODES).
 */
int toss_parse_list(const char *list, struct toss_nodes *n)
{
	hwloc_bitmap_t map = hwloc_bitmap_alloc();
	int i, ret;

	memset(n, 0, sizeof(*n));
	if (!map)
		return -ENOMEM;
	ret = list_to_bitmap(list, map, TOSS_MAX_NODES - 1);
	if (!ret) {
		hwloc_bitmap_foreach_begin(i, map)
			toss_node_set(n, i);
		hwloc_bitmap_foreach_end();
	}
	hwloc_bitmap_free(map);
	return ret;
}

/**
 * toss_format_list() - a node set as a list, ranges folded ("0-2,5")
 * @n: the set
 * @buf: the list
 * @len: its size
 */
void toss_format_list(const struct toss_nodes *n, char *buf, size_t len)
{
	size_t off = 0;
	int i, j;

	if (len)
		buf[0] = '\0';
	for (i = 0; i < TOSS_MAX_NODES; i++) {
		if (!toss_node_isset(n, i))
			continue;
		for (j = i; j + 1 < TOSS_MAX_NODES && toss_node_isset(n, j + 1); j++)
			;
		if (off < len)
			off += snprintf(buf + off, len - off, "%s%d", off ? "," : "", i);
		if (j > i && off < len)
			off += snprintf(buf + off, len - off, "-%d", j);
		i = j;
	}
}

static int read_list(const char *path, struct toss_nodes *n)
{
	char buf[4096];
	int ret;

	ret = read_small(path, buf, sizeof(buf));
	if (ret)
		return ret;
	return toss_parse_list(buf, n);
}

/**
 * toss_memory_nodes() - the nodes with memory
 * @n: the set
 *
 * Return: 0 or a negative error.
 */
int toss_memory_nodes(struct toss_nodes *n)
{
	if (read_list(NODE_SYS "/has_memory", n) == 0)
		return 0;
	return read_list(NODE_SYS "/online", n);
}

/**
 * toss_cgroup_mems() - a cgroup's cpuset.mems.effective
 * @cg: the cgroup
 * @n: the set
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_mems(const struct toss_cgroup *cg, struct toss_nodes *n)
{
	char path[PATH_MAX + 64];

	cg_file(cg, "mems.effective", path, sizeof(path));
	if (cg->v1 && access(path, F_OK))
		cg_file(cg, "effective_mems", path, sizeof(path));
	return read_list(path, n);
}

/**
 * toss_cgroup_own_mems() - a cgroup's cpuset.mems, its own nodes
 * @cg: the cgroup
 * @n: the set; empty when it has none (cgroup v2: the parent's apply)
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_own_mems(const struct toss_cgroup *cg, struct toss_nodes *n)
{
	char path[PATH_MAX + 64];

	cg_file(cg, "mems", path, sizeof(path));
	return read_list(path, n);
}

/**
 * toss_cgroup_cpus() - a cgroup's cpuset.cpus.effective
 * @cg: the cgroup
 * @buf: the CPU list
 * @len: its size
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_cpus(const struct toss_cgroup *cg, char *buf, size_t len)
{
	char path[PATH_MAX + 64];

	cpus_effective_file(cg, cg->dir, path, sizeof(path));
	return read_small(path, buf, len);
}

/**
 * toss_cgroup_own_cpus() - a cgroup's own cpuset.cpus
 * @cg: the cgroup
 * @buf: the CPU list, empty when the cgroup has none of its own (cgroup
 *	v2: it takes its parent's)
 * @len: its size
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_own_cpus(const struct toss_cgroup *cg, char *buf, size_t len)
{
	char path[PATH_MAX + 64];

	cg_file(cg, "cpus", path, sizeof(path));
	return read_small(path, buf, len);
}

/* A CPU list file of sysfs as a bitmap. */
static int read_cpu_file(const char *path, hwloc_bitmap_t map)
{
	char buf[65536];
	int ret = read_small(path, buf, sizeof(buf));

	return ret ? ret : list_to_bitmap(buf, map, TOSS_MAX_CPUS - 1);
}

/*
 * The nodes with CPUs of @cpulist: any of their CPUs (@all 0) or all of
 * them (@all 1; a node without CPUs never counts).
 */
static int cpus_to_nodes(const char *cpulist, struct toss_nodes *n, int all)
{
	hwloc_bitmap_t cpus = hwloc_bitmap_alloc(), ncpus = hwloc_bitmap_alloc();
	struct toss_nodes online;
	char path[128];
	int node, ret;

	memset(n, 0, sizeof(*n));
	ret = cpus && ncpus ? list_to_bitmap(cpulist, cpus, TOSS_MAX_CPUS - 1) : -ENOMEM;
	if (!ret)
		ret = read_list(NODE_SYS "/online", &online);
	for (node = 0; !ret && node < TOSS_MAX_NODES; node++) {
		if (!toss_node_isset(&online, node))
			continue;
		snprintf(path, sizeof(path), NODE_SYS "/node%d/cpulist", node);
		ret = read_cpu_file(path, ncpus);
		if (ret)
			break;
		if (hwloc_bitmap_iszero(ncpus))
			continue;
		if (all ? hwloc_bitmap_isincluded(ncpus, cpus) :
			  hwloc_bitmap_intersects(ncpus, cpus))
			toss_node_set(n, node);
	}
	hwloc_bitmap_free(cpus);
	hwloc_bitmap_free(ncpus);
	return ret;
}

/**
 * toss_cpus_to_nodes() - the nodes of the CPUs in a list
 * @cpulist: CPU list, e.g. "1,3-4", CPU ids below TOSS_MAX_CPUS
 * @n: the nodes that have at least one of them
 *
 * Return: 0 or a negative error.
 */
int toss_cpus_to_nodes(const char *cpulist, struct toss_nodes *n)
{
	return cpus_to_nodes(cpulist, n, 0);
}

/**
 * toss_nodes_within_cpus() - the nodes all of whose CPUs are in a list
 * @cpulist: CPU list, e.g. "1,3-4", CPU ids below TOSS_MAX_CPUS
 * @n: the nodes with CPUs, every one of them in @cpulist
 *
 * Return: 0 or a negative error.
 */
int toss_nodes_within_cpus(const char *cpulist, struct toss_nodes *n)
{
	return cpus_to_nodes(cpulist, n, 1);
}

/**
 * toss_cpulist_weight() - how many CPUs a list holds
 * @cpulist: CPU list
 *
 * Return: the number, or a negative error.
 */
int toss_cpulist_weight(const char *cpulist)
{
	hwloc_bitmap_t map = hwloc_bitmap_alloc();
	int ret = map ? list_to_bitmap(cpulist, map, TOSS_MAX_CPUS - 1) : -ENOMEM;

	if (!ret)
		ret = hwloc_bitmap_weight(map);
	hwloc_bitmap_free(map);
	return ret;
}

/**
 * toss_online_cpus() - how many CPUs are online
 *
 * Return: the number, or a negative error.
 */
int toss_online_cpus(void)
{
	hwloc_bitmap_t map = hwloc_bitmap_alloc();
	int ret = map ? read_cpu_file("/sys/devices/system/cpu/online", map) : -ENOMEM;

	if (!ret)
		ret = hwloc_bitmap_weight(map);
	hwloc_bitmap_free(map);
	return ret;
}

/*
 * Add to @map the cpuset.cpus.effective of the cgroups in @dir (of @cg's
 * hierarchy) named @prefix*, but @skip: with @depth 1, of those in each
 * subdirectory of @dir but @skip instead.
 */
static void add_cgroups_cpus(const struct toss_cgroup *cg, const char *dir,
			     const char *prefix, const char *skip, int depth,
			     hwloc_bitmap_t map, hwloc_bitmap_t tmp)
{
	char sub[PATH_MAX], path[PATH_MAX + 64];
	struct dirent *e;
	DIR *dh = opendir(dir);

	while (dh && (e = readdir(dh))) {
		if (e->d_type != DT_DIR || e->d_name[0] == '.' ||
		    (skip && !strcmp(e->d_name, skip)) ||
		    (!depth && strncmp(e->d_name, prefix, strlen(prefix))) ||
		    snprintf(sub, sizeof(sub), "%s/%s", dir, e->d_name) >= (int)sizeof(sub))
			continue;
		if (depth)
			add_cgroups_cpus(cg, sub, prefix, NULL, depth - 1, map, tmp);
		else if (cpus_effective_file(cg, sub, path, sizeof(path)) &&
			 !read_cpu_file(path, tmp))
			hwloc_bitmap_or(map, map, tmp);
	}
	if (dh)
		closedir(dh);
}

/**
 * toss_sibling_cpus() - the CPUs of the cgroups beside a cgroup
 * @cg: the cgroup
 * @prefix: the names that count ("job_": Slurm's job cgroups)
 * @buf: the union of their cpuset.cpus.effective, as a CPU list ("" for
 *	none)
 * @len: its size
 *
 * The siblings of @cg named @prefix*, and on a cgroup v1 hierarchy also
 * those under its parent's siblings (Slurm's slurm/uid_<n>/job_<m>).
 *
 * Return: 0 or a negative error.
 */
int toss_sibling_cpus(const struct toss_cgroup *cg, const char *prefix,
		      char *buf, size_t len)
{
	hwloc_bitmap_t map = hwloc_bitmap_alloc(), tmp = hwloc_bitmap_alloc();
	const char *name = strrchr(cg->dir, '/'), *pname;
	char parent[PATH_MAX], grand[PATH_MAX];
	int ret = 0;

	if (!map || !tmp || !name) {
		ret = -ENOMEM;
		goto out;
	}
	snprintf(parent, sizeof(parent), "%.*s", (int)(name - cg->dir), cg->dir);
	add_cgroups_cpus(cg, parent, prefix, name + 1, 0, map, tmp);
	pname = strrchr(parent, '/');
	if (cg->v1 && pname) {
		snprintf(grand, sizeof(grand), "%.*s", (int)(pname - parent), parent);
		add_cgroups_cpus(cg, grand, prefix, pname + 1, 1, map, tmp);
	}
	if (hwloc_bitmap_list_snprintf(buf, len, map) >= (int)len)
		ret = -E2BIG;
out:
	hwloc_bitmap_free(map);
	hwloc_bitmap_free(tmp);
	return ret;
}

/**
 * toss_online_cores() - how many cores the online CPUs make
 *
 * A core is counted at the lowest online CPU of its
 * /sys/devices/system/cpu/cpuN/topology/thread_siblings_list; a CPU
 * without that file is a core of its own.
 *
 * Return: the number of cores, or a negative error.
 */
int toss_online_cores(void)
{
	hwloc_bitmap_t online = hwloc_bitmap_alloc(), sib = hwloc_bitmap_alloc();
	char path[128];
	int cpu, n = 0, ret;

	ret = online && sib ? read_cpu_file("/sys/devices/system/cpu/online", online) : -ENOMEM;
	if (!ret) {
		hwloc_bitmap_foreach_begin(cpu, online) {
			snprintf(path, sizeof(path),
				 "/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list",
				 cpu);
			if (read_cpu_file(path, sib))
				hwloc_bitmap_only(sib, cpu);
			hwloc_bitmap_and(sib, sib, online);
			n += hwloc_bitmap_first(sib) == cpu || hwloc_bitmap_iszero(sib);
		} hwloc_bitmap_foreach_end();
	}
	hwloc_bitmap_free(online);
	hwloc_bitmap_free(sib);
	return ret ? ret : n;
}

/**
 * toss_node_file_bytes() - a node's page cache
 * @node: the node
 * @bytes: its FilePages, in bytes
 *
 * Return: 0 or a negative error.
 */
int toss_node_file_bytes(int node, unsigned long long *bytes)
{
	char path[128], line[256];
	unsigned long long kb;
	int ret = -ENOENT;
	FILE *f;

	snprintf(path, sizeof(path), NODE_SYS "/node%d/meminfo", node);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		int nd;

		if (sscanf(line, "Node %d FilePages: %llu kB", &nd, &kb) == 2) {
			*bytes = kb * 1024;
			ret = 0;
			break;
		}
	}
	fclose(f);
	return ret;
}

/**
 * toss_has_file() - does the cgroup have cpuset.memory_toss_cache
 * @cg: the cgroup
 *
 * Return: 1, or 0 when it is absent (a kernel without the series).
 */
int toss_has_file(const struct toss_cgroup *cg)
{
	char path[PATH_MAX + 64];

	cg_file(cg, TOSS_FILE, path, sizeof(path));
	return access(path, F_OK) == 0 || errno != ENOENT;
}

/**
 * toss_stat_value() - one value of cpuset.memory_toss_cache.stat
 * @cg: the cgroup
 * @key: the key, e.g. "tosses"
 * @val: its value
 *
 * Return: 0, -ENOENT for a missing key, or -errno of the read.
 */
int toss_stat_value(const struct toss_cgroup *cg, const char *key,
		    long long *val)
{
	char path[PATH_MAX + 64], line[512];
	size_t kl = strlen(key);
	int ret = -ENOENT;
	FILE *f;

	cg_file(cg, TOSS_FILE ".stat", path, sizeof(path));
	f = fopen(path, "re");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, kl) && line[kl] == ' ') {
			*val = strtoll(line + kl + 1, NULL, 10);
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/**
 * toss_strerror() - what an error of this library means for a toss
 * @err: a negative error
 *
 * Return: a message.
 */
const char *toss_strerror(int err)
{
	switch (-err) {
	case 0:
		return "success";
	case TOSS_ENOCGROUP:
		return "no such cgroup, unit or process";
	case TOSS_ENOCPUSET:
		return "the cpuset controller is not enabled there";
	case TOSS_ENOFILE:
		return "this kernel has no cpuset.memory_toss_cache";
	case TOSS_EUSAGE:
		return "bad argument";
	case TOSS_EREFUSED:
		return "the site's policy does not allow this request";
	case TOSS_EPOLICY:
		return "the policy file " TOSS_POLICY_FILE " is unsafe or malformed";
	case EINVAL:
		return "the kernel refused the request as invalid (grammar, nodes outside cpuset.mems.effective, amount below a page, or a cgroup without cpuset.mems of its own, or none of them effective, and no nodes=)";
	case ERANGE:
		return "a size does not fit in 64 bits";
	case E2BIG:
		return "the request is too long";
	case EPERM:
		return "not permitted (scope=node needs CAP_SYS_ADMIN)";
	case EACCES:
		return "permission denied on the cgroup file";
	case EROFS:
		return "the cgroup file system is read-only";
	case EAGAIN:
		return "less page cache could be dropped than asked";
	case EOPNOTSUPP:
		return "scope=cgroup needs the memory controller on the cgroup";
	case EINTR:
		return "interrupted by a signal";
	case ENODEV:
		return "the cgroup was removed during the toss";
	case ENOMEM:
		return "out of memory";
	default:
		return strerror(-err);
	}
}

/**
 * toss_exit_code() - the exit code for an error, the same everywhere
 * @err: 0 or a negative error
 *
 * Return: one of TOSS_EXIT_*, from sysexits.h.
 */
int toss_exit_code(int err)
{
	switch (-err) {
	case 0:
		return TOSS_EXIT_OK;
	case TOSS_EUSAGE:
		return TOSS_EXIT_USAGE;
	case TOSS_ENOCGROUP:
	case TOSS_ENOCPUSET:
		return TOSS_EXIT_NOCGROUP;
	case TOSS_ENOFILE:
		return TOSS_EXIT_NOFILE;
	case EINVAL:
	case ERANGE:
	case E2BIG:
		return TOSS_EXIT_INVAL;
	case EPERM:
	case EACCES:
	case EROFS:
	case TOSS_EREFUSED:
		return TOSS_EXIT_PERM;
	case EAGAIN:
	case EINTR:
	case ENODEV:
		return TOSS_EXIT_AGAIN;
	case EOPNOTSUPP:
	case TOSS_EPOLICY:
		return TOSS_EXIT_CONFIG;
	default:
		return TOSS_EXIT_FAILURE;
	}
}

/* --- the site's policy ------------------------------------------------ */

static void policy_defaults(struct toss_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->keys = TOSS_KEY_FREE;
	p->nodes = TOSS_NODES_OWN;
	p->min_interval = 60;
	p->timeout = 20;
}

static const char *const key_names[] = { "free", "slab", "scope", "nodes" };

static int parse_keys(char *val, unsigned int *keys)
{
	char *w, *save = NULL;
	size_t i;

	*keys = 0;
	if (!strcmp(val, "none"))
		return 0;
	for (w = strtok_r(val, ", \t", &save); w; w = strtok_r(NULL, ", \t", &save)) {
		for (i = 0; i < sizeof(key_names) / sizeof(key_names[0]); i++)
			if (!strcmp(w, key_names[i]))
				break;
		if (i == sizeof(key_names) / sizeof(key_names[0]))
			return -EINVAL;
		*keys |= 1U << i;
	}
	return 0;
}

static int parse_uint(const char *val, unsigned int *out)
{
	char *end;
	unsigned long v;

	if (!isdigit((unsigned char)val[0]))
		return -EINVAL;
	errno = 0;
	v = strtoul(val, &end, 10);
	if (errno || *end || v > 86400 * 365)
		return -EINVAL;
	*out = v;
	return 0;
}

static int parse_bool(const char *val, int *out)
{
	if (!strcmp(val, "yes") || !strcmp(val, "true") || !strcmp(val, "1"))
		*out = 1;
	else if (!strcmp(val, "no") || !strcmp(val, "false") || !strcmp(val, "0"))
		*out = 0;
	else
		return -EINVAL;
	return 0;
}

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* The sections a policy file may have, and its keys (policy_set()). */
static const char *const sections[] = { "", "oci-hook", "slurm" };
static const char *const policy_keys[] = {
	"keys", "nodes", "min_interval", "timeout", "strict", "request"
};

static int policy_set(struct toss_policy *p, const char *key, char *val)
{
	static const char *const nodes[] = { "none", "own", "pinned", "any" };
	size_t i;

	if (!strcmp(key, "keys"))
		return parse_keys(val, &p->keys);
	if (!strcmp(key, "nodes")) {
		for (i = 0; i < sizeof(nodes) / sizeof(nodes[0]); i++)
			if (!strcmp(val, nodes[i])) {
				p->nodes = i;
				return 0;
			}
		return -EINVAL;
	}
	if (!strcmp(key, "min_interval"))
		return parse_uint(val, &p->min_interval);
	if (!strcmp(key, "timeout"))
		return parse_uint(val, &p->timeout);
	if (!strcmp(key, "strict"))
		return parse_bool(val, &p->strict);
	if (!strcmp(key, "request")) {
		if (strlen(val) >= sizeof(p->request) || strchr(val, '\n'))
			return -EINVAL;
		strcpy(p->request, val);
		return 0;
	}
	return -ENOENT;
}

/**
 * toss_policy_load() - the site's policy for one integration
 * @path: the file, NULL for TOSS_POLICY_FILE
 * @section: "oci-hook", "slurm", ...: its [section] overrides the keys
 *	before the first section; NULL: only those
 * @p: filled in; the defaults when the file does not exist
 * @err: a message on failure
 * @errlen: its size
 *
 * The file must be a regular file owned by root and writable by no one
 * else, as sudoers is: whoever can write it decides what root tosses.
 *
 * Return: 0, or -TOSS_EPOLICY (@p then allows nothing).
 */
int toss_policy_load(const char *path, const char *section,
		     struct toss_policy *p, char *err, size_t errlen)
{
	char line[TOSS_REQ_MAX + 64];
	/* which keys each section has set: a second one is an error */
	unsigned int seen[sizeof(sections) / sizeof(sections[0])] = { 0 };
	size_t cur = 0, i;
	int lineno = 0, fd, ret = 0;
	struct stat st;
	FILE *f;

	policy_defaults(p);
	if (!path)
		path = TOSS_POLICY_FILE;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0) {
		if (errno == ENOENT)
			return 0;
		seterr(err, errlen, "%s: %s", path, strerror(errno));
		ret = -TOSS_EPOLICY;
		goto out;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IWGRP | S_IWOTH))) {
		seterr(err, errlen, "%s: not a regular file owned by root and writable only by root",
		       path);
		close(fd);
		ret = -TOSS_EPOLICY;
		goto out;
	}
	f = fdopen(fd, "r");
	if (!f) {
		close(fd);
		ret = -TOSS_EPOLICY;
		goto out;
	}
	while (fgets(line, sizeof(line), f)) {
		char *l, *eq, *hash;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			seterr(err, errlen, "%s:%d: line too long", path, lineno);
			ret = -TOSS_EPOLICY;
			break;
		}
		hash = strchr(line, '#');
		if (hash)
			*hash = '\0';
		l = trim(line);
		if (!*l)
			continue;
		if (*l == '[') {
			size_t n = strlen(l);

			/* only ours, exactly: a misspelt one would apply to nothing */
			for (i = 1; i < sizeof(sections) / sizeof(sections[0]); i++)
				if (n == strlen(sections[i]) + 2 && l[n - 1] == ']' &&
				    !strncmp(l + 1, sections[i], n - 2))
					break;
			if (i == sizeof(sections) / sizeof(sections[0])) {
				char esc[128];

				seterr(err, errlen, "%s:%d: unknown section %s (only [oci-hook] and [slurm])",
				       path, lineno, toss_log_escape(l, esc, sizeof(esc)));
				ret = -TOSS_EPOLICY;
				break;
			}
			cur = i;
			continue;
		}
		eq = strchr(l, '=');
		if (!eq) {
			seterr(err, errlen, "%s:%d: not \"key = value\"", path, lineno);
			ret = -TOSS_EPOLICY;
			break;
		}
		*eq = '\0';
		{
			char *key = trim(l), *val = trim(eq + 1);
			struct toss_policy scratch;
			int r;

			/* a key twice in a section: which one was meant? */
			for (i = 0; i < sizeof(policy_keys) / sizeof(policy_keys[0]); i++)
				if (!strcmp(key, policy_keys[i]))
					break;
			if (i < sizeof(policy_keys) / sizeof(policy_keys[0]) &&
			    (seen[cur] & (1U << i))) {
				seterr(err, errlen, "%s:%d: \"%s\" a second time in %s%s%s", path,
				       lineno, key, cur ? "[" : "the keys before any section",
				       sections[cur], cur ? "]" : "");
				ret = -TOSS_EPOLICY;
				break;
			}
			if (i < sizeof(policy_keys) / sizeof(policy_keys[0]))
				seen[cur] |= 1U << i;
			/* every line is checked; only ours are applied */
			policy_defaults(&scratch);
			r = policy_set(cur && (!section || strcmp(sections[cur], section)) ?
				       &scratch : p, key, val);
			if (r) {
				seterr(err, errlen, "%s:%d: %s \"%s\"", path, lineno,
				       r == -ENOENT ? "unknown key" : "bad value for", key);
				ret = -TOSS_EPOLICY;
				break;
			}
		}
	}
	fclose(f);
out:
	if (ret) {
		policy_defaults(p);
		p->nodes = TOSS_NODES_NONE;
		p->keys = 0;
	}
	return ret;
}

/* --- a toss on someone's behalf --------------------------------------- */

/* "1", "max" or a size: digits and at most one K, M, G, T, P, E suffix. */
static int valid_size(const char *v)
{
	size_t n = strspn(v, "0123456789");

	if (!n || n > 20)
		return 0;
	return !v[n] || (strchr("KMGTPEkmgtpe", v[n]) && !v[n + 1]);
}

static void dlog(struct toss_delegate *d, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void dlog(struct toss_delegate *d, int prio, const char *fmt, ...)
{
	char msg[1024], esc[1024];
	va_list ap;

	if (!d->log)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* a request, a cgroup name: whatever the requester chose */
	d->log(d->log_arg, prio, "%s", toss_log_escape(msg, esc, sizeof(esc)));
}

static int nodes_empty(const struct toss_nodes *n)
{
	size_t i;

	for (i = 0; i < sizeof(n->bits) / sizeof(n->bits[0]); i++)
		if (n->bits[i])
			return 0;
	return 1;
}

/* --- root's state: stamps and locks in TOSS_STATE_DIR ---------------- */

/**
 * toss_now_ms() - CLOCK_MONOTONIC in ms, the clock of every deadline
 *
 * Return: the time.
 */
long long toss_now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/**
 * toss_state_dir() - open TOSS_STATE_DIR, root's alone
 * @err: a message on failure
 * @errlen: its size
 *
 * Creates it 0700 if it is absent (systemd-tmpfiles creates it so at
 * boot).  Whatever is there must be a directory owned by root with no
 * permission for group or others: no one else can open a stamp or a
 * lock in it, so no one else can hold one.
 *
 * Return: an fd (O_CLOEXEC) or a negative error.
 */
int toss_state_dir(char *err, size_t errlen)
{
	struct stat st;
	int fd, ret;

	if (mkdir(TOSS_STATE_DIR, 0700) && errno != EEXIST) {
		ret = -errno;
		seterr(err, errlen, "%s: %s", TOSS_STATE_DIR, strerror(errno));
		return ret;
	}
	fd = open(TOSS_STATE_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0) {
		ret = -errno;
		seterr(err, errlen, "%s: %s", TOSS_STATE_DIR, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IRWXG | S_IRWXO))) {
		seterr(err, errlen, "%s: not a directory owned by root with mode 0700 (it is %o, owner %u)",
		       TOSS_STATE_DIR, (unsigned int)(st.st_mode & 07777),
		       (unsigned int)st.st_uid);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/**
 * toss_lock_until() - flock(LOCK_EX), waiting until a deadline at most
 * @fd: the file
 * @deadline_ms: toss_now_ms() at which to give up
 *
 * Return: 0, -ETIMEDOUT, or -errno of flock().
 */
int toss_lock_until(int fd, long long deadline_ms)
{
	const struct timespec tick = { 0, 10 * 1000 * 1000 };

	while (flock(fd, LOCK_EX | LOCK_NB)) {
		if (errno != EWOULDBLOCK && errno != EINTR)
			return -errno;
		if (toss_now_ms() >= deadline_ms)
			return -ETIMEDOUT;
		nanosleep(&tick, NULL);	/* EINTR: the deadline is checked */
	}
	return 0;
}

/* A file of the state directory: opened without following a link, and
 * root's regular file, or an error. */
static int state_open(int dirfd, const char *name, int flags, char *err,
		      size_t errlen)
{
	struct stat st;
	int fd, ret;

	fd = openat(dirfd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0600);
	if (fd < 0) {
		ret = -errno;
		seterr(err, errlen, "%s/%s: %s", TOSS_STATE_DIR, name, strerror(errno));
		return ret;
	}
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & (S_IRWXG | S_IRWXO))) {
		seterr(err, errlen, "%s/%s: not a regular file of root's with mode 0600",
		       TOSS_STATE_DIR, name);
		close(fd);
		return -EPERM;
	}
	return fd;
}

/**
 * toss_state_lock() - a lock file of the state directory, locked
 * @dirfd: toss_state_dir()
 * @name: the file
 * @deadline_ms: toss_now_ms() at which to give up
 * @err: a message on failure
 * @errlen: its size
 *
 * The holder unlinks the file before it unlocks (toss_state_unlock()): a
 * lock got on a file that is no longer the one of that name is dropped
 * and the new one is taken.
 *
 * Return: the fd, or a negative error (-ETIMEDOUT).
 */
int toss_state_lock(int dirfd, const char *name, long long deadline_ms,
		    char *err, size_t errlen)
{
	struct stat a, b;
	int fd, ret;

	for (;;) {
		fd = state_open(dirfd, name, O_RDWR | O_CREAT, err, errlen);
		if (fd < 0)
			return fd;
		ret = toss_lock_until(fd, deadline_ms);
		if (ret) {
			seterr(err, errlen, "%s/%s: %s", TOSS_STATE_DIR, name,
			       ret == -ETIMEDOUT ? "held by another toss until the deadline" :
			       strerror(-ret));
			close(fd);
			return ret;
		}
		if (!fstat(fd, &a) && !fstatat(dirfd, name, &b, AT_SYMLINK_NOFOLLOW) &&
		    a.st_dev == b.st_dev && a.st_ino == b.st_ino)
			return fd;
		close(fd);	/* unlinked by its last holder: again */
	}
}

/**
 * toss_state_unlock() - unlink and unlock a toss_state_lock() file
 * @dirfd: toss_state_dir()
 * @name: the file
 * @fd: toss_state_lock()'s fd
 */
void toss_state_unlock(int dirfd, const char *name, int fd)
{
	if (fd < 0)
		return;
	unlinkat(dirfd, name, 0);
	close(fd);
}

/**
 * toss_state_write() - a small file of the state directory, written whole
 * @dirfd: toss_state_dir()
 * @name: the file, created 0600 or truncated
 * @text: what it holds
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or a negative error.
 */
int toss_state_write(int dirfd, const char *name, const char *text,
		     char *err, size_t errlen)
{
	size_t len = strlen(text);
	int fd, ret = 0;

	fd = state_open(dirfd, name, O_WRONLY | O_CREAT | O_TRUNC, err, errlen);
	if (fd < 0)
		return fd;
	if (write(fd, text, len) != (ssize_t)len) {
		ret = -EIO;
		seterr(err, errlen, "%s/%s: short write", TOSS_STATE_DIR, name);
	}
	close(fd);
	return ret;
}

/**
 * toss_state_read() - a small file of the state directory, read whole
 * @dirfd: toss_state_dir()
 * @name: the file
 * @buf: its text, NUL-terminated
 * @len: the size of @buf; a longer file is an error
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 1, 0 when there is no such file, or a negative error.
 */
int toss_state_read(int dirfd, const char *name, char *buf, size_t len,
		    char *err, size_t errlen)
{
	ssize_t n;
	int fd;

	fd = state_open(dirfd, name, O_RDONLY, err, errlen);
	if (fd == -ENOENT)
		return 0;
	if (fd < 0)
		return fd;
	n = read(fd, buf, len);
	close(fd);
	if (n < 0 || (size_t)n >= len) {
		seterr(err, errlen, "%s/%s: %s", TOSS_STATE_DIR, name,
		       n < 0 ? strerror(errno) : "too long");
		return n < 0 ? -EIO : -EFBIG;
	}
	buf[n] = '\0';
	return 1;
}

/**
 * toss_state_once() - is this the first time since boot for @name
 * @name: a marker file of the state directory
 *
 * Return: 1 if the marker was made now or cannot be made, 0 if it was
 * there.
 */
int toss_state_once(const char *name)
{
	char err[256];
	int dirfd, fd, ret = 1;

	dirfd = toss_state_dir(err, sizeof(err));
	if (dirfd < 0)
		return 1;
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd >= 0)
		close(fd);
	else if (errno == EEXIST)
		ret = 0;
	close(dirfd);
	return ret;
}

/**
 * toss_log_escape() - a string with its control characters as \xHH
 * @s: the string
 * @buf: the result, truncated to fit
 * @len: its size
 *
 * Return: @buf.
 */
char *toss_log_escape(const char *s, char *buf, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t o = 0;

	if (!len)
		return buf;
	for (; *u && o + 1 < len; u++) {
		int c1 = *u == 0xc2 && u[1] >= 0x80 && u[1] <= 0x9f;

		if (*u < 0x20 || *u == 0x7f || c1) {
			if (o + 5 >= len)
				break;
			o += snprintf(buf + o, len - o, "\\x%02x", c1 ? u[1] : *u);
			u += c1;
			continue;
		}
		buf[o++] = *u;
	}
	buf[o] = '\0';
	return buf;
}

/*
 * A node's stamp for a requester: "node<N>" (anyone) or
 * "node<N>.<requester>", the requester's bytes other than [A-Za-z0-9_-]
 * as %XX.  Return: 0 or -ENAMETOOLONG.
 */
static int stamp_name(char *buf, size_t len, int node, const char *requester)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = snprintf(buf, len, "node%d", node);
	const unsigned char *r = (const unsigned char *)requester;

	if (!r)
		return 0;
	if (o + 1 >= len)
		return -ENAMETOOLONG;
	buf[o++] = '.';
	for (; *r; r++) {
		if (o + 4 >= len)
			return -ENAMETOOLONG;
		if (isalnum(*r) || *r == '_' || *r == '-') {
			buf[o++] = *r;
		} else {
			buf[o++] = '%';
			buf[o++] = hex[*r >> 4];
			buf[o++] = hex[*r & 15];
		}
	}
	buf[o] = '\0';
	return 0;
}

/* A stamp: "<CLOCK_BOOTTIME s> <its min_interval>"; -1 if none. */
static long long stamp_read(int fd, unsigned int *iv)
{
	char buf[64], *end;
	long long t;
	ssize_t r;

	r = pread(fd, buf, sizeof(buf) - 1, 0);
	if (r <= 0)
		return -1;
	buf[r] = '\0';
	errno = 0;
	t = strtoll(buf, &end, 10);
	if (errno || end == buf || t < 0)
		return -1;
	*iv = strtoul(end, NULL, 10);
	return t;
}

static int stamp_write(int fd, long long t, unsigned int iv)
{
	char buf[64];
	int n = snprintf(buf, sizeof(buf), "%lld %u\n", t, iv);

	errno = 0;
	if (ftruncate(fd, 0) || pwrite(fd, buf, n, 0) != n) {
		if (!errno)
			errno = EIO;
		return -errno;
	}
	return 0;
}

static long long boottime_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_BOOTTIME, &t);
	return t.tv_sec;
}

/*
 * Stamps whose own interval is over are removed, so that one stamp per
 * node and requester does not pile up in /run.  Called locked.
 */
static void stamps_sweep(int dirfd, long long now)
{
	struct dirent *de;
	int fd, n = 0;
	DIR *dir;

	fd = dup(dirfd);
	if (fd < 0)
		return;
	dir = fdopendir(fd);
	if (!dir) {
		close(fd);
		return;
	}
	while ((de = readdir(dir)) && n++ < 65536) {
		unsigned int iv = 0;
		long long t;
		int sfd;

		if (strncmp(de->d_name, "node", 4))
			continue;
		sfd = state_open(dirfd, de->d_name, O_RDONLY, NULL, 0);
		if (sfd < 0)
			continue;
		t = stamp_read(sfd, &iv);
		close(sfd);
		if (t >= 0 && now - t >= (long long)iv)
			unlinkat(dirfd, de->d_name, 0);
	}
	closedir(dir);
}

/* What claim_interval() changed, for unclaim(). */
struct claim {
	long long now;
	unsigned int iv;
	struct toss_nodes nodes;	/* stamped now */
	long long prev[TOSS_MAX_NODES];	/* their stamps before, -1: none */
	unsigned int prev_iv[TOSS_MAX_NODES];
};

static long long delegate_deadline(const struct toss_delegate *d)
{
	unsigned int s = d->policy->timeout ? d->policy->timeout : TOSS_LOCK_WAIT_MAX;

	return d->deadline_ms ? d->deadline_ms : toss_now_ms() + s * 1000LL;
}

/*
 * Take the interval of each node: a node tossed for this requester less
 * than min_interval seconds ago (CLOCK_BOOTTIME, in a stamp of
 * TOSS_STATE_DIR, tmpfs) is left out.  One lock, flock() on the
 * directory, held for the whole decision, waited for until the deadline.
 * The time is taken when the toss starts: a second request at once does
 * not toss the node again.  Whatever goes wrong leaves nodes alone: the
 * directory or the lock, every node; a stamp, its node.
 */
static void claim_interval(struct toss_delegate *d, struct toss_nodes *n,
			   struct claim *c)
{
	char err[PATH_MAX + 128] = "", name[256];
	int dirfd, node, ret;

	memset(c, 0, sizeof(*c));
	c->iv = d->policy->min_interval;
	if (!c->iv || nodes_empty(n))
		return;
	c->now = boottime_s();
	dirfd = toss_state_dir(err, sizeof(err));
	if (dirfd < 0) {
		dlog(d, LOG_WARNING, "every node left alone: the rate-limit state: %s", err);
		memset(n, 0, sizeof(*n));
		return;
	}
	ret = toss_lock_until(dirfd, delegate_deadline(d));
	if (ret) {
		dlog(d, LOG_WARNING, "every node left alone: the lock of %s: %s",
		     TOSS_STATE_DIR, ret == -ETIMEDOUT ?
		     "not had by the deadline (another toss holds it)" : strerror(-ret));
		memset(n, 0, sizeof(*n));
		close(dirfd);
		return;
	}
	stamps_sweep(dirfd, c->now);
	for (node = 0; node < TOSS_MAX_NODES; node++) {
		unsigned int iv = 0;
		long long last;
		int fd;

		if (!toss_node_isset(n, node))
			continue;
		n->bits[node / BITS_PER_LONG] &= ~(1UL << (node % BITS_PER_LONG));
		if (stamp_name(name, sizeof(name), node, d->requester)) {
			dlog(d, LOG_WARNING, "node %d: left alone: the requester's name is too long for a stamp",
			     node);
			continue;
		}
		fd = state_open(dirfd, name, O_RDWR | O_CREAT, err, sizeof(err));
		if (fd < 0) {
			dlog(d, LOG_WARNING, "node %d: left alone: the rate-limit state: %s",
			     node, err);
			continue;
		}
		last = stamp_read(fd, &iv);
		if (last >= 0 && c->now - last < (long long)c->iv) {
			dlog(d, LOG_NOTICE, "node %d: left alone: tossed %llds ago%s, min_interval is %us",
			     node, c->now - last, d->requester ? " for the same requester" : "",
			     c->iv);
		} else if (stamp_write(fd, c->now, c->iv)) {
			dlog(d, LOG_WARNING, "node %d: left alone: %s/%s: %s", node,
			     TOSS_STATE_DIR, name, strerror(errno));
		} else {
			c->prev[node] = last;
			c->prev_iv[node] = iv;
			toss_node_set(&c->nodes, node);
			toss_node_set(n, node);
		}
		close(fd);
	}
	close(dirfd);	/* and the lock with it */
}

/*
 * The toss failed: the stamps it took are put back as they were, unless
 * another toss stamped them since.  Without the lock (a second deadline
 * of a second at most) they stay: the node is then left alone for
 * min_interval, which is the safe way to fail.
 */
static void unclaim(struct toss_delegate *d, const struct claim *c)
{
	char err[PATH_MAX + 128] = "", name[256];
	long long t, deadline = delegate_deadline(d);
	int dirfd, node;

	if (!c->iv || nodes_empty(&c->nodes))
		return;
	dirfd = toss_state_dir(err, sizeof(err));
	if (dirfd < 0)
		return;
	if (deadline < toss_now_ms() + 1000)
		deadline = toss_now_ms() + 1000;
	if (toss_lock_until(dirfd, deadline)) {
		dlog(d, LOG_WARNING, "the stamps of the failed toss are kept: no lock on %s",
		     TOSS_STATE_DIR);
		close(dirfd);
		return;
	}
	for (node = 0; node < TOSS_MAX_NODES; node++) {
		unsigned int iv = 0;
		int fd;

		if (!toss_node_isset(&c->nodes, node) ||
		    stamp_name(name, sizeof(name), node, d->requester))
			continue;
		fd = state_open(dirfd, name, O_RDWR, NULL, 0);
		if (fd < 0)
			continue;
		t = stamp_read(fd, &iv);
		if (t == c->now && iv == c->iv) {
			if (c->prev[node] < 0)
				unlinkat(dirfd, name, 0);
			else
				stamp_write(fd, c->prev[node], c->prev_iv[node]);
		}
		close(fd);
	}
	close(dirfd);
}

/**
 * toss_delegated() - a toss on a requester's behalf, as the policy allows
 * @d: the requester, the request and the policy; the result
 *
 * See toss.h.  Every decision is logged through @d->log.
 *
 * Return: 0 tossed, 1 nothing to toss, or a negative error.
 */
int toss_delegated(struct toss_delegate *d)
{
	const struct toss_policy *p = d->policy;
	char req[TOSS_REQ_MAX], list[TOSS_REQ_MAX], cpubuf[65536];
	char amount[32] = "", opt[TOSS_REQ_MAX] = "";
	struct toss_nodes mems, all, own, touched, want, shared;
	const char *cpus = d->cpus;
	struct claim claim;
	char *w, *save = NULL;
	int node, ret, has_nodes = 0;
	size_t off = 0;

	d->written[0] = '\0';
	memset(&d->tossed, 0, sizeof(d->tossed));
	if (toss_cgroup_is_shared(d->cg)) {
		dlog(d, LOG_NOTICE, "%s: not tossed for anyone: the root cgroup or init.scope",
		     d->cg->rel);
		return 1;
	}
	if (p->nodes == TOSS_NODES_NONE) {
		dlog(d, LOG_NOTICE, "%s: \"%s\": refused: the policy allows no node (nodes = none)",
		     d->cg->rel, d->request);
		return 1;
	}
	/* the request: an amount, then only the keys the policy allows */
	if (strlen(d->request) >= sizeof(req) || strpbrk(d->request, "\t\n\r")) {
		dlog(d, LOG_NOTICE, "%s: refused: a malformed request", d->cg->rel);
		return 1;
	}
	strcpy(req, d->request);
	for (w = strtok_r(req, " ", &save); w; w = strtok_r(NULL, " ", &save)) {
		const char *eq = strchr(w, '=');
		unsigned int key = 0;
		size_t i;

		if (!amount[0]) {
			if (!valid_size(w) && strcmp(w, "max")) {
				dlog(d, LOG_NOTICE, "%s: \"%s\": refused: \"%s\" is not an amount (1, max, a size)",
				     d->cg->rel, d->request, w);
				return 1;
			}
			snprintf(amount, sizeof(amount), "%s", w);
			continue;
		}
		for (i = 0; eq && i < sizeof(key_names) / sizeof(key_names[0]); i++)
			if (strlen(key_names[i]) == (size_t)(eq - w) &&
			    !strncmp(w, key_names[i], eq - w))
				key = 1U << i;
		if (!key) {
			dlog(d, LOG_NOTICE, "%s: \"%s\": refused: unknown key \"%s\"",
			     d->cg->rel, d->request, w);
			return 1;
		}
		if (!(p->keys & key)) {
			dlog(d, LOG_NOTICE, "%s: \"%s\": refused: the policy does not allow \"%.*s\" (keys)",
			     d->cg->rel, d->request, (int)(eq - w), w);
			return 1;
		}
		if (key == TOSS_KEY_FREE && !valid_size(eq + 1)) {
			dlog(d, LOG_NOTICE, "%s: \"%s\": refused: bad free= size", d->cg->rel,
			     d->request);
			return 1;
		}
		if (key == TOSS_KEY_NODES) {
			if (has_nodes || toss_parse_list(eq + 1, &want)) {
				dlog(d, LOG_NOTICE, "%s: \"%s\": refused: bad nodes=", d->cg->rel,
				     d->request);
				return 1;
			}
			has_nodes = 1;
			continue;
		}
		off += snprintf(opt + off, sizeof(opt) - off, " %s", w);
		if (off >= sizeof(opt))
			return -E2BIG;
	}
	if (!amount[0]) {
		dlog(d, LOG_NOTICE, "%s: refused: an empty request", d->cg->rel);
		return 1;
	}

	/* the nodes: the requester's own, as the policy sees them */
	ret = toss_cgroup_mems(d->cg, &mems);
	if (!ret)
		ret = toss_memory_nodes(&all);
	if (ret)
		return ret;
	if (p->nodes != TOSS_NODES_ANY && !d->cpus_decide) {
		int pinned = 0;

		for (node = 0; node < TOSS_MAX_NODES; node++)
			if (toss_node_isset(&all, node) && !toss_node_isset(&mems, node))
				pinned = 1;
		if (!pinned) {
			toss_format_list(&mems, list, sizeof(list));
			dlog(d, LOG_NOTICE, "%s: \"%s\": refused: its cpuset.mems.effective (%s) is every memory node: not pinned to nodes of its own",
			     d->cg->rel, d->request, list);
			return 1;
		}
	}
	/* own: all of a node's CPUs are its; touched: any (cpus_decide) */
	if (p->nodes == TOSS_NODES_OWN || (p->nodes == TOSS_NODES_PINNED && d->cpus_decide)) {
		if (!cpus) {
			ret = toss_cgroup_cpus(d->cg, cpubuf, sizeof(cpubuf));
			if (ret)
				return ret;
			cpus = cpubuf;
		}
		ret = p->nodes == TOSS_NODES_OWN ? toss_nodes_within_cpus(cpus, &own) : 0;
		if (!ret && d->cpus_decide)
			ret = toss_cpus_to_nodes(cpus, &touched);
		if (ret)
			return ret;
	}
	/* own: and none of its CPUs another's (shared cores) */
	memset(&shared, 0, sizeof(shared));
	if (p->nodes == TOSS_NODES_OWN && d->others_cpus && d->others_cpus[0]) {
		ret = toss_cpus_to_nodes(d->others_cpus, &shared);
		if (ret)
			return ret;
	}
	for (node = 0; node < TOSS_MAX_NODES; node++) {
		if (!toss_node_isset(&mems, node))
			continue;
		if (!toss_node_isset(&all, node))
			continue;	/* no memory: nothing to toss */
		if (has_nodes && !toss_node_isset(&want, node))
			continue;
		/* with cpus_decide, a node with none of its CPUs is not its */
		if (d->cpus_decide && p->nodes != TOSS_NODES_ANY && !toss_node_isset(&touched, node))
			continue;
		if (p->nodes == TOSS_NODES_OWN && !toss_node_isset(&own, node)) {
			dlog(d, LOG_NOTICE, "node %d: left alone: %s (CPUs %s) does not have every CPU of it (nodes = own)",
			     node, d->cg->rel, cpus);
			continue;
		}
		if (toss_node_isset(&shared, node)) {
			dlog(d, LOG_NOTICE, "node %d: left alone: others hold CPUs of it too (theirs: %s; nodes = own)",
			     node, d->others_cpus);
			continue;
		}
		toss_node_set(&d->tossed, node);
	}
	if (!d->deadline_ms)
		d->deadline_ms = delegate_deadline(d);
	claim_interval(d, &d->tossed, &claim);
	if (nodes_empty(&d->tossed)) {
		dlog(d, LOG_NOTICE, "%s: \"%s\": no node of its own left to toss", d->cg->rel,
		     d->request);
		return 1;
	}
	toss_format_list(&d->tossed, list, sizeof(list));
	if (snprintf(d->written, sizeof(d->written), "%s%s nodes=%s", amount, opt, list) >=
	    (int)sizeof(d->written)) {
		d->written[0] = '\0';
		return -E2BIG;
	}
	if (toss_now_ms() >= d->deadline_ms) {
		dlog(d, LOG_WARNING, "%s: \"%s\": not written: the deadline passed while waiting",
		     d->cg->rel, d->written);
		unclaim(d, &claim);
		d->written[0] = '\0';
		memset(&d->tossed, 0, sizeof(d->tossed));
		return 1;
	}
	ret = toss_write(d->cg, d->written);
	/* nothing dropped: the next request of this requester may toss */
	if (ret && ret != -EAGAIN && ret != -EINTR)
		unclaim(d, &claim);
	if (ret && ret != -EAGAIN)
		d->written[0] = '\0';
	return ret;
}
