#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kbuild.sh <src> <obj> <fragment>...
#
# Configure (tinyconfig + our fragments + olddefconfig) and build bzImage out
# of tree with ccache.  The config is regenerated only when a fragment or the
# source tree's Kconfig files change; a symbol a fragment asks for that does
# not end up in .config stops the build.  CONFIG_ONLY=1: configure, build
# nothing (check-series.sh builds single objects in the directory).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=$(realpath -m "$1") obj=$2
shift 2
JOBS=${JOBS:-$(nproc)}
mkdir -p "$obj"
obj=$(cd "$obj" && pwd)
. "$here/scripts/kenv.sh"
mk() { kmake "$src" "$obj" "$@"; }

stamp=$obj/.fragments
# Reconfigure when a fragment or any Kconfig file of the tree changes.
want=$( (cat "$@"; echo "RUSTC=none"; git -C "$src" ls-tree -r HEAD 2>/dev/null | grep 'Kconfig') | sha256sum | cut -c1-16)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	echo "kbuild: configuring $obj"
	mk tinyconfig >/dev/null
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "$@" >/dev/null
	mk olddefconfig >/dev/null
	bad=0
	for f in "$@"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) sym=${line%%=*}; val=${line#*=}
				if ! grep -qx "$sym=$val" "$obj/.config"; then
					echo "kbuild: $f asks for $sym=$val, .config has: $(grep "^$sym=" "$obj/.config" || echo 'not set')" >&2
					bad=1
				fi ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
				if grep -q "^$sym=" "$obj/.config"; then
					echo "kbuild: $f asks for $sym off, .config has it on" >&2
					bad=1
				fi ;;
			esac
		done < "$f"
	done
	[ $bad = 0 ] || exit 1
	echo "$want" > "$stamp"
fi
[ -z "${CONFIG_ONLY:-}" ] || exit 0
echo "kbuild: building $obj/arch/x86/boot/bzImage"
mk -j"$JOBS" bzImage
img=$obj/arch/x86/boot/bzImage
if [ "$img" -ot "$obj/include/config/auto.conf" ]; then
	echo "kbuild: $img is older than its configuration: rebuilding vmlinux" >&2
	rm -f "$obj/vmlinux" "$img"
	mk -j"$JOBS" bzImage
fi
# The uapi headers the static tests build against.  A stamp written only
# after headers_install succeeded decides whether to skip it, so a failed
# or interrupted install is never taken for a finished one.
hstamp=$obj/.headers-installed
if [ ! -f "$hstamp" ] || [ "$hstamp" -ot "$img" ]; then
	rm -f "$hstamp"
	mk headers_install >/dev/null
	touch "$hstamp"
fi
