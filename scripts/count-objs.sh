#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# count-objs.sh <src> <obj>: how many modules (.ko) and objects (.o compiled
# from a .c or .S, modules' parts and lib.a included; host programs and the
# .mod.o of each module not) the configuration in <obj> builds, without
# building: kbuild's own Makefile.build reads each directory's Makefile under
# include/config/auto.conf (made by syncconfig here) and prints its lists
# (scripts/print-objs.mk), from the top Kbuild down the subdirectories it
# descends into.  Prints "<modules> modules, <objects> objects"; the
# per-directory lines and the modules' names go to <obj>/count-objs.txt.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
if [ "${1:-}" = --walk ]; then
	# Inside the kernel's run-command: srctree, CC and the rest exported.
	cd "$objtree"
	queue=(.) n=0
	: > count-objs.txt
	while [ $n -lt ${#queue[@]} ]; do
		d=${queue[$n]}; n=$((n + 1))
		out=$(make -s --no-print-directory -f "$srctree/scripts/Makefile.build" \
			-f "$here/scripts/print-objs.mk" obj="$d" __print 2>/dev/null) || {
			echo "count-objs: cannot read $d" >&2; exit 1; }
		grep -E '^[DM] ' <<< "$out" >> count-objs.txt
		while read -r _ s; do queue+=("$s"); done < <(grep '^S ' <<< "$out" || true)
	done
	awk '$1 == "D" { o += $4 } $1 == "M" { m++ } END { print m " modules, " o " objects" }' count-objs.txt
	exit 0
fi
src=$(realpath -m "$1") obj=$(realpath -m "$2")
[ -f "$obj/.config" ] || { echo "count-objs: no .config in $obj" >&2; exit 1; }
. "$here/scripts/kenv.sh"
[ "$obj/include/config/auto.conf" -nt "$obj/.config" ] ||
	kmake "$src" "$obj" syncconfig >/dev/null
kmake "$src" "$obj" run-command KBUILD_RUN_COMMAND="$here/scripts/count-objs.sh --walk"
