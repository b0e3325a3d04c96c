#!/usr/bin/env python3
"""Build benchmark: wall time of building the kernels of one dump, as ratios to a local `ninja -j1`
build measured in the same run:
  - the same compiler commands run directly, one after another (what skb's compile step and
    ninja add per kernel: target <= 5% overhead);
  - ninja -j2 (both cores);
  - every compile through a distccd on 127.0.0.1 (the same 2 cores: on loopback this shows the
    engine's overhead, not a speedup);
  - ccache with a warm Redis remote cache and an empty local cache (a second machine).
Starts and stops its own distccd and redis-server on 127.0.0.1.
usage: bench_build.py BUILD_DIR [WORK_DIR] [--seqs N] [--repeat R] [--json FILE]"""
import argparse, json, os, shlex, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import free_port, ratio, row, stats, wait_port, write_json


RECORDER = """import json, os, sys
with open(os.environ["SKB_BENCH_RECORD"], "a") as f:
    f.write(json.dumps(sys.argv[1:]) + "\\n")
os.execvp(sys.argv[1], sys.argv[1:])
"""


def direct_commands(gen, dump, work, out):
    """The compiler and linker commands of every kernel edge of out, without skb's compile step:
    the compile commands as a launcher saw them in an untimed build of the same dump (the
    compile step makes each kernel's -D macros), the link commands from build.ninja."""
    record = os.path.join(work, "record")
    shutil.rmtree(record, ignore_errors=True)
    log, recorder = os.path.join(work, "record.log"), os.path.join(work, "record.py")
    with open(recorder, "w") as f:
        f.write(RECORDER)
    if os.path.exists(log):
        os.remove(log)
    subprocess.run([gen, "-p", dump, "-o", record, "--no-package", "-q", "--launcher", sys.executable, "--launcher",
                    recorder], check=True)
    subprocess.run(["ninja", "-C", record, "--quiet"], check=True, env=dict(os.environ, SKB_BENCH_RECORD=log),
                   stdout=subprocess.DEVNULL)
    compiles = {}
    for line in open(log):
        words = json.loads(line)
        obj = words[words.index("-o") + 1]
        name = os.path.basename(obj).split(".")[0]
        compiles[name] = words
    text = subprocess.run(["ninja", "-C", out, "-t", "commands"], check=True, capture_output=True, text=True).stdout
    cmds = []
    for line in text.splitlines():
        words = shlex.split(line)
        if "compile-step" not in words:
            continue
        name = line.split("--name ")[1].split()[0]
        obj, so = os.path.join(out, "direct", name + ".o"), os.path.join(out, "direct", name + ".so")
        compile_words = compiles[name]
        compile_words[compile_words.index("-o") + 1] = obj
        cmds.append(compile_words)
        words = words[words.index("--") + 1:]
        if "@LINK@" in words:
            cmds.append([w.replace("@OBJ@", obj).replace("@OUT@", so) for w in words[words.index("@LINK@") + 1:]])
    return cmds


def new_shape_compiles(dump, out):
    """Adds a copy of one unary op's record with a shape never seen; returns what ninja compiles."""
    for root, _, files in sorted(os.walk(dump)):
        for f in sorted(files):
            rec = json.load(open(os.path.join(root, f)))
            if rec.get("op_type") in ("Relu", "Gelu", "FastGelu", "Square"):
                for t in rec["inputs"] + rec["outputs"]:
                    t["shape"] = t["origin_shape"] = [7, 1, 3]
                with open(os.path.join(root, "new_shape.json"), "w") as g:
                    json.dump(rec, g)
                log = subprocess.run(["ninja", "-C", out], check=True, capture_output=True, text=True).stdout
                return log.count("Compiling ")
    raise RuntimeError("no unary op in the dump")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--seqs", type=int, default=8)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--json", default=None)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, "bench-build"))
    gen = os.path.join(build, "bin", "skb-generate")
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    dump = os.path.join(work, "dump")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "tools", "make_dump.py"), dump,
                    "--ranks", "2", "--seqs", str(a.seqs), "--hidden", "16", "--heads", "2"], check=True,
                   stdout=subprocess.DEVNULL)

    servers = []
    try:
        dport, rport = free_port(), free_port()
        os.makedirs(os.path.join(work, "distcc-client"))
        log = open(os.path.join(work, "distccd.log"), "w")
        servers.append(subprocess.Popen(["distccd", "--daemon", "--no-detach", "--listen", "127.0.0.1", "--allow",
                                         "127.0.0.1/32", "--port", str(dport), "--jobs", "2", "--log-stderr"],
                                        stderr=log))
        servers.append(subprocess.Popen(["redis-server", "--bind", "127.0.0.1", "--port", str(rport), "--save", "",
                                         "--appendonly", "no", "--dir", work], stdout=subprocess.DEVNULL))
        wait_port(dport)
        wait_port(rport)
        distcc_env = dict(os.environ, DISTCC_HOSTS="127.0.0.1:%d/2" % dport, DISTCC_FALLBACK="0",
                          DISTCC_BACKOFF_PERIOD="0", DISTCC_DIR=os.path.join(work, "distcc-client"))
        redis = "redis://127.0.0.1:%d" % rport

        def build_once(name, jobs, launcher=None, env=None):
            out = os.path.join(work, name)
            shutil.rmtree(out, ignore_errors=True)
            cmd = [gen, "-p", dump, "-o", out, "--no-package", "-q"] + (["--launcher", launcher] if launcher else [])
            subprocess.run(cmd, check=True, env=env)
            t = time.perf_counter()
            subprocess.run(["ninja", "-C", out, "-j", str(jobs), "--quiet"], check=True, env=env,
                           stdout=subprocess.DEVNULL)
            return time.perf_counter() - t, out

        # Warm the remote cache once.
        build_once("warmup", 2, "ccache", dict(os.environ, CCACHE_DIR=os.path.join(work, "cache-warm"),
                                                CCACHE_REMOTE_STORAGE=redis))
        times = {k: [] for k in ("j1", "direct", "j1_rebuild", "j2", "distcc", "warm_cache")}
        kernels = 0
        for i in range(a.repeat):
            secs, out = build_once("j1", 1)
            times["j1"].append(secs)
            kernels = len([f for f in os.listdir(os.path.join(out, "kernel_meta")) if f.endswith(".so")])
            cmds = direct_commands(gen, dump, work, out)
            os.makedirs(os.path.join(out, "direct"))
            t = time.perf_counter()
            for c in cmds:
                subprocess.run(c, check=True)
            times["direct"].append(time.perf_counter() - t)
            # The overhead pair: the same folder, both runs with warm caches, ninja after the direct run.
            subprocess.run(["ninja", "-C", out, "-t", "clean"], check=True, stdout=subprocess.DEVNULL)
            t = time.perf_counter()
            subprocess.run(["ninja", "-C", out, "-j1", "--quiet"], check=True, stdout=subprocess.DEVNULL)
            times["j1_rebuild"].append(time.perf_counter() - t)
            times["j2"].append(build_once("j2", 2)[0])
            times["distcc"].append(build_once("distcc", 4, "distcc", distcc_env)[0])
            cache_env = dict(os.environ, CCACHE_DIR=os.path.join(work, "cache-%d" % i), CCACHE_REMOTE_STORAGE=redis)
            times["warm_cache"].append(build_once("cached", 2, "ccache", cache_env)[0])
    finally:
        for s in servers:
            s.terminate()
            s.wait()

    # One new shape in one rank: ninja alone regenerates the graph and compiles exactly one kernel.
    one_new = new_shape_compiles(dump, os.path.join(work, "j1"))

    figures = {"kernels": kernels, "one_new_shape_compiles": one_new, "repeat": a.repeat, "seconds": {k: stats(v) for k, v in times.items()},
               "compile_step_overhead": ratio(times["j1_rebuild"], times["direct"]),
               "j2_vs_j1": ratio(times["j2"], times["j1"]), "distcc_vs_j1": ratio(times["distcc"], times["j1"]),
               "warm_cache_vs_j1": ratio(times["warm_cache"], times["j1"])}
    print()
    print("build of %d kernels, %d repeats (ratios of paired runs):" % (kernels, a.repeat))
    row("  ninja -j1 / the same compiler commands run directly", figures["compile_step_overhead"], "<= 1.05")
    row("  ninja -j2 / ninja -j1", figures["j2_vs_j1"])
    row("  distcc to 127.0.0.1 (-j4) / ninja -j1", figures["distcc_vs_j1"])
    row("  warm remote ccache, empty local (-j2) / ninja -j1", figures["warm_cache_vs_j1"])
    row("  ninja -j1 seconds", figures["seconds"]["j1"], unit="s")
    print("  %-46s %d  (must be 1)" % ("compiles after adding one new shape", one_new))
    write_json(a.json or os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
