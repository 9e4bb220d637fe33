#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-series.sh            (make check-series)
# check-series.sh --base     (make check-base KSRC=/path/to/other/6.12.y)
#
# Apply patches/series to a kernel tree one patch at a time, with the new
# files patches/new-files names for each, and after every patch compile
# the kernel objects of the series so far: every .c file a patch up to
# this one changes ("+++ b/" lines) and every new .c file, as single
# kbuild targets with W=1 (no vmlinux, no link: a change of mmzone.h would
# rebuild the whole kernel at every step).  The objects of the earlier
# patches are compiled again only when what they include changed, so a
# header change that breaks an earlier patch's file is seen too.
#
# A warning fails the patch unless the tree before the series printed the
# same one for the same file ("step 0": the series' upstream .c files
# compiled on the unpatched tree; warnings are compared without their line
# numbers).  The series' objects go through sparse (C=2, W=1) on the
# unpatched tree and after the last patch ("check-series/sparse"), with
# the same rule: a sparse report the unpatched tree does not have fails
# (skipped, and said, when sparse is not installed).  A changed or new header that no compiled
# object includes yet is named ("not compiled yet"): the tracepoint header
# of the vmstat patch is first compiled by the engine's patch.
#
# Default (series): the tree is the base this repository is kept against
# (the pinned linux-source-6.12, or KSRC=); every patch must apply with
# zero fuzz, as scripts/tree.sh applies it; then the series is exported
# (scripts/export-patches.sh) and scripts/checkpatch.sh runs
# checkpatch.pl --strict on every patch.  Directory: build/series/{src,obj}.
#
# --base: the tree is KSRC (imported by scripts/base.sh); for each patch
# it says whether it applies with zero fuzz (offsets listed), with fuzz
# (GNU patch -F2: the hunks and their fuzz), or fails (the hunks), and
# builds the objects after each patch that applied.  A patch applied with
# fuzz is applied so, and the check goes on; a patch that fails is left
# out, and the rest are still applied and built without it (said so):
# dropping the v1 patch, say, is such a tree.  Directory: build/check-base/<key>/{src,obj}.
#
# Config: the test kernel's (tinyconfig + configs/lean.config,
# debug.config, test.config, userspace.config), by scripts/kbuild.sh.
# Prints "pass|fail check-series/<patch>" (or check-base/) per patch and a
# total; writes build/results/check-series.results (check-base.results)
# and logs build/results/check-series-<n>.log.  Exits non-zero on any
# failure.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$here/build}
JOBS=${JOBS:-$(nproc)}
res=$BUILD/results
mode=series
[ "${1:-}" = --base ] && mode=base
if [ $mode = base ] && [ -z "${KSRC:-}" ]; then
	echo "check-base: set KSRC=/path/to/a/linux-6.12.y tree" >&2
	exit 2
fi
frags=("$here/configs/lean.config" "$here/configs/debug.config"
	"$here/configs/test.config" "$here/configs/userspace.config")
base=$("$here/scripts/base.sh") || exit 1
if [ $mode = series ]; then
	dir=$BUILD/series name=check-series
else
	dir=$BUILD/check-base/$(basename "$base") name=check-base
fi
src=$dir/src obj=$dir/obj
mkdir -p "$res" "$obj"
. "$here/scripts/kenv.sh"
mk() { kmake "$src" "$obj" "$@"; }
t0=$SECONDS

# The tree: a shared clone of the base, reset to it (only the files that
# differ are rewritten, so the objects stay up to date where they can).
if [ ! -d "$src/.git" ]; then
	rm -rf "$src"
	git clone -q --shared --no-checkout "$base" "$src"
	git -C "$src" config gc.auto 0
fi
git -C "$src" fetch -q -f "$base" "refs/tags/base:refs/tags/base" 2>/dev/null || true
git -C "$src" checkout -q -f --detach refs/tags/base || exit 1
git -C "$src" clean -q -fdx

CONFIG_ONLY=1 "$here/scripts/kbuild.sh" "$src" "$obj" "${frags[@]}" >/dev/null || {
	echo "$name: configuring $obj failed" >&2; exit 1; }

patches=()
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	patches+=("$p")
done < "$here/patches/series"
newfiles() { awk -v p="$1" '$1 == p { for (i = 2; i <= NF; i++) print $i }' "$here/patches/new-files"; }
# The kernel files of one patch (changed and new), tools/ and Documentation/ left out.
pfiles() {
	{ grep '^+++ b/' "$here/patches/$1" | cut -c7-; newfiles "$1"; } |
		grep -vE '^(tools|Documentation)/' | sort -u
}
# Warnings and sparse reports, without line and column: "file: warning: text".
norm() { sed -nE 's/^([^: ]+):[0-9]+:([0-9]+:)? (warning|error): (.*)/\1: \3: \4/p' | sort -u; }
cfg() { grep -E "^$1=" "$obj/.config" | cut -d= -f2- || true; }
# on <obj>: does the config build it (obj-y, or obj-$(CONFIG_X) with X set)?
on() {
	local d=${1%/*} o=${1##*/} l
	for l in $(sed -e ':a' -e '/\\$/N; s/\\\n/ /; ta' "$src/$d/Makefile" |
		grep -E "^[[:space:]]*obj-[A-Za-z0-9_\$()]+[[:space:]]*[:+]?=(.*[[:space:]])?${o//./\\.}([[:space:]]|$)" |
		sed -E 's/[[:space:]]*[:+]?=.*//; s/^[[:space:]]*//'); do
		case "$l" in
		obj-y) return 0 ;;
		'obj-$(CONFIG_'*')') l=${l#obj-\$(}; [ -n "$(cfg "${l%)}")" ] && return 0 ;;
		esac
	done
	return 1
}

# build <log> <sparse:0|1> <obj>...: W=1 (and C=2) build, output on stdout.
build() {
	local log=$1 sp=$2
	shift 2
	[ $# -gt 0 ] || return 0
	if [ "$sp" = 1 ]; then
		mk -k -j"$JOBS" W=1 C=2 CHECK=sparse "$@" 2>&1 | tee -a "$log"
	else
		mk -k -j"$JOBS" W=1 "$@" 2>&1 | tee -a "$log"
	fi
	return "${PIPESTATUS[0]}"
}

have_sparse=
command -v sparse >/dev/null && have_sparse=1

# Step 0: the series' upstream .c files on the unpatched tree.
log0=$res/$name-0.log
: > "$log0"
up=()
for p in "${patches[@]}"; do
	for f in $(grep '^+++ b/' "$here/patches/$p" | cut -c7- | grep '\.c$' | grep -vE '^(tools|Documentation)/'); do
		[ -f "$src/$f" ] && up+=("${f%.c}.o")
	done
done
mapfile -t up < <(printf '%s\n' "${up[@]}" | sort -u)
echo "== $name: step 0, the unpatched tree ($(git -C "$src" log -1 --format=%s refs/tags/base)): ${up[*]}" >> "$log0"
out=$(build "$log0" "${have_sparse:-0}" "${up[@]}")
base_warn=$(norm <<< "$out")
echo "$name: the unpatched tree: $(grep -c . <<< "$base_warn") warning(s) of its own in ${up[*]} (W=1${have_sparse:+, sparse}; see $log0)"

: > "$res/$name.results"
objs=() headers=() failed= n=0
for p in "${patches[@]}"; do
	n=$((n + 1))
	log=$res/$name-$n.log
	: > "$log"
	ts=$SECONDS
	how= bad=
	f=$here/patches/$p
	if (cd "$src" && git apply --check "$f") 2>>"$log"; then
		offs=$(cd "$src" && patch -p1 -F0 --dry-run < "$f" 2>&1 | sed -nE 's/^Hunk #([0-9]+) succeeded at ([0-9]+) \(offset (-?[0-9]+) lines?\)\./#\1 \3/p' | paste -sd, -)
		(cd "$src" && git apply "$f") 2>>"$log" || bad="git apply failed after its check"
		how="applies, zero fuzz${offs:+ (offsets: $offs)}"
	elif [ $mode = base ] && dry=$(cd "$src" && patch -p1 -F2 --dry-run < "$f" 2>&1); then
		fz=$(sed -nE 's/^Hunk #([0-9]+) succeeded at ([0-9]+) with fuzz ([0-9]+).*/#\1 fuzz \3/p' <<< "$dry" | paste -sd, -)
		file=$(sed -nE 's/^(checking|patching) file //p' <<< "$dry" | paste -sd' ' -)
		(cd "$src" && patch -p1 -F2 --no-backup-if-mismatch -s < "$f") >> "$log" 2>&1 || bad="patch -F2 failed after its dry run"
		how="applies WITH FUZZ ($fz; files: $file)"
	else
		dry=$(cd "$src" && patch -p1 -F2 --dry-run < "$f" 2>&1)
		echo "$dry" >> "$log"
		how="FAILS to apply: $(awk '/^(checking|patching) file /{f=$3} /FAILED/{print f " hunk " $2}' <<< "$dry" | paste -sd, -)"
		bad=1
	fi
	for nf in $(newfiles "$p"); do
		[ -z "$bad" ] || break
		if [ -e "$src/$nf" ]; then
			how="$how; $nf already exists in this tree"; bad=1
		else
			mkdir -p "$(dirname "$src/$nf")"
			cp "$here/$nf" "$src/$nf"
		fi
	done
	if [ -n "$bad" ]; then
		echo "$name: $p: $how" | tee -a "$log"
		echo "fail $name/$p" | tee -a "$res/$name.results"
		failed="$failed${failed:+ }${p%%-*}"
		continue
	fi
	[ -z "$failed" ] || how="$how (without the failed $failed)"
	# The objects of the series so far, those the config builds.
	for x in $(pfiles "$p"); do
		case "$x" in
		*.c) objs+=("${x%.c}.o") ;;
		*.h) headers+=("$x") ;;
		esac
	done
	mapfile -t objs < <(printf '%s\n' "${objs[@]}" | sort -u)
	mapfile -t headers < <(printf '%s\n' "${headers[@]}" | sort -u)
	want=() off=()
	for o in "${objs[@]}"; do
		if on "$o"; then want+=("$o"); else off+=("$o"); fi
	done
	sp=0
	echo "== $p: $how; building ${want[*]:-nothing}${off[*]:+ (not in this config: ${off[*]})}" >> "$log"
	out=$(build "$log" $sp "${want[@]}"); rc=$?
	new=$(comm -13 <(echo "$base_warn") <(norm <<< "$out") | grep .)
	# Changed or new headers no compiled object includes yet.
	cmds=()
	for o in "${want[@]}"; do cmds+=("$obj/${o%/*}/.${o##*/}.cmd"); done
	nc=()
	for h in "${headers[@]}"; do
		grep -qsF "/$h" "${cmds[@]}" /dev/null || nc+=("$h")
	done
	msg="$how; compiled ${want[*]:-no kernel object}${off[*]:+ (${off[*]} not in this config)}"
	[ ${#nc[@]} -gt 0 ] && msg="$msg; not compiled yet: ${nc[*]}"
	echo "$name: $p: $msg ($((SECONDS - ts)) s)"
	if [ $rc != 0 ] || [ -n "$new" ]; then
		[ -n "$new" ] && sed "s/^/$name: $p: new: /" <<< "$new"
		[ $rc != 0 ] && grep -E "error:|Error [0-9]|No rule to make target" <<< "$out" | head -20 | sed "s/^/$name: $p: /"
		echo "fail $name/$p" | tee -a "$res/$name.results"
	else
		echo "pass $name/$p" | tee -a "$res/$name.results"
	fi
done
# sparse on the series' objects after the last patch (a report the
# unpatched tree has too is not ours).
if [ -z "$have_sparse" ]; then
	echo "$name: sparse is not installed (make deps): not run"
elif [ ${#want[@]} -gt 0 ]; then
	ts=$SECONDS
	log=$res/$name-sparse.log
	: > "$log"
	out=$(build "$log" 1 "${want[@]}"); rc=$?
	new=$(comm -13 <(echo "$base_warn") <(norm <<< "$out") | grep .)
	if [ $rc = 0 ] && [ -z "$new" ]; then
		echo "pass $name/sparse (C=2 W=1: ${want[*]}; $((SECONDS - ts)) s)" | tee -a "$res/$name.results"
	else
		[ -n "$new" ] && sed "s/^/$name: sparse: new: /" <<< "$new"
		echo "fail $name/sparse" | tee -a "$res/$name.results"
	fi
fi

if [ $mode = series ] && [ -z "$failed" ]; then
	ts=$SECONDS
	if "$here/scripts/export-patches.sh" "$BUILD/patches" > "$res/$name-export.log" 2>&1; then
		out=$("$here/scripts/checkpatch.sh" "$BUILD/patches" 2>&1); rc=$?
		echo "$out" | sed "s/^/$name: /"
		if [ $rc = 0 ]; then r=pass; else r=fail; fi
		echo "$r $name/checkpatch ($((SECONDS - ts)) s)" | tee -a "$res/$name.results"
	else
		sed "s/^/$name: /" "$res/$name-export.log"
		echo "fail $name/export" | tee -a "$res/$name.results"
	fi
fi
pass=$(grep -c '^pass ' "$res/$name.results")
fail=$(grep -c '^fail ' "$res/$name.results")
skip=$(grep -c '^skip ' "$res/$name.results")
echo "$name: $pass passed, $fail failed, $skip skipped in $((SECONDS - t0)) s ($src)"
[ "$fail" = 0 ]
