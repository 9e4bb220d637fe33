#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# dist-userspace.sh <outdir>: the source of the userspace alone, as
# <outdir>/cpuset-toss-<version>/ and <outdir>/cpuset-toss-<version>.tar.xz:
# userspace/ (the sources, their man pages, tests and systemd files),
# debian/, the licenses, and a Makefile of its own that includes
# userspace/userspace.mk; no kernel, patches, VM harness or benchmarks.
# debian/identity is applied (scripts/set-identity.sh) and
# debian/copyright loses the stanza of patches/, which is not there.
# `dpkg-buildpackage -us -uc` in that directory builds the same three
# packages as `make debs` (scripts/test-debs.sh compares them).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$1
mkdir -p "$out"
out=$(cd "$out" && pwd)
src=$(dpkg-parsechangelog -l "$here/debian/changelog" -SSource)
ver=$(dpkg-parsechangelog -l "$here/debian/changelog" -SVersion)
date=$(dpkg-parsechangelog -l "$here/debian/changelog" -SDate)
name=$src-$ver
tree=$out/$name
rm -rf "$tree" "$out/$name.tar.xz"
mkdir -p "$tree"
# what git has of those paths, new files too (all of them outside git)
if git -C "$here" rev-parse --git-dir > /dev/null 2>&1; then
	(cd "$here" && git ls-files -z --cached --others --exclude-standard userspace debian LICENSE LICENSES) |
		(cd "$here" && xargs -0 cp --parents -t "$tree")
else
	(cd "$here" && cp -r --parents userspace debian LICENSE LICENSES "$tree")
fi
cat > "$tree/Makefile" <<'MK'
# SPDX-License-Identifier: GPL-2.0
#
# The userspace of cpuset.memory_toss_cache alone (the repository's
# `make dist-userspace`): `make` builds it in build/userspace, `make
# install` installs it (DESTDIR=, PREFIX=/usr, SYSCONFDIR=/etc; the other
# directories are in userspace/userspace.mk).
SHELL := /bin/bash
TOP   := $(CURDIR)
BUILD ?= $(TOP)/build

.PHONY: all clean distclean
all: userspace

include $(TOP)/userspace/userspace.mk

clean distclean:
	rm -rf $(BUILD)
MK
"$here/scripts/set-identity.sh" "$tree"
awk 'BEGIN { RS = ""; ORS = "\n\n" } !/^Files: patches\// { print }' "$tree/debian/copyright" |
	sed -e '$ { /^$/d }' > "$tree/debian/copyright.new"
mv "$tree/debian/copyright.new" "$tree/debian/copyright"
tar -C "$out" --sort=name --owner=0 --group=0 --numeric-owner --mtime="$date" \
	-cJf "$out/$name.tar.xz" "$name"
echo "dist-userspace: $tree ($(cd "$tree" && find . -type f | wc -l) files), $out/$name.tar.xz"
