#!/usr/bin/env bash
# Second command of the README: installs what is missing, builds, and runs every test, in three
# passes:
#   1. on the build as shipped (build/: gcc, the static installer), the suites labelled plain
#      (tests/CMakeLists.txt says which and why): those of the real programs that other programs
#      do the work of or that cannot run under the sanitizers, and those of the package and its
#      installer; only the programs are built (target skb_programs);
#   2. every other test, and those three suites again, built by clang with AddressSanitizer and
#      UndefinedBehaviorSanitizer (build-sanitize/; any report fails its test): every test but
#      those labelled plain_only, with their full trial counts;
#   3. every libFuzzer target for SKB_FUZZ_SECONDS (default 10) seconds (scripts/fuzz.sh): new
#      inputs, since pass 2 replays each target's corpus (tests fuzz.*); 7 targets, 2 at a time
#      on 2 cores: 4 rounds.
# Every test runs at least once, the package's suites on both builds.
# usage: scripts/test.sh [--quick] [ctest arguments]   (--quick: every test on build/ alone)
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

# The suites' kernel compiles go through ccache (SKB_LAUNCHER, tests/e2e/lib.sh), one cache for the
# run in build/test-ccache: the suites build the same small dumps again and again (3 of 4 kernel
# compiles of a pass repeat one done before, and pass 2 repeats pass 1's). The project's own
# compiles keep the user's ccache (skb_build): CCACHE_DIR is set for the tests only.
if command -v ccache >/dev/null; then
  export SKB_LAUNCHER=${SKB_LAUNCHER-ccache}
  test_ccache=${SKB_TEST_CCACHE:-$SKB_TOP/build/test-ccache}
fi
run_suite() {  # build folder, ctest arguments
  local build=$1; shift
  (cd "$build"
    [ -z "${test_ccache:-}" ] || export CCACHE_DIR=$test_ccache
    # As many tests as cores: the suites are busy (one more, -j 3 on 2 cores, took pass 2 391 s
    # against 377). Every e2e suite passes ctest --repeat until-fail:3 at -j 4 on 2 cores.
    ctest --output-on-failure -O Testing/ctest.log -j "$(nproc)" "$@")
  [ -z "${test_ccache:-}" ] || CCACHE_DIR=$test_ccache ccache --print-stats |
    awk '{ n[$1] = $2 } END { printf "skb: kernel compiles so far: %d from ccache, %d compiled\n",
      n["direct_cache_hit"] + n["preprocessed_cache_hit"], n["cache_miss"] }'
}

# Each step says how long it took: where a run's minutes went.
timed() {  # what, command...
  local what=$1 start=$SECONDS; shift
  "$@"
  echo "skb: $what took $((SECONDS - start)) s (run so far: $((SECONDS - run_start)) s)"
}
run_start=$SECONDS

# Both builds carry line tables only (SKB_DEBUG_INFO=lines): failures still name file and line.
if [ "$quick" = 1 ]; then
  echo "skb: every test, on the build as shipped"
  SKB_CMAKE_ARGS="-DSKB_DEBUG_INFO=lines ${SKB_CMAKE_ARGS:-}" timed "the build" skb_build
  timed "the tests" run_suite "${SKB_BUILD:-$SKB_TOP/build}" "$@"
  exit 0
fi

echo "skb: pass 1: the suites of the build as shipped"
SKB_CMAKE_ARGS="-DSKB_DEBUG_INFO=lines ${SKB_CMAKE_ARGS:-}" timed "pass 1: the build" skb_build skb_programs
timed "pass 1: the tests" run_suite "${SKB_BUILD:-$SKB_TOP/build}" -L plain "$@"

echo "skb: pass 2: every other test, under AddressSanitizer and UndefinedBehaviorSanitizer"
sanitize=$SKB_TOP/build-sanitize
CC=clang CXX=clang++ SKB_BUILD=$sanitize SKB_CMAKE_ARGS="-DSKB_SANITIZE=address,undefined -DSKB_FUZZ=ON -DSKB_DEBUG_INFO=lines" \
  timed "pass 2: the build" skb_build
ASAN_OPTIONS=detect_leaks=1:abort_on_error=0 UBSAN_OPTIONS=print_stacktrace=1 \
  timed "pass 2: the tests" run_suite "$sanitize" -LE plain_only "$@"

echo "skb: pass 3: fuzzing, ${SKB_FUZZ_SECONDS:-10} s per target"
timed "pass 3" "$SKB_TOP/scripts/fuzz.sh" "$sanitize" "${SKB_FUZZ_SECONDS:-10}"
