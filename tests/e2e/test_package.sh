# skb-package and the .run: verification before packing, reproducible bytes, no overwrite, no
# new package without a change, byte flips anywhere refused, installs with env -i, a noexec /tmp,
# an install while other processes' writes are pending.
source "$(dirname "$0")/lib.sh"
own_libraries
export SKB_LOCK_TIMEOUT=60

make_dump dump --ranks 2 --seqs 8 --hidden 16 --heads 2
step "the whole job prints the path of the .run"
run=$(build_package dump out)
[ -f "$run" ] || fail "no .run at '$run'"
[[ $(basename "$run") =~ ^static_kernel_[0-9]{14}_[0-9a-f]{8}\.run$ ]] || fail "unexpected name $run"
expect_eq "$(ls out)" "$(basename "$run")" "what the destination holds"
kernels=$(json_get out/.skb/package.json 'j["kernels"]')

step "a ninja older than 1.11 (no --quiet): the quiet whole job builds all the same"
real_ninja=$(command -v ninja)
mkdir -p old-ninja
cat >old-ninja/ninja <<EOF
#!/bin/sh
[ "\$1" = --version ] && { echo 1.10.2; exit 0; }
for a; do [ "\$a" = --quiet ] && { echo "ninja: unrecognized option '--quiet'" >&2; exit 1; }; done
exec "$real_ninja" "\$@"
EOF
chmod +x old-ninja/ninja
make_dump dump_old --ranks 1 --seqs 10 --hidden 16 --heads 2
run_old=$(PATH=$PWD/old-ninja:$PATH build_package dump_old out_old 2>old.err) || fail "with ninja 1.10: $(cat old.err)"
[ -f "$run_old" ] || fail "with ninja 1.10, no .run at '$run_old'"

step "ninja makes no new package when no kernel changed; a new kernel's package replaces the old one"
expect_eq "$(ninja -C out/.skb | tail -1)" "ninja: no work to do." "ninja after packaging"
expect_eq "$(build_package dump out)" "$run" "the whole job again"
expect_eq "$(ls out)" "$(basename "$run")" "packages after a no-op rerun"
make_dump dump9 --ranks 2 --seqs 8,9 --hidden 16 --heads 2
run2=$(build_package dump9 out)
[ "$run2" != "$run" ] || fail "no new package for new kernels"
expect_eq "$(ls out)" "$(basename "$run2")" "packages after new kernels"
cmp -s out/.skb/static_kernel.run "$run2" || fail "static_kernel.run is not the newest package"
run=$(build_package dump out)

step "SOURCE_DATE_EPOCH: two packagings are byte-identical, for each compression"
for c in gzip zstd xz; do
  a=$(SOURCE_DATE_EPOCH=1700000000 skb-package out/.skb -o "repro_a_$c" --compression "$c" -q)
  b=$(SOURCE_DATE_EPOCH=1700000000 skb-package out/.skb -o "repro_b_$c" --compression "$c" -q)
  [[ $(basename "$a") =~ ^static_kernel_20231114221320_[0-9a-f]{8}\.run$ ]] || fail "name from SOURCE_DATE_EPOCH: $a"
  expect_eq "$(basename "$a")" "$(basename "$b")" "names of two $c packagings"
  expect_eq "$(sha256sum < "$a")" "$(sha256sum < "$b")" "sha256 of two $c packagings"
  inst=skb-install-all.gz; [ "$c" != gzip ] || inst=skb-install.gz  # the installer that reads its payload
  expect_eq "$(sed -n 's/^skb_installer_size=//p' "$a" | head -1)" "$(stat -c %s "$SKB_BIN/../libexec/skb/$inst")" \
    "installer bytes of the $c package"
  sh "$a" --check >/dev/null || fail "$c package does not check"
  sh "$a" --install-path="inst_$c" -q || fail "$c package does not install"
  expect_eq "$(check_library "inst_$c")" "$kernels" "kernels listed after installing the $c package"
done

step "a gzip payload is gzip blocks, each naming its length, that tar -xzf reads as one stream; the first is the manifest's alone"
g=$(ls repro_a_gzip/*.run)
poff=$(sed -n 's/^skb_payload_offset=//p' "$g" | head -1)
tail -c +$((poff + 1)) "$g" > payload.tgz
python3 - payload.tgz <<'PY' || fail "the payload is not a run of gzip blocks"
import io, struct, sys, tarfile, zlib
data, pos, blocks = open(sys.argv[1], "rb").read(), 0, 0
first = None
while pos < len(data):
    head = data[pos:pos + 20]
    assert head[:4] == b"\x1f\x8b\x08\x04" and head[10:16] == b"\x08\x00SK\x04\x00", (pos, head)
    n = struct.unpack("<I", head[16:20])[0]
    body = data[pos + 20:pos + n - 8]
    crc, size = struct.unpack("<II", data[pos + n - 8:pos + n])
    raw = zlib.decompress(body, -15)
    assert len(raw) == size and zlib.crc32(raw) == crc and size <= 1 << 20, pos
    first = raw if first is None else first
    pos, blocks = pos + n, blocks + 1
# The first block: manifest.json's tar header, its bytes and their padding, nothing else.
entry = tarfile.open(fileobj=io.BytesIO(first + b"\0" * 1024)).getmembers()
assert [m.name for m in entry] == ["manifest.json"], entry
assert len(first) == 512 + (entry[0].size + 511) // 512 * 512, (len(first), entry[0].size)
print("    %d blocks, the first %d bytes" % (blocks, len(first)))
PY
mkdir tarx && tar -xzf payload.tgz -C tarx || fail "tar -xzf cannot read the payload"
pkg=$(basename "$g" .run)
n=0
for f in $(cd tarx && find . -type f ! -name manifest.json); do
  cmp -s "tarx/$f" "inst_gzip/opp/static_kernel/ai_core/$pkg/$f" || fail "tar -xzf gives other bytes for $f"
  n=$((n + 1))
done
expect_eq "$n" "$(json_get "inst_gzip/opp/static_kernel/ai_core/$pkg/manifest.json" 'len(j["files"])')" "files tar -xzf gives"

step "packages of other contents made in the same second never share a name"
SOURCE_DATE_EPOCH=1700000000 build_package dump9 out9 >/dev/null
# What a packaging killed while it wrote left there goes; another one's, still writing, stays.
mkdir -p same
sh -c 'exit 0' & dead=$!
wait "$dead"
touch "same/.static_kernel_x.run.tmp.$dead" "same/.static_kernel_y.run.tmp.$$"
n1=$(basename "$(SOURCE_DATE_EPOCH=1700000000 skb-package out/.skb -o same -q)")
[ ! -e "same/.static_kernel_x.run.tmp.$dead" ] || fail "a dead packaging's temp file was kept"
[ -e "same/.static_kernel_y.run.tmp.$$" ] || fail "a live packaging's temp file was removed"
rm "same/.static_kernel_y.run.tmp.$$"
n2=$(basename "$(SOURCE_DATE_EPOCH=1700000000 skb-package out9/.skb -o same -q)")
[ "$n1" != "$n2" ] || fail "two packages of other contents are both named $n1"
expect_eq "$(ls same | wc -l)" 2 "packages in one folder, made in one second"

step "-o naming the .run itself, without -p: the package there, by that name"
skb-package out/.skb -o named/static_kernel_named.run -q >/dev/null || fail "skb-package -o .../static_kernel_named.run"
[ -f named/static_kernel_named.run ] || fail "no package file at the path -o named: $(find named | head -3)"
sh named/static_kernel_named.run --check >/dev/null || fail "the named package does not verify"

step "a whole job that names its package replaces its own on a rerun with new kernels, and only its own"
build_package dump_old named_job/static_kernel_v2.run >/dev/null
build_package dump9 named_job/static_kernel_v2.run >/dev/null 2>named.err || fail "the rerun: $(cat named.err)"
expect_eq "$(sh named_job/static_kernel_v2.run --list | wc -l)" "$(json_get out9/.skb/package.json 'j["kernels"]')" \
  "kernels of the renamed job's package"
echo "not ours" >named_job/static_kernel_v2.run
if build_package dump_old named_job/static_kernel_v2.run 2>named.err; then fail "replaced a file it did not make"; fi
expect_eq "$(cat named_job/static_kernel_v2.run)" "not ours" "the file the job did not make"

step "-o naming a file: refused before anything is built; two whole jobs at once into one folder both finish"
rc=0; skb-package "$PWD/no-such-build" -o nowhere 2>nobuild.err || rc=$?
expect_eq "$rc" 1 "skb-package of a missing build folder"
grep -q "no-such-build: no such folder" nobuild.err || fail "said: $(cat nobuild.err)"
rc=0; skb-package out/.skb -o nokey_out --sign-key "$PWD/no-such.key" 2>nokey.err || rc=$?
expect_eq "$rc" 1 "skb-package with a signing key that is not there"
grep -q "no-such.key: cannot open the signing key" nokey.err || fail "said: $(cat nokey.err)"
[ ! -e nokey_out ] || fail "the output folder was made before the key was read"
echo "a file" >afile
rc=0; build_package dump_old afile 2>afile.err || rc=$?
expect_eq "$rc" 1 "a whole job into a file"
grep -q "afile: not a folder; -o names the folder the package goes into" afile.err || fail "said: $(cat afile.err)"
if grep -q "FAILED" afile.err; then fail "it built before refusing: $(cat afile.err)"; fi
rc1=0; rc2=0
build_package dump_old twice -j1 >twice1.out 2>twice1.err & p1=$!
build_package dump9 twice -j1 >twice2.out 2>twice2.err & p2=$!
wait $p1 || rc1=$?; wait $p2 || rc2=$?
expect_eq "$rc1 $rc2" "0 0" "two whole jobs at once ($(cat twice1.err twice2.err | head -3))"
for o in twice1.out twice2.out; do sh "$(cat $o)" --check >/dev/null 2>&1 || [ ! -e "$(cat $o)" ] || fail "$o: a package that does not verify"; done
expect_eq "$(ls twice/*.run | wc -l)" 1 "packages left by two jobs one after the other"

step "an existing package of the same name is never overwritten"
mkdir -p clash && echo "not ours" > "clash/$(basename "$a")"
if SOURCE_DATE_EPOCH=1700000000 skb-package out/.skb -o clash --compression xz -q 2>clash.err; then fail "overwrote an existing package"; fi
expect_eq "$(cat "clash/$(basename "$a")")" "not ours" "the existing file"
grep -q "already exists" clash.err || fail "no clear error: $(cat clash.err)"

step "a kernel that does not match its record is never packed"
cp -r out/.skb damaged
victim=$(ls damaged/kernel_meta/*.so | head -1)
printf 'X' | dd of="$victim" bs=1 seek=100 conv=notrunc 2>/dev/null
if skb-package damaged -o damaged_pkg -q 2>damaged.err; then fail "packed a damaged kernel"; fi
grep -q "$(basename "$victim" .so): binary does not match its record" damaged.err || fail "damaged kernel not named: $(cat damaged.err)"
[ -z "$(ls damaged_pkg 2>/dev/null)" ] || fail "something was written: $(ls damaged_pkg)"
[ ! -e "${victim%.so}.json" ] || fail "the damaged kernel's record is kept: the next ninja would not build it again"
rm "$(ls damaged/kernel_meta/*.so | tail -1)"
if skb-package damaged -o damaged_pkg -q 2>damaged.err; then fail "packed without a kernel"; fi
grep -q "is missing" damaged.err || fail "missing kernel not named"

step "byte flips anywhere make --check and install fail, writing nothing"
size=$(stat -c %s "$run")
header_len=$(sed -n 's/^skb_header_len=//p' "$run" | head -1)
ioff=$(sed -n 's/^skb_installer_offset=//p' "$run" | head -1)
poff=$(sed -n 's/^skb_payload_offset=//p' "$run" | head -1)
positions="0 10 $((header_len / 2)) $((header_len - 2)) $((header_len + 3)) $ioff $((ioff + 5000)) $((poff - 1)) $poff $((poff + 20)) $((size - 1))"
positions="$positions $(python3 -c "import random; r=random.Random(5); print(' '.join(str(r.randrange($size)) for _ in range(25)))")"
mkdir -p flip_tmp
# A library in use (its lock file there, ai_core/ gone with its last package), where an install
# takes the lock before it hashes the payload: a damaged package changes nothing there either.
sh "$run" --install-path="$PWD/used_lib" -q
sh "$run" --install-path="$PWD/used_lib" --uninstall -q
used_before=$(find used_lib | sort)
for pos in $positions; do
  python3 - "$run" flipped.run "$pos" <<'PY'
import sys
data = bytearray(open(sys.argv[1], "rb").read()); pos = int(sys.argv[3])
data[pos] ^= 0x20
open(sys.argv[2], "wb").write(data)
PY
  if TMPDIR=$PWD/flip_tmp sh flipped.run --check >/dev/null 2>&1; then fail "--check accepted a flip at byte $pos"; fi
  if TMPDIR=$PWD/flip_tmp sh flipped.run --install-path="$PWD/flip_lib" -q >/dev/null 2>&1; then fail "install accepted a flip at byte $pos"; fi
  [ ! -e flip_lib ] || [ -z "$(find flip_lib -type f)" ] || fail "a flip at byte $pos wrote $(find flip_lib -type f | head -3)"
  if TMPDIR=$PWD/flip_tmp sh flipped.run --install-path="$PWD/used_lib" -q >/dev/null 2>&1; then
    fail "install into a library in use accepted a flip at byte $pos"
  fi
  expect_eq "$(find used_lib | sort)" "$used_before" "a library in use after a flip at byte $pos"
  [ -z "$(ls flip_tmp)" ] || fail "a flip at byte $pos left $(ls flip_tmp) in TMPDIR"
done
head -c $((size - 7)) "$run" > truncated.run
if sh truncated.run --check >/dev/null 2>&1; then fail "--check accepted a truncated package"; fi
{ cat "$run"; printf x; } > extended.run
if sh extended.run --check >/dev/null 2>&1; then fail "--check accepted trailing bytes"; fi
echo "    $(echo $positions | wc -w) flips, a truncation and an extension: all refused"
# Where the library holds the same installer, the stub runs that copy, not the package's: a flip
# in the package's installer is still refused, as --check refuses it, and changes nothing.
sh "$run" --install-path="$PWD/held_lib" -q
[ -x held_lib/opp/static_kernel/ai_core/bin/skb-install ] || fail "the library holds no installer"
held_before=$(find held_lib -type f -exec sha256sum {} + | sort)
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[int(sys.argv[2])] ^= 0x20; open("flipped.run", "wb").write(d)' \
  "$run" $((ioff + 5000))
rc=0; sh flipped.run --install-path="$PWD/held_lib" --force 2>held.err || rc=$?
expect_eq "$rc" 3 "install of a package whose installer was flipped, the library's copy running"
grep -q "installer checksum mismatch" held.err || fail "the error does not name the installer: $(cat held.err)"
expect_eq "$(find held_lib -type f -exec sha256sum {} + | sort)" "$held_before" "the library after a refused install"

step "installs with env -i PATH=/usr/bin:/bin, no prompt without a terminal"
env -i PATH=/usr/bin:/bin sh "$run" --install-path="$PWD/envi" </dev/null >/dev/null 2>&1 || fail "env -i install failed"
expect_eq "$(check_library envi)" "$kernels" "kernels after env -i install"
[ -z "$(find envi -perm -o+w ! -type l)" ] || fail "world-writable files: $(find envi -perm -o+w | head)"

step "nothing left in TMPDIR, even by an installer killed with -9; a dd without iflag= falls back to tail | head"
mkdir -p run_tmp
TMPDIR=$PWD/run_tmp sh "$run" --install-path="$PWD/tmp_lib" -q || fail "install failed"
[ -z "$(ls run_tmp)" ] || fail "an install left $(ls run_tmp) in TMPDIR"
# A holder of the lock makes the installer wait: it is killed while waiting.
python3 -c 'import fcntl, sys, time; f = open(sys.argv[1], "a"); fcntl.flock(f, fcntl.LOCK_EX); open(sys.argv[2], "w"); time.sleep(30)' \
  tmp_lib/opp/static_kernel/.ai_core.lock tmp_locked &
holder=$!
for _ in $(seq 100); do [ -e tmp_locked ] && break; sleep 0.05; done
SKB_LOCK_TIMEOUT=30 TMPDIR=$PWD/run_tmp sh "$run" --install-path="$PWD/tmp_lib" --force 2>waiter.err &
waiter=$!
for _ in $(seq 200); do grep -q "waiting for" waiter.err && break; sleep 0.05; done
grep -q "waiting for" waiter.err || fail "the installer did not wait for the lock"
kill -9 "$waiter"
wait "$waiter" 2>/dev/null || true
kill "$holder"
wait "$holder" 2>/dev/null || true
[ -z "$(ls run_tmp)" ] || fail "an installer killed with -9 left $(ls run_tmp) in TMPDIR"
# Symlinks planted at the names the stub tries first (its process id, which exec keeps, and a
# counter) are neither followed nor removed: it takes the next name.
mkdir -p planted_tmp
TMPDIR=$PWD/planted_tmp sh -c 'for f in "$TMPDIR/skb_run.$$.0" "$TMPDIR/skb_run.$$.0.t"; do ln -s "$PWD/planted_target" "$f"; done
  exec sh "$0" --install-path="$1" -q' "$run" "$PWD/planted_lib" </dev/null 2>planted.err ||
  fail "install with planted symlinks failed: $(cat planted.err)"
[ ! -e planted_target ] || fail "the stub wrote through a planted symlink"
expect_eq "$(find planted_tmp -type l | wc -l) $(find planted_tmp ! -type l ! -type d | wc -l)" "2 0" \
  "planted symlinks kept, other files left in TMPDIR"
expect_eq "$(check_library planted_lib)" "$kernels" "kernels after an install past planted symlinks"
mkdir -p old_dd
printf '#!/bin/sh\ncase "$*" in *iflag=*) echo "dd: invalid input flag" >&2; exit 1 ;; esac\nexec /bin/dd "$@"\n' > old_dd/dd
chmod 755 old_dd/dd
PATH=$PWD/old_dd:$PATH sh "$run" --install-path="$PWD/old_dd_lib" -q || fail "install with a dd without iflag= failed"
expect_eq "$(check_library old_dd_lib)" "$kernels" "kernels after an install with a dd without iflag="

step "the library's copy of the installer runs when it is the package's own; one of other bytes or owner does not"
# Where the installer would install: --install-path (either form), SKB_INSTALL_PATH; HOME is the
# scratch folder's, so that the machine user's library plays no part.
lib=$PWD/reuse_lib
sh "$run" --install-path="$lib" -q
own="^installer:   [0-9]* bytes, gzip-compressed; running the library's copy, $(lib_root "$lib")/bin/skb-install$"
HOME=$PWD/home sh "$run" --install-path="$lib" --info | grep -q "$own" ||
  fail "--install-path=DIR: $(HOME=$PWD/home sh "$run" --install-path="$lib" --info)"
HOME=$PWD/home sh "$run" --install-path "$lib" --info | grep -q "$own" || fail "--install-path DIR: not the library's copy"
HOME=$PWD/home SKB_INSTALL_PATH=$lib sh "$run" --info | grep -q "$own" || fail "SKB_INSTALL_PATH: not the library's copy"
HOME=$PWD/home sh "$run" --install-path="$lib" -q || fail "a run of an installed package through the library's copy"
carried="^installer:   [0-9]* bytes, gzip-compressed; running it$"
if [ "$(id -u)" = 0 ]; then
  chown nobody "$(lib_root "$lib")/bin/skb-install"
  HOME=$PWD/home sh "$run" --install-path="$lib" --info | grep -q "$carried" || fail "another user's copy was run"
  chown 0 "$(lib_root "$lib")/bin/skb-install"
else
  echo "    (not root: a copy of another owner's cannot be made here, so it is not tried)"
fi
# The copy is checked by its BLAKE2b-512 (b2sum), or, where coreutils has no b2sum, its SHA-256.
expect_eq "$(sed -n 's/^skb_installer_unpacked_b2=//p' "$run" | head -1)" \
  "$(b2sum < "$(lib_root "$lib")/bin/skb-install" | cut -d' ' -f1)" "the header's BLAKE2b-512 of the installer"
mkdir -p no_b2
for t in /usr/bin/* /bin/*; do
  n=${t##*/}
  [ "$n" = b2sum ] || [ -e "no_b2/$n" ] || ln -s "$t" "no_b2/$n"
done
! PATH=$PWD/no_b2 command -v b2sum >/dev/null || fail "no_b2 has a b2sum"
HOME=$PWD/home PATH=$PWD/no_b2 sh "$run" --install-path="$lib" --info | grep -q "$own" ||
  fail "without b2sum: not the library's copy"
printf '#!/bin/sh\necho impostor\n' > "$(lib_root "$lib")/bin/skb-install"
HOME=$PWD/home sh "$run" --install-path="$lib" --info >info.txt
! grep -q impostor info.txt || fail "the stub ran an installer of other bytes"
grep -q "$carried" info.txt || fail "--info: $(cat info.txt)"
HOME=$PWD/home PATH=$PWD/no_b2 sh "$run" --install-path="$lib" --info >info.txt
! grep -q impostor info.txt || fail "without b2sum, the stub ran an installer of other bytes"
grep -q "$carried" info.txt || fail "without b2sum, --info: $(cat info.txt)"

step "the installer travels gzip-compressed: without gzip the package says so and does nothing"
expect_eq "$(sed -n 's/^skb_installer_size=//p' "$run" | head -1)" "$(stat -c %s "$SKB_BIN/../libexec/skb/skb-install.gz")" \
  "installer bytes in the .run"
expect_eq "$(sed -n 's/^skb_installer_unpacked_size=//p' "$run" | head -1)" \
  "$(stat -c %s "$SKB_BIN/../libexec/skb/skb-install")" "installer bytes once unpacked"
mkdir -p nogzip
for t in dd head tail sha256sum wc df chmod rm; do ln -sf "$(command -v $t)" nogzip/$t; done
if PATH=$PWD/nogzip /bin/sh "$run" --install-path="$PWD/nogzip_lib" -q 2>nogzip.err; then fail "installed without gzip"; fi
grep -q "'gzip' is missing" nogzip.err || fail "unclear error without gzip: $(cat nogzip.err)"
[ ! -e nogzip_lib ] || fail "something was written without gzip"

step "options: unknown ones refused, --list lists every kernel, --extract does not install"
if sh "$run" --bogus >/dev/null 2>&1; then fail "unknown option accepted"; fi
sh "$run" --bogus >/dev/null 2>&1 || expect_eq "$?" 2 "exit status of an unknown option"
expect_eq "$(sh "$run" --list | wc -l)" "$kernels" "kernels listed by --list"
sh "$run" --version | grep -q "skb" || fail "--version"
for empty in --extract= --install-path=; do  # an unset variable's value: never the default library
  rc=0; sh "$run" "$empty" -q 2>empty.err || rc=$?
  expect_eq "$rc" 2 "exit status of $empty with no value"
  grep -q -e "${empty%=} needs a folder, and was given an empty value" empty.err || fail "$empty said: $(cat empty.err)"
done
sh "$run" --extract="$PWD/ex" -q || fail "--extract failed"
expect_eq "$(find ex -name '*.so' | wc -l)" "$kernels" "kernels extracted"
ex_manifest=$(find ex -name manifest.json)
[ -n "$ex_manifest" ] || fail "--extract wrote no manifest.json"
expect_eq "$(json_get "$ex_manifest" 'len([f for f in j["files"] if f["path"].endswith(".so")])')" "$kernels" \
  "kernels the extracted manifest.json lists"

step "/tmp mounted noexec: the installer runs from the next folder that allows it"
mkdir -p noexec
if mount -t tmpfs -o noexec,size=64m tmpfs noexec 2>/dev/null; then
  TMPDIR=$PWD/noexec sh "$run" --install-path="$PWD/nx_lib" -q || { umount noexec; fail "install with a noexec TMPDIR failed"; }
  umount noexec
  expect_eq "$(check_library nx_lib)" "$kernels" "kernels after a noexec TMPDIR"
else
  echo "    skipped: mounting a noexec tmpfs needs root (CI runs as root)"
fi

step "with others' writes not yet on disk, an install syncs its own files one by one, and says so"
# syncfs would wait for every unsynced byte of the filesystem (a checkpoint being written). The
# installer reads those bytes in /proc/meminfo (Dirty + Writeback): in a mount namespace of its
# own it reads a copy of the machine's that says 400,000 KiB, then one that says none, so that
# neither the machine's writeback nor another process's sync (a suite beside this one) decides
# which way it takes.
sync_note="synced the [0-9]* files and folders of .* one by one: other processes had \([0-9]*\) MiB not yet on disk"
ns=(unshare -m); [ "$(id -u)" = 0 ] || ns=(unshare -rm)  # a user namespace gives others a mount namespace
if "${ns[@]}" true 2>/dev/null; then
  for kib in 400000 0; do
    sed "s/^Dirty:.*/Dirty:          $kib kB/; s/^Writeback:.*/Writeback:             0 kB/" /proc/meminfo >"meminfo.$kib"
    "${ns[@]}" sh -c 'mount --bind "$0" /proc/meminfo && exec sh "$@"' "$PWD/meminfo.$kib" "$run" \
      --install-path="$PWD/busy_lib_$kib" >"busy_$kib.out" 2>&1 || fail "install with $kib KiB pending: $(cat "busy_$kib.out")"
    expect_eq "$(check_library "busy_lib_$kib")" "$kernels" "kernels installed with $kib KiB pending"
  done
  mib=$(sed -n "s/.*$sync_note.*/\1/p" busy_400000.out)
  [ -n "$mib" ] || fail "no word of the file-by-file sync with 400,000 KiB pending: $(cat busy_400000.out)"
  # 390 MiB less the package's own bytes
  [ "$mib" -gt 380 ] && [ "$mib" -le 390 ] || fail "others' pending bytes said: $mib MiB, of 390 MiB"
  ! grep -q "one by one" busy_0.out || fail "synced file by file with nothing pending: $(cat busy_0.out)"
  echo "    400,000 KiB pending: file by file ($mib MiB said to be others'); none pending: the whole filesystem"
else
  # Where no namespace can be had, the machine's own: 384 MiB written and not synced yet, and the
  # install right after, which another process's sync meanwhile would fail.
  head -c $((384 << 20)) /dev/zero >unsynced.bin
  pending_mib() { awk '/^(Dirty|Writeback):/ {s += $2} END {print int(s / 1024)}' /proc/meminfo; }
  pending=$(pending_mib)
  if [ "$pending" -ge 256 ]; then
    sh "$run" --install-path="$PWD/busy_lib" >busy.out 2>&1 || fail "install with others' writes pending: $(cat busy.out)"
    grep -q "$sync_note" busy.out || fail "no word of the file-by-file sync, $pending MiB pending before: $(cat busy.out)"
    expect_eq "$(check_library busy_lib)" "$kernels" "kernels installed while others' writes were pending"
  else
    echo "    skipped: no mount namespace for a /proc/meminfo of the test's (${ns[*]} failed), and the machine" \
      "wrote the 384 MiB back at once (${pending} MiB pending)"
  fi
  rm -f unsynced.bin
fi

step "a read-only install path is a clear error"
mkdir -p ro && chmod 555 ro
if [ "$(id -u)" = 0 ]; then ro_run() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }; else ro_run() { "$@"; }; fi
cp "$run" ro_pkg.run && chmod 644 ro_pkg.run && chmod 755 .
if ro_run sh ro_pkg.run --install-path="$PWD/ro/lib" 2>ro.err; then fail "installed into a read-only path"; fi
grep -q "error: .*ro/lib.*cannot create" ro.err || fail "unclear error: $(cat ro.err)"
echo "a file" >not_a_lib
rc=0; sh "$run" --install-path="$PWD/not_a_lib" -q 2>file.err || rc=$?
expect_eq "$rc" 1 "an install path that is a file"
grep -q "error: --install-path $PWD/not_a_lib: not a folder" file.err || fail "said: $(cat file.err)"
rc=0; sh "$run" --extract="$PWD/not_a_lib" -q 2>file.err || rc=$?
expect_eq "$rc" 1 "an extract folder that is a file"
grep -q "error: --extract $PWD/not_a_lib: not a folder" file.err || fail "said: $(cat file.err)"

step "a kernel damaged in its build folder, its mtime kept: skb-package refuses it, the next ninja builds it again"
victim=$(ls out/.skb/kernel_meta/*.so | head -1)
cp -p "$victim" victim.so
python3 -c 'import sys; d = bytearray(open(sys.argv[1], "rb").read()); d[100] ^= 0x20; open(sys.argv[1], "wb").write(d)' "$victim"
touch -r victim.so "$victim"
expect_eq "$(ninja -C out/.skb | tail -1)" "ninja: no work to do." "ninja before the damage is seen"
if skb-package out/.skb -o repaired_pkg -q 2>repair.err; then fail "packed a damaged kernel"; fi
grep -q "run \`ninja -C .*out/.skb\` to build them" repair.err || fail "the hint names no ninja: $(cat repair.err)"
expect_eq "$(ninja_compiles out/.skb)" 1 "compiles of the ninja after the damage was seen"
cmp -s "$victim" victim.so || fail "the kernel built again differs from the one before the damage"
skb-package out/.skb -o repaired_pkg -q || fail "skb-package after ninja built the kernel again"

echo PASS
