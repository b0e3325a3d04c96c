# A toolchain of the user's own, outside the source tree: the host templates compiled by clang++
# instead of g++. Its kernels get other names, package and install like any others, and every
# call of the example dump run through the runtime matches the reference.
source "$(dirname "$0")/lib.sh"
command -v clang++ >/dev/null || fail "clang++ is not installed (scripts/test.sh installs clang)"
templates="$SKB_BIN/../share/skb/templates"
python3 - "$templates" > mine.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/toolchains/host.json"))
p.update(name="clang_host", compiler="clang++", template_dir=sys.argv[1] + "/kernels/host",
         description="The host templates, compiled by clang++.")
print(json.dumps(p, indent=1))
PY
examples="$SKB_SOURCE/examples/op_stats"

step "the profile is validated and loads from outside the tree"
skb-generate -p "$examples/aclnn_static_shape_kernel_outputs" -o gcc --no-package -q
skb-generate -p "$examples/aclnn_static_shape_kernel_outputs" -o clang --no-package -q --toolchain "$PWD/mine.json"
grep -q 'clang++' clang/build.ninja || fail "clang++ is not in the compile rule"
expect_eq "$(comm -12 <(ls gcc/kernel_meta) <(ls clang/kernel_meta) | wc -l)" "0" "kernel files shared by gcc and clang plans"

step "clang++ builds the kernels; the package installs; the runtime runs them correctly"
run=$(build_package "$examples/aclnn_static_shape_kernel_outputs" pkg --toolchain "$PWD/mine.json" --dynamic)
sh "$run" --quiet --install-path="$PWD/lib"
out=$("$SKB_BIN/skb-replay" --install-path "$PWD/lib" "$examples/aclnn_static_shape_kernel_outputs" "$examples/unseen")
echo "$out"
echo "$out" | grep -q ", 0 differed$" || fail "outputs differ from the reference"

step "a compiler that writes its own JSON of each kernel ({sidecar}): the index takes blockDim, kernelName, workspace from it"
# A compiler that writes JSON as each kernel's own JSON ({sidecar}, its first argument), then
# compiles with c++ as the host toolchain does.
sidecar_compiler() {  # file json
  printf '#!/bin/sh\nside=$1; shift\nprintf '"'"'%%s\\n'"'"' '"'"'%s'"'"' > "$side"\nexec c++ "$@"\n' "$2" > "$1"
  chmod +x "$1"
}
# As CANN's compiler does: the kernel, and beside it a JSON of blockDim, kernelName, workspace, platformInfo.
sidecar_compiler sidecc '{"blockDim": 24, "kernelName": "skb_kernel", "workspace": {"num": 1, "size": [32]}, "platformInfo": {"cubeCoreCnt": 24, "vectorCoreCnt": 48}}'
python3 - "$templates" "$PWD/sidecc" > side.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/toolchains/host.json"))
p.update(name="side", compiler=sys.argv[2], template_dir=sys.argv[1] + "/kernels/host", sidecar=True, core_type=1,
         identify=["c++", "--version"], command=["{compiler}", "{sidecar}"] + p["command"][1:],
         link=["c++"] + p["link"][1:])
print(json.dumps(p, indent=1))
PY
run=$(build_package "$examples/aclnn_static_shape_kernel_outputs" side --toolchain "$PWD/side.json" -v Ascend910B2)
sh "$run" --quiet --install-path="$PWD/side_lib"
python3 - "$(lib_root side_lib)" <<'PY' || fail "the index does not carry the sidecar's fields"
import json, os, sys
root = sys.argv[1]
index = json.load(open(os.path.join(root, "config", "ascend910b", "binary_info_config.json")))
n = 0
for op, e in index.items():
    for k in e["staticList"]:
        assert k["coreType"] == 1 and k["binDesc"] == {"blockDim": 24, "kernelName": "skb_kernel", "workspace": [32]}, k
        side = os.path.join(root, k["binPath"].rsplit(".", 1)[0] + ".json")
        assert json.load(open(side))["platformInfo"]["cubeCoreCnt"] == 24, side  # the sidecar ships beside the kernel
        assert os.path.isfile(side[:-5] + ".build.json"), side
        n += 1
assert n > 0
print("    %d entries take blockDim 24 and workspace [32] from the compiler's sidecar" % n)
PY
out=$("$SKB_BIN/skb-replay" --install-path "$PWD/side_lib" "$examples/aclnn_static_shape_kernel_outputs")
echo "$out" | grep -q ", 0 differed$" || fail "outputs differ from the reference: $out"

step "kernels of any suffix: a compiler that writes <name>.o and its JSON (no link step), through op_compiler as torchair runs it"
# Its JSON says the kernel's kind and, in runInfo, its block dim, as CANN's does for MIX kernels.
sidecar_compiler cannc '{"kernelName": "skb_kernel", "coreType": "MIX", "blockDim": 2, "runInfo": {"block_dim": 20}, "workspace": {"num": 1, "size": [64]}, "platformInfo": {"cubeCoreCnt": 20, "vectorCoreCnt": 40}}'
python3 - "$templates" "$PWD/cannc" > cann_like.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/toolchains/host.json"))
p.update(name="cann_like", compiler=sys.argv[2], template_dir=sys.argv[1] + "/kernels/host", sidecar=True, core_type=1,
         identify=["c++", "--version"], suffix=".o",
         command=["{compiler}", "{sidecar}"] + ["{out}" if w == "{obj}" else w for w in p["command"][1:]])
del p["link"]
print(json.dumps(p, indent=1))
PY
result=$PWD/aclnn_static_shape_kernel_outputs/ts20261123101500123456_pid4242_outputs
mkdir -p "$result/4242_opcompile_selected"
cp "$examples"/aclnn_static_shape_kernel_outputs/*_pid1000_outputs/1000_opcompile/*.json "$result/4242_opcompile_selected/"
out=$(SKB_TOOLCHAIN=$PWD/cann_like.json PATH=$SKB_BIN/../libexec/skb/compat:$PATH \
  op_compiler -p "$result/4242_opcompile_selected" -v Ascend910B3 -j 2 -o "$result" -l error -f true 2>cann.err) ||
  fail "op_compiler with .o kernels: $(tail -5 cann.err)"
[[ $out =~ ^generate\ run\ package\ (static_kernel_[0-9]{14}_[0-9a-f]{8}\.run)\ success$ ]] || fail "stdout: $out"
run=$result/${BASH_REMATCH[1]}
expect_eq "$(find "$result" -name '*_compile_error.log' | wc -l)" 0 "error logs"
succ=$(find "$result" -name '*_compile_succ.log' | wc -l)
[ "$succ" -gt 0 ] || fail "no success log"
sh "$run" --quiet --install-path="$PWD/cann_lib"
expect_eq "$(check_library cann_lib)" "$succ" "kernels installed, one per success log"
python3 - "$(lib_root cann_lib)" <<'PY' || fail "the installed .o kernels are not as opbase reads them"
import json, os, sys
root = sys.argv[1]
index = json.load(open(os.path.join(root, "config", "ascend910b", "binary_info_config.json")))
n = 0
for op, e in index.items():
    for k in e["staticList"]:
        assert k["binPath"].endswith(".o"), k  # the composite engine skips a binPath without ".o"
        kernel = os.path.join(root, k["binPath"])
        assert open(kernel, "rb").read(4) == b"\x7fELF", kernel
        bin_path = k["binPath"]  # opbase's JSON of it: the path up to its first ".o", then "json"
        side = json.load(open(os.path.join(root, bin_path[: bin_path.index(".o") + 1] + "json")))
        assert side["runInfo"]["block_dim"] == 20 and side["kernelName"] == k["binDesc"]["kernelName"], side
        # the index agrees with the kernel's JSON: its kind (MIX is 0) and runInfo's block dim
        assert k["coreType"] == 0 and k["binDesc"] == {"blockDim": 20, "kernelName": "skb_kernel", "workspace": [64]}, k
        n += 1
assert n > 0
# Transpose's perm (input 1) is value-depend: the composite engine keys its data only when the op
# entry lists it; ops without value-depend inputs list none.
assert index["Transpose"]["valueDependIndex"] == [1], index["Transpose"].get("valueDependIndex")
assert "valueDependIndex" not in index["MatMulV2"], index["MatMulV2"]
print("    %d .o kernels, each with its JSON where opbase reads it, the index agreeing with it" % n)
PY
sed -i 's/"coreType": "MIX"/"coreType": "AICORE"/' cannc
skb-generate -p "$examples/aclnn_static_shape_kernel_outputs" -o bad_kind --toolchain "$PWD/cann_like.json" --no-package -q
rc=0; ninja -C bad_kind -k 0 > bad_kind.log 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a kernel whose JSON names a kind opbase does not know was built"
grep -q "the compiler's sidecar (.*\.sidecar\.json): /coreType: expected a kernel type opbase knows" bad_kind.log ||
  fail "the error does not name the file and /coreType: $(grep -m3 error bad_kind.log)"

step "a sidecar that is not valid fails that kernel's compile, naming the field, and leaves nothing of it"
sed -i 's/"blockDim": 24/"blockDim": -3/' sidecc
skb-generate -p "$examples/aclnn_static_shape_kernel_outputs" -o bad_side --toolchain "$PWD/side.json" --no-package -q
# The compiler is a script: its bytes are part of every kernel's name, so the edited wrapper's
# kernels are new ones (a store never serves the old wrapper's kernels for them).
expect_eq "$(comm -12 <(ls side/.skb/kernel_meta | grep '\.info$') <(ls bad_side/kernel_meta | grep '\.info$') | wc -l)" 0 \
  "kernels named alike before and after the wrapper script was edited"
skb explain side/.skb bad_side > wrapper.explain || true
grep -q "compiler: line [0-9]*: \"\[the compiler is a script of sha256 [0-9a-f]*\]\" → " wrapper.explain ||
  fail "skb explain does not name the wrapper script: $(head -5 wrapper.explain)"
rc=0; ninja -C bad_side -k 0 > bad_side.log 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a kernel with an invalid sidecar was built"
grep -q "the compiler's sidecar (.*\.sidecar\.json): /blockDim: expected" bad_side.log || fail "the error does not name /blockDim: $(tail -3 bad_side.log)"
[ -z "$(ls bad_side/kernel_meta | grep -v '\.info$')" ] || fail "files left: $(ls bad_side/kernel_meta | grep -v '\.info$' | head)"
echo PASS
