#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# export-patches.sh <out-dir>
#
# Turn patches/series into an upstream-style series: on a branch from the
# pristine base, each patch is applied with `git am` (zero fuzz) together
# with the new files its series line names, amended into the same commit,
# then the branch is exported with `git format-patch`, numbered, with a
# cover letter, byte-stable (--zero-commit --no-signature).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(realpath -m "$1")
base=$("$here/scripts/base.sh")
work=$(dirname "$out")/export-tree
if [ ! -d "$work/.git" ]; then
	rm -rf "$work"
	git clone -q --shared --no-checkout "$base" "$work"
fi
cd "$work"
# Sign-off: SIGNOFF="Name <email>", else the git identity of this repository.
# Without either (a fresh machine has no git identity), a placeholder that
# checkpatch accepts; set SIGNOFF to sign off with your own.
signoff=${SIGNOFF:-"$(git -C "$here" config user.name || echo "Memory Toss Developer") <$(git -C "$here" config user.email || echo toss-dev@localhost)>"}
git config user.name "${signoff% <*}"
git config user.email "$(echo "${signoff##*<}" | tr -d '>')"
git am --abort >/dev/null 2>&1 || true
git checkout -q -f -B export refs/tags/base
git clean -q -fdx
# Dated like this repository's last commit, so an export is byte-stable.
date=$(git -C "$here" log -1 --format=%aI 2>/dev/null || echo 2024-11-17T00:00:00Z)
while read -r p _; do
	case "$p" in ''|'#'*) continue ;; esac
	files=$(awk -v p="$p" '$1 == p { $1 = ""; print }' "$here/patches/new-files")
	if ! git am -q --whitespace=nowarn "$here/patches/$p"; then
		git am --abort || true
		echo "export: $p does not apply to the base" >&2
		exit 1
	fi
	for n in $files; do
		mkdir -p "$(dirname "$n")"
		cp "$here/$n" "$n"
		git add -f "$n"
	done
	# Authored and signed off by whoever exports the series.
	GIT_AUTHOR_DATE=$date GIT_COMMITTER_DATE=$date \
		git commit -q --amend --no-edit --reset-author -s
done < "$here/patches/series"
rm -rf "$out"
mkdir -p "$out"
n=$(git rev-list --count refs/tags/base..export)
git format-patch -q --zero-commit --no-signature --cover-letter \
	--subject-prefix="PATCH" -o "$out" refs/tags/base..export
# The cover letter: our summary instead of the placeholders.  Lines of
# patches/cover-letter that start with "%%" are notes to whoever keeps
# it (the patch list's markers) and are left out.
cover=$(ls "$out"/0000-*.patch)
python3 - "$cover" "$here/patches/cover-letter" <<'PY'
import sys
cover, text = sys.argv[1], open(sys.argv[2]).read()
text = "".join(l for l in text.splitlines(True) if not l.startswith("%%"))
subject, _, body = text.partition("\n\n")
s = open(cover).read()
s = s.replace("*** SUBJECT HERE ***", subject.strip())
s = s.replace("*** BLURB HERE ***", body.strip())
open(cover, "w").write(s)
PY
echo "export: $n patches and a cover letter in $out"
ls "$out"
