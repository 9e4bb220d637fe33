# SPDX-License-Identifier: GPL-2.0
# Sourced by run: the cpuset-toss CLI and libcgroup's cgset.

# --- cpuset-toss -----------------------------------------------------------

mkjob() {	# mkjob <name> <mems>: a v2 cgroup under the root
	mkdir -p $CG/"$1" && echo "$2" > $CG/"$1"/cpuset.mems
}

test_cli_path() {
	mkjob job1 1 && fill || return 1
	cpuset-toss job1 || return 1
	expect_tossed 1 && expect_tosses $CG/job1 1
}

test_cli_json() {
	local out
	fill || return 1
	out=$(cpuset-toss --json --nodes 1 /sys/fs/cgroup/job1) || return 1
	log "$out"
	echo "$out" | jq -e '.cgroup == "/job1" and .hierarchy == "v2" and .request == "1 nodes=1"
		and .exit_code == 0 and ([.nodes[] | select(.target) | .node] == [1])
		and .kernel.tossed_bytes >= 60 * 1048576' > /dev/null || return 1
	expect_tossed 1 && expect_tosses $CG/job1 2
}

test_cli_pid() {
	local pid rc
	fill || return 1
	mkjob job1/leaf 1 2>/dev/null
	echo "+cpuset" > $CG/job1/cgroup.subtree_control
	mkjob job1/leaf 1 || return 1
	sleep 60 & pid=$!
	echo $pid > $CG/job1/leaf/cgroup.procs
	cpuset-toss --quiet --pid $pid; rc=$?
	kill $pid
	[ $rc = 0 ] && expect_tossed 1 && expect_tosses $CG/job1/leaf 1
}

test_cli_errors() {	# each refused write: its exit code, nothing dropped
	local out rc bad=0
	fill || return 1
	out=$(cpuset-toss --write bogus job1 2>&1); rc=$?
	log "bogus: $rc: $out"
	[ $rc = 65 ] && [[ $out == *invalid* ]] || bad=1
	out=$(cpuset-toss --nodes 0 job1 2>&1); rc=$?
	log "node outside mems: $rc: $out"
	[ $rc = 65 ] || bad=1
	out=$(cpuset-toss nosuchjob 2>&1); rc=$?
	log "no cgroup: $rc: $out"
	[ $rc = 66 ] || bad=1
	out=$(cpuset-toss --unit nosuch.service 2>&1); rc=$?
	log "no unit: $rc: $out"
	[ $rc = 66 ] || bad=1
	# A delegated cgroup: nobody may write the file, but scope=node needs
	# CAP_SYS_ADMIN: EPERM; scope=cgroup is allowed (and has no memcg).
	chown nobody $CG/job1/cpuset.memory_toss_cache
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups cpuset-toss job1 2>&1); rc=$?
	log "scope=node as nobody: $rc: $out"
	[ $rc = 77 ] && [[ $out == *"not permitted"* ]] || bad=1
	chown root $CG/job1/cpuset.memory_toss_cache
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups cpuset-toss job1 2>&1); rc=$?
	log "not the owner: $rc: $out"
	[ $rc = 77 ] || bad=1
	out=$(cpuset-toss --size 99999999999999999999 job1 2>&1); rc=$?
	log "a size beyond 64 bits: $rc: $out"
	[ $rc = 65 ] && [[ $out == *ERANGE* ]] || bad=1
	# job1/leaf (made by the pid test) has cpuset but not memory
	out=$(cpuset-toss --scope cgroup job1/leaf 2>&1); rc=$?
	log "scope=cgroup without the memory controller: $rc: $out"
	[ $rc = 78 ] && [[ $out == *EOPNOTSUPP* ]] || bad=1
	expect_tossed && expect_tosses $CG/job1 2 || bad=1
	# more than node 1 holds: all of it goes, and the status says less
	# than asked could be dropped
	out=$(cpuset-toss --size 1G job1 2>&1); rc=$?
	log "1G asked, node 1 holds less: $rc: $out"
	[ $rc = 75 ] && [[ $out == *EAGAIN* ]] || bad=1
	expect_tossed 1 && expect_tosses $CG/job1 3 || bad=1
	return $bad
}

# read_n1_in <cgroup>: node 1's file read again from inside the cgroup,
# so that its cache is charged to it.
read_n1_in() {
	dd if=$FILL/n1 iflag=nocache count=0 status=none
	sh -c "echo \$\$ > $CG/$1/cgroup.procs && exec cat $FILL/n1 > /dev/null"
}

# memory.reclaim's clean_cache=1 through the CLI, by the owner of a
# delegated cgroup: only the cgroup's own cache goes, on the node named;
# without --nodes, on the cpuset's nodes (as --scope cgroup); and in a
# cgroup without the cpuset controller (a user's by default), on every
# node.
test_cli_memory_reclaim() {
	local out rc bad=0
	mkjob job1 1 || return 1
	grep -qw memory $CG/cgroup.subtree_control || echo +memory > $CG/cgroup.subtree_control
	fill || return 1
	read_n1_in job1 || return 1
	[ "$(res $FILL/n1)" = $((MIB << 20)) ] || { log "n1 not cached from job1"; return 1; }
	chown nobody $CG/job1 $CG/job1/memory.reclaim $CG/job1/cgroup.procs
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		cpuset-toss --memory-reclaim --nodes 1 job1 2>&1); rc=$?
	log "as nobody: $rc: $out"
	[ $rc = 0 ] && [[ $out == *'wrote "max clean_cache=1 nodes=1" to memory.reclaim'* ]] || bad=1
	expect_tossed 1 || bad=1
	# what memory.reclaim has no key for is refused before any write
	out=$(cpuset-toss --memory-reclaim --free 1G job1 2>&1); rc=$?
	log "--free: $rc: $out"
	[ $rc = 64 ] || bad=1
	chown root $CG/job1 $CG/job1/memory.reclaim $CG/job1/cgroup.procs
	# no --nodes: the cpuset's nodes
	fill || return 1
	read_n1_in job1 || return 1
	out=$(cpuset-toss --memory-reclaim job1 2>&1); rc=$?
	log "no --nodes: $rc: $out"
	[ $rc = 0 ] && [[ $out == *'wrote "max clean_cache=1 nodes=1" to memory.reclaim'* ]] || bad=1
	expect_tossed 1 || bad=1
	# jobm/leaf: memory, no cpuset (jobm's nodes hold for its tasks)
	mkjob jobm 1 && mkdir -p $CG/jobm/leaf || return 1
	echo "+memory -cpuset" > $CG/jobm/cgroup.subtree_control || return 1
	[ ! -e $CG/jobm/leaf/cpuset.mems ] || { log "jobm/leaf has the cpuset controller"; return 1; }
	fill || return 1
	read_n1_in jobm/leaf || return 1
	chown nobody $CG/jobm/leaf $CG/jobm/leaf/memory.reclaim
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		cpuset-toss --memory-reclaim jobm/leaf 2>&1); rc=$?
	log "no cpuset, as nobody: $rc: $out"
	[ $rc = 0 ] && [[ $out == *'wrote "max clean_cache=1" to memory.reclaim'* ]] || bad=1
	expect_tossed 1 || bad=1
	# but no cpuset-toss without --memory-reclaim there
	out=$(cpuset-toss --scope cgroup jobm/leaf 2>&1); rc=$?
	log "no cpuset, --scope cgroup: $rc: $out"
	[ $rc = 66 ] || bad=1
	rmdir $CG/jobm/leaf $CG/jobm
	return $bad
}

# --pid out of range, on the old code PID 1's cgroup (the root): refused,
# nothing dropped; a pid in range still works.
test_cli_pid_range() {
	local out rc bad=0 p pid
	fill || return 1
	for p in 4294967297 99999999999999999999 -1 0 1x; do
		out=$(cpuset-toss --pid $p 2>&1); rc=$?
		log "--pid $p: $rc: $out"
		[ $rc = 64 ] || bad=1
	done
	expect_tossed || bad=1
	sleep 60 & pid=$!
	echo $pid > $CG/job1/cgroup.procs
	cpuset-toss --quiet --pid $pid || bad=1
	kill $pid
	expect_tossed 1 || bad=1
	return $bad
}

# --json: one valid JSON object on stdout for every outcome, errors too.
test_cli_json_errors() {
	local out rc bad=0 a
	fill || return 1
	for a in "nosuchjob" "--unit nosuch.service" "--pid 4294967297" "--bogus job1" \
		"--write bogus job1" "--nodes 0 job1" "" "--self in init.scope"; do
		if [ "$a" = "--self in init.scope" ]; then
			# never the root cgroup or init.scope (every node there)
			out=$(sh -c 'echo $$ > '$CG'/init.scope/cgroup.procs && exec cpuset-toss --json --self' 2>/dev/null); rc=$?
		else
			# shellcheck disable=SC2086
			out=$(cpuset-toss --json $a 2>/dev/null); rc=$?
		fi
		log "--json $a: $rc: $out"
		if ! echo "$out" | jq -e --argjson rc $rc '.exit_code == $rc and $rc != 0' > /dev/null; then
			log "not one JSON object with exit_code $rc"
			bad=1
		fi
	done
	expect_tossed || bad=1
	out=$(cpuset-toss --json job1) || bad=1
	echo "$out" | jq -e '.exit_code == 0' > /dev/null || bad=1
	expect_tossed 1 || bad=1
	return $bad
}

# --- libcgroup -------------------------------------------------------------

test_cgset() {
	local ctl=cpuset bad=0 out rc root=$CG
	[ "$mode" = v1 ] && root=$CG/cpuset
	cgcreate -g $ctl:cgjob && cgset -r cpuset.mems=1 cgjob || return 1
	fill || return 1
	cgset -r cpuset.memory_toss_cache=1 cgjob || return 1
	expect_tossed 1 && expect_tosses $root/cgjob 1 || bad=1
	fill || return 1
	cgset -r "cpuset.memory_toss_cache=1 nodes=1" cgjob || return 1
	expect_tossed 1 && expect_tosses $root/cgjob 2 || bad=1
	fill || return 1
	out=$(cgset -r "cpuset.memory_toss_cache=1 nodes=0" cgjob 2>&1); rc=$?
	log "cgset, nodes outside the cpuset: status $rc: $out"
	[ $rc != 0 ] || bad=1
	out=$(cgset -r cpuset.memory_toss_cache=bogus cgjob 2>&1); rc=$?
	log "cgset, bad input: status $rc: $out"
	[ $rc != 0 ] || bad=1
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		cgset -r cpuset.memory_toss_cache=1 cgjob 2>&1); rc=$?
	log "cgset as nobody, the file root's: status $rc: $out"
	[ $rc != 0 ] || bad=1
	# delegated to nobody: the write is refused by the kernel (EPERM:
	# scope=node needs CAP_SYS_ADMIN), not by the file's mode
	chown nobody $root/cgjob/cpuset.memory_toss_cache
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		cgset -r cpuset.memory_toss_cache=1 cgjob 2>&1); rc=$?
	log "cgset as nobody, the file delegated to nobody: status $rc: $out"
	[ $rc != 0 ] || bad=1
	# Is it the open?  libcgroup opens the file to read and write it; the
	# file is write-only, which root bypasses.  Made readable too, the
	# write reaches the kernel:
	chmod 0600 $root/cgjob/cpuset.memory_toss_cache
	out=$(setpriv --reuid=nobody --regid=nogroup --clear-groups \
		cgset -r cpuset.memory_toss_cache=1 cgjob 2>&1); rc=$?
	log "cgset as nobody, the file delegated to nobody and made readable: status $rc: $out"
	[ $rc != 0 ] || bad=1
	chmod 0200 $root/cgjob/cpuset.memory_toss_cache
	chown root $root/cgjob/cpuset.memory_toss_cache
	expect_tossed && expect_tosses $root/cgjob 2 || bad=1
	return $bad
}

test_v1_cli() {
	mkdir -p $CG/cpuset/v1job && echo 1 > $CG/cpuset/v1job/cpuset.mems &&
		cat $CG/cpuset/cpuset.cpus > $CG/cpuset/v1job/cpuset.cpus || return 1
	fill || return 1
	cpuset-toss v1job || return 1
	expect_tossed 1 && expect_tosses $CG/cpuset/v1job 1 || return 1
	local pid rc
	fill || return 1
	sleep 60 & pid=$!
	echo $pid > $CG/cpuset/v1job/tasks
	cpuset-toss --json --pid $pid | jq -e '.hierarchy == "v1" and .cgroup == "/v1job"' >/dev/null; rc=$?
	kill $pid
	[ $rc = 0 ] && expect_tossed 1 && expect_tosses $CG/cpuset/v1job 2
}


tests_cli() {
	if [ "$mode" = v1 ]; then
		t cgset-v1 test_cgset
		t cpuset-toss-v1 test_v1_cli
		return
	fi
	t cpuset-toss-path test_cli_path
	t cpuset-toss-json test_cli_json
	t cpuset-toss-pid test_cli_pid
	t cpuset-toss-errors test_cli_errors
	t cpuset-toss-memory-reclaim test_cli_memory_reclaim
	t cpuset-toss-pid-range test_cli_pid_range
	t cpuset-toss-json-errors test_cli_json_errors
	t cgset-v2 test_cgset
}
