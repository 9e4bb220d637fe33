// SPDX-License-Identifier: GPL-2.0
/*
 * Tests of cpuset.memory_toss_cache: what a toss drops and what it keeps.
 *
 * Which nodes lose their cache (one node of several, nodes=, a node without
 * CPUs, the root cpuset, cpuset.mems changed before and during a write, a
 * cpuset whose mems fall back to its parent's), how much (a size, exact
 * amounts, free=, the coldest cache first, large folios, at most two walks
 * of a node), what is never dropped (dirty, mapped, tmpfs), input that is
 * refused and changes nothing, the opener's credentials, slab=1, the
 * statistics, vmstat and tracepoints, and the v1 file.
 *
 * The parser's every error and the arithmetic of the shares are tested by
 * the KUnit suite of kernel/cgroup/cpuset-toss.c; these tests write to the
 * file of a real cpuset and measure the page cache of real nodes (see
 * toss_util.c).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/dm-ioctl.h>
#include <linux/kernel-page-flags.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "toss_util.h"

#define XFS_MAGIC	0x58465342
#define TEMP_SIZE	(64 * MiB)

/* Read @arg's file N times, N its name's last digit. */
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
	struct stat st;
	int fd = open(arg, O_RDONLY);
	long off;

	if (fd < 0 || fstat(fd, &st))
		return 1;
	for (off = 0; off < st.st_size; off += 128 * 1024)
		posix_fadvise(fd, off, 128 * 1024, POSIX_FADV_WILLNEED);
	close(fd);
	return 0;
}

/*
 * Fill every node, make a cpuset with @mems (then change them to @new_mems
 * if given), write @req to its toss file and check that exactly the nodes
 * in @gone lost their cache.  A second write of @req must succeed too, with
 * nothing left to toss.
 */
static int fill_toss_check(unsigned long mems, unsigned long new_mems,
			   const char *req, unsigned long gone)
{
	int ret = KSFT_FAIL;
	char *cg;

	cg = make_cpuset("job", mems);
	if (!cg || fill_all_nodes())
		goto cleanup;
	snapshot();
	if (new_mems && set_list(cg, "cpuset.mems", new_mems))
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
	int a = nth_node(ANY_NODE, 0);

	return fill_toss_check(NODE(a), 0, "1", NODE(a));
}

/* nodes= picks a subset of the cpuset's nodes. */
static int test_toss_nodes_subset(const char *root)
{
	int a = nth_node(ANY_NODE, 0), b = nth_node(ANY_NODE, 1);
	char req[64], list[32];

	if (b < 0)
		return toss_skip("needs 3 nodes with memory");
	snprintf(req, sizeof(req), "max nodes=%s\n",
		 list_str(NODE(home_node) | NODE(b), list, sizeof(list)));
	return fill_toss_check(NODE(home_node) | NODE(a) | NODE(b), 0, req,
			       NODE(home_node) | NODE(b));
}

/* A size is honoured, and -EAGAIN when it cannot be met. */
static int test_toss_size_limit(const char *root)
{
	long want = 16 * MiB / page_size, got;
	int ret = KSFT_FAIL, node = nth_node(ANY_NODE, 1);
	char *cg;

	if (node < 0)
		node = nth_node(ANY_NODE, 0);
	cg = make_cpuset("job", NODE(node));
	if (!cg || fill_all_nodes())
		goto cleanup;
	/* Empty the node of everything but our file. */
	if (toss(cg, "1") || fill_node(node, node_file[node]))
		goto cleanup;
	snapshot();
	if (toss(cg, "16M"))
		goto cleanup;
	got = before[node] - resident_on(node_file[node], node);
	if (got > want || got < want * 95 / 100) {
		ksft_print_msg("16M: tossed %ld pages of the file, wanted %ld\n", got, want);
		goto cleanup;
	}
	if (toss(cg, "10G") != -EAGAIN) {
		ksft_print_msg("10G on a node with less did not return EAGAIN\n");
		goto cleanup;
	}
	/*
	 * At most 1% left: a folio still in the per-CPU LRU batch of a CPU
	 * the toss does not run on is not on the LRU yet (the reader may
	 * have moved to another CPU before it exited), and no other CPU is
	 * made to drain.  Other nodes untouched by all of it.
	 */
	if (check_nodes(NODE(node)))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/* A node's MemFree, in bytes. */
static long node_free_bytes(int node)
{
	long kb = node_meminfo_kb(node, "MemFree:");

	return kb < 0 ? -1 : kb * 1024;
}

/*
 * free=: toss until the node has that much free, and no more than needed.
 * The kernel counts the pages on the per-CPU free lists as free, MemFree
 * does not: the target is set well above MemFree so that it is met only
 * by tossing, and the check allows for those lists.
 */
static int test_toss_free_target(const char *root)
{
	long need = 96 * MiB, target, cached, got;
	int ret = KSFT_FAIL, err, i, a = nth_node(ANY_NODE, 0);
	char req[64];
	char *cg;

	cg = make_cpuset("job", NODE(a));
	if (!cg)
		goto cleanup;
	/* Put every test file on the node: 4 x 48 MiB or more. */
	drop_all_caches();
	for (i = 0; i < nr_files; i++)
		if (fill_node(a, file[i]))
			goto cleanup;
	cached = resident_all_on(a);
	target = node_free_bytes(a) + need;
	snprintf(req, sizeof(req), "1 free=%ld", target);
	err = toss(cg, req);
	got = (cached - resident_all_on(a)) * page_size;
	ksft_print_msg("free=: %ld MiB wanted, %ld MiB tossed, %ld MiB free (target %ld)\n",
		       need / MiB, got / MiB, node_free_bytes(a) / MiB, target / MiB);
	if (err) {
		ksft_print_msg("'%s' returned %d\n", req, err);
		goto cleanup;
	}
	/*
	 * The kernel aims 1 MiB above a free= target (cgroup-v2.rst).  What
	 * KASAN's quarantine frees meanwhile counts towards the target.
	 */
	if (got > need + 3 * MiB || (!sanitizers && got < need / 2) ||
	    node_free_bytes(a) < target - 4 * MiB)
		goto cleanup;
	/* A target the node cannot reach: -EAGAIN, after tossing all. */
	if (toss(cg, "1 free=100G") != -EAGAIN)
		goto cleanup;
	if (resident_all_on(a) > cached / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/*
 * Dirty pages survive a toss, and the toss writes nothing back: once synced
 * and clean, they go.  Writeback may clean some of them meanwhile (seen
 * under KASAN: 17 of 4096), and a clean page may go:
 * then the node's nr_written shows it, the data read back must be intact,
 * and the round is tried again, three times at most.  A dropped page that
 * no writeback accounts for, or any data lost, fails at once.
 */
static int test_toss_dirty_survives(const char *root)
{
	char path[PATH_MAX];
	struct flusher fl = {};
	long npages = 16 * MiB / page_size, c0[MAX_NODES], c1[MAX_NODES];
	int ret = KSFT_FAIL, a = nth_node(ANY_NODE, 0), round;
	long w0, w1, gone, r1;
	char *cg;

	snprintf(path, sizeof(path), "%s/dirty", dir);
	/* Keep the flusher away while the pages must stay dirty. */
	flusher_away(&fl);
	cg = make_cpuset("job", NODE(a));
	if (!cg)
		goto cleanup;
	for (round = 1; ; round++) {
		/* Room on the node, so that writing needs no reclaim there. */
		drop_all_caches();
		vmstat_fold();
		w0 = node_vmstat(a, "nr_written");
		if (w0 < 0 || cg_run(cg, write_dirty, path))
			goto cleanup;
		/*
		 * All of it cached, nearly all on the node (the allocator may
		 * place a few dirty pages elsewhere when it spreads dirty
		 * page cache).
		 */
		if (resident(path, c0) != npages || c0[a] < npages * 99 / 100)
			goto cleanup;
		if (toss(cg, "1"))
			goto cleanup;
		vmstat_fold();
		w1 = node_vmstat(a, "nr_written");
		r1 = resident(path, c1);
		if (r1 == npages && c1[a] == c0[a])
			break;
		gone = npages - r1;
		ksft_print_msg("round %d: %ld of %ld pages gone (%ld of %ld on node %d)\n",
			       round, gone, npages, c0[a] - c1[a], c0[a], a);
		ksft_print_msg("round %d: %ld pages written back on node %d meanwhile\n",
			       round, w1 - w0, a);
		sync();
		if (verify_file(path, 16 * MiB, 0x5a)) {
			ksft_print_msg("dirty pages dropped: their data is lost\n");
			goto cleanup;
		}
		if (w1 - w0 < gone || round == 3) {
			ksft_print_msg("dirty pages dropped\n");
			goto cleanup;
		}
		unlink(path);
	}
	sync();
	if (toss(cg, "1") || resident_on(path, a) > npages / 100)
		goto cleanup;
	/* Read back from the disk. */
	if (verify_file(path, 16 * MiB, 0x5a)) {
		ksft_print_msg("the data read back after sync is wrong\n");
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	flusher_back(&fl);
	destroy(cg);
	unlink(path);
	return ret;
}

/*
 * The disk vm-run.sh attaches with the serial "tossdelay" (an ext4 without
 * a journal), held behind a device-mapper delay target whose writes can be
 * held back: then no page of a file on it can turn clean, and whatever a
 * toss does, each dirty page either stays cached or is lost.
 */
#define DELAY_DM	"toss-delay"
#define DELAY_NODE	"/tmp/toss-delay"
#define DELAY_MNT	"/mnt/delay"
#define DELAY_HOLD_MS	3600000		/* an hour: longer than any test */

struct delay_disk {
	char dev[64];		/* its "major:minor" */
	long sectors;
	bool created, mounted;
};

/* Find the disk: 0, or -1 when there is none. */
static int delay_find(struct delay_disk *d)
{
	char path[PATH_MAX], buf[64];
	struct dirent *de;
	DIR *dir;
	int ret = -1;

	dir = opendir("/sys/block");
	while (dir && (de = readdir(dir))) {
		snprintf(path, sizeof(path), "/sys/block/%s/serial", de->d_name);
		if (read_text(path, buf, sizeof(buf)) <= 0 || strncmp(buf, "tossdelay", 9))
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/dev", de->d_name);
		if (read_text(path, buf, sizeof(buf)) <= 0)
			break;
		buf[strcspn(buf, "\n")] = '\0';
		snprintf(d->dev, sizeof(d->dev), "%s", buf);
		snprintf(path, sizeof(path), "/sys/block/%s/size", de->d_name);
		if (read_text(path, buf, sizeof(buf)) <= 0)
			break;
		d->sectors = atol(buf);
		ret = d->sectors > 0 ? 0 : -1;
		break;
	}
	if (dir)
		closedir(dir);
	return ret;
}

/*
 * One device-mapper ioctl on DELAY_DM, as dmsetup makes them; @write_ms
 * >= 0 loads a delay table whose writes wait that long (reads do not).
 */
static int dm_ioctl(unsigned long cmd, const struct delay_disk *d, unsigned int flags,
		    long write_ms, dev_t *devno)
{
	static union {
		struct dm_ioctl io;
		char buf[4096];
	} u;
	struct dm_target_spec *sp = (void *)(u.buf + sizeof(u.io));
	int fd, ret;

	memset(&u, 0, sizeof(u));
	u.io.version[0] = DM_VERSION_MAJOR;
	u.io.data_size = sizeof(u);
	u.io.data_start = sizeof(u.io);
	u.io.flags = flags;
	snprintf(u.io.name, sizeof(u.io.name), "%s", DELAY_DM);
	if (write_ms >= 0) {
		u.io.target_count = 1;
		sp->length = d->sectors;
		snprintf(sp->target_type, sizeof(sp->target_type), "delay");
		snprintf((char *)(sp + 1), sizeof(u) - sizeof(u.io) - sizeof(*sp),
			 "%s 0 0 %s 0 %ld", d->dev, d->dev, write_ms);
	}
	fd = open("/dev/mapper/control", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, cmd, &u.io) ? -errno : 0;
	close(fd);
	if (!ret && devno)
		*devno = u.io.dev;
	return ret;
}

/* Swap in a table whose writes wait @write_ms: delayed writes go now. */
static int delay_writes(const struct delay_disk *d, long write_ms)
{
	/* No freeze of the file system: that would write its dirty pages. */
	return dm_ioctl(DM_TABLE_LOAD, d, 0, write_ms, NULL) ?:
	       dm_ioctl(DM_DEV_SUSPEND, d, DM_SUSPEND_FLAG | DM_SKIP_LOCKFS_FLAG, -1, NULL) ?:
	       dm_ioctl(DM_DEV_SUSPEND, d, 0, -1, NULL);
}

static int delay_setup(struct delay_disk *d)
{
	dev_t devno;
	int err;

	err = dm_ioctl(DM_DEV_CREATE, d, 0, -1, &devno);
	if (err) {
		ksft_print_msg("DM_DEV_CREATE: %s\n", strerror(-err));
		return -1;
	}
	d->created = true;
	err = dm_ioctl(DM_TABLE_LOAD, d, 0, 0, NULL) ?:
	      dm_ioctl(DM_DEV_SUSPEND, d, 0, -1, NULL);
	if (err) {
		ksft_print_msg("loading the delay table: %s\n", strerror(-err));
		return -1;
	}
	unlink(DELAY_NODE);
	mkdir(DELAY_MNT, 0755);
	if (mknod(DELAY_NODE, S_IFBLK | 0600, devno) ||
	    mount(DELAY_NODE, DELAY_MNT, "ext4", 0, NULL)) {
		ksft_print_msg("mounting %s: %s\n", DELAY_NODE, strerror(errno));
		return -1;
	}
	d->mounted = true;
	return 0;
}

/* Let every held write go, then unmount and remove the device. */
static void delay_teardown(struct delay_disk *d)
{
	if (d->created)
		delay_writes(d, 0);
	if (d->mounted)
		umount(DELAY_MNT);
	if (d->created)
		dm_ioctl(DM_DEV_REMOVE, d, 0, -1, NULL);
	unlink(DELAY_NODE);
}

/*
 * Call @fn with the frame and kpageflags of each resident page of @path,
 * found through a mapping of the file and pagemap (the mapping goes before
 * the return); @present is false for a page whose frame pagemap or
 * kpageflags did not give.  0, or -1 when the file, pagemap or kpageflags cannot be
 * read.
 */
typedef void (*page_fn)(uint64_t pfn, uint64_t flags, bool present, void *arg);

static int walk_cached_pages(const char *path, page_fn fn, void *arg)
{
	long npages, i;
	unsigned char *vec;
	int pm, kf, ret = 0;
	char *map;

	if (map_cached(path, &map, &npages, &vec) || !npages)
		return -1;
	pm = open("/proc/self/pagemap", O_RDONLY);
	kf = open("/proc/kpageflags", O_RDONLY);
	if (pm < 0 || kf < 0)
		ret = -1;
	for (i = 0; !ret && i < npages; i++) {
		uint64_t ent = 0, flags;
		bool present;

		if (!(vec[i] & 1))
			continue;
		sink += map[i * page_size];
		present = pread(pm, &ent, sizeof(ent), ((uintptr_t)map / page_size + i) * 8) == 8 &&
			  ent >> 63 &&
			  pread(kf, &flags, sizeof(flags), (ent & ((1ULL << 55) - 1)) * 8) == 8;
		fn(ent & ((1ULL << 55) - 1), present ? flags : 0, present, arg);
	}
	if (pm >= 0)
		close(pm);
	if (kf >= 0)
		close(kf);
	free(vec);
	munmap(map, npages * page_size);
	return ret;
}

/* The pages of a file by state: resident, dirty, under writeback, neither. */
struct page_states {
	long res, dirty, wb, clean;
	bool missing;		/* a resident page without its flags */
};

static void count_state(uint64_t pfn, uint64_t flags, bool present, void *arg)
{
	struct page_states *st = arg;

	if (!present) {
		st->missing = true;
		return;
	}
	st->res++;
	if (flags & 1ULL << KPF_WRITEBACK)
		st->wb++;
	else if (flags & 1ULL << KPF_DIRTY)
		st->dirty++;
	else
		st->clean++;
}

/*
 * Count the pages of @path by state, from kpageflags (ext4's page cache
 * has no large folios): resident, dirty, under writeback, neither.
 */
static int page_states(const char *path, long *res, long *dirty, long *wb, long *clean)
{
	struct page_states st = {};
	int ret;

	ret = walk_cached_pages(path, count_state, &st);
	*res = st.res;
	*dirty = st.dirty;
	*wb = st.wb;
	*clean = st.clean;
	return ret || st.missing ? -1 : 0;
}

/* Compare the cached file with the pattern write_dirty() wrote. */
static int cached_intact(const char *path)
{
	char *buf = malloc(MiB);
	int fd, ok = 1;
	long i, j;

	fd = open(path, O_RDONLY);
	for (i = 0; buf && fd >= 0 && ok && i < DIRTY_SIZE / MiB; i++) {
		if (pread(fd, buf, MiB, i * MiB) != MiB)
			ok = 0;
		for (j = 0; ok && j < MiB; j++)
			ok = buf[j] == 0x5a;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return ok && fd >= 0 && buf ? 0 : -1;
}

/*
 * Dirty pages survive, shown deterministically: the file's writes are held
 * back by dm-delay for an hour, so during the toss none of its pages can
 * turn clean (a page that starts writeback stays under writeback).  Half
 * the file is under writeback, half dirty; the toss of the whole node must
 * leave every page cached in the state it was in (or dirty -> writeback),
 * with the data intact; once the writes go, the file's clean pages do go.
 */
static int test_toss_writes_held(const char *root)
{
	long npages = DIRTY_SIZE / page_size, res, dirty, wb, clean, c[MAX_NODES];
	long kept0, kept1;
	int ret = KSFT_FAIL, a = nth_node(ANY_NODE, 0), fd;
	struct delay_disk d = {};
	struct flusher fl = {};
	char path[PATH_MAX];
	char *cg;

	if (delay_find(&d))
		return toss_skip("no disk with the serial tossdelay (vm-run.sh attaches it)");
	if (access("/dev/mapper/control", F_OK))
		return toss_skip("no device-mapper (CONFIG_BLK_DEV_DM, CONFIG_DM_DELAY)");
	snprintf(path, sizeof(path), "%s/held", DELAY_MNT);
	flusher_away(&fl);
	cg = make_cpuset("job", NODE(a));
	if (!cg || delay_setup(&d)) {
		ksft_print_msg("cannot set up %s on %s\n", DELAY_DM, d.dev);
		goto cleanup;
	}
	/* From here no write reaches the disk until delay_writes(&d, 0). */
	if (delay_writes(&d, DELAY_HOLD_MS) || cg_run(cg, write_dirty, path))
		goto cleanup;
	/* The first half under writeback: submitted, never completed. */
	fd = open(path, O_RDONLY);
	if (fd < 0 || sync_file_range(fd, 0, DIRTY_SIZE / 2, SYNC_FILE_RANGE_WRITE)) {
		if (fd >= 0)
			close(fd);
		goto cleanup;
	}
	close(fd);
	if (page_states(path, &res, &dirty, &wb, &clean) ||
	    resident(path, c) != npages)
		goto cleanup;
	ksft_print_msg("before: %ld pages cached (%ld on node %d)\n", res, c[a], a);
	ksft_print_msg("before: %ld dirty, %ld writeback, %ld clean\n", dirty, wb, clean);
	if (res != npages || clean || !dirty || !wb || c[a] < npages * 99 / 100)
		goto cleanup;
	kept0 = cg_read_key_long(cg, STAT_FILE, "kept_dirty_bytes ") +
		cg_read_key_long(cg, STAT_FILE, "kept_writeback_bytes ");
	if (toss(cg, "1"))
		goto cleanup;
	kept1 = cg_read_key_long(cg, STAT_FILE, "kept_dirty_bytes ") +
		cg_read_key_long(cg, STAT_FILE, "kept_writeback_bytes ");
	if (page_states(path, &res, &dirty, &wb, &clean))
		goto cleanup;
	ksft_print_msg("after: %ld pages cached: %ld dirty, %ld writeback, %ld clean\n",
		       res, dirty, wb, clean);
	ksft_print_msg("after: the toss kept %ld KiB dirty or under writeback\n",
		       (kept1 - kept0) / 1024);
	if (res != npages || clean || (kept1 - kept0) / page_size < c[a]) {
		ksft_print_msg("a page held dirty or under writeback was dropped\n");
		goto cleanup;
	}
	if (cached_intact(path)) {
		ksft_print_msg("the cached data is not what was written\n");
		goto cleanup;
	}
	/* The writes go; then the file is clean, and a toss drops it. */
	if (delay_writes(&d, 0))
		goto cleanup;
	fd = open(path, O_RDONLY);
	if (fd < 0 || fsync(fd)) {
		if (fd >= 0)
			close(fd);
		goto cleanup;
	}
	close(fd);
	if (toss(cg, "1") || resident_on(path, a) > npages / 100)
		goto cleanup;
	if (verify_file(path, DIRTY_SIZE, 0x5a)) {
		ksft_print_msg("the data read back from the disk is wrong\n");
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	delay_teardown(&d);
	flusher_back(&fl);
	destroy(cg);
	return ret;
}

/* Pages mapped by a running process survive. */
static int test_toss_mapped_survives(const char *root)
{
	long npages = FILE_SIZE / page_size;
	int ret = KSFT_FAIL, i, a = nth_node(ANY_NODE, 0);
	char *path = node_file[a];
	int pid = -1;
	char *cg;

	cg = make_cpuset("job", NODE(a));
	if (!cg)
		goto cleanup;
	drop_all_caches();
	pid = cg_run_nowait(cg, map_and_wait, path);
	if (pid < 0)
		goto cleanup;
	for (i = 0; i < 600 && resident_on(path, a) < npages; i++)
		usleep(50000);
	if (resident_on(path, a) < npages)
		goto cleanup;
	if (toss(cg, "1"))
		goto cleanup;
	if (resident_on(path, a) < npages) {
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

	cg = make_cpuset("job", NODE(nth_node(ANY_NODE, 0)));
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

/* A node with memory and no CPU (like a CXL memory expander). */
static int test_toss_cpuless_node(const char *root)
{
	int node = find_node(CPULESS_NODE, 0);

	if (node < 0)
		return toss_skip("no node with memory and no CPU");
	ksft_print_msg("node %d has memory and no CPU\n", node);
	return fill_toss_check(NODE(node), 0, "1", NODE(node));
}

/* The root cpuset owns every node. */
static int test_toss_root_cpuset(const char *root)
{
	int a = nth_node(ANY_NODE, 0);
	char req[32];

	if (fill_all_nodes())
		return KSFT_FAIL;
	snapshot();
	snprintf(req, sizeof(req), "1 nodes=%d", a);
	if (toss(root, req))
		return KSFT_FAIL;
	if (check_nodes(NODE(a)))
		return KSFT_FAIL;
	snapshot();
	if (toss(root, "1"))
		return KSFT_FAIL;
	if (check_nodes(mem_nodes))
		return KSFT_FAIL;
	return KSFT_PASS;
}

/* The toss follows cpuset.mems as it is when the write happens. */
static int test_toss_mems_changed(const char *root)
{
	int ret = KSFT_FAIL, status, a = nth_node(ANY_NODE, 0), b = nth_node(ANY_NODE, 1);
	long big, n2;
	pid_t pid = 0;
	char *cg;

	/* (Without a third node, the second is the tests' own.) */
	if (b < 0)
		b = home_node;
	if (fill_toss_check(NODE(home_node), NODE(b), "1", NODE(b)))
		return KSFT_FAIL;
	/*
	 * Changed during the write: the toss keeps to the nodes it started
	 * with (a), the new one (b) keeps its cache.
	 */
	cg = make_cpuset("job", NODE(a));
	if (!cg || fill_big_file(a) || fill_node(b, node_file[b]))
		goto cleanup;
	n2 = resident_on(node_file[b], b);
	pid = toss_in_child(cg, "1");
	if (pid < 0)
		goto cleanup;
	usleep(100000);
	if (set_list(cg, "cpuset.mems", NODE(b)))
		goto cleanup;
	if (waitpid(pid, &status, 0) != pid)
		goto cleanup;
	pid = 0;
	big = resident_on(big_file, a);
	ksft_print_msg("mems %d -> %d during the toss: %d; node %d kept %ld, node %d %ld of %ld\n",
		       a, b, WIFEXITED(status) ? -WEXITSTATUS(status) : -1, a, big,
		       b, resident_on(node_file[b], b), n2);
	if (!WIFEXITED(status) || WEXITSTATUS(status) ||
	    big > BIG_SIZE / page_size / 100 ||
	    resident_on(node_file[b], b) < n2 * 99 / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	destroy(cg);
	return ret;
}

/*
 * Bad input is -EINVAL and changes nothing: nothing tossed, no toss
 * counted.  A few writes stand for every kind (the KUnit suite has every
 * error of the parser): a word that is not an amount, a size under a page,
 * an unknown key, each key with a bad value, a node outside the cpuset.
 */
static int test_toss_bad_input(const char *root)
{
	const char * const bad[] = {
		"\n", "garbage", "0", "4095", "1 foo=bar", "1 nodes=x",
		"1 free=0", "1 scope=all", "1 slab=2", NULL,
	};
	int ret = KSFT_FAIL, err, a = nth_node(ANY_NODE, 0);
	char *long_input = NULL, outside[32];
	long tosses, vmstat;
	unsigned int i;
	char *cg;

	cg = make_cpuset("job", NODE(a));
	if (!cg || fill_all_nodes())
		goto cleanup;
	snapshot();
	tosses = cg_read_key_long(cg, STAT_FILE, "tosses ");
	vmstat = read_key("/proc/vmstat", "toss_cache_tossed");
	/* A node with memory that is not the cpuset's. */
	snprintf(outside, sizeof(outside), "1 nodes=%d", home_node);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		const char *req = bad[i] ?: outside;

		err = toss(cg, req);
		if (err != -EINVAL) {
			ksft_print_msg("'%s' returned %d, not -EINVAL\n", req, err);
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
		memcpy(long_input, "1", 1);
		err = toss(cg, long_input);
		if (err != (i ? -E2BIG : -EINVAL)) {
			ksft_print_msg("a %zu byte write returned %d\n", len, err);
			goto cleanup;
		}
	}
	/* Nothing at all was tossed, or counted. */
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != tosses ||
	    read_key("/proc/vmstat", "toss_cache_tossed") != vmstat) {
		ksft_print_msg("a bad write was counted as a toss\n");
		goto cleanup;
	}
	if (check_nodes(0))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	free(long_input);
	destroy(cg);
	return ret;
}

/*
 * cpuset.memory_toss_cache.stat, the node vmstat counters, /proc/vmstat and
 * the tracepoints all tell the same story as the nodes' meminfo.
 */
static int test_toss_observability(const char *root)
{
	long fp0, fp1, v0, v1, g0, g1, tossed, scanned, pages;
	char path[PATH_MAX], trace[65536], want[128];
	int ret = KSFT_FAIL, n, a = nth_node(ANY_NODE, 0);
	struct stat st;
	char *cg;

	cg = make_cpuset("job", NODE(a));
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
	snprintf(path, sizeof(path), "%s/%s", cg, NUMA_STAT_FILE);
	if (stat(path, &st) || (st.st_mode & 0777) != 0444)
		goto cleanup;
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != 0 ||
	    stat_tossed_on(cg, a) != 0)
		goto cleanup;

	if (trace_start())
		goto cleanup;
	fp0 = node_meminfo_kb(a, "FilePages:");
	v0 = node_vmstat(a, "toss_cache_tossed");
	g0 = read_key("/proc/vmstat", "toss_cache_tossed");
	if (toss(cg, "1"))
		goto cleanup;
	fp1 = node_meminfo_kb(a, "FilePages:");
	v1 = node_vmstat(a, "toss_cache_tossed");
	g1 = read_key("/proc/vmstat", "toss_cache_tossed");
	trace_stop();

	tossed = toss_last(cg, "tossed_bytes");
	scanned = toss_last(cg, "scanned_bytes");
	pages = tossed / page_size;
	ksft_print_msg("stat: -%ld kB of %ld kB; FilePages -%ld kB; vmstat +%ld (node %d), +%ld\n",
		       tossed / 1024, scanned / 1024, fp0 - fp1, v1 - v0, a, g1 - g0);
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != 1 ||
	    cg_read_key_long(cg, STAT_FILE, "tosses_failed ") != 0 ||
	    cg_read_key_long(cg, STAT_FILE, "tossed_bytes ") != tossed ||
	    stat_tossed_on(cg, a) != tossed)
		goto cleanup;
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		if (n != a && stat_tossed_on(cg, n) != 0)
			goto cleanup;
	/* At least our file, at most a little more; scanned covers it. */
	if (pages < before[a] || pages > before[a] + 4 * MiB / page_size ||
	    scanned < tossed)
		goto cleanup;
	if (v1 - v0 != pages || g1 - g0 != pages)
		goto cleanup;
	/* meminfo agrees within 2% (other page cache may come and go). */
	if (labs((fp0 - fp1) * 1024 - tossed) > tossed / 50)
		goto cleanup;
	/* The trace shows the node's begin and end with the same count. */
	if (trace_read(trace, sizeof(trace)) <= 0 || stat(cg, &st))
		goto cleanup;
	snprintf(want, sizeof(want), "toss_node_begin: cgroup_id=%lu nid=%d ",
		 (unsigned long)st.st_ino, a);
	if (!strstr(trace, want)) {
		ksft_print_msg("no '%s' in the trace\n", want);
		goto cleanup;
	}
	snprintf(want, sizeof(want),
		 "toss_node_end: cgroup_id=%lu nid=%d nr_scanned=%ld nr_tossed=%ld ",
		 (unsigned long)st.st_ino, a, scanned / page_size, pages);
	if (!strstr(trace, want)) {
		ksft_print_msg("no '%s' in the trace\n", want);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	destroy(cg);
	return ret;
}

/*
 * Check that every line of @buf is "key value" (@nested false: a flat-keyed
 * file, as memory.stat) or "key N<id>=<value> ..." (@nested true: as
 * memory.numa_stat), with no key twice, as a generic cgroup file parser
 * reads them.  Return the number of lines, or -1.
 */
static int keyed_lines(char *buf, bool nested)
{
	char *line, *save, *tok, *tsave, *end, seen[32][64];
	int n = 0, i;

	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		tok = strtok_r(line, " ", &tsave);
		if (!tok || strspn(tok, "abcdefghijklmnopqrstuvwxyz_") != strlen(tok) ||
		    strlen(tok) >= sizeof(seen[0]) || n == ARRAY_SIZE(seen))
			return -1;
		for (i = 0; i < n; i++)
			if (!strcmp(seen[i], tok))
				return -1;
		snprintf(seen[n++], sizeof(seen[0]), "%s", tok);
		tok = strtok_r(NULL, " ", &tsave);
		if (!tok)
			return -1;
		do {
			if (nested) {
				if (tok[0] != 'N' || !isdigit(tok[1]))
					return -1;
				strtoul(tok + 1, &end, 10);
				if (*end != '=')
					return -1;
				tok = end + 1;
			}
			if (!isdigit(tok[0]))
				return -1;
			strtoull(tok, &end, 10);
			if (*end)
				return -1;
			tok = strtok_r(NULL, " ", &tsave);
		} while (nested && tok);
		if (tok)
			return -1;
	}
	return n;
}

/*
 * The statistics read as cgroup files are read: .stat flat keyed with
 * monotonic counters, .numa_stat nested keyed with a node for every node
 * with memory, the nodes' bytes adding up to tossed_bytes.
 */
static int test_toss_stat_format(const char *root)
{
	int ret = KSFT_FAIL, a = nth_node(ANY_NODE, 0), n, i;
	long t1, t2, sum = 0, v;
	char buf[4096];
	char *cg;

	cg = make_cpuset("job", NODE(a));
	if (!cg || fill_all_nodes() || toss(cg, "1"))
		goto cleanup;
	t1 = cg_read_key_long(cg, STAT_FILE, "tossed_bytes ");
	if (fill_all_nodes() || toss(cg, "1"))
		goto cleanup;
	t2 = cg_read_key_long(cg, STAT_FILE, "tossed_bytes ");
	ksft_print_msg("tossed_bytes after one toss %ld, after two %ld\n", t1, t2);
	if (cg_read(cg, STAT_FILE, buf, sizeof(buf)))
		goto cleanup;
	n = keyed_lines(buf, false);
	if (n < 10) {
		ksft_print_msg("%s: not flat keyed (%d)\n", STAT_FILE, n);
		goto cleanup;
	}
	if (cg_read(cg, NUMA_STAT_FILE, buf, sizeof(buf)) ||
	    keyed_lines(buf, true) != 1) {
		ksft_print_msg("%s: not one nested-keyed line\n", NUMA_STAT_FILE);
		goto cleanup;
	}
	for (i = first_node(mem_nodes); i >= 0; i = next_node(i, mem_nodes)) {
		v = stat_tossed_on(cg, i);
		if (v < 0 || (i != a && v))
			goto cleanup;
		sum += v;
	}
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != 2 ||
	    cg_read_key_long(cg, STAT_FILE, "tosses_failed ") != 0 ||
	    t1 <= 0 || t2 <= t1 || sum != t2)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

#define SLAB_FILES	10000

static int make_files(const char *cgroup, void *arg)
{
	if (mkdir(arg, 0755) && errno != EEXIST)
		return 1;
	return touch_files(arg, "f", SLAB_FILES) ? 1 : 0;
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
 * Shrink every slab cache (/sys/kernel/slab/<cache>/shrink, SLUB with
 * sysfs): that frees its empty slabs, and with KASAN first frees the
 * objects its quarantine holds.  Live objects stay.
 */
static void shrink_slab_caches(void)
{
	DIR *d = opendir("/sys/kernel/slab");
	char path[PATH_MAX];
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/kernel/slab/%s/shrink", de->d_name);
		write_str(path, "1");
	}
	closedir(d);
}

/*
 * slab=1 also shrinks the node's reclaimable slab (dentries and inodes of
 * files created from the node's CPU), through NUMA-aware shrinkers only:
 * the tests' own node keeps its slab.  The lean kernel has SLUB_TINY,
 * which does not account SReclaimable: the nodes' Slab totals are compared.
 * Under TOSS_SANITIZERS the slab caches are shrunk until the node's Slab
 * shows the drop (up to 10 times, 0.5 s apart): see below.
 */
static int test_toss_slab(const char *root)
{
	int ret = KSFT_FAIL, a = nth_node(CPU_NODE, 0), i;
	long s0, s1, o0, o1, objects;
	char files[PATH_MAX];
	char *cg;

	if (a < 0)
		return toss_skip("needs a node with CPUs besides node %d", home_node);
	snprintf(files, sizeof(files), "%s/slab", dir);
	cg = make_cpuset("slabjob", NODE(a));
	if (!cg || set_list(cg, "cpuset.cpus", 1UL << first_cpu(node_cpus(a))) ||
	    cg_run(cg, make_files, files))
		goto cleanup;
	sync();
	s0 = node_meminfo_kb(a, " Slab:");
	o0 = node_meminfo_kb(home_node, " Slab:");
	if (toss(cg, "1 slab=1"))
		goto cleanup;
	s1 = node_meminfo_kb(a, " Slab:");
	/*
	 * KASAN's quarantine keeps what the toss freed, and the slabs it
	 * was in, until the quarantine is full or the cache is shrunk;
	 * dentries and inodes are freed after an RCU grace period.
	 */
	for (i = 0; sanitizers && i < 10 && s0 - s1 < SLAB_FILES / 4; i++) {
		usleep(500000);
		shrink_slab_caches();
		s1 = node_meminfo_kb(a, " Slab:");
	}
	o1 = node_meminfo_kb(home_node, " Slab:");
	objects = toss_last(cg, "slab_objects");
	ksft_print_msg("slab=1: node %d Slab %ld -> %ld kB, node %d %ld -> %ld kB, %ld objects%s\n",
		       a, s0, s1, home_node, o0, o1, objects,
		       i ? " (after shrinking the slab caches)" : "");
	/*
	 * About 1 kB of dentry and inode per file went, none of the other
	 * node's (unless KASAN's quarantine, which the frees fill, lets
	 * older objects of that node go).
	 */
	if (s0 - s1 < SLAB_FILES / 4 || objects < SLAB_FILES ||
	    (!sanitizers && o0 - o1 > 1024))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	remove_files(files);
	destroy(cg);
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
	int ret = KSFT_FAIL, err, a = nth_node(ANY_NODE, 0);
	char *cg, *hogcg = NULL;
	long tossed, cached;
	pid_t pid = -1;
	double t;

	cg = make_cpuset("job", NODE(a));
	hogcg = make_cpuset("hog", NODE(a));
	if (!cg || !hogcg || fill_big_file(a) || fill_node(a, file[0]))
		goto cleanup;
	cached = resident_all_on(a) + resident_on(big_file, a);
	pid = cg_run_nowait(hogcg, hog, (void *)(400 * MiB));
	if (pid < 0)
		goto cleanup;
	usleep(300000);
	t = now();
	err = toss(cg, "1");
	t = now() - t;
	tossed = toss_last(cg, "tossed_bytes");
	ksft_print_msg("under pressure: %d after %.0f ms, %ld MiB tossed of %ld MiB cached\n",
		       err, t * 1000, tossed / MiB, cached * page_size / MiB);
	/* (plus a little file system metadata cached on the node) */
	if (err || tossed > cached * page_size + 4 * MiB ||
	    resident_on(big_file, a) > cached / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	reap(pid);
	destroy(hogcg);
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

/* Write "1" to @fd: 0 or errno. */
static int write_one(int fd)
{
	int err = write(fd, "1", 1) < 0 ? errno : 0;

	close(fd);
	return err;
}

/*
 * The opener's credentials count, not the writer's: a file opened without
 * CAP_SYS_ADMIN gives -EPERM even when the writer has it, and one opened
 * with it works even after the writer dropped it.
 */
static int eperm_child(const char *cg)
{
	int fd;

	/* Open without CAP_SYS_ADMIN, write with it. */
	if (capset_effective(false))
		return 10;
	fd = cg_open(cg, TOSS_FILE, O_WRONLY);
	if (fd < 0)
		return 11;
	if (capset_effective(true))
		return 12;
	if (write_one(fd) != EPERM)
		return 13;

	/* Open with it, write without. */
	fd = cg_open(cg, TOSS_FILE, O_WRONLY);
	if (fd < 0)
		return 14;
	if (capset_effective(false))
		return 15;
	if (write_one(fd))
		return 16;

	/* Neither: plain -EPERM. */
	fd = cg_open(cg, TOSS_FILE, O_WRONLY);
	if (fd < 0)
		return 17;
	return write_one(fd) == EPERM ? 0 : 18;
}

static int test_toss_eperm(const char *root)
{
	int ret = KSFT_FAIL;
	char *cg;

	cg = make_cpuset("job", NODE(nth_node(ANY_NODE, 0)));
	if (!cg || fill_all_nodes() || run_steps(eperm_child, cg, "permission"))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/*
 * A size is an upper bound that is never exceeded: rounded down to whole
 * pages and spread page by page over the nodes (met exactly where there
 * are small folios enough, as on ext4; never exceeded on XFS, where a
 * file is mostly in large folios).  A size that does not fit in 64 bits
 * is -ERANGE and counts no toss; the largest one that fits tosses
 * everything and says -EAGAIN (less was there).
 */
static int test_toss_exact_amount(const char *root)
{
	static const struct { const char *req; long bytes; } exact[] = {
		{ "8K", 8192 }, { "12K", 12288 }, { "5000", 4096 }, { "1M", 1048576 },
	};
	int ret = KSFT_FAIL, err, a = nth_node(ANY_NODE, 0), b = nth_node(ANY_NODE, 1);
	unsigned long mems = NODE(home_node) | NODE(a);
	long tossed, tosses;
	struct statfs sfs;
	char req[64];
	unsigned int i;
	bool xfs;
	char *cg;

	if (b >= 0)
		mems |= NODE(b);
	cg = make_cpuset("job", mems);
	if (!cg || fill_all_nodes())
		goto cleanup;
	/* With large folios (XFS), the amount may not be met: never exceeded. */
	xfs = !statfs(dir, &sfs) && sfs.f_type == XFS_MAGIC;
	for (i = 0; i < ARRAY_SIZE(exact); i++) {
		err = toss(cg, exact[i].req);
		tossed = toss_last(cg, "tossed_bytes");
		if (xfs && err == -EAGAIN && tossed < exact[i].bytes)
			continue;
		if (err || tossed != exact[i].bytes) {
			ksft_print_msg("'%s' on %d nodes: returned %d, tossed %ld, wanted %ld\n",
				       exact[i].req, __builtin_popcountl(mems), err, tossed,
				       exact[i].bytes);
			goto cleanup;
		}
	}
	tosses = cg_read_key_long(cg, STAT_FILE, "tosses ");
	err = toss(cg, "18446744073709551616");
	if (err != -ERANGE) {
		ksft_print_msg("2^64 bytes returned %d, not -ERANGE\n", err);
		goto cleanup;
	}
	if (cg_read_key_long(cg, STAT_FILE, "tosses ") != tosses) {
		ksft_print_msg("an -ERANGE write was counted as a toss\n");
		goto cleanup;
	}
	snapshot();
	snprintf(req, sizeof(req), "18446744073709551615 nodes=%d", a);
	err = toss(cg, req);
	if (err != -EAGAIN) {
		ksft_print_msg("2^64-1 bytes returned %d, not -EAGAIN\n", err);
		goto cleanup;
	}
	if (check_nodes(NODE(a)))
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/*
 * Each page is counted once per toss, however many walks see it: a toss
 * of 3 nodes that needs a second round on one of them, where 16 MiB are
 * dirty, reports those 16 MiB as kept dirty, not twice as much.
 */
static int test_toss_counted_once(const char *root)
{
	int ret = KSFT_FAIL, err, a = nth_node(ANY_NODE, 0), b = nth_node(ANY_NODE, 1);
	char path[PATH_MAX], *cg = NULL, *n0 = NULL, *n1 = NULL;
	long dirty, tossed;

	if (b < 0)
		return toss_skip("needs 3 nodes with memory");
	snprintf(path, sizeof(path), "%s/toss-dirty-once", dir);
	cg = make_cpuset("job", NODE(home_node) | NODE(a) | NODE(b));
	n0 = make_cpuset("n0", NODE(home_node));
	n1 = make_cpuset("n1", NODE(a));
	if (!cg || !n0 || !n1 || fill_all_nodes())
		goto cleanup;
	/* One node cannot give its share: the other two walk again. */
	if (toss(n0, "1") || cg_run(n1, write_dirty, path))
		goto cleanup;
	err = toss(cg, "60M");
	dirty = toss_last(cg, "kept_dirty_bytes");
	tossed = toss_last(cg, "tossed_bytes");
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

/* Resident pages of @path, and how many belong to a large folio. */
struct large_count {
	long res, large;
};

static void count_large(uint64_t pfn, uint64_t flags, bool present, void *arg)
{
	struct large_count *lc = arg;

	if (!present)
		return;
	lc->res++;
	if (flags & (1ULL << KPF_COMPOUND_HEAD | 1ULL << KPF_COMPOUND_TAIL))
		lc->large++;
}

/* Resident pages of @path that belong to a large folio, from kpageflags. */
static long large_folio_pages(const char *path, long *resident_pages)
{
	struct large_count lc = {};
	int ret;

	ret = walk_cached_pages(path, count_large, &lc);
	*resident_pages = lc.res;
	return ret ? -1 : lc.large;
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
	int ret = KSFT_FAIL, err, a = nth_node(ANY_NODE, 0);
	long large, res = 0, tossed, limit, left;
	const char *path = file[0];
	struct statfs sfs;
	unsigned int i;
	char *cg;

	if (statfs(dir, &sfs) || sfs.f_type != XFS_MAGIC)
		return toss_skip("%s is not XFS: no large folios to toss", dir);
	cg = make_cpuset("job", NODE(a));
	if (!cg || toss(cg, "1") || fill_node(a, path))
		goto cleanup;
	large = large_folio_pages(path, &res);
	ksft_print_msg("%ld of %ld resident pages in large folios\n", large, res);
	if (large < res / 2)
		goto cleanup;
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		uint64_t b;

		err = toss(cg, sizes[i]);
		tossed = toss_last(cg, "tossed_bytes");
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
	left = resident_on(path, a);
	if (left > res / 100) {
		ksft_print_msg("%ld pages left after a full toss\n", left);
		goto cleanup;
	}
	if (verify_file(path, FILE_SIZE, 'a')) {
		ksft_print_msg("the data of %s changed\n", path);
		goto cleanup;
	}
	ret = KSFT_PASS;
cleanup:
	destroy(cg);
	return ret;
}

/*
 * A partial toss drops the coldest cache first, by the LRU's own notion of
 * it: of three files on one node, A read three times, then C read once,
 * then B only read ahead, a toss of 96M drops all of C, the oldest of the
 * LRU's first tier (a folio used at most once, read or only read ahead:
 * MGLRU's first tier holds both), then half of B, and keeps A.  (Before,
 * a folio read once was a level of its own after the read-ahead ones:
 * all of B went, then half of C.)
 */
static int test_toss_coldest_first(const char *root)
{
	static const char * const names[] = { "A3", "C1", "B0" };
	int ret = KSFT_FAIL, i, node = nth_node(ANY_NODE, 1);
	char path[3][PATH_MAX], *cg = NULL, *fill = NULL;
	long want = TEMP_SIZE / page_size, left[3];

	if (node < 0)
		node = nth_node(ANY_NODE, 0);
	/* A is read 3 times, C once, B (read ahead only) not at all. */
	for (i = 0; i < 3; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/toss-temp-%s", dir,
			 names[i]);
		if (create_file(path[i], TEMP_SIZE, 'x'))
			goto cleanup;
		uncache(path[i]);
	}
	cg = make_cpuset("job", NODE(node));
	fill = make_cpuset("fill", NODE(node));
	if (!cg || !fill || toss(cg, "1"))
		goto cleanup;
	if (cg_run(fill, read_times, path[0]) || cg_run(fill, read_times, path[1]) ||
	    cg_run(fill, read_ahead, path[2]))
		goto cleanup;
	for (i = 0; i < 100 && resident_on(path[2], node) < want * 99 / 100; i++)
		usleep(50000);
	for (i = 0; i < 3; i++) {
		if (resident_on(path[i], node) < want * 99 / 100) {
			ksft_print_msg("%s: only %ld of %ld pages on node %d\n",
				       path[i], resident_on(path[i], node), want, node);
			goto cleanup;
		}
	}
	if (toss(cg, "96M"))
		goto cleanup;
	for (i = 0; i < 3; i++)
		left[i] = resident_on(path[i], node);
	ksft_print_msg("96M: A (read 3x) %ld, C (1x) %ld, B (read ahead) %ld of %ld pages left\n",
		       left[0], left[1], left[2], want);
	if (left[1] > want / 100 || left[0] < want * 99 / 100 ||
	    left[2] < want * 40 / 100 || left[2] > want * 60 / 100)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	for (i = 0; i < 3; i++)
		unlink(path[i]);
	destroy(fill);
	destroy(cg);
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
 * on two nodes, the child on a third) falls back to the parent's in
 * cpuset.mems.effective: a toss of it is -EINVAL, it has no nodes of its
 * own (-ENODEV is only for a cgroup going away), and drops nothing, not
 * the parent's nodes' cache.
 * (b) slab=1 with an amount smaller than a page per node, "8K slab=1"
 * over every node, still shrinks the slab of every node: each node has a
 * toss_node_begin with slab=1 in the trace.
 */
static int test_toss_mems_fallback(const char *root)
{
	int ret = KSFT_FAIL, bad = 0, err, n, a = nth_node(ANY_NODE, 0), c;
	char *p, *job = NULL, *all = NULL, *trace = NULL, buf[64], want[64];
	unsigned long pmems = NODE(home_node) | NODE(a);

	c = find_node(CPULESS_NODE, pmems);
	if (c < 0)
		c = find_node(ANY_NODE, pmems);
	if (c < 0)
		return toss_skip("needs 3 nodes with memory");
	p = make_cpuset("p", pmems);
	job = p ? cg_name(p, "job") : NULL;
	all = make_cpuset("all", mem_nodes);
	trace = malloc(TRACE_BUF);
	if (!job || !all || !trace || cg_write(p, "cgroup.subtree_control", "+cpuset") ||
	    cg_create(job) || set_list(job, "cpuset.mems", NODE(c)) ||
	    cg_read(job, "cpuset.mems.effective", buf, sizeof(buf)))
		goto cleanup;
	list_str(pmems, want, sizeof(want) - 1);
	strcat(want, "\n");
	if (strcmp(buf, want)) {
		ksft_print_msg("mems %d under %s: effective %s", c, want, buf);
		goto cleanup;
	}
	if (fill_all_nodes())
		goto cleanup;
	snapshot();
	err = toss(job, "1");
	ksft_print_msg("(a) toss of p/job (mems %d, effective %s): %d\n", c, want, err);
	if (err != -EINVAL || check_nodes(0))
		bad |= 1;

	if (toss_with_trace(all, "8K slab=1", trace, &err))
		goto cleanup;
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes)) {
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
 * A partial toss walks LRU lists, not the node: with 320 MiB mapped (kept),
 * 192 MiB read three times and 16 MiB only read ahead on a node, "64M"
 * takes all of the read-ahead pages and 48 MiB of the warm file (the
 * first tier first, then the rest, oldest first), with no walk of the
 * node's page frames (walks=0 in every toss_node_end of the node), in at
 * most 6 times the time of one walk of the node (a "1" that finds nothing
 * to drop).  The code before the LRU walk made a counting walk and a
 * tossing walk of the node's page frames: walks=2.  With TOSS_SANITIZERS
 * the time is printed, not checked.
 */
static int test_toss_partial_walks(const char *root)
{
	char held[PATH_MAX], warm[PATH_MAX], ahead[PATH_MAX];
	int ret = KSFT_FAIL, err, walks, ends, i, a = nth_node(ANY_NODE, 0);
	char *cg = NULL, *fill = NULL, *hold = NULL, *trace = NULL;
	long walk_us[2], us, w0, w1, a0, a1, dropped, sum, most;
	pid_t holder = 0;

	snprintf(held, sizeof(held), "%s/toss-held", dir);
	snprintf(warm, sizeof(warm), "%s/toss-warm3", dir);
	snprintf(ahead, sizeof(ahead), "%s/toss-ahead", dir);
	cg = make_cpuset("job", NODE(a));
	fill = make_cpuset("fill1", NODE(a));
	hold = make_cpuset("holder", NODE(a));
	trace = malloc(TRACE_BUF);
	if (!cg || !fill || !hold || !trace || create_sparse(held, HELD_SIZE) ||
	    create_sparse(warm, WARM_SIZE) || create_sparse(ahead, AHEAD_SIZE))
		goto cleanup;
	drop_all_caches();
	unlink("/tmp/toss-holding");
	holder = cg_run_nowait(hold, hold_mapped, held);
	if (holder < 0 || wait_holding(60))
		goto cleanup;
	if (resident_on(held, a) < HELD_SIZE / page_size * 99 / 100) {
		ksft_print_msg("only %ld pages of %s on node %d\n", resident_on(held, a), held, a);
		goto cleanup;
	}
	/* Nothing but the mapped file left; then walks that drop nothing. */
	if (toss(cg, "1"))
		goto cleanup;
	for (i = 0; i < 2; i++) {
		if (toss(cg, "1"))
			goto cleanup;
		walk_us[i] = toss_last(cg, "toss_usec");
	}
	if (cg_run(fill, read_times, warm) || cg_run(fill, read_ahead, ahead))
		goto cleanup;
	for (i = 0; i < 100 && resident_on(ahead, a) < AHEAD_SIZE / page_size * 99 / 100; i++)
		usleep(50000);
	w0 = resident_on(warm, a);
	a0 = resident_on(ahead, a);
	if (w0 < WARM_SIZE / page_size * 99 / 100 || a0 < AHEAD_SIZE / page_size * 99 / 100) {
		ksft_print_msg("on node %d: %ld pages read 3 times, %ld read ahead\n", a, w0, a0);
		goto cleanup;
	}
	if (toss_with_trace(cg, "64M", trace, &err))
		goto cleanup;
	us = toss_last(cg, "toss_usec");
	ends = trace_end_field(trace, a, " walks=", &sum, &most);
	walks = ends > 0 ? sum : ends ? -1 : -2;
	w1 = resident_on(warm, a);
	a1 = resident_on(ahead, a);
	dropped = (w0 - w1) * page_size;
	ksft_print_msg("one walk: %ld and %ld us; 64M: %d in %ld us (%.1f walks' time), walks=%d\n",
		       walk_us[0], walk_us[1], err, us, 2.0 * us / (walk_us[0] + walk_us[1]),
		       walks);
	ksft_print_msg("64M: read ahead %ld -> %ld pages, read 3x: %ld KiB dropped\n",
		       a0, a1, dropped / 1024);
	if (walks == -1)
		ksft_print_msg("a toss_node_end of node %d without walks=\n", a);
	if (err || walks != 0 ||
	    (!sanitizers && us * 2 > 6 * (walk_us[0] + walk_us[1])) ||
	    a1 > a0 / 100 || dropped > 48 * MiB || dropped < 44 * MiB)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
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

#define ONCE_SIZE	(192 * MiB)
#define HOT_SIZE	(32 * MiB)
#define LOOKED_SLACK	512

/*
 * The cost of a partial toss follows the amount when the oldest cache was
 * used once, as a finished job's input usually was: on a node with 192 MiB
 * read once, then 32 MiB read three times, "4M" drops 4 MiB of the file
 * read once, keeps the other, and its LRU walks look at no more than the
 * 1024 folios it drops and LOOKED_SLACK more (nr_looked= of the node's
 * toss_node_end events: a few memcgs' lists, 64 folios per hold).  When a
 * folio read once was a level of its own after the unreferenced ones, the
 * first walk looked at every folio of the lists, and found none.
 */
static int test_toss_partial_looked(const char *root)
{
	char once[PATH_MAX], hot[PATH_MAX];
	int ret = KSFT_FAIL, err, ends, a = nth_node(ANY_NODE, 0);
	char *cg = NULL, *fill = NULL, *trace = NULL;
	long o0, o1, h0, h1, looked, most, want = 4 * MiB / page_size;

	snprintf(once, sizeof(once), "%s/toss-once1", dir);
	snprintf(hot, sizeof(hot), "%s/toss-hot3", dir);
	cg = make_cpuset("job", NODE(a));
	fill = make_cpuset("fill", NODE(a));
	trace = malloc(TRACE_BUF);
	if (!cg || !fill || !trace || create_sparse(once, ONCE_SIZE) ||
	    create_sparse(hot, HOT_SIZE))
		goto cleanup;
	drop_all_caches();
	if (cg_run(fill, read_times, once) || cg_run(fill, read_times, hot))
		goto cleanup;
	o0 = resident_on(once, a);
	h0 = resident_on(hot, a);
	if (o0 < ONCE_SIZE / page_size * 99 / 100 || h0 < HOT_SIZE / page_size * 99 / 100) {
		ksft_print_msg("on node %d: %ld pages read once, %ld read 3 times\n", a, o0, h0);
		goto cleanup;
	}
	if (toss_with_trace(cg, "4M", trace, &err))
		goto cleanup;
	ends = trace_end_field(trace, a, " nr_looked=", &looked, &most);
	o1 = resident_on(once, a);
	h1 = resident_on(hot, a);
	ksft_print_msg("4M: %d; read once %ld -> %ld pages, read 3x %ld -> %ld\n",
		       err, o0, o1, h0, h1);
	ksft_print_msg("%ld folios looked at in %d toss_node_end of node %d\n",
		       looked, ends, a);
	if (ends <= 0) {
		ksft_print_msg("no toss_node_end of node %d with nr_looked=\n", a);
		goto cleanup;
	}
	if (err || o0 - o1 < want * 99 / 100 || h1 < h0 * 99 / 100 ||
	    looked > want + LOOKED_SLACK)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	free(trace);
	destroy(fill);
	destroy(cg);
	unlink(once);
	unlink(hot);
	return ret;
}

#define RUN_FILES	16
#define RUN_FILE_SIZE	(4 * MiB)
#define RUN_PIECE	4096

/*
 * Read the files "@arg0" to "@arg15" round robin, RUN_PIECE of each at a
 * time: readahead() of exactly that piece allocates its pages, so that the
 * files' pages lie interleaved in memory.
 */
static int read_interleaved(const char *cgroup, void *arg)
{
	char path[PATH_MAX];
	int fd[RUN_FILES], i;
	long off;

	for (i = 0; i < RUN_FILES; i++) {
		snprintf(path, sizeof(path), "%s%d", (char *)arg, i);
		fd[i] = open(path, O_RDONLY);
		if (fd[i] < 0)
			return 1;
		posix_fadvise(fd[i], 0, 0, POSIX_FADV_RANDOM);
	}
	for (off = 0; off < RUN_FILE_SIZE; off += RUN_PIECE)
		for (i = 0; i < RUN_FILES; i++)
			readahead(fd[i], off, RUN_PIECE);
	for (i = 0; i < RUN_FILES; i++)
		close(fd[i]);
	return 0;
}

/* The frames of the resident pages of RUN_FILES files, each with its file. */
struct run_frames {
	uint64_t *pfn;		/* pfn << 8 | file */
	long nr, max;
	int file;
	bool missing;
};

static void note_frame(uint64_t pfn, uint64_t flags, bool present, void *arg)
{
	struct run_frames *rf = arg;

	if (!present || rf->nr == rf->max) {
		rf->missing = true;
		return;
	}
	rf->pfn[rf->nr++] = pfn << 8 | rf->file;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * Folios of files read together, their pages interleaved in memory, still
 * leave the page cache in long runs (folios removed under one hold of a
 * file's locks): 16 files read round robin in 64 KiB pieces, tossed whole,
 * go in runs of at least 8 folios on average (nr_run_folios= over
 * nr_runs= of the node's toss_node_end events), and at least twice as long
 * as the stretches of one file in frame order (pagemap), which is what a
 * walk that ends a batch at every change of file removes at a time; and
 * every page goes.  Where the pages do not lie interleaved (those
 * stretches average 4 pages or more), the layout cannot show it: skip.
 * The code before the gather had no nr_runs=.
 */
static int test_toss_runs(const char *root)
{
	int ret = KSFT_FAIL, i, ends, err, a = nth_node(ANY_NODE, 0);
	char stem[PATH_MAX], path[PATH_MAX + 16];
	struct run_frames rf = { .max = RUN_FILES * RUN_FILE_SIZE / 4096 };
	long runs, folios, most, stretches = 0, left = 0;
	char *cg = NULL, *trace = NULL;
	double run_mean, stretch_mean;

	snprintf(stem, sizeof(stem), "%s/toss-run", dir);
	cg = make_cpuset("job", NODE(a));
	trace = malloc(TRACE_BUF);
	rf.pfn = calloc(rf.max, sizeof(*rf.pfn));
	if (!cg || !trace || !rf.pfn)
		goto cleanup;
	for (i = 0; i < RUN_FILES; i++) {
		snprintf(path, sizeof(path), "%s%d", stem, i);
		if (create_sparse(path, RUN_FILE_SIZE))
			goto cleanup;
	}
	drop_all_caches();
	if (cg_run(cg, read_interleaved, stem))
		goto cleanup;
	for (i = 0; i < RUN_FILES; i++) {
		snprintf(path, sizeof(path), "%s%d", stem, i);
		rf.file = i;
		if (walk_cached_pages(path, note_frame, &rf))
			goto cleanup;
	}
	if (rf.missing || rf.nr < rf.max * 99 / 100) {
		ksft_print_msg("%ld of %ld pages found in pagemap\n", rf.nr, rf.max);
		goto cleanup;
	}
	qsort(rf.pfn, rf.nr, sizeof(*rf.pfn), cmp_u64);
	for (i = 0; i < rf.nr; i++)
		if (!i || (rf.pfn[i] & 0xff) != (rf.pfn[i - 1] & 0xff))
			stretches++;
	stretch_mean = (double)rf.nr / stretches;
	if (toss_with_trace(cg, "1", trace, &err) || err)
		goto cleanup;
	ends = trace_end_field(trace, a, " nr_runs=", &runs, &most);
	if (ends <= 0 || trace_end_field(trace, a, " nr_run_folios=", &folios, &most) <= 0) {
		ksft_print_msg("no toss_node_end of node %d with nr_runs= and nr_run_folios=\n", a);
		goto cleanup;
	}
	for (i = 0; i < RUN_FILES; i++) {
		snprintf(path, sizeof(path), "%s%d", stem, i);
		left += resident_on(path, a);
	}
	run_mean = runs ? (double)folios / runs : 0;
	ksft_print_msg("%ld pages in %ld stretches of one file in frame order (%.1f each)\n",
		       rf.nr, stretches, stretch_mean);
	ksft_print_msg("tossed in %ld runs of %ld folios (%.1f each); %ld pages left\n",
		       runs, folios, run_mean, left);
	if (stretch_mean >= 4) {
		ret = KSFT_SKIP;
		goto cleanup;
	}
	if (left || folios < rf.nr || run_mean < 8 || run_mean < 2 * stretch_mean)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	trace_stop();
	free(trace);
	free(rf.pfn);
	destroy(cg);
	for (i = 0; i < RUN_FILES; i++) {
		snprintf(path, sizeof(path), "%s%d", stem, i);
		unlink(path);
	}
	return ret;
}

/* Write @text to @name in the v1 cgroup @cg: 0 or -errno. */
static int v1_write(const char *cg, const char *name, const char *text)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/%s", cg, name);
	return write_str(path, text);
}

/* Read @path from a task of a new v1 cpuset under @mnt on @node alone. */
static int v1_fill(const char *mnt, int node, const char *path)
{
	char sub[PATH_MAX], mems[16], me[16];
	int status = -1;
	pid_t pid;

	snprintf(sub, sizeof(sub), "%s/fill%d", mnt, node);
	snprintf(mems, sizeof(mems), "%d", node);
	mkdir(sub, 0755);
	if (v1_write(sub, "cpuset.cpus", "0") || v1_write(sub, "cpuset.mems", mems))
		goto out;
	pid = fork();
	if (!pid) {
		snprintf(me, sizeof(me), "%d", getpid());
		if (v1_write(sub, "tasks", me))
			exit(1);
		exit(read_all(NULL, (void *)path));
	}
	waitpid(pid, &status, 0);
out:
	rmdir(sub);
	return status;
}

/* The v1 cpuset hierarchy has the file too. */
static int test_toss_v1(const char *root)
{
	int ret = KSFT_FAIL, i, n, err = 0, node = nth_node(ANY_NODE, 1);
	const char *mnt = "/tmp/cpuset_v1";
	char job[PATH_MAX], mems[16], req[32];
	bool mounted = false;
	double t;

	if (node < 0)
		node = nth_node(ANY_NODE, 0);
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
		err = mounted ? 0 : errno;
		/* EBUSY while the controller is busy; EINVAL: no v1 cpuset. */
		if (err == EINVAL)
			break;
		if (!mounted)
			usleep(100000);
	}
	ksft_print_msg("v1 cpuset hierarchy %smounted after %.1f s\n",
		       mounted ? "" : "not ", now() - t);
	if (err == EINVAL) {
		ksft_print_msg("mount -t cgroup -o cpuset: EINVAL (CONFIG_CPUSETS_V1=n?)\n");
		ret = KSFT_SKIP;
		goto restore;
	}
	if (!mounted) {
		ksft_print_msg("cannot mount the v1 cpuset hierarchy: %s\n",
			       strerror(err));
		goto restore;
	}
	snprintf(job, sizeof(job), "%s/job", mnt);
	snprintf(mems, sizeof(mems), "%d", node);
	rmdir(job);
	if (mkdir(job, 0755) || v1_write(job, "cpuset.cpus", "0") ||
	    v1_write(job, "cpuset.mems", mems))
		goto cleanup;
	/* Fill each node through a v1 cpuset of its own. */
	drop_all_caches();
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		v1_fill(mnt, n, node_file[n]);
	snapshot();
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		if (before[n] < FILE_SIZE / page_size * 99 / 100)
			goto cleanup;
	/* A node that is not the cpuset's. */
	snprintf(req, sizeof(req), "1 nodes=%d", home_node);
	if (v1_write(job, TOSS_FILE, req) != -EINVAL)
		goto cleanup;
	if (v1_write(job, TOSS_FILE, "1"))
		goto cleanup;
	if (check_nodes(NODE(node)))
		goto cleanup;
	/* The statistics are there too. */
	snprintf(job + strlen(job), sizeof(job) - strlen(job), "/%s", STAT_FILE);
	if (read_key(job, "tosses") != 1 ||
	    read_key(job, "tossed_bytes") < before[node] * page_size)
		goto cleanup;
	ret = KSFT_PASS;
cleanup:
	snprintf(job, sizeof(job), "%s/job", mnt);
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
static const struct toss_test tests[] = {
	T(test_toss_one_node),
	T(test_toss_nodes_subset),
	T(test_toss_size_limit),
	T(test_toss_free_target),
	T(test_toss_dirty_survives),
	T(test_toss_writes_held),
	T(test_toss_mapped_survives),
	T(test_toss_tmpfs_survives),
	T(test_toss_cpuless_node),
	T(test_toss_root_cpuset),
	T(test_toss_mems_changed),
	T(test_toss_bad_input),
	T(test_toss_observability),
	T(test_toss_stat_format),
	T(test_toss_slab),
	T(test_toss_under_pressure),
	T(test_toss_eperm),
	T(test_toss_exact_amount),
	T(test_toss_counted_once),
	T(test_toss_large_folios),
	T(test_toss_coldest_first),
	T(test_toss_mems_fallback),
	T(test_toss_partial_walks),
	T(test_toss_partial_looked),
	T(test_toss_runs),
	T(test_toss_v1),
};

#undef T

int main(int argc, char **argv)
{
	return toss_main(argc, argv, tests, ARRAY_SIZE(tests));
}
