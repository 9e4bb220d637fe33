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
 * "not page cache" case costs a few loads, and a free block is skipped
 * whole.  A candidate is pinned with folio_try_get(), trylocked (never
 * waiting on I/O) and checked as mapping_evict_folio() checks it, the
 * checks drop_caches makes: not dirty, not under writeback, no extra
 * references (a mapped folio has one per mapping), buffers released.
 * shmem/tmpfs, anonymous and unevictable folios are never candidates, so
 * no data can be lost.
 *
 * Consecutive candidates of one file are removed from the page cache
 * together, as __remove_mapping() removes one: under the inode's i_lock
 * and the i_pages lock, taken once per batch; a folio goes only if its
 * reference count freezes at the expected value and it is still clean.
 * The frozen folios then leave the xarray in one walk, as truncation's
 * folios do.
 * The removed folios are released in batches with folios_put(), which
 * takes the LRU lock once per batch.  No folio stays locked across a
 * reschedule.
 *
 * When only part of the cache is wanted (an amount, or a free memory target
 * for the node), the walk goes by temperature, the LRU's own notion of it:
 * a first pass takes the coldest folios only, and each further pass, only
 * while the toss falls short, also takes those of the next level up.  The
 * levels: old (the inactive list; under MGLRU, the oldest generation) before
 * young (the active list; younger generations), and within each, folios
 * not referenced since they came in before those referenced once, before
 * those referenced more often (under MGLRU: workingset or in a higher
 * tier).  A pass that finds no folio of a higher level is the last.
 *
 * A toss limited to a memcg subtree (scope=cgroup, open to unprivileged
 * owners) does not walk the node: it walks the LRU lists of the subtree's
 * memcgs on the node, oldest first, isolating folios a batch at a time as
 * reclaim does, so that it costs time in proportion to the subtree's own
 * page cache there.
 *
 * A whole toss of a node with several CPUs is shared by several walkers,
 * each taking every n-th stripe of 16 MiB of the node's pfns, so that the
 * time it takes is the node's memory over all of its CPUs.
 *
 * No lock is held across the walk: it reschedules every batch and stops on
 * a fatal signal or when its caller says so.  Walkers of the same node can
 * take turns, first come first served (toss_node_lock()), so that
 * concurrent writers queue up behind one walk instead of piling up in it;
 * a waiter still honours its stop condition.
 *
 * Every node's toss is counted in the node's vmstat (toss_cache_scanned,
 * toss_cache_tossed, in pages) and traced (toss_cache:toss_node_begin and
 * toss_cache:toss_node_end).
 */

#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/memory_hotplug.h>
#include <linux/pagemap.h>
#include <linux/shmem_fs.h>
#include <linux/swap.h>
#include <linux/sched/signal.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/moduleparam.h>
#include <linux/sched/isolation.h>
#include <linux/sizes.h>
#include <linux/toss_cache.h>

#include "internal.h"

#define CREATE_TRACE_POINTS
#include <trace/events/toss_cache.h>

/* pfns looked at between two checks for rescheduling and signals */
#define TOSS_PFN_BATCH	1024
/* widest range of file indices removed from the page cache in one batch */
#define TOSS_INDEX_SPAN	256

/*
 * One walker per node at a time, and the others wait their turn in the
 * order they came: the owner hands the node to the first waiter when it is
 * done.  A waiter sleeps killable, not polling, and gives up its place at
 * once when it is killed or its toss should stop (toss_node_wake_all()
 * makes every waiter look again).
 */
struct toss_node_lock {
	spinlock_t lock;		/* protects @held and @waiters */
	bool held;
	struct list_head waiters;	/* struct toss_waiter, first come first */
};

struct toss_waiter {
	struct list_head list;
	struct task_struct *task;
	bool granted;
};

static struct toss_node_lock *toss_node_locks;	/* [nr_node_ids] */

static int __init toss_cache_init(void)
{
	int nid;

	toss_node_locks = kcalloc(nr_node_ids, sizeof(*toss_node_locks),
				  GFP_KERNEL);
	if (!toss_node_locks)
		return -ENOMEM;
	for (nid = 0; nid < nr_node_ids; nid++) {
		spin_lock_init(&toss_node_locks[nid].lock);
		INIT_LIST_HEAD(&toss_node_locks[nid].waiters);
	}
	return 0;
}
core_initcall(toss_cache_init);

static bool toss_stop(struct toss_control *tc)
{
	return fatal_signal_pending(current) ||
	       (tc->should_stop && tc->should_stop(tc->stop_data));
}

/**
 * toss_node_unlock - end a walker's turn on a node
 * @nid: the node
 *
 * Hands the node to the first waiter of toss_node_lock(), if any.
 *
 * Context: Any context that may take a spinlock.
 */
void toss_node_unlock(int nid)
{
	struct toss_node_lock *nl = &toss_node_locks[nid];
	struct toss_waiter *w;

	spin_lock(&nl->lock);
	w = list_first_entry_or_null(&nl->waiters, struct toss_waiter, list);
	if (w) {
		/* *@w is on the waiter's stack, gone once it sees @granted. */
		struct task_struct *task = get_task_struct(w->task);

		list_del_init(&w->list);
		/* Pairs with the smp_load_acquire()s in toss_node_lock(). */
		smp_store_release(&w->granted, true);
		wake_up_process(task);
		put_task_struct(task);
	} else {
		nl->held = false;
	}
	spin_unlock(&nl->lock);
}

/**
 * toss_node_lock - wait for a walker's turn on a node
 * @nid: the node
 * @stop: if set, called whenever the waiter wakes: true gives up the wait
 * @stop_data: argument of @stop
 *
 * Walkers of one node take turns, first come first served.  The wait is
 * killable and ends as soon as @stop says so; toss_node_wake_all() wakes
 * every waiter to look at @stop again.
 *
 * Context: Process context, may sleep; no locks held.
 * Return: 0 with the node's turn taken, -EINTR on a fatal signal, -ENODEV
 * when @stop ended the wait, -ENOMEM if the locks could not be allocated
 * at boot.
 */
int toss_node_lock(int nid, bool (*stop)(void *stop_data), void *stop_data)
{
	struct toss_node_lock *nl;
	struct toss_waiter w = { .task = current };
	int ret = 0;

	if (!toss_node_locks)
		return -ENOMEM;
	nl = &toss_node_locks[nid];
	spin_lock(&nl->lock);
	if (!nl->held) {
		nl->held = true;
		spin_unlock(&nl->lock);
		return 0;
	}
	list_add_tail(&w.list, &nl->waiters);
	spin_unlock(&nl->lock);

	for (;;) {
		set_current_state(TASK_KILLABLE);
		/* Pairs with the smp_store_release() in toss_node_unlock(). */
		if (smp_load_acquire(&w.granted))
			break;
		if (fatal_signal_pending(current))
			ret = -EINTR;
		else if (stop && stop(stop_data))
			ret = -ENODEV;
		if (ret)
			break;
		schedule();
	}
	__set_current_state(TASK_RUNNING);
	if (!ret)
		return 0;
	spin_lock(&nl->lock);
	/* Pairs with the smp_store_release() in toss_node_unlock(). */
	if (!smp_load_acquire(&w.granted)) {
		list_del(&w.list);
		spin_unlock(&nl->lock);
		return ret;
	}
	spin_unlock(&nl->lock);
	/* Granted while giving up: pass the turn on. */
	toss_node_unlock(nid);
	return ret;
}

/**
 * toss_node_wake_all - make every waiter of toss_node_lock() look again
 *
 * Called when a reason to stop may have come up for some waiters, such as
 * the removal of the cgroup they toss for.
 *
 * Context: Any context that may take a spinlock.
 */
void toss_node_wake_all(void)
{
	struct toss_waiter *w;
	int nid;

	if (!toss_node_locks)
		return;
	for (nid = 0; nid < nr_node_ids; nid++) {
		struct toss_node_lock *nl = &toss_node_locks[nid];

		spin_lock(&nl->lock);
		list_for_each_entry(w, &nl->waiters, list)
			wake_up_process(w->task);
		spin_unlock(&nl->lock);
	}
}

/*
 * How cold is this pinned folio: 0, the coldest, to TOSS_LEVELS - 1.  Old
 * (inactive list, oldest generation) before young, and within each, by
 * how often it was referenced: not since it came in, once, more.
 */
static int toss_folio_level(struct folio *folio)
{
	bool young = folio_test_active(folio), more = false;
	int refs;

#ifdef CONFIG_LRU_GEN
	int gen = folio_lru_gen(folio);

	if (gen >= 0) {
		struct lruvec *lruvec;
		unsigned long seq;

		rcu_read_lock();
		lruvec = folio_lruvec(folio);
		seq = READ_ONCE(lruvec->lrugen.min_seq[LRU_GEN_FILE]);
		young = gen != lru_gen_from_seq(seq);
		rcu_read_unlock();
		more = folio_lru_refs(folio) > 0;
	}
#endif
	if (!folio_test_referenced(folio))
		refs = 0;
	else if (!more && !folio_test_workingset(folio))
		refs = 1;
	else
		refs = 2;
	return young * 3 + refs;
}

/*
 * Pin the folio at @pfn if it looks like clean, unmapped page cache of node
 * @nid, of a level of coldness up to @pass.  The first checks are made
 * without a reference and are only hints; they are made again under the
 * folio lock, as mapping_evict_folio() makes them.
 */
static struct folio *toss_get_folio(struct page *page, unsigned long pfn,
				    int nid, struct toss_control *tc,
				    int pass, bool *count)
{
	struct folio *folio;
	long nr;
	int level;

	/*
	 * Hints from the page's own flags, which are safe to read whatever
	 * the page turns into meanwhile; the folio's are read only once it
	 * is pinned.
	 */
	if (PageTail(page) || !PageLRU(page) || PageAnon(page))
		return NULL;
	if (page_to_nid(page) != nid)
		return NULL;
	folio = page_folio(page);
	if (!folio_try_get(folio))
		return NULL;
	if (unlikely(page_folio(page) != folio || !folio_test_lru(folio) ||
		     folio_test_anon(folio) || folio_test_swapbacked(folio) ||
		     folio_test_unevictable(folio)))
		goto put;
	level = toss_folio_level(folio);
	if (level > pass) {
		/* For a later pass. */
		tc->next_level = min(tc->next_level, level);
		goto put;
	}

	/* An earlier walk of this toss may have counted it already. */
	nr = folio_nr_pages(folio);
	*count = pfn >= tc->counted_pfn[level];
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
 * Folios ready to leave the page cache: pinned, locked, checked, all of one
 * mapping.  They are removed together under one hold of the mapping's
 * locks, and then released together.
 */
struct toss_batch {
	struct address_space *mapping;
	struct folio_batch locked;
	unsigned long count;	/* bit i: count why folio i stayed */
	unsigned long pending;	/* pages in @locked */
	struct folio_batch release;
	bool isolated;		/* the folios were taken off their LRU list */
};

/*
 * Done with a folio that an LRU walk isolated: back on its LRU list if it
 * stays (dropping our reference), or just off the isolated count if it was
 * tossed (the release batch drops our reference and frees it).
 */
static void toss_unisolate(struct folio *folio, bool putback)
{
	node_stat_mod_folio(folio, NR_ISOLATED_FILE, -folio_nr_pages(folio));
	if (putback)
		folio_putback_lru(folio);
}

/* Done with a pinned folio that stays in the page cache. */
static void toss_keep(struct toss_batch *b, struct folio *folio)
{
	if (b->isolated)
		toss_unisolate(folio, true);
	else
		folio_put(folio);
}

/*
 * Lock a pinned folio and check it the way mapping_evict_folio() does.
 * Returns its mapping with the folio locked, or NULL with it unlocked.
 * Why a folio stayed is counted in @tc when @count is set.
 */
static struct address_space *toss_lock_folio(struct folio *folio,
					     struct toss_control *tc,
					     bool count)
{
	struct toss_control dummy = {};	/* counts nobody reads */
	struct address_space *mapping;
	long nr = folio_nr_pages(folio);

	if (!count)
		tc = &dummy;
	if (!folio_trylock(folio)) {
		tc->nr_busy += nr;
		return NULL;
	}
	mapping = folio_mapping(folio);
	/* Truncated, or turned into something else, since we looked. */
	if (!mapping || folio_test_anon(folio) || folio_test_swapbacked(folio) ||
	    shmem_mapping(mapping) || mapping_unevictable(mapping))
		goto unlock;
	if (folio_mapped(folio)) {
		tc->nr_mapped += nr;
		goto unlock;
	}
	if (folio_test_dirty(folio)) {
		tc->nr_dirty += nr;
		goto unlock;
	}
	if (folio_test_writeback(folio)) {
		tc->nr_writeback += nr;
		goto unlock;
	}
	/* Our reference, the page cache's, and one for private data. */
	if (folio_ref_count(folio) > nr + folio_has_private(folio) + 1 ||
	    !filemap_release_folio(folio, 0)) {
		tc->nr_busy += nr;
		goto unlock;
	}
	return mapping;
unlock:
	folio_unlock(folio);
	return NULL;
}

/*
 * Remove the batch's folios from their mapping, as __remove_mapping() does
 * for one: under the inode's i_lock and the i_pages lock, a folio goes only
 * if its references freeze at ours plus the page cache's (nobody else holds
 * it) and it is still clean once frozen.  Taking the locks once per batch,
 * and walking the xarray once per batch, instead of once per folio, is where
 * the walk gains on drop_caches.
 */
static void toss_flush(struct toss_batch *b, struct toss_control *tc)
{
	struct address_space *mapping = b->mapping;
	void (*free_folio)(struct folio *folio);
	struct folio_batch frozen;
	unsigned long gone = 0;
	unsigned int i, n = folio_batch_count(&b->locked);

	if (!n)
		return;
	free_folio = mapping->a_ops->free_folio;
	spin_lock(&mapping->host->i_lock);
	xa_lock_irq(&mapping->i_pages);
	folio_batch_init(&frozen);
	for (i = 0; i < n; i++) {
		struct folio *folio = b->locked.folios[i];
		int refs = 1 + folio_nr_pages(folio);
		unsigned int j;

		if (!folio_ref_freeze(folio, refs))
			continue;
		/* folio_ref_freeze() ordered this test after the count's. */
		if (unlikely(folio_test_dirty(folio))) {
			folio_ref_unfreeze(folio, refs);
			continue;
		}
		gone |= 1UL << i;
		/* In index order, for one walk of the xarray. */
		j = folio_batch_count(&frozen);
		folio_batch_add(&frozen, folio);
		for (; j && frozen.folios[j - 1]->index > folio->index; j--)
			frozen.folios[j] = frozen.folios[j - 1];
		frozen.folios[j] = folio;
	}
	if (folio_batch_count(&frozen))
		__filemap_remove_folios(mapping, &frozen);
	xa_unlock_irq(&mapping->i_pages);
	if (gone && mapping_shrinkable(mapping))
		inode_add_lru(mapping->host);
	spin_unlock(&mapping->host->i_lock);

	for (i = 0; i < n; i++) {
		struct folio *folio = b->locked.folios[i];
		long nr = folio_nr_pages(folio);

		if (gone & (1UL << i)) {
			if (free_folio)
				free_folio(folio);
			folio_ref_unfreeze(folio, 1);
			folio_unlock(folio);
			if (b->isolated) {
				/* Off the LRU: its LRU flags are ours to clear. */
				folio_clear_active(folio);
				toss_unisolate(folio, false);
			}
			tc->nr_tossed += nr;
			/* Our reference is the last: the release batch frees it. */
			if (!folio_batch_add(&b->release, folio))
				folios_put(&b->release);
			continue;
		}
		if (b->count & (1UL << i)) {
			if (folio_test_dirty(folio))
				tc->nr_dirty += nr;
			else
				tc->nr_busy += nr;
		}
		folio_unlock(folio);
		toss_keep(b, folio);
	}
	folio_batch_reinit(&b->locked);
	b->mapping = NULL;
	b->count = 0;
	b->pending = 0;
}

/*
 * Queue a locked folio of @mapping for removal.  A batch spans at most
 * TOSS_INDEX_SPAN pages of the file, so that its walk of the xarray, which
 * steps over what lies between its folios, stays short.
 */
static void toss_queue(struct toss_batch *b, struct folio *folio,
		       struct address_space *mapping, bool count,
		       struct toss_control *tc)
{
	if (b->mapping != mapping ||
	    (folio_batch_count(&b->locked) &&
	     abs_diff(folio->index, b->locked.folios[0]->index) > TOSS_INDEX_SPAN))
		toss_flush(b, tc);
	b->mapping = mapping;
	if (count)
		b->count |= 1UL << folio_batch_count(&b->locked);
	b->pending += folio_nr_pages(folio);
	if (!folio_batch_add(&b->locked, folio))
		toss_flush(b, tc);
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

/*
 * The walk skips what cannot hold page cache for it, without looking at
 * every pfn: the rest of a free block of the buddy allocator, and the tail
 * pages of a compound page it did not take (an anonymous THP, a hugetlb
 * page, a large folio that stays).  The order is read without a lock or a
 * reference, as compaction reads it, and only trusted when it is sane and
 * @pfn is the head of a naturally aligned block; a block freed or
 * allocated meanwhile was of no use to the toss when it was looked at.
 * Returns the pfns to skip after @pfn.
 */
static unsigned long toss_skip(struct page *page, unsigned long pfn)
{
	unsigned long order;

	if (PageBuddy(page)) {
		order = buddy_order_unsafe(page);
		if (order > MAX_PAGE_ORDER)
			return 0;
	} else if (PageHead(page)) {
		order = compound_order(page);
		if (order > MAX_FOLIO_ORDER)
			return 0;
	} else {
		return 0;
	}
	if (!IS_ALIGNED(pfn, 1UL << order))
		return 0;
	return (1UL << order) - 1;
}

/*
 * A pfn without an online page: memory that is not there, offline, or
 * ZONE_DEVICE.  Presence is decided per memory section, and within an
 * online section per subsection: the walk goes on at the next one that may
 * be present.  Returns the pfns to skip after @pfn.
 */
static unsigned long toss_skip_hole(unsigned long pfn)
{
#ifdef CONFIG_SPARSEMEM
	if (!online_section_nr(pfn_to_section_nr(pfn)))
		return SECTION_ALIGN_UP(pfn + 1) - pfn - 1;
	return ALIGN(pfn + 1, PAGES_PER_SUBSECTION) - pfn - 1;
#else
	return 0;
#endif
}

/*
 * The pfns a walk of node @nid covers: those its zones span, but for
 * ZONE_DEVICE, whose memory (persistent memory, device memory) is never
 * page cache that a toss can drop and may be far larger than the node's
 * RAM.
 */
static void toss_node_range(int nid, unsigned long *start,
			    unsigned long *end)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int i;

	*start = ULONG_MAX;
	*end = 0;
	for (i = 0; i < MAX_NR_ZONES; i++) {
		struct zone *zone = &pgdat->node_zones[i];

		if (zone_is_zone_device(zone) || zone_is_empty(zone))
			continue;
		*start = min(*start, zone->zone_start_pfn);
		*end = max(*end, zone_end_pfn(zone));
	}
	if (*start > *end)
		*start = *end;
}

/*
 * Workers a whole toss of one node gets: 0 gives one per CPU of the node
 * that may run them (online, not isolated by isolcpus=, nohz_full= or an
 * isolated cpuset partition); more cannot run at once.  An admin may set
 * fewer, or more for a node without CPUs, whose workers run elsewhere.
 * A small node gets fewer: at least two stripes of TOSS_STRIPE pfns each.
 */
static unsigned int toss_workers_per_node;
module_param_named(workers_per_node, toss_workers_per_node, uint, 0644);
MODULE_PARM_DESC(workers_per_node,
		 "Workers walking one node's pfns for a whole toss (0: one per usable CPU of the node)");

#define TOSS_MAX_WORKERS	64UL

/*
 * The workers of a whole toss share a node stripe by stripe, dealt round
 * robin: a stripe is 16 MiB (or the largest buddy block, if that is
 * larger), aligned, so that no free block and no large folio of the page
 * cache lies across two of them, and small enough that the cache of one
 * job, which the allocator placed in one part of the node, is shared out
 * among all of them.
 */
#define TOSS_STRIPE		max_t(unsigned long, SZ_16M >> PAGE_SHIFT, \
				      MAX_ORDER_NR_PAGES)

/**
 * toss_node_workers - how many workers a whole toss of a node gets
 * @nid: the node
 *
 * Context: Any context.
 * Return: 1 to TOSS_MAX_WORKERS: each walks every n-th stripe of the node
 * (toss_control.worker and toss_control.nr_workers).
 */
unsigned int toss_node_workers(int nid)
{
	unsigned long start, end;
	unsigned int n = READ_ONCE(toss_workers_per_node);
	int cpu;

	if (!n)
		for_each_cpu_and(cpu, cpumask_of_node(nid), cpu_online_mask)
			if (!cpu_is_isolated(cpu) &&
			    housekeeping_cpu(cpu, HK_TYPE_WQ))
				n++;
	toss_node_range(nid, &start, &end);
	n = min3((unsigned long)n, TOSS_MAX_WORKERS,
		 (end - start) / (2 * TOSS_STRIPE));
	return max(n, 1U);
}

/* One walk of the pfns of node @nid from @pfn to @end_pfn. */
static int toss_range(int nid, struct toss_control *tc, int pass,
		      unsigned long pfn, unsigned long end_pfn)
{
	struct toss_batch b = { .mapping = NULL };
	int i, ret = 0;

	BUILD_BUG_ON(PAGEVEC_SIZE > BITS_PER_LONG);
	folio_batch_init(&b.locked);
	folio_batch_init(&b.release);
	while (pfn < end_pfn && tc->nr_tossed < tc->nr_to_toss) {
		unsigned long batch_end = min(end_pfn, pfn + TOSS_PFN_BATCH);
		bool full = false;

		/* The memmap of the batch stays while we look at it. */
		get_online_mems();
		for (; pfn < batch_end && !full; pfn++) {
			struct page *page = pfn_to_online_page(pfn);
			struct address_space *mapping;
			struct folio *folio;
			bool count;

			if (!page) {
				pfn += toss_skip_hole(pfn);
				continue;
			}
			folio = toss_get_folio(page, pfn, nid, tc, pass, &count);
			if (!folio) {
				pfn += toss_skip(page, pfn);
				continue;
			}
			/* Skip the rest of a large folio. */
			pfn = folio_pfn(folio) + folio_nr_pages(folio) - 1;
			/* A partial toss never drops more than it was asked. */
			if (folio_nr_pages(folio) >
			    tc->nr_to_toss - tc->nr_tossed - b.pending) {
				tc->nr_too_big += folio_nr_pages(folio);
				folio_put(folio);
				continue;
			}
			mapping = toss_lock_folio(folio, tc, count);
			if (!mapping) {
				folio_put(folio);
				continue;
			}
			toss_queue(&b, folio, mapping, count, tc);
			full = tc->nr_tossed + b.pending >= tc->nr_to_toss;
		}
		/* No folio stays locked across a reschedule. */
		toss_flush(&b, tc);
		put_online_mems();
		if (folio_batch_count(&b.release))
			folios_put(&b.release);
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
	/* What this walk looked at is counted: later walks skip it. */
	pfn = min(pfn, end_pfn);
	for (i = 0; i <= pass; i++)
		tc->counted_pfn[i] = max(tc->counted_pfn[i], pfn);
	return ret;
}

/*
 * One walk of the node, taking the folios of levels up to @pass: all of
 * its pfns, or this worker's stripes of them.
 */
static int toss_node_pass(int nid, struct toss_control *tc, int pass)
{
	unsigned long start, end, pfn, step;
	int ret = 0;

	toss_node_range(nid, &start, &end);
	if (tc->nr_workers <= 1)
		return toss_range(nid, tc, pass, start, end);
	step = (unsigned long)tc->nr_workers * TOSS_STRIPE;
	pfn = ALIGN_DOWN(start, TOSS_STRIPE) + tc->worker * TOSS_STRIPE;
	for (; pfn < end && !ret && tc->nr_tossed < tc->nr_to_toss; pfn += step)
		ret = toss_range(nid, tc, pass, max(pfn, start),
				 min(pfn + TOSS_STRIPE, end));
	return ret;
}

/*
 * Shrink the node's dentry and inode caches (the super blocks' shrinkers,
 * nothing else: the other NUMA-aware shrinkers split THPs, write to swap or
 * drop refault history), for every memcg of the scope, as drop_caches does
 * for all nodes: again while the last round freed enough to be worth it.
 * The stop condition is looked at after every memcg.
 */
static int toss_node_slab(int nid, struct toss_control *tc)
{
	unsigned long freed;
	int shift = 0;

	do {
		struct mem_cgroup *memcg;

		freed = 0;
		memcg = mem_cgroup_iter(tc->memcg, NULL, NULL);
		do {
			freed += shrink_slab_super(GFP_KERNEL, nid, memcg);
			if (toss_stop(tc)) {
				mem_cgroup_iter_break(tc->memcg, memcg);
				tc->nr_slab += freed;
				return fatal_signal_pending(current) ? -EINTR : -ENODEV;
			}
			cond_resched();
		} while ((memcg = mem_cgroup_iter(tc->memcg, memcg, NULL)));
		tc->nr_slab += freed;
	} while ((freed >> shift++) > 1);
	return 0;
}

/* Folios taken off an LRU list at a time, under one hold of its lock. */
#define TOSS_ISOLATE	32

/*
 * Take up to TOSS_ISOLATE folios off the tail of @src (its oldest end),
 * as isolate_lru_folios() does, onto @dst, looking at no more than *@left
 * pages of it.  Mapped folios stay where they are, rotated to the head.
 */
static void toss_isolate(struct lruvec *lruvec, struct list_head *src,
			 struct list_head *dst, unsigned long *left,
			 struct toss_control *tc, bool count)
{
	unsigned long isolated = 0;
	int n = 0;

	spin_lock_irq(&lruvec->lru_lock);
	while (n < TOSS_ISOLATE && *left && !list_empty(src)) {
		struct folio *folio = lru_to_folio(src);
		long nr = folio_nr_pages(folio);

		*left -= min_t(unsigned long, *left, nr);
		if (count)
			tc->nr_scanned += nr;
		if (folio_mapped(folio)) {
			if (count)
				tc->nr_mapped += nr;
			list_move(&folio->lru, src);
			continue;
		}
		/* As isolate_lru_folios(): a reference, then the LRU flag. */
		if (!folio_try_get(folio)) {
			list_move(&folio->lru, src);
			continue;
		}
		if (!folio_test_clear_lru(folio)) {
			folio_put(folio);
			list_move(&folio->lru, src);
			continue;
		}
		lruvec_del_folio(lruvec, folio);
		list_add_tail(&folio->lru, dst);
		isolated += nr;
		n++;
	}
	__mod_node_page_state(lruvec_pgdat(lruvec), NR_ISOLATED_FILE, isolated);
	spin_unlock_irq(&lruvec->lru_lock);
}

/*
 * Toss what an LRU walk isolated, oldest first, and put the rest back.
 * Returns true when the toss has what it wanted.
 */
static bool toss_isolated(struct list_head *list, struct toss_control *tc,
			  bool count)
{
	struct toss_batch b = { .isolated = true };
	struct folio *folio, *next;
	bool done = false;

	folio_batch_init(&b.locked);
	folio_batch_init(&b.release);
	list_for_each_entry_safe(folio, next, list, lru) {
		struct address_space *mapping = NULL;

		list_del(&folio->lru);
		if (done) {
			toss_unisolate(folio, true);
			continue;
		}
		if (folio_nr_pages(folio) >
		    tc->nr_to_toss - tc->nr_tossed - b.pending) {
			tc->nr_too_big += folio_nr_pages(folio);
		} else if (folio_test_dirty(folio)) {
			if (count)
				tc->nr_dirty += folio_nr_pages(folio);
		} else if (folio_test_writeback(folio)) {
			if (count)
				tc->nr_writeback += folio_nr_pages(folio);
		} else {
			mapping = toss_lock_folio(folio, tc, count);
		}
		if (!mapping) {
			toss_unisolate(folio, true);
			continue;
		}
		toss_queue(&b, folio, mapping, count, tc);
		done = tc->nr_tossed + b.pending >= tc->nr_to_toss;
	}
	toss_flush(&b, tc);
	if (folio_batch_count(&b.release))
		folios_put(&b.release);
	return tc->nr_tossed >= tc->nr_to_toss;
}

/*
 * Walk one LRU list of file folios from its oldest end, looking at as many
 * pages as it held when the walk began: what is put back goes to the
 * other end, and is not looked at again.
 */
static int toss_lru_list(struct lruvec *lruvec, struct list_head *src,
			 unsigned long size, struct toss_control *tc, bool count)
{
	LIST_HEAD(isolated);

	while (size) {
		toss_isolate(lruvec, src, &isolated, &size, tc, count);
		if (list_empty(&isolated))
			break;
		if (toss_isolated(&isolated, tc, count))
			return 0;
		if (toss_stop(tc))
			return fatal_signal_pending(current) ? -EINTR : -ENODEV;
		cond_resched();
	}
	return 0;
}

/* Pages on a memcg's classic LRU list @lru of one node. */
static unsigned long toss_lru_size(struct lruvec *lruvec, enum lru_list lru)
{
	unsigned long size = 0;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		size += mem_cgroup_get_zone_lru_size(lruvec, lru, zid);
	return size;
}

/* The file folios of one memcg on one node, oldest first. */
static int toss_lruvec(struct lruvec *lruvec, struct toss_control *tc,
		       bool count)
{
	int ret = 0, zone;
#ifdef CONFIG_LRU_GEN
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long seq, min_seq, max_seq;

	spin_lock_irq(&lruvec->lru_lock);
	min_seq = lrugen->min_seq[LRU_GEN_FILE];
	max_seq = lrugen->max_seq;
	spin_unlock_irq(&lruvec->lru_lock);
	for (seq = min_seq; seq <= max_seq && !ret; seq++) {
		int gen = lru_gen_from_seq(seq);

		for (zone = 0; zone < MAX_NR_ZONES && !ret; zone++) {
			unsigned long size =
				READ_ONCE(lrugen->nr_pages[gen][LRU_GEN_FILE][zone]);

			if (size > 0)
				ret = toss_lru_list(lruvec,
						    &lrugen->folios[gen][LRU_GEN_FILE][zone],
						    size, tc, count);
			if (tc->nr_tossed >= tc->nr_to_toss)
				return ret;
		}
	}
#endif
	/* The classic lists: empty under MGLRU, but while it is switched. */
	for (zone = LRU_INACTIVE_FILE; zone <= LRU_ACTIVE_FILE && !ret; zone++) {
		ret = toss_lru_list(lruvec, &lruvec->lists[zone],
				    toss_lru_size(lruvec, zone),
				    tc, count);
		if (tc->nr_tossed >= tc->nr_to_toss)
			break;
	}
	return ret;
}

/*
 * A toss limited to @tc->memcg's subtree walks the LRU lists of its memcgs
 * on the node, skipping those that memory.min or memory.low protect
 * against it, as reclaim from it would: the cost is in proportion to the
 * subtree's own page cache on the node, not to the node's size.  It is
 * run by the writer itself.  Each memcg's lists are walked oldest first.
 * Only the first walk of a node in a toss counts what it keeps (later
 * walks would see the same folios again).
 */
static int toss_node_memcg(int nid, struct toss_control *tc)
{
	struct mem_cgroup *memcg;
	bool count = tc->counted_pfn[0] != ULONG_MAX;
	int ret = 0;

	memcg = mem_cgroup_iter(tc->memcg, NULL, NULL);
	do {
		if (memcg != tc->memcg) {
			mem_cgroup_calculate_protection(tc->memcg, memcg);
			if (mem_cgroup_below_min(tc->memcg, memcg) ||
			    mem_cgroup_below_low(tc->memcg, memcg))
				continue;
		}
		ret = toss_lruvec(mem_cgroup_lruvec(memcg, NODE_DATA(nid)), tc,
				  count);
		if (ret || tc->nr_tossed >= tc->nr_to_toss) {
			mem_cgroup_iter_break(tc->memcg, memcg);
			break;
		}
	} while ((memcg = mem_cgroup_iter(tc->memcg, memcg, NULL)));
	tc->counted_pfn[0] = ULONG_MAX;
	return ret;
}

/*
 * Up to @tc->nr_to_toss pages in all: everything in one walk, or coldest
 * first, a walk per level that has folios, while the toss falls short.
 */
static int toss_node_passes(int nid, struct toss_control *tc)
{
	int level = 0, ret;

	if (tc->memcg)
		return toss_node_memcg(nid, tc);
	if (tc->nr_to_toss == ULONG_MAX)
		return toss_node_pass(nid, tc, TOSS_LEVELS - 1);
	do {
		tc->next_level = TOSS_LEVELS;
		ret = toss_node_pass(nid, tc, level);
		level = tc->next_level;
	} while (!ret && tc->nr_tossed < tc->nr_to_toss && level < TOSS_LEVELS);
	return ret;
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
 * The walk stops early, between two batches of pfns, on a fatal signal of
 * the task that runs it (a process tossing in its own context) or when
 * @tc->should_stop says so (how a kernel worker, which gets no signals,
 * learns that the writer it works for was killed or its cgroup removed).
 *
 * Context: Process context, may sleep; no locks held.  A caller that must
 * not pile up with other walkers of the node holds toss_node_lock().
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
	trace_toss_node_begin(tc, nid);
	start = ktime_get_ns();
	ret = __toss_node_cache(nid, tc);
	if (!ret && tc->slab)
		ret = toss_node_slab(nid, tc);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_SCANNED,
			    tc->nr_scanned - scanned);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_TOSSED,
			    tc->nr_tossed - tossed);
	trace_toss_node_end(tc, nid, ktime_get_ns() - start, ret);
	return ret;
}
