# Every kernel earns its place: skb bench finds a static kernel that burns 30 times its work
# slower than its dynamic twin, the runtime stops serving it on this machine class (and says why),
# SKB_PAYOFF=off serves it again, evidence of another class is not applied, and corrupt or
# hostile evidence is refused by name and pointer with nothing served changed; skb-package
# --payoff leaves the slower kernels out of the next package.
source "$(dirname "$0")/lib.sh"
own_libraries
templates="$SKB_BIN/../share/skb/templates"
examples="$SKB_SOURCE/examples/op_stats/aclnn_static_shape_kernel_outputs"

step "a toolchain whose static kernels run their work 30 times"
mkdir dump
cp "$examples"/*/*_opcompile/Add_float16_ND_16_32_9.json "$examples"/*/*_opcompile/Add_float16_ND_1_2_16_16_20.json dump/
cat > burn.cc <<'CC'
// The template's static entry is renamed skb_kernel_fast (-D); this one calls it 30 times.
extern "C" int skb_kernel_fast(const void* const*, void* const*) __attribute__((weak));
extern "C" __attribute__((visibility("default"))) int skb_kernel(const void* const* in, void* const* out) {
  int rc = 0;
  for (int i = 0; i < 30 && rc == 0; ++i) rc = skb_kernel_fast(in, out);
  return rc;
}
CC
c++ -O2 -fPIC -c burn.cc -o burn.o
python3 - "$templates" "$PWD/burn.o" > slow.json <<'PY'
import json, sys
p = json.load(open(sys.argv[1] + "/toolchains/host.json"))
p.update(name="slow_host", template_dir=sys.argv[1] + "/kernels/host",
         description="The host templates, static kernels made 30 times slower.")
p["flags"] = p["flags"] + ["-Dskb_kernel=skb_kernel_fast"]
p["link"] = p["link"] + [sys.argv[2]]
print(json.dumps(p, indent=1))
PY
run=$(build_package dump pkg --toolchain "$PWD/slow.json" --dynamic)
sh "$run" --quiet --install-path="$PWD/lib"
root=$(lib_root lib)
skb-replay --install-path lib dump | tee replay.txt
grep -q "2 ran a static kernel, 0 a dynamic kernel.*0 differed" replay.txt || fail "the static kernels did not serve"

step "skb bench finds both slower and keeps the evidence in the library and in --output"
skb bench --install-path lib dump --budget 120 --output evidence.json | tee bench.txt  # stops once decided
expect_eq "$(grep -c ' slower$' bench.txt)" "2" "kernels found slower"
grep -q "2 static kernels measured .* 0 faster (0%), 0 same (0%), 2 slower (100%); 0 not measured" bench.txt ||
  fail "the summary does not give the verdicts' shares"
evidence=$(ls "$root"/payoff/cpu-*.json)
cmp "$evidence" evidence.json || fail "--output differs from the library's evidence"
expect_eq "$(json_get "$evidence" 'j["kernels"][0]["verdict"]')" "slower" "verdict kept"

step "skb-package --payoff leaves the slower kernels out of the next package, and says which and why"
skb-package pkg/.skb -o pkg2 --payoff evidence.json -q > run2.txt
run2=$(cat run2.txt)
[ "$(sh "$run2" --list | grep -c '^Add_')" -le 1 ] || fail "the slower static kernels are still in the package"
skb verify "$run2" | tee verify.txt
expect_eq "$(grep -c '^  left out Add_.*: measured .*x the time of its dynamic twin' verify.txt)" "2" "kernels left out"
grep -q "^  payoff measured on .*(cpu-.*), skb .*: 0 kept faster than their dynamic twins, 0 with no measurable difference, 2 left out as slower$" verify.txt ||
  fail "skb verify does not show the measured payoff"
sh "$run2" --info > info.txt
grep -q "^payoff:      measured on .*(cpu-.*), skb .*: 0 kept faster .*, 2 left out as slower$" info.txt ||
  fail "--info does not show the measured payoff: $(cat info.txt)"
expect_eq "$(grep -c '^left out:    Add_.*: measured .*x the time of its dynamic twin' info.txt)" "2" "--info's kernels left out"
skb-package -p dump -o pkg --toolchain "$PWD/slow.json" --dynamic --payoff "$PWD/evidence.json" -q > run3.txt
skb verify "$(cat run3.txt)" | grep -c '^  left out Add_' > n.txt
expect_eq "$(cat n.txt)" "2" "kernels the whole job (-p) left out"
printf '{"format": 1}' > bad.json
if skb-package pkg/.skb -o pkg3 --payoff bad.json -q 2>err.txt; then fail "invalid evidence packaged"; fi
grep -q "bad.json: /machine_class" err.txt || fail "invalid evidence not refused by file and pointer: $(cat err.txt)"

step "the runtime serves the dynamic kernel instead, and says why"
skb-replay --install-path lib --explain dump | tee replay.txt
grep -q "0 ran a static kernel, 2 a dynamic kernel.*0 differed" replay.txt || fail "a slower static kernel was served"
grep -q "measured .*x the time of the dynamic kernel" replay.txt || fail "explain does not say why"
SKB_PAYOFF=off skb-replay --install-path lib dump | grep -q "2 ran a static kernel" || fail "SKB_PAYOFF=off"
# skb coverage counts what the runtime serves: the withheld kernels' calls have a dynamic kernel only.
skb coverage --install-path lib dump | tee coverage.txt
grep -q "^coverage: 0 of 2 records (0.0%) have a static kernel in SoC host; 2 a dynamic kernel only" coverage.txt ||
  fail "skb coverage counts withheld kernels as serving"
grep -q "json: Add: static kernel .* measured .*x the time of the dynamic kernel" coverage.txt ||
  fail "skb coverage does not say why, after the op, as the runtime does"
SKB_PAYOFF=off skb coverage --install-path lib dump | grep -q "^coverage: 2 of 2 records (100.0%)" ||
  fail "skb coverage with SKB_PAYOFF=off"

step "a measurement on the same class replaces the evidence; --output writes through a FIFO"
mkfifo out.fifo
cat out.fifo > through.json &
skb bench --install-path lib dump --budget 4 -q --output out.fifo >/dev/null
wait $!
[ -p out.fifo ] || fail "--output replaced the FIFO with a file"
cmp through.json "$evidence" || fail "--output did not write the evidence through the FIFO"
expect_eq "$(ls "$root"/payoff | wc -l)" "1" "evidence files after a second measurement"
kept=$(sha256sum "$evidence")
rc=0; skb bench --install-path lib dump --budget 4 -q --output no-such-folder/out.json >/dev/null 2>out.err || rc=$?
expect_eq "$rc" 1 "skb bench with an --output it cannot write"
grep -q "no-such-folder/out.json" out.err || fail "the error: $(cat out.err)"
expect_eq "$(sha256sum "$evidence")" "$kept" "the library's evidence after a failed --output"

step "a killed measurement's temporary evidence goes with the next run under the library's lock"
cp "$evidence" "$evidence.tmp.4194300"
echo keep > "$root/payoff/notes.tmp.1"
sh "$(cat run3.txt)" --quiet --install-path="$PWD/lib"
[ ! -e "$evidence.tmp.4194300" ] || fail "the temporary evidence is still there"
[ -e "$root/payoff/notes.tmp.1" ] || fail "a file that is no temporary evidence was removed"
rm "$root/payoff/notes.tmp.1"

step "evidence of another machine class is not applied"
python3 - "$evidence" "$root/payoff/cpu-another-machine.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); j["machine_class"] = "cpu-another-machine"
json.dump(j, open(sys.argv[2], "w"))
PY
mv "$evidence" mine.json
skb-replay --install-path lib dump 2>err.txt | grep -q "2 ran a static kernel" || fail "another class's verdict applied"
[ ! -s err.txt ] || fail "another class's evidence was read: $(cat err.txt)"
step "... nor when copied under this class's name"
cp "$root/payoff/cpu-another-machine.json" "$evidence"
skb-replay --install-path lib dump 2>err.txt | grep -q "2 ran a static kernel" || fail "a copied verdict applied"
grep -q "$evidence: /machine_class: expected cpu-" err.txt || fail "refusal does not name file and pointer: $(cat err.txt)"

step "corrupt or hostile evidence is refused by name and pointer; nothing served changes"
damage() {  # python statement over j
  python3 - mine.json "$evidence" "$1" <<'PY'
import json, sys
j = json.load(open(sys.argv[1])); exec(sys.argv[3]); json.dump(j, open(sys.argv[2], "w"))
PY
}
for case in 'j["kernels"][0]["ratio"] = "fast"|/kernels/0/ratio' \
            'j["kernels"][0]["kernel"] = "../../etc/passwd"|/kernels/0/kernel' \
            'j["kernels"][0]["low"] = 0.5|/kernels/0/verdict' \
            'j["kernels"] = {"a": 1}|/kernels'; do
  damage "${case%|*}"
  skb-replay --install-path lib dump 2>err.txt | grep -q "2 ran a static kernel" || fail "${case%|*}: served changed"
  grep -q "$evidence: ${case#*|}: " err.txt || fail "${case%|*}: not refused at ${case#*|}: $(cat err.txt)"
done
printf '{"format": 1, "kernels": [' > "$evidence"
skb-replay --install-path lib dump 2>err.txt | grep -q "2 ran a static kernel" || fail "truncated file: served changed"
grep -q "$evidence: " err.txt || fail "truncated file not named: $(cat err.txt)"
cp mine.json "$evidence"
skb-replay --install-path lib dump 2>err.txt | grep -q "0 ran a static kernel" || fail "the evidence restored is not applied"

step "a measurement of no kernel (records of another dump) replaces no evidence: exit 1"
before=$(sha256sum "$root"/payoff/*.json)
mkdir none && cp dump/Add_float16_ND_16_32_9.json none/ && python3 - none/Add_float16_ND_16_32_9.json <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
for t in r["inputs"] + r["outputs"]:
    t["shape"] = t["origin_shape"] = [5, 7]
json.dump(r, open(sys.argv[1], "w"))
PY
rc=0; skb bench --install-path lib none --budget 4 -q --output none.json >none.txt 2>none.err || rc=$?
expect_eq "$rc" 1 "skb bench that measured nothing"
grep -q "no static kernel measured (each is listed above, with the reason): nothing written" none.err ||
  fail "the error: $(cat none.err)"
grep -q "not measured: no record of its call among RECORDS" none.txt || fail "the kernels are not listed: $(cat none.txt)"
expect_eq "$(sha256sum "$root"/payoff/*.json)" "$before" "the evidence after a measurement of nothing"
[ ! -e none.json ] || fail "--output written for a measurement of nothing"

step "a kernel it cannot measure is named with the reason"
mkdir one && cp dump/Add_float16_ND_16_32_9.json one/
skb bench --install-path lib one --budget 4 -q | tee bench.txt
grep -q "not measured: no record of its call among RECORDS" bench.txt || fail "an unmeasured kernel is not named"
