// SPDX-License-Identifier: GPL-2.0
/*
 * cpuset.memory_toss_cache: drop the clean, unmapped page cache held on the
 * memory nodes of a cpuset, for the job manager that owns it.  The front
 * end of toss_cache() (mm/toss_cache.c), which decides what to drop and
 * how: here the request is parsed (memory.reclaim's grammar), permission
 * checked, the cpuset's own nodes taken, and the toss counted and logged.
 * scope=node needs CAP_SYS_ADMIN of the opener: it drops other tenants'
 * unprotected cache too.  scope=cgroup drops the cgroup's own, as
 * memory.reclaim's clean_cache=1 does.
 */

#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/cgroup.h>
#include <linux/cpuset.h>
#include <linux/ktime.h>
#include <linux/memcontrol.h>
#include <linux/mm.h>
#include <linux/nodemask.h>
#include <linux/parser.h>
#include <linux/ratelimit.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/swap.h>
#include <linux/toss_cache.h>

#include "cpuset-internal.h"

/* Longest write accepted; longer input is -EINVAL. */
#define TOSS_MAX_INPUT	1024

/* What separates the amount and the keys. */
#define TOSS_SPACE	" \t\n"

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

/*
 * What cpuset.memory_toss_cache.stat and .numa_stat show: monotonic
 * counters over every toss of the cpuset, in the order of toss_stat_keys[]
 * (sizes in pages), then the pages tossed per node.
 */
enum {
	TOSS_TOSSES, TOSS_FAILED, TOSS_NSEC, TOSS_SCANNED, TOSS_TOSSED,
	TOSS_DIRTY, TOSS_WRITEBACK, TOSS_MAPPED, TOSS_BUSY, TOSS_SLAB,
	TOSS_NR_STATS
};

static const char * const toss_stat_keys[TOSS_NR_STATS] = {
	"tosses", "tosses_failed", "toss_usec", "scanned_bytes",
	"tossed_bytes", "kept_dirty_bytes", "kept_writeback_bytes",
	"kept_mapped_bytes", "kept_busy_bytes", "slab_objects",
};

struct cpuset_toss_stat {
	spinlock_t lock;		/* protects all below */
	u64 c[TOSS_NR_STATS];
	u64 tossed[];			/* per node id */
};

struct toss_request_args {
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
 * A size as whole pages: an amount to toss rounded down, never more than
 * asked, and less than a page is -EINVAL; a free memory target (@up)
 * rounded up, at least that much free, and 0 is -EINVAL.
 */
static int toss_parse_pages(const char *str, bool up, unsigned long *pages)
{
	u64 bytes;
	int ret = toss_parse_bytes(str, &bytes);

	if (ret)
		return ret;
	if (!bytes || (!up && bytes < PAGE_SIZE))
		return -EINVAL;
	bytes = (bytes >> PAGE_SHIFT) + (up && (bytes & ~PAGE_MASK));
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
static int toss_parse(char *buf, struct toss_request_args *req)
{
	substring_t args[MAX_OPT_ARGS];
	char *amount, *start;
	int ret;

	memset(req, 0, sizeof(*req));
	buf = strstrip(buf);
	amount = strsep(&buf, TOSS_SPACE);
	if (!amount || !*amount)
		return -EINVAL;

	if (!strcmp(amount, "1") || !strcmp(amount, "max")) {
		req->nr_pages = ULONG_MAX;
	} else {
		ret = toss_parse_pages(amount, false, &req->nr_pages);
		if (ret)
			return ret;
	}

	/* Each key is a string of its own: args[0] ends where it does. */
	while ((start = strsep(&buf, TOSS_SPACE)) != NULL) {
		if (!*start)
			continue;
		switch (match_token(start, toss_tokens, args)) {
		case TOSS_KEY_NODES:
			if (req->nodes_set ||
			    nodelist_parse(args[0].from, req->nodes) ||
			    nodes_empty(req->nodes))
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
			ret = toss_parse_pages(args[0].from, true,
					       &req->free_pages);
			if (ret)
				return ret;
			break;
		default:
			return -EINVAL;
		}
	}
	/*
	 * Not for scope=cgroup, which may touch only its own: a free memory
	 * target, which is the node's, and checking it drains every CPU's free
	 * page lists; slab=1, as the super blocks' shrinkers also free file
	 * systems' own cached objects (XFS inodes, say), which know neither
	 * the node nor the memcg.
	 */
	if (req->scope_cgroup && (req->free_pages || req->slab))
		return -EINVAL;
	return 0;
}

/*
 * A write of @nbytes at @buf: no longer than TOSS_MAX_INPUT, no NUL inside
 * it (it must not cut the request short), then toss_parse().
 */
static int toss_parse_write(char *buf, size_t nbytes, struct toss_request_args *req)
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
static int toss_pick_nodes(const struct toss_request_args *req, nodemask_t *nodes,
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
	toss_cache_wake(cs);
}

/**
 * cpuset_toss_stat_show - show cpuset.memory_toss_cache.stat
 * @sf: the seq_file of the reader
 * @v: unused
 *
 * Flat keyed, as memory.stat is: one "key value" line per counter, every
 * counter monotonic over the cpuset's life.
 *
 * Return: 0, or -ENOMEM for the root cpuset if its statistics could not
 * be allocated at boot.
 */
int cpuset_toss_stat_show(struct seq_file *sf, void *v)
{
	struct cpuset_toss_stat *st = css_cs(seq_css(sf))->toss_stat;
	u64 c[TOSS_NR_STATS];
	int i;

	if (!st)
		return -ENOMEM;
	spin_lock(&st->lock);
	memcpy(c, st->c, sizeof(c));
	spin_unlock(&st->lock);
	c[TOSS_NSEC] = div_u64(c[TOSS_NSEC], NSEC_PER_USEC);
	for (i = TOSS_SCANNED; i < TOSS_SLAB; i++)
		c[i] <<= PAGE_SHIFT;
	for (i = 0; i < TOSS_NR_STATS; i++)
		seq_printf(sf, "%s %llu\n", toss_stat_keys[i], c[i]);
	return 0;
}

/**
 * cpuset_toss_numa_stat_show - show cpuset.memory_toss_cache.numa_stat
 * @sf: the seq_file of the reader
 * @v: unused
 *
 * Nested keyed, as memory.numa_stat is: "tossed N0=<bytes> N1=<bytes>
 * ..." for every node with memory.
 *
 * Return: 0, or -ENOMEM as cpuset_toss_stat_show().
 */
int cpuset_toss_numa_stat_show(struct seq_file *sf, void *v)
{
	struct cpuset_toss_stat *st = css_cs(seq_css(sf))->toss_stat;
	int nid;

	if (!st)
		return -ENOMEM;
	seq_puts(sf, "tossed");
	spin_lock(&st->lock);
	for_each_node_state(nid, N_MEMORY)
		seq_printf(sf, " N%d=%llu", nid, st->tossed[nid] << PAGE_SHIFT);
	spin_unlock(&st->lock);
	seq_putc(sf, '\n');
	return 0;
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
 * scope=cgroup within their shared budget, with the count of those
 * suppressed since the last line when there were any.
 */
static void toss_log(struct cpuset *cs, const struct toss_request_args *req,
		     const nodemask_t *nodes, const struct toss_result *sum,
		     u64 took, int ret)
{
	char comm[TASK_COMM_LEN], more[48] = "";
	int missed = 0;

	if (req->scope_cgroup) {
		if (!__ratelimit(&toss_cgroup_rs)) {
			atomic_inc(&toss_cgroup_missed);
			return;
		}
		missed = atomic_xchg(&toss_cgroup_missed, 0);
	}
	if (missed)
		snprintf(more, sizeof(more),
			 " (%d earlier scope=cgroup lines suppressed)", missed);
	get_task_comm(comm, current);
	pr_info("%*pE (%d): cpuset.memory_toss_cache: cgroup %llu scope=%s nodes %*pbl: tossed %lu kB, kept %lu kB dirty, %lu kB writeback, %lu kB mapped, %lu kB busy in %llu ms, error %d%s\n",
		(int)strlen(comm), comm, task_tgid_nr(current),
		cgroup_id(cs->css.cgroup), req->scope_cgroup ? "cgroup" : "node",
		nodemask_pr_args(nodes),
		sum->nr_tossed << (PAGE_SHIFT - 10),
		sum->nr_dirty << (PAGE_SHIFT - 10),
		sum->nr_writeback << (PAGE_SHIFT - 10),
		sum->nr_mapped << (PAGE_SHIFT - 10),
		sum->nr_busy << (PAGE_SHIFT - 10),
		div_u64(took, NSEC_PER_MSEC), ret, more);
}

/*
 * The nodes a toss of @cs covers, read once: its effective mems.  -ENODEV
 * when the cpuset is going away.  -EINVAL when it has no nodes of its own:
 * it never set cpuset.mems (it inherits its parent's) and the nodes are not
 * @named (nodes=, or scope=cgroup, which drops only its own), or none of
 * its cpuset.mems is effective (they fell back to its parent's), named or
 * not.
 * callback_lock, not cpuset_mutex, so that nothing here makes rmdir wait.
 */
static int toss_snapshot_nodes(struct cpuset *cs, bool named,
			       nodemask_t *nodes)
{
	int ret = 0;

	cpuset_callback_lock_irq();
	if (!is_cpuset_online(cs) || css_is_dying(&cs->css))
		ret = -ENODEV;
	else if (parent_cs(cs) && nodes_empty(cs->mems_allowed) && !named)
		ret = -EINVAL;
	else if (!nodes_empty(cs->mems_allowed) &&
		 !nodes_intersects(cs->mems_allowed, cs->effective_mems))
		ret = -EINVAL;
	*nodes = cs->effective_mems;
	cpuset_callback_unlock_irq();
	return ret;
}

/*
 * The CPUs a toss of the cpuset @data may run its workers on, read every
 * 10 ms by each worker: without callback_lock, which is global and taken
 * with interrupts off, as cpuset_cpus_allowed_fallback() reads cpus_allowed.
 * A read during an update may mix the old and the new mask; every CPU in
 * it is in one of them, and the old one serves until the next read anyway.
 */
static void toss_cpuset_cpus(void *data, struct cpumask *mask)
{
	struct cpuset *cs = data;

	/* Racing with an update of the mask: see above. */
	data_race(memcpy(cpumask_bits(mask), cpumask_bits(cs->effective_cpus),
			 cpumask_size()));
}

/* A toss stops when its cgroup is being removed: rmdir does not wait. */
static bool toss_cpuset_dying(void *data)
{
	struct cpuset *cs = data;

	return css_is_dying(&cs->css);
}

/*
 * What a write keeps for the length of its toss, allocated rather than on
 * the stack: with NODES_SHIFT=10 a nodemask_t is 128 bytes.
 */
struct toss_write {
	struct toss_request req;
	struct toss_result res;
	u64 tossed[];			/* per node id */
};

/**
 * cpuset_toss_cache_write - write handler of cpuset.memory_toss_cache
 * @of: the open file; its opener's credentials decide the permission
 * @buf: "<amount> [nodes=<list>] [free=<size>] [scope=node|cgroup] [slab=0|1]"
 * @nbytes: length of @buf
 * @off: ignored
 *
 * Parses the request, snapshots the cpuset's effective mems, drops every
 * lock and has toss_cache() drop the clean, unmapped page cache of the
 * target nodes.  The file's active reference is given up for the toss (the
 * css stays pinned): rmdir never waits, the toss sees the cgroup dying and
 * stops at its next batch.
 *
 * Context: Process context, may sleep; takes and drops callback_lock.
 * Return: @nbytes on success; -EINVAL for bad input or a toss of a cpuset
 * without nodes of its own (none set, or none effective); -ERANGE for a size
 * beyond 64 bits; -EPERM without CAP_SYS_ADMIN (scope=node); -EOPNOTSUPP
 * for scope=cgroup without the memory controller; -ENODEV for a cpuset
 * going away; -EINTR on a signal; -EAGAIN when a limited toss dropped less
 * than asked or a node missed its free= target; -ENOMEM.
 */
ssize_t cpuset_toss_cache_write(struct kernfs_open_file *of, char *buf,
				size_t nbytes, loff_t off)
{
	struct cpuset *cs = css_cs(of_css(of));
	struct cpuset_toss_stat *st = cs->toss_stat;
	struct cgroup_subsys_state *memcg_css = NULL;
	struct toss_request_args args;
	struct toss_write *w;
	u64 start, took;
	int nid, ret;

	if (!st)
		return -ENOMEM;
	ret = toss_parse_write(buf, nbytes, &args);
	if (ret)
		return ret;
	if (!args.scope_cgroup &&
	    !file_ns_capable(of->file, &init_user_ns, CAP_SYS_ADMIN))
		return -EPERM;

	w = kzalloc(struct_size(w, tossed, nr_node_ids), GFP_KERNEL_ACCOUNT);
	if (!w)
		return -ENOMEM;

	/* Snapshot the nodes, then no lock is held for any work. */
	ret = toss_snapshot_nodes(cs, args.nodes_set || args.scope_cgroup,
				  &w->req.nodes);
	if (!ret)
		ret = toss_pick_nodes(&args, &w->req.nodes,
				      &node_states[N_MEMORY]);
	if (!ret && args.scope_cgroup) {
		memcg_css = toss_memcg_css(cs);
		if (!memcg_css)
			ret = -EOPNOTSUPP;
	}
	if (ret) {
		kfree(w);
		return ret;
	}
	w->req.nr_pages = args.nr_pages;
	w->req.free_pages = args.free_pages;
	w->req.memcg = memcg_css ? mem_cgroup_from_css(memcg_css) : NULL;
	w->req.slab = args.slab;
	w->req.cpus = toss_cpuset_cpus;
	w->req.should_stop = toss_cpuset_dying;
	w->req.data = cs;
	w->req.id = cgroup_id(cs->css.cgroup);
	w->res.node_tossed = w->tossed;

	/*
	 * rmdir must not wait for us: hold the css, not the file.  From here
	 * on, of->priv may be freed by kernfs_drain_open_files(): only of->kn
	 * is used.
	 */
	css_get(&cs->css);
	kernfs_break_active_protection(of->kn);

	start = ktime_get_ns();
	/*
	 * Folios still in per-CPU batches are not on the LRU yet.  Only the
	 * CPUs that do the toss's work drain theirs, as memory.reclaim drains
	 * only the local CPU until its last retry: no other CPU, isolated
	 * ones included, is made to run drain work.
	 */
	lru_add_drain();
	ret = toss_cache(&w->req, &w->res);
	if (memcg_css)
		css_put(memcg_css);
	took = ktime_get_ns() - start;

	spin_lock(&st->lock);
	st->c[TOSS_TOSSES]++;
	st->c[TOSS_FAILED] += !!ret;
	st->c[TOSS_NSEC] += took;
	st->c[TOSS_SCANNED] += w->res.nr_scanned;
	st->c[TOSS_TOSSED] += w->res.nr_tossed;
	st->c[TOSS_DIRTY] += w->res.nr_dirty;
	st->c[TOSS_WRITEBACK] += w->res.nr_writeback;
	st->c[TOSS_MAPPED] += w->res.nr_mapped;
	st->c[TOSS_BUSY] += w->res.nr_busy;
	st->c[TOSS_SLAB] += w->res.nr_slab;
	for (nid = 0; nid < nr_node_ids; nid++)
		st->tossed[nid] += w->tossed[nid];
	spin_unlock(&st->lock);
	toss_log(cs, &args, &w->req.nodes, &w->res, took, ret);
	kfree(w);

	kernfs_unbreak_active_protection(of->kn);
	css_put(&cs->css);
	return ret ?: nbytes;
}

#ifdef CONFIG_CPUSET_TOSS_KUNIT_TEST
#include "cpuset-toss-kunit.h"
#endif
