# A disk that fills up during generation, the build, packaging and install (a size-limited
# tmpfs, filled by another process at the worst moment): each step fails with a clear error,
# leaves nothing half-written where it would be taken for finished, loses nothing already
# built or installed, and the next run after space is freed succeeds.
# Needs root to mount the tmpfs; exits 77 (skipped) otherwise.
source "$(dirname "$0")/lib.sh"
small=$PWD/small
mkdir -p "$small"
if [ "$(id -u)" != 0 ] || ! mount -t tmpfs -o size=128m skb_full_disk "$small" 2>/dev/null; then
  echo "SKIP: needs root to mount a size-limited tmpfs"; exit 77
fi
trap 'umount "$small" 2>/dev/null || true' EXIT

# Fills the disk of $1 with $1/filler, to the last block [then frees $2 bytes].
fill() { python3 "$SKB_SOURCE/tests/tools/fill_disk.py" "$1/filler" ${2:+--leave "$2"}; }
free_space() { rm -f "$small/filler" "$small/filler2"; }
# Runs a command; when a file matching the glob appears, stops it, fills the disk and lets it go
# on. Prints its exit code and 1 if the fill landed while the glob still matched, else 0.
fill_when() {  # glob command...
  python3 "$SKB_SOURCE/tests/tools/fill_disk.py" "$small/filler2" --when "$@"
}
ENOSPC="[Nn]o space left on device"

make_dump dump --ranks 1 --seqs 8,12 --hidden 16 --heads 2

step "generation on a full disk"
fill "$small"
rc=0; skb-generate -p dump -o "$small/out" 2>err || rc=$?
expect_eq "$rc" 1 "skb-generate on a full disk"
sed 's/^/    /' err | head -3
grep -q "$ENOSPC" err || fail "the error does not say the disk is full"
[ ! -e "$small/out/build.ninja" ] || fail "a build.ninja was left"
free_space
skb-generate -p dump -o "$small/out" -q || fail "skb-generate after space was freed"
total=$(json_get "$small/out/summary.json" 'j["planned_total"]')

step "the disk fills in the middle of the build"
read -r rc landed < <(fill_when "$small/out/kernel_meta/*.json" ninja -C "$small/out" -j2)
expect_eq "$landed" 1 "the fill landed during the build"
[ "$rc" != 0 ] || fail "ninja succeeded on a full disk"
built=$(verify_kernels "$small/out/kernel_meta") || fail "a kernel record does not match its binary"
echo "    ninja exit $rc with $built/$total kernels recorded, every record matching its binary"
[ "$built" -lt "$total" ] || fail "the disk filled too late to test anything"
free_space
ninja -C "$small/out" >/dev/null || fail "ninja after space was freed"
expect_eq "$(verify_kernels "$small/out/kernel_meta")" "$total" "complete kernels"

step "packaging on a full disk"
mkdir -p "$small/pkgs"
fill "$small"
rc=0; SOURCE_DATE_EPOCH=1700000000 skb-package "$small/out" -o "$small/pkgs" 2>err || rc=$?
expect_eq "$rc" 1 "skb-package on a full disk"
sed 's/^/    /' err | head -3
grep -q "$ENOSPC" err || fail "the error does not say the disk is full"
[ -z "$(ls -A "$small/pkgs")" ] || fail "packaging left files: $(ls -A "$small/pkgs")"
free_space
run=$(SOURCE_DATE_EPOCH=1700000000 skb-package "$small/out" -o "$PWD/pkgs" -q)
sh "$run" --check -q || fail "the package made after space was freed does not verify"

step "install on a full disk"
make_dump dump_a --ranks 1 --seqs 8 --hidden 16 --heads 2
A=$(SOURCE_DATE_EPOCH=1600000000 build_package dump_a out_a)
na=$(json_get out_a/.skb/package.json 'j["kernels"]')
lib=$small/lib
sh "$A" --install-path="$lib" -q
fill "$small"
rc=0; sh "$run" --install-path="$lib" 2>err || rc=$?
[ "$rc" != 0 ] || fail "installed on a full disk"
sed 's/^/    /' err | head -3
grep -q "bytes free, .* needed to install .*nothing was changed" err || fail "no clear up-front error"
expect_eq "$(check_library "$lib")" "$na" "kernels listed after the refused install"
need=$(sed -n 's/.* bytes free, \([0-9]*\) needed.*/\1/p' err)
free_space

step "the disk fills in the middle of an install"
landed_trials=0; attempts=0
while [ "$landed_trials" -lt 3 ]; do
  attempts=$((attempts + 1))
  [ "$attempts" -le 20 ] || fail "in 20 attempts, only $landed_trials fills landed during an install"
  fill "$small" "$((need + 65536))"  # just enough room to pass the installer's up-front check
  read -r rc landed < <(fill_when "$(lib_root "$lib")/.staging.*" sh "$run" --install-path="$lib" -q)
  free_space
  if [ "$landed" != 1 ]; then  # the install got past its staging before it could be stopped
    sh "$run" --uninstall --install-path="$lib" -q || fail "uninstall after an install the fill missed"
    continue
  fi
  landed_trials=$((landed_trials + 1))
  [ "$rc" != 0 ] || fail "trial $landed_trials: the install succeeded on a full disk"
  expect_eq "$(check_library "$lib")" "$na" "trial $landed_trials: kernels listed after the failed install"
  [ -z "$(ls -d "$(lib_root "$lib")"/.staging.* 2>/dev/null)" ] || fail "trial $landed_trials: staging left behind"
done
sh "$run" --install-path="$lib" -q || fail "install after space was freed"
n=$(check_library "$lib") || fail "inconsistent library"
[ "$n" -ge "$na" ] || fail "kernels were lost: $n < $na"
echo "    3 installs interrupted by a full disk ($attempts attempts): library unchanged each time; then installed ($n kernels)"
echo PASS
