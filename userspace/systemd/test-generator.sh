#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# test-generator.sh - test cpuset-toss-generator on the host, without systemd
#
#	./test-generator.sh [GENERATOR]
#
# Builds fake unit directories (etc, run, usrlocal, usr: the precedence order
# of the system unit search path) in a temporary directory, runs the
# generator (GENERATOR, or else cpuset-toss-generator.c built with ${CC:-cc}
# into that directory) on them through CPUSET_TOSS_UNIT_PATH, and compares the three output directories and the
# log with what is expected. If systemd-analyze is there, it also verifies
# the generated drop-ins together with the units, which catches syntax
# errors and ordering cycles. Exit status 0: all passed.

set -eu

here=$(cd "$(dirname "$0")" && pwd)
t=$(mktemp -d "${TMPDIR:-/tmp}/cpuset-toss-gen.XXXXXX")
trap 'rm -rf "$t"' EXIT
if [ $# -gt 0 ]; then
	gen=$1
else
	gen=$t/cpuset-toss-generator
	${CC:-cc} -Wall -Wextra -Werror -O2 -o "$gen" "$here/cpuset-toss-generator.c"
fi
mkdir -p "$t/etc" "$t/run" "$t/usrlocal" "$t/usr" \
	"$t/out/normal" "$t/out/early" "$t/out/late" "$t/expect/normal"
fail=0

# unit FILE: write a unit file or drop-in from stdin
unit() {
	mkdir -p "$(dirname "$t/$1")"
	cat > "$t/$1"
}

# The slice of a job, on NUMA node 1; and what runs in it.
unit usr/job42.slice <<'EOF'
[Unit]
Description=Job 42

[Slice]
AllowedCPUs=2-3
AllowedMemoryNodes=1
X-MemoryTossCache=1 nodes=1
EOF
unit usr/work.service <<'EOF'
[Service]
Slice=job42.slice
ExecStart=/bin/sleep infinity
EOF
# a child slice by its name, and a socket in it
unit usr/job42-a.slice <<'EOF'
[Slice]
MemoryMax=1G
EOF
unit usr/listen.socket <<'EOF'
[Socket]
ListenStream=/run/listen.sock
Slice=job42-a.slice
EOF
unit usr/listen.service <<'EOF'
[Service]
ExecStart=/bin/cat
StandardInput=socket
Slice=job42-a.slice
EOF
# a nested slice that tosses too, and a service in it: after both tosses
unit usr/job42-b.slice <<'EOF'
[Slice]
X-MemoryTossCache=1 nodes=1 free=1G
EOF
unit usr/inner.service <<'EOF'
[Service]
ExecStart=/bin/true
Slice=job42-b.slice
EOF
# a mount in the slice, through a drop-in in /run; the last Slice= wins
unit usr/srv-data.mount <<'EOF'
[Mount]
What=/dev/vdb
Where=/srv/data
Slice=system.slice
EOF
unit run/srv-data.mount.d/slice.conf <<'EOF'
[Mount]
Slice=job42.slice
EOF
# "job42x.slice" is not inside job42.slice
unit usr/other.service <<'EOF'
[Service]
ExecStart=/bin/true
Slice=job42x.slice
EOF
# not a slice: logged, ignored
unit usr/badslice.service <<'EOF'
[Service]
ExecStart=/bin/true
Slice=job42.service
EOF
# a template in the slice: its instances are, through the template's drop-in
unit usr/member@.service <<'EOF'
[Service]
ExecStart=/bin/echo %i
Slice=job42.slice
EOF
# a template with X-MemoryTossCache=: logged, ignored
unit usr/tmpl@.service <<'EOF'
[Service]
ExecStart=/bin/echo %i
X-MemoryTossCache=1
EOF
# ... but an instance of it with a drop-in of its own is a unit
unit etc/tmpl@one.service.d/toss.conf <<'EOF'
[Service]
X-MemoryTossCache=1 nodes=0
EOF
# the toss service itself, set to run in the slice: never After= its toss
cp "$here/cpuset-toss@.service" "$t/usr/"
unit etc/cpuset-toss@job42.slice.service.d/local.conf <<'EOF'
[Service]
Slice=job42.slice
EOF

# A service with a request of its own.
unit usr/own.service <<'EOF'
[Unit]
Description=Own request

[Service]
ExecStart=/bin/true
X-MemoryTossCache = 1 free=2G
EOF
# an alias of it: not a unit of its own, no second ExecStartPre=
ln -s ../usr/own.service "$t/etc/own-alias.service"
# X-MemoryTossCache= in the wrong section does nothing
unit usr/wrongsection.service <<'EOF'
[Unit]
X-MemoryTossCache=1

[Service]
ExecStart=/bin/true

[Install]
X-MemoryTossCache=1
EOF
# % $ " \ in a service's and a slice's request; ' as it is
unit usr/weird.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1 "q" 100% $HOME ${X} \x 'y'
EOF
unit usr/weird.slice <<'EOF'
[Slice]
X-MemoryTossCache=1 free=50% $X "y" \n
EOF
# a value continued on the next line, over a comment
unit usr/cont.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1 \
# a comment in between
nodes=1
EOF
# a control character in the value: logged, ignored
printf '[Service]\nExecStart=/bin/true\nX-MemoryTossCache=1\tnodes=1\n' > "$t/usr/tab.service"
# a file name that is no unit name: ignored
unit "usr/bad name.service" <<'EOF'
[Service]
X-MemoryTossCache=1
EOF

# Masked in /etc (symlink to /dev/null) and in /run (empty file).
unit usr/masked.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1
EOF
ln -s /dev/null "$t/etc/masked.service"
unit usr/maskedmember.service <<'EOF'
[Service]
ExecStart=/bin/true
Slice=job42.slice
EOF
: > "$t/run/maskedmember.service"
unit usr/masked.slice <<'EOF'
[Slice]
X-MemoryTossCache=1
EOF
ln -s /dev/null "$t/etc/masked.slice"

# An override in /etc over /usr: its value wins, or it has none.
unit usr/over.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1 nodes=0
EOF
unit etc/over.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1 nodes=1
EOF
unit usr/gone.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1
EOF
unit etc/gone.service <<'EOF'
[Service]
ExecStart=/bin/true
EOF
# /usr/local between /run and /usr
unit usrlocal/local.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1 nodes=2
EOF
unit usr/local.service <<'EOF'
[Service]
ExecStart=/bin/true
EOF

# Drop-ins: a reset; a reset and a later value; the same file name in /etc
# over /usr; a drop-in masked by /dev/null; a prefix drop-in; a slice made
# of drop-ins only.
unit usr/reset.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1
EOF
unit etc/reset.service.d/10-reset.conf <<'EOF'
[Service]
X-MemoryTossCache=
EOF
unit usr/reset2.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1
EOF
unit usr/reset2.service.d/10-a.conf <<'EOF'
[Service]
X-MemoryTossCache=
EOF
unit run/reset2.service.d/20-b.conf <<'EOF'
[Service]
X-MemoryTossCache=1 size=1G
EOF
unit usr/dd.service <<'EOF'
[Service]
ExecStart=/bin/true
EOF
unit usr/dd.service.d/10-x.conf <<'EOF'
[Service]
X-MemoryTossCache=1 nodes=3
EOF
unit etc/dd.service.d/10-x.conf <<'EOF'
[Service]
X-MemoryTossCache=1 nodes=2
EOF
unit usr/dd.service.d/05-first.conf <<'EOF'
[Service]
X-MemoryTossCache=1 nodes=9
EOF
unit usr/dm.service <<'EOF'
[Service]
ExecStart=/bin/true
X-MemoryTossCache=1
EOF
unit usr/dm.service.d/10-x.conf <<'EOF'
[Service]
X-MemoryTossCache=1 nodes=5
EOF
mkdir -p "$t/etc/dm.service.d"
ln -s /dev/null "$t/etc/dm.service.d/10-x.conf"
unit usr/job-a.service <<'EOF'
[Service]
ExecStart=/bin/true
EOF
unit usr/job-.service.d/10-toss.conf <<'EOF'
[Service]
X-MemoryTossCache=1 nodes=7
EOF
unit etc/dropin.slice.d/override.conf <<'EOF'
[Slice]
AllowedMemoryNodes=0
X-MemoryTossCache=1
EOF

# What is expected. expect FILE: a generated file, from stdin.
H="# Automatically generated by cpuset-toss-generator"
expect() {
	mkdir -p "$(dirname "$t/expect/normal/$1")"
	cat > "$t/expect/normal/$1"
}
# exec UNIT REQUEST: the drop-in of a service with a request
exec_dropin() {
	expect "$1.d/50-cpuset-toss.conf" <<EOF
$H
# from X-MemoryTossCache= of $1: toss its cpuset's page cache
# before it starts, in its cgroup with AllowedMemoryNodes= applied.

[Service]
ExecStartPre=-+/usr/bin/cpuset-toss --quiet --write "$2" --unit $1
EOF
}
# slice_dropins SLICE REQUEST: the drop-ins of a slice with a request
slice_dropins() {
	expect "cpuset-toss@$1.service.d/50-request.conf" <<EOF
$H
# from X-MemoryTossCache= of $1: the request, and run in the
# slice, charged to it.

[Service]
Environment="CPUSET_TOSS_WRITE=$2"
Slice=$1
EOF
	expect "$1.d/50-cpuset-toss.conf" <<EOF
$H
# from X-MemoryTossCache= of $1: toss its cpuset's page cache
# when it starts.

[Unit]
Wants=cpuset-toss@$1.service
EOF
}
# after UNIT SLICE...: the ordering drop-in of a unit in tossing slices
after() {
	u=$1
	shift
	{
		printf '%s\n' "$H" \
			"# $u is in a slice with X-MemoryTossCache=: start it only after" \
			"# the toss." "" "[Unit]"
		for s; do
			printf 'Wants=cpuset-toss@%s.service\nAfter=cpuset-toss@%s.service\n' "$s" "$s"
		done
	} | expect "$u.d/50-cpuset-toss-after.conf"
}

slice_dropins job42.slice '1 nodes=1'
slice_dropins job42-b.slice '1 nodes=1 free=1G'
slice_dropins dropin.slice '1'
# shellcheck disable=SC2016 # literal $, as the generator writes it
slice_dropins weird.slice '1 free=50%% $X \"y\" \\n'
after work.service job42.slice
after job42-a.slice job42.slice
after job42-b.slice job42.slice
after listen.socket job42.slice
after listen.service job42.slice
after inner.service job42.slice job42-b.slice
after srv-data.mount job42.slice
after member@.service job42.slice
exec_dropin own.service '1 free=2G'
# shellcheck disable=SC2016
exec_dropin weird.service '1 \"q\" 100%% $$HOME $${X} \\x '"'y'"
exec_dropin cont.service '1  nodes=1'
exec_dropin over.service '1 nodes=1'
exec_dropin local.service '1 nodes=2'
exec_dropin reset2.service '1 size=1G'
exec_dropin dd.service '1 nodes=2'
exec_dropin dm.service '1'
exec_dropin job-a.service '1 nodes=7'
exec_dropin tmpl@one.service '1 nodes=0'

cat > "$t/expect/log" <<'EOF'
cpuset-toss-generator: tab.service: X-MemoryTossCache= has a control or non-ASCII character, ignored
cpuset-toss-generator: tmpl@.service: X-MemoryTossCache= in a template is not supported, ignored
cpuset-toss-generator: badslice.service: Slice=job42.service is not a slice name, ignored
EOF

# Run it.
rc=0
CPUSET_TOSS_UNIT_PATH="$t/etc:$t/run:$t/usrlocal:$t/usr" \
	"$gen" "$t/out/normal" "$t/out/early" "$t/out/late" 2> "$t/log" || rc=$?
if [ $rc -ne 0 ]; then
	echo "FAIL: the generator exited with $rc"
	fail=1
fi
if ! diff -ru "$t/expect/normal" "$t/out/normal"; then
	echo "FAIL: normal-dir differs from what is expected"
	fail=1
fi
for d in early late; do
	if [ -n "$(ls -A "$t/out/$d")" ]; then
		echo "FAIL: $d-dir is not empty"
		fail=1
	fi
done
if ! diff -u "$t/expect/log" "$t/log"; then
	echo "FAIL: the log differs from what is expected"
	fail=1
fi

# Bad command lines and bad directories: logged; no crash, nothing written.
if "$gen" 2>/dev/null || "$gen" a b 2>/dev/null; then
	echo "FAIL: a wrong number of arguments is not refused"
	fail=1
fi
mkdir "$t/out/one"
rc=0
CPUSET_TOSS_UNIT_PATH="$t/nonexistent::relative:$t/usr/own.service" \
	"$gen" "$t/out/one" 2> "$t/log2" || rc=$?
if [ $rc -ne 0 ] || [ -n "$(ls -A "$t/out/one")" ]; then
	echo "FAIL: a bad unit path is not harmless (exit $rc)"
	fail=1
fi
# Only the names of the unit files that matter: one argument is all three dirs.
rc=0
CPUSET_TOSS_UNIT_PATH="$t/usr" "$gen" "$t/out/one" 2>/dev/null || rc=$?
if [ $rc -ne 0 ] || [ ! -f "$t/out/one/job42.slice.d/50-cpuset-toss.conf" ]; then
	echo "FAIL: one output directory (exit $rc)"
	fail=1
fi

# systemd-analyze verify: the units with the drop-ins, as the manager loads
# them (normal-dir between /run and /usr/local), including start jobs and so
# ordering cycles. /usr/bin/cpuset-toss need not exist on the host.
if command -v systemd-analyze > /dev/null 2>&1; then
	# units without ExecStart= and the like, not worth verifying
	rm -f "$t/usr/bad name.service" "$t/usr/tab.service" "$t/usr/wrongsection.service"
	SYSTEMD_UNIT_PATH="$t/etc:$t/run:$t/out/normal:$t/usrlocal:$t/usr:" \
		systemd-analyze verify --man=no job42.slice work.service \
		listen.socket inner.service own.service weird.service weird.slice \
		dd.service cpuset-toss@job42.slice.service \
		cpuset-toss@job42-b.slice.service cpuset-toss@weird.slice.service \
		member@1.service tmpl@one.service > "$t/verify" 2>&1 || true
	grep -v -e 'Command /usr/bin/cpuset-toss is not executable' \
		"$t/verify" > "$t/verify.bad" || true
	if [ -s "$t/verify.bad" ]; then
		echo "FAIL: systemd-analyze verify:"
		cat "$t/verify.bad"
		fail=1
	else
		echo "systemd-analyze verify: no complaints (but a missing /usr/bin/cpuset-toss)"
	fi
else
	echo "systemd-analyze not found: not verified"
fi

if [ $fail -eq 0 ]; then
	echo "PASS: $(find "$t/expect/normal" -type f | wc -l) generated files as expected"
fi
exit $fail
