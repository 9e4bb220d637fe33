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
 * Every toss is counted in cpuset.memory_toss_cache.stat, a read-only
 * flat-keyed file next to it: the number of tosses, the bytes tossed per
 * node, and what the last toss scanned, tossed and kept, who asked for it,
 * how long it took and how it ended.
 *
 * Locking: the cpuset's effective mems are read once under cpuset_mutex,
 * then every lock is dropped before any page is looked at.  The walk itself
 * (mm/toss_cache.c) holds no lock across pages, reschedules regularly and
 * stops on a fatal signal.
 */

#include <linux/capability.h>
#include <linux/completion.h>
#include <linux/cpu.h>
#include <linux/ctype.h>
#include <linux/cgroup.h>
#include <linux/cpuset.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/parser.h>
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
	struct {
		u64 nr_tosses;
		struct toss_control last;
		u64 last_duration_ns;
		pid_t last_pid;
		int last_error;
	} s;
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

/* A size in bytes, at least one page worth, as pages (rounded up). */
static int toss_parse_size(const char *str, unsigned long *pages)
{
	unsigned long long bytes;
	char *end;

	if (!isdigit(*str))
		return -EINVAL;
	bytes = memparse(str, &end);
	if (*end || !bytes)
		return -EINVAL;
	bytes = DIV_ROUND_UP_ULL(bytes, PAGE_SIZE);
	*pages = min_t(unsigned long long, bytes, ULONG_MAX - 1);
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

	memset(req, 0, sizeof(*req));
	buf = strstrip(buf);
	amount = strsep(&buf, " ");
	if (!amount || !*amount)
		return -EINVAL;

	if (!strcmp(amount, "1") || !strcmp(amount, "max"))
		req->nr_pages = ULONG_MAX;
	else if (toss_parse_size(amount, &req->nr_pages))
		return -EINVAL;

	while ((start = strsep(&buf, " ")) != NULL) {
		char *list;
		int ret;

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
			ret = toss_parse_size(list, &req->free_pages);
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

/*
 * Toss up to @req->nr_pages over @nodes: a first round gives each node an
 * equal share of what is still wanted, and a second round lets the nodes
 * that met their share make up for those that could not.
 */
/* The cpuset's statistics, allocated by its first toss; NULL if no memory. */
static struct cpuset_toss_stat *toss_stat_get(struct cpuset *cs)
{
	/* Pairs with the cmpxchg_release() below: *st is initialized. */
	struct cpuset_toss_stat *st = smp_load_acquire(&cs->toss_stat);

	if (st)
		return st;
	st = kzalloc(struct_size(st, tossed, nr_node_ids), GFP_KERNEL);
	if (!st)
		return NULL;
	spin_lock_init(&st->lock);
	/* Publish an initialized *st; a racing first toss may win. */
	if (cmpxchg_release(&cs->toss_stat, NULL, st)) {
		kfree(st);
		/* Pairs with the winner's cmpxchg_release(). */
		st = smp_load_acquire(&cs->toss_stat);
	}
	return st;
}

void cpuset_toss_free(struct cpuset *cs)
{
	kfree(cs->toss_stat);
}

int cpuset_toss_stat_show(struct seq_file *sf, void *v)
{
	struct cpuset *cs = css_cs(seq_css(sf));
	/* Pairs with the cmpxchg_release() in toss_stat_get(). */
	struct cpuset_toss_stat *st = smp_load_acquire(&cs->toss_stat);
	struct cpuset_toss_stat zero = {};
	u64 total = 0;
	int nid;

	if (!st) {
		seq_puts(sf, "tosses 0\ntossed_bytes 0\ntossed");
		for_each_node_state(nid, N_MEMORY)
			seq_printf(sf, " N%d=0", nid);
		seq_putc(sf, '\n');
		st = &zero;
		goto last;
	}
	spin_lock(&st->lock);
	for (nid = 0; nid < nr_node_ids; nid++)
		total += st->tossed[nid];
	seq_printf(sf, "tosses %llu\n", st->s.nr_tosses);
	seq_printf(sf, "tossed_bytes %llu\n", total << PAGE_SHIFT);
	seq_puts(sf, "tossed");
	for_each_node_state(nid, N_MEMORY)
		seq_printf(sf, " N%d=%llu", nid, st->tossed[nid] << PAGE_SHIFT);
	seq_putc(sf, '\n');
	spin_unlock(&st->lock);
last:
	/* The last toss: a torn read of these is harmless. */
	seq_printf(sf, "last_pid %d\n", READ_ONCE(st->s.last_pid));
	seq_printf(sf, "last_error %d\n", READ_ONCE(st->s.last_error));
	seq_printf(sf, "last_duration_us %llu\n",
		   div_u64(READ_ONCE(st->s.last_duration_ns), NSEC_PER_USEC));
	seq_printf(sf, "last_scanned_bytes %lu\n",
		   READ_ONCE(st->s.last.nr_scanned) << PAGE_SHIFT);
	seq_printf(sf, "last_tossed_bytes %lu\n",
		   READ_ONCE(st->s.last.nr_tossed) << PAGE_SHIFT);
	seq_printf(sf, "last_dirty_bytes %lu\n",
		   READ_ONCE(st->s.last.nr_dirty) << PAGE_SHIFT);
	seq_printf(sf, "last_writeback_bytes %lu\n",
		   READ_ONCE(st->s.last.nr_writeback) << PAGE_SHIFT);
	seq_printf(sf, "last_mapped_bytes %lu\n",
		   READ_ONCE(st->s.last.nr_mapped) << PAGE_SHIFT);
	seq_printf(sf, "last_busy_bytes %lu\n",
		   READ_ONCE(st->s.last.nr_busy) << PAGE_SHIFT);
	seq_printf(sf, "last_slab_objects %lu\n",
		   READ_ONCE(st->s.last.nr_slab));
	return 0;
}

/*
 * Each node's share of a toss runs as a work item on a CPU of that node (a
 * node without CPUs: of the nearest node with CPUs), all nodes at once, as
 * the 2005 patch ran one kernel thread per node.  The writer waits for all
 * of them; a fatal signal makes them stop at their next batch.
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
	int ret;
	struct toss_control tc;
};

/*
 * Stop when the writer was killed, or when the cgroup is being removed:
 * rmdir waits for this write to end (kernfs drains the file's active
 * references) after it marked the css dying.
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
 * The CPU that works for @nid: one of its own, or of the nearest node with
 * CPUs.  The workqueue is per-CPU, so the walk stays on that CPU.
 */
static int toss_cpu(int nid)
{
	int n, best = nid, dist = INT_MAX;
	unsigned int cpu;

	if (!node_state(nid, N_CPU)) {
		for_each_node_state(n, N_CPU) {
			if (node_distance(nid, n) < dist) {
				dist = node_distance(nid, n);
				best = n;
			}
		}
	}
	cpu = cpumask_any_and(cpumask_of_node(best), cpu_online_mask);
	return cpu < nr_cpu_ids ? cpu : raw_smp_processor_id();
}

/*
 * Run one round: toss @want[i] pages on node @tw[i].nid, all nodes at once.
 * Returns 0, -EINTR when the writer was killed, or the first error of a
 * node (-ENODEV when the cgroup went away).
 */
static int toss_round(struct toss_work *tw, int nr, struct toss_job *job)
{
	int i, ret = 0;

	atomic_set(&job->pending, nr + 1);
	init_completion(&job->done);
	/* Queue on online CPUs: an offlined CPU's work moves elsewhere. */
	cpus_read_lock();
	for (i = 0; i < nr; i++) {
		INIT_WORK(&tw[i].work, toss_work_fn);
		tw[i].job = job;
		queue_work_on(toss_cpu(tw[i].nid), toss_wq, &tw[i].work);
	}
	cpus_read_unlock();
	if (!atomic_dec_and_test(&job->pending) &&
	    wait_for_completion_killable(&job->done)) {
		atomic_set(&job->abort, 1);
		wait_for_completion(&job->done);
		ret = -EINTR;
	}
	for (i = 0; i < nr && !ret; i++)
		ret = tw[i].ret;
	return ret;
}

/*
 * Toss up to @nr_pages over @nodes: each round gives every node still in
 * play an equal share of what is still wanted; the nodes that met their
 * share play the next round, up to four rounds.
 */
static int toss_nodes(const nodemask_t *nodes, const struct toss_request *req,
		      struct mem_cgroup *memcg, struct cpuset *cs,
		      struct cpuset_toss_stat *st, struct toss_control *sum)
{
	unsigned long nr_pages = req->nr_pages;
	struct toss_job job = { .css = &cs->css };
	nodemask_t play = *nodes;
	struct toss_work *tw;
	int round, nid, nr, i, ret = 0;

	tw = kcalloc(nodes_weight(*nodes), sizeof(*tw), GFP_KERNEL);
	if (!tw)
		return -ENOMEM;
	for (round = 0; round < 4 && !ret && sum->nr_tossed < nr_pages; round++) {
		unsigned long want = nr_pages;

		nr = nodes_weight(play);
		if (!nr)
			break;
		if (nr_pages != ULONG_MAX)
			want = DIV_ROUND_UP(nr_pages - sum->nr_tossed, nr);
		i = 0;
		for_each_node_mask(nid, play) {
			memset(&tw[i], 0, sizeof(tw[i]));
			tw[i].nid = nid;
			tw[i].tc.cgroup_id = cgroup_id(cs->css.cgroup);
			tw[i].tc.nr_to_toss = min(want, nr_pages - sum->nr_tossed);
			tw[i].tc.free_target = req->free_pages;
			tw[i].tc.memcg = memcg;
			/* Slab once per node, in the first round. */
			tw[i].tc.slab = req->slab && !round;
			tw[i].tc.should_stop = toss_should_stop;
			tw[i].tc.stop_data = &job;
			i++;
		}
		ret = toss_round(tw, nr, &job);
		nodes_clear(play);
		for (i = 0; i < nr; i++) {
			struct toss_control *tc = &tw[i].tc;

			if (st) {
				spin_lock(&st->lock);
				st->tossed[tw[i].nid] += tc->nr_tossed;
				spin_unlock(&st->lock);
			}
			sum->nr_scanned += tc->nr_scanned;
			sum->nr_tossed += tc->nr_tossed;
			sum->nr_dirty += tc->nr_dirty;
			sum->nr_writeback += tc->nr_writeback;
			sum->nr_mapped += tc->nr_mapped;
			sum->nr_busy += tc->nr_busy;
			sum->nr_slab += tc->nr_slab;
			if (tc->nr_tossed && tc->nr_tossed >= tc->nr_to_toss)
				node_set(tw[i].nid, play);
		}
		if (nr_pages == ULONG_MAX)
			break;
	}
	kfree(tw);
	return ret;
}

/*
 * The memory controller's css of the cpuset's own cgroup, referenced, or
 * NULL when the controller is not enabled on that cgroup (nor in v1, where
 * it is on another hierarchy).
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
	/* Per-CPU, and long walks must not hold up other work on the CPU. */
	toss_wq = alloc_workqueue("toss_cache", WQ_CPU_INTENSIVE, 0);
	if (!toss_wq)
		toss_wq = system_wq;
	return 0;
}
core_initcall(cpuset_toss_init);

/**
 * cpuset_toss_cache_write - write handler of cpuset.memory_toss_cache
 * @of: the open file; its opener's credentials decide the permission
 * @buf: "<amount> [nodes=<list>] [free=<size>] [scope=node|cgroup] [slab=0|1]"
 * @nbytes: length of @buf
 * @off: ignored
 *
 * Parses the request, snapshots the cpuset's effective mems, drops every
 * lock and tosses the clean, unmapped page cache of the target nodes.
 *
 * Context: Process context, may sleep; takes and drops cpuset_mutex.
 * Return: @nbytes on success, -EINVAL for bad input, -EPERM without
 * CAP_SYS_ADMIN (scope=node), -EOPNOTSUPP for scope=cgroup without the
 * memory controller on the cgroup, -ENODEV for a cpuset going away (before the toss or
 * during it: its rmdir ends the toss), -EINTR on a fatal signal,
 * -EAGAIN when a limited toss dropped less than asked.
 */
ssize_t cpuset_toss_cache_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct cpuset *cs = css_cs(of_css(of));
	struct toss_control sum = {};
	struct cgroup_subsys_state *memcg_css = NULL;
	struct cpuset_toss_stat *st;
	struct toss_request req;
	nodemask_t nodes;
	u64 start, took;
	int nid, ret;

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

	st = toss_stat_get(cs);
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

	if (st) {
		spin_lock(&st->lock);
		st->s.nr_tosses++;
		st->s.last = sum;
		st->s.last_duration_ns = took;
		st->s.last_pid = task_pid_nr(current);
		st->s.last_error = ret;
		spin_unlock(&st->lock);
	}
	pr_info_ratelimited("%s (%d): cpuset.memory_toss_cache: cgroup %llu nodes %*pbl: tossed %lu kB, kept %lu kB dirty, %lu kB writeback, %lu kB mapped, %lu kB busy in %llu ms, error %d\n",
			    current->comm, task_pid_nr(current),
			    cgroup_id(cs->css.cgroup), nodemask_pr_args(&nodes),
			    sum.nr_tossed << (PAGE_SHIFT - 10),
			    sum.nr_dirty << (PAGE_SHIFT - 10),
			    sum.nr_writeback << (PAGE_SHIFT - 10),
			    sum.nr_mapped << (PAGE_SHIFT - 10),
			    sum.nr_busy << (PAGE_SHIFT - 10),
			    div_u64(took, NSEC_PER_MSEC), ret);
	return ret ?: nbytes;
}
