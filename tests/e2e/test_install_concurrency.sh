# Many installers at once (the LOCAL_WORLD_SIZE ranks of a node) and readers of the index
# meanwhile; uninstall of one package keeps what another one also ships.
source "$(dirname "$0")/lib.sh"
ci_store
export SKB_LOCK_TIMEOUT=120

make_two_packages
step "$pa: $na kernels; $pb: $nb kernels, a superset of its keys"

# Parses every index of a library in a loop until told to stop, and once more after that (so that
# it reads the last version even where the installers all ran between two of its passes); fails
# on any invalid read.
reader() {
  python3 - "$(lib_root "$1")" "$2" <<'PY'
import json, os, sys, time
root, stop = sys.argv[1], sys.argv[2]; reads = 0; versions = set()
open(stop + ".ready", "w").close()
last = False
while not last:
    last = os.path.exists(stop)
    for dirpath, _, files in os.walk(os.path.join(root, "config")):
        for f in files:
            if f.endswith(".json"):
                try:
                    versions.add(json.dumps(json.load(open(os.path.join(dirpath, f))), sort_keys=True))
                except FileNotFoundError:
                    continue
                except ValueError as e:
                    print("invalid index read:", f, e); sys.exit(1)
                reads += 1
print(reads, len(versions))
PY
}
# Starts a reader in the background and waits until it reads.
start_reader() {
  reader "$1" "$2" > "$2.out" & rpid=$!
  while [ ! -e "$2.ready" ]; do sleep 0.05; done
}
stop_reader() {
  touch "$1"; wait "$rpid" || fail "a reader saw an invalid index"
  set -- $(cat "$1.out")
  [ "$1" -gt 0 ] || fail "the reader never read an index"
  echo "    a reader parsed the index $1 times meanwhile and saw $2 versions of it, all valid"
}

step "8 installers of one package at once: all succeed, it is installed once"
mkdir -p lib1/opp/static_kernel/ai_core/config
start_reader lib1 stop1
pids=""
for i in 1 2 3 4 5 6 7 8; do sh "$A" --install-path="$PWD/lib1" -q & pids="$pids $!"; done
for p in $pids; do wait "$p" || fail "an installer failed"; done
stop_reader stop1
expect_eq "$(check_library lib1)" "$na" "kernels listed"
expect_eq "$(grep -c "$pa" "$(lib_root lib1)/config.ini")" 1 "config.ini mentions of the package"

step "8 installers into a new library: one unpacks the installer, the others share it; nothing left in TMPDIR"
# gzip counts the installers unpacked (the stub's only use of gzip -d), and takes 2 seconds over
# it, so that every copy has started, under any load, before the first has unpacked.
mkdir -p counting node_tmp
printf '#!/bin/sh\necho "$$" >> "%s/unpacks"\nsleep 2\nexec /bin/gzip "$@"\n' "$PWD" > counting/gzip
chmod 755 counting/gzip
pids=""
for i in 1 2 3 4 5 6 7 8; do
  PATH=$PWD/counting:$PATH TMPDIR=$PWD/node_tmp sh "$A" --install-path="$PWD/lib_node" -q & pids="$pids $!"
done
for p in $pids; do wait "$p" || fail "an installer sharing the unpack failed"; done
expect_eq "$(check_library lib_node)" "$na" "kernels listed after a shared unpack"
expect_eq "$(wc -l < unpacks)" 1 "installers unpacked by 8 copies at once"
[ -z "$(ls -A node_tmp)" ] || fail "8 copies left $(ls -A node_tmp) in TMPDIR"
# A folder left by a copy killed before its installer ran (its process gone): a copy unpacks its
# own, and leaves that folder as it is.
sha=$(sed -n 's/^skb_installer_unpacked_sha256=//p' "$A" | head -1)
sh -c 'exit 0' & dead=$!
wait "$dead"
mkdir -m 700 "node_tmp/skb_run.$sha.lock"
echo "$dead" > "node_tmp/skb_run.$sha.lock/pid"
rm -f unpacks
for i in 1 2; do
  PATH=$PWD/counting:$PATH TMPDIR=$PWD/node_tmp sh "$A" --install-path="$PWD/lib_stale$i" -q ||
    fail "an installer beside a dead one's folder failed"
  expect_eq "$(check_library "lib_stale$i")" "$na" "kernels listed beside a dead one's folder"
done
expect_eq "$(wc -l < unpacks)" 2 "installers unpacked beside a dead one's folder"
expect_eq "$(ls -A node_tmp)" "skb_run.$sha.lock" "TMPDIR beside a dead one's folder"
expect_eq "$(ls -A "node_tmp/skb_run.$sha.lock")" "pid" "the dead one's folder"
# One with no process id at all (its maker killed between making it and writing its id): a copy
# waits a moment for the id, then unpacks its own.
rm "node_tmp/skb_run.$sha.lock/pid"
PATH=$PWD/counting:$PATH TMPDIR=$PWD/node_tmp sh "$A" --install-path="$PWD/lib_nopid" -q ||
  fail "an installer beside a folder with no process id failed"
expect_eq "$(check_library lib_nopid)" "$na" "kernels listed beside a folder with no process id"
expect_eq "$(wc -l < unpacks)" 3 "installers unpacked beside a folder with no process id"
expect_eq "$(ls -A node_tmp)" "skb_run.$sha.lock" "TMPDIR beside a folder with no process id"

step "8 forced reinstalls at once, a reader meanwhile: every read valid, one install at the end"
start_reader lib1 stop1f
pids=""
for i in 1 2 3 4 5 6 7 8; do sh "$A" --install-path="$PWD/lib1" --force -q & pids="$pids $!"; done
for p in $pids; do wait "$p" || fail "a forced installer failed"; done
stop_reader stop1f
expect_eq "$(check_library lib1)" "$na" "kernels listed after forced reinstalls"

step "8 installers of two packages at once: both installed, index valid"
mkdir -p lib2/opp/static_kernel/ai_core/config
start_reader lib2 stop2
pids=""
for i in 1 2 3 4; do sh "$A" --install-path="$PWD/lib2" -q & pids="$pids $!"; sh "$B" --install-path="$PWD/lib2" -q & pids="$pids $!"; done
for p in $pids; do wait "$p" || fail "an installer failed"; done
stop_reader stop2
expect_eq "$(check_library lib2)" "$nb" "kernels listed (the union)"
grep -q "load_priority=.*$pa" "$(lib_root lib2)/config.ini" && grep -q "load_priority=.*$pb" "$(lib_root lib2)/config.ini" ||
  fail "config.ini: $(cat "$(lib_root lib2)/config.ini")"

# Prints how many index entries point at each package.
owners() { python3 -c '
import json, sys, collections
c = collections.Counter(k["package"] for e in json.load(open(sys.argv[1])).values() for k in e["staticList"] + e.get("skbList", []))
print(" ".join("%s=%d" % kv for kv in sorted(c.items())))' "$(lib_root "$1")/config/host/binary_info_config.json"; }

step "the package installed last wins; uninstalling it keeps what the other one ships"
sh "$A" --install-path="$PWD/lib3" -q
sh "$B" --install-path="$PWD/lib3" -q
expect_eq "$(owners lib3)" "$pb=$nb" "owners after A then B"
sh "$(lib_root lib3)/$pb/uninstall.sh" -q || fail "the package's uninstall.sh failed"
expect_eq "$(owners lib3)" "$pa=$na" "owners after uninstalling B"
expect_eq "$(check_library lib3)" "$na" "kernels after uninstalling B"
[ ! -e "$(lib_root lib3)/$pb" ] || fail "B's folder is still there"
sh "$B" --install-path="$PWD/lib3" -q
sh "$A" --install-path="$PWD/lib3" --force -q
expect_eq "$(owners lib3)" "$pa=$na $pb=$((nb - na))" "owners after B then A again"
sh "$A" --install-path="$PWD/lib3" --uninstall -q
expect_eq "$(owners lib3)" "$pb=$nb" "owners after uninstalling A with the .run"
rc=0; sh "$A" --install-path="$PWD/lib3" --uninstall-all -q 2>err || rc=$?
expect_eq "$rc" 2 "a package given --uninstall-all (the bare installer's option)"
grep -q "unknown option --uninstall-all" err || fail "the refusal does not name the option: $(cat err)"
expect_eq "$(owners lib3)" "$pb=$nb" "owners after a package was given --uninstall-all"
sh "$(lib_root lib3)/uninstall.sh" -q || fail "the library's uninstall.sh failed"
[ ! -e "$(lib_root lib3)" ] || fail "ai_core/ is left after the last package went: $(ls -A "$(lib_root lib3)")"
[ -f "$(dirname "$(lib_root lib3)")/.ai_core.lock" ] || fail "the lock file was deleted"
echo PASS
