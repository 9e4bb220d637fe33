# SPDX-License-Identifier: GPL-2.0
# Sourced by run: systemd slices, services and transient units.

# --- systemd ---------------------------------------------------------------

# A unit's processes record, when they start, how much of node 1's file
# is cached: 0 shows that the toss ran before them.
SEEN='fincore -b -n -o RES '$FILL'/n1 > /run/seen-%n; exec sleep 600'
seen() { local v=-1; read -r v < /run/seen-"$1"; echo "$v"; }

test_systemd_slice() {
	local bad=0
	cat > /etc/systemd/system/job42.slice <<-EOF
	[Slice]
	AllowedMemoryNodes=1
	X-MemoryTossCache=1
	EOF
	cat > /etc/systemd/system/job42-work.service <<-EOF
	[Service]
	Slice=job42.slice
	ExecStart=/bin/sh -c '$SEEN'
	EOF
	systemctl daemon-reload
	fill || return 1
	systemctl start job42-work.service || return 1
	sleep 1
	log "job42-work saw $(seen job42-work.service) bytes of node 1's file at its start"
	[ "$(seen job42-work.service)" = 0 ] || bad=1
	expect_tossed 1 && expect_tosses $CG/job42.slice 1 || bad=1
	# No second toss: not on daemon-reload, not when a service of the
	# slice restarts, not for a second service in it.
	fill || return 1
	systemctl daemon-reload
	systemctl restart job42-work.service
	systemd-run --quiet --unit=job42-extra --slice=job42.slice sleep 600
	sleep 1
	expect_tossed && expect_tosses $CG/job42.slice 1 || bad=1
	systemctl stop job42-work.service job42-extra.service
	return $bad
}

test_systemd_service() {
	local bad=0
	cat > /etc/systemd/system/tossd.service <<-EOF
	[Service]
	AllowedMemoryNodes=1
	X-MemoryTossCache=1 nodes=1
	ExecStart=/bin/sh -c '$SEEN'
	EOF
	systemctl daemon-reload
	fill || return 1
	systemctl start tossd.service || return 1
	sleep 1
	log "tossd saw $(seen tossd.service) bytes of node 1's file at its start"
	[ "$(seen tossd.service)" = 0 ] || bad=1
	expect_tossed 1 && expect_tosses $CG/system.slice/tossd.service 1 || bad=1
	fill || return 1
	systemctl daemon-reload
	sleep 1
	expect_tossed && expect_tosses $CG/system.slice/tossd.service 1 || bad=1
	systemctl stop tossd.service
	return $bad
}

test_systemd_transient() {
	local bad=0
	systemd-run --quiet --unit=tjob -p AllowedMemoryNodes=1 sleep 600 || return 1
	fill || return 1
	systemctl start cpuset-toss@tjob.service.service || return 1
	expect_tossed 1 && expect_tosses $CG/system.slice/tjob.service 1 || bad=1
	fill || return 1
	systemctl start cpuset-toss@tjob.service.service	# active: no second toss
	expect_tossed && expect_tosses $CG/system.slice/tjob.service 1 || bad=1
	systemctl stop tjob.service
	return $bad
}


tests_systemd() {
	[ "$mode" = v2 ] || return 0
	t systemd-slice test_systemd_slice
	t systemd-service test_systemd_service
	t systemd-transient test_systemd_transient
}
