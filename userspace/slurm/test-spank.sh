#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-spank.sh <build/userspace> <scratch>: the SPANK plugin's logic with
# the SPANK API stubbed (test-cpuset_toss.c), on the NUMA topology of the
# integration VM (node 0: CPU 0, node 1: CPUs 1 and 3, SMT siblings of one
# core, node 2: CPU 2, node 3: memory only), faked in /sys/devices/system
# in a mount namespace of its own; and the symbols build/userspace/cpuset_toss.so exports.
#
# OLD=<cpuset_toss.c>: run the same test against another version of the
# plugin (git show 3d47d27:userspace/slurm/cpuset_toss.c > old.c);
# OLD=<dir>: against another version's userspace/, its toss.c included
# (git archive 9a2e348 userspace | tar -x -C /tmp/old; OLD=/tmp/old/userspace).
set -e
u=$(cd "$(dirname "$0")/.." && pwd)
out=$1
tmp=$2

if [ -z "${SPANK_TEST_NS:-}" ]; then
	[ -e /usr/include/slurm/spank.h ] || { echo "no <slurm/spank.h>"; exit 4; }
	bad=0
	if [ -z "${OLD:-}" ] && [ -e "$out/cpuset_toss.so" ]; then
		# Slurm finds these with dlsym(); nothing else is exported
		syms=$(nm -D --defined-only "$out/cpuset_toss.so" | awk '{ print $3 }' | sort | tr '\n' ' ')
		want="plugin_name plugin_type plugin_version slurm_spank_init slurm_spank_job_epilog slurm_spank_job_prolog slurm_spank_task_post_fork slurm_spank_user_init spank_plugin_version "
		echo "cpuset_toss.so exports: $syms"
		[ "$syms" = "$want" ] || { echo "FAIL: expected exactly: $want"; bad=1; }
	fi
	src=$u/slurm
	lib=$u
	if [ -n "${OLD:-}" ]; then
		src=$tmp/old/slurm
		mkdir -p "$src"
		if [ -d "$OLD" ]; then
			cp "$OLD/slurm/cpuset_toss.c" "$src/cpuset_toss.c"
			cp "$OLD/toss.h" "$OLD/toss.c" "$tmp/old/"
			lib=$tmp/old
		else
			cp "$OLD" "$src/cpuset_toss.c"
			cp "$u/toss.h" "$tmp/old/"
		fi
		cp "$u/slurm/test-cpuset_toss.c" "$src/"
	fi
	# (the marker and /proc/self/cgroup of older versions)
	gcc -Wall -Wextra -Werror -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
		-I"$u" $(pkg-config --cflags jansson hwloc) \
		-DCPUSET_TOSS_POLICY="\"$tmp/policy\"" -DTEST_DIR="\"$tmp\"" \
		-DCPUSET_TOSS_MARKER_DIR="\"$tmp/run/cpuset-toss/slurm\"" \
		-DCPUSET_TOSS_PROC_CGROUP="\"$tmp/cgroup\"" \
		-Wl,--wrap=toss_cgroup_from_path,--wrap=toss_cgroup_from_pid \
		-o "$tmp/test" "$src/test-cpuset_toss.c" "$lib/toss.c" \
		$(pkg-config --libs jansson hwloc)
	if [ "$(id -u)" = 0 ]; then
		ns="unshare -m --propagation private"
	else
		ns="unshare -rm --propagation private"
	fi
	$ns true 2>/dev/null || { echo "no mount namespace of our own ($ns)"; exit 4; }
	SPANK_TEST_NS=1 $ns sh "$0" "$out" "$tmp" || bad=1
	exit $bad
fi

# In the namespace: the VM's topology, and a /run of our own.
. "$u/fake-topology.sh"
fake_topology || exit 1
# CPUs 1 and 3 (node 1) are SMT siblings: 4 CPUs, 3 cores
mount -t tmpfs none $sys/cpu
echo 0-3 > $sys/cpu/online
for c in 0 1 2 3; do
	mkdir -p $sys/cpu/cpu$c/topology
done
echo 0 > $sys/cpu/cpu0/topology/thread_siblings_list
echo 1,3 > $sys/cpu/cpu1/topology/thread_siblings_list
echo 2 > $sys/cpu/cpu2/topology/thread_siblings_list
echo 1,3 > $sys/cpu/cpu3/topology/thread_siblings_list
mount -t tmpfs none /run
"$tmp/test"
