/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the cpuset.memory_toss_cache tests share: the nodes they find, the
 * files they fill onto them, where those files' pages are, the trace of
 * the toss_cache events, and the runner of each program's tests.
 */
#ifndef __TOSS_UTIL_H
#define __TOSS_UTIL_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

#include "../kselftest.h"

#define MiB		(1024L * 1024)
#define FILE_SIZE	(48 * MiB)	/* each of the files filled onto a node */
#define BIG_SIZE	(256 * MiB)	/* the file of the tosses that take a while */
#define MAX_NODES	64
#define NR_FILES	4		/* at least this many files of FILE_SIZE */
#define TOSS_FILE	"cpuset.memory_toss_cache"
#define STAT_FILE	"cpuset.memory_toss_cache.stat"
#define NUMA_STAT_FILE	"cpuset.memory_toss_cache.numa_stat"
#define TRACING		"/sys/kernel/tracing"
#define TRACE_BUF	(1024 * 1024)

#define NODE(n)		(1UL << (n))

/* What find_node() looks for. */
enum node_kind {
	ANY_NODE,	/* any node with memory */
	CPU_NODE,	/* a node with memory and CPUs */
	CPULESS_NODE,	/* a node with memory and no CPU */
};

extern char *parent;		/* the tests' cgroup, under the root */
extern const char *dir;		/* where the test files live */
/*
 * TOSS_SANITIZERS set: the kernel has KASAN and the other checks of make
 * soak, several times slower, and KASAN's quarantine frees slab objects
 * late.  The checks that assume the test kernel's speed (a time, a number
 * of tosses in a time) or that frees happen when they are made (another
 * node's slab, a node's free memory) print what they see instead;
 * test_toss_slab shrinks the slab caches, which empties the quarantine,
 * before it reads the tossed node's slab.
 */
extern bool sanitizers;
extern long page_size;
extern unsigned long mem_nodes;	/* the nodes with memory */
extern int nr_nodes;		/* how many */
extern int home_node;		/* the node of CPU 0, where the tests' cpusets run */
extern int toss_node;		/* the first other node, which most tests toss */
extern long sink;
/* Files of FILE_SIZE: one per node with memory, NR_FILES at least. */
extern char file[MAX_NODES][PATH_MAX];
extern int nr_files;
/* The file fill_all_nodes() puts on each node. */
extern char *node_file[MAX_NODES];
extern char big_file[PATH_MAX];
extern long before[MAX_NODES];

struct toss_test {
	int (*fn)(const char *root);
	const char *name;
};

int toss_main(int argc, char **argv, const struct toss_test *tests, int nr);
__printf(1, 2) int toss_skip(const char *fmt, ...);

double now(void);
int write_str(const char *path, const char *s);
int toss(const char *cg, const char *req);
long toss_last(const char *cg, const char *key);
int first_node(unsigned long nodes);
int next_node(int node, unsigned long nodes);
int find_node(enum node_kind kind, unsigned long not);
int nth_node(enum node_kind kind, int nth);
unsigned long node_cpus(int node);
int first_cpu(unsigned long cpus);
unsigned long list_mask(const char *list);
char *list_str(unsigned long mask, char *buf, size_t size);
int set_list(const char *cg, const char *control, unsigned long mask);
char *make_cpuset(const char *name, unsigned long mems);
void destroy(char *cg);
void reap(pid_t pid);
int run_steps(int (*fn)(const char *cg), const char *cg, const char *what);
struct flusher {
	char expire[32];
	char wb[32];
};

void flusher_away(struct flusher *f);
void flusher_back(const struct flusher *f);
#define DIRTY_SIZE	(16 * MiB)
int write_dirty(const char *cgroup, void *arg);
int become_delegatee(void);
int chown_cgroup(const char *cg, uid_t uid);
pid_t toss_in_child(const char *cg, const char *req);
char task_state(pid_t pid);
bool ended(pid_t pid);
int wait_walking(pid_t pid, int nid, long kb, long pages);
bool in_write(pid_t pid);
bool wait_in_write(pid_t pid);

void drop_all_caches(void);
int read_all(const char *cgroup, void *arg);
int fill_node(int node, const char *path);
int fill_all_nodes(void);
int fill_big_file(int node);
int map_cached(const char *path, char **map, long *npages, unsigned char **vec);
long resident(const char *path, long count[MAX_NODES]);
long resident_on(const char *path, int node);
long resident_all_on(int node);
void snapshot(void);
int check_nodes(unsigned long gone);
int create_file(const char *path, long size, char pattern);
int create_sparse(const char *path, long size);
int verify_file(const char *path, long size, char pattern);
void uncache(const char *path);
int touch_files(const char *dirname, const char *prefix, int count);
int map_and_wait(const char *cgroup, void *arg);
int hold_mapped(const char *cgroup, void *arg);
int wait_holding(double secs);

long read_key(const char *path, const char *key);
void vmstat_fold(void);
long node_vmstat(int node, const char *key);
long node_meminfo_kb(int node, const char *key);
long stat_tossed_on(const char *cg, int node);

int trace_clear(const char *tr);
int trace_start(void);
void trace_stop(void);
long trace_read(char *buf, size_t size);
int toss_with_trace(const char *cg, const char *req, char *trace, int *err);
int trace_end_field(const char *trace, int nid, const char *field,
		    long *sum, long *most);

#endif /* __TOSS_UTIL_H */
