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
# Author and Signed-off-by: of every patch: the exporter's git identity
# (user.name and user.email as git config sees them from this repository),
# or SIGNOFF="Name <email>" to override it.  Without either, stop: a series
# must not go out under a made-up name.
if [ -n "${SIGNOFF:-}" ]; then
	case "$SIGNOFF" in
	?*' <'?*@?*'>') ;;
	*) echo "export: SIGNOFF='$SIGNOFF' is not of the form 'Name <email>'" >&2; exit 1 ;;
	esac
	name=${SIGNOFF% <*}
	email=${SIGNOFF##*<}; email=${email%>}
else
	name=$(git -C "$here" config user.name || true)
	email=$(git -C "$here" config user.email || true)
	if [ -z "$name" ] || [ -z "$email" ]; then
		echo "export: no git identity to sign the patches off with (user.name='$name', user.email='$email')." >&2
		echo "  Set one:      git config --global user.name 'Your Name'; git config --global user.email you@example.org" >&2
		echo "  or override:  make patches SIGNOFF='Your Name <you@example.org>'" >&2
		exit 1
	fi
fi
base=$("$here/scripts/base.sh")
work=$(dirname "$out")/export-tree
if [ ! -d "$work/.git" ]; then
	rm -rf "$work"
	git clone -q --shared --no-checkout "$base" "$work"
fi
cd "$work"
git config user.name "$name"
git config user.email "$email"
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
