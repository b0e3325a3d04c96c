#!/usr/bin/env bash
# Second command of the README: installs what is missing, builds, and runs every test.
set -euo pipefail
SKB_TOP=$(cd "$(dirname "$0")/.." && pwd)
source "$SKB_TOP/scripts/deps.sh"
skb_install_deps $SKB_TEST_PACKAGES
skb_build
cd "${SKB_BUILD:-$SKB_TOP/build}"
ctest --output-on-failure -j "$(nproc)" "$@"
