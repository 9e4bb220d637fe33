# SPDX-License-Identifier: GPL-2.0
# Sourced by run: Slurm's SPANK plugin and prolog.

# --- Slurm -----------------------------------------------------------------

slurm_up() {
	mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
	chown slurm: /var/spool/slurmctld /var/log/slurm
	cat > /etc/slurm/slurm.conf <<-EOF
	ClusterName=toss
	SlurmctldHost=toss-vm
	AuthType=auth/munge
	SlurmUser=slurm
	StateSaveLocation=/var/spool/slurmctld
	SlurmdSpoolDir=/var/spool/slurmd
	ProctrackType=proctrack/cgroup
	TaskPlugin=task/cgroup,task/affinity
	SelectType=select/cons_tres
	SelectTypeParameters=CR_Core
	ReturnToService=2
	SlurmctldLogFile=/var/log/slurm/slurmctld.log
	SlurmdLogFile=/var/log/slurm/slurmd.log
	NodeName=toss-vm CPUs=3 Sockets=3 CoresPerSocket=1 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN
	PartitionName=debug Nodes=toss-vm Default=YES MaxTime=INFINITE State=UP
	EOF
	cat > /etc/slurm/cgroup.conf <<-EOF
	CgroupPlugin=cgroup/v2
	ConstrainCores=yes
	EOF
	echo "include /etc/slurm/plugstack.conf.d/*.conf" > /etc/slurm/plugstack.conf
	rm -f /etc/systemd/system/slurmctld.service /etc/systemd/system/slurmd.service
	systemctl daemon-reload
	systemctl start munge slurmctld slurmd || return 1
	local i
	for i in $(seq 60); do
		timeout 5 sinfo -h -o %T 2>/dev/null | grep -q idle && return 0
		sleep 1
	done
	log "the Slurm node did not become idle: $(timeout 5 sinfo 2>&1)"
	return 1
}

# slurm_job <srun args...>: with a job holding CPU 0 (node 0) in the
# background, a one-task job gets CPU 1 (node 1).  Prints its CPUs.
slurm_job() {
	timeout 120 srun -n1 "$@" sh -c 'echo job $SLURM_JOB_ID; grep Cpus_allowed_list /proc/self/status'
}

# expect_job_tosses <srun output> <n>: slurmd logged n tosses of that job.
expect_job_tosses() {
	local id c
	id=$(echo "$1" | sed -n 's/^job \([0-9]*\)$/\1/p')
	c=$(grep -c "cpuset_toss: job $id: tossed" /var/log/slurm/slurmd.log)
	[ -n "$id" ] && [ "$c" = "$2" ] && return 0
	log "job ${id:-?}: $c tosses logged by slurmd, expected $2"
	return 1
}

slurm_blocker() {	# a job on CPU 0 for the tests to run next to
	timeout 30 sbatch -n1 -o /dev/null --wrap 'sleep 600' > /dev/null || return 1
	local i
	for i in $(seq 30); do
		[ "$(timeout 5 squeue -h -t R | wc -l)" -ge 1 ] && return 0
		sleep 1
	done
	return 1
}

test_slurm_spank() {
	local out bad=0
	slurm_up && slurm_blocker || return 1
	fill || return 1
	out=$(slurm_job --cpu-bind=cores --toss-cache) || { log "srun: $out"; return 1; }
	log "srun --toss-cache: $out"
	[[ $out == *"Cpus_allowed_list:"*1 ]] || { log "the job did not get CPU 1"; return 1; }
	expect_tossed 1 && expect_job_tosses "$out" 1 || bad=1
	grep 'cpuset_toss' /var/log/slurm/slurmd.log | tail -3 | sed 's/^/# /'
	fill || return 1
	out=$(slurm_job --cpu-bind=cores) || return 1
	log "srun without --toss-cache: $out"
	expect_tossed && expect_job_tosses "$out" 0 || bad=1
	return $bad
}

# A batch job with --toss-cache and two srun steps: the batch step tosses
# before the script runs, the steps do not toss again.
test_slurm_batch_once() {
	local id i bad=0 st
	fill || return 1
	rm -f /tmp/batch.out
	id=$(timeout 30 sbatch --parsable -n1 --toss-cache -o /tmp/batch.out --wrap "
		echo start \$(fincore -b -n -o RES $FILL/n1)
		srun true
		numactl --membind=1 cat $FILL/n1 > /dev/null
		srun true
		echo end \$(fincore -b -n -o RES $FILL/n1)") || return 1
	for i in $(seq 90); do
		st=$(timeout 5 squeue -h -j "$id" -o %T 2>/dev/null)
		[ -z "$st" ] && break
		sleep 1
	done
	log "batch job $id: $(tr '\n' ' ' < /tmp/batch.out)"
	grep -qx 'start 0' /tmp/batch.out || { log "node 1 was not tossed before the script"; bad=1; }
	grep -qx "end $((MIB << 20))" /tmp/batch.out || { log "a step tossed again"; bad=1; }
	expect_job_tosses "job $id" 1 || bad=1
	return $bad
}

test_slurm_site_default() {
	local out bad=0
	echo "optional cpuset_toss.so default=1" > /etc/slurm/plugstack.conf.d/cpuset-toss.conf
	fill || return 1
	out=$(slurm_job --cpu-bind=cores) || return 1
	log "srun with the site default: $out"
	expect_tossed 1 && expect_job_tosses "$out" 1 || bad=1
	echo "optional cpuset_toss.so" > /etc/slurm/plugstack.conf.d/cpuset-toss.conf
	return $bad
}

test_slurm_prolog() {
	local out bad=0
	sed -i '/^Prolog=/d' /etc/slurm/slurm.conf
	echo "Prolog=/usr/libexec/cpuset-toss/cpuset-toss-prolog" >> /etc/slurm/slurm.conf
	timeout 30 scontrol reconfigure || return 1
	sleep 2
	fill || return 1
	out=$(slurm_job --cpu-bind=cores) || return 1
	log "srun with the prolog: $out"
	expect_tossed 1 || bad=1
	sed -i '/^Prolog=/d' /etc/slurm/slurm.conf
	timeout 30 scontrol reconfigure
	return $bad
}


tests_slurm() {
	[ "$mode" = v2 ] || return 0
	t slurm-spank test_slurm_spank
	t slurm-batch-once test_slurm_batch_once
	t slurm-site-default test_slurm_site_default
	t slurm-prolog test_slurm_prolog
}
