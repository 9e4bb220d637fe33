/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TOSS_CACHE_H
#define _LINUX_TOSS_CACHE_H

#include <linux/nodemask.h>
#include <linux/types.h>

struct cpumask;
struct mem_cgroup;

/**
 * struct toss_request - what toss_cache() is asked to drop
 * @nodes: the nodes whose page cache may go; nodes without memory are
 *	left out
 * @nr_pages: pages to drop at most, over all of @nodes together, coldest
 *	first; ULONG_MAX for all that qualifies
 * @free_pages: without @memcg only: on each node, drop no more than it
 *	takes to have this many pages free (0: no such target)
 * @memcg: NULL for the page cache of every memory cgroup, each keeping
 *	what its memory.min and memory.low protect, as global reclaim
 *	honours them; else only what is charged to @memcg's subtree, each
 *	descendant keeping what its protection against @memcg covers, as
 *	memory.reclaim honours it
 * @slab: also shrink the nodes' dentry and inode caches through the super
 *	blocks' shrinkers (of @memcg's subtree when set)
 * @cpus: without @memcg: if set, called with the CPUs the caller may run
 *	work on, of which the workers of a whole toss take those that are
 *	online, not isolated and, where there are some, on the node they
 *	walk; called when the toss starts and every 10 ms while it runs, so
 *	that the workers follow a change.  Without it, the caller's CPUs.
 * @should_stop: if set, true ends the toss early with -ENODEV (the cgroup
 *	it is for is going away, say); called between batches
 * @data: argument of @cpus and @should_stop; both are called in atomic
 *	context and never after toss_cache() returned
 * @id: who asked, for the tracepoints (a cgroup id, say)
 */
struct toss_request {
	nodemask_t nodes;
	unsigned long nr_pages;
	unsigned long free_pages;
	struct mem_cgroup *memcg;
	bool slab;
	void (*cpus)(void *data, struct cpumask *mask);
	bool (*should_stop)(void *data);
	void *data;
	u64 id;
};

/**
 * struct toss_result - what toss_cache() did, in pages
 * @nr_scanned: page cache looked at (all of it for a whole toss; for a
 *	toss of part, what the LRU walks looked at)
 * @nr_tossed: dropped from the page cache and freed
 * @nr_dirty: left because dirty
 * @nr_writeback: left because under writeback
 * @nr_mapped: left because mapped by a process
 * @nr_busy: left because locked, pinned or in use
 * @nr_slab: slab objects freed (with toss_request.slab)
 * @node_tossed: if set by the caller, an array of nr_node_ids counters to
 *	which the pages dropped from each node are added
 */
struct toss_result {
	unsigned long nr_scanned;
	unsigned long nr_tossed;
	unsigned long nr_dirty;
	unsigned long nr_writeback;
	unsigned long nr_mapped;
	unsigned long nr_busy;
	unsigned long nr_slab;
	u64 *node_tossed;
};

int toss_cache(const struct toss_request *req, struct toss_result *res);
void toss_cache_wake(const void *data);

#endif /* _LINUX_TOSS_CACHE_H */
