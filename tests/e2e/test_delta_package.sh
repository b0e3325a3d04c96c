# Delta packages: skb-package --base OLD.run carries only the kernels OLD lacks, with its whole
# manifest and index entries, and no installer when OLD's is the same one (it runs the copy OLD
# left in the library; --self-contained keeps it in). It installs into a library that holds OLD's
# files (in whichever package), is refused (exit 5, nothing written) where they are missing, and
# is whole on its own once installed: uninstalling OLD leaves it intact. kill -9 during its
# install leaves a consistent library.
source "$(dirname "$0")/lib.sh"
own_libraries  # the stub looks for the library's installer in /usr/local/skb and HOME too
ci_store
export SOURCE_DATE_EPOCH=1700000000
make_dump dump_a --ranks 1 --seqs 8 --hidden 16 --heads 2
make_dump dump_b --ranks 1 --seqs 8,12 --hidden 16 --heads 2
A=$(build_package dump_a out_a)
B=$(SOURCE_DATE_EPOCH=1700000100 build_package dump_b out_b)
D=$(SOURCE_DATE_EPOCH=1700000100 build_package dump_b out_d --base "$A")
S=$(SOURCE_DATE_EPOCH=1700000100 build_package dump_b out_s --base "$A" --self-contained)
na=$(json_get out_a/.skb/package.json 'j["kernels"]'); nb=$(json_get out_b/.skb/package.json 'j["kernels"]')
pa=$(basename "$A" .run); pd=$(basename "$D" .run)

step "the delta carries only what A lacks, and no installer, and says so"
# Its manifest lists B's files, each carried exactly when A has no file of its bytes, and its payload
# holds the carried ones, with those bytes (the self-contained delta's the same).
python3 "$SKB_SOURCE/tests/tools/check_delta.py" "$A" "$D" --lists "$B" --same-payload "$S" ||
  fail "the delta does not carry exactly what A lacks"
field() { grep -a -m1 "^$2=" "$1" | cut -d= -f2; }
echo "    payload: full $(field "$B" skb_payload_size) bytes, delta $(field "$D" skb_payload_size) bytes;" \
  ".run: $(stat -c %s "$B"), $(stat -c %s "$D") and, self-contained, $(stat -c %s "$S")"
[ "$(field "$D" skb_payload_size)" -lt "$(field "$B" skb_payload_size)" ] ||
  fail "the delta's payload is not smaller than the full package's"
expect_eq "$(field "$D" skb_installer_size)" 0 "the delta's installer bytes"
expect_eq "$(field "$D" skb_installer_unpacked_sha256)" "$(field "$A" skb_installer_unpacked_sha256)" \
  "the installer the delta runs"
expect_eq "$(field "$S" skb_installer_size)" "$(field "$A" skb_installer_size)" "the self-contained delta's installer bytes"
expect_eq "$(stat -c %s "$D")" $(($(field "$D" skb_payload_offset) + $(field "$D" skb_payload_size))) "the delta's bytes"
skb verify "$D" | grep -q "a delta on $pa: .*it carries no installer" || fail "skb verify: $(skb verify "$D")"
sh "$S" --info | grep -q "^base:        $pa (a delta: [0-9]* of its [0-9]* files are taken from the library)" ||
  fail "--info does not name the base: $(sh "$S" --info)"
expect_eq "$(sh "$S" --list | wc -l)" "$nb" "kernels --list shows"
expect_eq "$(sh "$S" --list | grep -c "	from $pa$")" "$na" "kernels --list marks as the base's"
skb verify "$S" | grep -q "a delta on $pa: [0-9]* of its files come from the base)$" ||
  fail "skb verify does not name the base: $(skb verify "$S")"
sh "$S" --extract="$PWD/ex" 2>ex.err || fail "--extract of the delta: $(cat ex.err)"
nfrom=$(sh "$S" --list | grep -c "	from $pa$" || true)
grep -q "$(basename "$S" .run) is a delta on $pa: [0-9]* of its [0-9]* files are the base's, not carried, so not extracted; extract $pa too" ex.err ||
  fail "--extract of a delta does not say what it left out: $(cat ex.err)"
expect_eq "$(find ex -name '*.so' | wc -l)" $((nb - nfrom)) "kernels a delta's --extract unpacks"

step "a delta packaged into its base's folder keeps the base there (skb-package and op_compiler)"
A2=$(build_package dump_a same)
D2=$(SOURCE_DATE_EPOCH=1700000100 build_package dump_b same --base "$A2")
[ -f "$A2" ] || fail "the delta removed its base, $A2"
[ -f "$D2" ] || fail "no delta in the base's folder"
rc=0; skb-package -p dump_b -o same --base same/.skb/static_kernel.run -q 2>link.err || rc=$?
expect_eq "$rc" 2 "a delta on the link to the newest package (which moves to the delta)"
grep -q "static_kernel.run: the link to a build's newest package moves to each new one" link.err ||
  fail "said: $(cat link.err)"
[ -f "$A2" ] || fail "the refused delta removed the base, $A2"
ninja -C same/.skb >/dev/null || fail "the build folder's graph lost the base it reads"
compat=$SKB_BIN/../libexec/skb/compat
"$compat/op_compiler" -p dump_a -o cann -l error >/dev/null 2>cann.err || fail "op_compiler: $(cat cann.err)"
base=$(ls cann/*.run)
SOURCE_DATE_EPOCH=1700000100 "$compat/op_compiler" -p dump_b -o cann -l error --base "$base" >/dev/null 2>cann.err ||
  fail "op_compiler --base: $(cat cann.err)"
[ -f "$base" ] || fail "op_compiler removed the base of its delta, $base"
expect_eq "$(ls cann/*.run | wc -l)" 2 "packages op_compiler left in DEST (the base and its delta)"

step "a base that cannot serve is a bad command line, said before anything is compiled"
rc=0; skb-package -p dump_b -o out_nobase --base "$PWD/no-such.run" 2>nobase.err || rc=$?
expect_eq "$rc" 2 "skb-package --base of a missing file"
grep -q "^skb-package: error: --base: $PWD/no-such.run: cannot open" nobase.err || fail "the error: $(cat nobase.err)"
head -c 4096 "$A" > cut.run
rc=0; skb-package -p dump_b -o out_nobase --base "$PWD/cut.run" 2>nobase.err || rc=$?
expect_eq "$rc" 2 "skb-package --base of a cut package"
grep -q "^skb-package: error: --base: $PWD/cut.run: " nobase.err || fail "the error: $(cat nobase.err)"
cp "$A" flipped.run
size=$(stat -c %s flipped.run)
printf 'X' | dd of=flipped.run bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null  # a byte of its payload
rc=0; skb-package -p dump_b -o out_nobase --base "$PWD/flipped.run" 2>nobase.err || rc=$?
expect_eq "$rc" 2 "skb-package --base of a package with a byte of its payload changed"
grep -q "^skb-package: error: --base: $PWD/flipped.run: " nobase.err || fail "the error: $(cat nobase.err)"
[ ! -e out_nobase ] || fail "skb-package made $(ls out_nobase) before refusing the base"

step "a library without A's kernels refuses it: exit 5, nothing written"
rc=0; sh "$D" --install-path="$PWD/empty" -q 2>refused.err || rc=$?
expect_eq "$rc" 5 "exit status (no installer to run)"
grep -q "this delta package carries no installer: it runs the one its base $pa left" refused.err ||
  fail "the refusal: $(cat refused.err)"
[ ! -e empty ] || fail "written where the delta was refused: $(find empty)"
sh "$D" --help > help.txt || fail "--help of a delta with no installer to run: exit $?"
grep -q "^$pd.run: a delta package on $pa. It carries no installer" help.txt || fail "--help: $(cat help.txt)"
expect_eq "$(sh "$D" --version)" "$pd.run (skb $(skb --version | cut -d' ' -f2))" "--version of a delta with no installer to run"
rc=0; sh "$S" --install-path="$PWD/empty" -q 2>refused.err || rc=$?
expect_eq "$rc" 5 "exit status (self-contained)"
grep -q "$pd is a delta on $pa, and this library lacks" refused.err || fail "the refusal: $(cat refused.err)"
# Where no library is, the base cannot be: refused before anything is made, the lock file included.
[ ! -e empty ] || fail "written where the self-contained delta was refused: $(find empty)"

step "on A, it installs whole; A uninstalled, it stays whole"
sh "$A" --install-path="$PWD/lib" -q
sh "$D" --install-path="$PWD/lib" -q
expect_eq "$(check_library lib)" "$nb" "kernels listed after the delta"
sh "$A" --install-path="$PWD/lib" --uninstall -q
expect_eq "$(check_library lib)" "$nb" "kernels listed once A is gone"
[ ! -e "$(lib_root lib)/$pa" ] || fail "A is still installed"

step "on A, --info and --list run the library's copy of the installer"
sh "$D" --install-path="$PWD/lib" --info | grep -q "^installer:   none carried .*; running the library's copy, $(lib_root "$PWD/lib")/bin/skb-install$" ||
  fail "--info: $(sh "$D" --install-path="$PWD/lib" --info)"
expect_eq "$(sh "$D" --install-path="$PWD/lib" --list | grep -c "	from $pa$")" "$na" "kernels --list marks as the base's"

step "A's kernels under another installer: the delta is refused, the self-contained one installs"
sh "$A" --install-path="$PWD/lib_x" -q
printf '#!/bin/sh\necho impostor\nexit 42\n' > "$(lib_root lib_x)/bin/skb-install"
# Each file and folder of a library: its kind, mode, size and bytes' sha256.
tree_of() { (cd "$1" && find . -printf '%y %m %s %p\n' | sort && find . -type f -exec sha256sum {} + | sort); }
before=$(tree_of lib_x)
rc=0; sh "$D" --install-path="$PWD/lib_x" -q >out.txt 2>refused.err || rc=$?
expect_eq "$rc" 5 "exit status"
! grep -q impostor out.txt refused.err || fail "the stub ran an installer of other bytes"
grep -q "carries no installer" refused.err || fail "the refusal: $(cat refused.err)"
expect_eq "$(tree_of lib_x)" "$before" "the library that refused the delta"
sh "$S" --install-path="$PWD/lib_x" -q >out.txt
! grep -q impostor out.txt || fail "the stub ran an installer of other bytes"
expect_eq "$(check_library lib_x)" "$nb" "kernels listed after the self-contained delta"

step "A installed with a kernel damaged: the delta says to reinstall A, not to install it"
sh "$A" --install-path="$PWD/lib_y" -q
kernel=$(find "$(lib_root lib_y)/$pa" -name '*.so' | sort | head -1)
printf 'damage' >>"$kernel"
rc=0; sh "$S" --install-path="$PWD/lib_y" -q 2>refused.err || rc=$?
expect_eq "$rc" 5 "exit status (a damaged base)"
grep -q "$pd is a delta on $pa, which is installed, but 1 of the .* files it takes from there are missing or damaged" \
  refused.err || fail "the refusal: $(cat refused.err)"
grep -q "reinstall $pa with --force" refused.err || fail "the refusal: $(cat refused.err)"

step "it installs where another package holds A's kernels (the full B), by content"
sh "$B" --install-path="$PWD/lib_b" -q
sh "$D" --install-path="$PWD/lib_b" -q
expect_eq "$(check_library lib_b)" "$nb" "kernels listed"
# Each file the delta does not carry is B's file of the same bytes (a link to it), whatever its path.
python3 - "$(lib_root lib_b)" "$(basename "$B" .run)" "$pd" <<'PY' || fail "the delta's files are not B's"
import json, os, sys
root, pb, pd = sys.argv[1:]
inode = lambda p, f: os.stat(os.path.join(root, p, f)).st_ino
of_b = {f["sha256"]: inode(pb, f["path"]) for f in json.load(open(os.path.join(root, pb, "manifest.json")))["files"]}
taken = [f for f in json.load(open(os.path.join(root, pd, "manifest.json")))["files"] if not f.get("carried", True)]
assert taken, "the delta takes no file from the library"
for f in taken:
    assert inode(pd, f["path"]) == of_b[f["sha256"]], f["path"]
PY

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
