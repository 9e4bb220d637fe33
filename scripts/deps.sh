#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# deps.sh <pkg[=version]>...: install the Debian packages that are missing
# (as root), or print the exact apt-get line and fail (as anyone else).
set -euo pipefail
missing=()
for p in "$@"; do
	name=${p%%=*}
	want=${p#*=}
	[ "$want" = "$p" ] && want=
	have=$(dpkg-query -W -f='${db:Status-Abbrev}${Version}' "$name" 2>/dev/null || true)
	case "$have" in
	ii*) [ -z "$want" ] || [ "${have#ii }" = "$want" ] || [ "${have:3}" = "$want" ] || missing+=("$p") ;;
	*) missing+=("$p") ;;
	esac
done
[ ${#missing[@]} = 0 ] && exit 0
line="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" != 0 ]; then
	echo "deps: missing Debian packages. As root, run:" >&2
	echo "  apt-get update && $line" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -q >/dev/null || apt-get update
apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null ||
	{ echo "deps: '$line' failed" >&2; exit 1; }
