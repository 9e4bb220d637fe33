// SPDX-License-Identifier: GPL-2.0
/*
 * toss-bench: runs inside the bench VM (see scripts/bench.sh) and measures
 * cpuset.memory_toss_cache against the ways sites drop page cache today:
 * drop_caches, posix_fadvise(POSIX_FADV_DONTNEED) and memory.reclaim, on
 * the same data in the same boot.
 *
 *   toss-bench [-r reps] [-q] scenario...     scenarios: 1 to 13
 *
 * Every measurement is printed as one line "SAMPLE {json}"; the host side
 * (bench/report.py) turns them into the tables, latest.md, latest.json and
 * the charts.  Human-readable progress goes to stderr.
 *
 * All page cache is made by processes inside cpusets with cpuset.mems set
 * to the node it must land on, and checked with the nodes' meminfo.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#define CG	"/sys/fs/cgroup/bench"
#define DIR	"/mnt/scratch/bench"
#define MiB	(1024UL * 1024)
#define GiB	(1024UL * MiB)
#define NODES	4

static int reps = 5;
static int quick;
static const char *mglru = "on";

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "toss-bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(1);
}

static void say(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fflush(stderr);
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write @val to @path; 0 or -errno. */
static int put(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;
	int err;

	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	err = n < 0 ? -errno : 0;
	close(fd);
	return err;
}

static void putf(const char *path, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int err;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	err = put(path, buf);
	if (err)
		die("writing '%s' to %s: %s", buf, path, strerror(-err));
}

/* A field of node @n's meminfo, in bytes ("FilePages", "MemFree", ...). */
static unsigned long node_meminfo(int n, const char *key)
{
	char path[96], line[256], k[64];
	unsigned long v = 0, kb;
	int node;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", n);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Node %d %63[^:]: %lu", &node, k, &kb) == 3 &&
		    !strcmp(k, key))
			v = kb * 1024;
	fclose(f);
	return v;
}

static unsigned long node_file(int n)
{
	return node_meminfo(n, "FilePages");
}

static unsigned long node_numastat(int n, const char *key)
{
	char path[96], k[64];
	unsigned long v, r = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/numastat", n);
	f = fopen(path, "r");
	if (!f)
		die("%s: %s", path, strerror(errno));
	while (fscanf(f, "%63s %lu", k, &v) == 2)
		if (!strcmp(k, key))
			r = v;
	fclose(f);
	return r;
}

/*
 * The nodes' page cache, exactly: per-CPU vmstat deltas not yet folded into
 * the node counters would otherwise show as a few pages gained or lost.
 */
static void snap(unsigned long *file)
{
	if (put("/proc/sys/vm/stat_refresh", "1"))
		die("/proc/sys/vm/stat_refresh: %s", strerror(errno));
	for (int n = 0; n < NODES; n++)
		file[n] = node_file(n);
}

/* Bytes of page cache node @n lost between two snapshots. */
static unsigned long lost(const unsigned long *a, const unsigned long *b, int n)
{
	return a[n] > b[n] ? a[n] - b[n] : 0;
}

/* A cpuset under CG with the given cpus and mems. */
static void mkcg(const char *name, const char *cpus, const char *mems)
{
	char path[128];

	snprintf(path, sizeof(path), CG "/%s", name);
	if (mkdir(path, 0755) && errno != EEXIST)
		die("mkdir %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), CG "/%s/cpuset.cpus", name);
	putf(path, "%s", cpus);
	snprintf(path, sizeof(path), CG "/%s/cpuset.mems", name);
	putf(path, "%s", mems);
}

static void rmcg(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CG "/%s", name);
	rmdir(path);
}

static void cg_enter(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), CG "/%s/cgroup.procs", name);
	putf(path, "%d", getpid());
}

/* Write @val to the file @file of cgroup @name; 0 or -errno. */
static int cg_put(const char *name, const char *file, const char *val)
{
	char path[160];

	snprintf(path, sizeof(path), CG "/%s/%s", name, file);
	return put(path, val);
}

static void drop_all(void)
{
	sync();
	if (put("/proc/sys/vm/drop_caches", "3"))
		die("drop_caches: %s", strerror(errno));
}

static char *buf;

/*
 * Create @path with @bytes of data, written with O_DIRECT so that the data
 * goes to the disk without a copy through the page cache (much faster under
 * TCG); a file of the right size is reused.  A quick run only preallocates
 * the file: it reads as zeros, without disk I/O, into page cache that is
 * tossed like any other.
 */
static void make_file(const char *path, unsigned long bytes)
{
	unsigned long done;
	struct stat st;
	int fd;

	if (!stat(path, &st) && (unsigned long)st.st_size == bytes)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_DIRECT, 0644);
	if (fd < 0)
		die("%s: %s", path, strerror(errno));
	if (quick) {
		if (fallocate(fd, 0, 0, bytes))
			die("fallocate %s: %s", path, strerror(errno));
		close(fd);
		return;
	}
	for (done = 0; done < bytes; done += 2 * MiB) {
		memset(buf, (int)(done >> 21) | 1, 2 * MiB);
		if (write(fd, buf, 2 * MiB) != 2 * MiB)
			die("write %s: %s", path, strerror(errno));
	}
	if (fsync(fd))
		die("fsync %s: %s", path, strerror(errno));
	close(fd);
}

/*
 * Read @n files from inside cpuset @cg: their cache lands on its mems.  A
 * one-byte pread() per page waits for each page without copying it all to
 * user space, which TCG makes slow; readahead() first keeps the disk busy.
 */
static void populate(const char *cg, char **paths, int n)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		cg_enter(cg);
		for (int i = 0; i < n; i++) {
			int fd = open(paths[i], O_RDONLY);
			struct stat sb;

			if (fd < 0 || fstat(fd, &sb))
				die("%s: %s", paths[i], strerror(errno));
			readahead(fd, 0, sb.st_size);
			for (off_t o = 0; o < sb.st_size; o += 4096)
				if (pread(fd, buf, 1, o) != 1)
					die("read %s: %s", paths[i], strerror(errno));
			close(fd);
		}
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("populating from %s failed", cg);
}

/* ---- the methods ---------------------------------------------------- */

struct target {
	const char *cg;		/* cpuset (and memcg) that read the files */
	char **paths;		/* the files that hold the cache */
	int npaths;
	unsigned long bytes;	/* their size */
	const char *toss;	/* what to write to cpuset.memory_toss_cache */
	const char *reclaim_cg;	/* memcg for memory.reclaim, default cg */
};

/* Returns the seconds taken, or a negative errno. */
typedef double (*method_fn)(struct target *t, int *err);

static double m_drop_caches(struct target *t, int *err)
{
	double t0 = now();

	(void)t;
	*err = put("/proc/sys/vm/drop_caches", "1");
	return now() - t0;
}

static double m_fadvise(struct target *t, int *err)
{
	double t0 = now();

	*err = 0;
	for (int i = 0; i < t->npaths; i++) {
		int fd = open(t->paths[i], O_RDONLY);
		int rc;

		if (fd < 0) {
			*err = -errno;
			break;
		}
		/* glibc returns the error, it does not set errno */
		rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
		if (rc) {
			*err = -rc;
			break;
		}
	}
	return now() - t0;
}

static double m_reclaim(struct target *t, int *err)
{
	char val[64];
	double t0;

	snprintf(val, sizeof(val), "%lu swappiness=0", t->bytes);
	t0 = now();
	*err = cg_put(t->reclaim_cg ? t->reclaim_cg : t->cg, "memory.reclaim", val);
	return now() - t0;
}

static double m_toss(struct target *t, int *err)
{
	double t0 = now();

	*err = cg_put(t->cg, "cpuset.memory_toss_cache", t->toss ? t->toss : "1");
	return now() - t0;
}

/*
 * The kernel's own floor for freeing page cache: truncating the files to
 * nothing (truncate_inode_pages_range(), batched).  It destroys the data:
 * the files are written again before their next use.
 */
static double m_ftruncate(struct target *t, int *err)
{
	double t0 = now();

	*err = 0;
	for (int i = 0; i < t->npaths; i++) {
		int fd = open(t->paths[i], O_WRONLY);

		if (fd < 0 || ftruncate(fd, 0)) {
			*err = -errno;
			if (fd >= 0)
				close(fd);
			break;
		}
		close(fd);
	}
	return now() - t0;
}

/*
 * The cost of freeing the pages themselves, with no page cache work: a
 * process in cpuset @t->cg faults @t->bytes of anonymous memory in 4 KiB
 * pages (no THP: the page cache of ext4 has none either), then munmap()s
 * it; the munmap is timed.  Returns the seconds, with *@err set when the
 * child failed.
 */
static double m_munmap(struct target *t, int *err)
{
	int fds[2], st;
	double sec = -1;
	pid_t pid;

	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		char *p;
		double t0;

		close(fds[0]);
		cg_enter(t->cg);
		p = mmap(NULL, t->bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED || madvise(p, t->bytes, MADV_NOHUGEPAGE))
			_exit(1);
		for (unsigned long o = 0; o < t->bytes; o += 4096)
			p[o] = 1;
		t0 = now();
		if (munmap(p, t->bytes))
			_exit(1);
		sec = now() - t0;
		if (write(fds[1], &sec, sizeof(sec)) != sizeof(sec))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	if (read(fds[0], &sec, sizeof(sec)) != sizeof(sec))
		sec = -1;
	close(fds[0]);
	*err = waitpid(pid, &st, 0) == pid && WIFEXITED(st) && !WEXITSTATUS(st) &&
	       sec >= 0 ? 0 : -EIO;
	return sec < 0 ? 0 : sec;
}

/* Page cache lost by every node but @node between two snapshots. */
static unsigned long lost_elsewhere(const unsigned long *a, const unsigned long *b,
				    int node)
{
	unsigned long sum = 0;

	for (int n = 0; n < NODES; n++)
		if (n != node)
			sum += lost(a, b, n);
	return sum;
}

/* The repetition under way: samples of one repetition are paired. */
static int cur_rep;

static void sample_begin(const char *scenario, const char *method)
{
	printf("SAMPLE {\"scenario\": \"%s\", \"method\": \"%s\", \"mglru\": \"%s\""
	       ", \"rep\": %d", scenario, method, mglru, cur_rep);
}

static void sample_end(void)
{
	printf("}\n");
	fflush(stdout);
}

/* The fields of a drop whose target is node 1's cache. */
static void drop_fields(unsigned long bytes, double sec, const unsigned long *a,
			const unsigned long *b, int err)
{
	printf(", \"bytes\": %lu, \"seconds\": %.6f, \"dropped\": %lu"
	       ", \"collateral_bytes\": %lu, \"errno\": %d",
	       bytes, sec, lost(a, b, 1), lost_elsewhere(a, b, 1), -err);
}

/* The sample of a drop whose target is node 1's cache. */
static void sample_drop(const char *scenario, const char *method, unsigned long bytes,
			double sec, const unsigned long *a, const unsigned long *b, int err)
{
	sample_begin(scenario, method);
	drop_fields(bytes, sec, a, b, err);
	sample_end();
}

static void set_mglru(int on)
{
	if (put("/sys/kernel/mm/lru_gen/enabled", on ? "y" : "n"))
		die("cannot switch MGLRU %s", on ? "on" : "off");
	mglru = on ? "on" : "off";
}

static void paths_for(char **paths, const char *stem, int n)
{
	for (int i = 0; i < n; i++) {
		paths[i] = malloc(96);
		snprintf(paths[i], 96, DIR "/%s%d", stem, i);
	}
}

/* ---- 1: throughput ----------------------------------------------------- */

static void scenario1(void)
{
	static const unsigned long full[] = { 256, 512, 1024, 1536 }, fast[] = { 256, 512 };
	const unsigned long *mib = quick ? fast : full;
	unsigned int nsizes = quick ? 2 : 4;
	static const struct { const char *name; method_fn fn; const char *toss; } m[] = {
		{ "drop_caches", m_drop_caches, NULL },
		{ "fadvise", m_fadvise, NULL },
		{ "memory.reclaim", m_reclaim, NULL },
		{ "toss", m_toss, "1" },
		{ "toss_size", m_toss, NULL },	/* the size of the data */
		/* anchors: the kernel's floor, not alternatives */
		{ "ftruncate", m_ftruncate, NULL },
		{ "munmap", m_munmap, NULL },
	};
	const unsigned int nm = sizeof(m) / sizeof(m[0]);
	char *path[1];
	char size[32];

	paths_for(path, "s1-", 1);
	mkcg("s1", "0-3", "1");
	for (unsigned int s = 0; s < nsizes; s++) {
		unsigned long bytes = mib[s] * MiB;
		struct target t = { "s1", path, 1, bytes, NULL, NULL };

		drop_all();
		make_file(path[0], bytes);
		snprintf(size, sizeof(size), "%lu", bytes);
		/*
		 * Paired: every repetition fills and measures each method on
		 * the same data, forward in even repetitions and backward in
		 * odd ones, so that drift within a repetition favours no one.
		 */
		for (int r = 0; r < reps; r++) {
			cur_rep = r;
			for (unsigned int k = 0; k < nm; k++) {
				unsigned int i = r % 2 ? nm - 1 - k : k;
				bool anon = m[i].fn == m_munmap;
				unsigned long a[NODES], b[NODES];
				double sec;
				int err;

				/* ftruncate emptied it: the same data again. */
				make_file(path[0], bytes);
				drop_all();
				if (!anon)
					populate("s1", path, 1);
				snap(a);
				if (!anon && a[1] < bytes * 98 / 100)
					die("scenario 1: only %lu of %lu bytes of cache on node 1",
					    a[1], bytes);
				t.toss = m[i].toss ? m[i].toss : size;
				sec = m[i].fn(&t, &err);
				snap(b);
				if (anon) {
					/* What was freed is anonymous, not cache. */
					sample_begin("1", m[i].name);
					printf(", \"bytes\": %lu, \"seconds\": %.6f, \"dropped\": %lu"
					       ", \"collateral_bytes\": 0, \"errno\": %d",
					       bytes, sec, err ? 0 : bytes, -err);
					sample_end();
				} else {
					sample_drop("1", m[i].name, bytes, sec, a, b, err);
				}
				say("  s1 mglru=%s %4lu MiB %-15s %.3f s, dropped %lu MiB%s\n",
				    mglru, mib[s], m[i].name, sec,
				    (anon ? (err ? 0 : bytes) : lost(a, b, 1)) / MiB,
				    err ? " (error)" : "");
			}
		}
	}
	rmcg("s1");
}

/*
 * One cgroup per node, old<n>, whose tasks' page cache lands on node n, and
 * a file of @per bytes for each to read: the stale cache of earlier jobs.
 */
static void stale_cgroups(char cg[NODES][8], char **paths, unsigned long per)
{
	drop_all();
	for (int n = 0; n < NODES; n++) {
		char mems[4];

		snprintf(cg[n], sizeof(cg[n]), "old%d", n);
		snprintf(mems, sizeof(mems), "%d", n);
		mkcg(cg[n], "0-3", mems);
		make_file(paths[n], per);
	}
}

/* ---- 2: collateral damage ---------------------------------------------- */

static void scenario2(void)
{
	unsigned long per = (quick ? 128 : 256) * MiB;
	static const struct { const char *name; method_fn fn; const char *toss; } m[] = {
		{ "drop_caches", m_drop_caches, NULL },
		{ "fadvise", m_fadvise, NULL },
		{ "memory.reclaim", m_reclaim, NULL },
		{ "toss", m_toss, "1" },
		{ "toss_scope_cgroup", m_toss, "1 scope=cgroup" },
	};
	char *paths[NODES], cg[NODES][8];

	paths_for(paths, "s2-", NODES);
	stale_cgroups(cg, paths, per);
	/* The new job owns node 1; the cache there is an earlier job's (old1). */
	mkcg("job", "1", "1");
	for (int r = 0; r < reps; r++) {
		for (unsigned int i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			/* fadvise and memory.reclaim need to know old1 and its files */
			struct target t = { "job", &paths[1], 1, per, m[i].toss, "old1" };
			unsigned long a[NODES], b[NODES];
			double sec;
			int err;

			if (!strcmp(m[i].name, "toss_scope_cgroup"))
				t.cg = "old1";
			drop_all();
			for (int n = 0; n < NODES; n++)
				populate(cg[n], &paths[n], 1);
			snap(a);
			for (int n = 0; n < NODES; n++)
				if (a[n] < per * 98 / 100)
					die("scenario 2: node %d has %lu bytes of cache", n, a[n]);
			sec = m[i].fn(&t, &err);
			snap(b);
			sample_drop("2", m[i].name, per, sec, a, b, err);
			say("  s2 %-18s %.3f s, node 1 lost %lu MiB, nodes 0,2,3 lost %lu MiB\n",
			    m[i].name, sec, lost(a, b, 1) / MiB, lost_elsewhere(a, b, 1) / MiB);
		}
	}
	for (int n = 0; n < NODES; n++) {
		unlink(paths[n]);
		rmcg(cg[n]);
	}
	rmcg("job");
}

/* ---- 3: the cost of nothing -------------------------------------------- */

/*
 * Map @bytes of anonymous memory and first-touch every page of it, in
 * transparent huge pages when @thp is 1, in 4 KiB pages when it is 0, as
 * the system's THP setting says when it is -1.
 */
static char *touch_anon_thp(unsigned long bytes, int thp)
{
	char *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		die("mmap: %s", strerror(errno));
	if (thp >= 0 && madvise(mem, bytes, thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		die("madvise: %s", strerror(errno));
	for (unsigned long o = 0; o < bytes; o += 4096)
		mem[o] = 1;
	return mem;
}

static char *touch_anon(unsigned long bytes)
{
	return touch_anon_thp(bytes, -1);
}

/* Fill node 2 with anonymous memory in a child that waits to be killed. */
static pid_t hog_thp(const char *cg, unsigned long bytes, int thp)
{
	int p[2];
	pid_t pid;
	char c;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		cg_enter(cg);
		touch_anon_thp(bytes, thp);
		if (write(p[1], "x", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], &c, 1) != 1)
		die("the memory hog died");
	close(p[0]);
	return pid;
}

#define HUGETLB2 "/sys/devices/system/node/node2/hugepages/hugepages-2048kB/nr_hugepages"

/*
 * A toss of node 2 holding no page cache: empty, or 85% full of anonymous
 * memory in 4 KiB pages, of transparent huge pages, or of 2 MiB hugetlb
 * pages.  The walk should cost in proportion to what it must look at: one
 * look per free block, per huge page, not one per pfn.
 */
static void scenario3(void)
{
	static const char *const name[] = {
		"toss_empty_node", "toss_node_full_of_anon", "toss_node_full_of_thp",
		"toss_node_full_of_hugetlb",
	};
	unsigned long total = node_meminfo(2, "MemTotal");
	pid_t pid;

	mkcg("s3", "2", "2");
	for (int c = 0; c < 4; c++) {
		unsigned long huge = 0;

		drop_all();
		pid = 0;
		if (c == 1 || c == 2)
			pid = hog_thp("s3", node_meminfo(2, "MemFree") * 85 / 100, c == 2);
		if (c == 3) {
			char n[32];

			snprintf(n, sizeof(n), "%lu", node_meminfo(2, "MemFree") * 85 / 100 / (2 * MiB));
			if (put(HUGETLB2, n)) {
				say("  s3 no hugetlb pages (%s): skipped\n", strerror(errno));
				continue;
			}
			/* node_meminfo() takes every value for kB */
			huge = node_meminfo(2, "HugePages_Total") / 1024;
		}
		for (int r = 0; r < reps * 2; r++) {
			unsigned long a[NODES], b[NODES];
			struct target t = { "s3", NULL, 0, 0, "1", NULL };
			double sec;
			int err;

			snap(a);
			sec = m_toss(&t, &err);
			snap(b);
			sample_begin("3", name[c]);
			printf(", \"bytes\": %lu, \"seconds\": %.6f, \"dropped\": %lu"
			       ", \"collateral_bytes\": %lu, \"errno\": %d"
			       ", \"node_file_bytes\": %lu, \"node_anon_bytes\": %lu"
			       ", \"node_thp_bytes\": %lu, \"node_hugetlb_pages\": %lu",
			       total, sec, lost(a, b, 2),
			       lost_elsewhere(a, b, 2), -err,
			       a[2], node_meminfo(2, "AnonPages"),
			       node_meminfo(2, "AnonHugePages"), huge);
			sample_end();
			say("  s3 %-25s node 2 (%lu MiB, %lu MiB cache, %lu MiB anon, %lu MiB THP, %lu hugetlb): %.6f s\n",
			    name[c], total / MiB, a[2] / MiB, node_meminfo(2, "AnonPages") / MiB,
			    node_meminfo(2, "AnonHugePages") / MiB, huge, sec);
		}
		if (pid) {
			kill(pid, SIGKILL);
			waitpid(pid, NULL, 0);
		}
		if (c == 3)
			putf(HUGETLB2, "0");
	}
	rmcg("s3");
}

/* ---- 4: parallelism ---------------------------------------------------- */

static void scenario4(void)
{
	unsigned long per = (quick ? 256 : 512) * MiB;
	static const struct { const char *cg, *mems, *name; } c[] = {
		{ "one", "1", "toss_1_node" },
		{ "two", "1-2", "toss_2_nodes" },
		{ "three", "0-2", "toss_3_nodes" },
		{ "three", "0-2", "toss_3_nodes_one_by_one" },
	};
	char *paths[3], cg[3][8];

	paths_for(paths, "s4-", 3);
	drop_all();
	for (int n = 0; n < 3; n++) {
		char mems[4];

		snprintf(cg[n], sizeof(cg[n]), "fill%d", n);
		snprintf(mems, sizeof(mems), "%d", n);
		mkcg(cg[n], mems, mems);
		make_file(paths[n], per);
	}
	for (int i = 0; i < 3; i++)
		mkcg(c[i].cg, "0-3", c[i].mems);
	for (int r = 0; r < reps; r++) {
		cur_rep = r;
		for (int k = 0; k < 4; k++) {
			/* The pair compared (3 at once, 3 one by one) alternates. */
			int i = k < 2 || r % 2 == 0 ? k : 5 - k;
			struct target t = { c[i].cg, NULL, 0, 0, "1", NULL };
			unsigned long a[NODES], b[NODES], d = 0;
			double sec = 0;
			int err = 0;

			drop_all();
			for (int n = 0; n < 3; n++)
				populate(cg[n], &paths[n], 1);
			snap(a);
			if (i < 3) {
				sec = m_toss(&t, &err);
			} else {
				static const char * const one[] = {
					"1 nodes=0", "1 nodes=1", "1 nodes=2",
				};

				for (int n = 0; n < 3 && !err; n++) {
					t.toss = one[n];
					sec += m_toss(&t, &err);
				}
			}
			snap(b);
			for (int n = 0; n < NODES; n++)
				d += lost(a, b, n);
			sample_begin("4", c[i].name);
			printf(", \"bytes\": %lu, \"seconds\": %.6f, \"dropped\": %lu"
			       ", \"errno\": %d, \"nodes\": %d",
			       per, sec, d, -err, i + 1);
			sample_end();
			say("  s4 %-13s %.3f s, dropped %lu MiB\n", c[i].name, sec, d / MiB);
		}
	}
	for (int n = 0; n < 3; n++) {
		unlink(paths[n]);
		rmcg(cg[n]);
	}
	for (int i = 0; i < 3; i++)
		rmcg(c[i].cg);
}

/* ---- the toss's trace ------------------------------------------------ */

#define TRACE	"/sys/kernel/tracing"

/* What node 1's toss_node_end events since the trace was cleared add up to. */
struct node_end {
	unsigned long events, scanned, tossed, runs, run_folios, looked;
	double ns;			/* the workers' duration_ns, summed */
};

static unsigned long field(const char *line, const char *key)
{
	const char *p = strstr(line, key);

	if (!p)
		die("toss_node_end without%s: %s", key, line);
	return strtoul(p + strlen(key), NULL, 10);
}

static void trace_node_end(struct node_end *e)
{
	FILE *f = fopen(TRACE "/trace", "r");
	char line[1024];

	memset(e, 0, sizeof(*e));
	if (!f)
		die(TRACE "/trace: %s", strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		const char *p = strstr(line, "toss_node_end:");

		if (!p || !strstr(p, " nid=1 "))
			continue;
		e->events++;
		e->scanned += field(p, " nr_scanned=");
		e->tossed += field(p, " nr_tossed=");
		e->runs += field(p, " nr_runs=");
		e->run_folios += field(p, " nr_run_folios=");
		e->looked += field(p, " nr_looked=");
		e->ns += field(p, " duration_ns=");
	}
	fclose(f);
}

static void trace_clear(void)
{
	int fd = open(TRACE "/trace", O_WRONLY | O_TRUNC);

	if (fd < 0)
		die(TRACE "/trace: %s", strerror(errno));
	close(fd);
}

/* ---- 8 and 13: tossing part of a node ---------------------------------- */

struct amount {
	const char *name, *toss;	/* toss NULL: "1 free=" @mib above MemFree */
	unsigned long mib;
};

/*
 * Node 1 with @bytes of clean cache, a quarter of it read three times (two
 * levels of coldness): tosses of each of @m, each paired in the same
 * repetition with a whole toss ("1", one walk that drops everything),
 * drop_caches of the same data (if @drop), and a whole toss of the node
 * once it is empty (a walk of its page frames that finds nothing), in an
 * order that turns round every repetition.  A partial toss's sample has the
 * folios its LRU walks looked at (nr_looked= of node 1's toss_node_end
 * events).
 */
static void partial_tosses(const char *scen, unsigned long bytes,
			   const struct amount *m, int nm, int drop)
{
	enum { PARTIAL, WHOLE, DROP_CACHES, EMPTY_WALK };
	static const char *const kind[] = {
		"partial", "whole", "drop_caches", "empty_walk",
	};
	/* The methods of a repetition, in the order that turns round. */
	static const int with_drop[] = { PARTIAL, WHOLE, DROP_CACHES, EMPTY_WALK };
	static const int without[] = { PARTIAL, WHOLE, EMPTY_WALK };
	const int *order = drop ? with_drop : without;
	int np = drop ? (int)(sizeof(with_drop) / sizeof(with_drop[0])) :
			(int)(sizeof(without) / sizeof(without[0]));
	unsigned long node = node_meminfo(1, "MemTotal");
	char *paths[2], req[64], cg[8];

	snprintf(cg, sizeof(cg), "s%s", scen);
	paths_for(paths, cg, 2);
	mkcg(cg, "0-3", "1");
	drop_all();
	make_file(paths[0], bytes / 4 * 3);
	make_file(paths[1], bytes / 4);
	put(TRACE "/events/toss_cache/toss_node_end/enable", "1");
	for (int r = 0; r < reps; r++) {
		cur_rep = r;
		for (int j = 0; j < nm; j++) {
			unsigned long amount = (quick && m[j].mib > 128 ? m[j].mib / 4 : m[j].mib) * MiB;

			for (int k = 0; k < np; k++) {
				int i = order[(k + r) % np];
				struct target t = { cg, paths, 2, amount, NULL, NULL };
				unsigned long a[NODES], b[NODES];
				struct node_end e = { 0 };
				char name[32];
				double sec;
				int err;

				drop_all();
				populate(cg, paths, 2);
				populate(cg, paths + 1, 1);
				populate(cg, paths + 1, 1);
				snap(a);
				if (a[1] < bytes * 95 / 100)
					die("scenario %s: only %lu of %lu bytes of cache on node 1",
					    scen, a[1], bytes);
				if (i == PARTIAL) {
					t.toss = m[j].toss;
					if (!t.toss) {
						snprintf(req, sizeof(req), "1 free=%lu",
							 node_meminfo(1, "MemFree") + amount);
						t.toss = req;
					}
					trace_clear();
					sec = m_toss(&t, &err);
					trace_node_end(&e);
				} else if (i == WHOLE) {
					t.toss = "1";
					sec = m_toss(&t, &err);
				} else if (i == DROP_CACHES) {
					sec = m_drop_caches(&t, &err);
				} else {
					/* A walk of the node that finds nothing. */
					t.toss = "1";
					m_toss(&t, &err);
					snap(a);
					sec = m_toss(&t, &err);
				}
				snap(b);
				snprintf(name, sizeof(name), "%s_%s", m[j].name, kind[i]);
				sample_begin(scen, name);
				drop_fields(amount, sec, a, b, err);
				printf(", \"node_bytes\": %lu", node);
				if (i == PARTIAL)
					printf(", \"looked\": %lu", e.looked);
				sample_end();
				say("  s%s %-20s %.3f s, dropped %lu MiB", scen, name, sec,
				    lost(a, b, 1) / MiB);
				if (i == PARTIAL)
					say(", %lu folios looked at", e.looked);
				say("%s\n", err ? " (error)" : "");
			}
		}
	}
	put(TRACE "/events/toss_cache/toss_node_end/enable", "0");
	unlink(paths[0]);
	unlink(paths[1]);
	rmcg(cg);
}

/*
 * 8: node 1 (2 GiB) full of clean cache: tosses of 16M, 64M and 512M, and a
 * free= target 512 MiB above what the node has free.
 */
static void scenario8(void)
{
	static const struct amount m[] = {
		{ "16M", "16M", 16 }, { "64M", "64M", 64 }, { "512M", "512M", 512 },
		{ "free", NULL, 512 },
	};

	partial_tosses("8", (quick ? 512 : 1536) * MiB, m, 4, 1);
}

/*
 * 13: the same cache on a node 1 of hundreds of GiB (bench.sh boots one for
 * it), where a walk of the node's page frames costs what it would on the
 * machines this is for: 16M, 64M, and a free= target 64 MiB above what the
 * node has free.  The cache does not fill the node: the host has not the
 * memory.  An LRU walk from the oldest end does not depend on that; the
 * walk of the empty node is the walk of all its page frames.
 */
static void scenario13(void)
{
	static const struct amount m[] = {
		{ "16M", "16M", 16 }, { "64M", "64M", 64 }, { "free", NULL, 64 },
	};
	unsigned long total = node_meminfo(1, "MemTotal");

	if (total < 64 * GiB)
		die("scenario 13: node 1 has %lu MiB; it needs a node of 64 GiB or more "
		    "(scripts/bench.sh boots one)", total / MiB);
	say("  s13 node 1 has %lu GiB\n", total / GiB);
	partial_tosses("13", (quick ? 512 : 1536) * MiB, m, 3, 0);
}

/* ---- 9: memory.reclaim clean_cache=1, and the cost of protection ------- */

/*
 * A job's cgroup s9 (cpuset.mems 1) with @bytes of clean cache on node 1,
 * and a tenant s9p with 64 MiB of its own there.  In every repetition, on
 * the same data, in an order that turns round: the toss ("1"); the toss
 * while the tenant has memory.min=64M (so that the walk looks up each
 * folio's memcg, and the tenant's folios are left to its LRU pass);
 * memory.reclaim with clean_cache=1 of s9's data size; plain
 * memory.reclaim of the same size (swappiness=0); drop_caches.
 */
static void scenario9(void)
{
	unsigned long bytes = (quick ? 256 : 1024) * MiB, tenant = 64 * MiB;
	static const char * const m[] = {
		"toss", "toss_protected", "reclaim_clean_cache", "memory.reclaim", "drop_caches",
	};
	const int nm = sizeof(m) / sizeof(m[0]);
	char *paths[1], *tpaths[1], val[64];

	paths_for(paths, "s9-", 1);
	paths_for(tpaths, "s9p-", 1);
	mkcg("s9", "0-3", "1");
	mkcg("s9p", "0-3", "1");
	drop_all();
	make_file(paths[0], bytes);
	make_file(tpaths[0], tenant);
	for (int r = 0; r < reps; r++) {
		cur_rep = r;
		for (int k = 0; k < nm; k++) {
			int i = (k + r) % nm;
			struct target t = { "s9", paths, 1, bytes, "1", NULL };
			unsigned long a[NODES], b[NODES];
			double sec, t0;
			int err;

			drop_all();
			populate("s9p", tpaths, 1);
			populate("s9", paths, 1);
			snap(a);
			if (a[1] < (bytes + tenant) * 98 / 100)
				die("scenario 9: only %lu of %lu bytes of cache on node 1",
				    a[1], bytes + tenant);
			/* Protection reaches s9p only through its parent's. */
			if (put(CG "/memory.min", i == 1 ? "64M" : "0") ||
			    cg_put("s9p", "memory.min", i == 1 ? "64M" : "0"))
				die("scenario 9: cannot set memory.min");
			switch (i) {
			case 0:
			case 1:
				sec = m_toss(&t, &err);
				break;
			case 2:
				snprintf(val, sizeof(val), "%lu clean_cache=1", bytes);
				t0 = now();
				err = cg_put("s9", "memory.reclaim", val);
				sec = now() - t0;
				break;
			case 3:
				sec = m_reclaim(&t, &err);
				break;
			default:
				sec = m_drop_caches(&t, &err);
				break;
			}
			snap(b);
			cg_put("s9p", "memory.min", "0");
			put(CG "/memory.min", "0");
			sample_drop("9", m[i], bytes, sec, a, b, err);
			say("  s9 %-20s %.3f s, dropped %lu MiB%s\n", m[i], sec,
			    lost(a, b, 1) / MiB, err ? " (error)" : "");
		}
	}
	unlink(paths[0]);
	unlink(tpaths[0]);
	rmcg("s9");
	rmcg("s9p");
}

/* ---- 5: the job's view ------------------------------------------------- */

/*
 * The job: a thread on CPU 1 (node 1) first-touches @bytes of anonymous
 * memory under the job's cpuset @cg, and reports through a pipe how many of
 * its pages landed on node 1 and how many it has.
 */
static void run_job(const char *cg, unsigned long bytes, unsigned long *on1,
		    unsigned long *pages)
{
	unsigned long res[2];
	int p[2], st;
	pid_t pid;

	if (pipe(p))
		die("pipe: %s", strerror(errno));
	pid = fork();
	if (!pid) {
		unsigned long n = bytes / 4096, hit = 0;
		int chunk = 4096, *status;
		void **addr;
		cpu_set_t set;
		char *mem;

		cg_enter(cg);
		CPU_ZERO(&set);
		CPU_SET(1, &set);
		if (sched_setaffinity(0, sizeof(set), &set))
			die("sched_setaffinity: %s", strerror(errno));
		mem = touch_anon(bytes);
		addr = malloc(chunk * sizeof(*addr));
		status = malloc(chunk * sizeof(*status));
		for (unsigned long i = 0; i < n; i += chunk) {
			int c = n - i < (unsigned long)chunk ? (int)(n - i) : chunk;

			for (int j = 0; j < c; j++)
				addr[j] = mem + (i + j) * 4096;
			/* move_pages(2) with no target nodes: where is each page? */
			if (syscall(SYS_move_pages, 0, c, addr, NULL, status, 0))
				die("move_pages: %s", strerror(errno));
			for (int j = 0; j < c; j++)
				hit += status[j] == 1;
		}
		res[0] = hit;
		res[1] = n;
		if (write(p[1], res, sizeof(res)) != sizeof(res))
			_exit(1);
		_exit(0);
	}
	close(p[1]);
	if (read(p[0], res, sizeof(res)) != sizeof(res))
		die("the job died");
	close(p[0]);
	waitpid(pid, &st, 0);
	*on1 = res[0];
	*pages = res[1];
}

static unsigned long stale_bytes;

static void scenario5(void)
{
	unsigned long total = node_meminfo(1, "MemTotal");
	/* A job that needs most of the node (half of it in a quick run). */
	unsigned long job = total * (quick ? 50 : 75) / 100 / MiB * MiB;
	unsigned long other = (quick ? 128 : 256) * MiB;
	unsigned long stale, want = job + 32 * MiB;
	char *stale_path[1], *other_paths[3], free_arg[64], cg[3][8];
	static const int others[3] = { 0, 2, 3 };
	double t0;
	/*
	 * Besides the toss and drop_caches, the two ways to locality without
	 * dropping anything first (CG-REVIEW-4 section 3.6): "strict_mems",
	 * the job in a cpuset of node 1 alone, where its allocations reclaim
	 * node 1's cache as they go (kswapd and direct reclaim); and
	 * "zone_reclaim", the job in nodes 0-2 with vm.zone_reclaim_mode=1,
	 * where node_reclaim() frees clean unmapped cache of the local node
	 * before an allocation spills.  For those two, what node 1 lost is
	 * measured after the job, and their cost is the job's own time.
	 */
	static const struct {
		const char *name; method_fn fn; int toss; const char *cg;
		int zone_reclaim;
	} m[] = {
		{ "none", NULL, 0, "job5", 0 },
		{ "drop_caches", m_drop_caches, 0, "job5", 0 },
		{ "toss", m_toss, 1, "job5", 0 },
		{ "toss_free", m_toss, 2, "job5", 0 },
		{ "strict_mems", NULL, 0, "job5s", 0 },
		{ "zone_reclaim", NULL, 0, "job5", 1 },
	};

	paths_for(stale_path, "s5-stale", 1);
	paths_for(other_paths, "s5-other", 3);
	drop_all();
	/*
	 * An earlier job filled node 1 with cache: all but 64 MiB of its free
	 * memory.  Measured once, so that the MGLRU-off pass reuses the file.
	 */
	if (!stale_bytes) {
		stale_bytes = node_meminfo(1, "MemFree") - 64 * MiB;
		stale_bytes = stale_bytes / (64 * MiB) * (64 * MiB);
	}
	stale = stale_bytes;
	mkcg("old5", "0-3", "1");
	t0 = now();
	make_file(stale_path[0], stale);
	for (int i = 0; i < 3; i++) {
		char mems[4];

		snprintf(cg[i], sizeof(cg[i]), "oth%d", others[i]);
		snprintf(mems, sizeof(mems), "%d", others[i]);
		mkcg(cg[i], "0-3", mems);
		make_file(other_paths[i], other);
	}
	say("  s5 files written in %.0f s\n", now() - t0);
	mkcg("job5", "0-3", "0-2");
	mkcg("job5s", "0-3", "1");
	snprintf(free_arg, sizeof(free_arg), "1 free=%lu", want);
	for (int r = 0; r < (reps + 1) / 2; r++) {
		cur_rep = r;
		for (unsigned int i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
			struct target t = { "job5", NULL, 0, 0, NULL, NULL };
			unsigned long a[NODES], b[NODES], hit0, miss0 = 0, hit1, miss1 = 0;
			unsigned long on1, pages, free1;
			double sec = 0, t1, t2;
			int err = 0;

			t.toss = m[i].toss == 2 ? free_arg : "1";
			t0 = now();
			drop_all();
			populate("old5", stale_path, 1);
			for (int k = 0; k < 3; k++)
				populate(cg[k], &other_paths[k], 1);
			snap(a);
			free1 = node_meminfo(1, "MemFree");
			if (m[i].fn)
				sec = m[i].fn(&t, &err);
			snap(b);
			hit0 = node_numastat(1, "numa_hit");
			for (int k = 0; k < 3; k++)
				miss0 += node_numastat(others[k], "numa_miss");
			if (m[i].zone_reclaim)
				putf("/proc/sys/vm/zone_reclaim_mode", "1");
			t1 = now();
			run_job(m[i].cg, job, &on1, &pages);
			t2 = now();
			if (m[i].zone_reclaim)
				putf("/proc/sys/vm/zone_reclaim_mode", "0");
			hit1 = node_numastat(1, "numa_hit");
			for (int k = 0; k < 3; k++)
				miss1 += node_numastat(others[k], "numa_miss");
			/* Reclaim at allocation time: what the job's run dropped. */
			if (!m[i].fn && strcmp(m[i].name, "none"))
				snap(b);
			sample_begin("5", m[i].name);
			printf(", \"bytes\": %lu, \"seconds\": %.6f, \"errno\": %d"
			       ", \"locality_pct\": %.3f, \"numa_hit\": %lu, \"numa_miss\": %lu"
			       ", \"node1_dropped\": %lu, \"collateral_bytes\": %lu"
			       ", \"others_before\": %lu, \"needed\": %lu, \"free_arg\": %lu"
			       ", \"job_seconds\": %.6f",
			       job, sec, -err, 100.0 * on1 / pages, hit1 - hit0,
			       miss1 - miss0, lost(a, b, 1), lost_elsewhere(a, b, 1),
			       a[0] + a[2] + a[3], want > free1 ? want - free1 : 0,
			       m[i].toss == 2 ? want : 0, t2 - t1);
			sample_end();
			say("  s5 mglru=%s %-12s %.3f s: job %lu MiB, %.2f%% on node 1; node 1 lost %lu MiB of cache, others lost %lu MiB (set-up %.0f s, job %.0f s)\n",
			    mglru, m[i].name, sec, job / MiB, 100.0 * on1 / pages,
			    lost(a, b, 1) / MiB, lost_elsewhere(a, b, 1) / MiB,
			    t1 - t0 - sec, t2 - t1);
		}
	}
	rmcg("old5");
	for (int i = 0; i < 3; i++)
		rmcg(cg[i]);
	rmcg("job5");
	rmcg("job5s");
}

/* ---- 6: what a user waits for ----------------------------------------- */

/*
 * Every node holds stale cache (1.5 GiB each), and a job's cpuset owns node
 * 1: how long until node 1's memory is free, by our toss, by drop_caches
 * (which drops every node's) and by fadvise of node 1's files (for who
 * knows them).  And a toss of scope=cgroup in a cgroup whose own cache on
 * node 1 is 1 MiB, among the other tenants' 1.5 GiB: it should cost in
 * proportion to its 1 MiB, not to the node.  Paired as scenario 1.
 */
static void scenario6(void)
{
	unsigned long per = (quick ? 256 : 1536) * MiB;
	static const struct { const char *name; method_fn fn; const char *cg, *toss; } m[] = {
		{ "drop_caches", m_drop_caches, "job", NULL },
		{ "fadvise", m_fadvise, "job", NULL },
		{ "toss", m_toss, "job", "1" },
		{ "toss_scope_cgroup_1M", m_toss, "tiny", "1 scope=cgroup" },
	};
	const unsigned int nm = sizeof(m) / sizeof(m[0]);
	char *paths[NODES + 1], cg[NODES][8];

	paths_for(paths, "s6-", NODES + 1);
	stale_cgroups(cg, paths, per);
	make_file(paths[NODES], 1 * MiB);
	mkcg("job", "1", "1");
	mkcg("tiny", "1", "1");
	for (int r = 0; r < reps; r++) {
		cur_rep = r;
		for (unsigned int k = 0; k < nm; k++) {
			unsigned int i = r % 2 ? nm - 1 - k : k;
			struct target t = { m[i].cg, &paths[1], 1, per, m[i].toss, NULL };
			unsigned long a[NODES], b[NODES], others = 0, kept = 0, d = 0;
			double sec;
			int err;

			drop_all();
			for (int n = 0; n < NODES; n++)
				populate(cg[n], &paths[n], 1);
			populate("tiny", &paths[NODES], 1);
			snap(a);
			sec = m[i].fn(&t, &err);
			snap(b);
			for (int n = 0; n < NODES; n++) {
				d += lost(a, b, n);
				if (n != 1) {
					others += a[n];
					kept += a[n] - lost(a, b, n);
				}
			}
			sample_begin("6", m[i].name);
			printf(", \"bytes\": %lu, \"seconds\": %.6f, \"dropped\": %lu"
			       ", \"node1_dropped\": %lu, \"all_dropped\": %lu"
			       ", \"node1_free\": %lu, \"others_before\": %lu"
			       ", \"others_kept\": %lu, \"errno\": %d",
			       per, sec, lost(a, b, 1), lost(a, b, 1), d,
			       node_meminfo(1, "MemFree"), others, kept, -err);
			sample_end();
			say("  s6 %-20s %.3f s, node 1 dropped %lu MiB, all nodes %lu MiB%s\n",
			    m[i].name, sec, lost(a, b, 1) / MiB, d / MiB, err ? " (error)" : "");
		}
	}
	for (int n = 0; n < NODES; n++)
		rmcg(cg[n]);
	rmcg("job");
	rmcg("tiny");
}

/* ---- 7: a node's CPUs working together --------------------------------- */

/*
 * Node 1 has two vCPUs (CPUs 1 and 3): one whole toss of its cache with one
 * worker and with two, each walking every other stripe of the node, on
 * the same data in every repetition, in alternating order.  A whole toss
 * gets one worker per CPU of the cpuset on the node: the cpuset has CPU 1,
 * then CPUs 1 and 3.  The data is one file, whose page cache has one
 * i_pages lock that both workers take, and then 48 files of 32 MiB each.
 */
static void scenario7(void)
{
	unsigned long bytes = (quick ? 512 : 1536) * MiB;
	static const struct { const char *name, *cpus; } m[2][2] = {
		{ { "toss_1_worker", "1" }, { "toss_2_workers", "1,3" } },
		{ { "toss_1_worker_48_files", "1" }, { "toss_2_workers_48_files", "1,3" } },
	};
	char *one[1], *many[48];

	paths_for(one, "s7-", 1);
	paths_for(many, "s7-f", 48);
	mkcg("s7", "0-3", "1");
	for (int layout = 0; layout < 2; layout++) {
		char **paths = layout ? many : one;
		int n = layout ? 48 : 1;
		struct target t = { "s7", paths, n, bytes, "1", NULL };

		drop_all();
		for (int f = 0; f < n; f++)
			make_file(paths[f], bytes / n);
		for (int r = 0; r < reps; r++) {
			cur_rep = r;
			for (int k = 0; k < 2; k++) {
				int i = r % 2 ? 1 - k : k;
				unsigned long a[NODES], b[NODES];
				double sec;
				int err;

				drop_all();
				populate("s7", paths, n);
				snap(a);
				if (a[1] < bytes * 98 / 100)
					die("scenario 7: only %lu of %lu bytes of cache on node 1",
					    a[1], bytes);
				putf(CG "/s7/cpuset.cpus", "%s", m[layout][i].cpus);
				sec = m_toss(&t, &err);
				putf(CG "/s7/cpuset.cpus", "0-3");
				snap(b);
				sample_drop("7", m[layout][i].name, bytes, sec, a, b, err);
				say("  s7 %-24s %.3f s, dropped %lu MiB%s\n", m[layout][i].name,
				    sec, lost(a, b, 1) / MiB, err ? " (error)" : "");
			}
		}
	}
	rmcg("s7");
}

/* ---- 10: interleaved files ------------------------------------------ */

/*
 * Read @n files from inside cpuset @cg round robin, @piece bytes of each
 * at a time: readahead() of exactly that piece allocates its pages, so
 * that the files' pages lie interleaved in the node's memory as they do
 * after jobs that read their files together.  Then every page is read,
 * to wait for the I/O.
 */
static void populate_interleaved(const char *cg, char **paths, int n,
				 unsigned long bytes, unsigned long piece)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		int fd[64];

		cg_enter(cg);
		for (int i = 0; i < n; i++) {
			fd[i] = open(paths[i], O_RDONLY);
			if (fd[i] < 0)
				die("%s: %s", paths[i], strerror(errno));
			posix_fadvise(fd[i], 0, 0, POSIX_FADV_RANDOM);
		}
		for (off_t o = 0; o < (off_t)bytes; o += piece)
			for (int i = 0; i < n; i++)
				readahead(fd[i], o, piece);
		for (int i = 0; i < n; i++) {
			for (off_t o = 0; o < (off_t)bytes; o += 4096)
				if (pread(fd[i], buf, 1, o) != 1)
					die("read %s: %s", paths[i], strerror(errno));
			close(fd[i]);
		}
		_exit(0);
	}
	if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
		die("populating from %s failed", cg);
}

/*
 * Batches on any layout: 16 files read round robin a page at a time, and
 * one file of the same size read whole.  (Read in 64 KiB pieces, each
 * piece's pages come out adjacent in this VM's fresh memory; a page at a
 * time lays the files out as a long-running machine's fragmented free
 * memory does: no two pages of a file adjacent.)  The files are
 * preallocated, not written: unwritten extents read as zeros without
 * disk I/O, into page cache like any other.  On each layout, in every
 * repetition, the toss and drop_caches on the same data (order turning
 * round); the toss's sample has the runs it removed (nr_runs= of its
 * toss_node_end events) and the folios in them.  Three pairs per
 * repetition: a pair takes a few seconds, and five pairs ranged 0.76x to
 * 1.12x.
 */
static void scenario10(void)
{
	unsigned long bytes = (quick ? 256 : 1024) * MiB;
	static const char *const layout_name[2] = { "whole", "interleaved" };
	char *one[1], *many[16];

	paths_for(one, "s10-", 1);
	paths_for(many, "s10-f", 16);
	mkcg("s10", "1", "1");
	put(TRACE "/events/toss_cache/toss_node_end/enable", "1");
	for (int layout = 0; layout < 2; layout++) {
		char **paths = layout ? many : one;
		int n = layout ? 16 : 1;
		struct target t = { "s10", paths, n, bytes, "1", NULL };

		drop_all();
		for (int f = 0; f < n; f++) {
			int fd = open(paths[f], O_WRONLY | O_CREAT | O_TRUNC, 0644);

			if (fd < 0 || fallocate(fd, 0, 0, bytes / n))
				die("%s: %s", paths[f], strerror(errno));
			close(fd);
		}
		for (int r = 0; r < 3 * reps; r++) {
			cur_rep = r;
			for (int k = 0; k < 2; k++) {
				int toss = r % 2 ? 1 - k : k;
				struct node_end e = { 0 };	/* drop_caches: none */
				unsigned long a[NODES], b[NODES];
				char name[48];
				double sec;
				int err;

				drop_all();
				if (layout)
					populate_interleaved("s10", paths, n, bytes / n, 4096);
				else
					populate("s10", paths, n);
				snap(a);
				if (a[1] < bytes * 98 / 100)
					die("scenario 10: only %lu of %lu bytes of cache on node 1",
					    a[1], bytes);
				if (toss) {
					trace_clear();
					sec = m_toss(&t, &err);
					trace_node_end(&e);
				} else {
					sec = m_drop_caches(&t, &err);
				}
				snap(b);
				snprintf(name, sizeof(name), "%s_%s", toss ? "toss" : "drop_caches",
					 layout_name[layout]);
				sample_begin("10", name);
				printf(", \"bytes\": %lu, \"seconds\": %.6f, \"dropped\": %lu"
				       ", \"collateral_bytes\": %lu, \"errno\": %d"
				       ", \"runs\": %lu, \"run_folios\": %lu",
				       bytes, sec, lost(a, b, 1), toss ? lost_elsewhere(a, b, 1) : 0,
				       -err, e.runs, e.run_folios);
				sample_end();
				say("  s10 %-24s %.3f s, dropped %lu MiB, runs %lu of %lu folios%s\n",
				    name, sec, lost(a, b, 1) / MiB, e.runs, e.run_folios, err ? " (error)" : "");
			}
		}
	}
	put(TRACE "/events/toss_cache/toss_node_end/enable", "0");
	rmcg("s10");
}

/* ---- 11: 1, 2 and 4 workers, and their locks (make lock-stat) ---------- */

/* One lock class of /proc/lock_stat; times in microseconds. */
struct lock_class {
	char name[64];
	double contentions, wait_us, acquisitions, hold_us;
};

/*
 * Print the classes of /proc/lock_stat that waited longest, at most @most,
 * and those of the locks a toss takes (a file's i_pages and i_lock, the
 * LRU lock, the zone lock, cpuset's callback_lock), as "LOCKSTAT <what> ..."
 * lines.  A class line is its name, a colon and
 * twelve figures: con-bounces, contentions, waittime min, max, total, avg,
 * acq-bounces, acquisitions, holdtime min, max, total, avg.
 */
static int by_wait(const void *a, const void *b)
{
	const struct lock_class *x = a, *y = b;

	return x->wait_us < y->wait_us ? 1 : x->wait_us > y->wait_us ? -1 : 0;
}

static void lock_stat_print(const char *what, double sec, int most)
{
	static struct lock_class c[8192];
	FILE *f = fopen("/proc/lock_stat", "r");
	char line[1024];
	int n = 0;

	if (!f)
		die("/proc/lock_stat: %s", strerror(errno));
	while (n < 8192 && fgets(line, sizeof(line), f)) {
		char *colon = strstr(line, ": "), *name = line;
		double v[12];

		if (!colon)
			continue;
		*colon = 0;
		if (sscanf(colon + 1, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf",
			   &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8],
			   &v[9], &v[10], &v[11]) != 12)
			continue;
		while (*name == ' ')
			name++;
		snprintf(c[n].name, sizeof(c[n].name), "%.63s", name);
		c[n].contentions = v[1];
		c[n].wait_us = v[4];
		c[n].acquisitions = v[7];
		c[n].hold_us = v[10];
		n++;
	}
	fclose(f);
	qsort(c, n, sizeof(*c), by_wait);
	for (int i = 0; i < n; i++)
		if (i < most || strstr(c[i].name, "xa_lock") || strstr(c[i].name, "lru_lock") ||
		    strstr(c[i].name, "zone->lock") || strstr(c[i].name, "i_lock") ||
		    strstr(c[i].name, "callback_lock"))
			printf("LOCKSTAT %s seconds=%.3f class=%s contentions=%.0f wait_us=%.1f"
			       " acquisitions=%.0f hold_us=%.1f\n", what, sec, c[i].name,
			       c[i].contentions, c[i].wait_us, c[i].acquisitions, c[i].hold_us);
}

/*
 * With 1, 2 and 4 workers (those the node's CPUs allow) on node 1, one file
 * and 48 files of 1 GiB in all: a whole toss each, timed.  On a kernel with
 * CONFIG_LOCK_STAT, lock statistics gathered during the toss only, and the
 * classes that waited longest printed.
 */
static void scenario11(void)
{
	unsigned long bytes = (quick ? 256 : 1024) * MiB;
	static const char *const cpus[3] = { "1", "1,3", "1,3-5" };
	char *one[1], *many[48], list[64] = "";
	int nr_cpus = 0, lock_stat = !access("/proc/lock_stat", R_OK);
	FILE *f;

	f = fopen("/sys/devices/system/node/node1/cpulist", "r");
	if (!f || !fgets(list, sizeof(list), f))
		die("node 1's CPUs: %s", strerror(errno));
	fclose(f);
	nr_cpus = !strncmp(list, "1,3-5", 5) ? 4 : !strncmp(list, "1,3", 3) ? 2 : 1;
	paths_for(one, "s11-", 1);
	paths_for(many, "s11-f", 48);
	mkcg("s11", "0-3", "1");
	for (int layout = 0; layout < 2; layout++) {
		char **paths = layout ? many : one;
		int n = layout ? 48 : 1;
		struct target t = { "s11", paths, n, bytes, "1", NULL };

		drop_all();
		for (int i = 0; i < n; i++)
			make_file(paths[i], bytes / n);
		for (int r = 0; r < reps; r++) {
			for (int w = 0; w < 3 && (1 << w) <= nr_cpus; w++) {
				unsigned long a[NODES], b[NODES];
				char what[64], method[64];
				double sec;
				int err;

				cur_rep = r;
				drop_all();
				populate("s11", paths, n);
				putf(CG "/s11/cpuset.cpus", "%s", cpus[w]);
				if (lock_stat) {
					put("/proc/lock_stat", "0");
					put("/proc/sys/kernel/lock_stat", "1");
				}
				snap(a);
				sec = m_toss(&t, &err);
				snap(b);
				if (lock_stat)
					put("/proc/sys/kernel/lock_stat", "0");
				putf(CG "/s11/cpuset.cpus", "0-3");
				snprintf(what, sizeof(what), "workers=%d files=%d rep=%d", 1 << w, n, r);
				if (lock_stat)
					lock_stat_print(what, sec, 8);
				snprintf(method, sizeof(method), "toss_%d_workers%s", 1 << w,
					 layout ? "_48_files" : "");
				sample_drop("11", method, bytes, sec, a, b, err);
				say("  s11 %-32s %.3f s%s\n", what, sec, err ? " (error)" : "");
			}
		}
	}
	rmcg("s11");
}

/* ---- 12: per-folio costs, from the trace --------------------------------- */

/*
 * The cost of each folio a toss handles, from the toss_node_end events of
 * node 1 (the time each worker spent from its toss_node_begin to its end,
 * and what it counted), one worker (cpuset.cpus 1), MGLRU on: a whole toss
 * of one 1 GiB file and of 48 files (ns per folio dropped, the walk of the
 * rest of the node included); a whole toss of the node when nothing is
 * left (ns per page frame walked); 64M of the one file (ns per folio the
 * LRU walk looked at, dropping included).  bench/results/projection.md
 * projects a 1 TiB node from them.
 */
static void scenario12(void)
{
	unsigned long bytes = (quick ? 256 : 1024) * MiB;
	unsigned long frames = node_meminfo(1, "MemTotal") / 4096;
	char *one[1], *many[48];
	static const struct { const char *name, *toss; int files; } m[] = {
		{ "whole_1_file", "1", 1 }, { "whole_48_files", "1", 48 },
		{ "empty_walk", "1", 0 }, { "64M_1_file", "64M", 1 },
	};

	paths_for(one, "s12-", 1);
	paths_for(many, "s12-f", 48);
	mkcg("s12", "1", "1");
	drop_all();
	make_file(one[0], bytes);
	for (int i = 0; i < 48; i++)
		make_file(many[i], bytes / 48);
	put(TRACE "/events/toss_cache/toss_node_end/enable", "1");
	for (int r = 0; r < reps; r++) {
		cur_rep = r;
		for (unsigned int j = 0; j < sizeof(m) / sizeof(m[0]); j++) {
			struct target t = { "s12", m[j].files == 48 ? many : one,
					    m[j].files == 48 ? 48 : 1, bytes, m[j].toss, NULL };
			unsigned long a[NODES], b[NODES], n;
			struct node_end e;
			const char *per;
			double sec;
			int err;

			drop_all();
			if (m[j].files)
				populate("s12", t.paths, t.npaths);
			snap(a);
			if (m[j].files && a[1] < bytes * 95 / 100)
				die("scenario 12: only %lu of %lu bytes of cache on node 1",
				    a[1], bytes);
			trace_clear();
			sec = m_toss(&t, &err);
			snap(b);
			trace_node_end(&e);
			n = !m[j].files ? frames : m[j].toss[0] == '1' ? e.tossed : e.looked;
			per = !m[j].files ? "frame" : m[j].toss[0] == '1' ? "folio tossed" :
			      "folio looked at";
			sample_begin("12", m[j].name);
			printf(", \"bytes\": %lu, \"seconds\": %.6f, \"dropped\": %lu"
			       ", \"collateral_bytes\": %lu, \"errno\": %d, \"events\": %lu"
			       ", \"trace_ns\": %.0f, \"scanned\": %lu, \"tossed\": %lu"
			       ", \"frames\": %lu, \"runs\": %lu, \"run_folios\": %lu"
			       ", \"looked\": %lu, \"ns_per\": %.1f",
			       m[j].files ? bytes : 0, sec, lost(a, b, 1),
			       lost_elsewhere(a, b, 1), -err, e.events, e.ns, e.scanned,
			       e.tossed, frames, e.runs, e.run_folios, e.looked, n ? e.ns / n : 0);
			sample_end();
			say("  s12 %-16s %.3f s; trace: %lu events, %.3f s, %lu scanned, %lu looked at, %lu tossed: %.1f ns per %s%s\n",
			    m[j].name, sec, e.events, e.ns / 1e9, e.scanned, e.looked, e.tossed,
			    n ? e.ns / n : 0, per, err ? " (error)" : "");
		}
	}
	put(TRACE "/events/toss_cache/toss_node_end/enable", "0");
	unlink(one[0]);
	for (int i = 0; i < 48; i++)
		unlink(many[i]);
	rmcg("s12");
}

int main(int argc, char **argv)
{
	int o;

	while ((o = getopt(argc, argv, "r:q")) != -1) {
		switch (o) {
		case 'r':
			reps = atoi(optarg);
			break;
		case 'q':
			quick = 1;
			break;
		default:
			die("usage: toss-bench [-r reps] [-q] scenario...");
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (posix_memalign((void **)&buf, 4096, 2 * MiB))
		die("out of memory");
	mkdir(DIR, 0755);
	if (mkdir(CG, 0755) && errno != EEXIST)
		die("mkdir " CG ": %s", strerror(errno));
	putf(CG "/cgroup.subtree_control", "+cpuset +memory");
	putf(CG "/cpuset.cpus", "0-3");
	putf(CG "/cpuset.mems", "0-3");
	for (; optind < argc; optind++) {
		const char *s = argv[optind];
		double t0 = now();

		say("== scenario %s\n", s);
		if (!strcmp(s, "1") || !strcmp(s, "5")) {
			for (int on = 1; on >= 0; on--) {
				set_mglru(on);
				if (!strcmp(s, "1"))
					scenario1();
				else
					scenario5();
			}
			set_mglru(1);
		} else if (!strcmp(s, "2")) {
			scenario2();
		} else if (!strcmp(s, "3")) {
			scenario3();
		} else if (!strcmp(s, "4")) {
			scenario4();
		} else if (!strcmp(s, "6")) {
			scenario6();
		} else if (!strcmp(s, "7")) {
			scenario7();
		} else if (!strcmp(s, "8")) {
			scenario8();
		} else if (!strcmp(s, "9")) {
			scenario9();
		} else if (!strcmp(s, "10")) {
			scenario10();
		} else if (!strcmp(s, "11")) {
			scenario11();
		} else if (!strcmp(s, "12")) {
			scenario12();
		} else if (!strcmp(s, "13")) {
			scenario13();
		} else {
			die("unknown scenario %s", s);
		}
		/* The files are kept across the MGLRU settings, not longer. */
		if (system("rm -f " DIR "/*"))
			die("cannot remove the files of scenario %s", s);
		say("== scenario %s took %.0f s\n", s, now() - t0);
	}
	return 0;
}
