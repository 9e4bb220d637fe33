#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# kernel-debs.sh <src> <outdir>: linux-image and linux-headers .debs of the
# patched tree <src>, configured as Debian configures its 6.12 amd64 kernel.
#
#   .config = Debian's config (scripts/debian-config.sh), merged with
#             configs/debian.config (what the series needs) and, with
#             KERNEL_DEBS_TRIM=1, configs/debian-trim.config (no debug info,
#             the largest driver trees off); then olddefconfig.  Every line
#             of those fragments must hold afterwards, or the build stops.
#   build   = `make bindeb-pkg` out of tree in <outdir>/<flavour>/obj, with
#             ccache (scripts/kenv.sh); the .debs land in <outdir>/<flavour>/.
#
# <flavour> is "debian" or, with KERNEL_DEBS_TRIM=1, "trim".  The kernel
# release is <version>$LOCALVERSION (default -toss1, -toss1-trim with TRIM),
# the package version $KDEB_PKGVERSION (default: BASE's version +toss1).
# The difference between the resulting .config and Debian's is written to
# <flavour>/config-vs-debian.diff, the build's output to <flavour>/build.log.
# Reconfigures only when Debian's config, a fragment or a Kconfig file of the
# tree changes; otherwise the build is incremental.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/BASE"
src=$(realpath -m "$1") out=$(realpath -m "$2")
JOBS=${JOBS:-$(nproc)}
trim=${KERNEL_DEBS_TRIM:-}
[ "$trim" = 0 ] && trim=
if [ -n "$trim" ]; then
	flavour=trim lv_default=-toss1-trim
	frags=("$here/configs/debian.config" "$here/configs/debian-trim.config")
else
	flavour=debian lv_default=-toss1
	frags=("$here/configs/debian.config")
fi
LOCALVERSION=${LOCALVERSION-$lv_default}
if [ -n "${KSRC:-}" ]; then
	kdeb_default=$(make -s -C "$src" kernelversion)-1+toss1
else
	kdeb_default=$BASE_VERSION+toss1
fi
KDEB_PKGVERSION=${KDEB_PKGVERSION:-$kdeb_default}
dir=$out/$flavour obj=$out/$flavour/obj log=$out/$flavour/build.log
mkdir -p "$obj"
. "$here/scripts/kenv.sh"
mk() { make -C "$src" O="$obj" CC="$CC" HOSTCC=gcc RUSTC=/nonexistent/rustc "$@"; }

deb=$dir/debian.config
"$here/scripts/debian-config.sh" "$deb"
stamp=$obj/.fragments
want=$( (cat "$deb" "${frags[@]}"; echo "RUSTC=none"; git -C "$src" ls-tree -r HEAD 2>/dev/null | grep 'Kconfig') |
	sha256sum | cut -c1-16)
if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
	echo "kernel-debs: configuring $obj: Debian's config + ${frags[*]##*/}, olddefconfig"
	rm -f "$stamp"
	cp "$deb" "$obj/.config"
	"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" "${frags[@]}" >/dev/null
	mk -s olddefconfig >/dev/null
	bad=0
	for f in "${frags[@]}"; do
		while read -r line; do
			case "$line" in
			CONFIG_*=*) sym=${line%%=*}; val=${line#*=}
				grep -qx "$sym=$val" "$obj/.config" || {
					echo "kernel-debs: $f asks for $sym=$val, .config has: $(grep "^$sym=" "$obj/.config" || echo 'not set')" >&2
					bad=1; } ;;
			"# CONFIG_"*" is not set") sym=${line#\# }; sym=${sym%% *}
				! grep -q "^$sym=" "$obj/.config" || {
					echo "kernel-debs: $f asks for $sym off, .config has it on" >&2
					bad=1; } ;;
			esac
		done < "$f"
	done
	[ $bad = 0 ] || exit 1
	echo "$want" > "$stamp"
fi
# What differs from Debian's config, symbol by symbol (n = not set).
tab=$(printf '\t')
norm() { sed -nE 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)/\1\t\2/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1\tn/p' "$1" | sort -t "$tab" -k1,1; }
join -t "$tab" -a1 -a2 -e n -o 0,1.2,2.2 <(norm "$deb") <(norm "$obj/.config") |
	awk -F '\t' '$2 != $3 { print $1 ": debian " $2 ", here " $3 }' > "$dir/config-vs-debian.diff"
echo "kernel-debs: $(wc -l < "$dir/config-vs-debian.diff") symbols differ from Debian's config ($dir/config-vs-debian.diff);" \
	"$(grep -c '=m$' "$deb") =m in Debian's, $(grep -c '=m$' "$obj/.config") here"

rm -f "$dir"/*.deb "$dir"/*.buildinfo "$dir"/*.changes
echo "kernel-debs: make bindeb-pkg in $obj (LOCALVERSION=$LOCALVERSION KDEB_PKGVERSION=$KDEB_PKGVERSION, -j$JOBS), log $log"
t0=$(date +%s)
echo "== $(date -u +%FT%TZ) make -j$JOBS bindeb-pkg LOCALVERSION=$LOCALVERSION KDEB_PKGVERSION=$KDEB_PKGVERSION" > "$log"
rc=0
mk -j"$JOBS" KBUILD_VERBOSE=0 LOCALVERSION="$LOCALVERSION" KDEB_PKGVERSION="$KDEB_PKGVERSION" \
	bindeb-pkg >> "$log" 2>&1 || rc=$?
t=$(( $(date +%s) - t0 ))
echo "== $(date -u +%FT%TZ) status $rc after ${t} s" >> "$log"
if [ $rc != 0 ]; then
	grep -E 'error:|Error [0-9]' "$log" | head -20 >&2
	echo "kernel-debs: make bindeb-pkg failed after ${t} s (status $rc, log $log)" >&2
	exit 1
fi
echo "kernel-debs: built in $((t / 60))m$((t % 60))s: $(wc -l < "$obj/modules.order" 2>/dev/null || echo 0) modules (modules.order)"
for f in "$dir"/*.deb; do
	echo "  $(basename "$f") $(du -k "$f" | cut -f1) KiB"
done
