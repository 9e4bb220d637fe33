// SPDX-License-Identifier: GPL-2.0
/*
 * cpuset.memory_toss_cache: drop the clean, unmapped page cache held on the
 * memory nodes of a cpuset.
 *
 * A job placed in a cpuset wants its memory on the cpuset's nodes, but page
 * cache left there by earlier jobs makes its allocations spill onto remote
 * nodes, and the kernel does not reclaim that cache until the whole machine
 * is short of memory.  Writing to this file drops that cache from exactly
 * the cpuset's effective memory nodes, and from no others.
 *
 * The file is write-only (0200), like memory.reclaim, so that tools that
 * copy a cgroup's settings by reading and writing back every readable file
 * never trigger a toss.  Its grammar follows memory.reclaim too: an amount
 * ("1" or "max" for all, or a size), then optional space-separated keys:
 *
 *   1 | max		toss all clean, unmapped page cache of the nodes
 *   <size>		toss at most <size> bytes in total, spread over the
 *			nodes, coldest first; -EAGAIN if less was tossed
 *   nodes=<list>	only these nodes, which must all be in the cpuset's
 *			cpuset.mems.effective and have memory
 *   free=<size>	on each node, stop once it has <size> bytes free;
 *			-EAGAIN if a node could not get there; not with
 *			scope=cgroup
 *   scope=node		all the page cache of the nodes (the default)
 *   scope=cgroup	only page cache charged to this cgroup's memory
 *			controller subtree, each memcg giving only what
 *			lies above its memory.min/low protection
 *   slab=0|1		also shrink the nodes' reclaimable slab (dentries,
 *			inodes) through NUMA-aware shrinkers; default 0
 *
 * Dropping a node's cache drops other tenants' cache too, so a toss of
 * scope=node needs CAP_SYS_ADMIN in the initial user namespace, checked
 * against the credentials of whoever opened the file.  A toss of
 * scope=cgroup touches only this cgroup's own cache and is allowed to
 * whoever may write the file: the owner of a delegated subtree.
 *
 * Every toss is counted in cpuset.memory_toss_cache.stat, a read-only file
 * next to it, nested-keyed like memory.numa_stat ("key value" lines, and a
 * "tossed N0=<bytes> N1=<bytes> ..." line): the number of tosses, the bytes
 * tossed per node, and what the last toss scanned, tossed and kept, who
 * asked for it, how long it took and how it ended.
 *
 * Locking: the cpuset's effective mems are read once under callback_lock,
 * then every lock is dropped before any page is looked at, and the file's
 * active reference is broken (the css stays pinned), so that rmdir never
 * waits for a toss: the toss sees its cgroup dying and stops.  The walk
 * itself (mm/toss_cache.c) holds no lock across batches of pages,
 * reschedules regularly and stops on any signal, as memory.reclaim does.
 */

#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/ctype.h>
#include <linux/cgroup.h>
#include <linux/cpuset.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/parser.h>
#include <linux/pid.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/kthread.h>
#include <linux/sched/isolation.h>
#include <linux/memory_hotplug.h>
#include <linux/toss_cache.h>

#include "cpuset-internal.h"

/* Longest write accepted; longer input is -EINVAL. */
#define TOSS_MAX_INPUT	1024

/*
 * A free= target is aimed at with this much to spare: after the node's
 * per-CPU lists are drained to count its free memory, the next allocation
 * on each of its CPUs takes a batch of pages back from it, so a node that
 * reached its target exactly would be found a few hundred KiB short by the
 * check that ends the write.  A node already at its target gets nothing
 * tossed for the spare alone.
 */
#define TOSS_FREE_SPARE	(SZ_1M >> PAGE_SHIFT)

enum {
	TOSS_KEY_NODES,
	TOSS_KEY_FREE,
	TOSS_KEY_SCOPE,
	TOSS_KEY_SLAB,
	TOSS_KEY_ERR,
};

static const match_table_t toss_tokens = {
	{ TOSS_KEY_NODES,	"nodes=%s" },
	{ TOSS_KEY_FREE,	"free=%s" },
	{ TOSS_KEY_SCOPE,	"scope=%s" },
	{ TOSS_KEY_SLAB,	"slab=%s" },
	{ TOSS_KEY_ERR,		NULL },
};

/* What cpuset.memory_toss_cache.stat shows; all sizes in pages. */
struct cpuset_toss_stat {
	spinlock_t lock;		/* protects all below */
	u64 nr_tosses;
	struct toss_control last;
	u64 last_duration_ns;
	struct pid *last_pid;
	int last_error;
	u64 tossed[];			/* per node id */
};

struct toss_request {
	unsigned long nr_pages;		/* ULONG_MAX: all */
	unsigned long free_pages;	/* 0: no free memory target */
	bool scope_set;
	bool scope_cgroup;		/* only this cgroup's memcg subtree */
	bool slab_set;
	bool slab;
	bool nodes_set;
	nodemask_t nodes;
};

/*
 * A size in bytes: a decimal number with an optional K, M, G, T, P or E
 * suffix (powers of 1024, either case).  -ERANGE if it does not fit in 64
 * bits, -EINVAL if it is not a size at all.
 */
static int toss_parse_bytes(const char *str, u64 *bytes)
{
	static const char suffixes[] = "KMGTPE";
	size_t n = strspn(str, "0123456789");
	char digits[24];
	const char *sfx;
	int shift = 0, ret;

	if (!n)
		return -EINVAL;
	if (n >= sizeof(digits))
		return -ERANGE;
	if (str[n]) {
		sfx = strchr(suffixes, toupper(str[n]));
		if (!sfx || str[n + 1])
			return -EINVAL;
		shift = 10 * (sfx - suffixes + 1);
	}
	memcpy(digits, str, n);
	digits[n] = '\0';
	ret = kstrtoull(digits, 10, bytes);
	if (ret)
		return ret;
	if (shift && *bytes > (U64_MAX >> shift))
		return -ERANGE;
	*bytes <<= shift;
	return 0;
}

/*
 * A size to toss at most, as whole pages, rounded down: never more than
 * asked.  Less than a page cannot be tossed: -EINVAL.
 */
static int toss_parse_amount(const char *str, unsigned long *pages)
{
	u64 bytes;
	int ret = toss_parse_bytes(str, &bytes);

	if (ret)
		return ret;
	if (bytes < PAGE_SIZE)
		return -EINVAL;
	*pages = min_t(u64, bytes >> PAGE_SHIFT, ULONG_MAX - 1);
	return 0;
}

/* A free memory target, as pages, rounded up: at least that much free. */
static int toss_parse_free(const char *str, unsigned long *pages)
{
	u64 bytes;
	int ret = toss_parse_bytes(str, &bytes);

	if (ret)
		return ret;
	if (!bytes)
		return -EINVAL;
	bytes = (bytes >> PAGE_SHIFT) + !!(bytes & ~PAGE_MASK);
	*pages = min_t(u64, bytes, ULONG_MAX - 1);
	return 0;
}

/* A key given once, whose value is @off or @on: sets *@set and *@val. */
static int toss_parse_choice(const char *str, const char *off, const char *on,
			     bool *set, bool *val)
{
	if (*set)
		return -EINVAL;
	*set = true;
	*val = !strcmp(str, on);
	return *val || !strcmp(str, off) ? 0 : -EINVAL;
}

/*
 * Parse "<amount> [key=value ...]".  Nothing is done here, so that bad input
 * changes nothing.
 */
static int toss_parse(char *buf, struct toss_request *req)
{
	substring_t args[MAX_OPT_ARGS];
	char *amount, *start;
	int ret;

	memset(req, 0, sizeof(*req));
	buf = strstrip(buf);
	amount = strsep(&buf, " ");
	if (!amount || !*amount)
		return -EINVAL;

	if (!strcmp(amount, "1") || !strcmp(amount, "max")) {
		req->nr_pages = ULONG_MAX;
	} else {
		ret = toss_parse_amount(amount, &req->nr_pages);
		if (ret)
			return ret;
	}

	while ((start = strsep(&buf, " ")) != NULL) {
		char *list;

		if (!*start)
			continue;
		switch (match_token(start, toss_tokens, args)) {
		case TOSS_KEY_NODES:
			if (req->nodes_set)
				return -EINVAL;
			list = match_strdup(&args[0]);
			if (!list)
				return -ENOMEM;
			ret = nodelist_parse(list, req->nodes);
			kfree(list);
			if (ret || nodes_empty(req->nodes))
				return -EINVAL;
			req->nodes_set = true;
			break;
		case TOSS_KEY_SCOPE:
			if (toss_parse_choice(args[0].from, "node", "cgroup",
					      &req->scope_set, &req->scope_cgroup))
				return -EINVAL;
			break;
		case TOSS_KEY_SLAB:
			if (toss_parse_choice(args[0].from, "0", "1",
					      &req->slab_set, &req->slab))
				return -EINVAL;
			break;
		case TOSS_KEY_FREE:
			if (req->free_pages)
				return -EINVAL;
			list = match_strdup(&args[0]);
			if (!list)
				return -ENOMEM;
			ret = toss_parse_free(list, &req->free_pages);
			kfree(list);
			if (ret)
				return ret;
			break;
		default:
			return -EINVAL;
		}
	}
	/*
	 * A free memory target is the node's, not the cgroup's, and checking
	 * it drains every CPU's free page lists: not for scope=cgroup.
	 */
	if (req->scope_cgroup && req->free_pages)
		return -EINVAL;
	return 0;
}

/*
 * A write of @nbytes at @buf: no longer than TOSS_MAX_INPUT, no NUL inside
 * it (it must not cut the request short), then toss_parse().
 */
static int toss_parse_write(char *buf, size_t nbytes, struct toss_request *req)
{
	if (nbytes > TOSS_MAX_INPUT)
		return -EINVAL;
	if (strnlen(buf, nbytes) != nbytes)
		return -EINVAL;
	return toss_parse(buf, req);
}

/*
 * The nodes a toss of @req covers, of the cpuset's @nodes (its effective
 * mems) and the nodes with @memory: nodes= must name only nodes of both.
 */
static int toss_pick_nodes(const struct toss_request *req, nodemask_t *nodes,
			   const nodemask_t *memory)
{
	if (req->nodes_set) {
		if (!nodes_subset(req->nodes, *nodes) ||
		    !nodes_subset(req->nodes, *memory))
			return -EINVAL;
		*nodes = req->nodes;
	}
	nodes_and(*nodes, *nodes, *memory);
	return 0;
}

/**
 * cpuset_toss_open - open handler of cpuset.memory_toss_cache
 * @of: the file being opened
 *
 * A toss can be long, and write(2) holds the file's position lock for the
 * whole write when the open file is shared (FMODE_ATOMIC_POS), so that a
 * second process or thread writing to the same open file would sleep
 * uninterruptibly until the first toss ends.  Writes ignore the position:
 * it needs no lock.
 *
 * Return: 0.
 */
int cpuset_toss_open(struct kernfs_open_file *of)
{
	of->file->f_mode &= ~FMODE_ATOMIC_POS;
	return 0;
}

/**
 * cpuset_toss_alloc - allocate a cpuset's toss statistics
 * @cs: the cpuset, being created
 *
 * The statistics live as long as the cpuset, so that no toss ever goes
 * uncounted.
 *
 * Context: Process context, may sleep.
 * Return: 0, or -ENOMEM.
 */
int cpuset_toss_alloc(struct cpuset *cs)
{
	struct cpuset_toss_stat *st;

	st = kzalloc(struct_size(st, tossed, nr_node_ids), GFP_KERNEL);
	if (!st)
		return -ENOMEM;
	spin_lock_init(&st->lock);
	cs->toss_stat = st;
	return 0;
}

/**
 * cpuset_toss_free - free a cpuset's toss statistics
 * @cs: the cpuset, being freed
 *
 * Context: Process context.
 */
void cpuset_toss_free(struct cpuset *cs)
{
	struct cpuset_toss_stat *st = cs->toss_stat;

	if (!st)
		return;
	put_pid(st->last_pid);
	kfree(st);
	cs->toss_stat = NULL;
}

/**
 * cpuset_toss_offline - a cpuset goes offline
 * @cs: the cpuset, being removed
 *
 * Its tosses stop at their next batch; the ones still waiting for a
 * node's turn give up their place now.
 *
 * Context: Process context.
 */
void cpuset_toss_offline(struct cpuset *cs)
{
	toss_node_wake_all();
}

/**
 * cpuset_toss_stat_show - show cpuset.memory_toss_cache.stat
 * @sf: the seq_file of the reader
 * @v: unused
 *
 * Every line is printed under the statistics' lock, so that the last_*
 * lines all describe the same toss.  last_pid is the pid of the process
 * that wrote the last toss as the reader's pid namespace sees it, 0 if it
 * cannot see it.
 *
 * Return: 0.
 */
int cpuset_toss_stat_show(struct seq_file *sf, void *v)
{
	struct cpuset_toss_stat *st = css_cs(seq_css(sf))->toss_stat;
	u64 total = 0;
	int nid;

	/* Only the root cpuset's, allocated at boot, can be missing. */
	if (!st)
		return -ENOMEM;
	spin_lock(&st->lock);
	for (nid = 0; nid < nr_node_ids; nid++)
		total += st->tossed[nid];
	seq_printf(sf, "tosses %llu\n", st->nr_tosses);
	seq_printf(sf, "tossed_bytes %llu\n", total << PAGE_SHIFT);
	seq_puts(sf, "tossed");
	for_each_node_state(nid, N_MEMORY)
		seq_printf(sf, " N%d=%llu", nid, st->tossed[nid] << PAGE_SHIFT);
	seq_putc(sf, '\n');
	seq_printf(sf, "last_pid %d\n", pid_vnr(st->last_pid));
	seq_printf(sf, "last_error %d\n", st->last_error);
	seq_printf(sf, "last_duration_us %llu\n",
		   div_u64(st->last_duration_ns, NSEC_PER_USEC));
	seq_printf(sf, "last_scanned_bytes %lu\n",
		   st->last.nr_scanned << PAGE_SHIFT);
	seq_printf(sf, "last_tossed_bytes %lu\n",
		   st->last.nr_tossed << PAGE_SHIFT);
	seq_printf(sf, "last_dirty_bytes %lu\n",
		   st->last.nr_dirty << PAGE_SHIFT);
	seq_printf(sf, "last_writeback_bytes %lu\n",
		   st->last.nr_writeback << PAGE_SHIFT);
	seq_printf(sf, "last_mapped_bytes %lu\n",
		   st->last.nr_mapped << PAGE_SHIFT);
	seq_printf(sf, "last_busy_bytes %lu\n",
		   st->last.nr_busy << PAGE_SHIFT);
	seq_printf(sf, "last_slab_objects %lu\n", st->last.nr_slab);
	spin_unlock(&st->lock);
	return 0;
}

/*
 * A toss of scope=node runs each node's walk in kernel threads started for
 * it, all nodes at once, as the 2005 patch ran one kernel thread per node.
 * Each node's walk is split among toss_node_workers() workers, each
 * walking every n-th stripe of the node's pfns.
 *
 * The work done for a cpuset runs on the cpuset's own CPUs: those of its
 * cpuset.cpus.effective on the node that are not isolated, or, where it
 * has none there (a node without CPUs, or only isolated ones), its other
 * CPUs that are not isolated, or else those of the writer (toss_cpus()).
 * So it never runs on the CPUs of another cpuset's partition, nor on
 * isolated CPUs (isolcpus=, nohz_full=, isolated partitions), and it
 * takes no CPU time from the job's neighbours.  A running worker looks at
 * its CPUs again every TOSS_CPUS_RECHECK and moves when they changed: a
 * partition made or a CPU isolated meanwhile.
 *
 * Walkers of a node take turns, first come first served.  The writer takes
 * its place in the queue of every node at once, in node order, without
 * sleeping; each node's first worker then waits for that node's turn only,
 * starts the node's other workers once it has it, and the last of them to
 * finish ends the turn.  No node's turn is held while another is waited
 * for, and a node is free again as soon as its own walk is done.
 *
 * The writer waits for all of them, interruptibly: on a signal (or the
 * freezer) they stop at their next batch, and the waiting ones give up
 * their place.
 *
 * A toss of scope=cgroup, open to unprivileged owners, runs in the
 * writer's own context, node after node, without turns: its CPU time is
 * the writer's, within the writer's cpu.max and cpuset.cpus.
 */
#define TOSS_CPUS_RECHECK	msecs_to_jiffies(10)

struct toss_job {
	atomic_t pending;		/* nodes still at work, +1 */
	struct completion done;
	atomic_t abort;			/* the writer was interrupted */
	struct cgroup_subsys_state *css;
	cpumask_var_t writer_cpus;	/* the last resort of toss_cpus() */
};

struct toss_work {
	struct toss_job *job;
	int nid;
	unsigned int worker;		/* of nr_workers on the node */
	unsigned int nr_workers;
	int ret;
	bool run;			/* worker 0: the node walks in this round */
	bool count_first;		/* worker 0: a counting walk, then ... */
	unsigned long share;		/* worker 0: ... a tossing walk of this */
	bool slab;			/* worker 0: ... which also shrinks slab */
	unsigned long cut_counted;	/* pages the cutoff level had */
	atomic_t node_left;		/* worker 0: the node's walkers running */
	struct completion node_done;	/* worker 0: all of them are done */
	struct toss_turn turn;		/* worker 0: the node's turn */
	cpumask_var_t cpus;		/* where this worker runs */
	unsigned long recheck;		/* when to look at @cpus again */
	struct toss_control tc;
};

/*
 * Stop when the writer was interrupted, or when the cgroup is being
 * removed: its rmdir does not wait for this write.
 */
static bool toss_should_stop(void *data)
{
	struct toss_job *job = data;

	return atomic_read(&job->abort) || css_is_dying(job->css);
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
 * The CPUs that run the work of a toss of @cs on node @nid: see the
 * comment above struct toss_job.
 */
static void toss_cpus(struct cpuset *cs, int nid,
		      const struct cpumask *writer_cpus, struct cpumask *mask)
{
	cpuset_callback_lock_irq();
	cpumask_and(mask, cs->effective_cpus, cpumask_of_node(nid));
	toss_drop_isolated(mask);
	if (cpumask_empty(mask)) {
		cpumask_copy(mask, cs->effective_cpus);
		toss_drop_isolated(mask);
	}
	cpuset_callback_unlock_irq();
	if (cpumask_empty(mask)) {
		cpumask_copy(mask, writer_cpus);
		toss_drop_isolated(mask);
	}
	if (cpumask_empty(mask))
		cpumask_copy(mask, writer_cpus);
}

/*
 * Between two batches of a worker: stop when the toss should, and follow
 * the cpuset's CPUs when they changed.
 */
static bool toss_worker_stop(void *data)
{
	struct toss_work *tw = data;
	struct toss_job *job = tw->job;

	if ((current->flags & PF_KTHREAD) &&
	    time_after_eq(jiffies, tw->recheck)) {
		tw->recheck = jiffies + TOSS_CPUS_RECHECK;
		toss_cpus(css_cs(job->css), tw->nid, job->writer_cpus, tw->cpus);
		if (!cpumask_equal(current->cpus_ptr, tw->cpus))
			set_cpus_allowed_ptr(current, tw->cpus);
	}
	return toss_should_stop(job);
}

/* One walk of one worker; the last of the node's tells the first. */
static void toss_work_walk(struct toss_work *tw)
{
	struct toss_work *first = tw - tw->worker;

	lru_add_drain();
	tw->ret = toss_node_cache(tw->nid, &tw->tc);
	if (atomic_dec_and_test(&first->node_left))
		complete(&first->node_done);
}

static void toss_node_run(struct toss_work *first);

static int toss_thread(void *data)
{
	struct toss_work *tw = data;

	if (tw->worker)
		toss_work_walk(tw);
	else
		toss_node_run(tw);
	return 0;
}

/*
 * Start a kernel thread for a walker, on its CPUs.  False when none could
 * be made: its caller walks for it.
 */
static bool toss_start(struct toss_work *tw)
{
	struct task_struct *task;

	task = kthread_create_on_node(toss_thread, tw, tw->nid, "toss_cache/%d:%u",
				      tw->nid, tw->worker);
	if (IS_ERR(task))
		return false;
	tw->recheck = jiffies + TOSS_CPUS_RECHECK;
	/*
	 * Not kthread_bind_mask(): it waits, uninterruptibly, for the new
	 * thread to be off the CPU kthreadd gave it, which may be busy.
	 */
	set_cpus_allowed_ptr(task, tw->cpus);
	wake_up_process(task);
	return true;
}

/*
 * One walk of a node by all its workers: the first starts the others,
 * walks its own stripes (and those of the workers it could not start),
 * and waits for them.  Returns the first error of a worker.
 */
static int toss_node_walk(struct toss_work *first)
{
	u64 unstarted = 0;	/* the workers are TOSS_MAX_WORKERS at most */
	unsigned int i, n = first->nr_workers;
	int ret = 0;

	atomic_set(&first->node_left, n);
	reinit_completion(&first->node_done);
	for (i = 1; i < n; i++)
		if (!toss_start(&first[i]))
			unstarted |= BIT_ULL(i);
	toss_work_walk(first);
	for (i = 1; i < n; i++)
		if (unstarted & BIT_ULL(i))
			toss_work_walk(&first[i]);
	/* They stop at their next batch when the toss should. */
	wait_for_completion(&first->node_done);
	for (i = 0; i < n && !ret; i++)
		ret = first[i].ret;
	return ret;
}

static void toss_cutoff(struct toss_work *first, unsigned long share);

/*
 * The work of one node in one round, by its first worker: wait for the
 * node's turn, walk it (a counting walk first, for a toss of part of it,
 * then the tossing walk of its share), and end the turn.  Both walks of a
 * node are in the same turn: what one writer counted, no other toss of the
 * node takes before it tosses.
 */
static void toss_node_run(struct toss_work *first)
{
	struct toss_job *job = first->job;
	int ret;

	ret = toss_node_turn_wait(first->nid, &first->turn, toss_should_stop,
				  job);
	if (!ret) {
		if (first->count_first) {
			ret = toss_node_walk(first);
			if (!ret)
				toss_cutoff(first, first->share);
			first->tc.slab = first->slab;
		}
		if (!ret)
			ret = toss_node_walk(first);
		toss_node_turn_end(first->nid);
	}
	first->ret = ret;
	if (atomic_dec_and_test(&job->pending))
		complete(&job->done);
}

/*
 * Run one round: the nodes of @tw marked to run.  Returns 0, -EINTR when
 * the writer was interrupted, or the first error of a node (-ENODEV when
 * the cgroup went away).
 */
static int toss_round(struct toss_work *tw, int nr, struct toss_job *job)
{
	int i, w, ret = 0;

	atomic_set(&job->pending, 1);
	init_completion(&job->done);
	/* A place in every node's queue, in node order, then the waits. */
	for (i = 0; i < nr; i += tw[i].nr_workers) {
		if (!tw[i].run)
			continue;
		for (w = 0; w < tw[i].nr_workers; w++) {
			tw[i + w].job = job;
			tw[i + w].ret = 0;
		}
		init_completion(&tw[i].node_done);
		atomic_inc(&job->pending);
		toss_node_turn_queue(tw[i].nid, &tw[i].turn);
		if (!toss_start(&tw[i]))
			toss_node_run(&tw[i]);
	}
	if (!atomic_dec_and_test(&job->pending) &&
	    wait_for_completion_interruptible(&job->done)) {
		/* The workers stop at their next batch, the waiters at once. */
		atomic_set(&job->abort, 1);
		toss_node_wake_all();
		wait_for_completion(&job->done);
		ret = -EINTR;
	}
	for (i = 0; i < nr && !ret; i += tw[i].nr_workers)
		if (tw[i].run)
			ret = tw[i].ret;
	return ret;
}

/* Add one walker's counts to the toss's, and to the statistics. */
static void toss_account(struct toss_work *tw, struct cpuset_toss_stat *st,
			 struct toss_control *sum)
{
	struct toss_control *tc = &tw->tc;

	spin_lock(&st->lock);
	st->tossed[tw->nid] += tc->nr_tossed;
	spin_unlock(&st->lock);
	sum->nr_scanned += tc->nr_scanned;
	sum->nr_tossed += tc->nr_tossed;
	sum->nr_dirty += tc->nr_dirty;
	sum->nr_writeback += tc->nr_writeback;
	sum->nr_mapped += tc->nr_mapped;
	sum->nr_busy += tc->nr_busy;
	sum->nr_slab += tc->nr_slab;
	sum->nr_too_big += tc->nr_too_big;
}

/*
 * Set up walker @tw's next walk, for up to @share pages (ULONG_MAX: all).
 * The levels a counting walk found stay, for the next cutoff.
 */
static void toss_prepare(struct toss_work *tw, unsigned long share,
			 struct mem_cgroup *memcg, struct cpuset *cs,
			 struct toss_job *job, bool slab)
{
	unsigned long start = tw->tc.start_pfn, end = tw->tc.end_pfn;
	unsigned long levels[TOSS_LEVELS], last_pfn[TOSS_LEVELS];

	memcpy(levels, tw->tc.levels, sizeof(levels));
	memcpy(last_pfn, tw->tc.last_pfn, sizeof(last_pfn));
	memset(&tw->tc, 0, sizeof(tw->tc));
	memcpy(tw->tc.levels, levels, sizeof(levels));
	memcpy(tw->tc.last_pfn, last_pfn, sizeof(last_pfn));
	tw->tc.cgroup_id = cgroup_id(cs->css.cgroup);
	tw->tc.nr_to_toss = share;
	tw->tc.memcg = memcg;
	tw->tc.slab = slab;
	tw->tc.should_stop = memcg ? toss_should_stop : toss_worker_stop;
	tw->tc.stop_data = memcg ? (void *)job : (void *)tw;
	tw->tc.worker = tw->worker;
	tw->tc.nr_workers = tw->nr_workers;
	tw->tc.start_pfn = start;
	tw->tc.end_pfn = end;
	tw->tc.level = TOSS_LEVELS - 1;
	tw->tc.level_left = ULONG_MAX;
	tw->tc.stop_pfn = end;
	tw->run = true;
	tw->count_first = false;
	tw->share = share;
}

/*
 * Each node of a scope=node toss is split among toss_node_workers()
 * workers, as many as the node has CPUs to run them (toss_cpus()), each
 * walking every n-th stripe of the node's pfns, dealt from the node's range
 * as read here, once.  A scope=cgroup toss has one walker per node, the
 * writer.
 *
 * Without @tw, returns the number of walkers @nodes need.  With it, fills
 * at most @max of them and returns how many, or -ENOMEM: a node gets fewer
 * workers if the number of workers grew since @max was counted, and always
 * at least one.
 */
static int toss_split(const nodemask_t *nodes, const struct toss_request *req,
		      struct cpuset *cs, struct toss_job *job,
		      struct toss_work *tw, int max)
{
	int nid, k = 0, left = nodes_weight(*nodes), ret = 0;
	cpumask_var_t cpus;
	unsigned long start, end;
	unsigned int i, n;

	if (!zalloc_cpumask_var(&cpus, GFP_KERNEL))
		return -ENOMEM;
	get_online_mems();
	for_each_node_mask(nid, *nodes) {
		n = 1;
		if (!req->scope_cgroup) {
			toss_cpus(cs, nid, job->writer_cpus, cpus);
			n = toss_node_workers(nid, cpus);
		}
		left--;
		if (tw)
			n = clamp_t(int, max - k - left, 1, n);
		toss_node_range(nid, &start, &end);
		for (i = 0; i < n; i++, k++) {
			if (!tw)
				continue;
			tw[k].nid = nid;
			tw[k].worker = i;
			tw[k].nr_workers = n;
			tw[k].tc.start_pfn = start;
			tw[k].tc.end_pfn = end;
			if (!alloc_cpumask_var(&tw[k].cpus, GFP_KERNEL)) {
				ret = -ENOMEM;
				continue;
			}
			cpumask_copy(tw[k].cpus, cpus);
		}
	}
	put_online_mems();
	free_cpumask_var(cpus);
	return ret ?: k;
}

/*
 * Share @amount among @n nodes, none more than its @cap: evenly (the
 * remainder page by page), a node that can give less than an even share
 * giving all it can and the others sharing the rest.  An amount of
 * ULONG_MAX (no amount, a free= target alone) gives each node its cap.
 */
static void toss_fill(unsigned long amount, const unsigned long *cap,
		      unsigned long *share, int n)
{
	unsigned long left = amount, q = 0, r = 0;
	bool capped;
	int i, k;

	if (amount == ULONG_MAX) {
		memcpy(share, cap, n * sizeof(*share));
		return;
	}
	for (i = 0; i < n; i++)
		share[i] = ULONG_MAX;	/* not decided yet */
	do {
		for (i = 0, k = 0; i < n; i++)
			k += share[i] == ULONG_MAX;
		if (!k)
			break;
		q = left / k;
		r = left % k;
		capped = false;
		for (i = 0; i < n; i++) {
			if (share[i] == ULONG_MAX && cap[i] <= q) {
				share[i] = cap[i];
				left -= cap[i];
				capped = true;
			}
		}
	} while (capped);
	for (i = 0, k = 0; i < n; i++)
		if (share[i] == ULONG_MAX)
			share[i] = q + (k++ < r);
}

/*
 * The cutoff of a node's tossing walk for @share pages, from what its
 * workers counted (toss_control.levels): every level below the first level
 * where @share is reached goes, and of that level what is still wanted,
 * shared among the workers in proportion to what each counted there.
 */
static void toss_cutoff(struct toss_work *first, unsigned long share)
{
	unsigned long levels[TOSS_LEVELS] = {}, below = 0, part, given = 0;
	unsigned int n = first->nr_workers, i, most = 0;
	int level;

	for (i = 0; i < n; i++)
		for (level = 0; level < TOSS_LEVELS; level++)
			levels[level] += first[i].tc.levels[level];
	for (level = 0; level < TOSS_LEVELS - 1; level++) {
		if (below + levels[level] >= share)
			break;
		below += levels[level];
	}
	part = min(share - below, levels[level]);
	for (i = 0; i < n; i++) {
		struct toss_control *tc = &first[i].tc;
		int l;

		tc->count_only = false;
		tc->level = level;
		tc->level_left = 0;
		if (levels[level])
			tc->level_left = mult_frac(part, tc->levels[level],
						   levels[level]);
		given += tc->level_left;
		if (tc->levels[level] > first[most].tc.levels[level])
			most = i;
		tc->nr_to_toss = tc->nr_tossed;
		tc->stop_pfn = 0;
		for (l = 0; l < level; l++) {
			tc->nr_to_toss += tc->levels[l];
			tc->stop_pfn = max(tc->stop_pfn, tc->last_pfn[l]);
		}
	}
	/* What rounding left goes to the worker that counted the most. */
	first[most].tc.level_left += part - given;
	for (i = 0; i < n; i++) {
		first[i].tc.nr_to_toss += first[i].tc.level_left;
		first[i].cut_counted = first[i].tc.levels[level];
	}
}

/*
 * What is left to toss on a node after its tossing walk, by level, as the
 * counting walk saw it: nothing below the cutoff (taken, or kept for a
 * reason that holds), at the cutoff what was neither dropped nor found
 * to stay, and everything above it.  Returns the pages.
 */
static unsigned long toss_leftover(struct toss_work *first)
{
	unsigned long total = 0;
	unsigned int i;
	int l;

	for (i = 0; i < first->nr_workers; i++) {
		struct toss_control *tc = &first[i].tc;
		unsigned long gone = tc->nr_tossed, below = 0;

		for (l = 0; l < tc->level; l++) {
			below += tc->levels[l];
			tc->levels[l] = 0;
		}
		/* What went beyond the levels below came from the cutoff. */
		gone = gone > below ? gone - below : 0;
		tc->levels[tc->level] = first[i].cut_counted -
					min(first[i].cut_counted, gone + tc->cut_failed);
		for (l = 0; l < TOSS_LEVELS; l++)
			total += tc->levels[l];
	}
	return total;
}

/*
 * A toss of scope=cgroup: node after node in the writer, each node's LRU
 * lists of the subtree's memcgs.  A toss of part of it shares what is
 * still wanted evenly among the nodes still to go; when that falls short,
 * one more pass over the nodes takes what is still wanted from any.
 */
static int toss_nodes_cgroup(struct toss_work *tw, int nr,
			     const struct toss_request *req,
			     struct mem_cgroup *memcg, struct cpuset *cs,
			     struct toss_job *job, struct cpuset_toss_stat *st,
			     struct toss_control *sum)
{
	unsigned long left = req->nr_pages;
	int pass, i, ret = 0;

	for (pass = 0; pass < 2 && !ret && left; pass++) {
		for (i = 0; i < nr && !ret && left; i++) {
			unsigned long share = left;

			if (left != ULONG_MAX && !pass)
				share = DIV_ROUND_UP(left, nr - i);
			toss_prepare(&tw[i], share, memcg, cs, job,
				     req->slab && !pass);
			tw[i].tc.counted = pass;
			ret = toss_node_cache(tw[i].nid, &tw[i].tc);
			toss_account(&tw[i], st, sum);
			if (left != ULONG_MAX)
				left -= min(left, tw[i].tc.nr_tossed);
		}
		if (req->nr_pages == ULONG_MAX)
			break;
	}
	return ret;
}

/*
 * A free= target is a node's free memory when the toss ends, but others
 * allocate meanwhile: a node found short of it gets one more tossing
 * walk, coldest first, of what it lacks and TOSS_FREE_SPARE (and what its
 * counting walk found left), no more than @left in all.  Returns 0 or the round's error.
 */
static int toss_top_up(struct toss_work *tw, int nr, int n,
		       const struct toss_request *req, struct cpuset *cs,
		       struct toss_job *job, struct cpuset_toss_stat *st,
		       struct toss_control *sum, unsigned long left,
		       unsigned long *need, unsigned long *share)
{
	bool any = false;
	int i, k, w, ret;

	for (i = 0, k = 0; i < nr; i += tw[i].nr_workers, k++) {
		unsigned long free = toss_node_free_pages(tw[i].nid), avail = 0;
		int l;

		if (tw[i].run) {
			avail = toss_leftover(&tw[i]);
		} else {
			for (w = 0; w < tw[i].nr_workers; w++)
				for (l = 0; l < TOSS_LEVELS; l++)
					avail += tw[i + w].tc.levels[l];
		}
		need[k] = free < req->free_pages ?
			  min(req->free_pages + TOSS_FREE_SPARE - free, avail) : 0;
		any |= need[k];
	}
	if (!any)
		return 0;
	toss_fill(left, need, share, n);
	for (i = 0, k = 0; i < nr; i += tw[i].nr_workers, k++) {
		for (w = 0; w < tw[i].nr_workers; w++) {
			toss_prepare(&tw[i + w], share[k], NULL, cs, job, false);
			tw[i + w].run = share[k];
		}
		if (share[k])
			toss_cutoff(&tw[i], share[k]);
	}
	ret = toss_round(tw, nr, job);
	for (i = 0; i < nr; i++)
		if (tw[i].run)
			toss_account(&tw[i], st, sum);
	return ret;
}

/*
 * Toss up to @req->nr_pages over @nodes, never more.  A whole toss is one
 * walk of each node, shared by its workers.  A toss of part of it (an
 * amount, or a free memory target) is two walks of each node in one turn:
 * a counting walk, then a tossing walk that takes the node's share coldest
 * first (toss_cutoff()).  The amount is shared evenly among the nodes, no
 * node more than it lacks for its free= target; what a node could not give
 * (less cache than its share, or pages that turned out to stay) is shared
 * among the nodes that have more, in another tossing walk of those, and
 * if that still falls short, all that is wanted to one node after the
 * other, of any level.  A node that others' allocations left short of its
 * free= target gets one more tossing walk (toss_top_up()).  Slab,
 * if asked for, is shrunk once on every node, with its first round.
 */
static int toss_nodes(const nodemask_t *nodes, const struct toss_request *req,
		      struct mem_cgroup *memcg, struct cpuset *cs,
		      struct cpuset_toss_stat *st, struct toss_control *sum)
{
	struct toss_job job = { .css = &cs->css };
	unsigned long *need = NULL, *share = NULL, left = req->nr_pages;
	bool whole = req->nr_pages == ULONG_MAX && !req->free_pages;
	struct toss_work *tw = NULL;
	int nr, n, i, k, w, round, ret;

	if (!zalloc_cpumask_var(&job.writer_cpus, GFP_KERNEL))
		return -ENOMEM;
	cpumask_copy(job.writer_cpus, current->cpus_ptr);
	nr = toss_split(nodes, req, cs, &job, NULL, 0);
	if (nr <= 0) {
		ret = nr;
		goto out;
	}
	tw = kvcalloc(nr, sizeof(*tw), GFP_KERNEL_ACCOUNT);
	if (!tw) {
		ret = -ENOMEM;
		goto out;
	}
	ret = toss_split(nodes, req, cs, &job, tw, nr);
	if (ret < 0)
		goto out;
	nr = ret;
	if (req->scope_cgroup) {
		ret = toss_nodes_cgroup(tw, nr, req, memcg, cs, &job, st, sum);
		goto out;
	}
	if (whole) {
		for (i = 0; i < nr; i++)
			toss_prepare(&tw[i], ULONG_MAX, NULL, cs, &job,
				     req->slab && !tw[i].worker);
		ret = toss_round(tw, nr, &job);
		for (i = 0; i < nr; i++)
			toss_account(&tw[i], st, sum);
		goto out;
	}

	/* Each node's share: evenly, and no more than it lacks. */
	n = nodes_weight(*nodes);
	need = kcalloc(n, sizeof(*need), GFP_KERNEL);
	share = kcalloc(n, sizeof(*share), GFP_KERNEL);
	if (!need || !share) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0, k = 0; i < nr; i += tw[i].nr_workers, k++) {
		unsigned long free;

		need[k] = ULONG_MAX;
		if (req->free_pages) {
			free = toss_node_free_pages(tw[i].nid);
			need[k] = req->free_pages > free ?
				  req->free_pages + TOSS_FREE_SPARE - free : 0;
		}
	}
	toss_fill(left, need, share, n);

	/*
	 * Each node counts, then tosses its share, in one turn; a node whose
	 * share is nothing only shrinks its slab, if asked to.
	 */
	for (i = 0, k = 0; i < nr; i += tw[i].nr_workers, k++) {
		for (w = 0; w < tw[i].nr_workers; w++) {
			toss_prepare(&tw[i + w], share[k] ? ULONG_MAX : 0, NULL,
				     cs, &job, !share[k] && req->slab && !w);
			tw[i + w].tc.count_only = share[k];
		}
		tw[i].count_first = share[k];
		tw[i].share = share[k];
		tw[i].slab = req->slab;
	}
	ret = toss_round(tw, nr, &job);
	for (i = 0; i < nr; i++) {
		toss_account(&tw[i], st, sum);
		if (left != ULONG_MAX)
			left -= min(left, tw[i].tc.nr_tossed);
	}
	if (left == ULONG_MAX)
		goto top_up;

	/*
	 * What nodes could not give goes to those that have more: first
	 * coldest first, shared among them by what their counting walks found
	 * above what they took; then, if that still falls short (pages that
	 * turned out to stay, large folios bigger than a share), all that is
	 * wanted to one node after the other, of any level.  A node that did
	 * not walk in a round keeps its need and its levels.
	 */
	for (round = 1; !ret && left && round < 2 + n; round++) {
		int only = round - 2;	/* the node of a last round, or < 0 */

		for (i = 0, k = 0; i < nr; i += tw[i].nr_workers, k++) {
			unsigned long tossed = 0;

			if (!tw[i].run)
				continue;
			for (w = 0; w < tw[i].nr_workers; w++)
				tossed += tw[i + w].tc.nr_tossed;
			need[k] = need[k] > tossed ?
				  min(need[k] - tossed, toss_leftover(&tw[i])) : 0;
		}
		if (only < 0)
			toss_fill(left, need, share, n);
		for (i = 0, k = 0; i < nr; i += tw[i].nr_workers, k++) {
			if (only >= 0)
				share[k] = k == only ? min(left, need[k]) : 0;
			for (w = 0; w < tw[i].nr_workers; w++) {
				toss_prepare(&tw[i + w], share[k], NULL, cs, &job,
					     false);
				tw[i + w].run = share[k];
			}
			if (share[k] && only < 0)
				toss_cutoff(&tw[i], share[k]);
		}
		ret = toss_round(tw, nr, &job);
		for (i = 0; i < nr; i++) {
			if (!tw[i].run)
				continue;
			toss_account(&tw[i], st, sum);
			left -= min(left, tw[i].tc.nr_tossed);
		}
	}
top_up:
	if (!ret && req->free_pages && left)
		ret = toss_top_up(tw, nr, n, req, cs, &job, st, sum, left, need, share);
out:
	kfree(need);
	kfree(share);
	for (i = 0; tw && i < nr; i++)
		free_cpumask_var(tw[i].cpus);
	kvfree(tw);
	free_cpumask_var(job.writer_cpus);
	return ret;
}

/*
 * The memory controller's css of the cpuset's own cgroup, referenced, or
 * NULL when the controller is not enabled on that cgroup (in v1: when the
 * memory controller is not mounted together with cpuset), or disabled at
 * boot (cgroup_disable=memory, which still gives the root a css).
 */
#ifdef CONFIG_MEMCG
static struct cgroup_subsys_state *toss_memcg_css(struct cpuset *cs)
{
	struct cgroup_subsys_state *css;

	if (mem_cgroup_disabled())
		return NULL;
	css = cgroup_get_e_css(cs->css.cgroup, &memory_cgrp_subsys);
	if (css && css->cgroup != cs->css.cgroup) {
		css_put(css);
		css = NULL;
	}
	return css;
}
#else
static struct cgroup_subsys_state *toss_memcg_css(struct cpuset *cs)
{
	return NULL;
}
#endif

/*
 * The log lines of scope=cgroup tosses, which anyone who owns a cgroup may
 * ask for, share one budget, so that making cgroups does not make room for
 * more: drop_caches' pace, what was suppressed counted in the next line.
 */
static struct ratelimit_state toss_cgroup_rs =
	RATELIMIT_STATE_INIT_FLAGS(toss_cgroup_rs, DEFAULT_RATELIMIT_INTERVAL,
				   DEFAULT_RATELIMIT_BURST,
				   RATELIMIT_MSG_ON_RELEASE);
static atomic_t toss_cgroup_missed = ATOMIC_INIT(0);

/*
 * Log a toss as drop_caches does: every toss of scope=node (privileged:
 * it drops other tenants' cache, so it is always seen), and those of
 * scope=cgroup within their shared budget.
 */
static void toss_log(struct cpuset *cs, const struct toss_request *req,
		     const nodemask_t *nodes, const struct toss_control *sum,
		     u64 took, int ret)
{
	char comm[TASK_COMM_LEN];
	int missed = 0;

	if (req->scope_cgroup) {
		if (!__ratelimit(&toss_cgroup_rs)) {
			atomic_inc(&toss_cgroup_missed);
			return;
		}
		missed = atomic_xchg(&toss_cgroup_missed, 0);
	}
	get_task_comm(comm, current);
	pr_info("%*pE (%d): cpuset.memory_toss_cache: cgroup %llu scope=%s nodes %*pbl: tossed %lu kB, kept %lu kB dirty, %lu kB writeback, %lu kB mapped, %lu kB busy in %llu ms, error %d (%d earlier scope=cgroup lines suppressed)\n",
		(int)strlen(comm), comm, task_tgid_nr(current),
		cgroup_id(cs->css.cgroup), req->scope_cgroup ? "cgroup" : "node",
		nodemask_pr_args(nodes),
		sum->nr_tossed << (PAGE_SHIFT - 10),
		sum->nr_dirty << (PAGE_SHIFT - 10),
		sum->nr_writeback << (PAGE_SHIFT - 10),
		sum->nr_mapped << (PAGE_SHIFT - 10),
		sum->nr_busy << (PAGE_SHIFT - 10),
		div_u64(took, NSEC_PER_MSEC), ret, missed);
}

/*
 * The nodes a toss of @cs covers, read once: its effective mems (a
 * snapshot: a change of cpuset.mems during the toss does not change
 * them).  -ENODEV when the cpuset is going away, or when it asked for
 * nodes of its own (cpuset.mems) and has none of them: its effective mems
 * then fall back to its parent's, whose cache is not its to drop.
 * callback_lock, not cpuset_mutex, so that nothing here can make rmdir
 * wait.
 */
static int toss_snapshot_nodes(struct cpuset *cs, nodemask_t *nodes)
{
	int ret = 0;

	cpuset_callback_lock_irq();
	if (!is_cpuset_online(cs) || css_is_dying(&cs->css))
		ret = -ENODEV;
	else if (!nodes_empty(cs->mems_allowed) &&
		 !nodes_intersects(cs->mems_allowed, cs->effective_mems))
		ret = -ENODEV;
	*nodes = cs->effective_mems;
	cpuset_callback_unlock_irq();
	return ret;
}

/*
 * What a write keeps for the length of its toss, allocated rather than on
 * the stack: with NODES_SHIFT=10 a nodemask_t is 128 bytes, and the
 * handler's frame (toss_nodes() inlined) went past 1024 bytes under KASAN.
 */
struct toss_write {
	nodemask_t nodes;
	struct toss_control sum;
};

/**
 * cpuset_toss_cache_write - write handler of cpuset.memory_toss_cache
 * @of: the open file; its opener's credentials decide the permission
 * @buf: "<amount> [nodes=<list>] [free=<size>] [scope=node|cgroup] [slab=0|1]"
 * @nbytes: length of @buf
 * @off: ignored
 *
 * Parses the request, snapshots the cpuset's effective mems, drops every
 * lock and tosses the clean, unmapped page cache of the target nodes.  The
 * file's active reference is given up for the toss (the css stays pinned),
 * so that removing the cgroup never waits for it: the toss sees the cgroup
 * dying and stops at its next batch.
 *
 * Context: Process context, may sleep; takes and drops callback_lock, and
 * gives up kernfs' @of->mutex for the toss.
 * Return: @nbytes on success, -EINVAL for bad input, -ERANGE for a size
 * that does not fit in 64 bits, -EPERM without CAP_SYS_ADMIN (scope=node),
 * -EOPNOTSUPP for scope=cgroup without the memory controller on the
 * cgroup, -ENODEV for a cpuset going away (before the toss or during it)
 * or whose own nodes are none of its effective ones, -EINTR on a signal,
 * -EAGAIN when a limited toss dropped less than asked or a node could not
 * reach its free= target, -ENOMEM when the toss's bookkeeping cannot be
 * allocated.
 */
ssize_t cpuset_toss_cache_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct cpuset *cs = css_cs(of_css(of));
	struct cpuset_toss_stat *st = cs->toss_stat;
	struct cgroup_subsys_state *memcg_css = NULL;
	struct toss_request req;
	struct toss_write *w;
	u64 start, took;
	int nid, ret;

	if (!st)
		return -ENOMEM;
	ret = toss_parse_write(buf, nbytes, &req);
	if (ret)
		return ret;
	if (!req.scope_cgroup &&
	    !file_ns_capable(of->file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;

	w = kzalloc(sizeof(*w), GFP_KERNEL_ACCOUNT);
	if (!w)
		return -ENOMEM;

	/* Snapshot the nodes, then no lock is held for any work. */
	ret = toss_snapshot_nodes(cs, &w->nodes);
	if (!ret)
		ret = toss_pick_nodes(&req, &w->nodes, &node_states[N_MEMORY]);
	if (!ret && req.scope_cgroup) {
		memcg_css = toss_memcg_css(cs);
		if (!memcg_css)
			ret = -EOPNOTSUPP;
	}
	if (ret) {
		kfree(w);
		return ret;
	}

	/*
	 * rmdir must not wait for us: hold the css, not the file.  From here
	 * on, of->priv may be freed by kernfs_drain_open_files(): only of->kn
	 * is used.  Another write to the same open file must not wait for
	 * the whole toss in kernfs' of->mutex, uninterruptibly: it is given
	 * up for the toss and taken again (nothing of @of that it protects
	 * is used meanwhile; see also cpuset_toss_open()).
	 */
	css_get(&cs->css);
	kernfs_break_active_protection(of->kn);
	mutex_unlock(&of->mutex);

	start = ktime_get_ns();
	/*
	 * Folios still in per-CPU batches are not on the LRU yet.  Only the
	 * CPUs that do the toss's work drain theirs (toss_work_walk(); here,
	 * the writer for scope=cgroup), as memory.reclaim drains only the
	 * local CPU until its last retry: no other CPU, isolated ones
	 * included, is made to run drain work, and no write waits,
	 * uninterruptibly, for a CPU that someone else keeps busy.  The
	 * batches of other CPUs (a few dozen folios each) are left.
	 */
	lru_add_drain();
	ret = toss_nodes(&w->nodes, &req,
			 memcg_css ? mem_cgroup_from_css(memcg_css) : NULL,
			 cs, st, &w->sum);
	if (memcg_css)
		css_put(memcg_css);
	if (!ret && req.free_pages) {
		for_each_node_mask(nid, w->nodes)
			if (toss_node_free_pages(nid) < req.free_pages)
				ret = -EAGAIN;
	} else if (!ret && req.nr_pages != ULONG_MAX &&
		   w->sum.nr_tossed < req.nr_pages) {
		ret = -EAGAIN;
	}
	took = ktime_get_ns() - start;

	spin_lock(&st->lock);
	st->nr_tosses++;
	st->last = w->sum;
	st->last_duration_ns = took;
	put_pid(st->last_pid);
	st->last_pid = get_task_pid(current, PIDTYPE_TGID);
	st->last_error = ret;
	spin_unlock(&st->lock);
	toss_log(cs, &req, &w->nodes, &w->sum, took, ret);
	kfree(w);

	mutex_lock(&of->mutex);
	kernfs_unbreak_active_protection(of->kn);
	css_put(&cs->css);
	return ret ?: nbytes;
}

#ifdef CONFIG_CPUSET_TOSS_KUNIT_TEST
#include "cpuset-toss-kunit.h"
#endif
