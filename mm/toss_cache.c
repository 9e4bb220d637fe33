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
 * - A node's LRU lists are per memcg: a walk of all of them would cost the
 *   node's whole LRU, under locks shared with reclaim and faults, and it
 *   would differ between the classic LRU and MGLRU.
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
 * for the node), the coldest goes first, by the LRU's own notion of
 * temperature, in two walks of the node at most: a counting walk adds up
 * the pages that could be tossed at each level of coldness, and a tossing
 * walk then takes every level below the one where the amount is reached,
 * and of that level only what is still wanted.  The levels: old (the
 * inactive list; under MGLRU, the oldest generation) before young (the
 * active list; younger generations), and within each, folios not
 * referenced since they came in before those referenced once, before those
 * referenced more often (under MGLRU: workingset or in a higher tier).
 *
 * A toss limited to a memcg subtree (scope=cgroup, open to unprivileged
 * owners) does not walk the node: it walks the file LRU lists of the
 * subtree's memcgs on the node, oldest first, so that it costs time in
 * proportion to the subtree's own page cache there.  As reclaim does, it
 * looks at a bounded number of folios per hold of the LRU lock (whatever
 * it keeps), leaves the folios it keeps where they were (same list, same
 * generation and tier), and takes from each memcg only what lies above
 * its memory.min and memory.low protection; a toss of an amount takes from
 * the memcgs in proportion to their cache on the node.
 *
 * A whole toss of a node with several CPUs is shared by several walkers,
 * each taking every n-th stripe of 16 MiB of the node's pfns, so that the
 * time it takes is the node's memory over all of its CPUs.
 *
 * No lock is held across the walk: it reschedules every batch and stops on
 * any signal, as memory.reclaim does, or when its caller says so.  Walkers
 * of the same node can take turns, first come first served
 * (toss_node_turn_queue()), so that concurrent writers queue up behind one
 * walk instead of piling up in it; a waiter still honours its stop
 * condition and signals, and does not keep the freezer waiting.
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
 * done.  A place in the queue is taken without sleeping
 * (toss_node_turn_queue()), so that a writer can queue up for all its
 * nodes at once, in node order, and then wait for each separately, in
 * whatever context will walk it.  A waiter sleeps interruptible and
 * freezable, not polling, and gives up its place at once on a signal or
 * when its toss should stop (toss_node_wake_all() makes every waiter look
 * again).
 */
struct toss_node_lock {
	spinlock_t lock;		/* protects @held and @waiters */
	bool held;
	struct list_head waiters;	/* struct toss_turn, first come first */
	wait_queue_head_t wq;		/* the waiters sleep here */
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
		init_waitqueue_head(&toss_node_locks[nid].wq);
	}
	return 0;
}
core_initcall(toss_cache_init);

/* 0 to go on, -EINTR on a signal, -ENODEV when the caller says stop. */
static int toss_stopped(struct toss_control *tc)
{
	if (signal_pending(current))
		return -EINTR;
	if (tc->should_stop && tc->should_stop(tc->stop_data))
		return -ENODEV;
	return 0;
}

/**
 * toss_node_turn_end - end a walker's turn on a node
 * @nid: the node
 *
 * Hands the node to the first waiter of toss_node_turn_queue(), if any.
 *
 * Context: Process context.
 */
void toss_node_turn_end(int nid)
{
	struct toss_node_lock *nl = &toss_node_locks[nid];
	struct toss_turn *t;

	spin_lock(&nl->lock);
	t = list_first_entry_or_null(&nl->waiters, struct toss_turn, list);
	if (t) {
		list_del_init(&t->list);
		/* Pairs with the smp_load_acquire()s in toss_node_turn_wait(). */
		smp_store_release(&t->granted, true);
	} else {
		nl->held = false;
	}
	spin_unlock(&nl->lock);
	if (t)
		wake_up_all(&nl->wq);
}

/**
 * toss_node_turn_queue - take a place in a node's queue of walkers
 * @nid: the node
 * @turn: the place, zeroed; it must stay until the turn has been waited
 *	for with toss_node_turn_wait(), or, if granted at once, ended
 *
 * Never sleeps, so that a writer can queue for several nodes at once and
 * wait for each of them separately, holding none while it waits.
 *
 * Context: Process context.
 * Return: true when the node was free and the turn is taken (@turn->granted
 * is set); false when @turn waits behind others, or when the node locks
 * could not be allocated at boot (toss_node_turn_wait() then says so).
 */
bool toss_node_turn_queue(int nid, struct toss_turn *turn)
{
	struct toss_node_lock *nl;

	INIT_LIST_HEAD(&turn->list);
	turn->granted = false;
	if (!toss_node_locks)
		return false;
	nl = &toss_node_locks[nid];
	spin_lock(&nl->lock);
	if (!nl->held) {
		nl->held = true;
		turn->granted = true;
	} else {
		list_add_tail(&turn->list, &nl->waiters);
	}
	spin_unlock(&nl->lock);
	return turn->granted;
}

/**
 * toss_node_turn_wait - wait for a place of toss_node_turn_queue() to come up
 * @nid: the node
 * @turn: the place
 * @stop: if set, called whenever the waiter wakes: true gives up the wait
 * @stop_data: argument of @stop
 *
 * The wait is interruptible by any signal and freezable, and ends as soon
 * as @stop says so; toss_node_wake_all() wakes every waiter to look at
 * @stop again.  A waiter that gives up leaves the queue, or, if the turn
 * came meanwhile, passes it on.
 *
 * Context: Process context, may sleep; no locks held.
 * Return: 0 with the node's turn taken, -EINTR on a signal, -ENODEV when
 * @stop ended the wait, -ENOMEM if the locks could not be allocated at
 * boot.
 */
int toss_node_turn_wait(int nid, struct toss_turn *turn,
			bool (*stop)(void *stop_data), void *stop_data)
{
	struct toss_node_lock *nl;
	DEFINE_WAIT(wait);
	int ret = 0;

	if (!toss_node_locks)
		return -ENOMEM;
	nl = &toss_node_locks[nid];
	for (;;) {
		prepare_to_wait(&nl->wq, &wait, TASK_INTERRUPTIBLE | TASK_FREEZABLE);
		/* Pairs with the smp_store_release() in toss_node_turn_end(). */
		if (smp_load_acquire(&turn->granted))
			break;
		if (signal_pending(current))
			ret = -EINTR;
		else if (stop && stop(stop_data))
			ret = -ENODEV;
		if (ret)
			break;
		schedule();
	}
	finish_wait(&nl->wq, &wait);
	if (!ret)
		return 0;
	spin_lock(&nl->lock);
	/* Pairs with the smp_store_release() in toss_node_turn_end(). */
	if (!smp_load_acquire(&turn->granted)) {
		list_del(&turn->list);
		spin_unlock(&nl->lock);
		return ret;
	}
	spin_unlock(&nl->lock);
	/* Granted while giving up: pass the turn on. */
	toss_node_turn_end(nid);
	return ret;
}

/**
 * toss_node_wake_all - make every waiter of toss_node_turn_wait() look again
 *
 * Called when a reason to stop may have come up for some waiters, such as
 * the removal of the cgroup they toss for, or a writer whose workers wait
 * for their turns being interrupted.
 *
 * Context: Process context.
 */
void toss_node_wake_all(void)
{
	int nid;

	if (!toss_node_locks)
		return;
	for (nid = 0; nid < nr_node_ids; nid++)
		wake_up_all(&toss_node_locks[nid].wq);
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
		/*
		 * No RCU needed: the pinned folio keeps its memcg charged
		 * (and the memcg pinned), and our reference keeps migration
		 * from moving the charge.
		 */
		struct lruvec *lruvec = folio_lruvec(folio);
		unsigned long seq = READ_ONCE(lruvec->lrugen.min_seq[LRU_GEN_FILE]);

		young = gen != lru_gen_from_seq(seq);
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

/* Whether this walk counts why pages stay: a whole toss, or a counting walk. */
static bool toss_counts(const struct toss_control *tc)
{
	return tc->count_only || tc->nr_to_toss == ULONG_MAX;
}

/*
 * Pin the folio at @pfn if it looks like clean, unmapped page cache of node
 * @nid, of a level of coldness up to @tc->level, and say which level in
 * *@level.  The first checks are made without a reference and are only
 * hints; they are made again under the folio lock, as mapping_evict_folio()
 * makes them.  A counting walk adds the folio to @tc->levels and pins
 * nothing.  When a pinned folio is left, *@skip says how many pfns after
 * @pfn it covers (read under the reference, so exact).
 */
static struct folio *toss_get_folio(struct page *page, unsigned long pfn,
				    int nid, struct toss_control *tc,
				    int *level, unsigned long *skip)
{
	bool count = toss_counts(tc);
	struct folio *folio;
	long nr;

	*skip = 0;
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
	if (unlikely(page_folio(page) != folio))
		goto put;
	nr = folio_nr_pages(folio);
	*skip = folio_pfn(folio) + nr - 1 - pfn;
	if (unlikely(!folio_test_lru(folio) || folio_test_anon(folio) ||
		     folio_test_swapbacked(folio) ||
		     folio_test_unevictable(folio)))
		goto put;
	if (count)
		tc->nr_scanned += nr;
	if (folio_test_dirty(folio)) {
		if (count)
			tc->nr_dirty += nr;
		goto put;
	}
	if (folio_test_writeback(folio)) {
		if (count)
			tc->nr_writeback += nr;
		goto put;
	}
	if (folio_mapped(folio)) {
		if (count)
			tc->nr_mapped += nr;
		goto put;
	}
	/* Only a folio that could go needs its level. */
	*level = toss_folio_level(folio);
	if (*level > tc->level)
		goto put;
	if (tc->count_only) {
		/* What the tossing walk will find locked or in use. */
		if (folio_test_locked(folio) ||
		    folio_ref_count(folio) > nr + folio_has_private(folio) + 1) {
			tc->nr_busy += nr;
		} else {
			tc->levels[*level] += nr;
			tc->last_pfn[*level] = pfn + *skip + 1;
		}
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
	unsigned long budget;	/* bit i: folio i is in a cutoff's budget */
	unsigned long cut;	/* bit i: folio i is of the cutoff level */
	unsigned long pending;	/* pages in @locked */
	struct folio_batch release;
	bool isolated;		/* the folios were taken off their LRU list */
	int gen;		/* of that list, under MGLRU; else -1 */
};

/*
 * Back on its LRU list, a folio an LRU walk isolated and keeps, where it
 * was: under MGLRU in the generation it was taken from (or the oldest, if
 * that one is gone meanwhile), with its tier, not promoted as
 * folio_putback_lru() would promote it; at the young end of the list, as
 * isolate_lru_folios() rotates the folios it cannot take.  Drops our
 * reference.
 */
static void toss_putback(struct folio *folio, int gen)
{
#ifdef CONFIG_LRU_GEN
	struct lru_gen_folio *lrugen;
	struct lruvec *lruvec;
	unsigned long seq;

	if (gen < 0)
		goto putback;
	/*
	 * Off the LRU, the folio cannot move to another lruvec: what
	 * folio_lruvec_lock_irq() does, with the lock taken here, where
	 * sparse sees it.
	 */
	lruvec = folio_lruvec(folio);
	spin_lock_irq(&lruvec->lru_lock);
	lrugen = &lruvec->lrugen;
	if (!lrugen->enabled || folio_test_unevictable(folio) ||
	    !folio_is_file_lru(folio)) {
		spin_unlock_irq(&lruvec->lru_lock);
		goto putback;
	}
	for (seq = lrugen->min_seq[LRU_GEN_FILE]; seq <= lrugen->max_seq; seq++)
		if (lru_gen_from_seq(seq) == gen)
			break;
	if (seq > lrugen->max_seq)
		gen = lru_gen_from_seq(lrugen->min_seq[LRU_GEN_FILE]);
	/* lru_gen_del_folio() set PG_active for the young generations. */
	set_mask_bits(&folio->flags, LRU_GEN_MASK | BIT(PG_active),
		      (gen + 1UL) << LRU_GEN_PGOFF);
	lru_gen_update_size(lruvec, folio, -1, gen);
	list_add(&folio->lru,
		 &lrugen->folios[gen][LRU_GEN_FILE][folio_zonenum(folio)]);
	folio_set_lru(folio);
	spin_unlock_irq(&lruvec->lru_lock);
	folio_put(folio);
	return;
putback:
#endif
	folio_putback_lru(folio);
}

/*
 * Done with a folio that an LRU walk isolated: back on its LRU list if it
 * stays (dropping our reference), or just off the isolated count if it was
 * tossed (the release batch drops our reference and frees it).
 */
static void toss_unisolate(struct folio *folio, bool putback, int gen)
{
	node_stat_mod_folio(folio, NR_ISOLATED_FILE, -folio_nr_pages(folio));
	if (putback)
		toss_putback(folio, gen);
}

/* Done with a pinned folio that stays in the page cache. */
static void toss_keep(struct toss_batch *b, struct folio *folio)
{
	if (b->isolated)
		toss_unisolate(folio, true, b->gen);
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
	struct address_space *mapping;
	long nr = folio_nr_pages(folio);

	if (!folio_trylock(folio)) {
		if (count)
			tc->nr_busy += nr;
		return NULL;
	}
	mapping = folio_mapping(folio);
	/* Truncated, or turned into something else, since we looked. */
	if (!mapping || folio_test_anon(folio) || folio_test_swapbacked(folio) ||
	    shmem_mapping(mapping) || mapping_unevictable(mapping))
		goto unlock;
	if (folio_mapped(folio)) {
		if (count)
			tc->nr_mapped += nr;
		goto unlock;
	}
	if (folio_test_dirty(folio)) {
		if (count)
			tc->nr_dirty += nr;
		goto unlock;
	}
	if (folio_test_writeback(folio)) {
		if (count)
			tc->nr_writeback += nr;
		goto unlock;
	}
	/* Our reference, the page cache's, and one for private data. */
	if (folio_ref_count(folio) > nr + folio_has_private(folio) + 1 ||
	    !filemap_release_folio(folio, 0)) {
		if (count)
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
				toss_unisolate(folio, false, b->gen);
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
		/*
		 * What the cutoff level did not give, it may give elsewhere;
		 * a colder folio that stays gives its place to the cutoff level.
		 */
		if (b->budget & (1UL << i))
			tc->level_left += nr;
		if (b->cut & (1UL << i))
			tc->cut_failed += nr;
		folio_unlock(folio);
		toss_keep(b, folio);
	}
	folio_batch_reinit(&b->locked);
	b->mapping = NULL;
	b->count = 0;
	b->budget = 0;
	b->cut = 0;
	b->pending = 0;
}

/*
 * Queue a locked folio of @mapping for removal.  A batch spans at most
 * TOSS_INDEX_SPAN pages of the file, so that its walk of the xarray, which
 * steps over what lies between its folios, stays short.
 */
static void toss_queue(struct toss_batch *b, struct folio *folio,
		       struct address_space *mapping, bool count, bool budget,
		       bool cut, struct toss_control *tc)
{
	if (b->mapping != mapping ||
	    (folio_batch_count(&b->locked) &&
	     abs_diff(folio->index, b->locked.folios[0]->index) > TOSS_INDEX_SPAN))
		toss_flush(b, tc);
	b->mapping = mapping;
	if (count)
		b->count |= 1UL << folio_batch_count(&b->locked);
	if (budget)
		b->budget |= 1UL << folio_batch_count(&b->locked);
	if (cut)
		b->cut |= 1UL << folio_batch_count(&b->locked);
	b->pending += folio_nr_pages(folio);
	if (!folio_batch_add(&b->locked, folio))
		toss_flush(b, tc);
}

/**
 * toss_node_free_pages - free pages of a node
 * @nid: the node
 *
 * Pages freed a moment ago may still sit on the per-CPU page lists, which
 * NR_FREE_PAGES does not count: drain them first, on every CPU (so only
 * for privileged tosses, which ask for a free memory target).
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
 * pages of a compound page it did not pin (an anonymous THP, a hugetlb
 * page).  The order is read without a lock or a reference, as compaction
 * reads it, and only trusted when it is sane, @pfn is the head of a
 * naturally aligned block and, for a compound page, its last page still
 * belongs to it: the head and its order are two loads, between which the
 * page may have been freed and its neighbour's flags read as an order.  A
 * block freed or allocated meanwhile was of no use to the toss when it was
 * looked at.  (A pinned folio that is left is skipped by its own size, read
 * under the reference: see toss_get_folio().)  Returns the pfns to skip
 * after @pfn.
 */
static unsigned long toss_skip(struct page *page, unsigned long pfn)
{
	unsigned long order;
	struct page *last;

	if (PageBuddy(page))
		order = buddy_order_unsafe(page);
	else if (PageHead(page))
		order = compound_order(page);
	else
		return 0;
	if (order > MAX_FOLIO_ORDER || !IS_ALIGNED(pfn, 1UL << order))
		return 0;
	if (PageHead(page)) {
		if (order > MAX_PAGE_ORDER && !PageHuge(page))
			return 0;
		last = pfn_to_online_page(pfn + (1UL << order) - 1);
		if (!last || compound_head(last) != page)
			return 0;
	} else if (order > MAX_PAGE_ORDER) {
		return 0;
	}
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

/**
 * toss_node_range - the page frames a walk of a node covers
 * @nid: the node
 * @start: its first pfn
 * @end: the pfn after its last
 *
 * Those its zones span, but for ZONE_DEVICE, whose memory (persistent
 * memory, device memory) is never page cache that a toss can drop and may
 * be far larger than the node's RAM.  A toss reads it once for all the
 * node's walkers (toss_control.start_pfn, toss_control.end_pfn), so that
 * their stripes are dealt from one origin even if memory is hot-added
 * meanwhile.
 *
 * Context: Any context; call under get_online_mems() for a stable answer.
 */
void toss_node_range(int nid, unsigned long *start, unsigned long *end)
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
 * Workers a toss of one node gets: 0 gives one per CPU that runs them (the
 * tossing cpuset's own, see cpuset.memory_toss_cache); more cannot run at
 * once.  An admin may set fewer, or more.  A small node gets fewer: at
 * least two stripes of TOSS_STRIPE pfns each.
 */
static unsigned int toss_workers_per_node;
module_param_named(workers_per_node, toss_workers_per_node, uint, 0644);
MODULE_PARM_DESC(workers_per_node,
		 "Workers walking one node's pfns for a toss (0: one per CPU of the cpuset's that may run them)");

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
 * toss_node_workers - how many workers a toss of a node gets
 * @nid: the node
 * @cpus: the CPUs that will run them
 *
 * Context: Any context.
 * Return: 1 to TOSS_MAX_WORKERS: each walks every n-th stripe of the node
 * (toss_control.worker and toss_control.nr_workers).
 */
unsigned int toss_node_workers(int nid, const struct cpumask *cpus)
{
	unsigned long start, end;
	unsigned int n = READ_ONCE(toss_workers_per_node);

	if (!n)
		n = cpumask_weight(cpus);
	toss_node_range(nid, &start, &end);
	n = min3((unsigned long)n, TOSS_MAX_WORKERS,
		 (end - start) / (2 * TOSS_STRIPE));
	return max(n, 1U);
}

/* One walk of the pfns of node @nid from @pfn to @end_pfn. */
static int toss_range(int nid, struct toss_control *tc, unsigned long pfn,
		      unsigned long end_pfn)
{
	struct toss_batch b = { .mapping = NULL, .gen = -1 };
	bool count = toss_counts(tc);
	int ret = 0;

	BUILD_BUG_ON(PAGEVEC_SIZE > BITS_PER_LONG);
	folio_batch_init(&b.locked);
	folio_batch_init(&b.release);
	while (pfn < end_pfn && tc->nr_tossed < tc->nr_to_toss) {
		unsigned long batch_end = min(end_pfn, pfn + TOSS_PFN_BATCH);
		bool full = false;

		/*
		 * The cutoff level gave all it may and nothing colder lies
		 * ahead: done, or, if colder folios it counted are gone
		 * meanwhile, the cutoff level makes up for them.
		 */
		if (!tc->level_left && pfn >= tc->stop_pfn) {
			if (tc->nr_tossed >= tc->nr_to_toss)
				break;
			tc->level_left = tc->nr_to_toss - tc->nr_tossed;
		}

		/*
		 * The memmap of the batch stays while we look at it.  (While
		 * memory goes offline, this waits, uninterruptibly, and a stop
		 * is seen only after it.)
		 */
		get_online_mems();
		for (; pfn < batch_end && !full; pfn++) {
			struct page *page = pfn_to_online_page(pfn);
			unsigned long skip, left;
			struct address_space *mapping;
			struct folio *folio;
			bool budgeted, cut;
			long nr;
			int level;

			if (!page) {
				pfn += toss_skip_hole(pfn);
				continue;
			}
			folio = toss_get_folio(page, pfn, nid, tc, &level, &skip);
			if (!folio) {
				pfn += skip ?: toss_skip(page, pfn);
				continue;
			}
			/* Skip the rest of a large folio. */
			nr = folio_nr_pages(folio);
			pfn += skip;
			/* A partial toss never drops more than it was asked. */
			left = tc->nr_to_toss - tc->nr_tossed - b.pending;
			budgeted = tc->level_left != ULONG_MAX;
			cut = budgeted && level == tc->level;
			if (cut)
				left = min(left, tc->level_left);
			if (nr > left) {
				if (left)
					tc->nr_too_big += nr;
				/* Where to come back if the budget comes back. */
				else if (cut && !tc->resume_pfn)
					tc->resume_pfn = pfn + 1 - nr;
				folio_put(folio);
				continue;
			}
			mapping = toss_lock_folio(folio, tc, count);
			if (!mapping) {
				/* A colder folio stays: its place goes to the cutoff level. */
				if (budgeted && !cut)
					tc->level_left += nr;
				if (cut)
					tc->cut_failed += nr;
				folio_put(folio);
				continue;
			}
			if (cut)
				tc->level_left -= nr;
			toss_queue(&b, folio, mapping, count, budgeted, cut, tc);
			full = tc->nr_tossed + b.pending >= tc->nr_to_toss;
		}
		/* No folio stays locked across a reschedule. */
		toss_flush(&b, tc);
		put_online_mems();
		if (folio_batch_count(&b.release))
			folios_put(&b.release);
		ret = toss_stopped(tc);
		if (ret)
			break;
		cond_resched();
	}
	return ret;
}

/* This worker's part of the node from @from to @end: all, or its stripes. */
static int toss_node_span(int nid, struct toss_control *tc,
			  unsigned long from, unsigned long end)
{
	unsigned long pfn, step;
	int ret = 0;

	if (tc->nr_workers <= 1)
		return toss_range(nid, tc, from, end);
	step = (unsigned long)tc->nr_workers * TOSS_STRIPE;
	pfn = ALIGN_DOWN(tc->start_pfn, TOSS_STRIPE) + tc->worker * TOSS_STRIPE;
	for (; pfn < end && !ret && tc->nr_tossed < tc->nr_to_toss; pfn += step)
		if (pfn + TOSS_STRIPE > from)
			ret = toss_range(nid, tc, max(pfn, from),
					 min(pfn + TOSS_STRIPE, end));
	return ret;
}

/*
 * One walk of the node: all of its pfns, or this worker's stripes of
 * them.  A counting walk tosses nothing and adds up in @tc->levels what
 * could be tossed; a tossing walk takes the folios of the levels up to
 * @tc->level, with the budgets the counting walk gave.  When folios it
 * took turn out to stay, their budget goes back to the cutoff level: if
 * the walk has passed the last folios of that level by then, it goes on
 * from the first one it left for want of budget (part of the walk again,
 * not a new one).
 */
static int toss_node_pass(int nid, struct toss_control *tc)
{
	unsigned long start = tc->start_pfn, end = tc->end_pfn, resume;
	int ret;

	if (start >= end) {
		toss_node_range(nid, &start, &end);
		tc->start_pfn = start;
	}
	tc->nr_walks++;
	ret = toss_node_span(nid, tc, start, end);
	resume = tc->resume_pfn;
	if (!ret && resume && tc->level_left && tc->nr_tossed < tc->nr_to_toss) {
		tc->stop_pfn = end;
		ret = toss_node_span(nid, tc, resume, end);
	}
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
			int ret;

			freed += shrink_slab_super(GFP_KERNEL, nid, memcg);
			ret = toss_stopped(tc);
			if (ret) {
				mem_cgroup_iter_break(tc->memcg, memcg);
				tc->nr_slab += freed;
				return ret;
			}
			cond_resched();
		} while ((memcg = mem_cgroup_iter(tc->memcg, memcg, NULL)));
		tc->nr_slab += freed;
	} while ((freed >> shift++) > 1);
	return 0;
}

/*
 * Folios looked at under one hold of an LRU lock, whatever becomes of
 * them, as MGLRU's scan_folios() bounds its holds: interrupts are off.
 */
#define TOSS_SCAN_BATCH	64

/* One walk of one LRU list of file folios, from its oldest end. */
struct toss_scan {
	struct lruvec *lruvec;
	struct list_head *src;
	int gen;			/* MGLRU generation of @src, or -1 */
	unsigned long left;		/* pages of @src still to look at */
	struct folio *first_kept;	/* the first folio this walk rotated */
	bool count;			/* count why folios stay */
};

/*
 * Take the folios that may go off the tail of the list onto @dst, looking
 * at TOSS_SCAN_BATCH folios at most under the lock.  Those that must stay
 * (mapped, dirty, under writeback, locked) are rotated to the young end of
 * the same list, as isolate_lru_folios() rotates what it cannot take:
 * their generation, tier and flags stay as they were.  Under MGLRU, a
 * folio promoted lazily (its generation is younger than its list's) goes
 * to its own generation's list, as sort_folio() moves it, to be walked
 * with that list.  The walk of the list ends when it comes back to the
 * first folio it rotated, or has looked at as many pages as it held.
 * Returns the folios looked at.
 */
static unsigned int toss_isolate(struct toss_scan *s, struct list_head *dst,
				 struct toss_control *tc)
{
	struct lruvec *lruvec = s->lruvec;
	unsigned long isolated = 0;
	unsigned int looked = 0;

	spin_lock_irq(&lruvec->lru_lock);
	while (looked < TOSS_SCAN_BATCH && s->left && !list_empty(s->src)) {
		struct folio *folio = lru_to_folio(s->src);
		long nr = folio_nr_pages(folio);
		unsigned long *why = NULL;

		if (folio == s->first_kept) {
			s->left = 0;
			break;
		}
		looked++;
#ifdef CONFIG_LRU_GEN
		if (s->gen >= 0) {
			int gen = folio_lru_gen(folio);

			if (gen >= 0 && gen != s->gen) {
				list_move(&folio->lru,
					  &lruvec->lrugen.folios[gen][LRU_GEN_FILE]
								[folio_zonenum(folio)]);
				continue;
			}
		}
#endif
		s->left -= min_t(unsigned long, s->left, nr);
		if (s->count)
			tc->nr_scanned += nr;
		if (folio_mapped(folio))
			why = &tc->nr_mapped;
		else if (folio_test_dirty(folio))
			why = &tc->nr_dirty;
		else if (folio_test_writeback(folio))
			why = &tc->nr_writeback;
		else if (folio_test_locked(folio))
			why = &tc->nr_busy;
		if (why) {
			if (s->count)
				*why += nr;
			if (!s->first_kept)
				s->first_kept = folio;
			list_move(&folio->lru, s->src);
			continue;
		}
		/* As isolate_lru_folios(): a reference, then the LRU flag. */
		if (!folio_try_get(folio)) {
			list_move(&folio->lru, s->src);
			continue;
		}
		if (!folio_test_clear_lru(folio)) {
			folio_put(folio);
			list_move(&folio->lru, s->src);
			continue;
		}
		lruvec_del_folio(lruvec, folio);
		list_add_tail(&folio->lru, dst);
		isolated += nr;
	}
	__mod_node_page_state(lruvec_pgdat(lruvec), NR_ISOLATED_FILE, isolated);
	spin_unlock_irq(&lruvec->lru_lock);
	tc->max_hold = max(tc->max_hold, looked);
	return looked;
}

/*
 * Toss what an LRU walk isolated, oldest first, and put the rest back
 * where it was.  Returns true when the toss has what it wanted.
 */
static bool toss_isolated(struct list_head *list, struct toss_scan *s,
			  struct toss_control *tc)
{
	struct toss_batch b = { .isolated = true, .gen = s->gen };
	struct folio *folio, *next;
	bool done = false;

	folio_batch_init(&b.locked);
	folio_batch_init(&b.release);
	list_for_each_entry_safe(folio, next, list, lru) {
		struct address_space *mapping = NULL;

		list_del(&folio->lru);
		if (done) {
			toss_unisolate(folio, true, s->gen);
			continue;
		}
		if (folio_nr_pages(folio) >
		    tc->nr_to_toss - tc->nr_tossed - b.pending)
			tc->nr_too_big += folio_nr_pages(folio);
		else
			mapping = toss_lock_folio(folio, tc, s->count);
		if (!mapping) {
			toss_unisolate(folio, true, s->gen);
			continue;
		}
		toss_queue(&b, folio, mapping, s->count, false, false, tc);
		done = tc->nr_tossed + b.pending >= tc->nr_to_toss;
	}
	toss_flush(&b, tc);
	if (folio_batch_count(&b.release))
		folios_put(&b.release);
	return tc->nr_tossed >= tc->nr_to_toss;
}

/*
 * Walk one LRU list of file folios from its oldest end, looking at as many
 * pages as it holds (@size), one bounded hold of its lock at a time.
 */
static int toss_lru_list(struct lruvec *lruvec, struct list_head *src,
			 int gen, unsigned long size, struct toss_control *tc,
			 bool count)
{
	struct toss_scan s = {
		.lruvec = lruvec, .src = src, .gen = gen, .left = size,
		.count = count,
	};
	LIST_HEAD(isolated);
	int ret;

	while (s.left) {
		unsigned int looked = toss_isolate(&s, &isolated, tc);

		if (!list_empty(&isolated) && toss_isolated(&isolated, &s, tc))
			return 0;
		if (!looked)
			return 0;
		ret = toss_stopped(tc);
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}

/*
 * Pages on a memcg's classic LRU list @lru of one node: exact, kept under
 * the LRU lock by update_lru_size() (memcg is enabled: see
 * toss_node_memcg()).
 */
static unsigned long toss_lru_size(struct lruvec *lruvec, enum lru_list lru)
{
	unsigned long size = 0;
	int zid;

	for (zid = 0; zid < MAX_NR_ZONES; zid++)
		size += mem_cgroup_get_zone_lru_size(lruvec, lru, zid);
	return size;
}

#ifdef CONFIG_LRU_GEN
/*
 * Pages of one MGLRU generation's file list of one zone.  The counter is
 * eventually consistent and may be transiently negative (mmzone.h): read
 * as 0 then, as vmscan reads it.  Lists are sorted lazily, so a list may
 * hold a little more than its counter says: the walk gets
 * TOSS_SCAN_BATCH pages of slack, and ends earlier when it has seen the
 * whole list.
 */
static unsigned long toss_gen_size(struct lruvec *lruvec, int gen, int zone)
{
	return max(READ_ONCE(lruvec->lrugen.nr_pages[gen][LRU_GEN_FILE][zone]),
		   0L);
}
#endif

/* File pages on a memcg's LRU lists of one node, read without the lock. */
static unsigned long toss_lruvec_pages(struct lruvec *lruvec)
{
	unsigned long size = toss_lru_size(lruvec, LRU_INACTIVE_FILE) +
			     toss_lru_size(lruvec, LRU_ACTIVE_FILE);
#ifdef CONFIG_LRU_GEN
	int gen, zone;

	for (gen = 0; gen < MAX_NR_GENS; gen++)
		for (zone = 0; zone < MAX_NR_ZONES; zone++)
			size += toss_gen_size(lruvec, gen, zone);
#endif
	return size;
}

/* The file folios of one memcg on one node, oldest first. */
static int toss_lruvec(struct lruvec *lruvec, struct toss_control *tc,
		       bool count)
{
	enum lru_list lru;
	int ret = 0;
#ifdef CONFIG_LRU_GEN
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long seq;
	int zone;

	/* Generations added while the walk goes are walked too. */
	for (seq = READ_ONCE(lrugen->min_seq[LRU_GEN_FILE]);
	     seq <= READ_ONCE(lrugen->max_seq) && !ret; seq++) {
		int gen = lru_gen_from_seq(seq);

		for (zone = 0; zone < MAX_NR_ZONES && !ret; zone++) {
			unsigned long size = toss_gen_size(lruvec, gen, zone);

			if (!size && list_empty(&lrugen->folios[gen][LRU_GEN_FILE][zone]))
				continue;
			ret = toss_lru_list(lruvec,
					    &lrugen->folios[gen][LRU_GEN_FILE][zone],
					    gen, size + TOSS_SCAN_BATCH, tc, count);
			if (tc->nr_tossed >= tc->nr_to_toss)
				return ret;
		}
	}
#endif
	/* The classic lists: empty under MGLRU, but while it is switched. */
	for (lru = LRU_INACTIVE_FILE; lru <= LRU_ACTIVE_FILE && !ret; lru++) {
		unsigned long size = toss_lru_size(lruvec, lru);

		if (!size)
			continue;
		ret = toss_lru_list(lruvec, &lruvec->lists[lru], -1, size, tc,
				    count);
		if (tc->nr_tossed >= tc->nr_to_toss)
			break;
	}
	return ret;
}

/*
 * Pages @memcg may give to a toss for @target: what its usage exceeds its
 * effective protection against @target, memory.min, and memory.low unless
 * @ignore_low (as reclaim, which computes the same effective values).
 * Sets *@low_held when memory.low held back some of it.
 */
static unsigned long toss_memcg_avail(struct mem_cgroup *target,
				      struct mem_cgroup *memcg, bool ignore_low,
				      bool *low_held)
{
	unsigned long min, low, usage;

	mem_cgroup_calculate_protection(target, memcg);
	mem_cgroup_protection(target, memcg, &min, &low);
	if (!min && !low)
		return ULONG_MAX;
#ifdef CONFIG_MEMCG
	usage = page_counter_read(&memcg->memory);
#else
	usage = 0;
#endif
	if (!ignore_low && low > min) {
		if (usage > min)
			*low_held = true;
		min = low;
	}
	return usage > min ? usage - min : 0;
}

/*
 * One walk of the LRU lists of @tc->memcg's subtree on node @nid, memcg by
 * memcg in pre-order, each oldest first and giving no more than
 * toss_memcg_avail() allows.  With @total (the pages all of them could
 * give, for a toss of part of it), each gives its share of what is still
 * wanted in proportion to what it could give.
 */
static int toss_memcgs(int nid, struct toss_control *tc, bool ignore_low,
		       unsigned long total, bool *low_held)
{
	unsigned long want = tc->nr_to_toss - tc->nr_tossed;
	unsigned long to_toss = tc->nr_to_toss;
	bool count = !tc->counted;
	struct mem_cgroup *memcg;
	int ret = 0;

	memcg = mem_cgroup_iter(tc->memcg, NULL, NULL);
	do {
		struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
		unsigned long size, cap;

		cond_resched();
		ret = toss_stopped(tc);
		if (ret)
			break;
		/* Every memcg's, in pre-order: its children's derive from it. */
		cap = toss_memcg_avail(tc->memcg, memcg, ignore_low, low_held);
		/* An empty lruvec costs no lock. */
		size = toss_lruvec_pages(lruvec);
		cap = min(size, cap);
		if (total)
			cap = min(cap, mult_frac(want, cap, total) + 1);
		if (!cap)
			continue;
		tc->nr_to_toss = min(to_toss, tc->nr_tossed + cap);
		ret = toss_lruvec(lruvec, tc, count);
		tc->nr_to_toss = to_toss;
		if (ret || tc->nr_tossed >= tc->nr_to_toss)
			break;
	} while ((memcg = mem_cgroup_iter(tc->memcg, memcg, NULL)));
	if (memcg)
		mem_cgroup_iter_break(tc->memcg, memcg);
	tc->counted = true;	/* what a later walk sees was counted */
	return ret;
}

/* What the memcgs of @tc->memcg's subtree could give on node @nid. */
static unsigned long toss_memcgs_avail(int nid, struct toss_control *tc)
{
	struct mem_cgroup *memcg;
	unsigned long total = 0;
	bool low_held = false;

	memcg = mem_cgroup_iter(tc->memcg, NULL, NULL);
	do {
		unsigned long avail;

		avail = toss_memcg_avail(tc->memcg, memcg, false, &low_held);
		total += min(avail, toss_lruvec_pages(mem_cgroup_lruvec(memcg,
							NODE_DATA(nid))));
	} while ((memcg = mem_cgroup_iter(tc->memcg, memcg, NULL)));
	return total;
}

/*
 * A toss limited to @tc->memcg's subtree walks the LRU lists of its memcgs
 * on the node: the cost is in proportion to the subtree's own page cache
 * on the node, not to the node's size.  It is run by the writer itself.
 * A whole toss takes from every memcg what lies above its protection; a
 * toss of part of it first takes from each memcg in proportion to what it
 * could give, then, if that fell short (kept folios), from any of them in
 * order.  memory.low is set aside, as reclaim sets it aside, only when
 * nothing else could give.  Only the first walk of a memcg counts what it
 * keeps.
 */
static int toss_node_memcg(int nid, struct toss_control *tc)
{
	unsigned long before = tc->nr_tossed, total;
	bool low_held = false;
	int ret;

	if (mem_cgroup_disabled())
		return -EOPNOTSUPP;
	if (tc->nr_to_toss == ULONG_MAX) {
		ret = toss_memcgs(nid, tc, false, 0, &low_held);
		if (!ret && tc->nr_tossed == before && low_held)
			ret = toss_memcgs(nid, tc, true, 0, &low_held);
		return ret;
	}
	total = toss_memcgs_avail(nid, tc);
	ret = toss_memcgs(nid, tc, false, total, &low_held);
	if (!ret && tc->nr_tossed < tc->nr_to_toss && total)
		ret = toss_memcgs(nid, tc, false, 0, &low_held);
	if (!ret && tc->nr_tossed < tc->nr_to_toss && low_held)
		ret = toss_memcgs(nid, tc, true, 0, &low_held);
	return ret;
}

/**
 * toss_node_cache - drop clean, unmapped page cache from one node
 * @nid: the node whose page cache is dropped
 * @tc: how much to drop and where the counts go
 *
 * Drops up to @tc->nr_to_toss pages of clean, unmapped page cache whose
 * memory is on node @nid, coldest first when the amount limits the toss:
 * of the page frames this walker covers, those of levels below @tc->level,
 * and of @tc->level up to @tc->level_left pages (a counting walk,
 * @tc->count_only, tosses nothing and fills in @tc->levels).  With
 * @tc->memcg, the subtree's LRU lists are walked instead.  Dirty,
 * writeback, mapped, shmem/tmpfs, anonymous and unevictable memory is
 * never touched, nor is memory on any other node.  The caller should have
 * drained the per-CPU LRU caches where they may hold what it wants to
 * toss.
 *
 * The walk stops early, between two batches, on a signal to the task that
 * runs it (a process tossing in its own context) or when @tc->should_stop
 * says so (how a kernel worker, which gets no signals, learns that the
 * writer it works for was interrupted or its cgroup removed).
 *
 * Context: Process context, may sleep; no locks held.  A caller that must
 * not pile up with other walkers of the node holds the node's turn
 * (toss_node_turn_queue()).
 * Return: 0, -EINTR if a signal cut the walk short, -ENODEV if
 * @tc->should_stop did, or -EOPNOTSUPP for @tc->memcg when the memory
 * controller is disabled.  What was tossed so far is in @tc either way.
 */
int toss_node_cache(int nid, struct toss_control *tc)
{
	unsigned long scanned = tc->nr_scanned, tossed = tc->nr_tossed;
	u64 start;
	int ret = 0;

	if (!node_state(nid, N_MEMORY))
		return 0;
	tc->nr_walks = 0;
	trace_toss_node_begin(tc, nid);
	start = ktime_get_ns();
	if (tc->memcg)
		ret = toss_node_memcg(nid, tc);
	else if (tc->nr_to_toss)
		ret = toss_node_pass(nid, tc);
	if (!ret && tc->slab)
		ret = toss_node_slab(nid, tc);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_SCANNED,
			    tc->nr_scanned - scanned);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_TOSSED,
			    tc->nr_tossed - tossed);
	trace_toss_node_end(tc, nid, ktime_get_ns() - start, ret);
	return ret;
}
