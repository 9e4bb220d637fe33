/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM toss_cache

#if !defined(_TRACE_TOSS_CACHE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_TOSS_CACHE_H

#include <linux/tracepoint.h>

/* Private to mm/toss_cache.c, the only user of these events. */
struct toss_control;

TRACE_EVENT(toss_node_begin,
	    TP_PROTO(const struct toss_control *tc, int nid),

	    TP_ARGS(tc, nid),

	    TP_STRUCT__entry(__field(u64, cgroup_id)
			     __field(int, nid)
			     __field(unsigned long, nr_to_toss)
			     __field(bool, lru)
			     __field(unsigned int, worker)
			     __field(unsigned int, nr_workers)
			     __field(bool, slab)),

	    TP_fast_assign(__entry->cgroup_id = tc->req->id;
			   __entry->nid = nid;
			   __entry->nr_to_toss = tc->nr_to_toss;
			   __entry->lru = tc->lru;
			   __entry->worker = tc->worker;
			   __entry->nr_workers = tc->nr_workers;
			   __entry->slab = tc->slab;),

	    TP_printk("cgroup_id=%llu nid=%d nr_to_toss=%lu lru=%d worker=%u nr_workers=%u slab=%d",
		      __entry->cgroup_id, __entry->nid, __entry->nr_to_toss,
		      __entry->lru, __entry->worker, __entry->nr_workers,
		      __entry->slab)
);

TRACE_EVENT(toss_node_end,
	    TP_PROTO(const struct toss_control *tc, int nid, u64 duration_ns,
		     int ret),

	    TP_ARGS(tc, nid, duration_ns, ret),

	    TP_STRUCT__entry(__field(u64, cgroup_id)
			     __field(int, nid)
			     __field(unsigned long, nr_scanned)
			     __field(unsigned long, nr_tossed)
			     __field(unsigned long, nr_dirty)
			     __field(unsigned long, nr_writeback)
			     __field(unsigned long, nr_mapped)
			     __field(unsigned long, nr_busy)
			     __field(u64, duration_ns)
			     __field(int, ret)
			     __field(unsigned long, nr_too_big)
			     __field(unsigned long, nr_slab)
			     __field(unsigned int, walks)
			     __field(unsigned int, max_hold)
			     __field(unsigned long, nr_runs)
			     __field(unsigned long, nr_run_folios)
			     __field(unsigned long, nr_looked)),

	    TP_fast_assign(__entry->cgroup_id = tc->req->id;
			   __entry->nid = nid;
			   __entry->nr_scanned = tc->nr_scanned;
			   __entry->nr_tossed = tc->nr_tossed;
			   __entry->nr_dirty = tc->nr_dirty;
			   __entry->nr_writeback = tc->nr_writeback;
			   __entry->nr_mapped = tc->nr_mapped;
			   __entry->nr_busy = tc->nr_busy;
			   __entry->duration_ns = duration_ns;
			   __entry->ret = ret;
			   __entry->nr_too_big = tc->nr_too_big;
			   __entry->nr_slab = tc->nr_slab;
			   __entry->walks = tc->nr_walks;
			   __entry->max_hold = tc->max_hold;
			   __entry->nr_runs = tc->nr_runs;
			   __entry->nr_run_folios = tc->nr_run_folios;
			   __entry->nr_looked = tc->nr_looked;),

	    TP_printk("cgroup_id=%llu nid=%d nr_scanned=%lu nr_tossed=%lu nr_dirty=%lu nr_writeback=%lu nr_mapped=%lu nr_busy=%lu duration_ns=%llu ret=%d nr_too_big=%lu nr_slab=%lu walks=%u max_hold=%u nr_runs=%lu nr_run_folios=%lu nr_looked=%lu",
		      __entry->cgroup_id, __entry->nid, __entry->nr_scanned,
		      __entry->nr_tossed, __entry->nr_dirty, __entry->nr_writeback,
		      __entry->nr_mapped, __entry->nr_busy, __entry->duration_ns,
		      __entry->ret, __entry->nr_too_big, __entry->nr_slab,
		      __entry->walks, __entry->max_hold, __entry->nr_runs,
		      __entry->nr_run_folios, __entry->nr_looked)
);

#endif /* _TRACE_TOSS_CACHE_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
