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
 *			-EAGAIN if a node could not get there
 *   scope=node		all the page cache of the nodes (the default)
 *   scope=cgroup	only page cache charged to this cgroup's memory
 *			controller subtree, memory.min/low respected
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
 * Locking: the cpuset's effective mems are read once under cpuset_mutex,
 * then every lock is dropped before any page is looked at, and the file's
 * active reference is broken (the css stays pinned), so that rmdir never
 * waits for a toss: the toss sees its cgroup dying and stops.  The walk
 * itself (mm/toss_cache.c) holds no lock across batches of pages,
 * reschedules regularly and stops on a fatal signal.
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
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/toss_cache.h>
#include <linux/workqueue.h>

#include "cpuset-internal.h"

/* Longest write accepted; longer input is -EINVAL. */
#define TOSS_MAX_INPUT	1024

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
	/* The log lines of this cpuset's tosses: others' are not held up. */
	struct ratelimit_state rs;
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
	/* drop_caches' pace; the suppressed lines are counted in the next. */
	ratelimit_state_init(&st->rs, DEFAULT_RATELIMIT_INTERVAL,
			     DEFAULT_RATELIMIT_BURST);
	ratelimit_set_flags(&st->rs, RATELIMIT_MSG_ON_RELEASE);
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
 * A toss of scope=node runs each node's walk as a work item of an unbound
 * workqueue queued on that node (queue_work_node()), all nodes at once, as
 * the 2005 patch ran one kernel thread per node; a whole toss of a node
 * with several CPUs runs as several work items, each walking its share of
 * the node's stripes (toss_split()).  Unbound workers keep off the CPUs
 * of isolated partitions and out of isolcpus= and workqueue.unbound_cpus
 * (wq_unbound_cpumask); WQ_SYSFS lets the admin narrow them further.
 * The writer waits for all of them; when it is killed, they stop at their
 * next batch.
 *
 * A toss of scope=cgroup, open to unprivileged owners, runs in the
 * writer's own context, node after node: its CPU time is the writer's,
 * within the writer's cpu.max and cpuset.cpus.
 */
static struct workqueue_struct *toss_wq;

struct toss_job {
	atomic_t pending;
	struct completion done;
	atomic_t abort;			/* the writer got a fatal signal */
	struct cgroup_subsys_state *css;
};

struct toss_work {
	struct work_struct work;
	struct toss_job *job;
	int nid;
	unsigned int worker;		/* of nr_workers on the node */
	unsigned int nr_workers;
	int ret;
	bool locked;			/* holds the node's turn */
	bool run;			/* walks in this round */
	struct toss_control tc;
};

/*
 * Stop when the writer was killed, or when the cgroup is being removed:
 * its rmdir does not wait for this write.
 */
static bool toss_should_stop(void *data)
{
	struct toss_job *job = data;

	return atomic_read(&job->abort) ||
	       (READ_ONCE(job->css->flags) & CSS_DYING);
}

static void toss_work_fn(struct work_struct *work)
{
	struct toss_work *tw = container_of(work, struct toss_work, work);

	tw->ret = toss_node_cache(tw->nid, &tw->tc);
	if (atomic_dec_and_test(&tw->job->pending))
		complete(&tw->job->done);
}

/*
 * Run one round: the nodes of @tw marked to run, each up to its
 * tc.nr_to_toss.  Returns 0, -EINTR when the writer was killed, or the
 * first error of a node (-ENODEV when the cgroup went away).
 */
static int toss_round(struct toss_work *tw, int nr, struct toss_job *job,
		      bool in_writer)
{
	int i, ret = 0;

	if (in_writer || !toss_wq) {
		for (i = 0; i < nr && !ret; i++)
			if (tw[i].run)
				ret = toss_node_cache(tw[i].nid, &tw[i].tc);
		return ret;
	}
	atomic_set(&job->pending, 1);
	init_completion(&job->done);
	for (i = 0; i < nr; i++) {
		if (!tw[i].run)
			continue;
		INIT_WORK(&tw[i].work, toss_work_fn);
		tw[i].job = job;
		tw[i].ret = 0;
		atomic_inc(&job->pending);
		queue_work_node(tw[i].nid, toss_wq, &tw[i].work);
	}
	if (!atomic_dec_and_test(&job->pending) &&
	    wait_for_completion_killable(&job->done)) {
		/* The workers stop at their next batch. */
		atomic_set(&job->abort, 1);
		wait_for_completion(&job->done);
		ret = -EINTR;
	}
	for (i = 0; i < nr && !ret; i++)
		if (tw[i].run)
			ret = tw[i].ret;
	return ret;
}

/* Add one walk's counts to the toss's, and to the statistics. */
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
}

/* Set up node @tw's next walk, for up to @share pages (ULONG_MAX: all). */
static void toss_prepare(struct toss_work *tw, unsigned long share,
			 const struct toss_request *req, struct mem_cgroup *memcg,
			 struct cpuset *cs, struct toss_job *job, bool slab)
{
	unsigned long counted[TOSS_LEVELS];

	/* What earlier walks of this toss counted is not counted again. */
	memcpy(counted, tw->tc.counted_pfn, sizeof(counted));
	memset(&tw->tc, 0, sizeof(tw->tc));
	memcpy(tw->tc.counted_pfn, counted, sizeof(counted));
	tw->tc.cgroup_id = cgroup_id(cs->css.cgroup);
	tw->tc.nr_to_toss = share;
	tw->tc.free_target = req->free_pages;
	tw->tc.memcg = memcg;
	tw->tc.slab = slab;
	tw->tc.should_stop = toss_should_stop;
	tw->tc.stop_data = job;
	tw->tc.worker = tw->worker;
	tw->tc.nr_workers = tw->nr_workers;
	tw->run = true;
}

/*
 * A whole toss of scope=node splits each node among several workers,
 * toss_node_workers() of them, each walking every n-th stripe of the
 * node's pfns, all under the node's one turn.  A limited toss (an amount or
 * a free= target) walks each node with one worker, coldest first, so that
 * it drops the coldest folios of the node, not of each worker's share.
 *
 * Without @tw, returns the number of walks @nodes need.  With it, fills at
 * most @max of them and returns how many: a node gets fewer workers if the
 * number of workers grew since @max was counted, and always at least one.
 */
static int toss_split(const nodemask_t *nodes, const struct toss_request *req,
		      struct toss_work *tw, int max)
{
	bool whole = req->nr_pages == ULONG_MAX && !req->free_pages &&
		     !req->scope_cgroup;
	int nid, k = 0, left = nodes_weight(*nodes);
	unsigned int i, n;

	for_each_node_mask(nid, *nodes) {
		n = whole ? toss_node_workers(nid) : 1;
		left--;
		if (tw)
			n = clamp_t(int, max - k - left, 1, n);
		for (i = 0; i < n; i++, k++) {
			if (!tw)
				continue;
			tw[k].nid = nid;
			tw[k].worker = i;
			tw[k].nr_workers = n;
		}
	}
	return k;
}

/*
 * Toss up to @req->nr_pages over @nodes, never more.  Each round splits
 * what is still wanted evenly over the nodes still in play (the remainder
 * page by page); a node that gave less than its share leaves play, and
 * the others go on in the next round.  Each round either ends the toss or
 * takes a node out of play.  A node that gave less only because its next
 * folio was bigger than its share gets one more walk at the end, with
 * all that is still wanted as its share.
 */
static int toss_nodes(const nodemask_t *nodes, const struct toss_request *req,
		      struct mem_cgroup *memcg, struct cpuset *cs,
		      struct cpuset_toss_stat *st, struct toss_control *sum)
{
	bool in_writer = req->scope_cgroup;
	struct toss_job job = { .css = &cs->css };
	nodemask_t play = *nodes, reserve = NODE_MASK_NONE;
	unsigned long left = req->nr_pages;
	struct toss_work *tw;
	int nr = toss_split(nodes, req, NULL, 0), i, ret = 0;
	bool first = true;

	if (!nr)
		return 0;
	tw = kcalloc(nr, sizeof(*tw), GFP_KERNEL);
	if (!tw)
		return -ENOMEM;
	nr = toss_split(nodes, req, tw, nr);

	/*
	 * Walkers of scope=node take turns on each node, in node order so
	 * that two writers never wait for each other; scope=cgroup tosses
	 * are the writer's own work and do not queue behind others.
	 */
	for (i = 0; i < nr && !in_writer; i++) {
		if (tw[i].worker)
			continue;
		ret = toss_node_lock(tw[i].nid, toss_should_stop, &job);
		if (ret)
			goto unlock;
		tw[i].locked = true;
	}

	while (!ret && left) {
		unsigned long q = 0, r = 0;
		int n = nodes_weight(play), k = 0;

		if (!n && nodes_empty(reserve))
			break;
		if (left != ULONG_MAX && n) {
			q = left / n;
			r = left % n;
		}
		for (i = 0; i < nr; i++) {
			unsigned long share;

			tw[i].run = false;
			if (left == ULONG_MAX) {
				share = ULONG_MAX;
			} else if (!n) {
				/* The last chance of a node with big folios. */
				if (!node_isset(tw[i].nid, reserve) || k++)
					continue;
				node_clear(tw[i].nid, reserve);
				share = left;
			} else if (node_isset(tw[i].nid, play)) {
				share = q + (k++ < r);
				if (!share)
					continue;
			} else {
				continue;
			}
			/* Slab once per node, with its first walk. */
			toss_prepare(&tw[i], share, req, memcg, cs, &job,
				     req->slab && first && !tw[i].worker);
		}
		first = false;
		ret = toss_round(tw, nr, &job, in_writer);
		for (i = 0; i < nr; i++) {
			struct toss_control *tc = &tw[i].tc;

			if (!tw[i].run)
				continue;
			toss_account(&tw[i], st, sum);
			if (left != ULONG_MAX)
				left -= min(left, tc->nr_tossed);
			if (tc->nr_tossed < tc->nr_to_toss) {
				node_clear(tw[i].nid, play);
				if (n && tc->nr_too_big)
					node_set(tw[i].nid, reserve);
			}
		}
		if (req->nr_pages == ULONG_MAX)
			break;
	}
unlock:
	for (i = nr - 1; i >= 0; i--)
		if (tw[i].locked)
			toss_node_unlock(tw[i].nid);
	kfree(tw);
	return ret;
}

/*
 * The memory controller's css of the cpuset's own cgroup, referenced, or
 * NULL when the controller is not enabled on that cgroup (in v1: when the
 * memory controller is not mounted together with cpuset).
 */
#ifdef CONFIG_MEMCG
static struct cgroup_subsys_state *toss_memcg_css(struct cpuset *cs)
{
	struct cgroup_subsys_state *css;

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

static int __init cpuset_toss_init(void)
{
	/*
	 * Unbound: the scheduler keeps the workers on the node they were
	 * queued for where it can, and off isolated CPUs.  Without it, the
	 * writer walks the nodes itself.
	 */
	toss_wq = alloc_workqueue("toss_cache", WQ_UNBOUND | WQ_SYSFS, 0);
	return 0;
}
core_initcall(cpuset_toss_init);

/*
 * Log a toss as drop_caches does, at most DEFAULT_RATELIMIT_BURST lines per
 * interval and per cpuset; what was suppressed is counted in the next line.
 */
static void toss_log(struct cpuset *cs, struct cpuset_toss_stat *st,
		     const nodemask_t *nodes, const struct toss_control *sum,
		     u64 took, int ret)
{
	char comm[TASK_COMM_LEN];
	int missed = 0;
	bool print;

	spin_lock(&st->lock);
	print = __ratelimit(&st->rs);
	if (print) {
		missed = st->rs.missed;
		st->rs.missed = 0;
	}
	spin_unlock(&st->lock);
	if (!print)
		return;
	get_task_comm(comm, current);
	pr_info("%*pE (%d): cpuset.memory_toss_cache: cgroup %llu nodes %*pbl: tossed %lu kB, kept %lu kB dirty, %lu kB writeback, %lu kB mapped, %lu kB busy in %llu ms, error %d (%d earlier lines of this cpuset suppressed)\n",
		(int)strlen(comm), comm, task_tgid_nr(current),
		cgroup_id(cs->css.cgroup), nodemask_pr_args(nodes),
		sum->nr_tossed << (PAGE_SHIFT - 10),
		sum->nr_dirty << (PAGE_SHIFT - 10),
		sum->nr_writeback << (PAGE_SHIFT - 10),
		sum->nr_mapped << (PAGE_SHIFT - 10),
		sum->nr_busy << (PAGE_SHIFT - 10),
		div_u64(took, NSEC_PER_MSEC), ret, missed);
}

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
 * Context: Process context, may sleep; takes and drops cpuset_mutex.
 * Return: @nbytes on success, -EINVAL for bad input, -ERANGE for a size
 * that does not fit in 64 bits, -EPERM without CAP_SYS_ADMIN (scope=node),
 * -EOPNOTSUPP for scope=cgroup without the memory controller on the
 * cgroup, -ENODEV for a cpuset going away (before the toss or during it),
 * -EINTR on a fatal signal, -EAGAIN when a limited toss dropped less than
 * asked or a node could not reach its free= target.
 */
ssize_t cpuset_toss_cache_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct cpuset *cs = css_cs(of_css(of));
	struct cpuset_toss_stat *st = cs->toss_stat;
	struct cgroup_subsys_state *memcg_css = NULL;
	struct toss_control sum = {};
	struct toss_request req;
	nodemask_t nodes;
	u64 start, took;
	int nid, ret;

	if (!st)
		return -ENOMEM;
	if (nbytes > TOSS_MAX_INPUT)
		return -EINVAL;
	ret = toss_parse(buf, &req);
	if (ret)
		return ret;
	if (!req.scope_cgroup &&
	    !file_ns_capable(of->file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;

	/* Snapshot the nodes, then drop every lock before doing any work. */
	cpuset_lock();
	if (!is_cpuset_online(cs)) {
		cpuset_unlock();
		return -ENODEV;
	}
	nodes = cs->effective_mems;
	cpuset_unlock();

	if (req.nodes_set) {
		if (!nodes_subset(req.nodes, nodes) ||
		    !nodes_subset(req.nodes, node_states[N_MEMORY]))
			return -EINVAL;
		nodes = req.nodes;
	}
	nodes_and(nodes, nodes, node_states[N_MEMORY]);

	if (req.scope_cgroup) {
		memcg_css = toss_memcg_css(cs);
		if (!memcg_css)
			return -EOPNOTSUPP;
	}

	/* rmdir must not wait for us: hold the css, not the file. */
	css_get(&cs->css);
	kernfs_break_active_protection(of->kn);

	start = ktime_get_ns();
	lru_add_drain_all();
	ret = toss_nodes(&nodes, &req,
			 memcg_css ? mem_cgroup_from_css(memcg_css) : NULL,
			 cs, st, &sum);
	if (memcg_css)
		css_put(memcg_css);
	if (!ret && req.free_pages) {
		for_each_node_mask(nid, nodes)
			if (toss_node_free_pages(nid) < req.free_pages)
				ret = -EAGAIN;
	} else if (!ret && req.nr_pages != ULONG_MAX &&
		   sum.nr_tossed < req.nr_pages) {
		ret = -EAGAIN;
	}
	took = ktime_get_ns() - start;

	spin_lock(&st->lock);
	st->nr_tosses++;
	st->last = sum;
	st->last_duration_ns = took;
	put_pid(st->last_pid);
	st->last_pid = get_task_pid(current, PIDTYPE_TGID);
	st->last_error = ret;
	spin_unlock(&st->lock);
	toss_log(cs, st, &nodes, &sum, took, ret);

	kernfs_unbreak_active_protection(of->kn);
	css_put(&cs->css);
	return ret ?: nbytes;
}
