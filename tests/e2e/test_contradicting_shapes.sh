# A dump in which some records parse but contradict their op (a BatchMatMulV2 with adj_x2=true
# whose x2 is laid out as if it were false; a MatMulV2 with transpose_x2=true and an x2 of
# [k, n]), in every rank: skb-package rejects exactly those files, naming file, pointer and what
# the op expects, plans no kernel for them, and packages the rest; --strict refuses the dump;
# the installed library runs every consistent call against the reference, and the runtime
# refuses the contradicting calls instead of running a kernel on them.
source "$(dirname "$0")/lib.sh"
ci_store

make_dump dump --ranks 4 --seqs 8,16 --hidden 32 --heads 2
python3 - dump <<'PY'
import glob, json, os, sys
def t(name, i, shape):
    return {"dtype": "float16", "format": "ND", "index": i, "is_view": False, "name": name, "origin_format": "ND",
            "origin_shape": shape, "param_type": "required", "shape": shape, "value_depend": False}
def rec(op, ins, outs, attrs):
    return {"attrs": attrs, "deterministic": "false", "deterministic_level": 0, "impl_mode": "high_performance",
            "inputs": ins, "op_type": op, "outputs": outs, "platform_info": {"cube_core_cnt": 24, "vector_core_cnt": 48},
            "tune_mode": "all"}
def flag(name, i, v):
    return {"dtype": "bool", "index": i, "name": name, "value": v}
bad = [
    # [b, h, s, d] x [b, h, s, d] with adj_x2=false, laid out so, but recorded as adj_x2=true
    rec("BatchMatMulV2", [t("x1", 0, [1, 2, 8, 16]), t("x2", 1, [1, 2, 16, 8]), None, None], [t("y", 0, [1, 2, 8, 8])],
        [flag("adj_x1", 0, False), flag("adj_x2", 1, True)]),
    # transpose_x2=true, x2 of [k, n]
    rec("MatMulV2", [t("x1", 0, [16, 32]), t("x2", 1, [32, 96]), None, None], [t("y", 0, [16, 96])],
        [flag("transpose_x1", 0, False), flag("transpose_x2", 1, True)]),
]
for proc in sorted(glob.glob(os.path.join(sys.argv[1], "*_outputs"))):
    opdir = glob.glob(os.path.join(proc, "*_opcompile"))[0]
    for i, r in enumerate(bad):
        json.dump(r, open(os.path.join(opdir, "%s_contradicting_%d.json" % (r["op_type"], i)), "w"), indent=2, sort_keys=True)
PY
contradicting=$(find dump -name '*_contradicting_*' | wc -l)
expect_eq "$contradicting" 8 "contradicting files written"

step "skb-package rejects exactly the contradicting files and packages the rest"
run=$(build_package dump out 2>err.txt)
[ -f "$run" ] || fail "no package: $(cat err.txt)"
expect_eq "$(json_get out/.skb/summary.json 'len(j["files_rejected"])')" "$contradicting" "files rejected"
expect_eq "$(json_get out/.skb/summary.json 'all("_contradicting_" in r["file"] for r in j["files_rejected"])')" True \
  "only contradicting files rejected"
grep -q 'MatMulV2_contradicting_1.json: /inputs/1/shape: expected \[96,32\] for MatMulV2 with transpose_x1=false, transpose_x2=true, found \[32,96\]' err.txt ||
  fail "the MatMulV2 contradiction is not reported as expected: $(cat err.txt)"
grep -q 'BatchMatMulV2_contradicting_0.json: /inputs/1/shape: expected \[1,2,8,16\] for BatchMatMulV2 with adj_x1=false, adj_x2=true, found \[1,2,16,8\]' err.txt ||
  fail "the BatchMatMulV2 contradiction is not reported as expected: $(cat err.txt)"
python3 - out/.skb <<'PY' || fail "a kernel was planned for a contradicting record"
import glob, json, sys
for info in glob.glob(sys.argv[1] + "/kernel_meta/*.info"):
    sig = json.loads(open(info).read())
    flags = {a["name"]: a["value"] for a in sig.get("attrs", [])}
    if sig.get("op_type") == "MatMulV2" and flags.get("transpose_x2") and sig["inputs"][1]["shape"] == [32, 96]:
        sys.exit(1)
    if sig.get("op_type") == "BatchMatMulV2" and flags.get("adj_x2") and sig["inputs"][1]["shape"] == [1, 2, 16, 8]:
        sys.exit(1)
PY
echo "    $contradicting contradicting files rejected; $(json_get out/.skb/summary.json 'j["planned_total"]') kernels planned"

step "--strict refuses the dump and writes nothing"
rc=0; skb-generate -p dump -o strict --strict -q 2>strict.err || rc=$?
expect_eq "$rc" 1 "--strict exit status"
[ ! -e strict/build.ninja ] || fail "--strict wrote a graph"

step "the library runs every consistent call and refuses the contradicting ones"
sh "$run" --quiet --install-path="$PWD/lib" || fail "install failed"
rc=0; skb-replay --install-path "$PWD/lib" dump >replay.txt 2>&1 || rc=$?
expect_eq "$rc" 0 "skb-replay exit status"
tail -1 replay.txt | grep -q " $contradicting were not valid records; .* 0 differed" ||
  fail "replay: $(tail -3 replay.txt)"
step "a call too large to check is named and counted, not run (skb-replay --max-elements)"
rc=0; skb-replay --install-path "$PWD/lib" --max-elements 600 dump >small.txt 2>small.err || rc=$?
expect_eq "$rc" 0 "skb-replay --max-elements exit status"
too_large=$(grep -c "not checked: its tensors hold [0-9]* elements, more than --max-elements 600$" small.err || true)
[ "$too_large" -gt 0 ] || fail "no call named as too large: $(head -3 small.err)"
tail -1 small.txt | grep -q " $too_large were too large to check, " || fail "summary: $(tail -1 small.txt)"
echo "    $(tail -1 replay.txt)"
echo PASS
