#!/usr/bin/env bash
# Runs every libFuzzer target of a build configured with -DSKB_FUZZ=ON for a fixed time each,
# starting from its corpus in tests/fuzz/corpus/. New inputs go to a scratch folder, never into
# the repository. Prints one line per target (executions, coverage) and writes
# <build>/fuzz/fuzz.json. Runs as many targets at once as there are cores (SKB_FUZZ_JOBS), each
# for the whole time. Exit 1 when any target found a problem; its reproducer is kept under
# <build>/fuzz/.
# usage: scripts/fuzz.sh BUILD_DIR [SECONDS_PER_TARGET (default 30)]
set -euo pipefail
SKB_TOP=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$1" && pwd)
seconds=${2:-30}
out=$build/fuzz
rm -rf "$out" && mkdir -p "$out"
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1}
jobs_max=${SKB_FUZZ_JOBS:-$(nproc)}

fuzz_target() {  # exe: runs it, its exit status into <out>/<name>.rc
  local exe=$1 name=${1##*/skb_fuzz_} rc=0
  mkdir -p "$out/$name.new"
  (cd "$out" && "$exe" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix="$out/$name." "$out/$name.new" "$SKB_TOP/tests/fuzz/corpus/$name") >"$out/$name.log" 2>&1 || rc=$?
  echo "$rc" >"$out/$name.rc"
}

# One target per core at a time: each still has a core for its whole time.
for exe in "$build"/bin/skb_fuzz_*; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n || true; done
  fuzz_target "$exe" &
done
wait

echo "[" > "$out/fuzz.json"
sep="" failed=""
for exe in "$build"/bin/skb_fuzz_*; do
  name=${exe##*/skb_fuzz_}
  log=$out/$name.log
  rc=$(cat "$out/$name.rc")
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1 | cut -d' ' -f2)
  printf '  %-20s %10s executions in %ss, %s coverage points, exit %s\n' "$name" "${execs:-?}" "$seconds" "${cov:-?}" "$rc"
  printf '%s\n  {"target": "%s", "seconds": %s, "executions": %s, "coverage": %s, "exit": %s}' "$sep" "$name" \
    "$seconds" "${execs:-0}" "${cov:-0}" "$rc" >> "$out/fuzz.json"
  sep=","
  if [ "$rc" != 0 ]; then
    echo "skb: fuzz target $name found a problem; log: $log" >&2
    grep -E "ERROR|SUMMARY|property does not hold|Test unit written" "$log" >&2 || tail -20 "$log" >&2
    failed="$failed $name"
  fi
done
echo "]" >> "$out/fuzz.json"
[ -z "$failed" ]
