# SPDX-License-Identifier: GPL-2.0
# Read by scripts/count-objs.sh after scripts/Makefile.build: what kbuild
# would build in $(obj) under the configuration, without building it.
# One line per directory, D <dir> <modules> <objects> (each counted once:
# a Makefile may name a helper module or object under several options),
# then S <subdir> for each subdirectory kbuild descends into, and
# M <module> for each module.
__print:
	@echo "D $(obj) $(words $(sort $(filter %.o,$(obj-m)))) $(words $(sort $(filter %.o,$(real-obj-y) $(real-obj-m) $(lib-y))))"
	@$(foreach d,$(subdir-ym),echo "S $(d)";)
	@$(foreach m,$(sort $(filter %.o,$(obj-m))),echo "M $(m:.o=.ko)";)
