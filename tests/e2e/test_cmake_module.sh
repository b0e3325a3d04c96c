# find_package(skb CONFIG) and skb_add_static_kernels in a consumer project, built with real
# CMake (Ninja, Unix Makefiles and Ninja Multi-Config) against an installed skb and against
# skb's build tree.
source "$(dirname "$0")/lib.sh"
SKB_BUILD=$(dirname "$SKB_BIN")

step "cmake --install skb into a prefix"
cmake --install "$SKB_BUILD" --prefix "$PWD/prefix" >/dev/null
for f in bin/skb-generate bin/skb-package libexec/skb/skb-install libexec/skb/skb-install.gz libexec/skb/skb-install-all.gz libexec/skb/compat/op_compiler \
         lib/skb/skb_store.so \
         lib/skb/skb_store_curl.so \
         share/skb/templates/toolchains/host.json share/skb/templates/socs.json \
         lib/cmake/skb/skbConfig.cmake lib/cmake/skb/skbConfigVersion.cmake lib/cmake/skb/skbFunctions.cmake; do
  [ -e "prefix/$f" ] || fail "not installed: $f"
done
expect_eq "$(prefix/libexec/skb/compat/op_compiler --version)" "op_compiler ($(prefix/bin/skb-package --version))" \
  "the installed op_compiler entry runs the installed skb-package"
# no path of the source or build tree in the programs' data (debug info may name them; so do
# sanitizers, for their reports, so a sanitized build is not checked)
for exe in $([ -z "${SKB_SANITIZE:-}" ] && echo skb-generate skb-package); do
  objcopy -O binary --only-section=.rodata "prefix/bin/$exe" "$exe.rodata"
  if grep -qsF -e "$SKB_SOURCE" -e "$SKB_BUILD" "$exe.rodata"; then fail "a tree's path is compiled into $exe"; fi
done

cp -r "$SKB_SOURCE/tests/cmake-consumer" consumer
configure() { cmake -S "${SRC:-consumer}" -B "$1" -G "${GENERATOR:-Ninja}" "${@:2}" >"$1.configure.log" 2>&1; }

# The consumer's whole cycle under one generator, in a copy of its own: a .run that installs, a
# second build that does nothing, one new record that compiles one kernel and repackages, and the
# generator's errors failing the outer build.
consumer_cycle() {
  local gen=$1 b src
  b=$(echo "$gen" | tr ' A-Z' '_a-z')
  src=consumer-$b
  cp -r consumer "$src"
  export GENERATOR=$gen SRC=$src

  step "$gen: the consumer builds a .run that installs"
  configure "$b" -DCMAKE_PREFIX_PATH="$PWD/prefix" || fail "configure: $(tail -5 "$b.configure.log")"
  cmake --build "$b" >"$b.1.log" 2>&1 || fail "build: $(tail -20 "$b.1.log")"
  local run=$b/model_kernels/static_kernel.run
  [ -f "$run" ] || fail "no $run"
  planned=$(json_get "$b/model_kernels/summary.json" 'j["planned_total"]')
  sh "$run" --install-path="$PWD/lib-$b" -q || fail "the .run does not install"
  expect_eq "$(check_library "lib-$b")" "$planned" "kernels installed from the consumer's .run"
  [ -f "$b/model_kernels.checked" ] || fail "the step that uses the .run did not run"

  step "$gen: a second build does nothing"
  touch "$b.marker"; sleep 1
  cmake --build "$b" >"$b.2.log" 2>&1 || fail "second build: $(tail -20 "$b.2.log")"
  if grep -q "Building static kernels" "$b.2.log"; then fail "the second outer build ran skb: $(cat "$b.2.log")"; fi
  expect_eq "$(find "$b/model_kernels" -newer "$b.marker" | wc -l)" 0 "files the second build changed"

  step "$gen: a record of a kernel it has: skb runs once and compiles nothing, then the build does nothing"
  local again
  again=$(cd "$src/op_stats" && ls Add_*.json | head -1)
  cp "$src/op_stats/$again" "$src/op_stats/${again%.json}_900.json"  # the folder changed
  cmake --build "$b" >"$b.2b.log" 2>&1 || fail "build after a known record: $(tail -20 "$b.2b.log")"
  grep -q "Building static kernels" "$b.2b.log" || fail "the folder changed and skb did not run"
  expect_eq "$(find "$b/model_kernels/kernel_meta" -newer "$b.marker" | wc -l)" 0 "kernels compiled for a known record"
  cmake --build "$b" >"$b.2c.log" 2>&1 || fail "build after that: $(tail -20 "$b.2c.log")"
  if grep -q "Building static kernels" "$b.2c.log"; then fail "skb ran again with nothing changed: $(cat "$b.2c.log")"; fi

  step "$gen: a new op-statistics file compiles exactly one kernel and repackages"
  python3 - "$src/op_stats" <<'PY'
import json, os, sys
src = sorted(f for f in os.listdir(sys.argv[1]) if f.startswith("Relu_"))[0]
r = json.load(open(os.path.join(sys.argv[1], src)))
for t in r["inputs"] + r["outputs"]:
    t["shape"] = t["origin_shape"] = [5, 7]
json.dump(r, open(os.path.join(sys.argv[1], "Relu_float16_ND_5_7_99.json"), "w"), indent=2)
PY
  local old_pkg
  old_pkg=$(json_get "$b/model_kernels/package.json" 'j["run"]')
  cmake --build "$b" >"$b.3.log" 2>&1 || fail "build after a new file: $(tail -20 "$b.3.log")"
  expect_eq "$(find "$b/model_kernels/kernel_meta" -name '*.json' -newer "$b.marker" | wc -l)" 1 "kernels compiled"
  [ "$(json_get "$b/model_kernels/package.json" 'j["run"]')" != "$old_pkg" ] || fail "not repackaged"
  expect_eq "$(sh "$run" --list | wc -l)" "$((planned + 1))" "kernels in the new package"
  touch "$b.marker"; sleep 1
  cmake --build "$b" >"$b.4.log" 2>&1 || fail "build after the new file: $(tail -20 "$b.4.log")"
  if grep -q "Building static kernels" "$b.4.log"; then fail "the build after the new file ran skb again"; fi

  step "$gen: errors of the generator reach the outer build and fail it"
  configure "$b-strict" -DCMAKE_PREFIX_PATH="$PWD/prefix" -DSKB_CONSUMER_STRICT=ON || fail "configure strict"
  echo '{"op_type": "Add", "inputs": [' > "$src/op_stats/Bad_1.json"
  if cmake --build "$b-strict" >"$b-strict.log" 2>&1; then fail "the outer build passed with a bad file under STRICT"; fi
  grep -q "skb-generate: error: .*Bad_1.json: /: expected valid JSON" "$b-strict.log" ||
    fail "error not shown: $(tail -5 "$b-strict.log")"
  unset GENERATOR SRC
}

consumer_cycle Ninja
grep -q -- "-j 2" ninja/build.ninja || fail "the inner build is not bounded by JOBS"
grep -q "pool = console" ninja/build.ninja || fail "the inner build is not in the console pool"
consumer_cycle "Unix Makefiles"
consumer_cycle "Ninja Multi-Config"

step "find_package works from skb's build tree, and checks the version"
configure tree -Dskb_DIR="$SKB_BUILD" || fail "configure against the build tree: $(tail -5 tree.configure.log)"
cmake --build tree >tree.log 2>&1 || fail "build against the build tree: $(tail -10 tree.log)"
if configure toonew -DCMAKE_PREFIX_PATH="$PWD/prefix" -DSKB_CONSUMER_VERSION=9.0; then fail "accepted skb 0.x for 9.0"; fi
grep -q "version" toonew.configure.log || fail "no version message"

step "CACHE, SIGN_KEY, TRUSTED_KEYS: a consumer that trusts the signer takes every kernel, another none"
"$SKB_BUILD/bin/skb" key new ci ci.key >ci.pub
"$SKB_BUILD/bin/skb" key new stranger stranger.key >stranger.pub
store=(-DCMAKE_PREFIX_PATH="$PWD/prefix" -DSKB_CONSUMER_CACHE="file://$PWD/store")
configure cold "${store[@]}" -DSKB_CONSUMER_SIGN_KEY="$PWD/ci.key" || fail "configure cold"
configure warm "${store[@]}" -DSKB_CONSUMER_TRUSTED_KEYS="$PWD/ci.pub" || fail "configure warm"
configure other "${store[@]}" -DSKB_CONSUMER_TRUSTED_KEYS="$PWD/stranger.pub" || fail "configure other"
for b in cold warm other; do
  cmake --build "$b" >"$b.log" 2>&1 || fail "build $b: $(tail -10 "$b.log")"
done
n=$(json_get warm/model_kernels/summary.json 'j["planned_total"]')
expect_eq "$(json_get cold/model_kernels/summary.json 'j["cache"]["uploads"]')" "$n" "uploads of the first build"
expect_eq "$(json_get warm/model_kernels/summary.json 'j["cache"]["hits"]')" "$n" "hits of the second build"
grep -q "kernel store: $n hits, 0 misses" warm.log || fail "the inner build's last line: $(tail -3 warm.log)"
expect_eq "$(json_get other/model_kernels/summary.json 'j["cache"]["untrusted"]')" "$n" "untrusted entries of a stranger's trust"
sh cold/model_kernels/static_kernel.run --check --trusted-keys "$PWD/ci.pub" | grep -q "signed by ci, trusted by" ||
  fail "SIGN_KEY did not sign the package"
! grep -rqF "$(awk -F: '{print $NF}' ci.key)" cold || fail "the private key is in the build folder"

step "BASE: the package is a delta on an earlier one, and carries none of the kernels that one has"
# SELF_CONTAINED: the project's check step runs the package (sh model_kernels.run --check), which
# a delta without its installer can do only where its base is installed.
cp cold/model_kernels/static_kernel.run base.run
configure delta "${store[@]}" -DSKB_CONSUMER_TRUSTED_KEYS="$PWD/ci.pub" -DSKB_CONSUMER_BASE="$PWD/base.run" \
  -DSKB_CONSUMER_SELF_CONTAINED=ON || fail "configure delta: $(tail -5 delta.configure.log)"
cmake --build delta >delta.log 2>&1 || fail "build delta: $(tail -10 delta.log)"
sh delta/model_kernels/static_kernel.run --info | grep -q "^base:        static_kernel_.* (a delta: [1-9][0-9]* of its" ||
  fail "the package is not a delta: $(sh delta/model_kernels/static_kernel.run --info)"
[ "$(stat -c %s delta/model_kernels/static_kernel.run)" -lt "$(stat -c %s base.run)" ] || fail "the delta is not smaller"
python3 "$SKB_SOURCE/tests/tools/check_delta.py" base.run delta/model_kernels/static_kernel.run ||
  fail "the delta carries a file the base has, or lacks one it does not"
grep -aq "^skb_installer_size=[1-9]" delta/model_kernels/static_kernel.run || fail "SELF_CONTAINED: no installer carried"

step "SIGN_KEY: another key in the same file packages again, signed by it"
cp stranger.key ci.key
cmake --build cold >cold2.log 2>&1 || fail "build cold again: $(tail -10 cold2.log)"
sh cold/model_kernels/static_kernel.run --check --trusted-keys "$PWD/stranger.pub" | grep -q "signed by stranger, trusted by" ||
  fail "the package was not signed again: $(tail -5 cold2.log)"

step "op-statistics folders that give no kernel fail the build, never a package missing or stale"
mkdir -p empty/ops
cat > empty/CMakeLists.txt <<CM
cmake_minimum_required(VERSION 3.20)
project(empty NONE)
find_package(skb CONFIG REQUIRED PATHS "$PWD/prefix" NO_DEFAULT_PATH)
skb_add_static_kernels(k OP_PARAMS ops)
CM
cmake -S empty -B empty/b -G Ninja >empty.configure.log 2>&1 || fail "configure: $(tail -5 empty.configure.log)"
rc=0; cmake --build empty/b >empty.log 2>&1 || rc=$?
[ "$rc" -ne 0 ] || fail "the build of an empty op-statistics folder passed: $(cat empty.log)"
grep -q "skb-generate: error: --require-kernels: no op records in .*empty/ops; nothing written" empty.log ||
  fail "unclear: $(cat empty.log)"

step "bad arguments are reported by the function"
mkdir -p badargs
cat > badargs/CMakeLists.txt <<CM
cmake_minimum_required(VERSION 3.20)
project(badargs NONE)
find_package(skb CONFIG REQUIRED PATHS "$PWD/prefix" NO_DEFAULT_PATH)
skb_add_static_kernels(k BOGUS 1 OP_PARAMS x)
CM
if cmake -S badargs -B badargs/b -G Ninja >badargs.log 2>&1; then fail "accepted an unknown argument"; fi
grep -q "skb_add_static_kernels(k): unknown arguments: BOGUS;1" badargs.log || fail "unclear: $(cat badargs.log)"
sed -i 's/skb_add_static_kernels(k BOGUS 1 OP_PARAMS x)/skb_add_static_kernels(k JOBS 2)/' badargs/CMakeLists.txt
if cmake -S badargs -B badargs/b2 -G Ninja >badargs2.log 2>&1; then fail "accepted a call without OP_PARAMS"; fi
grep -q "skb_add_static_kernels(k): OP_PARAMS is required" badargs2.log || fail "unclear: $(cat badargs2.log)"
n=2
while IFS='|' read -r call said; do
  n=$((n + 1))
  sed -i "s/^skb_add_static_kernels(.*/skb_add_static_kernels(k OP_PARAMS x $call)/" badargs/CMakeLists.txt
  if cmake -S badargs -B badargs/b$n -G Ninja >badargs$n.log 2>&1; then fail "accepted $call"; fi
  tr -s ' \n' '  ' <badargs$n.log | grep -q "skb_add_static_kernels(k): $said" || fail "$call: unclear: $(cat badargs$n.log)"
done <<'CASES'
JOBS abc|JOBS abc: expected a number of parallel compiles, 1 or more
JOBS 0|JOBS 0: expected a number of parallel compiles, 1 or more
COMPRESSION lz4|COMPRESSION lz4: expected gzip, zstd or xz
SELF_CONTAINED|SELF_CONTAINED needs BASE
JOB 4|OP_PARAMS JOB: no such folder, and not a keyword
LAUNCHER env JOB 1|LAUNCHER ... JOB: not a keyword
CASES
sed -i "s/^skb_add_static_kernels(.*/skb_add_static_kernels(. OP_PARAMS x)/" badargs/CMakeLists.txt
if cmake -S badargs -B badargs/dot -G Ninja >badargs-dot.log 2>&1; then fail "accepted the name ."; fi
grep -q "skb_add_static_kernels(.): expected a target name that can name a folder" badargs-dot.log ||
  fail "unclear: $(cat badargs-dot.log)"
echo PASS
