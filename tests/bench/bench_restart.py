#!/usr/bin/env python3
"""Restart benchmark: a model of about 430 kernels started 4 times as a serving process starts,
through the op_compiler entry with the default local kernel store: each start has five rounds
(one per captured graph: 60, 4, 125, 121 and 121 kernels' records), each into a fresh -o folder,
each .run installed. Figures, in one run:
  - compiles after the first start (the local store's misses; target 0);
  - a restart's wall time, installs included, over the first start's (target <= 0.03);
  - new disk per restart beyond its .run files: what its -o folders and the store grew by
    (target <= 1 MB);
  - the local store's size over the sum of its kernels' sizes (target <= 1.1).
usage: bench_restart.py BUILD_DIR [WORK_DIR] [--starts N] [--json FILE]"""
import argparse, glob, json, os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ratio, stats, row, write_json

ROUNDS = [60, 4, 125, 121, 121]


def du(path):
    total = 0
    for root, _, files in os.walk(path):
        for f in files:
            total += os.lstat(os.path.join(root, f)).st_size
    return total


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--starts", type=int, default=4)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, "bench-restart"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    env = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "config"), XDG_CACHE_HOME=os.path.join(work, "cache"),
               TMPDIR=os.path.join(work, "tmp"), SKB_TOOLCHAIN="host")  # the host profile stands in for CANN's
    env.pop("SKB_CACHE_DIR", None)
    env.pop("SKB_CACHE", None)
    os.makedirs(env["TMPDIR"])
    store = os.path.join(env["XDG_CACHE_HOME"], "skb")
    skb = os.path.join(build, "bin", "skb")
    op_compiler = os.path.join(build, "libexec", "skb", "compat", "op_compiler")
    # One rank, each distinct record once: a file is a kernel. Rounds take disjoint files.
    dump = os.path.join(work, "dump")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "tools", "make_dump.py"), dump,
                    "--ranks", "1", "--seqs", ",".join(str(s) for s in range(2, 80)), "--hidden", "16", "--heads", "2"],
                   check=True, stdout=subprocess.DEVNULL)
    files = sorted(glob.glob(os.path.join(dump, "*", "*_opcompile", "*.json")))
    if len(files) < sum(ROUNDS):
        sys.exit("bench_restart: the dump has %d records, %d needed" % (len(files), sum(ROUNDS)))
    rounds, at = [], 0
    for i, n in enumerate(ROUNDS):
        d = os.path.join(work, "rounds", "r%d" % i, "ts20261125000000000000_pid%d_outputs" % (1000 + i),
                         "%d_opcompile" % (1000 + i))
        os.makedirs(d)
        for f in files[at:at + n]:
            shutil.copy(f, d)
        rounds.append(os.path.dirname(os.path.dirname(d)))
        at += n

    def start(k):
        """One serving start: every round into a fresh -o, its .run installed. Seconds, the .run
        bytes, and the bytes of everything else its -o folders hold."""
        t0 = time.perf_counter()
        runs = other = 0
        for i, r in enumerate(rounds):
            out = os.path.join(work, "starts", "s%d" % k, "ts_round%d_outputs" % i)
            subprocess.run([op_compiler, "-p", r, "-o", out, "-v", "Ascend910B3", "-l", "error"], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            run = glob.glob(os.path.join(out, "*.run"))[0]
            subprocess.run([run, "-q", "--install-path=" + os.path.join(work, "install")], check=True, env=env)
            runs += os.path.getsize(run)
            other += du(out) - os.path.getsize(run)
        return time.perf_counter() - t0, runs, other

    def counts():
        out = subprocess.run([skb, "cache", "stats", "--json"], check=True, env=env, capture_output=True, text=True)
        return json.loads(out.stdout)

    first, _, _ = start(0)
    after_first = counts()
    restarts, disk = [], []
    for k in range(1, a.starts):
        before = du(store)
        seconds, _, other = start(k)
        restarts.append(seconds)
        disk.append(other + max(0, du(store) - before))
    final = counts()
    compiles_after_first = final["counts"]["misses"] - after_first["counts"]["misses"]
    kernels_bytes = {}
    for so in glob.glob(os.path.join(work, "install", "opp", "static_kernel", "ai_core", "static_kernel_*", "**", "*.so"),
                     recursive=True):
        kernels_bytes[os.path.basename(so)] = os.path.getsize(so)
    figures = {
        "kernels": after_first["entries"],
        "first_start_seconds": first,
        "restart_vs_first": ratio(restarts, [first] * len(restarts)),
        "compiles_after_first": compiles_after_first,
        "new_disk_per_restart_bytes": stats(disk),
        "store_vs_kernels": final["bytes"] / max(1, sum(kernels_bytes.values())),
    }
    print("%d kernels in %d rounds; first start %.1f s" % (figures["kernels"], len(ROUNDS), first))
    row("restart (installs included) / first start", figures["restart_vs_first"], "<= 0.03")
    print("compiles after the first start: %d (target 0)" % compiles_after_first)
    print("new disk per restart beyond its .run files: %d bytes max (target <= 1 MB)" % max(disk))
    print("local store / its kernels' bytes: %.3f (target <= 1.1)" % figures["store_vs_kernels"])
    write_json(a.json or os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
