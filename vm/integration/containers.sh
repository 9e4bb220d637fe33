# SPDX-License-Identifier: GPL-2.0
# Sourced by run: LXC (lxc.cgroup2.* keys, no code of ours), Docker (the
# runtime wrapper cpuset-toss-runc in daemon.json) and containerd (the
# wrapper as the runc shim's binary).

RUNC_TOSS=/usr/libexec/cpuset-toss/cpuset-toss-runc
N1CPUS=$(cat /sys/devices/system/node/node1/cpulist)	# node 1's CPUs, whole

# --- LXC -------------------------------------------------------------------

# lxc_rootfs <dir>: a busybox root file system whose init records its
# cgroup's toss count before anything else, then sleeps.
lxc_rootfs() {
	local r=$1 k
	mkdir -p $r/bin $r/proc $r/sys $r/dev $r/tmp
	cp /bin/busybox $r/bin/
	for k in sh sleep cat; do ln -sf busybox $r/bin/$k; done
	printf '#!/bin/sh\ncat /sys/fs/cgroup/cpuset.memory_toss_cache.stat > /tmp/stat\nexec sleep 600\n' > $r/init
	chmod 0755 $r/init
}

# lxc_conf <name> <rootfs> <lines...>: a container's config, no network,
# then the given lines.
lxc_conf() {
	local l
	echo "lxc.uts.name = $1"
	echo "lxc.rootfs.path = dir:$2"
	echo "lxc.net.0.type = empty"
	echo "lxc.init.cmd = /init"
	echo "lxc.mount.auto = proc:rw sys:ro cgroup:ro"
	echo "lxc.apparmor.profile = unconfined"
	shift 2
	for l; do echo "$l"; done
}

# lxc_ct <name> <cgroup2 keys...>: a privileged container of lxc_rootfs.
lxc_ct() {
	local name=$1 r=/var/lib/lxc/$1/rootfs k keys=()
	shift
	lxc-stop -n "$name" -k > /dev/null 2>&1
	rm -rf "/var/lib/lxc/$name"
	lxc_rootfs $r
	for k; do keys+=("lxc.cgroup2.$k"); done
	lxc_conf "$name" $r "${keys[@]}" > "/var/lib/lxc/$name/config"
}

# lxc_wait_init <rootfs>: until the container's init has recorded its
# cgroup's toss count (5 s at most).
lxc_wait_init() {
	wait_for 5 test -s "$1/tmp/stat"
}

# lxc_check <rootfs> <init pid> <nodes expected tossed...>: the nodes'
# cache as expected, the container's cgroup tossed once, and its init,
# first thing, saw the toss already done.
lxc_check() {
	local r=$1 pid=$2 dir i rc=0
	shift 2
	[ -n "$pid" ] || { log "no container init"; return 1; }
	dir=$(cgdir_of_pid "$pid")
	log "container init $pid (uid $(stat -c %u /proc/"$pid" 2>/dev/null)) in $dir, owner $(stat -c %U "$dir" 2>/dev/null), mems $(cat "$dir/cpuset.mems.effective"), cpus $(cat "$dir/cpuset.cpus.effective")"
	expect_tossed "$@" && expect_tosses "$dir" 1 || rc=1
	i=$(sed -n 's/^tosses //p' "$r/tmp/stat" 2>/dev/null)
	log "the container's init read tosses ${i:-nothing} from its cgroup"
	[ "$i" = 1 ] || rc=1
	return $rc
}

# lxc_run <name> <nodes expected tossed...>
lxc_run() {
	local name=$1 rc=0
	shift
	fill || return 1
	lxc-start -n "$name" -l INFO -o "/tmp/lxc-$name.log" || { log "lxc-start failed"; return 1; }
	lxc_wait_init "/var/lib/lxc/$name/rootfs"
	lxc_check "/var/lib/lxc/$name/rootfs" "$(lxc-info -n "$name" -p -H)" "$@" || rc=1
	lxc-stop -n "$name" -k
	return $rc
}

# The order of the keys is the order LXC writes them in: mems, then the toss.
test_lxc() {
	lxc_ct tossct "cpuset.cpus = $N1CPUS" "cpuset.mems = 1" "cpuset.memory_toss_cache = 1" &&
		lxc_run tossct 1
}

# The toss before cpuset.mems: the new cgroup has no nodes of its own yet,
# so the kernel refuses the toss (EINVAL: "Invalid argument" in LXC's log),
# LXC does not start the container, and no node loses its cache.  (A kernel
# without the file fails this too: its error is another.)
test_lxc_order() {
	local rc=0
	lxc_ct tossorder "cpuset.memory_toss_cache = 1" "cpuset.cpus = $N1CPUS" "cpuset.mems = 1"
	fill || return 1
	if lxc-start -n tossorder -l INFO -o /tmp/lxc-tossorder.log; then
		log "lxc-start started the container with the toss before cpuset.mems"
		lxc-stop -n tossorder -k
		rc=1
	fi
	grep -q "Invalid argument" /tmp/lxc-tossorder.log || {
		log "LXC's log does not say EINVAL:"; tail -5 /tmp/lxc-tossorder.log; rc=1; }
	expect_tossed || rc=1
	return $rc
}

# An unprivileged container: a user starts it in a cgroup delegated to
# them, with an id map (newuidmap), and LXC writes its keys with the
# user's credentials.
LXC_USER=tossuser
LXC_UPATH=/var/lib/lxc-user	# lxc-start -P: the user's containers

# lxc_user_ct <name> <toss request>: a container of LXC_USER on node 1,
# its files owned by the id map's root.
lxc_user_ct() {
	local name=$1 p=$LXC_UPATH/$1 r=$LXC_UPATH/$1/rootfs f su sg
	id $LXC_USER > /dev/null 2>&1 || useradd -M -d $LXC_UPATH -s /bin/sh $LXC_USER || return 1
	# The user's subordinate ids: useradd's, else a range of our own.
	for f in /etc/subuid /etc/subgid; do
		grep -q "^$LXC_USER:" $f 2>/dev/null || echo "$LXC_USER:200000:65536" >> $f
	done
	su=$(awk -F: -v u=$LXC_USER '$1 == u { print $2; exit }' /etc/subuid)
	sg=$(awk -F: -v u=$LXC_USER '$1 == u { print $2; exit }' /etc/subgid)
	rm -rf "$p"
	mkdir -p $LXC_UPATH
	lxc_rootfs $r
	lxc_conf "$name" $r "lxc.idmap = u 0 $su 65536" "lxc.idmap = g 0 $sg 65536" \
		"lxc.cgroup2.cpuset.cpus = $N1CPUS" "lxc.cgroup2.cpuset.mems = 1" \
		"lxc.cgroup2.cpuset.memory_toss_cache = $2" > "$p/config"
	mkdir -p -m 0700 $LXC_UPATH/run
	chown $LXC_USER: $LXC_UPATH $LXC_UPATH/run "$p" "$p/config"
	chown -R "$su:$sg" "$r"
}

# lxc_user_start <name>: lxc-start as LXC_USER in a scope delegated to
# them: Delegate=yes, and the scope's cgroup and the files the kernel
# lists in /sys/kernel/cgroup/delegate given to the user, as systemd gives
# user@.service's (a scope has no User= for systemd to do it).
lxc_user_start() {
	lxc_user_stop "$1"
	systemd-run --quiet --scope --unit="lxc-user-$1" -p Delegate=yes sh -c '
		d=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)
		chown "$0:" "$d" &&
		for f in $(cat /sys/kernel/cgroup/delegate); do
			[ ! -e "$d/$f" ] || chown "$0:" "$d/$f" || exit 1
		done &&
		exec setpriv --reuid="$0" --regid="$0" --init-groups \
			env HOME="$1" XDG_RUNTIME_DIR="$1/run" \
			lxc-start -P "$1" -n "$2" -l INFO -o "/tmp/lxc-$2.log"' \
		$LXC_USER $LXC_UPATH "$1"
}

# lxc_user_stop <name>: the container's init, PID 1 of its namespace,
# takes no SIGTERM: kill the scope.
lxc_user_stop() {
	systemctl kill -s KILL "lxc-user-$1.scope" > /dev/null 2>&1
	systemctl stop "lxc-user-$1.scope" > /dev/null 2>&1
}

# The default toss (scope=node) needs CAP_SYS_ADMIN of the initial user
# namespace: the user's write gets EPERM and LXC does not start the
# container; no node loses its cache.
test_lxc_user_node() {
	local rc=0
	lxc_user_ct usernode 1 || return 1
	fill || return 1
	if lxc_user_start usernode; then
		log "lxc-start started the user's container with a scope=node toss"
		rc=1
	fi
	grep -q "Operation not permitted" /tmp/lxc-usernode.log || {
		log "LXC's log does not say EPERM:"; grep -E 'ERROR|WARN' /tmp/lxc-usernode.log | head -15; rc=1; }
	expect_tossed || rc=1
	lxc_user_stop usernode
	return $rc
}

# scope=cgroup: the container starts, its cgroup counts the toss, and the
# cache others left on node 1 (not charged to it) stays.
test_lxc_user_cgroup() {
	local rc=0
	lxc_user_ct usercg "1 scope=cgroup" || return 1
	fill || return 1
	lxc_user_start usercg ||
		{ log "lxc-start failed:"; grep -E 'ERROR|WARN' /tmp/lxc-usercg.log | head -15; return 1; }
	lxc_wait_init $LXC_UPATH/usercg/rootfs
	lxc_check $LXC_UPATH/usercg/rootfs \
		"$(head -1 $CG/system.slice/lxc-user-usercg.scope/lxc.payload.usercg/cgroup.procs 2>/dev/null)" ||
		rc=1
	lxc_user_stop usercg
	return $rc
}

# --- Docker ----------------------------------------------------------------

DOCKER_READY=
docker_setup() {
	[ -n "$DOCKER_READY" ] && return 0
	# The test kernel: no iptables (nft), no bridge, no overlayfs, and
	# ext4 without security xattrs, which the vfs driver copies; XFS has
	# them.
	mkdir -p /etc/docker /mnt/xfs/docker
	cat > /etc/docker/daemon.json <<-EOF
	{
		"storage-driver": "vfs", "data-root": "/mnt/xfs/docker",
		"iptables": false, "ip-masq": false, "bridge": "none",
		"runtimes": {
			"runc-toss": { "path": "$RUNC_TOSS" },
			"runc-toss-max": { "path": "$RUNC_TOSS", "runtimeArgs": ["--toss=max"] }
		}
	}
	EOF
	systemctl reset-failed docker.service docker.socket > /dev/null 2>&1
	systemctl restart docker || { log "dockerd does not start"; return 1; }
	mkrootfs
	tar -C $ROOTFS -c . | docker import - toss-busybox:1 > /dev/null ||
		{ log "docker import failed"; return 1; }
	DOCKER_READY=1
}

# docker_ct <nodes expected tossed> <tosses expected> <docker run args...>
docker_ct() {
	local nodes=$1 want=$2 id pid dir b rc=0
	shift 2
	docker_setup || return 1
	fill || return 1
	id=$(docker run -d --network none "$@" toss-busybox:1 sleep 600) ||
		{ log "docker run failed"; return 1; }
	pid=$(docker inspect -f '{{.State.Pid}}' "$id")
	dir=$(cgdir_of_pid "$pid")
	b=/run/containerd/io.containerd.runtime.v2.task/moby/$id
	log "docker $*: pid $pid in $dir, mems $(cat "$dir/cpuset.mems.effective"), cpus $(cat "$dir/cpuset.cpus.effective")"
	log "bundle: $(jq -c '{annotations, hooks}' $b/config.json 2>/dev/null)"
	# shellcheck disable=SC2086
	expect_tossed $nodes && expect_tosses "$dir" "$want" || rc=1
	[ "$(docker inspect -f '{{.State.Running}}' "$id")" = true ] || { log "not running"; rc=1; }
	docker rm -f "$id" > /dev/null
	return $rc
}

test_docker_toss() {
	docker_ct 1 1 --runtime=runc-toss --cpuset-mems=1 --cpuset-cpus="$N1CPUS"
}

test_docker_plain() {	# runc itself: nothing tossed
	docker_ct "" 0 --cpuset-mems=1 --cpuset-cpus="$N1CPUS"
}

# Not pinned to nodes: the hook's policy refuses (mems are every node), the
# container runs, the refusal is logged.
test_docker_unpinned() {
	local t0 rc=0
	t0=$(date '+%F %T')
	docker_ct "" 0 --runtime=runc-toss || rc=1
	journalctl -t cpuset-toss-oci-hook --since "$t0" --no-pager -o cat | sed 's/^/# hook: /'
	return $rc
}

# runtimeArgs: Docker 20.10 writes them into a script it puts in front of
# ours (/var/lib/docker/runtimes/<name>); --toss=max is the annotation.
test_docker_runtime_args() {
	local t0 rc=0
	t0=$(date '+%F %T')
	docker_ct 1 1 --runtime=runc-toss-max --cpuset-mems=1 --cpuset-cpus="$N1CPUS" || rc=1
	log "$(cat /mnt/xfs/docker/runtimes/runc-toss-max 2>/dev/null | tr '\n' ' ')"
	journalctl -t cpuset-toss-runc --since "$t0" --no-pager -o cat | sed 's/^/# runc wrapper: /'
	journalctl -t cpuset-toss-runc --since "$t0" --no-pager -o cat | grep -q 'annotation "max"' || rc=1
	return $rc
}

# --- containerd ------------------------------------------------------------

# The runc shim running the wrapper as its binary (BinaryName; ctr's
# --runc-binary), with a spec that pins the container to node 1.
test_ctr_binary() {
	local b=/root/bundles/ctr id=toss-ctr pid dir rc=0
	bundle $b /tossjobs/$id '.process.args = ["sleep", "600"]' || return 1
	jq --arg c "$N1CPUS" '.linux.resources.cpu.cpus = $c' $b/config.json > $b/spec.json
	systemctl start containerd || { log "containerd does not start"; return 1; }
	fill || return 1
	# with --config, the spec says everything (root, process), ctr only
	# takes the id
	ctr -n toss run -d --config $b/spec.json --runc-binary $RUNC_TOSS $id > /dev/null ||
		{ log "ctr run failed"; return 1; }
	pid=$(ctr -n toss task ls | awk -v id=$id '$1 == id { print $2 }')
	dir=$(cgdir_of_pid "$pid")
	log "ctr: pid $pid in $dir, mems $(cat "$dir/cpuset.mems.effective"), cpus $(cat "$dir/cpuset.cpus.effective")"
	expect_tossed 1 && expect_tosses "$dir" 1 || rc=1
	ctr -n toss task kill -s KILL $id
	sleep 0.5
	ctr -n toss task delete $id > /dev/null 2>&1
	ctr -n toss container delete $id > /dev/null 2>&1
	return $rc
}

timed() {	# timed <function>: and how long it took
	local t0 rc
	t0=$(date +%s%N)
	"$@"
	rc=$?
	log "$1: $(( ($(date +%s%N) - t0) / 1000000 )) ms"
	return $rc
}

tests_containers() {
	[ "$mode" = v2 ] || return 0
	log "root file system: $(df -m / | awk 'NR == 2 { print $2 " MiB, " $3 " used, " $4 " free" }')"
	t lxc-mems-then-toss timed test_lxc
	t lxc-toss-before-mems timed test_lxc_order
	t lxc-unprivileged-node-refused timed test_lxc_user_node
	t lxc-unprivileged-scope-cgroup timed test_lxc_user_cgroup
	t docker-runc-toss timed test_docker_toss
	t docker-no-runtime timed test_docker_plain
	t docker-runc-toss-unpinned timed test_docker_unpinned
	t docker-runtime-args timed test_docker_runtime_args
	t containerd-runc-binary timed test_ctr_binary
}
