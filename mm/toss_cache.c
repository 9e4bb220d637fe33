// SPDX-License-Identifier: GPL-2.0
/*
 * Drop clean, unmapped page cache from chosen NUMA nodes.
 *
 * toss_cache() drops page cache that is clean, not mapped by any process,
 * evictable and not shmem/tmpfs, from the nodes it is given and no others.
 * It never writes anything back, never unmaps, swaps or demotes, and never
 * drops more than it was asked.  It is the engine behind
 * cpuset.memory_toss_cache and behind "clean_cache=1" of memory.reclaim.
 *
 * Every candidate is checked as mapping_evict_folio() checks it, the
 * checks drop_caches makes: pinned, trylocked (never waiting on I/O), not
 * dirty, not under writeback, not mapped, no extra references, buffers
 * released.  It then leaves the page cache as __remove_mapping() removes a
 * folio: under the inode's i_lock and the i_pages lock, only if its
 * reference count freezes at the expected value and it is still clean once
 * frozen.  Candidates are gathered pinned as the walk finds them (up to a
 * page of pointers, of at most TOSS_GATHER_FILES files), then locked,
 * checked and removed file by file, in index order, so that only one
 * file's folios are locked at a time: each file's run of up to
 * PAGEVEC_SIZE folios under one hold of those locks and in one walk of
 * the xarray, as truncation removes them, however the files lie
 * interleaved in memory; and freed in batches.
 *
 * Two walks, chosen by what is asked:
 *
 * - A toss of all of a node's cache (no amount, no free memory target, no
 *   memory cgroup) walks the node's page frames, as mm/damon/paddr.c walks
 *   physical ranges: every folio of the node is seen once whatever the LRU
 *   flavour, the "not page cache" case costs a few loads without a
 *   reference, and a free block or a compound page it does not want is
 *   skipped whole.  The cost is one walk of the node's memmap, O(node
 *   size), shared among up to TOSS_MAX_WORKERS kernel threads, each taking
 *   every n-th stripe of TOSS_STRIPE pfns, on the CPUs the caller names.
 *   The folios of memory cgroups that have memory.min or memory.low
 *   protection are left by that walk (when any memcg has some, a look at
 *   each candidate's memcg: three loads) and taken from those memcgs' LRU
 *   lists, no more of each than lies above its protection.
 *
 * - A toss of part of the cache (an amount, a free memory target), and any
 *   toss limited to a memory cgroup's subtree, walks LRU lists instead:
 *   those of every memcg on the node (or of the subtree's), each oldest
 *   first, each giving no more than lies above its protection and, for an
 *   amount, its share in proportion to what it could give.  For an
 *   amount, the LRU's first tier goes first (TOSS_LEVELS).  At most
 *   TOSS_SCAN_BATCH folios are looked at per hold of an LRU lock; folios
 *   that stay are rotated within their list and keep their generation and
 *   tier.  The cost follows the work: a walk stops when it has what it
 *   wants, so when the oldest folios are in the first tier a toss looks at
 *   about as many folios as it drops.  Otherwise it looks at up to all the
 *   lists hold (mapped, dirty, busy and used ones included), once per
 *   level, in each of up to three passes over the memcgs (their shares,
 *   then any that can give more, then with memory.low set aside).  It
 *   runs in the caller, node after node.
 *
 * No lock is held across batches: the walks reschedule every batch and
 * stop on any signal to the caller, as memory.reclaim does, or when the
 * caller says so.  A whole toss of a node takes the node's turn: whole
 * tosses of one node queue up, first come first served, instead of piling
 * up in one walk; a waiter gives up its place on a signal.
 *
 * Every node's toss is counted in the node's vmstat (toss_cache_scanned,
 * toss_cache_tossed, in pages) and traced (toss_cache:toss_node_begin and
 * toss_cache:toss_node_end).
 */

#include <linux/completion.h>
#include <linux/cpumask.h>
#include <linux/fs.h>
#include <linux/kthread.h>
#include <linux/ktime.h>
#include <linux/lockdep.h>
#include <linux/memcontrol.h>
#include <linux/memory_hotplug.h>
#include <linux/mm.h>
#include <linux/mm_inline.h>
#include <linux/mmzone.h>
#include <linux/pagemap.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/sched/isolation.h>
#include <linux/sched/signal.h>
#include <linux/sched/wake_q.h>
#include <linux/shmem_fs.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/swap.h>
#include <linux/toss_cache.h>
#include <linux/freezer.h>

#include "internal.h"

/* pfns looked at between two checks for rescheduling and signals */
#define TOSS_PFN_BATCH	1024
/* widest range of file indices removed from the page cache in one run */
#define TOSS_INDEX_SPAN	256
/* files whose folios are gathered before they are removed, at most */
#define TOSS_GATHER_FILES	32U

/* folios gathered, at most: with their files, one page */
#define TOSS_GATHER	424

/*
 * Pinned candidates gathered before they are locked, checked and removed
 * file by file; the files, and which of them each candidate is of.
 */
struct toss_gather {
	struct address_space *files[TOSS_GATHER_FILES];
	struct folio *folios[TOSS_GATHER];
	u8 file[TOSS_GATHER];
};

/* how often a worker looks at the CPUs it may run on */
#define TOSS_CPUS_RECHECK	msecs_to_jiffies(10)

/*
 * Workers of one node's whole toss, at most; fewer when the caller's CPUs
 * on the node are fewer.  They share the node's zone lock and its LRU
 * lock (one per memcg), and, where their stripes hold the same file, the
 * file's i_lock and i_pages lock, held together for each run: a lock held
 * for a share h of one worker's time lets about 1/h workers gain.  In
 * make lock-stat, the file's i_lock was held for about a third of one
 * worker's time when the node held one file (about 3 workers), the zone
 * lock for about an eighth with 48 files (about 8).
 */
#define TOSS_MAX_WORKERS	4U

/*
 * The workers of a whole toss share a node stripe by stripe, dealt round
 * robin: a stripe is 16 MiB (or the largest buddy block, if that is
 * larger), aligned, so that no free block and no large folio of the page
 * cache lies across two of them.
 */
#define TOSS_STRIPE		max_t(unsigned long, SZ_16M >> PAGE_SHIFT, \
				      MAX_ORDER_NR_PAGES)

struct toss_job;

/* One walker's part of a toss of one node. */
struct toss_control {
	const struct toss_request *req;
	struct toss_job *job;		/* NULL: the caller walks */
	unsigned long nr_to_toss;	/* ULONG_MAX: all */
	struct mem_cgroup *memcg;	/* LRU walk: NULL for every memcg */
	bool lru;			/* walk LRU lists, not page frames */
	bool protect;			/* pfn walk: leave protected memcgs' */
	bool slab;
	bool partial;			/* an amount was asked for */
	bool counted;			/* the folios were counted already */
	unsigned int worker;
	unsigned int nr_workers;
	unsigned long start_pfn;
	unsigned long end_pfn;
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
	unsigned long nr_looked;	/* folios the LRU walks looked at */
	unsigned long nr_runs;		/* runs removed from the page cache */
	unsigned long nr_run_folios;	/* folios removed in them */
	struct toss_gather *gather;	/* for struct toss_batch */
};

#define CREATE_TRACE_POINTS
#include <trace/events/toss_cache.h>

/* A place in the queue for one node's turn. */
struct toss_turn {
	struct list_head list;
	bool granted;
	struct task_struct *task;	/* who waits for it */
	const void *owner;		/* toss_request.data of its toss */
};

/*
 * One whole toss per node at a time, and the others wait their turn in
 * the order they came: the owner hands the node to the first waiter when
 * it is done, and wakes that waiter alone.  A place in the queue is taken
 * without sleeping (toss_node_turn_queue()), so that a toss can queue up
 * for all its nodes at once, in node order, and then wait for each
 * separately.  A waiter sleeps interruptible (and, a kernel thread,
 * freezable), and gives up its place at once on a signal or when its toss
 * should stop (toss_cache_wake() makes the waiters of one caller's tosses
 * look again).
 */
struct toss_node_lock {
	spinlock_t lock;		/* protects @held and @waiters */
	bool held;
	struct list_head waiters;	/* struct toss_turn, first come first */
};

static struct toss_node_lock *toss_node_locks;	/* [nr_node_ids] */

/*
 * A turn is a sleeping lock of sorts: whoever waits for one must not hold
 * what the workers of a turn take (the caller's toss_request.cpus lock,
 * the LRU, i_pages and zone locks, the file systems' shrinkers).  Lockdep
 * sees each worker hold this map while it walks (but where it may freeze,
 * which must be done holding nothing), and the caller of a whole toss take
 * it before it waits, as flush_work() takes a work's.
 */
#ifdef CONFIG_LOCKDEP
static struct lockdep_map toss_turn_map =
	STATIC_LOCKDEP_MAP_INIT("toss_node_turn", &toss_turn_map);
#endif

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

/*
 * toss_node_turn_end - end a walker's turn on a node
 * @nid: the node
 *
 * Hands the node to the first waiter of toss_node_turn_queue(), if any.
 *
 * Context: Process context.
 */
static void toss_node_turn_end(int nid)
{
	struct toss_node_lock *nl = &toss_node_locks[nid];
	struct toss_turn *t;
	DEFINE_WAKE_Q(wake_q);

	spin_lock(&nl->lock);
	t = list_first_entry_or_null(&nl->waiters, struct toss_turn, list);
	if (t) {
		list_del_init(&t->list);
		/*
		 * A reference to the task first: once granted, the waiter may
		 * return, and its task exit, before the wake-up.
		 */
		if (t->task)
			wake_q_add(&wake_q, t->task);
		/* Pairs with the smp_load_acquire()s in toss_node_turn_wait(). */
		smp_store_release(&t->granted, true);
	} else {
		nl->held = false;
	}
	spin_unlock(&nl->lock);
	wake_up_q(&wake_q);
}

/*
 * toss_node_turn_queue - take a place in a node's queue of walkers
 * @nid: the node
 * @turn: the place, zeroed; it must stay until the turn has been waited
 *	for with toss_node_turn_wait(), or, if granted at once, ended
 * @owner: the toss_request.data of the toss, for toss_cache_wake()
 *
 * Never sleeps, so that a writer can queue for several nodes at once and
 * wait for each of them separately, holding none while it waits.
 *
 * Context: Process context.
 * Return: true when the node was free and the turn is taken (@turn->granted
 * is set); false when @turn waits behind others, or when the node locks
 * could not be allocated at boot (toss_node_turn_wait() then says so).
 */
static bool toss_node_turn_queue(int nid, struct toss_turn *turn,
				 const void *owner)
{
	struct toss_node_lock *nl;

	INIT_LIST_HEAD(&turn->list);
	turn->granted = false;
	turn->task = NULL;
	turn->owner = owner;
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

/*
 * Give up a place of toss_node_turn_queue(): leave the queue, or, if the
 * turn came meanwhile, pass it on.
 */
static void toss_node_turn_leave(int nid, struct toss_turn *turn)
{
	struct toss_node_lock *nl;

	if (!toss_node_locks)
		return;
	nl = &toss_node_locks[nid];
	spin_lock(&nl->lock);
	/* Pairs with the smp_store_release() in toss_node_turn_end(). */
	if (!smp_load_acquire(&turn->granted)) {
		list_del(&turn->list);
		spin_unlock(&nl->lock);
		return;
	}
	spin_unlock(&nl->lock);
	toss_node_turn_end(nid);
}

/*
 * toss_node_turn_wait - wait for a place of toss_node_turn_queue() to come up
 * @nid: the node
 * @turn: the place
 * @stop: if set, called whenever the waiter wakes: true gives up the wait
 * @stop_data: argument of @stop
 *
 * The wait is interruptible by any signal (and, in a kernel thread, which
 * holds nothing the freezer could wait for, freezable), and ends as soon
 * as @stop says so; toss_cache_wake() wakes the waiter to look at @stop
 * again.  A waiter that gives up leaves the queue, or, if the turn came
 * meanwhile, passes it on.
 *
 * Context: Process context, may sleep; no locks held.
 * Return: 0 with the node's turn taken, -EINTR on a signal, -ENODEV when
 * @stop ended the wait, -ENOMEM if the locks could not be allocated at
 * boot.
 */
static int toss_node_turn_wait(int nid, struct toss_turn *turn,
			       bool (*stop)(void *stop_data), void *stop_data)
{
	struct toss_node_lock *nl;
	unsigned int state = TASK_INTERRUPTIBLE;
	int ret = 0;

	if (!toss_node_locks)
		return -ENOMEM;
	if (current->flags & PF_KTHREAD)
		state |= TASK_FREEZABLE;
	nl = &toss_node_locks[nid];
	/* Who to wake, set before any waker can look (under the lock). */
	spin_lock(&nl->lock);
	turn->task = current;
	spin_unlock(&nl->lock);
	for (;;) {
		set_current_state(state);
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
	__set_current_state(TASK_RUNNING);
	if (ret)
		toss_node_turn_leave(nid, turn);
	return ret;
}

/**
 * toss_cache_wake - make the tosses of one caller that wait for a node look
 *	at their stop again
 * @data: the toss_request.data of those tosses
 *
 * A whole toss of a node waits for the tosses of that node before it.  Call
 * this when a reason to stop may have come up for the tosses made with
 * @data, such as the removal of the cgroup they toss for: their
 * toss_request.should_stop is called again.  Waiters of other tosses are
 * not woken.
 *
 * Context: Process context.
 */
void toss_cache_wake(const void *data)
{
	DEFINE_WAKE_Q(wake_q);
	struct toss_turn *t;
	int nid;

	if (!toss_node_locks)
		return;
	for (nid = 0; nid < nr_node_ids; nid++) {
		struct toss_node_lock *nl = &toss_node_locks[nid];

		spin_lock(&nl->lock);
		list_for_each_entry(t, &nl->waiters, list)
			if (t->owner == data && t->task)
				wake_q_add(&wake_q, t->task);
		spin_unlock(&nl->lock);
	}
	wake_up_q(&wake_q);
}

/*
 * Whether the memcg a pinned folio is charged to has memory.min or
 * memory.low protection against the root, as computed when the toss began
 * (toss_calc_protection()).  The folio's charge holds its memcg.
 */
static bool toss_folio_protected(struct folio *folio)
{
	unsigned long min, low;

	/* A file folio is never a kmem one: no RCU needed for its memcg. */
	mem_cgroup_protection(NULL, folio_memcg(folio), &min, &low);
	return min || low;
}

/*
 * Pin the folio at @pfn if it looks like clean, unmapped page cache of node
 * @nid.  The first checks are made without a reference and are only
 * hints; they are made again under the folio lock, as mapping_evict_folio()
 * makes them.  When a pinned folio is left, *@skip says how many pfns after
 * @pfn it covers (read under the reference, so exact).  Folios of protected
 * memcgs are left, uncounted, to the LRU walk that follows (@tc->protect).
 */
static struct folio *toss_get_folio(struct page *page, unsigned long pfn,
				    int nid, struct toss_control *tc,
				    unsigned long *skip)
{
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
	if (tc->protect && toss_folio_protected(folio))
		goto put;
	tc->nr_scanned += nr;
	if (folio_test_dirty(folio)) {
		tc->nr_dirty += nr;
		goto put;
	}
	if (folio_test_writeback(folio)) {
		tc->nr_writeback += nr;
		goto put;
	}
	if (folio_mapped(folio)) {
		tc->nr_mapped += nr;
		goto put;
	}
	return folio;
put:
	folio_put(folio);
	return NULL;
}

/*
 * Candidates to leave the page cache: pinned, not locked, of any files,
 * gathered in the order the walk found them.  They are then locked and
 * checked file by file, in index order, and removed in runs of up to
 * PAGEVEC_SIZE folios of one file (each run under one hold of the file's
 * locks), so that only one file's folios are ever locked at once, as
 * truncation locks them; and released together.
 */
struct toss_batch {
	struct toss_gather *g;	/* the candidates, pinned, and their files */
	unsigned int nr;	/* folios in @g */
	unsigned int nr_files;	/* files in @g */
	unsigned long pending;	/* pages in @g */
	bool count;		/* count why folios stayed */
	struct address_space *mapping;	/* of @run */
	struct folio_batch run;	/* locked, checked, in index order */
	struct folio_batch release;
	bool isolated;		/* the folios were taken off their LRU list */
	int gen;		/* of that list, under MGLRU; else -1 */
	struct folio *put_back;	/* the first put back on it (compared only) */
};

/*
 * Done with a folio that an LRU walk isolated and that stays: off the
 * isolated count, and back on its LRU list in its generation and with its
 * tier (folio_putback_lru_gen(), which drops our reference).  A tossed
 * one leaves the isolated count with its run (toss_flush_run()).
 */
static void toss_unisolate(struct folio *folio, int gen)
{
	node_stat_mod_folio(folio, NR_ISOLATED_FILE, -folio_nr_pages(folio));
	folio_putback_lru_gen(folio, gen);
}

/* Done with a pinned folio that stays in the page cache. */
static void toss_keep(struct toss_batch *b, struct folio *folio)
{
	if (b->isolated) {
		if (!b->put_back)
			b->put_back = folio;
		toss_unisolate(folio, b->gen);
	} else {
		folio_put(folio);
	}
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
	/*
	 * Truncated, or turned into something else, since we looked.  With
	 * anon and swap cache folios (swap-backed) ruled out, the mapping is
	 * what folio_mapping() would find, read without its call.
	 */
	mapping = folio->mapping;
	if (!mapping || ((unsigned long)mapping & PAGE_MAPPING_FLAGS) ||
	    folio_test_swapbacked(folio) || shmem_mapping(mapping) ||
	    mapping_unevictable(mapping))
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
	/*
	 * Our reference, the page cache's, and one for private data; the
	 * call only where folio_needs_release() would say so.
	 */
	if (folio_ref_count(folio) > nr + folio_has_private(folio) + 1 ||
	    ((folio_has_private(folio) || mapping_release_always(mapping)) &&
	     !filemap_release_folio(folio, 0))) {
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
 * Remove a run of locked folios of one file from it, as __remove_mapping()
 * does for one: under the inode's i_lock and the i_pages lock, a folio goes
 * only if its references freeze at ours plus the page cache's (nobody else
 * holds it) and it is still clean once frozen.  Taking the locks once per
 * run, and walking the xarray once per run, instead of once per folio, is
 * where the walk gains on drop_caches.
 */
static void toss_flush_run(struct toss_batch *b, struct toss_control *tc)
{
	struct folio_batch *run = &b->run;
	struct address_space *mapping;
	void (*free_folio)(struct folio *folio);
	struct folio_batch frozen;
	unsigned long gone = 0;
	unsigned int i, n = folio_batch_count(run);
	struct pglist_data *pgdat = NULL;
	long unisolated = 0;

	if (!n)
		return;
	mapping = b->mapping;
	free_folio = mapping->a_ops->free_folio;
	tc->nr_runs++;
	spin_lock(&mapping->host->i_lock);
	xa_lock_irq(&mapping->i_pages);
	folio_batch_init(&frozen);
	for (i = 0; i < n; i++) {
		struct folio *folio = run->folios[i];
		int refs = 1 + folio_nr_pages(folio);

		if (!folio_ref_freeze(folio, refs))
			continue;
		/* folio_ref_freeze() ordered this test after the count's. */
		if (unlikely(folio_test_dirty(folio))) {
			folio_ref_unfreeze(folio, refs);
			continue;
		}
		gone |= 1UL << i;
		folio_batch_add(&frozen, folio);
	}
	if (folio_batch_count(&frozen)) {
		tc->nr_run_folios += folio_batch_count(&frozen);
		__filemap_remove_folios(mapping, &frozen);
	}
	xa_unlock_irq(&mapping->i_pages);
	if (gone && mapping_shrinkable(mapping))
		inode_add_lru(mapping->host);
	spin_unlock(&mapping->host->i_lock);

	for (i = 0; i < n; i++) {
		struct folio *folio = run->folios[i];
		long nr = folio_nr_pages(folio);

		if (gone & (1UL << i)) {
			if (free_folio)
				free_folio(folio);
			folio_ref_unfreeze(folio, 1);
			folio_unlock(folio);
			if (b->isolated) {
				/*
				 * Off the LRU: its LRU flags are ours to clear.
				 * Off the isolated count with the run's others
				 * (all of one lruvec, so of one node).
				 */
				folio_clear_active(folio);
				pgdat = folio_pgdat(folio);
				unisolated += nr;
			}
			tc->nr_tossed += nr;
			/* Our reference is the last: the release batch frees it. */
			if (!folio_batch_add(&b->release, folio))
				folios_put(&b->release);
			continue;
		}
		if (b->count) {
			if (folio_test_dirty(folio))
				tc->nr_dirty += nr;
			else
				tc->nr_busy += nr;
		}
		folio_unlock(folio);
		toss_keep(b, folio);
	}
	if (unisolated)
		mod_node_page_state(pgdat, NR_ISOLATED_FILE, -unisolated);
	folio_batch_reinit(run);
}

/*
 * Lock and check a candidate (in index order within its file), and add it
 * to the run of its file: the run is removed first when it is of another
 * file, full, or would span more than TOSS_INDEX_SPAN pages.
 */
static void toss_run_add(struct toss_batch *b, struct folio *folio,
			 struct toss_control *tc)
{
	struct folio_batch *run = &b->run;
	struct address_space *mapping;
	unsigned int n = folio_batch_count(run);

	mapping = toss_lock_folio(folio, tc, b->count);
	if (!mapping) {
		toss_keep(b, folio);
		return;
	}
	if (n && (mapping != b->mapping ||
		  folio->index - run->folios[0]->index > TOSS_INDEX_SPAN))
		toss_flush_run(b, tc);
	b->mapping = mapping;
	if (!folio_batch_add(run, folio))
		toss_flush_run(b, tc);
}

static int toss_cmp_index(const void *a, const void *b)
{
	pgoff_t x = (*(struct folio * const *)a)->index;
	pgoff_t y = (*(struct folio * const *)b)->index;

	return x < y ? -1 : x > y;
}

/* Groups of at most this many candidates are sorted inline. */
#define TOSS_INSERTION_SORT	32

/*
 * Put one file's @n candidates in index order.  The walk finds them in
 * order where the file was read whole, and out of order, a few dozen of a
 * file among others', where files were read together: an insertion sort
 * of such a group costs a pass and a move per pair out of order, without
 * sort()'s call per comparison.  A larger group is sorted by sort(), unless
 * one pass finds it in order.
 */
static void toss_sort(struct folio **folios, unsigned int n)
{
	struct folio *folio;
	unsigned int i, j;

	if (n > TOSS_INSERTION_SORT) {
		for (i = 1; i < n; i++)
			if (folios[i]->index < folios[i - 1]->index)
				break;
		if (i < n)
			sort(folios, n, sizeof(*folios), toss_cmp_index, NULL);
		return;
	}
	for (i = 1; i < n; i++) {
		folio = folios[i];
		for (j = i; j && folios[j - 1]->index > folio->index; j--)
			folios[j] = folios[j - 1];
		folios[j] = folio;
	}
}

/*
 * Lock, check and remove the gathered candidates, file by file: each
 * file's are swapped to the front of what is left, by the file index each
 * was gathered with (so that grouping them touches no folio), then put in
 * index order (toss_sort()), then locked and removed in runs.  The file of
 * an unlocked folio is only a hint (it may be truncated meanwhile): the
 * lock and check say whether it still belongs to it.  This is one pass
 * over the indices per file but the last, at most TOSS_GATHER_FILES - 1
 * (none when the gather holds one file), besides the ordering of each
 * file's candidates.
 */
static void toss_flush(struct toss_batch *b, struct toss_control *tc)
{
	unsigned int done = 0, f;

	for (f = 0; f < b->nr_files && done < b->nr; f++) {
		unsigned int i, k = done, j;

		/* What the earlier files left is all the last one's. */
		if (f == b->nr_files - 1)
			k = b->nr;
		for (i = k; i < b->nr; i++) {
			struct folio *folio = b->g->folios[i];

			if (b->g->file[i] != f)
				continue;
			b->g->folios[i] = b->g->folios[k];
			b->g->file[i] = b->g->file[k];
			b->g->folios[k] = folio;
			b->g->file[k] = f;
			k++;
		}
		toss_sort(b->g->folios + done, k - done);
		for (j = done; j < k; j++)
			toss_run_add(b, b->g->folios[j], tc);
		toss_flush_run(b, tc);
		done = k;
	}
	b->nr = 0;
	b->nr_files = 0;
	b->pending = 0;
}

/*
 * Gather a pinned candidate, with the index of its file among those of the
 * gather.  Folios of one file, found apart (files read together lie
 * interleaved in memory), go in one run.  The gather is flushed when full,
 * or for a folio of one file more than TOSS_GATHER_FILES, which bounds
 * the flush's passes.  Looking the file up costs at most that many loads,
 * and only where the file changes from one folio to the next.
 */
static void toss_queue(struct toss_batch *b, struct folio *folio,
		       struct toss_control *tc)
{
	struct address_space *hint = READ_ONCE(folio->mapping);
	unsigned int i;

	if (b->nr && b->g->files[b->g->file[b->nr - 1]] == hint) {
		i = b->g->file[b->nr - 1];
	} else {
		for (i = 0; i < b->nr_files; i++)
			if (b->g->files[i] == hint)
				break;
		if (i == b->nr_files) {
			if (i == TOSS_GATHER_FILES)
				toss_flush(b, tc);
			i = b->nr_files++;
			b->g->files[i] = hint;
		}
	}
	b->g->file[b->nr] = i;
	b->g->folios[b->nr++] = folio;
	b->pending += folio_nr_pages(folio);
	if (b->nr == TOSS_GATHER)
		toss_flush(b, tc);
}

/*
 * Free pages of node @nid.  Pages freed a moment ago may still sit on the
 * per-CPU page lists, which NR_FREE_PAGES does not count: drain them
 * first, on every CPU (so only for tosses with a free memory target, which
 * only privileged callers may ask for).
 */
static unsigned long toss_node_free_pages(int nid)
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

/*
 * toss_node_range - the page frames a walk of a node covers
 * @nid: the node
 * @start: its first pfn
 * @end: the pfn after its last
 *
 * Those its zones span, but for ZONE_DEVICE, whose memory (persistent
 * memory, device memory) is never page cache that a toss can drop and may
 * be far larger than the node's RAM.  A toss reads it once for all the
 * node's walkers, under get_online_mems(), so that their stripes are dealt
 * from one origin even if memory is hot-added meanwhile.
 */
static void toss_node_range(int nid, unsigned long *start, unsigned long *end)
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
 * A whole toss of scope node: kernel threads walk each node's page frames,
 * all nodes at once, each node split among its workers, stripe by stripe.
 * The job lives until its last worker is done: a caller killed while its
 * workers finish leaves it to them.
 */
struct toss_work {
	struct toss_job *job;
	int nid;
	int ret;
	struct toss_turn turn;		/* worker 0: the node's turn */
	atomic_t node_left;		/* worker 0: the node's walkers running */
	struct completion node_done;	/* worker 0: all of them are done */
	cpumask_var_t cpus;		/* where this worker runs */
	unsigned long recheck;		/* when to look at @cpus again */
	struct toss_control tc;
};

struct toss_job {
	refcount_t ref;			/* the caller's, and each thread's */
	atomic_t pending;		/* nodes still at work, +1 */
	struct completion done;
	atomic_t abort;			/* the caller was interrupted */
	struct toss_request req;	/* a copy: the caller's may be gone */
	cpumask_var_t caller_cpus;	/* the last resort for the workers */
	int nr;
	struct toss_work tw[] __counted_by(nr);
};

static void toss_job_put(struct toss_job *job)
{
	int i;

	if (!refcount_dec_and_test(&job->ref))
		return;
	for (i = 0; i < job->nr; i++)
		free_cpumask_var(job->tw[i].cpus);
	free_cpumask_var(job->caller_cpus);
	kvfree(job);
}

/* Clear the CPUs of @mask that are offline or isolated. */
static void toss_drop_isolated(struct cpumask *mask)
{
	int cpu;

	for_each_cpu(cpu, mask)
		if (!cpu_online(cpu) || cpu_is_isolated(cpu))
			__cpumask_clear_cpu(cpu, mask);
}

/*
 * Where the workers of node @nid run: the CPUs the caller names (its
 * toss_request.cpus) that are online, not isolated and on the node, or,
 * where there are none of those (a node without CPUs), the others of them;
 * failing that, the caller's own, isolated or not as a last resort.
 */
static void toss_cpus(struct toss_job *job, int nid, struct cpumask *mask)
{
	const struct toss_request *req = &job->req;

	if (req->cpus)
		req->cpus(req->data, mask);
	else
		cpumask_copy(mask, job->caller_cpus);
	toss_drop_isolated(mask);
	if (cpumask_intersects(mask, cpumask_of_node(nid)))
		cpumask_and(mask, mask, cpumask_of_node(nid));
	if (cpumask_empty(mask)) {
		cpumask_copy(mask, job->caller_cpus);
		toss_drop_isolated(mask);
	}
	if (cpumask_empty(mask))
		cpumask_copy(mask, job->caller_cpus);
}

/*
 * Put the worker @task of @tw on its CPUs.  If that fails (they went
 * offline since they were looked up), look again, and failing that take
 * the caller's, rather than leave it where kthreadd runs, isolated CPUs
 * included.  Under RCU, as every call of the caller's callbacks.
 */
static void toss_set_cpus(struct task_struct *task, struct toss_work *tw)
{
	if (!set_cpus_allowed_ptr(task, tw->cpus))
		return;
	rcu_read_lock();
	if (!atomic_read(&tw->job->abort))
		toss_cpus(tw->job, tw->nid, tw->cpus);
	rcu_read_unlock();
	if (set_cpus_allowed_ptr(task, tw->cpus))
		set_cpus_allowed_ptr(task, tw->job->caller_cpus);
}

/* Whether the workers of @data, a job, should stop: see toss_stopped(). */
static bool toss_job_stop(void *data)
{
	struct toss_job *job = data;
	bool stop;

	rcu_read_lock();
	stop = atomic_read(&job->abort) ||
	       (job->req.should_stop && job->req.should_stop(job->req.data));
	rcu_read_unlock();
	return stop;
}

/*
 * 0 to go on, -EINTR on a signal to the caller, -ENODEV when its
 * toss_request.should_stop says stop.  A worker thread, which gets no
 * signals, learns of the caller's from the job, may freeze here (it holds
 * nothing), and follows a change of its CPUs.  The caller's callbacks are
 * called under RCU only while the job is not aborted: a caller that
 * leaves early aborts the job and waits for a grace period first.
 */
static int toss_stopped(struct toss_control *tc)
{
	const struct toss_request *req = tc->req;
	struct toss_job *job = tc->job;
	struct toss_work *tw;

	if (!job) {
		if (signal_pending(current))
			return -EINTR;
		if (req->should_stop && req->should_stop(req->data))
			return -ENODEV;
		return 0;
	}
	/* Frozen holding nothing, the turn included, as lockdep wants it. */
	if (freezing(current)) {
		lock_map_release(&toss_turn_map);
		try_to_freeze();
		lock_map_acquire(&toss_turn_map);
	}
	if (toss_job_stop(job))
		return atomic_read(&job->abort) ? -EINTR : -ENODEV;
	tw = container_of(tc, struct toss_work, tc);
	if (time_after_eq(jiffies, tw->recheck)) {
		tw->recheck = jiffies + TOSS_CPUS_RECHECK;
		rcu_read_lock();
		if (!atomic_read(&job->abort))
			toss_cpus(job, tw->nid, tw->cpus);
		rcu_read_unlock();
		if (!cpumask_equal(current->cpus_ptr, tw->cpus))
			toss_set_cpus(current, tw);
	}
	return 0;
}

/* A whole toss's walk of the pfns of node @nid from @pfn to @end_pfn. */
static int toss_range(int nid, struct toss_control *tc, unsigned long pfn,
		      unsigned long end_pfn)
{
	struct toss_batch b = {
		.g = tc->gather, .gen = -1, .count = true,
	};
	int ret = 0;

	BUILD_BUG_ON(PAGEVEC_SIZE > BITS_PER_LONG);
	folio_batch_init(&b.run);
	folio_batch_init(&b.release);
	while (pfn < end_pfn) {
		unsigned long batch_end = min(end_pfn, pfn + TOSS_PFN_BATCH);

		/*
		 * The memmap of the batch stays while we look at it.  (While
		 * memory goes offline, this waits, uninterruptibly, and a stop
		 * is seen only after it.)
		 */
		get_online_mems();
		for (; pfn < batch_end; pfn++) {
			struct page *page = pfn_to_online_page(pfn);
			struct folio *folio;
			unsigned long skip;

			if (!page) {
				pfn += toss_skip_hole(pfn);
				continue;
			}
			folio = toss_get_folio(page, pfn, nid, tc, &skip);
			if (!folio) {
				pfn += skip ?: toss_skip(page, pfn);
				continue;
			}
			/* Skip the rest of a large folio. */
			pfn += skip;
			toss_queue(&b, folio, tc);
		}
		/* No folio stays pinned across a reschedule. */
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

/* One walk of the node: all of its pfns, or this worker's stripes. */
static int toss_node_pfns(int nid, struct toss_control *tc)
{
	unsigned long pfn, step, end = tc->end_pfn;
	int ret = 0;

	tc->nr_walks++;
	if (tc->nr_workers <= 1)
		return toss_range(nid, tc, tc->start_pfn, end);
	step = (unsigned long)tc->nr_workers * TOSS_STRIPE;
	pfn = ALIGN_DOWN(tc->start_pfn, TOSS_STRIPE) + tc->worker * TOSS_STRIPE;
	for (; pfn < end && !ret; pfn += step)
		if (pfn + TOSS_STRIPE > tc->start_pfn)
			ret = toss_range(nid, tc, max(pfn, tc->start_pfn),
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
	struct folio *first_kept;	/* the first it rotated or put back */
	bool count;			/* count why folios stay */
	int level;			/* take folios up to this level */
	bool first;			/* the first walk of the list */
};

/*
 * Levels of coldness of a toss of part of a memcg's cache, coldest first:
 * the LRU's first tier (not active, not in the workingset, no MGLRU refs:
 * used at most once since it came in, read ahead or read once alike, as
 * MGLRU's first tier holds both and the classic LRU's reclaim drops a
 * clean, unmapped folio referenced once as soon as it meets it), then the
 * rest.  Each is taken oldest first before the next one is looked at.
 */
#define TOSS_LEVELS	2

static int toss_folio_level(struct folio *folio)
{
	bool more = folio_test_active(folio) || folio_test_workingset(folio);

#ifdef CONFIG_LRU_GEN
	more |= folio_lru_gen(folio) >= 0 && folio_lru_refs(folio) > 0;
#endif
	return more;
}

/*
 * Take the folios that may go off the tail of the list onto @dst, looking
 * at TOSS_SCAN_BATCH folios at most under the lock.  Those that must stay
 * (mapped, dirty, under writeback, locked) are rotated to the young end of
 * the same list, as isolate_lru_folios() rotates what it cannot take:
 * their generation, tier and flags stay as they were.  Under MGLRU, a
 * folio promoted lazily (its generation is younger than its list's) goes
 * to its own generation's list, as sort_folio() moves it, to be walked
 * with that list.  The walk of the list ends when it comes back to the
 * first folio it rotated or put back (toss_isolated()), or has looked at
 * as many pages as it held.
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
		if (s->gen >= 0 && lru_gen_move_promoted(lruvec, folio, s->gen))
			continue;
		s->left -= min_t(unsigned long, s->left, nr);
		if (folio_mapped(folio))
			why = &tc->nr_mapped;
		else if (folio_test_dirty(folio))
			why = &tc->nr_dirty;
		else if (folio_test_writeback(folio))
			why = &tc->nr_writeback;
		else if (folio_test_locked(folio))
			why = &tc->nr_busy;
		if (!why && toss_folio_level(folio) > s->level) {
			/* For a later walk of the list, uncounted. */
			if (!s->first_kept)
				s->first_kept = folio;
			list_move(&folio->lru, s->src);
			continue;
		}
		/* Counted once: the first walk, or the one of its level. */
		if (s->count && (s->first || !why))
			tc->nr_scanned += nr;
		if (why) {
			if (s->count && s->first)
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
	tc->nr_looked += looked;
	return looked;
}

/*
 * Toss what an LRU walk isolated, oldest first, and put the rest back
 * where it was.  Returns true when the toss has what it wanted.
 */
static bool toss_isolated(struct list_head *list, struct toss_scan *s,
			  struct toss_control *tc)
{
	struct toss_batch b = {
		.g = tc->gather, .isolated = true, .gen = s->gen,
		.count = s->count,
	};
	struct folio *folio, *next;
	bool done = false;

	folio_batch_init(&b.run);
	folio_batch_init(&b.release);
	list_for_each_entry_safe(folio, next, list, lru) {
		list_del(&folio->lru);
		if (done) {
			toss_unisolate(folio, s->gen);
			continue;
		}
		if (folio_nr_pages(folio) >
		    tc->nr_to_toss - tc->nr_tossed - b.pending) {
			/* Counted once: the first walk, or the one of its level. */
			if (s->count &&
			    (s->first || toss_folio_level(folio) == s->level))
				tc->nr_too_big += folio_nr_pages(folio);
			toss_keep(&b, folio);
			continue;
		}
		toss_queue(&b, folio, tc);
		/*
		 * Enough gathered: toss them, and go on (oldest first) only
		 * if some of them stayed.
		 */
		if (tc->nr_tossed + b.pending >= tc->nr_to_toss) {
			toss_flush(&b, tc);
			done = tc->nr_tossed >= tc->nr_to_toss;
		}
	}
	toss_flush(&b, tc);
	if (folio_batch_count(&b.release))
		folios_put(&b.release);
	/*
	 * What was put back went to the young end of the list: the walk ends
	 * when it meets it, instead of taking it again and counting it twice.
	 */
	if (!s->first_kept)
		s->first_kept = b.put_back;
	return tc->nr_tossed >= tc->nr_to_toss;
}

/*
 * Walk one LRU list of file folios from its oldest end, looking at as many
 * pages as it holds (@size), one bounded hold of its lock at a time.
 */
static int toss_lru_list(struct lruvec *lruvec, struct list_head *src,
			 int gen, unsigned long size, struct toss_control *tc,
			 bool count, int level, bool first)
{
	struct toss_scan s = {
		.lruvec = lruvec, .src = src, .gen = gen, .left = size,
		.count = count, .level = level, .first = first,
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
 * Pages on a classic LRU list @lru of one lruvec: a memcg's on one node,
 * exact, kept under the LRU lock by update_lru_size(); or, when the memory
 * controller is disabled, the node's own.
 */
static unsigned long toss_lru_size(struct lruvec *lruvec, enum lru_list lru)
{
	unsigned long size = 0;
	int zid;

	if (mem_cgroup_disabled())
		return lruvec_page_state(lruvec, NR_LRU_BASE + lru);
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

/* The file folios of one memcg on one node up to @level, oldest first. */
static int toss_lruvec_level(struct lruvec *lruvec, struct toss_control *tc,
			     bool count, int level, bool first)
{
	enum lru_list lru;
	int ret = 0;
#ifdef CONFIG_LRU_GEN
	struct lru_gen_folio *lrugen = &lruvec->lrugen;
	unsigned long seq;
	int zone;

	/*
	 * Generations added while the walk goes are walked too.  When aging
	 * folds a walked generation into the next one (inc_min_seq()), the
	 * walk of that one counts its kept folios again: a folio has no
	 * spare flag to mark it counted, and the counters are for humans.
	 */
	for (seq = READ_ONCE(lrugen->min_seq[LRU_GEN_FILE]);
	     seq <= READ_ONCE(lrugen->max_seq) && !ret; seq++) {
		int gen = lru_gen_from_seq(seq);

		for (zone = 0; zone < MAX_NR_ZONES && !ret; zone++) {
			unsigned long size = toss_gen_size(lruvec, gen, zone);

			if (!size && list_empty(&lrugen->folios[gen][LRU_GEN_FILE][zone]))
				continue;
			ret = toss_lru_list(lruvec,
					    &lrugen->folios[gen][LRU_GEN_FILE][zone],
					    gen, size + TOSS_SCAN_BATCH, tc, count,
					    level, first);
			if (tc->nr_tossed >= tc->nr_to_toss)
				return ret;
		}
	}
#endif
	/*
	 * The classic lists: empty under MGLRU, but while it is switched.
	 * Every folio on the active list is above the first level: the walk
	 * of the first level leaves the list, and the next walk is its first.
	 */
	for (lru = LRU_INACTIVE_FILE; lru <= LRU_ACTIVE_FILE && !ret; lru++) {
		unsigned long size = toss_lru_size(lruvec, lru);

		if (!size || (lru == LRU_ACTIVE_FILE && level < TOSS_LEVELS - 1))
			continue;
		ret = toss_lru_list(lruvec, &lruvec->lists[lru], -1, size, tc,
				    count, level,
				    first || lru == LRU_ACTIVE_FILE);
		if (tc->nr_tossed >= tc->nr_to_toss)
			break;
	}
	return ret;
}

/*
 * The file folios of one memcg on one node, oldest first: all of them in
 * one walk of its lists, or, for a toss of an amount, level by level
 * (TOSS_LEVELS walks at most): the first level's walk ends as soon as it
 * has what it wants, so that its cost follows the amount when the oldest
 * folios are in the first tier.
 */
static int toss_lruvec(struct lruvec *lruvec, struct toss_control *tc,
		       bool count)
{
	int first = tc->partial ? 0 : TOSS_LEVELS - 1;
	int level, ret = 0;

	for (level = first; level < TOSS_LEVELS && !ret; level++) {
		ret = toss_lruvec_level(lruvec, tc, count, level, level == first);
		if (tc->nr_tossed >= tc->nr_to_toss)
			break;
	}
	return ret;
}

/*
 * Pages @memcg may give to a toss for @target: what its usage exceeds its
 * effective protection against @target, memory.min, and memory.low unless
 * @ignore_low (as reclaim, which computes the same effective values);
 * ULONG_MAX when it has no protection.  Sets *@low_held when memory.low
 * held back some of it.
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
 * The effective protection of every memcg against the root, top-down as
 * mem_cgroup_calculate_protection() wants it, for a whole toss's walk of
 * the page frames to tell protected folios (toss_folio_protected()).
 * Returns whether any memcg has some: if none, the walk need not look.
 */
static bool toss_calc_protection(void)
{
	struct mem_cgroup *memcg = mem_cgroup_iter(NULL, NULL, NULL);
	unsigned long min, low;
	bool any = false;

	while (memcg) {
		mem_cgroup_calculate_protection(NULL, memcg);
		mem_cgroup_protection(NULL, memcg, &min, &low);
		any |= min || low;
		cond_resched();
		memcg = mem_cgroup_iter(NULL, memcg, NULL);
	}
	return any;
}

/*
 * One walk of the LRU lists on node @nid of @tc->memcg's subtree (every
 * memcg for NULL), memcg by memcg in pre-order, each oldest first and
 * giving no more than toss_memcg_avail() allows.  With @total (the pages
 * all of them could give, for a toss of part of it), each gives its share
 * of what is still wanted in proportion to what it could give.  With
 * @protected_only, only the memcgs with protection, those a whole toss's
 * walk of the page frames left.
 */
static int toss_memcgs(int nid, struct toss_control *tc, bool protected_only,
		       bool ignore_low, unsigned long total, bool *low_held)
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
		bool first = count, held;

		cond_resched();
		ret = toss_stopped(tc);
		if (ret)
			break;
		/* Every memcg's, in pre-order: its children's derive from it. */
		cap = toss_memcg_avail(tc->memcg, memcg, ignore_low, low_held);
		if (protected_only && cap == ULONG_MAX)
			continue;
		/* One that memory.low held back before is walked first now. */
		if (ignore_low && !first)
			first = !toss_memcg_avail(tc->memcg, memcg, false, &held);
		/* An empty lruvec costs no lock. */
		size = toss_lruvec_pages(lruvec);
		cap = min(size, cap);
		if (total)
			cap = min_t(u64, cap,
				    mul_u64_u64_div_u64(want, cap, total) + 1);
		if (!cap)
			continue;
		tc->nr_to_toss = min(to_toss, tc->nr_tossed + cap);
		ret = toss_lruvec(lruvec, tc, first);
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
		struct lruvec *lruvec = mem_cgroup_lruvec(memcg, NODE_DATA(nid));
		unsigned long avail;

		cond_resched();
		avail = toss_memcg_avail(tc->memcg, memcg, false, &low_held);
		avail = min(avail, toss_lruvec_pages(lruvec));
		total = min(ULONG_MAX - 1, total + avail);
	} while ((memcg = mem_cgroup_iter(tc->memcg, memcg, NULL)));
	return total;
}

/*
 * A toss of the LRU lists of node @nid: the cost is in proportion to the
 * folios on the lists looked at, not to the node's size.  A whole toss
 * takes from every memcg what lies above its protection; a toss of part
 * of it first takes from each memcg in proportion to what it could give,
 * then, if that fell short (kept folios), from any of them in order.
 * memory.low is set aside, as reclaim sets it aside, only when nothing
 * else could give.  Only the first walk of a memcg counts what it keeps.
 * With @tc->protect, only the protected memcgs (after a whole toss's walk
 * of the page frames).
 */
static int toss_node_lru(int nid, struct toss_control *tc)
{
	unsigned long before = tc->nr_tossed, total;
	bool only = tc->protect, low_held = false;
	int ret;

	if (tc->nr_to_toss == ULONG_MAX) {
		ret = toss_memcgs(nid, tc, only, false, 0, &low_held);
		if (!ret && tc->nr_tossed == before && low_held && !only)
			ret = toss_memcgs(nid, tc, only, true, 0, &low_held);
		return ret;
	}
	total = toss_memcgs_avail(nid, tc);
	ret = toss_memcgs(nid, tc, false, false, total, &low_held);
	if (!ret && tc->nr_tossed < tc->nr_to_toss && total)
		ret = toss_memcgs(nid, tc, false, false, 0, &low_held);
	if (!ret && tc->nr_tossed < tc->nr_to_toss && low_held)
		ret = toss_memcgs(nid, tc, false, true, 0, &low_held);
	return ret;
}

/*
 * One walker's toss of node @nid, by the walk @tc asks for (for the first
 * worker of a whole toss, also the protected memcgs' LRU lists), then its
 * slab if asked; counted in the node's vmstat and traced.
 */
static int toss_node_cache(int nid, struct toss_control *tc)
{
	unsigned long scanned = tc->nr_scanned, tossed = tc->nr_tossed;
	u64 start;
	int ret = 0;

	trace_toss_node_begin(tc, nid);
	start = ktime_get_ns();
	BUILD_BUG_ON(sizeof(struct toss_gather) > PAGE_SIZE);
	tc->gather = kmalloc(sizeof(*tc->gather), GFP_KERNEL_ACCOUNT);
	if (!tc->gather)
		ret = -ENOMEM;
	else if (!tc->nr_to_toss)
		ret = 0;
	else if (tc->lru)
		ret = toss_node_lru(nid, tc);
	else
		ret = toss_node_pfns(nid, tc);
	/*
	 * What the walk of the page frames left to protected memcgs: the
	 * first worker takes it from their LRU lists meanwhile.
	 */
	if (!ret && !tc->lru && tc->protect && !tc->worker) {
		tc->lru = true;
		ret = toss_node_lru(nid, tc);
		tc->lru = false;
	}
	kfree(tc->gather);
	tc->gather = NULL;
	if (!ret && tc->slab)
		ret = toss_node_slab(nid, tc);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_SCANNED,
			    tc->nr_scanned - scanned);
	mod_node_page_state(NODE_DATA(nid), TOSS_CACHE_TOSSED,
			    tc->nr_tossed - tossed);
	trace_toss_node_end(tc, nid, ktime_get_ns() - start, ret);
	return ret;
}

/* Add one walker's counts to the result. */
static void toss_add(struct toss_result *res, const struct toss_control *tc,
		     int nid)
{
	res->nr_scanned += tc->nr_scanned;
	res->nr_tossed += tc->nr_tossed;
	res->nr_dirty += tc->nr_dirty;
	res->nr_writeback += tc->nr_writeback;
	res->nr_mapped += tc->nr_mapped;
	res->nr_busy += tc->nr_busy;
	res->nr_slab += tc->nr_slab;
	if (res->node_tossed)
		res->node_tossed[nid] += tc->nr_tossed;
}

/* One walk of one worker; the last of the node's tells the first. */
static void toss_work_walk(struct toss_work *tw)
{
	struct toss_work *first = tw - tw->tc.worker;

	lru_add_drain();
	lock_map_acquire(&toss_turn_map);
	tw->ret = toss_node_cache(tw->nid, &tw->tc);
	lock_map_release(&toss_turn_map);
	if (atomic_dec_and_test(&first->node_left))
		complete(&first->node_done);
}

static void toss_node_run(struct toss_work *first);

static int toss_thread(void *data)
{
	struct toss_work *tw = data;
	struct toss_job *job = tw->job;

	set_freezable();
	if (tw->tc.worker)
		toss_work_walk(tw);
	else
		toss_node_run(tw);
	toss_job_put(job);
	return 0;
}

/*
 * Start a kernel thread for a walker, on its CPUs, its task and stack on
 * the node of those CPUs (never on a node without CPUs, whose memory may
 * be far).  False when none could be made.
 */
static bool toss_start(struct toss_work *tw)
{
	unsigned int cpu = cpumask_first(tw->cpus);
	struct task_struct *task;

	refcount_inc(&tw->job->ref);
	task = kthread_create_on_node(toss_thread, tw,
				      cpu < nr_cpu_ids ? cpu_to_node(cpu) :
							 NUMA_NO_NODE,
				      "toss_cache/%d:%u", tw->nid, tw->tc.worker);
	if (IS_ERR(task)) {
		refcount_dec(&tw->job->ref);
		return false;
	}
	tw->recheck = jiffies + TOSS_CPUS_RECHECK;
	/*
	 * Not kthread_bind_mask(): it waits, uninterruptibly, for the new
	 * thread to be off the CPU kthreadd gave it, which may be busy.
	 */
	toss_set_cpus(task, tw);
	wake_up_process(task);
	return true;
}

/*
 * The work of one node, by its first worker, a kernel thread: wait for the
 * node's turn, start the node's other workers, walk its own stripes (and
 * those of the workers it could not start), wait for them, and end the
 * turn.
 */
static void toss_node_run(struct toss_work *first)
{
	struct toss_job *job = first->job;
	unsigned int i, n = first->tc.nr_workers;
	unsigned long unstarted = 0;	/* n <= TOSS_MAX_WORKERS */
	int ret;

	ret = toss_node_turn_wait(first->nid, &first->turn, toss_job_stop,
				  job);
	if (!ret) {
		atomic_set(&first->node_left, n);
		for (i = 1; i < n; i++)
			if (!toss_start(&first[i]))
				unstarted |= BIT(i);
		toss_work_walk(first);
		for (i = 1; i < n; i++)
			if (unstarted & BIT(i))
				toss_work_walk(&first[i]);
		/* They stop at their next batch when the toss should. */
		wait_for_completion_state(&first->node_done,
					  TASK_IDLE | TASK_FREEZABLE);
		for (i = 0; i < n && !ret; i++)
			ret = first[i].ret;
		toss_node_turn_end(first->nid);
	}
	first->ret = ret;
	if (atomic_dec_and_test(&job->pending))
		complete(&job->done);
}

/*
 * Workers for a node of @pages page frames with @cpus CPUs to run them: one
 * per CPU, TOSS_MAX_WORKERS at most, and on a small node fewer (at least
 * two stripes each); one at least.
 */
static unsigned int toss_nr_workers(unsigned int cpus, unsigned long pages)
{
	unsigned long n = min3((unsigned long)cpus,
			       (unsigned long)TOSS_MAX_WORKERS,
			       pages / (2 * TOSS_STRIPE));

	return max(n, 1UL);
}

/*
 * Set up the workers of node @nid from @tw on (toss_nr_workers()).  Returns
 * how many, or -ENOMEM.
 */
static int toss_split(struct toss_job *job, int nid, struct toss_work *tw,
		      bool protect)
{
	unsigned long start, end;
	unsigned int i, n;

	if (!zalloc_cpumask_var(&tw->cpus, GFP_KERNEL))
		return -ENOMEM;
	toss_cpus(job, nid, tw->cpus);
	toss_node_range(nid, &start, &end);
	n = toss_nr_workers(cpumask_weight(tw->cpus), end - start);
	for (i = 0; i < n; i++) {
		struct toss_control *tc = &tw[i].tc;

		if (i) {
			if (!alloc_cpumask_var(&tw[i].cpus, GFP_KERNEL))
				return -ENOMEM;
			cpumask_copy(tw[i].cpus, tw->cpus);
		}
		tw[i].job = job;
		tw[i].nid = nid;
		tc->req = &job->req;
		tc->job = job;
		tc->nr_to_toss = ULONG_MAX;
		tc->protect = protect;
		tc->slab = !i && job->req.slab;
		tc->worker = i;
		tc->nr_workers = n;
		tc->start_pfn = start;
		tc->end_pfn = end;
	}
	return n;
}

/*
 * A whole toss of the page cache of @req->nodes, every memcg keeping what
 * its protection covers: kernel threads per node, all nodes at once, made
 * once per toss.  The caller waits interruptibly; on a signal the workers
 * stop at their next batch and the waiting ones give up their place, and
 * a fatal signal ends the wait at once, the last worker freeing the job.
 */
static int toss_whole(const struct toss_request *req, struct toss_result *res)
{
	int max = nodes_weight(req->nodes) * TOSS_MAX_WORKERS;
	bool protect = !mem_cgroup_disabled();
	struct toss_job *job;
	int nid, i, k = 0, ret = 0;

	job = kvzalloc(struct_size(job, tw, max), GFP_KERNEL_ACCOUNT);
	if (!job)
		return -ENOMEM;
	job->nr = max;
	refcount_set(&job->ref, 1);
	job->req = *req;
	if (!alloc_cpumask_var(&job->caller_cpus, GFP_KERNEL)) {
		toss_job_put(job);
		return -ENOMEM;
	}
	cpumask_copy(job->caller_cpus, current->cpus_ptr);
	if (protect)
		protect = toss_calc_protection();

	/* The nodes' ranges, once for all their workers. */
	get_online_mems();
	for_each_node_mask(nid, req->nodes) {
		if (!node_state(nid, N_MEMORY))
			continue;
		ret = toss_split(job, nid, &job->tw[k], protect);
		if (ret < 0)
			break;
		k += ret;
		ret = 0;
	}
	put_online_mems();
	if (ret) {
		toss_job_put(job);
		return ret;
	}

	/* What the caller holds, the workers must not take. */
	lock_map_acquire(&toss_turn_map);
	lock_map_release(&toss_turn_map);
	/* A place in every node's queue, in node order, then the waits. */
	atomic_set(&job->pending, 1);
	init_completion(&job->done);
	for (i = 0; i < k; i += job->tw[i].tc.nr_workers) {
		struct toss_work *first = &job->tw[i];

		init_completion(&first->node_done);
		toss_node_turn_queue(first->nid, &first->turn, req->data);
		atomic_inc(&job->pending);
		if (!toss_start(first)) {
			first->ret = -ENOMEM;
			toss_node_turn_leave(first->nid, &first->turn);
			atomic_dec(&job->pending);
		}
	}
	if (!atomic_dec_and_test(&job->pending) &&
	    wait_for_completion_interruptible(&job->done)) {
		atomic_set(&job->abort, 1);
		toss_cache_wake(req->data);
		if (wait_for_completion_killable(&job->done)) {
			/* No callback of the caller's runs after this. */
			synchronize_rcu();
			toss_job_put(job);
			return -EINTR;
		}
		ret = -EINTR;
	}
	for (i = 0; i < k; i++) {
		toss_add(res, &job->tw[i].tc, job->tw[i].nid);
		if (!ret && !job->tw[i].tc.worker)
			ret = job->tw[i].ret;
	}
	toss_job_put(job);
	return ret;
}

/* Nodes of @req with memory. */
static int toss_nr_nodes(const struct toss_request *req)
{
	int nid, n = 0;

	for_each_node_mask(nid, req->nodes)
		n += node_state(nid, N_MEMORY);
	return n;
}

/*
 * A free memory target is aimed at with this much to spare: after the
 * node's per-CPU lists are drained to count its free memory, the next
 * allocation on each of its CPUs takes a batch of pages back from it.
 */
#define TOSS_FREE_SPARE	(SZ_1M >> PAGE_SHIFT)

/*
 * What a node with @free pages free is still to toss for its free memory
 * target, with the spare, no more than @left (ULONG_MAX: no amount) less
 * the @tossed it gave already; never ULONG_MAX or more in all.
 */
static unsigned long toss_free_need(const struct toss_request *req,
				    unsigned long free, unsigned long left,
				    unsigned long tossed)
{
	unsigned long need = req->free_pages - free;

	need = min(need, ULONG_MAX - 1 - TOSS_FREE_SPARE) + TOSS_FREE_SPARE;
	if (left != ULONG_MAX)
		need = min(need, left - min(left, tossed));
	return min(need, ULONG_MAX - 1 - tossed);
}

/*
 * A toss of part of the nodes' cache, or of a memcg's subtree, by their LRU
 * lists, node after node in the caller: an amount is shared evenly among
 * the nodes, and what a node could not give is taken from any in one more
 * pass.  A free memory target gives each node what it lacks, looked at
 * again once after its toss (others allocate meanwhile).
 */
static int toss_lru_nodes(const struct toss_request *req, struct toss_result *res)
{
	int n = toss_nr_nodes(req), i, nid, pass, ret = 0;
	unsigned long left = req->nr_pages;

	for (pass = 0; pass < 2 && !ret && left; pass++) {
		i = 0;
		for_each_node_mask(nid, req->nodes) {
			struct toss_control tc = {
				.req = req, .memcg = req->memcg, .lru = true,
				.counted = pass, .nr_to_toss = left,
				.partial = left != ULONG_MAX || req->free_pages,
			};
			unsigned long free;
			int round;

			if (!node_state(nid, N_MEMORY))
				continue;
			/* (A node may have got memory since n was counted.) */
			if (left != ULONG_MAX && !pass && !req->free_pages)
				tc.nr_to_toss = DIV_ROUND_UP(left, max(n - i, 1));
			i++;
			for (round = 0; round < 2 && !ret; round++) {
				if (req->free_pages) {
					free = toss_node_free_pages(nid);
					if (free >= req->free_pages)
						break;
					tc.nr_to_toss = tc.nr_tossed +
						toss_free_need(req, free, left,
							       tc.nr_tossed);
				}
				ret = toss_node_cache(nid, &tc);
				if (!req->free_pages || !tc.nr_tossed)
					break;
			}
			toss_add(res, &tc, nid);
			if (left != ULONG_MAX)
				left -= min(left, tc.nr_tossed);
			if (ret || !left)
				break;
		}
		if (req->nr_pages == ULONG_MAX || req->free_pages)
			break;
	}
	/* Slab on every node, however little of the cache was wanted. */
	for_each_node_mask(nid, req->nodes) {
		struct toss_control tc = {
			.req = req, .memcg = req->memcg, .lru = true,
			.slab = true,
		};

		if (ret || !req->slab)
			break;
		if (!node_state(nid, N_MEMORY))
			continue;
		ret = toss_node_cache(nid, &tc);
		toss_add(res, &tc, nid);
	}
	return ret;
}

/**
 * toss_cache - drop clean, unmapped page cache from some NUMA nodes
 * @req: which nodes, how much, whose cache
 * @res: where the counts are added; the caller zeroes it
 *
 * Drops up to @req->nr_pages pages of the clean, unmapped, evictable page
 * cache whose memory is on @req->nodes, coldest first when the amount or a
 * free memory target limits the toss, never more than asked.  Dirty,
 * writeback, mapped, shmem/tmpfs, anonymous and unevictable memory is never
 * touched, nothing is written back, swapped or demoted, and nothing on any
 * other node is touched.  Memory cgroups keep what their memory.min and
 * memory.low protect (see struct toss_request).
 *
 * The cost: a whole toss (no amount, no free memory target, no memcg) is
 * one walk of each node's page frames, O(node size), shared among up to
 * TOSS_MAX_WORKERS kernel threads per node, all nodes at once, plus a walk
 * of the LRU lists of the memcgs that have protection.  Any other toss
 * walks LRU lists from their oldest end in the caller, node after node,
 * and stops when it has what it wants; for an amount, the LRU's first
 * tier first: at most TOSS_LEVELS walks of each memcg's lists on a node in
 * each of up to three passes, the folios looked at, kept ones included,
 * never the node's page frames.
 * The slab shrink, if asked, visits every node of @req->nodes.
 *
 * Context: Process context, may sleep; no locks held.  The caller should
 * have drained its CPU's per-CPU LRU caches.
 * Return: 0; -EAGAIN when an amount could not be had in full or a node
 * stayed short of its free memory target; -EINTR on a signal; -ENODEV
 * when @req->should_stop ended the toss; -EINVAL for a free memory target
 * with a memcg; -ENOMEM.  What was tossed is in @res either way, but for
 * a fatal signal during a whole toss.
 */
int toss_cache(const struct toss_request *req, struct toss_result *res)
{
	unsigned long before = res->nr_tossed;
	int nid, ret;

	if (req->memcg && req->free_pages)
		return -EINVAL;
	if (req->nr_pages == ULONG_MAX && !req->free_pages && !req->memcg)
		return toss_whole(req, res);
	ret = toss_lru_nodes(req, res);
	if (ret)
		return ret;
	if (req->free_pages) {
		for_each_node_mask(nid, req->nodes)
			if (node_state(nid, N_MEMORY) &&
			    toss_node_free_pages(nid) < req->free_pages)
				ret = -EAGAIN;
	} else if (req->nr_pages != ULONG_MAX &&
		   res->nr_tossed - before < req->nr_pages) {
		ret = -EAGAIN;
	}
	return ret;
}

#ifdef CONFIG_TOSS_CACHE_KUNIT_TEST
#include "toss_cache-kunit.h"
#endif
