#!/usr/bin/env bash
# First command of the README: installs what is missing, builds skb, and runs the main job on
# the example op statistics shipped in examples/: scan, generate, compile, package, then install
# the .run into a scratch operator library, and replay the dump's op calls through the runtime
# against it (plus calls of shapes the dump never saw, which run the dynamic kernels).
set -euo pipefail
SKB_TOP=$(cd "$(dirname "$0")/.." && pwd)
source "$SKB_TOP/scripts/deps.sh"
skb_install_deps
# What the main job runs, and nothing else (scripts/test.sh builds the rest into the same folder).
skb_build skb-generate skb-package skb-install skb-install-gz skb-replay skb_store skb_templates
build="${SKB_BUILD:-$SKB_TOP/build}"
work="$build/example"
rm -rf "$work"
echo "== skb-package -p examples/op_stats/aclnn_static_shape_kernel_outputs -o $work -j $(nproc) --dynamic"
run=$("$build/bin/skb-package" -p "$SKB_TOP/examples/op_stats/aclnn_static_shape_kernel_outputs" -o "$work" \
  -j "$(nproc)" --dynamic)
echo "== $run"
sh "$run" --info
echo "== sh $(basename "$run") --install-path=$work/opp-root"
sh "$run" --install-path="$work/opp-root"
lib="$work/opp-root/opp/static_kernel/ai_core"
echo "== $(grep -o '"binPath"' "$lib/config/host/binary_info_config.json" | wc -l) kernels listed in $lib/config/host/binary_info_config.json"
echo "== skb-replay --install-path $work/opp-root examples/op_stats/aclnn_static_shape_kernel_outputs examples/op_stats/unseen"
"$build/bin/skb-replay" --install-path "$work/opp-root" \
  "$SKB_TOP/examples/op_stats/aclnn_static_shape_kernel_outputs" "$SKB_TOP/examples/op_stats/unseen"
