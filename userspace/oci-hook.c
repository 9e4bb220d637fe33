// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset-toss-oci-hook(8): an OCI runtime hook (createRuntime) that tosses
 * the page cache of a container's own NUMA nodes when its annotation
 * "io.github.cpuset-toss.request" (or, deprecated, the 1.0 key
 * "cpuset.memory_toss_cache") asks, as far as the site's policy allows
 * (cpuset-toss.conf(5), section [oci-hook]).  A pod's sandbox container
 * (CRI-O and containerd copy the pod's annotations to it) is skipped.
 *
 * The hook runs as root for whoever set the annotation (on CRI-O, any pod
 * author), so it never gives them more than the policy: by default an
 * amount and free= only, and only nodes that are the container's own (its
 * cpuset.mems.effective is not every memory node, and every CPU of the
 * node is in its cpuset.cpus.effective), at most once a minute per node
 * for the same pod or container.
 * It never fails the container over a toss (unless the policy says
 * strict): whatever happens is logged (syslog, with the container id)
 * and it exits 0.  It gives up waiting for the kernel after the policy's
 * timeout (20 s), below the hooks.d file's own timeout.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "oci-state.h"
#include "toss.h"

/* The policy file; the host test has its own. */
#ifndef CPUSET_TOSS_POLICY
#define CPUSET_TOSS_POLICY	NULL
#endif

static const char *container = "?";
static int strict;

static void hlog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void hlog(int prio, const char *fmt, ...)
{
	char msg[2048], esc[2048], id[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	/* no control character reaches syslog or the runtime's log */
	toss_log_escape(msg, esc, sizeof(esc));
	toss_log_escape(container, id, sizeof(id));
	syslog(prio, "container %s: %s", id, esc);
	fprintf(stderr, "cpuset-toss-oci-hook: container %s: %s\n", id, esc);
}

static void delegate_log(void *arg, int prio, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void delegate_log(void *arg, int prio, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	(void)arg;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	hlog(prio, "%s", msg);
}

/* The end of a hook run that tossed nothing: 0, unless strict. */
static int no_toss(void)
{
	return strict ? 1 : 0;
}

/* Read at most OCI_STATE_MAX + 1 bytes of a file descriptor. */
static char *slurp(int fd, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf = malloc(cap), *nb;
	ssize_t r;

	while (buf) {
		if (n == cap) {
			if (cap > OCI_STATE_MAX)
				break;
			cap *= 2;
			nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(buf);
			return NULL;
		}
		if (!r)
			break;
		n += r;
	}
	*len = n;
	return buf;
}

static void on_alarm(int sig)
{
	(void)sig;	/* only to interrupt the write: the kernel returns EINTR */
}

int main(void)
{
	char err[PATH_MAX + 256] = "", path[PATH_MAX + 16], requester[PATH_MAX + 16];
	struct toss_policy policy;
	struct toss_delegate d;
	struct sigaction sa;
	struct toss_cgroup cg;
	static struct oci_state st;
	size_t len;
	char *buf;
	int ret, fd;

	openlog("cpuset-toss-oci-hook", LOG_PID, LOG_DAEMON);
	buf = slurp(STDIN_FILENO, &len);
	if (!buf) {
		hlog(LOG_WARNING, "cannot read the state on stdin: %s: nothing tossed",
		     strerror(errno));
		return 0;
	}
	ret = oci_state_parse(buf, len, &st, err, sizeof(err));
	free(buf);
	if (ret) {
		hlog(LOG_WARNING, "malformed state on stdin (%s): nothing tossed", err);
		return 0;
	}
	if (st.id[0])
		container = st.id;
	/* config.json: cgroupsPath, and the annotation of older runtimes */
	if (st.bundle[0]) {
		snprintf(path, sizeof(path), "%s/config.json", st.bundle);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		buf = fd >= 0 ? slurp(fd, &len) : NULL;
		if (fd >= 0)
			close(fd);
		if (buf && oci_config_parse(buf, len, &st, err, sizeof(err)))
			hlog(LOG_WARNING, "%s: %s", path, err);
		free(buf);
	}
	if (!st.has_request)
		return 0;	/* not asked: nothing to do, nothing logged */
	/* the pod's pause container has every node: nothing of its own */
	if (st.sandbox)
		return 0;
	/* once until the next boot: a marker in root's state directory */
	if (st.request_old && toss_state_once("deprecated-annotation"))
		hlog(LOG_NOTICE, "the annotation \"%s\" is deprecated and goes in the next release: use \"%s\" (logged once until reboot)",
		     OCI_ANNOTATION_OLD, OCI_ANNOTATION);

	ret = toss_policy_load(CPUSET_TOSS_POLICY, "oci-hook", &policy, err, sizeof(err));
	strict = policy.strict;
	if (ret) {
		hlog(LOG_ERR, "%s: nothing tossed", err);
		return 0;
	}
	if (!st.pid) {
		hlog(LOG_WARNING, "the state has no pid: nothing tossed");
		return no_toss();
	}
	ret = toss_cgroup_from_pid(st.pid, &cg, err, sizeof(err));
	if (ret) {
		hlog(LOG_WARNING, "pid %d: %s: nothing tossed", (int)st.pid,
		     err[0] ? err : toss_strerror(ret));
		return no_toss();
	}
	if (!oci_cgroup_matches(&st, cg.rel)) {
		hlog(LOG_WARNING, "pid %d is in %s, not in the container's cgroup (%s): nothing tossed",
		     (int)st.pid, cg.rel,
		     st.has_cgroups_path ? st.cgroups_path : "no cgroupsPath, no id in the path");
		return no_toss();
	}
	if (!st.has_cgroups_path || !st.cgroups_path[0])
		hlog(LOG_INFO, "no cgroupsPath in config.json: %s is the container's by its id, a whole path component",
		     cg.rel);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_alarm;	/* no SA_RESTART: the write ends */
	sigaction(SIGALRM, &sa, NULL);
	memset(&d, 0, sizeof(d));
	/* one deadline: the rate limit's lock, then the kernel's write */
	if (policy.timeout)
		d.deadline_ms = toss_now_ms() + policy.timeout * 1000LL;
	alarm(policy.timeout);
	d.policy = &policy;
	d.cg = &cg;
	d.request = st.request;
	/* min_interval per pod (or container), not for anyone on the node */
	oci_requester(&st, cg.rel, requester, sizeof(requester));
	d.requester = requester;
	d.log = delegate_log;
	ret = toss_delegated(&d);
	alarm(0);
	if (ret == 1)
		return no_toss();
	if (ret == 0 || ret == -EAGAIN) {
		hlog(LOG_INFO, "%s: wrote \"%s\"%s", cg.rel, d.written,
		     ret ? ": less could be dropped than asked" : "");
		return 0;
	}
	if (ret == -EINTR)
		hlog(LOG_WARNING, "%s: \"%s\": gave up after %u s (timeout); what was dropped stays dropped",
		     cg.rel, d.written[0] ? d.written : st.request, policy.timeout);
	else
		hlog(LOG_WARNING, "%s: \"%s\": %s", cg.rel, st.request, toss_strerror(ret));
	return no_toss();
}
