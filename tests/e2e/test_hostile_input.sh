# Every hostile input of the fuzz corpus (tests/fuzz/corpus/*/hostile_*) given to the real
# binaries: each op record is refused with an error naming its file and a JSON pointer, leaves
# nothing of itself in the graph, and with --strict writes nothing; each hostile toolchain
# profile is refused naming the profile file.
source "$(dirname "$0")/lib.sh"
corpus=$SKB_SOURCE/tests/fuzz/corpus

make_dump dump --ranks 1 --seqs 8 --hidden 16 --heads 2
valid=$(find dump -name "*.json" | head -1)
n=0
for f in "$corpus"/op_record/hostile_*; do
  name=$(basename "$f" .json)
  d=hostile/$name/ts1_pid1_outputs/1_opcompile
  mkdir -p "$d"
  cp "$valid" "$d/valid.json"
  cp "$f" "$d/$name.json"
  rc=0; skb-generate -p "hostile/$name" -o "strict_$name" --strict -q 2>"$name.err" || rc=$?
  expect_eq "$rc" 1 "$name with --strict"
  grep -q "$name.json: /[^ ]*: expected" "$name.err" || fail "$name: the error names no file and pointer: $(cat "$name.err")"
  [ ! -e "strict_$name/build.ninja" ] || fail "$name: --strict wrote a graph"
  rc=0; skb-generate -p "hostile/$name" -o "out_$name" -q 2>/dev/null || rc=$?
  expect_eq "$rc" 0 "$name without --strict (rejected, the rest built)"
  expect_eq "$(json_get "out_$name/summary.json" 'len(j["files_rejected"])')" 1 "$name: files rejected"
  ! grep -q -e evil -e pwned -e 'rm -rf' "out_$name/build.ninja" || fail "$name: hostile text reached build.ninja"
  echo "    $name: $(sed 's/.*opcompile\///' "$name.err" | head -1 | cut -c1-150)"
  n=$((n + 1))
done
[ "$n" -ge 20 ] || fail "only $n hostile records in the corpus"

step "a folder with no op record: said, and an empty build"
mkdir -p no_records
skb-generate -p no_records -o no_records_out 2>no_records.err || fail "an empty folder failed: $(cat no_records.err)"
grep -q "warning: no op records in no_records: the build has no kernels" no_records.err || fail "$(cat no_records.err)"
rc=0; env -u SKB_INSTALL_PATH skb-replay no_records 2>replay.err || rc=$?
expect_eq "$rc" 1 "skb-replay with no operator library"
grep -q "give --install-path DIR or set SKB_INSTALL_PATH" replay.err || fail "$(cat replay.err)"

step "hostile toolchain profiles"
m=0
for f in "$corpus"/toolchain_profile/hostile_*; do
  name=$(basename "$f" .json)
  cp "$f" "$SKB_SCRATCH/$name.json"
  rc=0; skb-generate -p dump -o "tc_$name" --toolchain "$SKB_SCRATCH/$name.json" -q 2>"$name.err" || rc=$?
  expect_eq "$rc" 1 "profile $name"
  grep -q "$name.json: /[^ ]*: expected" "$name.err" || fail "$name: the error names no file and pointer: $(cat "$name.err")"
  [ ! -e "tc_$name/build.ninja" ] || fail "$name: a graph was written"
  echo "    $name: $(sed 's/.*error: //' "$name.err" | head -1 | cut -c1-150)"
  m=$((m + 1))
done
echo "    $n hostile records and $m hostile profiles refused"

step "a dump folder whose name holds a line break and Ninja statements"
d=$'named/x\nrule pwn\n  command = touch PWNED\nbuild pwn.stamp: pwn\n#'
mkdir -p "$d"
cp -r dump/. "$d/"
rc=0; skb-generate -p "$d" -o named_out -q 2>named.err || rc=$?
expect_eq "$rc" 1 "skb-generate of a folder named with a line break"
grep -q "a line break in a path or argument cannot be written into build.ninja" named.err ||
  fail "the refusal does not say why: $(cat named.err)"
[ ! -e named_out/build.ninja ] || fail "a build.ninja was written: $(grep -c pwn named_out/build.ninja) lines name pwn"

step "entries named .json that are no file: rejected by name, never read"
mkdir -p odd_dump && cp -r dump/. odd_dump/
odd=$(dirname "$(find odd_dump -name '*.json' | head -1)")
ln -s "$PWD/nowhere.json" "$odd/dangling.json"
ln -s loop_b.json "$odd/loop_a.json" && ln -s loop_a.json "$odd/loop_b.json"
mkfifo "$odd/fifo.json"
timeout 60 skb-generate -p odd_dump -o odd_out -q 2>odd.err || fail "skb-generate with odd entries: $(cat odd.err)"
for name in dangling loop_a loop_b; do
  grep -q "$name.json: expected a file, found a symlink to nothing (or in a loop): not read" odd.err ||
    fail "$name.json is not named: $(cat odd.err)"
done
grep -q "fifo.json: expected a file, found a FIFO, socket or device: not read" odd.err || fail "$(cat odd.err)"
expect_eq "$(json_get odd_out/summary.json 'len(j["files_rejected"])')" 4 "files rejected"
echo PASS
