// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpuset_toss.so: a Slurm SPANK plugin that drops the clean page cache of
 * the NUMA nodes of a job's CPUs before the job's first task runs, by
 * writing "<what> nodes=<list>" to the job cgroup's
 * cpuset.memory_toss_cache.
 *
 * Written for Slurm 22.05 (Debian 12's slurm-wlm), task/cgroup with
 * cgroup/v2 or cgroup/v1:
 *
 *  - srun/sbatch/salloc --toss-cache[=WHAT] asks for it; WHAT is the
 *    request ("1", "512M", "1 free=2G"), "1" without a value.  A ':' in
 *    WHAT stands for a space ("512M:free=2G"), for plugstack.conf, whose
 *    arguments cannot hold spaces.  WHAT must not name nodes=: the plugin
 *    adds it.
 *  - plugstack.conf "default=WHAT" tosses every job, with or without the
 *    option (the option's WHAT wins).
 *  - In slurmstepd, task_post_fork of local task 0 runs after the tasks
 *    are in the step cgroup, with their affinity set, and before they
 *    exec: there the plugin tosses once per job and node (the batch step
 *    and the srun steps of a job all get there; a marker file
 *    /run/cpuset-toss/slurm/job_<id>, removed by job_epilog, lets only
 *    the first one toss).  The extern step is skipped.
 *  - Task/cgroup of 22.05 leaves the job cgroup's cpuset.mems at all the
 *    nodes, so the request names the nodes of the job's CPUs on this node
 *    (its cpuset.cpus.effective), within its cpuset.mems.effective.
 *
 * A toss never fails the job or drains the node: every error is logged
 * and the callbacks return ESPANK_SUCCESS.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "../toss.h"

SPANK_PLUGIN(cpuset_toss, 1);

#ifndef CPUSET_TOSS_MARKER_DIR
#define CPUSET_TOSS_MARKER_DIR	"/run/cpuset-toss/slurm"
#endif
#ifndef CPUSET_TOSS_PROC_CGROUP
#define CPUSET_TOSS_PROC_CGROUP	"/proc/self/cgroup"
#endif

#define PFX			"cpuset_toss: "
/*
 * "SLURM_SPANK_" and the option's variable in 22.05's plugstack.c:
 * _SLURM_SPANK_OPTION_<plugin>_<option>, '-' as '_'.
 */
#define SRUN_OPT_ENV \
	"SLURM_SPANK__SLURM_SPANK_OPTION_cpuset_toss_toss_cache"
#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define WHAT_MAX		256	/* leaves room for " nodes=<list>" */
#define LIST_MAX		(TOSS_REQ_MAX - WHAT_MAX - 16)

/* The site's default (plugstack.conf default=) and the user's option. */
static char site_what[WHAT_MAX];
static int site_set;
static char user_what[WHAT_MAX];
static int user_set;

static int opt_cb(int val, const char *optarg, int remote);

static struct spank_option toss_opt = {
	.name = "toss-cache",
	.arginfo = "what",
	.usage =
	"Drop the clean page cache of the NUMA nodes of the job's CPUs before it starts. WHAT is the request written to cpuset.memory_toss_cache, without nodes= (default 1: all; e.g. 512M, 1:free=2G)",
	.has_arg = 2,
	.val = 0,
	.cb = opt_cb,
};

/**
 * what_check() - check and normalise a request given by a user or site
 * @what: the request; NULL or "" for "1"
 * @out: the request to write, without nodes=
 * @len: its size
 * @err: a message on failure
 * @errlen: its size
 *
 * Turns each ':' into a space and refuses nodes=, which the plugin adds,
 * and characters the kernel's grammar does not have.  The kernel checks
 * the rest.
 *
 * Return: 0 or -1.
 */
static int what_check(const char *what, char *out, size_t len,
		      char *err, size_t errlen)
{
	const char *tok;
	size_t i, n;

	/* sbatch without a value can pass "(null)" in the job's env */
	if (!what || !what[0] || !strcmp(what, "(null)"))
		what = "1";
	n = strlen(what);
	if (n >= len) {
		snprintf(err, errlen, "request \"%.32s...\" is too long (%zu bytes, at most %zu)",
			 what, n, len - 1);
		return -1;
	}
	for (i = 0; i <= n; i++) {
		char c = what[i];

		if (c == ':')
			c = ' ';
		if (c && (c < 0x21 || c > 0x7e) && c != ' ') {
			snprintf(err, errlen, "request \"%s\" has a control or non-ASCII character",
				 what);
			return -1;
		}
		out[i] = c;
	}
	for (tok = out; *tok; tok++) {
		if ((tok == out || tok[-1] == ' ') && !strncmp(tok, "nodes=", 6)) {
			snprintf(err, errlen,
				 "request \"%s\" names nodes=: the plugin adds the nodes of the job's CPUs itself",
				 what);
			return -1;
		}
	}
	for (tok = out; *tok == ' '; tok++)
		;
	if (!*tok) {
		snprintf(err, errlen, "request \"%s\" is empty", what);
		return -1;
	}
	return 0;
}

/*
 * The option's callback, in srun, sbatch and salloc (remote 0), where a
 * bad WHAT stops the command, and in slurmstepd (remote 1), where
 * slurm_spank_user_init() checks it again and logs.
 */
static int opt_cb(int val, const char *optarg, int remote)
{
	char err[512];

	(void)val;
	if (what_check(optarg, user_what, sizeof(user_what), err,
		       sizeof(err))) {
		user_set = 0;
		if (remote)
			return 0;
		slurm_error(PFX "--toss-cache: %s", err);
		return -1;
	}
	user_set = 1;
	return 0;
}

/**
 * job_cgroup_path() - the job's cgroup, from a /proc/PID/cgroup text
 * @text: the text of /proc/PID/cgroup
 * @v1: 1: look at the cgroup v1 line with the cpuset controller; 0: at
 *      the cgroup v2 line "0::"
 * @jobid: the job
 * @out: the path of the cgroup inside its hierarchy, up to and with the
 *       component "job_<jobid>" ("/system.slice/n1_slurmstepd.scope/job_7")
 * @len: its size
 *
 * Return: 0, -ENOENT (no such line, or no job_<jobid> in its path) or
 * -ENAMETOOLONG.
 */
static int job_cgroup_path(const char *text, int v1, uint32_t jobid,
			   char *out, size_t len)
{
	char comp[32];
	const char *line, *next;
	size_t clen;

	clen = snprintf(comp, sizeof(comp), "job_%u", jobid);
	for (line = text; line && *line; line = next) {
		const char *c1, *c2, *end, *p;

		next = strchr(line, '\n');
		end = next ? next : line + strlen(line);
		if (next)
			next++;
		c1 = memchr(line, ':', end - line);
		c2 = c1 ? memchr(c1 + 1, ':', end - c1 - 1) : NULL;
		if (!c2)
			continue;
		if (v1) {
			/* controllers "cpuset" or "cpu,cpuset,..." */
			int found = 0;

			for (p = c1 + 1; p < c2; ) {
				const char *e = memchr(p, ',', c2 - p);

				if (!e)
					e = c2;
				if (e - p == 6 && !strncmp(p, "cpuset", 6))
					found = 1;
				p = e + 1;
			}
			if (!found)
				continue;
		} else if (c1 - line != 1 || line[0] != '0' || c2 != c1 + 1) {
			continue;
		}
		/* the first component that is exactly job_<jobid> */
		for (p = c2 + 1; p < end; p++) {
			if (p[0] != '/' || (size_t)(end - p - 1) < clen ||
			    strncmp(p + 1, comp, clen))
				continue;
			if (p + 1 + clen != end && p[1 + clen] != '/')
				continue;
			if ((size_t)(p + 1 + clen - (c2 + 1)) >= len)
				return -ENAMETOOLONG;
			memcpy(out, c2 + 1, p + 1 + clen - (c2 + 1));
			out[p + 1 + clen - (c2 + 1)] = '\0';
			return 0;
		}
		return -ENOENT;
	}
	return -ENOENT;
}

/* Read a small file, without its trailing white space. */
static int read_text(const char *path, char *buf, size_t len)
{
	ssize_t n, off = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while ((size_t)off < len - 1) {
		n = read(fd, buf + off, len - 1 - off);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			n = -errno;
			close(fd);
			return n;
		}
		if (!n)
			break;
		off += n;
	}
	close(fd);
	buf[off] = '\0';
	while (off > 0 && (buf[off - 1] == '\n' || buf[off - 1] == ' '))
		buf[--off] = '\0';
	return 0;
}

/*
 * The cgroup's effective CPUs: cpuset.cpus.effective (v2),
 * cpuset.effective_cpus or else cpuset.cpus (v1, maybe without the
 * "cpuset." of noprefix).
 */
static int cgroup_cpus(const struct toss_cgroup *cg, char *buf, size_t len)
{
	static const char * const v2[] = { "cpus.effective", NULL };
	static const char * const v1[] = { "effective_cpus", "cpus", NULL };
	const char * const *name;
	char path[PATH_MAX + 64];
	int ret = -ENOENT;

	for (name = cg->v1 ? v1 : v2; *name; name++) {
		snprintf(path, sizeof(path), "%s/%s%s", cg->dir,
			 cg->v1 && cg->noprefix ? "" : "cpuset.", *name);
		ret = read_text(path, buf, len);
		if (ret != -ENOENT)
			break;
	}
	if (!ret && !buf[0])
		ret = -ENOENT;
	return ret;
}

/**
 * job_nodes() - the nodes to toss for a job cgroup
 * @cg: the job's cgroup
 * @cpus: its effective CPUs, read here
 * @cpulen: their size
 * @list: the nodes of these CPUs that are in its cpuset.mems.effective
 * @len: their size
 * @what: on failure, what failed
 *
 * Return: 0, -ENOENT when no node is left, or a negative error.
 */
static int job_nodes(const struct toss_cgroup *cg, char *cpus, size_t cpulen,
		     char *list, size_t len, const char **what)
{
	struct toss_nodes cpu_nodes, mems, both;
	size_t i;
	int ret, any = 0;

	cpus[0] = '\0';
	list[0] = '\0';
	*what = "reading the cgroup's effective CPUs";
	ret = cgroup_cpus(cg, cpus, cpulen);
	if (ret)
		return ret;
	*what = "mapping the CPUs to NUMA nodes";
	ret = toss_cpus_to_nodes(cpus, &cpu_nodes);
	if (ret)
		return ret;
	*what = "reading the cgroup's cpuset.mems.effective";
	ret = toss_cgroup_mems(cg, &mems);
	if (ret)
		return ret;
	for (i = 0; i < ARRAY_SIZE(both.bits); i++) {
		both.bits[i] = cpu_nodes.bits[i] & mems.bits[i];
		any |= !!both.bits[i];
	}
	*what = "intersecting the CPUs' nodes with cpuset.mems.effective";
	if (!any)
		return -ENOENT;
	toss_format_list(&both, list, len);
	return 0;
}

/* mkdir -p, each new directory with mode 0700. */
static int mkdir_p(const char *dir)
{
	char path[PATH_MAX];
	char *p;

	if (snprintf(path, sizeof(path), "%s", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	for (p = path + 1; ; p++) {
		if (*p != '/' && *p)
			continue;
		if (p[-1] != '/') {
			char c = *p;

			*p = '\0';
			if (mkdir(path, 0700) && errno != EEXIST)
				return -errno;
			*p = c;
		}
		if (!*p)
			break;
	}
	return 0;
}

static void marker_path(uint32_t jobid, char *buf, size_t len)
{
	snprintf(buf, len, "%s/job_%u", CPUSET_TOSS_MARKER_DIR, jobid);
}

/**
 * marker_take() - be the first step of the job on this node to toss
 * @jobid: the job
 * @path: the marker's path
 * @len: its size
 *
 * Return: 1 if this step creates the marker, 0 if it exists, or a
 * negative error (then the caller tosses anyway).
 */
static int marker_take(uint32_t jobid, char *path, size_t len)
{
	int fd, ret;

	marker_path(jobid, path, len);
	ret = mkdir_p(CPUSET_TOSS_MARKER_DIR);
	if (ret)
		return ret;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
		  0600);
	if (fd < 0)
		return errno == EEXIST ? 0 : -errno;
	close(fd);
	return 1;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	       (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/**
 * toss_job() - toss the nodes of a job's CPUs on this node
 * @jobid: the job
 * @what: the request, without nodes=
 *
 * Everything is logged here; a failure changes nothing else.
 */
static void toss_job(uint32_t jobid, const char *what)
{
	char text[8192], rel[PATH_MAX], err[512], cpus[4096], list[LIST_MAX];
	char req[TOSS_REQ_MAX];
	struct toss_cgroup root, cg;
	struct timespec t0;
	const char *step;
	int ret;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	err[0] = '\0';
	ret = toss_cgroup_from_path("/", &root, err, sizeof(err));
	if (ret) {
		slurm_error(PFX "job %u: no cpuset hierarchy, request \"%s\" not written: %s (%s)",
			    jobid, what, err, toss_strerror(ret));
		return;
	}
	ret = read_text(CPUSET_TOSS_PROC_CGROUP, text, sizeof(text));
	if (ret) {
		slurm_error(PFX "job %u: reading %s: %s; request \"%s\" not written",
			    jobid, CPUSET_TOSS_PROC_CGROUP, toss_strerror(ret),
			    what);
		return;
	}
	ret = job_cgroup_path(text, root.v1, jobid, rel, sizeof(rel));
	if (ret) {
		slurm_error(PFX
			    "job %u: slurmstepd is in no cgroup under job_%u of the cpuset hierarchy (%s) (is TaskPlugin=task/cgroup with ConstrainCores=yes?); request \"%s\" not written",
			    jobid, jobid, root.v1 ? "cgroup v1" : "cgroup v2",
			    what);
		return;
	}
	err[0] = '\0';
	ret = toss_cgroup_from_path(rel, &cg, err, sizeof(err));
	if (ret) {
		slurm_error(PFX "job %u: cgroup %s: %s (%s); request \"%s\" not written",
			    jobid, rel, err, toss_strerror(ret), what);
		return;
	}
	ret = job_nodes(&cg, cpus, sizeof(cpus), list, sizeof(list), &step);
	if (ret) {
		slurm_error(PFX
			    "job %u: cgroup %s: CPUs \"%s\": %s: %s; request \"%s\" not written",
			    jobid, cg.rel, cpus, step,
			    ret == -ENOENT ? "no node left" :
			    toss_strerror(ret), what);
		return;
	}
	if (snprintf(req, sizeof(req), "%s nodes=%s", what, list) >=
	    (int)sizeof(req)) {
		slurm_error(PFX
			    "job %u: cgroup %s: request \"%s nodes=%s\" is too long; not written",
			    jobid, cg.rel, what, list);
		return;
	}
	ret = toss_write(&cg, req);
	if (ret == -EAGAIN) {
		slurm_info(PFX "job %u: cgroup %s: nodes %s: request \"%s\": %s, after %ld ms",
			   jobid, cg.rel, list, req, toss_strerror(ret),
			   ms_since(&t0));
		return;
	}
	if (ret) {
		slurm_error(PFX
			    "job %u: cgroup %s: nodes %s: request \"%s\" failed after %ld ms: %s",
			    jobid, cg.rel, list, req, ms_since(&t0),
			    toss_strerror(ret));
		return;
	}
	slurm_info(PFX "job %u: tossed nodes %s (CPUs %s) of cgroup %s, request \"%s\", in %ld ms",
		   jobid, list, cpus, cg.rel, req, ms_since(&t0));
}

/* Every context: register the option, read the plugstack.conf arguments. */
int slurm_spank_init(spank_t sp, int ac, char *av[])
{
	spank_context_t ctx = spank_context();
	int remote = ctx == S_CTX_REMOTE;
	char err[512];
	int i;

	if (ctx == S_CTX_LOCAL || ctx == S_CTX_REMOTE ||
	    ctx == S_CTX_ALLOCATOR) {
		if (spank_option_register(sp, &toss_opt) != ESPANK_SUCCESS)
			slurm_error(PFX "cannot register --%s", toss_opt.name);
	}
	for (i = 0; i < ac; i++) {
		if (!strncmp(av[i], "default=", 8)) {
			if (what_check(av[i] + 8, site_what, sizeof(site_what),
				       err, sizeof(err))) {
				if (remote)
					slurm_error(PFX "plugstack.conf %s: %s; no default toss",
						    av[i], err);
				site_set = 0;
				continue;
			}
			site_set = 1;
		} else if (remote) {
			slurm_error(PFX "plugstack.conf: unknown argument \"%s\" ignored",
				    av[i]);
		}
	}
	return ESPANK_SUCCESS;
}

/*
 * slurmstepd, before the tasks fork: spank_option_getopt() is not
 * available in task_post_fork (22.05's plugstack.c returns
 * ESPANK_NOT_AVAIL there), but is here, in the same process.
 *
 * slurmstepd takes the option's variable out of the batch script's
 * environment, so an srun in the script would not have it and the
 * job's other nodes, which only run srun steps, would not toss.  For
 * the batch step, the option is put back as SLURM_SPANK_<its variable>,
 * which srun reads like --toss-cache=WHAT (spank_process_env_options()).
 */
int slurm_spank_user_init(spank_t sp, int ac, char *av[])
{
	char *optarg = NULL, err[512];
	uint32_t stepid = 0;
	spank_err_t rc;

	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return ESPANK_SUCCESS;
	if (spank_option_getopt(sp, &toss_opt, &optarg) != ESPANK_SUCCESS)
		return ESPANK_SUCCESS;
	if (what_check(optarg, user_what, sizeof(user_what), err,
		       sizeof(err))) {
		slurm_error(PFX "--toss-cache: %s; the site's default applies",
			    err);
		user_set = 0;
		return ESPANK_SUCCESS;
	}
	user_set = 1;
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS ||
	    stepid != SLURM_BATCH_SCRIPT)
		return ESPANK_SUCCESS;
	rc = spank_setenv(sp, SRUN_OPT_ENV, user_what, 0);
	if (rc != ESPANK_SUCCESS && rc != ESPANK_ENV_EXISTS)
		slurm_error(PFX "cannot set %s for the srun steps of the batch script: %s",
			    SRUN_OPT_ENV, spank_strerror(rc));
	return ESPANK_SUCCESS;
}

/*
 * slurmstepd, as root, for each task after it is in the step cgroup and
 * before any task execs.
 */
int slurm_spank_task_post_fork(spank_t sp, int ac, char *av[])
{
	char path[PATH_MAX];
	const char *what;
	uint32_t jobid = 0, stepid = 0;
	int taskid = -1, ret;

	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return ESPANK_SUCCESS;
	if (user_set)
		what = user_what;
	else if (site_set)
		what = site_what;
	else
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_TASK_ID, &taskid) != ESPANK_SUCCESS ||
	    taskid != 0)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS) {
		slurm_error(PFX "no job id; request \"%s\" not written", what);
		return ESPANK_SUCCESS;
	}
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS) {
		slurm_error(PFX "job %u: no step id; request \"%s\" not written",
			    jobid, what);
		return ESPANK_SUCCESS;
	}
	if (stepid == SLURM_EXTERN_CONT)
		return ESPANK_SUCCESS;

	ret = marker_take(jobid, path, sizeof(path));
	if (ret == 0) {
		slurm_debug(PFX "job %u: %s exists, tossed already", jobid,
			    path);
		return ESPANK_SUCCESS;
	}
	if (ret < 0)
		slurm_error(PFX "job %u: cannot create %s: %s; tossing anyway",
			    jobid, path, toss_strerror(ret));
	toss_job(jobid, what);
	return ESPANK_SUCCESS;
}

/*
 * slurmd's spank epilog (job script context, root), on each node of the
 * job at its end: a requeued job tosses again.
 */
int slurm_spank_job_epilog(spank_t sp, int ac, char *av[])
{
	char path[PATH_MAX];
	uint32_t jobid = 0;

	(void)ac;
	(void)av;
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS) {
		slurm_error(PFX "epilog: no job id");
		return ESPANK_SUCCESS;
	}
	marker_path(jobid, path, sizeof(path));
	if (unlink(path) && errno != ENOENT)
		slurm_error(PFX "job %u: cannot remove %s: %s", jobid, path,
			    toss_strerror(-errno));
	return ESPANK_SUCCESS;
}
