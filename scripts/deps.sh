# Sourced by setup.sh and test.sh: installs the Debian packages skb builds and tests with.
# As root it runs apt-get; otherwise it prints the exact command and stops.
SKB_PACKAGES="cmake ninja-build g++ pkg-config python3
  nlohmann-json3-dev libfmt-dev libcli11-dev libssl-dev libgtest-dev libbenchmark-dev libopenblas-dev
  libarchive-dev zlib1g-dev liblzma-dev libzstd-dev liblz4-dev libbz2-dev libacl1-dev libxml2-dev nettle-dev
  libcurl4-openssl-dev libhiredis-dev"
# (the -dev packages after libarchive-dev give the static libraries that the installer inside
# every .run is linked with; libcurl and hiredis are the kernel store's HTTP and redis clients)
# What the test suite adds: the real scale-out engines and kernel stores it runs on loopback
# (nginx-light has the WebDAV module), clang++ for a toolchain profile of the user's own, and
# numpy, the oracle kernels are checked against (for Debian's /usr/bin/python3).
SKB_TEST_PACKAGES="distcc ccache redis-server nginx-light clang python3-numpy"

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

# Configures (once) and builds into $SKB_BUILD (default: build/).
skb_build() {
  local build="${SKB_BUILD:-$SKB_TOP/build}"
  if [ ! -f "$build/build.ninja" ]; then
    cmake -S "$SKB_TOP" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE="${SKB_BUILD_TYPE:-RelWithDebInfo}" \
      ${SKB_CMAKE_ARGS:-} >/dev/null
  fi
  cmake --build "$build"
}
