# Sourced by setup.sh and test.sh: installs the Debian packages skb builds and tests with.
# As root it runs apt-get; otherwise it prints the exact command and stops.
SKB_PACKAGES="cmake ninja-build g++ pkg-config python3
  nlohmann-json3-dev libfmt-dev libcli11-dev libssl-dev libgtest-dev libbenchmark-dev libopenblas-dev
  libarchive-dev zlib1g-dev liblzma-dev libzstd-dev liblz4-dev libbz2-dev libacl1-dev libxml2-dev nettle-dev
  libcurl4-openssl-dev libhiredis-dev libsodium-dev libdeflate-dev help2man"
# (the -dev packages after libarchive-dev give the static libraries that the installer inside
# every .run is linked with; libcurl and hiredis are the kernel store's HTTP and redis clients;
# libsodium verifies signatures in that installer, where OpenSSL's would triple its size; libdeflate
# packs and unpacks gzip at twice zlib's speed, a payload's blocks on all cores; help2man makes the
# man pages from each program's --help, cmake-modules/SkbDocs.cmake)
# What the test suite adds: the real scale-out engines and kernel stores it runs on loopback
# (nginx-light has the WebDAV module), clang++ for a toolchain profile of the user's own,
# numpy, the oracle kernels are checked against (for Debian's /usr/bin/python3), and dpkg-dev, with
# which cpack finds the shared libraries skb's own .deb depends on; strace fails each system call
# of an install in turn (tests/e2e/test_install_faults.sh).
SKB_TEST_PACKAGES="distcc ccache redis-server nginx-light clang python3-numpy dpkg-dev strace"

skb_install_deps() {  # [extra packages]
  local missing=""
  for p in $SKB_PACKAGES "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
  done
  [ -z "$missing" ] && return 0
  if [ "$(id -u)" = 0 ]; then
    echo "skb: installing:$missing"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq --no-install-recommends $missing >/dev/null
  else
    echo "skb: missing Debian packages; run:" >&2
    echo "  sudo apt-get install -y --no-install-recommends$missing" >&2
    exit 1
  fi
}

# Configures (once) and builds the given targets (default: all) into $SKB_BUILD (default: build/).
# With SKB_CCACHE=1 and ccache installed, every compile goes through ccache, set so that another
# clone of the tree (another folder) and the precompiled headers hit the same entries.
skb_build() {  # [targets]
  local build="${SKB_BUILD:-$SKB_TOP/build}" launcher=""
  if [ "${SKB_CCACHE:-0}" = 1 ] && command -v ccache >/dev/null; then
    local ccache="env;CCACHE_BASEDIR=$SKB_TOP;CCACHE_NOHASHDIR=1"
    ccache="$ccache;CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime;ccache"
    launcher="-DCMAKE_C_COMPILER_LAUNCHER=$ccache -DCMAKE_CXX_COMPILER_LAUNCHER=$ccache"
  fi
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$SKB_TOP" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${SKB_BUILD_TYPE:-RelWithDebInfo}" \
      $launcher ${SKB_CMAKE_ARGS:-} >/dev/null
  fi
  cmake --build "$build" ${1:+--target "$@"}
}
