#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# initramfs.sh <gen_init_cpio> <out.cpio.gz> <bin-dir>
#
# The base initramfs of the test VM, built without root through the
# kernel's usr/gen_init_cpio: busybox-static with its applets, bash-static
# (the upstream shell selftests need bash), vm/init as /init, and every
# executable of <bin-dir> (our static test programs) in /bin.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
gen=$1 out=$2 bindir=$3
bb=$(command -v busybox)
file "$bb" 2>/dev/null | grep -q 'statically linked' || [ -f /usr/share/doc/busybox-static/copyright ] ||
	{ echo "initramfs: busybox-static is needed" >&2; exit 1; }
list=$(mktemp)
trap 'rm -f "$list"' EXIT
{
	for d in /bin /sbin /usr /usr/bin /usr/sbin /dev /proc /sys /tmp /root /mnt /etc /lib /var /run /extra; do
		echo "dir $d 0755 0 0"
	done
	echo "nod /dev/console 0600 0 0 c 5 1"
	echo "nod /dev/null 0666 0 0 c 1 3"
	echo "file /bin/busybox $bb 0755 0 0"
	for a in $("$bb" --list-full); do
		case "$a" in bin/busybox) continue ;; esac
		echo "slink /$a /bin/busybox 0777 0 0"
	done
	if [ -x /bin/bash-static ]; then
		echo "file /bin/bash /bin/bash-static 0755 0 0"
	fi
	echo "file /init $here/vm/init 0755 0 0"
	printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/:/bin/false\n' > "$list.passwd"
	printf 'root:x:0:\nnogroup:x:65534:\n' > "$list.group"
	echo "file /etc/passwd $list.passwd 0644 0 0"
	echo "file /etc/group $list.group 0644 0 0"
	for f in "$bindir"/*; do
		[ -f "$f" ] && [ -x "$f" ] || continue
		echo "file /bin/$(basename "$f") $f 0755 0 0"
	done
} > "$list"
"$gen" "$list" | gzip -1 > "$out.tmp"
mv "$out.tmp" "$out"
rm -f "$list.passwd" "$list.group"
