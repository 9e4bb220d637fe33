#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# debian-config.sh <out>: write Debian's own 6.12 kernel configuration for
# amd64 (linux-config-6.12's config.amd64_none_amd64, the config of
# Debian's linux-image-*-amd64) to <out>.  The package is the one pinned in
# ./BASE (the version of linux-source-6.12); with BASE_OK=1 or KSRC= any
# installed version is taken, and said.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
. "$here/BASE"
pkg=linux-config-6.12
cfg=/usr/src/linux-config-6.12/config.amd64_none_amd64.xz
inst=$(dpkg-query -W -f='${Version}' "$pkg" 2>/dev/null || echo none)
[ -f "$cfg" ] || { echo "debian-config: $cfg is missing: apt-get install $pkg=$BASE_VERSION (make deps)" >&2; exit 1; }
if [ "$inst" != "$BASE_VERSION" ]; then
	if [ -z "${BASE_OK:-}${KSRC:-}" ]; then
		echo "debian-config: installed $pkg is version '$inst', expected $BASE_VERSION: apt-get install $pkg=$BASE_VERSION" >&2
		exit 1
	fi
	echo "debian-config: using $pkg $inst (BASE is $BASE_VERSION)" >&2
fi
xz -dc "$cfg" > "$1.tmp"
mv "$1.tmp" "$1"
