# Every file system call of an install, an uninstall and an upgrade fails in turn, once with an
# error (EIO; ENOSPC for writes) and once with SIGKILL (strace's fault injection, on a spread
# sample of each call's invocations: SKB_FAULT_SAMPLES of them, default 3). After each, a reader
# sees a whole library, a run that did not do all its work exited non-zero with an error, and the
# same command run again ends in exactly the library a run without a fault makes, byte for byte,
# with no temporary file left (tests/tools/fault_inject.py).
source "$(dirname "$0")/lib.sh"
ci_store
export SKB_LOCK_TIMEOUT=60
# A sanitized build's runtime makes system calls of its own, and a fault injected there is the
# sanitizer's, not skb's (UBSan probes memory with write() and CHECK-fails on any errno but EFAULT;
# LeakSanitizer cannot run under ptrace): the plain build's pass runs this suite.
[ -z "${SKB_SANITIZE:-}" ] ||
  { echo "skipped: fault injection under strace breaks the sanitizers' own system calls (build: $SKB_SANITIZE)"; exit 77; }
command -v strace >/dev/null || fail "strace is missing (scripts/deps.sh installs it with the test packages)"
strace -f -qq -o /dev/null -e trace=getpid -e inject=getpid:error=EIO:when=1 true 2>/dev/null ||
  { echo "skipped: strace cannot trace here (ptrace is not allowed in this container)"; exit 77; }

make_two_packages
# A2: A's name, other contents (an upgrade); D: a delta of B's kernels on A.
make_dump dump_a2 --ranks 1 --seqs 8,16 --hidden 16 --heads 2
mkdir -p out_a2
A2=$(build_package dump_a2 "out_a2/$(basename "$A")")
[ "$(basename "$A2")" = "$(basename "$A")" ] || fail "A2 is not named as A: $A2"
D=$(SOURCE_DATE_EPOCH=1700000200 build_package dump_b out_d --base "$A")

# The installer's command line for a .run, as its stub runs it: the header's offsets, then the
# user's options ({lib} stands for the install path).
installer_cmd() {  # run user-options...
  local run=$1; shift
  python3 - "$SKB_BIN/../libexec/skb/skb-install" "$run" "$@" <<'PY'
import json, re, sys
prog, run, user = sys.argv[1], sys.argv[2], sys.argv[3:]
head = open(run, "rb").read(16384).decode("latin-1")
v = dict(re.findall(r"^skb_(\w+)=(\S*)$", head, re.M))
print(json.dumps([prog, "--run-file=" + run, "--header-len=" + v["header_len"], "--package-name=" + v["package"],
                  "--installer-offset=" + v["installer_offset"], "--installer-size=" + v["installer_size"],
                  "--installer-sha256=" + v["installer_sha256"], "--payload-offset=" + v["payload_offset"], "--payload-size=" + v["payload_size"],
                  "--payload-sha256=" + v["payload_sha256"], "--signature-size=" + v["signature_size"], "--"] + user))
PY
}

# A state: the install path after the given packages were installed.
make_state() {  # name runs...
  local dir=$PWD/state_$1; shift
  mkdir -p "$dir"
  for run in "$@"; do sh "$run" --install-path="$dir" -q; done
  echo "$dir"
}
empty=$(make_state empty)
with_a=$(make_state a "$A")
with_b=$(make_state b "$B")
with_ab=$(make_state ab "$B" "$A")

samples=${SKB_FAULT_SAMPLES:-3}
failed=0
scenario() {  # name state cmd-json
  printf '{"name": "%s", "state": "%s", "root": "opp/static_kernel/ai_core", "samples": %s, "cmd": %s}\n' \
    "$1" "$2" "$samples" "$3" > "scenario_$1.json"
  python3 "$SKB_SOURCE/tests/tools/fault_inject.py" "scenario_$1.json" || failed=1
}
step "faults in an install into a new library"
scenario install_new "$empty" "$(installer_cmd "$A" --install-path={lib} -q)"
step "faults in an install beside a package that shares its kernels"
scenario install_beside "$with_b" "$(installer_cmd "$A" --install-path={lib} -q)"
step "faults in the install of a delta package"
scenario install_delta "$with_a" "$(installer_cmd "$D" --install-path={lib} -q)"
step "faults in an uninstall beside another package"
scenario uninstall "$with_ab" "$(installer_cmd "$A" --install-path={lib} --uninstall -q)"
step "faults in an upgrade beside another package"
scenario upgrade "$with_ab" "$(installer_cmd "$A2" --install-path={lib} --upgrade -q)"
[ "$failed" = 0 ] || fail "some faults broke the library or went unreported (listed above)"

step "a read that fails is named as a read error, never as damage or absence, and changes nothing"
snapshot() { (cd "$1" && find . -type f -print0 | sort -z | xargs -0 sha256sum); }
# run_eio LOG PATH... -- CMD...: CMD with every open of the PATHs failing with EIO; $rc its status.
run_eio() {
  local log=$1 paths=(); shift
  while [ "$1" != -- ]; do paths+=(-P "$1"); shift; done
  shift
  rc=0; strace -f -qq -o /dev/null "${paths[@]}" -e trace=openat -e inject=openat:error=EIO "$@" >"$log" 2>&1 || rc=$?
}
lib=$(make_state reads "$B" "$A"); root=$lib/opp/static_kernel/ai_core
rm "$root/index_cache.txt"  # a change then merges every package's index pieces
before=$(snapshot "$lib")
run_eio upgrade.log "$root/$pb/index_pieces.gz" -- sh "$A2" --install-path="$lib" --upgrade -q
expect_eq "$rc" 1 "an upgrade beside a package whose index pieces cannot be read"
grep -q "an installed package cannot be read: $root/$pb/index_pieces.gz: cannot open: Input/output error" upgrade.log ||
  fail "the upgrade's message: $(cat upgrade.log)"
! grep -q "uninstall it" upgrade.log || fail "a package that cannot be read was called damaged: $(cat upgrade.log)"
run_eio uninstall.log "$root/$pb/index_pieces.gz" -- sh "$A" --install-path="$lib" --uninstall -q
expect_eq "$rc" 1 "an uninstall beside a package whose index pieces cannot be read"
expect_eq "$(snapshot "$lib")" "$before" "the library after the two failed changes"
lib=$(make_state reads_delta "$A"); root=$lib/opp/static_kernel/ai_core
mapfile -t base_bins < <(find "$root/$pa" -name '*.so')
run_eio delta.log "${base_bins[@]}" -- sh "$D" --install-path="$lib" -q
expect_eq "$rc" 1 "a delta whose base's files cannot be read (5 is for files missing or damaged)"
grep -q "cannot open for reading: Input/output error" delta.log || fail "the delta's message: $(cat delta.log)"
run_eio coverage.log "$root/config" -- skb coverage --install-path "$lib" dump_a
expect_eq "$rc" 1 "skb coverage of a library whose config/ cannot be listed"
grep -q "$root/config: cannot list: Input/output error" coverage.log || fail "coverage's message: $(cat coverage.log)"

step "an uninstall of a library copied without its lock file, or through a symlink"
lib=$(make_state no_lock "$A"); root=$lib/opp/static_kernel/ai_core
rm "$lib/opp/static_kernel/.ai_core.lock"
sh "$A" --install-path="$lib" --uninstall -q || fail "uninstall without the lock file"
[ ! -e "$root" ] || fail "uninstall without the lock file left the package: $(ls "$root")"
mkdir -p not_skb/opp/static_kernel/ai_core/theirs && printf 'load_priority=\n' >not_skb/opp/static_kernel/ai_core/config.ini
sh "$A" --install-path="$PWD/not_skb" --uninstall -q || fail "uninstall from a folder skb did not make"
[ -d not_skb/opp/static_kernel/ai_core/theirs ] || fail "an uninstall removed a folder skb did not make"
lib=$(make_state linked_target "$A"); mkdir -p linked/opp/static_kernel
ln -s "$lib/opp/static_kernel/ai_core" linked/opp/static_kernel/ai_core
rc=0; sh "$A" --install-path="$PWD/linked" --uninstall -q 2>linked.err || rc=$?
expect_eq "$rc" 1 "an uninstall through a symlinked ai_core/"
grep -q "not a folder (a symlink?): refused" linked.err || fail "the symlink's message: $(cat linked.err)"
[ -d "$lib/opp/static_kernel/ai_core/$pa" ] || fail "an uninstall through a symlink removed the package"
echo PASS
