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
echo "$out" | grep -q "^51 calls: 42 ran a static kernel, 3 a dynamic kernel" || fail "unexpected counts: $out"
