#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# test-debs.sh <debs> [<other debs>]: what the packages in <debs> must be
# (review 2, part 4): cpuset-toss-slurm-plugin depends on Slurm's major
# release as a range (>= X.Y~, << X.Y+1~ of the libslurm-dev here), no
# Debian revision; cpuset-toss puts its unit where systemd's pkg-config
# file says, ships the tmpfiles.d entry of root's 0700 state directory
# and creates it in postinst; every package's Maintainer is
# debian/identity's.  With <other debs> (make dist-userspace's), the
# three packages there must be the same: the same control fields and the
# same files.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
d=$1
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
deb() { ls "$1"/"$2"_*.deb 2>/dev/null | head -1; }
pkgs="cpuset-toss cpuset-toss-oci-hook cpuset-toss-slurm-plugin"
for p in $pkgs; do
	[ -n "$(deb "$d" $p)" ] || { echo "FAIL: no $p .deb in $d"; exit 1; }
done

up=$(dpkg-query -W -f='${source:Upstream-Version}' libslurm-dev)
major=$(echo "$up" | cut -d. -f1,2)
next=$(echo "$major" | awk -F. '{ printf "%d.%02d", $1, $2 + 1 }')
prev=$(echo "$major" | awk -F. '{ printf "%d.%02d", $1, $2 - 1 }')
want="slurm-wlm-basic-plugins (>= $major~), slurm-wlm-basic-plugins (<< $next~)"
dep=$(dpkg-deb -f "$(deb "$d" cpuset-toss-slurm-plugin)" Depends)
echo "cpuset-toss-slurm-plugin Depends: $dep"
case "$dep" in *"$want"*) ;; *) fail "Slurm: not \"$want\"" ;; esac
echo "$dep" | tr ',' '\n' | grep slurm-wlm | grep -q -- '-[0-9]' && fail "Slurm: a Debian revision"
# dpkg's own comparison: a security update or a point release of the
# same major release satisfies the range, the next and the previous
# major release do not.
sat() {	# sat <version>: the version satisfies both relations
	dpkg --compare-versions "$1" ge "$major~" && dpkg --compare-versions "$1" lt "$next~"
}
for v in "$up-4+deb12u9" "$major.99-1" "$up-99~bpo1"; do
	sat "$v" || fail "Slurm: $v (an update of $major) is outside the range"
done
for v in "$next.0-1" "$next~rc1-1" "$prev.99-1"; do
	sat "$v" && fail "Slurm: $v (another major release) is inside the range"
done

files=$(dpkg-deb -c "$(deb "$d" cpuset-toss)" | awk '{ print $6 }')
unitdir=$(pkg-config --variable=systemdsystemunitdir systemd)
tmpfilesdir=$(pkg-config --variable=tmpfilesdir systemd)
echo "$files" | grep -qx "\.$unitdir/cpuset-toss@.service" ||
	fail "no .$unitdir/cpuset-toss@.service (pkg-config): $(echo "$files" | grep -F '@.service')"
echo "$files" | grep -qx "\.$tmpfilesdir/cpuset-toss.conf" || fail "no .$tmpfilesdir/cpuset-toss.conf"
x=$(mktemp -d)
trap 'rm -rf "$x"' EXIT
dpkg-deb -x "$(deb "$d" cpuset-toss)" "$x/root"
dpkg-deb -e "$(deb "$d" cpuset-toss)" "$x/ctrl"
grep -qx 'd /run/cpuset-toss 0700 root root -' "$x/root$tmpfilesdir/cpuset-toss.conf" 2>/dev/null ||
	fail "tmpfiles.d: $(cat "$x/root$tmpfilesdir/cpuset-toss.conf" 2>&1)"
grep -q 'systemd-tmpfiles .*--create cpuset-toss.conf' "$x/ctrl/postinst" 2>/dev/null ||
	fail "postinst does not create the state directory"

maint=$(sed -n 's/^MAINTAINER=//p' "$here/debian/identity")
for p in $pkgs; do
	m=$(dpkg-deb -f "$(deb "$d" $p)" Maintainer)
	[ "$m" = "$maint" ] || fail "$p: Maintainer \"$m\", debian/identity says \"$maint\""
done

if [ -n "${2:-}" ]; then
	for p in $pkgs; do
		a=$(deb "$d" $p)
		b=$(deb "$2" $p)
		[ -n "$b" ] || { fail "no $p .deb in $2"; continue; }
		for f in Package Version Architecture Depends Recommends Suggests Enhances Maintainer Description; do
			[ "$(dpkg-deb -f "$a" $f)" = "$(dpkg-deb -f "$b" $f)" ] || fail "$p: $f differs"
		done
		diff <(dpkg-deb -c "$a" | awk '{ print $1, $6 }') <(dpkg-deb -c "$b" | awk '{ print $1, $6 }') > "$x/diff" ||
			fail "$p: other files: $(cat "$x/diff")"
	done
	echo "the same three packages in $d and $2: $([ $fails = 0 ] && echo yes || echo no)"
fi
[ $fails = 0 ] && echo "PASS: the packages in $d" && exit 0
echo "$fails failure(s)"
exit 1
