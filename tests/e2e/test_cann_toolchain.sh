# CANN's kernel format end to end: a profile for a compiler that writes <name>.o and its kernel JSON
# (tests/tools/cann_compiler.py, a stand-in written from opbase's readers), run through op_compiler
# with torchair's argv on the example dump and on a dump of dynamic-list, value-depend, string-attr
# and default-impl-mode calls. The installed library is then read as opbase reads it, and every
# recorded call looked up by both of opbase's engines (tests/tools/opbase_reader.py).
source "$(dirname "$0")/lib.sh"
examples="$SKB_SOURCE/examples/op_stats"
mkdir -p ops
# The ops the profile declares: every op of both dumps; the implementations are the compiler's.
ops="Add Sub Mul RealDiv Relu Gelu FastGelu Square Cast MatMulV2 BatchMatMulV2 SoftmaxV2 LayerNorm RmsNorm
     Transpose Tile ConcatD Pack SplitD GroupedMatmul PadV3 StridedSliceStr"
for op in $ops; do echo "// $op" > "ops/$op.cpp"; done
write_profile() {  # file compiler
  python3 - "$PWD/ops" "$2" "$ops" > "$1" <<'PY'
import json, sys
dtypes = ["float", "float16", "bfloat16", "int32", "int64", "bool"]
print(json.dumps({
    "name": "cann_standin", "description": "CANN's kernel format: <name>.o and the compiler's kernel JSON.",
    "compiler": sys.argv[2], "identify": ["python3", "--version"],
    "command": ["{compiler}", "--info", "{info}", "--kernel-json", "{sidecar}", "-o", "{out}", "{src}", "{defines}"],
    "suffix": ".o", "sidecar": True, "entry": "skb_kernel", "core_type": 1, "block_dim": 1,
    "template_dir": sys.argv[1], "headers": [], "default_soc": "Ascend910B3",
    "ops": {op: {"template": op + ".cpp", "dtypes": dtypes} for op in sys.argv[3].split()}}, indent=1))
PY
}
write_profile cann.json "$SKB_SOURCE/tests/tools/cann_compiler.py"

# torchair's layout: a process folder of the example dump's records, and one of the new calls.
result=$PWD/aclnn_static_shape_kernel_outputs/ts20261126101500123456_pid4242_outputs
selected=$result/4242_opcompile_selected
extra=$PWD/aclnn_static_shape_kernel_outputs/ts20261126101500654321_pid4343_outputs/4343_opcompile_selected
mkdir -p "$selected" "$extra"
cp "$examples"/aclnn_static_shape_kernel_outputs/*_pid1000_outputs/1000_opcompile/*.json "$selected/"
python3 - "$extra" <<'PY'
import json, os, sys
def t(dtype, shape, i=0, param="required", **kw):
    d = {"name": "x%d" % i, "index": i, "param_type": param, "dtype": dtype, "format": "ND", "shape": shape,
         "origin_format": "ND", "origin_shape": shape, "is_view": False, "value_depend": False}
    d.update(kw)
    return d
def dep(dtype, values, i):
    return t(dtype, [len(values)], i, value_depend=True, const_data=values)
def a(name, i, dtype, value):
    return {"name": name, "index": i, "dtype": dtype, "value": value}
def write(name, op, inputs, outputs, attrs=(), impl="high_performance"):
    r = {"op_type": op, "inputs": inputs, "outputs": outputs, "attrs": list(attrs), "deterministic": "false",
         "deterministic_level": 0, "impl_mode": impl, "tune_mode": "all",
         "platform_info": {"cube_core_cnt": 24, "vector_core_cnt": 48}}
    json.dump(r, open(os.path.join(sys.argv[1], name + ".json"), "w"), indent=2, sort_keys=True)
h = "float16"
# dynamic lists: ConcatD of two tensors of different shapes, Pack of three, SplitD's output list
write("ConcatD_1", "ConcatD", [[t(h, [2, 3], 0, "dynamic"), t(h, [2, 5], 1, "dynamic")]], [t(h, [2, 8])],
      [a("concat_dim", 0, "int", 1), a("N", 1, "int", 2)])
write("Pack_2", "Pack", [[t("float", [4], j, "dynamic") for j in range(3)]], [t("float", [3, 4])],
      [a("axis", 0, "int", 0), a("N", 1, "int", 3)])
write("SplitD_3", "SplitD", [t(h, [6, 4])], [[t(h, [2, 4], j, "dynamic") for j in range(3)]],
      [a("split_dim", 0, "int", 0), a("num_split", 1, "int", 3)])
# an empty dynamic list between two inputs, and the same call with the optional input absent
write("GroupedMatmul_4", "GroupedMatmul", [t(h, [4, 8], 0), [], t(h, [8, 2], 2)], [t(h, [4, 2])])
write("GroupedMatmul_5", "GroupedMatmul", [t(h, [4, 8], 0), None, t(h, [8, 2], 2)], [t(h, [4, 2])])
# value-depend: Transpose's perm in int64 and int32, Tile's multiples in int32 and int64
write("Transpose_6", "Transpose", [t(h, [2, 3, 4]), dep("int64", [2, 0, 1], 1)], [t(h, [4, 2, 3])])
write("Transpose_7", "Transpose", [t(h, [2, 3, 4]), dep("int32", [1, 0, 2], 1)], [t(h, [3, 2, 4])])
write("Tile_8", "Tile", [t("float", [2, 3]), dep("int32", [2, 1], 1)], [t("float", [4, 3])])
write("Tile_9", "Tile", [t("float", [2, 3]), dep("int64", [1, 3], 1)], [t("float", [2, 9])])
# strings of 7, 8 and 16 characters, and an empty one
for n, mode in enumerate(["reflect", "constant", "circular_padding", ""]):
    write("PadV3_%d" % (10 + n), "PadV3", [t("float", [4, 4]), dep("int64", [1, 1, 1, 1], 1)], [t("float", [6, 6])],
          [a("mode", 0, "str", mode), a("paddings_contiguous", 1, "bool", True)])
write("StridedSliceStr_14", "StridedSliceStr", [t(h, [8, 8])], [t(h, [8, 8])], [a("layout", 0, "string", "NDHWCabc")])
# the default impl mode: the individual engine keys p=0, the composite engine p=2 or p=1
write("Relu_15", "Relu", [t(h, [3, 7])], [t(h, [3, 7])], impl="")
write("ConcatD_16", "ConcatD", [[t(h, [1, 3], 0, "dynamic"), t(h, [1, 4], 1, "dynamic")]], [t(h, [1, 7])],
      [a("concat_dim", 0, "int", 1), a("N", 1, "int", 2)], impl="default")
PY
n_extra=$(ls "$extra" | wc -l)

op_compile() {  # records-folder out-folder
  SKB_TOOLCHAIN=$PWD/cann.json PATH=$SKB_BIN/../libexec/skb/compat:$PATH \
    op_compiler -p "$1" -v Ascend910B3 -j 2 -o "$2" -l error -f true
}

step "op_compiler with torchair's argv builds .o kernels of both dumps; the .run installs"
out=$(op_compile "$selected" "$result" 2>cann.err) || fail "op_compiler on the example dump: $(tail -5 cann.err)"
[[ $out =~ ^generate\ run\ package\ (static_kernel_[0-9]{14}_[0-9a-f]{8}\.run)\ success$ ]] || fail "stdout: $out"
run_a=$result/${BASH_REMATCH[1]}
extra_root=$(dirname "$extra")
# A device id that is no number (it names the logs) is said, and the logs are kept as d0's.
out=$(ASCEND_DEVICE_ID=0/1 op_compile "$extra" "$extra_root" 2>cann_extra.err) ||
  fail "op_compiler on the new calls: $(tail -5 cann_extra.err)"
grep -q "ASCEND_DEVICE_ID=0/1: expected a device number" cann_extra.err || fail "$(cat cann_extra.err)"
[[ $out =~ ^generate\ run\ package\ (static_kernel_[0-9]{14}_[0-9a-f]{8}\.run)\ success$ ]] || fail "stdout: $out"
run_b=$extra_root/${BASH_REMATCH[1]}
expect_eq "$(find "$PWD/aclnn_static_shape_kernel_outputs" -name '*_compile_error.log' | wc -l)" 0 "error logs"
succ_b=$(find "$extra_root" -name '*_compile_succ.log' | wc -l)
expect_eq "$succ_b" "$n_extra" "kernels of the new calls (one per distinct call, each with a success log)"
sh "$run_a" --quiet --install-path="$PWD/cann"
sh "$run_b" --quiet --install-path="$PWD/cann"
succ=$(find "$PWD/aclnn_static_shape_kernel_outputs" -name '*_compile_succ.log' | wc -l)
expect_eq "$(check_library cann)" "$succ" "kernels installed, one per success log"

step "opbase's readers take every entry; both engines find the kernel of every recorded call"
python3 "$SKB_SOURCE/tests/tools/opbase_reader.py" "$(lib_root cann)" ascend910b "$selected" "$extra" ||
  fail "the library is not what opbase finds the recorded calls in"
python3 - "$(lib_root cann)" <<'PY' || fail "the index is not what this dump's calls need"
import json, os, sys
index = json.load(open(os.path.join(sys.argv[1], "config", "ascend910b", "binary_info_config.json")))
assert index["Transpose"]["valueDependIndex"] == [1] and index["Tile"]["valueDependIndex"] == [1], index["Tile"]
assert "valueDependIndex" not in index["ConcatD"]
kinds = {e["coreType"] for op in index for e in index[op]["staticList"]}
assert kinds == {0, 1, 2}, kinds  # MIX, AiCore and VectorCore kernels, each as its JSON says
per_kernel = {}
for e in index["ConcatD"]["staticList"]:
    per_kernel.setdefault(e["binPath"], []).append(e["simplifiedKey"])
# a list: a key per engine; the default impl mode: the individual engine's p=0, the composite's p=2 and p=1
sizes = sorted(len(k) for k in per_kernel.values())
assert sizes[0] == 2 and sizes[-1] == 3 and len(sizes) >= 3, per_kernel
print("    ConcatD: %s" % sorted(per_kernel.values(), key=len)[0])
PY

step "a kernel JSON opbase would misread fails that kernel's compile, naming the file and the field"
sed 's/^KIND_OVERRIDE = None/KIND_OVERRIDE = "AICORE"/' "$SKB_SOURCE/tests/tools/cann_compiler.py" > bad_kind.py
chmod +x bad_kind.py
write_profile bad_kind.json "$PWD/bad_kind.py"
skb-generate -p "$extra" -o bad_kind --toolchain "$PWD/bad_kind.json" --no-package -q
rc=0; ninja -C bad_kind -k 0 > bad_kind.log 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a kernel whose JSON names a kind opbase does not know was built"
grep -q "the compiler's sidecar (.*\.sidecar\.json): /coreType: expected a kernel type opbase knows" bad_kind.log ||
  fail "the error does not name the file and /coreType: $(grep -m3 error bad_kind.log)"
[ -z "$(ls bad_kind/kernel_meta | grep '\.o$')" ] || fail "a .o was kept: $(ls bad_kind/kernel_meta | grep '\.o$' | head -3)"

step "a compile that fails: its log is an error log, op_compiler exits 1, no kernel looks built"
fresh=$PWD/aclnn_static_shape_kernel_outputs/ts20261126101500999999_pid4444_outputs
mkdir -p "$fresh/4444_opcompile_selected"
cp "$extra"/*.json "$fresh/4444_opcompile_selected/"
rc=0; SKB_CANN_FAIL=ConcatD op_compile "$fresh/4444_opcompile_selected" "$fresh" > fail.out 2>fail.err || rc=$?
expect_eq "$rc" 1 "op_compiler's exit status when a compile fails"
[ "$(find "$fresh" -name 'static_kernel_ConcatD_*_compile_error.log' | wc -l)" -ge 1 ] || fail "no ConcatD error log"
expect_eq "$(find "$fresh" -name 'static_kernel_ConcatD_*_compile_succ.log' | wc -l)" 0 "ConcatD success logs"
grep -q "SKB_CANN_FAIL" "$(find "$fresh" -name 'static_kernel_ConcatD_*_compile_error.log' | head -1)" ||
  fail "the error log does not hold the compiler's message"
[ -z "$(find "$fresh" -name '*.run')" ] || fail "a package was made although a compile failed"
echo PASS
