#!/usr/bin/env python3
"""Self-build benchmark: wall and CPU seconds of a fresh build of skb itself (RelWithDebInfo, one
job per core, no compiler cache), the programs alone and the whole tree with its tests, as
ratios to the same builds of a baseline revision measured in the same run:
  - baseline: the whole tree and the programs of BASELINE (a git revision, checked out into the
    work folder);
  - this tree without precompiled headers (-DSKB_PCH=OFF): what the other changes saved;
  - this tree as it builds by default.
usage: bench_self_build.py WORK_DIR [--baseline REV] [--json FILE]"""
import argparse, json, os, resource, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import write_json

TOP = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# What a user installs: the programs, the runtime and the store modules.
PROGRAMS = ["skb-generate", "skb-package", "skb", "skb-install", "skb-replay", "skb_runtime", "skb_store",
            "skb_store_curl"]


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def fresh_build(src, build, targets, cmake_args=()):
    """Seconds (wall, CPU) of configuring and building targets (None: all) in an empty folder."""
    shutil.rmtree(build, ignore_errors=True)
    env = dict(os.environ, CCACHE_DISABLE="1")
    wall, cpu = time.perf_counter(), cpu_seconds()
    subprocess.run(["cmake", "-S", src, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=RelWithDebInfo",
                    *cmake_args], check=True, stdout=subprocess.DEVNULL, env=env)
    cmd = ["cmake", "--build", build, "-j", str(os.cpu_count())]
    if targets:
        cmd += ["--target", *targets]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    return time.perf_counter() - wall, cpu_seconds() - cpu


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("work")
    ap.add_argument("--baseline", default="HEAD", help="git revision to compare with (default: HEAD)")
    ap.add_argument("--json")
    a = ap.parse_args()
    os.makedirs(a.work, exist_ok=True)
    base_src = os.path.join(a.work, "baseline-src")
    shutil.rmtree(base_src, ignore_errors=True)
    os.makedirs(base_src)
    archive = subprocess.run(["git", "-C", TOP, "archive", a.baseline], check=True, stdout=subprocess.PIPE).stdout
    subprocess.run(["tar", "-x", "-C", base_src], input=archive, check=True)

    configs = [("baseline", base_src, ()), ("no-pch", TOP, ("-DSKB_PCH=OFF",)), ("now", TOP, ())]
    results = {}
    for scope, targets in [("programs", PROGRAMS), ("whole tree", None)]:
        for name, src, args in configs:
            if scope == "programs" and name == "no-pch":
                continue
            wall, cpu = fresh_build(src, os.path.join(a.work, "build-" + name), targets, args)
            results[f"{scope}/{name}"] = {"wall_s": round(wall, 1), "cpu_s": round(cpu, 1)}
            print(f"{scope:10} {name:9} {wall:7.1f} s wall {cpu:7.1f} s CPU", flush=True)
    rows = []
    for key, r in results.items():
        scope, name = key.split("/")
        base = results[f"{scope}/baseline"]
        rows.append({"row": key, "wall_s": r["wall_s"], "cpu_s": r["cpu_s"],
                     "wall_ratio": round(r["wall_s"] / base["wall_s"], 3),
                     "cpu_ratio": round(r["cpu_s"] / base["cpu_s"], 3)})
    print(f"\n{'build':22} {'wall s':>8} {'CPU s':>8} {'wall/base':>10} {'CPU/base':>9}")
    for r in rows:
        print(f"{r['row']:22} {r['wall_s']:8.1f} {r['cpu_s']:8.1f} {r['wall_ratio']:10.3f} {r['cpu_ratio']:9.3f}")
    if a.json:
        write_json(a.json, {"baseline": a.baseline, "cores": os.cpu_count(), "rows": rows})


if __name__ == "__main__":
    main()
