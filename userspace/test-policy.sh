#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-policy.sh <build/userspace> <scratch>: the shared parsers on the
# host (test-policy.c), built with ASan and UBSan.
set -e
u=$(cd "$(dirname "$0")" && pwd)
tmp=$2
[ "$(id -u)" = 0 ] || { echo "the policy file must be root's: run as root"; exit 4; }
gcc -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
	-I"$u" $(pkg-config --cflags jansson hwloc) -o "$tmp/test-policy" \
	"$u/test-policy.c" "$u/toss.c" "$u/oci-state.c" $(pkg-config --libs jansson hwloc)
"$tmp/test-policy" "$tmp"
