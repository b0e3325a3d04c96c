# Helpers of the end-to-end suites: the real binaries on real files, in a fresh scratch folder.
# Environment (set by ctest): SKB_BIN (folder of skb-generate and skb-package), SKB_SOURCE, SKB_SCRATCH.
set -euo pipefail
: "${SKB_BIN:?}" "${SKB_SOURCE:?}" "${SKB_SCRATCH:?}"
export PATH="$SKB_BIN:$PATH"
rm -rf "$SKB_SCRATCH"
mkdir -p "$SKB_SCRATCH"
cd "$SKB_SCRATCH"

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
make_dump() { python3 "$SKB_SOURCE/tests/tools/make_dump.py" "$@" >/dev/null; }
# Value of a JSON file at a Python expression over `j`, e.g. json_get f.json 'j["records"]'.
json_get() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# Runs ninja and prints the number of kernels it compiled.
ninja_compiles() {
  local log
  log=$(ninja -C "$1" 2>&1) || { echo "$log" >&2; fail "ninja -C $1 failed"; }
  echo "$log" | grep -c 'Compiling .* kernel' || true
}
# Every kernel record in a kernel_meta folder matches its binary (size and sha256).
verify_kernels() {
  python3 - "$1" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]; bad = 0; n = 0
for f in sorted(os.listdir(d)):
    if not f.endswith(".json"): continue
    n += 1
    r = json.load(open(os.path.join(d, f)))
    b = open(os.path.join(d, r["binFileName"]), "rb").read()
    if len(b) != r["size"] or hashlib.sha256(b).hexdigest() != r["sha256"]:
        print("mismatch:", f); bad += 1
print(n)
sys.exit(1 if bad else 0)
PY
}
mtime() { stat -c %Y.%y "$1"; }
