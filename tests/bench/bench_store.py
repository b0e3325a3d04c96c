#!/usr/bin/env python3
"""Kernel store benchmark: wall time of a fresh build folder on a warm store (--cache), as a ratio
to a cold compile of the same dump in the same run (both ninja -j2, no package), per toolchain:
  - host (the system compiler) and cuda (nvcc, when it is installed);
  - the file store; for host also redis (a redis-server this script starts on 127.0.0.1);
  - the cold build that fills the store, against the cold compile without one (what storing costs);
  - what checking the entries' signatures adds to a warm build: the time its compile steps spent
    on it (cache.trust_us: trust file, keys, Ed25519), summed over steps, over the warm build's
    wall time (an upper bound: the steps run two at a time).
The target of warm / cold is <= 0.05 at a few hundred kernels; of signature checks, <= 0.02.
usage: bench_store.py BUILD_DIR [WORK_DIR] [--seqs LIST] [--repeat R] [--toolchains host,cuda] [--json FILE]"""
import argparse, json, os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, ratio, row, stats, wait_port, write_json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--seqs", default=",".join(str(s) for s in range(2, 17)))
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--toolchains", default="host,cuda")
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, "bench-store"))
    gen = os.path.join(build, "bin", "skb-generate")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    os.environ["XDG_CONFIG_HOME"] = os.path.join(work, "config")  # the builders' own signing key
    dump = os.path.join(work, "dump")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "tools", "make_dump.py"), dump,
                    "--ranks", "2", "--seqs", a.seqs, "--hidden", "16", "--heads", "2"], check=True,
                   stdout=subprocess.DEVNULL)
    toolchains = [t for t in a.toolchains.split(",") if t != "cuda" or shutil.which("nvcc")]

    def build_once(name, toolchain, cache=None):
        """Seconds of ninja -j2 in a fresh build folder, and the folder's summary."""
        out = os.path.join(work, name)
        shutil.rmtree(out, ignore_errors=True)
        cmd = [gen, "-p", dump, "-o", out, "--no-package", "-q", "--toolchain", toolchain]
        subprocess.run(cmd + (["--cache", cache] if cache else []), check=True, env=dict(os.environ, SKB_CACHE=""))
        t = time.perf_counter()
        subprocess.run(["ninja", "-C", out, "-j2", "--quiet"], check=True, stdout=subprocess.DEVNULL)
        secs = time.perf_counter() - t
        with open(os.path.join(out, "summary.json")) as f:
            return secs, json.load(f)

    port = free_port()
    redis = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                              "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL)
    figures = {"repeat": a.repeat}
    try:
        wait_port(port)
        for tc in toolchains:
            stores = {"file": "file://" + os.path.join(work, "store-" + tc)}
            if tc == "host":
                stores["redis"] = "redis://127.0.0.1:%d/0" % port
            cold, summary = build_once("cold-" + tc, tc)
            kernels = summary["planned_total"]
            f = {"kernels": kernels, "cold_seconds": cold}
            for store, url in stores.items():
                fill, s = build_once("fill-%s-%s" % (tc, store), tc, url)
                warm, trust = [], []
                for i in range(a.repeat):
                    secs, s = build_once("warm-%s-%s" % (tc, store), tc, url)
                    if s["cache"]["hits"] != kernels:
                        raise RuntimeError("%s %s: %s hits of %d kernels" % (tc, store, s["cache"]["hits"], kernels))
                    warm.append(secs)
                    trust.append(s["cache"]["trust_us"] / 1e6)
                f[store] = {"fill_vs_cold": ratio([fill], [cold]), "warm_vs_cold": ratio(warm, [cold] * len(warm)),
                            "warm_seconds": stats(warm), "signature_checks_vs_warm": ratio(trust, warm)}
            figures[tc] = f
    finally:
        redis.terminate()
        redis.wait()

    print()
    for tc in toolchains:
        f = figures[tc]
        print("%s toolchain, %d kernels, cold compile %.1f s (ninja -j2):" % (tc, f["kernels"], f["cold_seconds"]))
        for store in ("file", "redis"):
            if store in f:
                row("  fresh folder, warm %s store / cold compile" % store, f[store]["warm_vs_cold"], "<= 0.05")
                row("  cold compile filling a %s store / cold compile" % store, f[store]["fill_vs_cold"])
                row("  signature checks of a warm %s build / its wall time" % store, f[store]["signature_checks_vs_warm"],
                    "<= 0.02")
    write_json(a.json or os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
