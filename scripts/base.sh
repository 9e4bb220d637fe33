#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Prepare the pristine base kernel tree and print its path.
#
# The base is Debian's linux-source-6.12 tarball, pinned in ./BASE by package
# version and sha256.  It is unpacked once into $BASE_CACHE/<sha256>/ (outside
# the clone, so every clone and every CI run shares it) and turned into a git
# repository with a single commit tagged "base".  Builds clone it with
# --shared and apply our series on top.
#
# With KSRC=/path/to/linux-6.12 the user's own tree is used instead: it is
# imported the same way, keyed by its path.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/BASE"
BASE_CACHE=${BASE_CACHE:-/var/cache/memory-toss}

die() { echo "base: $*" >&2; exit 1; }

import_tree() {	# import_tree <src-dir> <dest-repo>
	local src=$1 dst=$2 tmp=$2.tmp.$$
	rm -rf "$tmp"
	mkdir -p "$tmp"
	if [ -d "$src" ]; then
		echo "base: importing $src into $dst" >&2
		(cd "$src" && tar --exclude=.git -cf - .) | tar -C "$tmp" -xf -
	else
		echo "base: unpacking $src into $dst" >&2
		tar -C "$tmp" --strip-components=1 -xJf "$src"
	fi
	(
		cd "$tmp"
		git init -q -b base
		git config user.name "memory-toss base"
		git config user.email "base@localhost"
		git config gc.auto 0
		git add -A -f .
		git commit -q -m "base: $(make -s kernelversion 2>/dev/null || echo unknown)"
		git tag base
	) >&2
	mv "$tmp" "$dst"
}

if [ -n "${KSRC:-}" ]; then
	[ -f "$KSRC/Makefile" ] && [ -d "$KSRC/kernel/cgroup" ] ||
		die "KSRC=$KSRC is not a kernel source tree"
	ver=$(make -s -C "$KSRC" kernelversion 2>/dev/null || true)
	case "$ver" in
	6.12|6.12.*) ;;
	*) die "KSRC=$KSRC is Linux '$ver', this series is for 6.12" ;;
	esac
	key=ksrc-$(echo "$(cd "$KSRC" && pwd)" | sha256sum | cut -c1-16)
	dst=$BASE_CACHE/$key
	if [ -n "${KSRC_REFRESH:-}" ]; then rm -rf "$dst"; fi
	[ -d "$dst/.git" ] || { mkdir -p "$BASE_CACHE"; import_tree "$KSRC" "$dst"; }
	echo "$dst"
	exit 0
fi

[ -f "$BASE_TARBALL" ] || die "$BASE_TARBALL is missing.
  Install it with:  apt-get install $BASE_PKG=$BASE_VERSION
  (or point KSRC= at your own Linux 6.12 tree)"

inst=$(dpkg-query -W -f='${Version}' "$BASE_PKG" 2>/dev/null || echo none)
dst=$BASE_CACHE/$BASE_SHA256
if [ -d "$dst/.git" ]; then
	echo "$dst"
	exit 0
fi

if [ -z "${BASE_OK:-}" ]; then
	[ "$inst" = "$BASE_VERSION" ] || die "installed $BASE_PKG is version '$inst', expected $BASE_VERSION.
  Install the pinned version:  apt-get install $BASE_PKG=$BASE_VERSION
  or accept the installed one: BASE_OK=1 make ...   (the patches may then fail to apply)
  or use your own 6.12 tree:   KSRC=/path/to/linux-6.12 make ..."
	echo "base: checking sha256 of $BASE_TARBALL" >&2
	sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA256" ] || die "$BASE_TARBALL has sha256 $sum,
  expected $BASE_SHA256 ($BASE_PKG $BASE_VERSION).
  Reinstall the pinned version:  apt-get install --reinstall $BASE_PKG=$BASE_VERSION
  or accept it anyway:           BASE_OK=1 make ...
  or use your own 6.12 tree:     KSRC=/path/to/linux-6.12 make ..."
else
	sum=$(sha256sum "$BASE_TARBALL" | cut -d' ' -f1)
	[ "$sum" = "$BASE_SHA256" ] || echo "base: BASE_OK=1: using $BASE_TARBALL with sha256 $sum ($inst)" >&2
	dst=$BASE_CACHE/$sum
	[ -d "$dst/.git" ] && { echo "$dst"; exit 0; }
fi
mkdir -p "$BASE_CACHE"
import_tree "$BASE_TARBALL" "$dst"
echo "$dst"
