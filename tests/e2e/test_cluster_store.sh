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
# A launcher that counts the compiles it runs ($COMPILE_LOG), each slowed by $SLOW seconds or held
# until the file $GATE exists, and fails the ones whose command holds $FAIL_IF.
cat >count_cc <<'EOF'
#!/bin/sh
echo x >>"$COMPILE_LOG"
[ -z "${SLOW:-}" ] || sleep "$SLOW"
if [ -n "${GATE:-}" ]; then
  n=0
  until [ -e "$GATE" ] || [ "$n" -ge 3000 ]; do sleep 0.1; n=$((n + 1)); done
fi
case "$*" in *"${FAIL_IF:-@none@}"*) echo "count_cc: failing as asked" >&2; exit 1 ;; esac
exec ${SKB_LAUNCHER:-} "$@"
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
# The compiles of the builders named by their count files; a builder that compiled nothing (the
# others took every kernel it needed) has no count file: 0.
compiles() {
  local n=0 f
  for f; do
    if [ -f "$f" ]; then n=$((n + $(wc -l <"$f"))); fi
  done
  echo "$n"
}
run_of() { ls "$PWD/$1"/out/static_kernel_*.run; }
stat_of() { json_get "$1/out/.skb/summary.json" "j['cache']['$2']"; }

step "one builder alone: the baseline package"
start_redis "$PWD/redis"
builder alone "$SKB_REDIS_URL/1" || fail "the builder alone failed: $(tail -5 alone.log)"
distinct=$(compiles alone.compiles)
[ "$distinct" -ge 15 ] || fail "expected at least 15 kernels, got $distinct"
baseline=$(sha256sum <"$(run_of alone)")

for store in "$SKB_REDIS_URL/2" "file://$PWD/file_store"; do
  step "4 builders start together on $store: each kernel compiled once, under a claim; every package the baseline's"
  pids=()
  for n in 1 2 3 4; do
    rm -f "n$n.compiles"
    builder "n$n" "$store" & pids+=($!)
  done
  for n in 1 2 3 4; do wait "${pids[$((n - 1))]}" || fail "builder $n failed: $(tail -5 "n$n.log")"; done
  total=$(compiles n1.compiles n2.compiles n3.compiles n4.compiles)
  echo "    $total compiles for $distinct kernels"
  # A builder compiles a kernel only under its claim, and only when the store has no entry of it
  # once it holds the claim (the claimant stores its entry before it lets go): with a lease of a
  # minute, renewed, no claim lapses, so each kernel is compiled exactly once.
  expect_eq "$total" "$distinct" "compiles of 4 builders for $distinct kernels"
  claims=0
  for n in 1 2 3 4; do
    expect_eq "$(sha256sum <"$(run_of "n$n")")" "$baseline" "builder $n's package"
    c=$(stat_of "n$n" claims) t=$(stat_of "n$n" taken) h=$(stat_of "n$n" hits)
    echo "    builder $n: $c compiled under a claim, $t taken from others, $h found at its lookup"
    # Every kernel of a builder: found at its lookup, or missed and then compiled under its claim or
    # taken from the builder that claimed it.
    expect_eq "$c" "$(compiles "n$n.compiles")" "builder $n's claims (its compiles)"
    expect_eq "$((h + c + t))" "$distinct" "builder $n's hits + claims + taken"
    claims=$((claims + c))
  done
  expect_eq "$claims" "$distinct" "claims of the 4 builders"
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
for _ in $(seq 2400); do
  for n in 1 2 3 4; do
    if [ "$(compiles "k$n.compiles")" -ge 1 ] && kill -0 "${pids[$((n - 1))]}" 2>/dev/null; then victim=$n; break 2; fi
  done
  sleep 0.05
done
[ -n "$victim" ] || fail "no builder was seen compiling in 120 s"
kill -9 -- "-${pids[$((victim - 1))]}" || fail "builder $victim ended before it could be killed"
for n in 1 2 3 4; do
  [ "$n" != "$victim" ] || continue
  wait "${pids[$((n - 1))]}" || fail "builder $n failed after builder $victim died: $(tail -5 "k$n.log")"
  expect_eq "$(sha256sum <"$(run_of "k$n")")" "$baseline" "builder $n's package"
done

step "a claimed compile that fails: its claim is released, and the builder waiting for it compiles"
# One kernel: builder f1 claims it, and its compile, held until f2 has waited for it more than
# the 5 s after which a wait is said, fails; then f2 claims and compiles it.
mkdir one && cp "$(ls dump/*/*/*.json | head -1)" one/
FAIL_IF=-DSKB_OP GATE=$PWD/f1.go builder f1 "$SKB_REDIS_URL/4" one & f1=$!
claimed=
for _ in $(seq 1200); do
  if [ "$(redis-cli -u "$SKB_REDIS_URL/4" keys '*.claim' | grep -c .)" -ge 1 ]; then claimed=1; break; fi
  kill -0 "$f1" 2>/dev/null || fail "builder 1 ended before it claimed the kernel: $(tail -5 f1.log)"
  sleep 0.1
done
[ -n "$claimed" ] || fail "builder 1 held no claim in redis after 120 s: $(tail -5 f1.log)"
builder f2 "$SKB_REDIS_URL/4" one & f2=$!
# f2's compile step (of its home), in the claim's wait as soon as it runs: 8 s after it is seen.
step_of_f2() {
  local p
  for p in $(pgrep -f -- ' compile-step ' || true); do
    case $(readlink "/proc/$p/cwd" 2>/dev/null) in "$PWD/f2/"*) return 0 ;; esac
  done
  return 1
}
seen=
for _ in $(seq 1200); do
  if step_of_f2; then seen=1; break; fi
  kill -0 "$f2" 2>/dev/null || fail "builder 2 ended while builder 1 held the claim: $(tail -5 f2.log)"
  sleep 0.1
done
[ -n "$seen" ] || fail "builder 2 ran no compile step in 120 s: $(tail -5 f2.log)"
sleep 8
touch f1.go
wait "$f2" || fail "builder 2 failed: $(tail -5 f2.log)"
rc=0; wait "$f1" || rc=$?
[ "$rc" != 0 ] || fail "builder 1's compile was to fail"
expect_eq "$(stat_of f2 waited)" 1 "kernels builder 2 waited for"
expect_eq "$(stat_of f2 claims)" 1 "kernels builder 2 claimed after the failed claim was released"
expect_eq "$(stat_of f2 taken)" 0 "kernels builder 2 took from builder 1"
grep -q "waiting [0-9]* s for another builder's compile (.*:[0-9]*:[0-9a-f]*) to reach redis://" f2.log ||
  fail "builder 2 did not say whose compile it waited for: $(cat f2.log)"
expect_eq "$(redis-cli -u "$SKB_REDIS_URL/4" keys '*.claim' | grep -c .)" 0 "claims left"
echo PASS
