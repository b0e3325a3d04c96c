# Every file system call of a kernel's compile step fails in turn, once with an error (EIO;
# ENOSPC for writes) and once with SIGKILL (strace's fault injection on the step itself, not the
# compiler it runs; a spread sample of SKB_FAULT_SAMPLES invocations of each call, default 3):
# with the kernel store cold (the step compiles and stores) and warm (the step takes the store's
# entry). After each, every kernel record in the build matches its binary and every store entry
# reads back whole (`skb cache verify` finds nothing damaged); then `ninja` compiles at most that
# one kernel, and the build holds the files a build without a fault leaves, no temporary one
# among them. (The store may then lack the kernel: a store that failed is left alone for a while,
# and the build goes on without it. A claim that a killed step held lapses with its lease, or is
# taken over once its process is seen gone.)
source "$(dirname "$0")/lib.sh"
# A sanitized build's runtime makes system calls of its own, and a fault injected there is the
# sanitizer's, not skb's (UBSan probes memory with write() and CHECK-fails on any errno but EFAULT;
# LeakSanitizer cannot run under ptrace): the plain build's pass runs this suite.
[ -z "${SKB_SANITIZE:-}" ] ||
  { echo "skipped: fault injection under strace breaks the sanitizers' own system calls (build: $SKB_SANITIZE)"; exit 77; }
command -v strace >/dev/null || fail "strace is missing (scripts/deps.sh installs it with the test packages)"
strace -f -qq -o /dev/null -e trace=getpid -e inject=getpid:error=EIO:when=1 true 2>/dev/null ||
  { echo "skipped: strace cannot trace here (ptrace is not allowed in this container)"; exit 77; }

make_dump dump --ranks 1 --seqs 8 --hidden 16 --heads 2
export SOURCE_DATE_EPOCH=1700000000  # the package the build ends with has one name
at=$PWD/gen  # the build folder, its store inside: the state each fault starts from is copied here
export SKB_CACHE_DIR=$at/store
skb-generate -p dump -o "$at" -q
ninja -C "$at" >/dev/null
verify_kernels "$at/kernel_meta" >/dev/null || fail "the build without a fault is inconsistent"
kernel=$(cd "$at/kernel_meta" && ls -- *.so | sort | head -1)
kernel=${kernel%.so}
step "the kernel whose compile step fails: $kernel"
# The step's command line, as ninja runs it (in the build folder).
cmd=$(cd "$at" && ninja -t commands "kernel_meta/$kernel.so" | tail -1)
case $cmd in *" compile-step "*) ;; *) fail "not a compile step: $cmd" ;; esac
cmd_json=$(python3 -c 'import json, shlex, sys; print(json.dumps(shlex.split(sys.argv[1])))' "$cmd")

cat > check.sh <<EOF
# After a fault: every record matches its binary, and no store entry is damaged.
$(declare -f verify_kernels)
verify_kernels kernel_meta >/dev/null || { echo "a kernel record does not match its binary" >&2; exit 1; }
SKB_CACHE_DIR=$at/store skb cache verify >/dev/null || { echo "skb cache verify found damaged entries" >&2; exit 1; }
EOF
cat > rebuild.sh <<EOF
# The rebuild compiles at most the one kernel whose step failed, and leaves a whole build and store.
log=\$(timeout 120 ninja 2>&1) || { echo "\$log" >&2; exit 1; }
n=\$(echo "\$log" | grep -c 'Compiling .* kernel' || true)
[ "\$n" -le 1 ] || { echo "the rebuild compiled \$n kernels" >&2; exit 1; }
bash $PWD/check.sh
EOF

samples=${SKB_FAULT_SAMPLES:-3}
failed=0
scenario() {  # name
  rm -rf "state_$1"
  cp -a "$at" "state_$1"
  python3 - "$1" "$PWD/state_$1" "$at" "$samples" "$cmd_json" "$PWD" > "scenario_$1.json" <<'PY'
import json, sys
name, state, at, samples, cmd, here = sys.argv[1:]
print(json.dumps({"name": name, "state": state, "at": at, "samples": int(samples), "cmd": json.loads(cmd),
                  "follow": False, "check": ["bash", here + "/check.sh"], "rerun": ["bash", here + "/rebuild.sh"],
                  "compare": "paths", "under": ["kernel_meta"]}))
PY
  python3 "$SKB_SOURCE/tests/tools/fault_inject.py" "scenario_$1.json" || failed=1
}
step "faults in a compile step that compiles and stores the kernel (a cold store)"
rm -f "$at/kernel_meta/$kernel".{so,json}
find "$at/store" -name "*_$kernel.entry" -delete
scenario cold
step "faults in a compile step that takes the kernel from the store (a warm store)"
ninja -C "$at" >/dev/null
rm -f "$at/kernel_meta/$kernel".{so,json}
scenario warm
[ "$failed" = 0 ] || fail "some faults left a build or a store that looks finished but is not (listed above)"
echo PASS
