# A lock held by a stopped process (an installer suspended with ^Z, or SIGSTOPped): the next
# installer waits, says who holds the lock, gives up after the timeout with a clear error and
# changes nothing; once the holder is gone, the next run succeeds.
source "$(dirname "$0")/lib.sh"
ci_store

make_two_packages
lib=$PWD/lib
sh "$A" --install-path="$lib" -q
root=$(lib_root "$lib")
before=$(check_library "$lib")
index_before=$(sha256sum "$root/config/host/binary_info_config.json")

step "a stopped process holds the lock"
python3 -c '
import fcntl, os, signal, sys
f = open(sys.argv[1], "a")
fcntl.flock(f, fcntl.LOCK_EX)
open(sys.argv[2], "w").close()
os.kill(os.getpid(), signal.SIGSTOP)
' "$(dirname "$root")/.ai_core.lock" locked &
holder=$!
trap 'kill -9 "$holder" 2>/dev/null || true' EXIT  # a stopped holder left behind would keep ctest waiting
for _ in $(seq 100); do [ -e locked ] && break; sleep 0.05; done
[ "$(ps -o stat= -p "$holder" | cut -c1)" = T ] || fail "the holder is not stopped"

t0=$(date +%s%N)
rc=0; SKB_LOCK_TIMEOUT=2 sh "$B" --install-path="$lib" 2>err || rc=$?
waited=$(( ($(date +%s%N) - t0) / 1000000 ))
[ "$rc" != 0 ] || fail "the install went ahead under a held lock"
cat err | sed 's/^/    /'
grep -q "waiting for .*\.ai_core\.lock (held by process $holder (python3, stopped))" err || fail "no message while waiting"
grep -q "still locked by process $holder (python3, stopped) after 2 s; nothing was changed" err || fail "unclear timeout error"
[ "$waited" -ge 2000 ] || fail "gave up after ${waited} ms, before the 2 s timeout"
expect_eq "$(sha256sum "$root/config/host/binary_info_config.json")" "$index_before" "the index"
expect_eq "$(check_library "$lib")" "$before" "kernels listed"
[ ! -d "$root/$pb" ] || fail "the package folder was written"
[ -z "$(ls -d "$root"/.staging.* 2>/dev/null)" ] || fail "staging left"

step "the installer runs with huge-page malloc"
# (glibc shortens the string in /proc/PID/environ as it parses it, so a GLIBC_TUNABLES of the
# user's, which the stub passes after this one, would not show there.)
# The stub execs the installer in its own process, which names itself skb-install first thing; it
# then waits for the held lock (a minute at most) while its environment is read, and is ended.
SKB_LOCK_TIMEOUT=60 sh "$B" --install-path="$lib" -q 2>/dev/null &
waiter=$!
started=
for _ in $(seq 1200); do
  if [ "$(cat "/proc/$waiter/comm" 2>/dev/null)" = skb-install ]; then started=1; break; fi
  kill -0 "$waiter" 2>/dev/null || break
  sleep 0.05
done
[ -n "$started" ] || fail "the installer did not start within 60 s, or ended first"
tunables=$(tr '\0' '\n' <"/proc/$waiter/environ" | grep '^GLIBC_TUNABLES=' || true)
kill "$waiter"
wait "$waiter" 2>/dev/null || true
expect_eq "$tunables" "GLIBC_TUNABLES=glibc.malloc.hugetlb=1" "the installer's GLIBC_TUNABLES"
expect_eq "$(check_library "$lib")" "$before" "kernels listed after the ended waiter"

step "uninstall waits the same way"
rc=0; SKB_LOCK_TIMEOUT=1 sh "$A" --install-path="$lib" --uninstall -q 2>err || rc=$?
[ "$rc" != 0 ] || fail "the uninstall went ahead under a held lock"
expect_eq "$(check_library "$lib")" "$before" "kernels listed after the refused uninstall"

step "a timeout that is not a number of seconds is refused before the lock"
for bad in "env:nan" "env:-5" "opt:nan" "opt:-5"; do
  rc=0
  case $bad in
    env:*) SKB_LOCK_TIMEOUT=${bad#env:} sh "$A" --install-path="$lib" --uninstall -q 2>err || rc=$? ;;
    opt:*) sh "$A" --install-path="$lib" --uninstall -q --lock-timeout="${bad#opt:}" 2>err || rc=$? ;;
  esac
  expect_eq "$rc" 2 "exit status with $bad"
  grep -qe "${bad#*:}: expected a number of seconds from 0 to 1000000000" err || fail "$bad: $(cat err)"
done
SKB_LOCK_TIMEOUT=nan sh "$A" --help >/dev/null || fail "--help refused for a bad SKB_LOCK_TIMEOUT"
expect_eq "$(check_library "$lib")" "$before" "kernels listed after the refused runs"

step "the holder is killed: the next run succeeds"
kill -9 "$holder"; wait "$holder" 2>/dev/null || true
SKB_LOCK_TIMEOUT=5 sh "$B" --install-path="$lib" -q || fail "install after the holder died"
expect_eq "$(check_library "$lib")" "$nb" "kernels listed after the install"
[ -f "$(dirname "$root")/.ai_core.lock" ] || fail "the lock file was deleted"
echo "    refused after ${waited} ms with a 2 s timeout; installed once the holder was gone"
echo PASS
