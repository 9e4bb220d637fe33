# SPDX-License-Identifier: GPL-2.0
#
# cpuset.memory_toss_cache: build, boot and test harness.
# `make help` lists the targets and the variables you can set.

SHELL      := /bin/bash
TOP        := $(CURDIR)
BUILD      ?= $(TOP)/build
JOBS       ?= $(shell nproc)
ACCEL      ?= tcg
VM_TIMEOUT ?= 1800
KSRC       ?=
BASE_OK    ?=
CMD        ?= uname -a; cat /sys/devices/system/node/online
VMFILES    ?=
KEEP_DISK  ?=
IMAGE      ?=
KERNEL_DEBS_TRIM ?=
export KSRC BASE_OK JOBS ACCEL VM_TIMEOUT KERNEL_DEBS_TRIM

# Debian packages the harness needs; `make deps` installs what is missing.
include $(TOP)/BASE
PKGS := make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio xz-utils \
	ccache git perl python3 qemu-system-x86 busybox-static bash-static \
	e2fsprogs xfsprogs rsync fio stress-ng mmdebstrap libslurm-dev \
	pkgconf dpkg-dev libjansson-dev libhwloc-dev libsystemd-dev clang libclang-rt-14-dev \
	sparse patch python3-sphinx python3-sphinx-rtd-theme build-essential debhelper lintian
ifeq ($(KSRC),)
ifeq ($(BASE_OK),)
PKGS += $(BASE_PKG)=$(BASE_VERSION)
else
PKGS += $(BASE_PKG)
endif
endif
# Debian's own 6.12 kernel config, of the same version as the base (the
# debian variant of check-configs, make kernel-debs).
ifeq ($(KSRC)$(BASE_OK),)
PKGS += linux-config-6.12=$(BASE_VERSION)
else
PKGS += linux-config-6.12
endif

SRC        := $(BUILD)/debug/src
OBJ        := $(BUILD)/debug/obj
BSRC       := $(BUILD)/baseline/src
BOBJ       := $(BUILD)/baseline/obj
KERNEL     := $(OBJ)/arch/x86/boot/bzImage
BKERNEL    := $(BOBJ)/arch/x86/boot/bzImage
XOBJ       := $(BUILD)/bench/obj
XKERNEL    := $(XOBJ)/arch/x86/boot/bzImage
BIN        := $(BUILD)/bin
# The soak kernel (make soak): the test kernel's fragments and the
# sanitizers, in its own tree; its own initramfs, with only what vm/soak runs.
SOBJ       := $(BUILD)/soak/obj
SKERNEL    := $(SOBJ)/arch/x86/boot/bzImage
SBIN       := $(BUILD)/soak/bin
SINITRAMFS := $(BUILD)/soak/initramfs.cpio.gz
SOAK_NICE  ?= 5
INITRAMFS  := $(BUILD)/initramfs.cpio.gz
FRAGMENTS  := $(TOP)/configs/lean.config $(TOP)/configs/debug.config
TFRAGMENTS := $(FRAGMENTS) $(TOP)/configs/test.config $(TOP)/configs/userspace.config
# The patched test kernel also builds in the KUnit suite (not the baseline,
# which lacks it).
KFRAGMENTS := $(TFRAGMENTS) $(TOP)/configs/kunit.config
SFRAGMENTS := $(FRAGMENTS) $(TOP)/configs/test.config $(TOP)/configs/soak.config
VMRUN       = $(TOP)/scripts/vm-run.sh -i $(INITRAMFS) -t $(VM_TIMEOUT) -a $(ACCEL)

# Our selftests (each built with cgroup_util.c and toss_util.c) and the
# upstream cgroup selftests that touch cpuset and memcg.
TOSSTESTS  := test_cpuset_toss test_cpuset_toss_cgroup test_cpuset_toss_concurrency \
	test_cpuset_toss_cpus
SELFTESTS  := $(TOSSTESTS) test_core test_cpuset test_memcontrol
SELFSH     := test_cpuset_prs.sh test_cpuset_v1_base.sh
STDIR       = $(SRC)/tools/testing/selftests

DIMG       := $(BUILD)/debian.img
DEBS       := $(BUILD)/debs
ifeq ($(IMAGE),debian)
VM_ROOT    := debian-img
VM_ROOTARG := -r $(DIMG)
else ifeq ($(IMAGE),)
VM_ROOT    := initramfs
VM_ROOTARG :=
else
$(error IMAGE=$(IMAGE): the images are the busybox initramfs (IMAGE unset) and debian)
endif

.PHONY: all help deps base tree kernel kernel-baseline kernel-bench kernel-soak soak bench tests check-full kernel-lockstat lock-stat \
	initramfs demo \
	check check-toss check-kunit check-upstream check-configs check-integration check-slurm-two tools-img vm-run \
	vm-run-baseline userspace install uninstall debs dist-userspace debian-img patches kernel-debs kernel-debs-boot \
	checkpatch lint check-series check-base check-docs check-doc-text clean distclean

all: deps kernel initramfs demo

help:
	@echo 'cpuset.memory_toss_cache harness'
	@echo ''
	@echo 'Targets:'
	@echo '  make                 install missing packages, build, boot, show a toss (the demo)'
	@echo '  make check           build what is needed and run every test in the VM'
	@echo '  make check-full      make check, with every integration test on the baseline'
	@echo '                       kernel (make check: one per integration)'
	@echo '  make check-toss      only our selftests (test_cpuset_toss*), the KUnit suites'
	@echo '                       and the demo'
	@echo '  make check-kunit     only the KUnit suites (parser, share arithmetic) in one VM'
	@echo '  make check-upstream  only the upstream cgroup selftests, patched vs baseline kernel'
	@echo '  make check-configs   compile the files we touch under config variants (MEMCG=n,'
	@echo '                       NUMA=n, CPUSETS=n, ..., and debian: Debian'"'"'s 6.12 config, W=1;'
	@echo '                       objects only, no vmlinux): build/configs'
	@echo '  make bench           benchmark the toss against drop_caches, fadvise and'
	@echo '                       memory.reclaim (non-debug kernel); writes bench/results'
	@echo '                       (BENCH_QUICK=1: a short run, same tables, in build/bench-quick)'
	@echo '  make lock-stat       which locks a toss'"'"'s 1, 2 and 4 workers wait on (a debug kernel'
	@echo '                       with CONFIG_LOCK_STAT): bench/results/lock-stat.txt'
	@echo '  make vm-run CMD=...  boot the test kernel, run CMD as root, print its output,'
	@echo '                       exit with its status; VMFILES=dir is copied to /extra;'
	@echo '                       IMAGE=debian: on the Debian 12 image, systemd as PID 1,'
	@echo '                       CMD run with bash once the system is up'
	@echo '  make vm-run-baseline the same on the unpatched baseline kernel'
	@echo '  make kernel          build the patched test kernel (build/debug/obj)'
	@echo '  make kernel-baseline build the unpatched kernel (build/baseline/obj)'
	@echo '  make kernel-bench    build the patched kernel without debug options (build/bench/obj)'
	@echo '  make kernel-debs     linux-image/linux-headers .debs of the patched kernel with'
	@echo '                       Debian'"'"'s 6.12 config (hours on 2 cores; not in make check):'
	@echo '                       build/kernel-debs/debian (KERNEL_DEBS_TRIM=1: no debug info,'
	@echo '                       the largest driver trees off: build/kernel-debs/trim)'
	@echo '  make kernel-debs-boot   boot the kernel of those .debs (unpacked, its disk and file'
	@echo '                       system modules insmod-ed) in the VM and run the toss'
	@echo '                       selftests on it (KERNEL_DEBS_TRIM=1: the trimmed one)'
	@echo '  make soak            the soak (not in make check, about 30 min): the whole selftest,'
	@echo '                       toss-stress, hotplug and cgroup churn under tosses, fault'
	@echo '                       injection, kmemleak, on a kernel with KASAN, kmemleak, lockdep,'
	@echo '                       DEBUG_VM, DEBUG_PAGEALLOC, page owner (configs/soak.config);'
	@echo '                       two boots: the selftest without debug_pagealloc=on, the rest'
	@echo '                       with it (SOAK_SELFTEST_PAGEALLOC=1: in both, about 47 min)'
	@echo '  make kernel-soak     build that kernel (build/soak/obj, at nice $(SOAK_NICE))'
	@echo '  make tests           build the static test programs (build/bin)'
	@echo '  make check-integration  cpuset-toss, cgset, crun, runc, podman, systemd,'
	@echo '                       Slurm, LXC, Docker, containerd in the Debian VM, and Slurm'
	@echo '                       on two machines (part of make check)'
	@echo '  make check-slurm-two Slurm on two machines only: two Debian VMs at once on one'
	@echo '                       network, slurmctld on one, slurmd on both'
	@echo '  make userspace       build cpuset-toss, the OCI hook, the Docker wrapper'
	@echo '                       and the Slurm plugin (build/userspace)'
	@echo '  make install         install them (DESTDIR=, PREFIX=/usr, SYSCONFDIR=/etc;'
	@echo '                       CFLAGS, CPPFLAGS, LDFLAGS override dpkg-buildflags)'
	@echo '  make uninstall       remove what make install put there (not /etc)'
	@echo '  make debs            the Debian packages of them (debian/), built out of tree,'
	@echo '                       lintian clean: build/debs/*.deb'
	@echo '  make dist-userspace  the source of the userspace alone, with debian/:'
	@echo '                       build/dist-userspace/cpuset-toss-<version>{,.tar.xz}'
	@echo '  make debian-img      the Debian 12 VM image with those packages installed by apt'
	@echo '                       (build/debian.img)'
	@echo '  make tools-img       the VM disk with fio and stress-ng (build/tools.img)'
	@echo '  make initramfs       build the VM initramfs'
	@echo '  make patches         export the upstream-style series to build/patches, authored'
	@echo '                       and signed off by your git identity (user.name/user.email;'
	@echo '                       an error without one); SIGNOFF="Name <email>" overrides it'
	@echo '  make checkpatch      run checkpatch.pl --strict on that series'
	@echo '  make lint            checkpatch, and a W=1 build of the files we touch'
	@echo '  make check-series    bisectability: the series applied patch by patch (zero'
	@echo '                       fuzz) on the base, after each patch the objects of the'
	@echo '                       series so far built with W=1 (objects only, no vmlinux;'
	@echo '                       warnings the unpatched tree has too are not ours), sparse'
	@echo '                       on them after the last patch, checkpatch --strict on every'
	@echo '                       exported patch: build/series, build/results/check-series*'
	@echo '  make check-base KSRC=/other/6.12.y   per patch: applies with zero fuzz,'
	@echo '                       with fuzz, or fails on that tree, and the objects built'
	@echo '                       after each patch that applied: build/check-base/<key>'
	@echo '  make check-docs      kernel-doc on our C files (each non-static function'
	@echo '                       documented, -Wall quiet), then make htmldocs'
	@echo '                       SPHINXDIRS=admin-guide with no warning in our .rst'
	@echo '                       (DOCS_SPHINX=0: kernel-doc only): build/docs'
	@echo '  make check-doc-text  on the host, in seconds (part of make check): every sample'
	@echo '                       of program output in README.md, docs/ and the man pages'
	@echo '                       matches the code'"'"'s format strings; every relative link'
	@echo '                       of the Markdown resolves'
	@echo '  make deps            install missing Debian packages (root) or print the line'
	@echo '  make clean           remove build outputs (keeps ccache and the base cache)'
	@echo ''
	@echo 'Variables:'
	@echo '  KSRC=/path           use your own Linux 6.12 tree instead of linux-source-6.12'
	@echo '  BASE_OK=1            accept an installed linux-source-6.12 that is not the pinned one'
	@echo '  ACCEL=tcg|kvm        QEMU accelerator (default tcg; kvm is opt-in)'
	@echo '  JOBS=N               parallel kernel build jobs (default: nproc)'
	@echo '  VM_TIMEOUT=s         hard limit for one VM boot (default 1800)'
	@echo '  CMD=, VMFILES=, KEEP_DISK=img   for vm-run (KEEP_DISK reuses a scratch image)'
	@echo '  CONFIGS="no-memcg ..."   for check-configs: only these variants (default: all)'
	@echo '  BASE_CACHE=dir       where the unpacked base lives (default /var/cache/memory-toss)'
	@echo '  KERNEL_DEBS_TRIM=1   for kernel-debs: the trimmed config (configs/debian-trim.config)'
	@echo '  LOCALVERSION=, KDEB_PKGVERSION=   for kernel-debs: kernel release suffix (default'
	@echo '                       -toss1, -toss1-trim) and package version (default BASE'"'"'s +toss1)'

deps:
	@$(TOP)/scripts/deps.sh $(PKGS)

base:
	@$(TOP)/scripts/base.sh >/dev/null

tree: base
	@$(TOP)/scripts/tree.sh $(SRC) patched >/dev/null

kernel: tree
	@$(TOP)/scripts/kbuild.sh $(SRC) $(OBJ) $(KFRAGMENTS)

# The benchmark kernel: the same patched sources, without the debug options.
kernel-bench: tree
	@$(TOP)/scripts/kbuild.sh $(SRC) $(XOBJ) $(TOP)/configs/lean.config $(TOP)/configs/bench.config

# Debian's config plus what the series needs (configs/debian.config), as
# .debs a site installs; not part of make check (hours on 2 cores).
# debhelper runs the packaging, kmod's depmod the module index, openssl
# makes the module signing key; pahole makes BTF, which Debian's
# config has and the trimmed one (no debug info) has not.
kernel-debs: PKGS += debhelper kmod openssl $(if $(filter-out 0,$(KERNEL_DEBS_TRIM)),,pahole)
kernel-debs: deps tree
	@$(TOP)/scripts/kernel-debs.sh $(SRC) $(BUILD)/kernel-debs

# The kernel those .debs hold, booted in the harness VM with the busybox
# initramfs, running the toss selftests (scripts/kernel-debs-boot.sh); it
# does not build them.
kernel-debs-boot: deps initramfs
	@$(TOP)/scripts/kernel-debs-boot.sh $(BUILD)/kernel-debs/$(if $(filter-out 0,$(KERNEL_DEBS_TRIM)),trim,debian)

# The soak kernel: a cold build of its own (KASAN's instrumentation misses
# every other kernel's ccache entries), at a lower priority than the
# incremental builds of everyday work.
kernel-soak: tree
	@nice -n $(SOAK_NICE) $(TOP)/scripts/kbuild.sh $(SRC) $(SOBJ) $(SFRAGMENTS)

kernel-baseline: base
	@$(TOP)/scripts/tree.sh $(BSRC) base >/dev/null
	@$(TOP)/scripts/kbuild.sh $(BSRC) $(BOBJ) $(TFRAGMENTS)

# Static test programs, built against the patched tree's selftests and the
# kernel's own uapi headers, at -O0 as kselftest's lib.mk builds them: at
# -O2 GCC deletes test_memcontrol's alloc_anon() (it only touches memory it
# frees), and its memory.min/low/max and OOM tests then test nothing.
# $(call build-selftests,<kernel obj>,<out dir>,<programs>): the toss tests
# link toss_util.c too.
define build-selftests
	@mkdir -p $(2)
	@for t in $(3); do \
		case " $(TOSSTESTS) " in *" $$t "*) util=$(STDIR)/cgroup/toss_util.c ;; *) util= ;; esac; \
		gcc -static -O0 -g -Wall -pthread \
			-isystem $(1)/usr/include -I$(STDIR) \
			-o $(2)/$$t.tmp $(STDIR)/cgroup/$$t.c $(STDIR)/cgroup/cgroup_util.c $$util \
			|| exit 1; \
		mv $(2)/$$t.tmp $(2)/$$t; \
	done
endef
tests: kernel
	$(call build-selftests,$(OBJ),$(BIN),$(SELFTESTS))
	@for s in $(SELFSH); do install -m 0755 $(STDIR)/cgroup/$$s $(BIN)/$$s; done
	@install -m 0755 $(TOP)/vm/toss-demo $(TOP)/vm/run-tests $(TOP)/vm/toss-stress $(TOP)/vm/kunit-ktap $(BIN)/

# fio and stress-ng with their libraries, for the VM's /opt/tools.
tools-img: deps
	@$(TOP)/scripts/tools-disk.sh $(BUILD)/tools.img

initramfs: tests
	@$(TOP)/scripts/initramfs.sh $(OBJ)/usr/gen_init_cpio $(INITRAMFS) $(BIN)

demo: kernel initramfs
	@$(VMRUN) -k $(KERNEL) -l $(BUILD)/demo.log -- toss-demo > /dev/null; \
	rc=$$?; sed -n '/^== /,/^VM-EXIT/p' $(BUILD)/demo.log | grep -v '^VM-EXIT'; \
	[ $$rc = 0 ] && echo "demo: OK" || { echo "demo: FAILED (status $$rc, console in build/demo.log)"; exit 1; }

# CMD goes to the VM exactly as written: no make expansion, no re-quoting.
export VMRUN_CMD = $(value CMD)
vm-run: kernel $(VM_ROOT)
	@$(VMRUN) $(VM_ROOTARG) -k $(KERNEL) $(if $(VMFILES),-f $(VMFILES)) $(if $(KEEP_DISK),-d $(KEEP_DISK)) -- "$$VMRUN_CMD"

vm-run-baseline: kernel-baseline $(VM_ROOT)
	@$(VMRUN) $(VM_ROOTARG) -k $(BKERNEL) $(if $(VMFILES),-f $(VMFILES)) $(if $(KEEP_DISK),-d $(KEEP_DISK)) -- "$$VMRUN_CMD"

# The userspace parts: userspace, install, uninstall.
include $(TOP)/userspace/userspace.mk

# The Debian packages of the userspace (debian/, debhelper): cpuset-toss,
# cpuset-toss-oci-hook, cpuset-toss-slurm-plugin.  Built from a copy of the
# working tree in build/debs, with dpkg-buildpackage -b; lintian must find
# no error or warning.
debs: deps
	@$(TOP)/scripts/debs.sh $(DEBS)

# The source of the userspace alone (userspace/, debian/, the licenses, a
# Makefile of its own): build/dist-userspace/cpuset-toss-<version>/ and
# its .tar.xz; dpkg-buildpackage there builds the same three packages.
dist-userspace:
	@$(TOP)/scripts/dist-userspace.sh $(BUILD)/dist-userspace

# The Debian 12 image of `make vm-run IMAGE=debian`: mmdebstrap's tree
# (cached outside the clone) with the packages of `make debs` installed by
# apt, so that the integration tests run against the packaged files.
debian-img: deps debs
	@$(TOP)/scripts/debian-img.sh $(DIMG) $(DEBS)

# Benchmarks: the non-debug kernel on four 2 GiB nodes, every method on the
# same data in one boot (scenario 11 in a second, with four vCPUs on node 1;
# scenario 13 in a third, with node 1 of BENCH_BIG_NODE, default 512G);
# results in bench/results.  BENCH_QUICK=1 for a short run on every change
# to the toss path.
bench: PKGS += gnuplot-nox
bench: deps kernel-bench initramfs
	@$(TOP)/scripts/bench.sh $(XKERNEL) $(INITRAMFS) \
		$(if $(BENCH_QUICK),$(BUILD)/bench-quick,$(TOP)/bench/results)

# The lock statistics behind the workers' default: the debug kernel with
# CONFIG_LOCK_STAT (build/lockstat/obj), toss-bench's scenario 11 with 1, 2
# and 4 workers on one node; the LOCKSTAT lines in bench/results.
kernel-lockstat: tree
	@$(TOP)/scripts/kbuild.sh $(SRC) $(BUILD)/lockstat/obj $(FRAGMENTS) $(TOP)/configs/lockstat.config

lock-stat: deps kernel-lockstat initramfs
	@$(TOP)/scripts/lock-stat.sh $(BUILD)/lockstat/obj/arch/x86/boot/bzImage $(INITRAMFS) \
		$(TOP)/bench/results/lock-stat.txt

check: deps kernel kernel-baseline initramfs tools-img userspace debian-img
	@$(TOP)/scripts/check.sh all

# make check, with every integration test on the baseline kernel, not one
# per integration.
check-full: deps kernel kernel-baseline initramfs tools-img userspace debian-img
	@CHECK_FULL=1 $(TOP)/scripts/check.sh all

# The integrations (cpuset-toss, cgset, crun, runc, podman, systemd, Slurm)
# in the Debian VM, on the patched kernel and, expecting every test to
# fail there, on the baseline.
check-integration: deps kernel kernel-baseline userspace debian-img
	@$(TOP)/scripts/check.sh integration

# Slurm on two machines: two Debian VMs at once on one network (part of
# check-integration and check).
check-slurm-two: deps kernel userspace debian-img
	@$(TOP)/scripts/check.sh slurm-two

# The soak (scripts/soak.sh, vm/soak): its test programs are built against
# the soak kernel's uapi headers, so that it needs no other kernel.
soak: deps kernel-soak tools-img
	@rm -rf $(SBIN)
	$(call build-selftests,$(SOBJ),$(SBIN),$(TOSSTESTS))
	@gcc -static -O2 -Wall -Wextra -o $(SBIN)/toss-write $(TOP)/vm/toss-write.c
	@install -m 0755 $(TOP)/vm/soak $(TOP)/vm/toss-stress $(SBIN)/
	@$(TOP)/scripts/initramfs.sh $(SOBJ)/usr/gen_init_cpio $(SINITRAMFS) $(SBIN)
	@$(TOP)/scripts/soak.sh $(SKERNEL) $(SINITRAMFS) $(BUILD)/tools.img $(BUILD)/results

# The documentation against the code, on the host (part of make check).
check-doc-text:
	@$(TOP)/scripts/check.sh docs

check-toss: deps kernel initramfs tools-img
	@$(TOP)/scripts/check.sh toss

# The KUnit suites of the parser and the share arithmetic, which the
# patched kernel runs at boot (make check counts them from its first toss
# VM): one VM, no test program.
check-kunit: deps kernel initramfs
	@$(TOP)/scripts/check.sh kunit

check-upstream: deps kernel kernel-baseline initramfs
	@$(TOP)/scripts/check.sh upstream

# The objects of the series compiled under each config variant, one option
# off in each, and under Debian's own config (W=1; linux-config-6.12);
# scripts/check-configs.sh lists them; no VM.
check-configs: deps tree
	@$(TOP)/scripts/check-configs.sh $(CONFIGS)

patches: base
	@$(TOP)/scripts/export-patches.sh $(BUILD)/patches

checkpatch: patches
	@$(TOP)/scripts/checkpatch.sh $(BUILD)/patches

# Bisectability: the series applied patch by patch (zero fuzz) on the
# base, the series' objects compiled with W=1 after each patch, sparse on
# them after the last, checkpatch --strict on every exported patch.
check-series: deps base
	@$(TOP)/scripts/check-series.sh

# kernel-doc on our C files (every non-static function documented,
# -Wall quiet) and the admin-guide built by Sphinx without a warning in
# the .rst files we change (DOCS_SPHINX=0: kernel-doc only).
check-docs: deps tree
	@$(TOP)/scripts/check-docs.sh $(SRC)

# The same on another 6.12.y tree: how each patch applies (zero fuzz,
# fuzz, fails) and whether the objects build after it.
check-base: deps
	@$(TOP)/scripts/check-series.sh --base

# checkpatch --strict on the series, and a W=1 build of every file we touch.
W1_OBJS := mm/toss_cache.o mm/filemap.o mm/shrinker.o mm/vmstat.o fs/super.o kernel/cgroup/cpuset-toss.o kernel/cgroup/cpuset.o \
	kernel/cgroup/cpuset-v1.o
lint: checkpatch kernel
	@out=$$($(MAKE) -s -C $(SRC) O=$(OBJ) CC="$$(command -v ccache >/dev/null && echo ccache) gcc" \
		W=1 $(W1_OBJS) 2>&1); echo "$$out"; \
	if [ -n "$$out" ]; then echo "lint: W=1 build printed warnings"; exit 1; fi; \
	echo "lint: W=1 clean: $(W1_OBJS)"

clean:
	rm -rf $(BUILD)/bin $(BUILD)/initramfs.cpio.gz $(BUILD)/*.log $(BUILD)/patches \
		$(BUILD)/results $(OBJ) $(BOBJ) $(XOBJ) $(BUILD)/soak

distclean:
	rm -rf $(BUILD)
