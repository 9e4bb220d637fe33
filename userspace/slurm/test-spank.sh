#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-spank.sh <build/userspace> <scratch>: the SPANK plugin's logic with
# the SPANK API stubbed (test-cpuset_toss.c).
set -e
u=$(cd "$(dirname "$0")/.." && pwd)
tmp=$2
[ -e /usr/include/slurm/spank.h ] || { echo "no <slurm/spank.h>"; exit 4; }
gcc -Wall -Wextra -Werror -O2 -I"$u" $(pkg-config --cflags jansson hwloc) \
	-DCPUSET_TOSS_MARKER_DIR="\"$tmp/run/cpuset-toss/slurm\"" \
	-DCPUSET_TOSS_PROC_CGROUP="\"$tmp/cgroup\"" -DTEST_DIR="\"$tmp\"" \
	-Wl,--wrap=toss_write,--wrap=toss_cgroup_from_path \
	-o "$tmp/test" "$u/slurm/test-cpuset_toss.c" "$u/toss.c" $(pkg-config --libs jansson hwloc)
"$tmp/test"
