#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-debs-boot.sh <dir> [run-tests args...]   (make kernel-debs-boot)
#
# Boot the kernel of the linux-image .deb in <dir> (what make kernel-debs
# wrote: build/kernel-debs/debian or .../trim) in the harness VM and run
# the toss selftests on it (default: `run-tests toss y`, the four
# test_cpuset_toss programs with MGLRU on, the XFS subset and the demo).
#
# The package is unpacked with dpkg-deb, not installed.  Its kernel has
# Debian's configuration: the disk and file system drivers are modules
# (VIRTIO_BLK, EXT4_FS, XFS_FS =m), which Debian's own initramfs would
# load.  The harness's busybox initramfs has none, so the modules those
# three need, as the package's own modules.dep orders them (depmod -b on
# the unpacked tree, modprobe --show-depends), are decompressed into the
# VM's /extra and loaded with insmod before the scratch (ext4) and XFS
# disks are mounted.  Nothing else of the package is used.
#
# Prints each result line ("pass|fail|skip kernel-debs-boot/<suite>/<test>",
# read as check.sh reads its VMs' TAP: scripts/tap.sh), then
# "N passed, N failed, N skipped"; exits non-zero on any failure, a kernel
# splat or a timeout (VM_TIMEOUT, default 1800 s).  The console log is
# build/results/kernel-debs-boot.log.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/scripts/tap.sh"
BUILD=${BUILD:-$here/build}
dir=${1:?usage: kernel-debs-boot.sh <dir of the .debs> [run-tests args]}
shift
[ $# -gt 0 ] || set -- toss y
deb=
for f in "$dir"/linux-image-*.deb; do
	case $f in *-dbg_*) ;; *) [ -f "$f" ] && { deb=$f; break; } ;; esac
done
[ -n "$deb" ] || { echo "kernel-debs-boot: no linux-image .deb in $dir (make kernel-debs first)" >&2; exit 2; }
[ -f "$BUILD/initramfs.cpio.gz" ] || { echo "kernel-debs-boot: $BUILD/initramfs.cpio.gz missing (make initramfs)" >&2; exit 2; }
work=$(mktemp -d /tmp/kernel-debs-boot.XXXXXX)
trap 'rm -rf "$work"' EXIT
root=$work/root files=$work/files
mkdir -p "$root" "$files/mods"
dpkg-deb -x "$deb" "$root"
kernel=$(ls "$root"/boot/vmlinuz-* | head -1)
rel=${kernel##*/vmlinuz-}
echo "kernel-debs-boot: $(basename "$deb"): kernel $rel"
depmod -b "$root" "$rel"
n=0
for m in virtio_blk ext4 xfs; do
	# "insmod <path> [params]" for each module to load, dependencies
	# first; "builtin <name>" for those built in.
	modprobe -d "$root" -S "$rel" --show-depends "$m" ||
		{ echo "kernel-debs-boot: modprobe --show-depends $m failed" >&2; exit 1; }
done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' > "$work/order"
while read -r ko; do
	n=$((n + 1))
	name=$(basename "$ko"); name=${name%.xz}; name=${name%.zst}; name=${name%.gz}
	out=$files/mods/$(printf '%02d' $n)-$name
	case $ko in
	*.xz) xz -dc "$ko" > "$out" ;;
	*.zst) zstd -qdc "$ko" > "$out" ;;
	*.gz) gzip -dc "$ko" > "$out" ;;
	*) cp "$ko" "$out" ;;
	esac
done < "$work/order"
echo "kernel-debs-boot: modules loaded before the tests: $(ls "$files/mods" | sed 's/^[0-9]*-//; s/\.ko$//' | tr '\n' ' ')"
cat > "$files/setup" <<'EOF'
# Load the packaged modules, then mount what vm/init could not.
for k in /extra/mods/*.ko; do
	insmod "$k" || { echo "kernel-debs-boot: insmod $k failed"; exit 1; }
done
mount -t ext4 /dev/vda /mnt/scratch || exit 1
mount -t xfs /dev/vdb /mnt/xfs || exit 1
echo "# kernel $(uname -r) $(uname -v)"
ls /sys/fs/cgroup/cpuset.memory_toss_cache /sys/fs/cgroup/cpuset.memory_toss_cache.stat || exit 1
EOF
mkdir -p "$BUILD/results"
log=$BUILD/results/kernel-debs-boot.log
"$here/scripts/vm-run.sh" -k "$kernel" -i "$BUILD/initramfs.cpio.gz" -f "$files" \
	-t "${VM_TIMEOUT:-1800}" -a "${ACCEL:-tcg}" -l "$log" \
	-- "sh /extra/setup && run-tests $*" > /dev/null
rc=$?
tap_raw "$log" kernel-debs-boot > "$work/results"
case $rc in
0) echo "pass kernel-debs-boot-vm" ;;
*) echo "fail kernel-debs-boot-vm:status-$rc(see $log)" ;;
esac >> "$work/results"
cat "$work/results"
pass=$(grep -c '^pass ' "$work/results") fail=$(grep -c '^fail ' "$work/results")
skip=$(grep -c '^skip ' "$work/results")
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
