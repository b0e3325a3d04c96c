# skb in op_compiler's place, driven exactly as torchair drives it (static_kernel.py): the argv of
# static_compile, the .run executed bare with CANN's environment, the glob for uninstall.sh, the
# index opbase reads checked field by field, the uninstall run bare; then 8 bare .runs at once.
source "$(dirname "$0")/lib.sh"
export SKB_LOCK_TIMEOUT=120
unset SKB_INSTALL_PATH SKB_TOOLCHAIN
# The user's local kernel store, on as it is by default (in the scratch folder).
export SKB_CACHE_DIR=$PWD/kernel-store
compat=$SKB_BIN/../libexec/skb/compat
[ -x "$compat/op_compiler" ] || fail "no op_compiler entry in $compat"
export PATH=$compat:$PATH
cann=$PWD/Ascend/ascend-toolkit
mkdir -p "$cann/8.5.0/opp" && ln -s 8.5.0 "$cann/latest"
export ASCEND_HOME_PATH=$cann/latest ASCEND_OPP_PATH=$cann/latest/opp
ai_core=$ASCEND_OPP_PATH/static_kernel/ai_core

# A result root as torchair lays it out, with the records it selected for compiling.
make_dump dump --ranks 1 --seqs 8,16 --hidden 16 --heads 2
root=$PWD/aclnn_static_shape_kernel_outputs/ts20261123101500123456_pid4242_outputs
mkdir -p "$root/4242_opcompile_selected"
cp dump/*/*_opcompile/*.json "$root/4242_opcompile_selected/"
records=$(ls "$root/4242_opcompile_selected" | wc -l)
listing() { (cd "$root/4242_opcompile_selected" && find . -printf '%p %s %T@\n' | sort | sha256sum); }
before=$(listing)

step "op_compiler -v an NPU without SKB_TOOLCHAIN: refused, never host kernels in an NPU's library"
rc=0; op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 -o "$root" -l error -f true 2>notc.err || rc=$?
expect_eq "$rc" 2 "op_compiler -v Ascend910B3 with no toolchain"
grep -q "^op_compiler: error: -v Ascend910B3: no toolchain for it: SKB_TOOLCHAIN is not set" notc.err ||
  fail "said: $(cat notc.err)"
expect_eq "$(ls "$root" | grep -c '\.run$' || true)" 0 "packages made without a toolchain"
expect_eq "$(op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 --count)" "$records" \
  "--count, which builds nothing, needs no toolchain"
export SKB_TOOLCHAIN=host  # no CANN compiler here: the host profile stands in for it, chosen

step "op_compiler --count, unknown options, and the help that teaches"
expect_eq "$(op_compiler -p "$root/4242_opcompile_selected" --count)" "$records" "--count"
rc=0; op_compiler -p "$root/4242_opcompile_selected" -o "$root" --bogus 2>/dev/null || rc=$?
expect_eq "$rc" 2 "exit status for an unknown option"
# (the whole help first: grep -q stops reading at its match, and under pipefail the writer's
# SIGPIPE would fail the pipeline)
help=$(op_compiler --help)
grep -q -- "--op_params_dir" <<<"$help" || fail "--help does not list --op_params_dir"
grep -q "^Usage: op_compiler \[OPTIONS\]" <<<"$help" || fail "--help's usage line: $(grep Usage <<<"$help")"
[[ "$(op_compiler --version)" == "op_compiler (skb-package "* ]] || fail "--version: $(op_compiler --version)"
mkdir -p linked && ln -s "$compat/op_compiler" linked/op_compiler  # a symlink to it on PATH
[[ "$(linked/op_compiler --version)" == "op_compiler (skb-package "* ]] || fail "through a symlink: $(linked/op_compiler --version 2>&1)"

step "torchair's exact argv: -p -v -j -o, then -l error and -f true; SKB_LAUNCHER prefixes its compiles"
# torchair's argv has no --launcher: the environment is how its compiles reach ccache or distcc.
printf '#!/bin/sh\necho x >>"%s"\nexec "$@"\n' "$PWD/launched" >launch_counter
chmod +x launch_counter
out=$(SKB_LAUNCHER=$PWD/launch_counter op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 -j 2 \
  -o "$root" -l error -f true 2>err) || fail "op_compiler failed: $(cat err)"
[ -s launched ] || fail "SKB_LAUNCHER ran no compile"
[[ $out =~ ^generate\ run\ package\ (static_kernel_[0-9]{14}_[0-9a-f]{8})\.run\ success$ ]] || fail "stdout: $out"
stem=${BASH_REMATCH[1]}
expect_eq "$(cd "$root" && ls -- *.run)" "$stem.run" "the .run files in the result root"
[ -x "$root/$stem.run" ] || fail "the .run is not executable"
expect_eq "$(listing)" "$before" "the record folder after op_compiler"
[ ! -s err ] || fail "-l error printed more than errors: $(cat err)"

step "a rerun with nothing new compiles nothing (the local store has every kernel) and makes no new package"
mtime_before=$(stat -c %Y.%N "$root/$stem.run")
out2=$(op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 -j 2 -o "$root" -l debug -f true 2>err)
expect_eq "$out2" "$out" "stdout of the rerun"
! grep -q "compile-step" err || fail "the rerun compiled something: $(grep compile-step err | head -3)"
grep -q "kernel store: [1-9][0-9]* hits, 0 misses" err || fail "the rerun did not take its kernels from the store: $(tail -5 err)"
expect_eq "$(stat -c %Y.%N "$root/$stem.run")" "$mtime_before" "the package after the rerun"
step "a damaged earlier package of the same contents is replaced, not kept"
truncate -s 100000 "$root/$stem.run"
out3=$(op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 -j 2 -o "$root" -l error 2>err) || fail "$(cat err)"
[[ $out3 =~ ^generate\ run\ package\ (static_kernel_[0-9]{14}_[0-9a-f]{8})\.run\ success$ ]] || fail "stdout: $out3"
stem=${BASH_REMATCH[1]}
expect_eq "$(cd "$root" && ls -- *.run)" "$stem.run" "the .run files after the rerun over a damaged one"
grep -q "removed, a damaged package" err || fail "no word of the damaged package: $(cat err)"
sh "$root/$stem.run" --check >/dev/null 2>err || fail "the package op_compiler named is damaged: $(cat err)"
out=$out3
op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 -j 2 -o "$root" --enable_super_kernel \
  --super_kernel_options a=1:b=2 >/dev/null 2>err || fail "--enable_super_kernel refused"
grep -q "super kernels are not built" err || fail "no word about super kernels: $(cat err)"

step "-o naming the .run, and a SoC the table lacks"
op_compiler -p "$root/4242_opcompile_selected" -v MyChip7 -o "$PWD/named/static_kernel_mine.run" >/dev/null 2>err ||
  fail "-o X.run failed: $(cat err)"
[ -f named/static_kernel_mine.run ] || fail "no named/static_kernel_mine.run"
grep -q "SoC MyChip7 is not in the SoC table" err || fail "no warning for an unknown SoC: $(cat err)"

# torchair's _install_run_packages and save_uninstall_info, as they are written.
install_and_find_uninstall() {
  python3 - "$root" <<'PY'
import os, subprocess, sys
from pathlib import Path
for run_pkg in Path(sys.argv[1]).glob("*.run"):
    subprocess.run([str(run_pkg)], check=True, capture_output=True, text=True)
    pattern = f"*/opp/static_kernel/ai_core/{run_pkg.name[:-4]}/uninstall.sh"
    print(next(Path(os.environ["ASCEND_HOME_PATH"]).parent.glob(pattern)))
PY
}

# Section 4 of the reference, field by field, for every entry opbase reads.
check_opbase_index() {
  python3 - "$ai_core" "$stem" "$1" <<'PY'
import json, os, re, sys
ai_core, stem, expected = sys.argv[1], sys.argv[2], int(sys.argv[3])
assert sorted(os.listdir(os.path.join(ai_core, "config"))) == ["ascend910b"], os.listdir(os.path.join(ai_core, "config"))
index = json.load(open(os.path.join(ai_core, "config", "ascend910b", "binary_info_config.json")))
n = 0
for op, entry in index.items():
    assert entry["dynamicRankSupport"] is True and entry["simplifiedKeyMode"] == 0, op
    keys = set()
    for e in entry["staticList"]:
        assert type(e["coreType"]) is int, e
        d = e["binDesc"]
        assert type(d["blockDim"]) is int and d["blockDim"] >= 0 and isinstance(d["kernelName"], str) and d["kernelName"]
        assert isinstance(d["workspace"], list)
        assert e["binPath"].startswith(stem + "/ascend910b/" + op + "/"), e["binPath"]
        assert os.path.isfile(os.path.join(ai_core, e["binPath"])), e["binPath"]
        k = e["simplifiedKey"]
        assert re.fullmatch(re.escape(op) + r"/d=[01],p=[012](/(_|\[[0-9a-f,]*\]|[0-9a-f]+|[0-9a-f]+,[0-9a-f]+,\([0-9a-f,]*\)(,\([0-9a-f,]*\),[0-9a-f]+)?(,\[[0-9a-f,]*\])?))*", k), k
        assert k not in keys, "two entries for " + k
        keys.add(k)
        assert len(e["skbKey"]) == 64 and len(e["sha256"]) == 64
        n += 1
assert n == expected, "%d entries opbase reads, expected %d" % (n, expected)
print(n)
PY
}

static_kernels=$(sh "$root/$stem.run" --list | awk '$2 == "static"' | wc -l)
step "the .run executed bare installs where opbase reads; torchair's glob finds uninstall.sh"
uninstall=$(install_and_find_uninstall) || fail "the bare install failed"
case $uninstall in "$cann"/*/opp/static_kernel/ai_core/"$stem"/uninstall.sh) ;; *) fail "torchair's glob found '$uninstall'" ;; esac
expect_eq "$(readlink -f "$uninstall")" "$(readlink -f "$ai_core/$stem/uninstall.sh")" "uninstall.sh found by torchair's glob"
[ -x "$uninstall" ] || fail "uninstall.sh is not executable"
check_opbase_index "$static_kernels" >/dev/null || fail "the index is not what opbase reads"
expect_eq "$(check_library "$ASCEND_HOME_PATH")" "$static_kernels" "kernels listed"
replay=$(skb-replay "$root/4242_opcompile_selected" --install-path "$ASCEND_HOME_PATH" -v ascend910b) ||
  fail "skb's runtime on the installed library: $replay"
echo "    $replay"
echo "$replay" | grep -q " 0 differed" || fail "kernels computed wrong results"

step "the uninstall run bare: ai_core/ is gone, the lock stays"
"$uninstall" || fail "uninstall.sh failed"
[ ! -e "$ai_core" ] || fail "ai_core/ is left behind: $(ls -A "$ai_core")"
[ -f "$ASCEND_OPP_PATH/static_kernel/.ai_core.lock" ] || fail "the lock file was removed"

step "8 copies of the bare .run at once, as the ranks of a node"
pids=()
for i in $(seq 8); do "$root/$stem.run" >"bare_$i.out" 2>&1 & pids+=($!); done
for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "bare .run $((i + 1)) failed: $(cat "bare_$((i + 1)).out")"; done
check_opbase_index "$static_kernels" >/dev/null || fail "the index after 8 concurrent installs"
expect_eq "$(grep -c "^load_priority=$stem$" "$ai_core/config.ini")" 1 "config.ini after 8 concurrent installs"
expect_eq "$(check_library "$ASCEND_HOME_PATH")" "$static_kernels" "kernels listed"
"$ai_core/$stem/uninstall.sh" || fail "uninstall.sh failed"
[ ! -e "$ai_core" ] || fail "ai_core/ is left behind after the last uninstall"
step "without ASCEND_OPP_PATH the bare .run uses ASCEND_HOME_PATH/opp; SKB_INSTALL_PATH and --install-path still win"
mkdir -p home_only
ASCEND_OPP_PATH= ASCEND_HOME_PATH=$PWD/home_only "$root/$stem.run" -q || fail "install with ASCEND_HOME_PATH only"
[ -f "home_only/opp/static_kernel/ai_core/$stem/uninstall.sh" ] || fail "not installed under ASCEND_HOME_PATH/opp"
SKB_INSTALL_PATH=$PWD/mine "$root/$stem.run" -q || fail "install with SKB_INSTALL_PATH"
"$root/$stem.run" -q --install-path="$PWD/given" || fail "install with --install-path"
[ -d "$(lib_root mine)/$stem" ] && [ -d "$(lib_root given)/$stem" ] || fail "SKB_INSTALL_PATH or --install-path did not win"
[ ! -e "$ai_core" ] || fail "installed into CANN's library although SKB_INSTALL_PATH or --install-path was given"

# kill_mid_compile DIR SIGNAL: op_compiler into DIR/out (TMPDIR DIR/tmp), each compile slowed by
# 4 s, sent SIGNAL once a compile started; $rc is its exit status.
kill_mid_compile() {
  local dir=$1
  mkdir -p "$dir/out" "$dir/tmp"
  printf '#!/bin/sh\ntouch "%s"\nsleep 4\nexec "$@"\n' "$PWD/$dir/compiling" >"$dir.launch"
  chmod +x "$dir.launch"
  SKB_CACHE_DIR=off SKB_LAUNCHER=$PWD/$dir.launch TMPDIR=$PWD/$dir/tmp \
    op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 -j 1 -o "$PWD/$dir/out" -l error 2>"$dir/err" &
  local job=$!
  for _ in $(seq 600); do [ -e "$dir/compiling" ] && break; sleep 0.1; done
  [ -e "$dir/compiling" ] || fail "no compile started"
  kill "-$2" "$job"
  rc=0; wait "$job" || rc=$?
  sleep 6  # longer than a compile's launcher waits: what a build left running would publish by then
}

step "op_compiler killed (as torchair's timeout kills it) stops its build: no package appears, its work folder goes"
kill_mid_compile killed TERM
expect_eq "$rc" 143 "op_compiler's exit status after SIGTERM"
grep -q "interrupted by SIGTERM" killed/err || fail "no word of the interruption: $(cat killed/err)"
expect_eq "$(ls -A killed/out)" "" "-o after the killed job"
expect_eq "$(ls -A killed/tmp)" "" "TMPDIR after the killed job"

step "op_compiler killed by SIGKILL: its build stops too, no package appears"
kill_mid_compile killed9 KILL
expect_eq "$(ls -A killed9/out)" "" "-o after the job killed by SIGKILL"
expect_eq "$(pgrep -f "$PWD/killed9" || true)" "" "processes of the job killed by SIGKILL"
[ -n "$(ls -A killed9/tmp)" ] || fail "no work folder left by SIGKILL to test its removal"
# A live job's folder (its lock held) is never removed, whatever its pid says: one in another
# container or on another machine that shares TMPDIR.
mkdir -m 700 killed9/tmp/skb-job.999999.AbC123
python3 -c 'import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDONLY); fcntl.flock(fd, fcntl.LOCK_EX); open(sys.argv[2], "w"); time.sleep(300)' \
  killed9/tmp/skb-job.999999.AbC123 killed9/held &
holder=$!
for _ in $(seq 600); do [ -e killed9/held ] && break; sleep 0.1; done
TMPDIR=$PWD/killed9/tmp op_compiler -p "$root/4242_opcompile_selected" -v Ascend910B3 -o "$PWD/killed9/out" -l error ||
  fail "op_compiler after one killed by SIGKILL"
expect_eq "$(ls -A killed9/tmp)" "skb-job.999999.AbC123" "TMPDIR after the next job (the killed one's work folder removed, the live one's kept)"
kill "$holder"; wait "$holder" 2>/dev/null || true

echo "    $records records, $static_kernels kernels opbase reads; 8 concurrent bare installs, one package listed"
echo PASS
