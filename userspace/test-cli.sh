#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-cli.sh <build/userspace> <scratch>: cpuset-toss, built with ASan and
# UBSan, on cgroups that are directories of plain files (test-cli-wrap.c
# stands in for the cgroup v2 mount), with the integration VM's NUMA
# topology faked in /sys/devices/system/node, in a mount namespace of the
# test's own: nothing on the host changes.  What it shows: the request each
# set of options writes, and to which file (cpuset.memory_toss_cache or,
# with --memory-reclaim, memory.reclaim with the cpuset's nodes); that bad
# input is refused with exit 64 and writes nothing (the kernel's refusals,
# exit 65, are the VM tests'); the exit codes of a cgroup without the
# cpuset controller or without the file; --json output that parses, on
# success and on every refusal.
#
# OLD=<dir>: the same test against another version's userspace/ (for
# instance `git archive 33dc4ce userspace | tar -x -C /tmp/old`).
set -u
u=$(cd "$(dirname "$0")" && pwd)
tmp=$(cd "$2" && pwd)
[ "$(id -u)" = 0 ] || { echo "the fake topology needs a mount namespace: run as root"; exit 4; }

if [ -z "${CLI_TEST_NS:-}" ]; then
	src=${OLD:-$u}
	gcc -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
		-I"$src" $(pkg-config --cflags jansson hwloc libsystemd) \
		-Wl,--wrap=toss_cgroup_from_path \
		-o "$tmp/cpuset-toss" "$src/cpuset-toss.c" "$src/toss-unit.c" "$src/toss.c" \
		"$u/test-cli-wrap.c" $(pkg-config --libs jansson hwloc libsystemd) || exit 1
	unshare -m --propagation private true 2>/dev/null || { echo "no mount namespace"; exit 4; }
	CLI_TEST_NS=1 exec unshare -m --propagation private sh "$0" "$1" "$tmp"
fi

# In the namespace: the VM's four nodes with memory, 64 MiB of page cache
# on each.
. "$u/fake-topology.sh"
fake_topology || exit 1

fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
root=$tmp/cg
export FAKE_CG_ROOT=$root
# job: a cpuset of nodes 1-2 with the memory controller; user: a delegated
# user's cgroup with the memory controller only; old: a kernel without the
# file.
mkdir -p "$root/job" "$root/user" "$root/old"
echo 1-2 > "$root/job/cpuset.mems.effective"
echo 1-3 > "$root/job/cpuset.cpus.effective"
echo 0 > "$root/old/cpuset.mems.effective"
TOSS=cpuset.memory_toss_cache
RECLAIM=memory.reclaim

# cli EXPECTED-EXIT FILE EXPECTED-CONTENT ARGS...: run cpuset-toss (killed
# after 15 s) on fresh files, and check its exit status and what FILE of
# the cgroup it names last (job if none) holds afterwards ("" : nothing
# written); stdout in $tmp/out, stderr in $tmp/err.
cli() {
	want=$1 file=$2 content=$3
	shift 3
	: > "$root/job/$TOSS"
	: > "$root/job/$RECLAIM"
	: > "$root/user/$RECLAIM"
	timeout 15 "$tmp/cpuset-toss" "$@" > "$tmp/out" 2> "$tmp/err"
	rc=$?
	eval "last=\${$#}"
	case $last in /*) ;; *) last=/job ;; esac
	got=$(cat "$root$last/$file" 2>/dev/null)
	echo "  cpuset-toss $(echo "$*" | cut -c1-120): exit $rc, $last/$file \"$got\""
	sed 's/^/    /' "$tmp/err"
	[ "$rc" = "$want" ] || fail "cpuset-toss $*: exit $rc, not $want"
	[ "$got" = "$content" ] || fail "cpuset-toss $*: $file holds \"$got\", not \"$content\""
	# nothing is written to the other file
	other=$TOSS
	[ "$file" = "$TOSS" ] && other=$RECLAIM
	[ ! -s "$root$last/$other" ] || fail "cpuset-toss $*: wrote \"$(cat "$root$last/$other")\" to $other"
	if grep -q "ERROR: \(Address\|Undefined\)Sanitizer\|runtime error" "$tmp/err"; then
		fail "cpuset-toss $*: a sanitizer report"
	fi
}
# json: stdout is one JSON object with this exit_code and request
json() {
	python3 -c 'import json, sys
o = json.load(open(sys.argv[1]))
assert o["exit_code"] == int(sys.argv[2]), o
assert sys.argv[3] == "-" or o["request"] == sys.argv[3], o' "$tmp/out" "$1" "$2" ||
		fail "--json output: $(cat "$tmp/out")"
}

echo "== requests written to cpuset.memory_toss_cache"
cli 0 $TOSS "1" /job
grep -q '^   1  yes ' "$tmp/out" && grep -q '^   0  no ' "$tmp/out" ||
	fail "the node table does not mark nodes 1-2 as the targets: $(cat "$tmp/out")"
cli 0 $TOSS "64M nodes=2" --size 64M --nodes 2 /job
cli 0 $TOSS "1 free=1G" --free 1G job
cli 0 $TOSS "8M scope=cgroup" --size 8M --scope cgroup /job
cli 0 $TOSS "1 slab=1" --slab /job
cli 0 $TOSS "1 nodes=1" --write "1 nodes=1" /job

echo "== --memory-reclaim writes memory.reclaim, on the cpuset's nodes"
cli 0 $RECLAIM "max clean_cache=1 nodes=1-2" --memory-reclaim /job
cli 0 $RECLAIM "64M clean_cache=1 nodes=1" --memory-reclaim --size 64M --nodes 1 /job
cli 0 $RECLAIM "max clean_cache=1 nodes=1-2" --memory-reclaim --scope cgroup /job
echo "== a cgroup with the memory controller alone: memory.reclaim on every node"
cli 0 $RECLAIM "max clean_cache=1" --memory-reclaim /user
cli 66 $TOSS "" /user
cli 66 $TOSS "" --scope cgroup /user

echo "== bad input: exit 64 or 65, nothing written"
cli 64 $TOSS "" --memory-reclaim --scope node /job
cli 64 $TOSS "" --memory-reclaim --free 1G /job
cli 64 $TOSS "" --memory-reclaim --write 1 /job
cli 64 $TOSS "" --scope bogus /job
cli 64 $TOSS "" --size "" /job
cli 64 $TOSS "" --size "1 nodes=3" /job
cli 64 $TOSS "" --nodes 1-x /job
cli 64 $TOSS "" --nodes 5000 /job
cli 64 $TOSS "" --write 1 --size 1G /job
cli 64 $TOSS "" --pid 0
cli 64 $TOSS "" --pid 2147483648
cli 64 $TOSS "" --pid 12abc
cli 64 $TOSS "" /job /user
cli 64 $TOSS "" --bogus /job
cli 64 $TOSS "" /job/../user
cli 64 $TOSS "" --write "$(printf '1\nnodes=1')" /job
grep -q "one line" "$tmp/err" || fail "a --write of two lines: $(cat "$tmp/err")"
long=$(seq -s, 0 2 1022)
cli 64 $TOSS "" --nodes "$long" /job
grep -q "longer than 1023 bytes" "$tmp/err" || fail "a --nodes list too long for the request: $(cat "$tmp/err")"
cli 64 $RECLAIM "" --memory-reclaim --nodes "$long" /job
grep -q "too long" "$tmp/err" || fail "a --nodes list too long for memory.reclaim: $(cat "$tmp/err")"
cli 64 $TOSS "" --write "$(printf '%01100d' 1)" /job

echo "== no cgroup, no cpuset, no file"
cli 66 $TOSS "" /nowhere
cli 69 $TOSS "" /old
cli 69 $RECLAIM "" --memory-reclaim /old

echo "== --json: one object on stdout, success or not"
cli 0 $TOSS "64M" --json --size 64M /job
json 0 64M
cli 0 $RECLAIM "max clean_cache=1 nodes=1-2" --json --memory-reclaim /job
json 0 "max clean_cache=1 nodes=1-2"
cli 64 $TOSS "" --json --scope bogus /job
json 64 -
cli 64 $TOSS "" --json --bogus /job
json 64 -
cli 66 $TOSS "" --json /nowhere
json 66 -
cli 69 $TOSS "" --json /old
json 69 -

[ "$fails" = 0 ] || { echo "$fails failure(s)"; exit 1; }
echo "all passed"
