#!/usr/bin/env python3
"""`skb explain` of two build folders of about 5,000 kernels each (target: under a second), in
its worst case: a flag changed, so every kernel of each side is explained. Prints the seconds and
the ratio to `cat` of the files it reads (plan.json, key.json and every kernel's .info of both
folders), measured in the same run; and the same for two identical folders.
usage: bench_explain.py BUILD_DIR [WORK_DIR] [--kernels N] [--repeat R]"""
import argparse, os, shutil, subprocess, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import ratio, row, stats, timed, write_json

HERE = os.path.dirname(os.path.abspath(__file__))
MAKE_DUMP = os.path.join(HERE, "..", "tools", "make_dump.py")


def kernels_of(folder):
    return len([n for n in os.listdir(os.path.join(folder, "kernel_meta")) if n.endswith(".info")])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--kernels", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    bindir = os.path.join(os.path.abspath(a.build), "bin")
    work = os.path.abspath(a.work or os.path.join(a.build, "bench-explain"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # One rank; about 17.5 distinct kernels per (sequence length, batch, dtype): 70 per length.
    n_seqs = max(1, -(-a.kernels // 70))
    dump = os.path.join(work, "dump")
    subprocess.run([sys.executable, MAKE_DUMP, dump, "--ranks", "1", "--seqs", ",".join(str(8 + 4 * i) for i in range(n_seqs)),
                    "--batches", "1,2", "--dtypes", "float16,bfloat16", "--hidden", "64", "--heads", "4"], check=True)
    templates = os.path.join(work, "templates")
    shutil.copytree(os.path.join(a.build, "share", "skb", "templates"), templates)
    profile = os.path.join(templates, "toolchains", "host.json")
    with open(profile) as f:
        text = f.read()
    with open(profile, "w") as f:
        f.write(text.replace('"-O3"', '"-O2"'))
    folders = {}
    for name, extra in (("a", []), ("same", []), ("flag", ["--toolchain", profile])):
        folders[name] = os.path.join(work, name)
        subprocess.run([os.path.join(bindir, "skb-generate"), "-p", dump, "-o", folders[name], "--no-package", "-q"] + extra,
                       check=True)
    n = kernels_of(folders["a"])
    print("%d kernels in each build folder" % n)

    figures = {"kernels": n}
    for case in ("flag", "same"):
        b = folders[case]
        reads = os.path.join(work, "reads-%s.txt" % case)
        with open(reads, "w") as f:
            for d in (folders["a"], b):
                f.write(os.path.join(d, "plan.json") + "\n" + os.path.join(d, "key.json") + "\n")
                for name in sorted(os.listdir(os.path.join(d, "kernel_meta"))):
                    f.write(os.path.join(d, "kernel_meta", name) + "\n")
        cat = ["sh", "-c", "xargs cat < %s > /dev/null" % reads]
        explain = ["sh", "-c", '"$0" explain --json "$1" "$2" > /dev/null; [ $? -le 3 ]', os.path.join(bindir, "skb"),
                   folders["a"], b]
        timed(explain, 1)  # warm the page cache for both
        timed(cat, 1)
        t_explain, t_cat = [], []
        for _ in range(a.repeat):  # paired runs
            t_explain += timed(explain, 1)
            t_cat += timed(cat, 1)
        figures[case] = {"seconds": stats(t_explain), "vs_cat": ratio(t_explain, t_cat)}
        row("skb explain, %s: seconds" % case, stats(t_explain), "< 1 s", unit="s")
        row("skb explain, %s / cat of what it reads" % case, ratio(t_explain, t_cat))
    write_json(os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
