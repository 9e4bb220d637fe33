#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.sh <patch-dir | patch>: checkpatch.pl --strict on every patch
# of the exported series (or on one patch); fails on any error, warning or
# check.
set -uo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
base=$("$here/scripts/base.sh")
rc=0
if [ -d "$1" ]; then set -- "$1"/0*.patch; fi
for p in "$@"; do
	case "$p" in */0000-cover-letter.patch) continue ;; esac
	if ! perl "$base/scripts/checkpatch.pl" --strict --no-tree --quiet \
		--ignore FILE_PATH_CHANGES "$p"; then
		rc=1
	else
		echo "checkpatch: $(basename "$p"): clean"
	fi
done
exit $rc
