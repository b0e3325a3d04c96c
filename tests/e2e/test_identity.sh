# A kernel's identity travels: skb installed at two prefixes, the dump copied to two places, two
# build folders: the same kernel names, byte-identical kernels, one package digest, and a store
# filled by one build serves the other whole. The same through the CMake module (from an install
# tree and from skb's build tree) and through the op_compiler entry. Then `skb explain` names
# what changed when something did, and skb-replay --explain what a call's nearest kernel is.
source "$(dirname "$0")/lib.sh"
SKB_BUILD=$(dirname "$SKB_BIN")
unset SKB_CACHE SKB_TOOLCHAIN SKB_INSTALL_PATH

step "skb installed at two prefixes; one dump copied to two places"
one=$PWD/ci/opt/skb
two=$PWD/home/dev/tools/skb
cmake --install "$SKB_BUILD" --prefix "$one" >/dev/null
cmake --install "$SKB_BUILD" --prefix "$two" >/dev/null
make_dump dump --ranks 2 --seqs 8,16 --hidden 16 --heads 2
mkdir -p ci/data home/dev/models/m1
cp -r dump ci/data/dump
cp -r dump home/dev/models/m1/op_stats
rm -rf dump
dump1=$PWD/ci/data/dump dump2=$PWD/home/dev/models/m1/op_stats

kernel_sums() { (cd "$1/kernel_meta" && sha256sum -- *.so *.info); }
digest() { basename "$1" .run | sed 's/.*_//'; }
names() { json_get "$1/plan.json" '" ".join(k["name"] for k in j["kernels"])'; }

step "the whole job from each prefix, place and build folder"
top=$PWD  # each build runs from another working folder
run1=$(cd ci && "$one/bin/skb-package" -p "$dump1" -o "$top/ci/out" -q --dynamic --cache "file://$top/store")
run2=$(cd home && "$two/bin/skb-package" -p "$dump2" -o "$top/home/dev/build/kernels" -q --dynamic)
b1=ci/out/.skb b2=home/dev/build/kernels/.skb
n=$(json_get $b1/plan.json 'len(j["kernels"])')
[ "$n" -gt 20 ] || fail "only $n kernels planned"
expect_eq "$(names $b2)" "$(names $b1)" "kernel names"
cmp -s $b1/plan.json $b2/plan.json || fail "plan.json differs: $(diff $b1/plan.json $b2/plan.json | head -5)"
cmp -s $b1/key.json $b2/key.json || fail "key.json differs: $(diff $b1/key.json $b2/key.json | head -5)"
expect_eq "$(kernel_sums $b2 | sha256sum)" "$(kernel_sums $b1 | sha256sum)" "the kernels' bytes"
expect_eq "$(digest "$run2")" "$(digest "$run1")" "the package digest"
for f in $b1/kernel_meta/*.so; do
  if grep -qsF -e "$PWD" -e "$SKB_SOURCE" -e "$SKB_BUILD" "$f"; then fail "a path is compiled into $f"; fi
done
echo "    $n kernels, package digest $(digest "$run1") from both"

step "a third build from the other prefix, on the store the first filled, compiles nothing"
run3=$("$two/bin/skb-package" -p "$dump2" -o "$PWD/home/warm" -q --dynamic --cache "file://$PWD/store")
expect_eq "$(json_get home/warm/.skb/summary.json 'j["cache"]["hits"]')" "$n" "hits"
expect_eq "$(json_get home/warm/.skb/summary.json 'j["cache"]["misses"]')" 0 "misses (= compiles)"
expect_eq "$(digest "$run3")" "$(digest "$run1")" "the package digest of the warm build"

step "skb explain of the two build folders: the same kernels (exit 0)"
out=$("$two/bin/skb" explain ci/out home/dev/build/kernels) || fail "skb explain: exit $?: $out"
grep -q "^in both: $n; only in a: 0; only in b: 0$" <<<"$out" || fail "skb explain said: $out"
grep -q "^the same kernels$" <<<"$out" || fail "skb explain said: $out"

step "the CMake module from an install tree and from skb's build tree"
cp -r "$SKB_SOURCE/tests/cmake-consumer" consumer
cmake -S consumer -B cm-install -G Ninja -DCMAKE_PREFIX_PATH="$one" >cm-install.log 2>&1 || fail "configure: $(tail -5 cm-install.log)"
cmake -S consumer -B cm-tree -G Ninja -Dskb_DIR="$SKB_BUILD" >cm-tree.log 2>&1 || fail "configure: $(tail -5 cm-tree.log)"
for b in cm-install cm-tree; do cmake --build $b >>$b.log 2>&1 || fail "build $b: $(tail -10 $b.log)"; done
cmp -s cm-install/model_kernels/plan.json cm-tree/model_kernels/plan.json || fail "the module's plan.json differs"
expect_eq "$(kernel_sums cm-tree/model_kernels | sha256sum)" "$(kernel_sums cm-install/model_kernels | sha256sum)" \
  "the module's kernels"
expect_eq "$(digest "$(json_get cm-tree/model_kernels/package.json 'j["run"]')")" \
  "$(digest "$(json_get cm-install/model_kernels/package.json 'j["run"]')")" "the module's package digest"

step "the op_compiler entry of each prefix, on records in two places"
for i in 1 2; do
  root=$PWD/torchair$i/aclnn_static_shape_kernel_outputs/ts20261125101500123456_pid42_outputs
  mkdir -p "$root/42_opcompile_selected"
  cp "$(ls -d ci/data/dump/*/ | head -1)"*_opcompile/*.json "$root/42_opcompile_selected/"
done
o1=$(SKB_TOOLCHAIN=host "$one/libexec/skb/compat/op_compiler" -p "$PWD/torchair1/aclnn_static_shape_kernel_outputs/ts20261125101500123456_pid42_outputs/42_opcompile_selected" \
  -v Ascend910B3 -j 2 -o "$PWD/torchair1/aclnn_static_shape_kernel_outputs/ts20261125101500123456_pid42_outputs" 2>err1) ||
  fail "op_compiler 1: $(cat err1)"
o2=$(SKB_TOOLCHAIN=host "$two/libexec/skb/compat/op_compiler" -p "$PWD/torchair2/aclnn_static_shape_kernel_outputs/ts20261125101500123456_pid42_outputs/42_opcompile_selected" \
  -v Ascend910B3 -j 2 -o "$PWD/torchair2/aclnn_static_shape_kernel_outputs/ts20261125101500123456_pid42_outputs" 2>err2) ||
  fail "op_compiler 2: $(cat err2)"
d1=$(sed -n 's/^generate run package \(.*\)\.run success$/\1/p' <<<"$o1")
[ -n "$d1" ] || fail "op_compiler said: $o1"
expect_eq "$(sed -n 's/^generate run package \(.*\)\.run success$/\1/p' <<<"$o2" | sed 's/.*_//')" "${d1##*_}" \
  "the op_compiler package digest"

step "skb explain names the factor that changed: a flag, a header, a template, the records"
variant() {  # name, sed expression on host.json or a file to append to (relative to templates/)
  cp -r "$one/share/skb/templates" "tc-$1"
  if [ "$2" = sed ]; then sed -i "$3" "tc-$1/toolchains/host.json"; else echo " " >>"tc-$1/$3"; fi
  "$one/bin/skb-generate" -p "$dump1" -o "gen-$1" --toolchain "$PWD/tc-$1/toolchains/host.json" --dynamic \
    --no-package -q || fail "generate $1"
  rc=0
  "$one/bin/skb" explain ci/out "gen-$1" >"explain-$1.txt" || rc=$?
  expect_eq "$rc" 3 "exit status of skb explain with another $1"
  "$one/bin/skb" explain --json ci/out "gen-$1" >"explain-$1.json" || true
}
variant flag sed 's/"-O3"/"-O2"/'
grep -q "^  flags: -O3 removed, -O2 added$" explain-flag.txt || fail "flag: $(head -8 explain-flag.txt)"
expect_eq "$(json_get explain-flag.json 'sum(1 for k in j["kernels"] if k["cause"] == "toolchain")')" "$((2 * n))" \
  "kernels explained by the flag"
variant header file kernels/host/skb_kernel.h
grep -q "^  header skb_kernel.h: its bytes changed$" explain-header.txt || fail "header: $(head -8 explain-header.txt)"
variant template file kernels/host/binary.cc
grep -q ": template binary.cc: its bytes changed$" explain-template.txt || fail "template: $(head -8 explain-template.txt)"
expect_eq "$(json_get explain-template.json 'sorted({k["op_type"] for k in j["kernels"]})')" \
  "['Add', 'Mul', 'RealDiv', 'Sub']" "the ops whose template changed"
expect_eq "$(json_get explain-template.json 'j["toolchain_changes"]')" "[]" "toolchain changes with a template's byte"
mkdir -p fewer && cp -r ci/data/dump fewer/ && find fewer -name 'SoftmaxV2_*' -delete
"$one/bin/skb-generate" -p fewer/dump -o gen-records --dynamic --no-package -q
rc=0; "$one/bin/skb" explain --json ci/out gen-records >explain-records.json || rc=$?
expect_eq "$rc" 3 "exit status with fewer records"
expect_eq "$(json_get explain-records.json '{(k["side"], k["cause"], k["op_type"]) for k in j["kernels"]}')" \
  "{('a', 'records', 'SoftmaxV2')}" "kernels of records only a has"

step "skb explain of a build folder and a store entry"
entry=$(find store -type f -name 'skb1_Relu_*' | head -1)
[ -n "$entry" ] || fail "no Relu entry in the store: $(find store -type f | head -3)"
out=$("$one/bin/skb" explain ci/out "$entry") || fail "build and its own entry: exit $?: $out"
grep -q "^the entry's kernel is in the build$" <<<"$out" || fail "skb explain said: $out"
rc=0; out=$("$one/bin/skb" explain gen-flag "$entry") || rc=$?
expect_eq "$rc" 3 "exit status of another toolchain's build and the entry"
grep -q "^  b skb1_Relu\|^  b Relu_.* = a Relu_.*: flags: -O2 removed, -O3 added$" <<<"$out" || fail "skb explain said: $out"

step "skb explain of two records; bad arguments"
r=$(find "$dump1" -name 'Relu_*.json' | head -1)
"$one/bin/skb" explain "$r" "$r" >/dev/null || fail "a record and itself: exit $?"
rc=0; "$one/bin/skb" explain "$r" no-such.json 2>err || rc=$?
expect_eq "$rc" 1 "exit status for a missing file"
grep -q "^skb: error: no-such.json: no such file or folder$" err || fail "unclear: $(cat err)"
rc=0; "$one/bin/skb" explain "$r" 2>/dev/null || rc=$?
expect_eq "$rc" 2 "exit status for a bad command line"
# Every program says a bad command line in the users' format, once, with exit 2.
for cmd in "skb-generate" "skb-package" "skb-replay" "skb explain a"; do
  rc=0; $cmd --no-such-option x 2>err || rc=$?
  expect_eq "$rc" 2 "$cmd --no-such-option"
  prog=${cmd%% *}
  grep -q "^$prog: error: .*--no-such-option.*; \`${cmd% a} --help\` lists the options$" err || fail "$cmd said: $(cat err)"
  expect_eq "$(wc -l <err)" 1 "lines $cmd printed"
done
# A bad value is a bad command line too, said when the options are read.
while IFS='|' read -r what cmd; do
  rc=0; eval "$cmd" >/dev/null 2>err || rc=$?
  expect_eq "$rc" 2 "$cmd"
  grep -q "^${cmd%% *}: error: $what" err || fail "$cmd said: $(cat err)"
done <<'CASES'
--compression: lz4 not in|skb-package out --compression lz4
--older-than: 5x: expected a duration|skb cache evict --older-than 5x
--max-size: expected a size|skb cache evict --max-size 5Q
--older-than: 307445734561825861m: expected a duration|skb cache evict --older-than 307445734561825861m
--older-than:  5d: expected a duration|skb cache evict --older-than ' 5d'
--max-size: expected a size|skb cache evict --max-size ' 5'
--cache-max-size: -1: expected a size|skb-generate -p x -o y --cache-max-size -1
--margin: -5: expected a number from 0.01 to 1|skb bench x --margin -5
--margin: nan: expected a number from 0.01 to 1|skb bench x --margin nan
--min-coverage: nan: expected a number from 0 to 100|skb coverage x --min-coverage nan
--budget: -1: expected a number above 0|skb bench x --budget -1
--lock-timeout: nan: expected a number from 0 to 1000000000|skb bench x --lock-timeout nan
NAME: expected 1 to 64 characters|skb key new 'bad name!' new.key
--soc: '': expected a SoC version such as Ascend910B3|skb-generate -p x -o y --soc ''
--soc: a/b: expected a SoC version such as Ascend910B3|skb-package -p x -o y -v 'a/b'
--output: expected a folder, or a package's path|skb-package -p x -o ''
--output: y/mine.run: expected a package name|skb-package -p x -o y/mine.run
--seed: expected a value, found an empty one|skb-replay --seed '' x
CASES
[ ! -e new.key ] || fail "skb key new wrote a key of a bad name"
rc=0; skb-generate -p "$dump1" -o bad_name --package-name 'bad name' 2>err || rc=$?
expect_eq "$rc" 2 "skb-generate --package-name 'bad name'"
grep -q "^skb-generate: error: --package-name: expected a package name static_kernel_" err || fail "$(cat err)"
[ ! -e bad_name ] || fail "skb-generate wrote a graph whose packaging step would fail"
rc=0; skb-generate -p "$dump1" -o "$dump1" 2>err || rc=$?
expect_eq "$rc" 1 "skb-generate -o its -p folder"
grep -q "^skb-generate: error: -o .*: is the op-statistics folder -p " err || fail "$(cat err)"
[ ! -e "$dump1/build.ninja" ] || fail "skb-generate wrote its build into the records it scans"
rc=0; skb verify . 2>err || rc=$?
expect_eq "$rc" 1 "skb verify of a folder (an error, not a damaged package)"
grep -q "^skb: error: .*: not a file (a package is a .run file)$" err || fail "skb verify .: $(cat err)"
rc=0; skb no-such-command 2>err || rc=$?
expect_eq "$rc" 2 "skb no-such-command"
grep -q "^skb: error: unknown command 'no-such-command'; \`skb --help\` lists the commands$" err || fail "$(cat err)"
rc=0; skb --no-such-option 2>err || rc=$?
expect_eq "$rc" 2 "skb --no-such-option"
grep -q "^skb: error: unknown option '--no-such-option'; \`skb --help\` lists the options$" err || fail "$(cat err)"
rc=0; skb key 2>err || rc=$?
expect_eq "$rc" 2 "skb key without its command"
grep -q "^skb: error: expected a command (new, public, own); \`skb key --help\` says what each does$" err || fail "$(cat err)"
help=$("$one/bin/skb" explain --help)
grep -q "skb explain BUILD_A BUILD_B" <<<"$help" || fail "the help does not teach the forms"

step "skb-replay --explain: for shapes the dump never saw, the nearest kernel and the first field"
sh "$run2" -q --install-path="$PWD/lib" || fail "install"
# Records that are all invalid measure nothing: skb-replay and skb coverage's gate say so, exit 1.
mkdir -p invalid/ts1_pid1_outputs/1_opcompile && echo '{"op_type": "Relu"}' >invalid/ts1_pid1_outputs/1_opcompile/Relu_1.json
rc=0; skb-replay --install-path "$PWD/lib" invalid >/dev/null 2>err || rc=$?
expect_eq "$rc" 1 "skb-replay of invalid records only"
grep -q "none of the 1 records is valid: nothing was checked" err || fail "skb-replay said: $(cat err)"
rc=0; skb coverage --install-path "$PWD/lib" --min-coverage 50 invalid >/dev/null 2>err || rc=$?
expect_eq "$rc" 1 "skb coverage --min-coverage of invalid records only"
grep -q "none of the 1 records is valid" err || fail "skb coverage said: $(cat err)"
make_dump unseen --ranks 1 --seqs 24 --hidden 16 --heads 2
out=$(skb-replay --install-path "$PWD/lib" --explain unseen) || fail "skb-replay: $out"
grep -q "no static kernel for this call; nearest of [0-9]* installed: .*; first /inputs/0/shape/[0-9]: installed [0-9]*, called 24" \
  <<<"$out" || fail "skb-replay --explain said: $(head -5 <<<"$out")"
echo "    $(grep -c 'nearest of' <<<"$out") calls explained; $(tail -1 <<<"$out")"
# A record too large to read is one record that is not valid, never the end of the report.
cp -r unseen oversized
truncate -s 5M "$(dirname "$(find oversized -name '*.json' | head -1)")/Big_1.json"
out=$(skb coverage --install-path "$PWD/lib" oversized) || fail "skb coverage with an oversized record: $out"
grep -q "Big_1.json: not a valid record: larger than 4194304 bytes" <<<"$out" || fail "skb coverage said: $out"
grep -q "; 1 not valid records" <<<"$out" || fail "skb coverage said: $out"
out=$(skb-replay --install-path "$PWD/lib" oversized 2>err) || fail "skb-replay with an oversized record: $out $(cat err)"
grep -q "1 were not valid records" <<<"$out" || fail "skb-replay said: $out"
grep -q "Big_1.json: larger than 4194304 bytes" err || fail "skb-replay said: $(cat err)"
echo PASS
