#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debs.sh <outdir>: the Debian packages of the userspace (debian/), built
# out of tree and checked with lintian.
#
# The working tree, less build/ and .git, is copied to
# <outdir>/cpuset-toss-<version>/, debian/identity applied to it
# (scripts/set-identity.sh), and built there with
# `dpkg-buildpackage -us -uc -b` (binary packages only; debian/rules runs
# the Makefile's userspace and install targets), so the source tree and its
# build/ stay as they are.  The .debs, .buildinfo and .changes land in
# <outdir>.  Then lintian checks them (the .changes: every .deb and the
# .buildinfo); any error or warning fails.  Overrides, each with its
# reason, are in debian/*.lintian-overrides.  Then scripts/test-debs.sh
# checks the Slurm dependency, the unit and tmpfiles.d paths and the
# Maintainer.
# Nothing is rebuilt while the packaged inputs (the Makefile, userspace/,
# debian/, this script) and the build tools' versions are the same.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(dpkg-parsechangelog -l "$here/debian/changelog" -SSource)
ver=$(dpkg-parsechangelog -l "$here/debian/changelog" -SVersion)
arch=$(dpkg --print-architecture)
tree=$out/$src-$ver

key=$( (cd "$here" && find Makefile BASE userspace debian scripts/debs.sh scripts/set-identity.sh \
	scripts/test-debs.sh -type f -print0 |
	sort -z | xargs -0 sha256sum; dpkg-query -W debhelper lintian dpkg-dev gcc libc6-dev \
	libslurm-dev libjansson-dev libhwloc-dev libsystemd-dev) | sha256sum | cut -c1-16)
if [ "$(cat "$out/key" 2>/dev/null)" = "$key" ] && ls "$out"/*.deb > /dev/null 2>&1; then
	echo "debs: up to date in $out: $(cd "$out" && echo *.deb)"
	exit 0
fi
rm -f "$out/key"
t0=$(date +%s)
rm -f "$out"/*.deb "$out"/*.buildinfo "$out"/*.changes
rsync -a --delete --exclude=/build/ --exclude=/.git/ --exclude=/.git "$here/" "$tree/"
# the maintainer and copyright holders of debian/identity
"$here/scripts/set-identity.sh" "$tree"
echo "debs: dpkg-buildpackage -us -uc -b in $tree (log: $out/build.log)"
if ! (cd "$tree" && dpkg-buildpackage -us -uc -b) > "$out/build.log" 2>&1; then
	tail -40 "$out/build.log" >&2
	echo "debs: dpkg-buildpackage failed (log: $out/build.log)" >&2
	exit 1
fi
changes=$out/${src}_${ver}_$arch.changes
t1=$(date +%s)
echo "debs: built in $((t1 - t0)) s:"
for d in "$out"/*.deb; do
	echo "  $(basename "$d")"
done
# --fail-on: any error or warning fails; info and pedantic tags are shown.
echo "debs: lintian $(basename "$changes")"
if ! lintian --fail-on error,warning --display-info --pedantic "$changes" > "$out/lintian.log" 2>&1; then
	cat "$out/lintian.log" >&2
	echo "debs: lintian found errors or warnings (log: $out/lintian.log)" >&2
	exit 1
fi
grep -v 'running with root privileges' "$out/lintian.log" || true
echo "debs: lintian clean (no error or warning) in $(( $(date +%s) - t1 )) s"
"$here/scripts/test-debs.sh" "$out"
echo "$key" > "$out/key"
