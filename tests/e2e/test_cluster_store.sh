# A cluster compiles each kernel once: builders that share a store claim a kernel before they
# compile it and take the kernels others claimed from the store. 4 builders, each with its own
# home (configuration, local store, TMPDIR) and one team key, start one model together on
# redis-server on loopback and on a file store; one builder killed -9 in the middle; a claimed
# compile that fails; the packages are those a builder alone makes.
source "$(dirname "$0")/lib.sh"
command -v redis-server >/dev/null || fail "redis-server is not installed (scripts/test.sh installs it)"
source "$SKB_SOURCE/tests/tools/scale_out.sh"
make_dump dump --ranks 2 --seqs 6 --hidden 16 --heads 2
skb key new team team.key > team.pub
# A launcher that counts the compiles it runs ($COMPILE_LOG), each slowed by $SLOW seconds, and
# fails the ones whose command holds $FAIL_IF.
cat >count_cc <<'EOF'
#!/bin/sh
echo x >>"$COMPILE_LOG"
[ -z "${SLOW:-}" ] || sleep "$SLOW"
case "$*" in *"${FAIL_IF:-@none@}"*) echo "count_cc: failing as asked" >&2; exit 1 ;; esac
exec "$@"
EOF
chmod +x count_cc
export SOURCE_DATE_EPOCH=1700000000 SLOW=0.2

# builder NAME URL [DUMP]: one node's whole job (op_compiler's), -j 1, in a home of its own.
builder() {
  local home=$PWD/$1
  mkdir -p "$home/tmp" "$home/config"
  HOME=$home XDG_CONFIG_HOME=$home/config SKB_CACHE_DIR=$home/local TMPDIR=$home/tmp \
    SKB_SIGNING_KEY=$PWD/team.key SKB_TRUSTED_KEYS=$PWD/team.pub COMPILE_LOG=$PWD/$1.compiles \
    skb-package -p "${3:-dump}" -o "$home/out" -j 1 --cache "$2" --launcher "$PWD/count_cc" >"$1.log" 2>&1
}
compiles() { cat "$@" 2>/dev/null | wc -l; }
run_of() { ls "$PWD/$1"/out/static_kernel_*.run; }
stat_of() { json_get "$1/out/.skb/summary.json" "j['cache']['$2']"; }

step "one builder alone: the baseline package"
start_redis "$PWD/redis"
builder alone "$SKB_REDIS_URL/1" || fail "the builder alone failed: $(tail -5 alone.log)"
distinct=$(compiles alone.compiles)
[ "$distinct" -ge 15 ] || fail "expected at least 15 kernels, got $distinct"
baseline=$(sha256sum <"$(run_of alone)")

for store in "$SKB_REDIS_URL/2" "file://$PWD/file_store"; do
  step "4 builders start together on $store: each kernel compiled about once, every package the baseline's"
  pids=()
  for n in 1 2 3 4; do
    rm -f "n$n.compiles"
    builder "n$n" "$store" & pids+=($!)
  done
  for n in 1 2 3 4; do wait "${pids[$((n - 1))]}" || fail "builder $n failed: $(tail -5 "n$n.log")"; done
  total=$(compiles n1.compiles n2.compiles n3.compiles n4.compiles)
  echo "    $total compiles for $distinct kernels"
  [ "$total" -le $((distinct * 11 / 10)) ] || fail "4 builders compiled $total times for $distinct kernels"
  claims=0 taken=0
  for n in 1 2 3 4; do
    expect_eq "$(sha256sum <"$(run_of "n$n")")" "$baseline" "builder $n's package"
    claims=$((claims + $(stat_of "n$n" claims))) taken=$((taken + $(stat_of "n$n" taken)))
  done
  [ "$claims" -le "$total" ] && [ "$((claims + taken))" -ge 1 ] || fail "claims $claims, taken $taken"
  grep -q "compiled under a claim" n1.log || fail "builder 1's last line says nothing of claims: $(tail -1 n1.log)"
  rm -rf n1 n2 n3 n4
done
[ -z "$(ls file_store/claims 2>/dev/null)" ] || fail "claims left in the file store: $(ls file_store/claims)"
expect_eq "$(redis-cli -u "$SKB_REDIS_URL/2" keys '*.claim' | grep -c .)" 0 "claims left in redis"

step "a builder killed -9 in the middle of its compiles: the others finish, each with every kernel"
pids=()
set -m  # each builder a process group of its own: skb-package, its ninja, its compile steps
for n in 1 2 3 4; do
  SLOW=1.5 builder "k$n" "$SKB_REDIS_URL/3?lease=2" & pids+=($!)
done
set +m
# The victim: the first builder seen in a compile (its launcher logs a compile, then sleeps
# $SLOW before running it), whichever it is: under load any of the four may get there first,
# and one that got no kernel to compile may already be done.
victim=
for _ in $(seq 600); do
  for n in 1 2 3 4; do
    if [ "$(compiles "k$n.compiles")" -ge 1 ] && kill -0 "${pids[$((n - 1))]}" 2>/dev/null; then victim=$n; break 2; fi
  done
  sleep 0.05
done
[ -n "$victim" ] || fail "no builder was seen compiling in 30 s"
kill -9 -- "-${pids[$((victim - 1))]}" || fail "builder $victim ended before it could be killed"
for n in 1 2 3 4; do
  [ "$n" != "$victim" ] || continue
  wait "${pids[$((n - 1))]}" || fail "builder $n failed after builder $victim died: $(tail -5 "k$n.log")"
  expect_eq "$(sha256sum <"$(run_of "k$n")")" "$baseline" "builder $n's package"
done

step "a claimed compile that fails: its claim is released, and the builder waiting for it compiles"
# One kernel: builder f1 claims it and fails; f2, started while f1 holds the claim, waits, then
# claims and compiles it.
mkdir one && cp "$(ls dump/*/*/*.json | head -1)" one/
FAIL_IF=-DSKB_OP SLOW=12 builder f1 "$SKB_REDIS_URL/4" one & f1=$!
for _ in $(seq 100); do [ "$(redis-cli -u "$SKB_REDIS_URL/4" keys '*.claim' | grep -c .)" -ge 1 ] && break; sleep 0.1; done
builder f2 "$SKB_REDIS_URL/4" one || fail "builder 2 failed: $(tail -5 f2.log)"
rc=0; wait "$f1" || rc=$?
[ "$rc" != 0 ] || fail "builder 1's compile was to fail"
expect_eq "$(stat_of f2 waited)" 1 "kernels builder 2 waited for"
expect_eq "$(stat_of f2 claims)" 1 "kernels builder 2 claimed after the failed claim was released"
expect_eq "$(stat_of f2 taken)" 0 "kernels builder 2 took from builder 1"
grep -q "waiting [0-9]* s for another builder's compile (.*:[0-9]*:[0-9a-f]*) to reach redis://" f2.log ||
  fail "builder 2 did not say whose compile it waited for: $(cat f2.log)"
expect_eq "$(redis-cli -u "$SKB_REDIS_URL/4" keys '*.claim' | grep -c .)" 0 "claims left"
echo PASS
