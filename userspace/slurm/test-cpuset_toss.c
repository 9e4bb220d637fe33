// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * Host-side test of cpuset_toss.c, without Slurm: the plugin's source is
 * included with the marker directory and /proc/self/cgroup redirected to
 * a temporary directory, the SPANK API is stubbed, and toss_write() and
 * toss_cgroup_from_path() (but "/") are wrapped (-Wl,--wrap=...) so that
 * a fake job cgroup in the temporary directory stands for the real one.
 * Everything else is the real ../toss.c on the host's real
 * /sys/devices/system/node and cpuset hierarchy root (read only).
 *
 * Build (TMPD is made by the caller and removed afterwards):
 *   gcc -Wall -Wextra -Werror -O2 -DCPUSET_TOSS_MARKER_DIR='"'$TMPD'/run"' \
 *     -DCPUSET_TOSS_PROC_CGROUP='"'$TMPD'/cgroup"' -DTEST_DIR='"'$TMPD'"' \
 *     -Wl,--wrap=toss_write,--wrap=toss_cgroup_from_path \
 *     -o $TMPD/test slurm/test-cpuset_toss.c toss.c
 */
#include "cpuset_toss.c"

#include <stdarg.h>

static int failures, logged_errors;
static char last_log[4096];

#define CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__,	\
			#cond);						\
		failures++;						\
	}								\
} while (0)

/* The SPANK API, stubbed. */
static spank_context_t fake_ctx = S_CTX_REMOTE;
static int fake_task, fake_has_opt, fake_reg;
static uint32_t fake_job = 42, fake_step;
static char *fake_optarg;
static char fake_env[512];

static void vlog(const char *lvl, const char *fmt, va_list ap)
{
	vsnprintf(last_log, sizeof(last_log), fmt, ap);
	printf("  [%s] %s\n", lvl, last_log);
}

void slurm_info(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("info", fmt, ap);
	va_end(ap);
}

void slurm_error(const char *fmt, ...)
{
	va_list ap;

	logged_errors++;
	va_start(ap, fmt);
	vlog("error", fmt, ap);
	va_end(ap);
}

void slurm_debug(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog("debug", fmt, ap);
	va_end(ap);
}

spank_context_t spank_context(void)
{
	return fake_ctx;
}

int spank_remote(spank_t sp)
{
	(void)sp;
	return fake_ctx == S_CTX_REMOTE;
}

spank_err_t spank_option_register(spank_t sp, struct spank_option *opt)
{
	(void)sp;
	CHECK(opt->has_arg == 2 && !strcmp(opt->name, "toss-cache"));
	fake_reg++;
	return ESPANK_SUCCESS;
}

spank_err_t spank_option_getopt(spank_t sp, struct spank_option *opt,
				char **optarg)
{
	(void)sp;
	(void)opt;
	*optarg = fake_optarg;
	return fake_has_opt ? ESPANK_SUCCESS : ESPANK_ERROR;
}

spank_err_t spank_setenv(spank_t sp, const char *var, const char *val,
			 int overwrite)
{
	(void)sp;
	(void)overwrite;
	snprintf(fake_env, sizeof(fake_env), "%s=%s", var, val);
	return ESPANK_SUCCESS;
}

const char *spank_strerror(spank_err_t err)
{
	(void)err;
	return "stub error";
}

spank_err_t spank_get_item(spank_t sp, spank_item_t item, ...)
{
	va_list ap;
	spank_err_t rc = ESPANK_SUCCESS;

	(void)sp;
	va_start(ap, item);
	switch (item) {
	case S_JOB_ID:
		*va_arg(ap, uint32_t *) = fake_job;
		break;
	case S_JOB_STEPID:
		*va_arg(ap, uint32_t *) = fake_step;
		break;
	case S_TASK_ID:
		*va_arg(ap, int *) = fake_task;
		if (fake_task < 0)
			rc = ESPANK_NOT_TASK;
		break;
	default:
		rc = ESPANK_BAD_ARG;
	}
	va_end(ap);
	return rc;
}

/* The wrapped library functions. */
int __real_toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
				 char *err, size_t errlen);
int __wrap_toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
				 char *err, size_t errlen);
int __wrap_toss_write(const struct toss_cgroup *cg, const char *request);

static char written[TOSS_REQ_MAX], written_dir[PATH_MAX];
static int nwrites, write_ret;

int __wrap_toss_cgroup_from_path(const char *path, struct toss_cgroup *cg,
				 char *err, size_t errlen)
{
	struct toss_cgroup root;
	int ret;

	if (!strcmp(path, "/")) {
		/* the host's, or (a chroot, a container without cgroupfs) a
		 * v2 root of our own: the test needs no mounted hierarchy */
		ret = __real_toss_cgroup_from_path(path, cg, err, errlen);
		if (ret) {
			memset(cg, 0, sizeof(*cg));
			snprintf(cg->dir, sizeof(cg->dir), "%s/root", TEST_DIR);
			snprintf(cg->rel, sizeof(cg->rel), "/");
		}
		return 0;
	}
	ret = __wrap_toss_cgroup_from_path("/", &root, err, errlen);
	if (ret)
		return ret;
	if (strcmp(path, "/slurm/uid_1000/job_42") &&
	    strcmp(path, "/system.slice/n1_slurmstepd.scope/job_42")) {
		snprintf(err, errlen, "no cgroup %s (test)", path);
		return -TOSS_ENOCGROUP;
	}
	*cg = root;
	snprintf(cg->dir, sizeof(cg->dir), "%s/jobcg", TEST_DIR);
	snprintf(cg->rel, sizeof(cg->rel), "%s", path);
	cg->noprefix = 0;
	return 0;
}

int __wrap_toss_write(const struct toss_cgroup *cg, const char *request)
{
	nwrites++;
	snprintf(written, sizeof(written), "%s", request);
	snprintf(written_dir, sizeof(written_dir), "%s", cg->dir);
	return write_ret;
}

static void put(const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", TEST_DIR, name);
	f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(1);
	}
	fputs(text, f);
	fclose(f);
}

static void test_path(const char *text, int v1, uint32_t job, int want_ret,
		      const char *want)
{
	char out[PATH_MAX];
	int ret;

	out[0] = '\0';
	ret = job_cgroup_path(text, v1, job, out, sizeof(out));
	printf("job_cgroup_path(v%d, job %u) = %d \"%s\"\n", v1 ? 1 : 2, job,
	       ret, ret ? "" : out);
	CHECK(ret == want_ret);
	if (!ret && want)
		CHECK(!strcmp(out, want));
}

static void test_what(const char *what, const char *want)
{
	char out[WHAT_MAX], err[512] = "";
	int ret;

	ret = what_check(what, out, sizeof(out), err, sizeof(err));
	printf("what_check(%s%s%s) = %d \"%s\" %s\n", what ? "\"" : "",
	       what ? what : "NULL", what ? "\"" : "", ret, ret ? "" : out,
	       err);
	if (want) {
		CHECK(ret == 0);
		CHECK(!ret && !strcmp(out, want));
	} else {
		CHECK(ret == -1 && err[0]);
	}
}

static int marker_exists(uint32_t job)
{
	char path[PATH_MAX];

	marker_path(job, path, sizeof(path));
	return !access(path, F_OK);
}

static void reset_job(void)
{
	user_set = 0;
	site_set = 0;
	nwrites = 0;
	written[0] = '\0';
	write_ret = 0;
	fake_task = 0;
	fake_step = 0;
	fake_job = 42;
	fake_has_opt = 0;
	fake_optarg = NULL;
	fake_env[0] = '\0';
	slurm_spank_job_epilog(NULL, 0, NULL);
}

int main(void)
{
	static const char v2[] = "0::/system.slice/n1_slurmstepd.scope/job_42/step_0/slurm\n";
	static const char v1[] =
		"12:pids:/system.slice/slurmd.service\n"
		"5:cpu,cpuacct:/\n"
		"4:cpuset:/slurm/uid_1000/job_42/step_batch\n"
		"1:name=systemd:/system.slice/slurmd.service\n"
		"0::/system.slice/slurmd.service\n";
	char *av_ok[] = { "default=1:free=2G", "bogus" };
	char *av_bad[] = { "default=1:nodes=0" };
	char *av_one[] = { "default=1" };
	char longwhat[600];
	char deep[PATH_MAX + 100];
	struct toss_cgroup root;
	char cpus[256], list[256], err[256];
	const char *step;
	int ret;

	printf("== job_cgroup_path\n");
	test_path(v2, 0, 42, 0, "/system.slice/n1_slurmstepd.scope/job_42");
	test_path(v2, 0, 4, -ENOENT, NULL);	/* job_4 is not job_42 */
	test_path(v2, 1, 42, -ENOENT, NULL);	/* no v1 cpuset line */
	test_path(v1, 1, 42, 0, "/slurm/uid_1000/job_42");
	test_path(v1, 0, 42, -ENOENT, NULL);	/* v2 line has no job */
	test_path("3:cpu,cpuset,memory:/slurm/uid_0/job_7", 1, 7, 0,
		  "/slurm/uid_0/job_7");	/* co-mounted, no newline */
	test_path("3:cpusetx:/slurm/job_7\n", 1, 7, -ENOENT, NULL);
	test_path("0::/job_7\n", 0, 7, 0, "/job_7");
	test_path("0::/a/job_77/job_7/step_0\n", 0, 7, 0, "/a/job_77/job_7");
	test_path("0::/a/xjob_7/step_0\n", 0, 7, -ENOENT, NULL);
	test_path("0::/\n", 0, 7, -ENOENT, NULL);
	test_path("", 0, 7, -ENOENT, NULL);
	test_path("garbage\n0::/job_4294967292/step_extern\n", 0,
		  4294967292U, 0, "/job_4294967292");
	memset(deep, 'a', sizeof(deep));
	memcpy(deep, "0::/", 4);
	memcpy(deep + sizeof(deep) - 8, "/job_1\n", 8);
	test_path(deep, 0, 1, -ENAMETOOLONG, NULL);

	printf("== what_check\n");
	test_what(NULL, "1");
	test_what("", "1");
	test_what("(null)", "1");
	test_what("max", "max");
	test_what("512M:free=2G", "512M free=2G");
	test_what("1 free=2G scope=cgroup", "1 free=2G scope=cgroup");
	test_what("1 nodes=1", NULL);
	test_what("nodes=0", NULL);
	test_what("1:nodes=0", NULL);
	test_what("1 free=1G nodes=0-1", NULL);
	test_what("1 xnodes=1", "1 xnodes=1");	/* the kernel refuses it */
	test_what("1\tfree=1G", NULL);
	test_what("1\nnodes=0", NULL);
	test_what(":", NULL);
	test_what("   ", NULL);
	memset(longwhat, '1', sizeof(longwhat) - 1);
	longwhat[sizeof(longwhat) - 1] = '\0';
	test_what(longwhat, NULL);

	printf("== option callback\n");
	CHECK(opt_cb(0, NULL, 0) == 0 && user_set && !strcmp(user_what, "1"));
	CHECK(opt_cb(0, "2G", 0) == 0 && !strcmp(user_what, "2G"));
	CHECK(opt_cb(0, "1 nodes=0", 0) == -1 && !user_set);
	CHECK(strstr(last_log, "nodes="));
	logged_errors = 0;
	CHECK(opt_cb(0, "1 nodes=0", 1) == 0 && !user_set && !logged_errors);

	printf("== slurm_spank_init\n");
	fake_ctx = S_CTX_LOCAL;
	logged_errors = 0;
	fake_reg = 0;
	CHECK(slurm_spank_init(NULL, 2, av_ok) == ESPANK_SUCCESS);
	CHECK(fake_reg == 1 && !logged_errors);	/* quiet in srun */
	fake_ctx = S_CTX_SLURMD;
	fake_reg = 0;
	CHECK(slurm_spank_init(NULL, 1, av_one) == ESPANK_SUCCESS);
	CHECK(fake_reg == 0);
	fake_ctx = S_CTX_REMOTE;
	CHECK(slurm_spank_init(NULL, 2, av_ok) == ESPANK_SUCCESS);
	CHECK(site_set && !strcmp(site_what, "1 free=2G"));
	CHECK(logged_errors == 1 && strstr(last_log, "bogus"));
	CHECK(slurm_spank_init(NULL, 1, av_bad) == ESPANK_SUCCESS);
	CHECK(!site_set && logged_errors == 2);

	printf("== the host's cpuset root, read only (real toss.c)\n");
	ret = __real_toss_cgroup_from_path("/", &root, err, sizeof(err));
	printf("root: %d %s v1=%d %s\n", ret, root.dir, root.v1, err);
	if (ret) {
		printf("  (no cpuset hierarchy mounted here: the rest uses a v2 root of its own)\n");
		toss_cgroup_from_path("/", &root, err, sizeof(err));
	} else {
		ret = job_nodes(&root, cpus, sizeof(cpus), list, sizeof(list),
				&step);
		printf("job_nodes(root) = %d cpus \"%s\" nodes \"%s\"\n", ret,
		       cpus, list);
		CHECK(ret == 0 && cpus[0] && list[0]);
	}

	printf("== post_fork and epilog, fake job cgroup %s/jobcg\n", TEST_DIR);
	snprintf(err, sizeof(err), "%s/jobcg", TEST_DIR);
	mkdir(err, 0700);
	put(root.v1 ? "cgroup" : "cgroup.v2",
	    root.v1 ? v1 : v2);
	if (!root.v1)
		put("cgroup", v2);
	put("jobcg/cpuset.cpus.effective", "0\n");
	put("jobcg/cpuset.effective_cpus", "0\n");
	put("jobcg/cpuset.mems.effective", "0\n");
	put("jobcg/cpuset.effective_mems", "0\n");
	fake_ctx = S_CTX_REMOTE;

	/* nothing asked: no toss, no marker */
	reset_job();
	CHECK(slurm_spank_user_init(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 0 && !marker_exists(42));

	/* the option via getopt in user_init, batch step */
	reset_job();
	fake_has_opt = 1;
	fake_optarg = "512M:free=1G";
	fake_step = SLURM_BATCH_SCRIPT;
	CHECK(slurm_spank_user_init(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(!strcmp(fake_env, SRUN_OPT_ENV "=512M free=1G"));
	fake_task = 1;	/* not the first task */
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 0 && !marker_exists(42));
	fake_task = 0;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 1 && !strcmp(written, "512M free=1G nodes=0"));
	CHECK(strstr(written_dir, "/jobcg") && marker_exists(42));
	CHECK(strstr(last_log, "tossed nodes 0") && strstr(last_log, "ms"));
	/* step 0 of the same job: skipped */
	fake_step = 0;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 1);
	/* the epilog removes the marker: a requeue tosses again */
	CHECK(slurm_spank_job_epilog(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(!marker_exists(42));
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 2);

	/* the extern step (task id -1) and any extern step: skipped */
	reset_job();
	site_set = 1;
	snprintf(site_what, sizeof(site_what), "1");
	fake_step = SLURM_EXTERN_CONT;
	fake_task = -1;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	fake_task = 0;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 0 && !marker_exists(42));

	/* site default, srun step; a failing write is logged, not returned */
	fake_step = 3;
	write_ret = -EINVAL;
	logged_errors = 0;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 1 && !strcmp(written, "1 nodes=0"));
	CHECK(logged_errors == 1 && strstr(last_log, "job 42") &&
	      strstr(last_log, "1 nodes=0") && strstr(last_log, "invalid"));
	CHECK(!strcmp(fake_env, ""));	/* not the batch step */

	/* EAGAIN is info, not error */
	reset_job();
	site_set = 1;
	snprintf(site_what, sizeof(site_what), "1");
	write_ret = -EAGAIN;
	logged_errors = 0;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 1 && !logged_errors);

	/* another job: its cgroup is not found */
	reset_job();
	site_set = 1;
	snprintf(site_what, sizeof(site_what), "1");
	fake_job = 43;
	logged_errors = 0;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 0 && logged_errors == 1 && marker_exists(43));
	CHECK(strstr(last_log, "job 43"));
	CHECK(slurm_spank_job_epilog(NULL, 0, NULL) == ESPANK_SUCCESS);

	/* the CPUs' nodes are not in mems.effective */
	reset_job();
	site_set = 1;
	snprintf(site_what, sizeof(site_what), "1");
	put("jobcg/cpuset.mems.effective", "5\n");
	put("jobcg/cpuset.effective_mems", "5\n");
	logged_errors = 0;
	CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) == ESPANK_SUCCESS);
	CHECK(nwrites == 0 && logged_errors == 1 &&
	      strstr(last_log, "no node left"));
	put("jobcg/cpuset.mems.effective", "0\n");
	put("jobcg/cpuset.effective_mems", "0\n");

	/* no cgroup CPU file */
	reset_job();
	site_set = 1;
	snprintf(site_what, sizeof(site_what), "1");
	snprintf(err, sizeof(err), "%s/jobcg/cpuset.%s", TEST_DIR,
		 root.v1 ? "effective_cpus" : "cpus.effective");
	unlink(err);
	if (root.v1) {
		/* v1 falls back to cpuset.cpus */
		put("jobcg/cpuset.cpus", "0\n");
		CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) ==
		      ESPANK_SUCCESS);
		CHECK(nwrites == 1);
	} else {
		logged_errors = 0;
		CHECK(slurm_spank_task_post_fork(NULL, 0, NULL) ==
		      ESPANK_SUCCESS);
		CHECK(nwrites == 0 && logged_errors == 1);
	}
	reset_job();

	printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
	return failures ? 1 : 0;
}
