#!/bin/sh
# SPDX-License-Identifier: LGPL-2.1-or-later
#
# test-units.sh <build/userspace> <scratch>: cpuset-toss@.service and the
# example drop-ins, checked by systemd itself on the host, no systemd
# running:
#  - systemd-analyze verify loads every unit with systemd's loader and
#    must print nothing (no unknown key, no bad specifier, no cycle);
#  - systemd --test (as an unprivileged user: it refuses root) loads the
#    same units, computes the transaction of starting them and dumps the
#    result, which is what systemctl show would say: the drop-ins of an
#    alias name and of a template applied, the quoted request unquoted
#    into one argument, the slice's Wants= of its toss instance (also by a
#    prefix drop-in), the member's After=, the instance's Slice=,
#    Environment= and PartOf=, and the toss job in the transaction.
# Exit 0: pass, 4: skip (no systemd-analyze or systemd), else fail.
set -u
out=$1
t=$2
here=$(cd "$(dirname "$0")" && pwd)
sd=/lib/systemd/systemd
[ -x "$sd" ] || sd=/usr/lib/systemd/systemd
if ! command -v systemd-analyze > /dev/null || [ ! -x "$sd" ]; then
	echo "skip: no systemd-analyze or $sd"
	exit 4
fi
fail=0
bad() { echo "FAIL: $*"; fail=1; }

# The units in a directory of their own that anyone can read: systemd
# --test runs unprivileged, and the scratch directory may be private.
u=$(mktemp -d "${TMPDIR:-/tmp}/cpuset-toss-units.XXXXXX") || exit 1
trap 'rm -rf "$u"' EXIT
chmod 0755 "$u"
mkdir -p "$t/bin"
# The units name /usr/bin/cpuset-toss; verify wants an executable there,
# as make install does: the built one, or a stand-in.
toss=$(cd "$out" 2>/dev/null && pwd)/cpuset-toss
if [ ! -x "$toss" ]; then
	toss=$t/bin/cpuset-toss
	printf '#!/bin/sh\nexit 0\n' > "$toss"
	chmod 0755 "$toss"
fi
inst() {	# inst SRC DEST: an example or unit, with the binary's path
	mkdir -p "$(dirname "$u/$2")"
	sed "s|/usr/bin/cpuset-toss|$toss|g" "$here/$1" > "$u/$2"
}
unit() {	# unit DEST: a unit file from stdin
	mkdir -p "$(dirname "$u/$1")"
	cat > "$u/$1"
}

inst cpuset-toss@.service cpuset-toss@.service

# A service with the drop-in, its request quoted.
unit tossd.service <<'EOF'
[Service]
AllowedMemoryNodes=1
ExecStart=/bin/sleep infinity
EOF
inst cpuset-toss-service.conf tossd.service.d/cpuset-toss.conf
sed -i 's|--write "1"|--write "1 nodes=1"|' "$u/tossd.service.d/cpuset-toss.conf"

# A drop-in of an alias name: real.service is also alias.service.
unit real.service <<'EOF'
[Service]
AllowedMemoryNodes=1
ExecStart=/bin/sleep infinity
[Install]
Alias=alias.service
EOF
ln -s real.service "$u/alias.service"
inst cpuset-toss-service.conf alias.service.d/cpuset-toss.conf

# A template's drop-in, for every instance.
unit tmpl@.service <<'EOF'
[Service]
AllowedMemoryNodes=1
ExecStart=/bin/sleep infinity
EOF
inst cpuset-toss-service.conf tmpl@.service.d/cpuset-toss.conf

# A slice with its drop-in, another request for its instance, a member
# ordered after the toss; a family of slices by a prefix drop-in.
unit job42.slice <<'EOF'
[Slice]
AllowedMemoryNodes=1
EOF
inst cpuset-toss-slice.conf job42.slice.d/cpuset-toss.conf
inst cpuset-toss-request.conf cpuset-toss@job42.slice.service.d/request.conf
unit work.service <<'EOF'
[Service]
Slice=job42.slice
ExecStart=/bin/sleep infinity
EOF
inst cpuset-toss-after.conf work.service.d/after-toss.conf
unit job-7.slice <<'EOF'
[Slice]
AllowedMemoryNodes=1
EOF
inst cpuset-toss-slice.conf job-.slice.d/cpuset-toss.conf

# Nested: the nodes and the toss on job43.slice, the members in
# job43-run.slice (no unit file, a drop-in only), which is After= the toss.
unit job43.slice <<'EOF'
[Slice]
AllowedMemoryNodes=1
EOF
inst cpuset-toss-slice.conf job43.slice.d/cpuset-toss.conf
inst cpuset-toss-after.conf job43-run.slice.d/after-toss.conf
sed -i 's/job42\.slice/job43.slice/g' "$u/job43-run.slice.d/after-toss.conf"
unit inner.service <<'EOF'
[Service]
Slice=job43-run.slice
ExecStart=/bin/sleep infinity
EOF

unit test-all.target <<'EOF'
[Unit]
Wants=tossd.service real.service tmpl@a.service work.service job-7.slice inner.service
EOF

units="tossd.service real.service alias.service tmpl@a.service job42.slice
cpuset-toss@job42.slice.service work.service job-7.slice
cpuset-toss@job-7.slice.service job43.slice job43-run.slice inner.service"

# --- systemd-analyze verify ------------------------------------------------
# $u first, then the host's own unit path (the trailing ":"), for
# shutdown.target and the journal's socket.
# shellcheck disable=SC2086
SYSTEMD_UNIT_PATH=$u: systemd-analyze verify --man=no $units > "$t/verify.log" 2>&1
rc=$?
if [ $rc != 0 ] || [ -s "$t/verify.log" ]; then
	bad "systemd-analyze verify (exit $rc):"
	sed 's/^/  /' "$t/verify.log"
else
	echo "ok: systemd-analyze verify of $(echo "$units" | wc -w) units: nothing to say"
fi

# --- systemd --test: the loaded units and the start transaction -----------
chmod -R a+rX "$u"
run=""
[ "$(id -u)" = 0 ] && run="setpriv --reuid=65534 --regid=65534 --clear-groups"
(cd / && SYSTEMD_UNIT_PATH=$u: SYSTEMD_LOG_TARGET=console $run \
	"$sd" --test --system --unit=test-all.target) > "$t/dump" 2> "$t/dump.err"
rc=$?
if [ $rc != 0 ] || ! grep -q '^-> By units:' "$t/dump"; then
	bad "systemd --test (exit $rc):"
	sed 's/^/  /' "$t/dump.err"
	exit 1
fi
grep -E 'Unknown|ignoring|Failed|[Ii]nvalid' "$t/dump.err" | grep -v -E 'user.conf|SYSTEMD_GETTY_AUTO' |
	sed 's/^/FAIL: systemd --test: /' | grep . && fail=1

# unit_dump NAME: the block of one unit in the dump.
unit_dump() {
	awk -v u="	-> Unit $1:" '
		$0 == u { p = 1; print; next }
		p && /^	-> (Unit|Job)/ { exit }
		p && /^-> By jobs/ { exit }
		p' "$t/dump"
}
# has NAME 'LINE' ['what']: that unit's dump has that line (a fixed
# string, tabs stripped).
has() {
	if unit_dump "$1" | sed 's/^[[:space:]]*//' | grep -q -x -F -- "$2"; then
		echo "ok: $1: $2"
	else
		bad "$1 has no line '$2'${3:+ ($3)}"
		unit_dump "$1" | grep -E 'Command Line|Wants|After|DropIn|Environment|Slice:' |
			sed 's/^/	/'
	fi
}
pre="Command Line: $toss --quiet --self --write 1"
has tossd.service "Command Line: $toss --quiet --self --write \"1 nodes=1\"" \
	"one argument, no quotes inside"
has real.service "DropIn Path: $u/alias.service.d/cpuset-toss.conf" \
	"a drop-in of its alias name"
has real.service "$pre" "from the alias's drop-in"
has tmpl@a.service "DropIn Path: $u/tmpl@.service.d/cpuset-toss.conf" \
	"the template's drop-in"
has tmpl@a.service "$pre"
has job42.slice "Wants: cpuset-toss@job42.slice.service (origin-file)"
has job-7.slice "Wants: cpuset-toss@job-7.slice.service (origin-file)" \
	"a prefix drop-in, %n the slice's own name"
has work.service "After: cpuset-toss@job42.slice.service (origin-file)"
has cpuset-toss@job42.slice.service "Slice: job42.slice"
has cpuset-toss@job42.slice.service "After: job42.slice (origin-file)"
has cpuset-toss@job42.slice.service "PartOf: job42.slice (origin-file)"
has cpuset-toss@job42.slice.service "Environment: CPUSET_TOSS_WRITE=1 nodes=1" \
	"the drop-in's request in place of the default"
has cpuset-toss@job42.slice.service "RemainAfterExit: yes"
has cpuset-toss@job42.slice.service \
	"Command Line: $toss --write \"\\\${CPUSET_TOSS_WRITE}\" --slice job42.slice"
has cpuset-toss@job-7.slice.service "Command Line: $toss --write \"\\\${CPUSET_TOSS_WRITE}\" --slice job-7.slice" \
	"%i keeps the dash"
has job43-run.slice "After: cpuset-toss@job43.slice.service (origin-file)" \
	"an inner slice, its drop-in only"
has job43-run.slice "After: job43.slice (origin-implicit)" "a slice is After= its parent"
# The transaction of starting everything starts the three tosses.
for i in job42.slice job-7.slice job43.slice; do
	if grep -q -x -F "		Action: cpuset-toss@$i.service -> start" "$t/dump"; then
		echo "ok: the start transaction has cpuset-toss@$i.service"
	else
		bad "the start transaction has no job for cpuset-toss@$i.service"
	fi
done
# The tmpfiles.d snippet: /run/cpuset-toss root's 0700, also when it was
# there with another mode (systemd-tmpfiles adjusts a "d" line's mode).
if [ -e "$here/cpuset-toss.tmpfiles" ]; then
	rm -rf "$t/root" && mkdir -p "$t/root/run"
	for pre in none 0755; do
		[ $pre = none ] || chmod $pre "$t/root/run/cpuset-toss"
		systemd-tmpfiles --create --root="$t/root" "$here/cpuset-toss.tmpfiles" > "$t/tmpfiles.log" 2>&1
		got=$(stat -c '%a %U %G' "$t/root/run/cpuset-toss" 2>/dev/null)
		[ "$got" = "700 root root" ] && echo "ok: tmpfiles.d ($pre before): /run/cpuset-toss $got" ||
			bad "tmpfiles.d ($pre before): /run/cpuset-toss is '$got': $(cat "$t/tmpfiles.log")"
	done
else
	bad "no cpuset-toss.tmpfiles: nothing makes /run/cpuset-toss root's 0700 at boot"
fi
grep -q '^SuccessExitStatus=75$' "$here/cpuset-toss@.service" ||
	bad "cpuset-toss@.service: no SuccessExitStatus=75 (EX_TEMPFAIL)"

[ $fail = 0 ] && echo "PASS" && exit 0
echo "dump: $t/dump; units: $t/units"
rm -rf "$t/units"
cp -a "$u" "$t/units"
exit 1
