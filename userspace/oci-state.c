// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The OCI state and config.json, read with jansson.  See oci-state.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "oci-state.h"

static int bad(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int bad(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* A string member, or none (0); -EINVAL for a non-string or too long. */
static int get_string(json_t *obj, const char *key, char *buf, size_t len,
		      int *has, char *err, size_t errlen)
{
	json_t *v = json_object_get(obj, key);
	const char *s;
	size_t l;

	*has = 0;
	if (!v)
		return 0;
	if (!json_is_string(v))
		return bad(err, errlen, "\"%s\" is not a string", key);
	s = json_string_value(v);
	l = json_string_length(v);
	/* a control character would reach syslog and the runtime's log */
	if (l >= len || strlen(s) != l || toss_has_control(s, l))
		return bad(err, errlen, "\"%s\" is too long or holds a NUL or a control character",
			   key);
	memcpy(buf, s, l + 1);
	*has = 1;
	return 0;
}

static json_t *load(const char *buf, size_t len, size_t flags, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root;

	if (len > OCI_STATE_MAX) {
		bad(err, errlen, "more than %d bytes", OCI_STATE_MAX);
		return NULL;
	}
	root = json_loadb(buf, len, JSON_REJECT_DUPLICATES | flags, &jerr);
	if (!root) {
		bad(err, errlen, "line %d: %s", jerr.line, jerr.text);
		return NULL;
	}
	if (!json_is_object(root)) {
		json_decref(root);
		bad(err, errlen, "not a JSON object");
		return NULL;
	}
	return root;
}

/* Does the annotation @key say "sandbox"? */
static int is_sandbox(json_t *ann, const char *key)
{
	json_t *v = json_object_get(ann, key);

	return json_is_string(v) && !strcmp(json_string_value(v), OCI_TYPE_SANDBOX);
}

static int get_annotation(json_t *root, struct oci_state *st, char *err, size_t errlen)
{
	json_t *ann = json_object_get(root, "annotations");
	int has, ret;

	if (!ann || json_is_null(ann))
		return 0;
	if (!json_is_object(ann))
		return bad(err, errlen, "\"annotations\" is not an object");
	ret = get_string(ann, OCI_ANNOTATION, st->request, sizeof(st->request),
			 &st->has_request, err, errlen);
	if (!ret && !st->has_request) {
		ret = get_string(ann, OCI_ANNOTATION_OLD, st->request, sizeof(st->request),
				 &st->has_request, err, errlen);
		st->request_old = st->has_request;
	}
	if (is_sandbox(ann, OCI_CRIO_TYPE) || is_sandbox(ann, OCI_CRI_TYPE))
		st->sandbox = 1;
	if (!ret && !st->pod_uid[0])
		ret = get_string(ann, OCI_POD_UID, st->pod_uid, sizeof(st->pod_uid), &has,
				 err, errlen);
	return ret;
}

/**
 * oci_state_parse() - the container state a hook gets on stdin
 * @buf: the state
 * @len: its length
 * @st: filled in
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or -EINVAL.
 */
int oci_state_parse(const char *buf, size_t len, struct oci_state *st,
		    char *err, size_t errlen)
{
	json_t *root, *pid;
	int has, ret;

	memset(st, 0, sizeof(*st));
	root = load(buf, len, 0, err, errlen);
	if (!root)
		return -EINVAL;
	ret = get_string(root, "id", st->id, sizeof(st->id), &has, err, errlen);
	if (!ret)
		ret = get_string(root, "bundle", st->bundle, sizeof(st->bundle), &has, err,
				 errlen);
	if (!ret)
		ret = get_annotation(root, st, err, errlen);
	pid = json_object_get(root, "pid");
	if (!ret && pid) {
		if (!json_is_integer(pid) || json_integer_value(pid) < 1 ||
		    json_integer_value(pid) > INT_MAX)
			ret = bad(err, errlen, "\"pid\" is not an integer in 1..%d", INT_MAX);
		else
			st->pid = json_integer_value(pid);
	}
	json_decref(root);
	return ret;
}

/**
 * oci_config_parse() - what the hook needs from the bundle's config.json
 * @buf: config.json
 * @len: its length
 * @st: the annotation (if the state had none) and cgroupsPath filled in
 * @err: a message on failure
 * @errlen: its size
 *
 * Return: 0 or -EINVAL.
 */
int oci_config_parse(const char *buf, size_t len, struct oci_state *st,
		     char *err, size_t errlen)
{
	json_t *root, *linux_;
	int ret = 0;

	/*
	 * Its integers as reals: a uint64 above 2^63-1 (runc's unlimited
	 * rlimit) would fail jansson's json_int_t, and the hook reads only
	 * strings here.
	 */
	root = load(buf, len, JSON_DECODE_INT_AS_REAL, err, errlen);
	if (!root)
		return -EINVAL;
	if (!st->has_request)
		ret = get_annotation(root, st, err, errlen);
	linux_ = json_object_get(root, "linux");
	if (!ret && linux_ && !json_is_object(linux_))
		ret = bad(err, errlen, "\"linux\" is not an object");
	if (!ret && linux_)
		ret = get_string(linux_, "cgroupsPath", st->cgroups_path,
				 sizeof(st->cgroups_path), &st->has_cgroups_path, err, errlen);
	json_decref(root);
	return ret;
}

/*
 * Is @comp one of the '/'-separated components of @path?  With @id, the
 * container id as the runtimes name its cgroup: a component "<id>",
 * "<id>.scope", or ending in "-<id>" or "-<id>.scope" (libpod-, crio-,
 * docker-, cri-containerd-), never a part of a longer name.
 */
static int has_component(const char *path, const char *comp, int id)
{
	size_t l = strlen(comp);
	const char *p = path;

	if (!l)
		return 0;
	while ((p = strchr(p, '/'))) {
		const char *c = ++p, *e = strchrnul(c, '/');
		size_t n = e - c;

		if (n == l && !memcmp(c, comp, l))
			return 1;
		if (!id)
			continue;
		if (n >= 6 && !memcmp(e - 6, ".scope", 6))
			n -= 6;
		if (n >= l && !memcmp(c + n - l, comp, l) && (n == l || c[n - l - 1] == '-'))
			return 1;
	}
	return 0;
}

/**
 * oci_cgroup_matches() - is a cgroup the container's
 * @st: its state and config
 * @rel: the cgroup, "/..." inside its hierarchy
 *
 * Return: 1 or 0.
 */
int oci_cgroup_matches(const struct oci_state *st, const char *rel)
{
	const char *cp = st->cgroups_path, *c1, *c2;
	char unit[PATH_MAX + 16];
	size_t l;

	if (!st->has_cgroups_path || !cp[0])
		return st->id[0] && has_component(rel, st->id, 1);
	c1 = strchr(cp, ':');
	c2 = c1 ? strchr(c1 + 1, ':') : NULL;
	if (c2) {
		/* systemd: "slice:prefix:name", the scope "prefix-name.scope" */
		const char *name = c2 + 1;

		l = strlen(name);
		if (l > 6 && !strcmp(name + l - 6, ".slice"))
			snprintf(unit, sizeof(unit), "%s", name);
		else if (c2 > c1 + 1)
			snprintf(unit, sizeof(unit), "%.*s-%s.scope", (int)(c2 - c1 - 1), c1 + 1,
				 name);
		else
			snprintf(unit, sizeof(unit), "%s.scope", name);
		return has_component(rel, unit, 0);
	}
	if (cp[0] == '/') {
		while (cp[1] == '/')
			cp++;
		l = strlen(cp);
		while (l > 1 && cp[l - 1] == '/')
			l--;
		if (l == 1)
			return 0;	/* "/": the root is no container's */
		return !strncmp(rel, cp, l) && (rel[l] == '\0' || rel[l] == '/');
	}
	/* relative to the runtime's own cgroup: "…/<cp>" or "…/<cp>/…" */
	l = strlen(cp);
	{
		const char *p = rel;

		while ((p = strstr(p, cp))) {
			if (p > rel && p[-1] == '/' && (p[l] == '\0' || p[l] == '/'))
				return 1;
			p++;
		}
	}
	return 0;
}

/* Does a component of @path before its last hold "pod<uid>", the uid's
 * '-' as they are or as '_'? */
static int parent_is_pod(const char *path, const char *uid)
{
	char want[2][160];
	const char *last = strrchr(path, '/');
	size_t l = strlen(uid), i;

	if (!l || l + 4 > sizeof(want[0]) || !last)
		return 0;
	snprintf(want[0], sizeof(want[0]), "pod%s", uid);
	snprintf(want[1], sizeof(want[1]), "pod%s", uid);
	for (i = 3; want[1][i]; i++)
		if (want[1][i] == '-')
			want[1][i] = '_';
	for (i = 0; i < 2; i++) {
		const char *p = path;

		while ((p = memmem(p, last - p, want[i], l + 3))) {
			char c = p[l + 3];

			/* the whole uid: "...pod<uid>.slice" or "/pod<uid>/" */
			if (c == '.' || c == '/')
				return 1;
			p++;
		}
	}
	return 0;
}

/**
 * oci_requester() - whose min_interval a container's toss counts against
 * @st: its state
 * @rel: its cgroup
 * @buf: the requester
 * @len: its size
 */
void oci_requester(const struct oci_state *st, const char *rel, char *buf,
		   size_t len)
{
	if (st->pod_uid[0] && parent_is_pod(rel, st->pod_uid))
		snprintf(buf, len, "pod-%s", st->pod_uid);
	else if (st->id[0])
		snprintf(buf, len, "ctr-%s", st->id);
	else
		snprintf(buf, len, "cgroup-%s", rel);
}
