#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-img.sh <image> <install-dir>: the Debian 12 root filesystem of
# `make vm-run IMAGE=debian`, with <install-dir> (what `make install
# DESTDIR=` put there) copied over it, as a sparse ext4 image.
#
# The root filesystem is built once by mmdebstrap from the host's own apt
# sources (minbase, no Recommends, the packages of vm/debian/packages,
# vm/debian/customize) into $BASE_CACHE/debian-<key>/, outside the clone.
# <key> is a hash of the package list, the recipe (this script and
# vm/debian/*) and the host's sources, so a change to any of them builds a
# new one.  Next to it, manifest lists the package versions it holds.
# The image is reassembled only when that key or the installed files change.
# Needs root (mmdebstrap --mode=root, file ownership in the image).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
img=$1 inst=$2
BASE_CACHE=${BASE_CACHE:-/var/cache/memory-toss}
# With docker.io and lxc the root filesystem holds 801 MiB (df in the VM:
# 1946 MiB, 1028 free, at 2G); 1G would leave little room.  The image is
# sparse and booted with snapshot=on.
IMG_SIZE=${IMG_SIZE:-2G}
[ "$(id -u)" = 0 ] || { echo "debian-img: needs root (mmdebstrap, file ownership)" >&2; exit 1; }
[ -d "$inst" ] || { echo "debian-img: $inst is not a directory" >&2; exit 1; }

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

ikey=$( (echo "$key"; cd "$inst" && find . -type f -print0 | sort -z | xargs -0r sha256sum;
	find . -printf '%p %m %l\n' | sort) | sha256sum | cut -c1-16)
if [ -f "$img" ] && [ "$(cat "$img.key" 2>/dev/null)" = "$ikey" ]; then
	exit 0
fi
echo "debian-img: assembling $img"
tmp=$(mktemp -d "$(dirname "$img")/debian-root.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cp -a "$cache/root/." "$tmp/"
# -K: the image has merged /usr (/lib is a link); keep its links
rsync -aK "$inst/" "$tmp/"
cp "$cache/manifest" "$img.manifest"
rm -f "$img.tmp"
truncate -s "$IMG_SIZE" "$img.tmp"
mkfs.ext4 -q -F -L tossroot -d "$tmp" "$img.tmp" >/dev/null
mv "$img.tmp" "$img"
echo "$ikey" > "$img.key"
