# SPDX-License-Identifier: GPL-2.0
# Sourced by run: Slurm on two machines (run two-a, run two-b).
#
# scripts/check.sh boots two Debian VMs at once, joined by one virtio NIC
# each (vm-run.sh's VM_NET: a QEMU dgram link between them over the
# host's loopback): toss-a (10.0.2.1) runs slurmctld and slurmd, toss-b
# (10.0.2.2) slurmd, with the image's one munge key.  Each fills its own
# nodes 0, 1 and 2 with the test files before slurmd starts.  Jobs of two
# machines, one task per machine, each holding node 1's two CPUs there
# (1 and 3; a blocker job holds CPU 0 of each machine):
#
#   1. sbatch --toss-cache, whose script runs no step: the extern step
#      tosses node 1 on both machines, toss-b included, where the job
#      starts no task at all;
#   2. srun without --toss-cache: each task finds node 1's file gone from
#      its machine's cache (job 1 did it) and reads it back in;
#   3. sbatch --toss-cache with srun steps: each machine's first step
#      finds node 1 tossed before any task ran, a later step finds it as
#      the job read it back (no step tossed again).
#
# toss-a checks its slurmd log and the job output; toss-b waits for the
# end of job 3 (a step of it leaves the job ids in /tmp/two-done) and
# checks its own slurmd log: one toss for each of jobs 1 and 3, none
# else, nodes 0 and 2 untouched.

TWO_DONE=/tmp/two-done

# two_net <a|b>: this machine's name, address and hosts; its NIC is the
# one with vm-run's MAC, 52:54:00:00:02:0<1|2>.
two_net() {
	local me=$1 n=1 ifc="" f
	[ "$me" = b ] && n=2
	for f in /sys/class/net/*/address; do
		[ "$(cat "$f")" = "52:54:00:00:02:0$n" ] && ifc=$(basename "$(dirname "$f")")
	done
	[ -n "$ifc" ] || { log "no NIC with MAC 52:54:00:00:02:0$n: $(ip -o link 2>&1 | tr '\n' ' ')"; return 1; }
	ip addr add "10.0.2.$n/24" dev "$ifc" && ip link set "$ifc" up || return 1
	echo "toss-$me" > /proc/sys/kernel/hostname
	printf '127.0.0.1\tlocalhost\n10.0.2.1\ttoss-a\n10.0.2.2\ttoss-b\n' > /etc/hosts
	log "toss-$me: $ifc 10.0.2.$n/24"
}

two_conf() {
	# Two TCG guests share the host's two cores: messages take longer
	# than Slurm's 10 s default now and then.
	slurm_conf "SlurmctldHost=toss-a(10.0.2.1)" MessageTimeout=60 \
		"NodeName=toss-a NodeAddr=10.0.2.1 $SLURM_MACHINE" \
		"NodeName=toss-b NodeAddr=10.0.2.2 $SLURM_MACHINE" \
		"PartitionName=debug Nodes=toss-a,toss-b Default=YES MaxTime=INFINITE State=UP"
	two_task
}

two_idle() { [ "$(timeout 10 sinfo -h -N -t idle,mixed -o %N 2>/dev/null | sort -u | wc -l)" = 2 ]; }

# /tmp/two-task <word>, what a task of these jobs runs (both machines
# write it): "<machine> job <id> cpus <its job cgroup's CPUs> <word>
# <bytes of node 1's file cached>".
two_task() {
	cat > /tmp/two-task <<-'EOF'
	#!/bin/sh
	c=$(sed -n 's/^0:://p' /proc/self/cgroup)
	echo "$(cat /proc/sys/kernel/hostname) job $SLURM_JOB_ID cpus $(cat /sys/fs/cgroup${c%%/step_*}/cpuset.cpus.effective) $1 $(fincore -b -n -o RES FILL/n1 | tr -d ' ')"
	EOF
	sed -i "s|FILL/|$FILL/|" /tmp/two-task
	chmod 0755 /tmp/two-task
}

# two_expect <output> <word> <bytes>: both machines' tasks printed it,
# with node 1's CPUs.
two_expect() {
	local m bad=0
	for m in a b; do
		echo "$1" | grep -q "^toss-$m job [0-9]* cpus 1,3 $2 $3\$" && continue
		log "toss-$m: no task printed \"cpus 1,3 $2 $3\""
		bad=1
	done
	return $bad
}

# two_job_tosses <id>: this machine's slurmd logged so many tosses of
# node 1 (CPUs 1 and 3) for the job.
two_job_tosses() {
	grep -c "cpuset_toss: job $1: tossed nodes 1 (CPUs 1,3) " $SLURMD_LOG
}

test_slurm_two_machines() {
	local out id1 id3 bad=0 full=$((MIB << 20))
	two_net a && two_conf || return 1
	fill || return 1
	systemctl start munge slurmctld slurmd || return 1
	wait_for 300 two_idle || { log "both machines did not become idle: $(timeout 10 sinfo -N 2>&1 | tr '\n' ' ')"; return 1; }
	timeout 60 sbatch -N2 --ntasks-per-node=1 -c1 -J blocker -o /dev/null --wrap 'sleep 3600' > /dev/null &&
		wait_for 60 jobs_running || { log "the blocker job did not start"; return 1; }

	id1=$(timeout 60 sbatch --parsable -N2 --ntasks-per-node=1 -c2 --toss-cache -o /dev/null --wrap 'sleep 1') ||
		{ log "sbatch of the first job failed"; return 1; }
	wait_for 180 job_gone "$id1"
	log "first job, $id1 (sbatch -N2 -c2 --toss-cache, no step): $(grep "cpuset_toss: job $id1: " $SLURMD_LOG | tr '\n' ' ')"
	[ "$(two_job_tosses "$id1")" = 1 ] || { log "toss-a: job $id1 tossed $(two_job_tosses "$id1") times, expected once"; bad=1; }
	expect_tossed 1 || bad=1

	out=$(timeout 180 srun -N2 --ntasks-per-node=1 -c2 sh -c "/tmp/two-task start; numactl --membind=1 cat $FILL/n1 > /dev/null; /tmp/two-task end") ||
		{ log "srun of the second job failed: $out"; bad=1; }
	log "second job (srun -N2 -c2, no --toss-cache): $(echo "$out" | tr '\n' ' ')"
	two_expect "$out" start 0 && two_expect "$out" end $full || bad=1

	printf '#!/bin/sh\nsrun /tmp/two-task start\nsrun numactl --membind=1 cat %s > /dev/null\nsrun /tmp/two-task end\n' \
		$FILL/n1 > /tmp/two3.sh
	id3=$(timeout 60 sbatch --parsable -N2 --ntasks-per-node=1 -c2 --toss-cache -o /tmp/two3.out /tmp/two3.sh) ||
		{ log "sbatch of the third job failed"; bad=1; }
	[ -n "$id3" ] && wait_for 300 job_gone "$id3"
	log "third job, $id3 (sbatch -N2 -c2 --toss-cache, three steps): $(tr '\n' ' ' < /tmp/two3.out)"
	two_expect "$(cat /tmp/two3.out)" start 0 && two_expect "$(cat /tmp/two3.out)" end $full || bad=1
	[ "$(two_job_tosses "$id3")" = 1 ] || { log "toss-a: job $id3 tossed $(two_job_tosses "$id3") times, expected once"; bad=1; }

	# toss-b's turn to check, whatever happened here.
	timeout 120 srun -w toss-b -N1 -n1 -c1 sh -c "echo $id1 $id3 > $TWO_DONE" ||
		{ log "could not tell toss-b that the jobs are done"; bad=1; }
	return $bad
}

two_done() { [ -s $TWO_DONE ]; }

test_slurm_two_machines_b() {
	local ids id bad=0 n
	two_net b && two_conf || return 1
	fill || return 1
	systemctl start munge slurmd || return 1
	wait_for 1200 two_done || { log "toss-a never said the jobs are done"; return 1; }
	read -ra ids < $TWO_DONE
	grep 'cpuset_toss: ' $SLURMD_LOG | sed 's/^/# slurmd on toss-b: /'
	for id in "${ids[@]}"; do
		n=$(two_job_tosses "$id")
		[ "$n" = 1 ] || { log "toss-b: job $id tossed $n times, expected once"; bad=1; }
	done
	n=$(grep -c 'cpuset_toss: job [0-9]*: tossed' $SLURMD_LOG)
	[ "$n" = "${#ids[@]}" ] || { log "toss-b: $n tosses in all, expected ${#ids[@]}"; bad=1; }
	# Node 1's file was read back in by jobs 2 and 3: all three whole.
	for n in 0 1 2; do
		[ "$(res $FILL/n$n)" = $((MIB << 20)) ] ||
			{ log "toss-b: node $n's file has $(res $FILL/n$n) bytes cached"; bad=1; }
	done
	return $bad
}

tests_slurm_two() {
	case $mode in
	two-a) t slurm-two-machines test_slurm_two_machines ;;
	two-b) t slurm-two-machines-b test_slurm_two_machines_b ;;
	esac
}
