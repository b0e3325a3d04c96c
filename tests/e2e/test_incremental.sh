# The incremental contract: nothing new → nothing runs; one new shape → one compile; a changed
# template → only its op's kernels; a changed flag → all; build.ninja rewritten only on change.
source "$(dirname "$0")/lib.sh"

# A private copy of the host toolchain, so the test can edit templates and flags.
cp -r "$SKB_SOURCE/templates" tc
TC=$PWD/tc/toolchains/host.json

make_dump dump --ranks 2 --seqs 8 --hidden 16 --heads 2
step "first build compiles every planned kernel"
skb-generate -p dump -o out --toolchain "$TC" -q
planned=$(json_get out/summary.json 'j["planned_total"]')
expect_eq "$(ninja_compiles out)" "$planned" "compiles in the first build"
verify_kernels out/kernel_meta >/dev/null || fail "kernels do not match their records"

step "second ninja does nothing"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "second ninja"

step "rerunning the generator leaves build.ninja's bytes and mtime alone"
before_sum=$(sha256sum out/build.ninja); before_time=$(mtime out/build.ninja)
sleep 1.1
skb-generate -p dump -o out --toolchain "$TC" -q
expect_eq "$(sha256sum out/build.ninja)" "$before_sum" "build.ninja bytes"
expect_eq "$(mtime out/build.ninja)" "$before_time" "build.ninja mtime"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "ninja after a rerun of the generator"

step "a regeneration that fails changes nothing: the last plan, summary and graph stay together"
make_dump more --ranks 1 --seqs 24 --hidden 16 --heads 2
before=$(sha256sum out/plan.json out/summary.json out/build.ninja)
rc=0; skb-generate -p dump -p more -o out --toolchain "$TC" -q --depfile "$PWD/missing/out.d" 2>err || rc=$?
expect_eq "$rc" 1 "skb-generate with a depfile in a missing folder"
grep -q "missing/out.d: cannot write" err || fail "the error does not name the depfile: $(cat err)"
expect_eq "$(sha256sum out/plan.json out/summary.json out/build.ninja)" "$before" "the last generation's files"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "ninja after a failed regeneration"

step "one new shape in one rank: ninja alone regenerates and compiles exactly one kernel"
proc=$(ls -d dump/*_outputs | head -1)
opdir=$(ls -d "$proc"/*_opcompile)
python3 - "$opdir" <<'PY'
import json, os, sys
src = sorted(f for f in os.listdir(sys.argv[1]) if f.startswith("Relu_"))[0]
r = json.load(open(os.path.join(sys.argv[1], src)))
for t in r["inputs"] + r["outputs"]:
    t["shape"] = t["origin_shape"] = [3, 5, 7]
json.dump(r, open(os.path.join(sys.argv[1], "Relu_float16_ND_3_5_7_999.json"), "w"), indent=2, sort_keys=True)
PY
expect_eq "$(ninja_compiles out)" 1 "compiles after one new shape"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "ninja after the new shape"

step "the same shape seen by another rank compiles nothing"
other=$(ls -d dump/*_outputs | tail -1)
cp "$opdir/Relu_float16_ND_3_5_7_999.json" "$(ls -d "$other"/*_opcompile)/Relu_float16_ND_3_5_7_5.json"
expect_eq "$(ninja_compiles out)" 0 "compiles after a duplicate from another rank"

step "a rejected record fixed in place: ninja alone regenerates and compiles exactly its kernel"
bad="$opdir/Relu_float16_ND_3_5_9_998.json"
echo '{"op_type": "Relu",' > "$bad"
expect_eq "$(ninja_compiles out)" 0 "compiles after a broken record"
grep -q "Relu_float16_ND_3_5_9_998.json" out/summary.json || fail "summary.json does not list the rejected record"
sleep 1.1  # a later mtime than the graph's, on any file system
python3 - "$opdir/Relu_float16_ND_3_5_7_999.json" "$bad" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for t in r["inputs"] + r["outputs"]:
    t["shape"] = t["origin_shape"] = [3, 5, 9]
json.dump(r, open(sys.argv[2], "w"), indent=2, sort_keys=True)
PY
expect_eq "$(ninja_compiles out)" 1 "compiles after the record was fixed in place"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "ninja after the fix"

step "a changed template rebuilds only its op's kernels"
softmax=$(json_get out/summary.json 'j["planned"]["SoftmaxV2"]')
echo "// a comment that changes the template's bytes" >> tc/kernels/host/softmax.cc
expect_eq "$(ninja_compiles out)" "$softmax" "compiles after a template change"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "ninja after the template change"

step "a changed compiler flag rebuilds every kernel"
total=$(json_get out/summary.json 'j["planned_total"]')
sed -i 's/"-O3"/"-O1"/' "$TC"
grep -q '"-O1"' "$TC" || fail "the flag edit did not apply"
expect_eq "$(ninja_compiles out)" "$total" "compiles after a flag change"
expect_eq "$(ninja -C out | tail -1)" "ninja: no work to do." "ninja after the flag change"

step "kernel_meta holds exactly the planned kernels: stale ones are removed"
n_json=$(ls out/kernel_meta/*.json | wc -l)
n_info=$(ls out/kernel_meta/*.info | wc -l)
expect_eq "$n_json" "$total" "records in kernel_meta"
expect_eq "$n_info" "$total" "signatures in kernel_meta"

step "a removed file is picked up: the kernel only it needed disappears"
rm "$opdir/Relu_float16_ND_3_5_7_999.json" "$(ls -d "$other"/*_opcompile)/Relu_float16_ND_3_5_7_5.json"
expect_eq "$(ninja_compiles out)" 0 "compiles after removing a shape"
expect_eq "$(json_get out/summary.json 'j["planned_total"]')" "$((total - 1))" "planned after removing a shape"
expect_eq "$(ls out/kernel_meta/*.json | wc -l)" "$((total - 1))" "records after removing a shape"

step "a compiler replaced behind its path, its mtime kept: a compile refuses it until skb-generate runs again"
mkdir -p cc
printf '#!/bin/sh\nexec c++ "$@"\n' >cc/c++ && chmod +x cc/c++ && touch -d 2020-01-01 cc/c++
sed -i 's|"compiler": *"[^"]*"|"compiler": "'"$PWD"'/cc/c++"|' "$TC"
grep -q "cc/c++" "$TC" || fail "the compiler edit did not apply"
skb-generate -p dump -o out_cc --toolchain "$TC" -q --no-package
ninja -C out_cc >/dev/null || fail "the first build with the wrapper"
# Another file at the same path, same bytes and mtime (as a package upgrade or update-alternatives
# leaves it): ninja has no reason to regenerate, the compile step has.
cp -p cc/c++ cc/c++.new && mv cc/c++.new cc/c++
victim=$(ls out_cc/kernel_meta/*.so | head -1)
rm "$victim"
rc=0; ninja -C out_cc >ninja.log 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a kernel was compiled by a compiler the build did not identify"
grep -q "is not the compiler skb-generate identified for this build" ninja.log || fail "ninja said: $(tail -3 ninja.log)"
[ ! -e "$victim" ] || fail "the refused compile left a kernel"
skb-generate -p dump -o out_cc --toolchain "$TC" -q --no-package
expect_eq "$(ninja_compiles out_cc)" 1 "compiles after skb-generate identified the compiler again"

step "a variable of the profile's environment: part of the names when set; a compile refuses another value"
python3 - "$TC" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
p["environment"] = ["SKB_TEST_CC_ENV"]
json.dump(p, open(sys.argv[1], "w"))
PY
names() { (cd "$1/kernel_meta" && ls -- *.info); }
(unset SKB_TEST_CC_ENV; skb-generate -p dump -o out_env0 --toolchain "$TC" -q --no-package)
expect_eq "$(names out_env0)" "$(names out_cc)" "names with the variable listed and unset"
SKB_TEST_CC_ENV=-O1 skb-generate -p dump -o out_env --toolchain "$TC" -q --no-package
[ -z "$(comm -12 <(names out_env0) <(names out_env))" ] || fail "a set variable of the environment renamed no kernel"
SKB_TEST_CC_ENV=-O1 ninja -C out_env >/dev/null || fail "the build in the environment it was generated in"
victim=$(ls out_env/kernel_meta/*.so | head -1)
rm "$victim"
rc=0; SKB_TEST_CC_ENV=-O2 ninja -C out_env >ninja.log 2>&1 || rc=$?
[ "$rc" != 0 ] || fail "a kernel was compiled in another environment than its name says"
grep -q 'SKB_TEST_CC_ENV is "-O2" here, and was "-O1" when skb-generate named this build' ninja.log ||
  fail "ninja said: $(tail -3 ninja.log)"
rc=0; (unset SKB_TEST_CC_ENV; ninja -C out_env >ninja.log 2>&1) || rc=$?
[ "$rc" != 0 ] || fail "a kernel was compiled without the variable its name says"
grep -q 'SKB_TEST_CC_ENV is unset here, and was "-O1"' ninja.log || fail "ninja said: $(tail -3 ninja.log)"
[ ! -e "$victim" ] || fail "the refused compile left a kernel"
expect_eq "$(SKB_TEST_CC_ENV=-O1 ninja_compiles out_env)" 1 "compiles in the environment it was generated in"

step "a build folder moved or copied: its regeneration refuses, naming both, and the original is untouched"
skb-generate -p dump -o out_mv --toolchain "$TC" -q --no-package
ninja -C out_mv >/dev/null
cp -a out_mv out_cp
mv out_mv out_moved
touch "$opdir"  # a record folder changed: the graph regenerates
for copy in out_moved out_cp; do
  rc=0; ninja -C "$copy" >"$copy.log" 2>&1 || rc=$?
  [ "$rc" -ne 0 ] || fail "$copy: ninja regenerated a moved build folder without a word"
  grep -q "$copy: this build folder was made as $PWD/out_mv and has been moved or copied since" "$copy.log" ||
    fail "$copy: $(cat "$copy.log")"
done
[ ! -e out_mv ] || fail "the moved folder's regeneration made a new one where it was"

step "two generations into one folder write one after the other"
python3 -c 'import fcntl, sys, time; f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w"); time.sleep(300)' \
  out/.generate.lock held &
holder=$!
for _ in $(seq 1200); do [ -e held ] && break; sleep 0.05; done
[ -e held ] || fail "the folder's lock was not taken"
skb-generate -p dump -o out --toolchain "$TC" 2>waiter.err &
waiter=$!
# (up to 60 s: under load, skb-generate takes a while to scan before it asks for the folder)
for _ in $(seq 1200); do grep -q "waiting for another skb-generate writing" waiter.err && break; sleep 0.05; done
grep -q "waiting for another skb-generate writing .*/out" waiter.err || fail "skb-generate did not wait: $(cat waiter.err)"
kill -0 "$waiter" 2>/dev/null || fail "skb-generate went on while the folder was held"
kill "$holder"; wait "$holder" 2>/dev/null || true
wait "$waiter" || fail "skb-generate after the folder was released"
echo PASS
