#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# check-docs.sh <patched-src>   (make check-docs)
#
# 1. kernel-doc: every non-static function defined in our new .c files has
#    a kernel-doc comment, and `scripts/kernel-doc -none -Wall` prints
#    nothing for our new .c and .h files; for the upstream .c files the
#    series changes, it prints nothing the base does not print too.
# 2. Sphinx (when sphinx-build is installed: python3-sphinx and
#    python3-sphinx-rtd-theme, from make deps): `make htmldocs
#    SPHINXDIRS=admin-guide` out of tree in build/docs, and no warning or
#    error on a line the series adds to an .rst file (those on upstream's
#    lines are upstream's).  DOCS_SPHINX=0 skips it.
#
# Prints "pass|fail check-docs/<part>" and the time of each part; exits
# non-zero on a failure.  Log: build/results/check-docs-sphinx.log.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
src=$(realpath -m "$1")
BUILD=${BUILD:-$here/build}
JOBS=${JOBS:-$(nproc)}
res=$BUILD/results
mkdir -p "$res"
base=$("$here/scripts/base.sh") || exit 1
rc=0

# The series' files: new ones (patches/new-files) and changed ones.
newf=$(awk '!/^#/ { for (i = 2; i <= NF; i++) print $i }' "$here/patches/new-files" |
	grep -vE '^(tools|Documentation)/')
changed=$(grep -h '^+++ b/' $(grep -v '^#' "$here/patches/series" | sed "s|^|$here/patches/|") | cut -c7- | sort -u)

t0=$SECONDS
bad=0
# Non-static functions at file scope without a kernel-doc comment above.
for f in $(grep '\.c$' <<< "$newf"); do
	awk -v f="$f" '
		/^\/\*\*/ { doc = NR }
		/^\*\/|^ \*\// { if (doc) docend = NR }
		/^[a-z_][a-z0-9_ *]*[ *][a-z_][a-z0-9_]*\(/ && !/^static / && !/;[[:space:]]*$/ {
			if (!(docend && docend == NR - 1 && doc)) {
				print "check-docs: " f ":" NR ": no kernel-doc comment: " $0; bad = 1
			}
			doc = 0; docend = 0
		}
		END { exit bad }' "$src/$f" || bad=1
done
for f in $newf; do
	out=$(cd "$src" && perl scripts/kernel-doc -none -Wall "$f" 2>&1)
	[ -z "$out" ] || { echo "$out" | sed 's/^/check-docs: /'; bad=1; }
done
for f in $(grep -vE '^(tools|Documentation)/' <<< "$changed" | grep '\.[ch]$'); do
	new=$(cd "$src" && perl scripts/kernel-doc -none -Wall "$f" 2>&1 | sed -E 's/:[0-9]+:/:/' | sort)
	old=$(cd "$base" && perl scripts/kernel-doc -none -Wall "$f" 2>&1 | sed -E 's/:[0-9]+:/:/' | sort)
	comm -13 <(echo "$old") <(echo "$new") | grep . | sed 's/^/check-docs: new: /' && bad=1
done
if [ $bad = 0 ]; then
	echo "pass check-docs/kernel-doc ($((SECONDS - t0)) s: $(echo $newf) and the changed $(grep -E '\.[ch]$' <<< "$changed" | paste -sd' ' -))"
else
	echo "fail check-docs/kernel-doc"; rc=1
fi

# sphinx_ours <log> <rst>...: the warnings of <log> on lines the series
# added to those files (the others are upstream's: with SPHINXDIRS=
# admin-guide, cgroup-v2.rst's references to accounting/psi.rst are
# undefined labels), and those naming one of the files without a line.
sphinx_ours() {
	local log=$1 f l ranges
	shift
	for f in "$@"; do
		ranges=$(git -C "$src" diff -U0 refs/tags/base HEAD -- "$f" |
			sed -nE 's/^@@ -[0-9,]+ \+([0-9]+)(,([0-9]+))? @@.*/\1 \3/p' |
			awk '{ n = ($2 == "") ? 1 : $2; if (n) print $1, $1 + n - 1 }')
		grep -E "/$f(:[0-9]+)?: *(WARNING|ERROR|CRITICAL|SEVERE)" "$log" |
		while IFS= read -r l; do
			local ln
			ln=$(sed -nE "s|.*/$f:([0-9]+):.*|\1|p" <<< "$l")
			if [ -z "$ln" ] || awk -v n="$ln" '$1 <= n && n <= $2 { f = 1 } END { exit !f }' <<< "$ranges"; then
				echo "$l"
			fi
		done
	done
}

if [ "${DOCS_SPHINX:-1}" = 0 ]; then
	echo "check-docs: Sphinx skipped (DOCS_SPHINX=0)"
elif ! command -v sphinx-build >/dev/null; then
	echo "check-docs: sphinx-build is not installed (make deps installs python3-sphinx): htmldocs not built"
	rc=1
else
	t0=$SECONDS
	log=$res/check-docs-sphinx.log
	rst=$(grep '^Documentation/.*\.rst$' <<< "$changed")
	# Out of tree; -j: Sphinx's own parallel reading.
	make -s -C "$src" O="$BUILD/docs" SPHINXDIRS=admin-guide \
		SPHINXOPTS="-j$JOBS" htmldocs > "$log" 2>&1
	mrc=$?
	ours=$(sphinx_ours "$log" $rst)
	total=$(grep -cE "(WARNING|ERROR|CRITICAL|SEVERE)" "$log")
	if [ $mrc = 0 ] && [ -z "$ours" ]; then
		echo "pass check-docs/htmldocs ($((SECONDS - t0)) s: SPHINXDIRS=admin-guide; no warning on the lines we add to $(echo $rst); $total in all, see $log)"
	else
		[ -n "$ours" ] && echo "$ours" | sed 's/^/check-docs: /'
		[ $mrc = 0 ] || tail -20 "$log" | sed 's/^/check-docs: /'
		echo "fail check-docs/htmldocs ($((SECONDS - t0)) s, make status $mrc)"; rc=1
	fi
fi
exit $rc
