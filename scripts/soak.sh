#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# soak.sh <bzImage> <initramfs> <tools.img> <results-dir>
#
# make soak: boot the soak kernel (configs/soak.config: KASAN, kmemleak,
# lockdep, DEBUG_VM, DEBUG_PAGEALLOC, page owner, DEBUG_OBJECTS, fault
# injection) on the four-node VM, run vm/soak in it, and print what it
# counted.  Passes only if every phase of vm/soak passed in both boots
# and neither console shows a report of any kind: vm-run.sh's splat
# detection (BUG, WARNING, KASAN, lockdep, Oops, RCU stall, hung task...)
# and, after vm/soak has cleared what boot left, kmemleak's "suspected
# memory leaks" and the OOM killer.
#
# Two boots of the same kernel, one after the other: the selftest (its
# console in soak-selftest.log), then every other phase (soak.log).  The
# boot parameters: page_owner=on in both, debug_pagealloc=on in the
# second only (both are off by default), unless SOAK_SELFTEST_PAGEALLOC=1
# puts it in the first too.  Measured: DEBUG_PAGEALLOC doubles the
# selftest's time under TCG (the tests read their files in again for
# every test); KASAN, on in both boots, already finds an access to a
# freed page; the phases that race tosses against memory hotplug, cgroup
# removal and failed allocations have both.  The RCU stall and hung task
# detectors at 60 s and 120 s instead of the test kernel's 21 s and 30 s:
# KASAN, DEBUG_PAGEALLOC and kmemleak make the kernel several times slower
# under TCG, and a stall is still reported.  Each node has 1 GiB instead
# of 768 MiB: KASAN's shadow (an eighth of memory) and page_owner's page
# extensions come out of it.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kernel=$1 initrd=$2 tools=$3 res=$4
mkdir -p "$res"
rm -f "$res/soak.log" "$res/soak-selftest.log"
append="page_owner=on rcupdate.rcu_cpu_stall_timeout=60"
append+=" sysctl.kernel.hung_task_timeout_secs=120 ${VM_APPEND:-}"
selftest_append=$append
[ "${SOAK_SELFTEST_PAGEALLOC:-0}" = 1 ] && selftest_append="debug_pagealloc=on $append"
# The text of mm/toss_cache.o (the engine) in the kernel: where the
# fault phase's call-trace filter points (vm/soak).  Its .text is one
# piece: the address of the function at its offset 0, plus its size.
obj=${kernel%/arch/x86/boot/bzImage}
o=$obj/mm/toss_cache.o
first=$(objdump -t "$o" | awk '$4 == ".text" && $3 == "F" && $1 ~ /^0+$/ { print $NF; exit }')
size=$(objdump -h "$o" | awk '$2 == ".text" { print $3 }')
start=$(awk -v f="$first" '$3 == f && ($2 == "t" || $2 == "T") { print $1 }' "$obj/System.map")
text=""
if [ -n "$start" ] && [ "$(echo "$start" | wc -l)" = 1 ] && [ -n "$size" ]; then
	text=$(printf '0x%x 0x%x' $((16#$start)) $((16#$start + 16#$size)))
	echo "soak: toss_cache.o's text: $text ($first, $((16#$size)) bytes)"
else
	echo "soak: cannot find toss_cache.o's text in System.map ('$first'): no call-trace filter" >&2
fi
# boot <name> <log> <phases> <boot parameters>: one boot of vm/soak.
# Sets $status to 1 if it failed.
status=0
boot() {
	local name=$1 log=$2 phases=$3 app=$4 rc t0 t extra
	local cmd="SOAK_TOSS_TEXT='$text' SOAK_CHURN_SECS=${SOAK_CHURN_SECS:-180}"
	cmd+=" SOAK_FAULT_SECS=${SOAK_FAULT_SECS:-120} SOAK_NTH_MAX=${SOAK_NTH_MAX:-60}"
	cmd+=" SOAK_PHASES='$phases' SOAK_SKIP='${SOAK_SKIP:-}' soak"
	echo "soak: $name: booting $kernel ($app; console in $log)"
	t0=$(date +%s)
	VM_APPEND=$app NODE_MEM=${NODE_MEM:-1G} TOOLS_IMG=$tools \
		"$here/scripts/vm-run.sh" -k "$kernel" -i "$initrd" -t "${SOAK_TIMEOUT:-3600}" \
		-a "${ACCEL:-tcg}" -l "$log" -- "$cmd" > /dev/null
	rc=$?
	t=$(( $(date +%s) - t0 ))

	# What vm-run.sh does not look for: kmemleak's reports once boot's
	# were cleared, kmemleak turning itself off (then it reports
	# nothing), and the OOM killer.
	local extra_re='suspected memory leak|invoked oom-killer|Out of memory'
	local off_re='kmemleak: .*(disabled|Memory pool empty|Cannot allocate a kmemleak_object)'
	extra=$( (sed -n '/^### soak: kmemleak cleared/,$p' "$log" | grep -E "$extra_re"
		grep -E "$off_re" "$log") | grep -v '^# ')

	echo "soak: $name: phases (time since the soak started in the VM):"
	grep '^### soak: ' "$log" | sed 's/^### soak: /  /'
	echo "soak: $name: results:"
	grep '^soak-result: ' "$log" | sed 's/^soak-result: /  /'
	grep -E '^# (kmemleak at boot|hotplug|cgroups|fault|fail-nth|test_cpuset_toss|[0-9]+ tosses|debug_pagealloc|page_owner)' "$log" |
		sed 's/^# /  /'
	if grep -q '^SOAK-COUNT ' "$log"; then
		echo "soak: $name: tosses the soak wrote, by phase, kind and errno:"
		grep '^SOAK-COUNT ' "$log" | awk '{ printf "  %-12s %-13s %-8s %6d\n", $2, $3, $4, $5 }'
	fi
	grep '^# vmstat: ' "$log" | sed 's/^# vmstat: /  /'
	grep -E '^(stress: )?not ok |^# unexpected' "$log" | sed 's/^/  /'
	if [ $rc = 125 ]; then
		echo "soak: $name: FAILED: a kernel report in the console (see $log)"
		status=1
	elif [ $rc != 0 ]; then
		echo "soak: $name: FAILED: the VM's status is $rc (124: timeout; see $log)"
		status=1
	fi
	if [ -n "$extra" ]; then
		echo "soak: $name: FAILED: in the console after boot's kmemleak suspects were cleared:"
		echo "$extra" | head -20 | sed 's/^/  /'
		status=1
	fi
	echo "soak: $name: ${t} s in the VM ($((t / 60))m$((t % 60))s)"
}

t0=$(date +%s)
case " ${SOAK_SKIP:-} " in
*" selftest "*) echo "soak: selftest: skipped (SOAK_SKIP), no boot" ;;
*) boot selftest "$res/soak-selftest.log" selftest "$selftest_append" ;;
esac
boot "stress, churn, fault, v1" "$res/soak.log" "stress churn fault v1" "debug_pagealloc=on $append"
t=$(( $(date +%s) - t0 ))
echo "soak: ${t} s for both boots ($((t / 60))m$((t % 60))s)"
[ $status = 0 ] && echo "soak: OK"
exit $status
