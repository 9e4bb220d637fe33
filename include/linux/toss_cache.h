/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TOSS_CACHE_H
#define _LINUX_TOSS_CACHE_H

#include <linux/types.h>

/* Levels of coldness a partial toss goes through, coldest first. */
#define TOSS_LEVELS	6

struct mem_cgroup;

/**
 * struct toss_control - one node's share of a page cache toss
 * @cgroup_id: the cgroup the toss was asked for, for tracing
 * @nr_to_toss: pages to toss at most; ULONG_MAX tosses all that can be
 * @free_target: stop once the node has this many free pages; 0: no target
 * @memcg: if set, only page cache charged to this memory cgroup or its
 *	descendants is tossed, and none of those protected by memory.min or
 *	memory.low against it
 * @slab: also shrink the node's dentry and inode caches, through the super
 *	blocks' shrinkers only (of @memcg's subtree when set)
 * @should_stop: if set, called between batches: true ends the toss early
 *	with -ENODEV (the cgroup it was for is going away, say)
 * @stop_data: argument of @should_stop
 * @worker: which of @nr_workers walkers of the node this is, from 0
 * @nr_workers: walkers sharing a whole toss of the node, each taking every
 *	@nr_workers-th stripe of its pfns (0 or 1: this one walks it all)
 * @nr_scanned: file folios on the LRU looked at, in pages
 * @nr_tossed: pages dropped from the page cache and freed
 * @nr_dirty: pages skipped because they were dirty
 * @nr_writeback: pages skipped because they were under writeback
 * @nr_mapped: pages skipped because they were mapped by a process
 * @nr_busy: pages skipped because they were locked, pinned or in use
 * @nr_slab: slab objects freed (with @slab)
 * @nr_too_big: pages of folios left because they were bigger than what was
 *	left to toss
 * @counted_pfn: folios of each level of coldness below these pfns were
 *	already counted by an earlier walk of the same toss, and are not
 *	counted again
 *
 * The caller sets @cgroup_id, @nr_to_toss and @free_target (and @worker
 * and @nr_workers for a whole toss shared by several workers) and zeroes
 * the counters and @counted_pfn; toss_node_cache() adds to them.  A toss that
 * walks a node more than once keeps @counted_pfn from one walk to the next,
 * so that each folio is counted once.
 */
struct toss_control {
	u64 cgroup_id;
	unsigned long nr_to_toss;
	unsigned long free_target;
	struct mem_cgroup *memcg;
	bool slab;
	bool (*should_stop)(void *stop_data);
	void *stop_data;
	unsigned int worker;
	unsigned int nr_workers;
	unsigned long nr_scanned;
	unsigned long nr_tossed;
	unsigned long nr_dirty;
	unsigned long nr_writeback;
	unsigned long nr_mapped;
	unsigned long nr_busy;
	unsigned long nr_slab;
	unsigned long nr_too_big;
	unsigned long counted_pfn[TOSS_LEVELS];

	/* private: the coldest level above the walk's, seen by the walk */
	int next_level;
};

int toss_node_lock(int nid, bool (*stop)(void *stop_data), void *stop_data);
void toss_node_unlock(int nid);
void toss_node_wake_all(void);
int toss_node_cache(int nid, struct toss_control *tc);
unsigned int toss_node_workers(int nid);
unsigned long toss_node_free_pages(int nid);

#endif /* _LINUX_TOSS_CACHE_H */
