// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset-toss-oci-hook: an OCI runtime hook (createRuntime) that tosses a
 * container's cpuset as its annotation "cpuset.memory_toss_cache" says.
 *
 * The runtime gives the container's state on stdin: {"pid": N, "bundle":
 * "...", "annotations": {...}, ...}.  At createRuntime the container's
 * cgroup exists with its cpuset applied and the user's process has not
 * started.  The annotation's value is what is written ("1", "1 free=2G").
 * Without the annotation the hook exits 0 at once.  It exits non-zero
 * (which stops the container) only on a real error: unreadable state, no
 * cgroup, a request the kernel refuses, a kernel without the file.
 * EAGAIN (less could be dropped than asked) is a warning, not an error.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "toss.h"

#define ANNOTATION	"cpuset.memory_toss_cache"
#define STATE_MAX	(1 << 20)

struct json {
	const char *p, *end;
};

static void ws(struct json *j)
{
	while (j->p < j->end && isspace((unsigned char)*j->p))
		j->p++;
}

/*
 * The \uXXXX escape at j->p: all of its UTF-8 bytes but the last go to
 * out (surrogates are kept as they are), the last is left in *c.
 */
static int junicode(struct json *j, unsigned int *c, char *out, size_t len,
		    size_t *o)
{
	char hex[5];

	if (j->end - j->p < 4)
		return -1;
	memcpy(hex, j->p, 4);
	hex[4] = '\0';
	if (strspn(hex, "0123456789abcdefABCDEF") != 4)
		return -1;
	*c = strtoul(hex, NULL, 16);
	j->p += 4;
	if (*c < 0x80)
		return 0;
	if (*c < 0x800) {
		if (out && *o + 1 < len)
			out[(*o)++] = 0xc0 | (*c >> 6);
	} else {
		if (out && *o + 2 < len) {
			out[(*o)++] = 0xe0 | (*c >> 12);
			out[(*o)++] = 0x80 | ((*c >> 6) & 0x3f);
		}
	}
	*c = 0x80 | (*c & 0x3f);
	return 0;
}

/* A JSON string into out (UTF-8; \u escapes of the BMP), or skip it if
 * out is NULL.  Returns 0, 1 when it did not fit in out (then out holds
 * its start), or -1 on malformed JSON.
  */
static int jstring(struct json *j, char *out, size_t len)
{
	int cut = 0;
	size_t o = 0;

	ws(j);
	if (j->p >= j->end || *j->p != '"')
		return -1;
	j->p++;
	while (j->p < j->end && *j->p != '"') {
		unsigned int c = (unsigned char)*j->p++;

		if (c == '\\') {
			if (j->p >= j->end)
				return -1;
			c = (unsigned char)*j->p++;
			switch (c) {
			case 'n':
				c = '\n';
				break;
			case 't':
				c = '\t';
				break;
			case 'r':
				c = '\r';
				break;
			case 'b':
				c = '\b';
				break;
			case 'f':
				c = '\f';
				break;
			case '"':
			case '\\':
			case '/':
				break;
			case 'u':
				if (junicode(j, &c, out, len, &o))
					return -1;
				break;
			default:
				return -1;
			}
		}
		if (out) {
			if (o + 1 < len)
				out[o++] = c;
			else
				cut = 1;
		}
	}
	if (j->p >= j->end)
		return -1;
	j->p++;
	if (out)
		out[o] = '\0';
	return cut;
}

static int jvalue(struct json *j, int depth);

static int jcontainer(struct json *j, char open, char close, int depth)
{
	if (depth > 64)
		return -1;
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		return 0;
	}
	for (;;) {
		if (open == '{') {
			if (jstring(j, NULL, 0))
				return -1;
			ws(j);
			if (j->p >= j->end || *j->p++ != ':')
				return -1;
		}
		if (jvalue(j, depth + 1))
			return -1;
		ws(j);
		if (j->p >= j->end)
			return -1;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ == close)
			return 0;
		return -1;
	}
}

/* Skip one JSON value. */
static int jvalue(struct json *j, int depth)
{
	ws(j);
	if (j->p >= j->end)
		return -1;
	switch (*j->p) {
	case '"':
		return jstring(j, NULL, 0);
	case '{':
		return jcontainer(j, '{', '}', depth);
	case '[':
		return jcontainer(j, '[', ']', depth);
	default:
		if (!strchr("-0123456789tfn", *j->p))
			return -1;
		while (j->p < j->end && (isalnum((unsigned char)*j->p) || strchr("+-.", *j->p)))
			j->p++;
		return 0;
	}
}

/*
 * Find key in the object at j->p; leave j->p at its value.  Returns 0,
 * 1 when the object has no such key, -1 on malformed JSON.
 */
static int jfind(struct json *j, const char *key)
{
	const char *start = j->p;
	char k[256];

	ws(j);
	if (j->p >= j->end || *j->p != '{')
		return -1;
	j->p++;
	ws(j);
	if (j->p < j->end && *j->p == '}') {
		j->p = start;
		return 1;
	}
	for (;;) {
		/* a key too long for k cannot be ours */
		int kret = jstring(j, k, sizeof(k));

		if (kret < 0)
			return -1;
		ws(j);
		if (j->p >= j->end || *j->p++ != ':')
			return -1;
		if (!kret && !strcmp(k, key)) {
			ws(j);
			return 0;
		}
		if (jvalue(j, 1))
			return -1;
		ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == '}') {
			j->p = start;
			return 1;
		}
		return -1;
	}
}

static char *slurp(FILE *f, size_t *len)
{
	size_t cap = 65536, n = 0, r;
	char *buf = malloc(cap);

	while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
		n += r;
		if (n == cap) {
			char *nb = cap < STATE_MAX ? realloc(buf, cap * 2) : NULL;

			if (!nb) {
				free(buf);
				return NULL;
			}
			buf = nb;
			cap *= 2;
		}
	}
	*len = n;
	return buf;
}

/* The annotation's value from an object with "annotations": 0 found,
 * 1 none, -1 malformed.
  */
static int annotation(const char *doc, size_t len, char *val, size_t vlen)
{
	struct json j = { doc, doc + len };
	int ret = jfind(&j, "annotations");

	if (ret)
		return ret;
	if (j.p < j.end && !strncmp(j.p, "null", 4))
		return 1;
	ret = jfind(&j, ANNOTATION);
	if (ret)
		return ret;
	ret = jstring(&j, val, vlen);
	if (ret == 1)
		return -2;	/* longer than any request */
	return ret;
}

int main(void)
{
	char val[TOSS_REQ_MAX], err[PATH_MAX + 256] = "", bundle[PATH_MAX];
	struct toss_cgroup cg;
	struct json j;
	size_t len;
	char *state;
	long pid;
	int ret;

	state = slurp(stdin, &len);
	if (!state) {
		fprintf(stderr, "cpuset-toss-oci-hook: cannot read the container state on stdin\n");
		return 1;
	}
	ret = annotation(state, len, val, sizeof(val));
	if (ret == 1) {
		/* Runtimes older than runtime-spec 1.0.2 leave the
		 * annotations out of the state: read them in config.json.
		  */
		j = (struct json){ state, state + len };
		if (jfind(&j, "bundle") == 0 && jstring(&j, bundle, sizeof(bundle)) == 0) {
			char path[PATH_MAX + 16];
			size_t clen;
			char *config;
			FILE *f;

			snprintf(path, sizeof(path), "%s/config.json", bundle);
			f = fopen(path, "re");
			config = f ? slurp(f, &clen) : NULL;
			if (f)
				fclose(f);
			if (config) {
				ret = annotation(config, clen, val, sizeof(val));
				free(config);
			}
		}
	}
	if (ret == 1) {
		free(state);
		return 0;	/* not asked: nothing to do */
	}
	if (ret == -2) {
		fprintf(stderr, "cpuset-toss-oci-hook: the annotation " ANNOTATION " is longer than %d bytes\n",
			TOSS_REQ_MAX - 1);
		free(state);
		return 1;
	}
	if (ret < 0) {
		fprintf(stderr, "cpuset-toss-oci-hook: malformed container state on stdin\n");
		free(state);
		return 1;
	}
	j = (struct json){ state, state + len };
	pid = jfind(&j, "pid") ? 0 : strtol(j.p, NULL, 10);
	if (pid <= 0) {
		fprintf(stderr, "cpuset-toss-oci-hook: the container state has no pid\n");
		free(state);
		return 1;
	}
	free(state);

	ret = toss_cgroup_from_pid(pid, &cg, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "cpuset-toss-oci-hook: pid %ld: %s\n", pid,
			err[0] ? err : toss_strerror(ret));
		return 1;
	}
	ret = toss_write(&cg, val);
	if (ret == -EAGAIN) {
		fprintf(stderr, "cpuset-toss-oci-hook: %s: \"%s\": %s (the container starts)\n",
			cg.rel, val, toss_strerror(ret));
		return 0;
	}
	if (ret) {
		fprintf(stderr, "cpuset-toss-oci-hook: %s: \"%s\": %s\n", cg.rel, val,
			toss_strerror(ret));
		return 1;
	}
	return 0;
}
