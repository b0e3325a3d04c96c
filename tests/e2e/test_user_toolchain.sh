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
