/* SPDX-License-Identifier: GPL-2.0 */
#ifndef _LINUX_TOSS_CACHE_H
#define _LINUX_TOSS_CACHE_H

#include <linux/list.h>
#include <linux/types.h>

/* Levels of coldness a partial toss goes by, coldest first. */
#define TOSS_LEVELS	6

struct cpumask;
struct mem_cgroup;

/**
 * struct toss_control - one walker's share of a page cache toss of a node
 * @cgroup_id: the cgroup the toss was asked for, for tracing
 * @nr_to_toss: pages to toss at most; ULONG_MAX tosses all that can be
 * @memcg: if set, only page cache charged to this memory cgroup or its
 *	descendants is tossed, by a walk of their LRU lists, and no more of
 *	a descendant's than lies above its memory.min and memory.low
 *	protection against @memcg
 * @slab: also shrink the node's dentry and inode caches, through the super
 *	blocks' shrinkers only (of @memcg's subtree when set)
 * @should_stop: if set, called between batches: true ends the toss early
 *	with -ENODEV (the cgroup it was for is going away, say)
 * @stop_data: argument of @should_stop
 * @worker: which of @nr_workers walkers of the node this is, from 0
 * @nr_workers: walkers sharing a walk of the node's page frames, each
 *	taking every @nr_workers-th stripe of them (0 or 1: this one walks
 *	them all)
 * @start_pfn: first page frame of the node to walk (set by the caller,
 *	once for all the node's walkers)
 * @end_pfn: the page frame after the last one to walk
 * @count_only: a counting walk: toss nothing, add up in @levels the pages
 *	of each level of coldness that could be tossed
 * @level: the coldest-first cutoff of a tossing walk of part of the node:
 *	folios of levels below it go while @nr_to_toss allows, those of
 *	@level only up to @level_left pages (TOSS_LEVELS - 1 and ULONG_MAX
 *	for a whole toss)
 * @level_left: pages of level @level this walk may still toss
 * @levels: with @count_only, pages of each level that could be tossed
 * @last_pfn: with @count_only, the page frame after the last one of each
 *	level that could be tossed
 * @stop_pfn: a tossing walk whose cutoff level gave all it may ends
 *	here: nothing colder lies beyond (from @last_pfn)
 * @cut_failed: pages of the cutoff level that a tossing walk took but
 *	could not drop (locked, in use, dirtied meanwhile)
 * @resume_pfn: the first folio of the cutoff level a tossing walk left
 *	for want of budget, 0 if none
 * @counted: an LRU walk (@memcg) of this node in this toss counted why
 *	folios stayed: later ones do not count them again
 * @nr_scanned: file folios on the LRU looked at, in pages
 * @nr_tossed: pages dropped from the page cache and freed
 * @nr_dirty: pages skipped because they were dirty
 * @nr_writeback: pages skipped because they were under writeback
 * @nr_mapped: pages skipped because they were mapped by a process
 * @nr_busy: pages skipped because they were locked, pinned or in use
 * @nr_slab: slab objects freed (with @slab)
 * @nr_too_big: pages of folios left because they were bigger than what was
 *	left to toss
 * @nr_walks: walks of the node's page frames made
 * @max_hold: the most folios an LRU walk looked at under one hold of an
 *	LRU lock
 *
 * The caller sets everything above @nr_scanned and zeroes the counters;
 * toss_node_cache() adds to them.  A toss of part of a node costs at most
 * two walks of it: a counting walk, then a tossing walk whose @level and
 * @level_left come from the counting walk's @levels.  Only the counting
 * walk counts why pages stayed, so that each page is counted once.
 */
struct toss_control {
	u64 cgroup_id;
	unsigned long nr_to_toss;
	struct mem_cgroup *memcg;
	bool slab;
	bool (*should_stop)(void *stop_data);
	void *stop_data;
	unsigned int worker;
	unsigned int nr_workers;
	unsigned long start_pfn;
	unsigned long end_pfn;
	bool count_only;
	int level;
	unsigned long level_left;
	unsigned long levels[TOSS_LEVELS];
	unsigned long last_pfn[TOSS_LEVELS];
	unsigned long stop_pfn;
	unsigned long cut_failed;
	unsigned long resume_pfn;
	bool counted;
	unsigned long nr_scanned;
	unsigned long nr_tossed;
	unsigned long nr_dirty;
	unsigned long nr_writeback;
	unsigned long nr_mapped;
	unsigned long nr_busy;
	unsigned long nr_slab;
	unsigned long nr_too_big;
	unsigned int nr_walks;
	unsigned int max_hold;
};

/**
 * struct toss_turn - a place in the queue for one node's turn
 * @list: in the node's queue of waiters, first come first
 * @granted: the turn was handed to this waiter
 *
 * Zeroed by the caller; it must stay in place from toss_node_turn_queue()
 * until toss_node_turn_wait() returns (or until the turn is ended, when
 * toss_node_turn_queue() granted it at once).
 */
struct toss_turn {
	struct list_head list;
	bool granted;
};

bool toss_node_turn_queue(int nid, struct toss_turn *turn);
int toss_node_turn_wait(int nid, struct toss_turn *turn,
			bool (*stop)(void *stop_data), void *stop_data);
void toss_node_turn_end(int nid);
void toss_node_wake_all(void);
int toss_node_cache(int nid, struct toss_control *tc);
void toss_node_range(int nid, unsigned long *start, unsigned long *end);
unsigned int toss_node_workers(int nid, const struct cpumask *cpus);
unsigned long toss_node_free_pages(int nid);

#endif /* _LINUX_TOSS_CACHE_H */
