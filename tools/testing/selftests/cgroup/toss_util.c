// SPDX-License-Identifier: GPL-2.0
/*
 * Helpers of the cpuset.memory_toss_cache tests.
 *
 * Page cache is placed on a chosen node by reading a file from a task in a
 * cpuset with cpuset.mems=<node>.  Where each file's cached pages sit is
 * measured exactly: mincore(2) says which pages are resident, and
 * move_pages(2) with a NULL node list says on which node each one is (the
 * resident pages are mapped for the query with MADV_RANDOM, so that the
 * query itself reads nothing in).
 *
 * The tests need root, cgroup v2 with the cpuset and memory controllers,
 * two memory nodes or more (each test finds the ones it needs, or skips),
 * and a writable disk-backed file system at $TOSS_DIR (default
 * /mnt/scratch).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../kselftest.h"
#include "cgroup_util.h"
#include "toss_util.h"

char *parent;
const char *dir;
bool sanitizers;
long page_size;
unsigned long mem_nodes;
int nr_nodes;
int home_node;
int toss_node;
long sink;
char file[MAX_NODES][PATH_MAX];
int nr_files;
char *node_file[MAX_NODES];
char big_file[PATH_MAX];
long before[MAX_NODES];

static char skip_reason[256];

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Write @s to @path: 0 or -errno. */
int write_str(const char *path, const char *s)
{
	ssize_t len = strlen(s), ret = write_text(path, (char *)s, len);

	return ret == len ? 0 : ret < 0 ? ret : -EIO;
}

/* STAT_FILE of the cgroups toss() wrote to, as it was before the write. */
static struct {
	char cg[PATH_MAX];
	char stat[2048];
} toss_before[8];
static int toss_next;

/* Write @req to @cg's toss file: 0 or -errno. */
int toss(const char *cg, const char *req)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(toss_before); i++)
		if (!strcmp(toss_before[i].cg, cg))
			break;
	if (i == ARRAY_SIZE(toss_before)) {
		i = toss_next++ % ARRAY_SIZE(toss_before);
		snprintf(toss_before[i].cg, sizeof(toss_before[i].cg), "%s", cg);
	}
	if (cg_read(cg, STAT_FILE, toss_before[i].stat, sizeof(toss_before[i].stat)))
		toss_before[i].stat[0] = '\0';
	return cg_write(cg, TOSS_FILE, (char *)req);
}

/*
 * How much the counter @key of @cg's STAT_FILE grew during this process's
 * last toss() of @cg (and any toss of @cg at the same time), or -1.
 */
long toss_last(const char *cg, const char *key)
{
	char k[64], *p;
	long now;
	int i;

	snprintf(k, sizeof(k), "%s ", key);
	for (i = 0; i < ARRAY_SIZE(toss_before); i++)
		if (!strcmp(toss_before[i].cg, cg))
			break;
	if (i == ARRAY_SIZE(toss_before))
		return -1;
	now = cg_read_key_long(cg, STAT_FILE, k);
	p = strstr(toss_before[i].stat, k);
	if (now < 0 || !p)
		return -1;
	return now - atol(p + strlen(k));
}

/* Say why the test skips, and return KSFT_SKIP. */
int toss_skip(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(skip_reason, sizeof(skip_reason), fmt, ap);
	va_end(ap);
	return KSFT_SKIP;
}

int first_node(unsigned long nodes)
{
	return nodes ? __builtin_ctzl(nodes) : -1;
}

/* The node after @node in @nodes, or -1. */
int next_node(int node, unsigned long nodes)
{
	nodes &= node + 1 < MAX_NODES ? ~0UL << (node + 1) : 0;
	return first_node(nodes);
}

/* The CPUs of a list like "2" or "1-2,4" as a bit mask. */
unsigned long list_mask(const char *list)
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

/* The CPUs of @node. */
unsigned long node_cpus(int node)
{
	char path[PATH_MAX], buf[256];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist", node);
	if (read_text(path, buf, sizeof(buf)) < 0)
		return 0;
	return list_mask(buf);
}

int first_cpu(unsigned long cpus)
{
	return first_node(cpus);
}

/*
 * The lowest node with memory of @kind, not in @not; -1 if there is none.
 * The tests take the nodes they toss from with find_node(.., home_node's
 * bit): away from the node of CPU 0, where the tests themselves run.
 */
int find_node(enum node_kind kind, unsigned long not)
{
	int n;

	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes)) {
		if (not & NODE(n))
			continue;
		if (kind == CPU_NODE && !node_cpus(n))
			continue;
		if (kind == CPULESS_NODE && node_cpus(n))
			continue;
		return n;
	}
	return -1;
}

/*
 * The @nth (from 0) node with memory of @kind other than home_node: the
 * nodes a test tosses, away from the one where the tests run; -1 if there
 * are not so many.
 */
int nth_node(enum node_kind kind, int nth)
{
	unsigned long not = NODE(home_node);
	int n;

	for (;;) {
		n = find_node(kind, not);
		if (n < 0 || !nth--)
			return n;
		not |= NODE(n);
	}
}

/* @mask as a list, "0-2,5". */
char *list_str(unsigned long mask, char *buf, size_t size)
{
	size_t len = 0;
	int a, b;

	*buf = 0;
	for (a = 0; a < 64 && len < size; a++) {
		if (!(mask & (1UL << a)))
			continue;
		for (b = a; b + 1 < 64 && (mask & (1UL << (b + 1))); b++)
			;
		len += snprintf(buf + len, size - len, b > a ? "%s%d-%d" : "%s%d",
				len ? "," : "", a, b);
		a = b;
	}
	return buf;
}

/* Write @mask as a list to @cg's @control (cpuset.mems, cpuset.cpus). */
int set_list(const char *cg, const char *control, unsigned long mask)
{
	char buf[256];

	return cg_write(cg, control, list_str(mask, buf, sizeof(buf)));
}

/* A cpuset child of our parent, on CPU 0, with the nodes of @mems. */
char *make_cpuset(const char *name, unsigned long mems)
{
	char *cg = cg_name(parent, name);

	if (!cg)
		return NULL;
	cg_destroy(cg);
	if (cg_create(cg) || cg_write(cg, "cpuset.cpus", "0") ||
	    set_list(cg, "cpuset.mems", mems)) {
		cg_destroy(cg);
		free(cg);
		return NULL;
	}
	return cg;
}

/* Remove @cg (killing what is left in it) and free its name. */
void destroy(char *cg)
{
	if (!cg)
		return;
	cg_destroy(cg);
	free(cg);
}

/* Kill and reap a child, if any: a zombie would pin its cgroup's csses. */
void reap(pid_t pid)
{
	if (pid > 0) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
}

/*
 * Run @fn(@cg) in a child process, whose credentials it may change; it
 * returns 0 or the number of the step that failed.
 */
int run_steps(int (*fn)(const char *cg), const char *cg, const char *what)
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

/* Keep the flusher away while pages must stay dirty; flusher_back() undoes it. */
void flusher_away(struct flusher *f)
{
	*f->expire = *f->wb = 0;
	read_text("/proc/sys/vm/dirty_expire_centisecs", f->expire, sizeof(f->expire));
	read_text("/proc/sys/vm/dirty_writeback_centisecs", f->wb, sizeof(f->wb));
	write_str("/proc/sys/vm/dirty_expire_centisecs", "360000");
	write_str("/proc/sys/vm/dirty_writeback_centisecs", "0");
}

void flusher_back(const struct flusher *f)
{
	if (*f->expire)
		write_str("/proc/sys/vm/dirty_expire_centisecs", f->expire);
	if (*f->wb)
		write_str("/proc/sys/vm/dirty_writeback_centisecs", f->wb);
}

/* Write DIRTY_SIZE to @arg's file and leave it dirty. */
int write_dirty(const char *cgroup, void *arg)
{
	char *buf = malloc(MiB);
	int fd, i;

	if (!buf)
		return 1;
	memset(buf, 0x5a, MiB);
	fd = open(arg, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return 1;
	for (i = 0; i < DIRTY_SIZE / MiB; i++)
		if (write(fd, buf, MiB) != MiB)
			return 1;
	close(fd);
	free(buf);
	return 0;
}

/* Become the unprivileged delegatee (TEST_UID, no groups). */
int become_delegatee(void)
{
	if (setgroups(0, NULL) || setresgid(TEST_UID, TEST_UID, TEST_UID) ||
	    setresuid(TEST_UID, TEST_UID, TEST_UID))
		return -1;
	return 0;
}

/* Give @cg, its cgroup.procs and its toss file to @uid. */
int chown_cgroup(const char *cg, uid_t uid)
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

/* A child that writes @req to @cg's toss file and exits with -errno. */
pid_t toss_in_child(const char *cg, const char *req)
{
	pid_t pid = fork();

	if (!pid)
		exit(-toss(cg, req));
	return pid;
}

/* The state letter of task @pid in /proc (R, S, D, ...), 0 if unknown. */
char task_state(pid_t pid)
{
	char path[64], buf[256], *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' ? p[2] : 0;
}

/* Whether child @pid has ended (it is left to reap). */
bool ended(pid_t pid)
{
	siginfo_t info = { 0 };

	return !waitid(P_PID, pid, &info, WEXITED | WNOHANG | WNOWAIT) && info.si_pid == pid;
}

/*
 * Wait until the toss of child @pid has taken about @pages off node @nid,
 * whose FilePages were @kb kB before it began: then the toss is under way,
 * whatever the kernel's speed, and most of it is still to come.  0 then; 1
 * if @pid ended first; -1 if that much did not go within 60 s (either
 * said).
 */
int wait_walking(pid_t pid, int nid, long kb, long pages)
{
	double end = now() + 60;

	while (now() < end) {
		if (ended(pid)) {
			ksft_print_msg("the toss ended before it was seen under way\n");
			return 1;
		}
		if (node_meminfo_kb(nid, "FilePages:") <= kb - pages * (page_size / 1024))
			return 0;
		usleep(1000);
	}
	ksft_print_msg("node %d lost under %ld pages in 60 s\n", nid, pages);
	return -1;
}

/*
 * Whether task @pid sleeps in write(2) in state S: its /proc syscall file
 * names write (it has begun a toss), and it waits interruptibly, as a toss
 * waits for a node's turn (not in D on a mutex on the way there).
 */
bool in_write(pid_t pid)
{
	char path[64], buf[64];

	snprintf(path, sizeof(path), "/proc/%d/syscall", pid);
	return task_state(pid) == 'S' && read_text(path, buf, sizeof(buf)) > 0 &&
	       isdigit(buf[0]) && atoi(buf) == SYS_write;
}

/* Wait until in_write(@pid); false if @pid ended first or 60 s went by. */
bool wait_in_write(pid_t pid)
{
	double end = now() + 60;

	while (now() < end && !ended(pid)) {
		if (in_write(pid))
			return true;
		usleep(1000);
	}
	return false;
}

void drop_all_caches(void)
{
	sync();
	write_str("/proc/sys/vm/drop_caches", "1");
}

int read_all(const char *cgroup, void *arg)
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
int fill_node(int node, const char *path)
{
	char *cg;
	int ret;

	cg = make_cpuset("fill", NODE(node));
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
int map_cached(const char *path, char **map, long *npages, unsigned char **vec)
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
long resident(const char *path, long count[MAX_NODES])
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
long resident_on(const char *path, int node)
{
	long count[MAX_NODES];

	if (resident(path, count) < 0)
		return -1;
	return count[node];
}

/* Resident pages of all the test files on @node. */
long resident_all_on(int node)
{
	long sum = 0;
	int i;

	for (i = 0; i < nr_files; i++)
		sum += resident_on(file[i], node);
	return sum;
}

/* Fill every node's file onto its node; 0 when each is >= 99% there. */
int fill_all_nodes(void)
{
	int n;

	drop_all_caches();
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes)) {
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

/* Fill the big file (made on first use) onto @node alone. */
int fill_big_file(int node)
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

/*
 * Record each node's file residency before a toss; check_nodes() then checks
 * that on nodes in @gone at most 1% is left and elsewhere at least 99% is.
 */
void snapshot(void)
{
	int n;

	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		before[n] = resident_on(node_file[n], n);
}

int check_nodes(unsigned long gone)
{
	int n, ret = 0;

	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes)) {
		long after = resident_on(node_file[n], n);

		if (gone & NODE(n)) {
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

int create_file(const char *path, long size, char pattern)
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

/* Make @path a sparse file of @size bytes: reading it caches zeroed pages, without I/O. */
int create_sparse(const char *path, long size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	int ret;

	if (fd < 0)
		return -1;
	ret = ftruncate(fd, size);
	close(fd);
	return ret;
}

/* 0 when every byte of @path is @pattern. */
int verify_file(const char *path, long size, char pattern)
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

/* Drop @path's clean pages from the page cache, wherever they are. */
void uncache(const char *path)
{
	int fd = open(path, O_RDONLY);

	if (fd >= 0) {
		posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
		close(fd);
	}
}

/* Map the FILE_SIZE file @arg, touch every page, wait to be killed. */
int map_and_wait(const char *cgroup, void *arg)
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

/* Map @arg's file and hold every page of it mapped until killed. */
int hold_mapped(const char *cgroup, void *arg)
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

/* Wait up to @secs for hold_mapped() to say that it holds its file mapped. */
int wait_holding(double secs)
{
	double end = now() + secs;

	while (access("/tmp/toss-holding", F_OK)) {
		if (now() > end)
			return -1;
		usleep(100000);
	}
	return 0;
}

/* The value of "@key N" in the file at @path; -1 if there is none. */
long read_key(const char *path, const char *key)
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

/*
 * Create @count empty files @dirname/@prefix<i>, i from 0: their dentries
 * and inodes are slab objects of the caller's node and memory cgroup.
 */
int touch_files(const char *dirname, const char *prefix, int count)
{
	char path[PATH_MAX];
	int i, fd;

	for (i = 0; i < count; i++) {
		snprintf(path, sizeof(path), "%s/%s%d", dirname, prefix, i);
		fd = open(path, O_CREAT | O_WRONLY, 0644);
		if (fd < 0)
			return -1;
		close(fd);
	}
	return 0;
}

/*
 * Fold every CPU's pending vmstat deltas into the counters that
 * node_vmstat() reads (root only: it runs work on every CPU, so tests of
 * where toss work runs must not call it).  Without it a node's counter
 * may lag by up to the per-CPU threshold on each CPU.
 */
void vmstat_fold(void)
{
	write_str("/proc/sys/vm/stat_refresh", "1");
}

long node_vmstat(int node, const char *key)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/vmstat", node);
	return read_key(path, key);
}

long node_meminfo_kb(int node, const char *key)
{
	char path[PATH_MAX], buf[4096], *p;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/meminfo", node);
	if (read_text(path, buf, sizeof(buf)) <= 0)
		return -1;
	p = strstr(buf, key);
	return p ? atol(p + strlen(key)) : -1;
}

/* Bytes tossed from @node by @cg, from NUMA_STAT_FILE's "tossed N0=..." line. */
long stat_tossed_on(const char *cg, int node)
{
	char buf[4096], key[32], *p;

	if (cg_read(cg, NUMA_STAT_FILE, buf, sizeof(buf)))
		return -1;
	snprintf(key, sizeof(key), " N%d=", node);
	p = strncmp(buf, "tossed ", 7) ? NULL : buf;
	p = p ? strstr(p, key) : NULL;
	return p ? atol(p + strlen(key)) : -1;
}

/* Empty the trace: only an open with O_TRUNC does, a plain write does not. */
int trace_clear(const char *tr)
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

/* Enable the toss_cache events on an empty trace (mount tracefs if need be). */
int trace_start(void)
{
	if (access(TRACING "/events", F_OK))
		mount("tracefs", TRACING, "tracefs", 0, NULL);
	if (trace_clear(TRACING))
		return -1;
	return write_str(TRACING "/events/toss_cache/enable", "1");
}

void trace_stop(void)
{
	write_str(TRACING "/events/toss_cache/enable", "0");
}

/* Read the whole trace into @buf; its length or -1. */
long trace_read(char *buf, size_t size)
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
 * toss() of @req in @cg with the toss_cache events on: its result in
 * *@err and the trace in @trace (TRACE_BUF bytes).  Returns 0, or -1 when
 * the trace could not be set up or read.
 */
int toss_with_trace(const char *cg, const char *req, char *trace, int *err)
{
	if (trace_start())
		return -1;
	*err = toss(cg, req);
	trace_stop();
	return trace_read(trace, TRACE_BUF) < 0 ? -1 : 0;
}

/*
 * The values of @field (" walks=", say) in node @nid's toss_node_end events
 * in @trace: their sum into *@sum and their largest into *@most.  Returns
 * how many events there are, or -1 if one has no @field.
 */
int trace_end_field(const char *trace, int nid, const char *field,
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

/* The nodes with memory, from sysfs; the node of CPU 0. */
static int find_nodes(void)
{
	char buf[4096];
	int n;

	if (read_text("/sys/devices/system/node/has_memory", buf, sizeof(buf)) <= 0)
		return -1;
	mem_nodes = list_mask(buf);
	nr_nodes = __builtin_popcountl(mem_nodes);
	home_node = first_node(mem_nodes);
	for (n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		if (node_cpus(n) & 1) {
			home_node = n;
			break;
		}
	return 0;
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

/*
 * Set up, run the selected ones of @tests, clean up.  "PROG NAME..." runs
 * only the tests whose names contain one of the NAMEs, "PROG -NAME..." all
 * but those.
 */
int toss_main(int argc, char **argv, const struct toss_test *tests, int nr)
{
	char root[PATH_MAX], path[PATH_MAX + 32], nodes[64];
	int i, n, plan = 0;

	for (i = 0; i < nr; i++)
		if (selected(argc, argv, tests[i].name))
			plan++;
	ksft_print_header();
	ksft_set_plan(plan);
	page_size = sysconf(_SC_PAGESIZE);
	dir = getenv("TOSS_DIR") ?: "/mnt/scratch";
	sanitizers = !!getenv("TOSS_SANITIZERS");
	if (sanitizers)
		ksft_print_msg("TOSS_SANITIZERS: %s\n",
			       "bounds on time and late frees printed, not checked");

	if (geteuid())
		ksft_exit_skip("needs root\n");
	if (cg_find_unified_root(root, sizeof(root), NULL))
		ksft_exit_skip("cgroup v2 isn't mounted\n");
	if (cg_read_strstr(root, "cgroup.subtree_control", "cpuset"))
		if (cg_write(root, "cgroup.subtree_control", "+cpuset"))
			ksft_exit_skip("failed to enable the cpuset controller\n");
	snprintf(path, sizeof(path), "%s/%s", root, TOSS_FILE);
	if (access(path, F_OK))
		ksft_exit_skip("this kernel has no %s\n", TOSS_FILE);
	if (find_nodes() || nr_nodes < 2)
		ksft_exit_skip("needs 2 nodes with memory, found %d\n", nr_nodes);
	toss_node = nth_node(ANY_NODE, 0);
	ksft_print_msg("nodes with memory: %s; CPU 0 on node %d; tossed most: node %d\n",
		       list_str(mem_nodes, nodes, sizeof(nodes)), home_node, toss_node);

	parent = cg_name(root, "toss_test");
	cg_destroy(parent);
	/* (Without the memory controller: cgroup_disable=memory.) */
	if (cg_create(parent) ||
	    (cg_write(parent, "cgroup.subtree_control", "+cpuset +memory") &&
	     (!cg_read_strstr(root, "cgroup.controllers", "memory") ||
	      cg_write(parent, "cgroup.subtree_control", "+cpuset"))))
		ksft_exit_fail_msg("cannot create %s\n", parent);
	nr_files = nr_nodes > NR_FILES ? nr_nodes : NR_FILES;
	for (i = 0; i < nr_files; i++) {
		snprintf(file[i], sizeof(file[i]), "%s/toss-file%d", dir, i);
		if (create_file(file[i], FILE_SIZE, 'a' + i))
			ksft_exit_fail_msg("cannot create %s: %s\n", file[i], strerror(errno));
	}
	for (i = 0, n = first_node(mem_nodes); n >= 0; n = next_node(n, mem_nodes))
		node_file[n] = file[i++];

	for (i = 0; i < nr; i++) {
		double t = now();
		int ret;

		if (!selected(argc, argv, tests[i].name))
			continue;
		*skip_reason = 0;
		ret = tests[i].fn(root);

		ksft_print_msg("%s took %.1f s\n", tests[i].name, now() - t);
		switch (ret) {
		case KSFT_PASS:
			ksft_test_result_pass("%s\n", tests[i].name);
			break;
		case KSFT_SKIP:
			ksft_test_result_skip("%s (%s)\n", tests[i].name,
					      *skip_reason ? skip_reason : "skipped");
			break;
		default:
			ksft_test_result_fail("%s\n", tests[i].name);
			break;
		}
	}

	for (i = 0; i < nr_files; i++)
		unlink(file[i]);
	if (*big_file)
		unlink(big_file);
	cg_destroy(parent);
	ksft_finished();
	return KSFT_PASS;
}
