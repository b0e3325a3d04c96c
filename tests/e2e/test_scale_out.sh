# Scale-out through the real engines on loopback: every compile through a distccd (no local
# fallback) gives the kernels a local build gives, with the same names and bytes; ccache with
# Redis remote storage lets a second "machine" (fresh build folder, fresh local cache) fetch
# nearly every object instead of compiling it. The launcher never enters a kernel's name.
source "$(dirname "$0")/lib.sh"
for tool in distcc distccd ccache redis-server redis-cli; do
  command -v "$tool" >/dev/null || fail "$tool is not installed (scripts/test.sh installs distcc, ccache and redis-server)"
done
source "$SKB_SOURCE/tests/tools/scale_out.sh"
make_dump dump --ranks 2 --seqs 6 --hidden 16 --heads 2

# name → sha256 of every kernel binary of a build.
kernels() { (cd "$1/kernel_meta" && sha256sum -- *.so | sort -k2); }

step "local build"
skb-generate -p dump -o local --no-package -q
planned=$(json_get local/summary.json 'j["planned_total"]')
expect_eq "$(ninja_compiles local)" "$planned" "local compiles"

step "distcc: every compile runs on the distccd at 127.0.0.1, and the kernels are the local ones"
start_distccd "$PWD/distcc"
skb-generate -p dump -o dist --no-package -q --launcher distcc
grep -q 'distcc' dist/build.ninja || fail "the launcher is not in the compile rule"
# A distccd that cannot compile makes distcc retry forever (no local fallback): bound the wait.
timeout 300 ninja -C dist -j 4 >/dev/null || fail "distcc build failed or hung: $(tail -5 distcc/distccd.log)"
expect_eq "$(distcc_compiles "$PWD/distcc")" "$planned" "compiles done by distccd"
expect_eq "$(kernels dist)" "$(kernels local)" "kernel names and bytes, distcc against local"
expect_eq "$(ninja -C dist | tail -1)" "ninja: no work to do." "second ninja through distcc"

step "ccache + Redis: a second machine's build is served from the remote cache"
start_redis "$PWD/redis"
build_cached() {  # out ccache-dir
  CCACHE_DIR="$PWD/$2" CCACHE_REMOTE_STORAGE="$SKB_REDIS_URL" skb-generate -p dump -o "$1" --no-package -q \
    --launcher ccache
  CCACHE_DIR="$PWD/$2" CCACHE_REMOTE_STORAGE="$SKB_REDIS_URL" ninja -C "$1" >/dev/null || fail "ccache build $1 failed"
}
stat_of() { CCACHE_DIR="$PWD/$1" ccache --print-stats | awk -v k="$2" '$1 == k {print $2}'; }
build_cached machine1 cache1
expect_eq "$(stat_of cache1 remote_storage_miss)" "$planned" "first machine: remote misses"
build_cached machine2 cache2
hits=$(stat_of cache2 remote_storage_hit)
misses=$(stat_of cache2 cache_miss)
echo "second machine: $hits remote hits, $misses compiles, of $planned kernels"
python3 -c "import sys; sys.exit(0 if $hits >= 0.95 * $planned else 1)" || fail "remote hits $hits < 95% of $planned"
expect_eq "$(kernels machine2)" "$(kernels local)" "kernel names and bytes, cached against local"
echo "ok: $planned kernels; distccd compiled $planned; second machine $hits/$planned remote hits"
