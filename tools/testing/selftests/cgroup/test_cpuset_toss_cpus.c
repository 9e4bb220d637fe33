// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of cpuset.memory_toss_cache: on which CPUs the work of a toss
 * runs, and by how many workers.
 *
 * Never on an isolated CPU (an isolated partition, or isolcpus= when the
 * kernel was booted with it); on the cpuset's own CPUs, not on those of a
 * sibling's partition; a node's walk shared by one worker per CPU of the
 * cpuset on it (4 at most), each with its stripe of the node.  See toss_util.c for how the page
 * cache of a node is measured.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "toss_util.h"

/* A bit per CPU that ran a toss_cache event in @trace. */
static unsigned long trace_cpus(const char *trace)
{
	unsigned long mask = 0;
	const char *p, *line;

	for (p = strstr(trace, "toss_node_"); p; p = strstr(p + 1, "toss_node_")) {
		for (line = p; line > trace && line[-1] != '\n'; line--)
			;
		line = strchr(line, '[');
		if (line && line < p && atoi(line + 1) < 64)
			mask |= 1UL << atoi(line + 1);
	}
	return mask;
}

/* Turn partition root @cg back into a member, and remove it. */
static void destroy_partition(char *cg)
{
	if (!cg)
		return;
	cg_write(cg, "cpuset.cpus.partition", "member");
	destroy(cg);
}

/*
 * The CPUs that ran toss work (trace_cpus()) while @cg was written each of
 * the @n requests of @req in turn, the nodes in @fill filled before each
 * (-EAGAIN is fine: only where the work ran matters).  -1 on a failure.
 */
static long traced_cpus(const char *cg, const char * const *req, int n,
			unsigned long fill)
{
	static char trace[1 << 16];
	int i, node, err;

	if (trace_start())
		return -1;
	for (i = 0; i < n; i++) {
		for (node = first_node(fill); node >= 0; node = next_node(node, fill))
			if (fill_node(node, node_file[node]))
				goto fail;
		err = toss(cg, req[i]);
		if (err && err != -EAGAIN)
			goto fail;
	}
	trace_stop();
	if (trace_read(trace, sizeof(trace)) <= 0)
		return -1;
	return trace_cpus(trace);
fail:
	trace_stop();
	return -1;
}

/*
 * Toss work never runs on an isolated CPU: the CPUs of isolcpus= when the
 * kernel was booted with it, otherwise those of an isolated partition made
 * here (the CPUs of a node besides the tests' own).  That node is tossed,
 * alone and with the others, and every toss_cache event of the trace must
 * come from another CPU.
 */
static int test_toss_isolated(const char *root)
{
	char buf[256], list[64], *cg = NULL, *iso = NULL, req[4][32];
	int ret = KSFT_FAIL, i, node = -1, n;
	const char *reqs[4];
	unsigned long isolated = 0;
	long ran;

	if (read_text("/sys/devices/system/cpu/isolated", buf, sizeof(buf)) > 0)
		isolated = list_mask(buf);
	if (isolated) {
		ksft_print_msg("isolcpus=%s", buf);
		for (n = first_node(mem_nodes); n >= 0 && node < 0; n = next_node(n, mem_nodes))
			if (node_cpus(n) & isolated)
				node = n;
		if (node < 0)
			return toss_skip("no node with memory has the isolated CPUs");
	} else {
		node = nth_node(CPU_NODE, 1);
		if (node < 0)
			node = nth_node(CPU_NODE, 0);
		if (node < 0)
			return toss_skip("needs a node with CPUs besides node %d", home_node);
		isolated = node_cpus(node);
		iso = cg_name(root, "toss_iso");
		cg_destroy(iso);
		if (!iso || cg_create(iso) || set_list(iso, "cpuset.cpus", isolated) ||
		    cg_write(iso, "cpuset.cpus.partition", "isolated") ||
		    cg_read_strcmp(iso, "cpuset.cpus.partition", "isolated\n")) {
			ksft_print_msg("cannot make CPUs %s an isolated partition\n",
				       list_str(isolated, list, sizeof(list)));
			goto cleanup;
		}
	}
	for (i = 0; i < 4; i++) {
		if (i & 1)
			snprintf(req[i], sizeof(req[i]), "1");
		else
			snprintf(req[i], sizeof(req[i]), "1 nodes=%d", node);
		reqs[i] = req[i];
	}
	cg = make_cpuset("job", mem_nodes);
	if (!cg)
		goto cleanup;
	ran = traced_cpus(cg, reqs, 4, NODE(node));
	ksft_print_msg("toss work of node %d ran on CPUs %#lx, isolated %#lx\n",
		       node, ran, isolated);
	if (ran <= 0 || (ran & isolated))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	destroy(cg);
	destroy_partition(iso);
	return ret;
}

/*
 * The work of a whole toss of scope=node runs on the cpuset's own CPUs (a
 * toss of an amount, like memory.reclaim, runs in the writer).  A job
 * with the CPUs of node A and mems A and B has the walks of A (where its
 * CPUs are) and of B (where it has none) on A's CPUs only.  A job with the
 * CPUs of A and of the tests' node and mems of all three, next to a
 * sibling whose root partition holds B's CPUs, has none of its work there.
 */
static int test_toss_own_cpus(const char *root)
{
	static const char * const job_req[] = { "1" };
	int ret = KSFT_FAIL, a = nth_node(CPU_NODE, 0), b = nth_node(CPU_NODE, 1);
	unsigned long acpus, bcpus;
	const char *sib_req[2];
	char *job = NULL, *sib = NULL, req[32];
	long ran;

	if (b < 0)
		return toss_skip("needs two nodes with CPUs besides node %d", home_node);
	acpus = node_cpus(a);
	bcpus = node_cpus(b);
	job = make_cpuset("job", NODE(a) | NODE(b));
	if (!job || set_list(job, "cpuset.cpus", acpus))
		goto cleanup;
	ran = traced_cpus(job, job_req, 1, NODE(a) | NODE(b));
	ksft_print_msg("CPUs %#lx, mems %d and %d: toss work ran on CPUs %#lx\n",
		       acpus, a, b, ran);
	if (ran <= 0 || (ran & ~acpus))
		goto cleanup;
	destroy(job);

	sib = cg_name(root, "toss_sib");
	cg_destroy(sib);
	job = make_cpuset("job", NODE(home_node) | NODE(a) | NODE(b));
	if (!sib || !job || cg_create(sib) || set_list(sib, "cpuset.cpus", bcpus) ||
	    cg_write(sib, "cpuset.cpus.partition", "root") ||
	    cg_read_strcmp(sib, "cpuset.cpus.partition", "root\n")) {
		ksft_print_msg("cannot make CPUs %#lx a root partition\n", bcpus);
		goto cleanup;
	}
	if (set_list(job, "cpuset.cpus", (node_cpus(home_node) | acpus) & ~bcpus))
		goto cleanup;
	snprintf(req, sizeof(req), "1 nodes=%d", b);
	sib_req[0] = "1";
	sib_req[1] = req;
	ran = traced_cpus(job, sib_req, 2, NODE(b));
	ksft_print_msg("CPUs %#lx a sibling's partition: toss work ran on CPUs %#lx\n",
		       bcpus, ran);
	if (ran <= 0 || (ran & bcpus))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	destroy(job);
	destroy_partition(sib);
	return ret;
}

#define NR_WORKERS	3

/*
 * The walks of node @nid for cgroup @id in @trace: which worker of how
 * many each was into @worker and @nr_workers (at most @max), and their
 * nr_scanned and nr_tossed added up.  Returns how many walks began.
 */
static int trace_workers(const char *trace, unsigned long id, int nid,
			 int *worker, int *nr_workers, int max,
			 long *scanned, long *tossed)
{
	char begin[96], end[96];
	const char *p, *q;
	int n = 0;

	snprintf(begin, sizeof(begin), "toss_node_begin: cgroup_id=%lu nid=%d ", id, nid);
	snprintf(end, sizeof(end), "toss_node_end: cgroup_id=%lu nid=%d ", id, nid);
	*scanned = *tossed = 0;
	for (p = strstr(trace, begin); p; p = strstr(p + 1, begin)) {
		q = strstr(p, " worker=");
		if (!q || n >= max)
			return -1;
		worker[n] = atoi(q + strlen(" worker="));
		q = strstr(p, " nr_workers=");
		if (!q)
			return -1;
		nr_workers[n++] = atoi(q + strlen(" nr_workers="));
	}
	for (p = strstr(trace, end); p; p = strstr(p + 1, end)) {
		q = strstr(p, " nr_scanned=");
		*scanned += q ? atol(q + strlen(" nr_scanned=")) : 0;
		q = strstr(p, " nr_tossed=");
		*tossed += q ? atol(q + strlen(" nr_tossed=")) : 0;
	}
	return n;
}

/*
 * Write @req to @cg's toss file with the trace on, and read its walks of
 * node @nid (see trace_workers()) out of @trace.  Returns how many, or -1.
 */
static int toss_traced(const char *cg, const char *req, char *trace,
		       unsigned long id, int nid, int *worker, int *nr_workers,
		       long *scanned, long *tossed)
{
	if (trace_start() || toss(cg, req))
		return -1;
	trace_stop();
	if (trace_read(trace, TRACE_BUF) < 0)
		return -1;
	return trace_workers(trace, id, nid, worker, nr_workers, 2 * NR_WORKERS + 1,
			     scanned, tossed);
}

/* A node with memory and no CPU, or -1. */
static int cpuless_node(void)
{
	int n;

	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		if (!node_cpus(n))
			return n;
	return -1;
}

/*
 * A whole toss of a node shared by workers, one per CPU of the cpuset that
 * may run them: a node without CPUs, tossed for a cpuset with three CPUs
 * elsewhere, gets three.  The trace shows one walk per worker, each
 * knowing its place (worker 0, 1 and 2 of 3, each taking every third
 * stripe of the node), and together they drop what one walker drops: all
 * of the node's clean cache and none of its mapped pages.  Their counts
 * add up to the toss's in .stat.  A toss of an amount walks the node's LRU
 * lists in the writer: one walk, not shared.
 */
static int test_toss_workers(const char *root)
{
	long npages = FILE_SIZE / page_size, scanned, tossed, pages;
	int worker[2 * NR_WORKERS + 1], nr[2 * NR_WORKERS + 1], seen = 0;
	int ret = KSFT_FAIL, n, i, nid = cpuless_node();
	char *cg = NULL, *trace = NULL;
	pid_t pid = -1;
	struct stat st;

	if (nid < 0)
		return toss_skip("no node with memory and no CPU");
	if (sysconf(_SC_NPROCESSORS_ONLN) < NR_WORKERS)
		return toss_skip("fewer than 3 CPUs");
	cg = make_cpuset("job", NODE(nid));
	trace = malloc(TRACE_BUF);
	if (!cg || !trace || stat(cg, &st) ||
	    cg_write(cg, "cpuset.cpus", "0-2") || fill_big_file(nid))
		goto cleanup;
	/* the node's small file, mapped by a process: it stays */
	pid = cg_run_nowait(cg, map_and_wait, node_file[nid]);
	if (pid < 0)
		goto cleanup;
	for (i = 0; i < 600 && resident_on(node_file[nid], nid) < npages; i++)
		usleep(50000);
	if (resident_on(node_file[nid], nid) < npages)
		goto cleanup;
	n = toss_traced(cg, "1", trace, st.st_ino, nid, worker, nr, &scanned, &tossed);
	for (i = 0; i < n; i++) {
		ksft_print_msg("walk %d: worker %d of %d\n", i, worker[i], nr[i]);
		if (nr[i] == NR_WORKERS && worker[i] >= 0 && worker[i] < NR_WORKERS)
			seen |= 1 << worker[i];
	}
	if (n != NR_WORKERS || seen != (1 << NR_WORKERS) - 1) {
		ksft_print_msg("%d walks of node %d, not workers 0 to %d of %d\n",
			       n, nid, NR_WORKERS - 1, NR_WORKERS);
		goto cleanup;
	}
	pages = toss_last(cg, "tossed_bytes") / page_size;
	ksft_print_msg("tossed %ld pages (trace %ld), scanned %ld; %ld left of the big file\n",
		       pages, tossed, scanned, resident_on(big_file, nid));
	ksft_print_msg("mapped: %ld of %ld pages kept\n",
		       resident_on(node_file[nid], nid), npages);
	if (tossed != pages || pages < BIG_SIZE / page_size * 95 / 100 ||
	    scanned * page_size != toss_last(cg, "scanned_bytes") ||
	    resident_on(big_file, nid) > BIG_SIZE / page_size / 100 ||
	    resident_on(node_file[nid], nid) < npages)
		goto cleanup;

	/* An amount: one walk of the node's LRU lists, not shared. */
	if (fill_big_file(nid))
		goto cleanup;
	n = toss_traced(cg, "16M", trace, st.st_ino, nid, worker, nr, &scanned, &tossed);
	if (n != 1 || nr[0] > 1 || tossed != 16 * MiB / page_size) {
		ksft_print_msg("16M: %d walks (the first of %d workers), %ld pages\n",
			       n, n > 0 ? nr[0] : -1, tossed);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	free(trace);
	reap(pid);
	destroy(cg);
	return ret;
}

#define T(x) { x, #x }
static const struct toss_test tests[] = {
	T(test_toss_isolated),
	T(test_toss_own_cpus),
	T(test_toss_workers),
};

#undef T

int main(int argc, char **argv)
{
	return toss_main(argc, argv, tests, ARRAY_SIZE(tests));
}
