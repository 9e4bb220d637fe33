# SPDX-License-Identifier: GPL-2.0
#
# kenv.sh: the environment of every kernel build of this harness, sourced
# by kbuild.sh and check-configs.sh (with $here set to the repository).
# ccache hits across clones (paths relative to the repository), fixed build
# stamps, and no Rust: a rustc in PATH (rustup's, say) would otherwise
# change the configuration (CONFIG_RUSTC_VERSION), so that the same tree
# would build differently, and miss the cache, on a machine with one and
# on one without.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$(cd "$here" && pwd)}
export CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=time_macros,include_file_mtime,include_file_ctime
export KBUILD_BUILD_TIMESTAMP="2024-11-17"
export KBUILD_BUILD_USER=memory-toss KBUILD_BUILD_HOST=qemu
CC="gcc"
command -v ccache >/dev/null && CC="ccache gcc"

# kmake <src> <obj> <target>...: kbuild out of tree with that environment.
kmake() {
	local src=$1 obj=$2

	shift 2
	make -s -C "$src" O="$obj" CC="$CC" HOSTCC=gcc RUSTC=/nonexistent/rustc "$@"
}
