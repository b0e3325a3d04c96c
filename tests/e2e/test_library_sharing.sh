# The library stores each kernel once: a package whose kernels the library already holds (another
# package's, byte for byte) gets hard links to them; uninstalling either package leaves the other
# whole. (kill -9 during installs and uninstalls of packages that share kernels:
# e2e.test_install_crash.)
source "$(dirname "$0")/lib.sh"
ci_store
make_two_packages  # A: seq 8; B: seqs 8 and 12, a superset of A's kernels
lib=$PWD/lib
root=$(lib_root "$lib")
# Bytes of the regular files below the package folders (kernels, their records, manifests, each
# package's own index), each inode once, and the bytes of the distinct payload files (by sha256)
# the manifests list.
library_bytes() {
  find "$root"/static_kernel_* -type f -printf '%i %s\n' | sort -u | awk '{n += $2} END {print n}'
}
distinct_bytes() {
  python3 - "$root" <<'PY'
import glob, json, sys
seen = {}
for m in glob.glob(sys.argv[1] + "/static_kernel_*/manifest.json"):
    for f in json.load(open(m))["files"]:
        seen[f["sha256"]] = f["size"]
print(sum(seen.values()))
PY
}

step "B installed after A: every kernel of B that A holds is a link to A's copy"
sh "$A" --install-path="$lib" -q
sh "$B" --install-path="$lib" -q
python3 - "$root" "$pa" "$pb" <<'PY' || fail "B's shared kernels are not links to A's"
import json, os, sys
root, pa, pb = sys.argv[1:]
a = {f["sha256"]: os.path.join(root, pa, f["path"]) for f in json.load(open(os.path.join(root, pa, "manifest.json")))["files"]}
shared = 0
for f in json.load(open(os.path.join(root, pb, "manifest.json")))["files"]:
    path = os.path.join(root, pb, f["path"])
    if f["sha256"] in a:
        assert os.stat(path).st_ino == os.stat(a[f["sha256"]]).st_ino, path
        shared += 1
    else:
        assert os.stat(path).st_nlink == 1, path
assert shared > 0
print("    %d of B's files are links to A's" % shared)
PY
expect_eq "$(check_library "$lib")" "$nb" "kernels listed"
lb=$(library_bytes) db=$(distinct_bytes)
echo "    package folders: $lb bytes of files; distinct payload files: $db bytes"
python3 -c "import sys; r = $lb / $db; print('    library / distinct: %.3f' % r); sys.exit(r > 1.15)" ||
  fail "the library holds more than 1.15x its distinct files' bytes"

step "A uninstalled: B keeps every kernel; A installed again links to B's"
sh "$A" --install-path="$lib" --uninstall -q
expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A went"
sh "$A" --install-path="$lib" -q
python3 - "$root" "$pa" <<'PY' || fail "A's kernels are not links to B's"
import json, os, sys
root, pa = sys.argv[1:]
linked = sum(os.stat(os.path.join(root, pa, f["path"])).st_nlink == 2
             for f in json.load(open(os.path.join(root, pa, "manifest.json")))["files"] if "/" in f["path"])
assert linked > 0, linked
PY
sh "$B" --install-path="$lib" --uninstall -q
expect_eq "$(check_library "$lib")" "$na" "kernels listed after B went"

step "a package's index pieces missing (an older skb's): its manifest serves instead"
index=$root/config/host/binary_info_config.json
canonical() { python3 -c 'import json,sys; print(json.dumps(json.load(open(sys.argv[1])), sort_keys=True))' "$index"; }
before=$(canonical)
[ -f "$root/$pa/index_pieces.gz" ] || fail "no index pieces beside $pa"
rm "$root/$pa/index_pieces.gz"
sh "$B" --install-path="$lib" -q
sh "$B" --install-path="$lib" --uninstall -q
expect_eq "$(canonical)" "$before" "the index after B came and went, A's pieces missing"

step "a package's index pieces damaged: its manifest serves instead, and every kernel is listed"
# A and B installed, B's pieces whole: the indexes that A's uninstall and install again make from
# them are those to make from B's manifest when its pieces are damaged.
sh "$B" --install-path="$lib" -q
pieces=$root/$pb/index_pieces.gz
[ -f "$pieces" ] || fail "no index pieces beside $pb"
cp "$pieces" pieces.whole
sh "$A" --install-path="$lib" --uninstall -q
expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A went, B's pieces whole"
only_b=$(canonical)
sh "$A" --install-path="$lib" -q
expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A came again, B's pieces whole"
both=$(canonical)
# Each damage: a line that is not as skb writes it (in a gzip stream that reads well), the gzip
# stream cut in half, bytes that are no gzip at all.
for damage in line cut garbage; do
  python3 - "$damage" pieces.whole "$pieces" <<'PY'
import gzip, sys
damage, whole, out = sys.argv[1:]
data = open(whole, "rb").read()
if damage == "line":
    data = gzip.compress(gzip.decompress(data) + b"K\tgarbage\n")
elif damage == "cut":
    data = data[: len(data) // 2]
else:
    data = b"K\tgarbage\n"
open(out, "wb").write(data)
PY
  sh "$A" --install-path="$lib" --uninstall -q || fail "A's uninstall beside B's pieces damaged ($damage)"
  expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A went, B's pieces damaged ($damage)"
  expect_eq "$(canonical)" "$only_b" "the index after A went, B's pieces damaged ($damage)"
  sh "$A" --install-path="$lib" -q || fail "A's install beside B's pieces damaged ($damage)"
  expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A came again, B's pieces damaged ($damage)"
  expect_eq "$(canonical)" "$both" "the index after A came again, B's pieces damaged ($damage)"
done

step "config.ini emptied or deleted: installs and uninstalls keep every package its folders hold"
: > "$root/config.ini"
sh "$A" --install-path="$lib" --uninstall 2>ini.err || fail "A's uninstall beside an empty config.ini"
grep -q "config.ini does not list 2 installed packages ($pb, ...): kept, after those it lists" ini.err ||
  fail "the uninstall did not say what config.ini lacked: $(cat ini.err)"
[ -d "$root/$pb" ] || fail "B's folder went with A's uninstall"
expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A went beside an empty config.ini"
rm "$root/config.ini"
sh "$A" --install-path="$lib" -q || fail "A's install without config.ini"
expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A came again without config.ini"
expect_eq "$(grep -c "^load_priority=$pa,$pb$" "$root/config.ini")" 1 "config.ini, written again whole"
printf '[static_kernel]\nload_priorty=%s\n' "$pa" > "$root/config.ini"  # a misspelt key
sh "$A" --install-path="$lib" --uninstall -q || fail "A's uninstall beside a misspelt config.ini"
sh "$B" --install-path="$lib" --uninstall -q || fail "B's uninstall"
[ ! -e "$root" ] || fail "the library is not empty once both went: $(ls -A "$root")"

step "a package damaged beyond reading (pieces and manifest): removing it is never refused for its damage"
damage_a() {
  truncate -s 100 "$root/$pa/index_pieces.gz"
  : > "$root/$pa/manifest.json"
}
sh "$A" --install-path="$lib" -q
damage_a
rc=0; sh "$B" --install-path="$lib" -q 2>b.err || rc=$?
expect_eq "$rc" 1 "B's install beside the damaged A"
grep -q "$pa: installed package is damaged (.*); uninstall it" b.err || fail "B's install: $(cat b.err)"
[ ! -e "$root/$pb" ] || fail "B's install that failed left its package"
sh "$A" --install-path="$lib" --uninstall -q || fail "A's uninstall, as the error advised"
sh "$B" --install-path="$lib" -q || fail "B's install once the damaged A went"
expect_eq "$(check_library "$lib")" "$nb" "kernels listed once the damaged A went and B came"
sh "$A" --install-path="$lib" -q
damage_a
sh "$A" --install-path="$lib" --force -q || fail "A's reinstall over its damaged self"
expect_eq "$(check_library "$lib")" "$nb" "kernels listed after A's reinstall"
damage_a
sh "$root/uninstall.sh" || fail "the library's uninstall.sh beside the damaged A"
[ ! -e "$root" ] || fail "the library is not empty after its uninstall.sh: $(ls -A "$root")"
echo PASS
