#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# test-slice.sh <build/userspace> <scratch>: the ExecStart= of
# cpuset-toss@.service, as systemd runs it for an instance, with
# cpuset-toss built with ASan and UBSan and its cgroups a directory of
# plain files (test-slice-wrap.c), no D-Bus reachable (early boot): a
# slice with memory nodes of its own is tossed; the root slice, a slice
# without nodes of its own (system.slice, user.slice; one without the
# cpuset controller) and a process that is not in the slice are refused,
# nothing written (review N10).
#
# OLD=<dir>: against another version's userspace/.
set -u
here=$(cd "$(dirname "$0")" && pwd)
u=$(dirname "$here")
tmp=$(cd "$2" && pwd)
src=${OLD:-$u}
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

gcc -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I"$src" $(pkg-config --cflags jansson hwloc libsystemd) \
	-Wl,--wrap=toss_cgroup_rel_of_pid,--wrap=toss_cgroup_from_path \
	-o "$tmp/cpuset-toss" "$src/cpuset-toss.c" "$src/toss-unit.c" "$src/toss.c" \
	"$here/test-slice-wrap.c" $(pkg-config --libs jansson hwloc libsystemd) || exit 1

# The hierarchy: job42.slice with AllowedMemoryNodes=1, system.slice and
# user.slice without (an empty cpuset.mems), the root.
R=$tmp/cg
mk() {	# mk CGROUP OWN-MEMS EFFECTIVE-MEMS
	mkdir -p "$R$1"
	printf '%s\n' "$2" > "$R$1/cpuset.mems"
	printf '%s\n' "$3" > "$R$1/cpuset.mems.effective"
	: > "$R$1/cpuset.memory_toss_cache"
}
mk "" "" 0-3
mk /job42.slice 1 1
mk /system.slice "" 0-3
mk /user.slice "" 0-3
mk /job.slice "" 0-3
mk /job.slice/job-7.slice 2 2
# A slice whose cgroup has no cpuset controller (system.slice on a fresh
# boot, before any unit under it asked for CPUs or nodes): no nodes of its
# own either.
mkdir -p "$R/machine.slice"
export FAKE_ROOT="$R"
# No system bus: what early boot, before dbus.socket, looks like.
export DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent/bus

# unit INSTANCE SELF: run the template's ExecStart= for that instance,
# in the cgroup SELF; exit in $rc, what each cgroup got in $wrote
# ("cgroup=request ...")
unit() {
	inst=$1
	FAKE_SELF=$2
	mkdir -p "$R$FAKE_SELF"
	for c in $(cd "$R" && find . -name cpuset.memory_toss_cache); do : > "$R/$c"; done
	cmd=$(sed -n 's/^ExecStart=//p' "$src/systemd/cpuset-toss@.service" |
		sed "s|/usr/bin/cpuset-toss|$tmp/cpuset-toss|; s|%i|$inst|g")
	export FAKE_SELF CPUSET_TOSS_WRITE=1
	eval "$cmd" > "$tmp/out" 2>&1
	rc=$?
	wrote=$(cd "$R" && for c in $(find . -name cpuset.memory_toss_cache | sort); do
		[ -s "$c" ] && printf '%s=%s ' "$(dirname "$c" | sed 's|^\.||; s|^$|/|')" "$(cat "$c")"
	done)
	sed 's/^/    /' "$tmp/out" | grep -v '^    *[0-9]* *\(yes\|no\) ' | head -4
	echo "  $inst (in $FAKE_SELF): exit $rc, wrote: ${wrote:-nothing}"
}

echo "== ExecStart=: $(sed -n 's/^ExecStart=//p' "$src/systemd/cpuset-toss@.service")"
unit job42.slice /job42.slice/cpuset-toss@job42.slice.service
[ "$rc" = 0 ] && [ "$wrote" = "/job42.slice=1 " ] || fail "job42.slice: exit $rc, wrote $wrote"
unit job-7.slice /job.slice/job-7.slice/cpuset-toss@job-7.slice.service
[ "$rc" = 0 ] && [ "$wrote" = "/job.slice/job-7.slice=1 " ] || fail "job-7.slice: exit $rc, wrote $wrote"
for s in system.slice user.slice job.slice machine.slice; do
	unit $s /$s/cpuset-toss@$s.service
	[ "$rc" = 77 ] && [ -z "$wrote" ] || fail "$s (no nodes of its own): exit $rc, wrote $wrote"
done
unit -.slice /cpuset-toss@-.slice.service
[ "$rc" = 77 ] && [ -z "$wrote" ] || fail "-.slice: exit $rc, wrote $wrote"
# the process is not in the slice it names (a hand-run command)
unit job42.slice /system.slice/other.service
[ "$rc" != 0 ] && [ -z "$wrote" ] || fail "job42.slice from system.slice: exit $rc, wrote $wrote"
unit job42.slice /
[ "$rc" != 0 ] && [ -z "$wrote" ] || fail "job42.slice from the root: exit $rc, wrote $wrote"
grep '^ExecStart' "$src/systemd/cpuset-toss@.service" | grep -q -- '--unit' &&
	fail "the unit still asks systemd over D-Bus (--unit)"

[ $fails = 0 ] && echo "PASS: cpuset-toss@.service's ExecStart=" && exit 0
echo "$fails failure(s)"
exit 1
