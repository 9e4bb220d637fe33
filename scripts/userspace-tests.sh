#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userspace-tests.sh <build/userspace>: the host tests of the userspace
# parts, which need no VM: the systemd generator against fake unit
# directories, the Slurm plugin's logic with SPANK stubbed, the prolog
# with a fake scontrol and sysfs.  One "pass|fail userspace/<name>" line
# each.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1
u=$here/userspace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

result() {	# result <name> <status> <log>
	if [ "$2" = 0 ]; then
		echo "pass userspace/$1"
	else
		sed 's/^/  /' "$3"
		echo "fail userspace/$1"
	fi
}

sh "$u/systemd/test-generator.sh" "$out/cpuset-toss-generator" > "$tmp/gen.log" 2>&1
result systemd-generator $? "$tmp/gen.log"

mkdir -p "$tmp/spank"
gcc -Wall -Wextra -Werror -O2 -I"$u" \
	-DCPUSET_TOSS_MARKER_DIR="\"$tmp/spank/run/cpuset-toss/slurm\"" \
	-DCPUSET_TOSS_PROC_CGROUP="\"$tmp/spank/cgroup\"" -DTEST_DIR="\"$tmp/spank\"" \
	-Wl,--wrap=toss_write,--wrap=toss_cgroup_from_path \
	-o "$tmp/spank/test" "$u/slurm/test-cpuset_toss.c" "$u/toss.c" > "$tmp/spank.log" 2>&1 &&
	"$tmp/spank/test" >> "$tmp/spank.log" 2>&1
result slurm-plugin $? "$tmp/spank.log"

sh "$u/slurm/test-cpuset-toss-prolog.sh" > "$tmp/prolog.log" 2>&1
result slurm-prolog $? "$tmp/prolog.log"
