#!/usr/bin/env python3
"""Packager benchmark: for a package of thousands of kernels, prints packaging time as a ratio to
`tar -czf` of the same files (target <= 1.3), install time as a ratio to `tar -xzf` of the payload
(target <= 1.0, verification included; and, to read it by, against `tar -xzf` followed by
`sync -f`, which leaves the files as durable as an install does), and 8 concurrent installs of the
package into one library as a ratio to one install (target <= 1.3), into a new library and into
one that has had a package (its lock file there: the 7 that find the package installed wait for it
before hashing the payload), with, to read that last figure by, the time of 1 and of 8 runs at
once of the package into a library that already has it (the cost of the copies that only verify
and wait); and an install of the same kernels signed, under a trust policy, as a ratio to the
unsigned package without one, interleaved (target <= 1.02: what checking the signature adds); and
an install right after another process wrote 1 GiB it has not synced, as a ratio to one without
(what others' pending writes cost an install: it syncs only its own then). Also the bytes of the
installer as the .run carries it (target <= 1 MiB) and of the .run over its payload.
usage: bench_package.py BUILD_DIR [WORK_DIR] [--kernels N] [--repeat R]"""
import argparse, glob, os, shutil, subprocess, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import real_host_kernel, stand_in_toolchain, ratio, row, stats, timed, write_json


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("build")
    ap.add_argument("work", nargs="?", default=None)
    ap.add_argument("--kernels", type=int, default=3000)
    ap.add_argument("--repeat", type=int, default=5)
    a = ap.parse_args()
    build = os.path.abspath(a.build)
    work = os.path.abspath(a.work or os.path.join(build, "bench-package"))
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)

    # Thousands of kernels of realistic size (stand_in_toolchain).
    sample = real_host_kernel(build, work)
    fake = stand_in_toolchain(work, sample)
    dump = os.path.join(work, "dump")
    os.makedirs(dump)
    for i in range(a.kernels):
        shape = [1 + i // 100, 1 + i % 100]
        t = '{"dtype": "float16", "format": "ND", "index": 0, "is_view": false, "name": "%s", "origin_format": "ND", ' \
            '"origin_shape": %s, "param_type": "required", "shape": %s, "value_depend": false}'
        open(os.path.join(dump, "Relu_%d.json" % i), "w").write(
            '{"op_type": "Relu", "attrs": [], "inputs": [%s], "outputs": [%s]}' % (t % ("x", shape, shape), t % ("y", shape, shape)))
    out = os.path.join(work, "out")
    subprocess.run([os.path.join(build, "bin", "skb-generate"), "-p", dump, "-o", out, "--toolchain",
                    fake, "--no-package", "-q"], check=True)
    subprocess.run(["ninja", "-C", out, "--quiet"], check=True, stdout=subprocess.DEVNULL)
    kdir = os.path.join(out, "kernel_meta")
    nbytes = sum(os.path.getsize(p) for p in glob.glob(kdir + "/*"))
    print("%d kernels, %.1f MB in kernel_meta" % (a.kernels, nbytes / 1e6))

    env = dict(os.environ, SOURCE_DATE_EPOCH="1700000000")
    pkg_dir = os.path.join(work, "pkg")
    def clean_pkg():
        shutil.rmtree(pkg_dir, ignore_errors=True)
        os.sync()
    tar_c, ours_c = [], []
    for _ in range(a.repeat):
        tar_c += timed(["tar", "-czf", os.path.join(work, "ref.tgz"), "-C", out, "kernel_meta"], 1, setup=os.sync)
        ours_c += timed([os.path.join(build, "bin", "skb-package"), out, "-o", pkg_dir, "-q"], 1, setup=clean_pkg, env=env)
    run = glob.glob(pkg_dir + "/*.run")[0]
    key, trusted = os.path.join(work, "ci.key"), os.path.join(work, "ci.pub")
    with open(trusted, "w") as f:
        subprocess.run([os.path.join(build, "bin", "skb"), "key", "new", "ci", key], check=True, stdout=f)
    signed_dir = os.path.join(work, "signed")
    subprocess.run([os.path.join(build, "bin", "skb-package"), out, "-o", signed_dir, "-q", "--sign-key", key],
                   check=True, env=env)
    signed_run = glob.glob(signed_dir + "/*.run")[0]
    text = open(run, "rb").read(8192).decode("latin-1")
    poff = int(text.split("skb_payload_offset=")[1].split("\n")[0])
    payload = os.path.join(work, "payload.tgz")
    with open(run, "rb") as f, open(payload, "wb") as p:
        f.seek(poff)
        shutil.copyfileobj(f, p)

    # Every timed run writes into a folder of its own and nothing is deleted until the end:
    # ext4 skips inodes deleted in the last minute when it allocates new ones, so a run right
    # after `rm -rf` of 3,000 files pays seconds of inode-table scans that belong to neither
    # side. Each run starts with the previous one's writes synced.
    runs = iter(range(1 << 30))
    def fresh(kind):
        path = os.path.join(work, kind, str(next(runs)))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.sync()
        return path
    # tar -xzf leaves its files in the page cache; the install leaves them on disk. The second
    # baseline is tar made as durable (a sync of the filesystem it wrote to, as the install's).
    tar_x, tar_synced_x, ours_x = [], [], []
    for _ in range(a.repeat):
        xdir = fresh("x")
        tar_x += timed(["tar", "-xzf", payload, "-C", xdir], 1, setup=lambda: os.makedirs(xdir))
        xdir = fresh("x")
        tar_synced_x += timed(["sh", "-c", 'tar -xzf "$1" -C "$2" && sync -f "$2"', "sh", payload, xdir], 1,
                              setup=lambda: os.makedirs(xdir))
        lib = fresh("lib")
        ours_x += timed(["sh", run, "--install-path=" + lib, "-q"], 1)

    unsigned_x, signed_x = [], []
    for _ in range(2 * a.repeat + 3):  # a difference of a few ms in half a second: more pairs
        unsigned_x += timed(["sh", run, "--install-path=" + fresh("lib"), "-q"], 1, env=dict(os.environ, SKB_TRUSTED_KEYS=""))
        signed_x += timed(["sh", signed_run, "--install-path=" + fresh("lib"), "-q", "--trusted-keys", trusted], 1)

    def concurrent(n, in_use=False):
        lib = fresh("lib")
        if in_use:  # a library that has had a package: its lock file is there (ai_core/ went with it)
            subprocess.run(["sh", run, "--install-path=" + lib, "-q"], check=True)
            subprocess.run(["sh", run, "--install-path=" + lib, "-q", "--uninstall"], check=True)
            os.sync()
        t = time.perf_counter()
        procs = [subprocess.Popen(["sh", run, "--install-path=" + lib, "-q"]) for _ in range(n)]
        for p in procs:
            assert p.wait() == 0
        return time.perf_counter() - t
    one, eight, one_used, eight_used = [], [], [], []
    for _ in range(a.repeat):
        one.append(concurrent(1))
        eight.append(concurrent(8))
        one_used.append(concurrent(1, in_use=True))
        eight_used.append(concurrent(8, in_use=True))
    # What the 7 copies that only verify and wait cost: runs into a library that already has the
    # package do all of their work (unpack and check the installer, hash the payload, look at the
    # library) and install nothing.
    lib = fresh("lib")
    subprocess.run(["sh", run, "--install-path=" + lib, "-q"], check=True)
    def again(n):
        t = time.perf_counter()
        procs = [subprocess.Popen(["sh", run, "--install-path=" + lib, "-q"]) for _ in range(n)]
        for p in procs:
            assert p.wait() == 0
        return time.perf_counter() - t
    again1 = [again(1) for _ in range(a.repeat)]
    again8 = [again(8) for _ in range(a.repeat)]
    # An install on a node where another process has just written a checkpoint: 1 GiB it has not
    # synced, written before each run and deleted after it (its pages then need no writing),
    # paired with an install right before it with nothing pending.
    blob = os.path.join(work, "unsynced.bin")
    def write_unsynced():
        chunk = os.urandom(1 << 20)
        with open(blob, "wb") as f:
            for _ in range(1024):
                f.write(chunk)
    quiet_x, busy_x = [], []
    for _ in range(a.repeat):
        quiet_x += timed(["sh", run, "--install-path=" + fresh("lib"), "-q"], 1)
        lib = fresh("lib")
        busy_x += timed(["sh", run, "--install-path=" + lib, "-q"], 1, setup=write_unsynced)
        os.unlink(blob)
    for kind in ("x", "lib"):
        shutil.rmtree(os.path.join(work, kind), ignore_errors=True)

    head = open(run, "rb").read(1 << 16).decode("latin-1")
    field = lambda k: int(head.split("\n" + k + "=", 1)[1].split("\n", 1)[0])
    sizes = {"installer_bytes": field("skb_installer_size"), "installer_unpacked_bytes": field("skb_installer_unpacked_size"),
             "payload_bytes": field("skb_payload_size")}
    figures = {"kernels": a.kernels, "kernel_bytes": nbytes, "run_bytes": os.path.getsize(run), **sizes,
               "run_vs_payload": os.path.getsize(run) / sizes["payload_bytes"],
               "package_vs_tar_czf": ratio(ours_c, tar_c), "install_vs_tar_xzf": ratio(ours_x, tar_x),
               "install_vs_tar_xzf_synced": ratio(ours_x, tar_synced_x),
               "concurrent8_vs_1": ratio(eight, one), "concurrent8_vs_1_in_use": ratio(eight_used, one_used),
               "tar_czf_seconds": stats(tar_c), "package_seconds": stats(ours_c),
               "tar_xzf_seconds": stats(tar_x), "tar_xzf_synced_seconds": stats(tar_synced_x),
               "install_seconds": stats(ours_x), "install1_seconds": stats(one),
               "install8_seconds": stats(eight),
               "installed1_seconds": stats(again1), "installed8_seconds": stats(again8),
               "signed_install_vs_unsigned": ratio(signed_x, unsigned_x), "signed_install_seconds": stats(signed_x),
               "install_unsynced_vs_quiet": ratio(busy_x, quiet_x), "install_unsynced_seconds": stats(busy_x)}
    print()
    print("packager, %d kernels (%.1f MB), .run %.1f MB, %d repeats:" % (a.kernels, nbytes / 1e6, os.path.getsize(run) / 1e6, a.repeat))
    row("  skb-package / tar -czf of the same files", figures["package_vs_tar_czf"], "<= 1.3")
    print("  installer in the .run: %d bytes (target <= %d), %d unpacked; payload %d bytes; .run / payload %.3f"
          % (sizes["installer_bytes"], 1 << 20, sizes["installer_unpacked_bytes"], sizes["payload_bytes"],
             figures["run_vs_payload"]))
    row("  install (verification included) / tar -xzf", figures["install_vs_tar_xzf"], "<= 1.0")
    row("  the same / tar -xzf, then sync -f (as durable as the install)", figures["install_vs_tar_xzf_synced"])
    row("  8 concurrent installs / 1 install", figures["concurrent8_vs_1"], "<= 1.3")
    row("  the same into a library that had a package (its lock file there)", figures["concurrent8_vs_1_in_use"])
    row("  signed install under a trust policy / unsigned install", figures["signed_install_vs_unsigned"], "<= 1.02")
    row("  install with 1 GiB of another process unsynced / without", figures["install_unsynced_vs_quiet"])
    row("  tar -czf seconds", figures["tar_czf_seconds"], unit="s")
    row("  skb-package seconds", figures["package_seconds"], unit="s")
    row("  tar -xzf seconds", figures["tar_xzf_seconds"], unit="s")
    row("  tar -xzf, then sync -f, seconds", figures["tar_xzf_synced_seconds"], unit="s")
    row("  install seconds", figures["install_seconds"], unit="s")
    row("  install seconds, 1 GiB of another process unsynced", figures["install_unsynced_seconds"], unit="s")
    row("  1 install seconds (concurrency baseline)", figures["install1_seconds"], unit="s")
    row("  8 concurrent installs seconds", figures["install8_seconds"], unit="s")
    row("  1 run, package already installed, seconds", figures["installed1_seconds"], unit="s")
    row("  8 runs at once, already installed, seconds", figures["installed8_seconds"], unit="s")
    write_json(os.path.join(work, "figures.json"), figures)


if __name__ == "__main__":
    main()
