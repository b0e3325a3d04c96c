# Payloads built to attack the installer are refused with exit 3 and nothing written; symlinks
# planted in the install path are never followed out of it.
source "$(dirname "$0")/lib.sh"
ci_store

make_dump dump --ranks 1 --seqs 8 --hidden 16 --heads 2
run=$(SOURCE_DATE_EPOCH=1700000000 build_package dump out)
pkg=$(basename "$run" .run)
poff=$(sed -n 's/^skb_payload_offset=//p' "$run" | head -1)
tail -c +$((poff + 1)) "$run" > payload.tar.gz

python3 - payload.tar.gz <<'PY'
import io, tarfile, sys
src = tarfile.open(sys.argv[1], "r:gz")
members = src.getmembers()
manifest = src.extractfile(members[0]).read()
first = members[1]
first_data = src.extractfile(first).read()

def make(name, extra, keep_files=True):
    with tarfile.open(name, "w:gz", format=tarfile.PAX_FORMAT) as out:
        info = tarfile.TarInfo("manifest.json"); info.size = len(manifest)
        out.addfile(info, io.BytesIO(manifest))
        for m in extra:
            out.addfile(m[0], io.BytesIO(m[1]) if m[1] is not None else None)
        if keep_files:
            for m in members[1:]:
                out.addfile(m, src.extractfile(m))

def entry(name, type=tarfile.REGTYPE, data=b"", mode=0o644, link=""):
    i = tarfile.TarInfo(name); i.type = type; i.mode = mode; i.linkname = link
    i.size = len(data) if type == tarfile.REGTYPE else 0
    return (i, data if type == tarfile.REGTYPE else None)

make("symlink.tgz", [entry(first.name, tarfile.SYMTYPE, link="/etc/passwd")], False)
make("hardlink.tgz", [entry(first.name, tarfile.LNKTYPE, link="/etc/passwd")], False)
make("dotdot.tgz", [entry("../../evil.so", data=b"x")])
make("absolute.tgz", [entry("/tmp/skb_evil_absolute.so", data=b"x")])
make("device.tgz", [entry(first.name, tarfile.CHRTYPE)], False)
make("fifo.tgz", [entry(first.name, tarfile.FIFOTYPE)], False)
make("directory.tgz", [entry("host", tarfile.DIRTYPE)])
make("setuid.tgz", [entry(first.name, data=first_data, mode=0o4755)], False)
make("unlisted.tgz", [entry("host/Add/extra.so", data=b"x")])
make("wrong_bytes.tgz", [entry(first.name, data=b"y" * first.size)], False)
make("missing_files.tgz", [], False)
with tarfile.open("no_manifest.tgz", "w:gz") as out:
    out.addfile(first, io.BytesIO(first_data))
open("not_an_archive.tgz", "wb").write(b"definitely not gzip" * 100)
PY

step "hostile payloads"
for case in symlink hardlink dotdot absolute device fifo directory setuid unlisted wrong_bytes missing_files no_manifest not_an_archive; do
  python3 "$SKB_SOURCE/tests/tools/restub.py" "$run" "$case.tgz" "$case.run"
  rc=0; sh "$case.run" --check >/dev/null 2>"$case.check.err" || rc=$?
  expect_eq "$rc" 3 "--check of $case"
  rc=0; sh "$case.run" --install-path="$PWD/lib_$case" 2>"$case.err" || rc=$?
  expect_eq "$rc" 3 "install of $case"
  [ -z "$(find "lib_$case" -path '*static_kernel_*' 2>/dev/null)" ] || fail "$case: a package was installed"
  [ -z "$(find "lib_$case" -name '.staging*' 2>/dev/null)" ] || fail "$case: staging left"
  echo "    $case: $(sed 's/.*error: //' "$case.err" | head -1)"
done
[ ! -e /tmp/skb_evil_absolute.so ] || fail "an absolute path was written"
[ ! -e "$PWD/evil.so" ] && [ ! -e "$(dirname "$PWD")/evil.so" ] || fail "a .. path was written"

step "a header field sh reads otherwise than skb does (blanks after a number), its hash line recomputed"
python3 - "$run" spaced.run <<'PY'
import hashlib, re, sys
data = open(sys.argv[1], "rb").read()
n = int(re.search(rb"^skb_header_len=(\d+)$", data, re.M).group(1))
head = data[:n].replace(b"skb_signature_size=0\n", b"skb_signature_size=0   \n", 1)
head = head.replace(b"# A self-extracting installer", b"# A self-extracting instal", 1)  # the same length
assert len(head) == n
open(sys.argv[2], "wb").write(head + hashlib.sha256(head).hexdigest().encode() + b"\n" + data[n + 65:])
PY
rc=0; sh spaced.run --install-path="$PWD/lib_spaced" 2>spaced.err || rc=$?
expect_eq "$rc" 3 "install of a header with blanks after a number"
grep -q "skb_signature_size=0    is not a number" spaced.err || fail "$(cat spaced.err)"
[ ! -e lib_spaced/opp/static_kernel/ai_core ] || fail "a malformed header installed"
rc=0; skb verify spaced.run 2>/dev/null || rc=$?
expect_eq "$rc" 3 "skb verify of the same header"

step "a .run cut short at a line's end (a partial download; sh takes a read error for the end too)"
# The header is one block, which sh reads whole before running any of it: cut short, a syntax error.
head -c "$(grep -a -b -m1 '^umask 022$' "$run" | cut -d: -f1)" "$run" >cut.run
echo "umask 022" >>cut.run
rc=0; sh cut.run --install-path="$PWD/lib_cut" 2>cut.err || rc=$?
[ "$rc" -ne 0 ] || fail "a .run cut short after its first lines exited 0"
[ ! -e lib_cut ] || fail "a .run cut short wrote into the library"

step "a symlink planted as the soc's index folder is refused before anything changes"
mkdir -p outside planted/opp/static_kernel/ai_core/config
ln -s "$PWD/outside" planted/opp/static_kernel/ai_core/config/host
if sh "$run" --install-path="$PWD/planted" 2>planted.err; then fail "installed through a planted symlink"; fi
grep -q "symlink" planted.err || fail "unclear error: $(cat planted.err)"
[ -z "$(ls outside)" ] || fail "wrote outside: $(ls outside)"
[ ! -e "planted/opp/static_kernel/ai_core/$pkg" ] || fail "the package was published anyway"

step "a symlink planted as the package folder or the index file is replaced, not followed"
rm planted/opp/static_kernel/ai_core/config/host
mkdir -p planted/opp/static_kernel/ai_core/config/host
echo keep > outside/index_target
ln -s "$PWD/outside/index_target" planted/opp/static_kernel/ai_core/config/host/binary_info_config.json
ln -s "$PWD/outside" "planted/opp/static_kernel/ai_core/$pkg"
sh "$run" --install-path="$PWD/planted" -q || fail "install failed"
expect_eq "$(cat outside/index_target)" "keep" "file behind the planted index symlink"
expect_eq "$(ls outside)" "index_target" "contents of the folder behind the planted package symlink"
[ -n "$(check_library planted)" ] || fail "library inconsistent"
[ ! -L "planted/opp/static_kernel/ai_core/$pkg" ] || fail "the package folder is still a symlink"
echo PASS
