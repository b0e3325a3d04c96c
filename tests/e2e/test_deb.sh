# skb as a Debian package: cpack makes skb_<version>_amd64.deb, which declares what it needs; dpkg
# installs it into a scratch root, the main job runs from there (generate, package, install,
# replay), and dpkg removes it, leaving nothing behind.
source "$(dirname "$0")/lib.sh"
SKB_BUILD=$(dirname "$SKB_BIN")
if [ -n "${SKB_SANITIZE:-}" ]; then
  # Its programs need the sanitizer runtimes of the machine that built them: not something to ship.
  echo "SKIP: a sanitized build is not packaged (pass 1 checks the package)"
  exit 77
fi
examples=$SKB_SOURCE/examples/op_stats

step "cpack -G DEB makes skb_<version>_amd64.deb"
version=$(skb-package --version | awk '{print $NF}')
(cd "$SKB_BUILD" && cpack -G DEB -B "$SKB_SCRATCH/pkg") >cpack.log 2>&1 || fail "cpack: $(tail -20 cpack.log)"
deb=pkg/skb_${version}_amd64.deb
[ -f "$deb" ] || fail "no $deb: $(ls pkg)"
expect_eq "$(dpkg-deb -f "$deb" Package) $(dpkg-deb -f "$deb" Version) $(dpkg-deb -f "$deb" Architecture)" \
  "skb $version amd64" "the package's name, version and architecture"

step "it declares its runtime dependencies, and each is a package this machine has"
depends=$(dpkg-deb -f "$deb" Depends)
for needed in libarchive libssl libfmt libcurl libhiredis libc6 libstdc++6 ninja-build "g++ | c++-compiler"; do
  grep -qF "$needed" <<<"$depends" || fail "$needed is not declared: $depends"
done
IFS=, read -ra groups <<<"$depends"
for group in "${groups[@]}"; do  # "a (>= 1) | b": one of the alternatives is installed
  ok=0
  for alt in $(sed 's/([^)]*)//g; s/|/ /g' <<<"$group"); do
    dpkg-query -W -f='${Status}' "$alt" 2>/dev/null | grep -q "ok installed" && ok=1
  done
  [ "$ok" = 1 ] || fail "declared but not installed here: $group"
done

step "dpkg installs it into a scratch root"
root=$PWD/root
mkdir -p "$root/var/lib/dpkg/updates" "$root/var/lib/dpkg/info"
touch "$root/var/lib/dpkg/status"
# Everything below the root but dpkg's own database, files and folders: what a removal must leave.
tree() { find "$root" -mindepth 1 -not -path "$root/var" -not -path "$root/var/*" -printf '%y %P\n' | sort; }
empty_root=$(tree)
dpkg_root() { dpkg --instdir="$root" --admindir="$root/var/lib/dpkg" --force-not-root --force-depends \
  --force-script-chrootless --log=/dev/null "$@"; }
dpkg_root -i "$deb" >dpkg-install.log 2>&1 || fail "dpkg -i: $(tail -10 dpkg-install.log)"
usr=$root/usr
for f in bin/skb-generate bin/skb-package bin/skb bin/skb-replay libexec/skb/skb-install libexec/skb/skb-install.gz libexec/skb/skb-install-all.gz \
         libexec/skb/compat/op_compiler \
         lib/skb/skb_store.so share/skb/templates/toolchains/host.json lib/cmake/skb/skbConfig.cmake \
         include/skb/runtime.h; do
  [ -e "$usr/$f" ] || fail "not in the package: $f"
done
dpkg_root -s skb | grep -q "Status: install ok installed" || fail "dpkg does not list skb as installed"

step "the main job runs from the installed package"
run=$("$usr/bin/skb-package" -p "$examples/aclnn_static_shape_kernel_outputs" -o job -j 2 --dynamic 2>job.log) ||
  fail "skb-package: $(tail -10 job.log)"
sh "$run" --install-path="$PWD/opp-root" -q || fail "the .run made by the installed skb does not install"
"$usr/bin/skb-replay" --install-path "$PWD/opp-root" "$examples/aclnn_static_shape_kernel_outputs" \
  "$examples/unseen" >replay.log 2>&1 || fail "skb-replay: $(tail -10 replay.log)"
grep -q " 0 differed" replay.log || fail "replayed calls differ: $(tail -3 replay.log)"
grep -Eq "[1-9][0-9]* ran a static kernel" replay.log || fail "no call ran a static kernel: $(tail -3 replay.log)"

step "dpkg removes it and leaves nothing behind"
dpkg_root -P skb >dpkg-remove.log 2>&1 || fail "dpkg -P: $(tail -10 dpkg-remove.log)"
left=$(comm -13 <(echo "$empty_root") <(tree))
[ -z "$left" ] || fail "left after removal (f: file, d: folder, l: link): $left"
echo PASS
