#!/usr/bin/env bash
# The performance table: builds skb in Release (build-release/), runs every benchmark on inputs it
# generates, prints one table (each row a ratio to a baseline measured in the same run, min /
# median / max over repeats) and writes the same figures to build-release/bench/bench.json.
# Each benchmark's own output goes to build-release/bench/<name>.log.
#   scripts/bench.sh [--quick]     (--quick: smaller inputs and fewer repeats, for a smoke run)
set -euo pipefail
SKB_TOP=$(cd "$(dirname "$0")/.." && pwd)
source "$SKB_TOP/scripts/deps.sh"
skb_install_deps $SKB_TEST_PACKAGES
export SKB_BUILD="${SKB_BENCH_BUILD:-$SKB_TOP/build-release}" SKB_BUILD_TYPE=Release
# Cold builds are cold: the user's local kernel store is off, except in the restart row, which
# has its own.
export SKB_CACHE_DIR=off
skb_build >/dev/null
work="$SKB_BUILD/bench"
rm -rf "$work"
mkdir -p "$work"
files=40000 kernels=10000 packaged=3000 repeat=3 seqs=8 store_seqs=$(seq -s, 2 16) explained=5000
cluster_seqs=$(seq -s, 2 10)
if [ "${1:-}" = "--quick" ]; then
  files=5000 kernels=1000 packaged=300 repeat=2 seqs=4 store_seqs=2,3 explained=500 cluster_seqs=2,3,4
fi
bench() {  # name command...
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@" >"$work/$name.log" 2>&1 || { tail -20 "$work/$name.log"; echo "bench: $name failed (log: $work/$name.log)" >&2; exit 1; }
  echo "   $((SECONDS - start)) s"
}
b="$SKB_TOP/tests/bench"
bench generator python3 "$b/bench_generator.py" "$SKB_BUILD" "$work/generator" --files $files --kernels $kernels \
  --repeat $repeat
bench build python3 "$b/bench_build.py" "$SKB_BUILD" "$work/build" --seqs $seqs --repeat $repeat
bench store python3 "$b/bench_store.py" "$SKB_BUILD" "$work/store" --seqs "$store_seqs" --repeat $repeat
bench restart python3 "$b/bench_restart.py" "$SKB_BUILD" "$work/restart"
bench cluster python3 "$b/bench_cluster.py" "$SKB_BUILD" "$work/cluster" --seqs "$cluster_seqs" --repeat $repeat
bench explain python3 "$b/bench_explain.py" "$SKB_BUILD" "$work/explain" --kernels $explained --repeat $repeat
bench package python3 "$b/bench_package.py" "$SKB_BUILD" "$work/package" --kernels $packaged --repeat $repeat
bench library python3 "$b/bench_library.py" "$SKB_BUILD" "$work/library" --repeat $repeat
# A library of many small packages: what an install costs that grows with the number of packages.
[ "${1:-}" = "--quick" ] || bench library400 python3 "$b/bench_library.py" "$SKB_BUILD" "$work/library400" \
  --packages 400 --kernels 10 --repeat $repeat --no-update
bench payoff python3 "$b/bench_payoff.py" "$SKB_BUILD" "$work/payoff"
bench kernels "$SKB_BUILD/tests/skb_kernel_bench" --work "$work/kernels" --json "$work/kernels.json" \
  --benchmark_min_time=0.05 --benchmark_repetitions=$repeat --benchmark_report_aggregates_only=true
python3 "$b/report.py" "$work"
