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
export KSRC BASE_OK JOBS ACCEL VM_TIMEOUT

# Debian packages the harness needs; `make deps` installs what is missing.
include $(TOP)/BASE
PKGS := make gcc libc6-dev flex bison bc libelf-dev libssl-dev cpio xz-utils \
	ccache git perl python3 qemu-system-x86 busybox-static bash-static \
	e2fsprogs xfsprogs rsync fio stress-ng
ifeq ($(KSRC),)
ifeq ($(BASE_OK),)
PKGS += $(BASE_PKG)=$(BASE_VERSION)
else
PKGS += $(BASE_PKG)
endif
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
INITRAMFS  := $(BUILD)/initramfs.cpio.gz
FRAGMENTS  := $(TOP)/configs/lean.config $(TOP)/configs/debug.config
TFRAGMENTS := $(FRAGMENTS) $(TOP)/configs/test.config
VMRUN       = $(TOP)/scripts/vm-run.sh -i $(INITRAMFS) -t $(VM_TIMEOUT) -a $(ACCEL)

SELFTESTS  := test_cpuset_toss test_core test_cpuset test_memcontrol
SELFSH     := test_cpuset_prs.sh test_cpuset_v1_base.sh
STDIR       = $(SRC)/tools/testing/selftests

.PHONY: all help deps base tree kernel kernel-baseline kernel-bench bench tests initramfs demo \
	check check-toss check-upstream check-configs tools-img vm-run vm-run-baseline patches \
	checkpatch lint clean distclean

all: deps kernel initramfs demo

help:
	@echo 'cpuset.memory_toss_cache harness'
	@echo ''
	@echo 'Targets:'
	@echo '  make                 install missing packages, build, boot, show a toss (the demo)'
	@echo '  make check           build what is needed and run every test in the VM'
	@echo '  make check-toss      only our selftest (test_cpuset_toss) and the demo'
	@echo '  make check-upstream  only the upstream cgroup selftests, patched vs baseline kernel'
	@echo '  make check-configs   compile the files we touch under config variants (MEMCG=n,'
	@echo '                       NUMA=n, CPUSETS=n, ...; objects only, no vmlinux): build/configs'
	@echo '  make bench           benchmark the toss against drop_caches, fadvise and'
	@echo '                       memory.reclaim (non-debug kernel); writes bench/results'
	@echo '                       (BENCH_QUICK=1: a short run, same tables, in build/bench-quick)'
	@echo '  make vm-run CMD=...  boot the test kernel, run CMD as root, print its output,'
	@echo '                       exit with its status; VMFILES=dir is copied to /extra'
	@echo '  make vm-run-baseline the same on the unpatched baseline kernel'
	@echo '  make kernel          build the patched test kernel (build/debug/obj)'
	@echo '  make kernel-baseline build the unpatched kernel (build/baseline/obj)'
	@echo '  make kernel-bench    build the patched kernel without debug options (build/bench/obj)'
	@echo '  make tests           build the static test programs (build/bin)'
	@echo '  make tools-img       the VM disk with fio and stress-ng (build/tools.img)'
	@echo '  make initramfs       build the VM initramfs'
	@echo '  make patches         export the upstream-style series to build/patches'
	@echo '  make checkpatch      run checkpatch.pl --strict on that series'
	@echo '  make lint            checkpatch, and a W=1 build of the files we touch'
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

deps:
	@$(TOP)/scripts/deps.sh $(PKGS)

base:
	@$(TOP)/scripts/base.sh >/dev/null

tree: base
	@$(TOP)/scripts/tree.sh $(SRC) patched >/dev/null

kernel: tree
	@$(TOP)/scripts/kbuild.sh $(SRC) $(OBJ) $(TFRAGMENTS)

# The benchmark kernel: the same patched sources, without the debug options.
kernel-bench: tree
	@$(TOP)/scripts/kbuild.sh $(SRC) $(XOBJ) $(TOP)/configs/lean.config $(TOP)/configs/bench.config

kernel-baseline: base
	@$(TOP)/scripts/tree.sh $(BSRC) base >/dev/null
	@$(TOP)/scripts/kbuild.sh $(BSRC) $(BOBJ) $(FRAGMENTS)

# Static test programs, built against the patched tree's selftests and the
# kernel's own uapi headers, at -O0 as kselftest's lib.mk builds them: at
# -O2 GCC deletes test_memcontrol's alloc_anon() (it only touches memory it
# frees), and its memory.min/low/max and OOM tests then test nothing.
tests: kernel
	@mkdir -p $(BIN)
	@for t in $(SELFTESTS); do \
		gcc -static -O0 -g -Wall -pthread \
			-isystem $(OBJ)/usr/include -I$(STDIR) \
			-o $(BIN)/$$t.tmp $(STDIR)/cgroup/$$t.c $(STDIR)/cgroup/cgroup_util.c \
			|| exit 1; \
		mv $(BIN)/$$t.tmp $(BIN)/$$t; \
	done
	@for s in $(SELFSH); do install -m 0755 $(STDIR)/cgroup/$$s $(BIN)/$$s; done
	@install -m 0755 $(TOP)/vm/toss-demo $(TOP)/vm/run-tests $(TOP)/vm/toss-stress $(BIN)/

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
vm-run: kernel initramfs
	@$(VMRUN) -k $(KERNEL) $(if $(VMFILES),-f $(VMFILES)) $(if $(KEEP_DISK),-d $(KEEP_DISK)) -- "$$VMRUN_CMD"

vm-run-baseline: kernel-baseline initramfs
	@$(VMRUN) -k $(BKERNEL) $(if $(VMFILES),-f $(VMFILES)) $(if $(KEEP_DISK),-d $(KEEP_DISK)) -- "$$VMRUN_CMD"

# Benchmarks: the non-debug kernel on four 2 GiB nodes, every method on the
# same data in one boot; results in bench/results.  BENCH_QUICK=1 for a
# short run on every change to the toss path.
bench: PKGS += gnuplot-nox
bench: deps kernel-bench initramfs
	@$(TOP)/scripts/bench.sh $(XKERNEL) $(INITRAMFS) \
		$(if $(BENCH_QUICK),$(BUILD)/bench-quick,$(TOP)/bench/results)

check: deps kernel kernel-baseline initramfs tools-img
	@$(TOP)/scripts/check.sh all

check-toss: deps kernel initramfs tools-img
	@$(TOP)/scripts/check.sh toss

check-upstream: deps kernel kernel-baseline initramfs
	@$(TOP)/scripts/check.sh upstream

# The objects of the series compiled under each config variant, one option
# off in each (scripts/check-configs.sh lists them); no VM.
check-configs: tree
	@$(TOP)/scripts/check-configs.sh $(CONFIGS)

patches: base
	@$(TOP)/scripts/export-patches.sh $(BUILD)/patches

checkpatch: patches
	@$(TOP)/scripts/checkpatch.sh $(BUILD)/patches

# checkpatch --strict on the series, and a W=1 build of every file we touch.
W1_OBJS := mm/toss_cache.o mm/filemap.o mm/shrinker.o fs/super.o kernel/cgroup/cpuset-toss.o kernel/cgroup/cpuset.o \
	kernel/cgroup/cpuset-v1.o
lint: checkpatch kernel
	@out=$$($(MAKE) -s -C $(SRC) O=$(OBJ) CC="$$(command -v ccache >/dev/null && echo ccache) gcc" \
		W=1 $(W1_OBJS) 2>&1); echo "$$out"; \
	if [ -n "$$out" ]; then echo "lint: W=1 build printed warnings"; exit 1; fi; \
	echo "lint: W=1 clean: $(W1_OBJS)"

clean:
	rm -rf $(BUILD)/bin $(BUILD)/initramfs.cpio.gz $(BUILD)/*.log $(BUILD)/patches \
		$(BUILD)/results $(OBJ) $(BOBJ) $(XOBJ)

distclean:
	rm -rf $(BUILD)
