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
#define TOSS_MAX_CPUS		65536	/* CPU ids below; Linux's NR_CPUS is 8192 at most */
#define TOSS_REQ_MAX		1024	/* the kernel's limit on a request */

/* Errors of our own, beyond the errnos the kernel's write returns. */
enum {
	TOSS_ENOCGROUP = 10000,	/* no such cgroup, unit or process */
	TOSS_ENOCPUSET,		/* the cpuset controller is not on it */
	TOSS_ENOFILE,		/* the kernel has no cpuset.memory_toss_cache */
	TOSS_EUSAGE,		/* a bad argument of ours */
	TOSS_EREFUSED,		/* the site's policy does not allow it */
	TOSS_EPOLICY,		/* the policy file is unsafe or malformed */
};

/*
 * Exit codes of every program and integration, from sysexits.h (systemd
 * names them after their meaning in the journal); toss_exit_code() is the
 * one errno-to-exit mapping, documented in cpuset-toss(8).
 */
enum {
	TOSS_EXIT_OK = 0,
	TOSS_EXIT_USAGE = 64,		/* EX_USAGE: bad command line */
	TOSS_EXIT_INVAL = 65,		/* EX_DATAERR: EINVAL, ERANGE, E2BIG */
	TOSS_EXIT_NOCGROUP = 66,	/* EX_NOINPUT: no cgroup, unit, pid, cpuset */
	TOSS_EXIT_NOFILE = 69,		/* EX_UNAVAILABLE: kernel without the file */
	TOSS_EXIT_FAILURE = 71,		/* EX_OSERR: any other error (ENOMEM, EIO) */
	TOSS_EXIT_AGAIN = 75,		/* EX_TEMPFAIL: EAGAIN, EINTR, ENODEV */
	TOSS_EXIT_PERM = 77,		/* EX_NOPERM: EPERM, EACCES, EROFS, refused */
	TOSS_EXIT_CONFIG = 78,		/* EX_CONFIG: EOPNOTSUPP, bad policy file */
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
/* The cpuset cgroup of a process, from /proc/PID/cgroup; pid 0 is the
 * caller.  A pid outside 1..pid_max is -TOSS_EUSAGE.
 */
int toss_cgroup_from_pid(pid_t pid, struct toss_cgroup *cg,
			 char *err, size_t errlen);
/* A systemd unit's cgroup, its ControlGroup property read from systemd
 * over D-Bus (sd-bus); the unit must be active.
 */
int toss_cgroup_from_unit(const char *unit, struct toss_cgroup *cg,
			  char *err, size_t errlen);

/* Write one request (e.g. "1", "1 nodes=1", "512M free=2G") to the
 * cgroup's cpuset.memory_toss_cache; returns 0 or -errno of the write
 * (-TOSS_ENOFILE when the file does not exist).
  */
int toss_cgroup_rel_of_pid(pid_t pid, char *rel, size_t len, char *err, size_t errlen);
int toss_write(const struct toss_cgroup *cg, const char *request);
int toss_write_file(const struct toss_cgroup *cg, const char *file, const char *request);

/* Build a request from the parts (NULL or 0: absent); size NULL is "1". */
int toss_build_request(char *buf, size_t len, const char *size,
		       const char *nodes, const char *free_target,
		       const char *scope, int slab);

/* 1 for the root of the hierarchy or systemd's init.scope: a cgroup an
 * integration never tosses for someone (its mems are every node).
 */
int toss_cgroup_is_shared(const struct toss_cgroup *cg);

/* Node lists "0-2,5" <-> bitmaps (hwloc's list parser, nodes < 1024,
 * checked before anything is allocated). */
int toss_parse_list(const char *list, struct toss_nodes *n);
void toss_format_list(const struct toss_nodes *n, char *buf, size_t len);
int toss_node_isset(const struct toss_nodes *n, int node);
void toss_node_set(struct toss_nodes *n, int node);

/* The nodes with memory (/sys/devices/system/node/has_memory, else
 * online), a cgroup's cpuset.mems.effective and cpuset.cpus.effective
 * (a CPU list of any size, in buf), and the nodes with a CPU in a CPU
 * list ("1,3-4") or with all of their CPUs in it (CPU-less nodes never),
 * from /sys/devices/system/node.  CPU ids below TOSS_MAX_CPUS.
 */
int toss_memory_nodes(struct toss_nodes *n);
int toss_cgroup_mems(const struct toss_cgroup *cg, struct toss_nodes *n);
/* Its own cpuset.mems (empty on cgroup v2: it has none, it takes its
 * parent's); -errno. */
int toss_cgroup_own_mems(const struct toss_cgroup *cg, struct toss_nodes *n);
int toss_cgroup_cpus(const struct toss_cgroup *cg, char *buf, size_t len);
/* Its own cpuset.cpus (empty on cgroup v2 when it takes its parent's). */
int toss_cgroup_own_cpus(const struct toss_cgroup *cg, char *buf, size_t len);
/* The CPUs of the cgroups beside it named <prefix>* (on v1 also under its
 * parent's siblings), a CPU list; -errno. */
int toss_sibling_cpus(const struct toss_cgroup *cg, const char *prefix,
		      char *buf, size_t len);
int toss_cpus_to_nodes(const char *cpulist, struct toss_nodes *n);
int toss_nodes_within_cpus(const char *cpulist, struct toss_nodes *n);
/* The number of CPUs in a CPU list, of online CPUs, and of the cores
 * those make (SMT siblings counted once); -errno. */
int toss_cpulist_weight(const char *cpulist);
int toss_online_cpus(void);
int toss_online_cores(void);

/* FilePages of a node in bytes (/sys/devices/system/node/nodeN/meminfo). */
int toss_node_file_bytes(int node, unsigned long long *bytes);

/* Does the kernel give the cgroup a cpuset.memory_toss_cache? 1 or 0. */
int toss_has_file(const struct toss_cgroup *cg);

/* One cgroup's cpuset.memory_toss_cache.stat value ("tosses", ...). */
int toss_stat_value(const struct toss_cgroup *cg, const char *key,
		    long long *val);

/*
 * The site's policy for requests made on someone else's behalf (an OCI
 * annotation, an srun option, a site default), cpuset-toss.conf(5): one
 * root-owned file, "key = value" lines, "[oci-hook]" or "[slurm]" sections
 * overriding the keys before them for that integration.
 */
#define TOSS_POLICY_FILE	"/etc/cpuset-toss/cpuset-toss.conf"
#define TOSS_STATE_DIR		"/run/cpuset-toss"
/* How long a lock is waited for when the policy's timeout is 0. */
#define TOSS_LOCK_WAIT_MAX	20

/* The keys a requester may give besides the amount. */
#define TOSS_KEY_FREE		0x1
#define TOSS_KEY_SLAB		0x2
#define TOSS_KEY_SCOPE		0x4
#define TOSS_KEY_NODES		0x8

/* Which of the requester's nodes may be tossed. */
enum toss_nodes_policy {
	TOSS_NODES_NONE,	/* none: the integration never tosses */
	TOSS_NODES_OWN,		/* pinned, and every CPU of the node is its */
	TOSS_NODES_PINNED,	/* pinned: mems not every memory node */
	TOSS_NODES_ANY,		/* all of its mems, even every node */
};

struct toss_policy {
	unsigned int keys;		/* TOSS_KEY_*, default TOSS_KEY_FREE */
	int nodes;			/* enum toss_nodes_policy, default OWN */
	unsigned int min_interval;	/* s between tosses of a node, 60 */
	unsigned int timeout;		/* s to wait for the kernel, 20 */
	int strict;			/* 1: a failed toss fails the caller */
	char request[TOSS_REQ_MAX];	/* the site default ("" : none) */
};

/* Load @section's policy from @path (NULL: TOSS_POLICY_FILE); defaults
 * when the file does not exist.  A file not owned by root, writable by
 * others, or malformed is -TOSS_EPOLICY: callers then toss nothing.
 */
int toss_policy_load(const char *path, const char *section,
		     struct toss_policy *p, char *err, size_t errlen);

/* Logging of the delegated path: priority as syslog(3)'s. */
typedef void (*toss_log_fn)(void *arg, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* A toss on a requester's behalf. */
struct toss_delegate {
	const struct toss_policy *policy;
	const struct toss_cgroup *cg;	/* the requester's cgroup */
	const char *request;		/* what the requester asked */
	const char *cpus;		/* its CPUs; NULL: the cgroup's */
	int cpus_decide;		/* its CPUs alone say which nodes are
					 * its own (own: all of a node's CPUs,
					 * pinned: any), its mems are not
					 * narrowed: Slurm's job cgroups */
	const char *others_cpus;	/* CPUs others hold (other jobs' on
					 * the machine): under "own", a node
					 * with any of them is not its own;
					 * NULL: none known */
	const char *requester;		/* whose min_interval: the pod or
					 * container, the job's user; NULL:
					 * anyone's (per node only) */
	long long deadline_ms;		/* toss_now_ms() after which it gives
					 * up waiting; 0: the policy's
					 * timeout from the call */
	toss_log_fn log;		/* every decision is logged */
	void *log_arg;
	char written[TOSS_REQ_MAX];	/* out: what was written, or "" */
	struct toss_nodes tossed;	/* out: the nodes asked for */
};

/*
 * toss_delegated(): check the request against the policy (an amount,
 * then only the keys it allows), choose the nodes (the cgroup's
 * cpuset.mems.effective as the policy allows, less the nodes tossed less
 * than min_interval ago), and write "<amount> [free=..] nodes=<list>" to
 * the cgroup's file.  Return: 0 tossed, 1 nothing to toss (refused or no
 * node left; logged why), or a negative error of the write or lookup.
 */
int toss_delegated(struct toss_delegate *d);

/*
 * The state of the delegated path (TOSS_STATE_DIR: min_interval's stamps,
 * the Slurm plugin's job locks) is root's alone.
 *
 * toss_state_dir(): the directory, created 0700 if absent, opened
 * O_NOFOLLOW and checked (a directory owned by root, no permission for
 * group or others): an fd, or a negative error with a message.
 * toss_lock_until(): flock(LOCK_EX) on @fd, retried until @deadline_ms
 * (toss_now_ms(), CLOCK_MONOTONIC): 0, -ETIMEDOUT or -errno.
 * toss_state_lock(): the same on the file @name in the directory, created
 * 0600 (openat, O_NOFOLLOW; a regular file owned by root, linked there,
 * or an error): the fd, locked.  toss_state_unlock(): unlinks and closes
 * it, so that nothing stays behind.
 */
int toss_state_dir(char *err, size_t errlen);
long long toss_now_ms(void);
int toss_lock_until(int fd, long long deadline_ms);
int toss_state_lock(int dirfd, const char *name, long long deadline_ms,
		    char *err, size_t errlen);
void toss_state_unlock(int dirfd, const char *name, int fd);
/*
 * toss_state_write(), toss_state_read(): a small file @name of the
 * directory, opened as toss_state_lock() opens it, written or read whole:
 * 0 (read: 1, or 0 when there is none) or a negative error.
 */
int toss_state_write(int dirfd, const char *name, const char *text,
		     char *err, size_t errlen);
int toss_state_read(int dirfd, const char *name, char *buf, size_t len,
		    char *err, size_t errlen);
/*
 * toss_state_once(): 1 the first time it is called with @name since the
 * state directory was made (at boot: it is on /run), then 0; 1 also when
 * the directory cannot be used (a log line too many, never one too few).
 */
int toss_state_once(const char *name);

/*
 * A string as it may go to a log: bytes below 0x20, 0x7f and the C1
 * controls (U+0080..U+009F) as \xHH.  Returns @buf.
 */
char *toss_log_escape(const char *s, char *buf, size_t len);
/* 1 if @s holds such a byte (a control character of any kind). */
static inline int toss_has_control(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i;

	for (i = 0; i < len; i++)
		if (u[i] < 0x20 || u[i] == 0x7f ||
		    (u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f))
			return 1;
	return 0;
}

/* A message for an error returned above, and its exit code. */
const char *toss_strerror(int err);
int toss_exit_code(int err);

#endif /* CPUSET_TOSS_H */
