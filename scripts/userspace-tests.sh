#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# userspace-tests.sh <build/userspace>: the host tests of the userspace
# parts, which need no VM: every userspace/**/test-*.sh, run as
# `sh test-X.sh <build/userspace> <scratch dir>`, one
# "pass|fail|skip userspace/<dir>-<X>" line each (exit 4: skip).
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(cd "$1" && pwd)
u=$here/userspace
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

for t in "$u"/test-*.sh "$u"/*/test-*.sh; do
	[ -f "$t" ] || continue
	d=$(basename "$(dirname "$t")")
	name=$(basename "$t" .sh)
	name=${name#test-}
	[ "$d" = userspace ] || name=$d-$name
	mkdir -p "$tmp/$name"
	sh "$t" "$out" "$tmp/$name" > "$tmp/$name.log" 2>&1
	case $? in
	0) echo "pass userspace/$name" ;;
	4) tail -1 "$tmp/$name.log" | sed 's/^/  /'; echo "skip userspace/$name" ;;
	*) sed 's/^/  /' "$tmp/$name.log"; echo "fail userspace/$name" ;;
	esac
done
