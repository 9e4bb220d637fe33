// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of cpuset.memory_toss_cache with scope=cgroup: a toss of a
 * cgroup's own page cache on its cpuset's nodes, which the unprivileged
 * owner of a delegated cgroup may ask for.
 *
 * Delegation as cgroup-v2.rst describes it, and from inside a user and a
 * cgroup namespace; another tenant's cache and what memory.min and
 * memory.low protect kept; the cost charged to the writer and in
 * proportion to the cgroup's own cache; the LRU lock held for a bounded
 * number of folios; what an owner cannot do to others (free=, log lines,
 * drain work on other CPUs); no memory controller.  See toss_util.c for
 * how the page cache of a node is measured.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "toss_util.h"

/* As an unprivileged user: "1" must be -EPERM, "1 scope=cgroup" work. */
static int delegated_child(const char *cg)
{
	int err;

	if (become_delegatee())
		return 10;
	err = toss(cg, "1");
	if (err != -EPERM)
		return 11;
	err = toss(cg, "1 scope=cgroup");
	return err ? 12 : 0;
}

static int write_proc(const char *name, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/%s", name);
	return write_str(path, text);
}

/*
 * The delegatee again, now inside a user and a cgroup namespace of its
 * own, on a hierarchy mounted with nsdelegate: root in its user namespace,
 * it still gets -EPERM for "1"; the root of its cgroup namespace is a
 * delegation boundary (-EPERM for its interface files, the toss file
 * included); in a child it makes, "1 scope=cgroup" tosses what it read.
 */
static int delegatee_in_ns(const char *job)
{
	char *inner = cg_name(job, "inner");
	char pid[16];

	/* (setresuid() made us undumpable: /proc/self would be root's.) */
	if (!inner || prctl(PR_SET_DUMPABLE, 1) ||
	    unshare(CLONE_NEWUSER | CLONE_NEWCGROUP))
		return 30;
	if (write_proc("uid_map", "0 65534 1") || write_proc("setgroups", "deny") ||
	    write_proc("gid_map", "0 65534 1"))
		return 31;
	if (toss(job, "1 scope=cgroup") != -EPERM)
		return 32;
	if (cg_create(inner))
		return 33;
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (cg_write(inner, "cgroup.procs", pid) ||
	    cg_write(job, "cgroup.subtree_control", "+cpuset +memory") ||
	    read_all(inner, file[1]))
		return 34;
	if (toss(inner, "1") != -EPERM)
		return 35;
	if (toss(inner, "1 scope=cgroup"))
		return 36;
	return 0;
}

/*
 * As the delegatee of a subtree, delegated as cgroup-v2.rst describes
 * (the directory, cgroup.procs, cgroup.threads and cgroup.subtree_control
 * chowned; the toss file is not): from a leaf root put it in, create a
 * child cgroup, move into it, read a file in, and toss it with
 * scope=cgroup; "1" is -EPERM.
 */
static int delegatee(const char *dcg)
{
	char *job = cg_name(dcg, "job");
	char pid[16];

	if (!job || become_delegatee())
		return 10;
	if (cg_create(job) || set_list(job, "cpuset.mems", NODE(toss_node)))
		return 11;
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (cg_write(job, "cgroup.procs", pid))
		return 12;
	if (read_all(job, file[0]))
		return 13;
	if (toss(job, "1") != -EPERM)
		return 14;
	if (toss(job, "1 scope=cgroup"))
		return 15;
	return delegatee_in_ns(job);
}

static int delegated_run(const char *dcg)
{
	char pid[16], *login = cg_name(dcg, "login");

	/*
	 * Placed in the delegated subtree by root, as a login would be (the
	 * delegated cgroup itself has controllers enabled: no processes).
	 */
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (!login || cg_create(login) || cg_write(login, "cgroup.procs", pid))
		return 20;
	return delegatee(dcg);
}

static int test_toss_delegated(const char *root)
{
	static const char * const files[] = {
		"", "/cgroup.procs", "/cgroup.threads", "/cgroup.subtree_control",
	};
	char path[PATH_MAX], *d = NULL, *b = NULL;
	int ret = KSFT_FAIL, err;
	long b0, left, inner;
	unsigned int i;

	drop_all_caches();
	d = make_cpuset("deleg", NODE(toss_node));
	b = make_cpuset("tenant_b", NODE(toss_node));
	if (!d || !b || cg_write(d, "cgroup.subtree_control", "+cpuset +memory"))
		goto cleanup;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s%s", d, files[i]);
		if (chown(path, TEST_UID, TEST_UID))
			goto cleanup;
	}
	/* Another tenant's cache on the same node. */
	if (cg_run(b, read_all, file[2]))
		goto cleanup;
	b0 = resident_on(file[2], toss_node);
	if (mount("none", root, NULL, MS_REMOUNT, "nsdelegate"))
		goto cleanup;
	err = run_steps(delegated_run, d, "delegatee");
	mount("none", root, NULL, MS_REMOUNT, "");
	if (err)
		goto cleanup;
	left = resident_on(file[0], toss_node);
	inner = resident_on(file[1], toss_node);
	ksft_print_msg("delegatee: %ld pages left, %ld in its namespaces; others: %ld of %ld\n",
		       left, inner, resident_on(file[2], toss_node), b0);
	if (left > FILE_SIZE / page_size / 100 || inner > FILE_SIZE / page_size / 100 ||
	    b0 < FILE_SIZE / page_size * 99 / 100 ||
	    resident_on(file[2], toss_node) < b0 * 99 / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	if (d) {
		char *job = cg_name(d, "job");

		destroy(job ? cg_name(job, "inner") : NULL);
		destroy(job);
		destroy(cg_name(d, "login"));
	}
	destroy(d);
	destroy(b);
	return ret;
}

/*
 * scope=cgroup: the owner of a delegated cgroup drops its own cache on its
 * nodes, not another tenant's on the same node, and not what memory.min
 * protects; without the memory controller it is -EOPNOTSUPP.
 */
static int test_toss_scope_cgroup(const char *root)
{
	char *a = NULL, *b = NULL, *ap = NULL, *x = NULL, *xy = NULL;
	int ret = KSFT_FAIL, err;
	long a0, b0, p0;

	a = make_cpuset("tenant_a", NODE(toss_node));
	b = make_cpuset("tenant_b", NODE(toss_node));
	if (!a || !b)
		goto cleanup;
	drop_all_caches();
	/* a's cache, a's protected child's cache, b's cache: all on one node. */
	if (cg_run(a, read_all, file[0]) || cg_run(b, read_all, file[2]))
		goto cleanup;
	ap = cg_name(a, "protected");
	if (!ap || cg_write(a, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(ap) || cg_write(ap, "memory.min", "200M") ||
	    cg_run(ap, read_all, file[3]))
		goto cleanup;
	a0 = resident_on(file[0], toss_node);
	b0 = resident_on(file[2], toss_node);
	p0 = resident_on(file[3], toss_node);
	if (a0 < FILE_SIZE / page_size * 99 / 100 ||
	    b0 < FILE_SIZE / page_size * 99 / 100 ||
	    p0 < FILE_SIZE / page_size * 99 / 100)
		goto cleanup;

	if (chown_cgroup(a, TEST_UID) || run_steps(delegated_child, a, "delegated"))
		goto cleanup;
	ksft_print_msg("scope=cgroup: a %ld -> %ld, a/protected %ld -> %ld, b %ld -> %ld\n",
		       a0, resident_on(file[0], toss_node), p0,
		       resident_on(file[3], toss_node), b0,
		       resident_on(file[2], toss_node));
	if (resident_on(file[0], toss_node) > a0 / 100 ||
	    resident_on(file[3], toss_node) < p0 * 99 / 100 ||
	    resident_on(file[2], toss_node) < b0 * 99 / 100)
		goto cleanup;

	/* No memory controller on the cgroup: -EOPNOTSUPP. */
	x = cg_name(parent, "nomem");
	xy = x ? cg_name(x, "y") : NULL;
	if (!xy || cg_create(x) ||
	    cg_write(x, "cgroup.subtree_control", "+cpuset") || cg_create(xy))
		goto cleanup;
	err = toss(xy, "1 scope=cgroup");
	if (err != -EOPNOTSUPP) {
		ksft_print_msg("scope=cgroup without memcg returned %d\n", err);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	destroy(xy);
	destroy(x);
	destroy(ap);
	destroy(a);
	destroy(b);
	return ret;
}

/*
 * memory.low, as memory.reclaim respects it: the tossed cgroup T holds M,
 * and M holds L (protected) and U (not), all caching on one node.  A
 * cgroup's effective protection against a toss of its parent is its own
 * setting; deeper down it flows from the parents' effective protection,
 * so L stays protected against a toss of T only while M has memory.low
 * too.  Three tosses: of M, of T, and of T once M's memory.low is 0.
 */
static int test_toss_memory_low(const char *root)
{
	char *t, *m = NULL, *l = NULL, *u = NULL;
	long l0, u0, l1, u1, want = FILE_SIZE / page_size * 99 / 100;
	int ret = KSFT_FAIL, round;

	t = make_cpuset("tenant", NODE(toss_node));
	if (!t)
		goto cleanup;
	m = cg_name(t, "mid");
	l = m ? cg_name(m, "low") : NULL;
	u = m ? cg_name(m, "unprotected") : NULL;
	if (!l || !u || cg_write(t, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(m) || cg_write(m, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(l) || cg_create(u) || cg_write(m, "memory.low", "200M") ||
	    cg_write(l, "memory.low", "200M"))
		goto cleanup;
	drop_all_caches();
	for (round = 0; round < 3; round++) {
		static const char * const what[] = {
			"mid", "tenant", "tenant, mid's memory.low 0",
		};

		if (round == 2 && cg_write(m, "memory.low", "0"))
			goto cleanup;
		/* (a read of what is still cached changes nothing) */
		if (cg_run(l, read_all, file[0]) || cg_run(u, read_all, file[2]))
			goto cleanup;
		l0 = resident_on(file[0], toss_node);
		u0 = resident_on(file[2], toss_node);
		if (l0 < want || u0 < want) {
			ksft_print_msg("the fill left only %ld and %ld pages on node %d\n",
				       l0, u0, toss_node);
			goto cleanup;
		}
		if (toss(round ? t : m, "1 scope=cgroup"))
			goto cleanup;
		l1 = resident_on(file[0], toss_node);
		u1 = resident_on(file[2], toss_node);
		ksft_print_msg("toss of %s: protected %ld -> %ld pages, unprotected %ld -> %ld\n",
			       what[round], l0, l1, u0, u1);
		if (u1 > u0 / 100)
			goto cleanup;
		if (round < 2 ? l1 < l0 * 99 / 100 : l1 > l0 / 100)
			goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	destroy(l);
	destroy(u);
	destroy(m);
	destroy(t);
	return ret;
}

/* In the tenant: read the test files in, then toss them when told to. */
static int toss_own_cgroup(const char *cgroup, void *arg)
{
	double *wall = arg, t0;
	int *fds = (int *)(wall + 1), i;
	char c = 0;

	for (i = 0; i < nr_files; i++)
		if (read_all(cgroup, file[i]))
			return 1;
	if (write(fds[1], &c, 1) != 1 || read(fds[2], &c, 1) != 1)
		return 2;
	t0 = now();
	if (toss(cgroup, "1 scope=cgroup"))
		return 3;
	*wall = now() - t0;
	return 0;
}

/*
 * A toss of scope=cgroup is the writer's own work: its CPU time shows in
 * the writer's cgroup's cpu.stat, at least half of the time the write took
 * (the write does little else than toss the cgroup's cache).
 */
static int test_toss_scope_cgroup_cpu(const char *root)
{
	double *wall = MAP_FAILED;
	int ret = KSFT_FAIL, p1[2] = { -1, -1 }, p2[2] = { -1, -1 }, *fds;
	pid_t pid = 0;
	long u0, u1;
	char c = 0;
	char *cg;

	drop_all_caches();
	cg = make_cpuset("tenant", mem_nodes);
	wall = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!cg || wall == MAP_FAILED || pipe(p1) || pipe(p2))
		goto cleanup;
	fds = (int *)(wall + 1);
	fds[1] = p1[1];
	fds[2] = p2[0];
	pid = fork();
	if (pid < 0)
		goto cleanup;
	if (!pid)
		exit(cg_run(cg, toss_own_cgroup, wall));
	if (read(p1[0], &c, 1) != 1)
		goto cleanup;
	u0 = cg_read_key_long(cg, "cpu.stat", "usage_usec ");
	if (write(p2[1], &c, 1) != 1 || waitpid(pid, NULL, 0) != pid)
		goto cleanup;
	pid = 0;
	u1 = cg_read_key_long(cg, "cpu.stat", "usage_usec ");
	ksft_print_msg("scope=cgroup of %d x 48 MiB: %.0f ms wall, %.0f ms in cpu.stat\n",
		       nr_files, *wall * 1000, (u1 - u0) / 1000.0);
	if (u0 < 0 || *wall <= 0 || u1 - u0 < *wall * 1e6 / 2)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	close(p1[0]);
	close(p1[1]);
	close(p2[0]);
	close(p2[1]);
	if (wall != MAP_FAILED)
		munmap(wall, 4096);
	destroy(cg);
	return ret;
}

/*
 * A toss of scope=cgroup costs time in proportion to the cgroup's own page
 * cache, not to the node's: a tenant owning 1 MiB on a node, whose other
 * 256 MiB of cache are mapped by another cgroup (so that a walk of the
 * whole node looks at every page and drops none of them), tosses its
 * cache in under 5% of the time of a scope=node walk of the node.
 */
static int test_toss_scope_cgroup_cost(const char *root)
{
	char small[PATH_MAX], *tenant = NULL, *other = NULL;
	long node_us, cgroup_us, left;
	int ret = KSFT_FAIL, i;
	pid_t holder = 0;

	snprintf(small, sizeof(small), "%s/toss-small", dir);
	tenant = make_cpuset("tenant", NODE(toss_node));
	other = make_cpuset("other", NODE(toss_node));
	if (!tenant || !other || create_file(small, MiB, 's') ||
	    fill_big_file(toss_node))
		goto cleanup;
	unlink("/tmp/toss-holding");
	holder = fork();
	if (holder < 0)
		goto cleanup;
	if (!holder)
		exit(cg_run(other, hold_mapped, big_file));
	if (wait_holding(60))
		goto cleanup;
	/* Written by us: out of the cache, to be read in by the tenant. */
	uncache(small);
	/* The whole node, walked: the big file stays (mapped). */
	if (toss(other, "1"))
		goto cleanup;
	node_us = toss_last(other, "toss_usec");
	if (resident_on(big_file, toss_node) < BIG_SIZE / page_size * 95 / 100)
		goto cleanup;
	/* The tenant's own megabyte, charged to it, on the node: best of 3. */
	for (cgroup_us = LONG_MAX, i = 0; i < 3; i++) {
		long us;

		if (cg_run(tenant, read_all, small) ||
		    resident_on(small, toss_node) < MiB / page_size * 9 / 10)
			goto cleanup;
		if (toss(tenant, "1 scope=cgroup"))
			goto cleanup;
		us = toss_last(tenant, "toss_usec");
		cgroup_us = us < cgroup_us ? us : cgroup_us;
		left = resident_on(small, toss_node);
		if (left)
			break;
	}
	ksft_print_msg("node walk %ld us, scope=cgroup %ld us (best of 3: %.1f%%), %ld left\n",
		       node_us, cgroup_us, 100.0 * cgroup_us / node_us, left);
	if (left > 0 || resident_on(big_file, toss_node) < BIG_SIZE / page_size * 95 / 100 ||
	    (!sanitizers && cgroup_us * 20 > node_us))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(holder);
	unlink(small);
	destroy(tenant);
	destroy(other);
	return ret;
}

#define LRU_BOUND_SIZE	(400 * MiB)
/* Seconds each phase of test_toss_lru_bound measures. */
#define LRU_PHASE	2.5
#define NR_SLEEPERS	8
#define MAX_LRU_SAMPLES	1000
/* folios looked at under one hold of an LRU lock (TOSS_SCAN_BATCH) */
#define LRU_HOLD_MAX	64

/* What the children of test_toss_lru_bound report. */
struct lru_bound {
	double end;			/* when the phase ends */
	int tosses;
	int errors;
	int first_error;
	long late_us[NR_SLEEPERS];	/* worst lateness per CPU; -1: none */
	long irqs_off[MAX_LRU_SAMPLES];	/* the longest section of each toss */
};

static struct lru_bound *lb;

/* As the delegatee: toss @cg once, with scope=cgroup. */
static int lru_toss_once(const char *cg)
{
	if (become_delegatee())
		return 10;
	return toss(cg, "1 scope=cgroup") ? 11 : 0;
}

/* As the delegatee: toss @cg with scope=cgroup until the phase ends. */
static int lru_toss_loop(const char *cg)
{
	int err;

	if (become_delegatee())
		return 10;
	while (now() < lb->end) {
		err = toss(cg, "1 scope=cgroup");
		if (err && !lb->errors++)
			lb->first_error = err;
		lb->tosses++;
	}
	return 0;
}

/* As the delegatee: toss @cg once per byte read from @in, answer on @out. */
static int lru_toss_asked(const char *cg, int in, int out)
{
	char c;
	int err;

	if (become_delegatee())
		return 10;
	while (read(in, &c, 1) == 1) {
		err = toss(cg, "1 scope=cgroup");
		if (err && !lb->errors++)
			lb->first_error = err;
		if (write(out, &c, 1) != 1)
			return 11;
	}
	return 0;
}

/* SCHED_FIFO on CPU @arg: sleep 1 ms at a time, keep the worst lateness. */
static void *lru_sleeper(void *arg)
{
	struct sched_param sp = { .sched_priority = 80 };
	long cpu = (long)arg, late, worst = 0;
	struct timespec next, t;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_setaffinity_np(pthread_self(), sizeof(set), &set) ||
	    pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp))
		return NULL;
	clock_gettime(CLOCK_MONOTONIC, &next);
	while (now() < lb->end) {
		next.tv_nsec += 1000000;
		if (next.tv_nsec >= 1000000000) {
			next.tv_sec++;
			next.tv_nsec -= 1000000000;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		clock_gettime(CLOCK_MONOTONIC, &t);
		late = (t.tv_sec - next.tv_sec) * 1000000 + (t.tv_nsec - next.tv_nsec) / 1000;
		worst = late > worst ? late : worst;
		/* The next wake-up is 1 ms after this one, however late. */
		next = t;
	}
	lb->late_us[cpu] = worst;
	return NULL;
}

static int lru_sleepers(long nr_cpus)
{
	pthread_t th[NR_SLEEPERS];
	long i;

	for (i = 0; i < nr_cpus; i++)
		if (pthread_create(&th[i], NULL, lru_sleeper, (void *)i))
			return 1;
	for (i = 0; i < nr_cpus; i++)
		pthread_join(th[i], NULL);
	return 0;
}

/*
 * LRU_PHASE seconds of a SCHED_FIFO sleeper on each CPU, while the
 * delegatee tosses @cg in a loop (if @cg is set): the worst wake-up
 * lateness of all of them into *@late, in us (-1 if none could run).
 */
static int lru_fifo_phase(const char *cg, long nr_cpus, long *late)
{
	pid_t sleepers, tosser = 0;
	int i, status, ret = 0;

	memset(lb, 0, sizeof(*lb));
	for (i = 0; i < NR_SLEEPERS; i++)
		lb->late_us[i] = -1;
	lb->end = now() + LRU_PHASE;
	sleepers = fork();
	if (sleepers < 0)
		return -1;
	if (!sleepers)
		exit(lru_sleepers(nr_cpus));
	if (cg) {
		tosser = fork();
		if (!tosser)
			exit(lru_toss_loop(cg));
	}
	if (waitpid(sleepers, &status, 0) != sleepers || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		ret = -1;
	if (tosser && (tosser < 0 || waitpid(tosser, &status, 0) != tosser ||
		       !WIFEXITED(status) || WEXITSTATUS(status))) {
		ksft_print_msg("the tossing delegatee failed\n");
		ret = -1;
	}
	*late = -1;
	for (i = 0; i < nr_cpus; i++)
		*late = lb->late_us[i] > *late ? lb->late_us[i] : *late;
	return ret;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;

	return x < y ? -1 : x > y;
}

/*
 * LRU_PHASE seconds of samples of the irqsoff tracer's longest section,
 * each over one toss of @cg by the delegatee (or over 5 ms with nothing
 * tossed if @cg is NULL): their median and maximum into *@median and
 * *@max, in us.
 */
static int lru_irqs_phase(const char *cg, long *median, long *max)
{
	int to[2] = { -1, -1 }, from[2] = { -1, -1 }, n = 0, status, ret = -1;
	pid_t tosser = 0;
	char buf[32], c = 't';

	memset(lb, 0, sizeof(*lb));
	lb->end = now() + LRU_PHASE;
	if (cg) {
		if (pipe(to) || pipe(from))
			goto out;
		tosser = fork();
		if (tosser < 0)
			goto out;
		if (!tosser) {
			close(to[1]);
			close(from[0]);
			exit(lru_toss_asked(cg, to[0], from[1]));
		}
		close(to[0]);
		close(from[1]);
		to[0] = -1;
		from[1] = -1;
	}
	while (now() < lb->end && n < MAX_LRU_SAMPLES) {
		if (write_str(TRACING "/tracing_max_latency", "0"))
			goto out;
		if (!cg)
			usleep(5000);
		else if (write(to[1], &c, 1) != 1 || read(from[0], &c, 1) != 1)
			goto out;
		if (read_text(TRACING "/tracing_max_latency", buf, sizeof(buf)) <= 0)
			goto out;
		lb->irqs_off[n++] = atol(buf);
	}
	lb->tosses = cg ? n : 0;
	ret = 0;
out:
	if (to[1] >= 0)
		close(to[1]);
	if (tosser > 0 && (waitpid(tosser, &status, 0) != tosser || !WIFEXITED(status) ||
			   WEXITSTATUS(status))) {
		ksft_print_msg("the tossing delegatee failed\n");
		ret = -1;
	}
	if (to[0] >= 0)
		close(to[0]);
	if (from[0] >= 0)
		close(from[0]);
	if (from[1] >= 0)
		close(from[1]);
	if (!n)
		return -1;
	qsort(lb->irqs_off, n, sizeof(long), cmp_long);
	*median = lb->irqs_off[n / 2];
	*max = lb->irqs_off[n - 1];
	return ret;
}

/*
 * A toss of scope=cgroup looks at a bounded number of folios per hold of
 * the lru_lock, with interrupts off, whatever is on the list: a tenant's
 * child holds a 400 MiB file mapped (100k folios on one node, which no toss
 * can drop) and the tenant's unprivileged owner tosses it again and again.
 * The bound, from the trace: no toss_node_end of the node reports more
 * than LRU_HOLD_MAX folios looked at under one hold (max_hold=).  Printed,
 * not checked, as they depend on the host more than on the kernel: the
 * irqsoff tracer's longest section with interrupts off during each toss
 * (median and maximum; the old code's one hold over the whole list took
 * 3.7-4.6 ms under TCG, the bounded holds about 1-3 ms, mostly the
 * host's), and the worst wake-up lateness of a SCHED_FIFO sleeper on each
 * CPU, tossing and not.
 */
static int test_toss_lru_bound(const char *root)
{
	char path[PATH_MAX], fn_trace[16] = "", *tenant = NULL, *hold = NULL, *trace = NULL;
	long idle_irq, idle_max, toss_irq, toss_max, idle_late, toss_late, most, sum;
	long npages = LRU_BOUND_SIZE / page_size, nr_cpus, mapped;
	int ret = KSFT_FAIL, tosses, i;
	pid_t holder = 0;

	if (access(TRACING "/events", F_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	nr_cpus = nr_cpus > NR_SLEEPERS ? NR_SLEEPERS : nr_cpus;
	snprintf(path, sizeof(path), "%s/toss-mapped", dir);
	lb = mmap(NULL, sizeof(*lb), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	tenant = make_cpuset("tenant", NODE(toss_node));
	hold = tenant ? cg_name(tenant, "hold") : NULL;
	if (lb == MAP_FAILED || !hold || create_sparse(path, LRU_BOUND_SIZE) ||
	    cg_write(tenant, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(hold) || chown_cgroup(tenant, TEST_UID))
		goto cleanup;
	unlink("/tmp/toss-holding");
	holder = cg_run_nowait(hold, hold_mapped, path);
	if (holder < 0 || wait_holding(60))
		goto cleanup;
	mapped = resident_on(path, toss_node);
	if (mapped < npages * 99 / 100) {
		ksft_print_msg("only %ld of %ld pages mapped on node %d\n",
			       mapped, npages, toss_node);
		goto cleanup;
	}
	/* What is not mapped goes: the rest of the tenant's lists is mapped. */
	if (run_steps(lru_toss_once, tenant, "delegatee"))
		goto cleanup;

	/*
	 * The sleepers first: the tracer's numbers are best without them, as
	 * every vCPU they keep busy may be stopped by the host.
	 */
	if (lru_fifo_phase(NULL, nr_cpus, &idle_late) ||
	    lru_fifo_phase(tenant, nr_cpus, &toss_late))
		goto cleanup;
	ksft_print_msg("SCHED_FIFO 1 ms sleepers, worst lateness: idle %ld us, tossing %ld us\n",
		       idle_late, toss_late);
	for (i = 0; i < nr_cpus; i++)
		ksft_print_msg("  CPU %d: %ld us late at worst while tossing\n", i, lb->late_us[i]);
	ksft_print_msg("%d tosses, %d errors (first %d)\n", lb->tosses, lb->errors,
		       lb->first_error);
	if (lb->errors)
		goto cleanup;

	/* Only the sections' ends: not every function inside them. */
	read_text(TRACING "/options/function-trace", fn_trace, sizeof(fn_trace));
	write_str(TRACING "/options/function-trace", "0");
	if (write_str(TRACING "/current_tracer", "irqsoff") ||
	    write_str(TRACING "/tracing_on", "1")) {
		ksft_print_msg("no irqsoff tracer (CONFIG_IRQSOFF_TRACER): not measured\n");
	} else {
		if (lru_irqs_phase(NULL, &idle_irq, &idle_max) ||
		    lru_irqs_phase(tenant, &toss_irq, &toss_max))
			goto cleanup;
		tosses = lb->tosses;
		ksft_print_msg("tenant's tosses: %ld us, scanned %ld MiB, kept %ld MiB mapped\n",
			       cg_read_key_long(tenant, STAT_FILE, "toss_usec "),
			       cg_read_key_long(tenant, STAT_FILE, "scanned_bytes ") / MiB,
			       cg_read_key_long(tenant, STAT_FILE, "kept_mapped_bytes ") / MiB);
		ksft_print_msg("interrupts off, longest per 5 ms idle: median %ld us, max %ld us\n",
			       idle_irq, idle_max);
		ksft_print_msg("interrupts off, longest per toss (%d): median %ld us, max %ld us\n",
			       tosses, toss_irq, toss_max);
		if (!tosses || lb->errors)
			goto cleanup;
	}
	/* The bound, in one traced toss. */
	write_str(TRACING "/current_tracer", "nop");
	trace = malloc(TRACE_BUF);
	if (!trace || trace_start() || run_steps(lru_toss_once, tenant, "delegatee"))
		goto cleanup;
	trace_stop();
	if (trace_read(trace, TRACE_BUF) < 0)
		goto cleanup;
	if (trace_end_field(trace, toss_node, " max_hold=", &sum, &most) < 0)
		most = -1;
	ksft_print_msg("most folios looked at under one hold of the LRU lock: %ld (bound %d)\n",
		       most, LRU_HOLD_MAX);
	if (most < 1 || most > LRU_HOLD_MAX)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	free(trace);
	trace_stop();
	write_str(TRACING "/current_tracer", "nop");
	write_str(TRACING "/tracing_on", "1");
	if (*fn_trace)
		write_str(TRACING "/options/function-trace", fn_trace);
	write_str(TRACING "/tracing_max_latency", "0");
	reap(holder);
	destroy(hold);
	destroy(tenant);
	unlink("/tmp/toss-holding");
	unlink(path);
	if (lb != MAP_FAILED)
		munmap(lb, sizeof(*lb));
	return ret;
}

#define PROT_SIZE	(64 * MiB)

/*
 * Children a and b read PROT_SIZE of @fa and @fb afresh; their pages on
 * toss_node go to *@a0 and *@b0.  Returns 0 when both are all there.
 */
static int prot_read(const char *a, const char *b, const char *fa,
		     const char *fb, long *a0, long *b0)
{
	long want = PROT_SIZE / page_size;

	uncache(fa);
	uncache(fb);
	if (cg_run(a, read_all, (void *)fa) || cg_run(b, read_all, (void *)fb))
		return -1;
	*a0 = resident_on(fa, toss_node);
	*b0 = resident_on(fb, toss_node);
	if (*a0 < want * 99 / 100 || *b0 < want * 99 / 100) {
		ksft_print_msg("the reads left only %ld and %ld pages on node %d\n",
			       *a0, *b0, toss_node);
		return -1;
	}
	return 0;
}

/*
 * memory.min and memory.low protect what they say, not all or nothing:
 * under a cpuset on one node, child a (protected, 48M) and its sibling b
 * (not) each read 64 MiB of a file; a scope=cgroup toss of their parent
 * leaves a about 48 MiB of its file (it gives only what its usage exceeds
 * its protection) and b nothing.  Once with memory.min, once with
 * memory.low.
 */
static int test_toss_protection(const char *root)
{
	static const char * const knob[] = { "memory.min", "memory.low" };
	char fa[PATH_MAX], fb[PATH_MAX], *p, *a = NULL, *b = NULL;
	long a0, b0, a1, b1, cur;
	int ret = KSFT_FAIL, round, err, bad = 0;

	snprintf(fa, sizeof(fa), "%s/toss-prot-a", dir);
	snprintf(fb, sizeof(fb), "%s/toss-prot-b", dir);
	p = make_cpuset("prot", NODE(toss_node));
	a = p ? cg_name(p, "a") : NULL;
	b = p ? cg_name(p, "b") : NULL;
	if (!a || !b || create_sparse(fa, PROT_SIZE) || create_sparse(fb, PROT_SIZE) ||
	    cg_write(p, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(a) || cg_create(b))
		goto cleanup;
	for (round = 0; round < 2; round++) {
		if (cg_write(a, knob[!round], "0") || cg_write(a, knob[round], "48M") ||
		    prot_read(a, b, fa, fb, &a0, &b0))
			goto cleanup;
		cur = cg_read_long(a, "memory.current");
		err = toss(p, "1 scope=cgroup");
		a1 = resident_on(fa, toss_node);
		b1 = resident_on(fb, toss_node);
		ksft_print_msg("%s=48M: %d; a (memory.current %ld KiB) kept %ld of %ld KiB\n",
			       knob[round], err, cur / 1024, a1 * page_size / 1024,
			       a0 * page_size / 1024);
		ksft_print_msg("%s=48M: b kept %ld of %ld KiB\n", knob[round],
			       b1 * page_size / 1024, b0 * page_size / 1024);
		if (err || a1 * page_size < 40 * MiB || a1 * page_size > 56 * MiB ||
		    b1 > b0 / 100) {
			ksft_print_msg("%s: a must keep 40 to 56 MiB, b under 1%%\n", knob[round]);
			bad = 1;
		}
	}
	if (!bad)
		ret = KSFT_PASS;
cleanup:
	destroy(a);
	destroy(b);
	destroy(p);
	unlink(fa);
	unlink(fb);
	return ret;
}

/*
 * A toss of scope=node honours every memcg's protection, as global reclaim
 * does: under a cpuset on one node, child a (memory.min, then memory.low,
 * 48M, its ancestors as much: a child's protection against the root is
 * capped by theirs) and its sibling b (none) each read 64 MiB of a file; a
 * job owning the node tosses "32M", then "1" (scope=node): a keeps at
 * least 44 MiB after each, b nothing after the second.  Before scope=node
 * honoured protection, "1" dropped a's cache with everyone else's.
 */
static int test_toss_node_protection(const char *root)
{
	static const char * const knob[] = { "memory.min", "memory.low" };
	char fa[PATH_MAX], fb[PATH_MAX], *p, *a = NULL, *b = NULL, *job = NULL;
	char *top = cg_name(root, "toss_test");
	long a0, b0, a1, a2, b2;
	int ret = KSFT_FAIL, round, err1, err2, bad = 0, i;

	snprintf(fa, sizeof(fa), "%s/toss-nprot-a", dir);
	snprintf(fb, sizeof(fb), "%s/toss-nprot-b", dir);
	p = make_cpuset("nprot", NODE(toss_node));
	job = make_cpuset("job", NODE(toss_node));
	a = p ? cg_name(p, "a") : NULL;
	b = p ? cg_name(p, "b") : NULL;
	if (!top || !job || !a || !b || create_sparse(fa, PROT_SIZE) ||
	    create_sparse(fb, PROT_SIZE) ||
	    cg_write(p, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(a) || cg_create(b))
		goto cleanup;
	for (round = 0; round < 2; round++) {
		const char * const cgs[] = { top, p, a };

		for (i = 0; i < 3; i++)
			if (cg_write(cgs[i], knob[!round], "0") ||
			    cg_write(cgs[i], knob[round], "48M"))
				goto cleanup;
		if (prot_read(a, b, fa, fb, &a0, &b0))
			goto cleanup;
		err1 = toss(job, "32M");
		a1 = resident_on(fa, toss_node);
		err2 = toss(job, "1");
		a2 = resident_on(fa, toss_node);
		b2 = resident_on(fb, toss_node);
		ksft_print_msg("%s=48M: 32M: %d, a kept %ld KiB; 1: %d, a kept %ld KiB\n",
			       knob[round], err1, a1 * page_size / 1024, err2,
			       a2 * page_size / 1024);
		ksft_print_msg("%s=48M: b kept %ld of %ld KiB\n", knob[round],
			       b2 * page_size / 1024, b0 * page_size / 1024);
		if ((err1 && err1 != -EAGAIN) || err2 || a1 * page_size < 44 * MiB ||
		    a2 * page_size < 44 * MiB || b2 > b0 / 100) {
			ksft_print_msg("%s: a must keep at least 44 MiB, b under 1%%\n",
				       knob[round]);
			bad = 1;
		}
	}
	if (!bad)
		ret = KSFT_PASS;
cleanup:
	if (top) {
		cg_write(top, "memory.min", "0");
		cg_write(top, "memory.low", "0");
	}
	destroy(a);
	destroy(b);
	destroy(p);
	destroy(job);
	unlink(fa);
	unlink(fb);
	return ret;
}

/* As the delegatee: make @cg's child "c" (its files are then its own). */
static int reclaim_mkdir(const char *cg)
{
	char *c = cg_name(cg, "c");

	if (become_delegatee())
		return 10;
	return c && !cg_create(c) ? 0 : 11;
}

/* As the delegatee: all of c's clean cache on its node through memory.reclaim. */
static int reclaim_delegated(const char *cg)
{
	char *c = cg_name(cg, "c"), req[64];

	if (become_delegatee())
		return 10;
	snprintf(req, sizeof(req), "max clean_cache=1 nodes=%d", toss_node);
	if (!c || cg_write(c, "memory.reclaim", req))
		return 11;
	return 0;
}

/*
 * memory.reclaim's clean_cache=1: a cgroup with 64 MiB of clean cache and
 * 16 MiB of dirty page cache on one node: "32M clean_cache=1 nodes=<node>"
 * drops 32 MiB of the clean file and no dirty page; "max clean_cache=1"
 * drops the rest of the clean file, and the dirty pages are all still
 * cached.  Bad input changes nothing: "max" and nodes= without
 * clean_cache=1, clean_cache=2, swappiness= with it, a node without memory
 * or a list that is not one.  A delegatee drops its own child's cache with
 * it.  Before clean_cache=1, the first write was -EINVAL.
 */
static int test_reclaim_clean_cache(const char *root)
{
	char fc[PATH_MAX], fd[PATH_MAX], req[64], *m = NULL, *d = NULL, *c = NULL;
	struct flusher fl = {};
	long want = PROT_SIZE / page_size, c0, d0, c1, d1, c2, d2;
	int ret = KSFT_FAIL, err1, err2, i, bad;
	const char * const badreq[] = {
		"max", "1M nodes=0", "1M clean_cache=2", "1M clean_cache=1 swappiness=10",
		"1M clean_cache=1 nodes=", "1M clean_cache=1 nodes=x",
		"1M clean_cache=1 nodes=0 nodes=0", "1M clean_cache=1 nodes=999",
	};

	snprintf(fc, sizeof(fc), "%s/toss-rc-clean", dir);
	snprintf(fd, sizeof(fd), "%s/toss-rc-dirty", dir);
	/* Keep the flusher away while the pages must stay dirty. */
	flusher_away(&fl);
	m = make_cpuset("rc", NODE(toss_node));
	if (!m || create_sparse(fc, PROT_SIZE))
		goto cleanup;
	uncache(fc);
	if (cg_run(m, read_all, fc) || cg_run(m, write_dirty, fd))
		goto cleanup;
	c0 = resident_on(fc, toss_node);
	d0 = resident_on(fd, toss_node);
	for (i = 0, bad = 0; i < (int)ARRAY_SIZE(badreq); i++) {
		int err = cg_write(m, "memory.reclaim", (char *)badreq[i]);

		if (err != -EINVAL) {
			ksft_print_msg("\"%s\": %d, not -EINVAL\n", badreq[i], err);
			bad = 1;
		}
	}
	if (resident_on(fc, toss_node) < c0 || bad)
		goto cleanup;
	snprintf(req, sizeof(req), "32M clean_cache=1 nodes=%d", toss_node);
	err1 = cg_write(m, "memory.reclaim", req);
	c1 = resident_on(fc, toss_node);
	d1 = resident_on(fd, toss_node);
	err2 = cg_write(m, "memory.reclaim", "max clean_cache=1");
	c2 = resident_on(fc, toss_node);
	d2 = resident_on(fd, toss_node);
	ksft_print_msg("clean %ld, dirty %ld pages; 32M: %d, %ld and %ld left\n",
		       c0, d0, err1, c1, d1);
	ksft_print_msg("max: %d, %ld and %ld left\n", err2, c2, d2);
	if (c0 < want * 99 / 100 || d0 < DIRTY_SIZE / page_size * 99 / 100 || err1 || err2 ||
	    (c0 - c1) * page_size != 32 * MiB || d1 < d0 || c2 > want / 100 || d2 < d0)
		goto cleanup;

	/* A delegatee, on its own child. */
	d = make_cpuset("rcdeleg", NODE(toss_node));
	if (!d || cg_write(d, "cgroup.subtree_control", "+cpuset +memory") ||
	    chown_cgroup(d, TEST_UID) || run_steps(reclaim_mkdir, d, "reclaim mkdir"))
		goto cleanup;
	c = cg_name(d, "c");
	uncache(fc);
	if (!c || cg_run(c, read_all, fc))
		goto cleanup;
	c0 = resident_on(fc, toss_node);
	if (run_steps(reclaim_delegated, d, "delegated reclaim"))
		goto cleanup;
	c1 = resident_on(fc, toss_node);
	ksft_print_msg("delegatee: %ld of %ld pages left\n", c1, c0);
	if (c0 < want * 99 / 100 || c1 > want / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	flusher_back(&fl);
	destroy(c);
	destroy(d);
	destroy(m);
	unlink(fc);
	unlink(fd);
	return ret;
}

/* One pipe's worth (16 buffers of a page): what splice_in() holds. */
#define BUSY_SIZE	(16 * 4096)

struct splice_arg {
	const char *path;
	int pipe;
};

/* Read a file into the pipe @arg names: the pipe then holds its folios. */
static int splice_in(const char *cgroup, void *arg)
{
	struct splice_arg *sa = arg;
	loff_t off = 0;
	ssize_t n;
	int fd;

	fd = open(sa->path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = splice(fd, &off, sa->pipe, NULL, BUSY_SIZE, 0);
	close(fd);
	return n == BUSY_SIZE ? 0 : -1;
}

/*
 * A folio the LRU walk takes off its list and then keeps (a pipe holds a
 * reference) goes back to the young end of the list: it is counted once,
 * not again each time the walk meets it until its count of pages is spent
 * (MM-REVIEW-4 N7: 5 times over here).  The cgroup's only cache is the
 * file, all of it in the pipe.
 */
static int test_toss_busy_once(const char *root)
{
	char fb[PATH_MAX], *m = NULL;
	int ret = KSFT_FAIL, p[2] = { -1, -1 };
	long b0, b1, s0, s1, left, err;
	struct splice_arg sa;

	snprintf(fb, sizeof(fb), "%s/toss-busy", dir);
	m = make_cpuset("busy", NODE(toss_node));
	if (!m || pipe(p) || create_sparse(fb, BUSY_SIZE))
		goto cleanup;
	uncache(fb);
	sa.path = fb;
	sa.pipe = p[1];
	if (cg_run(m, splice_in, &sa))
		goto cleanup;
	b0 = cg_read_key_long(m, STAT_FILE, "kept_busy_bytes ");
	s0 = cg_read_key_long(m, STAT_FILE, "scanned_bytes ");
	err = toss(m, "1 scope=cgroup");
	b1 = cg_read_key_long(m, STAT_FILE, "kept_busy_bytes ");
	s1 = cg_read_key_long(m, STAT_FILE, "scanned_bytes ");
	left = resident_on(fb, toss_node);
	ksft_print_msg("toss: %ld; %ld pages in a pipe, %ld left; busy %ld kB, scanned %ld kB\n",
		       err, (long)(BUSY_SIZE / page_size), left, (b1 - b0) / 1024,
		       (s1 - s0) / 1024);
	if (err || left != BUSY_SIZE / page_size || b1 - b0 != BUSY_SIZE ||
	    s1 - s0 != BUSY_SIZE)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	if (p[0] >= 0) {
		close(p[0]);
		close(p[1]);
	}
	destroy(m);
	unlink(fb);
	return ret;
}

#define NR_LOG_CGS	40
#define NR_DRAIN_TOSSES	50
/* A sparse file read on and on from another CPU in test_toss_delegate_limits. */
#define DRAIN_FILE_SIZE	(4096 * MiB)

/* The kernel log from its end, not blocking; -1 if it cannot be read. */
static int kmsg_open_end(void)
{
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);

	if (fd >= 0 && lseek(fd, 0, SEEK_END) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* The records logged since the last call that contain @what. */
static int kmsg_count(int fd, const char *what)
{
	char rec[2048];
	int count = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)
			continue;	/* overwritten before we read it */
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, what))
			count++;
	}
	return count;
}

/* As the delegatee: make NR_LOG_CGS children of @tenant, toss each twice. */
static int log_children(const char *tenant)
{
	char *c;
	int i, k;

	if (become_delegatee())
		return 10;
	for (i = 0; i < NR_LOG_CGS; i++) {
		c = cg_name_indexed(tenant, "log", i);
		if (!c || cg_create(c))
			return 11;
		free(c);
	}
	for (k = 0; k < 2; k++) {
		for (i = 0; i < NR_LOG_CGS; i++) {
			c = cg_name_indexed(tenant, "log", i);
			if (!c || toss(c, "1 scope=cgroup"))
				return 12;
			free(c);
		}
	}
	return 0;
}

/* As the delegatee, on CPU 0: NR_DRAIN_TOSSES tosses of an empty child. */
static int drain_tosses(const char *tenant)
{
	char *c = cg_name_indexed(tenant, "log", 0);
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	if (!c || sched_setaffinity(0, sizeof(set), &set) || become_delegatee())
		return 10;
	for (i = 0; i < NR_DRAIN_TOSSES; i++)
		if (toss(c, "1 scope=cgroup"))
			return 11;
	return 0;
}

/* Read on through a sparse file, forever: new page cache all the time. */
static int drain_reader(const char *cgroup, void *arg)
{
	static char buf[1 << 16];
	int fd = open(arg, O_RDONLY);
	off_t off = 0;

	if (fd < 0)
		return 1;
	for (;;) {
		if (pread(fd, buf, sizeof(buf), off) <= 0)
			off = 0;
		else
			off += sizeof(buf);
	}
	return 0;
}

/* The lines of @trace that name @what, and how many of them ran on @cpu. */
static int trace_count(const char *trace, const char *what, int cpu, int *on_cpu)
{
	const char *p, *line;
	int n = 0;

	*on_cpu = 0;
	for (p = strstr(trace, what); p; p = strstr(p + 1, what)) {
		for (line = p; line > trace && line[-1] != '\n'; line--)
			;
		n++;
		line = strchr(line, '[');
		if (line && line < p && atoi(line + 1) == cpu)
			(*on_cpu)++;
	}
	return n;
}

/*
 * What a delegated owner can and cannot do to others with scope=cgroup,
 * and input that must be refused:
 * (a) free= with scope=cgroup is -EINVAL;
 * (b) a write with a NUL byte in it ("max\0nodes=N\n") is -EINVAL and
 *     tosses nothing (not "max" over all the cpuset's nodes);
 * (c) the delegatee's scope=cgroup tosses of 40 cgroups, twice each, log
 *     at most 12 lines: one rate limit for all of them;
 * (d) but 15 tosses of scope=node by root log 15 lines;
 * (e) a scope=cgroup toss never drains the per-CPU LRU caches of other
 *     CPUs: no lru_add_drain_per_cpu work runs while the delegatee tosses
 *     50 times from CPU 0, although a reader on another node's CPU keeps
 *     adding page cache there.
 */
static int test_toss_delegate_limits(const char *root)
{
	char path[PATH_MAX], drain[PATH_MAX], *tenant, *job = NULL, *rd = NULL, *trace = NULL;
	int ret = KSFT_FAIL, bad = 0, fd = -1, kmsg = -1, err, i, n, on_cpu, len;
	int rnode = nth_node(CPU_NODE, 1), rcpu;
	char bad_nul[32];
	pid_t reader = 0;

	if (rnode < 0)
		rnode = nth_node(CPU_NODE, 0);
	if (rnode < 0)
		return toss_skip("needs a node with CPUs besides node %d", home_node);
	rcpu = first_cpu(node_cpus(rnode));
	len = snprintf(bad_nul, sizeof(bad_nul), "max%cnodes=%d\n", 0, toss_node);
	snprintf(drain, sizeof(drain), "%s/toss-drain", dir);
	tenant = make_cpuset("tenant", NODE(toss_node));
	job = make_cpuset("job", mem_nodes);
	rd = make_cpuset("reader", NODE(rnode));
	trace = malloc(TRACE_BUF);
	if (!tenant || !job || !rd || !trace ||
	    cg_write(tenant, "cgroup.subtree_control", "+cpuset +memory"))
		goto cleanup;

	/* (a) */
	err = toss(tenant, "1 scope=cgroup free=1M");
	ksft_print_msg("(a) '1 scope=cgroup free=1M': %d\n", err);
	if (err != -EINVAL)
		bad |= 1;

	/* (b) */
	if (fill_all_nodes())
		goto cleanup;
	snapshot();
	snprintf(path, sizeof(path), "%s/%s", job, TOSS_FILE);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		goto cleanup;
	err = write(fd, bad_nul, len) < 0 ? -errno : 0;
	close(fd);
	ksft_print_msg("(b) 'max\\0nodes=%d\\n' (%d bytes): %d\n", toss_node, len, err);
	if (err != -EINVAL || check_nodes(0))
		bad |= 2;

	/* (c) */
	kmsg = kmsg_open_end();
	if (kmsg < 0 || chown_cgroup(tenant, TEST_UID) ||
	    run_steps(log_children, tenant, "delegatee"))
		goto cleanup;
	n = kmsg_count(kmsg, "memory_toss_cache");
	ksft_print_msg("(c) %d scope=cgroup tosses of %d cgroups: %d log lines\n",
		       2 * NR_LOG_CGS, NR_LOG_CGS, n);
	if (n > 12)
		bad |= 4;

	/* (d) */
	for (i = 0; i < 15; i++)
		if (toss(tenant, "1"))
			goto cleanup;
	n = kmsg_count(kmsg, "memory_toss_cache");
	ksft_print_msg("(d) 15 tosses by root: %d log lines\n", n);
	if (n != 15)
		bad |= 8;

	/* (e) */
	if (create_sparse(drain, DRAIN_FILE_SIZE) || set_list(rd, "cpuset.cpus", 1UL << rcpu) ||
	    cg_write(rd, "memory.max", "64M"))
		goto cleanup;
	reader = cg_run_nowait(rd, drain_reader, drain);
	if (reader < 0)
		goto cleanup;
	usleep(300000);
	if (access(TRACING "/events", F_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	if (trace_clear(TRACING) ||
	    write_str(TRACING "/events/workqueue/workqueue_execute_start/enable", "1"))
		goto cleanup;
	err = run_steps(drain_tosses, tenant, "delegatee");
	write_str(TRACING "/events/workqueue/workqueue_execute_start/enable", "0");
	if (err || trace_read(trace, TRACE_BUF) < 0)
		goto cleanup;
	n = trace_count(trace, "lru_add_drain_per_cpu", rcpu, &on_cpu);
	ksft_print_msg("(e) %d tosses from CPU 0: %d lru_add_drain_per_cpu ran, %d on CPU %d\n",
		       NR_DRAIN_TOSSES, n, on_cpu, rcpu);
	if (n)
		bad |= 16;
	if (bad)
		ksft_print_msg("failed: %s%s%s%s%s\n", bad & 1 ? "(a) " : "",
			       bad & 2 ? "(b) " : "", bad & 4 ? "(c) " : "",
			       bad & 8 ? "(d) " : "", bad & 16 ? "(e)" : "");
	else
		ret = KSFT_PASS;
cleanup:
	write_str(TRACING "/events/workqueue/workqueue_execute_start/enable", "0");
	if (kmsg >= 0)
		close(kmsg);
	reap(reader);
	free(trace);
	for (i = 0; tenant && i < NR_LOG_CGS; i++)
		destroy(cg_name_indexed(tenant, "log", i));
	destroy(rd);
	destroy(job);
	destroy(tenant);
	unlink(drain);
	return ret;
}

/* Whether the kernel command line has @key=<list> with @value in the list. */
static bool cmdline_has(const char *key, const char *value)
{
	char buf[4096], *tok, *save, *v, *vs;
	size_t len = strlen(key);

	if (read_text("/proc/cmdline", buf, sizeof(buf)) <= 0)
		return false;
	for (tok = strtok_r(buf, "\n ", &save); tok; tok = strtok_r(NULL, "\n ", &save)) {
		if (strncmp(tok, key, len) || tok[len] != '=')
			continue;
		for (v = strtok_r(tok + len + 1, ",", &vs); v; v = strtok_r(NULL, ",", &vs))
			if (!strcmp(v, value))
				return true;
	}
	return false;
}

/*
 * Booted with cgroup_disable=memory: "1 scope=cgroup" on the root cgroup
 * is -EOPNOTSUPP (there is no memory controller to scope the toss by).
 * Skipped on a kernel booted without it.
 */
static int test_toss_no_memcg_root(const char *root)
{
	int err;

	if (!cmdline_has("cgroup_disable", "memory"))
		return toss_skip("the kernel was not booted with cgroup_disable=memory");
	err = toss(root, "1 scope=cgroup");
	ksft_print_msg("'1 scope=cgroup' on %s without memcg: %d\n", root, err);
	return err == -EOPNOTSUPP ? KSFT_PASS : KSFT_FAIL;
}

#define T(x) { x, #x }
static const struct toss_test tests[] = {
	T(test_toss_scope_cgroup),
	T(test_toss_delegated),
	T(test_toss_memory_low),
	T(test_toss_scope_cgroup_cpu),
	T(test_toss_scope_cgroup_cost),
	T(test_toss_lru_bound),
	T(test_toss_protection),
	T(test_toss_node_protection),
	T(test_reclaim_clean_cache),
	T(test_toss_busy_once),
	T(test_toss_delegate_limits),
	T(test_toss_no_memcg_root),
};

#undef T

int main(int argc, char **argv)
{
	return toss_main(argc, argv, tests, ARRAY_SIZE(tests));
}
