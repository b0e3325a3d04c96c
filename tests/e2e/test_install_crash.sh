# kill -9 at random moments of installs and uninstalls: the library is always consistent (every
# file the index lists is there and matches its sha256), and the next run finishes the job.
source "$(dirname "$0")/lib.sh"
ci_store
export SKB_LOCK_TIMEOUT=60

make_two_packages
lib=$PWD/lib
sh "$A" --install-path="$lib" -q
t0=$(date +%s%N); sh "$B" --install-path="$lib" -q; t1=$(date +%s%N)
span=$(( (t1 - t0) / 1000000 ))
sh "$B" --install-path="$lib" --uninstall -q
step "one install takes ${span} ms"

# Starts the .run in its own process group and kill -9s the group: with --early at a random
# moment of its whole run, otherwise at a random moment of the change phase (once its staging
# folder or journal appears). Prints where the kill landed.
kill_during() {  # --early|--change run args...
  python3 - "$(lib_root "$lib")" "$@" <<'PY'
import glob, os, random, signal, subprocess, sys, time
root, mode, cmd = sys.argv[1], sys.argv[2], ["sh"] + sys.argv[3:]
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
marks = lambda: glob.glob(root + "/.staging.*") + glob.glob(root + "/.trash.*") + glob.glob(root + "/config/transaction.json")
if mode == "--early":
    time.sleep(random.uniform(0, 0.6))
else:
    while p.poll() is None and not marks():
        time.sleep(0.0005)
    time.sleep(random.uniform(0, 0.04))
finished = p.poll() is not None
try:
    os.killpg(p.pid, signal.SIGKILL)
except ProcessLookupError:
    pass
p.wait()
print("after" if finished else ("change" if marks() else "other"))
PY
}

trials=${SKB_CRASH_TRIALS:-30}
declare -A landed
for t in $(seq 1 "$trials"); do
  for action in install uninstall; do
    if [ "$action" = install ]; then args="--install-path=$lib -q"; else args="--install-path=$lib --uninstall -q"; fi
    mode=--change; [ $((t % 4)) = 0 ] && mode=--early
    where=$(kill_during "$mode" "$B" $args)
    landed[$action.$where]=$(( ${landed[$action.$where]:-0} + 1 ))
    root=$(lib_root "$lib")
    n=$(check_library "$lib") || fail "trial $t ($action): inconsistent library after kill -9"
    [ "$n" = "$na" ] || [ "$n" = "$nb" ] || fail "trial $t ($action): $n kernels listed, neither before ($na) nor after ($nb)"
    # the next run of any package finishes or undoes the interrupted one
    sh "$A" --install-path="$lib" -q || fail "trial $t: the next run failed"
    [ ! -e "$root/config/transaction.json" ] || fail "trial $t: the journal was left behind"
    [ -z "$(ls -d "$root"/.staging.* "$root"/.trash.* 2>/dev/null)" ] || fail "trial $t: leftovers remain"
    n=$(check_library "$lib") || fail "trial $t: inconsistent after the next run"
    if [ "$action" = install ]; then sh "$B" --install-path="$lib" -q; else sh "$B" --install-path="$lib" --uninstall -q; fi
    expect_eq "$(check_library "$lib")" "$([ "$action" = install ] && echo "$nb" || echo "$na")" "trial $t ($action): kernels after finishing"
  done
done
for k in "${!landed[@]}"; do echo "    $k: ${landed[$k]}"; done | sort
interrupted=$(( ${landed[install.change]:-0} + ${landed[uninstall.change]:-0} ))
[ "$interrupted" -ge $((trials / 2)) ] || fail "only $interrupted kills landed inside a change: the test does not test"
echo "    $((trials * 2)) kills, $interrupted of them in the middle of a change (journal or staging left): all consistent"
echo "    files left in TMPDIR by kills before the installer started: $(find "$TMPDIR" -type f | wc -l)"
echo PASS
