// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cpuset_toss.so: a Slurm SPANK plugin that drops the clean page cache of
 * the NUMA nodes a job has to itself on a machine, before the job's first
 * task there runs, by writing "<amount> [free=..] nodes=<list>" to the
 * job cgroup's cpuset.memory_toss_cache.  spank-cpuset-toss(8).
 *
 * Written for Slurm 22.05 (Debian 12's slurm-wlm), task/cgroup with
 * ConstrainCores=yes, cgroup/v2 or cgroup/v1:
 *
 *  - srun/sbatch/salloc --toss-cache[=WHAT] asks for it ("1" without a
 *    value); plugstack.conf "default=WHAT", else the policy file's
 *    "request", tosses every job that does not ask.  A ':' in WHAT stands
 *    for a space ("512M:free=2G").
 *  - What a job gets is the site's policy, cpuset-toss.conf(5), section
 *    [slurm], applied by toss_delegated(): by default only an amount and
 *    free=, and only the nodes whose every CPU is in the job cgroup's
 *    cpuset.cpus.effective (its allocation on this machine).  A refusal is
 *    logged and never fails the job.
 *  - Task/cgroup of 22.05 never restricts the job cgroup's cpuset.mems:
 *    it is every memory node, and the policy's "pinned" test would refuse
 *    every job.  The job's CPUs are what makes a node its own here: the
 *    plugin chooses the nodes from them (nodes = own or pinned) and hands
 *    toss_delegated() the request with nodes= and the policy's other
 *    rules.  A job cgroup whose CPUs are the whole machine while the job
 *    has fewer (ConstrainCores=no) is refused.
 *  - At the job's start on each machine, once: with PrologFlags=Contain,
 *    Slurm runs the job's extern step on every machine of the job, in
 *    the job's cgroup with its cpuset, and starts no task there before
 *    the extern step's task_post_fork has returned.  The toss is made
 *    there.  The user's --toss-cache does not reach the extern step in
 *    22.05; the SPANK job prolog, which runs as root on every machine of
 *    the job before the extern step, finds it in its environment and
 *    leaves it in /run/cpuset-toss/slurm-job<id>.request.
 *  - Without the extern step, local task 0 of the job's first step
 *    tosses, in task_post_fork (after the tasks are in the step cgroup,
 *    before they exec).
 *  - Either way, under /run/cpuset-toss/slurm-job<id>.lock, the decision
 *    (tossed, refused, failed or nothing asked) is recorded in
 *    /run/cpuset-toss/slurm-job<id>.decided: no later step of the job
 *    tosses (its own cache, warm by then).  Files of root's 0700
 *    directory: no user can open them.  A step that starts meanwhile
 *    waits for the decision, until one deadline (the policy's timeout)
 *    for the lock and the rate limit's together.  The job epilog removes
 *    the files.
 *  - On a kernel without cpuset.memory_toss_cache, slurmd logs so once at
 *    info when it loads the plugin; a step then only logs at debug, so no
 *    job gets an error line for it.
 *
 * Only the SPANK symbols are exported (-fvisibility=hidden, and the
 * pragma below).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "../toss.h"

/* The policy file; the host test has its own. */
#ifndef CPUSET_TOSS_POLICY
#define CPUSET_TOSS_POLICY	NULL
#endif

#pragma GCC visibility push(default)
SPANK_PLUGIN(cpuset_toss, 1);
#pragma GCC visibility pop

#define PFX			"cpuset_toss: "
/*
 * "SLURM_SPANK_" and the option's variable in 22.05's plugstack.c:
 * _SLURM_SPANK_OPTION_<plugin>_<option>, '-' as '_'.
 */
#define SRUN_OPT_ENV \
	"SLURM_SPANK__SLURM_SPANK_OPTION_cpuset_toss_toss_cache"
/* The same option in the job prolog's environment (the job's spank env). */
#define PROLOG_OPT_ENV \
	"SPANK__SLURM_SPANK_OPTION_cpuset_toss_toss_cache"
#define WHAT_MAX		256	/* leaves room for " nodes=<list>" */
#define CPUS_MAX		65536	/* a CPU list of any machine */

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
	"Drop the clean page cache of the NUMA nodes the job has to itself before it starts, as the site's policy allows. WHAT: an amount (default 1: all; 512M, max) and, if allowed, free=SIZE; ':' for a space (512M:free=2G)",
	.has_arg = 2,
	.val = 0,
	.cb = opt_cb,
};

/**
 * what_copy() - a request given by a user or the site, as it is written
 * @what: the request; NULL or "" for "1"
 * @out: the request with each ':' a space
 * @len: its size
 * @err: a message on failure
 * @errlen: its size
 *
 * Only refuses what cannot be a request at all (too long, a control or
 * non-ASCII character, nothing); what it may ask is the policy's and
 * the kernel's to say, in slurmstepd.
 *
 * Return: 0 or -1.
 */
static int what_copy(const char *what, char *out, size_t len,
		     char *err, size_t errlen)
{
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
		char c = what[i] == ':' ? ' ' : what[i];

		if (c && (c < 0x20 || c > 0x7e)) {
			snprintf(err, errlen, "request \"%s\" has a control or non-ASCII character",
				 what);
			return -1;
		}
		out[i] = c;
	}
	if (strspn(out, " ") == n) {
		snprintf(err, errlen, "request \"%s\" is empty", what);
		return -1;
	}
	return 0;
}

/*
 * The option's callback, in srun, sbatch and salloc (remote 0), where a
 * malformed WHAT stops the command, and in slurmstepd (remote 1), where
 * slurm_spank_user_init() checks it again and logs.
 */
static int opt_cb(int val, const char *optarg, int remote)
{
	char err[512];

	(void)val;
	if (what_copy(optarg, user_what, sizeof(user_what), err,
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

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 +
	       (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/* toss_delegated()'s decisions, in slurmd's log with the job's id. */
static void delegate_log(void *arg, int prio, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (prio <= LOG_ERR)
		slurm_error(PFX "job %u: %s", *(uint32_t *)arg, msg);
	else if (prio <= LOG_INFO)
		slurm_info(PFX "job %u: %s", *(uint32_t *)arg, msg);
	else
		slurm_debug(PFX "job %u: %s", *(uint32_t *)arg, msg);
}

/**
 * job_cgroup() - the job's cgroup, above the step's that slurmstepd is in
 * @jobid: the job
 * @cg: the cgroup of the path component "job_<jobid>"
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or a negative error (-TOSS_ENOCGROUP: no job_<jobid>).
 */
static int job_cgroup(uint32_t jobid, struct toss_cgroup *cg, char *err,
		      size_t errlen)
{
	struct toss_cgroup self;
	char comp[32];
	size_t clen;
	char *p;
	int ret;

	ret = toss_cgroup_from_pid(0, &self, err, errlen);
	if (ret)
		return ret;
	clen = snprintf(comp, sizeof(comp), "/job_%u", jobid);
	for (p = strstr(self.rel, comp); p; p = strstr(p + 1, comp))
		if (p[clen] == '/' || !p[clen])
			break;
	if (!p) {
		snprintf(err, errlen, "slurmstepd's cgroup %.300s is not under job_%u",
			 self.rel, jobid);
		return -TOSS_ENOCGROUP;
	}
	p[clen] = '\0';
	return toss_cgroup_from_path(self.rel, cg, err, errlen);
}

/*
 * Whether a job whose cgroup Slurm did not confine (ConstrainCores=no)
 * holds the whole machine of @online CPUs: the step has every one of them
 * (S_JOB_NCPUS), or the job every core (S_JOB_ALLOC_CORES counts cores,
 * not SMT threads).  Sets *@ncpus and *@ncores to what Slurm says it has.
 */
static int job_has_machine(spank_t sp, int online, int *ncpus, int *ncores)
{
	uint16_t n = 0;
	char *cores = NULL;
	int online_cores = toss_online_cores();

	*ncpus = *ncores = 0;
	if (spank_get_item(sp, S_JOB_NCPUS, &n) == ESPANK_SUCCESS)
		*ncpus = n;
	if (spank_get_item(sp, S_JOB_ALLOC_CORES, &cores) == ESPANK_SUCCESS &&
	    cores && cores[0])
		*ncores = toss_cpulist_weight(cores);
	return (online > 0 && *ncpus >= online) ||
	       (online_cores > 0 && *ncores >= online_cores);
}

/**
 * toss_job() - toss the nodes of this machine that are the job's, once
 * @sp: the step
 * @jobid: the job
 * @what: the request; NULL when nothing was asked
 * @step: "the extern step", "the batch step" or "step <id>", for the log
 *
 * The first call for the job on this machine decides, and records its
 * decision; every later one finds it and does nothing.  Everything is
 * logged here; nothing fails the job.
 */
static void toss_job(spank_t sp, uint32_t jobid, const char *what,
		     const char *step)
{
	char err[512] = "", list[TOSS_REQ_MAX], decided[128] = "";
	struct toss_delegate d = { 0 };
	struct toss_policy policy;
	struct toss_cgroup cg;
	struct timespec t0;
	long long tosses = 0, deadline;
	char lock[64], rec[64], requester[64];
	uint32_t uid;
	long waited, lock_ms;
	int dirfd, fd = -1, ret, ncpus, ncores, online, weight;
	char own[64];
	char *cpus = NULL, *others = NULL;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = toss_policy_load(CPUSET_TOSS_POLICY, "slurm", &policy, err,
			       sizeof(err));
	if (ret) {
		slurm_error(PFX "job %u: the policy: %s (%s); request \"%s\" not written",
			    jobid, err, toss_strerror(ret), what ? what : "");
		return;
	}
	ret = job_cgroup(jobid, &cg, err, sizeof(err));
	if (ret) {
		slurm_error(PFX "job %u: no job cgroup in the cpuset hierarchy: %s (%s) (TaskPlugin=task/cgroup with ConstrainCores=yes is needed); request \"%s\" not written",
			    jobid, err, toss_strerror(ret), what ? what : "");
		return;
	}
	/*
	 * One deadline for the whole decision: the job's lock (another step
	 * of the job deciding) and, in toss_delegated(), the rate limit's.
	 * Both are files of root's 0700 directory: no user can hold them.
	 */
	deadline = toss_now_ms() + 1000LL * (policy.timeout ? policy.timeout :
					     TOSS_LOCK_WAIT_MAX);
	dirfd = toss_state_dir(err, sizeof(err));
	if (dirfd < 0) {
		slurm_error(PFX "job %u: %s; request \"%s\" not written", jobid, err,
			    what ? what : "");
		return;
	}
	snprintf(lock, sizeof(lock), "slurm-job%u.lock", jobid);
	snprintf(rec, sizeof(rec), "slurm-job%u.decided", jobid);
	lock_ms = ms_since(&t0);
	fd = toss_state_lock(dirfd, lock, deadline, err, sizeof(err));
	waited = ms_since(&t0);
	lock_ms = waited - lock_ms;
	if (fd < 0) {
		slurm_error(PFX "job %u: cgroup %s: no lock after %ld ms (another step deciding; timeout = %us): %s; request \"%s\" not written",
			    jobid, cg.rel, waited, policy.timeout, err,
			    what ? what : "");
		goto out_recorded;
	}
	ret = toss_state_read(dirfd, rec, decided, sizeof(decided), err,
			      sizeof(err));
	if (ret) {
		if (ret < 0)
			slurm_error(PFX "job %u: %s; request \"%s\" not written",
				    jobid, err, what ? what : "");
		else if (lock_ms >= 100)
			slurm_info(PFX "job %u: %s: waited %ld ms for another step's decision: %s",
				   jobid, step, lock_ms, decided);
		else
			slurm_debug(PFX "job %u: %s: decided at the job's start already (%s)",
				    jobid, step, decided);
		goto out_recorded;
	}
	snprintf(decided, sizeof(decided), "nothing asked, by %s", step);
	if (!what)
		goto out;
	/* slurmd said so once, at info (kernel_check()) */
	if (!toss_has_file(&cg)) {
		slurm_debug(PFX "job %u: %s; request \"%s\" not written",
			    jobid, toss_strerror(-TOSS_ENOFILE), what);
		snprintf(decided, sizeof(decided), "no file, by %s", step);
		goto out;
	}
	snprintf(decided, sizeof(decided), "failed, by %s", step);
	ret = toss_stat_value(&cg, "tosses", &tosses);
	if (ret) {
		slurm_error(PFX "job %u: cgroup %s: reading \"tosses\" of cpuset.memory_toss_cache.stat: %s; request \"%s\" not written",
			    jobid, cg.rel, toss_strerror(ret), what);
		goto out;
	}
	if (tosses > 0 && waited >= 10)
		slurm_info(PFX "job %u: cgroup %s: waited %ld ms for another step's toss; tossed already (%lld)",
			   jobid, cg.rel, waited, tosses);
	else if (tosses > 0)
		slurm_debug(PFX "job %u: cgroup %s: tossed already (%lld)",
			    jobid, cg.rel, tosses);
	if (tosses > 0) {
		snprintf(decided, sizeof(decided), "tossed already, seen by %s", step);
		goto out;
	}

	cpus = malloc(CPUS_MAX);
	if (!cpus) {
		slurm_error(PFX "job %u: out of memory", jobid);
		goto out;
	}
	ret = toss_cgroup_cpus(&cg, cpus, CPUS_MAX);
	weight = ret ? ret : toss_cpulist_weight(cpus);
	online = toss_online_cpus();
	if (weight < 0 || online < 0) {
		slurm_error(PFX "job %u: cgroup %s: its CPUs or the online CPUs: %s; request \"%s\" not written",
			    jobid, cg.rel, toss_strerror(weight < 0 ? weight : online),
			    what);
		goto out;
	}
	/*
	 * Slurm writes the job cgroup's own cpuset.cpus only with
	 * ConstrainCores=yes; without, the cgroup has every CPU whatever the
	 * job holds (a v1 job cgroup in the cpuset hierarchy is confined).
	 */
	own[0] = '\0';		/* unreadable: as if it had none */
	if (!cg.v1)
		toss_cgroup_own_cpus(&cg, own, sizeof(own));
	if (!cg.v1 && !own[0] && weight >= online &&
	    !job_has_machine(sp, online, &ncpus, &ncores)) {
		slurm_info(PFX "job %u: cgroup %s: refused: cores are not constrained (cgroup.conf ConstrainCores=yes is needed): its CPUs (%s) are every CPU of this machine, the job has %d CPUs and %d cores of it; request \"%s\" not written",
			   jobid, cg.rel, cpus, ncpus, ncores, what);
		snprintf(decided, sizeof(decided), "refused, by %s", step);
		goto out;
	}

	d.policy = &policy;
	d.cg = &cg;
	d.request = what;
	d.log = delegate_log;
	d.log_arg = &jobid;
	/*
	 * Slurm 22.05 leaves the job cgroup's cpuset.mems at every node: the
	 * job's CPUs (its allocation on this machine) say which are its own.
	 */
	d.cpus = cpus;
	d.cpus_decide = 1;
	/*
	 * Other jobs' cgroups beside this one (OverSubscribe, gang
	 * scheduling): a node whose CPUs they share is not this job's own.
	 */
	others = malloc(CPUS_MAX);
	if (others && !toss_sibling_cpus(&cg, "job_", others, CPUS_MAX))
		d.others_cpus = others;
	d.deadline_ms = deadline;
	/*
	 * min_interval per user (arrays of one user's short jobs), not for
	 * anyone: another user's job on the node tosses.
	 */
	if (spank_get_item(sp, S_JOB_UID, &uid) == ESPANK_SUCCESS)
		snprintf(requester, sizeof(requester), "slurm-uid%u", uid);
	else
		snprintf(requester, sizeof(requester), "slurm-job%u", jobid);
	d.requester = requester;
	ret = toss_delegated(&d);
	if (ret == 1) {
		snprintf(decided, sizeof(decided), "refused, by %s", step);
		goto out;
	}
	if (ret == -EAGAIN) {
		slurm_info(PFX "job %u: cgroup %s: request \"%s\": %s, after %ld ms",
			   jobid, cg.rel, d.written, toss_strerror(ret),
			   ms_since(&t0));
		snprintf(decided, sizeof(decided), "tossed in part, by %s", step);
	} else if (ret) {
		slurm_error(PFX "job %u: cgroup %s: request \"%s\" failed after %ld ms: %s",
			    jobid, cg.rel, d.written[0] ? d.written : d.request,
			    ms_since(&t0), toss_strerror(ret));
	} else {
		toss_format_list(&d.tossed, list, sizeof(list));
		slurm_info(PFX "job %u: tossed nodes %s (CPUs %s) of cgroup %s, request \"%s\", in %ld ms (%ld waiting for the lock)",
			   jobid, list, cpus, cg.rel, d.written, ms_since(&t0),
			   waited);
		snprintf(decided, sizeof(decided), "tossed, by %s", step);
	}
out:
	if (toss_state_write(dirfd, rec, decided, err, sizeof(err)))
		slurm_error(PFX "job %u: %s: the decision (%s) is not recorded: a later step may toss",
			    jobid, err, decided);
out_recorded:
	free(cpus);
	free(others);
	toss_state_unlock(dirfd, lock, fd);	/* and the lock with it */
	close(dirfd);
}

/*
 * slurmd, once when it loads the plugin (the plugin stays loaded while
 * slurmd runs): a kernel without the file is said once, at info, in
 * slurmd's log, not as an error in every job that asks.
 */
static void kernel_check(void)
{
	struct toss_cgroup root;
	char err[512];
	int ret;

	ret = toss_cgroup_from_path("/", &root, err, sizeof(err));
	if (ret)
		slurm_info(PFX "no cpuset hierarchy: %s: --toss-cache does nothing on this machine",
			   err[0] ? err : toss_strerror(ret));
	else if (!toss_has_file(&root))
		slurm_info(PFX "%s: --toss-cache does nothing on this machine",
			   toss_strerror(-TOSS_ENOFILE));
}

#pragma GCC visibility push(default)

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
	if (ctx == S_CTX_SLURMD)
		kernel_check();
	for (i = 0; i < ac; i++) {
		if (!strncmp(av[i], "default=", 8)) {
			if (what_copy(av[i] + 8, site_what, sizeof(site_what),
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
	if (what_copy(optarg, user_what, sizeof(user_what), err,
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

/* The job's request from the job prolog: 1, 0 if it left none, or < 0. */
static int job_request(uint32_t jobid, char *what, size_t len)
{
	char name[64], err[512];
	int dirfd, ret;

	dirfd = toss_state_dir(err, sizeof(err));
	if (dirfd < 0) {
		slurm_error(PFX "job %u: %s: the job's --toss-cache is not known",
			    jobid, err);
		return dirfd;
	}
	snprintf(name, sizeof(name), "slurm-job%u.request", jobid);
	ret = toss_state_read(dirfd, name, what, len, err, sizeof(err));
	if (ret < 0)
		slurm_error(PFX "job %u: %s: the job's --toss-cache is not known",
			    jobid, err);
	close(dirfd);
	return ret;
}

/*
 * The site's default request into @what: plugstack.conf's default=, else
 * the policy file's "request".  Returns 1, or 0 when there is none.
 */
static int site_request(char *what, size_t len)
{
	struct toss_policy policy;
	char err[512];

	if (site_set) {
		snprintf(what, len, "%s", site_what);
		return 1;
	}
	if (toss_policy_load(CPUSET_TOSS_POLICY, "slurm", &policy, err,
			     sizeof(err))) {
		slurm_error(PFX "the policy: %s; no toss", err);
		return 0;
	}
	if (!policy.request[0])
		return 0;
	if (what_copy(policy.request, what, len, err, sizeof(err))) {
		slurm_error(PFX "the policy's request: %s; no default toss", err);
		return 0;
	}
	return 1;
}

/*
 * slurmstepd, as root: in the extern step once (no task: taskid -1),
 * after the job cgroup's cpuset is written and before any task of the
 * job starts on this machine; in any other step for each task, after it
 * is in the step cgroup and before any task execs: local task 0 decides,
 * unless the extern step or an earlier step did.
 */
int slurm_spank_task_post_fork(spank_t sp, int ac, char *av[])
{
	char what[WHAT_MAX], step[32];
	uint32_t jobid = 0, stepid = 0;
	int taskid = -1, has = 0;
	bool ext;

	(void)ac;
	(void)av;
	if (!spank_remote(sp))
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_STEPID, &stepid) != ESPANK_SUCCESS)
		return ESPANK_SUCCESS;
	ext = stepid == SLURM_EXTERN_CONT;
	if (!ext && (spank_get_item(sp, S_TASK_ID, &taskid) != ESPANK_SUCCESS ||
		     taskid != 0))
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS) {
		slurm_error(PFX "no job id; no toss");
		return ESPANK_SUCCESS;
	}
	if (ext) {
		has = job_request(jobid, what, sizeof(what));
	} else if (user_set) {
		snprintf(what, sizeof(what), "%s", user_what);
		has = 1;
	}
	if (has < 0)
		return ESPANK_SUCCESS;
	if (!has)
		has = site_request(what, sizeof(what));
	if (ext)
		snprintf(step, sizeof(step), "the extern step");
	else if (stepid == SLURM_BATCH_SCRIPT)
		snprintf(step, sizeof(step), "the batch step");
	else
		snprintf(step, sizeof(step), "step %u", stepid);
	toss_job(sp, jobid, has ? what : NULL, step);
	return ESPANK_SUCCESS;
}

/*
 * The job prolog (slurmd, as root, on every machine of the job, before its
 * extern step): the user's --toss-cache, which is in the job's environment
 * here and nowhere in the extern step, left for the extern step.
 */
int slurm_spank_job_prolog(spank_t sp, int ac, char *av[])
{
	const char *opt = getenv(PROLOG_OPT_ENV);
	char what[WHAT_MAX], name[64], err[512] = "";
	uint32_t jobid = 0;
	int dirfd;

	(void)ac;
	(void)av;
	if (!opt)
		return ESPANK_SUCCESS;
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS) {
		slurm_error(PFX "job prolog: no job id; --toss-cache not passed on");
		return ESPANK_SUCCESS;
	}
	if (what_copy(opt, what, sizeof(what), err, sizeof(err))) {
		slurm_error(PFX "job %u: --toss-cache: %s; the site's default applies",
			    jobid, err);
		return ESPANK_SUCCESS;
	}
	dirfd = toss_state_dir(err, sizeof(err));
	snprintf(name, sizeof(name), "slurm-job%u.request", jobid);
	if (dirfd < 0 || toss_state_write(dirfd, name, what, err, sizeof(err)))
		slurm_error(PFX "job %u: %s; --toss-cache not passed on", jobid,
			    err);
	if (dirfd >= 0)
		close(dirfd);
	return ESPANK_SUCCESS;
}

/* The job epilog (slurmd, as root): the job's files go. */
int slurm_spank_job_epilog(spank_t sp, int ac, char *av[])
{
	static const char *const kinds[] = { "request", "decided" };
	char name[64], err[512];
	uint32_t jobid = 0;
	size_t i;
	int dirfd;

	(void)ac;
	(void)av;
	if (spank_get_item(sp, S_JOB_ID, &jobid) != ESPANK_SUCCESS)
		return ESPANK_SUCCESS;
	dirfd = toss_state_dir(err, sizeof(err));
	if (dirfd < 0)
		return ESPANK_SUCCESS;
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		snprintf(name, sizeof(name), "slurm-job%u.%s", jobid, kinds[i]);
		unlinkat(dirfd, name, 0);
	}
	close(dirfd);
	return ESPANK_SUCCESS;
}

#pragma GCC visibility pop
