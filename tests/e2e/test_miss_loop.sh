# The loop closes: a run's calls that found no static kernel are recorded where skb-package -p
# reads them (SKB_RECORD_MISSES), `skb-package -p MISSES --base OLD.run` makes a delta of exactly
# their kernels, and installed, the same run misses nothing. Three rounds of new shapes converge,
# each delta carrying only its round's kernels. skb coverage measures the same before each install.
source "$(dirname "$0")/lib.sh"
ci_store
export SOURCE_DATE_EPOCH=1700000000
export HOME=$PWD/home
unset SKB_INSTALL_PATH ASCEND_OPP_PATH ASCEND_HOME_PATH SKB_RECORD_MISSES

make_dump dump0 --ranks 1 --seqs 8 --hidden 16 --heads 2 --expect expect0.json
A=$(build_package dump0 out_a --dynamic)
pa=$(basename "$A" .run)
sh "$A" --install-path="$PWD/lib" -q
# Prints the line of skb-replay's runtime counts.
replay() {  # dump misses_dir
  SKB_RECORD_MISSES=$2 skb-replay --install-path "$PWD/lib" "$1" >"$2.out" 2>"$2.err" ||
    fail "skb-replay $1: $(tail -3 "$2.out" "$2.err")"
  grep '^runtime counts:' "$2.out"
}
records() { find "$1" -name '*.json' 2>/dev/null | wc -l; }

step "the calls the package was built from: all static, nothing recorded"
line=$(replay dump0 misses0)
echo "    $line"
echo "$line" | grep -q ' 0 dynamic, 0 no kernel; 0 missed calls recorded$' || fail "$line"
expect_eq "$(records misses0)" 0 "records of a run without a miss"
skb coverage --install-path "$PWD/lib" dump0 --min-coverage 100 >cov0.txt || fail "coverage: $(cat cov0.txt)"

seqs=8
prev=$(json_get expect0.json 'j["distinct"]')
for round in 1 2 3; do
  seqs=$seqs,$((8 + 4 * round))
  make_dump "dump$round" --ranks 1 --seqs "$seqs" --hidden 16 --heads 2 --expect "expect$round.json"
  distinct=$(json_get "expect$round.json" 'j["distinct"]')
  new=$((distinct - prev))
  step "round $round: seqs $seqs, $new calls of new shapes"
  [ "$new" -gt 0 ] || fail "round $round has no new shape"

  rc=0; skb coverage --install-path "$PWD/lib" "dump$round" --min-coverage 100 >"cov$round.txt" 2>"cov$round.err" || rc=$?
  expect_eq "$rc" 3 "skb coverage's exit status below --min-coverage"
  head -1 "cov$round.txt" | sed 's/^/    /'
  expect_eq "$(grep -c 'no static kernel for this call; nearest of' "cov$round.txt")" "$new" "records coverage explains"
  grep -q 'first /inputs/0/shape/[0-9]*: installed [0-9]*, called [0-9]*' "cov$round.txt" ||
    fail "coverage names no first differing field: $(head -3 "cov$round.txt")"

  line=$(replay "dump$round" "misses$round")
  echo "    $line"
  echo "$line" | grep -q "; $new missed calls recorded$" || fail "round $round: $line"
  expect_eq "$(records "misses$round")" "$new" "records written"
  expect_eq "$(grep -c "^skb runtime: calls: .*; $new missed calls recorded in misses$round/ts" "misses$round.err")" 1 \
    "flush lines: $(cat "misses$round.err")"
  skb coverage --install-path "$PWD/lib" "misses$round" >/dev/null || fail "the records written are not records"

  D=$(SOURCE_DATE_EPOCH=$((1700000000 + round)) build_package "misses$round" "out_d$round" --base "$A")
  expect_eq "$(json_get "out_d$round/.skb/summary.json" 'j["distinct_kernels"]')" "$new" "kernels the delta builds"
  expect_eq "$(sh "$D" --install-path="$PWD/lib" --list | grep -vc "	from $pa$")" "$new" "kernels the delta carries"
  sh "$D" --install-path="$PWD/lib" -q

  line=$(replay "dump$round" "again$round")
  echo "    after its delta: $line"
  echo "$line" | grep -q ' 0 dynamic, 0 no kernel; 0 missed calls recorded$' || fail "round $round: $line"
  expect_eq "$(records "again$round")" 0 "records after the delta"
  skb coverage --install-path "$PWD/lib" "dump$round" --min-coverage 100 >/dev/null || fail "coverage below 100%"
  prev=$distinct
done
check_library lib >/dev/null || fail "inconsistent library"

step "calls of ops skb has no template for: no kernel, counted and recorded; skb-generate names them unsupported"
make_dump dumpu --ranks 1 --seqs 8 --hidden 16 --heads 2 --unsupported
SKB_RECORD_MISSES=$PWD/missesu skb-replay --install-path "$PWD/lib" --counts dumpu >missesu.out 2>missesu.err ||
  fail "skb-replay: $(tail -3 missesu.err)"
line=$(grep '^runtime counts:' missesu.out)
echo "    $line"
echo "$line" | grep -q ' 0 dynamic, 3 no kernel; 3 missed calls recorded$' || fail "$line"
grep -q '^GatherV2 -: 0 static, 0 dynamic, 1 no kernel$' missesu.out || fail "no per-op line: $(head missesu.out)"
grep -q '^Cast Cast_[0-9a-f]*: 1 static, 0 dynamic, 0 no kernel$' missesu.out || fail "no per-kernel line: $(head missesu.out)"
skb-generate -p missesu -o gen_u -q 2>/dev/null || true
expect_eq "$(json_get gen_u/summary.json 'sorted(j["unsupported"])')" "['GatherV2', 'Pack', 'SplitD']" "unsupported ops"
# Each unsupported op is shown with a file of it, in summary.json and in --strict's errors.
gather=$(json_get gen_u/summary.json 'j["unsupported_file"]["GatherV2"]')
grep -q '"op_type": *"GatherV2"' "$gather" || fail "summary.json's file of GatherV2 is not one: $gather"
rc=0; skb-generate -p missesu -o gen_strict --strict -q 2>strict.err || rc=$?
expect_eq "$rc" 1 "skb-generate --strict of unsupported ops"
grep -q "^skb-generate: error: GatherV2: 1 distinct records unsupported: .* (one is $gather)$" strict.err ||
  fail "--strict does not name a file: $(cat strict.err)"

step "a folder that cannot be written: one warning, the run goes on"
echo in the way >blocked
SKB_RECORD_MISSES=$PWD/blocked/misses skb-replay --install-path "$PWD/lib" dump0 >blocked.out 2>blocked.err ||
  fail "the run stopped: $(cat blocked.err)"
make_dump dump9 --ranks 1 --seqs 40 --hidden 16 --heads 2
SKB_RECORD_MISSES=$PWD/blocked/misses skb-replay --install-path "$PWD/lib" dump9 >blocked.out 2>blocked.err ||
  fail "the run stopped: $(cat blocked.err)"
expect_eq "$(grep -c 'warning: cannot record missed calls' blocked.err)" 1 "warnings"

small=$PWD/small
mkdir -p "$small"
if [ "$(id -u)" = 0 ] && mount -t tmpfs -o size=4m skb_miss_full "$small" 2>/dev/null; then
  trap 'umount "$small" 2>/dev/null || true' EXIT
  step "a full disk: one warning, the run goes on; once there is room, the next run records"
  python3 "$SKB_SOURCE/tests/tools/fill_disk.py" "$small/filler"
  SKB_RECORD_MISSES=$small/misses skb-replay --install-path "$PWD/lib" dump9 >full.out 2>full.err ||
    fail "the run stopped: $(cat full.err)"
  expect_eq "$(grep -c 'warning: cannot record missed calls.*[Nn]o space left on device' full.err)" 1 "warnings"
  grep -q '^runtime counts: 0 static, 21 dynamic' full.out || fail "$(cat full.out)"
  rm -f "$small/filler"
  SKB_RECORD_MISSES=$small/misses skb-replay --install-path "$PWD/lib" dump9 >full.out 2>full.err
  grep -q '; 21 missed calls recorded$' full.out || fail "after freeing space: $(cat full.out full.err)"
  expect_eq "$(find "$small/misses" -name '*.json' | wc -l)" 21 "records once there is room"
else
  echo "--- (a full disk: skipped, needs root to mount a size-limited tmpfs)"
fi

bench=$SKB_BIN/../tests/skb_record_bench
if [ -x "$bench" ]; then
  step "what recording costs a static hit (figures, not checked)"
  "$bench" "$PWD/lib" dump0 "$PWD/bench_misses" "${SKB_RECORD_BENCH_CALLS:-3000}" | sed 's/^/    /'
fi
echo PASS
