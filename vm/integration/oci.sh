# SPDX-License-Identifier: GPL-2.0
# Sourced by run: crun, runc and podman (unified key and the OCI hook).

# --- OCI runtimes ----------------------------------------------------------

ROOTFS=/root/rootfs
mkrootfs() {
	[ -x $ROOTFS/bin/busybox ] && return 0
	mkdir -p $ROOTFS/bin $ROOTFS/proc $ROOTFS/sys $ROOTFS/dev $ROOTFS/tmp
	cp /bin/busybox $ROOTFS/bin/
	# relative links: /usr/bin/busybox is not inside the container
	for a in sh sleep cat; do ln -sf busybox $ROOTFS/bin/$a; done
}

# bundle <dir> <cgroupsPath> <jq filter>: an OCI bundle running sleep.
bundle() {
	local b=$1
	rm -rf "$b" && mkdir -p "$b" && mkrootfs || return 1
	(cd "$b" && crun spec) || return 1
	jq --arg root $ROOTFS --arg cgp "$2" --arg cpus "$(cat /sys/devices/system/node/node1/cpulist)" '.root.path = $root | .root.readonly = true
		| .process.terminal = false | .process.args = ["sleep", "600"]
		| .linux.cgroupsPath = $cgp
		| .linux.resources.cpu = {"cpus": $cpus, "mems": "1"}
		| .linux.namespaces |= map(select(.type != "network"))' \
		"$b/config.json" | jq "$3" > "$b/config.new" && mv "$b/config.new" "$b/config.json"
}

UNIFIED='.linux.resources.unified = {"cpuset.memory_toss_cache": "1"}'
HOOKED='.annotations = {"cpuset.memory_toss_cache": "1"} | .hooks.createRuntime = [{"path": "'$HOOK'"}]'

# oci <runtime> <cgroupfs|systemd> <unified|hook>
oci() {
	local rt=$1 drv=$2 how=$3 id=toss-$1-$2-$3 b cgp pid dir filter flags=() rc=0
	b=/root/bundles/$id
	case $drv in
	cgroupfs) cgp=/tossjobs/$id ;;
	systemd) cgp=system.slice:$rt:$id; flags=(--systemd-cgroup) ;;
	esac
	case $how in unified) filter=$UNIFIED ;; hook) filter=$HOOKED ;; esac
	bundle "$b" "$cgp" "$filter" || return 1
	fill || return 1
	$rt "${flags[@]}" run -d --bundle "$b" "$id" || { log "$rt run failed"; return 1; }
	pid=$($rt "${flags[@]}" state "$id" | jq -r .pid)
	dir=$(cgdir_of_pid "$pid")
	log "$rt $drv $how: pid $pid in $dir, mems $(cat "$dir/cpuset.mems.effective")"
	expect_tossed 1 && expect_tosses "$dir" 1 || rc=1
	if [ $rc = 0 ] && [ "$how" = unified ]; then
		# What an update does: an update -r whose resources do not
		# name the key leaves it alone; one that names it (as a
		# tool that sends the whole resources object back does)
		# tosses again.
		fill || rc=1
		echo '{"pids": {"limit": 1000}}' > "$b/update.json"
		$rt "${flags[@]}" update -r "$b/update.json" "$id" || { log "$rt update failed"; rc=1; }
		UPDATE_TOSSES[$rt-$drv]=$(tosses "$dir")
		echo '{"pids": {"limit": 1000}, "unified": {"cpuset.memory_toss_cache": "1"}}' > "$b/update.json"
		$rt "${flags[@]}" update -r "$b/update.json" "$id" || { log "$rt update failed"; rc=1; }
		UPDATE_TOSSES[$rt-$drv]+=" $(tosses "$dir")"
		log "$rt update -r without, then with the key: ${UPDATE_TOSSES[$rt-$drv]} tosses"
	fi
	$rt "${flags[@]}" kill "$id" KILL
	sleep 0.5
	$rt "${flags[@]}" delete -f "$id" 2>/dev/null
	return $rc
}
declare -A UPDATE_TOSSES

test_hook_no_annotation() {	# the hook does nothing, quickly, when not asked
	local t0 t1 t2 i b=/root/bundles/noann id=toss-noann pid dir rc=0
	local state='{"ociVersion":"1.0.2","id":"x","status":"creating","pid":1,"bundle":"/","annotations":{"a":"b"}}'
	# ten runs of the hook against ten of /bin/true, the same way
	t0=$(date +%s%N)
	for i in 1 2 3 4 5 6 7 8 9 10; do echo "$state" | $HOOK || return 1; done
	t1=$(date +%s%N)
	for i in 1 2 3 4 5 6 7 8 9 10; do echo "$state" | /bin/true; done
	t2=$(date +%s%N)
	log "ten runs of the hook without the annotation: $(( (t1 - t0) / 1000000 )) ms, of /bin/true: $(( (t2 - t1) / 1000000 )) ms"
	# At most 30 ms a run more than /bin/true, or, on a slow (loaded TCG)
	# machine where starting /bin/true itself takes longer than that,
	# at most the time /bin/true took: the hook's extra cost is loading
	# its libraries, which scales with the machine's speed as exec does.
	local extra=$(( (t1 - t0) - (t2 - t1) )) limit=$(( 10 * 30000000 ))
	[ $(( t2 - t1 )) -gt $limit ] && limit=$(( t2 - t1 ))
	[ $extra -lt $limit ] || return 1
	bundle $b /tossjobs/$id '.hooks.createRuntime = [{"path": "'$HOOK'"}]' || return 1
	fill || return 1
	crun run -d --bundle $b $id || return 1
	pid=$(crun state $id | jq -r .pid)
	dir=$(cgdir_of_pid "$pid")
	expect_tossed && expect_tosses "$dir" 0 || rc=1
	crun kill $id KILL; sleep 0.5; crun delete -f $id
	return $rc
}

test_update_tosses() {	# as docs/integrations/oci.md documents for update -r
	local k bad=0
	for k in crun-cgroupfs crun-systemd runc-cgroupfs runc-systemd; do
		log "$k: ${UPDATE_TOSSES[$k]:-none} tosses after an update without, then with the key"
		[ "${UPDATE_TOSSES[$k]:-}" = "1 2" ] || bad=1
	done
	return $bad
}

# hook_ctr <id> <annotation> [jq filter]: crun runs a container (cgroupfs,
# /tossjobs/<id>, mems 1 and node 1's CPUs unless the filter changes them)
# whose annotation asks the hooks.d-style hook for a toss.  Fails if the
# container does not run.  Sets CTR_DIR to its cgroup.
hook_ctr() {
	local id=$1 b=/root/bundles/$1 pid filter
	filter='.annotations = {"cpuset.memory_toss_cache": $a} | .hooks.createRuntime = [{"path": "'$HOOK'"}]'
	bundle "$b" /tossjobs/"$id" "${3:-.}" || return 1
	jq --arg a "$2" "$filter" "$b/config.json" > "$b/c.new" && mv "$b/c.new" "$b/config.json"
	crun delete -f "$id" 2>/dev/null
	crun run -d --bundle "$b" "$id" || { log "$id: crun run failed: the hook failed the container"; return 1; }
	pid=$(crun state "$id" | jq -r .pid)
	[ "$(crun state "$id" | jq -r .status)" = running ] || { log "$id: not running"; return 1; }
	CTR_DIR=$(cgdir_of_pid "$pid")
	log "$id: annotation '$2': runs, pid $pid in $CTR_DIR (cpus $(cat "$CTR_DIR/cpuset.cpus.effective"), mems $(cat "$CTR_DIR/cpuset.mems.effective"))"
	journalctl -q -b -t cpuset-toss-oci-hook --since=-10s 2>/dev/null | grep "container $id:" | tail -3 | sed 's/^/#   /'
}

hook_ctr_rm() { crun kill "$1" KILL 2>/dev/null; sleep 0.3; crun delete -f "$1" 2>/dev/null; }

# The policy's defaults: slab=, scope= and nodes= from an annotation are
# refused (nothing dropped, the container runs); a plain amount and free=
# are obeyed.  On 3d47d27 every request was written as it was.
test_hook_refused_keys() {
	local a bad=0 i=0
	for a in "1 slab=1" "1 scope=node" "1 nodes=1" "1 scope=cgroup" "bogus" "1 free=1G slab=1"; do
		i=$((i + 1))
		fill || return 1
		hook_ctr refuse$i "$a" || bad=1
		expect_tossed && expect_tosses "$CTR_DIR" 0 || bad=1
		hook_ctr_rm refuse$i
	done
	fill || return 1
	hook_ctr allow1 "max free=64G" || bad=1
	expect_tossed 1 && expect_tosses "$CTR_DIR" 1 || bad=1
	hook_ctr_rm allow1
	return $bad
}

# A container not pinned to nodes of its own: mems every node (on 3d47d27
# the annotation "1" dropped every node's cache), or node 1 without all of
# node 1's CPUs; then pinned with them, tossed.
test_hook_not_own() {
	local bad=0
	fill || return 1
	hook_ctr unpinned 1 'del(.linux.resources.cpu)' || bad=1
	expect_tossed && expect_tosses "$CTR_DIR" 0 || bad=1
	hook_ctr_rm unpinned
	fill || return 1
	hook_ctr othercpus 1 '.linux.resources.cpu.cpus = "0"' || bad=1
	expect_tossed && expect_tosses "$CTR_DIR" 0 || bad=1
	hook_ctr_rm othercpus
	fill || return 1
	hook_ctr owncpus 1 || bad=1
	expect_tossed 1 && expect_tosses "$CTR_DIR" 1 || bad=1
	hook_ctr_rm owncpus
	return $bad
}

# The hook fails open: a cgroup without cpuset, hostile or malformed
# state, a pid that is not in the container's cgroup, a broken policy:
# exit 0, nothing tossed.  (A kernel without the file: the baseline run
# of this test, whose last step must then fail.)  On 3d47d27 the hook
# exited 1 on most of these, and acted on a truncated state.
test_hook_fail_open() {
	local bad=0 rc pid other st s
	fill || return 1
	mkdir -p $CG/nocs/inner
	sleep 120 & pid=$!
	echo $pid > $CG/nocs/inner/cgroup.procs
	for st in \
		'{"ociVersion":"1.0.2","id":"inner","status":"creating","pid":'$pid',"annotations":{"cpuset.memory_toss_cache":"1"}}' \
		'{"annotations":{"cpuset.memory_toss_cache":"1"},"pid":'$pid \
		'{"id":"inner","pid":4294967297,"annotations":{"cpuset.memory_toss_cache":"1"}}' \
		'{"id":"inner","pid":1.9e9,"annotations":{"cpuset.memory_toss_cache":"1"}}' \
		'{"id":"inner","pid":'$pid',"pid":1,"annotations":{"cpuset.memory_toss_cache":"1"}}' \
		'{"id":"inner","pid":'$pid',"annotations":{"cpuset.memory_toss_cache":"1\u0000 slab=1"}}' \
		'{"annotations":nu' \
		'not json at all'; do
		echo "$st" | $HOOK > /dev/null 2>/tmp/hook.err; rc=$?
		log "state ${st:0:60}...: exit $rc: $(head -c 200 /tmp/hook.err)"
		[ $rc = 0 ] || bad=1
	done
	# a process of the job cgroup job1 (mems 1) presented as container "c9"
	# whose config.json says /tossjobs/c9: not the container's, not tossed
	mkdir -p /root/bundles/c9
	echo '{"linux":{"cgroupsPath":"/tossjobs/c9"}}' > /root/bundles/c9/config.json
	sleep 120 & other=$!
	echo $other > $CG/job1/cgroup.procs
	echo '{"id":"c9","pid":'$other',"bundle":"/root/bundles/c9","annotations":{"cpuset.memory_toss_cache":"1"}}' |
		$HOOK > /dev/null 2>/tmp/hook.err; rc=$?
	log "a pid outside the container's cgroup: exit $rc: $(head -c 200 /tmp/hook.err)"
	[ $rc = 0 ] || bad=1
	# a policy file others can write is not trusted: nothing tossed
	s=$(cat /etc/cpuset-toss/cpuset-toss.conf)
	chmod 0666 /etc/cpuset-toss/cpuset-toss.conf
	hook_ctr badpolicy 1 || bad=1
	chmod 0644 /etc/cpuset-toss/cpuset-toss.conf
	hook_ctr_rm badpolicy
	kill $pid $other 2>/dev/null
	wait $pid $other 2>/dev/null
	expect_tossed || bad=1
	hook_ctr goodpolicy 1 || bad=1
	expect_tossed 1 && expect_tosses "$CTR_DIR" 1 || bad=1
	hook_ctr_rm goodpolicy
	rmdir $CG/nocs/inner $CG/nocs 2>/dev/null
	return $bad
}

# min_interval: a crash-looping container tosses its node once a minute;
# another container on the node within the minute tosses (the limit is
# per pod or container, review N5).
test_hook_interval() {
	local bad=0
	sed -i 's/^min_interval.*/min_interval = 60/' /etc/cpuset-toss/cpuset-toss.conf
	rm -f /run/cpuset-toss/node*
	fill || return 1
	hook_ctr loop1 1 || bad=1
	expect_tossed 1 && expect_tosses "$CTR_DIR" 1 || bad=1
	hook_ctr_rm loop1
	fill || return 1
	hook_ctr loop1 1 || bad=1
	expect_tossed && expect_tosses "$CTR_DIR" 0 || bad=1
	hook_ctr_rm loop1
	fill || return 1
	hook_ctr loop2 1 || bad=1
	expect_tossed 1 && expect_tosses "$CTR_DIR" 1 || bad=1
	hook_ctr_rm loop2
	sed -i 's/^min_interval.*/min_interval = 0/' /etc/cpuset-toss/cpuset-toss.conf
	return $bad
}

podman_run() {	# podman_run <args...>: a detached container with mems 1
	local id pid dir rc=0
	mkrootfs
	fill || return 1
	# --rootfs is a flag: the first argument after the options is the
	# root file system, and everything after it the command.
	id=$(podman run -d --network none --cpuset-mems 1 "$@" --rootfs $ROOTFS sleep 600) ||
		{ log "podman run failed"; return 1; }
	pid=$(podman inspect -f '{{.State.Pid}}' "$id")
	dir=$(cgdir_of_pid "$pid")
	log "podman $*: pid $pid in $dir, mems $(cat "$dir/cpuset.mems.effective")"
	expect_tossed 1 && expect_tosses "$dir" 1 || rc=1
	podman rm -f -t 0 "$id" > /dev/null
	return $rc
}

test_podman_annotation() {
	podman_run --annotation io.github.cpuset-toss.request=1
}

# 1.0's key, deprecated: the hooks.d file still matches it
test_podman_annotation_old() {
	podman_run --annotation cpuset.memory_toss_cache=1
}

test_podman_cgroup_conf() {
	podman_run --cgroup-conf=cpuset.memory_toss_cache=1
}

test_podman_plain() {	# no annotation: the hook is not even run
	local id pid dir rc=0
	fill || return 1
	mkrootfs
	id=$(podman run -d --network none --cpuset-mems 1 --rootfs $ROOTFS sleep 600) || return 1
	pid=$(podman inspect -f '{{.State.Pid}}' "$id")
	dir=$(cgdir_of_pid "$pid")
	expect_tossed && expect_tosses "$dir" 0 || rc=1
	podman rm -f -t 0 "$id" > /dev/null
	return $rc
}


tests_oci() {
	[ "$mode" = v2 ] || return 0
	local rt drv how
	for rt in crun runc; do
		for drv in cgroupfs systemd; do
			for how in unified hook; do
				t "$rt-$drv-$how" oci $rt $drv $how
			done
		done
	done
	t oci-update-tosses-again test_update_tosses
	t oci-hook-no-annotation test_hook_no_annotation
	t oci-hook-refused-keys test_hook_refused_keys
	t oci-hook-not-own-nodes test_hook_not_own
	t oci-hook-fail-open test_hook_fail_open
	t oci-hook-interval test_hook_interval
	t podman-hooks.d-annotation test_podman_annotation
	t podman-hooks.d-annotation-1.0 test_podman_annotation_old
	t podman-cgroup-conf test_podman_cgroup_conf
	t podman-no-annotation test_podman_plain
}
