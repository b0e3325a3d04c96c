#!/usr/bin/env bash
# The cuda toolchain's kernels on a GPU: every call of the numpy oracle's records (the ops the cuda
# toolchain declares, in float, float16 and bfloat16, static kernels and their dynamic twins) run
# through libskb_runtime and checked against numpy; skb-replay on the example dump; then each
# distinct call timed static against dynamic with CUDA events, and MatMul against cuBLAS
# (tests/bench/cuda_kernel_bench.py, PyTorch for memory, events and cuBLAS).
#
# A GPU machine need not be able to build skb: what the check runs is prepared where skb is
# built (nvcc is needed there, a GPU is not) into a bundle folder that travels:
#   scripts/gpu-check.sh --prepare [BUNDLE]   build the kernels, install them, copy the runtime
#                                             (and BUNDLE.tgz, the same folder as one file)
#   scripts/gpu-check.sh [BUNDLE]             run the check (prepares first when BUNDLE is absent
#                                             and this machine has skb's build)
# BUNDLE defaults to build/gpu-check. SKB_GPU_SOC (default sm_90) is the architecture (sm_90a: the
# matmuls on wgmma), SKB_SWEEP_TILES and SKB_SWEEP_FLOAT_TILES how many candidates the tile sweep
# builds (default: every tile of skb_matmul_plan.h's tables), SKB_CUDA_SWEEP_JSON where its times go,
# SKB_SWEEP_TIMEOUT and SKB_SWEEP_ALONE_TIMEOUT its time limits in seconds (600; 120 a candidate tried
# alone after a sweep broke off),
# SKB_ORACLE_TRIALS the oracle's records (default 120), SKB_CUDA_BENCH_REPS the bench's samples,
# SKB_CHAIN_LENGTH the dependent-launch chains' kernels (default 20).
# Exit status: 0 every check passed; 1 a check failed; 2 nothing to run; 77 no GPU here.
set -euo pipefail
SKB_TOP=$(cd "$(dirname "$0")/.." && pwd)
prepare_only=0
case "${1:-}" in
  -h | --help) sed -n '2,/^# Exit status/p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  --prepare) prepare_only=1; shift ;;
esac
case "${1:-}" in
  -*) echo "gpu-check: unknown option '$1' (usage: scripts/gpu-check.sh [--prepare] [BUNDLE]; --help says more)" >&2; exit 2 ;;
esac
[ $# -le 1 ] || { echo "gpu-check: expected one BUNDLE folder at most, got $#" >&2; exit 2; }
bundle=$(realpath -m -- "${1:-$SKB_TOP/build/gpu-check}")
build=${SKB_BUILD:-$SKB_TOP/build}
soc=${SKB_GPU_SOC:-sm_90}
# A Python with numpy (the oracle's), the first of $SKB_PYTHON, python3, /usr/bin/python3.
python=python3
for p in ${SKB_PYTHON:-} python3 /usr/bin/python3; do
  if "$p" -c "import numpy" 2>/dev/null; then python=$p; break; fi
done

say() { echo "gpu-check: $*"; }

has_gpu() { command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q '^GPU '; }

# The distinct calls of a folder of records that the cuda toolchain compiles, as one JSON list.
bench_calls() {  # dump-folder out-file
  "$python" - "$1" "$2" "$SKB_TOP/templates/toolchains/cuda.json" <<'PY'
import glob, json, os, sys
ops = json.load(open(sys.argv[3]))["ops"]
calls, seen = [], set()
for path in sorted(glob.glob(os.path.join(sys.argv[1], "**", "*.json"), recursive=True)):
    try:
        r = json.load(open(path))
        tensors = [t for t in r["inputs"] + r["outputs"] if t]
        if r["op_type"] not in ops or any(t["dtype"] not in ops[r["op_type"]]["dtypes"] for t in tensors):
            continue
    except (ValueError, KeyError, TypeError):
        continue
    key = json.dumps([r["op_type"], r["inputs"], r["outputs"], r.get("attrs", [])], sort_keys=True)
    if key not in seen:
        seen.add(key)
        calls.append(r)
json.dump(calls, open(sys.argv[2], "w"))
print(len(calls))
PY
}

prepare() {
  [ -x "$build/bin/skb-package" ] || { say "no skb build at $build (run scripts/setup.sh, or set SKB_BUILD)"; exit 2; }
  [ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
  command -v nvcc >/dev/null || { say "nvcc is not on PATH: the cuda kernels cannot be built here"; exit 2; }
  local tmp=$bundle.tmp
  rm -rf "$tmp" && mkdir -p "$tmp/bin" "$tmp/lib" "$tmp/bench/dump"
  say "preparing $bundle for $soc"
  "$python" "$SKB_TOP/tests/tools/numpy_oracle.py" "$build/bin" "$tmp/oracle" --toolchain cuda --soc "$soc" \
    --phase prepare --trials "${SKB_ORACLE_TRIALS:-120}"
  # The example dump, and calls of the sizes a served model makes, static kernels and dynamic twins.
  cp -r "$SKB_TOP/examples/op_stats/aclnn_static_shape_kernel_outputs" "$tmp/bench/dump/example"
  "$python" - "$tmp/bench/dump/sized" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ.get("SKB_TOP", "."), "tests", "tools"))
from make_dump import attr, record, tensor
os.makedirs(sys.argv[1], exist_ok=True)
from sweep_calls import mm, sweep
rs = sweep() + [
      mm("float16", 300, 136, 200, ta=True, bias=True), mm("bfloat16", 100, 64, 72, tb=True),
      mm("float16", 2048, 1024, 1024, bias=True), mm("bfloat16", 1024, 2048, 1024, ta=True, bias=True),
      mm("float16", 96, 48, 40, ta=True, tb=True), mm("float", 33, 17, 45, ta=True, tb=True, bias=True),
      mm("bfloat16", 4, 32, 16, "BatchMatMulV2", (3, 2)),
      record("Add", [tensor("x1", 0, "float16", [4096, 1024]), tensor("x2", 1, "float16", [4096, 1024])],
             [tensor("y", 0, "float16", [4096, 1024])]),
      record("Mul", [tensor("x1", 0, "bfloat16", [2048, 1024]), tensor("x2", 1, "bfloat16", [1024])],
             [tensor("y", 0, "bfloat16", [2048, 1024])]),
      record("Gelu", [tensor("x", 0, "bfloat16", [4096, 1024])], [tensor("y", 0, "bfloat16", [4096, 1024])]),
      record("Cast", [tensor("x", 0, "float", [4096, 1024])], [tensor("y", 0, "float16", [4096, 1024])],
             [attr("dst_type", 0, "int", 1)]),
      record("SoftmaxV2", [tensor("x", 0, "float", [512, 1024])], [tensor("y", 0, "float", [512, 1024])],
             [attr("axes", 0, "list_int", [-1])]),
      record("SoftmaxV2", [tensor("x", 0, "float16", [8, 16, 128, 128])], [tensor("y", 0, "float16", [8, 16, 128, 128])],
             [attr("axes", 0, "list_int", [-1])])]
for i, r in enumerate(rs):
    json.dump(r, open(os.path.join(sys.argv[1], "%s_%d.json" % (r["op_type"], i)), "w"))
PY
  local run
  run=$("$build/bin/skb-package" -p "$tmp/bench/dump/example" -p "$tmp/bench/dump/sized" -o "$tmp/bench/out" --toolchain cuda --soc "$soc" --dynamic -q \
    -j "$(nproc)")
  sh "$run" -q --install-path="$tmp/bench/lib"
  say "$(bench_calls "$tmp/bench/dump" "$tmp/bench/calls.json") distinct calls to time"
  # The matmul tile sweep: the sweep's calls built once per candidate tile (SKB_MATMUL_TILE, through
  # NVCC_APPEND_FLAGS, which the cuda profile's "environment" makes part of the kernels' names),
  # without a kernel store: no candidate's kernel is worth keeping.
  mkdir -p "$tmp/sweep/dump"
  "$python" - "$tmp/sweep/dump" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["SKB_TOP"], "tests", "tools"))
from sweep_calls import mm, sweep
for i, r in enumerate(sweep()):
    json.dump(r, open(os.path.join(sys.argv[1], "%s_%d.json" % (r["op_type"], i)), "w"))
    kind = "float" if r["inputs"][0]["dtype"] == "float" else "16"  # the float tiles' calls, the tensor cores'
    os.makedirs(sys.argv[1] + kind, exist_ok=True)
    json.dump(r, open(os.path.join(sys.argv[1] + kind, "%s_%d.json" % (r["op_type"], i)), "w"))
PY
  bench_calls "$tmp/sweep/dump" "$tmp/sweep/calls.json" >/dev/null
  # The candidate tiles (skb_matmul_plan.h's tables, as cuda_tile_fit.py lists them): mma.sync's,
  # and wgmma's on sm_90a; float's. The sweep's output names them, for the fit.
  "$python" "$SKB_TOP/tests/bench/cuda_tile_fit.py" tiles >"$tmp/sweep/tiles.json"
  local tiles float_tiles
  tiles=${SKB_SWEEP_TILES:-$("$python" -c 'import json, sys; t = json.load(open(sys.argv[1]))
print(len(t["16"]) if sys.argv[2] == "sm_90a" else t["mma"])' "$tmp/sweep/tiles.json" "$soc")}
  float_tiles=${SKB_SWEEP_FLOAT_TILES:-$("$python" -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["float"]))' \
    "$tmp/sweep/tiles.json")}
  # Candidate i is built for the calls it is a tile of: 16-bit ones below the tensor-core tiles'
  # count, float ones below the float tiles'.
  local i dumps
  for i in $(seq 0 $(( (tiles > float_tiles ? tiles : float_tiles) - 1))); do
    dumps=()
    [ "$i" -lt "$tiles" ] && dumps+=(-p "$tmp/sweep/dump16")
    [ "$i" -lt "$float_tiles" ] && dumps+=(-p "$tmp/sweep/dumpfloat")
    run=$(env -u SKB_CACHE SKB_CACHE_DIR=off NVCC_APPEND_FLAGS="-DSKB_MATMUL_TILE=$i" "$build/bin/skb-package" \
      "${dumps[@]}" -o "$tmp/sweep/out$i" --toolchain cuda --soc "$soc" -q -j "$(nproc)")
    sh "$run" -q --install-path="$tmp/sweep/lib$i"
    rm -rf "$tmp/sweep/out$i"
  done
  say "tile sweep: $tiles tensor-core and $float_tiles float candidates"
  rm -rf "$tmp/bench/out" "$tmp/oracle/out"
  # The runtime and skb-replay, with the libraries they need beyond the C and C++ ones.
  cp "$build/bin/skb-replay" "$build/bin/skb" "$tmp/bin/"
  local so
  so=$(readlink -f "$build/lib/libskb_runtime.so")
  cp "$so" "$tmp/lib/" && ln -s "$(basename "$so")" "$tmp/lib/libskb_runtime.so"
  strip --strip-debug "$tmp/bin/skb-replay" "$tmp/bin/skb" "$tmp/lib/$(basename "$so")"  # what travels: no debug info
  ln -s "$(basename "$so")" "$tmp/lib/$(objdump -p "$so" | awk '/SONAME/ {print $2}')" 2>/dev/null || true
  for dep in $(ldd "$so" "$build/bin/skb-replay" "$build/bin/skb" | awk '/=> \// {print $3}' | sort -u); do
    case $(basename "$dep") in
      libc.so*|libm.so*|libstdc++.so*|libgcc_s.so*|ld-linux*|libskb_runtime*) ;;
      *) cp -L "$dep" "$tmp/lib/" ;;
    esac
  done
  rm -rf "$bundle" && mv "$tmp" "$bundle"
  # One file to carry (the libraries it holds compress threefold): tar -xzf it beside the check.
  tar -czf "$bundle.tgz.tmp" -C "$(dirname "$bundle")" "$(basename "$bundle")" && mv "$bundle.tgz.tmp" "$bundle.tgz"
  say "bundle ready: $(du -sh "$bundle" | cut -f1) in $bundle ($(du -sh "$bundle.tgz" | cut -f1) as $bundle.tgz)"
}

if [ "$prepare_only" = 1 ]; then
  export SKB_TOP
  prepare
  exit 0
fi
if ! has_gpu; then
  say "no GPU on this machine (nvidia-smi lists none): nothing to check"
  exit 77
fi
export SKB_TOP
[ -d "$bundle" ] || prepare
export LD_LIBRARY_PATH="$bundle/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
# cuBLASLt, a matmul's dynamic path: the CUDA toolkit's, or the one PyTorch's wheels carry.
cublas=$("$python" -c "import nvidia.cublas, os; print(os.path.join(list(nvidia.cublas.__path__)[0], 'lib'))" \
  2>/dev/null || true)
for d in $cublas /usr/local/cuda/lib64; do
  [ -e "$d/libcublasLt.so.13" ] || [ -e "$d/libcublasLt.so.12" ] && export LD_LIBRARY_PATH="$LD_LIBRARY_PATH:$d"
done
say "$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
say "cuBLASLt (a matmul's dynamic path): $(ls $cublas/libcublasLt.so.* /usr/local/cuda/lib64/libcublasLt.so.* 2>/dev/null \
  | head -1 || true)"
status=0
say "1. the numpy oracle's calls on the GPU"
"$python" "$SKB_TOP/tests/tools/numpy_oracle.py" "$bundle/bin" "$bundle/oracle" --toolchain cuda --phase check \
  --runtime "$bundle/lib/libskb_runtime.so" --replay "$bundle/bin/skb-replay" || status=1
say "2. skb-replay on the example dump"
"$bundle/bin/skb-replay" --install-path "$bundle/bench/lib" "$bundle/bench/dump/example" | tail -3 || status=1
say "3. static against dynamic kernels, MatMul against cuBLAS, and each static kernel launched dependent"
# --dependent: each static kernel also launched as a programmatic dependent launch
# (SKB_CUDA_DEPENDENT_LAUNCH=on), in the same paired samples as the plain launch it is set against.
"$python" "$SKB_TOP/tests/bench/cuda_kernel_bench.py" --runtime "$bundle/lib/libskb_runtime.so" \
  --lib "$bundle/bench/lib" --calls "$bundle/bench/calls.json" --dependent \
  ${SKB_CUDA_BENCH_JSON:+--json "$SKB_CUDA_BENCH_JSON"} || status=1
say "3a. dependent launches (SKB_CUDA_DEPENDENT_LAUNCH=on): chains of static kernels, off then on"
for on in off on; do
  SKB_CUDA_DEPENDENT_LAUNCH=$on "$python" "$SKB_TOP/tests/tools/cuda_chain_check.py" \
    --runtime "$bundle/lib/libskb_runtime.so" --lib "$bundle/bench/lib" --calls "$bundle/bench/calls.json" || status=1
done
say "3b. the matmul tile sweep: skb's choice against every candidate tile and cuBLAS"
# One process times every candidate; a candidate that faults leaves its CUDA context broken, and
# one that hangs holds it. Where the sweep ends so, each candidate is tried alone (its own
# process and time limit) on the sweep's calls, and the sweep runs again without those that fail.
sweep() {  # out-file json-file time-limit candidate-folders...
  local out=$1 json=$2 limit=$3; shift 3
  timeout "$limit" "$python" "$SKB_TOP/tests/bench/cuda_tile_sweep.py" --runtime "$bundle/lib/libskb_runtime.so" \
    --lib "$bundle/bench/lib" $(for l in "$@"; do echo --candidate "$l"; done) --calls "$bundle/sweep/calls.json" \
    --tiles "$bundle/sweep/tiles.json" --json "$json" >"$out" 2>&1
}
broke() { grep -q "Traceback\|CUDA_ERROR\|illegal" "$1"; }  # the sweep could not go on
if [ -d "$bundle/sweep" ]; then
  out=$(mktemp) rc=0 sweep_json=${SKB_CUDA_SWEEP_JSON:-$(mktemp)}
  sweep "$out" "$sweep_json" "${SKB_SWEEP_TIMEOUT:-600}" "$bundle"/sweep/lib* || rc=$?
  if [ "$rc" -gt 1 ] || broke "$out"; then
    cat "$out"
    say "the sweep broke off (status $rc): each candidate alone"
    # The calls it timed stay in its JSON until the sweep without the failed candidates replaces it.
    good=() alone=$(mktemp)
    for l in "$bundle"/sweep/lib*; do
      rc=0 && sweep "$out" "$alone" "${SKB_SWEEP_ALONE_TIMEOUT:-120}" "$l" || rc=$?
      if [ "$rc" -gt 1 ] || broke "$out"; then
        say "FAILED: $(basename "$l") (status $rc): $(grep -m1 "Error\|CUDA_ERROR" "$out" || echo "no time limit left")"
        status=1
      else
        good+=("$l")
      fi
    done
    rc=0 && sweep "$out" "$sweep_json" "${SKB_SWEEP_TIMEOUT:-600}" "${good[@]}" || rc=$?
  fi
  cat "$out"
  [ "$rc" = 0 ] || status=1
  # The tables' figures fitted to these times, and what the fitted tables would pick: the fit
  # that `cuda_tile_fit.py fit SWEEP.json --write` puts into skb_matmul_plan.h.
  [ -s "$sweep_json" ] && { "$python" "$SKB_TOP/tests/bench/cuda_tile_fit.py" fit "$sweep_json" || status=1; }
fi
say "4. skb bench: every static kernel against its dynamic path on this GPU, the slower ones withheld"
lib=$(mktemp -d)/lib && cp -r "$bundle/bench/lib" "$lib"
"$bundle/bin/skb" bench --install-path "$lib" "$bundle/bench/dump/example" "$bundle/bench/dump/sized" --budget "${SKB_GPU_BENCH_BUDGET:-60}" \
  --output "${SKB_GPU_PAYOFF_JSON:-$(dirname "$lib")/payoff.json}" | tail -60 || status=1
# Each call whose static kernel was found slower: the runtime gives its dynamic path and says why
# (the runtime's find, not a run: the library's 4096³ calls have no quick CPU reference).
"$python" - "$bundle/lib/libskb_runtime.so" "$lib" "${SKB_GPU_PAYOFF_JSON:-$(dirname "$lib")/payoff.json}" \
  "$bundle/bench/calls.json" <<'PY' || status=1
import ctypes, json, sys
L = ctypes.CDLL(sys.argv[1])
P = ctypes.POINTER(ctypes.c_void_p)
L.skb_runtime_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, P]
L.skb_runtime_find.argtypes = [ctypes.c_void_p, ctypes.c_char_p, P]
for f in (L.skb_op_kind, L.skb_op_free, L.skb_op_why, L.skb_op_kernel_name):
    f.argtypes = [ctypes.c_void_p]
L.skb_op_why.restype = L.skb_op_kernel_name.restype = L.skb_last_error.restype = ctypes.c_char_p
rt = ctypes.c_void_p()
assert L.skb_runtime_open(sys.argv[2].encode(), None, ctypes.byref(rt)) == 0, L.skb_last_error()
slower = {k["kernel"] for k in json.load(open(sys.argv[3]))["kernels"] if k["verdict"] == "slower"}
served = withheld = 0
for call in json.load(open(sys.argv[4])):
    op = ctypes.c_void_p()
    if L.skb_runtime_find(rt, json.dumps(call).encode(), ctypes.byref(op)) != 0:
        continue
    why = L.skb_op_why(op).decode()
    if why and "measured" in why:
        withheld += 1
        if withheld == 1:
            print("for example: %s -> %s: %s" % (call["op_type"], L.skb_op_kernel_name(op).decode(), why))
    elif L.skb_op_kind(op) == 1 and L.skb_op_kernel_name(op).decode() in slower:
        served += 1
    L.skb_op_free(op)
print("%d kernels found slower; %d calls take their dynamic path instead, saying why; %d still served a slower "
      "kernel" % (len(slower), withheld, served))
sys.exit(0 if served == 0 and (withheld > 0 or not slower) else 1)
PY
say "5. a kernel that faults: its CUDA error is SKB_ERR_KERNEL with the driver's message"
# Its own process, last: a faulted context stays broken.
"$python" - "$bundle/lib/libskb_runtime.so" "$bundle/bench/lib" "$bundle/bench/calls.json" <<'PY' || status=1
import ctypes, json, sys
L = ctypes.CDLL(sys.argv[1])
P = ctypes.POINTER(ctypes.c_void_p)
L.skb_runtime_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, P]
L.skb_runtime_find.argtypes = [ctypes.c_void_p, ctypes.c_char_p, P]
L.skb_op_run.argtypes = [ctypes.c_void_p, P, P]
L.skb_last_error.restype = ctypes.c_char_p
rt, op = ctypes.c_void_p(), ctypes.c_void_p()
assert L.skb_runtime_open(sys.argv[2].encode(), None, ctypes.byref(rt)) == 0, L.skb_last_error()
call = next(c for c in json.load(open(sys.argv[3])) if c["op_type"] == "Add")
assert L.skb_runtime_find(rt, json.dumps(call).encode(), ctypes.byref(op)) == 0, L.skb_last_error()
bad = (ctypes.c_void_p * 2)(0x1000, 0x1000)  # not device memory
rc = L.skb_op_run(op, bad, (ctypes.c_void_p * 1)(0x1000))
print("skb_op_run on addresses that are not device memory: status %d: %s" % (rc, L.skb_last_error().decode()))
sys.exit(0 if rc == 5 and b"CUDA_ERROR" in L.skb_last_error() else 1)
PY
[ "$status" = 0 ] && say "every check passed" || say "FAILED (see above)"
exit "$status"
