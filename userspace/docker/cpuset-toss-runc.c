// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset-toss-runc(8): an OCI runtime that is runc plus the toss, for
 * Docker (a "runtimes" entry in /etc/docker/daemon.json) and containerd
 * (the runc shim's BinaryName).  Docker 20.10 has no annotations and no
 * unified keys; this is how a Docker user asks: docker run
 * --runtime=runc-toss --cpuset-mems=1 --cpuset-cpus=1 ...
 *
 * On "create" (and "run"), it adds to <bundle>/config.json the annotation
 * "io.github.cpuset-toss.request" (unless the bundle has it or the
 * deprecated "cpuset.memory_toss_cache") and a
 * createRuntime hook running cpuset-toss-oci-hook(8), which does the toss
 * as the site's policy allows (cpuset-toss.conf(5), [oci-hook]).  The
 * new config.json replaces the old one by rename(2).  Then, for every
 * command, it execs runc by its absolute path with all of its arguments
 * but its own.  The way nvidia-container-runtime injects its hook.
 *
 * Its own options come first (Docker's runtimeArgs are put before
 * runc's); each has the --name=value form:
 *   --toss=WHAT          the annotation's value when the bundle has none
 *                        (default "1"; ':' stands for a space, because
 *                        Docker writes runtimeArgs into a shell script
 *                        unquoted); --toss= (empty) adds no annotation,
 *                        and the hook only where the bundle has one
 *   --toss-runtime=PATH  the runtime to exec (default /usr/sbin/runc)
 *
 * It never fails a container over the toss: a config.json it cannot
 * read or rewrite is left as it is, and logged.  It writes nothing to
 * stdout or stderr on "create": under containerd's shim those are the
 * container's own stdio.  Everything goes to syslog.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sysexits.h>
#include <syslog.h>
#include <unistd.h>

#include "toss.h"	/* toss_has_control() */

#ifndef CPUSET_TOSS_RUNC
#define CPUSET_TOSS_RUNC "/usr/sbin/runc"
#endif
#ifndef CPUSET_TOSS_HOOK
#define CPUSET_TOSS_HOOK "/usr/libexec/cpuset-toss/cpuset-toss-oci-hook"
#endif
#define ANNOTATION	"io.github.cpuset-toss.request"
#define ANNOTATION_OLD	"cpuset.memory_toss_cache"	/* 1.0's, deprecated */
#define HOOK_TIMEOUT	30	/* as the hooks.d file's; the hook gives up first */
#define WHAT_MAX	1023	/* the kernel's request limit, less the NUL */

static const char *container = "?";

static void rlog(int prio, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void rlog(int prio, const char *fmt, ...)
{
	char msg[2048];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	syslog(prio, "container %s: %s", container, msg);
}

/* The flag's name without its dashes (runc's CLI takes -x and --x). */
static int flag_is(const char *arg, const char *const *names)
{
	size_t n;

	if (arg[0] != '-')
		return 0;
	arg += arg[1] == '-' ? 2 : 1;
	n = strcspn(arg, "=");
	for (; *names; names++)
		if (strlen(*names) == n && !strncmp(arg, *names, n))
			return 1;
	return 0;
}

/* runc's global flags that take a value, and create's and run's. */
static const char *const global_val[] = {
	"root", "log", "log-format", "criu", "rootless", NULL };
static const char *const create_val[] = {
	"bundle", "b", "console-socket", "pid-file", "preserve-fds", NULL };
static const char *const bundle_flag[] = { "bundle", "b", NULL };

/*
 * The command (argv[*cmd]) after runc's global flags, and for create and
 * run the bundle (last --bundle/-b wins, as in runc; "." without one)
 * and the container id.  Flags may follow the id (urfave/cli reorders).
 */
static void parse_runc_args(int argc, char **argv, int *cmd, const char **bundle,
			    const char **id)
{
	int i;

	*bundle = NULL;
	*id = NULL;
	for (i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (argv[i][0] != '-' || !argv[i][1])
			break;
		if (flag_is(argv[i], global_val) && !strchr(argv[i], '='))
			i++;
	}
	*cmd = i;
	if (i >= argc || (strcmp(argv[i], "create") && strcmp(argv[i], "run")))
		return;
	*bundle = ".";
	for (i++; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			if (i + 1 < argc && !*id)
				*id = argv[i + 1];
			break;
		}
		if (a[0] != '-' || !a[1]) {
			if (!*id)
				*id = a;
			continue;
		}
		if (!flag_is(a, create_val))
			continue;
		if (strchr(a, '=')) {
			if (flag_is(a, bundle_flag))
				*bundle = strchr(a, '=') + 1;
		} else if (i + 1 < argc) {
			if (flag_is(a, bundle_flag))
				*bundle = argv[i + 1];
			i++;
		}
	}
}

static int has_our_hook(json_t *list)
{
	size_t i;
	json_t *h, *p;

	json_array_foreach(list, i, h) {
		p = json_object_get(h, "path");
		if (json_is_string(p) && !strcmp(json_string_value(p), CPUSET_TOSS_HOOK))
			return 1;
	}
	return 0;
}

/* The object member `key` of `obj`, created empty when absent. */
static json_t *member(json_t *obj, const char *key, int array)
{
	json_t *v = json_object_get(obj, key);

	if (json_is_null(v))	/* Go writes a nil map or slice as null */
		v = NULL;
	if (v)
		return (array ? json_is_array(v) : json_is_object(v)) ? v : NULL;
	v = array ? json_array() : json_object();
	if (!v || json_object_set_new(obj, key, v))
		return NULL;
	return v;
}

/*
 * Adds the annotation (if `what` is not empty and the bundle has none)
 * and the hook (if the bundle then has the annotation) to the spec.
 * Returns 1 if it changed it, 0 if not, -1 if the spec is not what the
 * OCI runtime spec says.
 */
static int add_toss(json_t *spec, const char *what)
{
	json_t *ann, *hooks, *cr, *hook, *cur;
	int changed = 0;

	if (!json_is_object(spec) || !(ann = member(spec, "annotations", 0)))
		return -1;
	cur = json_object_get(ann, ANNOTATION);
	if (json_is_null(cur))
		cur = NULL;
	if (!cur)
		cur = json_object_get(ann, ANNOTATION_OLD);
	if (json_is_null(cur))
		cur = NULL;
	if (cur && !json_is_string(cur))
		return -1;
	if (cur) {
		/* the pod author's text: no control character into syslog */
		rlog(LOG_INFO, "the bundle asks for \"%s\" itself",
		     toss_has_control(json_string_value(cur), json_string_length(cur)) ?
		     "(a value with a control character)" : json_string_value(cur));
	} else if (*what) {
		if (json_object_set_new(ann, ANNOTATION, json_string(what)))
			return -1;
		changed = 1;
	} else {
		return 0;	/* not asked: no hook either */
	}
	if (!(hooks = member(spec, "hooks", 0)) || !(cr = member(hooks, "createRuntime", 1)))
		return -1;
	if (has_our_hook(cr))
		return changed;
	hook = json_pack("{s:s, s:[s], s:i}", "path", CPUSET_TOSS_HOOK,
			 "args", CPUSET_TOSS_HOOK, "timeout", HOOK_TIMEOUT);
	if (!hook || json_array_append_new(cr, hook))
		return -1;
	return 1;
}

/*
 * jansson holds an integer as a json_int_t (64 bits, signed): a uint64
 * above 2^63-1 in config.json, as runc's "unlimited" rlimit
 * (18446744073709551615, from docker run --ulimit memlock=-1), fails the
 * load; and it writes a real back in its own form (1.5e3 as 1500.0, which
 * Go refuses for an integer field).  Such numbers are swapped for strings
 * "NUM_MARK<i>" before the load and put back as they were written after
 * the dump: config.json changes only where the toss is added.
 */
#define NUM_MARK	"@cpuset-toss-runc:number:"
#define CONFIG_MAX	(64 << 20)	/* bytes of config.json */

struct numbers {
	char **tok;
	size_t n;
};

static void numbers_free(struct numbers *nums)
{
	while (nums->n)
		free(nums->tok[--nums->n]);
	free(nums->tok);
	nums->tok = NULL;
}

/* Is t[0..n) a JSON number: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)? */
static int json_number(const char *t, size_t n)
{
	size_t i = t[0] == '-', k;

	if (i >= n || !isdigit((unsigned char)t[i]) || (t[i] == '0' && i + 1 < n &&
						       isdigit((unsigned char)t[i + 1])))
		return 0;
	while (i < n && isdigit((unsigned char)t[i]))
		i++;
	if (i < n && t[i] == '.') {
		for (k = ++i; i < n && isdigit((unsigned char)t[i]); i++)
			;
		if (i == k)
			return 0;
	}
	if (i < n && (t[i] == 'e' || t[i] == 'E')) {
		if (++i < n && (t[i] == '+' || t[i] == '-'))
			i++;
		for (k = i; i < n && isdigit((unsigned char)t[i]); i++)
			;
		if (i == k)
			return 0;
	}
	return i == n;
}

/*
 * A number t[0..n), its sign and digits t[0..d): one jansson would not
 * write back as it is?  Not a JSON number: left for jansson to refuse.
 */
static int number_kept(const char *t, size_t n, size_t d)
{
	char num[32];

	if (!json_number(t, n))
		return 0;
	if (n != d)
		return 1;	/* a fraction or an exponent */
	if (d - (t[0] == '-') < 19)
		return 0;	/* fits in 63 bits */
	if (d >= sizeof(num))
		return 1;
	memcpy(num, t, d);
	num[d] = '\0';
	errno = 0;
	strtoll(num, NULL, 10);
	return errno == ERANGE;
}

static int put(char **out, size_t *cap, size_t *o, const char *s, size_t n)
{
	char *nb;

	if (*o + n >= *cap) {
		*cap = *cap * 2 + n;
		nb = realloc(*out, *cap);
		if (!nb)
			return -1;
		*out = nb;
	}
	memcpy(*out + *o, s, n);
	*o += n;
	(*out)[*o] = '\0';
	return 0;
}

/* @text with those numbers as strings, *@olen bytes; NULL on error. */
static char *hide_numbers(const char *text, size_t len, struct numbers *nums,
			  size_t *olen)
{
	size_t i = 0, o = 0, cap = len + 1;
	char *out = malloc(cap), **nt, mark[64];
	int in_str = 0;

	if (!out || memmem(text, len, NUM_MARK, strlen(NUM_MARK)))
		goto fail;
	while (i < len) {
		const char *t = text + i;
		size_t n = 1, d;

		if (in_str) {
			if (*t == '\\' && i + 1 < len)
				n = 2;
			else if (*t == '"')
				in_str = 0;
		} else if (*t == '"') {
			in_str = 1;
		} else if (*t == '-' || (*t >= '0' && *t <= '9')) {
			for (d = 1; i + d < len && t[d] >= '0' && t[d] <= '9'; d++)
				;
			for (n = d; i + n < len && strchr("0123456789+-.eE", t[n]); n++)
				;
			if (number_kept(t, n, d)) {
				nt = realloc(nums->tok, (nums->n + 1) * sizeof(*nt));
				if (!nt)
					goto fail;
				nums->tok = nt;
				nums->tok[nums->n] = strndup(t, n);
				if (!nums->tok[nums->n])
					goto fail;
				snprintf(mark, sizeof(mark), "\"" NUM_MARK "%zu\"", nums->n++);
				if (put(&out, &cap, &o, mark, strlen(mark)))
					goto fail;
				i += n;
				continue;
			}
		}
		if (put(&out, &cap, &o, t, n))
			goto fail;
		i += n;
	}
	*olen = o;
	return out;
fail:
	free(out);
	numbers_free(nums);
	return NULL;
}

/* The dump with hide_numbers()'s strings back as the numbers; consumed. */
static char *show_numbers(char *dump, const struct numbers *nums)
{
	size_t o = 0, cap = strlen(dump) + 1, i;
	const char *p = dump, *m;
	char *out = NULL, *end;

	if (!nums->n)
		return dump;
	out = malloc(cap);
	while (out && (m = strstr(p, "\"" NUM_MARK))) {
		i = strtoul(m + 1 + strlen(NUM_MARK), &end, 10);
		if (i >= nums->n || *end != '"' ||
		    put(&out, &cap, &o, p, m - p) ||
		    put(&out, &cap, &o, nums->tok[i], strlen(nums->tok[i]))) {
			free(out);
			out = NULL;
			break;
		}
		p = end + 1;
	}
	if (out && put(&out, &cap, &o, p, strlen(p))) {
		free(out);
		out = NULL;
	}
	free(dump);
	return out;
}

static int write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * <bundle>/config.json with the toss added, replaced atomically: a new
 * file in the bundle directory, same mode and owner, renamed over it.
 */
static void edit_bundle(const char *bundle, const char *what)
{
	char tmp[64], *text = NULL, *orig = NULL, *hidden = NULL;
	struct numbers nums = { NULL, 0 };
	size_t hlen = 0;
	int dfd, fd = -1, r;
	json_error_t jerr;
	json_t *spec = NULL;
	struct stat st;
	ssize_t n;

	dfd = open(bundle, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		rlog(LOG_ERR, "bundle %s: %m; container left as it is", bundle);
		return;
	}
	fd = openat(dfd, "config.json", O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rlog(LOG_ERR, "%s/config.json: %s; container left as it is", bundle,
		     fd < 0 ? strerror(errno) : "not a regular file");
		goto out;
	}
	if (st.st_size > CONFIG_MAX || !(orig = malloc(st.st_size + 1))) {
		rlog(LOG_ERR, "%s/config.json: larger than %d bytes or out of memory; container left as it is",
		     bundle, CONFIG_MAX);
		goto out;
	}
	n = read(fd, orig, st.st_size + 1);
	close(fd);
	fd = -1;
	if (n != st.st_size) {
		rlog(LOG_ERR, "%s/config.json: cannot read it whole; container left as it is", bundle);
		goto out;
	}
	hidden = hide_numbers(orig, n, &nums, &hlen);
	if (!hidden) {
		rlog(LOG_ERR, "%s/config.json: out of memory, or holds \"%s\"; container left as it is",
		     bundle, NUM_MARK);
		goto out;
	}
	/* duplicate keys: the last wins, as in runc's Go decoder */
	spec = json_loadb(hidden, hlen, JSON_ALLOW_NUL, &jerr);
	if (!spec) {
		rlog(LOG_ERR, "%s/config.json: line %d: %s; container left as it is",
		     bundle, jerr.line, jerr.text);
		goto out;
	}
	r = add_toss(spec, what);
	if (r < 0) {
		rlog(LOG_ERR, "%s/config.json: annotations or hooks.createRuntime of the wrong type; "
		     "container left as it is", bundle);
		goto out;
	}
	if (r == 0)
		goto out;
	text = json_dumps(spec, JSON_COMPACT);
	if (text)
		text = show_numbers(text, &nums);
	if (!text) {
		rlog(LOG_ERR, "%s/config.json: out of memory; container left as it is", bundle);
		goto out;
	}
	snprintf(tmp, sizeof(tmp), ".config.json.cpuset-toss.%d", (int)getpid());
	fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0) {
		rlog(LOG_ERR, "%s/%s: %m; container left as it is", bundle, tmp);
		goto out;
	}
	if (write_all(fd, text, strlen(text)) || write_all(fd, "\n", 1) ||
	    (fchown(fd, st.st_uid, st.st_gid) && errno != EPERM) ||
	    fchmod(fd, st.st_mode & 07777) || fsync(fd) ||
	    renameat(dfd, tmp, dfd, "config.json")) {
		rlog(LOG_ERR, "%s/config.json: cannot replace it: %m; container left as it is",
		     bundle);
		unlinkat(dfd, tmp, 0);
		goto out;
	}
	rlog(LOG_INFO, "added the createRuntime hook %s%s%s%s", CPUSET_TOSS_HOOK,
	     *what ? " and the annotation \"" : "", what, *what ? "\"" : "");
out:
	if (fd >= 0)
		close(fd);
	close(dfd);
	free(text);
	free(orig);
	free(hidden);
	numbers_free(&nums);
	json_decref(spec);
}

/* --toss=WHAT: printable ASCII, ':' for a space, at most WHAT_MAX. */
static int parse_what(const char *arg, char *buf, size_t len)
{
	size_t i, n = strlen(arg);

	if (n >= len)
		return -1;
	for (i = 0; i < n; i++) {
		if (arg[i] <= ' ' || arg[i] > '~')
			return -1;
		buf[i] = arg[i] == ':' ? ' ' : arg[i];
	}
	buf[n] = 0;
	return 0;
}

int main(int argc, char **argv)
{
	static char what[WHAT_MAX + 1] = "1";
	const char *runtime = CPUSET_TOSS_RUNC, *bundle, *id;
	int i, first, cmd;
	char **nargv;

	openlog("cpuset-toss-runc", LOG_PID, LOG_DAEMON);
	for (first = 1; first < argc; first++) {
		const char *a = argv[first];

		if (!strncmp(a, "--toss=", 7)) {
			if (parse_what(a + 7, what, sizeof(what))) {
				rlog(LOG_ERR, "%s: not a request (printable, ':' for a space, "
				     "at most %d characters)", a, WHAT_MAX);
				fprintf(stderr, "cpuset-toss-runc: %s: not a request\n", a);
				return EX_USAGE;
			}
		} else if (!strncmp(a, "--toss-runtime=", 15)) {
			runtime = a + 15;
			if (runtime[0] != '/') {
				rlog(LOG_ERR, "%s: not an absolute path", a);
				fprintf(stderr, "cpuset-toss-runc: %s: not an absolute path\n", a);
				return EX_USAGE;
			}
		} else if (!strncmp(a, "--toss", 6)) {
			rlog(LOG_ERR, "%s: unknown option", a);
			fprintf(stderr, "cpuset-toss-runc: %s: unknown option\n", a);
			return EX_USAGE;
		} else {
			break;
		}
	}
	parse_runc_args(argc - first, argv + first, &cmd, &bundle, &id);
	if (bundle) {
		if (id && !toss_has_control(id, strlen(id)))
			container = id;
		edit_bundle(bundle, what);
	}

	nargv = calloc((size_t)(argc - first) + 2, sizeof(*nargv));
	if (!nargv) {
		rlog(LOG_ERR, "out of memory");
		return EX_OSERR;
	}
	nargv[0] = (char *)runtime;
	for (i = first; i < argc; i++)
		nargv[i - first + 1] = argv[i];
	closelog();
	execv(runtime, nargv);
	openlog("cpuset-toss-runc", LOG_PID, LOG_DAEMON);
	rlog(LOG_ERR, "cannot run %s: %m", runtime);
	fprintf(stderr, "cpuset-toss-runc: cannot run %s: %s\n", runtime, strerror(errno));
	free(nargv);
	return EX_UNAVAILABLE;
}
