# Delta packages: skb-package --base OLD.run carries only the kernels OLD lacks, with its whole
# manifest and index entries. It installs into a library that holds OLD's files (in whichever
# package), is refused (exit 5, nothing written) where they are missing, and is whole on its own
# once installed: uninstalling OLD leaves it intact. kill -9 during its install leaves a
# consistent library.
source "$(dirname "$0")/lib.sh"
ci_store
export SOURCE_DATE_EPOCH=1700000000
make_dump dump_a --ranks 1 --seqs 8 --hidden 16 --heads 2
make_dump dump_b --ranks 1 --seqs 8,12 --hidden 16 --heads 2
A=$(build_package dump_a out_a)
B=$(SOURCE_DATE_EPOCH=1700000100 build_package dump_b out_b)
D=$(SOURCE_DATE_EPOCH=1700000100 build_package dump_b out_d --base "$A")
na=$(json_get out_a/.skb/package.json 'j["kernels"]'); nb=$(json_get out_b/.skb/package.json 'j["kernels"]')
pa=$(basename "$A" .run); pd=$(basename "$D" .run)

step "the delta carries only what A lacks, and says so"
payload_of() { grep -a -m1 '^skb_payload_size=' "$1" | cut -d= -f2; }
echo "    payload: full $(payload_of "$B") bytes, delta $(payload_of "$D") bytes; .run: $(stat -c %s "$B") and $(stat -c %s "$D")"
[ "$(payload_of "$D")" -lt "$(payload_of "$B")" ] || fail "the delta's payload is not smaller than the full package's"
sh "$D" --info | grep -q "^base:        $pa (a delta: [0-9]* of its [0-9]* files are taken from the library)" ||
  fail "--info does not name the base: $(sh "$D" --info)"
expect_eq "$(sh "$D" --list | wc -l)" "$nb" "kernels --list shows"
expect_eq "$(sh "$D" --list | grep -c "	from $pa$")" "$na" "kernels --list marks as the base's"
skb verify "$D" | grep -q "a delta on $pa" || fail "skb verify does not name the base: $(skb verify "$D")"

step "a library without A's kernels refuses it: exit 5, nothing written"
rc=0; sh "$D" --install-path="$PWD/empty" -q 2>refused.err || rc=$?
expect_eq "$rc" 5 "exit status"
grep -q "$pd is a delta on $pa, and this library lacks" refused.err || fail "the refusal: $(cat refused.err)"
[ -z "$(ls "$(lib_root empty)" 2>/dev/null | grep static_kernel_)" ] || fail "a package folder was written"

step "on A, it installs whole; A uninstalled, it stays whole"
sh "$A" --install-path="$PWD/lib" -q
sh "$D" --install-path="$PWD/lib" -q
expect_eq "$(check_library lib)" "$nb" "kernels listed after the delta"
sh "$A" --install-path="$PWD/lib" --uninstall -q
expect_eq "$(check_library lib)" "$nb" "kernels listed once A is gone"
[ ! -e "$(lib_root lib)/$pa" ] || fail "A is still installed"

step "it installs where another package holds A's kernels (the full B), by content"
sh "$B" --install-path="$PWD/lib_b" -q
sh "$D" --install-path="$PWD/lib_b" -q
expect_eq "$(check_library lib_b)" "$nb" "kernels listed"

step "kill -9 during the delta's install: always consistent, and the next run finishes"
lib=$PWD/lib_k
sh "$A" --install-path="$lib" -q
trials=${SKB_CRASH_TRIALS:-10}
for t in $(seq 1 "$trials"); do
  python3 - "$D" "$lib" "$t" <<'PY'
import os, random, signal, subprocess, sys, time
random.seed(int(sys.argv[3]))
p = subprocess.Popen(["sh", sys.argv[1], "--install-path=" + sys.argv[2], "-q"], stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL, start_new_session=True)
time.sleep(random.uniform(0, 0.3))
try:
    os.killpg(p.pid, signal.SIGKILL)
except ProcessLookupError:
    pass
p.wait()
PY
  n=$(check_library "$lib") || fail "trial $t: inconsistent library after kill -9"
  [ "$n" = "$na" ] || [ "$n" = "$nb" ] || fail "trial $t: $n kernels listed, neither $na nor $nb"
  sh "$D" --install-path="$lib" -q || fail "trial $t: the next run failed"
  expect_eq "$(check_library "$lib")" "$nb" "trial $t: kernels after the next run"
  sh "$D" --install-path="$lib" --uninstall -q
done
echo PASS
