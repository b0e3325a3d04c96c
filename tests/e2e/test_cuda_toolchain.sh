# The cuda toolchain: nvcc compiles one cubin per distinct shape for the architecture of --soc;
# every kernel's entry is in its cubin, built for that architecture. No GPU is needed. Skipped
# (exit 77, which ctest reports as skipped) when nvcc is not installed.
source "$(dirname "$0")/lib.sh"
[ -d /usr/local/cuda/bin ] && export PATH="$PATH:/usr/local/cuda/bin"
if ! command -v nvcc >/dev/null; then
  echo "SKIP: nvcc is not on PATH nor in /usr/local/cuda/bin; the cuda toolchain cannot be tested here"
  exit 77
fi
if command -v cuobjdump >/dev/null; then
  entries() { cuobjdump -symbols "$1" | grep -o 'STO_ENTRY *[A-Za-z_0-9]*' | awk '{print $2}'; }
  arch() { cuobjdump -elf "$1" | grep -o 'arch = sm_[0-9]*' | head -1 | sed 's/arch = sm_//'; }
else
  # A cubin is an ELF file: entries are global functions; the SM version is in e_flags bits 8-15.
  echo "(cuobjdump is not installed: reading the cubins' ELF headers and symbols with readelf)"
  entries() { readelf -sW "$1" | awk '$4 == "FUNC" && $5 == "GLOBAL" {print $NF}'; }
  arch() {
    readelf -hW "$1" | grep -q 'NVIDIA CUDA' || { echo "not a CUDA ELF"; return; }
    echo $(( ($(readelf -hW "$1" | awk '/Flags:/ {print $2}') >> 8) & 0xff ))
  }
fi
make_dump dump --ranks 2 --seqs 4 --hidden 16 --heads 2
# SoftmaxV2 over several axes, unsorted and negative (the reduction the templates share).
python3 - "$(ls -d dump/*/*_opcompile | head -1)" <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["SKB_SOURCE"], "tests", "tools"))
from make_dump import attr, record, tensor
for i, axes in enumerate([[2, 0], [-2, -1]]):
    r = record("SoftmaxV2", [tensor("x", 0, "float16", [2, 3, 4, 5])], [tensor("y", 0, "float16", [2, 3, 4, 5])],
               [attr("axes", 0, "list_int", axes)])
    json.dump(r, open(os.path.join(sys.argv[1], "SoftmaxV2_float16_ND_2_3_4_5_%d.json" % (90 + i)), "w"))
PY

check_build() {  # out soc-number
  local out=$1 want=$2 n=0
  for k in $(json_get "$out/plan.json" '" ".join(k["name"] for k in j["kernels"])'); do
    local bin="$out/kernel_meta/$k.cubin"
    [ -f "$bin" ] || fail "$k: no cubin"
    expect_eq "$(entries "$bin")" "skb_kernel" "$k: entries of the cubin"
    expect_eq "$(arch "$bin")" "$want" "$k: architecture"
    n=$((n + 1))
  done
  echo "$n"
}

step "every supported op of the dump compiles for sm_90 with its entry present"
skb-generate -p dump -o out90 --toolchain cuda --soc sm_90 -q
planned=$(json_get out90/summary.json 'j["planned_total"]')
[ "$planned" -gt 0 ] || fail "nothing planned"
for op in Add MatMulV2 BatchMatMulV2 SoftmaxV2 Relu; do
  [ "$(json_get out90/summary.json "j['planned'].get('$op', 0)")" -gt 0 ] || fail "no $op kernel planned"
done
expect_eq "$(grep -l '"value":\[2,0\]\|"value":\[-2,-1\]' out90/kernel_meta/SoftmaxV2_*.info | wc -l)" 2 \
  "multi-axis SoftmaxV2 kernels planned"
expect_eq "$(ninja_compiles out90)" "$planned" "compiles for sm_90"
expect_eq "$(check_build out90 90)" "$planned" "kernels checked for sm_90"
verify_kernels out90/kernel_meta >/dev/null || fail "kernels do not match their records"
expect_eq "$(ninja -C out90 | tail -1)" "ninja: no work to do." "second ninja"

step "another architecture is another kernel: sm_80 names differ and the cubins say sm_80"
skb-generate -p dump -o out80 --toolchain cuda --soc sm_80 -q --no-package
ninja -C out80 >/dev/null
expect_eq "$(check_build out80 80)" "$planned" "kernels checked for sm_80"
common=$(comm -12 <(ls out90/kernel_meta) <(ls out80/kernel_meta) | wc -l)
expect_eq "$common" "0" "files shared between sm_90 and sm_80 builds"

step "sm_90a: large 16-bit matmuls read their operands through tensor maps (skb_tma), small ones do not"
mkdir -p dump90a
python3 - dump90a <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["SKB_SOURCE"], "tests", "tools"))
from sweep_calls import mm
# Each call's x1 has a shape no other tensor of these calls has: it names the call's kernel.
for i, r in enumerate([mm("float16", 2048, 1024, 2048), mm("bfloat16", 1536, 768, 1280, ta=True, tb=True, bias=True),
                       mm("float16", 640, 512, 896, "BatchMatMulV2", (4,), tb=True), mm("float16", 16, 32, 16)]):
    json.dump(r, open(os.path.join(sys.argv[1], "mm_%d.json" % i), "w"))
PY
skb-generate -p dump90a -o out90a --toolchain cuda --soc sm_90a -q --no-package 2>/dev/null
ninja -C out90a >ninja90a.log 2>&1 || fail "sm_90a build: $(tail -5 ninja90a.log)"
# ptxas says so where it must serialize the wgmma pipeline (C7515): every tile would run slowly.
expect_eq "$(grep -c 'C7515' ninja90a.log)" 0 "ptxas warnings of serialized wgmma"
maps() {  # the count of tensor maps a kernel's cubin plans (its skb_tma's first word), by its x1's shape
  local bin
  bin=$(grep -l "\"shape\":\[$1\]" out90a/kernel_meta/*.info | sed 's/\.info$/.cubin/')
  python3 - "$bin" <<'PY'
import struct, sys
elf = open(sys.argv[1], "rb").read()
shoff, = struct.unpack_from("<Q", elf, 0x28)
shentsize, shnum = struct.unpack_from("<HH", elf, 0x3A)
sections = [struct.unpack_from("<IIQQQQIIQQ", elf, shoff + i * shentsize) for i in range(shnum)]
for sh in sections:
    if sh[1] != 2:  # SHT_SYMTAB
        continue
    strtab = sections[sh[6]]
    for off in range(sh[4], sh[4] + sh[5], 24):
        name, info, other, shndx, value, size = struct.unpack_from("<IBBHQQ", elf, off)
        if elf[strtab[4] + name:].split(b"\0", 1)[0] == b"skb_tma":
            print(struct.unpack_from("<I", elf, sections[shndx][4] + value)[0])
            sys.exit(0)
print("none")
PY
}
expect_eq "$(maps 2048,1024)" 2 "2048 x 1024 x 2048 float16: tensor maps of both operands"
expect_eq "$(maps 768,1536)" 2 "transposed bfloat16 with a bias: tensor maps of both operands"
expect_eq "$(maps 4,640,512)" 2 "batched float16: tensor maps of both operands"
expect_eq "$(maps 16,32)" 0 "16 x 32 x 16: mma.sync, no tensor map"
for bin in out90a/kernel_meta/*.cubin; do
  expect_eq "$(entries "$bin")" "skb_kernel" "$bin: entries of the cubin"
done

step "the graph's package holds the cubins"
run=$(json_get out90/package.json 'j["run"]')
expect_eq "$(sh "$run" --list | grep -c '\.cubin$')" "$planned" "cubins listed by the .run"

step "--dynamic adds one dynamic cubin per (op, dtypes), entry skb_kernel_dynamic"
skb-generate -p dump -o outdyn --toolchain cuda --dynamic -q
ninja -C outdyn >/dev/null
dyn=$(json_get outdyn/plan.json '" ".join(k["name"] for k in j["kernels"] if k["variant"] == "dynamic")')
[ -n "$dyn" ] || fail "no dynamic kernel planned"
for k in $dyn; do
  expect_eq "$(entries "outdyn/kernel_meta/$k.cubin")" "skb_kernel_dynamic" "$k: entries of the cubin"
done
echo "    $(wc -w <<<"$dyn") dynamic kernels"

step "the package says how each kernel is launched, and the runtime needs a driver to open it"
run=$(json_get outdyn/package.json 'j["run"]')
sh "$run" -q --install-path="$PWD/lib" || fail "install"
# A static kernel's grid covers its first output, 256 threads a block, at most 4096 blocks; a
# dynamic one's is worked out for each call (0).
python3 - lib <<'PY' || fail "launch fields"
import glob, json, math, sys
index = json.load(open(glob.glob(sys.argv[1] + "/opp/static_kernel/ai_core/config/sm_90/binary_info_config.json")[0]))
n = 0
for op, entry in index.items():
    for e in entry["staticList"] + entry.get("skbList", []):
        info = json.loads(open(glob.glob(sys.argv[1] + "/opp/static_kernel/ai_core/" +
                                         e["binPath"].rsplit(".", 1)[0] + ".info")[0]).read())
        l = e["launch"]
        assert l["device"] == "cuda" and l["block"] == 256 and l["max_grid"] == 4096, e
        if e["variant"] == "dynamic":
            assert l["grid"] == 0, e
        else:
            y = next(t for t in info["outputs"] if t)
            want = max(1, min(4096, math.ceil(math.prod(y["shape"]) / 256)))
            assert l["grid"] == want, (e["kernelName"], l, y["shape"])
        n += 1
print("    %d index entries, each with its launch" % n)
PY
rc=0; SKB_CUDA_DRIVER=/nonexistent/libcuda.so.1 skb-replay --install-path lib dump >replay.out 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "skb-replay ran cuda kernels without a driver"
grep -q "cuda kernels need the NVIDIA driver.*/nonexistent/libcuda.so.1" replay.out || fail "unclear: $(cat replay.out)"
echo "    without a driver: $(head -1 replay.out | cut -c1-160)"

step "the same shape rules: a contradicting record is refused, and its constants would not compile"
mkdir -p bad
cp "$SKB_SOURCE/tests/fuzz/corpus/op_record/hostile_shape_matmul_transpose_x2.json" bad/
skb-generate -p bad -o outbad --toolchain cuda -q 2>bad.err || fail "skb-generate failed: $(cat bad.err)"
expect_eq "$(json_get outbad/summary.json 'len(j["files_rejected"])')" 1 "contradicting records rejected"
grep -q 'hostile_shape_matmul_transpose_x2.json: /inputs/1/shape: expected \[32,128\] for MatMulV2 with transpose_x1=false, transpose_x2=true, found \[128,32\]' bad.err ||
  fail "unexpected message: $(cat bad.err)"
tpl=$SKB_BIN/../share/skb/templates/kernels
for src in "matmul.cu -DSKB_IN0_SHAPE=4\\,5 -DSKB_IN1_SHAPE=6\\,3" "binary.cu -DSKB_IN0_SHAPE=4\\,5 -DSKB_IN1_SHAPE=3\\,5"; do
  set -- $src
  file=$1; shift
  rc=0
  nvcc -cubin -arch=sm_90 -std=c++17 -I"$tpl/cuda" -I"$tpl/common" -DSKB_STATIC=1 -DSKB_OP=$(case $file in matmul.cu) echo MatMulV2;; *) echo Add;; esac) \
    -DSKB_NUM_INPUTS=2 -DSKB_NUM_OUTPUTS=1 -DSKB_IN0_DTYPE=float -DSKB_IN1_DTYPE=float -DSKB_OUT0_DTYPE=float \
    -DSKB_IN0_FORMAT=ND -DSKB_IN1_FORMAT=ND -DSKB_OUT0_FORMAT=ND "$@" -DSKB_OUT0_SHAPE=4\\,3 -o bad.cubin "$tpl/cuda/$file" \
    >nvcc.log 2>&1 || rc=$?
  [ "$rc" != 0 ] || fail "$file: a kernel whose constants contradict each other compiled"
  grep -q "contradict each other" nvcc.log || fail "$file: nvcc failed otherwise: $(head -5 nvcc.log)"
done
echo "ok: $planned kernels for sm_90 and sm_80; contradictions refused"
