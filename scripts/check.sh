#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check.sh <all|toss|kunit|upstream|integration|slurm-two|docs>: run the
# tests in the VM and count them.
#
#   toss      the KUnit suites the patched kernel ran at boot (their KTAP,
#             from the kernel log of the first toss VM), the test_cpuset_toss
#             programs (test_cpuset_toss, test_cpuset_toss_cgroup,
#             test_cpuset_toss_concurrency, test_cpuset_toss_cpus) with MGLRU
#             on and off (one VM each), and the demo, on the patched debug
#             kernel; then test_toss_parallel and test_toss_lru_bound
#             (MGLRU on, off) in a VM alone, test_toss_isolated in a VM
#             booted with
#             isolcpus=2, test_toss_no_memcg_root in a VM booted with
#             cgroup_disable=memory, and fio and stress-ng racing tosses
#             (toss-stress)
#   upstream  the upstream cgroup selftests that touch cpuset and memcg on
#             the patched kernel and on the unpatched baseline: a test that
#             fails only on the patched kernel is a failure; one that fails
#             on both is reported as a known failure of the base (skipped)
#   integration  vm/integration/run in the Debian VM (IMAGE=debian): on the
#             patched kernel with cgroup v2 and with systemd's legacy v1
#             hierarchies, each test must pass; on the baseline kernel,
#             which lacks the file, each v2 test of one per integration
#             (BASELINE_SAMPLE; CHECK_FULL=1: every v2 test) must fail
#             (the v2 tests in two VMs side by side, split by V2_SPLIT);
#             then Slurm on two machines (slurm-two); then the host tests
#             of the userspace parts
#             (scripts/userspace-tests.sh)
#   slurm-two  two Debian VMs of the patched kernel at once, joined by a
#             network (a QEMU dgram link over the host's loopback): a
#             Slurm cluster of two machines, vm/integration/slurm-two.sh
#   kunit     only the KUnit suites: one VM of the patched kernel, no test
#             program
#   docs      on the host, in seconds: every sample of program output in
#             README.md, docs/ and the man pages is something the code
#             prints (scripts/check-doc-samples.py), and every relative
#             link of the Markdown resolves (scripts/check-doc-links.py)
#
# Any kernel splat or timeout fails the run.  Ends with the line
# "N passed, N failed[, N skipped]" and exits non-zero on any failure.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
what=${1:-all}
BUILD=${BUILD:-$here/build}
res=$BUILD/results
mkdir -p "$res"
VM="$here/scripts/vm-run.sh -i $BUILD/initramfs.cpio.gz -t ${VM_TIMEOUT:-900} -a ${ACCEL:-tcg}"
DVM="$here/scripts/vm-run.sh -r $BUILD/debian.img -f $here/vm/integration -t ${VM_TIMEOUT:-900} -a ${ACCEL:-tcg}"
pass=0 fail=0 skip=0
failed=()
# The integration tests the baseline kernel runs in make check, one per
# integration (all of them with CHECK_FULL=1, make check-full): each
# only shows again that without the file the integration fails.
BASELINE_SAMPLE='^(cpuset-toss-path|cpuset-toss-memory-reclaim|cgset-v2|crun-systemd-hook|runc-cgroupfs-unified|oci-hook-not-own-nodes|podman-hooks\.d-annotation|systemd-template|slurm-own-nodes|lxc-mems-then-toss|docker-runc-toss|containerd-runc-binary)$'
# The integration tests of a kernel without the file, which must pass on
# the baseline kernel (and skip on the patched one): Slurm's jobs run as
# if they had not asked.
STOCK_TESTS='^stock-kernel-'
# The v2 integration tests of the first of the two v2 VMs (the second runs
# all the others: Slurm, LXC, Docker, containerd): the CLI, cgset, the OCI
# runtimes (oci-update-tosses-again reads what the crun and runc tests
# saw), podman, systemd.  The systemd tests stay after the OCI ones:
# systemd-refused-slices expects system.slice to have the cpuset
# controller, which an earlier test's unit gave it; run first in a fresh
# VM, it fails (the template exits 66, "no such cgroup", not 77).
V2_SPLIT='^(cpuset-toss|cgset|crun|runc|oci|podman|systemd)-'

. "$here/scripts/tap.sh"	# tap, tap_worst, tap_raw, tap_why

# ktap <log> <prefix>: print "<pass|fail|skip> <prefix>/<suite>/<case>" for
# every KUnit case of the KTAP between "### KTAP BEGIN" and "### KTAP END"
# (vm/kunit-ktap), a failure for a suite that failed or that gave fewer
# results than its plan, for fewer suites than the top-level plan, and
# "fail <prefix>/none-ran" when no case ran at all.
ktap() {
	awk -v pfx="$2" '
	function result(line, depth,   st) {
		st = "pass"
		if (line ~ /^not ok/) st = "fail"
		sub(/^(not )?ok [0-9]+ /, "", line)
		if (line ~ /# *SKIP/) st = "skip"
		sub(/ *#.*$/, "", line); gsub(/ /, "_", line)
		return st " " line
	}
	/^### KTAP BEGIN/ { on = 1; next }
	/^### KTAP END/   { on = 0; next }
	!on { next }
	/^1\.\.[0-9]+$/ { plan = substr($0, 4) + 0; next }
	/^    # Subtest: / { suite = $3; cases = 0; cplan = -1; bad = 0; next }
	/^    1\.\.[0-9]+$/ { cplan = substr($0, 8) + 0; next }
	/^    (not )?ok [0-9]+ / {
		r = result(substr($0, 5)); split(r, a, " ")
		print a[1], pfx "/" suite "/" a[2]
		cases++; total++; if (a[1] == "fail") bad = 1
		next
	}
	/^(not )?ok [0-9]+ / {
		r = result($0); split(r, a, " "); suites++
		if (a[1] == "fail" && !bad) print "fail", pfx "/" a[2] "/suite"
		if (cplan >= 0 && cases < cplan)
			print "fail", pfx "/" a[2] "/ran-" cases "-of-" cplan
		suite = ""; next
	}
	END {
		if (!total) print "fail", pfx "/none-ran"
		else if (suites < plan) print "fail", pfx "/ran-" suites "-of-" plan "-suites"
	}' "$1"
}

# say <text>: a progress line with the time since the run started
# (bash's SECONDS), so that a slow run shows which step took the time.
say() {
	local t=$SECONDS
	printf 'check: [%dm%02ds] %s\n' $((t / 60)) $((t % 60)) "$*"
}

boot() {	# boot <kernel> <log> <args...>: run, record the status in <log>.rc
	local k=$1 log=$2
	shift 2
	$VM -k "$k" -l "$log" -- "$@" > /dev/null
	echo $? > "$log.rc"
}

# count <results-file> [<log>]: add up the results; for each failed TAP
# test of <log>, keep what the test printed before its "not ok" line
# (its last $WHY_LINES "#" lines) for the summary at the end.
WHY_LINES=${WHY_LINES:-12}
why=()
count() {
	local st name
	while read -r st name; do
		case $st in
		pass) pass=$((pass + 1)) ;;
		skip) skip=$((skip + 1)) ;;
		*) fail=$((fail + 1)); failed+=("$name")
		   [ -n "${2:-}" ] && why+=("$(excerpt "$2" "$name")") ;;
		esac
		echo "$st $name"
	done < "$1"
}

# excerpt <log> <prefix>/<suite>/<test>: the "#" lines <test> printed in
# <suite> of <log> before its "not ok" line, the last $WHY_LINES of them.
# For a VM that timed out or printed a splat: the splat's first lines, or
# the log's last ones.
excerpt() {
	local suite test
	case $2 in
	*:KERNEL-SPLAT\(*|*:TIMEOUT\(*|*:VM-STATUS-*)
		echo "  --- ${2%%(*}:"
		{ grep -m "$WHY_LINES" -E 'BUG:|WARNING:|Oops|INFO: |lockdep|KASAN|UBSAN|stall' "$1" ||
		  tail -n "$WHY_LINES" "$1"; } | sed 's/^/  /'
		return 0 ;;
	esac
	suite=$(echo "$2" | cut -d/ -f2) test=$(echo "$2" | cut -d/ -f3-)
	[ -n "$test" ] || return 0
	tap_why "$1" "$suite" "$test" "$WHY_LINES"
}

vmstatus() {	# vmstatus <rc> <log> <name>: a VM-level result
	case $1 in
	0) echo "pass $3" ;;
	124) echo "fail $3:TIMEOUT(see $2)" ;;
	125) echo "fail $3:KERNEL-SPLAT(see $2)" ;;
	*) echo "fail $3:VM-STATUS-$1(see $2)" ;;
	esac
}

# count_integration <v2a|v2b|v1|two-a|two-b>: the results of one Debian VM of
# the patched kernel, its tests and its own status.
count_integration() {
	local log=$res/integration-$1.log
	{ tap "$log" integration; vmstatus "$(cat "$log.rc")" "$log" "integration-vm-$1"; } \
		> "$res/integration-$1.results"
	count "$res/integration-$1.results" "$log"
}

# slurm_two <kernel>: two Debian VMs at once, toss-a and toss-b of
# vm/integration/slurm-two.sh, each with a virtio NIC on a QEMU dgram link
# to the other over the host's loopback (a UDP port each).  toss-b waits
# for toss-a's jobs to end, then checks its own side.
two_link() {	# two_link <local port> <remote port>
	echo "dgram,local.type=inet,local.host=127.0.0.1,local.port=$1,remote.type=inet,remote.host=127.0.0.1,remote.port=$2"
}
slurm_two() {
	local pa=$((20000 + RANDOM % 20000)) pb bpid
	pb=$((pa + 1))
	rm -f "$res"/integration-two-*.log*
	NODE_CPUS="0 1,3 2 -" VM_NET=$(two_link $pb $pa) VM_MAC=52:54:00:00:02:02 \
		$DVM -t 1800 -k "$1" -l "$res/integration-two-b.log" -- "bash /extra/run two-b" > /dev/null &
	bpid=$!
	NODE_CPUS="0 1,3 2 -" VM_NET=$(two_link $pa $pb) VM_MAC=52:54:00:00:02:01 \
		$DVM -t 1800 -k "$1" -l "$res/integration-two-a.log" -- "bash /extra/run two-a" > /dev/null
	echo $? > "$res/integration-two-a.log.rc"
	wait $bpid
	echo $? > "$res/integration-two-b.log.rc"
}

# The two toss VMs (MGLRU on, off) run side by side: TCG keeps each mostly
# on one core.  The upstream tests run after them, one kernel at a time:
# some of test_memcontrol's cases are timing-sensitive and fail on a loaded
# host, on either kernel.
kernel=$BUILD/debug/obj/arch/x86/boot/bzImage
bkernel=$BUILD/baseline/obj/arch/x86/boot/bzImage
pids=()
if [ "$what" = all ] || [ "$what" = toss ]; then
	say "booting the patched kernel: the test_cpuset_toss programs with MGLRU on (and the demo), with MGLRU off"
	rm -f "$res"/toss-*.log*
	# The KUnit suites ran at boot: their KTAP first, from the kernel log.
	boot "$kernel" "$res/toss-on.log" "kunit-ktap; run-tests toss y" & pids+=($!)
	boot "$kernel" "$res/toss-off.log" run-tests toss n & pids+=($!)
	wait "${pids[@]}"
	say "booting the patched kernel alone: test_toss_parallel, test_toss_lru_bound; then with isolcpus=2: test_toss_isolated"
	boot "$kernel" "$res/toss-alone.log" run-tests alone
	VM_APPEND="isolcpus=2" boot "$kernel" "$res/toss-isolcpus.log" run-tests isolcpus
	say "booting the patched kernel with cgroup_disable=memory: test_toss_no_memcg_root"
	VM_APPEND="cgroup_disable=memory" boot "$kernel" "$res/toss-nomemcg.log" run-tests nomemcg
	say "booting the patched kernel: fio and stress-ng verifying their data while tosses loop"
	TOOLS_IMG=$BUILD/tools.img boot "$kernel" "$res/toss-stress.log" run-tests stress
fi
if [ "$what" = kunit ]; then
	say "booting the patched kernel: the KUnit suites it runs at boot"
	rm -f "$res"/kunit.log*
	boot "$kernel" "$res/kunit.log" kunit-ktap
fi
if [ "$what" = all ] || [ "$what" = upstream ]; then
	plog=$res/upstream-patched.log blog=$res/upstream-baseline.log
	say "booting the patched kernel: upstream cgroup selftests"
	rm -f "$plog"*
	boot "$kernel" "$plog" run-tests upstream
	# The baseline's results depend only on its kernel and the test programs.
	key=$(cat "$bkernel" "$BUILD"/bin/test_core "$BUILD"/bin/test_cpuset "$BUILD"/bin/test_memcontrol \
		"$BUILD"/bin/*.sh "$here/vm/run-tests" | sha256sum | cut -c1-16)
	base=$res/baseline.$key
	if [ -f "$base" ]; then
		say "baseline results for this baseline kernel and these tests are cached"
		echo 0 > "$blog.rc"
	else
		say "booting the unpatched baseline kernel: the same upstream selftests"
		rm -f "$blog"*
		boot "$bkernel" "$blog" run-tests upstream
	fi
fi

if [ "$what" = all ] || [ "$what" = integration ]; then
	export NODE_CPUS="0 1,3 2 -"	# node 1: CPUs 1 and 3 (Slurm)
	rm -f "$res"/integration-*.log*
	# The v2 tests take about half an hour in one VM, the limit of one
	# boot: they run in two VMs side by side, those V2_SPLIT names and the
	# others.  (The v1 and baseline VMs are short, and two Debian boots at
	# once take longer than one after the other.)
	say "booting the patched kernel on the Debian image, two VMs side by side: the integrations on cgroup v2"
	$DVM -k "$kernel" -l "$res/integration-v2a.log" -- "bash /extra/run v2 '$V2_SPLIT'" > /dev/null &
	apid=$!
	$DVM -k "$kernel" -l "$res/integration-v2b.log" -- "bash /extra/run v2 '!$V2_SPLIT'" > /dev/null
	echo $? > "$res/integration-v2b.log.rc"
	wait $apid
	echo $? > "$res/integration-v2a.log.rc"
	say "booting the patched kernel on the Debian image with cgroup v1: cgset, cpuset-toss"
	VM_APPEND="systemd.unified_cgroup_hierarchy=0" \
		$DVM -k "$kernel" -l "$res/integration-v1.log" -- "bash /extra/run v1" > /dev/null
	echo $? > "$res/integration-v1.log.rc"
	if [ -n "${CHECK_FULL:-}" ]; then
		say "booting the baseline kernel on the Debian image: every integration test must fail"
		$DVM -k "$bkernel" -l "$res/integration-baseline.log" -- "bash /extra/run v2" > /dev/null
	else
		say "booting the baseline kernel on the Debian image: one test per integration must fail"
		$DVM -k "$bkernel" -l "$res/integration-baseline.log" -- \
			"bash /extra/run v2 '$BASELINE_SAMPLE|$STOCK_TESTS'" > /dev/null
	fi
	echo $? > "$res/integration-baseline.log.rc"
fi
if [ "$what" = all ] || [ "$what" = integration ] || [ "$what" = slurm-two ]; then
	say "booting the patched kernel on two Debian images at once, on one network: Slurm on two machines"
	slurm_two "$kernel"
fi
if [ "$what" = all ] || [ "$what" = integration ]; then
	for m in v2a v2b v1 two-a two-b; do
		count_integration "$m"
	done
	# On the baseline a test that passes could not fail: the VM itself
	# must end with the tests' own status 1, not a splat or a timeout.
	log=$res/integration-baseline.log
	{
		tap_raw "$log" integration-baseline | while read -r st name; do
			if [[ ${name##*/} =~ $STOCK_TESTS ]]; then
				case $st in
				pass) echo "pass $name(without-the-file)" ;;
				*) echo "fail $name(without-the-file)" ;;
				esac
				continue
			fi
			case $st in
			fail) echo "pass $name(fails-without-the-file)" ;;
			*) echo "fail $name(passes-without-the-file)" ;;
			esac
		done
		case $(cat "$log.rc") in
		1) echo "pass integration-baseline-vm" ;;
		*) vmstatus "$(cat "$log.rc")" "$log" integration-baseline-vm | sed 's/^pass /fail /' ;;
		esac
	} > "$res/integration-baseline.results"
	count "$res/integration-baseline.results"
fi
if [ "$what" = slurm-two ]; then
	count_integration two-a
	count_integration two-b
fi

if [ "$what" = all ] || [ "$what" = toss ] || [ "$what" = kunit ]; then
	log=$res/toss-on.log
	[ "$what" = kunit ] && log=$res/kunit.log
	ktap "$log" kunit > "$res/kunit.results"
	[ "$what" = kunit ] && vmstatus "$(cat "$log.rc")" "$log" kunit-vm >> "$res/kunit.results"
	count "$res/kunit.results"
fi
if [ "$what" = all ] || [ "$what" = toss ]; then
	for m in on off alone isolcpus nomemcg stress; do
		log=$res/toss-$m.log
		case $m in on|off) vm=toss-vm-mglru-$m ;; *) vm=toss-vm-$m ;; esac
		{ tap "$log" toss; vmstatus "$(cat "$log.rc")" "$log" "$vm"; } > "$res/toss-$m.results"
		count "$res/toss-$m.results" "$log"
	done
fi

if [ "$what" = all ] || [ "$what" = upstream ]; then
	if [ ! -f "$base" ]; then
		tap_worst "$blog" upstream > "$res/baseline.tmp"
		if [ "$(cat "$blog.rc")" = 0 ]; then
			mv "$res/baseline.tmp" "$base"
		else
			base=$res/baseline.tmp
		fi
	fi
	{
		tap "$plog" upstream | while read -r st name; do
			if [ "$st" = fail ] && grep -qx "fail $name" "$base"; then
				echo "skip $name(fails-on-baseline-too)"
			elif [ "$st" = pass ] && grep -qx "fail $name" "$base"; then
				echo "pass $name(flaky-on-baseline)"
			else
				echo "$st $name"
			fi
		done
		vmstatus "$(cat "$plog.rc")" "$plog" upstream-patched-vm
		vmstatus "$(cat "$blog.rc")" "$blog" upstream-baseline-vm
	} > "$res/upstream.results"
	count "$res/upstream.results" "$plog"
fi

# The userspace parts' own tests, on the host (no VM).
if [ "$what" = all ] || [ "$what" = integration ]; then
	say "the host tests of the userspace parts (userspace/**/test-*.sh)"
	"$here/scripts/userspace-tests.sh" "$BUILD/userspace" > "$res/userspace.out" 2>&1
	grep -vE '^(pass|fail|skip) ' "$res/userspace.out" || true
	grep -E '^(pass|fail|skip) ' "$res/userspace.out" > "$res/userspace.results"
	count "$res/userspace.results"
fi

# The documentation's samples of program output and its links (host, no VM).
if [ "$what" = all ] || [ "$what" = docs ]; then
	say "the documentation: samples of program output against the code, relative links"
	for t in samples links; do
		python3 "$here/scripts/check-doc-$t.py" > "$res/doc-$t.out" 2>&1; rc=$?
		grep -vE '^(pass|fail|skip) ' "$res/doc-$t.out" || true
		grep -E '^(pass|fail|skip) ' "$res/doc-$t.out" > "$res/doc-$t.results"
		if [ $rc != 0 ] && ! grep -q '^fail ' "$res/doc-$t.results"; then
			echo "fail doc-$t/exit-status-$rc(see $res/doc-$t.out)" >> "$res/doc-$t.results"
		fi
		count "$res/doc-$t.results"
	done
fi

# The files we touch compile under each config variant (no VM).
if [ "$what" = all ]; then
	say "compiling the files we touch under each config variant"
	"$here/scripts/check-configs.sh" > "$res/check-configs.out" 2>&1; rc=$?
	grep -vE '^(pass|fail|skip) ' "$res/check-configs.out" || true
	grep -E '^(pass|fail|skip) ' "$res/check-configs.out" > "$res/check-configs.count"
	if [ $rc != 0 ] && ! grep -q '^fail ' "$res/check-configs.count"; then
		echo "fail check-configs/exit-status-$rc(see $res/check-configs.out)" >> "$res/check-configs.count"
	fi
	count "$res/check-configs.count"
fi

# The series, patch by patch: it applies with zero fuzz, the series'
# objects build W=1-clean after every patch, sparse finds nothing new after
# the last, and every exported patch is checkpatch --strict clean
# (scripts/check-series.sh; it replaces the checkpatch-only step).
if [ "$what" = all ]; then
	say "the series patch by patch (W=1 objects after each, sparse, checkpatch --strict)"
	"$here/scripts/check-series.sh" > "$res/check-series.out" 2>&1; rc=$?
	grep -vE '^(pass|fail|skip) ' "$res/check-series.out" | grep -vE ': (checkpatch: .*: clean|0[0-9]{3}-.*\(([0-9]+ s)\))$' || true
	grep -E '^(pass|fail|skip) ' "$res/check-series.out" | sed -E 's/ \(.*\)$//' > "$res/check-series.count"
	if [ $rc != 0 ] && ! grep -q '^fail ' "$res/check-series.count"; then
		echo "fail check-series/exit-status-$rc(see $res/check-series.out)" >> "$res/check-series.count"
	fi
	count "$res/check-series.count"
fi

if [ ${#why[@]} -gt 0 ]; then
	say "what the failed tests printed last:"
	printf '%s\n' "${why[@]}" | grep -v '^$'
fi
if [ ${#failed[@]} -gt 0 ]; then
	say "failed:"
	printf '  %s\n' "${failed[@]}"
fi
say "done"
if [ $skip -gt 0 ]; then
	echo "$pass passed, $fail failed, $skip skipped"
else
	echo "$pass passed, $fail failed"
fi
[ $fail = 0 ]
