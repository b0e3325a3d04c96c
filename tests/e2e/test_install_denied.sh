# An install path the installer may not write: a folder owned by someone else (run as the
# unprivileged user nobody) and a read-only mount. Each install and uninstall fails with a
# clear error naming the path, writes nothing, and loses nothing already installed; once the
# path is writable, the next run succeeds.
# Needs root, to switch to nobody and to mount read-only; exits 77 (skipped) otherwise.
source "$(dirname "$0")/lib.sh"
ci_store
if [ "$(id -u)" != 0 ] || ! command -v setpriv >/dev/null; then
  echo "SKIP: needs root and setpriv (util-linux) to run the installer as another user"; exit 77
fi

make_two_packages
# nobody must be able to read the packages and reach them
shared=$(mktemp -d /tmp/skb_denied.XXXXXX)
trap 'umount "$SKB_SCRATCH/lib_ro" 2>/dev/null || true; rm -rf "$shared"' EXIT
chmod 755 "$shared"
cp "$A" "$B" "$shared/" && chmod 644 "$shared"/*.run
as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env TMPDIR=/tmp "$@"; }

step "install as nobody into a folder owned by root"
mkdir -p "$shared/owned" && chmod 755 "$shared/owned"
rc=0; as_nobody sh "$shared/$pa.run" --install-path="$shared/owned/lib" 2>err || rc=$?
[ "$rc" != 0 ] || fail "nobody installed into a root-owned folder"
sed 's/^/    /' err
grep -q "$shared/owned/lib.*[Pp]ermission denied" err || fail "the error names no path or cause"
[ -z "$(ls -A "$shared/owned")" ] || fail "something was written: $(ls -A "$shared/owned")"

step "install and uninstall as nobody in a library root installed"
sh "$shared/$pa.run" --install-path="$shared/lib" -q
chmod -R go-w "$shared/lib"
root=$(lib_root "$shared/lib")
before=$(check_library "$shared/lib"); index=$(sha256sum < "$root/config/host/binary_info_config.json")
rc=0; as_nobody sh "$shared/$pb.run" --install-path="$shared/lib" 2>err || rc=$?
[ "$rc" != 0 ] || fail "nobody installed into root's library"
sed 's/^/    /' err
grep -q "$(dirname "$root").*[Pp]ermission denied" err || fail "the error names no path or cause"
rc=0; as_nobody sh "$shared/$pa.run" --install-path="$shared/lib" --uninstall 2>err || rc=$?
[ "$rc" != 0 ] || fail "nobody uninstalled from root's library"
sed 's/^/    /' err
expect_eq "$(check_library "$shared/lib")" "$before" "kernels listed"
expect_eq "$(sha256sum < "$root/config/host/binary_info_config.json")" "$index" "the index"

step "a read-only mount of the library"
lib=$PWD/lib
sh "$A" --install-path="$lib" -q
mkdir -p lib_ro
if ! mount --bind "$lib" lib_ro 2>/dev/null || ! mount -o remount,bind,ro lib_ro 2>/dev/null; then
  echo "SKIP: cannot bind-mount read-only here (needs CAP_SYS_ADMIN)"; exit 77
fi
before=$(check_library "$lib")
rc=0; sh "$B" --install-path="$PWD/lib_ro" 2>err || rc=$?
[ "$rc" != 0 ] || fail "installed into a read-only library"
sed 's/^/    /' err
grep -q "lib_ro.*[Rr]ead-only file system" err || fail "the error names no path or cause"
rc=0; sh "$A" --install-path="$PWD/lib_ro" --uninstall 2>err || rc=$?
[ "$rc" != 0 ] || fail "uninstalled from a read-only library"
sed 's/^/    /' err
expect_eq "$(check_library "$lib")" "$before" "kernels listed"
umount lib_ro
sh "$B" --install-path="$PWD/lib_ro" -q || fail "install once writable"
expect_eq "$(check_library "$PWD/lib_ro")" "$nb" "kernels listed once writable"
echo PASS
