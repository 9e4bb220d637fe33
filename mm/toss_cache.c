// SPDX-License-Identifier: GPL-2.0
/*
 * Drop the clean, unmapped page cache of one NUMA node.
 *
 * This is the engine behind cpuset.memory_toss_cache.  It must be exact to
 * the node (nothing on other nodes is touched), cheap in proportion to the
 * node's memory rather than to the machine's page cache, and it must never
 * lose data.
 *
 * Why a walk of the node's page frames, and not one of the existing paths:
 *
 * - drop_caches walks every inode of every superblock: its cost grows with
 *   the machine's whole page cache, and it cannot be told about nodes.
 * - Reclaim through shrink_node() with may_unmap = 0 would keep mapped
 *   pages, but in 6.12 lru_gen_shrink_node() returns at once when
 *   !may_unmap, so with MGLRU enabled it frees nothing; it also ages the
 *   LRU lists and may write back or swap depending on the scan_control.
 * - Walking the node's LRU lists needs the LRU lock held across isolation
 *   and differs between the classic LRU and MGLRU.
 *
 * A walk of the node's pfns, as mm/damon/paddr.c walks physical ranges,
 * sees every folio of the node exactly once whatever the LRU flavour.  For
 * each pfn the folio flags are looked at without a reference, so the common
 * "not page cache" case costs a few loads.  A candidate is pinned with
 * folio_try_get(), trylocked (never waiting on I/O) and handed to
 * mapping_evict_folio(), which makes the same checks drop_caches makes:
 * not dirty, not under writeback, no extra references (a mapped folio has
 * one per mapping), buffers released.  shmem/tmpfs, anonymous and
 * unevictable folios are never candidates, so no data can be lost.
 *
 * Evicted folios are released in batches with folios_put(), which takes
 * the LRU lock once per batch instead of once per folio: that is what lets
 * the walk keep up with drop_caches on the same data.
 *
 * When only part of the cache is wanted (an amount, or a free memory target
 * for the node), a first pass takes the folios that are neither active nor
 * referenced, and only if that falls short a second pass takes the rest, so
 * that a partial toss drops the coldest cache first.
 *
 * No lock is held across the walk: it reschedules every batch and stops on
 * a fatal signal.  Tosses of the same node are serialized by a per-node
 * mutex, so that concurrent writers queue up behind one walk instead of
 * piling up in it; a waiter still honours its stop condition.
 *
 * Every node's toss is counted in the node's vmstat (toss_cache_scanned,
 * toss_cache_tossed, in pages) and traced (toss_cache:toss_node_begin and
 * toss_cache:toss_node_end).
 */

#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/memory_hotplug.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <linux/sched/signal.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/toss_cache.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/toss_cache.h>

/* pfns looked at between two checks for rescheduling and signals */
#define TOSS_PFN_BATCH	1024

/* One walker per node at a time. */
static struct mutex toss_node_mutex[MAX_NUMNODES];

static int __init toss_cache_init(void)
{
	int nid;

	for (nid = 0; nid < MAX_NUMNODES; nid++)
		mutex_init(&toss_node_mutex[nid]);
	return 0;
}
core_initcall(toss_cache_init);

static bool toss_stop(struct toss_control *tc)
{
	return fatal_signal_pending(current) ||
	       (tc->should_stop && tc->should_stop(tc->stop_data));
}

/* Take the node's mutex, or give up when the toss should stop. */
static int toss_lock_node(int nid, struct toss_control *tc)
{
	while (!mutex_trylock(&toss_node_mutex[nid])) {
		if (toss_stop(tc))
			return fatal_signal_pending(current) ? -EINTR : -ENODEV;
		schedule_timeout_uninterruptible(msecs_to_jiffies(5));
	}
	return 0;
}

enum toss_pass {
	TOSS_PASS_ALL,		/* everything, in one pass */
	TOSS_PASS_COLD,		/* first pass: inactive, unreferenced folios */
	TOSS_PASS_REST,		/* second pass: what the first one left */
};

/*
 * Is @memcg in the scope of @target: a descendant (or itself), and not
 * protected against it by memory.min or memory.low, the way reclaim from
 * @target would respect them?  Protection is computed top-down along the
 * path from @target, as an isolated query needs.
 */
static bool toss_memcg_in_scope(struct mem_cgroup *target,
				struct mem_cgroup *memcg)
{
	struct mem_cgroup *pos;
	int depth, d;

	if (!memcg || !mem_cgroup_is_descendant(memcg, target))
		return false;
	if (memcg == target)
		return true;
	for (depth = 0, pos = memcg; pos != target; pos = parent_mem_cgroup(pos))
		depth++;
	for (; depth > 0; depth--) {
		for (d = 1, pos = memcg; d < depth; d++)
			pos = parent_mem_cgroup(pos);
		mem_cgroup_calculate_protection(target, pos);
	}
	return !mem_cgroup_below_min(target, memcg) &&
	       !mem_cgroup_below_low(target, memcg);
}

/* With a memcg scope: is this pinned folio's charge in it? */
static bool toss_folio_in_scope(struct folio *folio, struct toss_control *tc)
{
	struct mem_cgroup *memcg;
	bool ret;

	if (!tc->memcg)
		return true;
	rcu_read_lock();
	memcg = folio_memcg(folio);
	if (memcg != tc->last_memcg) {
		tc->last_memcg = memcg;
		tc->last_in_scope = toss_memcg_in_scope(tc->memcg, memcg);
	}
	ret = tc->last_in_scope;
	rcu_read_unlock();
	return ret;
}

/*
 * Pin the folio at @pfn if it looks like clean, unmapped page cache of node
 * @nid (in @tc's memcg scope, if any).  The first checks are made without a
 * reference and are only hints; they are made again under the folio lock by
 * mapping_evict_folio().
 */
static struct folio *toss_get_folio(unsigned long pfn, int nid,
				    struct toss_control *tc,
				    enum toss_pass pass, bool *count)
{
	struct page *page = pfn_to_online_page(pfn);
	struct folio *folio;
	long nr;
	bool hot;

	if (!page || PageTail(page))
		return NULL;
	folio = page_folio(page);
	if (!folio_test_lru(folio) || folio_test_anon(folio) ||
	    folio_test_swapbacked(folio) || folio_test_unevictable(folio))
		return NULL;
	if (folio_nid(folio) != nid)
		return NULL;
	hot = folio_test_active(folio) || folio_test_referenced(folio);
	if (pass == TOSS_PASS_COLD && hot)
		return NULL;

	if (!folio_try_get(folio))
		return NULL;
	if (unlikely(page_folio(page) != folio || !folio_test_lru(folio)))
		goto put;
	/* Out of a memcg scope: not ours to look at, nor to count. */
	if (!toss_folio_in_scope(folio, tc))
		goto put;

	/* The second pass counts only what the first one did not see. */
	nr = folio_nr_pages(folio);
	*count = pass != TOSS_PASS_REST || hot;
	if (*count)
		tc->nr_scanned += nr;
	if (folio_test_dirty(folio)) {
		if (*count)
			tc->nr_dirty += nr;
		goto put;
	}
	if (folio_test_writeback(folio)) {
		if (*count)
			tc->nr_writeback += nr;
		goto put;
	}
	if (folio_mapped(folio)) {
		if (*count)
			tc->nr_mapped += nr;
		goto put;
	}
	return folio;
put:
	folio_put(folio);
	return NULL;
}

/*
 * Try to evict a pinned folio; returns the number of pages dropped.  Why a
 * folio stayed is counted in @tc when @count is set.
 */
static long toss_folio(struct folio *folio, struct toss_control *tc,
		       bool count)
{
	struct toss_control dummy = {};	/* counts nobody reads */
	struct address_space *mapping;
	long nr = 0;

	if (!count)
		tc = &dummy;
	if (!folio_trylock(folio)) {
		tc->nr_busy += folio_nr_pages(folio);
		return 0;
	}
	mapping = folio_mapping(folio);
	/* Truncated, or turned into something else, since we looked. */
	if (!mapping || folio_test_anon(folio) || folio_test_swapbacked(folio) ||
	    shmem_mapping(mapping) || mapping_unevictable(mapping))
		goto unlock;
	if (folio_mapped(folio)) {
		tc->nr_mapped += folio_nr_pages(folio);
		goto unlock;
	}
	if (folio_test_dirty(folio) || folio_test_writeback(folio)) {
		if (folio_test_dirty(folio))
			tc->nr_dirty += folio_nr_pages(folio);
		else
			tc->nr_writeback += folio_nr_pages(folio);
		goto unlock;
	}
	nr = mapping_evict_folio(mapping, folio);
	if (!nr)
		tc->nr_busy += folio_nr_pages(folio);
unlock:
	folio_unlock(folio);
	return nr;
}

/**
 * toss_node_free_pages - free pages of a node
 * @nid: the node
 *
 * Pages freed a moment ago may still sit on the per-CPU page lists, which
 * NR_FREE_PAGES does not count: drain them first.
 *
 * Context: Process context, may sleep.
 * Return: the number of free pages in all zones of node @nid.
 */
unsigned long toss_node_free_pages(int nid)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int i;

	for (i = 0; i < MAX_NR_ZONES; i++)
		if (populated_zone(&pgdat->node_zones[i]))
			drain_all_pages(&pgdat->node_zones[i]);
	return sum_zone_node_page_state(nid, NR_FREE_PAGES);
}

static int toss_node_pass(int nid, struct toss_control *tc,
			  enum toss_pass pass)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	unsigned long pfn = pgdat->node_start_pfn;
	unsigned long end_pfn = pgdat_end_pfn(pgdat);
	struct folio_batch fbatch;
	int ret = 0;

	folio_batch_init(&fbatch);
	while (pfn < end_pfn && tc->nr_tossed < tc->nr_to_toss) {
		unsigned long batch_end = min(end_pfn, pfn + TOSS_PFN_BATCH);

		/* Protection may change: look again every batch. */
		tc->last_memcg = NULL;

		for (; pfn < batch_end; pfn++) {
			struct folio *folio;
			bool count;
			long nr;

			folio = toss_get_folio(pfn, nid, tc, pass, &count);
			if (!folio)
				continue;
			/* A partial toss never drops more than it was asked. */
			if (folio_nr_pages(folio) > tc->nr_to_toss - tc->nr_tossed) {
				folio_put(folio);
				continue;
			}
			nr = toss_folio(folio, tc, count);
			/* Skip the rest of a large folio. */
			pfn = folio_pfn(folio) + folio_nr_pages(folio) - 1;
			if (!nr) {
				folio_put(folio);
				continue;
			}
			tc->nr_tossed += nr;
			/* Our reference is the last: the batch frees it. */
			if (!folio_batch_add(&fbatch, folio))
				folios_put(&fbatch);
			if (tc->nr_tossed >= tc->nr_to_toss)
				break;
		}
		if (folio_batch_count(&fbatch))
			folios_put(&fbatch);
		if (fatal_signal_pending(current)) {
			ret = -EINTR;
			break;
		}
		if (tc->should_stop && tc->should_stop(tc->stop_data)) {
			ret = -ENODEV;
			break;
		}
		cond_resched();
	}
	if (folio_batch_count(&fbatch))
		folios_put(&fbatch);
	return ret;
}

/*
 * Shrink the node's reclaimable slab through the NUMA-aware shrinkers, for
 * every memcg (of the scope, if any), as drop_caches does for all nodes:
 * again while the last round freed enough to be worth it.
 */
static void toss_node_slab(int nid, struct toss_control *tc)
{
	unsigned long freed;
	int shift = 0;

	do {
		struct mem_cgroup *memcg;

		freed = 0;
		memcg = mem_cgroup_iter(tc->memcg, NULL, NULL);
		do {
			freed += shrink_slab_numa_aware(GFP_KERNEL, nid, memcg, 0);
			cond_resched();
		} while ((memcg = mem_cgroup_iter(tc->memcg, memcg, NULL)));
		tc->nr_slab += freed;
	} while ((freed >> shift++) > 1 && !toss_stop(tc));
}

/* One or two passes over the node, up to @tc->nr_to_toss in all. */
static int toss_node_passes(int nid, struct toss_control *tc)
{
	int ret;

	if (tc->nr_to_toss == ULONG_MAX)
		return toss_node_pass(nid, tc, TOSS_PASS_ALL);
	ret = toss_node_pass(nid, tc, TOSS_PASS_COLD);
	if (ret || tc->nr_tossed >= tc->nr_to_toss)
		return ret;
	return toss_node_pass(nid, tc, TOSS_PASS_REST);
}

/* The toss proper: see toss_node_cache(). */
static int __toss_node_cache(int nid, struct toss_control *tc)
{
	unsigned long cap = tc->nr_to_toss, free, before;
	int ret, tries = 0;

	if (!tc->free_target)
		return toss_node_passes(nid, tc);
	/*
	 * A free memory target becomes the number of pages the node lacks.
	 * Others allocate meanwhile: look again after each toss, a few times.
	 */
	do {
		free = toss_node_free_pages(nid);
		if (free >= tc->free_target)
			return 0;
		before = tc->nr_tossed;
		tc->nr_to_toss = min(cap - before, tc->free_target - free) + before;
		ret = toss_node_passes(nid, tc);
	} while (!ret && tc->nr_tossed > before && tc->nr_tossed < cap &&
		 ++tries < 4);
	return ret;
}

/**
 * toss_node_cache - drop clean, unmapped page cache from one node
 * @nid: the node whose page cache is dropped
 * @tc: how much to drop and where the counts go
 *
 * Drops up to @tc->nr_to_toss pages of clean, unmapped page cache whose
 * memory is on node @nid, and, when @tc->free_target is set, no more than
 * the node lacks to have that many pages free when the toss starts;
 * coldest first when the amount or the free target limits the toss.  Dirty,
 * writeback, mapped, shmem/tmpfs, anonymous and unevictable memory is never
 * touched, nor is memory on any other node.  The caller should have drained
 * the per-CPU LRU caches with lru_add_drain_all() first.
 *
 * Context: Process context, may sleep; no locks held.  Takes the node's
 * toss mutex for the walk: tosses of one node run one after the other.
 * Return: 0, -EINTR if a fatal signal cut the walk short, or -ENODEV if
 * @tc->should_stop did.  What was tossed so far is in @tc either way.
 */
int toss_node_cache(int nid, struct toss_control *tc)
{
	unsigned long scanned = tc->nr_scanned, tossed = tc->nr_tossed;
	u64 start;
	int ret;

	if (!node_state(nid, N_MEMORY))
		return 0;
	ret = toss_lock_node(nid, tc);
	if (ret)
		return ret;
	trace_toss_node_begin(tc, nid);
	start = ktime_get_ns();
	ret = __toss_node_cache(nid, tc);
	if (!ret && tc->slab)
		toss_node_slab(nid, tc);
	mutex_unlock(&toss_node_mutex[nid]);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_SCANNED,
			    tc->nr_scanned - scanned);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_TOSSED,
			    tc->nr_tossed - tossed);
	trace_toss_node_end(tc, nid, ktime_get_ns() - start, ret);
	return ret;
}
