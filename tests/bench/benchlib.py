"""Helpers of the benchmarks: timing commands, peak memory of a child, min/median/max."""
import json, os, resource, socket, statistics, subprocess, sys, time


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def wait_port(port):
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.1)
    raise RuntimeError("server on port %d did not start" % port)


def run(cmd, **kw):
    """Runs cmd; returns (seconds, peak RSS of the child in MiB)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, **kw)
    secs = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    return secs, max(after, before) / 1024.0


def peak_rss_mib(cmd, **kw):
    """Peak RSS of one run of cmd, measured by GNU time (independent of earlier children)."""
    out = subprocess.run(["/usr/bin/time", "-f", "%M"] + cmd, check=True, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, **kw).stderr.strip().splitlines()[-1]
    return int(out) / 1024.0


def timed(cmd, repeat, setup=None, **kw):
    """Seconds of `repeat` runs of cmd (setup runs before each, untimed)."""
    out = []
    for _ in range(repeat):
        if setup:
            setup()
        out.append(run(cmd, **kw)[0])
    return out


def stats(xs):
    return {"min": min(xs), "median": statistics.median(xs), "max": max(xs)}


def ratio(xs, base):
    """Ratios of paired runs (x_i / base_i), summarised, and the ratio of the best runs
    (min x / min base): on a machine whose disk or memory stalls at random, a stall only ever
    adds time, so the best of several runs is the closest to what each side costs."""
    r = stats([x / b for x, b in zip(xs, base)])
    r["best"] = min(xs) / min(base)
    return r


def row(name, r, target=None, unit="x"):
    t = "" if target is None else "  (target %s)" % target
    best = "  best/best %6.3f%s" % (r["best"], unit) if "best" in r else ""
    print("%-48s min %7.3f%s  median %7.3f%s  max %7.3f%s%s%s" % (name, r["min"], unit, r["median"], unit, r["max"], unit,
                                                              best, t))


def write_json(path, data):
    with open(path, "w") as f:
        json.dump(data, f, indent=2, sort_keys=True)
    print("figures written to", path)


def bench_parser(doc):
    """An argument parser with what every benchmark takes: BUILD_DIR, [WORK_DIR], --json FILE."""
    import argparse
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--json", default=None)
    return ap


def fresh_work(a, name):
    """The build folder and an emptied work folder (WORK_DIR, else BUILD_DIR/name)."""
    import shutil
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, name))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    return build, work


def real_host_kernel(build, work):
    """A real host kernel (a MatMulV2's shared object), compiled under WORK/real: the bytes the
    benchmarks' stand-in compilers copy, so that packages hold kernels of realistic size."""
    import glob
    real = os.path.join(work, "real")
    subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "..", "tools", "make_dump.py"),
                    os.path.join(real, "dump"), "--ranks", "1", "--hidden", "64"], check=True, stdout=subprocess.DEVNULL)
    subprocess.run([os.path.join(build, "bin", "skb-generate"), "-p", os.path.join(real, "dump"), "-o", real,
                    "--no-package", "-q"], check=True)
    subprocess.run(["ninja", "-C", real, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    return sorted(glob.glob(os.path.join(real, "kernel_meta", "MatMulV2_*.so")))[0]


def stand_in_toolchain(work, sample):
    """A toolchain profile (WORK/tc/fake.json) of Relu float16 kernels whose "compiler" copies
    `sample` and appends 16 KiB that do not compress, derived from the kernel's -D macros, and the
    macros: every kernel differs, the same kernel is the same bytes in every build, and packages
    compress as machine code does rather than as copies of one file."""
    tc = os.path.join(work, "tc")
    os.makedirs(tc)
    open(os.path.join(tc, "k.cc"), "w").write("// stands for a kernel\n")
    command = ('out="$1"; shift; k=$(echo "$@" | sha256sum | cut -c1-32); cat %s > "$out" && '
               'head -c 16384 /dev/zero | openssl enc -aes-128-ctr -K $k -iv 0 >> "$out" && echo "$@" >> "$out"' % sample)
    profile = {"name": "fakecc", "compiler": "sh", "identify": ["sh", "-c", "echo fakecc"],
               "command": ["{compiler}", "-c", command, "{src}", "{out}", "{defines}"], "suffix": ".so",
               "entry": "skb_kernel", "template_dir": ".", "default_soc": "host",
               "ops": {"Relu": {"template": "k.cc", "dtypes": ["float16"]}}}
    path = os.path.join(tc, "fake.json")
    with open(path, "w") as f:
        json.dump(profile, f)
    return path
