/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What cpuset-toss-oci-hook(8) takes from the OCI runtime: the container
 * state on its stdin and the bundle's config.json, parsed with jansson.
 */
#ifndef CPUSET_TOSS_OCI_STATE_H
#define CPUSET_TOSS_OCI_STATE_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#include "toss.h"

/*
 * The request: a reverse-DNS key (runtime-spec, config.md "annotations";
 * also a valid Kubernetes annotation name).  The key of release 1.0 is
 * read as an alias for one more release, logged as deprecated.
 */
#define OCI_ANNOTATION		"io.github.cpuset-toss.request"
#define OCI_ANNOTATION_OLD	"cpuset.memory_toss_cache"
/* A pod's sandbox (pause, infra) container: CRI-O's and containerd's CRI. */
#define OCI_CRIO_TYPE		"io.kubernetes.cri-o.ContainerType"
#define OCI_CRI_TYPE		"io.kubernetes.cri.container-type"
#define OCI_TYPE_SANDBOX	"sandbox"
#define OCI_POD_UID	"io.kubernetes.pod.uid"	/* CRI-O's, from the kubelet */
#define OCI_STATE_MAX	(8 << 20)	/* bytes of state or config.json */

struct oci_state {
	char id[256];			/* the container id ("" if none) */
	pid_t pid;			/* 1..INT_MAX, 0 if none */
	char bundle[PATH_MAX];		/* "" if none */
	int has_request;		/* the annotation is there */
	int request_old;		/* ... under OCI_ANNOTATION_OLD */
	char request[TOSS_REQ_MAX];	/* its value */
	int sandbox;			/* a pod's sandbox container */
	int has_cgroups_path;		/* config.json: linux.cgroupsPath */
	char cgroups_path[PATH_MAX];
	char pod_uid[128];		/* OCI_POD_UID, "" if none */
};

/*
 * oci_state_parse(): the state JSON (an object; duplicate keys, a
 * non-integer or out-of-range pid, a non-string annotation, a value too
 * long or holding a NUL or a newline are errors).  The request is
 * OCI_ANNOTATION's, else OCI_ANNOTATION_OLD's (request_old set); sandbox
 * is set when OCI_CRIO_TYPE or OCI_CRI_TYPE is "sandbox".  oci_config_parse(): the
 * annotation (when the state has none: runtimes before runtime-spec
 * 1.0.2) and linux.cgroupsPath from config.json.  Return: 0 or -EINVAL
 * with a message in err.
 */
int oci_state_parse(const char *buf, size_t len, struct oci_state *st,
		    char *err, size_t errlen);
int oci_config_parse(const char *buf, size_t len, struct oci_state *st,
		     char *err, size_t errlen);

/*
 * oci_cgroup_matches(): is a cgroup path (as in /proc/PID/cgroup) the
 * container's, by its linux.cgroupsPath: the cgroupfs form "/a/b" (the
 * cgroup or below it), a relative "a/b" (ending the path or inside it),
 * the systemd form "slice:prefix:name" (a component "prefix-name.scope",
 * or "name" when it is a slice); without cgroupsPath, a component that
 * holds the container id.  Return: 1 or 0.
 */
int oci_cgroup_matches(const struct oci_state *st, const char *rel);

/*
 * oci_requester(): whose min_interval a toss counts against: the pod
 * ("pod-<uid>") when the state names one (OCI_POD_UID) and the cgroup's
 * parent is that pod's ("pod<uid>" in its name, '-' or '_' in the uid, as
 * the kubelet names it), so that a crash-looping pod tosses once;
 * otherwise the container ("ctr-<id>", or its cgroup).
 */
void oci_requester(const struct oci_state *st, const char *rel, char *buf,
		   size_t len);

#endif /* CPUSET_TOSS_OCI_STATE_H */
