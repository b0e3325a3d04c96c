# The shared kernel store (--cache) with the real servers on loopback: a folder shared by build
# folders, redis-server and nginx's WebDAV. A warm store compiles nothing and gives byte-identical
# kernels; builders fill it at once; damaged, truncated and foreign entries are compiled locally;
# a server killed mid-build, or full, costs warnings, never the build; a read-only consumer
# never writes.
source "$(dirname "$0")/lib.sh"
for tool in redis-server redis-cli nginx; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/test.sh installs redis-server and nginx-light)"
done
source "$SKB_SOURCE/tests/tools/scale_out.sh"
make_dump dump --ranks 2 --seqs 6 --hidden 16 --heads 2

# A compiler launcher that counts the compiles it runs (in $COMPILE_LOG), slowed by $SLOW seconds.
cat >count_cc <<'EOF'
#!/bin/sh
echo x >>"$COMPILE_LOG"
[ -z "${SLOW:-}" ] || sleep "$SLOW"
exec ${SKB_LAUNCHER:-} "$@"
EOF
chmod +x count_cc

# build OUT URL [skb-generate args]: a fresh build folder on a store; prints how many kernels the
# compiler ran for. ninja's output is in OUT.log; $JOBS, when set, is its parallelism.
build() {
  local out=$1 url=$2
  shift 2
  skb-generate -p dump -o "$out" --no-package -q --cache "$url" --launcher "$PWD/count_cc" "$@"
  COMPILE_LOG=$PWD/$out.compiles ninja -C "$out" ${JOBS:+-j "$JOBS"} >"$out.log" 2>&1 || { cat "$out.log" >&2; fail "build $out failed"; }
  if [ -f "$out.compiles" ]; then wc -l <"$out.compiles"; else echo 0; fi
}
cache_stat() { json_get "$1/summary.json" "j['cache']['$2']"; }
kernels() { (cd "$1/kernel_meta" && sha256sum -- *.so *.json | sort -k2 && stat -c '%a %n' -- *.so | sort -k2); }
# The file store's path of a kernel's entry.
entry_of() { echo "$1/$(printf %s "skb1_$2" | sha256sum | cut -c1)/skb1_$2.entry"; }

step "file store: a cold build compiles and stores every kernel"
cold=$(build f1 "file://$PWD/store")
planned=$(json_get f1/summary.json 'j["planned_total"]')
[ "$planned" -ge 15 ] || fail "expected at least 15 kernels, got $planned"
expect_eq "$cold" "$planned" "cold compiles"
expect_eq "$(cache_stat f1 uploads)" "$planned" "cold uploads"
expect_eq "$(cache_stat f1 misses)" "$planned" "cold misses"
expect_eq "$(verify_kernels f1/kernel_meta)" "$planned" "cold kernels complete"

step "a regeneration keeps the store; --no-cache wins over SKB_CACHE; a bad URL fails the generation"
first=$(find dump -path '*_opcompile/*.json' | sort | head -1)
cp "$first" "${first%.json}_again.json"  # the same record once more: a new file, no new kernel
ninja -C f1 >regen.log 2>&1 || { cat regen.log >&2; fail "ninja after a new dump file"; }
grep -q "Regenerating build.ninja" regen.log || fail "no regeneration: $(cat regen.log)"
expect_eq "$(json_get f1/cache/config.json 'j["url"]')" "file://$PWD/store" "the store after a regeneration"
SKB_CACHE="file://$PWD/store" skb-generate -p dump -o nocache -q --no-package --no-cache
[ ! -e nocache/cache/config.json ] || fail "--no-cache wrote a store configuration"
if skb-generate -p dump -o bad -q --no-package --cache ftp://host/x 2>bad.err; then fail "an ftp:// store was taken"; fi
grep -q -- "--cache ftp://host/x: expected file:///folder, redis://" bad.err || fail "bad URL message: $(cat bad.err)"
# A generation that fails leaves the build's store settings as they were.
config_before=$(sha256sum <f1/cache/config.json)
if skb-generate -p dump -o f1 -q --no-package --cache "file://$PWD/other_store" --depfile "$PWD/no/such/x.d" \
  2>fail.err; then fail "a depfile in no folder was written"; fi
expect_eq "$(sha256sum <f1/cache/config.json)" "$config_before" "the store settings after a failed generation"

step "file store: a second build folder compiles nothing, and its kernels are byte-identical"
expect_eq "$(build f2 "file://$PWD/store")" 0 "warm compiles"
expect_eq "$(cache_stat f2 hits)" "$planned" "warm hits"
expect_eq "$(cache_stat f2 misses)" 0 "warm misses"
expect_eq "$(cache_stat f2 uploads)" 0 "warm uploads"
[ "$(cache_stat f2 bytes_down)" -gt 0 ] || fail "warm build counted no bytes down"
expect_eq "$(kernels f2)" "$(kernels f1)" "kernels and records, warm against cold"
tail -1 f2.log | grep -q "kernel store: $planned hits, 0 misses, 0 uploads, 0 corrupt, 0 untrusted, 0 errors" ||
  fail "the build's last line: $(tail -1 f2.log)"
expect_eq "$(ninja -C f2 | tail -1)" "ninja: no work to do." "second ninja on a warm build"

step "file store: a kernel removed from a packaged build is taken from the store; each build counts its own"
skb-generate -p dump -o p1 -q --cache "file://$PWD/store" --launcher "$PWD/count_cc"
COMPILE_LOG=$PWD/p1.compiles ninja -C p1 >p1.log 2>&1 || { cat p1.log >&2; fail "packaged build on a warm store"; }
for i in 1 2; do  # twice in a row: a second in the same second makes the same package, which restat skips
  k=$(cd p1/kernel_meta && ls -- *.so | sed -n "${i}p")
  rm "p1/kernel_meta/$k" "p1/kernel_meta/${k%.so}.json"
  COMPILE_LOG=$PWD/p1.compiles ninja -C p1 >"p1.$i.log" 2>&1 || { cat "p1.$i.log" >&2; fail "rebuild $i"; }
  tail -1 "p1.$i.log" | grep -q "kernel store: 1 hits, 0 misses, 0 uploads" ||
    fail "rebuild $i's last line: $(tail -1 "p1.$i.log")"
  [ ! -e p1/cache/log ] || fail "rebuild $i left its counts to the next build: $(cat p1/cache/log)"
done
[ ! -e p1.compiles ] || fail "a packaged build on a warm store compiled $(wc -l <p1.compiles) kernels"

step "redis: two builders fill an empty store at once"
start_redis "$PWD/redis"
build r1 "$SKB_REDIS_URL/1" >r1.count &
b1=$!
build r2 "$SKB_REDIS_URL/1" >r2.count &
b2=$!
wait $b1 || fail "builder 1 failed"
wait $b2 || fail "builder 2 failed"
expect_eq "$(kernels r1)" "$(kernels f1)" "builder 1's kernels"
expect_eq "$(kernels r2)" "$(kernels f1)" "builder 2's kernels"
expect_eq "$(redis-cli -u "$SKB_REDIS_URL/1" dbsize)" "$planned" "entries in redis"
expect_eq "$(build r3 "$SKB_REDIS_URL/1")" 0 "compiles of a third build on the filled store"
expect_eq "$(cache_stat r3 hits)" "$planned" "third build's hits"
expect_eq "$(kernels r3)" "$(kernels f1)" "third build's kernels"

step "redis: a damaged entry is reported, compiled locally and replaced"
k=$(cd f1/kernel_meta && ls -- *.so | head -1)
k=${k%.so}
redis-cli -u "$SKB_REDIS_URL/1" setrange "skb1_$k" 60 XXXXXXXXXXXXXXXX >/dev/null
expect_eq "$(build r4 "$SKB_REDIS_URL/1")" 1 "compiles with one damaged entry"
expect_eq "$(cache_stat r4 corrupt)" 1 "corrupt entries"
expect_eq "$(cache_stat r4 hits)" "$((planned - 1))" "hits beside the damaged entry"
grep -q "the entry of $k is not used" r4.log || fail "the damaged entry was not reported: $(cat r4.log)"
expect_eq "$(kernels r4)" "$(kernels f1)" "kernels beside a damaged entry"
expect_eq "$(build r5 "$SKB_REDIS_URL/1")" 0 "compiles after the entry was replaced"

step "nginx WebDAV: cold, then warm"
start_nginx_dav "$PWD/nginx"
expect_eq "$(build h1 "$SKB_DAV_URL")" "$planned" "cold compiles over HTTP"
expect_eq "$(ls nginx/dav/kernels | wc -l)" "$planned" "entries on the server"
expect_eq "$(build h2 "$SKB_DAV_URL")" 0 "warm compiles over HTTP"
expect_eq "$(kernels h2)" "$(kernels f1)" "kernels over HTTP"

step "nginx WebDAV: a truncated entry is reported and compiled locally"
size=$(stat -c %s "nginx/dav/kernels/skb1_$k")
truncate -s $((size / 2)) "nginx/dav/kernels/skb1_$k"
expect_eq "$(build h3 "$SKB_DAV_URL")" 1 "compiles with one truncated entry"
expect_eq "$(cache_stat h3 corrupt)" 1 "truncated entries"
expect_eq "$(kernels h3)" "$(kernels f1)" "kernels beside a truncated entry"

step "file store: an entry of another toolchain (under this kernel's name) is reported and compiled locally"
python3 - "$SKB_BIN/../share/skb/templates/toolchains/host.json" other.json <<'EOF'
import json, os, sys
p = json.load(open(sys.argv[1]))
p["flags"] = ["-O1" if f == "-O3" else f for f in p["flags"]]
p["template_dir"] = os.path.normpath(os.path.join(os.path.dirname(sys.argv[1]), p["template_dir"]))
json.dump(p, open(sys.argv[2], "w"))
EOF
build o1 "file://$PWD/other-store" --toolchain "$PWD/other.json" >/dev/null
ko=$(cd o1/kernel_meta && grep -l -F -x -f "../../f1/kernel_meta/$k.info" -- *.info | head -1)
[ -n "$ko" ] || fail "no kernel of the other toolchain has $k's signature"
ko=${ko%.info}
[ "$ko" != "$k" ] || fail "another toolchain gave the same kernel name"
cp "$(entry_of other-store "$ko")" "$(entry_of store "$k")"
expect_eq "$(build f3 "file://$PWD/store")" 1 "compiles with another toolchain's entry"
# Signed for its own name, it does not verify under this one: untrusted before it is even read.
expect_eq "$(cache_stat f3 untrusted)" 1 "foreign entries"
grep -q "the entry of $k is not used: its signature by .* does not match its contents" f3.log ||
  fail "the foreign entry was not named: $(cat f3.log)"
expect_eq "$(kernels f3)" "$(kernels f1)" "kernels beside a foreign entry"

step "a hung server: one bounded wait, then the store is left alone"
hung="$SKB_NGINX_PID $(pgrep -P "$SKB_NGINX_PID" | tr '\n' ' ')"
kill -STOP $hung
started=$(date +%s)
expect_eq "$(JOBS=2 build hung "$SKB_DAV_URL?timeout=1")" "$planned" "compiles while the server hangs"
took=$(($(date +%s) - started))
kill -CONT $hung
errors=$(cache_stat hung errors)
# A failed store is left alone for 30 s: one timeout for each step running when it hung (1 or 2),
# and as many again for each 30 s the build took (a loaded machine's build takes longer).
most=$((2 * (1 + took / 30)))
[ "$errors" -ge 1 ] && [ "$errors" -le "$most" ] ||
  fail "expected one timeout per step running when it hung, for each 30 s of a ${took} s build (1 to $most), got $errors"
echo "    $errors timeouts in a ${took} s build"
grep -q "Timeout was reached\|timed out" hung.log || fail "no timeout reported: $(cat hung.log)"
expect_eq "$(kernels hung)" "$(kernels f1)" "kernels while the server hangs"

step "read-only consumers: they take what is there and never write"
expect_eq "$(build ro1 "file://$PWD/store" --cache-read-only)" 0 "read-only compiles on a warm store"
expect_eq "$(cache_stat ro1 hits)" "$planned" "read-only hits"
mkdir empty
expect_eq "$(build ro2 "file://$PWD/empty?mode=ro")" "$planned" "read-only compiles on an empty store"
expect_eq "$(cache_stat ro2 uploads)" 0 "read-only uploads"
expect_eq "$(ls -A empty | wc -l)" 0 "files in the read-only store"

step "redis killed mid-build: warnings and local compiles, never a failed build"
redis-cli -u "$SKB_REDIS_URL/1" flushdb >/dev/null
SLOW=0.3 build k1 "$SKB_REDIS_URL/1" >k1.count &
builder=$!
for _ in $(seq 100); do
  [ "$(cat k1.compiles 2>/dev/null | wc -l)" -ge 4 ] && break
  sleep 0.1
done
kill -9 "$SKB_REDIS_PID"
wait $builder || fail "the build failed when its store died"
expect_eq "$(verify_kernels k1/kernel_meta)" "$planned" "kernels complete after the store died"
expect_eq "$(kernels k1)" "$(kernels f1)" "kernels after the store died"
[ "$(cache_stat k1 errors)" -ge 1 ] || fail "no store error counted"
[ "$(cache_stat k1 uploads)" -lt "$planned" ] || fail "every upload succeeded, though the store died"
expect_eq "$(($(cache_stat k1 hits) + $(cache_stat k1 misses)))" "$planned" "hits + misses"
grep -q "warning: kernel store redis://" k1.log || fail "no warning about the dead store: $(cat k1.log)"

step "a full store: uploads refused, kernels built"
start_redis "$PWD/redis-full"
redis-cli -u "$SKB_REDIS_URL" config set maxmemory 1 >/dev/null
expect_eq "$(build full "$SKB_REDIS_URL")" "$planned" "compiles on a full store"
expect_eq "$(cache_stat full uploads)" 0 "uploads to a full store"
[ "$(cache_stat full errors)" -ge 1 ] || fail "no error counted for a full store"
grep -q "OOM" full.log || fail "the full store's reply is not shown: $(cat full.log)"
expect_eq "$(verify_kernels full/kernel_meta)" "$planned" "kernels complete beside a full store"

step "the whole job: skb-package -p --cache, and SKB_CACHE"
run=$(build_package dump pkg --cache "file://$PWD/store")
[ -f "$run" ] || fail "no package"
expect_eq "$(json_get pkg/.skb/summary.json 'j["cache"]["hits"]')" "$planned" "whole job's hits"
SKB_CACHE="file://$PWD/store" skb-generate -p dump -o env -q --no-package
ninja -C env >/dev/null
expect_eq "$(cache_stat env hits)" "$planned" "hits through SKB_CACHE"
echo "PASS"
