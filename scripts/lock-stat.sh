#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# lock-stat.sh <lock_stat kernel> <initramfs> <outfile>
#
# Boot the debug kernel with CONFIG_LOCK_STAT on the bench's four 2 GiB
# nodes twice: node 1 with two vCPUs (1 and 3), then with four (1, 3, 4
# and 5; on a 2-core host they take turns, so that 4 workers' waits include
# the host's scheduling), and run toss-bench's scenario 11 in each: whole
# tosses of 1 GiB of node 1 (one file, then 48 files) with 1, 2 and, where
# the node has the CPUs, 4 workers, lock statistics gathered during each
# toss only.  The lock classes waited on longest, and those of the locks a
# toss takes, go to <outfile> as LOCKSTAT lines, and in tables to
# <outfile less .txt>.md (bench/lockstat.py).  LOCKSTAT_REPS=n
# repetitions (default 3).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 initrd=$2 out=$3
reps=${LOCKSTAT_REPS:-3}
export NODE_MEM=2G DISK_SIZE=8G VM_APPEND="loglevel=5 ${VM_APPEND:-}"

work=$(mktemp -d /tmp/lock-stat.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/extra" "$(dirname "$out")"
gcc -static -O2 -Wall -Wextra -o "$work/extra/toss-bench" "$here/bench/toss-bench.c"
: > "$work/out"
for cpus in "0 1,3 2 -" "0 1,3,4,5 2 -"; do
	echo "lock-stat: booting the lock_stat kernel, node CPUs \"$cpus\": toss-bench -r $reps 11"
	rc=0
	NODE_CPUS=$cpus "$here/scripts/vm-run.sh" -k "$kernel" -i "$initrd" -f "$work/extra" \
		-t "${VM_TIMEOUT:-3600}" -l "$work/console.log" -- "/extra/toss-bench -r $reps 11" \
		| grep --line-buffered -E '^  s11|toss-bench:' || true
	rc=${PIPESTATUS[0]}
	[ "$rc" = 0 ] || { echo "lock-stat: FAILED (status $rc, console in $work/console.log)"; exit 1; }
	grep '^LOCKSTAT ' "$work/console.log" | sed "s/^LOCKSTAT /LOCKSTAT node1_cpus=${cpus// /_} /" >> "$work/out"
done
mv "$work/out" "$out"
python3 "$here/bench/lockstat.py" "$out" "${out%.txt}.md"
echo "lock-stat: wrote $out ($(wc -l < "$out") lines) and ${out%.txt}.md"
