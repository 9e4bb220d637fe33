# SPDX-License-Identifier: GPL-2.0
# Sourced by the host tests, inside their own mount namespace:
# fake_topology puts the integration VM's NUMA topology in
# /sys/devices/system/node (a tmpfs over it): nodes 0-3 with memory,
# node 0 with CPU 0, node 1 with CPUs 1 and 3, node 2 with CPU 2, node 3
# with no CPU, and 64 MiB of page cache (FilePages) on each.  $sys is
# /sys/devices/system afterwards.
fake_topology() {
	sys=/sys/devices/system
	mount -t tmpfs none $sys/node || return 1
	echo 0-3 > $sys/node/online
	echo 0-3 > $sys/node/possible
	echo 0-3 > $sys/node/has_memory
	echo 0-2 > $sys/node/has_cpu
	for n in 0 1 2 3; do
		mkdir $sys/node/node$n
		echo "Node $n FilePages:       65536 kB" > $sys/node/node$n/meminfo
	done
	echo 0 > $sys/node/node0/cpulist
	echo 1,3 > $sys/node/node1/cpulist
	echo 2 > $sys/node/node2/cpulist
	echo > $sys/node/node3/cpulist
}
