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
	jq --arg root $ROOTFS --arg cgp "$2" '.root.path = $root | .root.readonly = true
		| .process.terminal = false | .process.args = ["sleep", "600"]
		| .linux.cgroupsPath = $cgp
		| .linux.resources.cpu = {"cpus": "1", "mems": "1"}
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
	[ $(( (t1 - t0) - (t2 - t1) )) -lt $(( 10 * 20000000 )) ] || return 1
	bundle $b /tossjobs/$id '.hooks.createRuntime = [{"path": "'$HOOK'"}]' || return 1
	fill || return 1
	crun run -d --bundle $b $id || return 1
	pid=$(crun state $id | jq -r .pid)
	dir=$(cgdir_of_pid "$pid")
	expect_tossed && expect_tosses "$dir" 0 || rc=1
	crun kill $id KILL; sleep 0.5; crun delete -f $id
	return $rc
}

test_update_tosses() {	# as the README documents for update -r
	local k bad=0
	for k in crun-cgroupfs crun-systemd runc-cgroupfs runc-systemd; do
		log "$k: ${UPDATE_TOSSES[$k]:-none} tosses after an update without, then with the key"
		[ "${UPDATE_TOSSES[$k]:-}" = "1 2" ] || bad=1
	done
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
	t podman-hooks.d-annotation test_podman_annotation
	t podman-cgroup-conf test_podman_cgroup_conf
	t podman-no-annotation test_podman_plain
}
