# Restarts compile nothing: the user's private local kernel store is on by default, private
# (0700, refused when another user owns it or others may write it), configured by flag >
# environment > skb.conf > default, a first tier in front of a shared store, managed by
# `skb cache`, and safe with builders, clean and evict at once (kill -9 included). The
# op_compiler entry leaves only the .run and CANN-style logs.
source "$(dirname "$0")/lib.sh"
source "$SKB_SOURCE/tests/tools/scale_out.sh"
make_dump dump --ranks 2 --seqs 4 --hidden 16 --heads 2
unset SKB_CACHE_DIR  # the default store: $XDG_CACHE_HOME/skb (lib.sh: in the scratch folder)
store=$XDG_CACHE_HOME/skb
op_compiler=$SKB_BIN/../libexec/skb/compat/op_compiler

# A compiler launcher that counts the compiles it runs (in $COMPILE_LOG), slowed by $SLOW
# seconds; it fails the kernels of op $FAIL_OP.
cat >count_cc <<'SH'
#!/bin/sh
echo x >>"$COMPILE_LOG"
[ -z "${SLOW:-}" ] || sleep "$SLOW"
case "$*" in *"${FAIL_OP:-no-such-op}"_*) echo "count_cc: $FAIL_OP refused" >&2; exit 1 ;; esac
exec ${SKB_LAUNCHER:-} "$@"
SH
chmod +x count_cc
export COMPILE_LOG=$PWD/compiles

# build OUT [skb-generate args]: a fresh build folder; prints how many kernels were compiled.
build() {
  local out=$1
  shift
  : >"$COMPILE_LOG"
  skb-generate -p dump -o "$out" --no-package -q --launcher "$PWD/count_cc" "$@" 2>"$out.gen.err"
  ninja -C "$out" >"$out.log" 2>&1 || { cat "$out.log" >&2; fail "build $out failed"; }
  wc -l <"$COMPILE_LOG"
}
cache_json() { skb cache "$@" stats --json >stats.json && json_get stats.json "$CACHE_FIELD"; }
entries() { CACHE_FIELD='j["entries"]' cache_json "$@"; }

step "on by default: the first build compiles every kernel, a second folder none"
planned=$(build a)
[ "$planned" -ge 10 ] || fail "expected at least 10 kernels, got $planned"
expect_eq "$(stat -c %a "$store")" 700 "the store folder's mode"
expect_eq "$(build b)" 0 "compiles of a second folder"
expect_eq "$(verify_kernels b/kernel_meta)" "$planned" "kernels of the second folder complete"
expect_eq "$(json_get b/summary.json 'j["cache"]["local"]["hits"]')" "$planned" "local hits"
expect_eq "$(entries)" "$planned" "entries"

step "--no-cache and SKB_CACHE_DIR=off turn it off"
expect_eq "$(build c --no-cache)" "$planned" "compiles with --no-cache"
expect_eq "$(SKB_CACHE_DIR=off build d)" "$planned" "compiles with SKB_CACHE_DIR=off"
[ ! -e c/cache/config.json ] || fail "--no-cache wrote a store configuration"

step "private means checked: a store others may write, or another user's, is not used"
chmod 777 "$store"
expect_eq "$(build e)" "$planned" "compiles beside a world-writable store"
grep -q "local kernel store $store is not used: permissions 0777 let group or others write it" e.gen.err ||
  fail "no warning for a world-writable store: $(cat e.gen.err)"
chmod 700 "$store"
if [ "$(id -u)" = 0 ]; then
  chown 65534 "$store"
  expect_eq "$(build f)" "$planned" "compiles beside another user's store"
  grep -q "is owned by uid 65534, not by this user" f.gen.err || fail "no warning for another user's store"
  chown 0 "$store"
else
  echo "    (not root: a folder of another user cannot be made here; that check is skipped)"
fi
touch not-a-folder
expect_eq "$(SKB_CACHE_DIR=$PWD/not-a-folder build g)" "$planned" "compiles when the store is a file"
grep -q "is not used: it is not a folder" g.gen.err || fail "no warning for a store that is a file: $(cat g.gen.err)"

step "where settings come from: flag > environment > the store's skb.conf > the user's skb.conf > default"
cap() { skb cache "$@" config --json >config.json && json_get config.json 'j["local"]["max_size"], j["local"]["max_size_from"]'; }
expect_eq "$(cap)" "(5368709120, 'default')" "the default cap"
mkdir -p "$XDG_CONFIG_HOME/skb"
printf '# team settings\nmax_size = 1G\n' >"$XDG_CONFIG_HOME/skb/skb.conf"
expect_eq "$(cap)" "(1073741824, '$XDG_CONFIG_HOME/skb/skb.conf')" "the user's skb.conf"
printf 'max_size = 2G\n' >"$store/skb.conf"
expect_eq "$(cap)" "(2147483648, '$store/skb.conf')" "the store's skb.conf"
expect_eq "$(SKB_CACHE_MAX_SIZE=3G cap)" "(3221225472, 'SKB_CACHE_MAX_SIZE')" "the environment"
printf 'max_sise = 2G\n' >"$store/skb.conf"
if skb cache stats >typo.out 2>typo.err; then fail "a misspelt skb.conf key was taken"; fi
grep -q "$store/skb.conf:1: unknown key \"max_sise\"" typo.err || fail "typo message: $(cat typo.err)"
rm "$store/skb.conf" "$XDG_CONFIG_HOME/skb/skb.conf"
printf 'cache_dir = %s\n' "$PWD/conf-store" >"$XDG_CONFIG_HOME/skb/skb.conf"
expect_eq "$(skb cache config --json >config.json && json_get config.json 'j["local"]["dir_from"]')" \
  "$XDG_CONFIG_HOME/skb/skb.conf" "the store folder from skb.conf"
expect_eq "$(SKB_CACHE_DIR=$store skb cache config --json >config.json && json_get config.json 'j["local"]["dir_from"]')" \
  SKB_CACHE_DIR "SKB_CACHE_DIR over skb.conf"
rm "$XDG_CONFIG_HOME/skb/skb.conf"
# skb cache config reports and makes nothing; a file where the store would be is not one.
skb cache --cache-dir "$PWD/not/made/yet" config | grep -q "not made yet" || fail "config of a store not made yet"
[ ! -e not ] || fail "skb cache config made the store's folder"
touch a-file
for cmd in stats zero clean verify "evict --max-size 1"; do
  rc=0; skb cache --cache-dir "$PWD/a-file" $cmd >/dev/null 2>err || rc=$?
  expect_eq "$rc" 1 "skb cache $cmd of a file"
  grep -q "a-file: not a folder" err || fail "skb cache $cmd of a file said: $(cat err)"
done
rc=0; skb cache stats --cache-dir "$PWD/a-file" >/dev/null 2>err || rc=$?  # the option after the command
expect_eq "$rc" 1 "skb cache stats --cache-dir of a file"
grep -q "a-file: not a folder" err || fail "skb cache stats --cache-dir of a file said: $(cat err)"

step "two tiers: a shared hit is kept locally, what is compiled goes to both"
expect_eq "$(SKB_CACHE_DIR=$PWD/l1 build t1 --cache "file://$PWD/shared")" "$planned" "compiles into two empty tiers"
expect_eq "$(json_get t1/summary.json 'j["cache"]["remote"]["uploads"], j["cache"]["local"]["uploads"]')" \
  "($planned, $planned)" "uploads to the shared and the local store"
expect_eq "$(SKB_CACHE_DIR=$PWD/l2 build t2 --cache "file://$PWD/shared")" 0 "compiles with a shared store only"
expect_eq "$(json_get t2/summary.json 'j["cache"]["local"]["misses"], j["cache"]["remote"]["hits"]')" \
  "($planned, $planned)" "local misses, shared hits"
expect_eq "$(entries --cache-dir "$PWD/l2")" "$planned" "shared hits kept locally"
expect_eq "$(SKB_CACHE_DIR=$PWD/l2 build t3)" 0 "compiles from what was kept locally"

step "skb cache: stats, verify (a damaged entry is removed and named), evict, clean, zero"
victim=$(find "$store" -name '*.entry' | sort | head -1)
printf 'garbage' | dd of="$victim" bs=1 seek=64 conv=notrunc 2>/dev/null
rc=0
skb cache verify >verify.out || rc=$?
expect_eq "$rc" 3 "verify's exit status with a damaged entry"
grep -q "$victim: removed" verify.out || fail "verify did not name the damaged entry: $(cat verify.out)"
expect_eq "$(entries)" "$((planned - 1))" "entries after verify"
skb cache verify >/dev/null || fail "verify of a sound store"
# A new config folder makes a new key under the same default name (user@host): its signatures do
# not verify, and they may be another key's: untrusted, kept.
XDG_CONFIG_HOME=$PWD/new-config skb cache verify >other-key.out || fail "verify under another key of the same name: $(cat other-key.out)"
grep -q "kept, never used: its signature by .* does not match its contents" other-key.out ||
  fail "verify under another key of the same name: $(cat other-key.out)"
expect_eq "$(entries)" "$((planned - 1))" "entries after verify under another key of the same name"
expect_eq "$(build h)" 1 "compiles after verify removed one entry"
rc=0
skb cache evict 2>evict.err || rc=$?
expect_eq "$rc" 2 "evict's exit status without --older-than or --max-size (a usage error)"
grep -q "expected --older-than DURATION and/or --max-size SIZE" evict.err || fail "evict's usage error: $(cat evict.err)"
expect_eq "$(entries)" "$planned" "entries after a refused evict"
skb cache evict --max-size 1 >/dev/null
expect_eq "$(entries)" 0 "entries after evict --max-size 1"
expect_eq "$(CACHE_FIELD='j["counts"]["local"]["evictions"] >= '"$planned" cache_json)" True "evictions counted"
build i >/dev/null
skb cache evict --older-than 1d >/dev/null
expect_eq "$(entries)" "$planned" "entries after evict --older-than 1d (all recent)"
skb cache clean >/dev/null
expect_eq "$(entries)" 0 "entries after clean"
skb cache zero >/dev/null
expect_eq "$(CACHE_FIELD='j["counts"]["hits"], j["counts"]["misses"]' cache_json)" "(0, 0)" "counts after zero"
skb cache stats | grep -q "^local store   $store" || fail "skb cache stats: $(skb cache stats)"

step "builders, clean and evict at once, with kill -9 in the middle: never a half entry"
trials=${SKB_STORE_TRIALS:-3}
# kill -9 of this suite's compile steps (those working in its scratch folder), never another suite's.
kill_steps() {
  local p
  for p in $(pgrep -f "skb-generate compile-step" || true); do
    case "$(readlink "/proc/$p/cwd" 2>/dev/null)" in "$SKB_SCRATCH"/*) kill -9 "$p" 2>/dev/null || true ;; esac
  done
}
for t in $(seq "$trials"); do
  for w in 1 2 3; do
    (SLOW=0.05 build "k$t.$w" >/dev/null 2>&1 || true) &
  done
  (for _ in 1 2 3 4 5; do skb cache evict --max-size 64K >/dev/null; skb cache clean >/dev/null; sleep 0.2; done) &
  admin=$!
  sleep 1
  kill_steps
  sleep 0.3
  kill_steps
  wait
done
skb cache verify >verify.out || fail "a damaged entry after concurrent builders, clean and evict: $(cat verify.out)"
expect_eq "$(build final >/dev/null; verify_kernels final/kernel_meta)" "$planned" "kernels complete after the storm"
[ -z "$(find "$store" -name '*.tmp.*')" ] || skb cache clean >/dev/null
[ -z "$(find "$store" -name '*.tmp.*')" ] || fail "leftovers of killed writers after clean: $(find "$store" -name '*.tmp.*')"

step "op_compiler: a restart into a fresh -o compiles nothing; -o holds the .run and CANN's logs only"
export SKB_CACHE_DIR=$PWD/oc-store
export SKB_TOOLCHAIN=host  # no CANN compiler here: the host profile stands in for it, chosen
"$op_compiler" -p dump -o round1 -v Ascend910B3 >round1.out 2>round1.err || fail "op_compiler: $(cat round1.err)"
grep -q "^generate run package static_kernel_.*\.run success$" round1.out || fail "no success line: $(cat round1.out)"
if grep -q "build them with" round1.err; then fail "op_compiler told to build its work folder: $(cat round1.err)"; fi
expect_eq "$(find round1 -maxdepth 1 -name '*.run' | wc -l)" 1 ".run files in -o"
expect_eq "$(find round1/*_compile_log -name 'static_kernel_*_d0_compile_succ.log' | wc -l)" "$planned" "success logs"
expect_eq "$(ls round1 | grep -vc -e '\.run$' -e '^[0-9]*_compile_log$')" 0 "anything else in -o"
"$op_compiler" -p dump -o round2 -v Ascend910B3 >/dev/null 2>round2.err || fail "op_compiler restart"
expect_eq "$(ls round2 | grep -c '\.run$')" 1 ".run after a restart"
expect_eq "$(ls round2 | grep -vc '\.run$')" 0 "logs after a restart (nothing compiled)"
expect_eq "$(ls "$TMPDIR" | grep -c skb-job)" 0 "work folders left behind"
run=$(ls round2/*.run)
"$run" -q --install-path="$PWD/inst" || fail "install"
pkg=$(basename "$run" .run)
own=inst/opp/static_kernel/ai_core/$pkg/config/ascend910b/binary_info_config.json
[ -f "$own" ] || fail "no package index at $own: $(find inst -name binary_info_config.json)"
expect_eq "$(json_get "$own" 'len(j["binList"])')" \
  "$(json_get inst/opp/static_kernel/ai_core/config/ascend910b/binary_info_config.json 'len(j["binList"])')" \
  "kernels in the package's index and in the merged one"

step "op_compiler: a kernel that fails to compile leaves its _compile_error.log with the message, and no .run"
rm -rf "$SKB_CACHE_DIR"
rc=0
FAIL_OP=Add skb-package --cann-output -p dump -o failed --launcher "$PWD/count_cc" >failed.out 2>failed.err || rc=$?
[ "$rc" != 0 ] || fail "a failed compile exited 0"
err=$(find failed -name 'static_kernel_Add_*_compile_error.log' | head -1)
[ -n "$err" ] || fail "no _compile_error.log: $(find failed)"
grep -q "count_cc: Add refused" "$err" || fail "the error log lacks the compiler's message: $(cat "$err")"
expect_eq "$(find failed -name '*.run' | wc -l)" 0 ".run files after a failed compile"

step "-p with no op records: 'no op records in DIR', exit 3, nothing written"
mkdir empty
rc=0
"$op_compiler" -p empty -o nothing >/dev/null 2>none.err || rc=$?
expect_eq "$rc" 3 "exit status"
grep -q "no op records in empty" none.err || fail "message: $(cat none.err)"
[ ! -e nothing ] || fail "an empty -o folder was left"
# Files whose every record is rejected: no op records either.
mkdir -p rejected/ts1_pid1_outputs/1_opcompile && echo '{"op_type": "Relu"}' >rejected/ts1_pid1_outputs/1_opcompile/Relu_1.json
for cmd in "$op_compiler" skb-package; do
  rc=0
  "$cmd" -p rejected -o rejected_out >/dev/null 2>none.err || rc=$?
  expect_eq "$rc" 3 "exit status of $(basename "$cmd") on rejected records only"
  grep -q "no op records in rejected that a kernel can be built for" none.err || fail "message: $(cat none.err)"
  [ -z "$(find rejected_out -mindepth 1 2>/dev/null)" ] || fail "$(basename "$cmd") left $(find rejected_out | head -3)"
done
echo "    $planned kernels; $trials storm trials"
