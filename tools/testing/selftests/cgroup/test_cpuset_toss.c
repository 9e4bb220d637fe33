// SPDX-License-Identifier: GPL-2.0
/*
 * Tests for cpuset.memory_toss_cache.
 *
 * Page cache is placed on a chosen node by reading a file from a task in a
 * cpuset with cpuset.mems=<node>.  Where each file's cached pages sit is
 * measured exactly: mincore(2) says which pages are resident, and
 * move_pages(2) with a NULL node list says on which node each one is (the
 * resident pages are mapped for the query with MADV_RANDOM, so that the
 * query itself reads nothing in).
 *
 * Needs root, cgroup v2 with the cpuset and memory controllers, at least
 * three memory nodes, and a writable disk-backed file system at
 * $TOSS_DIR (default /mnt/scratch).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/kernel-page-flags.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <grp.h>
#include <pthread.h>
#include <sched.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"

#define MiB		(1024L * 1024)
#define FILE_SIZE	(48 * MiB)
#define MAX_NODES	64
#define TOSS_FILE	"cpuset.memory_toss_cache"
#define STAT_FILE	"cpuset.memory_toss_cache.stat"
#define XFS_MAGIC	0x58465342

static char root[PATH_MAX];
static char *parent;		/* our cgroup under the root */
static const char *dir;		/* where the test files live */
static int nr_nodes;		/* nodes 0..nr_nodes-1 have memory */
static long page_size;
long sink;			/* what reads that only fault pages in add to */

/* One file per node, filled onto that node. */
static char node_file[MAX_NODES][PATH_MAX];

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int write_file(const char *path, const char *buf)
{
	int fd = open(path, O_WRONLY);
	ssize_t ret;

	if (fd < 0)
		return -errno;
	ret = write(fd, buf, strlen(buf));
	ret = ret < 0 ? -errno : 0;
	close(fd);
	return ret;
}

/* Write @buf to @cg's toss file: 0 or -errno. */
static int toss(const char *cg, const char *buf)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", cg, TOSS_FILE);
	return write_file(path, buf);
}

static void drop_all_caches(void)
{
	sync();
	write_file("/proc/sys/vm/drop_caches", "1");
}

/* Create a cpuset child of our parent on CPU 0 with the given mems. */
static char *make_cpuset(const char *name, const char *mems)
{
	char *cg = cg_name(parent, name);

	if (!cg)
		return NULL;
	cg_destroy(cg);
	if (cg_create(cg) || cg_write(cg, "cpuset.cpus", "0") ||
	    cg_write(cg, "cpuset.mems", (char *)mems)) {
		cg_destroy(cg);
		free(cg);
		return NULL;
	}
	return cg;
}

/*
 * Run @fn(@cg) in a child process, whose credentials it may change; it
 * returns 0 or the number of the step that failed.
 */
static int run_steps(int (*fn)(const char *cg), const char *cg,
		     const char *what)
{
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid)
		exit(fn(cg));
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status)) {
		ksft_print_msg("%s step %d failed\n", what,
			       WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	return 0;
}

/* Kill and reap a child, if any: a zombie would pin its cgroup's csses. */
static void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

static void destroy(char *cg)
{
	if (!cg)
		return;
	cg_killall(cg);
	cg_destroy(cg);
	free(cg);
}

static int read_all(const char *cgroup, void *arg)
{
	const char *path = arg;
	static char buf[1 << 16];
	int fd = open(path, O_RDONLY);

	if (fd < 0)
		return 1;
	while (read(fd, buf, sizeof(buf)) > 0)
		;
	close(fd);
	return 0;
}

/* Read @path from a task whose cpuset holds only @node. */
static int fill_node(int node, const char *path)
{
	char mems[16];
	char *cg;
	int ret;

	snprintf(mems, sizeof(mems), "%d", node);
	cg = make_cpuset("fill", mems);
	if (!cg)
		return -1;
	ret = cg_run(cg, read_all, (void *)path);
	destroy(cg);
	return ret;
}

/*
 * Map @path (MADV_RANDOM: looking at a page reads nothing in, and does
 * not count as a use) and say which of its pages are cached: *@vec from
 * mincore(), *@npages long.  0, or -1 with nothing to unmap or free.
 */
static int map_cached(const char *path, char **map, long *npages,
		      unsigned char **vec)
{
	struct stat st;
	int fd;

	*map = MAP_FAILED;
	*vec = NULL;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	*npages = (st.st_size + page_size - 1) / page_size;
	if (*npages)
		*map = mmap(NULL, *npages * page_size, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (!*npages)
		return 0;
	if (*map == MAP_FAILED)
		return -1;
	madvise(*map, *npages * page_size, MADV_RANDOM);
	*vec = calloc(*npages, 1);
	if (!*vec || mincore(*map, *npages * page_size, *vec)) {
		munmap(*map, *npages * page_size);
		free(*vec);
		return -1;
	}
	return 0;
}

/*
 * Count the resident pages of @path per node into @count (and return the
 * total), using mincore() for residency and move_pages() for placement.
 */
static long resident(const char *path, long count[MAX_NODES])
{
	long npages, total = 0, i, j;
	unsigned char *vec;
	void **pages;
	int *status;
	char *map;

	memset(count, 0, sizeof(long) * MAX_NODES);
	if (map_cached(path, &map, &npages, &vec))
		return -1;
	if (!npages)
		return 0;
	pages = calloc(npages, sizeof(*pages));
	status = calloc(npages, sizeof(*status));
	if (!pages || !status) {
		total = -1;
		goto out;
	}
	for (i = 0, j = 0; i < npages; i++) {
		if (!(vec[i] & 1))
			continue;
		/* Map the resident page; it is already in the cache. */
		sink += map[i * page_size];
		pages[j++] = map + i * page_size;
	}
	if (j && syscall(SYS_move_pages, 0, j, pages, NULL, status, 0)) {
		total = -1;
		goto out;
	}
	for (i = 0; i < j; i++) {
		if (status[i] >= 0 && status[i] < MAX_NODES) {
			count[status[i]]++;
			total++;
		}
	}
out:
	munmap(map, npages * page_size);
	free(vec);
	free(pages);
	free(status);
	return total;
}

/* Resident pages of @path on @node. */
static long resident_on(const char *path, int node)
{
	long count[MAX_NODES];

	if (resident(path, count) < 0)
		return -1;
	return count[node];
}

/* Fill every node's file onto its node; 0 when each is >= 99% there. */
static int fill_all_nodes(void)
{
	int n;

	drop_all_caches();
	for (n = 0; n < nr_nodes; n++) {
		if (fill_node(n, node_file[n]))
			return -1;
		if (resident_on(node_file[n], n) < FILE_SIZE / page_size * 99 / 100) {
			ksft_print_msg("node %d: the fill placed only %ld of %ld pages there\n",
				       n, resident_on(node_file[n], n), FILE_SIZE / page_size);
			return -1;
		}
	}
	return 0;
}

/*
 * Record each node's file residency before a toss; check_nodes() then checks
 * that on nodes in @gone at most 1% is left and elsewhere at least 99% is.
 */
static long before[MAX_NODES];

static void snapshot(void)
{
	int n;

	for (n = 0; n < nr_nodes; n++)
		before[n] = resident_on(node_file[n], n);
}

static int check_nodes(unsigned long gone)
{
	int n, ret = 0;

	for (n = 0; n < nr_nodes; n++) {
		long after = resident_on(node_file[n], n);

		if (gone & (1UL << n)) {
			if (after > before[n] / 100) {
				ksft_print_msg("node %d: %ld of %ld pages still cached\n",
					       n, after, before[n]);
				ret = -1;
			}
		} else if (after < before[n] * 99 / 100) {
			ksft_print_msg("node %d: lost %ld of %ld pages\n",
				       n, before[n] - after, before[n]);
			ret = -1;
		}
	}
	return ret;
}

static int create_file(const char *path, long size, char pattern)
{
	char *buf = malloc(MiB);
	int fd, ret = -1;
	long done;

	if (!buf)
		return -1;
	memset(buf, pattern, MiB);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		goto out;
	for (done = 0; done < size; done += MiB)
		if (write(fd, buf, MiB) != MiB)
			goto out_close;
	if (fsync(fd))
		goto out_close;
	ret = 0;
out_close:
	close(fd);
out:
	free(buf);
	return ret;
}

/* 0 when every byte of @path is @pattern. */
static int verify_file(const char *path, long size, char pattern)
{
	char *buf = malloc(MiB);
	long done, i;
	int fd, ret = -1;

	if (!buf)
		return -1;
	fd = open(path, O_RDONLY);
	if (fd < 0)
		goto out;
	for (done = 0; done < size; done += MiB) {
		if (read(fd, buf, MiB) != MiB)
			goto out_close;
		for (i = 0; i < MiB; i++)
			if (buf[i] != pattern)
				goto out_close;
	}
	ret = 0;
out_close:
	close(fd);
out:
	free(buf);
	return ret;
}

/*
 * Fill every node, make a cpuset with @mems (then change them to @new_mems
 * if given), write @req to its toss file and check that exactly the nodes
 * in @gone lost their cache.  A second write of @req must succeed too, with
 * nothing left to toss.
 */
static int fill_toss_check(const char *mems, const char *new_mems,
			   const char *req, unsigned long gone)
{
	int ret = KSFT_FAIL;
	char *cg;

	cg = make_cpuset("job", mems);
	if (!cg || fill_all_nodes())
		goto cleanup;
	snapshot();
	if (new_mems && cg_write(cg, "cpuset.mems", (char *)new_mems))
		goto cleanup;
	if (toss(cg, req) || check_nodes(gone))
		goto cleanup;
	if (toss(cg, req))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/* One node of several: only that node's cache goes. */
static int test_toss_one_node(const char *root)
{
	return fill_toss_check("1", NULL, "1", 1UL << 1);
}

/* nodes= picks a subset of the cpuset's nodes. */
static int test_toss_nodes_subset(const char *root)
{
	return fill_toss_check("0-2", NULL, "max nodes=0,2\n", 1UL << 0 | 1UL << 2);
}

/* A size is honoured, and -EAGAIN when it cannot be met. */
static int test_toss_size_limit(const char *root)
{
	long want = 16 * MiB / page_size, got;
	int ret = KSFT_FAIL;
	char *cg;

	cg = make_cpuset("job", "2");
	if (!cg || fill_all_nodes())
		goto cleanup;
	/* Empty node 2 of everything but our file. */
	if (toss(cg, "1") || fill_node(2, node_file[2]))
		goto cleanup;
	snapshot();
	if (toss(cg, "16M"))
		goto cleanup;
	got = before[2] - resident_on(node_file[2], 2);
	if (got > want || got < want * 95 / 100) {
		ksft_print_msg("16M: tossed %ld pages of the file, wanted %ld\n", got, want);
		goto cleanup;
	}
	if (toss(cg, "10G") != -EAGAIN) {
		ksft_print_msg("10G on a node with less did not return EAGAIN\n");
		goto cleanup;
	}
	if (resident_on(node_file[2], 2) > before[2] / 100)
		goto cleanup;
	/* Other nodes untouched by all of it. */
	before[2] = 0;
	if (check_nodes(1UL << 2))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/* A node's MemFree, in bytes. */
static long node_free_bytes(int node)
{
	char path[PATH_MAX], buf[4096], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, "MemFree:");
	return p ? atol(p + strlen("MemFree:")) * 1024 : -1;
}

/* Resident pages of all the node files on @node. */
static long resident_all_on(int node)
{
	long sum = 0;
	int n;

	for (n = 0; n < nr_nodes; n++)
		sum += resident_on(node_file[n], node);
	return sum;
}

/*
 * free=: toss until the node has that much free, and no more than needed.
 * The kernel counts the pages on the per-CPU free lists as free, MemFree
 * does not: the target is set well above MemFree so that it is met only
 * by tossing, and the check allows for those lists.
 */
static int test_toss_free_target(const char *root)
{
	long need = 96 * MiB, target, cached, got, n;
	int ret = KSFT_FAIL, err;
	char req[64];
	char *cg;

	cg = make_cpuset("job", "1");
	if (!cg)
		goto cleanup;
	/* Put every node file on node 1: 4 x 48 MiB there. */
	drop_all_caches();
	for (n = 0; n < nr_nodes; n++)
		if (fill_node(1, node_file[n]))
			goto cleanup;
	cached = resident_all_on(1);
	target = node_free_bytes(1) + need;
	snprintf(req, sizeof(req), "1 free=%ld", target);
	err = toss(cg, req);
	got = (cached - resident_all_on(1)) * page_size;
	ksft_print_msg("free=: %ld MiB wanted, %ld MiB tossed, %ld MiB free (target %ld)\n",
		       need / MiB, got / MiB, node_free_bytes(1) / MiB, target / MiB);
	if (err) {
		ksft_print_msg("'%s' returned %d\n", req, err);
		goto cleanup;
	}
	/* The kernel aims 1 MiB above a free= target (cgroup-v2.rst). */
	if (got > need + 3 * MiB || got < need / 2 ||
	    node_free_bytes(1) < target - 4 * MiB)
		goto cleanup;
	/* A target the node cannot reach: -EAGAIN, after tossing all. */
	if (toss(cg, "1 free=100G") != -EAGAIN)
		goto cleanup;
	if (resident_all_on(1) > cached / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/* A big file, made once, for the tosses that must take a while. */
#define BIG_SIZE	(256 * MiB)
static char big_file[PATH_MAX];

static int fill_big_file(int node)
{
	static bool made;

	if (!made) {
		snprintf(big_file, sizeof(big_file), "%s/toss-big", dir);
		if (create_file(big_file, BIG_SIZE, 1))
			return -1;
		made = true;
	}
	drop_all_caches();
	if (fill_node(node, big_file) ||
	    resident_on(big_file, node) < BIG_SIZE / page_size * 95 / 100)
		return -1;
	return 0;
}

/* A child that writes @req to @cg's toss file and exits with -errno. */
static pid_t toss_in_child(const char *cg, const char *req)
{
	pid_t pid = fork();

	if (!pid)
		exit(-toss(cg, req));
	return pid;
}

static int write_dirty(const char *cgroup, void *arg)
{
	const char *path = arg;
	char *buf = malloc(MiB);
	int fd, i;

	if (!buf)
		return 1;
	memset(buf, 0x5a, MiB);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (i = 0; i < 16; i++)
		if (write(fd, buf, MiB) != MiB)
			return 1;
	close(fd);
	return 0;
}

/* Dirty pages survive, and their data is intact after sync. */
static int test_toss_dirty_survives(const char *root)
{
	char path[PATH_MAX], expire[32] = "", wb[32] = "";
	long npages = 16 * MiB / page_size, c0[MAX_NODES], c1[MAX_NODES];
	int ret = KSFT_FAIL;
	char *cg;

	snprintf(path, sizeof(path), "%s/dirty", dir);
	/* Keep the flusher away while the pages must stay dirty. */
	read_text("/proc/sys/vm/dirty_expire_centisecs", expire, sizeof(expire));
	read_text("/proc/sys/vm/dirty_writeback_centisecs", wb, sizeof(wb));
	write_file("/proc/sys/vm/dirty_expire_centisecs", "360000");
	write_file("/proc/sys/vm/dirty_writeback_centisecs", "0");
	cg = make_cpuset("job", "1");
	if (!cg || cg_run(cg, write_dirty, path))
		goto cleanup;
	/*
	 * All of it cached, nearly all on node 1 (the allocator may place a
	 * few dirty pages elsewhere when it spreads dirty page cache).
	 */
	if (resident(path, c0) != npages || c0[1] < npages * 99 / 100)
		goto cleanup;
	if (toss(cg, "1"))
		goto cleanup;
	if (resident(path, c1) != npages || c1[1] != c0[1]) {
		ksft_print_msg("dirty pages dropped: %ld of %ld on node 1, %ld of %ld in all\n",
			       c1[1], c0[1], resident(path, c1), npages);
		goto cleanup;
	}
	sync();
	if (toss(cg, "1") || resident_on(path, 1) > npages / 100)
		goto cleanup;
	/* Read back from the disk. */
	if (verify_file(path, 16 * MiB, 0x5a)) {
		ksft_print_msg("the data read back after sync is wrong\n");
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	if (*expire)
		write_file("/proc/sys/vm/dirty_expire_centisecs", expire);
	if (*wb)
		write_file("/proc/sys/vm/dirty_writeback_centisecs", wb);
	destroy(cg);
	unlink(path);
	return ret;
}

static int map_and_wait(const char *cgroup, void *arg)
{
	const char *path = arg;
	char *map;
	int fd;
	long i;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED)
		return 1;
	for (i = 0; i < FILE_SIZE; i += page_size)
		sink += map[i];
	for (;;)
		pause();
	return 0;
}

/* Pages mapped by a running process survive. */
static int test_toss_mapped_survives(const char *root)
{
	long npages = FILE_SIZE / page_size;
	int ret = KSFT_FAIL, i;
	int pid = -1;
	char *cg;

	cg = make_cpuset("job", "1");
	if (!cg)
		goto cleanup;
	drop_all_caches();
	pid = cg_run_nowait(cg, map_and_wait, node_file[1]);
	if (pid < 0)
		goto cleanup;
	for (i = 0; i < 600 && resident_on(node_file[1], 1) < npages; i++)
		usleep(50000);
	if (resident_on(node_file[1], 1) < npages)
		goto cleanup;
	if (toss(cg, "1"))
		goto cleanup;
	if (resident_on(node_file[1], 1) < npages) {
		ksft_print_msg("mapped pages were dropped\n");
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	destroy(cg);
	return ret;
}

static int write_tmpfs(const char *cgroup, void *arg)
{
	return create_file(arg, 16 * MiB, 0x3c) ? 1 : 0;
}

/* tmpfs data survives. */
static int test_toss_tmpfs_survives(const char *root)
{
	const char *path = "/dev/shm/toss-test";
	int ret = KSFT_FAIL;
	long count[MAX_NODES];
	char *cg;

	cg = make_cpuset("job", "1");
	if (!cg || cg_run(cg, write_tmpfs, (void *)path))
		goto cleanup;
	if (resident(path, count) < 16 * MiB / page_size)
		goto cleanup;
	if (toss(cg, "1"))
		goto cleanup;
	if (resident(path, count) < 16 * MiB / page_size ||
	    verify_file(path, 16 * MiB, 0x3c)) {
		ksft_print_msg("tmpfs data was dropped\n");
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	unlink(path);
	return ret;
}

/* The last node has no CPU (like a CXL memory expander). */
static int test_toss_cpuless_node(const char *root)
{
	char mems[16], path[PATH_MAX], buf[256];
	int node;

	/* A memory node whose cpulist is empty. */
	for (node = 0; node < nr_nodes; node++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
		if (read_text(path, buf, sizeof(buf)) >= 0 && (buf[0] == '\n' || !buf[0]))
			break;
	}
	if (node == nr_nodes) {
		ksft_print_msg("no memory node without CPUs\n");
		return KSFT_SKIP;
	}
	ksft_print_msg("node %d has memory and no CPU\n", node);
	snprintf(mems, sizeof(mems), "%d", node);
	return fill_toss_check(mems, NULL, "1", 1UL << node);
}

/* The root cpuset owns every node. */
static int test_toss_root_cpuset(const char *root)
{
	if (fill_all_nodes())
		return KSFT_FAIL;
	snapshot();
	if (toss(root, "1 nodes=1"))
		return KSFT_FAIL;
	if (check_nodes(1UL << 1))
		return KSFT_FAIL;
	snapshot();
	if (toss(root, "1"))
		return KSFT_FAIL;
	if (check_nodes((1UL << nr_nodes) - 1))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* The toss follows cpuset.mems as it is when the write happens. */
static int test_toss_mems_changed(const char *root)
{
	long big, n2;
	int ret = KSFT_FAIL, status;
	pid_t pid = 0;
	char *cg;

	if (fill_toss_check("0", "2", "1", 1UL << 2))
		return KSFT_FAIL;
	/*
	 * Changed during the write: the toss keeps to the nodes it started
	 * with (node 1), the new one (node 2) keeps its cache.
	 */
	cg = make_cpuset("job", "1");
	if (!cg || fill_big_file(1) || fill_node(2, node_file[2]))
		goto cleanup;
	n2 = resident_on(node_file[2], 2);
	pid = toss_in_child(cg, "1");
	if (pid < 0)
		goto cleanup;
	usleep(100000);
	if (cg_write(cg, "cpuset.mems", "2"))
		goto cleanup;
	if (waitpid(pid, &status, 0) != pid)
		goto cleanup;
	pid = 0;
	big = resident_on(big_file, 1);
	ksft_print_msg("mems 1 -> 2 during the toss: %d; node 1 kept %ld, node 2 %ld of %ld\n",
		       WIFEXITED(status) ? -WEXITSTATUS(status) : -1, big,
		       resident_on(node_file[2], 2), n2);
	if (!WIFEXITED(status) || WEXITSTATUS(status) ||
	    big > BIG_SIZE / page_size / 100 ||
	    resident_on(node_file[2], 2) < n2 * 99 / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	destroy(cg);
	return ret;
}

static long read_key(const char *path, const char *key)
{
	char buf[16384], *p;
	size_t len = strlen(key);

	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	for (p = buf; p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, key, len) && p[len] == ' ')
			return atol(p + len + 1);
	return -1;
}

static long node_vmstat(int node, const char *key)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/vmstat", node);
	return read_key(path, key);
}

static long node_meminfo_kb(int node, const char *key)
{
	char path[PATH_MAX], buf[4096], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, key);
	return p ? atol(p + strlen(key)) : -1;
}

/* Bytes tossed from @node by @cg, from the "tossed N0=... " line. */
static long stat_tossed_on(const char *cg, int node)
{
	char buf[4096], key[32], *p;

	if (cg_read(cg, STAT_FILE, buf, sizeof(buf)))
		return -1;
	snprintf(key, sizeof(key), " N%d=", node);
	p = strstr(buf, "\ntossed ");
	p = p ? strstr(p, key) : NULL;
	return p ? atol(p + strlen(key)) : -1;
}

/* Empty the trace: only an open with O_TRUNC does, a plain write does not. */
static int trace_clear(const char *tr)
{
	char path[PATH_MAX];
	int fd;

	snprintf(path, sizeof(path), "%s/trace", tr);
	fd = open(path, O_WRONLY | O_TRUNC);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

#define TRACING		"/sys/kernel/tracing"

/* Enable the toss_cache events on an empty trace (mount tracefs if need be). */
static int trace_start(void)
{
	if (access(TRACING "/events", F_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	if (trace_clear(TRACING))
		return -1;
	return write_file(TRACING "/events/toss_cache/enable", "1");
}

static void trace_stop(void)
{
	write_file(TRACING "/events/toss_cache/enable", "0");
}

/* Read the whole trace into @buf; its length or -1. */
static long trace_read(char *buf, size_t size)
{
	long len = 0, n;
	int fd = open(TRACING "/trace", O_RDONLY);

	if (fd < 0)
		return -1;
	while (len < (long)size - 1 && (n = read(fd, buf + len, size - 1 - len)) > 0)
		len += n;
	close(fd);
	buf[len] = 0;
	return len < (long)size - 1 ? len : -1;
}

/*
 * cpuset.memory_toss_cache.stat, the node vmstat counters, /proc/vmstat and
 * the tracepoints all tell the same story as the nodes' meminfo.
 */
static int test_toss_observability(const char *root)
{
	const char *tr = "/sys/kernel/tracing";
	long fp0, fp1, v0, v1, g0, g1, tossed, scanned, pages;
	char path[PATH_MAX], trace[65536], want[128];
	int ret = KSFT_FAIL, n;
	struct stat st;
	char *cg;

	cg = make_cpuset("job", "1");
	if (!cg || fill_all_nodes())
		goto cleanup;
	snapshot();
	/* Write-only toss file, read-only statistics. */
	snprintf(path, sizeof(path), "%s/%s", cg, TOSS_FILE);
	if (stat(path, &st) || (st.st_mode & 0777) != 0200)
		goto cleanup;
	snprintf(path, sizeof(path), "%s/%s", cg, STAT_FILE);
	if (stat(path, &st) || (st.st_mode & 0777) != 0444)
		goto cleanup;
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != 0 ||
	    stat_tossed_on(cg, 1) != 0)
		goto cleanup;

	snprintf(path, sizeof(path), "%s/events/toss_cache/enable", tr);
	if (write_file(path, "1"))
		goto cleanup;
	if (trace_clear(tr))
		goto cleanup;
	fp0 = node_meminfo_kb(1, "FilePages:");
	v0 = node_vmstat(1, "toss_cache_tossed");
	g0 = read_key("/proc/vmstat", "toss_cache_tossed");
	if (toss(cg, "1"))
		goto cleanup;
	fp1 = node_meminfo_kb(1, "FilePages:");
	v1 = node_vmstat(1, "toss_cache_tossed");
	g1 = read_key("/proc/vmstat", "toss_cache_tossed");
	snprintf(path, sizeof(path), "%s/events/toss_cache/enable", tr);
	write_file(path, "0");

	tossed = cg_read_key_long(cg, STAT_FILE, "last_tossed_bytes ");
	scanned = cg_read_key_long(cg, STAT_FILE, "last_scanned_bytes ");
	pages = tossed / page_size;
	ksft_print_msg("stat: -%ld kB of %ld kB; FilePages -%ld kB; vmstat +%ld (node 1), +%ld\n",
		       tossed / 1024, scanned / 1024, fp0 - fp1, v1 - v0, g1 - g0);
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != 1 ||
	    cg_read_key_long(cg, STAT_FILE, "last_error ") != 0 ||
	    cg_read_key_long(cg, STAT_FILE, "last_pid ") != getpid() ||
	    cg_read_key_long(cg, STAT_FILE, "tossed_bytes ") != tossed ||
	    stat_tossed_on(cg, 1) != tossed)
		goto cleanup;
	for (n = 0; n < nr_nodes; n++)
		if (n != 1 && stat_tossed_on(cg, n) != 0)
			goto cleanup;
	/* At least our file, at most a little more; scanned covers it. */
	if (pages < before[1] || pages > before[1] + 4 * MiB / page_size ||
	    scanned < tossed)
		goto cleanup;
	if (v1 - v0 != pages || g1 - g0 != pages)
		goto cleanup;
	/* meminfo agrees within 2% (other page cache may come and go). */
	if (labs((fp0 - fp1) * 1024 - tossed) > tossed / 50)
		goto cleanup;
	/* The trace shows the node's begin and end with the same count. */
	snprintf(path, sizeof(path), "%s/trace", tr);
	if (read_text(path, trace, sizeof(trace)) <= 0)
		goto cleanup;
	snprintf(path, sizeof(path), "%s", cg);
	if (stat(path, &st))
		goto cleanup;
	snprintf(want, sizeof(want), "toss_node_begin: cgroup_id=%lu nid=1 ",
		 (unsigned long)st.st_ino);
	if (!strstr(trace, want)) {
		ksft_print_msg("no '%s' in the trace\n", want);
		goto cleanup;
	}
	snprintf(want, sizeof(want),
		 "toss_node_end: cgroup_id=%lu nid=1 nr_scanned=%ld nr_tossed=%ld ",
		 (unsigned long)st.st_ino, scanned / page_size, pages);
	if (!strstr(trace, want)) {
		ksft_print_msg("no '%s' in the trace\n", want);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

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

/*
 * All the nodes of a toss are walked at once: in the trace, each node's
 * walk begins before every other node's walk ends, and the wall time of a
 * toss of all nodes stays well under the sum of the one-node tosses of the
 * same cache, measured in the same run.  (The speed-up needs idle host
 * CPUs for the VM's vCPUs: make check runs this test in a VM of its own.)
 */
static int test_toss_parallel(const char *root)
{
	static char trace[1 << 16];
	double t, one = 0, all, b, e;
	int ret = KSFT_FAIL, n, m;
	char mems[16], req[32];
	char *cg;

	snprintf(mems, sizeof(mems), "0-%d", nr_nodes - 1);
	cg = make_cpuset("job", mems);
	/* The work runs on the job's CPUs: one on each node that has one. */
	if (!cg || cg_write(cg, "cpuset.cpus", "0-2") || fill_all_nodes())
		goto cleanup;
	for (n = 0; n < nr_nodes; n++) {
		snprintf(req, sizeof(req), "1 nodes=%d", n);
		t = now();
		if (toss(cg, req))
			goto cleanup;
		one += now() - t;
	}

	if (fill_all_nodes())
		goto cleanup;
	snapshot();
	if (trace_start())
		goto cleanup;
	t = now();
	if (toss(cg, "1"))
		goto cleanup;
	all = now() - t;
	trace_stop();
	ksft_print_msg("%d nodes in turn: %.0f ms, at once: %.0f ms (%.2fx), %ld MiB each\n",
		       nr_nodes, one * 1000, all * 1000, all / one,
		       before[1] * page_size / MiB);
	if (check_nodes((1UL << nr_nodes) - 1))
		goto cleanup;
	if (trace_read(trace, sizeof(trace)) <= 0)
		goto cleanup;
	for (n = 0; n < nr_nodes; n++) {
		b = trace_time_of(trace, n, "begin");
		for (m = 0; m < nr_nodes; m++) {
			if (m == n)
				continue;
			e = trace_time_of(trace, m, "end");
			if (b < 0 || e < 0 || b > e) {
				ksft_print_msg("node %d began at %.6f, node %d ended at %.6f\n",
					       n, b, m, e);
				goto cleanup;
			}
		}
	}
	if (all > one * 0.75) {
		ksft_print_msg("at once took %.2fx one after the other: not in parallel\n",
			       all / one);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	destroy(cg);
	return ret;
}

/* As an unprivileged user: "1" must be -EPERM, "1 scope=cgroup" work. */
static int delegated_child(const char *cg)
{
	int err;

	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 10;
	err = toss(cg, "1");
	if (err != -EPERM)
		return 11;
	err = toss(cg, "1 scope=cgroup");
	return err ? 12 : 0;
}

static int chown_cgroup(const char *cg, uid_t uid)
{
	static const char * const files[] = { "", "/cgroup.procs", "/" TOSS_FILE };
	char path[PATH_MAX];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s%s", cg, files[i]);
		if (chown(path, uid, uid))
			return -1;
	}
	return 0;
}

static int write_proc(const char *file, const char *text)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	return write_file(path, text);
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
	    read_all(inner, node_file[1]))
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

	if (!job || setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return 10;
	if (cg_create(job) || cg_write(job, "cpuset.mems", "1"))
		return 11;
	snprintf(pid, sizeof(pid), "%d", getpid());
	if (cg_write(job, "cgroup.procs", pid))
		return 12;
	if (read_all(job, node_file[0]))
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
	d = make_cpuset("deleg", "1");
	b = make_cpuset("tenant_b", "1");
	if (!d || !b || cg_write(d, "cgroup.subtree_control", "+cpuset +memory"))
		goto cleanup;
	for (i = 0; i < ARRAY_SIZE(files); i++) {
		snprintf(path, sizeof(path), "%s%s", d, files[i]);
		if (chown(path, 65534, 65534))
			goto cleanup;
	}
	/* Another tenant's cache on the same node. */
	if (cg_run(b, read_all, node_file[2]))
		goto cleanup;
	b0 = resident_on(node_file[2], 1);
	if (mount("none", root, NULL, MS_REMOUNT, "nsdelegate"))
		goto cleanup;
	err = run_steps(delegated_run, d, "delegatee");
	mount("none", root, NULL, MS_REMOUNT, "");
	if (err)
		goto cleanup;
	left = resident_on(node_file[0], 1);
	inner = resident_on(node_file[1], 1);
	ksft_print_msg("delegatee: %ld pages left, %ld in its namespaces; others: %ld of %ld\n",
		       left, inner, resident_on(node_file[2], 1), b0);
	if (left > FILE_SIZE / page_size / 100 || inner > FILE_SIZE / page_size / 100 ||
	    b0 < FILE_SIZE / page_size * 99 / 100 ||
	    resident_on(node_file[2], 1) < b0 * 99 / 100)
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

	a = make_cpuset("tenant_a", "1");
	b = make_cpuset("tenant_b", "1");
	if (!a || !b)
		goto cleanup;
	drop_all_caches();
	/* a's cache, a's protected child's cache, b's cache: all on node 1. */
	if (cg_run(a, read_all, node_file[0]) || cg_run(b, read_all, node_file[2]))
		goto cleanup;
	ap = cg_name(a, "protected");
	if (!ap || cg_write(a, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(ap) || cg_write(ap, "memory.min", "200M") ||
	    cg_run(ap, read_all, node_file[3]))
		goto cleanup;
	a0 = resident_on(node_file[0], 1);
	b0 = resident_on(node_file[2], 1);
	p0 = resident_on(node_file[3], 1);
	if (a0 < FILE_SIZE / page_size * 99 / 100 ||
	    b0 < FILE_SIZE / page_size * 99 / 100 ||
	    p0 < FILE_SIZE / page_size * 99 / 100)
		goto cleanup;

	if (chown_cgroup(a, 65534) || run_steps(delegated_child, a, "delegated"))
		goto cleanup;
	ksft_print_msg("scope=cgroup: a %ld -> %ld, a/protected %ld -> %ld, b %ld -> %ld\n",
		       a0, resident_on(node_file[0], 1), p0,
		       resident_on(node_file[3], 1), b0,
		       resident_on(node_file[2], 1));
	if (resident_on(node_file[0], 1) > a0 / 100 ||
	    resident_on(node_file[3], 1) < p0 * 99 / 100 ||
	    resident_on(node_file[2], 1) < b0 * 99 / 100)
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
	if (xy)
		cg_destroy(xy);
	if (x)
		cg_destroy(x);
	free(xy);
	free(x);
	if (ap)
		cg_destroy(ap);
	free(ap);
	destroy(a);
	destroy(b);
	return ret;
}

/* Fill the cpuset's node with anonymous memory, keep touching it. */
static int hog(const char *cgroup, void *arg)
{
	size_t size = (size_t)arg, i;
	char *p = malloc(size);

	if (!p)
		return 1;
	for (;;)
		for (i = 0; i < size; i += page_size)
			p[i]++;
	return 0;
}

/*
 * Under memory pressure (a process filling the node while the toss runs),
 * the toss finishes, and what it reports as tossed is no more than the
 * node's clean page cache.
 */
static int test_toss_under_pressure(const char *root)
{
	long tossed, cached;
	int ret = KSFT_FAIL, err;
	char *cg, *hogcg = NULL;
	double t;
	pid_t pid = -1;

	cg = make_cpuset("job", "1");
	hogcg = make_cpuset("hog", "1");
	if (!cg || !hogcg || fill_big_file(1) || fill_node(1, node_file[0]))
		goto cleanup;
	cached = resident_all_on(1) + resident_on(big_file, 1);
	pid = cg_run_nowait(hogcg, hog, (void *)(400 * MiB));
	if (pid < 0)
		goto cleanup;
	usleep(300000);
	t = now();
	err = toss(cg, "1");
	t = now() - t;
	tossed = cg_read_key_long(cg, STAT_FILE, "last_tossed_bytes ");
	ksft_print_msg("under pressure: %d after %.0f ms, %ld MiB tossed of %ld MiB cached\n",
		       err, t * 1000, tossed / MiB, cached * page_size / MiB);
	/* (plus a little file system metadata cached on the node) */
	if (err || tossed > cached * page_size + 4 * MiB ||
	    resident_on(big_file, 1) > cached / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	destroy(hogcg);
	destroy(cg);
	return ret;
}

#define SLAB_FILES	10000

static int make_files(const char *cgroup, void *arg)
{
	char path[PATH_MAX + 16];
	int i, fd;

	if (mkdir(arg, 0755) && errno != EEXIST)
		return 1;
	for (i = 0; i < SLAB_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", (char *)arg, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return 1;
		close(fd);
	}
	return 0;
}

static void remove_files(const char *dirname)
{
	char path[PATH_MAX + 16];
	int i;

	for (i = 0; i < SLAB_FILES; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dirname, i);
		unlink(path);
	}
	rmdir(dirname);
}

/*
 * slab=1 also shrinks the node's reclaimable slab (dentries and inodes of
 * files created from node 1's CPU), through NUMA-aware shrinkers only:
 * node 0's slab stays.  The lean kernel has SLUB_TINY, which does not
 * account SReclaimable: the nodes' Slab totals are compared.
 */
static int test_toss_slab(const char *root)
{
	long s0, s1, o0, o1, objects;
	char files[PATH_MAX];
	int ret = KSFT_FAIL;
	char *cg;

	snprintf(files, sizeof(files), "%s/slab", dir);
	cg = cg_name(parent, "slabjob");
	if (!cg || cg_create(cg) || cg_write(cg, "cpuset.cpus", "1") ||
	    cg_write(cg, "cpuset.mems", "1") || cg_run(cg, make_files, files))
		goto cleanup;
	sync();
	s0 = node_meminfo_kb(1, " Slab:");
	o0 = node_meminfo_kb(0, " Slab:");
	if (toss(cg, "1 slab=1"))
		goto cleanup;
	s1 = node_meminfo_kb(1, " Slab:");
	o1 = node_meminfo_kb(0, " Slab:");
	objects = cg_read_key_long(cg, STAT_FILE, "last_slab_objects ");
	ksft_print_msg("slab=1: node 1 Slab %ld -> %ld kB, node 0 %ld -> %ld kB, %ld objects\n",
		       s0, s1, o0, o1, objects);
	/* About 1 kB of dentry and inode per file went, none of node 0's. */
	if (s0 - s1 < SLAB_FILES / 4 || objects < SLAB_FILES || o0 - o1 > 1024)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	remove_files(files);
	if (cg)
		cg_destroy(cg);
	free(cg);
	return ret;
}

/* Every bad input is -EINVAL and tosses nothing. */
static int test_toss_bad_input(const char *root)
{
	static const char * const bad[] = {
		/* (an empty write never reaches the kernel's handler) */
		"\n", " ", "0", "00", "-1", "-1G", "garbage", "1x", "1Q",
		"max1", "maxx", "1 foo", "1 foo=bar", "1 nodes=", "1 nodes=x",
		"1 nodes=0", "1 nodes=1,0", "1 nodes=2-3", "1 nodes=1 nodes=1",
		"1 nodes=999", "1 nodes=-1", "nodes=1", "1 NODES=1", "0x",
		"1 free=", "1 free=0", "1 free=x",
		"1 free=-1M", "1 free=1M free=1M", "1 free=1Mx", "1 scope=",
		"1 scope=all", "1 scope=cgroup scope=cgroup", "1 scope=Cgroup",
		"1 slab=", "1 slab=2", "1 slab=yes", "1 slab=1 slab=1",
		"4095", "1K", "0x1000", "1KK", "1 free=1KB",
	};
	char *long_input = NULL;
	int ret = KSFT_FAIL, err;
	unsigned int i;
	char *cg;

	cg = make_cpuset("job", "1");
	if (!cg || fill_all_nodes())
		goto cleanup;
	snapshot();
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		err = toss(cg, bad[i]);
		if (err != -EINVAL) {
			ksft_print_msg("'%s' returned %d, not -EINVAL\n", bad[i], err);
			goto cleanup;
		}
	}
	/*
	 * Overlong input, even when it starts well: -EINVAL up to a page,
	 * -E2BIG from kernfs beyond (as for every cgroup file).
	 */
	long_input = malloc(8192);
	if (!long_input)
		goto cleanup;
	for (i = 0; i < 2; i++) {
		size_t len = i ? 8191 : 2047;

		memset(long_input, ' ', len);
		long_input[len] = 0;
		memcpy(long_input, "1 nodes=1", 9);
		err = toss(cg, long_input);
		if (err != (i ? -E2BIG : -EINVAL)) {
			ksft_print_msg("a %zu byte write returned %d\n", len, err);
			goto cleanup;
		}
	}
	/* Nothing at all was tossed. */
	if (check_nodes(0))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	free(long_input);
	destroy(cg);
	return ret;
}

static int capset_effective(bool sys_admin)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	if (sys_admin)
		data[0].effective |= 1U << CAP_SYS_ADMIN;
	else
		data[0].effective &= ~(1U << CAP_SYS_ADMIN);
	return syscall(SYS_capset, &hdr, data);
}

/*
 * The opener's credentials count, not the writer's: a file opened without
 * CAP_SYS_ADMIN gives -EPERM even when the writer has it, and one opened
 * with it works even after the writer dropped it.
 */
static int eperm_child(const char *cg)
{
	char path[PATH_MAX];
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", cg, TOSS_FILE);

	/* Open without CAP_SYS_ADMIN, write with it. */
	if (capset_effective(false))
		return 10;
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 11;
	if (capset_effective(true))
		return 12;
	err = write(fd, "1", 1) < 0 ? errno : 0;
	close(fd);
	if (err != EPERM)
		return 13;

	/* Open with it, write without. */
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 14;
	if (capset_effective(false))
		return 15;
	err = write(fd, "1", 1) < 0 ? errno : 0;
	close(fd);
	if (err)
		return 16;

	/* Neither: plain -EPERM. */
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return 17;
	err = write(fd, "1", 1) < 0 ? errno : 0;
	close(fd);
	return err == EPERM ? 0 : 18;
}

static int test_toss_eperm(const char *root)
{
	int ret = KSFT_FAIL;
	char *cg;

	cg = make_cpuset("job", "1");
	if (!cg || fill_all_nodes() || run_steps(eperm_child, cg, "permission"))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/*
 * During a long toss, an unrelated cgroup can be created and removed and
 * another cpuset's mems changed, all while the toss still runs: the toss
 * holds no lock they need.  Then a fatal signal ends the toss promptly,
 * with part of the cache left.
 */
static int test_toss_fatal_signal(const char *root)
{
	long npages = BIG_SIZE / page_size, left;
	int ret = KSFT_FAIL, status;
	bool interrupted;
	char *cg, *other = NULL;
	double t0, t1;
	pid_t pid = 0;

	cg = make_cpuset("job", "1");
	if (!cg || fill_big_file(1))
		goto cleanup;
	pid = fork();
	if (pid < 0)
		goto cleanup;
	if (!pid)
		exit(toss(cg, "1") ? 1 : 0);
	usleep(100000);
	t0 = now();
	other = cg_name(parent, "unrelated");
	if (!other || cg_create(other) || cg_write(cg, "cpuset.mems", "0-1") ||
	    cg_destroy(other)) {
		ksft_print_msg("mkdir, cpuset.mems or rmdir failed during the toss\n");
		goto cleanup;
	}
	t1 = now();
	if (waitpid(pid, &status, WNOHANG)) {
		ksft_print_msg("the toss ended before mkdir, mems and rmdir did (%.0f ms)\n",
			       (t1 - t0) * 1000);
		pid = 0;
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
	left = resident_on(big_file, 1);
	interrupted = cg_read_key_long(cg, STAT_FILE, "last_error ") == -EINTR;
	ksft_print_msg("killed: reaped in %.0f ms, %ld of %ld pages left, %s\n",
		       (t1 - t0) * 1000, left, npages,
		       interrupted ? "last_error -EINTR" : "last_error is not -EINTR");
	if (!WIFSIGNALED(status) || !interrupted || left <= 0 || t1 - t0 > 1.0)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	if (other)
		cg_destroy(other);
	free(other);
	destroy(cg);
	return ret;
}

/*
 * rmdir of the cgroup being tossed: the toss stops promptly with -ENODEV
 * and the removal completes.
 */
static int test_toss_rmdir_during(const char *root)
{
	long npages = BIG_SIZE / page_size, left;
	int ret = KSFT_FAIL, status;
	double t0, t1;
	pid_t pid = 0;
	char *cg;

	cg = make_cpuset("job", "1");
	if (!cg || fill_big_file(1))
		goto cleanup;
	pid = toss_in_child(cg, "1");
	if (pid < 0)
		goto cleanup;
	usleep(100000);
	t0 = now();
	if (cg_destroy(cg)) {
		ksft_print_msg("rmdir failed during the toss: %s\n", strerror(errno));
		goto cleanup;
	}
	t1 = now();
	if (waitpid(pid, &status, 0) != pid)
		goto cleanup;
	pid = 0;
	left = resident_on(big_file, 1);
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
 * Several writers on the same and different cgroups while others change
 * cpuset.mems and create and remove cgroups: nothing hangs, every write
 * ends with success or an errno that the change explains.
 */
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

static int test_toss_concurrency(const char *root)
{
	const int nr_children = 7;
	pid_t pids[7];
	char *a, *b;
	double end;
	int ret = KSFT_FAIL, i, status, bad = 0;

	a = make_cpuset("a", "0-1");
	b = make_cpuset("b", "2-3");
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
			exit(stress_writer(b, "max nodes=2", end));
		case 3:
			exit(stress_writer(root, "8M", end));
		case 4: {	/* change a's mems */
			int k = 0;

			while (now() < end)
				cg_write(a, "cpuset.mems", k++ & 1 ? "0-1" : "1");
			exit(0);
		}
		case 5: {	/* create and remove cgroups, timing rmdir */
			char *c = cg_name(parent, "churn");
			double t, worst = 0;

			while (c && now() < end) {
				if (cg_create(c))
					exit(1);
				cg_write(c, "cpuset.mems", "1");
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
				for (int n = 0; n < nr_nodes && now() < end; n++)
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
 * memory.low, as memory.reclaim respects it: the tossed cgroup T holds M,
 * and M holds L (protected) and U (not), all caching on node 1.  A
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

	t = make_cpuset("tenant", "1");
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
		if (cg_run(l, read_all, node_file[0]) || cg_run(u, read_all, node_file[2]))
			goto cleanup;
		l0 = resident_on(node_file[0], 1);
		u0 = resident_on(node_file[2], 1);
		if (l0 < want || u0 < want) {
			ksft_print_msg("the fill left only %ld and %ld pages on node 1\n", l0, u0);
			goto cleanup;
		}
		if (toss(round ? t : m, "1 scope=cgroup"))
			goto cleanup;
		l1 = resident_on(node_file[0], 1);
		u1 = resident_on(node_file[2], 1);
		ksft_print_msg("toss of %s: protected %ld -> %ld pages, unprotected %ld -> %ld\n",
			       what[round], l0, l1, u0, u1);
		if (u1 > u0 / 100)
			goto cleanup;
		if (round < 2 ? l1 < l0 * 99 / 100 : l1 > l0 / 100)
			goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	if (l)
		cg_destroy(l);
	if (u)
		cg_destroy(u);
	if (m)
		cg_destroy(m);
	free(l);
	free(u);
	free(m);
	destroy(t);
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
 * queued behind a walk of the node is killed: it leaves promptly, without
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

	cg = make_cpuset("job", "1");
	wcg = make_cpuset("waiter", "1");
	t = mmap(NULL, 2 * NR_PILEUP * sizeof(*t), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!cg || !wcg || t == MAP_FAILED || pipe(fds) || fill_big_file(1) ||
	    fill_node(1, node_file[1]) || trace_start())
		goto cleanup;
	cached = resident_on(big_file, 1) + resident_on(node_file[1], 1);
	s0 = cg_read_key_long(cg, STAT_FILE, "tossed_bytes ");
	n0 = cg_read_key_long(cg, STAT_FILE, "tosses ");
	v0 = node_vmstat(1, "toss_cache_tossed");
	fp0 = node_meminfo_kb(1, "FilePages:");
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
	fp1 = node_meminfo_kb(1, "FilePages:");
	v1 = node_vmstat(1, "toss_cache_tossed");
	s1 = cg_read_key_long(cg, STAT_FILE, "tossed_bytes ");
	n1 = cg_read_key_long(cg, STAT_FILE, "tosses ");
	trace_stop();
	left = resident_on(big_file, 1) + resident_on(node_file[1], 1);
	tossed = s1 - s0;
	walks = trace_read(trace, sizeof(trace)) < 0 ? -1 : trace_walks(trace, 1, &traced);
	ksft_print_msg("%d writers, all in flight %.0f ms; %d walks of node 1, %ld tosses\n",
		       NR_PILEUP, (first_end - last_start) * 1000, walks, n1 - n0);
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

	/* A waiter behind a walk, killed. */
	if (fill_big_file(1) || trace_start())
		goto cleanup;
	walker = toss_in_child(cg, "1");
	if (walker < 0)
		goto cleanup;
	usleep(100000);
	waiter = toss_in_child(wcg, "1");
	if (waiter < 0)
		goto cleanup;
	usleep(100000);
	t0 = now();
	kill(waiter, SIGKILL);
	if (waitpid(waiter, &status, 0) != waiter)
		goto cleanup;
	waiter = 0;
	t1 = now();
	if (waitpid(walker, &wstatus, WNOHANG)) {
		ksft_print_msg("the walk ended before the waiter behind it was reaped\n");
		walker = 0;
		goto cleanup;
	}
	if (waitpid(walker, &wstatus, 0) != walker)
		goto cleanup;
	walker = 0;
	trace_stop();
	walks = trace_read(trace, sizeof(trace)) < 0 ? -1 : trace_walks(trace, 1, &traced);
	ksft_print_msg("killed waiter: reaped in %.0f ms, last_error %ld, scanned %ld bytes\n",
		       (t1 - t0) * 1000, cg_read_key_long(wcg, STAT_FILE, "last_error "),
		       cg_read_key_long(wcg, STAT_FILE, "last_scanned_bytes "));
	ksft_print_msg("the walk it waited behind: status %#x, %d walk(s) traced\n",
		       wstatus, walks);
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL || t1 - t0 > 1.0 ||
	    !WIFEXITED(wstatus) || WEXITSTATUS(wstatus) || walks != 1 ||
	    cg_read_key_long(wcg, STAT_FILE, "tosses ") != 1 ||
	    cg_read_key_long(wcg, STAT_FILE, "last_error ") != -EINTR ||
	    cg_read_key_long(wcg, STAT_FILE, "last_scanned_bytes ") != 0 ||
	    resident_on(big_file, 1) > BIG_SIZE / page_size / 100)
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
		exit(-write_file(path, state));
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

/* Keep putting the node files back into the cache (of the cpuset's node). */
static int refill_loop(const char *cgroup, void *arg)
{
	struct toss_loop *tl = arg;
	int n;

	while (!__atomic_load_n(&tl->stop, __ATOMIC_ACQUIRE))
		for (n = 0; n < nr_nodes; n++)
			read_all(cgroup, node_file[n]);
	return 0;
}

/*
 * Memory of the node taken offline and back online while it is tossed
 * (node 2: a big cache there, tosses of it running one after the other,
 * and a reader putting cache back), three times: the tosses all end well,
 * the blocks that went offline were offline (the node's MemTotal shows
 * it), and they come back.  Blocks holding unmovable memory refuse
 * (EBUSY), so do blocks with holes (EINVAL); one block of the node always
 * stays online.  The page cache in a block when it goes offline is
 * migrated to other nodes under the walk.
 */
static int test_toss_offline_during(const char *root)
{
	int blocks[MAX_BLOCKS], off[MAX_BLOCKS], nr, nr_blocks, nr_off = 0, went = 0;
	int ret = KSFT_FAIL, node = 2, round, i, err, status;
	long block_kb, total0, total1, cache, moved = 0;
	struct toss_loop *tl = MAP_FAILED;
	char buf[64], msg[1024] = "";
	pid_t tosser = 0, filler = 0;
	char *cg, *fillcg = NULL;
	double t;

	if (read_text(MEMORY_SYSFS "/block_size_bytes", buf, sizeof(buf)) <= 0) {
		ksft_print_msg("no %s: the kernel has no memory hotplug\n", MEMORY_SYSFS);
		return KSFT_SKIP;
	}
	block_kb = strtol(buf, NULL, 16) / 1024;
	nr_blocks = node_blocks(node, blocks);
	nr = nr_blocks;
	if (nr < 2) {
		ksft_print_msg("node %d has %d memory blocks, needs 2\n", node, nr);
		return KSFT_SKIP;
	}
	cg = make_cpuset("job", "2");
	fillcg = make_cpuset("refill", "2");
	tl = mmap(NULL, sizeof(*tl), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (!cg || !fillcg || tl == MAP_FAILED || fill_big_file(node))
		goto cleanup;
	/* Fill the node's other blocks too: 256 + 4 x 48 MiB. */
	for (i = 0; i < nr_nodes; i++)
		if (fill_node(node, node_file[i]))
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
	for (round = 0; round < 3; round++) {
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
				       __atomic_load_n(&tl->tosses, __ATOMIC_ACQUIRE),
				       now() - t, msg);
		if (!nr_off) {
			ksft_print_msg("no block of node %d could go offline\n", node);
			ret = KSFT_SKIP;
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
	ksft_print_msg("%d blocks offline and back 3 times, %ld cache pages in them as they went\n",
		       went, moved);
	ksft_print_msg("%d tosses in %.1f s, %d errors (first %d)\n",
		       tl->tosses, now() - t, tl->errors, tl->first_error);
	/* Every toss ended well, and more than one ran while memory moved. */
	if (!WIFEXITED(status) || WEXITSTATUS(status) || tl->errors || tl->tosses < 2)
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

/* The v1 cpuset hierarchy has the file too. */
static int test_toss_v1(const char *root)
{
	const char *mnt = "/tmp/cpuset_v1";
	char job[PATH_MAX], path[PATH_MAX + 64];
	int ret = KSFT_FAIL, i;
	bool mounted = false;
	double t;

	/* The cpuset controller must leave the v2 hierarchy first. */
	if (cg_write(parent, "cgroup.subtree_control", "-cpuset") ||
	    cg_write(root, "cgroup.subtree_control", "-cpuset")) {
		ksft_print_msg("cannot take cpuset out of cgroup v2: %s\n",
			       strerror(errno));
		return KSFT_FAIL;
	}
	/*
	 * The cpuset css of every removed cgroup must be freed before the
	 * controller can move: that is asynchronous, give it 30 s.
	 */
	mkdir(mnt, 0755);
	t = now();
	for (i = 0; i < 300 && !mounted; i++) {
		mounted = !mount("cpuset", mnt, "cgroup", 0, "cpuset");
		if (!mounted)
			usleep(100000);
	}
	ksft_print_msg("v1 cpuset hierarchy %smounted after %.1f s\n",
		       mounted ? "" : "not ", now() - t);
	if (!mounted) {
		ksft_print_msg("cannot mount the v1 cpuset hierarchy: %s\n",
			       strerror(errno));
		goto restore;
	}
	snprintf(job, sizeof(job), "%s/job", mnt);
	snprintf(path, sizeof(path), "%s/%s", job, TOSS_FILE);
	rmdir(job);
	if (mkdir(job, 0755))
		goto cleanup;
	{
		char p[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/cpuset.cpus", job);
		if (write_file(p, "0"))
			goto cleanup;
		snprintf(p, sizeof(p), "%s/cpuset.mems", job);
		if (write_file(p, "2"))
			goto cleanup;
	}
	/* Fill each node through a v1 cpuset of its own. */
	drop_all_caches();
	for (i = 0; i < nr_nodes; i++) {
		char p[PATH_MAX + 64], sub[PATH_MAX], mems[16];
		pid_t pid;
		int status;

		snprintf(sub, sizeof(sub), "%s/fill%d", mnt, i);
		mkdir(sub, 0755);
		snprintf(p, sizeof(p), "%s/cpuset.cpus", sub);
		write_file(p, "0");
		snprintf(p, sizeof(p), "%s/cpuset.mems", sub);
		snprintf(mems, sizeof(mems), "%d", i);
		write_file(p, mems);
		pid = fork();
		if (!pid) {
			char me[32];

			snprintf(p, sizeof(p), "%s/tasks", sub);
			snprintf(me, sizeof(me), "%d", getpid());
			if (write_file(p, me))
				exit(1);
			exit(read_all(NULL, node_file[i]));
		}
		waitpid(pid, &status, 0);
		rmdir(sub);
	}
	snapshot();
	for (i = 0; i < nr_nodes; i++)
		if (before[i] < FILE_SIZE / page_size * 99 / 100)
			goto cleanup;
	if (write_file(path, "1 nodes=1") != -EINVAL)
		goto cleanup;
	if (write_file(path, "1"))
		goto cleanup;
	if (check_nodes(1UL << 2))
		goto cleanup;
	/* The statistics are there too. */
	snprintf(path, sizeof(path), "%s/%s", job, STAT_FILE);
	if (read_key(path, "tosses") != 1 ||
	    read_key(path, "last_tossed_bytes") < before[2] * page_size)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	rmdir(job);
	umount(mnt);
restore:
	/*
	 * Give cpuset back to v2.  An unmounted v1 hierarchy is destroyed
	 * only if it had no children left, dying ones included, when it was
	 * unmounted: until cpuset can move back, mount it again (that finds
	 * the same hierarchy) and unmount it once more.
	 */
	for (i = 0; i < 30; i++) {
		if (!cg_write(root, "cgroup.subtree_control", "+cpuset") &&
		    !cg_write(parent, "cgroup.subtree_control", "+cpuset"))
			break;
		usleep(100000);
		if (!mount("cpuset", mnt, "cgroup", 0, "cpuset"))
			umount(mnt);
	}
	/* Not a failure of the toss: the runner runs this test last. */
	if (i == 30)
		ksft_print_msg("cpuset stays in the v1 hierarchy\n");
	return ret;
}

#define T(x) { x, #x }
/*
 * A size is an upper bound that is never exceeded: rounded down to whole
 * pages and spread page by page over the nodes (met exactly where there
 * are small folios enough, as on ext4; never exceeded on XFS, where a
 * file is mostly in large folios).  A size that does not fit
 * in 64 bits is -ERANGE and tosses nothing; the largest one that fits
 * tosses everything and says -EAGAIN (less was there).
 */
static int test_toss_exact_amount(const char *root)
{
	static const struct { const char *req; long bytes; } exact[] = {
		{ "8K", 8192 }, { "12K", 12288 }, { "5000", 4096 },
		{ "1000K", 1024000 }, { "1M", 1048576 },
	};
	static const char * const range[] = {
		"18446744073709551616", "16E", "16384P", "99999999999999999999999",
		"1 free=16E", "1 free=18446744073709551616",
	};
	int ret = KSFT_FAIL, err;
	long tossed, tosses;
	struct statfs sfs;
	unsigned int i;
	bool xfs;
	char *cg;

	cg = make_cpuset("job", "0-2");
	if (!cg || fill_all_nodes())
		goto cleanup;
	/* With large folios (XFS), the amount may not be met: never exceeded. */
	xfs = !statfs(dir, &sfs) && sfs.f_type == XFS_MAGIC;
	for (i = 0; i < ARRAY_SIZE(exact); i++) {
		err = toss(cg, exact[i].req);
		tossed = cg_read_key_long(cg, STAT_FILE, "last_tossed_bytes ");
		if (xfs && err == -EAGAIN && tossed < exact[i].bytes)
			continue;
		if (err || tossed != exact[i].bytes) {
			ksft_print_msg("'%s' on 3 nodes: returned %d, tossed %ld, wanted %ld\n",
				       exact[i].req, err, tossed, exact[i].bytes);
			goto cleanup;
		}
	}
	tosses = cg_read_key_long(cg, STAT_FILE, "tosses ");
	for (i = 0; i < ARRAY_SIZE(range); i++) {
		err = toss(cg, range[i]);
		if (err != -ERANGE) {
			ksft_print_msg("'%s' returned %d, not -ERANGE\n", range[i], err);
			goto cleanup;
		}
	}
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != tosses) {
		ksft_print_msg("an -ERANGE write was counted as a toss\n");
		goto cleanup;
	}
	snapshot();
	err = toss(cg, "18446744073709551615 nodes=1");
	if (err != -EAGAIN) {
		ksft_print_msg("2^64-1 bytes returned %d, not -EAGAIN\n", err);
		goto cleanup;
	}
	if (check_nodes(1UL << 1))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/*
 * Each page is counted once per toss, however many walks see it: a toss
 * of 3 nodes that needs a second round on node 1, where 16 MiB are dirty,
 * reports those 16 MiB as kept dirty, not twice as much.
 */
static int test_toss_counted_once(const char *root)
{
	char path[PATH_MAX], *cg = NULL, *n0 = NULL, *n1 = NULL;
	long dirty, tossed;
	int ret = KSFT_FAIL, err;

	snprintf(path, sizeof(path), "%s/toss-dirty-once", dir);
	cg = make_cpuset("job", "0-2");
	n0 = make_cpuset("n0", "0");
	n1 = make_cpuset("n1", "1");
	if (!cg || !n0 || !n1 || fill_all_nodes())
		goto cleanup;
	/* Node 0 cannot give its share: the other two walk again. */
	if (toss(n0, "1") || cg_run(n1, write_dirty, path))
		goto cleanup;
	err = toss(cg, "60M");
	dirty = cg_read_key_long(cg, STAT_FILE, "last_dirty_bytes ");
	tossed = cg_read_key_long(cg, STAT_FILE, "last_tossed_bytes ");
	ksft_print_msg("60M: returned %d, tossed %ld MiB, kept %ld KiB dirty of 16 MiB\n",
		       err, tossed / MiB, dirty / 1024);
	if (err || tossed != 60 * MiB || dirty < 15 * MiB || dirty > 18 * MiB)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	unlink(path);
	destroy(n1);
	destroy(n0);
	destroy(cg);
	return ret;
}

/* Resident pages of @path that belong to a large folio, from kpageflags. */
static long large_folio_pages(const char *path, long *resident_pages)
{
	long npages, i, large = 0, res = 0;
	unsigned char *vec;
	int pm, kf;
	char *map;

	if (map_cached(path, &map, &npages, &vec) || !npages)
		return -1;
	pm = open("/proc/self/pagemap", O_RDONLY);
	kf = open("/proc/kpageflags", O_RDONLY);
	if (pm < 0 || kf < 0) {
		large = -1;
		goto out;
	}
	for (i = 0; i < npages; i++) {
		uint64_t ent, flags;

		if (!(vec[i] & 1))
			continue;
		sink += map[i * page_size];
		if (pread(pm, &ent, sizeof(ent), ((uintptr_t)map / page_size + i) * 8) != 8 ||
		    !(ent >> 63))
			continue;
		ent &= (1ULL << 55) - 1;
		if (pread(kf, &flags, sizeof(flags), ent * 8) != 8)
			continue;
		res++;
		if (flags & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL))
			large++;
	}
out:
	*resident_pages = res;
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	free(vec);
	munmap(map, npages * page_size);
	return large;
}

/*
 * Large folios (XFS has them in its page cache, ext4 in 6.12 does not): a
 * size is never exceeded, even when it is smaller than a folio, and a
 * whole toss drops them all with the data intact.  Skipped where the
 * test files are not on XFS; on XFS, a fill without large folios fails.
 */
static int test_toss_large_folios(const char *root)
{
	static const char * const sizes[] = { "4K", "12K", "100K", "1M", "3M" };
	long large, res = 0, tossed, limit, left;
	int ret = KSFT_FAIL, err;
	struct statfs sfs;
	unsigned int i;
	char *cg;

	if (statfs(dir, &sfs) || sfs.f_type != XFS_MAGIC) {
		ksft_print_msg("%s is not XFS: no large folios to toss\n", dir);
		return KSFT_SKIP;
	}
	cg = make_cpuset("job", "1");
	if (!cg || toss(cg, "1") || fill_node(1, node_file[1]))
		goto cleanup;
	large = large_folio_pages(node_file[1], &res);
	ksft_print_msg("%ld of %ld resident pages in large folios\n", large, res);
	if (large < res / 2)
		goto cleanup;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t b;

		err = toss(cg, sizes[i]);
		tossed = cg_read_key_long(cg, STAT_FILE, "last_tossed_bytes ");
		b = strtoull(sizes[i], NULL, 10);
		b <<= sizes[i][strlen(sizes[i]) - 1] == 'M' ? 20 : 10;
		limit = b;
		ksft_print_msg("'%s': returned %d, tossed %ld bytes\n", sizes[i], err, tossed);
		if (tossed > limit || (err && err != -EAGAIN) || (!err && tossed != limit) ||
		    (err == -EAGAIN && tossed == limit))
			goto cleanup;
	}
	if (toss(cg, "1"))
		goto cleanup;
	left = resident_on(node_file[1], 1);
	if (left > res / 100) {
		ksft_print_msg("%ld pages left after a full toss\n", left);
		goto cleanup;
	}
	if (verify_file(node_file[1], FILE_SIZE, 'a' + 1)) {
		ksft_print_msg("the data of %s changed\n", node_file[1]);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

#define TEMP_SIZE	(64 * MiB)

static int read_times(const char *cgroup, void *arg)
{
	const char *path = arg;
	int i, times = path[strlen(path) - 1] - '0';

	for (i = 0; i < times; i++)
		if (read_all(cgroup, (void *)path))
			return 1;
	return 0;
}

/* Read ahead, a window at a time (WILLNEED reads at most one). */
static int read_ahead(const char *cgroup, void *arg)
{
	int fd = open(arg, O_RDONLY);
	long off;

	if (fd < 0)
		return 1;
	for (off = 0; off < TEMP_SIZE; off += 128 * 1024)
		posix_fadvise(fd, off, 128 * 1024, POSIX_FADV_WILLNEED);
	close(fd);
	return 0;
}

/*
 * A partial toss drops the coldest cache first, by the LRU's own notion of
 * it: of three files on node 2, B only read ahead, C read once and A read
 * three times, a toss of 96M drops all of B, then half of C, and keeps A.
 */
static int test_toss_coldest_first(const char *root)
{
	static const char * const names[] = { "A3", "C1", "B0" };
	char path[3][PATH_MAX], *cg = NULL, *fill = NULL;
	long want = TEMP_SIZE / page_size, left[3];
	int ret = KSFT_FAIL, i, fd;

	/* A is read 3 times, C once, B (read ahead only) not at all. */
	for (i = 0; i < 3; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/toss-temp-%s", dir,
			 names[i]);
		if (create_file(path[i], TEMP_SIZE, 'x'))
			goto cleanup;
		fd = open(path[i], O_RDONLY);
		if (fd < 0)
			goto cleanup;
		posix_fadvise(fd, 0, TEMP_SIZE, POSIX_FADV_DONTNEED);
		close(fd);
	}
	cg = make_cpuset("job", "2");
	fill = make_cpuset("fill", "2");
	if (!cg || !fill || toss(cg, "1"))
		goto cleanup;
	if (cg_run(fill, read_times, path[0]) || cg_run(fill, read_times, path[1]) ||
	    cg_run(fill, read_ahead, path[2]))
		goto cleanup;
	for (i = 0; i < 100 && resident_on(path[2], 2) < want * 99 / 100; i++)
		usleep(50000);
	for (i = 0; i < 3; i++) {
		if (resident_on(path[i], 2) < want * 99 / 100) {
			ksft_print_msg("%s: only %ld of %ld pages on node 2\n",
				       path[i], resident_on(path[i], 2), want);
			goto cleanup;
		}
	}
	if (toss(cg, "96M"))
		goto cleanup;
	for (i = 0; i < 3; i++)
		left[i] = resident_on(path[i], 2);
	ksft_print_msg("96M: A (read 3x) %ld, C (1x) %ld, B (read ahead) %ld of %ld pages left\n",
		       left[0], left[1], left[2], want);
	if (left[2] > want / 100 || left[0] < want * 99 / 100 ||
	    left[1] < want * 40 / 100 || left[1] > want * 60 / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	for (i = 0; i < 3; i++)
		unlink(path[i]);
	destroy(fill);
	destroy(cg);
	return ret;
}

#define NR_FIFO		4
#define TRACE_BUF	(1024 * 1024)

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
 * while a long walk of node 1 runs, four writers (each tossing its own
 * cpuset on node 1) start 100 ms apart; the node's walks begin in that
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
		cgs[i] = make_cpuset(name, "1");
		if (!cgs[i])
			goto cleanup;
	}
	if (fill_big_file(1) || trace_start())
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
	order = trace_order(trace, 1, cgs, NR_FIFO + 1, &walks);
	ksft_print_msg("node 1 walked for writers %s\n", order);
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
	char path[PATH_MAX], procs[PATH_MAX], pid[16];
	int i, j, fd;

	snprintf(pid, sizeof(pid), "%d", getpid());
	for (i = 0; i < NR_SLAB_CGS; i++) {
		snprintf(procs, sizeof(procs), "%s/s%d/cgroup.procs", base, i);
		if (write_file(procs, pid))
			return 1;
		for (j = 0; j < 8; j++) {
			snprintf(path, sizeof(path), "%s/toss-slab/%d-%d", dir, i, j);
			fd = open(path, O_CREAT | O_WRONLY, 0644);
			if (fd < 0)
				return 2;
			close(fd);
		}
	}
	return 0;
}

static int test_toss_rmdir_unheld(const char *root)
{
	char path[PATH_MAX], *cg = NULL, *slabs = NULL, *cgs[NR_SLAB_CGS] = { NULL };
	pid_t writer = 0, hog = 0;
	int ret = KSFT_FAIL, i, status;
	double took;

	/* A toss of a big cache whose node's CPU runs a SCHED_FIFO loop. */
	cg = make_cpuset("job", "1");
	if (!cg || fill_big_file(1))
		goto cleanup;
	hog = rt_hog(1, 3.0);
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
	cg = make_cpuset("job", "1");
	if (!cg || cg_write(cg, "cpuset.cpus", "1"))
		goto cleanup;
	/* The objects are allocated on node 1: made from a task of "job". */
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

/* The CPUs of a list like "2" or "1-2,4" as a bit mask. */
static unsigned long cpu_list_mask(const char *list)
{
	unsigned long mask = 0;
	const char *p = list;

	while (*p && *p != '\n') {
		char *e;
		long a = strtol(p, &e, 10), b = a;

		if (e == p)
			break;
		if (*e == '-')
			b = strtol(e + 1, &e, 10);
		for (; a <= b && a < 64; a++)
			mask |= 1UL << a;
		p = *e == ',' ? e + 1 : e;
	}
	return mask;
}

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
		for (node = 0; node < nr_nodes; node++)
			if ((fill & (1UL << node)) && fill_node(node, node_file[node]))
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
 * here (CPU 2, node 2's only CPU).  Node 2 is tossed, alone and with the
 * others, and every toss_cache event of the trace must come from another
 * CPU.
 */
static int test_toss_isolated(const char *root)
{
	static const char * const req[] = { "1 nodes=2", "1", "1 nodes=2", "1" };
	char buf[256], *cg = NULL, *iso = NULL;
	unsigned long isolated = 0;
	int ret = KSFT_FAIL;
	long ran;

	if (read_text("/sys/devices/system/cpu/isolated", buf, sizeof(buf)) > 0)
		isolated = cpu_list_mask(buf);
	if (isolated) {
		ksft_print_msg("isolcpus=%s", buf);
	} else {
		iso = cg_name(root, "toss_iso");
		cg_destroy(iso);
		if (!iso || cg_create(iso) || cg_write(iso, "cpuset.cpus", "2") ||
		    cg_write(iso, "cpuset.cpus.partition", "isolated") ||
		    cg_read_strcmp(iso, "cpuset.cpus.partition", "isolated\n")) {
			ksft_print_msg("cannot make CPU 2 an isolated partition\n");
			goto cleanup;
		}
		isolated = 1UL << 2;
	}
	cg = make_cpuset("job", "0-3");
	if (!cg)
		goto cleanup;
	ran = traced_cpus(cg, req, 4, 1UL << 2);
	ksft_print_msg("toss work ran on CPUs %#lx, isolated %#lx\n", ran, isolated);
	if (ran <= 0 || (ran & isolated))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	destroy(cg);
	destroy_partition(iso);
	return ret;
}

/* In the tenant: read the node files in, then toss them when told to. */
static int toss_own_cgroup(const char *cgroup, void *arg)
{
	double *wall = arg, t0;
	int *fds = (int *)(wall + 1), n;
	char c = 0;

	for (n = 0; n < nr_nodes; n++)
		if (read_all(cgroup, node_file[n]))
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
 * The work of a toss of scope=node runs on the cpuset's own CPUs.  A job
 * with cpus 1 and mems 1-2 has the walks of node 1 (where its CPU is) and
 * of node 2 (where it has none) on CPU 1 only.  A job with cpus 0-1 and
 * mems 0-2, next to a sibling whose root partition holds CPU 2 (node 2's
 * only CPU), has none of its work on CPU 2.
 */
static int test_toss_own_cpus(const char *root)
{
	static const char * const job_req[] = { "1", "64M" };
	static const char * const sib_req[] = { "1", "1 nodes=2" };
	char *job = NULL, *sib = NULL;
	int ret = KSFT_FAIL;
	long ran;

	job = make_cpuset("job", "1-2");
	if (!job || cg_write(job, "cpuset.cpus", "1"))
		goto cleanup;
	ran = traced_cpus(job, job_req, 2, (1UL << 1) | (1UL << 2));
	ksft_print_msg("cpus 1, mems 1-2: toss work ran on CPUs %#lx\n", ran);
	if (ran != 1UL << 1)
		goto cleanup;
	destroy(job);

	sib = cg_name(root, "toss_sib");
	cg_destroy(sib);
	job = make_cpuset("job", "0-2");
	if (!sib || !job || cg_create(sib) || cg_write(sib, "cpuset.cpus", "2") ||
	    cg_write(sib, "cpuset.cpus.partition", "root") ||
	    cg_read_strcmp(sib, "cpuset.cpus.partition", "root\n")) {
		ksft_print_msg("cannot make CPU 2 a root partition\n");
		goto cleanup;
	}
	if (cg_write(job, "cpuset.cpus", "0-1"))
		goto cleanup;
	ran = traced_cpus(job, sib_req, 2, 1UL << 2);
	ksft_print_msg("cpus 0-1, CPU 2 a sibling's partition: toss work ran on CPUs %#lx\n",
		       ran);
	if (ran <= 0 || (ran & (1UL << 2)))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	destroy(job);
	destroy_partition(sib);
	return ret;
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
	cg = make_cpuset("tenant", "0-3");
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
		       nr_nodes, *wall * 1000, (u1 - u0) / 1000.0);
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

/* Map @arg's file and hold every page of it mapped until killed. */
static int hold_mapped(const char *cgroup, void *arg)
{
	struct stat st;
	char *map;
	long i;
	int fd = open(arg, O_RDONLY);

	if (fd < 0 || fstat(fd, &st))
		return 1;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED | MAP_POPULATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 2;
	for (i = 0; i < st.st_size; i += page_size)
		sink += map[i];
	fd = open("/tmp/toss-holding", O_CREAT | O_WRONLY, 0644);
	if (fd < 0)
		return 3;
	close(fd);
	pause();
	return 0;
}

/*
 * A toss of scope=cgroup costs time in proportion to the cgroup's own page
 * cache, not to the node's: a tenant owning 1 MiB on node 1, whose other
 * 256 MiB of cache are mapped by another cgroup (so that a walk of the
 * whole node looks at every page and drops none of them), tosses its
 * cache in under 5% of the time of a scope=node walk of node 1.
 */
static int test_toss_scope_cgroup_cost(const char *root)
{
	char small[PATH_MAX], *tenant = NULL, *other = NULL;
	long node_us, cgroup_us, left;
	int ret = KSFT_FAIL, i;
	pid_t holder = 0;

	snprintf(small, sizeof(small), "%s/toss-small", dir);
	tenant = make_cpuset("tenant", "1");
	other = make_cpuset("other", "1");
	if (!tenant || !other || create_file(small, MiB, 's') ||
	    fill_big_file(1))
		goto cleanup;
	unlink("/tmp/toss-holding");
	holder = fork();
	if (holder < 0)
		goto cleanup;
	if (!holder)
		exit(cg_run(other, hold_mapped, big_file));
	for (i = 0; i < 600 && access("/tmp/toss-holding", F_OK); i++)
		usleep(100000);
	/* Written by us: out of the cache, to be read in by the tenant. */
	i = open(small, O_RDONLY);
	if (i < 0)
		goto cleanup;
	posix_fadvise(i, 0, MiB, POSIX_FADV_DONTNEED);
	close(i);
	/* The whole node, walked: the big file stays (mapped). */
	if (toss(other, "1"))
		goto cleanup;
	node_us = cg_read_key_long(other, STAT_FILE, "last_duration_us ");
	if (resident_on(big_file, 1) < BIG_SIZE / page_size * 95 / 100)
		goto cleanup;
	/* The tenant's own megabyte, charged to it, on node 1: best of 3. */
	for (cgroup_us = LONG_MAX, i = 0; i < 3; i++) {
		long us;

		if (cg_run(tenant, read_all, small) ||
		    resident_on(small, 1) < MiB / page_size * 9 / 10)
			goto cleanup;
		if (toss(tenant, "1 scope=cgroup"))
			goto cleanup;
		us = cg_read_key_long(tenant, STAT_FILE, "last_duration_us ");
		cgroup_us = us < cgroup_us ? us : cgroup_us;
		left = resident_on(small, 1);
		if (left)
			break;
	}
	ksft_print_msg("node walk %ld us, scope=cgroup %ld us (best of 3: %.1f%%), %ld left\n",
		       node_us, cgroup_us, 100.0 * cgroup_us / node_us, left);
	if (left > 0 || resident_on(big_file, 1) < BIG_SIZE / page_size * 95 / 100 ||
	    cgroup_us * 20 > node_us)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(holder);
	unlink(small);
	destroy(tenant);
	destroy(other);
	return ret;
}

#define WORKERS_PARAM	"/sys/module/toss_cache/parameters/workers_per_node"
#define NR_WORKERS	3

/* workers_per_node as it was before the tests */
static char workers_saved[16];

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
 * node 1 (see trace_workers()) out of @trace.  Returns how many, or -1.
 */
static int toss_traced(const char *cg, const char *req, char *trace,
		       unsigned long id, int *worker, int *nr_workers,
		       long *scanned, long *tossed)
{
	if (trace_start() || toss(cg, req))
		return -1;
	trace_stop();
	if (trace_read(trace, TRACE_BUF) < 0)
		return -1;
	return trace_workers(trace, id, 1, worker, nr_workers, 2 * NR_WORKERS + 1,
			     scanned, tossed);
}

/*
 * A whole toss of a node shared by workers (workers_per_node): the trace
 * shows one walk per worker, each knowing its place (worker 0, 1 and 2 of
 * 3, each taking every third stripe of the node), and together they drop
 * what one walker drops: all of the node's clean cache and none of its
 * mapped pages, and nothing on other nodes.  Their counts add up to the
 * toss's in .stat.  A toss of an amount walks the node once, coldest
 * first, with one worker.
 */
static int test_toss_workers(const char *root)
{
	long npages = FILE_SIZE / page_size, scanned, tossed, pages;
	int worker[2 * NR_WORKERS + 1], nr[2 * NR_WORKERS + 1], seen = 0;
	int ret = KSFT_FAIL, n, i;
	char *cg = NULL, *trace = NULL;
	char old[16] = "";
	pid_t pid = -1;
	struct stat st;

	if (read_text(WORKERS_PARAM, old, sizeof(old)) <= 0 ||
	    write_file(WORKERS_PARAM, "3")) {
		ksft_print_msg("no %s to set\n", WORKERS_PARAM);
		goto cleanup;
	}
	cg = make_cpuset("job", "1");
	trace = malloc(TRACE_BUF);
	if (!cg || !trace || stat(cg, &st) || fill_big_file(1))
		goto cleanup;
	/* node 1's small file, mapped by a process: it stays */
	pid = cg_run_nowait(cg, map_and_wait, node_file[1]);
	if (pid < 0)
		goto cleanup;
	for (i = 0; i < 600 && resident_on(node_file[1], 1) < npages; i++)
		usleep(50000);
	if (resident_on(node_file[1], 1) < npages)
		goto cleanup;
	n = toss_traced(cg, "1", trace, st.st_ino, worker, nr, &scanned, &tossed);
	for (i = 0; i < n; i++) {
		ksft_print_msg("walk %d: worker %d of %d\n", i, worker[i], nr[i]);
		if (nr[i] == NR_WORKERS && worker[i] >= 0 && worker[i] < NR_WORKERS)
			seen |= 1 << worker[i];
	}
	if (n != NR_WORKERS || seen != (1 << NR_WORKERS) - 1) {
		ksft_print_msg("%d walks of node 1, not workers 0 to %d of %d\n",
			       n, NR_WORKERS - 1, NR_WORKERS);
		goto cleanup;
	}
	pages = cg_read_key_long(cg, STAT_FILE, "last_tossed_bytes ") / page_size;
	ksft_print_msg("tossed %ld pages (trace %ld), scanned %ld; %ld left of the big file\n",
		       pages, tossed, scanned, resident_on(big_file, 1));
	ksft_print_msg("mapped: %ld of %ld pages kept\n", resident_on(node_file[1], 1), npages);
	if (tossed != pages || pages < BIG_SIZE / page_size * 95 / 100 ||
	    scanned * page_size != cg_read_key_long(cg, STAT_FILE, "last_scanned_bytes ") ||
	    resident_on(big_file, 1) > BIG_SIZE / page_size / 100 ||
	    resident_on(node_file[1], 1) < npages)
		goto cleanup;

	/*
	 * An amount: two walks of the node (counting, then tossing), each
	 * shared by the workers, and no third on a node left alone.
	 */
	if (fill_big_file(1))
		goto cleanup;
	n = toss_traced(cg, "16M", trace, st.st_ino, worker, nr, &scanned, &tossed);
	for (i = 0, seen = 0; i < n; i++) {
		if (nr[i] != NR_WORKERS) {
			ksft_print_msg("16M: walk %d is worker %d of %d\n", i, worker[i], nr[i]);
			goto cleanup;
		}
		seen |= 1 << (worker[i] + NR_WORKERS * (i >= NR_WORKERS));
	}
	if (n != 2 * NR_WORKERS || seen != (1 << (2 * NR_WORKERS)) - 1 ||
	    tossed != 16 * MiB / page_size) {
		ksft_print_msg("16M: %d walks, %ld pages\n", n, tossed);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	if (*old)
		write_file(WORKERS_PARAM, old);
	free(trace);
	reap(pid);
	destroy(cg);
	return ret;
}

/* Make @path a sparse file of @size bytes: reading it caches zeroed pages, without I/O. */
static int create_sparse(const char *path, long size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ret;

	if (fd < 0)
		return -1;
	ret = ftruncate(fd, size);
	close(fd);
	return ret;
}

/* Drop @path's clean pages from the page cache, wherever they are. */
static void uncache(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/* Become the unprivileged delegatee (uid and gid 65534, no groups). */
static int become_delegatee(void)
{
	if (setgroups(0, NULL) || setresgid(65534, 65534, 65534) ||
	    setresuid(65534, 65534, 65534))
		return -1;
	return 0;
}

/* Set workers_per_node to @val; what it was goes to @saved (empty if nothing). */
static int set_workers(const char *val, char *saved, size_t size)
{
	if (read_text(WORKERS_PARAM, saved, size) <= 0 || write_file(WORKERS_PARAM, val)) {
		*saved = 0;
		ksft_print_msg("no %s to set\n", WORKERS_PARAM);
		return -1;
	}
	return 0;
}

static void restore_workers(const char *saved)
{
	if (*saved)
		write_file(WORKERS_PARAM, saved);
}

/* Wait up to @secs for hold_mapped() to say that it holds its file mapped. */
static int wait_holding(double secs)
{
	double end = now() + secs;

	while (access("/tmp/toss-holding", F_OK)) {
		if (now() > end)
			return -1;
		usleep(100000);
	}
	return 0;
}

#define LRU_BOUND_SIZE	(400 * MiB)
/* Seconds each phase of test_toss_lru_bound measures. */
#define LRU_PHASE	2.5
#define NR_SLEEPERS	8
#define MAX_LRU_SAMPLES	1000
/*
 * The median over tosses of the longest section with interrupts off
 * during each: one hold of the lru_lock over 64 folios takes a few us
 * even under TCG, one over the 100k folios of the test about 5 ms.  Under
 * TCG the host may stop a vCPU for milliseconds inside any section, hence
 * the median rather than the maximum.
 */
#define LRU_IRQS_OFF_US	3000
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
		if (write_file(TRACING "/tracing_max_latency", "0"))
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
 * The values of @field (" walks=", say) in node @nid's toss_node_end events
 * in @trace: their sum into *@sum and their largest into *@most.  Returns
 * how many events there are, or -1 if one has no @field.
 */
static int trace_end_field(const char *trace, int nid, const char *field,
			   long *sum, long *most)
{
	const char *p, *q, *eol;
	char want[32];
	int ends = 0;
	long v;

	*sum = *most = 0;
	snprintf(want, sizeof(want), " nid=%d ", nid);
	for (p = strstr(trace, "toss_node_end:"); p; p = strstr(p + 1, "toss_node_end:")) {
		eol = strchrnul(p, '\n');
		q = strstr(p, want);
		if (!q || q > eol)
			continue;
		q = strstr(p, field);
		if (!q || q > eol)
			return -1;
		v = atol(q + strlen(field));
		*sum += v;
		*most = v > *most ? v : *most;
		ends++;
	}
	return ends;
}

/* The lines of the irqsoff trace that say who held interrupts off. */
static void print_irqsoff_trace(void)
{
	char *trace = malloc(TRACE_BUF), *line, *save;
	int n = 0;

	if (!trace || trace_read(trace, TRACE_BUF) < 0) {
		free(trace);
		return;
	}
	for (line = strtok_r(trace, "\n", &save); line && n < 30;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strstr(line, "latency:") || strstr(line, "task:") ||
		    strstr(line, "=>") || strstr(line, "hardirqs")) {
			ksft_print_msg("  %s\n", line);
			n++;
		}
	}
	free(trace);
}

/*
 * A toss of scope=cgroup looks at a bounded number of folios per hold of
 * the lru_lock, with interrupts off, whatever is on the list: a tenant's
 * child holds a 400 MiB file mapped (100k folios on node 1, which no toss
 * can drop) and the tenant's unprivileged owner tosses it again and again.
 * The bound itself, from the trace: no toss_node_end of node 1 reports
 * more than LRU_HOLD_MAX folios looked at under one hold (max_hold=).
 * The irqsoff tracer gives the longest section with interrupts off during
 * each toss: their median must stay under LRU_IRQS_OFF_US (the old code's
 * one hold over the whole list took 3.7-4.6 ms here; a loaded host, as in
 * make check, puts the bounded holds' median near 2 ms).  The worst
 * wake-up lateness of a SCHED_FIFO sleeper on each CPU, tossing and not,
 * is printed too, but not checked (under TCG, it is mostly the host's).
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
	if (write_file(TRACING "/current_tracer", "irqsoff")) {
		ksft_print_msg("no irqsoff tracer (CONFIG_IRQSOFF_TRACER)\n");
		return KSFT_SKIP;
	}
	write_file(TRACING "/current_tracer", "nop");
	nr_cpus = sysconf(_SC_NPROCESSORS_ONLN);
	nr_cpus = nr_cpus > NR_SLEEPERS ? NR_SLEEPERS : nr_cpus;
	snprintf(path, sizeof(path), "%s/toss-mapped", dir);
	lb = mmap(NULL, sizeof(*lb), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	tenant = make_cpuset("tenant", "1");
	hold = tenant ? cg_name(tenant, "hold") : NULL;
	if (lb == MAP_FAILED || !hold || create_sparse(path, LRU_BOUND_SIZE) ||
	    cg_write(tenant, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(hold) || chown_cgroup(tenant, 65534))
		goto cleanup;
	unlink("/tmp/toss-holding");
	holder = cg_run_nowait(hold, hold_mapped, path);
	if (holder < 0 || wait_holding(60))
		goto cleanup;
	mapped = resident_on(path, 1);
	if (mapped < npages * 99 / 100) {
		ksft_print_msg("only %ld of %ld pages mapped on node 1\n", mapped, npages);
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
	write_file(TRACING "/options/function-trace", "0");
	if (write_file(TRACING "/current_tracer", "irqsoff") ||
	    write_file(TRACING "/tracing_on", "1"))
		goto cleanup;
	if (lru_irqs_phase(NULL, &idle_irq, &idle_max) ||
	    lru_irqs_phase(tenant, &toss_irq, &toss_max))
		goto cleanup;
	tosses = lb->tosses;
	ksft_print_msg("last toss: %ld us, scanned %ld MiB, kept %ld MiB mapped\n",
		       cg_read_key_long(tenant, STAT_FILE, "last_duration_us "),
		       cg_read_key_long(tenant, STAT_FILE, "last_scanned_bytes ") / MiB,
		       cg_read_key_long(tenant, STAT_FILE, "last_mapped_bytes ") / MiB);
	ksft_print_msg("interrupts off, longest per 5 ms idle: median %ld us, max %ld us\n",
		       idle_irq, idle_max);
	ksft_print_msg("interrupts off, longest per toss (%d): median %ld us, max %ld us\n",
		       tosses, toss_irq, toss_max);
	if (!tosses || lb->errors)
		goto cleanup;
	if (toss_irq > LRU_IRQS_OFF_US) {
		ksft_print_msg("interrupts off for %ld us in a toss, median (bound %d us)\n",
			       toss_irq, LRU_IRQS_OFF_US);
		/* Who held them off in one more toss. */
		if (!write_file(TRACING "/tracing_max_latency", "0") &&
		    !write_file(TRACING "/tracing_on", "1") &&
		    !run_steps(lru_toss_once, tenant, "delegatee")) {
			write_file(TRACING "/tracing_on", "0");
			print_irqsoff_trace();
		}
		goto cleanup;
	}
	/* The bound itself, in one traced toss. */
	write_file(TRACING "/current_tracer", "nop");
	trace = malloc(TRACE_BUF);
	if (!trace || trace_start() || run_steps(lru_toss_once, tenant, "delegatee"))
		goto cleanup;
	trace_stop();
	if (trace_read(trace, TRACE_BUF) < 0)
		goto cleanup;
	if (trace_end_field(trace, 1, " max_hold=", &sum, &most) < 0)
		most = -1;
	ksft_print_msg("most folios looked at under one hold of the LRU lock: %ld (bound %d)\n",
		       most, LRU_HOLD_MAX);
	if (most < 1 || most > LRU_HOLD_MAX)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	free(trace);
	trace_stop();
	write_file(TRACING "/current_tracer", "nop");
	write_file(TRACING "/tracing_on", "1");
	if (*fn_trace)
		write_file(TRACING "/options/function-trace", fn_trace);
	write_file(TRACING "/tracing_max_latency", "0");
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
 * memory.min and memory.low protect what they say, not all or nothing:
 * under a cpuset on node 1, child a (protected, 48M) and its sibling b
 * (not) each read 64 MiB of a file; a scope=cgroup toss of their parent
 * leaves a about 48 MiB of its file (it gives only what its usage exceeds
 * its protection) and b nothing.  Once with memory.min, once with
 * memory.low.
 */
static int test_toss_protection(const char *root)
{
	static const char * const knob[] = { "memory.min", "memory.low" };
	char fa[PATH_MAX], fb[PATH_MAX], *p, *a = NULL, *b = NULL;
	long want = PROT_SIZE / page_size, a0, b0, a1, b1, cur;
	int ret = KSFT_FAIL, round, err, bad = 0;

	snprintf(fa, sizeof(fa), "%s/toss-prot-a", dir);
	snprintf(fb, sizeof(fb), "%s/toss-prot-b", dir);
	p = make_cpuset("prot", "1");
	a = p ? cg_name(p, "a") : NULL;
	b = p ? cg_name(p, "b") : NULL;
	if (!a || !b || create_sparse(fa, PROT_SIZE) || create_sparse(fb, PROT_SIZE) ||
	    cg_write(p, "cgroup.subtree_control", "+cpuset +memory") ||
	    cg_create(a) || cg_create(b))
		goto cleanup;
	for (round = 0; round < 2; round++) {
		if (cg_write(a, knob[!round], "0") || cg_write(a, knob[round], "48M"))
			goto cleanup;
		uncache(fa);
		uncache(fb);
		if (cg_run(a, read_all, fa) || cg_run(b, read_all, fb))
			goto cleanup;
		a0 = resident_on(fa, 1);
		b0 = resident_on(fb, 1);
		if (a0 < want * 99 / 100 || b0 < want * 99 / 100) {
			ksft_print_msg("the reads left only %ld and %ld pages on node 1\n", a0, b0);
			goto cleanup;
		}
		cur = cg_read_long(a, "memory.current");
		err = toss(p, "1 scope=cgroup");
		a1 = resident_on(fa, 1);
		b1 = resident_on(fb, 1);
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

#define NR_LOG_CGS	40
#define NR_DRAIN_TOSSES	50
/* A sparse file read on and on from CPU 2 in test_toss_delegate_limits. */
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
 * (b) a write with a NUL byte in it ("max\0nodes=1\n") is -EINVAL and
 *     tosses nothing (not "max" over all the cpuset's nodes);
 * (c) the delegatee's scope=cgroup tosses of 40 cgroups, twice each, log
 *     at most 12 lines: one rate limit for all of them;
 * (d) but 15 tosses of scope=node by root log 15 lines;
 * (e) a scope=cgroup toss never drains the per-CPU LRU caches of other
 *     CPUs: no lru_add_drain_per_cpu work runs while the delegatee tosses
 *     50 times from CPU 0, although a reader on CPU 2 keeps adding page
 *     cache there.
 */
static int test_toss_delegate_limits(const char *root)
{
	static const char bad_nul[] = "max\0nodes=1\n";
	char path[PATH_MAX], drain[PATH_MAX], *tenant, *job = NULL, *rd = NULL, *trace = NULL;
	int ret = KSFT_FAIL, bad = 0, fd = -1, kmsg = -1, err, i, n, on2;
	pid_t reader = 0;

	snprintf(drain, sizeof(drain), "%s/toss-drain", dir);
	tenant = make_cpuset("tenant", "1");
	job = make_cpuset("job", "0-2");
	rd = make_cpuset("reader", "2");
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
	err = write(fd, bad_nul, sizeof(bad_nul) - 1) < 0 ? -errno : 0;
	close(fd);
	ksft_print_msg("(b) 'max\\0nodes=1\\n' (12 bytes): %d\n", err);
	if (err != -EINVAL || check_nodes(0))
		bad |= 2;

	/* (c) */
	kmsg = kmsg_open_end();
	if (kmsg < 0 || chown_cgroup(tenant, 65534) ||
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
	if (create_sparse(drain, DRAIN_FILE_SIZE) || cg_write(rd, "cpuset.cpus", "2") ||
	    cg_write(rd, "memory.max", "64M"))
		goto cleanup;
	reader = cg_run_nowait(rd, drain_reader, drain);
	if (reader < 0)
		goto cleanup;
	usleep(300000);
	if (access(TRACING "/events", F_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	if (trace_clear(TRACING) ||
	    write_file(TRACING "/events/workqueue/workqueue_execute_start/enable", "1"))
		goto cleanup;
	err = run_steps(drain_tosses, tenant, "delegatee");
	write_file(TRACING "/events/workqueue/workqueue_execute_start/enable", "0");
	if (err || trace_read(trace, TRACE_BUF) < 0)
		goto cleanup;
	n = trace_count(trace, "lru_add_drain_per_cpu", 2, &on2);
	ksft_print_msg("(e) %d tosses from CPU 0: %d lru_add_drain_per_cpu ran, %d on CPU 2\n",
		       NR_DRAIN_TOSSES, n, on2);
	if (n)
		bad |= 16;
	if (bad)
		ksft_print_msg("failed: %s%s%s%s%s\n", bad & 1 ? "(a) " : "",
			       bad & 2 ? "(b) " : "", bad & 4 ? "(c) " : "",
			       bad & 8 ? "(d) " : "", bad & 16 ? "(e)" : "");
	else
		ret = KSFT_PASS;
cleanup:
	write_file(TRACING "/events/workqueue/workqueue_execute_start/enable", "0");
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

/* The state letter of task @pid in /proc (R, S, D, ...), 0 if unknown. */
static char task_state(pid_t pid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

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
 * and on the freezer.  W1 tosses node 2 (448 MiB of cache there, one
 * worker), made slow on purpose: its cpuset has CPU 2, where the toss's
 * work runs, and three busy loops share it, while the other writers keep
 * to CPU 0.  Behind W1, and while it goes on:
 * (a) a writer waiting for node 2 gets SIGUSR1 (handled, no SA_RESTART):
 *     its write returns -EINTR within 200 ms;
 * (b) a writer waiting for node 2 in a cgroup being frozen: cgroup.events
 *     says "frozen 1" within 1 s;
 * (c) W2, "1 nodes=1-2" after W1, waits for node 2 without keeping node 1:
 *     W3, "1 nodes=1" after W2, returns at least 300 ms before W1 does;
 * (d) a second write to W1's open file (the same file description) does
 *     not sleep uninterruptibly behind W1's toss (kernfs' per-file mutex):
 *     it is seen in state S waiting for node 2's turn, and SIGKILL ends
 *     it before W1's toss does.
 */
static int test_toss_signals(const char *root)
{
	static const char * const mems[] = { "2", "1-2", "1", "2", "2" };
	static const char * const req[] = { "1 nodes=2", "1 nodes=1-2", "1 nodes=1", "1", "1" };
	static const char * const names[] = { "w1", "w2", "w3", "usr1", "frozen" };
	pid_t pids[NR_SIG_WRITERS] = { 0 }, hogs[NR_SIG_HOGS] = { 0 };
	double tsig = 0, frozen_at = 0, start, setup = now(), tkill = 0, twin_gone = 0;
	char twin_path[PATH_MAX], twin_state = 0;
	pid_t twin = 0;
	char saved[16] = "";
	int ret = KSFT_FAIL, bad = 0, i;
	cpu_set_t all, set;

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
	if (set_workers("1", saved, sizeof(saved)) || fill_big_file(2))
		goto cleanup;
	for (i = 0; i < nr_nodes; i++)
		if (fill_node(2, node_file[i]))
			goto cleanup;
	ksft_print_msg("node 2: %ld MiB of cache to toss\n",
		       (resident_on(big_file, 2) + resident_all_on(2)) * page_size / MiB);
	if (cg_write(sw->cg[SIG_W1], "cpuset.cpus", "2"))
		goto cleanup;
	snprintf(twin_path, sizeof(twin_path), "%s/%s", sw->cg[SIG_W1], TOSS_FILE);
	sw->fd = open(twin_path, O_WRONLY);
	if (sw->fd < 0)
		goto cleanup;
	for (i = 0; i < NR_SIG_HOGS; i++) {
		hogs[i] = cpu_hog(2);
		if (hogs[i] < 0)
			goto cleanup;
	}
	/* We watch from CPUs 0 and 1. */
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	if (sched_setaffinity(0, sizeof(set), &set))
		goto cleanup;

	start = now();
	for (i = 0; i < NR_SIG_WRITERS; i++) {
		pids[i] = cg_run_nowait(sw->cg[i], sig_writer, (void *)(long)i);
		if (pids[i] < 0)
			goto cleanup;
		/* W1 walks node 2, W2 waits for it, then the others come. */
		usleep(i == SIG_W1 ? 200000 : 50000);
	}
	usleep(150000);
	if (sw->end[SIG_W1]) {
		ksft_print_msg("W1's toss took only %.0f ms: too short to test behind\n",
			       (sw->end[SIG_W1] - start) * 1000);
		goto cleanup;
	}
	tsig = now();
	kill(pids[SIG_USR1], SIGUSR1);
	if (cg_write(sw->cg[SIG_FROZEN], "cgroup.freeze", "1"))
		goto cleanup;
	/* (d): a second write to W1's open file, behind W1's toss. */
	twin = fork();
	if (twin < 0)
		goto cleanup;
	if (!twin)
		_exit(write(sw->fd, "1", 1) < 0 ? errno : 0);
	/* Until W1 is done, and the others had a second and a half. */
	while (now() < tsig + 30 && (!sw->end[SIG_W1] || now() < tsig + 1.5)) {
		if (!frozen_at &&
		    !cg_read_strstr(sw->cg[SIG_FROZEN], "cgroup.events", "frozen 1"))
			frozen_at = now();
		if (twin && now() > tsig + 0.3 && twin_state != 'S')
			twin_state = task_state(twin);
		if (twin && now() > tsig + 0.8 && !sw->end[SIG_W1]) {
			tkill = now();
			kill(twin, SIGKILL);
			waitpid(twin, NULL, 0);
			twin_gone = now();
			twin = 0;
		}
		usleep(10000);
	}
	ksft_print_msg("W1 (1 nodes=2): %d after %.0f ms (set up in %.1f s)\n", sw->err[SIG_W1],
		       (sw->end[SIG_W1] - start) * 1000, start - setup);
	if (sw->end[SIG_USR1])
		ksft_print_msg("(a) SIGUSR1 to a waiter: %d, %.0f ms after it, %s W1 returned\n",
			       sw->err[SIG_USR1], (sw->end[SIG_USR1] - tsig) * 1000,
			       sw->end[SIG_USR1] < sw->end[SIG_W1] ? "before" : "after");
	else
		ksft_print_msg("(a) SIGUSR1 to a waiter: still waiting when W1 returned\n");
	if (sw->err[SIG_USR1] != -EINTR || !sw->end[SIG_USR1] ||
	    sw->end[SIG_USR1] - tsig > 0.2 || sw->end[SIG_USR1] >= sw->end[SIG_W1])
		bad |= 1;
	if (frozen_at)
		ksft_print_msg("(b) frozen %.0f ms after cgroup.freeze, %s W1 returned\n",
			       (frozen_at - tsig) * 1000,
			       frozen_at < sw->end[SIG_W1] ? "before" : "not before");
	else
		ksft_print_msg("(b) not frozen within %.1f s\n", now() - tsig);
	if (!frozen_at || frozen_at - tsig > 1.0 || frozen_at >= sw->end[SIG_W1])
		bad |= 2;
	if (sw->end[SIG_W3])
		ksft_print_msg("(c) W3 (1 nodes=1): %d, returned %.0f ms before W1\n",
			       sw->err[SIG_W3], (sw->end[SIG_W1] - sw->end[SIG_W3]) * 1000);
	else
		ksft_print_msg("(c) W3 (1 nodes=1): still waiting when W1 returned\n");
	if (sw->err[SIG_W3] || !sw->end[SIG_W3] || sw->end[SIG_W3] > sw->end[SIG_W1] - 0.3)
		bad |= 4;
	if (twin_gone)
		ksft_print_msg("(d) a second write to W1's file: %s, killed in %.0f ms, %s\n",
			       twin_state == 'S' ? "seen in S" : "never seen in S",
			       (twin_gone - tkill) * 1000,
			       twin_gone < sw->end[SIG_W1] ? "before W1 returned" :
			       "after W1 returned");
	else
		ksft_print_msg("(d) a second write to W1's file: %s\n",
			       "not killed before W1 returned");
	if (twin_state != 'S' || !twin_gone || twin_gone >= sw->end[SIG_W1])
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
	restore_workers(saved);
	munmap(sw, sizeof(*sw));
	ksft_print_msg("cleaned up in %.1f s\n", now() - setup);
	return ret;
}

/* Whether @trace has a toss_node_begin of node @nid that ends in @field. */
static bool trace_begin_with(const char *trace, int nid, const char *field)
{
	const char *p, *eol, *hit;
	char want[32];

	snprintf(want, sizeof(want), " nid=%d ", nid);
	for (p = strstr(trace, "toss_node_begin:"); p; p = strstr(p + 1, "toss_node_begin:")) {
		eol = strchrnul(p, '\n');
		hit = strstr(p, want);
		if (!hit || hit > eol)
			continue;
		hit = strstr(p, field);
		if (hit && hit + strlen(field) == eol)
			return true;
	}
	return false;
}

/*
 * (a) A cpuset whose cpuset.mems has none of its parent's nodes (parent
 * 0-1, child 3) falls back to the parent's in cpuset.mems.effective: a
 * toss of it is -ENODEV and drops nothing, not the parent's nodes' cache.
 * (b) slab=1 with an amount smaller than a page per node, "8K slab=1"
 * over nodes 0-3, still shrinks the slab of every node: each node has a
 * toss_node_begin with slab=1 in the trace.
 */
static int test_toss_mems_fallback(const char *root)
{
	char *p, *job = NULL, *all = NULL, *trace = NULL, buf[64];
	int ret = KSFT_FAIL, bad = 0, err, n;

	p = make_cpuset("p", "0-1");
	job = p ? cg_name(p, "job") : NULL;
	all = make_cpuset("all", "0-3");
	trace = malloc(TRACE_BUF);
	if (!job || !all || !trace || cg_write(p, "cgroup.subtree_control", "+cpuset") ||
	    cg_create(job) || cg_write(job, "cpuset.mems", "3") ||
	    cg_read(job, "cpuset.mems.effective", buf, sizeof(buf)))
		goto cleanup;
	if (strcmp(buf, "0-1\n")) {
		ksft_print_msg("mems 3 under 0-1: effective %s", buf);
		goto cleanup;
	}
	if (fill_all_nodes())
		goto cleanup;
	snapshot();
	err = toss(job, "1");
	ksft_print_msg("(a) toss of p/job (mems 3, effective 0-1): %d\n", err);
	if (err != -ENODEV || check_nodes(0))
		bad |= 1;

	if (trace_start())
		goto cleanup;
	err = toss(all, "8K slab=1");
	trace_stop();
	if (trace_read(trace, TRACE_BUF) < 0)
		goto cleanup;
	for (n = 0; n < 4 && n < nr_nodes; n++) {
		if (!trace_begin_with(trace, n, " slab=1")) {
			ksft_print_msg("(b) '8K slab=1' (%d): node %d has no begin with slab=1\n",
				       err, n);
			bad |= 2;
		}
	}
	if (err && err != -EAGAIN)
		bad |= 2;
	if (!(bad & 2))
		ksft_print_msg("(b) '8K slab=1' (%d): slab=1 on every node\n", err);
	if (!bad)
		ret = KSFT_PASS;
cleanup:
	trace_stop();
	free(trace);
	destroy(job);
	destroy(p);
	destroy(all);
	return ret;
}

#define HELD_SIZE	(320 * MiB)
#define WARM_SIZE	(192 * MiB)
#define AHEAD_SIZE	(16 * MiB)

/*
 * A partial toss costs at most two walks of the node (one to count what
 * each level of coldness holds, one to toss), however many levels it has
 * to go through: on node 1, with 320 MiB mapped (kept), 192 MiB read three
 * times and 16 MiB only read ahead, "64M" takes all of the read-ahead
 * pages and 48 MiB of the warm file, with walks= of the trace adding up
 * to 2 at most, in at most 6 times the time of one walk of the node (a
 * "1" that finds nothing to drop).  Each of the two walks pins and grades
 * the node's 208 MiB of clean cache, and the second drops 64 MiB, while
 * the "1" only pins the mapped pages and grades nothing: in the debug VM
 * the toss takes 3.7 to 4.5 of those walks, 5.6 with three VMs on the
 * host's two cores; the code before the two walks took 6.1 to 8.2 (see
 * the issue's 3x target, missed, in the README).  What fails on that code
 * is walks=, the time only when the host is quiet.
 */
static int test_toss_partial_walks(const char *root)
{
	char held[PATH_MAX], warm[PATH_MAX], ahead[PATH_MAX], saved[16] = "";
	char *cg = NULL, *fill = NULL, *hold = NULL, *trace = NULL;
	long walk_us[2], us, w0, w1, a0, a1, dropped, sum, most;
	int ret = KSFT_FAIL, err, walks, ends, i;
	pid_t holder = 0;

	snprintf(held, sizeof(held), "%s/toss-held", dir);
	snprintf(warm, sizeof(warm), "%s/toss-warm3", dir);
	snprintf(ahead, sizeof(ahead), "%s/toss-ahead", dir);
	cg = make_cpuset("job", "1");
	fill = make_cpuset("fill1", "1");
	hold = make_cpuset("holder", "1");
	trace = malloc(TRACE_BUF);
	if (!cg || !fill || !hold || !trace || set_workers("1", saved, sizeof(saved)) ||
	    create_sparse(held, HELD_SIZE) || create_sparse(warm, WARM_SIZE) ||
	    create_sparse(ahead, AHEAD_SIZE))
		goto cleanup;
	drop_all_caches();
	unlink("/tmp/toss-holding");
	holder = cg_run_nowait(hold, hold_mapped, held);
	if (holder < 0 || wait_holding(60))
		goto cleanup;
	if (resident_on(held, 1) < HELD_SIZE / page_size * 99 / 100) {
		ksft_print_msg("only %ld pages of %s on node 1\n", resident_on(held, 1), held);
		goto cleanup;
	}
	/* Nothing but the mapped file left; then walks that drop nothing. */
	if (toss(cg, "1"))
		goto cleanup;
	for (i = 0; i < 2; i++) {
		if (toss(cg, "1"))
			goto cleanup;
		walk_us[i] = cg_read_key_long(cg, STAT_FILE, "last_duration_us ");
	}
	if (cg_run(fill, read_times, warm) || cg_run(fill, read_ahead, ahead))
		goto cleanup;
	for (i = 0; i < 100 && resident_on(ahead, 1) < AHEAD_SIZE / page_size * 99 / 100; i++)
		usleep(50000);
	w0 = resident_on(warm, 1);
	a0 = resident_on(ahead, 1);
	if (w0 < WARM_SIZE / page_size * 99 / 100 || a0 < AHEAD_SIZE / page_size * 99 / 100) {
		ksft_print_msg("on node 1: %ld pages read 3 times, %ld read ahead\n", w0, a0);
		goto cleanup;
	}
	if (trace_start())
		goto cleanup;
	err = toss(cg, "64M");
	trace_stop();
	us = cg_read_key_long(cg, STAT_FILE, "last_duration_us ");
	if (trace_read(trace, TRACE_BUF) < 0)
		goto cleanup;
	ends = trace_end_field(trace, 1, " walks=", &sum, &most);
	walks = ends > 0 ? sum : ends ? -1 : -2;
	w1 = resident_on(warm, 1);
	a1 = resident_on(ahead, 1);
	dropped = (w0 - w1) * page_size;
	ksft_print_msg("one walk: %ld and %ld us; 64M: %d in %ld us (%.1f walks' time), walks=%d\n",
		       walk_us[0], walk_us[1], err, us, 2.0 * us / (walk_us[0] + walk_us[1]),
		       walks);
	ksft_print_msg("64M: read ahead %ld -> %ld pages, read 3x: %ld KiB dropped\n",
		       a0, a1, dropped / 1024);
	if (walks == -1)
		ksft_print_msg("a toss_node_end of node 1 without walks=\n");
	if (err || walks < 1 || walks > 2 || us * 2 > 6 * (walk_us[0] + walk_us[1]) ||
	    a1 > a0 / 100 || dropped > 48 * MiB || dropped < 44 * MiB)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	restore_workers(saved);
	free(trace);
	reap(holder);
	destroy(hold);
	destroy(fill);
	destroy(cg);
	unlink("/tmp/toss-holding");
	unlink(held);
	unlink(warm);
	unlink(ahead);
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

	if (!cmdline_has("cgroup_disable", "memory")) {
		ksft_print_msg("the kernel was not booted with cgroup_disable=memory\n");
		return KSFT_SKIP;
	}
	err = toss(root, "1 scope=cgroup");
	ksft_print_msg("'1 scope=cgroup' on %s without memcg: %d\n", root, err);
	return err == -EOPNOTSUPP ? KSFT_PASS : KSFT_FAIL;
}

struct toss_test {
	int (*fn)(const char *root);
	const char *name;
} tests[] = {
	T(test_toss_one_node),
	T(test_toss_nodes_subset),
	T(test_toss_size_limit),
	T(test_toss_free_target),
	T(test_toss_dirty_survives),
	T(test_toss_mapped_survives),
	T(test_toss_tmpfs_survives),
	T(test_toss_cpuless_node),
	T(test_toss_root_cpuset),
	T(test_toss_mems_changed),
	T(test_toss_bad_input),
	T(test_toss_observability),
	T(test_toss_parallel),
	T(test_toss_scope_cgroup),
	T(test_toss_delegated),
	T(test_toss_slab),
	T(test_toss_under_pressure),
	T(test_toss_eperm),
	T(test_toss_fatal_signal),
	T(test_toss_rmdir_during),
	T(test_toss_concurrency),
	T(test_toss_memory_low),
	T(test_toss_no_pileup),
	T(test_toss_offline_during),
	T(test_toss_exact_amount),
	T(test_toss_counted_once),
	T(test_toss_large_folios),
	T(test_toss_coldest_first),
	T(test_toss_fifo),
	T(test_toss_rmdir_unheld),
	T(test_toss_isolated),
	T(test_toss_own_cpus),
	T(test_toss_scope_cgroup_cpu),
	T(test_toss_scope_cgroup_cost),
	T(test_toss_workers),
	T(test_toss_lru_bound),
	T(test_toss_protection),
	T(test_toss_delegate_limits),
	T(test_toss_signals),
	T(test_toss_mems_fallback),
	T(test_toss_partial_walks),
	T(test_toss_no_memcg_root),
	T(test_toss_v1),
};

#undef T

static int count_memory_nodes(void)
{
	char path[PATH_MAX], buf[4096];
	int n;

	for (n = 0; n < MAX_NODES; n++) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", n);
		if (read_text(path, buf, sizeof(buf)) <= 0)
			break;
	}
	return n;
}

/*
 * A test runs if its name contains one of the NAME arguments (any name
 * when there is none) and none of the -NAME ones.
 */
static bool selected(int argc, char **argv, const char *name)
{
	bool want = true;
	int i;

	for (i = 1; i < argc; i++)
		if (argv[i][0] != '-')
			want = false;
	for (i = 1; i < argc; i++) {
		if (argv[i][0] == '-' && strstr(name, argv[i] + 1))
			return false;
		if (argv[i][0] != '-' && strstr(name, argv[i]))
			want = true;
	}
	return want;
}

int main(int argc, char **argv)
{
	unsigned int i, plan = 0;
	int n;

	/*
	 * "test_cpuset_toss NAME..." runs only the tests whose names contain
	 * one of the NAMEs, "test_cpuset_toss -NAME..." all but those.
	 */
	for (i = 0; i < ARRAY_SIZE(tests); i++)
		if (selected(argc, argv, tests[i].name))
			plan++;
	ksft_print_header();
	ksft_set_plan(plan);
	page_size = sysconf(_SC_PAGESIZE);
	dir = getenv("TOSS_DIR") ?: "/mnt/scratch";

	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "cpuset"))
		if (cg_write(root, "cgroup.subtree_control", "+cpuset"))
			ksft_exit_skip("failed to enable the cpuset controller\n");
	{
		char p[PATH_MAX + 64];

		snprintf(p, sizeof(p), "%s/%s", root, TOSS_FILE);
		if (access(p, F_OK))
			ksft_exit_skip("this kernel has no %s\n", TOSS_FILE);
	}
	nr_nodes = count_memory_nodes();
	if (nr_nodes < 3)
		ksft_exit_skip("needs at least 3 NUMA nodes, found %d\n", nr_nodes);

	/*
	 * The tests that read the trace count one walk per node and toss:
	 * one worker per node, whatever the node's CPUs, but in
	 * test_toss_workers.
	 */
	if (read_text(WORKERS_PARAM, workers_saved, sizeof(workers_saved)) > 0)
		write_file(WORKERS_PARAM, "1");

	parent = cg_name(root, "toss_test");
	cg_destroy(parent);
	/* (Without the memory controller: cgroup_disable=memory.) */
	if (cg_create(parent) ||
	    (cg_write(parent, "cgroup.subtree_control", "+cpuset +memory") &&
	     (!cg_read_strstr(root, "cgroup.controllers", "memory") ||
	      cg_write(parent, "cgroup.subtree_control", "+cpuset"))))
		ksft_exit_fail_msg("cannot create %s\n", parent);
	for (n = 0; n < nr_nodes; n++) {
		snprintf(node_file[n], sizeof(node_file[n]), "%s/toss-node%d", dir, n);
		if (create_file(node_file[n], FILE_SIZE, 'a' + n))
			ksft_exit_fail_msg("cannot create %s: %s\n", node_file[n], strerror(errno));
	}

	for (i = 0; i < ARRAY_SIZE(tests); i++) {
		double t = now();
		int ret;

		if (!selected(argc, argv, tests[i].name))
			continue;
		ret = tests[i].fn(root);

		ksft_print_msg("%s took %.1f s\n", tests[i].name, now() - t);
		switch (ret) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", tests[i].name);
			break;
		case KSFT_SKIP:
			ksft_test_result_skip("%s\n", tests[i].name);
			break;
		default:
			ksft_test_result_fail("%s\n", tests[i].name);
			break;
		}
	}

	for (n = 0; n < nr_nodes; n++)
		unlink(node_file[n]);
	if (*big_file)
		unlink(big_file);
	cg_destroy(parent);
	if (*workers_saved)
		write_file(WORKERS_PARAM, workers_saved);
	ksft_finished();
}
