// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * cpuset-toss-generator(8): turn X-MemoryTossCache= lines of unit files into
 * drop-ins that toss a cpuset's page cache before its processes start.
 *
 * A systemd system generator, run by the manager at boot and on every
 * daemon-reload as
 *
 *	cpuset-toss-generator normal-dir [early-dir late-dir]
 *
 * It reads the unit files and drop-ins of the system unit search path the
 * way the manager will read them, and for every unit with a non-empty
 * X-MemoryTossCache=REQUEST (the last assignment wins, an empty one resets)
 * writes into normal-dir:
 *
 *  - a service S ([Service] section):
 *	S.d/50-cpuset-toss.conf
 *		[Service]
 *		ExecStartPre=-+/usr/bin/cpuset-toss --quiet --write "REQUEST" --unit S
 *    ("+": with full privileges; "-": a failed toss is logged in the
 *    unit's journal and does not keep the service from starting, as a
 *    failed toss of a slice does not keep its units from starting)
 *
 *  - a slice U ([Slice] section):
 *	cpuset-toss@U.service.d/50-request.conf
 *		[Service]
 *		Environment="CPUSET_TOSS_WRITE=REQUEST"
 *		Slice=U
 *	U.d/50-cpuset-toss.conf
 *		[Unit]
 *		Wants=cpuset-toss@U.service
 *    and for every unit X found in U (Slice= naming U or a slice inside U,
 *    or a slice inside U by its name), but not a cpuset-toss@ unit:
 *	X.d/50-cpuset-toss-after.conf
 *		[Unit]
 *		Wants=cpuset-toss@U.service
 *		After=cpuset-toss@U.service
 *
 * No ordering cycle: cpuset-toss@U.service is After=U (Requires=, After=
 * in the template, and Slice=U); U only Wants= it; the units of U are
 * After= it. See cpuset-toss@.service.
 *
 * The generator rules of systemd.generator(7): it writes only into the
 * output directory, talks to no other process (no D-Bus, no systemctl),
 * logs to /dev/kmsg when run by the manager (to stderr otherwise), and a
 * bad unit file or value is logged and skipped, never a failure: the exit
 * status is 0 unless the command line is wrong or an output file cannot
 * be written.
 *
 * CPUSET_TOSS_UNIT_PATH, a colon-separated list of directories, replaces
 * the unit search path (for tests).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#define PROG		"cpuset-toss-generator"
#ifndef CPUSET_TOSS_BIN		/* the top Makefile passes $(BINDIR)/cpuset-toss */
#define CPUSET_TOSS_BIN	"/usr/bin/cpuset-toss"
#endif
#define TOSS_TEMPLATE	"cpuset-toss@"
#define UNIT_NAME_MAX	256	/* a unit name is shorter than this */
#define REQUEST_MAX	1024	/* the kernel's limit on a request, with NUL */

/*
 * The system unit search path of Debian 12's systemd 252, in precedence
 * order, less the directories no administrator writes unit files to by
 * hand (system.control, transient, system.attached) and the generator
 * output directories, which the manager empties before it runs generators.
 * /lib/systemd/system is where Debian 12 installs its units; with merged
 * /usr it is /usr/lib/systemd/system, read once.
 */
static const char *const default_path[] = {
	"/etc/systemd/system",
	"/run/systemd/system",
	"/usr/local/lib/systemd/system",
	"/lib/systemd/system",
	"/usr/lib/systemd/system",
};

enum unit_type {
	T_SERVICE,
	T_SOCKET,
	T_MOUNT,
	T_SWAP,
	T_SCOPE,
	T_SLICE,
	T_OTHER,	/* a unit type without Slice= or X-MemoryTossCache= */
};

static const struct {
	const char *suffix;	/* ".service" */
	const char *section;	/* where Slice= (and X-MemoryTossCache=) is */
} types[] = {
	[T_SERVICE] = { ".service", "Service" },
	[T_SOCKET] = { ".socket", "Socket" },
	[T_MOUNT] = { ".mount", "Mount" },
	[T_SWAP] = { ".swap", "Swap" },
	[T_SCOPE] = { ".scope", "Scope" },
	[T_SLICE] = { ".slice", "Slice" },
};

static const char *const other_suffixes[] = {
	".target", ".timer", ".path", ".device", ".automount",
};

/* One directory of the search path. */
struct dir {
	char *path;
	char **dropins;		/* names of its NAME.d directories, less ".d", sorted */
	size_t ndropins;
};

/* A unit with a unit file or a drop-in directory. */
struct unit {
	char *name;
	enum unit_type type;
	char *frag;		/* its unit file, or NULL */
	char *toss;		/* X-MemoryTossCache=, or NULL */
	char *slice;		/* Slice=, or NULL */
	int skip;		/* masked, an alias or not loadable */
	char **after;		/* tossing slices it is in */
	size_t nafter;
};

/* A file found in a directory, while scanning it. */
struct entry {
	char *name;
	size_t dir;
	int is_dropin_dir;
};

static struct dir *dirs;
static size_t ndirs;
static struct unit *units;
static size_t nunits;
static const char *outdir;
static int kmsg_fd = -1;
static int write_failed;

static void logmsg(int level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void logmsg(int level, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	int n;

	if (kmsg_fd >= 0)
		n = snprintf(buf, sizeof(buf), "<%d>%s[%d]: ", (3 << 3) | level,
			     PROG, (int)getpid());
	else
		n = snprintf(buf, sizeof(buf), "%s: ", PROG);
	va_start(ap, fmt);
	vsnprintf(buf + n, sizeof(buf) - n - 1, fmt, ap);
	va_end(ap);
	strcat(buf, "\n");
	if (kmsg_fd < 0 || write(kmsg_fd, buf, strlen(buf)) < 0)
		fputs(buf, stderr);
}

#define LOG_ERR		3
#define LOG_WARNING	4
#define LOG_INFO	6
#define log_err(...)	logmsg(LOG_ERR, __VA_ARGS__)
#define log_warn(...)	logmsg(LOG_WARNING, __VA_ARGS__)
#define log_info(...)	logmsg(LOG_INFO, __VA_ARGS__)

static void oom(void)
{
	log_err("out of memory");
	exit(EXIT_FAILURE);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

static char *xstrdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		oom();
	return p;
}

static char *xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		oom();
	va_end(ap);
	return p;
}

/* qsort(), which must not be passed NULL, not even for nothing */
static void sort(void *base, size_t n, size_t size,
		 int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int cmp_len(const void *a, const void *b)
{
	size_t x = strlen(*(char *const *)a), y = strlen(*(char *const *)b);

	return x < y ? -1 : x > y;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* The type of a unit name by its suffix; -1 if it has none we know. */
static int name_type(const char *name)
{
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (ends_with(name, types[i].suffix))
			return i;
	for (i = 0; i < sizeof(other_suffixes) / sizeof(other_suffixes[0]); i++)
		if (ends_with(name, other_suffixes[i]))
			return T_OTHER;
	return -1;
}

/*
 * A unit name we may use in a path and a unit file: only
 * [A-Za-z0-9:_.\@-], shorter than 256, a known type suffix after a
 * non-empty prefix, at most one "@".
 */
static int name_is_valid(const char *name)
{
	const char *p, *at;
	size_t len = strlen(name);
	int t;

	if (!len || len >= UNIT_NAME_MAX || name[0] == '.')
		return 0;
	for (p = name; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || strchr(":_.\\@-", *p)))
			return 0;
	t = name_type(name);
	if (t < 0)
		return 0;
	at = strchr(name, '@');
	if (at && (at == name || strchr(at + 1, '@')))
		return 0;
	/* "@.service" and ".service" have no prefix */
	return strlen(name) > strlen(t == T_OTHER ? strrchr(name, '.') :
				     types[t].suffix);
}

static const char *suffix_of(const char *name)
{
	return strrchr(name, '.');
}

static int is_template(const char *name)
{
	return strstr(name, "@.") != NULL;
}

static int is_instance(const char *name)
{
	return strchr(name, '@') && !is_template(name);
}

/* "foo@bar.service" -> "foo@.service" */
static char *template_of(const char *name)
{
	const char *at = strchr(name, '@');

	return xasprintf("%.*s@%s", (int)(at - name), name, suffix_of(name));
}

/*
 * A prefix drop-in name ("foo-.service" or "foo-@bar.service"), which
 * applies to every unit whose name begins with "foo-": never a unit of
 * its own here, never a directory we write into.
 */
static int is_prefix_name(const char *name)
{
	const char *end = strchr(name, '@');

	if (!end)
		end = suffix_of(name);
	return end > name && end[-1] == '-';
}

/* the slice a slice is in by its name: "a-b.slice" -> "a.slice" */
static int slice_is_inside(const char *slice, const char *parent)
{
	size_t n = strlen(parent) - strlen(".slice");

	if (!strcmp(slice, parent))
		return 1;
	return !strncmp(slice, parent, n) && slice[n] == '-' &&
	       ends_with(slice, ".slice");
}

/*
 * Masked, like systemd's null_or_empty(): a symlink to /dev/null (any
 * character device) or an empty regular file.
 */
static int is_masked(const struct stat *st)
{
	return S_ISCHR(st->st_mode) || (S_ISREG(st->st_mode) && st->st_size <= 0);
}

static int cmp_entry(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r)
		return r;
	if (x->dir != y->dir)
		return x->dir < y->dir ? -1 : 1;
	return x->is_dropin_dir - y->is_dropin_dir;
}

static void add_dir(const char *path, struct stat *seen, size_t *nseen)
{
	struct stat st;
	size_t i;

	if (!*path)
		return;
	if (path[0] != '/') {
		log_warn("unit path %s is not absolute, ignored", path);
		return;
	}
	/* /lib/systemd/system is /usr/lib/systemd/system with merged /usr */
	if (!stat(path, &st)) {
		for (i = 0; i < *nseen; i++)
			if (seen[i].st_dev == st.st_dev && seen[i].st_ino == st.st_ino)
				return;
		seen[(*nseen)++] = st;
	}
	dirs = xrealloc(dirs, (ndirs + 1) * sizeof(*dirs));
	memset(&dirs[ndirs], 0, sizeof(*dirs));
	dirs[ndirs++].path = xstrdup(path);
}

static void init_path(void)
{
	const char *env = getenv("CPUSET_TOSS_UNIT_PATH");
	struct stat *seen;
	size_t nseen = 0, n, i;
	char *copy, *p, *tok;

	if (env) {
		copy = xstrdup(env);
		for (n = 1, p = copy; *p; p++)
			n += *p == ':';
		seen = xrealloc(NULL, n * sizeof(*seen));
		for (p = copy; (tok = strsep(&p, ":")); )
			add_dir(tok, seen, &nseen);
		free(copy);
	} else {
		n = sizeof(default_path) / sizeof(default_path[0]);
		seen = xrealloc(NULL, n * sizeof(*seen));
		for (i = 0; i < n; i++)
			add_dir(default_path[i], seen, &nseen);
	}
	free(seen);
}

/* Lists every directory of the search path; returns its entries. */
static struct entry *scan_dirs(size_t *nentries)
{
	struct entry *e = NULL;
	size_t n = 0, i;

	for (i = 0; i < ndirs; i++) {
		struct dir *d = &dirs[i];
		struct dirent *de;
		DIR *dp = opendir(d->path);

		if (!dp) {
			if (errno != ENOENT)
				log_warn("cannot read %s: %m", d->path);
			continue;
		}
		while ((de = readdir(dp))) {
			char name[UNIT_NAME_MAX + 2];
			size_t len = strlen(de->d_name);
			int dropin = 0;
			struct stat st;

			if (de->d_name[0] == '.' || len >= sizeof(name))
				continue;
			strcpy(name, de->d_name);
			if (len > 2 && ends_with(name, ".d")) {
				name[len - 2] = '\0';
				dropin = 1;
			}
			/* "service.d", the top-level drop-ins of a type */
			if (dropin && name_type(name) < 0) {
				char dotted[UNIT_NAME_MAX + 2] = ".";

				strcat(dotted, name);
				if (name_type(dotted) < 0 || strcmp(dotted,
				    suffix_of(dotted)))
					continue;
			} else if (!name_is_valid(name)) {
				continue;
			}
			if (dropin) {
				if (fstatat(dirfd(dp), de->d_name, &st, 0) ||
				    !S_ISDIR(st.st_mode))
					continue;
				d->dropins = xrealloc(d->dropins, (d->ndropins + 1) *
						      sizeof(*d->dropins));
				d->dropins[d->ndropins++] = xstrdup(name);
				if (!name_is_valid(name))
					continue;	/* "service.d" */
			} else if (de->d_type == DT_DIR) {
				continue;
			}
			e = xrealloc(e, (n + 1) * sizeof(*e));
			e[n].name = xstrdup(name);
			e[n].dir = i;
			e[n].is_dropin_dir = dropin;
			n++;
		}
		closedir(dp);
		sort(d->dropins, d->ndropins, sizeof(*d->dropins), cmp_str);
	}
	sort(e, n, sizeof(*e), cmp_entry);
	*nentries = n;
	return e;
}

static int dir_has_dropins(const struct dir *d, const char *name)
{
	return d->ndropins && bsearch(&name, d->dropins, d->ndropins,
				      sizeof(*d->dropins), cmp_str);
}

/*
 * The file the manager loads for a unit name from the directories: the
 * first one found. NULL if none; then *masked is set if it is masked or
 * an alias.
 */
static char *find_fragment(const char *name, int *masked)
{
	size_t i;

	*masked = 0;
	for (i = 0; i < ndirs; i++) {
		char *path = xasprintf("%s/%s", dirs[i].path, name);
		struct stat lst, st;

		if (lstat(path, &lst)) {
			free(path);
			continue;
		}
		if (stat(path, &st)) {
			log_warn("%s: dangling symlink, ignored", path);
			free(path);
			return NULL;
		}
		if (is_masked(&st)) {
			*masked = 1;
			free(path);
			return NULL;
		}
		if (!S_ISREG(st.st_mode)) {
			free(path);
			continue;
		}
		/*
		 * A symlink to a unit file of another name is an alias: that
		 * unit is read under its own name, not this one. An instance
		 * may link to its template.
		 */
		if (S_ISLNK(lst.st_mode)) {
			char *target = realpath(path, NULL);
			const char *base = target ? strrchr(target, '/') + 1 : "";
			char *tmpl = is_instance(name) ? template_of(name) : NULL;
			int alias = strcmp(base, name) && (!tmpl || strcmp(base, tmpl));

			free(tmpl);
			free(target);
			if (alias) {
				free(path);
				*masked = 1;
				return NULL;
			}
		}
		return path;
	}
	return NULL;
}

struct conf {
	char *base;
	char *path;	/* NULL: masked */
};

static int cmp_conf(const void *a, const void *b)
{
	return strcmp(((const struct conf *)a)->base, ((const struct conf *)b)->base);
}

/* Adds the *.conf files of DIR/NAME.d that no earlier file of the same name hides. */
static void add_confs(const struct dir *d, const char *name,
		      struct conf **confs, size_t *nconfs)
{
	char *path = xasprintf("%s/%s.d", d->path, name);
	struct dirent *de;
	DIR *dp;
	size_t i;

	dp = opendir(path);
	if (!dp) {
		log_warn("cannot read %s: %m", path);
		free(path);
		return;
	}
	while ((de = readdir(dp))) {
		struct stat st;

		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".conf"))
			continue;
		for (i = 0; i < *nconfs; i++)
			if (!strcmp((*confs)[i].base, de->d_name))
				break;
		if (i < *nconfs)
			continue;	/* overridden */
		if (fstatat(dirfd(dp), de->d_name, &st, 0))
			continue;
		if (!S_ISREG(st.st_mode) && !S_ISCHR(st.st_mode))
			continue;
		*confs = xrealloc(*confs, (*nconfs + 1) * sizeof(**confs));
		(*confs)[*nconfs].base = xstrdup(de->d_name);
		(*confs)[*nconfs].path = is_masked(&st) ? NULL :
			xasprintf("%s/%s", path, de->d_name);
		(*nconfs)++;
	}
	closedir(dp);
	free(path);
}

/*
 * The drop-in directory names of a unit in one directory, in systemd's
 * order: the name, its template, then its dash prefixes, the most
 * specific first ("a-b-c.service": "a-b-.service", "a-.service").
 */
static void add_name_confs(const struct dir *d, const char *name,
			   struct conf **confs, size_t *nconfs)
{
	char prefix[UNIT_NAME_MAX], *built, *dash;
	const char *at = strchr(name, '@'), *end;
	size_t n;

	if (dir_has_dropins(d, name))
		add_confs(d, name, confs, nconfs);
	if (is_instance(name)) {
		char *t = template_of(name);

		add_name_confs(d, t, confs, nconfs);
		free(t);
	}
	end = at ? at : suffix_of(name);
	n = end - name;
	memcpy(prefix, name, n);
	prefix[n] = '\0';
	/* a trailing dash ("a-b-") is chopped once, then the next one is used */
	if (n && prefix[n - 1] == '-')
		prefix[--n] = '\0';
	dash = strrchr(prefix, '-');
	if (!dash || dash == prefix)
		return;
	dash[1] = '\0';
	built = xasprintf("%s%s", prefix, at ? at : suffix_of(name));
	add_name_confs(d, built, confs, nconfs);
	free(built);
}

static char *strip(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
			 e[-1] == '\n'))
		*--e = '\0';
	return s;
}

static void set_value(char **slot, const char *value)
{
	free(*slot);
	*slot = *value ? xstrdup(value) : NULL;
}

/* One line of a unit file: a section header or an assignment. */
static void parse_line(struct unit *u, const char *path, unsigned lineno,
		       char *l, int *in_section)
{
	char *eq, *key, *value;

	l = strip(l);
	if (!*l || *l == '#' || *l == ';')
		return;
	if (*l == '[') {
		size_t n = strlen(l);

		if (l[n - 1] != ']') {
			log_warn("%s:%u: invalid section header, ignored", path, lineno);
			return;
		}
		l[n - 1] = '\0';
		*in_section = u->type != T_OTHER && !strcmp(l + 1, types[u->type].section);
		return;
	}
	if (!*in_section)
		return;
	eq = strchr(l, '=');
	if (!eq)
		return;	/* systemd warns about it */
	*eq = '\0';
	key = strip(l);
	value = strip(eq + 1);
	if (!strcmp(key, "X-MemoryTossCache") &&
	    (u->type == T_SERVICE || u->type == T_SLICE))
		set_value(&u->toss, value);
	else if (!strcmp(key, "Slice") && u->type != T_SLICE)
		set_value(&u->slice, value);
}

/*
 * Reads a unit file or drop-in like systemd's config_parse(): a line that
 * ends in an odd number of backslashes goes on in the next line, the
 * backslash replaced by a space, comment lines in between skipped.
 */
static void parse_file(struct unit *u, const char *path)
{
	char *line = NULL, *cont = NULL;
	size_t cap = 0, contlen = 0;
	unsigned lineno = 0;
	int in_section = 0;
	ssize_t len;
	FILE *f;

	f = fopen(path, "re");
	if (!f) {
		log_warn("cannot read %s: %m", path);
		return;
	}
	while ((len = getline(&line, &cap, f)) >= 0) {
		char *l = line, *p;
		int escaped = 0;

		lineno++;
		if (lineno == 1 && !strncmp(l, "\xef\xbb\xbf", 3)) {
			l += 3;
			len -= 3;
		}
		while (len > 0 && (l[len - 1] == '\n'))
			l[--len] = '\0';
		if (cont) {
			p = strip(l);
			if (*p == '#' || *p == ';')
				continue;
		}
		for (p = l; *p; p++)
			escaped = escaped ? 0 : *p == '\\';
		if (escaped)
			p[-1] = ' ';
		cont = xrealloc(cont, contlen + strlen(l) + 1);
		strcpy(cont + contlen, l);
		contlen += strlen(l);
		if (escaped)
			continue;
		parse_line(u, path, lineno, cont, &in_section);
		free(cont);
		cont = NULL;
		contlen = 0;
	}
	if (cont)
		parse_line(u, path, lineno, cont, &in_section);
	if (ferror(f))
		log_warn("cannot read %s: %m", path);
	free(cont);
	free(line);
	fclose(f);
}

/* Reads the unit file and the drop-ins of a unit, in the manager's order. */
static void load_unit(struct unit *u)
{
	struct conf *confs = NULL;
	size_t nconfs = 0, i;
	char type[16];

	if (u->skip)
		return;
	if (u->frag)
		parse_file(u, u->frag);
	for (i = 0; i < ndirs; i++)
		add_name_confs(&dirs[i], u->name, &confs, &nconfs);
	/* top-level drop-ins of the type: lower than all of the name's */
	snprintf(type, sizeof(type), "%s", suffix_of(u->name) + 1);
	for (i = 0; i < ndirs; i++)
		if (dir_has_dropins(&dirs[i], type))
			add_confs(&dirs[i], type, &confs, &nconfs);
	sort(confs, nconfs, sizeof(*confs), cmp_conf);
	for (i = 0; i < nconfs; i++) {
		if (confs[i].path)
			parse_file(u, confs[i].path);
		free(confs[i].base);
		free(confs[i].path);
	}
	free(confs);
}

/* Builds the unit table from the entries of the search path. */
static void build_units(struct entry *e, size_t n)
{
	size_t i, j;

	for (i = 0; i < n; i = j) {
		struct unit *u;
		int has_file = 0, masked = 0;
		int t = name_type(e[i].name);

		for (j = i; j < n && !strcmp(e[j].name, e[i].name); j++)
			has_file |= !e[j].is_dropin_dir;
		if (t == T_OTHER || is_prefix_name(e[i].name))
			continue;
		units = xrealloc(units, (nunits + 1) * sizeof(*units));
		u = &units[nunits++];
		memset(u, 0, sizeof(*u));
		u->name = xstrdup(e[i].name);
		u->type = t;
		if (has_file)
			u->frag = find_fragment(u->name, &masked);
		if (!u->frag && !masked && is_instance(u->name)) {
			char *tmpl = template_of(u->name);

			u->frag = find_fragment(tmpl, &masked);
			free(tmpl);
		}
		/*
		 * A service, socket, mount or swap needs a unit file; a
		 * slice does not, a scope never has one (only drop-ins).
		 */
		u->skip = masked || (!u->frag && t != T_SLICE && t != T_SCOPE);
	}
}

/* Escapes a value for a quoted word of a unit file; $ too for command lines. */
static char *escape(const char *s, int cmdline)
{
	char *out = xrealloc(NULL, 2 * strlen(s) + 1), *o = out;

	for (; *s; s++) {
		if (*s == '%')
			*o++ = '%';
		else if (*s == '$' && cmdline)
			*o++ = '$';
		else if (*s == '\\' || *s == '"')
			*o++ = '\\';
		*o++ = *s;
	}
	*o = '\0';
	return out;
}

/* A request we can pass on: printable ASCII, not too long. */
static int value_is_valid(const struct unit *u)
{
	const unsigned char *p;

	if (strlen(u->toss) >= REQUEST_MAX) {
		log_warn("%s: X-MemoryTossCache= longer than %d bytes, ignored",
			 u->name, REQUEST_MAX - 1);
		return 0;
	}
	for (p = (const unsigned char *)u->toss; *p; p++)
		if (*p < 0x20 || *p >= 0x7f) {
			log_warn("%s: X-MemoryTossCache= has a control or non-ASCII character, ignored",
				 u->name);
			return 0;
		}
	return 1;
}

static void write_dropin(const char *unit, const char *file, const char *text)
{
	char *dir = xasprintf("%s/%s.d", outdir, unit);
	char *path = xasprintf("%s/%s", dir, file);
	size_t len = strlen(text);
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST) {
		log_err("cannot create %s: %m", dir);
		write_failed = 1;
		goto out;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		log_err("cannot create %s: %m", path);
		write_failed = 1;
		goto out;
	}
	if (write(fd, text, len) != (ssize_t)len || close(fd)) {
		log_err("cannot write %s: %m", path);
		write_failed = 1;
		unlink(path);
	}
out:
	free(path);
	free(dir);
}

#define HEADER	"# Automatically generated by " PROG "\n"

static void gen_service(const struct unit *u)
{
	char *v = escape(u->toss, 1), *n = escape(u->name, 1);
	char *text = xasprintf(HEADER
		"# from X-MemoryTossCache= of %s: toss its cpuset's page cache\n"
		"# before it starts, in its cgroup with AllowedMemoryNodes= applied.\n"
		"\n[Service]\n"
		"ExecStartPre=-+" CPUSET_TOSS_BIN " --quiet --write \"%s\" --unit %s\n",
		u->name, v, n);

	write_dropin(u->name, "50-cpuset-toss.conf", text);
	free(text);
	free(n);
	free(v);
}

static void gen_slice(const struct unit *u)
{
	char *v = escape(u->toss, 0);
	char *toss = xasprintf(TOSS_TEMPLATE "%s.service", u->name);
	char *text;

	text = xasprintf(HEADER
		"# from X-MemoryTossCache= of %s: the request, and run in the\n"
		"# slice, charged to it.\n"
		"\n[Service]\n"
		"Environment=\"CPUSET_TOSS_WRITE=%s\"\n"
		"Slice=%s\n", u->name, v, u->name);
	write_dropin(toss, "50-request.conf", text);
	free(text);

	text = xasprintf(HEADER
		"# from X-MemoryTossCache= of %s: toss its cpuset's page cache\n"
		"# when it starts.\n"
		"\n[Unit]\n"
		"Wants=%s\n", u->name, toss);
	write_dropin(u->name, "50-cpuset-toss.conf", text);
	free(text);
	free(toss);
	free(v);
}

static void gen_after(const struct unit *u)
{
	char *text = xasprintf(HEADER
		"# %s is in a slice with X-MemoryTossCache=: start it only after\n"
		"# the toss.\n"
		"\n[Unit]\n", u->name), *t;
	size_t i;

	for (i = 0; i < u->nafter; i++) {
		t = xasprintf("%sWants=" TOSS_TEMPLATE "%s.service\n"
			      "After=" TOSS_TEMPLATE "%s.service\n",
			      text, u->after[i], u->after[i]);
		free(text);
		text = t;
	}
	write_dropin(u->name, "50-cpuset-toss-after.conf", text);
	free(text);
}

int main(int argc, char **argv)
{
	struct entry *e;
	size_t ne, i, j;
	struct stat st;

	if (getenv("SYSTEMD_SCOPE"))
		kmsg_fd = open("/dev/kmsg", O_WRONLY | O_CLOEXEC | O_NOCTTY);
	if (argc != 2 && argc != 4) {
		log_err("usage: %s normal-dir [early-dir late-dir]", PROG);
		return EXIT_FAILURE;
	}
	outdir = argv[1];
	if (stat(outdir, &st) || !S_ISDIR(st.st_mode)) {
		log_err("%s: not a directory", outdir);
		return EXIT_FAILURE;
	}
	init_path();
	e = scan_dirs(&ne);
	build_units(e, ne);
	for (i = 0; i < ne; i++)
		free(e[i].name);
	free(e);

	for (i = 0; i < nunits; i++)
		load_unit(&units[i]);

	/* check the values; a tossing slice keeps its toss, the others lose it */
	for (i = 0; i < nunits; i++) {
		struct unit *u = &units[i];

		if (u->skip || !u->toss)
			continue;
		if (is_template(u->name)) {
			log_info("%s: X-MemoryTossCache= in a template is not supported, ignored",
				 u->name);
		} else if (!strcmp(u->name, "-.slice")) {
			log_info("-.slice: X-MemoryTossCache= on the root slice is not supported, ignored");
		} else if (!strncmp(u->name, TOSS_TEMPLATE, strlen(TOSS_TEMPLATE))) {
			log_info("%s: X-MemoryTossCache= in a cpuset-toss@ unit, ignored",
				 u->name);
		} else if (u->type == T_SLICE &&
			   strlen(u->name) + strlen(TOSS_TEMPLATE ".service") >= UNIT_NAME_MAX) {
			log_warn("%s: name too long for a " TOSS_TEMPLATE " instance, ignored",
				 u->name);
		} else if (value_is_valid(u)) {
			continue;
		}
		free(u->toss);
		u->toss = NULL;
	}

	/* the tossing slices each unit is in */
	for (i = 0; i < nunits; i++) {
		struct unit *u = &units[i];
		const char *in = NULL;

		if (u->skip || !strncmp(u->name, TOSS_TEMPLATE, strlen(TOSS_TEMPLATE)))
			continue;
		if (u->type == T_SLICE) {
			in = u->name;
		} else if (u->slice) {
			if (!name_is_valid(u->slice) || name_type(u->slice) != T_SLICE) {
				if (!strchr(u->slice, '%'))
					log_warn("%s: Slice=%s is not a slice name, ignored",
						 u->name, u->slice);
				continue;
			}
			in = u->slice;
		}
		if (!in)
			continue;
		for (j = 0; j < nunits; j++) {
			struct unit *s = &units[j];

			if (s->type != T_SLICE || !s->toss || s == u ||
			    !slice_is_inside(in, s->name))
				continue;
			u->after = xrealloc(u->after, (u->nafter + 1) * sizeof(*u->after));
			u->after[u->nafter++] = s->name;
		}
		/* the outer slices first: their names are shorter */
		sort(u->after, u->nafter, sizeof(*u->after), cmp_len);
	}

	for (i = 0; i < nunits; i++) {
		struct unit *u = &units[i];

		if (u->toss && u->type == T_SERVICE)
			gen_service(u);
		else if (u->toss && u->type == T_SLICE)
			gen_slice(u);
		if (u->nafter)
			gen_after(u);
	}
	return write_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
