// SPDX-License-Identifier: GPL-2.0
/*
 * toss-write: one write(2) of a request to a cpuset.memory_toss_cache file,
 * for the soak (vm/soak).  Prints the errno's name ("0" for success) and
 * exits 0 on success, 1 on a failed write, 2 on a failure to set up.
 *
 *   toss-write [-f | -n N] <file> <request>
 *   toss-write [-f | -n N] mkdir <dir>
 *
 * With -f, the write, and nothing else, runs with /proc/self/make-it-fail
 * set: the file is opened first and make-it-fail is cleared through a
 * descriptor opened before it was set, so that the fault injection of a
 * task-filter'ed failslab and fail_page_alloc hits only the allocations of
 * the toss itself (and of the write's way to it), never the open or the
 * cleanup.
 *
 * With -n N, the Nth fault injection site the write passes in this thread
 * fails (/proc/thread-self/fail-nth, whatever the probability and
 * task-filter); the errno is followed by "injected" if the write got that
 * far, "not-injected" if it made fewer calls.
 *
 * "mkdir <dir>" makes a directory instead (a cgroup: the same fault
 * injection on the creation of a cpuset, whose toss statistics are
 * allocated with it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fail = 0, fd = -1, mif = -1, err = 0, nth = 0, left = 0, mk;
	char buf[32];
	const char *name;
	ssize_t n;

	if (argc > 1 && !strcmp(argv[1], "-f")) {
		fail = 1;
		argv++;
		argc--;
	} else if (argc > 2 && !strcmp(argv[1], "-n")) {
		nth = atoi(argv[2]) ?: -1;
		argv += 2;
		argc -= 2;
	}
	if (argc != 3 || nth < 0) {
		fprintf(stderr, "usage: toss-write [-f | -n N] (<file> <request> | mkdir <dir>)\n");
		return 2;
	}
	mk = !strcmp(argv[1], "mkdir");
	if (!mk)
		fd = open(argv[1], O_WRONLY);
	if (!mk && fd < 0) {
		printf("open-%s\n", strerrorname_np(errno) ?: "?");
		return 2;
	}
	if (fail) {
		mif = open("/proc/self/make-it-fail", O_WRONLY);
		if (mif < 0 || pwrite(mif, "1", 1, 0) != 1) {
			printf("make-it-fail-%s\n", strerrorname_np(errno) ?: "?");
			return 2;
		}
	}
	if (nth) {
		mif = open("/proc/thread-self/fail-nth", O_RDWR);
		snprintf(buf, sizeof(buf), "%d", nth);
		if (mif < 0 || pwrite(mif, buf, strlen(buf), 0) != (ssize_t)strlen(buf)) {
			printf("fail-nth-%s\n", strerrorname_np(errno) ?: "?");
			return 2;
		}
	}
	if (mk)
		n = mkdir(argv[2], 0755) ? -1 : (ssize_t)strlen(argv[2]);
	else
		n = write(fd, argv[2], strlen(argv[2]));
	if (n < 0)
		err = errno;
	if (nth) {
		/* What is left of the count: 0 once the Nth call failed. */
		ssize_t r = pread(mif, buf, sizeof(buf) - 1, 0);

		buf[r > 0 ? r : 0] = 0;
		left = atoi(buf);
		if (r <= 0 || pwrite(mif, "0", 1, 0) != 1) {
			printf("fail-nth-clear-%s\n", strerrorname_np(errno) ?: "?");
			return 2;
		}
	}
	if (fail && pwrite(mif, "0", 1, 0) != 1) {
		printf("make-it-fail-clear-%s\n", strerrorname_np(errno) ?: "?");
		return 2;
	}
	if (!err && n != (ssize_t)strlen(argv[2])) {
		printf("short-write-%zd\n", n);
		return 1;
	}
	name = err ? strerrorname_np(err) : "0";
	if (nth)
		printf("%s %s\n", name ?: "?", left ? "not-injected" : "injected");
	else
		printf("%s\n", name ?: "?");
	return err ? 1 : 0;
}
