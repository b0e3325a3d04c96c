# Load: 16 installers, each installing and uninstalling its own package over and over for a fixed
# time (SKB_LOAD_SECONDS, default 20), and 16 readers of the index until they are done. No reader
# ever parses an invalid or partial index, and no kernel of a package installed before the load
# (and never touched) is ever missing from the index or the disk. Afterwards every package
# installs and the library is consistent.
source "$(dirname "$0")/lib.sh"
ci_store
export SKB_LOCK_TIMEOUT=300
seconds=${SKB_LOAD_SECONDS:-20}

# 17 packages over two sets of kernels: names differ, and packages of the same set share every
# kernel key, so uninstalls must hand keys back to the packages that still provide them.
make_two_packages
pkgs=()
for i in $(seq 1 16); do
  out=out_a; [ $((i % 2)) = 0 ] && out=out_b
  pkgs+=("$(SOURCE_DATE_EPOCH=$((1710000000 + i)) skb-package "$out/.skb" -q)")
done
[ "$(printf '%s\n' "${pkgs[@]}" | sort -u | wc -l)" = 16 ] || fail "the 16 packages do not have 16 names"
lib=$PWD/lib
root=$(lib_root "$lib")
sh "$A" --install-path="$lib" -q   # the package that must never lose a kernel
pinned_keys=$(python3 -c 'import json,sys; print(" ".join(k["key"] for k in json.load(open(sys.argv[1]))["kernels"]))' \
  "$root/$pa/manifest.json")

step "16 installers and 16 readers for ${seconds}s"
readers=() installers=()
for i in $(seq 0 15); do
  python3 - "$root" "$pa" "$PWD/stop" "$pinned_keys" > "reader_$i.result" <<'PY' &
import json, os, sys, time
root, pinned, stop, keys = sys.argv[1], sys.argv[2], sys.argv[3], set(sys.argv[4].split())
path = os.path.join(root, "config", "host", "binary_info_config.json")
reads = bad = lost = 0
while reads + bad == 0 or not os.path.exists(stop):  # one read at least, then until the installers are done
    try:
        text = open(path, "rb").read()
        index = json.loads(text)
        listed = {}
        for op, entry in index.items():
            for k in entry["staticList"] + entry.get("skbList", []):
                listed[k["skbKey"]] = k
                assert k["binPath"].startswith(k["package"] + "/") and k["sha256"]
    except Exception as e:
        bad += 1
        print("invalid index read: %r" % e, file=sys.stderr)
        continue
    reads += 1
    for key in keys:
        k = listed.get(key)
        # a key of the pinned package may point at a newer package that ships it too; it must be listed,
        # and when it points at the pinned package its file must be there
        if k is None or (k["package"] == pinned and not os.path.isfile(os.path.join(root, k["binPath"]))):
            lost += 1
            print("pinned kernel missing: %s" % key, file=sys.stderr)
print(reads, bad, lost)
PY
  readers+=($!)
done
deadline=$(( $(date +%s) + seconds ))
for i in $(seq 0 15); do
  (
    cycles=0 failures=0
    while [ "$(date +%s)" -lt "$deadline" ]; do
      sh "${pkgs[$i]}" --install-path="$lib" -q 2>>"installer_$i.err" || failures=$((failures + 1))
      sh "${pkgs[$i]}" --install-path="$lib" --uninstall -q 2>>"installer_$i.err" || failures=$((failures + 1))
      cycles=$((cycles + 1))
    done
    echo "$cycles $failures" > "installer_$i.result"
  ) &
  installers+=($!)
done
wait "${installers[@]}"
touch stop
wait "${readers[@]}"
cycles=0; failures=0; reads=0; bad=0; lost=0
for i in $(seq 0 15); do
  read -r c f < "installer_$i.result"; cycles=$((cycles + c)); failures=$((failures + f))
  read -r r b l < "reader_$i.result"; reads=$((reads + r)); bad=$((bad + b)); lost=$((lost + l))
done
echo "    $cycles install+uninstall cycles ($failures failed), $reads index reads ($bad invalid, $lost pinned kernels missing)"
[ "$failures" = 0 ] || { cat installer_*.err | sort | uniq -c | head; fail "$failures installer runs failed"; }
[ "$bad" = 0 ] || fail "$bad reads saw an invalid index"
[ "$lost" = 0 ] || fail "$lost reads missed a kernel of the pinned package"
[ "$cycles" -ge 16 ] || fail "only $cycles cycles ran: the load did not load"
[ "$reads" -ge 100 ] || fail "only $reads reads ran"

step "afterwards: everything installs, the library is consistent"
expect_eq "$(check_library "$lib")" "$na" "kernels listed with only the pinned package"
for run in "${pkgs[@]}"; do sh "$run" --install-path="$lib" -q; done
n=$(check_library "$lib")
expect_eq "$n" "$nb" "kernels listed with all 17 packages"
expect_eq "$(python3 -c 'import sys; print(len(open(sys.argv[1]).read().split("=")[1].split(",")))' "$root/config.ini")" 17 \
  "packages in config.ini"
echo PASS
