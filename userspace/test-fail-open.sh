#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-fail-open.sh <dir> <scratch>: the cpuset-toss-oci-hook in <dir>
# (build/userspace, or the installed /usr/libexec/cpuset-toss under
# autopkgtest), run as runc runs it on this machine's real cgroups and
# kernel, with the real policy file: whatever the kernel (one without
# cpuset.memory_toss_cache, as every Debian kernel) and whatever it
# decides, it exits 0, quickly, and says why on stderr; a container
# without the annotation and a pod's sandbox container get nothing at
# all; 1.0's key is still read and logged as deprecated.  Nothing is
# tossed here: the test's cgroup has every memory node, which the
# default policy refuses.
set -u
hook=$1/cpuset-toss-oci-hook
tmp=$(cd "$2" && pwd)
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
[ -x "$hook" ] || { echo "no $hook"; exit 1; }
[ -r /proc/self/cgroup ] || { echo "no /proc/self/cgroup"; exit 4; }

# a "container": a process in a cgroup of its own (as root, in the
# cpuset hierarchy: v1's cpuset mount or v2's), named by cgroupsPath
sleep 60 &
pid=$!
made=
for m in /sys/fs/cgroup/cpuset /sys/fs/cgroup; do
	[ "$(id -u)" = 0 ] && [ -e "$m/cgroup.procs" ] || continue
	[ "$m" = /sys/fs/cgroup ] && [ "$(stat -fc %T $m)" != cgroup2fs ] && continue
	mkdir "$m/cpuset-toss-test.$$" 2>/dev/null || continue
	made=$m/cpuset-toss-test.$$
	for f in cpuset.cpus cpuset.mems; do	# v1: empty until set
		[ -e "$m/$f" ] && cat "$m/$f" > "$made/$f" 2>/dev/null
	done
	echo $pid > "$made/cgroup.procs" 2>/dev/null || { rmdir "$made"; made=; continue; }
	break
done
if [ -n "$made" ]; then
	cg=/cpuset-toss-test.$$
else	# the process's own cgroup: the hook may find it is the root's
	cg=$(sed -n 's/^0:://p' /proc/$pid/cgroup)
fi
echo "  the container: pid $pid in $cg${made:+ ($made)}"
mkdir -p "$tmp/bundle"
printf '{"ociVersion":"1.0.2","linux":{"cgroupsPath":"%s"}}\n' "$cg" > "$tmp/bundle/config.json"
run() {	# run NAME ANNOTATIONS: the hook on that state; $rc, $ms, $tmp/log
	t0=$(date +%s%N)
	printf '{"ociVersion":"1.0.2","id":"%s","status":"created","pid":%d,"bundle":"%s","annotations":{%s}}' \
		"$1" "$pid" "$tmp/bundle" "$2" | timeout 40 "$hook" > "$tmp/log" 2>&1
	rc=$?
	ms=$((($(date +%s%N) - t0) / 1000000))
	sed 's/^/    /' "$tmp/log"
	echo "  $1: exit $rc after $ms ms"
}
N='"io.github.cpuset-toss.request"'

echo "== no annotation: exit 0, nothing said"
run none '"x":"y"'
[ "$rc" = 0 ] && [ ! -s "$tmp/log" ] || fail "no annotation: exit $rc, $(wc -l < "$tmp/log") lines"

echo "== a pod's sandbox container: exit 0, nothing said"
run sandbox1 "$N:\"1\",\"io.kubernetes.cri-o.ContainerType\":\"sandbox\""
[ "$rc" = 0 ] && [ ! -s "$tmp/log" ] || fail "CRI-O sandbox: exit $rc, $(wc -l < "$tmp/log") lines"
run sandbox2 "\"cpuset.memory_toss_cache\":\"1\",\"io.kubernetes.cri.container-type\":\"sandbox\""
[ "$rc" = 0 ] && [ ! -s "$tmp/log" ] || fail "containerd sandbox: exit $rc, $(wc -l < "$tmp/log") lines"

echo "== asked: exit 0 whatever the kernel, and a reason"
run ctr1 "$N:\"1\""
[ "$rc" = 0 ] || fail "asked: exit $rc (the container would fail)"
[ "$ms" -lt 25000 ] || fail "asked: $ms ms, past the hooks.d timeout's margin"
grep -q '^cpuset-toss-oci-hook: container ctr1: ' "$tmp/log" || fail "asked: no line on stderr"
! grep -q 'wrote "' "$tmp/log" || fail "asked: a toss on a cgroup with every node"

echo "== 1.0's key: read, and its deprecation said (once until reboot)"
[ "$(id -u)" = 0 ] && rm -f /run/cpuset-toss/deprecated-annotation
run ctr2 '"cpuset.memory_toss_cache":"1"'
[ "$rc" = 0 ] || fail "1.0's key: exit $rc"
grep -q 'deprecated' "$tmp/log" || fail "1.0's key: no deprecation line"
grep -q 'container ctr2: .*\(refused\|left alone\|no \|not \)' "$tmp/log" ||
	fail "1.0's key: not read (no decision logged)"

kill $pid 2>/dev/null
wait $pid 2>/dev/null
[ -z "$made" ] || rmdir "$made"
[ $fails = 0 ] && echo "PASS: the hook fails open" && exit 0
echo "$fails failure(s)"
exit 1
