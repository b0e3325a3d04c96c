#!/usr/bin/env python3
"""Library benchmark: N packages of K kernels, each sharing half its kernels with the next (as
restart rounds and models that share layers do), installed one after the other into one operator
library. Figures, each a ratio within this run:
  - the bytes of the library's package folders (their regular files, each inode once) over the
    bytes of the distinct payload files the packages hold (goal <= 1.15), and what they would be
    with every package's files its own (each path once);
  - the time of the last install over the first (goal <= 1.1), and, steadier (the first also
    unpacks the installer that the others find in the library), the median of the last 5
    installs over that of the 2nd to 6th;
  - an update of 400 kernels by 20: the delta package (skb-package --base, which carries no
    installer: it runs the one its base left in the library) over the whole one, as .run files
    (goal <= 0.10); the same with the installer in (--self-contained); and as payloads.
Kernels are a real host kernel's bytes made distinct per shape by a stand-in compiler (it appends
16 KiB that do not compress, derived from the kernel's -D macros,
and the macros), so that the figures are about the library, not the compiler.
--no-update leaves the update's figures out (for a run about the library's size only).
usage: bench_library.py BUILD_DIR [WORK_DIR] [--packages N] [--kernels K] [--repeat R] [--no-update] [--json FILE]"""
import glob, json, os, statistics, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import real_host_kernel, stand_in_toolchain, bench_parser, fresh_work, ratio, row, stats, write_json


def main():
    ap = bench_parser(__doc__)
    ap.add_argument("--packages", type=int, default=41)
    ap.add_argument("--kernels", type=int, default=50)
    ap.add_argument("--repeat", type=int, default=2)
    ap.add_argument("--no-update", action="store_true")
    a = ap.parse_args()
    build, work = fresh_work(a, "bench-library")
    bin_ = lambda name: os.path.join(build, "bin", name)
    sample = real_host_kernel(build, work)
    fake = stand_in_toolchain(work, sample)
    t = ('{"dtype": "float16", "format": "ND", "index": 0, "is_view": false, "name": "%s", "origin_format": "ND", '
         '"origin_shape": %s, "param_type": "required", "shape": %s, "value_depend": false}')
    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000", SKB_CACHE_DIR="off")

    def package(name, kernels, epoch, *extra):
        """The .run of a package of the given kernel numbers."""
        dump = os.path.join(work, "dump-" + name)
        os.makedirs(dump)
        for i in kernels:
            shape = [1 + i // 100, 1 + i % 100]
            open(os.path.join(dump, "Relu_%d.json" % i), "w").write(
                '{"op_type": "Relu", "attrs": [], "inputs": [%s], "outputs": [%s]}' %
                (t % ("x", shape, shape), t % ("y", shape, shape)))
        out = os.path.join(work, "pkg-" + name)
        subprocess.run([bin_("skb-package"), "-p", dump, "-o", out, "--toolchain", fake, "-q"]
                       + list(extra), check=True, env=dict(env, SOURCE_DATE_EPOCH=str(epoch)), stdout=subprocess.DEVNULL)
        return glob.glob(out + "/*.run")[0]

    half = a.kernels // 2
    runs = [package(str(p), range(p * half, p * half + a.kernels), 1700000000 + p) for p in range(a.packages)]
    if not a.no_update:
        old = package("400", range(10000, 10400), 1700001000)
        whole = package("420", range(10000, 10420), 1700002000)
        delta = package("420-delta", range(10000, 10420), 1700002000, "--base", old)
        delta_sc = package("420-delta-sc", range(10000, 10420), 1700002000, "--base", old, "--self-contained")
    payload = lambda run: int(open(run, "rb").read(8192).decode("latin-1").split("skb_payload_size=")[1].split("\n")[0])

    first, last, early, late, over, unshared = [], [], [], [], [], []
    for r in range(a.repeat):
        lib = os.path.join(work, "lib%d" % r)
        seconds = []
        for run in runs:
            os.sync()
            start = time.perf_counter()
            subprocess.run(["sh", run, "--install-path=" + lib, "-q"], check=True)
            seconds.append(time.perf_counter() - start)
        first.append(seconds[0])
        last.append(seconds[-1])
        early.append(statistics.median(seconds[1:6]))
        late.append(statistics.median(seconds[-5:]))
        root = os.path.join(lib, "opp", "static_kernel", "ai_core")
        distinct = {}
        for m in glob.glob(root + "/static_kernel_*/manifest.json"):
            for f in json.load(open(m))["files"]:
                distinct[f["sha256"]] = f["size"]
        over.append(library_bytes_all(root) / sum(distinct.values()))
        unshared.append(library_bytes_all(root, by_path=True) / sum(distinct.values()))
    figures = {"packages": a.packages, "kernels": a.kernels, "library_vs_distinct": ratio(over, [1] * len(over)),
               "unshared_library_vs_distinct": ratio(unshared, [1] * len(unshared)),
               "last_install_vs_first": ratio(last, first), "last5_vs_early5": ratio(late, early),
               "early5_install_ms": stats([x * 1e3 for x in early]), "last5_install_ms": stats([x * 1e3 for x in late])}
    if not a.no_update:
        figures.update({"delta_vs_whole_run": ratio([os.path.getsize(delta)], [os.path.getsize(whole)]),
                        "delta_vs_whole_payload": ratio([payload(delta)], [payload(whole)]),
                        "self_contained_delta_vs_whole_run": ratio([os.path.getsize(delta_sc)],
                                                                   [os.path.getsize(whole)])})
    print("\n%d packages of %d kernels, each sharing half with the next, into one library:" % (a.packages, a.kernels))
    row("  library bytes / distinct payload bytes", figures["library_vs_distinct"], "<= 1.15")
    row("  the same, each package's files its own", figures["unshared_library_vs_distinct"])
    row("  install of the last package / of the first", figures["last_install_vs_first"], "<= 1.1")
    row("  median install of the last 5 / of the 2nd to 6th", figures["last5_vs_early5"], "<= 1.1")
    row("  median install of the 2nd to 6th (ms)", figures["early5_install_ms"], unit="")
    row("  median install of the last 5 (ms)", figures["last5_install_ms"], unit="")
    if not a.no_update:
        print("an update of 400 kernels by 20 (whole: %d bytes):" % os.path.getsize(whole))
        row("  delta package / whole package", figures["delta_vs_whole_run"], "<= 0.10")
        row("  the same, with its installer (--self-contained)", figures["self_contained_delta_vs_whole_run"])
        row("  delta payload / whole payload", figures["delta_vs_whole_payload"])
    write_json(a.json or os.path.join(work, "figures.json"), figures)


def library_bytes_all(root, by_path=False):
    """Regular files below the package folders, each inode once (or each path, by_path)."""
    seen = {}
    for d in glob.glob(root + "/static_kernel_*"):
        for dirpath, _, files in os.walk(d):
            for f in files:
                st = os.lstat(os.path.join(dirpath, f))
                seen[os.path.join(dirpath, f) if by_path else st.st_ino] = st.st_size
    return sum(seen.values())


if __name__ == "__main__":
    main()
