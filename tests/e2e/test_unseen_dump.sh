# A dump the generator has not seen: 8 ranks, thousands of files, hundreds of distinct records,
# unsupported ops and malformed files mixed in. Every distinct record is accounted for as
# planned or unsupported, every malformed file is named, every planned kernel is built.
source "$(dirname "$0")/lib.sh"
ci_store

make_dump dump --ranks 8 --seqs 8,16,24,32,48 --batches 1,2 --dtypes float16,bfloat16,float \
  --hidden 16 --heads 2 --repeat 2 --unsupported --malformed 12 --seed 7 --expect expect.json
files=$(json_get expect.json 'j["files"]')
distinct=$(json_get expect.json 'j["distinct"]')
step "$files files, $distinct distinct records expected"
[ "$files" -ge 2000 ] || fail "the dump is smaller than intended"
[ "$distinct" -ge 200 ] || fail "fewer distinct records than intended"

skb-generate -p dump -o out 2>gen.err || fail "skb-generate failed: $(tail -3 gen.err)"
expect_eq "$(json_get out/summary.json 'j["files_scanned"]')" "$files" "files scanned"
expect_eq "$(json_get out/summary.json 'j["distinct_kernels"]')" "$distinct" "distinct kernels"
python3 - <<'PY' || fail "accounting per op type"
import json
s, e = json.load(open("out/summary.json")), json.load(open("expect.json"))
for op, n in e["distinct_per_op"].items():
    got = s["planned"].get(op, 0) + s["unsupported"].get(op, 0)
    assert got == n, (op, got, n)
assert sorted(r["file"] for r in s["files_rejected"]) == e["malformed"], "rejected files differ from the malformed ones"
assert s["records"] + len(s["files_rejected"]) == s["files_scanned"]
assert set(s["unsupported"]) == {"GatherV2", "SplitD", "Pack"}, s["unsupported"]
PY
for f in $(json_get expect.json '" ".join(j["malformed"])'); do
  grep -qF "$f" gen.err || grep -qF "more rejected files" gen.err || fail "malformed file not named: $f"
done

step "building $(json_get out/summary.json 'j["planned_total"]') kernels"
expect_eq "$(ninja_compiles out)" "$(json_get out/summary.json 'j["planned_total"]')" "compiles"
verify_kernels out/kernel_meta >/dev/null || fail "kernels do not match their records"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "second ninja"
before=$(sha256sum out/build.ninja)$(mtime out/build.ninja)
skb-generate -p dump -o out -q
expect_eq "$(sha256sum out/build.ninja)$(mtime out/build.ninja)" "$before" "build.ninja after a rerun"

step "--strict refuses the same dump and writes nothing"
if skb-generate -p dump -o strict_out --strict 2>strict.err; then fail "--strict accepted malformed files"; fi
[ ! -e strict_out/build.ninja ] || fail "--strict wrote build.ninja"
grep -q "error: --strict" strict.err || fail "--strict gave no summary error"
echo PASS
