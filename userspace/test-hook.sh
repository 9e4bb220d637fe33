#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-hook.sh <build/userspace> <scratch>: cpuset-toss-oci-hook as runc or
# crun runs it (the state on stdin), built with ASan and UBSan, its cgroup
# a directory of plain files (test-hook-wrap.c), on the integration VM's
# NUMA topology faked in /sys/devices/system/node and a /run of its own,
# in a mount namespace of the test's own: nothing on the host changes.
# What it shows: the rate limit's state is root's alone (another uid can
# neither open nor lock it, so it cannot stall the hook), the hook gives up
# at its deadline when root holds the lock and the container still starts
# (exit 0), and the hook never tosses on a state it cannot trust.
#
# OLD=<dir>: the same test against another version's userspace/ (for
# instance `git archive 9a2e348 userspace | tar -x -C /tmp/old`).
set -u
u=$(cd "$(dirname "$0")" && pwd)
tmp=$(cd "$2" && pwd)
[ "$(id -u)" = 0 ] || { echo "the policy and state are root's: run as root"; exit 4; }

if [ -z "${HOOK_TEST_NS:-}" ]; then
	src=$u
	if [ -n "${OLD:-}" ]; then
		src=$tmp/old
		mkdir -p "$src"
		cp "$OLD"/oci-hook.c "$OLD"/oci-state.c "$OLD"/oci-state.h "$OLD"/toss.c \
			"$OLD"/toss.h "$src/"
		sed -i 's|toss_policy_load(NULL, "oci-hook"|toss_policy_load(CPUSET_TOSS_POLICY, "oci-hook"|' \
			"$src/oci-hook.c"
	fi
	gcc -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
		-I"$src" $(pkg-config --cflags jansson hwloc) \
		-DCPUSET_TOSS_POLICY="\"$tmp/policy\"" -Wl,--wrap=toss_cgroup_from_pid \
		-o "$tmp/hook" "$src/oci-hook.c" "$src/oci-state.c" "$src/toss.c" \
		"$u/test-hook-wrap.c" $(pkg-config --libs jansson hwloc) || exit 1
	unshare -m --propagation private true 2>/dev/null || { echo "no mount namespace"; exit 4; }
	HOOK_TEST_NS=1 exec unshare -m --propagation private sh "$0" "$1" "$tmp"
fi

# In the namespace: the VM's topology (node 1: CPUs 1,3; node 2: CPU 2),
# a /run of our own.
. "$u/fake-topology.sh"
fake_topology || exit 1
mount -t tmpfs -o mode=0755 none /run

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
cg=$tmp/cg
mkdir -p "$cg"
echo 1-3 > "$cg/cpuset.cpus.effective"
echo 1-2 > "$cg/cpuset.mems.effective"
export FAKE_CG_DIR="$cg"
# a pod's cgroup as the kubelet's systemd driver names it (pod 0a1b-2c3d)
podcg=/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod0a1b_2c3d.slice
policy() { printf '%s\n' "$@" > "$tmp/policy"; chmod 0644 "$tmp/policy"; }
# the request's key ($KEY: another one), more annotations in $EXTRA
KEY=io.github.cpuset-toss.request
EXTRA=
state() {	# state ID ANNOTATION [POD-UID]
	printf '{"ociVersion":"1.0.2","id":"%s","status":"created","pid":%d,"annotations":{"%s":"%s"%s%s}}' \
		"$1" $$ "$KEY" "$2" "${3:+,\"io.kubernetes.pod.uid\":\"$3\"}" "${EXTRA:+,$EXTRA}"
}
now_ms() { echo $(($(date +%s%N) / 1000000)); }
# hook ID ANNOTATION [POD-UID]: run it (killed after 15 s: exit 124), with the
# time it took in $ms, what it wrote to the cgroup in $wrote and its log
# in $tmp/log
hook() {
	: > "$cg/cpuset.memory_toss_cache"
	# the container's cgroup: podman's, or in the pod
	FAKE_CG_REL=/machine.slice/libpod-$1.scope
	[ -z "${3:-}" ] || FAKE_CG_REL=$podcg/crio-$1.scope
	export FAKE_CG_REL
	t0=$(now_ms)
	state "$1" "$2" "${3:-}" | timeout 15 "$tmp/hook" > "$tmp/log" 2>&1
	rc=$?
	ms=$(($(now_ms) - t0))
	wrote=$(cat "$cg/cpuset.memory_toss_cache")
	sed 's/^/    /' "$tmp/log"
	echo "  exit $rc after $ms ms, wrote \"$wrote\""
}
S=/run/cpuset-toss

echo "== a first toss: nodes 1 and 2, the state directory is root's alone"
policy "min_interval = 60" "timeout = 2"
hook c1 1
[ "$rc" = 0 ] && [ "$wrote" = "1 nodes=1-2" ] || fail "first toss: exit $rc, wrote \"$wrote\""
[ "$(stat -c '%a %u' $S)" = "700 0" ] || fail "$S is $(stat -c '%a %u' $S)"
for f in $S/*; do
	[ "$(stat -c '%a %u %F' "$f")" = "600 0 regular file" ] ||
		fail "$f is $(stat -c '%a %u %F' "$f")"
done

echo "== another uid (65534) locks every state file it can open (review N1)"
pids=
n=0
for f in $S $S/*; do
	# flock(1) opens the file read-only, then holds LOCK_EX for 30 s
	if setpriv --reuid=65534 --regid=65534 --clear-groups flock -n -x "$f" true 2>/dev/null; then
		n=$((n + 1))
		setpriv --reuid=65534 --regid=65534 --clear-groups flock -o -x "$f" sleep 30 &
		pids="$pids $!"
	fi
done
echo "  uid 65534 could open and lock $n of the state files"
[ "$n" = 0 ] || fail "uid 65534 opened $n state files"
sleep 0.5
hook c1 1
[ "$rc" = 0 ] || fail "the hook exited $rc (124: still blocked after 15 s)"
[ "$ms" -lt 3000 ] || fail "the hook took $ms ms, its timeout is 2 s"
[ -z "$wrote" ] && grep -q "left alone: tossed" "$tmp/log" ||
	fail "the rate limit was not kept: wrote \"$wrote\""
[ -z "$pids" ] || kill $pids 2>/dev/null

echo "== root holds the lock past the deadline: the hook gives up at 2 s, exit 0"
rm -f $S/node*
flock -o -x $S sleep 6 &
holder=$!
sleep 0.3
hook c1 1
[ "$rc" = 0 ] || fail "the container would fail: exit $rc"
[ "$ms" -ge 1800 ] && [ "$ms" -lt 3500 ] || fail "gave up after $ms ms, not at the 2 s deadline"
[ -z "$wrote" ] || fail "tossed without the rate limit's lock: \"$wrote\""
grep -q "left alone.*deadline" "$tmp/log" || fail "no log line of the deadline"
# the lock is freed before the deadline: the hook waits, then tosses
kill $holder; wait $holder 2>/dev/null
flock -o -x $S sleep 1 &
holder=$!
sleep 0.3
hook c1 1
[ "$rc" = 0 ] && [ "$wrote" = "1 nodes=1-2" ] || fail "after the lock was freed: exit $rc, wrote \"$wrote\""
[ "$ms" -ge 500 ] || fail "did not wait for the lock ($ms ms)"
wait $holder 2>/dev/null

echo "== a state directory that is not root's 0700: nothing tossed, logged"
rm -f $S/node*
chmod 0755 $S
hook c1 1
[ "$rc" = 0 ] && [ -z "$wrote" ] && grep -q "left alone.*0700" "$tmp/log" ||
	fail "a 0755 state directory: exit $rc, wrote \"$wrote\""
chmod 0700 $S
chown 65534 $S
hook c1 1
[ -z "$wrote" ] || fail "a state directory of uid 65534: wrote \"$wrote\""
chown 0 $S
rm -rf $S
mkdir /run/elsewhere
ln -s /run/elsewhere $S
hook c1 1
[ -z "$wrote" ] || fail "a symlink for the state directory: wrote \"$wrote\""
rm $S
mkdir -m 0700 $S
ln -s /etc/passwd $S/node1.ctr-c1
hook c1 1
[ "$wrote" = "1 nodes=2" ] && grep -q "node 1: left alone" "$tmp/log" ||
	fail "a symlink for node 1's stamp: wrote \"$wrote\""
[ -L $S/node1.ctr-c1 ] || fail "the symlink was replaced"
rm -rf $S

echo "== min_interval per pod or container, not per node (N5)"
policy "min_interval = 60" "timeout = 2"
hook c1 1
[ "$wrote" = "1 nodes=1-2" ] || fail "c1: wrote \"$wrote\""
hook c2 1
[ "$wrote" = "1 nodes=1-2" ] || fail "c2, another container on the nodes c1 tossed: wrote \"$wrote\""
hook c1 1
[ -z "$wrote" ] && grep -q "left alone: tossed .* for the same requester" "$tmp/log" ||
	fail "c1 again (a restart): wrote \"$wrote\""
# a pod (the kubelet's systemd cgroup names): its containers count as one
hook c3 1 0a1b-2c3d
[ "$wrote" = "1 nodes=1-2" ] || fail "pod, c3: wrote \"$wrote\""
hook c4 1 0a1b-2c3d
[ -z "$wrote" ] || fail "pod, c4 (a crash loop: a new container of the pod): wrote \"$wrote\""
# a pod uid that is not the cgroup's parent's: the container's own
hook c5 1 0a1b
[ "$wrote" = "1 nodes=1-2" ] || fail "a uid not of the cgroup's pod, c5: wrote \"$wrote\""
# the kernel's write fails (here: EISDIR): the stamps are put back
rm -f "$cg/cpuset.memory_toss_cache"
mkdir "$cg/cpuset.memory_toss_cache"
export FAKE_CG_REL=/machine.slice/libpod-c6.scope
state c6 1 | timeout 15 "$tmp/hook" > "$tmp/log" 2>&1
rc=$?
sed 's/^/    /' "$tmp/log"
rmdir "$cg/cpuset.memory_toss_cache"
[ "$rc" = 0 ] || fail "a failed write failed the container: exit $rc"
hook c6 1
[ "$wrote" = "1 nodes=1-2" ] || fail "c6 after its failed write: wrote \"$wrote\""
rm -rf $S

echo "== 1.0's key: still read, logged as deprecated once until reboot (N18)"
policy "min_interval = 0"
KEY=cpuset.memory_toss_cache
hook c10 1
[ "$rc" = 0 ] && [ "$wrote" = "1 nodes=1-2" ] || fail "1.0's key: exit $rc, wrote \"$wrote\""
grep -q 'annotation "cpuset.memory_toss_cache" is deprecated.*io.github.cpuset-toss.request' "$tmp/log" ||
	fail "1.0's key: no deprecation line"
[ "$(stat -c "%a %u %F" $S/deprecated-annotation 2>&1)" = "600 0 regular empty file" ] ||
	fail "the marker: $(stat -c '%a %u %F' $S/deprecated-annotation 2>&1)"
hook c11 1
[ "$wrote" = "1 nodes=1-2" ] || fail "1.0's key, again: wrote \"$wrote\""
! grep -q deprecated "$tmp/log" || fail "the deprecation logged twice"
# both keys: the new one wins
KEY=io.github.cpuset-toss.request
EXTRA='"cpuset.memory_toss_cache":"max"'
hook c12 512M
[ "$wrote" = "512M nodes=1-2" ] || fail "both keys: wrote \"$wrote\""
EXTRA=
rm -rf $S

echo "== a pod's sandbox (pause) container: skipped, nothing logged (N18)"
policy "min_interval = 0"
for KEY in io.github.cpuset-toss.request cpuset.memory_toss_cache; do
	for t in '"io.kubernetes.cri-o.ContainerType":"sandbox"' \
		'"io.kubernetes.cri.container-type":"sandbox"'; do
		EXTRA=$t
		hook s1 1 0a1b-2c3d
		[ "$rc" = 0 ] && [ -z "$wrote" ] && [ ! -s "$tmp/log" ] ||
			fail "sandbox ($KEY, $t): exit $rc, wrote \"$wrote\", $(wc -l < "$tmp/log") log lines"
	done
done
KEY=io.github.cpuset-toss.request
# the pod's containers: tossed
for t in '"io.kubernetes.cri-o.ContainerType":"container"' \
	'"io.kubernetes.cri.container-type":"container"'; do
	EXTRA=$t
	hook s2 1 0a1b-2c3d
	[ "$wrote" = "1 nodes=1-2" ] || fail "container ($t): wrote \"$wrote\""
done
EXTRA=
rm -rf $S

echo "== control characters never reach the log (N7)"
ctl=$(printf '[\001-\037\177]')
policy "min_interval = 0"
# a request with ESC and BEL (as JSON escapes), an id with ESC
printf '{"id":"c7","pid":%d,"annotations":{"cpuset.memory_toss_cache":"\\u001b[2J\\u001b]0;owned\\u0007 1"}}' $$ |
	FAKE_CG_REL=/machine.slice/libpod-c7.scope timeout 15 "$tmp/hook" > "$tmp/log" 2>&1
printf '{"id":"\\u001b[31mRED","pid":%d,"annotations":{"cpuset.memory_toss_cache":"1"}}' $$ |
	FAKE_CG_REL=/machine.slice/libpod-c8.scope timeout 15 "$tmp/hook" >> "$tmp/log" 2>&1
# a cgroup whose name has ESC (cgroupfs allows it), a request refused
FAKE_CG_REL=$(printf '/machine.slice/x\033[2Jy/libpod-c9.scope')
export FAKE_CG_REL
state c9 "1 bogus=1" | timeout 15 "$tmp/hook" >> "$tmp/log" 2>&1
sed 's/^/    /' "$tmp/log" | cat -v
[ "$(wc -l < "$tmp/log")" -ge 3 ] || fail "fewer log lines than runs"
! tr -d '\n' < "$tmp/log" | grep -q "$ctl" || fail "a control character in the log"
grep -q 'x\\x1b\[2Jy' "$tmp/log" || fail "the cgroup's ESC is not shown escaped"

[ $fails = 0 ] && echo "PASS: cpuset-toss-oci-hook" && exit 0
echo "$fails failure(s)"
exit 1
