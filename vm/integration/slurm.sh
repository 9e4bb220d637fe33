# SPDX-License-Identifier: GPL-2.0
# Sourced by run: Slurm's SPANK plugin, cpuset_toss.so.
#
# The VM's node 1 has two CPUs, 1 and 3 (NODE_CPUS="0 1,3 2 -"); a batch
# job holds CPU 0 for the whole run.  A one-CPU job then holds one of node
# 1's CPUs (the plugin leaves node 1 alone: another job may run on CPU
# 3), a two-CPU job both (node 1 is the job's: tossed).  Each test checks
# the job cgroup's CPUs it got before it judges what was tossed.

# --- Slurm -----------------------------------------------------------------

SLURMD_LOG=/var/log/slurm/slurmd.log
PLUGSTACK=/etc/slurm/plugstack.conf.d/cpuset-toss.conf

slurm_up() {
	[ -n "${SLURM_IS_UP:-}" ] && return 0
	slurm_conf SlurmctldHost=toss-vm "NodeName=toss-vm $SLURM_MACHINE" \
		"PartitionName=debug Nodes=toss-vm Default=YES MaxTime=INFINITE State=UP"
	# The packaged configuration: Debian's plugstack.conf includes
	# plugstack.conf.d/*.conf, and cpuset-toss-slurm-plugin's conffile
	# loads the plugin (optional, no default).
	grep -qx 'include /etc/slurm/plugstack.conf.d/\*.conf' /etc/slurm/plugstack.conf ||
		{ log "/etc/slurm/plugstack.conf does not include plugstack.conf.d"; return 1; }
	[ "$(grep -v '^#' $PLUGSTACK 2>/dev/null | grep .)" = "optional cpuset_toss.so" ] ||
		{ log "$PLUGSTACK: not the packaged one: $(cat $PLUGSTACK 2>&1)"; return 1; }
	cp $PLUGSTACK /root/plugstack-packaged.conf
	systemctl start munge slurmctld slurmd || return 1
	slurm_idle && slurm_blocker || return 1
	SLURM_IS_UP=1
}

# A machine of the VM to Slurm: four CPUs, each a socket of its own.
SLURM_MACHINE="CPUs=4 Sockets=4 CoresPerSocket=1 ThreadsPerCore=1 RealMemory=1000 State=UNKNOWN"

# slurm_conf <line>...: /etc/slurm/slurm.conf, the settings every test
# shares, then these lines (the controller, the machines, the partition);
# cgroup.conf with ConstrainCores=yes; slurmctld and slurmd unmasked (the
# image masks them), not started.
slurm_conf() {
	mkdir -p /var/spool/slurmctld /var/spool/slurmd /var/log/slurm
	chown slurm: /var/spool/slurmctld /var/log/slurm
	{
		cat <<-EOF
		ClusterName=toss
		AuthType=auth/munge
		SlurmUser=slurm
		StateSaveLocation=/var/spool/slurmctld
		SlurmdSpoolDir=/var/spool/slurmd
		ProctrackType=proctrack/cgroup
		TaskPlugin=task/cgroup,task/affinity
		PrologFlags=Contain
		SelectType=select/cons_tres
		SelectTypeParameters=CR_Core
		ReturnToService=2
		SlurmctldLogFile=/var/log/slurm/slurmctld.log
		SlurmdLogFile=$SLURMD_LOG
		EOF
		printf '%s\n' "$@"
	} > /etc/slurm/slurm.conf
	slurm_cgroup_conf yes
	rm -f /etc/systemd/system/slurmctld.service /etc/systemd/system/slurmd.service
	systemctl daemon-reload
}

slurm_cgroup_conf() {	# slurm_cgroup_conf yes|no: ConstrainCores
	printf 'CgroupPlugin=cgroup/v2\nConstrainCores=%s\n' "$1" > /etc/slurm/cgroup.conf
}

node_idle() { timeout 5 sinfo -h -o %T 2>/dev/null | grep -Eq 'idle|mixed'; }
slurm_idle() {	# the node is up and takes jobs
	wait_for 60 node_idle && return 0
	log "the Slurm node did not become idle: $(timeout 5 sinfo 2>&1)"
	return 1
}

jobs_running() { [ "$(timeout 5 squeue -h -t R | wc -l)" -ge 1 ]; }
slurm_blocker() {	# a job on CPU 0 for the tests to run next to
	timeout 30 sbatch -n1 -J blocker -o /dev/null --wrap 'sleep 3600' > /dev/null || return 1
	wait_for 30 jobs_running
}

# What a task prints about its job: "job <id>" and "cpus <the job
# cgroup's cpuset.cpus.effective>".
JOB_INFO='echo job $SLURM_JOB_ID; c=$(sed -n "s/^0:://p" /proc/self/cgroup); echo cpus $(cat /sys/fs/cgroup${c%%/step_*}/cpuset.cpus.effective)'

# slurm_job <ncpus> <srun args...>: a one-task job of <ncpus> CPUs;
# prints JOB_INFO.
slurm_job() {
	local c=$1
	shift
	timeout 120 srun -n1 -c"$c" "$@" sh -c "$JOB_INFO"
}

# expect_cpus <job output> <list>: the job cgroup got these CPUs.
expect_cpus() {
	[[ $1 == *"cpus $2"* ]] && return 0
	log "the job did not get CPUs $2: $1"
	return 1
}

job_id() { echo "$1" | sed -n 's/^job \([0-9]*\)$/\1/p'; }

# expect_job_tosses <job output or "job <id>"> <n>: slurmd logged n
# tosses of that job.
expect_job_tosses() {
	local id c
	id=$(job_id "$1")
	c=$(grep -c "cpuset_toss: job $id: tossed" $SLURMD_LOG)
	[ -n "$id" ] && [ "$c" = "$2" ] && return 0
	log "job ${id:-?}: $c tosses logged by slurmd, expected $2"
	return 1
}

# expect_job_log <job output> <text>: slurmd logged this about the job.
expect_job_log() {
	local id
	id=$(job_id "$1")
	grep "cpuset_toss: job $id: " $SLURMD_LOG | sed 's/^/# slurmd: /'
	[ -n "$id" ] && grep "cpuset_toss: job $id: " $SLURMD_LOG | grep -qF -- "$2" && return 0
	log "job ${id:-?}: slurmd did not log \"$2\""
	return 1
}

# A job holding one of node 1's CPUs leaves node 1 alone and says why;
# a job holding both tosses it; without --toss-cache nothing.
test_slurm_own_nodes() {
	local out bad=0
	slurm_up || return 1
	fill || return 1
	out=$(slurm_job 1 --toss-cache) || { log "srun: $out"; return 1; }
	log "srun -c1 --toss-cache: $(echo $out)"
	expect_cpus "$out" 1 || return 1
	expect_tossed && expect_job_tosses "$out" 0 || bad=1
	expect_job_log "$out" "node 1: left alone: " || bad=1
	fill || return 1
	out=$(slurm_job 2 --toss-cache) || { log "srun: $out"; return 1; }
	log "srun -c2 --toss-cache: $(echo $out)"
	expect_cpus "$out" 1,3 || return 1
	expect_tossed 1 && expect_job_tosses "$out" 1 || bad=1
	fill || return 1
	out=$(slurm_job 2) || return 1
	log "srun -c2 without --toss-cache: $(echo $out)"
	expect_tossed && expect_job_tosses "$out" 0 || bad=1
	return $bad
}

# slab= (and scope=, nodes=) from a user are refused by the default
# policy: logged, the job runs; the same job with an amount tosses.
test_slurm_refused_keys() {
	local out bad=0 k
	slurm_up || return 1
	fill || return 1
	for k in '1 slab=1' '1:scope=node' '1 nodes=0-3'; do
		out=$(slurm_job 2 --toss-cache="$k") || { log "srun --toss-cache='$k' failed: $out"; return 1; }
		log "srun -c2 --toss-cache='$k': $(echo $out)"
		expect_cpus "$out" 1,3 || return 1
		expect_job_log "$out" "refused" || bad=1
		expect_job_tosses "$out" 0 || bad=1
	done
	expect_tossed || bad=1
	out=$(slurm_job 2 --toss-cache=max) || return 1
	log "srun -c2 --toss-cache=max: $(echo $out)"
	expect_tossed 1 && expect_job_tosses "$out" 1 || bad=1
	return $bad
}

# A batch job with --toss-cache and srun steps: the extern step tosses at
# the job's start, before the script runs; no step tosses again, two
# concurrent steps included.  Then a job that asked nothing at its start
# and whose two concurrent steps ask: the decision was made at the start,
# no step tosses the job's own cache, warm by then.
job_gone() { [ -z "$(timeout 5 squeue -h -j "$1" -o %T 2>/dev/null)" ]; }
slurm_batch() {	# slurm_batch <out> <sbatch args...>: wait for its end
	local id o=$1
	shift
	rm -f "$o"
	id=$(timeout 30 sbatch --parsable -n1 -c2 -o "$o" "$@") || return 1
	wait_for 120 job_gone "$id"
	echo "$id"
}

test_slurm_batch_once() {
	local id bad=0 full=$((MIB << 20))
	slurm_up || return 1
	fill || return 1
	id=$(slurm_batch /tmp/batch.out --toss-cache --wrap "
		$JOB_INFO
		echo start \$(fincore -b -n -o RES $FILL/n1)
		srun -n1 -c1 true & srun -n1 -c1 true & wait
		numactl --membind=1 cat $FILL/n1 > /dev/null
		srun -n1 -c1 true
		echo end \$(fincore -b -n -o RES $FILL/n1)") || return 1
	log "batch job $id: $(tr '\n' ' ' < /tmp/batch.out)"
	expect_cpus "$(cat /tmp/batch.out)" 1,3 || return 1
	grep -qx 'start 0' /tmp/batch.out || { log "node 1 was not tossed before the script"; bad=1; }
	grep -qx "end $full" /tmp/batch.out || { log "a step tossed again"; bad=1; }
	expect_job_tosses "job $id" 1 || bad=1

	fill || return 1
	id=$(slurm_batch /tmp/steps.out --wrap "
		$JOB_INFO
		for s in a b; do
			srun -n1 -c1 --toss-cache sh -c \"echo step \$s \\\$(fincore -b -n -o RES $FILL/n1)\" &
		done
		wait") || return 1
	log "job $id, nothing asked at its start, two concurrent steps with --toss-cache: $(tr '\n' ' ' < /tmp/steps.out)"
	grep "cpuset_toss: job $id: " $SLURMD_LOG | sed 's/^/# slurmd: /'
	expect_cpus "$(cat /tmp/steps.out)" 1,3 || return 1
	[ "$(grep -c "^step [ab] $full\$" /tmp/steps.out)" = 2 ] ||
		{ log "a step saw node 1's cache gone"; bad=1; }
	expect_tossed && expect_job_tosses "job $id" 0 || bad=1
	return $bad
}

# An allocation that runs no step on the machine (salloc --no-shell):
# with PrologFlags=Contain the extern step tosses at its start all the
# same; without it (the fallback) nothing happens until the job's first
# step, which tosses as it asks.
salloc_no_shell() {	# salloc_no_shell <salloc args...>: the job id
	timeout 60 salloc --no-shell "$@" 2>&1 |
		sed -n 's/.*Granted job allocation \([0-9]*\).*/\1/p'
}

wait_job_tossed() {	# wait_job_tossed <id>: slurmd logged its toss (30 s)
	wait_for 30 grep -q "cpuset_toss: job $1: tossed" $SLURMD_LOG
}

test_slurm_no_step() {
	local id out bad=0
	slurm_up || return 1
	fill || return 1
	id=$(salloc_no_shell -n1 -c2 --toss-cache)
	[ -n "$id" ] || { log "salloc --no-shell: no allocation"; return 1; }
	wait_job_tossed "$id"
	log "allocation $id, no step: $(grep "cpuset_toss: job $id: " $SLURMD_LOG | tr '\n' ' ')"
	expect_tossed 1 && expect_job_tosses "job $id" 1 || bad=1
	timeout 30 scancel "$id"
	# the fallback: no extern step
	sed -i '/^PrologFlags=/d' /etc/slurm/slurm.conf
	if systemctl restart slurmctld slurmd && slurm_idle; then
		fill || return 1
		id=$(salloc_no_shell -n1 -c2 --toss-cache)
		sleep 5
		log "allocation $id without PrologFlags=Contain, no step yet: $(grep -c "cpuset_toss: job $id: tossed" $SLURMD_LOG) tosses"
		expect_tossed && expect_job_tosses "job $id" 0 || bad=1
		out=$(timeout 120 srun --jobid="$id" -n1 -c2 --toss-cache sh -c "$JOB_INFO") || bad=1
		log "its first step, with --toss-cache: $(echo $out)"
		expect_tossed 1 && expect_job_tosses "job $id" 1 || bad=1
		timeout 30 scancel "$id"
	else
		log "slurmctld or slurmd did not come back without PrologFlags"
		bad=1
	fi
	echo PrologFlags=Contain >> /etc/slurm/slurm.conf
	systemctl restart slurmctld slurmd && slurm_idle || bad=1
	return $bad
}

# The site's default (plugstack.conf default=): every job tosses the
# nodes it holds whole, without the option, as the policy allows.
test_slurm_site_default() {
	local out bad=0
	slurm_up || return 1
	echo "optional cpuset_toss.so default=1" > $PLUGSTACK
	fill || return 1
	out=$(slurm_job 1) || return 1
	log "srun -c1 with the site default: $(echo $out)"
	expect_cpus "$out" 1 || bad=1
	expect_tossed && expect_job_tosses "$out" 0 || bad=1
	fill || return 1
	out=$(slurm_job 2) || return 1
	log "srun -c2 with the site default: $(echo $out)"
	expect_cpus "$out" 1,3 || bad=1
	expect_tossed 1 && expect_job_tosses "$out" 1 || bad=1
	cp /root/plugstack-packaged.conf $PLUGSTACK
	return $bad
}

# ConstrainCores=no: the job cgroup has every CPU whatever the job holds;
# a one-CPU job is refused, a job holding every CPU tosses every node
# with CPUs.
test_slurm_unconstrained() {
	local out bad=0
	slurm_up || return 1
	slurm_cgroup_conf no
	timeout 60 scancel -n blocker
	systemctl restart slurmd && slurm_idle || { slurm_cgroup_conf yes; return 1; }
	fill || return 1
	out=$(slurm_job 1 --toss-cache) || bad=1
	log "srun -c1 --toss-cache, ConstrainCores=no: $(echo $out)"
	expect_cpus "$out" 0-3 || bad=1
	expect_tossed && expect_job_tosses "$out" 0 || bad=1
	expect_job_log "$out" "cores are not constrained" || bad=1
	fill || return 1
	out=$(slurm_job 4 --toss-cache) || bad=1
	log "srun -c4 --toss-cache, ConstrainCores=no: $(echo $out)"
	expect_tossed 0 1 2 && expect_job_tosses "$out" 1 || bad=1
	slurm_cgroup_conf yes
	systemctl restart slurmd && slurm_idle && slurm_blocker || bad=1
	return $bad
}

# On a kernel without the file (the baseline kernel: check.sh runs the
# stock-kernel-* tests there, and they skip on the patched one), Slurm
# runs jobs that ask for a toss as if they had not asked: each job
# succeeds, slurmd says once, at info, that --toss-cache does nothing on
# this machine, and no job logs an error about it.
test_stock_kernel_slurm() {
	local out1 out2 from lines bad=0
	if [ -e $CG/cpuset.memory_toss_cache ]; then
		log "this kernel has cpuset.memory_toss_cache: a test for a kernel without it"
		return 77
	fi
	slurm_up || return 1
	from=$(wc -l < $SLURMD_LOG)
	systemctl restart slurmd && slurm_idle || return 1
	out1=$(slurm_job 2 --toss-cache) || bad=1
	out2=$(slurm_job 2 --toss-cache=max) || bad=1
	log "two jobs with --toss-cache: $(echo $out1) / $(echo $out2)"
	[ -n "$(job_id "$out1")" ] && [ -n "$(job_id "$out2")" ] ||
		{ log "a job did not run"; bad=1; }
	lines=$(tail -n +$((from + 1)) $SLURMD_LOG | grep cpuset_toss)
	echo "$lines" | sed 's/^/# slurmd: /'
	[ "$(echo "$lines" | grep -c 'cpuset_toss: .*--toss-cache does nothing on this machine')" = 1 ] ||
		{ log "slurmd did not say once that --toss-cache does nothing"; bad=1; }
	! echo "$lines" | grep -qi 'error' ||
		{ log "slurmd logged an error about cpuset_toss"; bad=1; }
	return $bad
}

tests_slurm() {
	[ "$mode" = v2 ] || return 0
	t slurm-own-nodes test_slurm_own_nodes
	t slurm-refused-keys test_slurm_refused_keys
	t slurm-batch-once test_slurm_batch_once
	t slurm-no-step test_slurm_no_step
	t slurm-site-default test_slurm_site_default
	t slurm-unconstrained test_slurm_unconstrained
	t stock-kernel-slurm test_stock_kernel_slurm
}
