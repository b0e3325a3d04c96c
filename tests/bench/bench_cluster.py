#!/usr/bin/env python3
"""Cluster benchmark: builders that share a kernel store (redis-server on 127.0.0.1, one team key)
start one model together, each as one node does (skb-package's whole job, -j 1, a home of its
own: configuration, local store, TMPDIR). Figures, each a ratio to a run in this script:
  - 4 builders: the compiles they run between them over the model's distinct kernels (goal <= 1.1)
    and the wall time until all four are done over one builder alone (goal <= 0.7);
  - one builder alone with claims over one without (?claims=off) (goal <= 1.03).
usage: bench_cluster.py BUILD_DIR [WORK_DIR] [--seqs LIST] [--builders N] [--repeat R] [--json FILE]"""
import os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import bench_parser, free_port, fresh_work, ratio, row, wait_port, write_json


def main():
    ap = bench_parser(__doc__)
    ap.add_argument("--seqs", default="2,3,4,5,6,7,8")
    ap.add_argument("--builders", type=int, default=4)
    ap.add_argument("--repeat", type=int, default=2)
    a = ap.parse_args()
    build, work = fresh_work(a, "bench-cluster")
    dump = os.path.join(work, "dump")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "tools", "make_dump.py"), dump,
                    "--ranks", "2", "--seqs", a.seqs, "--hidden", "16", "--heads", "2"], check=True,
                   stdout=subprocess.DEVNULL)
    key = os.path.join(work, "team.key")
    with open(os.path.join(work, "team.pub"), "w") as pub:
        subprocess.run([os.path.join(build, "bin", "skb"), "key", "new", "team", key], check=True, stdout=pub)
    counter = os.path.join(work, "count_cc")
    with open(counter, "w") as f:
        f.write('#!/bin/sh\necho x >>"$COMPILE_LOG"\nexec "$@"\n')
    os.chmod(counter, 0o755)

    def start(name, url):
        home = os.path.join(work, name)
        shutil.rmtree(home, ignore_errors=True)
        os.makedirs(os.path.join(home, "tmp"))
        env = dict(os.environ, HOME=home, XDG_CONFIG_HOME=os.path.join(home, "config"),
                   SKB_CACHE_DIR=os.path.join(home, "local"), TMPDIR=os.path.join(home, "tmp"), SKB_SIGNING_KEY=key,
                   SKB_TRUSTED_KEYS=os.path.join(work, "team.pub"), COMPILE_LOG=os.path.join(home, "compiles"))
        cmd = [os.path.join(build, "bin", "skb-package"), "-p", dump, "-o", os.path.join(home, "out"), "-j", "1",
               "--cache", url, "--launcher", counter, "-q"]
        return subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL)

    def compiles(name):
        try:
            with open(os.path.join(work, name, "compiles")) as f:
                return len(f.read().splitlines())
        except FileNotFoundError:
            return 0

    def together(names, url):
        t = time.perf_counter()
        procs = [start(n, url) for n in names]
        for p in procs:
            if p.wait() != 0:
                raise RuntimeError("a builder failed")
        return time.perf_counter() - t, sum(compiles(n) for n in names)

    port = free_port()
    redis = subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(port), "--save", "",
                              "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL)
    db = iter(range(16))
    alone, alone_off, many, over = [], [], [], []
    try:
        wait_port(port)
        url = lambda extra="": "redis://127.0.0.1:%d/%d%s" % (port, next(db), extra)
        for _ in range(a.repeat):
            secs, distinct = together(["alone"], url())
            alone.append(secs)
            alone_off.append(together(["alone-off"], url("?claims=off"))[0])
            secs, total = together(["b%d" % i for i in range(a.builders)], url())
            many.append(secs)
            over.append(total / distinct)
    finally:
        redis.terminate()
        redis.wait()
    figures = {"kernels": distinct, "builders": a.builders, "compiles_vs_distinct": ratio(over, [1] * len(over)),
               "all_done_vs_alone": ratio(many, alone), "alone_claims_vs_without": ratio(alone, alone_off),
               "alone_seconds": min(alone)}
    print("\n%d builders at -j 1 on one redis store, %d kernels, one builder alone %.1f s:" %
          (a.builders, distinct, min(alone)))
    row("  compiles between them / distinct kernels", figures["compiles_vs_distinct"], "<= 1.1")
    row("  wall until all are done / one builder alone", figures["all_done_vs_alone"], "<= 0.7")
    row("  one builder alone, claims / without", figures["alone_claims_vs_without"], "<= 1.03")
    write_json(a.json or os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
