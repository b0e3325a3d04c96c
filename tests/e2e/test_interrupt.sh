# kill -9 in the middle of a build, of ninja alone (its compiles go on as orphans) or of its
# whole process group: the next `ninja` finishes the job and every kernel's binary matches its
# record. Trials alternate between the two kinds and vary the moment.
source "$(dirname "$0")/lib.sh"

make_dump dump --ranks 1 --seqs 8 --hidden 16 --heads 2
skb-generate -p dump -o out -q
total=$(json_get out/summary.json 'j["planned_total"]')
trials=${SKB_KILL_TRIALS:-12}
for t in $(seq 1 "$trials"); do
  rm -rf out/kernel_meta/*.so out/kernel_meta/*.json out/.ninja_log
  delay=$(python3 -c "import random; print(round(random.uniform(0.2, 2.0), 2))")
  setsid ninja -C out >/dev/null 2>&1 &
  pid=$!
  sleep "$delay"
  if [ $((t % 2)) = 0 ]; then
    kill -9 -- -"$pid" 2>/dev/null || true; kind="process group"
  else
    kill -9 "$pid" 2>/dev/null || true; kind="ninja only"
  fi
  wait "$pid" 2>/dev/null || true
  done_before=$(find out/kernel_meta -name "*.json" | wc -l)
  step "trial $t: killed $kind after ${delay}s with $done_before/$total kernels recorded"
  verify_kernels out/kernel_meta >/dev/null || fail "trial $t: a record describes a binary that does not match it"
  ninja -C out >/dev/null 2>&1 || fail "trial $t: ninja after the kill failed"
  sleep 0.5  # orphans of a 'ninja only' kill may still be finishing
  ninja -C out >/dev/null 2>&1 || fail "trial $t: second ninja after the kill failed"
  expect_eq "$(verify_kernels out/kernel_meta)" "$total" "trial $t: complete kernels"
done
echo PASS
