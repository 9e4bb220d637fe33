# SPDX-License-Identifier: GPL-2.0
# Sourced by run: systemd services and slices with the drop-ins of
# cpuset-toss@.service(8), with systemd 252 as PID 1 the judge of how they
# load (systemctl show) and the kernel's own count of how often they tossed.

# --- systemd ---------------------------------------------------------------

EX=/usr/share/doc/cpuset-toss/examples	# the drop-ins make install ships
SD=/etc/systemd/system

# seen_cmd <unit>: a command line that records, when the unit's process
# starts, how much of node 1's file is cached (0: the toss ran before it).
seen_cmd() { echo "fincore -b -n -o RES $FILL/n1 > /run/seen-$1; exec sleep 600"; }
seen() { local v=-1; read -r v < /run/seen-"$1"; echo "$v"; } 2> /dev/null
expect_seen0() {	# expect_seen0 <unit>: its start (sh) has run fincore
	local v
	wait_for 5 test -s /run/seen-"$1"
	v=$(seen "$1")
	log "$1 saw $v bytes of node 1's file cached at its start"
	[ "$v" = 0 ]
}

# dropin <unit> <example> [sed script]: an example drop-in as the admin
# copies it, into <unit>'s drop-in directory.
dropin() {
	mkdir -p "$SD/$1.d"
	sed "${3:-}" "$EX/$2" > "$SD/$1.d/cpuset-toss.conf"
}

# shows <unit> <property> <string>: systemctl show's value has it.
shows() {
	local v
	v=$(systemctl show -p "$2" --value "$1")
	log "$1: $2=$v"
	[[ $v == *"$3"* ]] && return 0
	log "$1: $2 has no '$3'"
	return 1
}

sd_clean() {	# sd_clean <unit files and dirs of $SD...>: remove, reload
	local f
	for f in "$@"; do rm -rf "${SD:?}/$f"; done
	systemctl daemon-reload
	systemctl reset-failed 2> /dev/null
}

# A service with the drop-in, its request quoted: systemd unquotes it
# into one argument (the kernel would refuse '"1'); ExecStartPre= tosses
# the service's cgroup before ExecStart=, and a daemon-reload does not.
test_systemd_service() {
	local bad=0 u=tossd.service
	cat > $SD/$u <<-EOF
	[Service]
	AllowedMemoryNodes=1
	ExecStart=/bin/sh -c '$(seen_cmd $u)'
	EOF
	dropin $u cpuset-toss-service.conf 's|--write "1"|--write "1 nodes=1"|'
	systemctl daemon-reload
	shows $u ExecStartPre 'argv[]=/usr/bin/cpuset-toss --quiet --self --write 1 nodes=1 ; ignore_errors=yes' || bad=1
	shows $u ExecStartPreEx 'flags=ignore-failure privileged' || bad=1
	fill || return 1
	systemctl start $u || return 1
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $CG/system.slice/$u 1 || bad=1
	fill || return 1
	systemctl daemon-reload
	sleep 1
	expect_tossed && expect_tosses $CG/system.slice/$u 1 || bad=1
	systemctl stop $u
	sd_clean $u $u.d
	return $bad
}

# A drop-in of an alias name (tossalias.service.d/ for tossr.service,
# Alias= enabled): systemd applies it to the unit.
test_systemd_alias() {
	local bad=0 u=tossr.service
	cat > $SD/$u <<-EOF
	[Service]
	AllowedMemoryNodes=1
	ExecStart=/bin/sh -c '$(seen_cmd $u)'
	[Install]
	Alias=tossalias.service
	EOF
	systemctl daemon-reload
	systemctl enable $u 2>&1 | sed 's/^/# /'
	[ -L $SD/tossalias.service ] || { log "no alias symlink"; bad=1; }
	dropin tossalias.service cpuset-toss-service.conf
	systemctl daemon-reload
	shows $u DropInPaths $SD/tossalias.service.d/cpuset-toss.conf || bad=1
	shows $u ExecStartPre 'argv[]=/usr/bin/cpuset-toss --quiet --self --write 1 ;' || bad=1
	fill || return 1
	systemctl start tossalias.service || return 1
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $CG/system.slice/$u 1 || bad=1
	systemctl stop $u
	systemctl disable $u 2> /dev/null
	sd_clean $u tossalias.service tossalias.service.d
	return $bad
}

# A template's drop-in (tosst@.service.d/) serves every instance; the
# instance names its node.
test_systemd_template() {
	local bad=0 u=tosst@1.service
	cat > $SD/tosst@.service <<-EOF
	[Service]
	AllowedMemoryNodes=%i
	ExecStart=/bin/sh -c '$(seen_cmd %n)'
	EOF
	dropin tosst@.service cpuset-toss-service.conf
	systemctl daemon-reload
	shows $u ExecStartPre 'argv[]=/usr/bin/cpuset-toss --quiet --self --write 1 ;' || bad=1
	fill || return 1
	systemctl start $u || return 1
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $CG/system.slice/system-tosst.slice/$u 1 || bad=1
	systemctl stop $u
	sd_clean tosst@.service tosst@.service.d
	return $bad
}

# A transient service with the drop-in's line as a property.
test_systemd_transient_pre() {
	local bad=0 u=tpre.service
	fill || return 1
	systemd-run --quiet --unit=$u -p AllowedMemoryNodes=1 \
		-p 'ExecStartPre=-+/usr/bin/cpuset-toss --quiet --self --write "1 nodes=1"' \
		/bin/sh -c "$(seen_cmd $u)" || return 1
	sleep 1
	shows $u ExecStartPre 'argv[]=/usr/bin/cpuset-toss --quiet --self --write 1 nodes=1 ; ignore_errors=yes' || bad=1
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $CG/system.slice/$u 1 || bad=1
	systemctl stop $u
	return $bad
}

# A slice's drop-in wants its toss; a transient unit in the slice
# (systemd-run --slice=) ordered after it starts on a clean node 1.
test_systemd_transient() {
	local bad=0 u=tjob.service t=cpuset-toss@job42.slice.service
	printf '[Slice]\nAllowedMemoryNodes=1\n' > $SD/job42.slice
	dropin job42.slice cpuset-toss-slice.conf
	systemctl daemon-reload
	shows job42.slice Wants $t || bad=1
	fill || return 1
	systemd-run --quiet --unit=$u --slice=job42.slice -p After=$t -p Wants=$t \
		/bin/sh -c "$(seen_cmd $u)" || return 1
	sleep 1
	shows $u After $t || bad=1
	shows $t ActiveState active || bad=1
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $CG/job42.slice 1 || bad=1
	systemctl stop $u job42.slice
	sd_clean job42.slice job42.slice.d
	return $bad
}

# A family of slices by a prefix drop-in (job-.slice.d/, %n the slice's
# name), the request from a drop-in of the instance, a member ordered
# after the toss; then no second toss on daemon-reload, on a restart of
# the member or when another member starts; again after a stop of the
# slice.
test_systemd_slice() {
	local bad=0 u=job42-work.service s=job-42.slice t=cpuset-toss@job-42.slice.service
	local cg=$CG/job.slice/job-42.slice
	printf '[Slice]\nAllowedMemoryNodes=1\n' > $SD/$s
	mkdir -p $SD/job-.slice.d $SD/$t.d
	cp $EX/cpuset-toss-slice.conf $SD/job-.slice.d/cpuset-toss.conf
	cp $EX/cpuset-toss-request.conf $SD/$t.d/request.conf
	cat > $SD/$u <<-EOF
	[Service]
	Slice=$s
	ExecStart=/bin/sh -c '$(seen_cmd $u)'
	EOF
	dropin $u cpuset-toss-after.conf "s/job42\.slice/$s/g"
	systemctl daemon-reload
	shows $s Wants $t || bad=1
	shows $u After $t || bad=1
	shows $t Environment 'CPUSET_TOSS_WRITE=1 nodes=1' || bad=1
	fill || return 1
	systemctl start $u || return 1
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $cg 1 || bad=1
	journalctl -q -o cat -u $t | sed 's/^/#   /'
	fill || return 1
	systemctl daemon-reload
	systemctl restart $u
	systemd-run --quiet --unit=job42-extra --slice=$s -p After=$t -p Wants=$t sleep 600
	sleep 1
	log "after daemon-reload, a restart of $u and job42-extra: $(tosses $cg) tosses"
	expect_tossed && expect_tosses $cg 1 || bad=1
	# PartOf=: stopping the slice stops the toss unit; the next start of
	# a member tosses again.
	systemctl stop $s
	log "after a stop of $s: $t $(systemctl show -p ActiveState --value $t)"
	rm -f /run/seen-$u
	fill || return 1
	systemctl start $u || return 1
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $cg 1 || bad=1
	systemctl stop $s
	sd_clean $s job-.slice.d $t.d $u $u.d
	return $bad
}

# Everything in a slice ordered after the toss, scopes included: the nodes
# and the toss on an outer slice, the members in an inner slice that is
# itself After= the toss (a unit is After= its slice's start).  A scope
# (systemd-run --scope, as podman and logind make them over D-Bus) in the
# inner slice runs its command on a clean node 1.
test_systemd_nested() {
	local bad=0 u=tscope.scope t=cpuset-toss@job43.slice.service
	printf '[Slice]\nAllowedMemoryNodes=1\n' > $SD/job43.slice
	dropin job43.slice cpuset-toss-slice.conf
	dropin job43-run.slice cpuset-toss-after.conf 's/job42\.slice/job43.slice/g'
	systemctl daemon-reload
	shows job43-run.slice After $t || bad=1
	rm -f /run/seen-$u
	fill || return 1
	systemd-run --quiet --scope --unit=$u --slice=job43-run.slice \
		/bin/sh -c "$(seen_cmd $u)" > /dev/null 2>&1 &
	expect_seen0 $u || bad=1
	expect_tossed 1 && expect_tosses $CG/job43.slice 1 || bad=1
	systemctl stop $u job43.slice
	sd_clean job43.slice job43.slice.d job43-run.slice.d
	return $bad
}

# Slices whose toss would be every node's (review N10): the root slice and
# slices without memory nodes of their own (system.slice, user.slice) are
# refused (exit 77, the unit failed), nothing dropped; and the toss of a
# slice with its nodes does not need D-Bus (dbus stopped: early boot).
test_systemd_refused_slices() {
	local bad=0 s rc
	for s in -.slice system.slice user.slice; do
		fill || return 1
		systemctl start cpuset-toss@$s.service 2> /dev/null
		rc=$(systemctl show -p ExecMainStatus --value cpuset-toss@$s.service)
		log "cpuset-toss@$s.service: exit $rc"
		[ "$rc" = 77 ] || { log "cpuset-toss@$s.service was not refused"; bad=1; }
		expect_tossed || bad=1
		systemctl reset-failed cpuset-toss@$s.service 2> /dev/null
	done
	printf '[Slice]\nAllowedMemoryNodes=1\n' > $SD/job44.slice
	systemctl daemon-reload
	systemctl stop dbus.socket dbus.service 2> /dev/null
	fill || return 1
	systemctl start cpuset-toss@job44.slice.service || bad=1
	systemctl start dbus.socket 2> /dev/null
	expect_tossed 1 && expect_tosses $CG/job44.slice 1 || bad=1
	systemctl stop job44.slice
	sd_clean job44.slice
	return $bad
}

# A user's own service (systemd --user), with cpuset delegated to
# user@.service by the drop-in of systemd.md: the user's manager gives the
# unit its AllowedMemoryNodes=, and the user may toss the unit's own cache
# (--scope cgroup, and memory.reclaim clean_cache=1), not the node's
# (EPERM: exit 77).  The unit reads a file of its own first; its cache,
# charged to the unit, goes, and the cache others left on node 1 stays.
# No dbus-user-session in the image: systemd-run --user without --wait
# talks to the manager's private socket.  The unit has one CPU: a toss
# drains only its own CPU's per-CPU LRU batches, and the last pages the
# unit read must not wait in another's.
SD_USER=tossjob
test_systemd_user() {
	local bad=0 uid out=/tmp/user-toss.out f=$FILL/user run
	id $SD_USER > /dev/null 2>&1 || useradd -M -d /nonexistent -s /bin/sh $SD_USER || return 1
	uid=$(id -u $SD_USER)
	mkdir -p $SD/user@.service.d
	printf '[Service]\nDelegate=cpu cpuset io memory pids\n' > $SD/user@.service.d/delegate.conf
	systemctl daemon-reload
	loginctl enable-linger $SD_USER
	wait_for 20 test -S /run/user/$uid/systemd/private
	shows user@$uid.service DelegateControllers cpuset || bad=1
	[ -f $f ] || dd if=/dev/zero of=$f bs=1M count=$MIB status=none
	# The user's: mincore() tells others every page is cached.
	chown $SD_USER: $f
	sync
	dd if=$f iflag=nocache count=0 status=none
	rm -f $out
	fill || return 1
	# The unit's own cgroup: where --self finds it, and what it reports.
	run='d=/sys/fs/cgroup$(sed -n "s/^0:://p" /proc/self/cgroup)
		echo "mems $(cat $d/cpuset.mems.effective)"
		cat "$1" > /dev/null
		echo "read $(fincore -b -n -o RES "$1" | tr -d " ")"
		cpuset-toss --quiet --self; echo "node $?"
		cpuset-toss --quiet --self --scope cgroup; echo "cgroup $?"
		echo "after $(fincore -b -n -o RES "$1" | tr -d " ")"
		echo "numa $(cat $d/cpuset.memory_toss_cache.numa_stat)"
		echo "tosses $(sed -n "s/^tosses //p" $d/cpuset.memory_toss_cache.stat)"
		cat "$1" > /dev/null
		cpuset-toss --quiet --self --memory-reclaim; echo "reclaim $?"
		echo "after $(fincore -b -n -o RES "$1" | tr -d " ")"
		echo done'
	runuser -u $SD_USER -- env XDG_RUNTIME_DIR=/run/user/$uid \
		systemd-run --user --quiet --unit=usertoss -p AllowedMemoryNodes=1 \
		-p AllowedCPUs=${N1CPUS%%[,-]*} -p StandardOutput=truncate:$out \
		sh -c "$run" sh $f || bad=1
	wait_for 30 grep -qs '^done' $out
	sed 's/^/# unit: /' $out 2> /dev/null
	grep -qx 'mems 1' $out &&
		grep -qx "read $((MIB << 20))" $out &&
		grep -qx 'node 77' $out &&
		grep -qx 'cgroup 0' $out &&
		grep -qx 'tosses 1' $out &&
		grep -qx 'reclaim 0' $out &&
		[ "$(grep -c '^after 0$' $out)" = 2 ] || { log "the user's unit did not do as expected"; bad=1; }
	# Every byte it tossed was node 1's, and no less than its file.
	awk '/^numa / { for (i = 3; i <= NF; i++) { split($i, kv, "=");
		if (kv[1] == "N1") n1 = kv[2]; else if (kv[2] != 0) bad = 1 } }
		END { exit bad || n1 < m }' m=$((MIB << 20)) $out ||
		{ log "numa_stat: not the file's bytes from node 1"; bad=1; }
	expect_tossed || bad=1
	loginctl disable-linger $SD_USER
	sd_clean user@.service.d
	return $bad
}

tests_systemd() {
	[ "$mode" = v2 ] || return 0
	t systemd-service test_systemd_service
	t systemd-alias test_systemd_alias
	t systemd-template test_systemd_template
	t systemd-transient-pre test_systemd_transient_pre
	t systemd-transient test_systemd_transient
	t systemd-slice test_systemd_slice
	t systemd-nested test_systemd_nested
	t systemd-refused-slices test_systemd_refused_slices
	t systemd-user test_systemd_user
}

