# SPDX-License-Identifier: GPL-2.0
# Read by scripts/count-objs.sh after scripts/Makefile.build: what kbuild
# would build in $(obj) under the configuration, without building it.
# One line per directory: D <dir> <modules> <objects>, then S <subdir>.
__print:
	@echo "D $(obj) $(words $(filter %.o,$(obj-m))) $(words $(sort $(filter %.o,$(real-obj-y) $(real-obj-m) $(lib-y))))"
	@$(foreach d,$(subdir-ym),echo "S $(d)";)
