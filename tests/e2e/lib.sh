# Helpers of the end-to-end suites: the real binaries on real files, in a fresh scratch folder.
# Environment (set by ctest): SKB_BIN (folder of skb-generate and skb-package), SKB_SOURCE, SKB_SCRATCH.
set -eEuo pipefail
# A suite that set -e ends says which command failed and where (file:line, and the calls that led
# there), instead of ending without a word. The trap runs where set -e would end the shell, so a
# command in `if`, `||`, `&&` or `!` never calls it; in a subshell or command substitution it is
# silent, since the shell around it reports the command that holds it, if that ends the suite.
on_error() {
  local rc=$? i
  [ "$BASHPID" = "$$" ] || return 0
  echo "FAIL: exit status $rc of '$BASH_COMMAND' at ${BASH_SOURCE[1]:-?}:${BASH_LINENO[0]:-?}" >&2
  for ((i = 1; i + 1 < ${#FUNCNAME[@]}; i++)); do
    echo "    in ${FUNCNAME[i]} (${BASH_SOURCE[i]}), called at ${BASH_SOURCE[i + 1]}:${BASH_LINENO[i]}" >&2
  done
}
trap on_error ERR
: "${SKB_BIN:?}" "${SKB_SOURCE:?}" "${SKB_SCRATCH:?}"
export PATH="$SKB_BIN:$PATH"
rm -rf "$SKB_SCRATCH"
mkdir -p "$SKB_SCRATCH"
cd "$SKB_SCRATCH"
# What the programs under test leave in TMPDIR (a .run killed with -9 before its installer
# starts leaves its copy of the installer) stays in the scratch folder, not in the machine's /tmp.
export TMPDIR=$SKB_SCRATCH/tmp
mkdir -p "$TMPDIR"
# The user's skb configuration (the own signing key a kernel store build makes on first use, its
# trust file) is the scratch folder's, never the machine user's.
export XDG_CONFIG_HOME=$SKB_SCRATCH/config
unset SKB_SIGNING_KEY SKB_TRUSTED_KEYS SKB_CACHE SKB_CACHE_MAX_SIZE
# Suites count compiles: the user's local kernel store is off unless a suite turns it on (and
# then it is in the scratch folder, never the machine user's).
export SKB_CACHE_DIR=off XDG_CACHE_HOME=$SKB_SCRATCH/cache

# Kernel compiles: scripts/test.sh sets SKB_LAUNCHER=ccache (one compiler cache for the whole run),
# which skb-generate takes where a suite gives no --launcher; a suite's own counting launcher ends
# with `exec ${SKB_LAUNCHER:-} "$@"`. The suites build the same small dumps again and again: the
# compiler still runs for every kernel a suite counts, and answers from the cache.

# ci_store: a suite that does not count compiles takes its kernels from, and gives them to, the one
# kernel store of the whole test run (SKB_TEST_STORE, set by scripts/test.sh: both passes share it),
# as a team's builders share one; the suite's own key is the run's key, so its entries are trusted.
# Without SKB_TEST_STORE, the suite compiles everything, as the others do.
ci_store() {
  [ -n "${SKB_TEST_STORE:-}" ] || return 0
  local key=$SKB_TEST_STORE.key
  mkdir -p "$(dirname "$SKB_TEST_STORE")" "$XDG_CONFIG_HOME/skb"
  chmod 700 "$XDG_CONFIG_HOME/skb"
  if [ ! -f "$key" ]; then  # suites start at once: one key wins, all use it
    skb key new skb-tests "$key.$$" >/dev/null
    ln "$key.$$" "$key" 2>/dev/null || true
    rm -f "$key.$$"
  fi
  cp "$key" "$XDG_CONFIG_HOME/skb/signing-key"
  chmod 600 "$XDG_CONFIG_HOME/skb/signing-key"
  export SKB_CACHE_DIR=$SKB_TEST_STORE
}

# own_libraries: the stub looks for the library's installer, and the installer for its library,
# in /usr/local/skb (root) and $HOME/.local/skb too, after --install-path and the environment: a
# suite that must not see what the machine holds there gets a HOME of its own and, where
# /usr/local/skb exists, runs again in a mount namespace of its own with an empty folder over it.
# Called first thing, before the suite makes anything.
own_libraries() {
  export HOME=$SKB_SCRATCH/home
  mkdir -p "$HOME"
  unset SKB_INSTALL_PATH ASCEND_OPP_PATH ASCEND_HOME_PATH
  [ -e /usr/local/skb ] && [ -z "${SKB_OWN_LIBRARIES:-}" ] || return 0
  local hide='mount -t tmpfs -o size=1m,mode=755 skb-none /usr/local/skb'
  if unshare -m sh -c "$hide" 2>/dev/null; then
    SKB_OWN_LIBRARIES=1 exec unshare -m bash -c "$hide && exec bash \"\$0\"" "$0"
  fi
  # Without a namespace (not root), the stub takes only a copy its user owns.
  [ ! -O /usr/local/skb/opp/static_kernel/ai_core/bin/skb-install ] ||
    fail "/usr/local/skb holds an installer of this user's, and it cannot be hidden from the suite (unshare -m failed)"
}

fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "--- $*"; }
expect_eq() { [ "$1" = "$2" ] || fail "$3: expected '$2', got '$1'"; }
make_dump() { python3 "$SKB_SOURCE/tests/tools/make_dump.py" "$@" >/dev/null; }
# Value of a JSON file at a Python expression over `j`, e.g. json_get f.json 'j["records"]'.
json_get() { python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$1" "$2"; }
# Runs ninja and prints the number of kernels it compiled.
ninja_compiles() {
  local log
  log=$(ninja -C "$1" 2>&1) || { echo "$log" >&2; fail "ninja -C $1 failed"; }
  echo "$log" | grep -c 'Compiling .* kernel' || true
}
# Every kernel record in a kernel_meta folder matches its binary (size and sha256).
verify_kernels() {
  python3 - "$1" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]; bad = 0; n = 0
for f in sorted(os.listdir(d)):
    if not f.endswith(".json"): continue
    n += 1
    r = json.load(open(os.path.join(d, f)))
    b = open(os.path.join(d, r["binFileName"]), "rb").read()
    if len(b) != r["size"] or hashlib.sha256(b).hexdigest() != r["sha256"]:
        print("mismatch:", f); bad += 1
print(n)
sys.exit(1 if bad else 0)
PY
}
mtime() { stat -c %Y.%y "$1"; }

# Builds the kernels of a dump and packages them; prints the .run's path.
build_package() {  # dump out [extra skb-package args]
  local dump=$1 out=$2; shift 2
  skb-package -p "$dump" -o "$out" -q "$@"
}
lib_root() { echo "$1/opp/static_kernel/ai_core"; }
# An operator library is consistent: every index parses, every entry's file exists and matches
# its sha256, no key is listed twice, config.ini names only installed packages. Prints the
# number of kernels listed.
check_library() {
  python3 - "$(lib_root "$1")" <<'PY'
import hashlib, json, os, sys
root = sys.argv[1]; n = 0
order = []
if os.path.exists(os.path.join(root, "config.ini")):
    for line in open(os.path.join(root, "config.ini")):
        if line.startswith("load_priority="):
            order = [p for p in line.strip().split("=", 1)[1].split(",") if p]
assert len(order) == len(set(order)), "config.ini lists a package twice: %s" % order
for p in order:
    assert os.path.isfile(os.path.join(root, p, "manifest.json")), "config.ini lists %s, which is not installed" % p
cfg = os.path.join(root, "config")
for soc in sorted(os.listdir(cfg)) if os.path.isdir(cfg) else []:
    path = os.path.join(cfg, soc, "binary_info_config.json")
    if not os.path.isfile(path): continue
    index = json.load(open(path))
    for op, entry in index.items():
        # a kernel whose call opbase's engines key differently has a staticList entry per key
        kernels, bins = [], {}
        for k in entry["staticList"] + entry.get("skbList", []):
            if bins.setdefault(k["skbKey"], k["binPath"]) != k["binPath"]:
                raise AssertionError("%s: two kernels under one key: %s" % (op, k["skbKey"]))
            if k["skbKey"] not in [x["skbKey"] for x in kernels]:
                kernels.append(k)
        assert all("simplifiedKey" not in k for k in entry.get("skbList", [])), op
        assert not set(k["skbKey"] for k in entry.get("skbList", [])) & set(k["skbKey"] for k in entry["staticList"]), \
            "%s: a kernel in both lists" % op
        opbase_keys = [k["simplifiedKey"] for k in entry["staticList"]]
        assert len(opbase_keys) == len(set(opbase_keys)), "%s: an opbase key is listed twice" % op
        for k in entry["staticList"]:  # what opbase needs, or it skips the entry
            assert type(k["coreType"]) is int and type(k["binDesc"]["blockDim"]) is int and k["binDesc"]["blockDim"] >= 0
            assert isinstance(k["binDesc"]["kernelName"], str) and k["simplifiedKey"].startswith(op + "/d=")
        for k in kernels:
            f = os.path.join(root, k["binPath"])
            assert os.path.isfile(f), "listed but missing: " + f
            assert hashlib.sha256(open(f, "rb").read()).hexdigest() == k["sha256"], "sha256 mismatch: " + f
            assert k["package"] in order, "%s lists a package not in config.ini" % f
            n += 1
print(n)
PY
}

# Two packages of overlapping kernels: A (seq 8) and B (seqs 8 and 12, a superset of A's keys).
# Sets A, B (paths of the .run), pa, pb (names) and na, nb (kernel counts).
make_two_packages() {
  make_dump dump_a --ranks 1 --seqs 8 --hidden 16 --heads 2
  make_dump dump_b --ranks 1 --seqs 8,12 --hidden 16 --heads 2
  A=$(SOURCE_DATE_EPOCH=1700000000 build_package dump_a out_a)
  B=$(SOURCE_DATE_EPOCH=1700000100 build_package dump_b out_b)
  pa=$(basename "$A" .run); pb=$(basename "$B" .run)
  na=$(json_get out_a/.skb/package.json 'j["kernels"]'); nb=$(json_get out_b/.skb/package.json 'j["kernels"]')
}
