#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vm-run.sh: boot the test kernel under QEMU on four NUMA nodes, run one
# shell command in it as root and exit with its status.
#
#   vm-run.sh -k bzImage (-i initramfs | -r root-image) [-f vmfiles-dir]
#             [-t timeout] [-a tcg|kvm] [-l logfile] [-d keep-disk-image]
#             -- 'command'
#
# With -i, PID 1 is vm/init (busybox) and the command runs with busybox sh.
# With -r (the Debian image of scripts/debian-img.sh, booted read-only:
# every change goes to a throwaway snapshot), PID 1 is systemd; the
# image's vm-run.service waits for `systemctl is-system-running --wait`
# (printing the failed units when it says degraded) and runs the command
# with bash.  Its per-run files (the command and /extra) come on a fourth
# small disk.
#
# Topology: nodes 0, 1, 2 with one vCPU and $NODE_MEM each, node 3 with
# $NODE_MEM and no CPU.  NODE_CPUS="0 1,3 2 -" (the bench's) gives node 1
# a second vCPU, CPU 3; "-" is a node without CPU.  NODE_MEMS="2G 512G 2G
# 2G" gives each node its own size.  The guest's memory is not reserved
# on the host (reserve=off): a page costs the host memory once the guest
# touches it, so a node larger than the host's memory costs it only its
# page frames' struct pages (1/64 of the node) until it is filled.
# A fresh sparse XFS disk ($XFS_SIZE) is mounted at /mnt/xfs (XFS has
# large folios in its page cache).  A fresh sparse ext4 scratch disk
# ($DISK_SIZE) is mounted at /mnt/scratch.  A last disk, 64 MiB of ext4
# without a journal with the serial "tossdelay" (PCI slot 0x18: after the
# others, so that their names do not change), is left for
# test_toss_writes_held to put behind dm-delay.  <vmfiles-dir> is copied
# to /extra.
#
# The guest has no network device unless VM_NET names a QEMU netdev
# backend with its options (scripts/check.sh: "dgram,local.type=inet,..."
# to join two guests over the host's loopback): then one virtio NIC, MAC
# $VM_MAC (default 52:54:00:12:34:56), in PCI slot 0x19, after the disks.
#
# The exit status is the command's, or 124 on a timeout, or 125 when the
# kernel console shows a splat (BUG, WARNING, lockdep, Oops, stall, ...),
# whatever the command returned.
#
# A boot that hangs: under TCG on this 2-core host, a guest has gone
# silent 3 s into its boot (after virtio_blk found its disks) and stayed
# silent until the timeout, 30 minutes later; another, at the same point,
# reported an RCU stall of an idle vCPU whose timer never fired, every
# minute until the timeout.  The same image and kernel booted normally the
# next times.  So before the guest prints VM-READY (before any test ran),
# vm-run stops QEMU when the console has stayed silent for $BOOT_SILENCE
# seconds (default 300), when it reports an RCU stall, or when VM-READY has
# not come $BOOT_DEADLINE seconds (default 900) after QEMU started; it says
# so on stderr, keeps that console as <log>.hung and boots once more with
# fresh disks.  A second such boot fails (126).  After VM-READY, a stall
# or any other splat fails the run (125), as always.  BOOT_SILENCE=0 turns
# this off.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
kernel="" initrd="" rootimg="" files="" tmo=${VM_TIMEOUT:-600} accel=${ACCEL:-tcg}
log="" keep=""
NODE_MEM=${NODE_MEM:-768M}
DISK_SIZE=${DISK_SIZE:-2G}
XFS_SIZE=${XFS_SIZE:-1G}
NODE_CPUS=${NODE_CPUS:-0 1 2 -}
BOOT_SILENCE=${BOOT_SILENCE:-300}
BOOT_DEADLINE=${BOOT_DEADLINE:-900}
# TOOLS_IMG=img: a read-only third disk, mounted at /opt/tools (fio and
# stress-ng, from scripts/tools-disk.sh).
TOOLS_IMG=${TOOLS_IMG:-}
while getopts k:i:r:f:t:a:l:d: o; do
	case $o in
	k) kernel=$OPTARG ;; i) initrd=$OPTARG ;; r) rootimg=$OPTARG ;; f) files=$OPTARG ;;
	t) tmo=$OPTARG ;; a) accel=$OPTARG ;; l) log=$OPTARG ;; d) keep=$OPTARG ;;
	*) echo "usage: see the header of $0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
cmd="$*"
[ -f "$kernel" ] || { echo "vm-run: kernel $kernel missing (run make first)" >&2; exit 2; }
if [ -n "$rootimg" ]; then
	[ -f "$rootimg" ] || { echo "vm-run: root image $rootimg missing (make debian-img)" >&2; exit 2; }
else
	[ -f "$initrd" ] || { echo "vm-run: initramfs $initrd missing (run make first)" >&2; exit 2; }
fi

work=$(mktemp -d /tmp/vm-run.XXXXXX)
trap 'rm -rf "$work"' EXIT
[ -n "$log" ] || log=$work/console.log

# The per-run part of the initramfs: /cmd and /extra, appended to the base
# archive (the kernel unpacks concatenated cpio archives in order).
mkdir -p "$work/root/extra"
printf '%s\n' "$cmd" > "$work/root/cmd"
if [ -n "$files" ]; then
	[ -d "$files" ] || { echo "vm-run: VMFILES=$files is not a directory" >&2; exit 2; }
	cp -a "$files/." "$work/root/extra/"
fi
boot=()
if [ -n "$rootimg" ]; then
	# The command and /extra on a small ext4 disk, labelled for the
	# image's fstab.
	size=$(( $(du -sm "$work/root" | cut -f1) * 2 + 16 ))
	truncate -s "${size}M" "$work/run.img"
	mkfs.ext4 -q -F -L vmrun -d "$work/root" "$work/run.img" >/dev/null ||
		{ echo "vm-run: mkfs.ext4 of the run disk failed" >&2; exit 2; }
	boot=(-drive "file=$rootimg,if=virtio,format=raw,snapshot=on")
	append="root=/dev/vda rw systemd.show_status=error"
else
	(cd "$work/root" && find . | cpio -o -H newc -R 0:0 --quiet) | gzip -1 > "$work/run.cpio.gz"
	cat "$initrd" "$work/run.cpio.gz" > "$work/initrd"
	boot=(-initrd "$work/initrd")
	append=""
fi

# The scratch (unless -d keeps it), XFS and delay disks, fresh for a boot.
make_disks() {
	disk=${keep:-$work/scratch.img}
	if [ -z "$keep" ] || [ ! -f "$keep" ]; then
		rm -f "$disk"
		truncate -s "$DISK_SIZE" "$disk"
		mkfs.ext4 -q -F -L scratch -E lazy_itable_init=1,lazy_journal_init=1 "$disk" >/dev/null ||
			{ echo "vm-run: mkfs.ext4 failed" >&2; return 2; }
	fi

	truncate -s "$XFS_SIZE" "$work/xfs.img"
	mkfs.xfs -q -f -L tossxfs "$work/xfs.img" >/dev/null ||
		{ echo "vm-run: mkfs.xfs failed" >&2; return 2; }

	# A small ext4 without a journal, which a selftest puts behind a
	# device-mapper delay target (test_toss_writes_held): found by its serial.
	truncate -s 64M "$work/delay.img"
	mkfs.ext4 -q -F -O ^has_journal -L tossdelay "$work/delay.img" >/dev/null ||
		{ echo "vm-run: mkfs.ext4 of the delay disk failed" >&2; return 2; }
}

net=()
[ -z "${VM_NET:-}" ] || net=(-netdev "$VM_NET,id=net0"
	-device "virtio-net-pci,netdev=net0,mac=${VM_MAC:-52:54:00:12:34:56},addr=0x19")

tools=()
[ -z "$TOOLS_IMG" ] || tools=(-drive "file=$TOOLS_IMG,if=virtio,format=raw,readonly=on")
[ -z "$rootimg" ] || tools=(-drive "file=$work/run.img,if=virtio,format=raw,cache=unsafe")

# Under TCG a vCPU can stand still for tens of seconds while the host (a
# VM itself, on 2 cores) runs other work: seen once, 22 s inside one
# clear_page_erms() of the unpatched baseline kernel on the Debian image.
# A soft lockup is reported after 2 * watchdog_thresh seconds: 60 s there.
case $accel in
kvm) accel_args=(-accel kvm -cpu host) ;;
tcg) accel_args=(-accel tcg,thread=multi -cpu max); append+=" watchdog_thresh=30" ;;
*) echo "vm-run: ACCEL must be tcg or kvm" >&2; exit 2 ;;
esac
numa=()
ncpus=0
read -ra node_cpus <<< "$NODE_CPUS"
[ ${#node_cpus[@]} = 4 ] || { echo "vm-run: NODE_CPUS needs 4 entries: $NODE_CPUS" >&2; exit 2; }
read -ra node_mems <<< "${NODE_MEMS:-$NODE_MEM $NODE_MEM $NODE_MEM $NODE_MEM}"
[ ${#node_mems[@]} = 4 ] || { echo "vm-run: NODE_MEMS needs 4 entries: $NODE_MEMS" >&2; exit 2; }
memmb=0
for n in 0 1 2 3; do
	numa+=(-object "memory-backend-ram,id=m$n,size=${node_mems[$n]},reserve=off")
	memmb=$(( memmb + $(numfmt --from=iec "${node_mems[$n]}") / 1048576 ))
	cpus=
	if [ "${node_cpus[$n]}" != - ]; then
		for c in ${node_cpus[$n]//,/ }; do
			cpus+=",cpus=$c"
			ncpus=$((ncpus + 1))
		done
	fi
	numa+=(-numa "node,nodeid=$n$cpus,memdev=m$n")
done
memsz=${memmb}M
# TCG's CPU addresses 1 TiB (40 physical address bits); q35 puts the PCI
# hole and the 64-bit PCI window after the memory, so a guest of more
# than about 500 GiB needs more address bits.
if [ "$accel" = tcg ] && [ "$memmb" -gt $((256 * 1024)) ]; then
	accel_args[-1]+=,phys-bits=44	# (the -cpu model)
fi

# qemu under timeout, its pid in $work/qpid for the watchdog.
run_qemu() {
	echo $BASHPID > "$work/qpid"
	exec timeout --foreground -k 10 "$tmo" qemu-system-x86_64 "${accel_args[@]}" \
		-machine q35 -smp $ncpus,sockets=$ncpus,cores=1,threads=1 -m "$memsz" "${numa[@]}" \
		-kernel "$kernel" "${boot[@]}" \
		-append "console=ttyS0 panic=-1 loglevel=6 $append ${VM_APPEND:-}" \
		-drive "file=$disk,if=virtio,format=raw,cache=unsafe" \
		-drive "file=$work/xfs.img,if=virtio,format=raw,cache=unsafe" "${tools[@]}" \
		-drive "file=$work/delay.img,if=none,id=delay,format=raw,cache=unsafe" \
		-device virtio-blk-pci,drive=delay,serial=tossdelay,addr=0x18 "${net[@]}" \
		-display none -no-reboot -serial stdio -monitor none -nodefaults \
		< /dev/null
}

# Until the guest prints VM-READY: stop QEMU when the console has not
# grown for $BOOT_SILENCE seconds, reports an RCU stall, or VM-READY has
# not come $BOOT_DEADLINE seconds after QEMU started, and leave the reason
# in $work/hung.
watch_boot() {
	local size last=-1 still=0 pid why=
	while [ ! -s "$work/qpid" ]; do sleep 1; done
	pid=$(cat "$work/qpid")
	SECONDS=0
	while kill -0 "$pid" 2>/dev/null; do
		grep -q '^VM-READY' "$log" 2>/dev/null && return 0
		size=$(stat -c %s "$log" 2>/dev/null || echo 0)
		if [ "$size" = "$last" ]; then
			still=$((still + 5))
		else
			still=0 last=$size
		fi
		if [ "$still" -ge "$BOOT_SILENCE" ]; then
			why="its console silent for ${BOOT_SILENCE}s"
		elif grep -qE 'rcu: INFO: .*detected stall' "$log" 2>/dev/null; then
			why="an RCU stall report"
		elif [ "$SECONDS" -ge "$BOOT_DEADLINE" ]; then
			why="not ready after ${BOOT_DEADLINE}s"
		fi
		if [ -n "$why" ]; then
			echo "$why" > "$work/hung"
			kill -TERM "$pid"
			return 0
		fi
		sleep 5
	done
}

for attempt in 1 2; do
	rm -f "$work/hung" "$work/qpid"
	make_disks || exit 2
	: > "$log"
	wpid=
	if [ "$BOOT_SILENCE" -gt 0 ]; then
		watch_boot & wpid=$!
	fi
	run_qemu 2>&1 | stdbuf -oL tr -d '\r' | tee "$log"
	qrc=${PIPESTATUS[0]}
	if [ -n "$wpid" ]; then
		kill "$wpid" 2>/dev/null
		wait "$wpid" 2>/dev/null
	fi
	[ -f "$work/hung" ] || break
	cp "$log" "$log.hung"
	echo "vm-run: boot $attempt hung before VM-READY ($(cat "$work/hung")); QEMU stopped, console kept in $log.hung" >&2
	if [ "$attempt" = 2 ]; then
		echo "vm-run: the second boot hung too" >&2
		exit 126
	fi
	echo "vm-run: booting again" >&2
done

status=$(sed -n 's/^VM-EXIT-STATUS: \([0-9]*\)$/\1/p' "$log" | tail -1)
splat_re='BUG:|WARNING:|Oops|KASAN|UBSAN|Kernel panic|kernel BUG at|general protection fault|possible (circular|recursive) locking|INFO: (task .* blocked|lockdep|possible|trying to register)|rcu: INFO|detected stalls|soft lockup|hung_task'
# The kernel echoes its command line, which may name a detector
# (sysctl.kernel.hung_task_timeout_secs= in make soak): not a report.
splats=$(grep -En "$splat_re" "$log" | grep -Ev '^[0-9]+:\[ *[0-9.]+\] (Kernel )?[Cc]ommand line: ')
if [ -n "$splats" ]; then
	echo "vm-run: KERNEL SPLAT in the console:" >&2
	echo "$splats" | head -20 >&2
	exit 125
fi
if [ "$qrc" = 124 ] || [ "$qrc" = 137 ]; then
	echo "vm-run: TIMEOUT after ${tmo}s" >&2
	exit 124
fi
if [ -z "$status" ]; then
	echo "vm-run: the VM ended without reporting a status (qemu exit $qrc)" >&2
	exit 126
fi
exit "$status"
