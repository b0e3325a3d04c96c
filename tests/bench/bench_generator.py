#!/usr/bin/env python3
"""Generator benchmark, on a dump shaped like real ones: 8 ranks, tens of thousands of files in
`<pid>_opcompile`, thousands of distinct kernels, every record written once per rank (byte for
byte, as opbase writes them). Prints skb-generate into a fresh folder and again with nothing
changed, each as a ratio to `cat` of the same files (targets <= 1.5 and <= 1.2) and to a Python
gather of them (sha256 of each file's bytes, json.loads of each distinct one; target < 1), with
skb-generate's peak memory (target < 150 MB); and, on a 10,000-kernel graph, a no-op `ninja` and
a no-op regeneration, with the manifest's size.
usage: bench_generator.py BUILD_DIR [WORK_DIR] [--files N] [--repeat R]"""
import argparse, json, os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import peak_rss_mib, ratio, row, stats, timed, write_json

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_DUMP = os.path.join(HERE, "..", "tools", "make_dump.py")
# What a few lines of Python do with the same files: read each, hash its bytes, parse each
# distinct one.
GATHER = """
import hashlib, json, sys
seen = {}
for path in open(sys.argv[1]).read().split():
    data = open(path, "rb").read()
    digest = hashlib.sha256(data).digest()
    if digest not in seen:
        seen[digest] = json.loads(data)
"""


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--files", type=int, default=40000)
    ap.add_argument("--kernels", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    gen = os.path.join(os.path.abspath(a.build), "bin", "skb-generate")
    work = os.path.abspath(a.work or os.path.join(a.build, "bench-generator"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    figures = {}

    # 8 ranks; 21 records per (sequence length, batch, dtype), about 5,000 distinct kernels at
    # 40,000 files; --files scales the number of sequence lengths.
    ranks, per_shape = 8, 21
    n_seqs = max(1, round(a.files / (ranks * per_shape * 4)))
    seqs = list(range(8, 8 + 4 * n_seqs, 4))
    dump = os.path.join(work, "dump")
    subprocess.run([sys.executable, MAKE_DUMP, dump, "--ranks", str(ranks), "--seqs", ",".join(map(str, seqs)),
                    "--batches", "1,2", "--dtypes", "float16,bfloat16", "--hidden", "64", "--heads", "4"], check=True)
    files = []
    for root, _, names in os.walk(dump):
        files += [os.path.join(root, n) for n in names]
    list_file = os.path.join(work, "files.txt")
    with open(list_file, "w") as f:
        f.write("\n".join(files) + "\n")
    print("%d files in %s" % (len(files), dump))
    cat = ["sh", "-c", "xargs cat < %s > /dev/null" % list_file]
    gather = [sys.executable, "-c", GATHER, list_file]
    # Each fresh run writes into a folder of its own, all removed at the end: removing thousands
    # of files just before a run makes ext4 (mounted with discard) stall the run's own creates.
    def generate(i):
        return [gen, "-p", dump, "-o", os.path.join(work, "out%d" % i), "--no-package", "--quiet"]
    timed(cat, 1)  # warm the page cache
    base, py, fresh, again = [], [], [], []
    for i in range(a.repeat):  # paired runs, so that the ratios compare like with like
        base += timed(cat, 1)
        py += timed(gather, 1)
        fresh += timed(generate(i), 1)
        again += timed(generate(i), 1)
    mem = peak_rss_mib(generate(a.repeat))
    mem_again = peak_rss_mib(generate(a.repeat))
    with open(os.path.join(work, "out0", "summary.json")) as f:
        distinct = json.load(f)["distinct_kernels"]
    for i in range(a.repeat + 1):
        shutil.rmtree(os.path.join(work, "out%d" % i))
    figures["generate"] = {"files": len(files), "distinct_kernels": distinct, "cat_seconds": stats(base),
                           "python_gather_seconds": stats(py), "fresh_seconds": stats(fresh),
                           "again_seconds": stats(again), "fresh_vs_cat": ratio(fresh, base),
                           "again_vs_cat": ratio(again, base), "fresh_vs_python": ratio(fresh, py),
                           "again_vs_python": ratio(again, py), "peak_rss_mib": max(mem, mem_again)}

    # A 10,000-kernel graph, built with a toolchain whose "compiler" copies a file: what is
    # measured is ninja and the generator, not a compiler.
    tc_dir = os.path.join(work, "copytc")
    os.makedirs(tc_dir)
    with open(os.path.join(tc_dir, "k.cc"), "w") as f:
        f.write("// stands for a kernel\n")
    with open(os.path.join(tc_dir, "copy.json"), "w") as f:
        f.write('{"name": "copy", "compiler": "cp", "command": ["{compiler}", "{src}", "{out}"], "suffix": ".so", '
                '"entry": "skb_kernel", "template_dir": ".", "default_soc": "host", '
                '"ops": {"Relu": {"template": "k.cc", "dtypes": ["float16"]}}}')
    kdump = os.path.join(work, "kdump")
    os.makedirs(kdump)
    for i in range(a.kernels):
        shape = [1 + i // 100, 1 + i % 100]
        t = {"dtype": "float16", "format": "ND", "index": 0, "is_view": False, "name": "x", "origin_format": "ND",
             "origin_shape": shape, "param_type": "required", "shape": shape, "value_depend": False}
        rec = {"op_type": "Relu", "inputs": [t], "outputs": [dict(t, name="y")], "attrs": []}
        with open(os.path.join(kdump, "Relu_%d.json" % i), "w") as f:
            f.write(str(rec).replace("'", '"').replace("False", "false"))
    kout = os.path.join(work, "kout")
    kgen = [gen, "-p", kdump, "-o", kout, "--toolchain", os.path.join(tc_dir, "copy.json"), "--no-package", "--quiet"]
    subprocess.run(kgen, check=True)
    subprocess.run(["ninja", "-C", kout, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    # Baselines of the same run: stat of every output (what a no-op ninja must do at least) and
    # cat of every record (what a regeneration must read at least).
    noop, stat_all, regen, cat_all = [], [], [], []
    records = sorted(os.path.join(kdump, f) for f in os.listdir(kdump))
    for _ in range(max(5, a.repeat)):
        stat_all += timed(["ls", "-l", os.path.join(kout, "kernel_meta")], 1)
        noop += timed(["ninja", "-C", kout], 1)
    for _ in range(max(3, a.repeat)):
        cat_all += timed(["cat"] + records, 1)
        regen += timed(kgen, 1)
    out = subprocess.run(["ninja", "-C", kout], check=True, capture_output=True, text=True).stdout
    assert "no work to do" in out, out
    size = os.path.getsize(os.path.join(kout, "build.ninja"))
    figures["graph_10k"] = {"kernels": a.kernels, "manifest_bytes": size, "noop_ninja_seconds": stats(noop),
                            "noop_regenerate_seconds": stats(regen), "noop_ninja_vs_ls_l": ratio(noop, stat_all),
                            "noop_regenerate_vs_cat": ratio(regen, cat_all)}

    print()
    g = figures["generate"]
    print("generator, %d files (%d ranks), %d distinct kernels, %d paired runs:" % (len(files), ranks, g["distinct_kernels"],
                                                                                 a.repeat))
    row("  fresh skb-generate / cat of the same files", g["fresh_vs_cat"], "<= 1.5")
    row("  no-change skb-generate / cat", g["again_vs_cat"], "<= 1.2")
    row("  fresh skb-generate / Python gather", g["fresh_vs_python"], "< 1")
    row("  no-change skb-generate / Python gather", g["again_vs_python"], "< 1")
    row("  cat seconds", g["cat_seconds"], unit="s")
    row("  Python gather seconds", g["python_gather_seconds"], unit="s")
    row("  fresh skb-generate seconds", g["fresh_seconds"], unit="s")
    row("  no-change skb-generate seconds", g["again_seconds"], unit="s")
    print("  %-46s %.1f MiB  (target < 150 MB)" % ("skb-generate peak memory", g["peak_rss_mib"]))
    print("%d-kernel graph, build.ninja %.2f MB:" % (a.kernels, size / 1e6))
    row("  no-op ninja / ls -l of its outputs", figures["graph_10k"]["noop_ninja_vs_ls_l"])
    row("  no-op regeneration / cat of its records", figures["graph_10k"]["noop_regenerate_vs_cat"])
    row("  no-op ninja seconds", figures["graph_10k"]["noop_ninja_seconds"], unit="s")
    row("  no-op regeneration seconds", figures["graph_10k"]["noop_regenerate_seconds"], unit="s")
    write_json(os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
