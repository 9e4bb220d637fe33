#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-oci-state.sh <build/userspace> <scratch>: fuzz the OCI hook's input
# parsers (fuzz-oci-state.c) with libFuzzer, ASan and UBSan for
# FUZZ_SECONDS (30), starting from corpus/; any crash, leak or sanitizer
# report fails.  Skips (4) without clang.
set -e
here=$(cd "$(dirname "$0")" && pwd)
u=$(dirname "$here")
tmp=$2
command -v clang > /dev/null || { echo "no clang: the fuzz target is not run"; exit 4; }
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$u" $(pkg-config --cflags jansson) -o "$tmp/fuzz" \
	"$here/fuzz-oci-state.c" "$u/oci-state.c" $(pkg-config --libs jansson)
mkdir -p "$tmp/corpus"
cp "$here"/corpus/* "$tmp/corpus/"
cd "$tmp"
./fuzz -max_total_time="${FUZZ_SECONDS:-30}" -max_len=8192 -timeout=10 \
	-dict="$here/json.dict" corpus > fuzz.log 2>&1 || { tail -40 fuzz.log; exit 1; }
tail -2 fuzz.log
