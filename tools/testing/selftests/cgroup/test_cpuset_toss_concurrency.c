// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of cpuset.memory_toss_cache: tosses that run at once, wait, and
 * are interrupted.
 *
 * The nodes of a toss walked at the same time; writers of one node served
 * one at a time and in the order they came, counted once; a fatal signal,
 * any signal and the freezer ending a wait; rmdir of the cgroup being
 * tossed, never held up; writers racing cpuset.mems changes and cgroups
 * that come and go; memory of the node going offline and back under
 * tosses.  See toss_util.c for how the page cache of a node is measured.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/kernel-page-flags.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "toss_util.h"

/* The time of @nid's first @event ("begin" or "end") in @trace; -1 if none. */
static double trace_time_of(const char *trace, int nid, const char *event)
{
	char want[32], ev[32];
	const char *p, *line, *eol;

	snprintf(want, sizeof(want), " nid=%d ", nid);
	snprintf(ev, sizeof(ev), ": toss_node_%s:", event);
	for (p = strstr(trace, ev); p; p = strstr(p + 1, ev)) {
		const char *hit = strstr(p, want);

		eol = strchrnul(p, '\n');
		if (!hit || hit > eol)
			continue;
		/* "... [001] ..... 12.345678: toss_node_begin: ..." */
		for (line = p; line > trace && line[-1] != ' '; line--)
			;
		return atof(line);
	}
	return -1;
}

/* Measurements of test_toss_parallel: the first that shows it passes. */
#define PARALLEL_TRIES	3

/*
 * One measurement of test_toss_parallel in @cg: 0 if every node's walk
 * began before every other node's walk ended and the toss of all nodes took
 * at most 0.75 of the one-node tosses' sum; 1 if not; -1 on an error.
 */
static int parallel_once(const char *cg, int try)
{
	static char trace[1 << 16];
	double t, one = 0, all, b, e;
	int ret = -1, n, m;
	char req[32];

	if (fill_all_nodes())
		return -1;
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes)) {
		snprintf(req, sizeof(req), "1 nodes=%d", n);
		t = now();
		if (toss(cg, req))
			return -1;
		one += now() - t;
	}

	if (fill_all_nodes())
		return -1;
	snapshot();
	if (trace_start())
		return -1;
	t = now();
	if (toss(cg, "1"))
		goto out;
	all = now() - t;
	trace_stop();
	ksft_print_msg("try %d of %d:\n", try, PARALLEL_TRIES);
	ksft_print_msg("%d nodes in turn: %.0f ms, at once: %.0f ms (%.2fx), %ld MiB each\n",
		       nr_nodes, one * 1000, all * 1000, all / one,
		       before[toss_node] * page_size / MiB);
	if (check_nodes(mem_nodes))
		goto out;
	if (trace_read(trace, sizeof(trace)) <= 0)
		goto out;
	ret = 1;
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes)) {
		b = trace_time_of(trace, n, "begin");
		for (m = first_node(mem_nodes); m >= 0; m = next_node(m, mem_nodes)) {
			if (m == n)
				continue;
			e = trace_time_of(trace, m, "end");
			if (b < 0 || e < 0 || b > e) {
				ksft_print_msg("node %d began at %.6f, node %d ended at %.6f\n",
					       n, b, m, e);
				goto out;
			}
		}
	}
	if (all > one * 0.75) {
		ksft_print_msg("at once took %.2fx one after the other: not in parallel\n",
			       all / one);
		goto out;
	}
	ret = 0;
out:
	trace_stop();
	return ret;
}

/*
 * All the nodes of a toss are walked at once: in the trace, each node's
 * walk begins before every other node's walk ends, and the wall time of a
 * toss of all nodes stays well under the sum of the one-node tosses of the
 * same cache, measured in the same run.  The speed-up needs idle host CPUs
 * for the VM's vCPUs: make check runs this test in a VM of its own, and
 * it measures up to PARALLEL_TRIES times, as a busy host may stop a vCPU
 * during one measurement; a toss that walks the nodes one after the other
 * fails every one.
 */
static int test_toss_parallel(const char *root)
{
	int ret = KSFT_FAIL, n, try, r = 1;
	unsigned long cpus = 0;
	char *cg;

	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		cpus |= node_cpus(n);
	cg = make_cpuset("job", mem_nodes);
	/* The work runs on the job's CPUs: those of every node that has some. */
	if (!cg || set_list(cg, "cpuset.cpus", cpus))
		goto cleanup;
	for (try = 1; try <= PARALLEL_TRIES && r > 0; try++)
		r = parallel_once(cg, try);
	if (!r)
		ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/*
 * During a long toss, an unrelated cgroup can be created and removed and
 * another cpuset's mems changed, all while the toss still runs: the toss
 * holds no lock they need.  Then a fatal signal ends the toss promptly,
 * with part of the cache left.  "During" is from when a sixteenth of the
 * cache has gone, not after a fixed time, which a fast kernel's toss
 * outlasts.
 */
static int test_toss_fatal_signal(const char *root)
{
	long npages = BIG_SIZE / page_size, left, kb, failed;
	int ret = KSFT_FAIL, status;
	bool interrupted;
	char *cg, *other = NULL;
	double t0, t1;
	pid_t pid = 0;

	cg = make_cpuset("job", NODE(toss_node));
	if (!cg || fill_big_file(toss_node))
		goto cleanup;
	kb = node_meminfo_kb(toss_node, "FilePages:");
	failed = cg_read_key_long(cg, STAT_FILE, "tosses_failed ");
	pid = fork();
	if (pid < 0)
		goto cleanup;
	if (!pid)
		exit(toss(cg, "1") ? 1 : 0);
	/* A sixteenth of it gone: the rest of the toss is still to come. */
	if (wait_walking(pid, toss_node, kb, npages / 16))
		goto cleanup;
	t0 = now();
	other = cg_name(parent, "unrelated");
	if (!other || cg_create(other) ||
	    set_list(cg, "cpuset.mems", NODE(home_node) | NODE(toss_node)) ||
	    cg_destroy(other)) {
		ksft_print_msg("mkdir, cpuset.mems or rmdir failed during the toss\n");
		goto cleanup;
	}
	t1 = now();
	if (ended(pid)) {
		ksft_print_msg("the toss ended before mkdir, mems and rmdir did (%.0f ms)\n",
			       (t1 - t0) * 1000);
		goto cleanup;
	}
	ksft_print_msg("mkdir, cpuset.mems and rmdir during the toss: %.0f ms\n",
		       (t1 - t0) * 1000);
	t0 = now();
	kill(pid, SIGKILL);
	if (waitpid(pid, &status, 0) != pid)
		goto cleanup;
	pid = 0;
	t1 = now();
	left = resident_on(big_file, toss_node);
	/* The killed writer cannot say: its toss counts as failed. */
	interrupted = cg_read_key_long(cg, STAT_FILE, "tosses_failed ") == failed + 1;
	ksft_print_msg("killed: reaped in %.0f ms, %ld of %ld pages left, %s\n",
		       (t1 - t0) * 1000, left, npages,
		       interrupted ? "counted as failed" : "not counted as failed");
	if (!WIFSIGNALED(status) || !interrupted || left <= 0 || t1 - t0 > 1.0)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	destroy(other);
	destroy(cg);
	return ret;
}

/*
 * rmdir of the cgroup being tossed, once a sixteenth of the cache has gone:
 * the toss stops promptly with -ENODEV and the removal completes.
 */
static int test_toss_rmdir_during(const char *root)
{
	long npages = BIG_SIZE / page_size, left, kb;
	int ret = KSFT_FAIL, status;
	double t0, t1;
	pid_t pid = 0;
	char *cg;

	cg = make_cpuset("job", NODE(toss_node));
	if (!cg || fill_big_file(toss_node))
		goto cleanup;
	kb = node_meminfo_kb(toss_node, "FilePages:");
	pid = toss_in_child(cg, "1");
	if (pid < 0)
		goto cleanup;
	if (wait_walking(pid, toss_node, kb, npages / 16))
		goto cleanup;
	t0 = now();
	if (cg_destroy(cg)) {
		ksft_print_msg("rmdir failed during the toss: %s\n", strerror(errno));
		goto cleanup;
	}
	t1 = now();
	if (waitpid(pid, &status, 0) != pid)
		goto cleanup;
	pid = 0;
	left = resident_on(big_file, toss_node);
	ksft_print_msg("rmdir during the toss: %.0f ms; the write returned %d, %ld of %ld left\n",
		       (t1 - t0) * 1000, WIFEXITED(status) ? -WEXITSTATUS(status) : 0,
		       left, npages);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != ENODEV ||
	    left <= 0 || t1 - t0 > 1.0)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	destroy(cg);
	return ret;
}

/*
 * Toss until @end: every write succeeds, but for -EAGAIN when a size
 * could not be met; at least one write must have tossed for real.
 */
static int stress_writer(const char *cg, const char *what, double end)
{
	/* A size, not "1" or "max": may be short. */
	bool sized = what[0] != 'm' && !(what[0] == '1' && (!what[1] || what[1] == ' '));
	int err, ok = 0;

	while (now() < end) {
		err = toss(cg, what);
		if (!err) {
			ok++;
		} else if (err != -EAGAIN || !sized) {
			ksft_print_msg("'%s' returned %d\n", what, err);
			return 1;
		}
	}
	return ok ? 0 : 3;
}

/*
 * Several writers on the same and different cgroups while others change
 * cpuset.mems and create and remove cgroups: nothing hangs, every write
 * ends with success or an errno that the change explains.
 */
static int test_toss_concurrency(const char *root)
{
	unsigned long amems = NODE(home_node) | NODE(toss_node), bmems = mem_nodes & ~amems;
	const int nr_children = 7;
	char *a, *b, breq[32];
	pid_t pids[7];
	double end;
	int ret = KSFT_FAIL, i, status, bad = 0;

	/* (With two nodes, b shares a's other node.) */
	if (!bmems)
		bmems = NODE(toss_node);
	snprintf(breq, sizeof(breq), "max nodes=%d", first_node(bmems));
	a = make_cpuset("a", amems);
	b = make_cpuset("b", bmems);
	if (!a || !b || fill_all_nodes())
		goto cleanup;
	end = now() + 4;
	for (i = 0; i < nr_children; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			goto cleanup;
		if (pids[i])
			continue;
		switch (i) {
		case 0:
		case 1:
			exit(stress_writer(a, "1", end));
		case 2:
			exit(stress_writer(b, breq, end));
		case 3:
			exit(stress_writer(root, "8M", end));
		case 4: {	/* change a's mems */
			int k = 0;

			while (now() < end)
				set_list(a, "cpuset.mems", k++ & 1 ? amems : NODE(toss_node));
			exit(0);
		}
		case 5: {	/* create and remove cgroups, timing rmdir */
			char *c = cg_name(parent, "churn");
			double t, worst = 0;

			while (c && now() < end) {
				if (cg_create(c))
					exit(1);
				set_list(c, "cpuset.mems", NODE(toss_node));
				t = now();
				if (cg_destroy(c))
					exit(1);
				if (now() - t > worst)
					worst = now() - t;
			}
			ksft_print_msg("slowest rmdir during the stress: %.0f ms\n",
				       worst * 1000);
			/* Only "no hang" here: test_toss_fatal_signal times it. */
			exit(worst > 10.0 ? 2 : 0);
		}
		default:	/* keep refilling */
			while (now() < end)
				for (int n = first_node(mem_nodes); n >= 0 && now() < end;
				     n = next_node(n, mem_nodes))
					fill_node(n, node_file[n]);
			exit(0);
		}
	}
	for (i = 0; i < nr_children; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i] ||
		    !WIFEXITED(status) || WEXITSTATUS(status)) {
			ksft_print_msg("stress child %d ended with status %#x\n", i, status);
			bad = 1;
		}
	}
	if (!bad)
		ret = KSFT_PASS;
cleanup:
	destroy(a);
	destroy(b);
	return ret;
}

/*
 * Go through node @nid's toss_node_begin and toss_node_end events in the
 * trace, in order: each begin must come after the end of the walk before.
 * Returns the number of walks and adds up their nr_tossed in *@tossed, or
 * -1 when two walks overlapped or one did not end.
 */
static int trace_walks(const char *trace, int nid, long *tossed)
{
	char line[512], want[32];
	const char *p, *eol, *num;
	bool inside = false;
	int walks = 0;
	size_t len;

	*tossed = 0;
	snprintf(want, sizeof(want), " nid=%d ", nid);
	for (p = trace; *p; p = *eol ? eol + 1 : eol) {
		eol = strchrnul(p, '\n');
		len = eol - p < sizeof(line) ? eol - p : sizeof(line) - 1;
		memcpy(line, p, len);
		line[len] = 0;
		if (*line == '#' || !strstr(line, want))
			continue;
		if (strstr(line, "toss_node_begin:")) {
			if (inside) {
				ksft_print_msg("a walk began inside another: %s\n", line);
				return -1;
			}
			inside = true;
		} else if (strstr(line, "toss_node_end:")) {
			if (!inside) {
				ksft_print_msg("an end without a begin: %s\n", line);
				return -1;
			}
			inside = false;
			walks++;
			num = strstr(line, " nr_tossed=");
			*tossed += num ? atol(num + strlen(" nr_tossed=")) : 0;
		}
	}
	return inside ? -1 : walks;
}

#define NR_PILEUP	8

/*
 * Concurrent tosses of one node are serialized, never piled up: writers of
 * the same file all succeed, the node is walked by one of them at a time
 * (its begin and end events alternate in the trace), and what they report
 * tossed adds up to what the node lost, counted once.  Then a writer
 * queued behind a walk of the node is killed (once the walk is seen under
 * way and the waiter asleep in its write): it leaves promptly, without
 * ever having walked the node, and the walk goes on.
 */
static int test_toss_no_pileup(const char *root)
{
	long cached, fp0, fp1, v0, v1, s0, s1, n0, n1, tossed, traced, left;
	static char trace[1 << 16];
	double *t = MAP_FAILED, last_start = 0, first_end = 1e9, t0, t1;
	int ret = KSFT_FAIL, i, status, wstatus, walks, bad = 0, fds[2] = { -1, -1 };
	pid_t pids[NR_PILEUP] = { 0 }, walker = 0, waiter = 0;
	char *cg, *wcg;
	char c;

	cg = make_cpuset("job", NODE(toss_node));
	wcg = make_cpuset("waiter", NODE(toss_node));
	t = mmap(NULL, 2 * NR_PILEUP * sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!cg || !wcg || t == MAP_FAILED || pipe(fds) || fill_big_file(toss_node) ||
	    fill_node(toss_node, node_file[toss_node]) || trace_start())
		goto cleanup;
	cached = resident_on(big_file, toss_node) + resident_on(node_file[toss_node], toss_node);
	s0 = cg_read_key_long(cg, STAT_FILE, "tossed_bytes ");
	n0 = cg_read_key_long(cg, STAT_FILE, "tosses ");
	v0 = node_vmstat(toss_node, "toss_cache_tossed");
	fp0 = node_meminfo_kb(toss_node, "FilePages:");
	for (i = 0; i < NR_PILEUP; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			goto cleanup;
		if (!pids[i]) {
			int err;

			/* All start together, when the parent closes the pipe. */
			close(fds[1]);
			if (read(fds[0], &c, 1) < 0)
				exit(100);
			t[2 * i] = now();
			err = toss(cg, "1");
			t[2 * i + 1] = now();
			exit(-err);
		}
	}
	close(fds[1]);
	fds[1] = -1;
	for (i = 0; i < NR_PILEUP; i++) {
		if (waitpid(pids[i], &status, 0) != pids[i])
			goto cleanup;
		pids[i] = 0;
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			ksft_print_msg("writer %d: status %#x\n", i, status);
			bad = 1;
		}
		if (t[2 * i] > last_start)
			last_start = t[2 * i];
		if (t[2 * i + 1] < first_end)
			first_end = t[2 * i + 1];
	}
	fp1 = node_meminfo_kb(toss_node, "FilePages:");
	v1 = node_vmstat(toss_node, "toss_cache_tossed");
	s1 = cg_read_key_long(cg, STAT_FILE, "tossed_bytes ");
	n1 = cg_read_key_long(cg, STAT_FILE, "tosses ");
	trace_stop();
	left = resident_on(big_file, toss_node) + resident_on(node_file[toss_node], toss_node);
	tossed = s1 - s0;
	walks = trace_read(trace, sizeof(trace)) < 0 ? -1 : trace_walks(trace, toss_node, &traced);
	ksft_print_msg("%d writers, all in flight %.0f ms; %d walks of node %d, %ld tosses\n",
		       NR_PILEUP, (first_end - last_start) * 1000, walks, toss_node, n1 - n0);
	ksft_print_msg("tossed: stat %ld kB, vmstat %ld kB, trace %ld kB; FilePages -%ld kB\n",
		       tossed / 1024, (v1 - v0) * page_size / 1024,
		       traced * page_size / 1024, fp0 - fp1);
	ksft_print_msg("%ld of %ld cached pages left\n", left, cached);
	if (bad || last_start >= first_end || walks != NR_PILEUP ||
	    n1 - n0 != NR_PILEUP)
		goto cleanup;
	/* Counted once: stat, vmstat and trace agree, and match meminfo. */
	if (tossed != (v1 - v0) * page_size || traced != v1 - v0 ||
	    labs((fp0 - fp1) * 1024 - tossed) > tossed / 50)
		goto cleanup;
	/* All of the cache went, and not much more than it. */
	if (left > cached / 100 || tossed < (cached - left) * page_size ||
	    tossed > cached * page_size + 4 * MiB)
		goto cleanup;

	/*
	 * A waiter behind a walk, killed: once the walk is under way and the
	 * waiter sleeps in its write.
	 */
	if (fill_big_file(toss_node) || trace_start())
		goto cleanup;
	fp0 = node_meminfo_kb(toss_node, "FilePages:");
	walker = toss_in_child(cg, "1");
	if (walker < 0)
		goto cleanup;
	if (wait_walking(walker, toss_node, fp0, BIG_SIZE / page_size / 16))
		goto cleanup;
	waiter = toss_in_child(wcg, "1");
	if (waiter < 0)
		goto cleanup;
	if (!wait_in_write(waiter)) {
		ksft_print_msg("the waiter was never seen waiting in its write\n");
		goto cleanup;
	}
	t0 = now();
	kill(waiter, SIGKILL);
	if (waitpid(waiter, &status, 0) != waiter)
		goto cleanup;
	waiter = 0;
	t1 = now();
	if (ended(walker)) {
		ksft_print_msg("the walk ended before the waiter behind it was reaped\n");
		goto cleanup;
	}
	if (waitpid(walker, &wstatus, 0) != walker)
		goto cleanup;
	walker = 0;
	trace_stop();
	walks = trace_read(trace, sizeof(trace)) < 0 ? -1 : trace_walks(trace, toss_node, &traced);
	ksft_print_msg("killed waiter: reaped in %.0f ms, %ld failed toss(es), scanned %ld bytes\n",
		       (t1 - t0) * 1000, cg_read_key_long(wcg, STAT_FILE, "tosses_failed "),
		       cg_read_key_long(wcg, STAT_FILE, "scanned_bytes "));
	ksft_print_msg("the walk it waited behind: status %#x, %d walk(s) traced\n",
		       wstatus, walks);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL || t1 - t0 > 1.0 ||
	    !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) || walks != 1 ||
	    cg_read_key_long(wcg, STAT_FILE, "tosses ") != 1 ||
	    cg_read_key_long(wcg, STAT_FILE, "tosses_failed ") != 1 ||
	    cg_read_key_long(wcg, STAT_FILE, "scanned_bytes ") != 0 ||
	    resident_on(big_file, toss_node) > BIG_SIZE / page_size / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	if (fds[1] >= 0)
		close(fds[1]);
	if (fds[0] >= 0)
		close(fds[0]);
	for (i = 0; i < NR_PILEUP; i++)
		reap(pids[i]);
	reap(waiter);
	reap(walker);
	if (t != MAP_FAILED)
		munmap(t, 2 * NR_PILEUP * sizeof(*t));
	destroy(wcg);
	destroy(cg);
	return ret;
}

#define MEMORY_SYSFS	"/sys/devices/system/memory"
#define MAX_BLOCKS	128
#define MAX_ROUNDS	30

/* The memory blocks of @node, lowest first, from its memoryN links. */
static int node_blocks(int node, int *blocks)
{
	char path[PATH_MAX];
	struct dirent *de;
	int nr = 0, i, j, b;
	DIR *d;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d", node);
	d = opendir(path);
	if (!d)
		return -1;
	while ((de = readdir(d)) && nr < MAX_BLOCKS)
		if (!strncmp(de->d_name, "memory", 6) && isdigit(de->d_name[6]))
			blocks[nr++] = atoi(de->d_name + 6);
	closedir(d);
	for (i = 1; i < nr; i++)
		for (j = i; j > 0 && blocks[j - 1] > blocks[j]; j--) {
			b = blocks[j];
			blocks[j] = blocks[j - 1];
			blocks[j - 1] = b;
		}
	return nr;
}

static bool block_is(int block, const char *state)
{
	char path[PATH_MAX], buf[32];

	snprintf(path, sizeof(path), MEMORY_SYSFS "/memory%d/state", block);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return false;
	return !strncmp(buf, state, strlen(state)) && buf[strlen(state)] == '\n';
}

/* Page cache pages in memory block @block of @block_kb, from /proc/kpageflags. */
static long block_cache_pages(int block, long block_kb)
{
	long nr = block_kb * 1024 / page_size, i, cache = 0;
	uint64_t *flags = calloc(nr, sizeof(*flags));
	int fd = open("/proc/kpageflags", O_RDONLY);

	if (fd < 0 || !flags ||
	    pread(fd, flags, nr * sizeof(*flags), block * nr * sizeof(*flags)) !=
	    nr * sizeof(*flags)) {
		cache = -1;
		goto out;
	}
	for (i = 0; i < nr; i++)
		if ((flags[i] & 1ULL << KPF_LRU) &&
		    !(flags[i] & (1ULL << KPF_ANON | 1ULL << KPF_SWAPBACKED)))
			cache++;
out:
	if (fd >= 0)
		close(fd);
	free(flags);
	return cache;
}

/*
 * Write @state to a memory block's state, from a child with a time limit:
 * offlining retries migration until a fatal signal, and an unhandled
 * SIGALRM is one.  0, -errno, or -ETIME when the time ran out.
 */
static int set_block_state(int block, const char *state)
{
	char path[PATH_MAX];
	int status;
	pid_t pid;

	snprintf(path, sizeof(path), MEMORY_SYSFS "/memory%d/state", block);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		alarm(30);
		exit(-write_str(path, state));
	}
	if (waitpid(pid, &status, 0) != pid)
		return -ECHILD;
	return WIFEXITED(status) ? -WEXITSTATUS(status) : -ETIME;
}

/* What the tossing and refilling children share with the parent. */
struct toss_loop {
	int stop;
	int tosses;
	int errors;
	int first_error;
};

/* The tosses a toss_loop() has ended. */
static int tosses(struct toss_loop *tl)
{
	return __atomic_load_n(&tl->tosses, __ATOMIC_ACQUIRE);
}

/* Toss @cg again and again until told to stop; count the errors. */
static int toss_loop(const char *cg, struct toss_loop *tl)
{
	int err;

	while (!__atomic_load_n(&tl->stop, __ATOMIC_ACQUIRE)) {
		err = toss(cg, "1");
		if (err && !tl->errors++)
			tl->first_error = err;
		__atomic_add_fetch(&tl->tosses, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

/* Keep putting the test files back into the cache (of the cpuset's node). */
static int refill_loop(const char *cgroup, void *arg)
{
	struct toss_loop *tl = arg;
	int i;

	while (!__atomic_load_n(&tl->stop, __ATOMIC_ACQUIRE))
		for (i = 0; i < nr_files; i++)
			read_all(cgroup, file[i]);
	return 0;
}

/*
 * Memory of the node taken offline and back online while it is tossed
 * (a big cache there, tosses of it running one after the other,
 * and a reader putting cache back), three times, and again until two
 * tosses have ended: the tosses all end well, the blocks that went
 * offline were offline (the node's MemTotal shows it), and they come
 * back.  Blocks holding unmovable memory refuse (EBUSY), so do blocks
 * with holes (EINVAL); one block of the node always stays online.  The
 * page cache in a block when it goes offline is migrated to other nodes
 * under the walk.
 */
static int test_toss_offline_during(const char *root)
{
	int blocks[MAX_BLOCKS], off[MAX_BLOCKS], nr, nr_blocks, nr_off = 0, went = 0;
	int ret = KSFT_FAIL, node = nth_node(ANY_NODE, 1), round, i, err, status;
	int min_tosses = sanitizers ? 1 : 2;
	long block_kb, total0, total1, cache, moved = 0;
	struct toss_loop *tl = MAP_FAILED;
	char buf[64], msg[1024] = "";
	pid_t tosser = 0, filler = 0;
	char *cg, *fillcg = NULL;
	double t;

	if (node < 0)
		node = nth_node(ANY_NODE, 0);
	if (read_text(MEMORY_SYSFS "/block_size_bytes", buf, sizeof(buf)) <= 0)
		return toss_skip("no %s: the kernel has no memory hotplug", MEMORY_SYSFS);
	block_kb = strtol(buf, NULL, 16) / 1024;
	nr_blocks = node_blocks(node, blocks);
	nr = nr_blocks;
	if (nr < 2)
		return toss_skip("node %d has %d memory blocks, needs 2", node, nr);
	cg = make_cpuset("job", NODE(node));
	fillcg = make_cpuset("refill", NODE(node));
	tl = mmap(NULL, sizeof(*tl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!cg || !fillcg || tl == MAP_FAILED || fill_big_file(node))
		goto cleanup;
	/* Fill the node's other blocks too: 256 + 4 x 48 MiB or more. */
	for (i = 0; i < nr_files; i++)
		if (fill_node(node, file[i]))
			goto cleanup;
	memset(tl, 0, sizeof(*tl));
	total0 = node_meminfo_kb(node, "MemTotal:");
	t = now();
	tosser = fork();
	if (tosser < 0)
		goto cleanup;
	if (!tosser)
		exit(toss_loop(cg, tl));
	filler = cg_run_nowait(fillcg, refill_loop, tl);
	if (filler < 0)
		goto cleanup;
	usleep(20000);
	/*
	 * Three rounds, and more while fewer than two tosses have ended (one
	 * under KASAN): a toss of the node can outlast three rounds on a
	 * loaded host.  At most 30 rounds.
	 */
	for (round = 0; round < 3 || (round < MAX_ROUNDS && tosses(tl) < min_tosses);
	     round++) {
		/*
		 * The lowest blocks first, as the walk goes; in the next
		 * rounds only those that went offline in the first.
		 */
		for (i = 0; i < nr; i++) {
			int block = blocks[i];

			if (nr_off == nr_blocks - 1 || !block_is(block, "online"))
				continue;
			cache = block_cache_pages(block, block_kb);
			err = set_block_state(block, "offline");
			if (!round)
				snprintf(msg + strlen(msg), sizeof(msg) - strlen(msg),
					 " memory%d (%ld cache pages): %s,", block, cache,
					 err == -ETIME ? "not offline within 30 s" :
					 err ? strerror(-err) : "offline");
			if (err)
				continue;
			off[nr_off++] = block;
			moved += cache;
			if (!block_is(block, "offline")) {
				ksft_print_msg("memory%d: offlined, but its state is not offline\n",
					       block);
				goto cleanup;
			}
		}
		if (!round)
			ksft_print_msg("node %d, %d tosses done after %.1f s:%s\n", node,
				       tosses(tl), now() - t, msg);
		if (!nr_off) {
			ret = toss_skip("no block of node %d could go offline", node);
			goto cleanup;
		}
		/* The blocks that went offline are gone from the node. */
		total1 = node_meminfo_kb(node, "MemTotal:");
		if (total0 - total1 != nr_off * block_kb) {
			ksft_print_msg("MemTotal %ld kB, %ld kB with %d blocks offline\n",
				       total0, total1, nr_off);
			goto cleanup;
		}
		usleep(100000);
		went = nr_off;
		while (nr_off) {
			err = set_block_state(off[--nr_off], "online");
			if (err || !block_is(off[nr_off], "online")) {
				ksft_print_msg("memory%d does not come back online: %s\n",
					       off[nr_off], strerror(-err));
				goto cleanup;
			}
		}
		if (node_meminfo_kb(node, "MemTotal:") != total0)
			goto cleanup;
		memcpy(blocks, off, went * sizeof(*off));
		nr = went;
	}
	usleep(100000);
	__atomic_store_n(&tl->stop, 1, __ATOMIC_RELEASE);
	if (waitpid(tosser, &status, 0) != tosser)
		goto cleanup;
	tosser = 0;
	ksft_print_msg("%d blocks offline and back %d times, %ld cache pages in them\n",
		       went, round, moved);
	ksft_print_msg("%d tosses in %.1f s, %d errors (first %d)\n",
		       tl->tosses, now() - t, tl->errors, tl->first_error);
	/*
	 * Every toss ended well, and more than one ran while memory moved
	 * (one under KASAN, where a toss of the node outlasts the moves).
	 */
	if (!WIFEXITED(status) || WEXITSTATUS(status) || tl->errors ||
	    tl->tosses < min_tosses)
		goto cleanup;
	/* A toss over the memory that came back drops its cache. */
	reap(filler);
	filler = 0;
	drop_all_caches();
	if (fill_node(node, node_file[node]) ||
	    resident_on(node_file[node], node) < FILE_SIZE / page_size * 99 / 100 ||
	    toss(cg, "1") || resident_on(node_file[node], node) > FILE_SIZE / page_size / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	if (tl != MAP_FAILED)
		__atomic_store_n(&tl->stop, 1, __ATOMIC_RELEASE);
	while (nr_off)
		set_block_state(off[--nr_off], "online");
	if (tosser > 0)
		waitpid(tosser, NULL, 0);
	reap(filler);
	if (tl != MAP_FAILED)
		munmap(tl, sizeof(*tl));
	destroy(fillcg);
	destroy(cg);
	return ret;
}

#define NR_FIFO		4

/*
 * The writers whose walks of node @nid begin in @trace, in the trace's
 * order, as a string of their indices in @cgs ('?' for a walk of another
 * cgroup); their number in *@walks.
 */
static const char *trace_order(const char *trace, int nid, char **cgs, int n,
			       int *walks)
{
	static char order[64];
	const char *p = trace;
	char want[64];
	int len = 0, i;

	*walks = 0;
	snprintf(want, sizeof(want), "toss_node_begin: cgroup_id=");
	while ((p = strstr(p, want)) && len < (int)sizeof(order) - 1) {
		unsigned long id = strtoul(p + strlen(want), NULL, 10);
		const char *np = strstr(p, " nid=");
		char c = '?';

		p += strlen(want);
		if (!np || atoi(np + 5) != nid)
			continue;
		for (i = 0; i < n; i++) {
			struct stat st;

			if (cgs[i] && !stat(cgs[i], &st) && st.st_ino == id)
				c = '0' + i;
		}
		order[len++] = c;
		(*walks)++;
	}
	order[len] = 0;
	return order;
}

/*
 * Writers waiting for a node take their turns in the order they came:
 * while a long walk of a node runs, four writers (each tossing its own
 * cpuset on that node) start 100 ms apart; the node's walks begin in that
 * order, as the trace shows (toss_node_begin names each walk's cgroup).
 * When each writer returned is printed too, but not checked: the walks
 * after the first find the node empty and take a few ms, less than a
 * writer can be kept off a vCPU on its way back to user space.
 */
static int test_toss_fifo(const char *root)
{
	char name[16], *cgs[NR_FIFO + 1] = { NULL }, *trace = NULL;
	double *end = MAP_FAILED;
	pid_t pids[NR_FIFO + 1] = { 0 };
	int ret = KSFT_FAIL, i, walks = 0;
	const char *order;

	end = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (end == MAP_FAILED)
		goto cleanup;
	for (i = 0; i <= NR_FIFO; i++) {
		snprintf(name, sizeof(name), "fifo%d", i);
		cgs[i] = make_cpuset(name, NODE(toss_node));
		if (!cgs[i])
			goto cleanup;
	}
	if (fill_big_file(toss_node) || trace_start())
		goto cleanup;
	for (i = 0; i <= NR_FIFO; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			goto cleanup;
		if (!pids[i]) {
			int err = toss(cgs[i], "1");

			end[i] = now();
			exit(err ? 1 : 0);
		}
		usleep(i ? 100000 : 200000);
	}
	for (i = 0; i <= NR_FIFO; i++) {
		int status;

		if (waitpid(pids[i], &status, 0) != pids[i] || !WIFEXITED(status) ||
		    WEXITSTATUS(status)) {
			ksft_print_msg("writer %d failed\n", i);
			goto cleanup;
		}
		pids[i] = 0;
	}
	trace_stop();
	for (i = 1; i <= NR_FIFO; i++)
		ksft_print_msg("writer %d returned %.0f ms after the first walk\n",
			       i, (end[i] - end[0]) * 1000);
	trace = malloc(TRACE_BUF);
	if (!trace || trace_read(trace, TRACE_BUF) < 0)
		goto cleanup;
	order = trace_order(trace, toss_node, cgs, NR_FIFO + 1, &walks);
	ksft_print_msg("node %d walked for writers %s\n", toss_node, order);
	for (i = 0; i <= NR_FIFO; i++)
		if (order[i] != '0' + i)
			break;
	if (walks != NR_FIFO + 1 || i <= NR_FIFO) {
		ksft_print_msg("%d walks, not %d in the writers' order\n",
			       walks, NR_FIFO + 1);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	free(trace);
	for (i = 0; i <= NR_FIFO; i++) {
		reap(pids[i]);
		destroy(cgs[i]);
	}
	if (end != MAP_FAILED)
		munmap(end, 4096);
	return ret;
}

/* Spin on @cpu under SCHED_FIFO for @secs seconds (RT throttling lets others run 5%). */
static pid_t rt_hog(int cpu, double secs)
{
	struct sched_param sp = { .sched_priority = 50 };
	pid_t pid = fork();
	cpu_set_t set;
	double end;

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) ||
	    sched_setscheduler(0, SCHED_FIFO, &sp))
		exit(1);
	end = now() + secs;
	while (now() < end)
		;
	exit(0);
}

/* Time rmdir of @cg: seconds, or -1. */
static double timed_rmdir(const char *cg)
{
	double t0 = now();

	if (rmdir(cg)) {
		ksft_print_msg("rmdir %s: %s\n", cg, strerror(errno));
		return -1;
	}
	return now() - t0;
}

/*
 * rmdir of a cgroup being tossed never waits for the toss: not when the
 * node's CPU is taken by a SCHED_FIFO loop (the toss then crawls), and not
 * during "1 slab=1" over 2000 memory cgroups holding slab objects.
 */
#define NR_SLAB_CGS	2000

static int make_slab_objects(const char *cgroup, void *arg)
{
	const char *base = arg;
	char files[PATH_MAX], procs[PATH_MAX], pid[16], prefix[16];
	int i;

	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(files, sizeof(files), "%s/toss-slab", dir);
	for (i = 0; i < NR_SLAB_CGS; i++) {
		snprintf(procs, sizeof(procs), "%s/s%d/cgroup.procs", base, i);
		if (write_str(procs, pid))
			return 1;
		snprintf(prefix, sizeof(prefix), "%d-", i);
		if (touch_files(files, prefix, 8))
			return 2;
	}
	return 0;
}

static int test_toss_rmdir_unheld(const char *root)
{
	char path[PATH_MAX], *cg = NULL, *slabs = NULL, *cgs[NR_SLAB_CGS] = { NULL };
	pid_t writer = 0, hog = 0;
	int ret = KSFT_FAIL, i, status, node = nth_node(CPU_NODE, 0), cpu;
	double took;

	if (node < 0)
		return toss_skip("needs a node with CPUs besides node %d", home_node);
	cpu = first_cpu(node_cpus(node));
	/* A toss of a big cache whose node's CPU runs a SCHED_FIFO loop. */
	cg = make_cpuset("job", NODE(node));
	if (!cg || fill_big_file(node))
		goto cleanup;
	hog = rt_hog(cpu, 3.0);
	if (hog < 0)
		goto cleanup;
	usleep(100000);
	writer = toss_in_child(cg, "1");
	if (writer < 0)
		goto cleanup;
	usleep(300000);
	took = timed_rmdir(cg);
	if (took < 0)
		goto cleanup;
	ksft_print_msg("rmdir during a toss, node CPU under SCHED_FIFO: %.0f ms\n", took * 1000);
	if (waitpid(writer, &status, 0) != writer)
		goto cleanup;
	writer = 0;
	reap(hog);
	hog = 0;
	free(cg);
	cg = NULL;
	if (took > 0.1)
		goto cleanup;

	/* "1 slab=1" with 2000 memory cgroups holding dentries and inodes. */
	slabs = cg_name(parent, "slabs");
	cg_destroy(slabs);
	if (cg_create(slabs))
		goto cleanup;
	for (i = 0; i < NR_SLAB_CGS; i++) {
		char name[16];

		snprintf(name, sizeof(name), "s%d", i);
		cgs[i] = cg_name(slabs, name);
		if (!cgs[i] || cg_create(cgs[i]))
			goto cleanup;
	}
	snprintf(path, sizeof(path), "%s/toss-slab", dir);
	mkdir(path, 0755);
	cg = make_cpuset("job", NODE(node));
	if (!cg || set_list(cg, "cpuset.cpus", 1UL << cpu))
		goto cleanup;
	/* The objects are allocated on the node: made from a task of "job". */
	if (cg_run(cg, make_slab_objects, slabs))
		goto cleanup;
	writer = toss_in_child(cg, "1 slab=1");
	if (writer < 0)
		goto cleanup;
	usleep(50000);
	took = timed_rmdir(cg);
	if (took < 0)
		goto cleanup;
	ksft_print_msg("rmdir during 1 slab=1 over %d memcgs: %.0f ms\n", NR_SLAB_CGS, took * 1000);
	if (waitpid(writer, &status, 0) != writer)
		goto cleanup;
	writer = 0;
	free(cg);
	cg = NULL;
	if (took > 0.1)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(writer);
	reap(hog);
	destroy(cg);
	for (i = 0; i < NR_SLAB_CGS; i++)
		destroy(cgs[i]);
	destroy(slabs);
	snprintf(path, sizeof(path), "rm -rf %s/toss-slab", dir);
	if (system(path))
		ret = KSFT_FAIL;
	return ret;
}

/* The writers of test_toss_signals. */
enum { SIG_W1, SIG_W2, SIG_W3, SIG_USR1, SIG_FROZEN, NR_SIG_WRITERS };

struct sig_writers {
	char *cg[NR_SIG_WRITERS];
	const char *req[NR_SIG_WRITERS];
	double end[NR_SIG_WRITERS];	/* when the write returned; 0: not yet */
	int err[NR_SIG_WRITERS];
	int fd;				/* W1's toss file, open in the test */
};

static struct sig_writers *sw;

#define NR_OFFLINE	50

/*
 * The newest kernel thread named @name (the last toss's), and its
 * voluntary context switches in *@nvcsw; 0 if there is none.
 */
static pid_t newest_kthread(const char *name, long *nvcsw)
{
	char path[64], comm[64];
	struct dirent *d;
	pid_t best = 0;
	DIR *dir;

	dir = opendir("/proc");
	if (!dir)
		return 0;
	while ((d = readdir(dir))) {
		pid_t pid = atoi(d->d_name);
		FILE *f;

		if (pid <= best)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/comm", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fgets(comm, sizeof(comm), f) && !strncmp(comm, name, strlen(name)) &&
		    comm[strlen(name)] == '\n')
			best = pid;
		fclose(f);
	}
	closedir(dir);
	if (best) {
		char line[128];
		FILE *f;

		snprintf(path, sizeof(path), "/proc/%d/status", best);
		f = fopen(path, "r");
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "voluntary_ctxt_switches:", 24))
				*nvcsw = atol(line + 24);
		if (f)
			fclose(f);
	}
	return best;
}

/*
 * A cpuset that goes away wakes the tosses made for it that wait for a
 * node's turn, and no others (CG-REVIEW-4 N15): while one toss walks the
 * node (slowly: a SCHED_FIFO loop on its only CPU) and another waits
 * behind it (its thread on CPU 0), NR_OFFLINE other cpusets come and go,
 * and the waiting toss's kernel thread is not woken by them.
 */
static int test_toss_offline_wakes(const char *root)
{
	int ret = KSFT_FAIL, i, status, node = nth_node(CPU_NODE, 0), cpu;
	pid_t walker = 0, waiter = 0, hog = 0, kt, kt1;
	char kname[32], cpus[16], *cg, *wcg;
	long fp0, sw0 = 0, sw1 = 0;
	double t0;

	if (node < 0)
		return toss_skip("needs a node with CPUs besides node %d", home_node);
	cpu = first_cpu(node_cpus(node));
	snprintf(cpus, sizeof(cpus), "%d", cpu);
	cg = make_cpuset("job", NODE(node));
	wcg = make_cpuset("waiter", NODE(node));
	if (!cg || !wcg || cg_write(cg, "cpuset.cpus", cpus) || fill_big_file(node))
		goto cleanup;
	fp0 = node_meminfo_kb(node, "FilePages:");
	walker = toss_in_child(cg, "1");
	if (walker < 0 || wait_walking(walker, node, fp0, BIG_SIZE / page_size / 16))
		goto cleanup;
	hog = rt_hog(cpu, 4.0);
	waiter = toss_in_child(wcg, "1");
	if (hog < 0 || waiter < 0 || !wait_in_write(waiter))
		goto cleanup;
	usleep(100000);
	snprintf(kname, sizeof(kname), "toss_cache/%d:0", node);
	kt = newest_kthread(kname, &sw0);
	t0 = now();
	for (i = 0; i < NR_OFFLINE && kt; i++) {
		char name[16], *c;

		snprintf(name, sizeof(name), "gone%d", i);
		c = cg_name(parent, name);
		if (!c || cg_create(c) || cg_destroy(c)) {
			free(c);
			goto cleanup;
		}
		free(c);
	}
	/* The offlining runs from a work item after the rmdir. */
	usleep(200000);
	kt1 = newest_kthread(kname, &sw1);
	ksft_print_msg("%d cpusets removed in %.1f s; the waiter (%d) slept %ld more times\n",
		       NR_OFFLINE, now() - t0, kt, sw1 - sw0);
	if (!kt || kt1 != kt || ended(walker) || ended(waiter)) {
		ksft_print_msg("the toss did not wait throughout (thread %d, then %d)\n", kt, kt1);
		goto cleanup;
	}
	if (sw1 - sw0 > 5)
		goto cleanup;
	if (waitpid(walker, &status, 0) != walker || !WIFEXITED(status) || WEXITSTATUS(status))
		goto cleanup;
	walker = 0;
	if (waitpid(waiter, &status, 0) != waiter || !WIFEXITED(status) || WEXITSTATUS(status))
		goto cleanup;
	waiter = 0;
	ret = KSFT_PASS;
cleanup:
	reap(hog);
	reap(waiter);
	reap(walker);
	destroy(wcg);
	destroy(cg);
	return ret;
}

/*
 * Lockdep knows a node's turn (CG-REVIEW-4 N18): after a whole toss,
 * /proc/lockdep has the class toss_node_turn, with the locks its workers
 * took while walking as forward dependencies, and the locks the writer
 * held (its file system's freeze protection) as backward ones.
 */
static int test_toss_turn_lockdep(const char *root)
{
	long fwd = -1, back = -1;
	int ret = KSFT_FAIL;
	char line[512], *p;
	FILE *f = NULL;
	char *cg;

	if (access("/proc/lockdep", R_OK))
		return toss_skip("no /proc/lockdep (CONFIG_LOCKDEP)");
	cg = make_cpuset("job", NODE(toss_node));
	if (!cg || fill_node(toss_node, node_file[toss_node]) || toss(cg, "1"))
		goto cleanup;
	/* The class's line: "<key> FD: <n> BD: <n> <usage>: toss_node_turn". */
	f = fopen("/proc/lockdep", "r");
	while (f && fgets(line, sizeof(line), f)) {
		if (!strstr(line, ": toss_node_turn\n"))
			continue;
		p = strstr(line, "FD:");
		fwd = p ? atol(p + 3) : -1;
		p = strstr(line, "BD:");
		back = p ? atol(p + 3) : -1;
		break;
	}
	ksft_print_msg("lockdep class toss_node_turn: %s, FD %ld, BD %ld\n",
		       fwd < 0 ? "not found" : "found", fwd, back);
	if (fwd < 2 || back < 2)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	if (f)
		fclose(f);
	destroy(cg);
	return ret;
}

static void sig_nop(int sig)
{
}

/* Writer @arg of test_toss_signals, in its cgroup. */
static int sig_writer(const char *cgroup, void *arg)
{
	struct sigaction sa = { .sa_handler = sig_nop };	/* no SA_RESTART */
	long i = (long)arg;

	if (i == SIG_USR1 && sigaction(SIGUSR1, &sa, NULL))
		return 1;
	if (i == SIG_W1)
		sw->err[i] = write(sw->fd, sw->req[i], strlen(sw->req[i])) < 0 ? -errno : 0;
	else
		sw->err[i] = toss(sw->cg[i], sw->req[i]);
	sw->end[i] = now();
	return 0;
}

#define NR_SIG_HOGS	3

/* A busy loop on CPU @cpu, at the default priority, until killed. */
static pid_t cpu_hog(int cpu)
{
	pid_t pid = fork();
	cpu_set_t set;

	if (pid)
		return pid;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		exit(1);
	for (;;)
		;
}

/*
 * Waiting for a node's turn is not a hold-and-wait, and ends on any signal
 * and on the freezer.  W1 tosses node Y (448 MiB of cache there, one
 * worker), made slow on purpose: its cpuset has a CPU of Y, where the
 * toss's work runs, and three busy loops share it, while the other writers
 * keep to CPU 0.  Behind W1, and while it goes on:
 * (a) a writer waiting for node Y gets SIGUSR1 (handled, no SA_RESTART):
 *     its write returns -EINTR within 200 ms;
 * (b) a writer waiting for node Y in a cgroup being frozen: cgroup.events
 *     says "frozen 1" within 1 s;
 * (c) W2, "1 nodes=X,Y" after W1, waits for node Y without keeping node X:
 *     W3, "1 nodes=X" after W2, returns at least 300 ms before W1 does;
 * (d) a second writer of W1's cgroup, with its own open file (one writer
 *     per open file, as for memory.reclaim), is seen in state S waiting
 *     for node Y's turn, and SIGKILL ends it before W1's toss does.
 * No step waits a fixed time: each waits until W1 is seen walking or the
 * writer before it asleep in its write, so that a fast kernel, whose W1
 * takes a second or less, tests the same.
 */
static int test_toss_signals(const char *root)
{
	static const char * const names[] = { "w1", "w2", "w3", "usr1", "frozen" };
	int y = nth_node(CPU_NODE, 1), x, ycpu;
	unsigned long mems[NR_SIG_WRITERS];
	char req[NR_SIG_WRITERS][32], list[32];
	pid_t pids[NR_SIG_WRITERS] = { 0 }, hogs[NR_SIG_HOGS] = { 0 };
	double tsig = 0, frozen_at = 0, start, setup = now(), tkill = 0, twin_gone = 0, w1_end;
	char twin_path[PATH_MAX];
	bool twin_s = false;
	long cached, kb;
	pid_t twin = 0;
	int ret = KSFT_FAIL, bad = 0, i;
	cpu_set_t all, set;

	if (y < 0)
		y = nth_node(CPU_NODE, 0);
	x = y < 0 ? -1 : find_node(ANY_NODE, NODE(home_node) | NODE(y));
	if (x < 0)
		return toss_skip("needs 3 nodes with memory, one with CPUs besides node %d",
				 home_node);
	ycpu = first_cpu(node_cpus(y));
	mems[SIG_W1] = NODE(y);
	mems[SIG_USR1] = NODE(y);
	mems[SIG_FROZEN] = NODE(y);
	mems[SIG_W2] = NODE(x) | NODE(y);
	mems[SIG_W3] = NODE(x);
	snprintf(req[SIG_W1], sizeof(req[0]), "1 nodes=%d", y);
	snprintf(req[SIG_W2], sizeof(req[0]), "1 nodes=%s",
		 list_str(mems[SIG_W2], list, sizeof(list)));
	snprintf(req[SIG_W3], sizeof(req[0]), "1 nodes=%d", x);
	snprintf(req[SIG_USR1], sizeof(req[0]), "1");
	snprintf(req[SIG_FROZEN], sizeof(req[0]), "1");
	sw = mmap(NULL, sizeof(*sw), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sw == MAP_FAILED || sched_getaffinity(0, sizeof(all), &all))
		return KSFT_FAIL;
	memset(sw, 0, sizeof(*sw));
	sw->fd = -1;
	for (i = 0; i < NR_SIG_WRITERS; i++) {
		sw->cg[i] = make_cpuset(names[i], mems[i]);
		sw->req[i] = req[i];
		if (!sw->cg[i])
			goto cleanup;
	}
	if (fill_big_file(y))
		goto cleanup;
	for (i = 0; i < nr_files; i++)
		if (fill_node(y, file[i]))
			goto cleanup;
	cached = resident_on(big_file, y) + resident_all_on(y);
	ksft_print_msg("X node %d, Y node %d (CPU %d): %ld MiB of cache to toss there\n", x, y,
		       ycpu, cached * page_size / MiB);
	if (set_list(sw->cg[SIG_W1], "cpuset.cpus", 1UL << ycpu))
		goto cleanup;
	snprintf(twin_path, sizeof(twin_path), "%s/%s", sw->cg[SIG_W1], TOSS_FILE);
	sw->fd = open(twin_path, O_WRONLY);
	if (sw->fd < 0)
		goto cleanup;
	for (i = 0; i < NR_SIG_HOGS; i++) {
		hogs[i] = cpu_hog(ycpu);
		if (hogs[i] < 0)
			goto cleanup;
	}
	/* We watch from the other CPUs. */
	set = all;
	CPU_CLR(ycpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		goto cleanup;

	kb = node_meminfo_kb(y, "FilePages:");
	start = now();
	for (i = 0; i < NR_SIG_WRITERS; i++) {
		pids[i] = cg_run_nowait(sw->cg[i], sig_writer, (void *)(long)i);
		if (pids[i] < 0)
			goto cleanup;
		/*
		 * Each in turn, whatever the kernel's speed: W1 walks node Y
		 * (a sixteenth of it gone), then W2, (a) and (b) wait behind
		 * it, asleep in their writes; W3 goes on alone.
		 */
		if (i == SIG_W1) {
			if (wait_walking(pids[i], y, kb, cached / 16) < 0)
				goto cleanup;
		} else if (i != SIG_W3 && !sw->end[SIG_W1] && !wait_in_write(pids[i])) {
			ksft_print_msg("%s was never seen waiting in its write\n", names[i]);
			goto cleanup;
		}
	}
	if (sw->end[SIG_W1]) {
		ksft_print_msg("W1's toss took only %.0f ms: too short to test behind\n",
			       (sw->end[SIG_W1] - start) * 1000);
		goto cleanup;
	}
	tsig = now();
	kill(pids[SIG_USR1], SIGUSR1);
	if (cg_write(sw->cg[SIG_FROZEN], "cgroup.freeze", "1"))
		goto cleanup;
	/* (d): a second writer of W1's cgroup, behind W1's toss. */
	twin = fork();
	if (twin < 0)
		goto cleanup;
	if (!twin)
		_exit(toss(sw->cg[SIG_W1], "1") ? 1 : 0);
	/* Until W1 is done, and the others had a second and a half. */
	while (now() < tsig + 30 && (!sw->end[SIG_W1] || now() < tsig + 1.5)) {
		if (!frozen_at &&
		    !cg_read_strstr(sw->cg[SIG_FROZEN], "cgroup.events", "frozen 1"))
			frozen_at = now();
		/* (d): killed once seen asleep in its write, in state S. */
		if (twin && !twin_s)
			twin_s = in_write(twin);
		if (twin && twin_s && !sw->end[SIG_W1]) {
			tkill = now();
			kill(twin, SIGKILL);
			waitpid(twin, NULL, 0);
			twin_gone = now();
			twin = 0;
		}
		usleep(10000);
	}
	/*
	 * A W1 still tossing after the 30 s (a slow kernel: KASAN) returns
	 * later than anything seen so far: now, for the comparisons.
	 */
	w1_end = sw->end[SIG_W1];
	if (w1_end) {
		ksft_print_msg("W1 (1 nodes=2): %d after %.0f ms (set up in %.1f s)\n",
			       sw->err[SIG_W1], (w1_end - start) * 1000, start - setup);
	} else {
		w1_end = now();
		ksft_print_msg("W1 (1 nodes=2): still tossing after %.0f ms (set up in %.1f s)\n",
			       (w1_end - start) * 1000, start - setup);
	}
	if (sw->end[SIG_USR1])
		ksft_print_msg("(a) SIGUSR1 to a waiter: %d, %.0f ms after it, %s W1 returned\n",
			       sw->err[SIG_USR1], (sw->end[SIG_USR1] - tsig) * 1000,
			       sw->end[SIG_USR1] < w1_end ? "before" : "after");
	else
		ksft_print_msg("(a) SIGUSR1 to a waiter: still waiting when W1 returned\n");
	if (sw->err[SIG_USR1] != -EINTR || !sw->end[SIG_USR1] ||
	    sw->end[SIG_USR1] - tsig > 0.2 || sw->end[SIG_USR1] >= w1_end)
		bad |= 1;
	if (frozen_at)
		ksft_print_msg("(b) frozen %.0f ms after cgroup.freeze, %s W1 returned\n",
			       (frozen_at - tsig) * 1000,
			       frozen_at < w1_end ? "before" : "not before");
	else
		ksft_print_msg("(b) not frozen within %.1f s\n", now() - tsig);
	if (!frozen_at || frozen_at - tsig > 1.0 || frozen_at >= w1_end)
		bad |= 2;
	if (sw->end[SIG_W3])
		ksft_print_msg("(c) W3 (1 nodes=1): %d, returned %.0f ms before W1\n",
			       sw->err[SIG_W3], (w1_end - sw->end[SIG_W3]) * 1000);
	else
		ksft_print_msg("(c) W3 (1 nodes=1): still waiting when W1 returned\n");
	if (sw->err[SIG_W3] || !sw->end[SIG_W3] || sw->end[SIG_W3] > w1_end - 0.3)
		bad |= 4;
	if (twin_gone)
		ksft_print_msg("(d) a second write to W1's file: %s, killed in %.0f ms, %s\n",
			       twin_s ? "seen in S" : "never seen in S",
			       (twin_gone - tkill) * 1000,
			       twin_gone < w1_end ? "before W1 returned" :
			       "after W1 returned");
	else
		ksft_print_msg("(d) a second write to W1's file: %s\n",
			       "not killed before W1 returned");
	if (!twin_s || !twin_gone || twin_gone >= w1_end)
		bad |= 8;
	if (bad)
		ksft_print_msg("failed: %s%s%s%s\n", bad & 1 ? "(a) " : "",
			       bad & 2 ? "(b) " : "", bad & 4 ? "(c) " : "",
			       bad & 8 ? "(d)" : "");
	else
		ret = KSFT_PASS;
cleanup:
	setup = now();
	reap(twin);
	if (sw->fd >= 0)
		close(sw->fd);
	for (i = 0; i < NR_SIG_HOGS; i++)
		reap(hogs[i]);
	sched_setaffinity(0, sizeof(all), &all);
	if (sw->cg[SIG_FROZEN])
		cg_write(sw->cg[SIG_FROZEN], "cgroup.freeze", "0");
	for (i = 0; i < NR_SIG_WRITERS; i++) {
		reap(pids[i]);
		destroy(sw->cg[i]);
	}
	munmap(sw, sizeof(*sw));
	ksft_print_msg("cleaned up in %.1f s\n", now() - setup);
	return ret;
}

#define T(x) { x, #x }
static const struct toss_test tests[] = {
	T(test_toss_parallel),
	T(test_toss_fatal_signal),
	T(test_toss_rmdir_during),
	T(test_toss_concurrency),
	T(test_toss_no_pileup),
	T(test_toss_offline_during),
	T(test_toss_fifo),
	T(test_toss_offline_wakes),
	T(test_toss_turn_lockdep),
	T(test_toss_rmdir_unheld),
	T(test_toss_signals),
};

#undef T

int main(int argc, char **argv)
{
	return toss_main(argc, argv, tests, ARRAY_SIZE(tests));
}
