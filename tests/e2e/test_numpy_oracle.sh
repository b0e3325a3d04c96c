# No silent wrong answers: every kernel checked against numpy, an oracle that shares no code or
# assumption with the templates, over records of each op's whole attribute space (SoftmaxV2 over
# any set of axes, broadcasting, batched matmuls under adj/transpose), static kernels and their
# dynamic twins alike, through the runtime's C API. Then the product's own check, skb-replay, must
# catch a planted wrong kernel (a SoftmaxV2 template that honours only the first axis), and say so
# when a folder holds no record.
source "$(dirname "$0")/lib.sh"
ci_store
if [ -n "${SKB_SANITIZE:-}" ]; then
  # The oracle loads libskb_runtime into Debian's python3 with ctypes, and a library built with
  # AddressSanitizer cannot be loaded into an interpreter that is not: pass 1 runs this suite.
  echo "SKIP: the numpy oracle needs a runtime built without sanitizers"
  exit 77
fi
/usr/bin/python3 -c "import numpy" 2>/dev/null || fail "numpy is not installed (scripts/test.sh installs python3-numpy)"

step "${SKB_ORACLE_TRIALS:-120} random records and one of each (op, dtype) they missed, every output against numpy"
/usr/bin/python3 "$SKB_SOURCE/tests/tools/numpy_oracle.py" "$SKB_BIN" oracle >oracle.log 2>&1 || fail "$(tail -20 oracle.log)"
tail -1 oracle.log | sed 's/^/    /'

step "skb-replay reports a planted wrong kernel as differing"
cp -r "$SKB_BIN/../share/skb/templates" planted
sed -i 's|(int)(sizeof kAxes / sizeof kAxes\[0\])|1|' planted/kernels/host/softmax.cc
grep -q "make(SKB_IN_DIMS(0), SKB_OUT_DIMS(0), kAxes, 1)" planted/kernels/host/softmax.cc || fail "the plant did not take"
mkdir -p dump
python3 - dump <<'PY'
import json, os, sys
sys.path.insert(0, os.path.join(os.environ["SKB_SOURCE"], "tests", "tools"))
from make_dump import attr, record, tensor
for i, axes in enumerate([[-2, -1], [0, 3], [3, 1]]):
    r = record("SoftmaxV2", [tensor("x", 0, "float", [2, 3, 4, 5])], [tensor("y", 0, "float", [2, 3, 4, 5])],
               [attr("axes", 0, "list_int", axes)])
    json.dump(r, open(os.path.join(sys.argv[1], "SoftmaxV2_%d.json" % i), "w"))
PY
run=$(skb-package -p dump -o planted-out -q --toolchain "$PWD/planted/toolchains/host.json")
sh "$run" -q --install-path="$PWD/planted-lib" || fail "install"
rc=0; out=$(skb-replay --install-path planted-lib dump 2>&1) || rc=$?
expect_eq "$rc" 1 "skb-replay's exit status on a wrong kernel"
grep -q "3 calls: 3 ran a static kernel.* 0 matched the reference, 3 differed" <<<"$out" || fail "skb-replay said: $out"
run=$(skb-package -p dump -o good-out -q)
sh "$run" -q --install-path="$PWD/good-lib" || fail "install"
out=$(skb-replay --install-path good-lib dump) || fail "skb-replay on the real template: $out"
grep -q "3 matched the reference, 0 differed" <<<"$out" || fail "skb-replay said: $out"

step "skb-replay of a folder without records says so and fails"
mkdir -p empty
rc=0; skb-replay --install-path good-lib empty 2>err || rc=$?
expect_eq "$rc" 1 "exit status without records"
grep -q "^skb-replay: error: no op records in empty: nothing was checked$" err || fail "unclear: $(cat err)"
echo PASS
