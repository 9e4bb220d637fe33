#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# set-identity.sh [--check] <tree>: the maintainer and copyright holders
# of debian/identity (the one place a site changes them) written into
# <tree>/debian/control (Maintainer:), debian/changelog (the trailer of
# the newest entry) and debian/copyright (Upstream-Contact:, and the
# holder of "Files: *" wherever it stands, in every stanza).
# --check: change nothing, exit 1 if a file says something else.
set -euo pipefail
check=
[ "${1:-}" = --check ] && { check=1; shift; }
tree=$1
d=$tree/debian
get() { sed -n "s/^$1=//p" "$d/identity" | tail -1; }
maint=$(get MAINTAINER)
holder=$(get COPYRIGHT)
[ -n "$maint" ] && [ -n "$holder" ] || { echo "$d/identity: no MAINTAINER= or COPYRIGHT=" >&2; exit 1; }
case $maint in *'<'*@*'>') ;; *) echo "$d/identity: MAINTAINER is not 'Name <address>'" >&2; exit 1 ;; esac

# the holder the tree has now: the first Copyright: of "Files: *"
old=$(awk '/^Files: \*$/ { f = 1; next } f && /^Copyright: / { sub(/^Copyright: /, ""); print; exit }' \
	"$d/copyright")
[ -n "$old" ] || { echo "$d/copyright: no Copyright: in the \"Files: *\" stanza" >&2; exit 1; }

out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# sed replacement text: & and | and \ escaped
esc() { printf '%s' "$1" | sed 's/[&|\\]/\\&/g'; }
sed "s|^Maintainer: .*|Maintainer: $(esc "$maint")|" "$d/control" > "$out/control"
awk -v m="$maint" 'done == 0 && /^ -- / { sub(/^ -- .*>  /, " -- " m "  "); done = 1 } { print }' \
	"$d/changelog" > "$out/changelog"
awk -v m="$maint" -v old="$old" -v new="$holder" '
	/^Upstream-Contact: / { print "Upstream-Contact: " m; next }
	/^(Copyright: | +)/ {
		i = index($0, old)
		if (i && i + length(old) - 1 == length($0)) {
			print substr($0, 1, i - 1) new
			next
		}
	}
	{ print }' "$d/copyright" > "$out/copyright"

bad=0
for f in control changelog copyright; do
	if ! cmp -s "$out/$f" "$d/$f"; then
		if [ -n "$check" ]; then
			echo "$d/$f does not say what debian/identity says:" >&2
			diff -u "$d/$f" "$out/$f" >&2 || true
			bad=1
		else
			cat "$out/$f" > "$d/$f"
		fi
	fi
done
exit $bad
