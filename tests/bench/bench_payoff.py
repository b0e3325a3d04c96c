#!/usr/bin/env python3
"""Payoff benchmark: the example dump's kernels (static and dynamic, host toolchain) packaged and
installed, then `skb bench` times every static kernel against its dynamic twin on this machine.
Figures: the seconds skb bench takes (its --budget bounds it; goal <= 60 s on 2 cores), and the
share of the measured kernels with each verdict (faster, same, slower).
usage: bench_payoff.py BUILD_DIR [WORK_DIR] [--budget SECONDS] [--json FILE]"""
import glob, json, os, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import bench_parser, fresh_work, write_json


def main():
    ap = bench_parser(__doc__)
    ap.add_argument("--budget", type=float, default=40)
    a = ap.parse_args()
    build, work = fresh_work(a, "bench-payoff")
    bin_ = lambda name: os.path.join(build, "bin", name)
    source = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dump = os.path.join(source, "examples", "op_stats", "aclnn_static_shape_kernel_outputs")
    env = dict(os.environ, SKB_CACHE_DIR="off")
    out = os.path.join(work, "pkg")
    subprocess.run([bin_("skb-package"), "-p", dump, "-o", out, "--dynamic", "-q"], check=True, env=env,
                   stdout=subprocess.DEVNULL)
    run = glob.glob(out + "/*.run")[0]
    lib = os.path.join(work, "lib")
    subprocess.run(["sh", run, "--quiet", "--install-path=" + lib], check=True, env=env)
    evidence = os.path.join(work, "evidence.json")
    start = time.monotonic()
    report = subprocess.run([bin_("skb"), "bench", "--install-path", lib, dump, "--budget", str(a.budget), "-q",
                             "--output", evidence], check=True, env=env, capture_output=True, text=True).stdout
    seconds = time.monotonic() - start
    print(report)
    p = json.load(open(evidence))
    n = len(p["kernels"])
    shares = {v: sum(k["verdict"] == v for k in p["kernels"]) / max(n, 1) for v in ("faster", "same", "slower")}
    figures = {"seconds": seconds, "budget": a.budget, "kernels": n, "not_measured": len(p["unmeasured"]),
               "shares": shares, "machine": p["machine"]}
    print("skb bench: %d static kernels in %.1f s (budget %.0f s): %s" %
          (n, seconds, a.budget, ", ".join("%s %.0f%%" % (v, 100 * s) for v, s in shares.items())))
    write_json(a.json or os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
