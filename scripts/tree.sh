#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tree.sh <src-dir> <base|patched>
#
# Bring <src-dir>, a shared clone of the pristine base, to the wanted state:
#   base     the base kernel as it is,
#   patched  the base + patches/series (zero fuzz) + our new files.
# The wanted tree is built in a temporary index without touching the work
# tree, committed, then checked out: git rewrites only the files that differ,
# so an incremental kernel build recompiles only what really changed.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=$(realpath -m "$1") variant=$2
base=$("$here/scripts/base.sh")

if [ ! -d "$src/.git" ]; then
	rm -rf "$src"
	mkdir -p "$(dirname "$src")"
	git clone -q --shared --no-checkout "$base" "$src"
	git -C "$src" config user.name "memory-toss build"
	git -C "$src" config user.email "build@localhost"
	git -C "$src" config gc.auto 0
	git -C "$src" checkout -q --detach refs/tags/base
fi
cd "$src"
# The base repository may have been re-imported (KSRC refresh): follow it.
git fetch -q -f "$base" "refs/tags/base:refs/tags/base" 2>/dev/null || true

if [ "$variant" = base ]; then
	target=$(git rev-parse refs/tags/base)
else
	export GIT_INDEX_FILE=$src/.git/index.stage
	rm -f "$GIT_INDEX_FILE"
	git read-tree refs/tags/base
	listed=()
	while read -r p _; do
		case "$p" in ''|'#'*) continue ;; esac
		files=$(awk -v p="$p" '$1 == p { $1 = ""; print }' "$here/patches/new-files")
		f=$here/patches/$p
		[ -f "$f" ] || { echo "tree: patches/series lists $p, which is missing" >&2; exit 1; }
		if ! git apply --cached --check "$f" 2>"$src/.git/apply.err"; then
			echo "tree: patch $p does not apply to the base (zero fuzz):" >&2
			sed 's/^/  /' "$src/.git/apply.err" >&2
			echo "tree: files it touches: $(grep '^+++ b/' "$f" | cut -c7- | tr '\n' ' ')" >&2
			exit 1
		fi
		git apply --cached "$f"
		# The new files that belong to the same upstream commit.
		for n in $files; do
			[ -f "$here/$n" ] || { echo "tree: patches/new-files names $n, which is missing" >&2; exit 1; }
			if git cat-file -e "refs/tags/base:$n" 2>/dev/null; then
				echo "tree: $n exists upstream: change it with a patch, not a copy" >&2
				exit 1
			fi
			blob=$(git hash-object -w "$here/$n")
			git update-index --add --cacheinfo "100644,$blob,$n"
			listed+=("$n")
		done
	done < "$here/patches/series"
	# Every kernel file kept in this repository must be named in the series.
	# The repository's own notes are in docs/, not under Documentation/
	# (Documentation/integrations/ was theirs, and is still skipped).
	for d in kernel mm include Documentation tools; do
		[ -d "$here/$d" ] || continue
		for n in $(cd "$here" && find "$d" -type f -not -path 'Documentation/integrations/*' | sort); do
			case " ${listed[*]} " in *" $n "*) ;; *)
				echo "tree: $n is not named in patches/new-files" >&2; exit 1 ;;
			esac
		done
	done
	tree=$(git write-tree)
	# A fixed date: the same tree always gives the same commit.
	target=$(GIT_AUTHOR_DATE="2024-11-17T00:00:00Z" GIT_COMMITTER_DATE="2024-11-17T00:00:00Z" \
		git commit-tree -p refs/tags/base -m "patched" "$tree")
	rm -f "$GIT_INDEX_FILE"
	unset GIT_INDEX_FILE
fi
if [ "$(git rev-parse HEAD)" != "$target" ]; then
	git checkout -q --detach "$target"
fi
git rev-parse HEAD
