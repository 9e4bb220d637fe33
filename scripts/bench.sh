#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# bench.sh <bench-kernel> <initramfs> <outdir>
#
# Boot the non-debug bench kernel on four 2 GiB nodes (node 1 with two
# vCPUs, so that two workers of one node can really run at once on the
# 2-core host; nodes 0 and 2 with one; node 3 without), run bench/toss-bench
# (every scenario, every method, in that one boot), then turn its samples
# into tables, <outdir>/latest.md, latest.json and the charts.
#
# BENCH_QUICK=1: three repetitions and smaller data sets, for every change
# to the toss path (a target's verdict needs at least three paired
# repetitions; with fewer the report says it cannot decide).  BENCH_REPS=n
# overrides the repetitions (default 5); BENCH_TIMEOUT=s the limit of one
# boot (default 7200).  BENCH_SCENARIOS="1 2 3 4 5 6 7 8 9 10 11 12 13"
# picks scenarios.  Scenario 11 (1, 2 and 4 workers on one node) runs in a
# second boot, where node 1 has four vCPUs (1, 3, 4 and 5; on the 2-core
# host they take turns, so four workers show what they cost, not a gain).
# Scenario 13 (partial tosses of a large node) runs in a boot of its own,
# where node 1 has $BENCH_BIG_NODE (default 512G).  The host gives the
# guest memory only as it is touched: such a node costs the host its
# struct pages (1/64 of it: 8 GiB for 512G, 16 GiB for 1T) and the cache
# the scenario reads into it (1.5 GiB).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 initrd=$2 out=$3
quick=${BENCH_QUICK:-}
reps=${BENCH_REPS:-$([ -n "$quick" ] && echo 3 || echo 5)}
scen=${BENCH_SCENARIOS:-1 2 3 4 5 6 7 8 9 10 11 12 13}
four= big=
case " $scen " in *" 11 "*) four=11; scen=$(echo " $scen " | sed 's/ 11 / /; s/^ *//; s/ *$//') ;; esac
case " $scen " in *" 13 "*) big=13; scen=$(echo " $scen " | sed 's/ 13 / /; s/^ *//; s/ *$//') ;; esac
export NODE_MEM=${BENCH_NODE_MEM:-2G} DISK_SIZE=${BENCH_DISK:-8G}
big_node=${BENCH_BIG_NODE:-512G}
# Not make's VM_TIMEOUT (1800 s for one test boot): a full run takes longer.
timeout=${BENCH_TIMEOUT:-7200}
# pr_info (every toss and drop_caches logs one) would interleave with the
# samples on the console; warnings and worse still show and still fail.
export VM_APPEND="loglevel=5 ${VM_APPEND:-}"

# The commit the bench kernel and toss-bench are built from: taken now,
# not when the report is written, an hour later.
commit=$(git -C "$here" describe --always --dirty 2>/dev/null || echo unknown)

work=$(mktemp -d /tmp/bench.XXXXXX)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/extra" "$out"
gcc -static -O2 -Wall -Wextra -o "$work/extra/toss-bench" "$here/bench/toss-bench.c"

log=${BENCH_LOG:-$here/build/bench-console.log}
mkdir -p "$(dirname "$log")"
: > "$log"
# boot <node CPUs> <scenarios> [<node sizes>]: one boot of toss-bench, its
# console added to $log.
boot() {
	local args="-r $reps ${quick:+-q} $2" start rc=0
	local mems=${3:-$NODE_MEM $NODE_MEM $NODE_MEM $NODE_MEM}
	echo "bench: booting the bench kernel (nodes of $mems, node CPUs \"$1\", ${ACCEL:-tcg}): toss-bench $args"
	start=$(date +%s)
	# (with pipefail, "|| true" would reset PIPESTATUS: the status goes
	# through a file)
	{ NODE_CPUS=$1 NODE_MEMS=$mems "$here/scripts/vm-run.sh" -k "$kernel" -i "$initrd" -f "$work/extra" \
		-t "$timeout" -l "$work/console.log" -- \
		"uname -r | sed 's/^/BENCH-KERNEL /'; /extra/toss-bench $args"; echo $? > "$work/rc"; } \
		| grep --line-buffered -E '^  s[0-9]|^== |toss-bench:' || true
	rc=$(cat "$work/rc")
	cat "$work/console.log" >> "$log"
	echo "bench: the VM ran $(( $(date +%s) - start )) s (console in $log)"
	[ "$rc" = 0 ] || { echo "bench: FAILED (status $rc)"; exit 1; }
}
[ -z "$scen" ] || boot "0 1,3 2 -" "$scen"
[ -z "$four" ] || boot "0 1,3,4,5 2 -" "$four"
if [ -n "$big" ]; then
	# The big node's struct pages, its cache and the other nodes' share:
	# a host without them would kill QEMU (or the guest would fault)
	# after all the other scenarios ran.
	need=$(( $(numfmt --from=iec "$big_node") / 64 / 1048576 + 4096 ))
	avail=$(( $(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo) / 1024 ))
	if [ "$avail" -lt "$need" ]; then
		echo "bench: scenario 13 skipped: node 1 of $big_node needs about $need MiB of host memory, $avail MiB available (BENCH_BIG_NODE= a smaller node)"
	else
		boot "0 1,3 2 -" "$big" "$NODE_MEM $big_node $NODE_MEM $NODE_MEM"
	fi
fi

qemu=$(qemu-system-x86_64 --version | head -1)
python3 "$here/bench/report.py" --log "$log" --out "$out" \
	--qemu "$qemu" --accel "${ACCEL:-tcg}" --node-mem "$NODE_MEM" \
	--reps "$reps" ${quick:+--quick} \
	--commit "$commit"
