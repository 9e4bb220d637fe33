#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-configs.sh [variant...]: compile the objects our series touches
# under variants of the lean debug config, one option turned off in each.
#
# The objects are derived from the series: every kernel .c file a patch of
# patches/series changes ("+++ b/" lines) and every new .c file patches/new-
# files lists with it (tools/ and Documentation/ are not kernel objects).
# Each object is built as a single kbuild target ("make mm/filemap.o"): no
# vmlinux, no link.  Kbuild compiles a single .o target whether or not the
# config builds it, so an object whose Makefile rule "obj-$(CONFIG_X)" has
# CONFIG_X off in the variant is skipped here (and logged as such), and an
# object whose rule this script cannot read fails the variant.
#
# Each variant: its own out-of-tree obj dir build/configs/<variant>,
# configured as kbuild.sh does (tinyconfig, merge_config.sh -m of
# configs/lean.config, configs/debug.config and the variant's fragment,
# olddefconfig), reconfigured only when a fragment or a Kconfig file of the
# tree changes.  After olddefconfig every line of the variant's fragment
# must hold in .config, or the variant fails: a variant that did not really
# turn its option off would check nothing.
#
# Prints "pass|fail check-configs/<variant>" per variant (the format
# check.sh counts), the warnings our build printed, and a total; also
# writes build/results/check-configs.results.  Logs:
# build/results/check-configs-<variant>.log.  Exits non-zero on a failure.
#
# The "debian" variant starts from Debian's own 6.12 config instead
# (linux-config-6.12's config.amd64_none_amd64, scripts/debian-config.sh),
# merges configs/debian.config (what the series needs: CPUSETS, NUMA, MEMCG)
# and turns DEBUG_INFO_BTF off (pahole, which Kconfig asks whether it has,
# is a link-time tool; without this line the variant's config would depend
# on whether pahole is installed), then olddefconfig.  Its log lists every
# symbol that differs from Debian's config.  It compiles with W=1 and fails
# on any warning.
#
# The "kasan-maxsmp" variant turns options on instead: KASAN (inline, as
# the soak kernel has it), MAXSMP (8192 CPUs, NODES_SHIFT=10: cpumasks off
# the stack, 128-byte nodemasks on it) and FRAME_WARN=1024, the worst case
# for stack frames the kernel test robot builds.  It fails on any warning:
# a function of ours whose frame grows past 1024 bytes fails it.
#
# CHECK_CONFIGS_DIRS=1: build the whole directories whose Makefile the
# series changes (mm/, kernel/cgroup/) instead of single objects there
# (the other objects, fs/super.o, stay single): slower, also compiles every
# other user of mm/internal.h and the headers we change.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$here/build}
src=$(realpath -m "${SRC:-$BUILD/debug/src}")
res=$BUILD/results
JOBS=${JOBS:-$(nproc)}
DIRS=${CHECK_CONFIGS_DIRS:-}
base_frags=("$here/configs/lean.config" "$here/configs/debug.config")

# name|fragment lines separated by ';'.  TRACEPOINTS has no prompt: it is
# selected by TRACING, which FTRACE's tracers select and which the debug
# config's PROVE_LOCKING selects too (PROVE_LOCKING -> TRACE_IRQFLAGS ->
# PREEMPTIRQ_TRACEPOINTS, default y, no prompt -> TRACING).  So that
# variant turns FTRACE and PROVE_LOCKING off as well.
all_variants=(
	"no-memcg|# CONFIG_MEMCG is not set"
	"no-numa|# CONFIG_NUMA is not set"
	"no-cpusets-v1|# CONFIG_CPUSETS_V1 is not set"
	"no-memory-hotplug|# CONFIG_MEMORY_HOTPLUG is not set"
	"no-thp|# CONFIG_TRANSPARENT_HUGEPAGE is not set"
	"no-lru-gen|# CONFIG_LRU_GEN is not set"
	"no-tracepoints|# CONFIG_FTRACE is not set;# CONFIG_PROVE_LOCKING is not set;# CONFIG_TRACEPOINTS is not set"
	"no-swap|# CONFIG_SWAP is not set"
	"no-cpusets|# CONFIG_CPUSETS is not set"
	"debian|# CONFIG_DEBUG_INFO_BTF is not set"
	"kasan-maxsmp|# CONFIG_SLUB_TINY is not set;CONFIG_KASAN=y;CONFIG_KASAN_GENERIC=y;CONFIG_KASAN_INLINE=y;CONFIG_MAXSMP=y;CONFIG_NODES_SHIFT=10;CONFIG_FRAME_WARN=1024"
)

[ -f "$src/Makefile" ] || { echo "check-configs: no kernel tree in $src: run make tree" >&2; exit 1; }
mkdir -p "$res"

. "$here/scripts/kenv.sh"

# The files of the series: "+++ b/" lines of each patch, and its new files.
series_files() {
	local p
	while read -r p _; do
		case "$p" in ''|'#'*) continue ;; esac
		grep '^+++ b/' "$here/patches/$p" | cut -c7-
		awk -v p="$p" '$1 == p { for (i = 2; i <= NF; i++) print $i }' "$here/patches/new-files"
	done < "$here/patches/series" | grep -vE '^(tools|Documentation)/' | sort -u
}
files=$(series_files)
objs=$(grep '\.c$' <<< "$files" | sed 's/\.c$/.o/')
headers=$(grep '\.h$' <<< "$files")
makefiles=$(grep '/Makefile$' <<< "$files")
[ -n "$objs" ] || { echo "check-configs: found no .c file in the series" >&2; exit 1; }

# rule <obj>: what governs <obj> in its directory's Makefile: "y" (obj-y),
# a CONFIG_ symbol (obj-$(CONFIG_X)), or "?" (a rule this script cannot read).
rule() {
	local d=${1%/*} o=${1##*/} lhs l out=
	lhs=$(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$src/$d/Makefile" |
		grep -E "^[[:space:]]*[A-Za-z0-9_\$()-]+[[:space:]]*[:+]?=(.*[[:space:]])?${o//./\\.}([[:space:]]|$)" |
		sed -E 's/[[:space:]]*[:+]?=.*//; s/^[[:space:]]*//')
	[ -n "$lhs" ] || { echo "?"; return; }
	for l in $lhs; do
		case "$l" in
		obj-y) out="$out y" ;;
		'obj-$(CONFIG_'*')') l=${l#obj-\$(}; out="$out ${l%)}" ;;
		*) out="$out ?" ;;
		esac
	done
	echo $out
}

cfg() { grep -E "^$1=" "$2" | cut -d= -f2- || true; }	# cfg <SYM> <.config>: its value, empty if off
# kv <.config>: "SYM<tab>value" sorted by symbol, "n" for "is not set".
kv() {
	sed -nE 's/^(CONFIG_[A-Za-z0-9_]+)=(.*)/\1\t\2/p; s/^# (CONFIG_[A-Za-z0-9_]+) is not set/\1\tn/p' "$1" | sort -t "$(printf '\t')" -k1,1
}

# one <name> <fragment-lines>: configure, verify and build one variant.
# Prints the result line; details go to the log.
one() {
	local name=$1 lines=$2 obj=$BUILD/configs/$1 log=$res/check-configs-$1.log
	local frag want stamp bad=0 t0=$SECONDS line sym val got o r targets=() skipped=() built=()
	local frags=("${base_frags[@]}") debcfg= wflags=() strict=
	[ "$name" = kasan-maxsmp ] && strict=1
	mk() { kmake "$src" "$obj" "$@"; }
	mkdir -p "$obj"
	: > "$log"
	frag=$obj/variant.config
	if [ "$name" = debian ]; then
		# Debian's config as the base; the variant's lines are what the
		# series needs (configs/debian.config) and the line above.
		debcfg=$obj/debian.config frags=() wflags=(W=1) strict=1
		if ! "$here/scripts/debian-config.sh" "$debcfg" 2>>"$log"; then
			echo "check-configs: $name: no Debian config (see $log)" >&2
			echo "fail check-configs/$name"
			return
		fi
		lines="$(grep -E '^(CONFIG_|# CONFIG_)' "$here/configs/debian.config" | paste -sd';');$lines"
	fi
	tr ';' '\n' <<< "$lines" > "$frag.new"
	cmp -s "$frag.new" "$frag" && rm "$frag.new" || mv "$frag.new" "$frag"
	{
		echo "== check-configs/$name in $obj ($(date -u +%FT%TZ))"
		echo "== variant fragment:"; sed 's/^/   /' "$frag"
	} >> "$log"

	stamp=$obj/.fragments
	want=$( (cat ${debcfg:+"$debcfg"} "${frags[@]}" "$frag"; echo "RUSTC=none"; git -C "$src" ls-tree -r HEAD 2>/dev/null | grep 'Kconfig') |
		sha256sum | cut -c1-16)
	if [ ! -f "$obj/.config" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
		if [ -n "$debcfg" ]; then
			echo "== configuring: Debian's config + variant, olddefconfig" >> "$log"
		else
			echo "== configuring: tinyconfig + lean + debug + variant, olddefconfig" >> "$log"
		fi
		rm -f "$stamp"
		# (merge_config.sh's notes on lean.config overriding tinyconfig
		# are left out of the log; those on the variant's lines are kept.)
		if ! { if [ -n "$debcfg" ]; then cp "$debcfg" "$obj/.config"; else mk tinyconfig; fi &&
			"$src/scripts/kconfig/merge_config.sh" -m -O "$obj" "$obj/.config" \
				"${frags[@]}" "$frag" &&
			mk olddefconfig; } 2>&1 | awk '
			/^Value of .* is redefined by fragment / { skip = /variant\.config/ ? 0 : 3 }
			skip > 0 { skip--; next } { print }' >> "$log"; then
			echo "check-configs: $name: configuring failed (see $log)" >&2
			echo "fail check-configs/$name"
			return
		fi
		touch "$obj/.configured-now"
	else
		echo "== configuration up to date (stamp $want)" >> "$log"
	fi
	# The variant's own lines must hold after olddefconfig.
	echo "== verified after olddefconfig:" >> "$log"
	while read -r line; do
		case "$line" in
		CONFIG_*=*) sym=${line%%=*} val=${line#*=} got=$(cfg "$sym" "$obj/.config")
			if [ "$got" = "$val" ]; then
				echo "   $sym=$got (asked $val)" >> "$log"
			else
				echo "check-configs: $name asks for $sym=$val, olddefconfig left: ${got:-not set}" | tee -a "$log" >&2
				bad=1
			fi ;;
		"# CONFIG_"*" is not set") sym=${line#\# } sym=${sym%% *} got=$(cfg "$sym" "$obj/.config")
			if [ -z "$got" ]; then
				echo "   $sym is not set (asked off)" >> "$log"
			else
				echo "check-configs: $name asks for $sym off, olddefconfig left: $sym=$got" | tee -a "$log" >&2
				bad=1
			fi ;;
		esac
	done < "$frag"
	if [ $bad != 0 ]; then
		rm -f "$stamp"
		echo "fail check-configs/$name"
		return
	fi
	[ -f "$obj/.configured-now" ] && { echo "$want" > "$stamp"; rm -f "$obj/.configured-now"; }
	if [ -n "$debcfg" ]; then
		# Every symbol that differs from Debian's config (n: not set).
		echo "== symbols that differ from Debian's config:" >> "$log"
		join -t "$(printf '\t')" -a1 -a2 -e n -o 0,1.2,2.2 <(kv "$debcfg") <(kv "$obj/.config") |
			awk -F '\t' '$2 != $3 { print "   " $1 ": debian " $2 ", here " $3 }' >> "$log"
	else
	# What else the variant changed among the symbols lean/debug ask for.
	echo "== symbols of lean.config/debug.config that differ in this variant:" >> "$log"
	cat "${base_frags[@]}" | sed -nE 's/^(CONFIG_[A-Z0-9_]+)=(.*)/\1 \2/p; s/^# (CONFIG_[A-Z0-9_]+) is not set/\1 n/p' |
	while read -r sym val; do
		got=$(cfg "$sym" "$obj/.config")
		[ "$val" = n ] && [ -z "$got" ] && continue
		[ "$got" = "$val" ] || echo "   $sym: asked $val, now ${got:-not set}"
	done >> "$log"
	fi

	# The objects this variant builds.
	echo "== objects:" >> "$log"
	for o in $objs; do
		r=$(rule "$o")
		case " $r " in
		*" ? "*) echo "check-configs: $name: cannot tell which config builds $o (its Makefile rule: '$r')" | tee -a "$log" >&2
			bad=1; continue ;;
		esac
		local on=
		for sym in $r; do
			[ "$sym" = y ] || [ -n "$(cfg "$sym" "$obj/.config")" ] && on=1
		done
		if [ -n "$on" ]; then
			built+=("$o"); echo "   build $o ($r)" >> "$log"
		else
			skipped+=("$o"); echo "   skip  $o ($r off)" >> "$log"
		fi
	done
	if [ $bad != 0 ]; then echo "fail check-configs/$name"; return; fi
	targets=("${built[@]}")
	if [ -n "$DIRS" ]; then
		# Whole directories whose Makefile the series changes.
		local d dirs=() rest=()
		for d in $makefiles; do dirs+=("${d%/Makefile}/"); done
		for o in "${built[@]}"; do
			case " ${dirs[*]} " in *" ${o%/*}/ "*) ;; *) rest+=("$o") ;; esac
		done
		targets=("${dirs[@]}" "${rest[@]}")
	fi
	echo "== make -k -j$JOBS ${wflags[*]} ${targets[*]}" >> "$log"
	local out rc
	out=$(mk -k -j"$JOBS" "${wflags[@]}" "${targets[@]}" 2>&1); rc=$?
	echo "$out" >> "$log"
	# The warnings: all of them with single objects (they all come from
	# compiling our files), those in our files with whole directories.
	local pat='.*'
	[ -z "$DIRS" ] ||
		pat=$( (for o in "${built[@]}"; do echo "${o%.o}.c"; done; echo "$headers") |
			sed 's/[.]/[.]/g' | paste -sd'|')
	local warns
	# (Not those of the kernel's own host tools under scripts/, which W=1
	# makes bison print for genksyms: they stay in the log.)
	warns=$(grep -E "warning:" <<< "$out" | grep -E "(^|/)($pat):" | grep -vE "^$src/scripts/" |
		sed "s/^/check-configs: $name: /")
	[ -z "$warns" ] || echo "$warns"
	# The debian variant (W=1) and kasan-maxsmp must be clean.
	if [ -n "$strict" ] && [ -n "$warns" ] && [ $rc = 0 ]; then
		echo "== ${wflags[*]:-the build} printed $(wc -l <<< "$warns") warning(s)" >> "$log"
		rc=1
	fi
	# Which changed headers this variant compiled (from the objects' .cmd files).
	local h cmds=()
	for o in "${built[@]}"; do cmds+=("$obj/${o%/*}/.${o##*/}.cmd"); done
	echo "== changed headers compiled by the objects above:" >> "$log"
	for h in $headers; do
		if grep -qsF "/$h" "${cmds[@]}" /dev/null; then
			echo "   yes $h" >> "$log"
		else
			echo "   no  $h" >> "$log"
		fi
	done
	echo "== $((SECONDS - t0)) s, make status $rc" >> "$log"
	if [ $rc != 0 ]; then
		grep -E "error:|Error [0-9]|No rule to make target" <<< "$out" | head -20 | sed "s/^/check-configs: $name: /" >&2
		echo "fail check-configs/$name"
	else
		echo "pass check-configs/$name"
	fi
}

want_variants=("$@")
t0=$SECONDS
pass=0 fail=0
: > "$res/check-configs.results"
for v in "${all_variants[@]}"; do
	name=${v%%|*}
	if [ ${#want_variants[@]} -gt 0 ]; then
		case " ${want_variants[*]} " in *" $name "*) ;; *) continue ;; esac
	fi
	line=$(one "$name" "${v#*|}")
	echo "$line"
	echo "$line" | grep -E '^(pass|fail|skip) ' >> "$res/check-configs.results"
done
for n in "${want_variants[@]}"; do
	case " ${all_variants[*]%%|*} " in *" $n "*) ;; *)
		echo "fail check-configs/$n(unknown-variant)" | tee -a "$res/check-configs.results" ;;
	esac
done
pass=$(grep -c '^pass ' "$res/check-configs.results")
fail=$(grep -c '^fail ' "$res/check-configs.results")
echo "check-configs: $pass passed, $fail failed in $((SECONDS - t0)) s (objects: $(echo $objs))"
[ "$fail" = 0 ]
