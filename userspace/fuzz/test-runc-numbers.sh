#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-runc-numbers.sh <build/userspace> <scratch>: fuzz cpuset-toss-runc's
# edit of config.json (fuzz-runc-numbers.c) with libFuzzer, ASan and UBSan
# for FUZZ_SECONDS (30), from the JSON corpus of fuzz-oci-state and a
# config.json with runc's unlimited rlimit; any crash, leak or sanitizer
# report fails.  Skips (4) without clang.
set -e
here=$(cd "$(dirname "$0")" && pwd)
u=$(dirname "$here")
tmp=$2
command -v clang > /dev/null || { echo "no clang: the fuzz target is not run"; exit 4; }
clang -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
	-I"$u" $(pkg-config --cflags jansson) -o "$tmp/fuzz" \
	"$here/fuzz-runc-numbers.c" $(pkg-config --libs jansson)
mkdir -p "$tmp/corpus"
cp "$here"/corpus/* "$tmp/corpus/"
printf '%s' '{"process":{"rlimits":[{"type":"RLIMIT_MEMLOCK","hard":18446744073709551615,"soft":18446744073709551615}]},"x":[1.5e3,-0.25E-2,-9223372036854775809]}' \
	> "$tmp/corpus/uint64.json"
cd "$tmp"
./fuzz -max_total_time="${FUZZ_SECONDS:-30}" -max_len=8192 -timeout=10 \
	-dict="$here/json.dict" corpus > fuzz.log 2>&1 || { tail -40 fuzz.log; exit 1; }
tail -2 fuzz.log
