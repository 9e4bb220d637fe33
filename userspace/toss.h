/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libcpusettoss: the one implementation of finding a cgroup and writing
 * its cpuset.memory_toss_cache, shared by cpuset-toss(8), the OCI hook,
 * the systemd generator's units and the Slurm SPANK plugin.
 */
#ifndef CPUSET_TOSS_H
#define CPUSET_TOSS_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define TOSS_MAX_NODES		1024
#define TOSS_REQ_MAX		1024	/* the kernel's limit on a request */

/* Errors of our own, beyond the errnos the kernel's write returns. */
enum {
	TOSS_ENOCGROUP = 10000,	/* no such cgroup, unit or process */
	TOSS_ENOCPUSET,		/* the cpuset controller is not on it */
	TOSS_ENOFILE,		/* the kernel has no cpuset.memory_toss_cache */
	TOSS_EUSAGE,		/* a bad argument of ours */
};

/* Exit codes of cpuset-toss(8), documented in its man page. */
enum {
	TOSS_EXIT_OK = 0,
	TOSS_EXIT_FAILURE = 1,	/* any other error (ENOMEM, EIO, ...) */
	TOSS_EXIT_USAGE = 2,	/* bad command line */
	TOSS_EXIT_NOCGROUP = 3,	/* cgroup, unit or pid not found, no cpuset */
	TOSS_EXIT_NOFILE = 4,	/* kernel without cpuset.memory_toss_cache */
	TOSS_EXIT_INVAL = 5,	/* EINVAL, ERANGE, E2BIG: request refused */
	TOSS_EXIT_PERM = 6,	/* EPERM, EACCES, EROFS */
	TOSS_EXIT_AGAIN = 7,	/* EAGAIN: less than asked could be dropped */
	TOSS_EXIT_NOTSUP = 8,	/* EOPNOTSUPP: scope=cgroup, no memcg */
	TOSS_EXIT_INTR = 9,	/* EINTR, ENODEV: interrupted, cgroup removed */
};

struct toss_cgroup {
	char dir[PATH_MAX];	/* absolute directory of the cgroup */
	char rel[PATH_MAX];	/* its path inside the hierarchy, "/..." */
	int v1;			/* 1: a cgroup v1 cpuset hierarchy */
	int noprefix;		/* v1 mounted with noprefix: no "cpuset." */
};

/* Node bitmap: bit n set for node n. */
struct toss_nodes {
	unsigned long bits[TOSS_MAX_NODES / (8 * sizeof(unsigned long))];
};

/*
 * Every function returning int returns 0 or a negative error: -errno or
 * -TOSS_E*.  Functions taking (char *err, size_t errlen) put a one-line
 * explanation there on failure.
 */

/* A cgroup named by its path: absolute, or relative to the mount of the
 * hierarchy that has the cpuset controller ("job", "/job.slice/x").
  */
int toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
			  char *err, size_t errlen);
/* The cpuset cgroup of a process, from /proc/PID/cgroup. */
int toss_cgroup_from_pid(pid_t pid, struct toss_cgroup *cg,
			 char *err, size_t errlen);
/* A systemd unit's cgroup, from its ControlGroup property
 * (systemctl show); the unit must be active.
  */
int toss_cgroup_from_unit(const char *unit, struct toss_cgroup *cg,
			  char *err, size_t errlen);

/* Write one request (e.g. "1", "1 nodes=1", "512M free=2G") to the
 * cgroup's cpuset.memory_toss_cache; returns 0 or -errno of the write
 * (-TOSS_ENOFILE when the file does not exist).
  */
int toss_write(const struct toss_cgroup *cg, const char *request);

/* Build a request from the parts (NULL or 0: absent); size NULL is "1". */
int toss_build_request(char *buf, size_t len, const char *size,
		       const char *nodes, const char *free_target,
		       const char *scope, int slab);

/* Node lists "0-2,5" <-> bitmaps. */
int toss_parse_list(const char *list, struct toss_nodes *n);
void toss_format_list(const struct toss_nodes *n, char *buf, size_t len);
int toss_node_isset(const struct toss_nodes *n, int node);
void toss_node_set(struct toss_nodes *n, int node);

/* The nodes with memory (/sys/devices/system/node/has_memory, else
 * online), a cgroup's cpuset.mems.effective, and the nodes whose CPUs
 * are in a CPU list ("1,3-4"), from /sys/devices/system/node.
  */
int toss_memory_nodes(struct toss_nodes *n);
int toss_cgroup_mems(const struct toss_cgroup *cg, struct toss_nodes *n);
int toss_cpus_to_nodes(const char *cpulist, struct toss_nodes *n);

/* FilePages of a node in bytes (/sys/devices/system/node/nodeN/meminfo). */
int toss_node_file_bytes(int node, unsigned long long *bytes);

/* One cgroup's cpuset.memory_toss_cache.stat value ("tosses", ...). */
int toss_stat_value(const struct toss_cgroup *cg, const char *key,
		    long long *val);

/* A message for an error returned above, and its exit code. */
const char *toss_strerror(int err);
int toss_exit_code(int err);

#endif /* CPUSET_TOSS_H */
