#!/usr/bin/env bash
# Second command of the README: installs what is missing, builds, and runs every test, in three
# passes:
#   1. the whole suite (build/);
#   2. the whole suite again, built by clang with AddressSanitizer and UndefinedBehaviorSanitizer
#      (build-sanitize/; any report fails its test). Fault loops run fewer trials there: the full
#      counts ran in pass 1;
#   3. every libFuzzer target for SKB_FUZZ_SECONDS (default 20) seconds (scripts/fuzz.sh): new
#      inputs, since passes 1 and 2 replay each target's corpus (tests fuzz.*), and 20 s a target
#      saves 40 s of the run on 2 cores (7 targets, 2 at a time: 4 rounds).
# usage: scripts/test.sh [--quick] [ctest arguments]   (--quick: pass 1 only)
# Each pass logs every test's output to <build>/Testing/ctest.log.
set -euo pipefail
SKB_TOP=$(cd "$(dirname "$0")/.." && pwd)
source "$SKB_TOP/scripts/deps.sh"
quick=0
if [ "${1:-}" = --quick ]; then quick=1; shift; fi
skb_install_deps $SKB_TEST_PACKAGES
# Compiles go through ccache (installed with the test packages): a rebuild, or another clone's
# build, compiles only what changed.
export SKB_CCACHE=${SKB_CCACHE:-1}
# One kernel store for the whole run: suites that do not count compiles (tests/e2e/lib.sh: ci_store)
# share their kernels, across suites and passes, as a team's builders do.
export SKB_TEST_STORE=${SKB_TEST_STORE:-$SKB_TOP/build/test-store/kernels}

run_suite() {  # build folder, ctest arguments
  local build=$1; shift
  (cd "$build" && ctest --output-on-failure -O Testing/ctest.log -j "$(nproc)" "$@")
}

echo "skb: pass 1: the test suite"
skb_build
run_suite "${SKB_BUILD:-$SKB_TOP/build}" "$@"
[ "$quick" = 1 ] && exit 0

echo "skb: pass 2: the test suite under AddressSanitizer and UndefinedBehaviorSanitizer"
sanitize=$SKB_TOP/build-sanitize
CC=clang CXX=clang++ SKB_BUILD=$sanitize SKB_CMAKE_ARGS="-DSKB_SANITIZE=address,undefined -DSKB_FUZZ=ON" skb_build
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  SKB_KILL_TRIALS=3 SKB_CRASH_TRIALS=6 SKB_STORE_TRIALS=1 SKB_LOAD_SECONDS=10 run_suite "$sanitize" "$@"

echo "skb: pass 3: fuzzing, ${SKB_FUZZ_SECONDS:-20} s per target"
"$SKB_TOP/scripts/fuzz.sh" "$sanitize" "${SKB_FUZZ_SECONDS:-20}"
