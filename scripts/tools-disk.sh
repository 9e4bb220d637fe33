#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tools-disk.sh <image>: an ext4 image with Debian's fio and stress-ng and
# every shared library they load, for the data-verifying exercisers the
# test VM runs (mounted read-only at /opt/tools).  The VM's initramfs is
# busybox only: the programs run through the image's own dynamic loader,
#   /opt/tools/ld.so --library-path /opt/tools/lib /opt/tools/bin/fio ...
# Rebuilt only when the installed fio or stress-ng version changes.
set -euo pipefail
img=$1
key=$(dpkg-query -W -f='${Package}=${Version}\n' fio stress-ng libc6 | sha256sum | cut -c1-16)
if [ -f "$img" ] && [ "$(cat "$img.key" 2>/dev/null)" = "$key" ]; then
	exit 0
fi
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/lib"
for p in fio stress-ng; do
	bin=$(command -v "$p") || { echo "tools-disk: $p is not installed (make deps)" >&2; exit 1; }
	cp -L "$bin" "$root/bin/"
	ldd "$bin" | awk '$3 ~ /^\// { print $3 }' | while read -r lib; do
		cp -L "$lib" "$root/lib/"
	done
done
cp -L /lib64/ld-linux-x86-64.so.2 "$root/ld.so"
size=$(( $(du -sm "$root" | cut -f1) + 64 ))
rm -f "$img.tmp"
truncate -s "${size}M" "$img.tmp"
mkfs.ext4 -q -F -d "$root" "$img.tmp" >/dev/null
mv "$img.tmp" "$img"
echo "$key" > "$img.key"
