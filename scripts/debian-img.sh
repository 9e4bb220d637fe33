#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-img.sh <image> <debs-dir>: the Debian 12 root filesystem of
# `make vm-run IMAGE=debian`, with the packages of `make debs` (every .deb
# in <debs-dir> but the -dbgsym ones) installed by apt, as a sparse ext4
# image: the integration tests run against the packaged files.
#
# The root filesystem is built once by mmdebstrap from the host's own apt
# sources (minbase, no Recommends, the packages of vm/debian/packages,
# vm/debian/customize) into $BASE_CACHE/debian-<key>/, outside the clone.
# <key> is a hash of the package list, the recipe (this script and
# vm/debian/*) and the host's sources, so a change to any of them builds a
# new one.  Next to it, manifest lists the package versions it holds.
# The image is reassembled only when that key or the .debs change: a copy
# of that tree, `apt-get install /tmp/debs/*.deb` in it (chroot, with /proc
# and /dev in a mount namespace of its own; no apt sources, so every
# dependency must already be in the tree, as slurm-wlm-basic-plugins of the
# exact version the Slurm plugin was built against), then mkfs.ext4 -d.
# <image>.manifest lists the tree's packages and ours.
# Needs root (mmdebstrap --mode=root, chroot, file ownership in the image).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
img=$1 debs=$2
BASE_CACHE=${BASE_CACHE:-/var/cache/memory-toss}
# With docker.io and lxc the root filesystem holds 801 MiB (df in the VM:
# 1946 MiB, 1028 free, at 2G); 1G would leave little room.  The image is
# sparse and booted with snapshot=on.
IMG_SIZE=${IMG_SIZE:-2G}
[ "$(id -u)" = 0 ] || { echo "debian-img: needs root (mmdebstrap, file ownership)" >&2; exit 1; }
pkgs_ours=()
for d in "$debs"/*.deb; do
	case $d in *-dbgsym_*) continue ;; esac
	[ -f "$d" ] && pkgs_ours+=("$d")
done
[ ${#pkgs_ours[@]} -gt 0 ] || { echo "debian-img: no .deb in $debs (make debs)" >&2; exit 1; }

sources=
for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list; do
	[ -s "$f" ] && { sources=$f; break; }
done
[ -n "$sources" ] || { echo "debian-img: no apt sources on this host" >&2; exit 1; }
. /etc/os-release
suite=${VERSION_CODENAME:?}
pkgs=$(sed 's/#.*//' "$here/vm/debian/packages" | xargs | tr ' ' ',')
key=$( (echo "$suite $(dpkg --print-architecture)"; cat "$sources" "$0" "$here"/vm/debian/*) |
	sha256sum | cut -c1-16)
cache=$BASE_CACHE/debian-$key

if [ ! -f "$cache/manifest" ]; then
	echo "debian-img: mmdebstrap $suite into $cache (from $sources)"
	t0=$(date +%s)
	rm -rf "$cache.tmp"
	mkdir -p "$cache.tmp"
	mmdebstrap --quiet --mode=root --variant=minbase \
		--aptopt='APT::Install-Recommends "false"' \
		--include="$pkgs" \
		--customize-hook="$here/vm/debian/customize \"\$1\"" \
		"$suite" "$cache.tmp/root" "$sources" ||
		{ echo "debian-img: mmdebstrap failed" >&2; rm -rf "$cache.tmp"; exit 1; }
	chroot "$cache.tmp/root" dpkg-query -W -f='${Package} ${Version}\n' > "$cache.tmp/manifest"
	mv "$cache.tmp" "$cache"
	echo "debian-img: root filesystem built in $(( $(date +%s) - t0 )) s," \
		"$(wc -l < "$cache/manifest") packages"
fi

ikey=$( (echo "$key"; sha256sum "${pkgs_ours[@]}" | cut -d' ' -f1) | sha256sum | cut -c1-16)
if [ -f "$img" ] && [ "$(cat "$img.key" 2>/dev/null)" = "$ikey" ]; then
	exit 0
fi
echo "debian-img: assembling $img with $(cd "$debs" && for d in "${pkgs_ours[@]}"; do basename "$d"; done | xargs)"
tmp=$(mktemp -d "$(dirname "$img")/debian-root.XXXXXX")
trap 'rm -rf "$tmp" "$tmp.apt.log" "$tmp.ours"' EXIT
cp -a "$cache/root/." "$tmp/"
mkdir -p "$tmp/tmp/debs"
cp "${pkgs_ours[@]}" "$tmp/tmp/debs/"
# apt as a site runs it: the packages' own Depends, conffiles and scripts.
inroot=()
for d in "${pkgs_ours[@]}"; do
	inroot+=("/tmp/debs/$(basename "$d")")
done
if ! unshare -m sh -ec 'r=$1; shift; mount -t proc proc "$r/proc"; mount --rbind /dev "$r/dev"
	DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get install -y -q \
		--no-install-recommends "$@"' sh "$tmp" "${inroot[@]}" > "$tmp.apt.log" 2>&1; then
	cat "$tmp.apt.log" >&2
	rm -f "$tmp.apt.log"
	echo "debian-img: apt-get install of the packages failed" >&2
	exit 1
fi
rm -f "$tmp.apt.log"
names=$(for d in "${pkgs_ours[@]}"; do dpkg-deb -f "$d" Package; done)
# shellcheck disable=SC2086
chroot "$tmp" dpkg-query -W -f='${Package} ${Version} ${db:Status-Abbrev}\n' $names > "$tmp.ours"
if grep -v ' ii $' "$tmp.ours" >&2; then
	echo "debian-img: not every package is installed" >&2
	exit 1
fi
chroot "$tmp" apt-get clean
rm -rf "$tmp/tmp/debs" "$tmp/var/cache/apt/"*.bin
{ cat "$cache/manifest"; sed 's/ ii $//; s/$/ (make debs)/' "$tmp.ours"; } > "$img.manifest"
rm -f "$tmp.ours"
rm -f "$img.tmp"
truncate -s "$IMG_SIZE" "$img.tmp"
mkfs.ext4 -q -F -L tossroot -d "$tmp" "$img.tmp" >/dev/null
mv "$img.tmp" "$img"
echo "$ikey" > "$img.key"
