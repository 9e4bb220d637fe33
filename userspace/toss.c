// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libcpusettoss: find a cgroup and write its cpuset.memory_toss_cache.
 * See toss.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "toss.h"

#define NODE_SYS	"/sys/devices/system/node"
#define TOSS_FILE	"memory_toss_cache"
#define BITS_PER_LONG	(8 * sizeof(unsigned long))

extern char **environ;

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

/* The path of one of the cgroup's cpuset files, "cpuset.<name>". */
static void cg_file(const struct toss_cgroup *cg, const char *name,
		    char *buf, size_t len)
{
	/* a v1 mount with noprefix names them without "cpuset." */
	if (cg->v1 && cg->noprefix)
		snprintf(buf, len, "%s/%s", cg->dir, name);
	else
		snprintf(buf, len, "%s/cpuset.%s", cg->dir, name);
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
 * @pid: the process
 * @cg: filled in
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_from_pid(pid_t pid, struct toss_cgroup *cg,
			 char *err, size_t errlen)
{
	char path[64], line[PATH_MAX + 128], mnt[PATH_MAX], rel[PATH_MAX] = "";
	int v1, np, ret, found = 0;
	FILE *f;

	ret = find_mount(mnt, sizeof(mnt), &v1, &np);
	if (ret) {
		seterr(err, errlen, "no cgroup hierarchy with the cpuset controller is mounted");
		return ret;
	}
	snprintf(path, sizeof(path), "/proc/%d/cgroup", (int)pid);
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
		if (found)
			snprintf(rel, sizeof(rel), "%s", c2 + 1);
	}
	fclose(f);
	if (!found) {
		seterr(err, errlen, "process %d is in no cpuset cgroup", (int)pid);
		return -TOSS_ENOCGROUP;
	}
	return set_cgroup(cg, rel, err, errlen);
}

/**
 * toss_cgroup_from_unit() - a systemd unit's cgroup
 * @unit: the unit's name
 * @cg: filled in
 * @err: a message on failure
 * @errlen: its size
 *
 * Asks systemctl for the unit's ControlGroup property: the path of its
 * cgroup in systemd's hierarchy, which is the unified one; with a v1
 * cpuset hierarchy the same path is looked for there.
 *
 * Return: 0 or a negative error.
 */
int toss_cgroup_from_unit(const char *unit, struct toss_cgroup *cg,
			  char *err, size_t errlen)
{
	char *argv[] = { "systemctl", "show", "--property=ControlGroup", "--value",
			 "--", (char *)unit, NULL };
	char out[PATH_MAX] = "";
	posix_spawn_file_actions_t fa;
	int pfd[2], status, ret;
	size_t got = 0;
	ssize_t n;
	pid_t pid;

	if (pipe2(pfd, O_CLOEXEC))
		return -errno;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, pfd[1], STDOUT_FILENO);
	ret = posix_spawnp(&pid, "systemctl", &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(pfd[1]);
	if (ret) {
		close(pfd[0]);
		seterr(err, errlen, "cannot run systemctl: %s", strerror(ret));
		return -ret;
	}
	while (got < sizeof(out) - 1 &&
	       (n = read(pfd[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += n;
	out[got] = '\0';
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	while (got > 0 && (out[got - 1] == '\n' || out[got - 1] == ' '))
		out[--got] = '\0';
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		seterr(err, errlen, "systemctl show %s failed", unit);
		return -TOSS_ENOCGROUP;
	}
	if (!got) {
		seterr(err, errlen, "unit %s has no cgroup (is it loaded and active?)", unit);
		return -TOSS_ENOCGROUP;
	}
	return set_cgroup(cg, out, err, errlen);
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
	char path[PATH_MAX + 64];
	size_t len = strlen(request);
	ssize_t n;
	int fd;

	if (!len || len >= TOSS_REQ_MAX || strchr(request, '\n'))
		return -EINVAL;
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
 * Return: 0 or -EINVAL when a part holds a space or the request is too long.
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
	return n < 0 || (size_t)n >= len || (size_t)n >= TOSS_REQ_MAX ? -EINVAL : 0;
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

/**
 * toss_parse_list() - parse a list such as "0-2,5"
 * @list: the list; empty is the empty set
 * @n: the set
 *
 * Return: 0 or -EINVAL.
 */
int toss_parse_list(const char *list, struct toss_nodes *n)
{
	const char *p = list;

	memset(n, 0, sizeof(*n));
	while (*p && *p != '\n') {
		char *end;
		long a, b;

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		a = strtol(p, &end, 10);
		b = a;
		if (*end == '-') {
			if (!isdigit((unsigned char)end[1]))
				return -EINVAL;
			b = strtol(end + 1, &end, 10);
		}
		if (a < 0 || b < a || b >= TOSS_MAX_NODES)
			return -EINVAL;
		for (; a <= b; a++)
			toss_node_set(n, a);
		p = end;
		if (*p == ',') {
			p++;
			if (!*p)
				return -EINVAL;
		} else if (*p && *p != '\n') {
			return -EINVAL;
		}
	}
	return 0;
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
 * toss_cpus_to_nodes() - the nodes of the CPUs in a list
 * @cpulist: CPU list, e.g. "1,3-4"
 * @n: the nodes that have at least one of them
 *
 * Return: 0 or a negative error.
 */
int toss_cpus_to_nodes(const char *cpulist, struct toss_nodes *n)
{
	struct toss_nodes cpus, online, ncpus;
	char path[128];
	int node, cpu, ret;

	/* CPU numbers above TOSS_MAX_NODES are not expected on one machine
	 * of the sizes we serve; a bigger list is refused, not cut.
	  */
	ret = toss_parse_list(cpulist, &cpus);
	if (ret)
		return ret;
	memset(n, 0, sizeof(*n));
	ret = read_list(NODE_SYS "/online", &online);
	if (ret)
		return ret;
	for (node = 0; node < TOSS_MAX_NODES; node++) {
		if (!toss_node_isset(&online, node))
			continue;
		snprintf(path, sizeof(path), NODE_SYS "/node%d/cpulist", node);
		if (read_list(path, &ncpus))
			continue;
		for (cpu = 0; cpu < TOSS_MAX_NODES; cpu++)
			if (toss_node_isset(&cpus, cpu) && toss_node_isset(&ncpus, cpu)) {
				toss_node_set(n, node);
				break;
			}
	}
	return 0;
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
	case EINVAL:
		return "the kernel refused the request as invalid (grammar, nodes outside cpuset.mems.effective, amount below a page)";
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
 * toss_exit_code() - the exit code of cpuset-toss(8) for an error
 * @err: 0 or a negative error
 *
 * Return: one of TOSS_EXIT_*.
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
		return TOSS_EXIT_PERM;
	case EAGAIN:
		return TOSS_EXIT_AGAIN;
	case EOPNOTSUPP:
		return TOSS_EXIT_NOTSUP;
	case EINTR:
	case ENODEV:
		return TOSS_EXIT_INTR;
	default:
		return TOSS_EXIT_FAILURE;
	}
}
