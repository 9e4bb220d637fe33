#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# test-runc.sh <build/userspace or dir> <scratch>: cpuset-toss-runc on the host,
# built with ASan and UBSan, in front of a fake runc that records its
# arguments: what it does to config.json for each way runc is called
# (Docker's, containerd's, by hand), what it leaves alone, what it passes.
# INSTALLED=1: the wrapper installed in <dir> instead (autopkgtest:
# debian/tests/control), its runc given by --toss-runtime.
set -u
u=$(cd "$(dirname "$0")" && pwd)
tmp=$(cd "$2" && pwd)
fails=0
HOOK=/usr/libexec/cpuset-toss/cpuset-toss-oci-hook
W=$tmp/cpuset-toss-runc

cat > "$tmp/fakerunc" <<EOF
#!/bin/sh
printf '%s\n' "\$0" "\$@" > "$tmp/args"
exit 3
EOF
chmod 0755 "$tmp/fakerunc"
if [ -n "${INSTALLED:-}" ]; then
	# the installed wrapper in $1 (autopkgtest): the fake runc is its
	# --toss-runtime, an option of its own, so it goes first
	[ -x "$1/cpuset-toss-runc" ] || { echo "no $1/cpuset-toss-runc"; exit 1; }
	printf '#!/bin/sh\nexec %s/cpuset-toss-runc --toss-runtime=%s "$@"\n' "$1" "$tmp/fakerunc" > "$W"
	chmod 0755 "$W"
else
	gcc -g -O1 -Wall -Wextra -Werror -fsanitize=address,undefined -fno-sanitize-recover=all \
		-I"$u/.." $(pkg-config --cflags jansson) -DCPUSET_TOSS_RUNC="\"$tmp/fakerunc\"" \
		-o "$W" "$u/cpuset-toss-runc.c" $(pkg-config --libs jansson) || exit 1
fi

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }

B=$tmp/bundle
SPEC='{"ociVersion":"1.0.2","process":{"args":["sleep","1"]},"root":{"path":"rootfs"},"linux":{"cgroupsPath":"system.slice:docker:c1","resources":{"cpu":{"cpus":"1","mems":"1"}}}}'
fresh() {	# fresh [spec]: a bundle with that config.json, mode 0640
	rm -rf "$B" && mkdir -p "$B" && printf '%s\n' "${1:-$SPEC}" > "$B/config.json" &&
		chmod 0640 "$B/config.json"
}
# the annotation the wrapper adds (and 1.0's key, which a bundle may have)
ann() { jq -r '.annotations["io.github.cpuset-toss.request"] // "none"' "$B/config.json"; }
ann_old() { jq -r '.annotations["cpuset.memory_toss_cache"] // "none"' "$B/config.json"; }
nhooks() { jq "[.hooks.createRuntime[]? | select(.path == \"$HOOK\")] | length" "$B/config.json"; }
# run <expected exit> <args...>: the wrapper, with nothing on stdout or stderr
run() {
	want=$1
	shift
	rm -f "$tmp/args"
	"$W" "$@" > "$tmp/out" 2>&1
	rc=$?
	[ "$rc" = "$want" ] || fail "$*: exit $rc, expected $want"
	[ ! -s "$tmp/out" ] || { fail "$*: wrote: $(cat "$tmp/out")"; }
}
passed() {	# passed <args...>: the fake runc got exactly these
	printf '%s\n' "$tmp/fakerunc" "$@" | cmp -s - "$tmp/args" ||
		fail "runc got: $(tr '\n' ' ' < "$tmp/args" 2>/dev/null), expected: $*"
}

# Docker 20.10's create, through containerd's runc shim (as logged in the VM)
fresh
set -- --root /var/run/docker/runtime-runc/moby --log "$B/log.json" --log-format json \
	--systemd-cgroup create --bundle "$B" --pid-file "$B/init.pid" c1
run 3 "$@"
passed "$@"
[ "$(ann)" = 1 ] || fail "docker create: annotation $(ann)"
[ "$(nhooks)" = 1 ] || fail "docker create: $(nhooks) hooks"
[ "$(jq -c .hooks.createRuntime[0] "$B/config.json")" = "{\"path\":\"$HOOK\",\"args\":[\"$HOOK\"],\"timeout\":30}" ] ||
	fail "the hook entry: $(jq -c .hooks.createRuntime[0] "$B/config.json")"
[ "$(jq -c 'del(.annotations, .hooks)' "$B/config.json")" = "$(printf '%s' "$SPEC" | jq -c .)" ] ||
	fail "the rest of config.json changed"
[ "$(stat -c %a "$B/config.json")" = 640 ] || fail "mode $(stat -c %a "$B/config.json")"
[ -z "$(find "$B" -name '.config.json*')" ] || fail "a temporary file left"
# a second create of the same bundle: no second hook
run 3 "$@"
[ "$(nhooks)" = 1 ] || fail "second create: $(nhooks) hooks"

# the bundle's own annotation is kept; runtimeArgs come first and go
fresh "$(printf '%s' "$SPEC" | jq -c '.annotations = {"io.github.cpuset-toss.request": "512M", "x": "y"}')"
run 3 --toss=max --toss-runtime="$tmp/fakerunc" create -b "$B" c2
passed create -b "$B" c2
[ "$(ann)" = 512M ] || fail "own annotation: $(ann)"
[ "$(jq -r .annotations.x "$B/config.json")" = y ] || fail "other annotations lost"
# ... also under 1.0's key (deprecated): kept, no second request added
fresh "$(printf '%s' "$SPEC" | jq -c '.annotations = {"cpuset.memory_toss_cache": "256M"}')"
run 3 --toss=max create -b "$B" c2
[ "$(ann_old)" = 256M ] && [ "$(ann)" = none ] && [ "$(nhooks)" = 1 ] ||
	fail "1.0's key: kept $(ann_old), added $(ann), $(nhooks) hooks"

# --toss=1:free=2G is "1 free=2G"; flags after the id, --bundle=
fresh
run 3 --toss=1:free=2G create c3 --bundle="$B" --no-pivot
[ "$(ann)" = "1 free=2G" ] || fail "--toss=1:free=2G: $(ann)"
# runc's default bundle is the current directory
fresh
(cd "$B" && "$W" run -d c4 > /dev/null 2>&1)
[ "$(ann)" = 1 ] || fail "run in the bundle: $(ann)"

# --toss= (empty): nothing added without an annotation, the hook with one
fresh
cp "$B/config.json" "$tmp/orig"
run 3 --toss= create --bundle "$B" c5
cmp -s "$B/config.json" "$tmp/orig" || fail "--toss= changed a bundle without the annotation"
fresh "$(printf '%s' "$SPEC" | jq -c '.annotations = {"cpuset.memory_toss_cache": "1"}')"
run 3 --toss= create --bundle "$B" c6
[ "$(nhooks)" = 1 ] || fail "--toss= with an annotation: $(nhooks) hooks"

# null members, as Go writes nil maps
fresh '{"ociVersion":"1.0.2","annotations":null,"hooks":{"createRuntime":null}}'
run 3 create --bundle "$B" c7
[ "$(ann)" = 1 ] && [ "$(nhooks)" = 1 ] || fail "null members: $(ann), $(nhooks) hooks"

# left alone: other commands, a value that is "create", bad JSON, wrong
# types
for args in "state c1" "--root create state c1" "start c1" "delete --force c1" \
	"--log create --log-format json kill c1 KILL"; do
	fresh
	cp "$B/config.json" "$tmp/orig"
	# shellcheck disable=SC2086
	(cd "$B" && "$W" $args > "$tmp/out" 2>&1)
	cmp -s "$B/config.json" "$tmp/orig" || fail "$args changed config.json"
	# shellcheck disable=SC2086
	passed $args
done
for bad in '{"ociVersion":' '[1,2]' '{"annotations":[]}' '{"hooks":{"createRuntime":{}}}' \
	'{"annotations":{"cpuset.memory_toss_cache":7}}' \
	'{"annotations":{"io.github.cpuset-toss.request":7}}' \
	'{"x":"@cpuset-toss-runc:number:0","y":18446744073709551615}'; do
	fresh "$bad"
	cp "$B/config.json" "$tmp/orig"
	run 3 create --bundle "$B" c8
	cmp -s "$B/config.json" "$tmp/orig" || fail "$bad: changed"
done
# integers jansson cannot hold (review N14): runc's unlimited rlimit, as
# docker run --ulimit memlock=-1 writes it, kept as they were written
BIG='{"ociVersion":"1.0.2","process":{"args":["a\" 18446744073709551615 \\"],"rlimits":[{"type":"RLIMIT_MEMLOCK","hard":18446744073709551615,"soft":18446744073709551615},{"type":"RLIMIT_NOFILE","hard":-9223372036854775809,"soft":1024}]},"linux":{"x":[9223372036854775807,-9223372036854775808,1.5e3,12345678901234567890123]}}'
fresh "$BIG"
run 3 create --bundle "$B" c10
[ "$(ann)" = 1 ] && [ "$(nhooks)" = 1 ] || fail "uint64 in config.json: annotation $(ann), $(nhooks) hooks"
for v in '"hard":18446744073709551615,"soft":18446744073709551615' '"hard":-9223372036854775809' \
	'[9223372036854775807,-9223372036854775808,1.5e3,12345678901234567890123]' \
	'"args":["a\" 18446744073709551615 \\"]'; do
	grep -q -F -- "$v" "$B/config.json" || fail "uint64: $v not kept: $(cat "$B/config.json")"
done
fresh
rm "$B/config.json"
run 3 create --bundle "$B" c9
run 3 create --bundle "$tmp/nonexistent" c9
ln -s /etc/passwd "$B/config.json"
run 3 create --bundle "$B" c9
[ -L "$B/config.json" ] || fail "a config.json symlink was replaced"

# its own bad options, and a runtime that cannot be run
for opt in --toss-runtime=fakerunc --toss=a\ b --tossx=1; do
	"$W" "$opt" state c1 > /dev/null 2>&1
	rc=$?
	[ $rc = 64 ] || fail "$opt: exit $rc, expected 64"
done
"$W" --toss-runtime=/nonexistent state c1 > /dev/null 2>&1
rc=$?
[ $rc = 69 ] || fail "no runtime: exit $rc, expected 69"

[ $fails = 0 ] && echo "PASS: cpuset-toss-runc" && exit 0
echo "$fails failure(s)"
exit 1
