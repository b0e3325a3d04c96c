# Trust, tried as attacks: what crosses machines (kernel store entries, .run packages) is used
# only when a key the user trusts signed it. A forged entry whose kernel runs code when loaded
# (its marker must never appear); a signature lifted onto another entry or name; an untrusted,
# truncated or bit-flipped signature; a rotation and a revocation; read-only consumers on redis
# and nginx WebDAV; redis AUTH and HTTP basic auth (netrc) credentials; a .run repacked with every
# checksum recomputed; no secret in a build, log or package.
source "$(dirname "$0")/lib.sh"
for tool in redis-server redis-cli nginx zstd; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/test.sh installs it)"
done
source "$SKB_SOURCE/tests/tools/scale_out.sh"
dump=$SKB_SOURCE/examples/op_stats/aclnn_static_shape_kernel_outputs
forge() { python3 "$SKB_SOURCE/tests/tools/forge_entry.py" "$@"; }

# build OUT URL [skb-generate args]: a fresh build folder on a store, no package; prints how many
# kernels the compiler ran for (ninja's output in OUT.log).
cat >count_cc <<'EOS'
#!/bin/sh
echo x >>"$COMPILE_LOG"
exec ${SKB_LAUNCHER:-} "$@"
EOS
chmod +x count_cc
build() {
  local out=$1 url=$2
  shift 2
  skb-generate -p "$dump" -o "$out" --no-package -q --cache "$url" --launcher "$PWD/count_cc" "$@"
  COMPILE_LOG=$PWD/$out.compiles ninja -C "$out" >"$out.log" 2>&1 || { cat "$out.log" >&2; fail "build $out failed"; }
  if [ -f "$out.compiles" ]; then wc -l <"$out.compiles"; else echo 0; fi
}
cache_stat() { json_get "$1/summary.json" "j['cache']['$2']"; }
# lookup OUT URL [skb-generate args]: a fresh build folder's store lookup alone, no compile; prints
# its hits and untrusted entries (what the compiles would then be for is asserted by build).
lookup() {
  local out=$1 url=$2
  shift 2
  skb-generate -p "$dump" -o "$out" --no-package -q --cache "$url" "$@"
  ninja -C "$out" cache/lookup.stamp >"$out.log" 2>&1 || { cat "$out.log" >&2; fail "lookup $out failed"; }
  python3 -c 'import json,sys; j=json.loads(open(sys.argv[1]).readline()); print(j["hits"], j["untrusted"])' \
    "$out/cache/log"
}
kernels() { (cd "$1/kernel_meta" && sha256sum -- *.so *.json | sort -k2); }
entry_of() { echo "$1/$(printf %s "skb1_$2" | sha256sum | cut -c1)/skb1_$2.entry"; }

step "keys: a private key file 0600 never printed, a public line to paste, one key never made twice"
skb key new ci-1 ci1.key >ci1.pub
skb key new ci-2 ci2.key >ci2.pub
skb key new dev-x dev.key >dev.pub
expect_eq "$(stat -c %a ci1.key)" 600 "private key mode"
grep -qE '^ci-1:[A-Za-z0-9+/]{43}=$' ci1.pub || fail "public key line: $(cat ci1.pub)"
expect_eq "$(skb key public ci1.key)" "$(cat ci1.pub)" "skb key public"
secret=$(awk -F: '{print $NF}' ci1.key)
grep -q "^skb-private-key:ci-1:" ci1.key || fail "the private key file is not marked as one"
rc=0; skb key new ci-9 - >dash.out 2>dash.err || rc=$?
expect_eq "$rc:$(wc -c <dash.out)" "1:0" "skb key new NAME - (exit status:bytes printed)"
[ ! -e ./- ] || fail "skb key new NAME - wrote a file named -"
cp ci1.key marked.trust && chmod 644 marked.trust
rc=0; skb verify --trusted-keys marked.trust /dev/null 2>marked.err || rc=$?
grep -q "marked.trust:1: a private key, not a public line" marked.err || fail "a private key as a trust file: $(cat marked.err)"
rc=0; skb key public ci1.key >/dev/full 2>full.err || rc=$?
expect_eq "$rc" 1 "skb key public onto a full disk"
grep -q "^skb: error: standard output: cannot write: No space left on device" full.err || fail "said: $(cat full.err)"
mkfifo fifo.key && chmod 600 fifo.key
rc=0; timeout 20 skb key public fifo.key 2>fifo.err || rc=$?
expect_eq "$rc" 1 "skb key public of a FIFO"
grep -q "fifo.key: not a readable file" fifo.err || fail "a FIFO as the key: $(cat fifo.err)"
if skb key new ci-1 ci1.key 2>again.err; then fail "a key file was overwritten"; fi
grep -q "ci1.key: cannot create: File exists" again.err || fail "overwrite message: $(cat again.err)"
cp ci1.key loose.key && chmod 644 loose.key
if skb-generate -p "$dump" -o loose -q --no-package --cache "file://$PWD/store" --sign-key loose.key 2>loose.err; then
  fail "a private key readable by others was used"
fi
grep -q "permissions 0644 are too open" loose.err || fail "loose key message: $(cat loose.err)"
chmod 644 ci1.pub
rc=0; skb key public ci1.pub 2>pub_as_key.err || rc=$?
expect_eq "$rc" 1 "skb key public of a public line"
grep -q "or, if it holds a public key line, give the private key's file" pub_as_key.err ||
  fail "a public line given as a private key: $(cat pub_as_key.err)"
if skb key public ci1.key 2>/dev/null | grep -q . && chmod 644 ci1.key && skb key public ci1.key 2>marked.err; then
  fail "a private key readable by others was used"
fi
chmod 600 ci1.key
if grep -q "or, if it holds a public key line" marked.err; then fail "a marked private key taken for a public line: $(cat marked.err)"; fi
printf 'ci-1:not-base64\n' >bad.pub
if skb-generate -p "$dump" -o badtrust -q --no-package --cache "file://$PWD/store" --trusted-keys bad.pub 2>bad.err; then
  fail "a bad trust file was taken"
fi
grep -q "bad.pub:1: public key 'ci-1': expected 32 bytes in base64" bad.err || fail "bad trust file: $(cat bad.err)"

step "a store filled by CI's key; a consumer that trusts it takes every entry"
cold=$(build c1 "file://$PWD/store" --sign-key ci1.key)
planned=$(json_get c1/summary.json 'j["planned_total"]')
expect_eq "$(cache_stat c1 uploads)" "$planned" "signed uploads"
expect_eq "$(build c2 "file://$PWD/store?mode=ro" --trusted-keys ci1.pub)" 0 "compiles of a trusting consumer"
expect_eq "$(cache_stat c2 hits)" "$planned" "hits of a trusting consumer"
expect_eq "$(kernels c2)" "$(kernels c1)" "kernels from trusted entries"

step "the forged entry: a kernel that runs code when loaded, its record fixed, the signature kept"
k=$(python3 -c 'import json,sys; print(sorted(k["name"] for k in json.load(open(sys.argv[1]))["kernels"] if k["name"].startswith("Add_"))[0])' c1/plan.json)
cat >evil.cc <<EOS
#include <cstdio>
__attribute__((constructor)) static void planted() { if (FILE* f = std::fopen("$PWD/MARKER", "w")) std::fclose(f); }
extern "C" int skb_kernel(void**, void**, void*) { return 0; }
EOS
c++ -shared -fPIC -o evil.so evil.cc
cp -a store store.clean
forge "$(entry_of store "$k")" forged.entry --kernel evil.so
cp forged.entry "$(entry_of store "$k")"
expect_eq "$(build f1 "file://$PWD/store" --trusted-keys ci1.pub --sign-key ci1.key)" 1 "compiles beside the forged entry"
expect_eq "$(cache_stat f1 untrusted)" 1 "untrusted entries"
expect_eq "$(cache_stat f1 hits)" "$((planned - 1))" "hits beside the forged entry"
grep -q "the entry of $k is not used: its signature by ci-1 does not match its contents" f1.log ||
  fail "the forged entry was not named: $(cat f1.log)"
expect_eq "$(grep -c "the entry of $k is not used" f1.log)" 1 "times the forged entry is named"
expect_eq "$(kernels f1)" "$(kernels c1)" "kernels beside the forged entry"
[ ! -e MARKER ] || fail "the forged kernel ran code in the builder"
cp forged.entry "$(entry_of store "$k")"  # f1 replaced it with its own, signed: forge it again
run=$(build_package "$dump" pkg --cache "file://$PWD/store" --trusted-keys ci1.pub)
expect_eq "$(json_get pkg/.skb/summary.json 'j["cache"]["untrusted"]')" 1 "the whole job's untrusted entries"
sh "$run" --install-path "$PWD/lib" -q
skb-replay --install-path "$PWD/lib" "$dump" >replay.txt 2>&1 || fail "skb-replay: $(cat replay.txt)"
grep -q " 0 differed" replay.txt || fail "replay: $(cat replay.txt)"
[ ! -e MARKER ] || fail "the forged kernel ran code where it was installed"
forge "$(entry_of store.clean "$k")" unsigned.entry --kernel evil.so --drop-signature
cp unsigned.entry "$(entry_of store "$k")"
build f2 "file://$PWD/store?mode=ro" --trusted-keys ci1.pub >/dev/null
expect_eq "$(cache_stat f2 untrusted)" 1 "an unsigned forged entry"
grep -q "the entry of $k is not used: it is unsigned" f2.log || fail "unsigned entry: $(cat f2.log)"
[ ! -e MARKER ] || fail "the unsigned forged kernel ran code"

step "a signature lifted onto another entry, and a whole entry moved onto another name"
k2=$(python3 -c 'import json,sys; print(sorted(k["name"] for k in json.load(open(sys.argv[1]))["kernels"] if k["name"].startswith("Add_"))[1])' c1/plan.json)
rm -rf store && cp -a store.clean store
mkdir lift && (cd lift && zstd -dc "$(entry_of ../store "$k2")" | tar x signature)
forge "$(entry_of store "$k")" lifted.entry --signature lift/signature
cp lifted.entry "$(entry_of store "$k")"
expect_eq "$(build l1 "file://$PWD/store?mode=ro" --trusted-keys ci1.pub)" 1 "compiles with a lifted signature"
grep -q "the entry of $k is not used: its signature by ci-1 does not match" l1.log || fail "lifted: $(cat l1.log)"
cp "$(entry_of store.clean "$k2")" "$(entry_of store "$k")"
expect_eq "$(build l2 "file://$PWD/store?mode=ro" --trusted-keys ci1.pub)" 1 "compiles with an entry under another name"
expect_eq "$(cache_stat l2 untrusted)" 1 "an entry under another name"

step "a truncated and a bit-flipped signature"
head -c 50 lift/signature >truncated.sig
forge "$(entry_of store.clean "$k")" truncated.entry --signature truncated.sig
cp truncated.entry "$(entry_of store "$k")"
expect_eq "$(build t1 "file://$PWD/store?mode=ro" --trusted-keys ci1.pub)" 1 "compiles with a truncated signature"
grep -q "the entry of $k is not used: its signature is malformed" t1.log || fail "truncated: $(cat t1.log)"
(cd lift && rm signature && zstd -dc "$(entry_of ../store.clean "$k")" | tar x signature)
python3 - lift/signature flipped.sig <<'EOS'
import base64, sys
name, sig = open(sys.argv[1]).read().strip().rsplit(":", 1)
raw = bytearray(base64.b64decode(sig)); raw[10] ^= 0x01
open(sys.argv[2], "w").write(name + ":" + base64.b64encode(bytes(raw)).decode() + "\n")
EOS
forge "$(entry_of store.clean "$k")" flipped.entry --signature flipped.sig
cp flipped.entry "$(entry_of store "$k")"
expect_eq "$(build t2 "file://$PWD/store?mode=ro" --trusted-keys ci1.pub)" 1 "compiles with a flipped signature bit"
grep -q "the entry of $k is not used: its signature by ci-1 does not match" t2.log || fail "flipped: $(cat t2.log)"

step "an untrusted key, a rotation (two keys trusted), a revocation (a key removed)"
expect_eq "$(build u1 "file://$PWD/store.clean?mode=ro" --trusted-keys dev.pub)" "$planned" "compiles trusting another key"
expect_eq "$(cache_stat u1 untrusted)" "$planned" "entries of an untrusted key"
grep -q "it is signed by ci-1, a key that is not trusted (trusted keys: $PWD/dev.pub)" u1.log || fail "untrusted: $(cat u1.log)"
mkdir rot && cp -a store.clean/. rot/
rm "$(entry_of rot "$k")" "$(entry_of rot "$k2")"
cat ci1.pub ci2.pub >rotation.pub
# The two missing entries, signed by the new key; the old key's entries are used meanwhile.
expect_eq "$(build r1 "file://$PWD/rot" --sign-key ci2.key --trusted-keys rotation.pub)" 2 "compiles of a builder with the new key"
expect_eq "$(build r2 "file://$PWD/rot?mode=ro" --trusted-keys rotation.pub)" 0 "compiles during a rotation"
expect_eq "$(cache_stat r2 hits)" "$planned" "hits of two keys"
{ echo "# ci-1 revoked"; cat ci2.pub; } >revoked.pub
expect_eq "$(build r3 "file://$PWD/rot?mode=ro" --trusted-keys revoked.pub)" "$((planned - 2))" "compiles after a revocation"
expect_eq "$(cache_stat r3 hits)" 2 "hits of the key kept"

step "the default: a builder trusts its own key (made on first use) and the keys of its trust file"
expect_eq "$(build d1 "file://$PWD/own")" "$planned" "compiles of a first build with no key given"
expect_eq "$(stat -c %a "$XDG_CONFIG_HOME/skb")" 700 "the configuration folder's mode"
expect_eq "$(stat -c %a "$XDG_CONFIG_HOME/skb/signing-key")" 600 "the own key's mode"
expect_eq "$(build d2 "file://$PWD/own")" 0 "compiles of a second build on its own store"
expect_eq "$(lookup d3 "file://$PWD/store.clean?mode=ro")" "0 $planned" "hits and untrusted on CI's store without trusting CI"
cp ci1.pub "$XDG_CONFIG_HOME/skb/trusted-keys"
expect_eq "$(build d4 "file://$PWD/store.clean?mode=ro")" 0 "compiles on CI's store once CI's key is trusted"
rm "$XDG_CONFIG_HOME/skb/trusted-keys"

step "a build's local store trusts the keys its builds sign with, whatever keys the build was given"
mkdir -p empty_store
for signer in "" ci2.key; do  # the user's own key, then one given
  local_store=$PWD/local_${signer:-own}
  first=$(SKB_CACHE_DIR=$local_store build "lt1${signer}" "file://$PWD/empty_store?mode=ro" --trusted-keys ci1.pub \
    ${signer:+--sign-key "$signer"})
  expect_eq "$first" "$planned" "compiles of a first build trusting only CI (signer ${signer:-own})"
  again=$(SKB_CACHE_DIR=$local_store build "lt2${signer}" "file://$PWD/empty_store?mode=ro" --trusted-keys ci1.pub \
    ${signer:+--sign-key "$signer"})
  expect_eq "$again" 0 "compiles of the same build again, on its local store (signer ${signer:-own})"
  expect_eq "$(cache_stat "lt2${signer}" untrusted)" 0 "entries of its own local store refused (signer ${signer:-own})"
done

step "read-only consumers on redis and nginx WebDAV"
start_redis "$PWD/redis"
build rd1 "$SKB_REDIS_URL/2" --sign-key ci1.key >/dev/null
expect_eq "$(build rd2 "$SKB_REDIS_URL/2?mode=ro" --trusted-keys ci1.pub)" 0 "redis: compiles of a trusting consumer"
expect_eq "$(lookup rd3 "$SKB_REDIS_URL/2?mode=ro" --trusted-keys dev.pub)" "0 $planned" "redis: hits and untrusted trusting another key"
expect_eq "$(redis-cli -u "$SKB_REDIS_URL/2" dbsize)" "$planned" "redis: entries after read-only consumers"
start_nginx_dav "$PWD/nginx"
build h1 "$SKB_DAV_URL" --sign-key ci1.key >/dev/null
before=$(cd nginx/dav/kernels && sha256sum -- * | sha256sum)
expect_eq "$(build h2 "$SKB_DAV_URL?mode=ro" --trusted-keys ci1.pub)" 0 "WebDAV: compiles of a trusting consumer"
expect_eq "$(lookup h3 "$SKB_DAV_URL?mode=ro" --trusted-keys dev.pub)" "0 $planned" "WebDAV: hits and untrusted trusting another key"
expect_eq "$(cd nginx/dav/kernels && sha256sum -- * | sha256sum)" "$before" "WebDAV: entries after read-only consumers"

step "store credentials never go into the build: redis AUTH from the environment"
if skb-generate -p "$dump" -o pw -q --no-package --cache "redis://:hunter2@127.0.0.1:1" 2>pw.err; then
  fail "a password in the URL was taken"
fi
grep -q "SKB_REDIS_PASSWORD" pw.err || fail "password message: $(cat pw.err)"
! grep -rq hunter2 pw.err pw 2>/dev/null || fail "the password was echoed or written"
redis-cli -u "$SKB_REDIS_URL" config set requirepass hunter2 >/dev/null
expect_eq "$(SKB_REDIS_PASSWORD=hunter2 build a1 "$SKB_REDIS_URL/2" --trusted-keys ci1.pub)" 0 "compiles with AUTH"
expect_eq "$(cache_stat a1 hits)" "$planned" "hits with AUTH"
build a2 "$SKB_REDIS_URL/2" --trusted-keys ci1.pub >/dev/null
[ "$(cache_stat a2 errors)" -ge 1 ] || fail "no error without the password"
grep -q "NOAUTH\|Authentication required" a2.log || fail "no authentication error shown: $(cat a2.log)"
redis-cli -u "$SKB_REDIS_URL" -a hunter2 --no-auth-warning config set requirepass "" >/dev/null

step "store credentials never go into the build: HTTP basic auth from a netrc file"
python3 -c 'import base64, hashlib; print("ci:{SHA}" + base64.b64encode(hashlib.sha1(b"hunter3").digest()).decode())' \
  >htpasswd  # nginx's {SHA} scheme: no tool beyond python3
start_nginx_dav "$PWD/nginx-auth" "$PWD/htpasswd"
printf 'machine 127.0.0.1 login ci password hunter3\n' >netrc
chmod 600 netrc
expect_eq "$(SKB_NETRC=$PWD/netrc build n1 "$SKB_DAV_URL" --sign-key ci1.key --trusted-keys ci1.pub)" "$planned" \
  "cold compiles with netrc credentials"
expect_eq "$(cache_stat n1 uploads)" "$planned" "uploads with netrc credentials"
expect_eq "$(cache_stat n1 errors)" 0 "store errors with netrc credentials"
expect_eq "$(ls nginx-auth/dav/kernels | wc -l)" "$planned" "entries on the authenticating server"
expect_eq "$(SKB_NETRC=$PWD/netrc build n2 "$SKB_DAV_URL" --trusted-keys ci1.pub)" 0 "warm compiles with netrc credentials"
expect_eq "$(HOME=$PWD/nohome build n3 "$SKB_DAV_URL" --trusted-keys ci1.pub)" "$planned" "compiles without credentials"
[ "$(cache_stat n3 errors)" -ge 1 ] || fail "no store error without credentials"
grep -q "HTTP 401" n3.log || fail "no authentication error shown: $(cat n3.log)"
! grep -rqF hunter3 n1 n2 n3 n1.log n2.log n3.log || fail "the HTTP password is in a build or its log"

step "packages: signed, checked where they install, refused under a policy"
# (Kernels from CI's store: what is tested here is the package, not the compiles.)
warm=(--cache "file://$PWD/store.clean?mode=ro" --trusted-keys "$PWD/ci1.pub")
signed=$(SKB_SIGNING_KEY=$PWD/ci1.key build_package "$dump" spkg "${warm[@]}")
info=$(sh "$signed" --info)
echo "$info" | grep -q "^signature:   signed by ci-1 (not checked: no trust policy applies here)" || fail "--info: $info"
sh "$signed" --install-path "$PWD/lib-quiet" 2>loud.err || fail "install without a policy"
grep -q "warning: .* is signed by ci-1 (not checked: no trust policy applies here)" loud.err || fail "$(cat loud.err)"
sh "$signed" --install-path "$PWD/lib-quiet" --force -q 2>quiet.err || fail "install -q without a policy"
[ ! -s quiet.err ] || fail "-q (errors only) printed: $(cat quiet.err)"
sh "$signed" --check --trusted-keys "$PWD/ci1.pub" | grep -q "signed by ci-1, trusted by $PWD/ci1.pub" || fail "--check trusted"
rc=0; sh "$signed" --install-path "$PWD/lib-dev" --trusted-keys "$PWD/dev.pub" 2>dev.err || rc=$?
expect_eq "$rc" 4 "exit status of a package signed by an untrusted key"
grep -q "is signed by ci-1, a key that $PWD/dev.pub does not trust; nothing was written" dev.err || fail "$(cat dev.err)"
[ ! -e lib-dev/opp/static_kernel/ai_core ] || fail "an untrusted package wrote into the library"
sh "$signed" --install-path "$PWD/lib-ci" --trusted-keys ci1.pub -q
expect_eq "$(check_library lib-ci)" "$planned" "kernels of a trusted package"
unsigned=$(build_package "$dump" upkg "${warm[@]}")
mkdir -p lib-policy/opp/static_kernel
cp ci1.pub lib-policy/opp/static_kernel/trusted-keys  # an administrator's policy
rc=0; sh "$unsigned" --install-path "$PWD/lib-policy" 2>unsigned.err || rc=$?
expect_eq "$rc" 4 "exit status of an unsigned package under the library's policy"
grep -q "is unsigned, and $PWD/lib-policy/opp/static_kernel/trusted-keys requires a signature" unsigned.err ||
  fail "$(cat unsigned.err)"
# A user's keys narrow the administrator's policy, never widen it.
by_dev=$(SKB_SIGNING_KEY=$PWD/dev.key build_package "$dump" dpkg "${warm[@]}")
for how in option env; do
  rc=0
  if [ "$how" = option ]; then
    sh "$by_dev" --install-path "$PWD/lib-policy" --trusted-keys "$PWD/dev.pub" 2>widen.err || rc=$?
  else
    SKB_TRUSTED_KEYS=$PWD/dev.pub sh "$by_dev" --install-path "$PWD/lib-policy" 2>widen.err || rc=$?
  fi
  expect_eq "$rc" 4 "a package the user's keys ($how) trust and the library's policy does not"
  grep -q "signed by dev-x, a key that $PWD/dev.pub (within the library's $PWD/lib-policy/opp/static_kernel/trusted-keys) does not trust" \
    widen.err || fail "$how: $(cat widen.err)"
done
[ ! -e lib-policy/opp/static_kernel/ai_core ] || fail "a package the library's policy refuses wrote into it"
# A trust file others may change is refused, whoever reads it.
mkdir -p lib-loose/opp/static_kernel && cp ci1.pub lib-loose/opp/static_kernel/trusted-keys
chmod 666 lib-loose/opp/static_kernel/trusted-keys
rc=0; sh "$signed" --install-path "$PWD/lib-loose" -q 2>loose.err || rc=$?
expect_eq "$rc" 1 "an install under a policy file others may write"
grep -q "trusted-keys: permissions 0666 let others change which keys are trusted" loose.err || fail "$(cat loose.err)"
[ ! -e lib-loose/opp/static_kernel/ai_core ] || fail "an install under a policy file others may write wrote"
chmod 644 lib-loose/opp/static_kernel/trusted-keys && chmod 777 lib-loose/opp/static_kernel
rc=0; skb verify --trusted-keys lib-loose/opp/static_kernel/trusted-keys "$signed" >/dev/null 2>loose.err || rc=$?
[ "$rc" -ne 0 ] || fail "skb verify took a trust file in a folder anyone may write to"
grep -q "anyone may replace the trust file" loose.err || fail "$(cat loose.err)"
mkdir -p lib-both/opp/static_kernel && cp ci1.pub lib-both/opp/static_kernel/trusted-keys
sh "$signed" --install-path "$PWD/lib-both" --trusted-keys "$PWD/ci1.pub" -q || fail "a package both trust"
rc=0; SKB_TRUSTED_KEYS=$PWD/ci1.pub sh "$unsigned" --check >/dev/null 2>&1 || rc=$?
expect_eq "$rc" 4 "exit status of --check of an unsigned package under SKB_TRUSTED_KEYS"
sh "$unsigned" --install-path "$PWD/lib-none" 2>none.err
grep -q "warning: .* is unsigned (no trust policy applies here)" none.err || fail "no warning: $(cat none.err)"

step "a .run repacked by an attacker, every checksum recomputed"
python3 "$SKB_SOURCE/tests/tools/repack_run.py" "$signed" repacked.run evil.so
python3 "$SKB_SOURCE/tests/tools/repack_run.py" "$signed" stripped.run evil.so --drop-signature
rc=0; sh repacked.run --install-path "$PWD/lib-policy" 2>repacked.err || rc=$?
expect_eq "$rc" 4 "exit status of a repacked package under a policy"
grep -q "signed by ci-1, but the signature does not match the package" repacked.err || fail "$(cat repacked.err)"
rc=0; sh stripped.run --install-path "$PWD/lib-policy" 2>stripped.err || rc=$?
expect_eq "$rc" 4 "exit status of a repacked package without its signature under a policy"
[ ! -e lib-policy/opp/static_kernel/ai_core ] || fail "a refused package wrote into the library"
sh stripped.run --install-path "$PWD/lib-open" 2>open.err
grep -q "is unsigned (no trust policy applies here)" open.err || fail "no warning for the repacked package: $(cat open.err)"
[ ! -e MARKER ] || fail "a forged kernel ran code"

step "op_compiler signs through SKB_SIGNING_KEY (torchair's argv is fixed)"
oc=$SKB_BIN/../libexec/skb/compat/op_compiler
SKB_SIGNING_KEY=$PWD/ci1.key SKB_CACHE="file://$PWD/store.clean?mode=ro" SKB_TRUSTED_KEYS=$PWD/ci1.pub \
  "$oc" -p "$dump" -v host -j 2 -o ocout >oc.txt 2>&1 || fail "op_compiler: $(cat oc.txt)"
sh ocout/static_kernel_*.run --check --trusted-keys ci1.pub >/dev/null || fail "op_compiler's package is not trusted"

step "no secret is written into a build folder, a log or a package"
for d in c1 f1 pkg spkg ocout rd1 h1; do
  ! grep -rqF "$secret" "$d" || fail "the private key is in $d"
done
! grep -qF "$secret" -- *.log *.err oc.txt || fail "the private key is in a log"
! grep -rqF "hunter2" a1 a1.log || fail "the redis password is in the build"
echo "PASS"
