#!/usr/bin/env python3
"""Reads the figures the benchmarks wrote under WORK and prints them as one table (every row a
ratio to a baseline measured in the same run, min / median / max over the repeats of paired
runs, and best/best: the best run of each side, the figure least moved by a stalling disk), then writes
the same rows as WORK/bench.json.
usage: report.py WORK"""
import json, os, sys


def load(work, name):
    with open(os.path.join(work, name)) as f:
        return json.load(f)


def main():
    work = sys.argv[1]
    gen = load(work, "generator/figures.json")
    build = load(work, "build/figures.json")
    pkg = load(work, "package/figures.json")
    kern = load(work, "kernels.json")
    store = load(work, "store/figures.json")
    explain = load(work, "explain/figures.json")
    restart = load(work, "restart/figures.json")
    cluster = load(work, "cluster/figures.json")
    library = load(work, "library/figures.json")
    payoff = load(work, "payoff/figures.json")
    g = gen["generate"]
    k10 = gen["graph_10k"]
    speedups = [c["speedup"] for c in kern["calls"]]
    blas = [c["fraction_of_openblas"] for c in kern["calls"] if "fraction_of_openblas" in c]
    rows = [
        ("generator, fresh: %d stats files / cat of the same files" % g["files"], g["fresh_vs_cat"], "<= 1.5"),
        ("generator, nothing changed / cat", g["again_vs_cat"], "<= 1.2"),
        ("generator, fresh / Python gather (sha256, json.loads of distinct)", g["fresh_vs_python"], "< 1"),
        ("generator, nothing changed / Python gather", g["again_vs_python"], "< 1"),
        ("generator: peak memory (MiB)", {"min": g["peak_rss_mib"], "median": g["peak_rss_mib"], "max": g["peak_rss_mib"]},
         "< 150 MB"),
        ("no-op regeneration, %d-kernel graph / cat of its records" % k10["kernels"], k10["noop_regenerate_vs_cat"], None),
        ("no-op ninja, %d-kernel graph / ls -l of its outputs" % k10["kernels"], k10["noop_ninja_vs_ls_l"], None),
        ("compiles after adding one shape", {"min": build["one_new_shape_compiles"], "median":
                                              build["one_new_shape_compiles"], "max": build["one_new_shape_compiles"]},
         "== 1"),
        ("compile step: ninja -j1 / compiler run directly (%d kernels)" % build["kernels"],
         build["compile_step_overhead"], "<= 1.05"),
        ("ninja -j2 / ninja -j1", build["j2_vs_j1"], None),
        ("distcc on 127.0.0.1 / ninja -j1", build["distcc_vs_j1"], None),
        ("warm remote ccache / ninja -j1", build["warm_cache_vs_j1"], None),
    ]
    for tc in ("host", "cuda"):
        if tc in store:
            s = store[tc]
            rows.append(("kernel store, fresh folder, warm file store / cold (%s, %d kernels)" % (tc, s["kernels"]),
                         s["file"]["warm_vs_cold"], "<= 0.05"))
            if "redis" in s:
                rows.append(("kernel store, fresh folder, warm redis store / cold (%s)" % tc, s["redis"]["warm_vs_cold"],
                             "<= 0.05"))
            rows.append(("kernel store, cold build filling the file store / cold (%s)" % tc, s["file"]["fill_vs_cold"],
                         None))
            rows.append(("signature checks of a warm file store build / its wall time (%s)" % tc,
                         s["file"]["signature_checks_vs_warm"], "<= 0.02"))
    one = lambda x: {"min": x, "median": x, "max": x}
    rows += [
        ("%d builders on one store: compiles / distinct kernels (%d kernels)" % (cluster["builders"], cluster["kernels"]),
         cluster["compiles_vs_distinct"], "<= 1.1"),
        ("%d builders on one store: wall until all done / one builder alone" % cluster["builders"],
         cluster["all_done_vs_alone"], "<= 0.7"),
        ("one builder alone, claims / without", cluster["alone_claims_vs_without"], "<= 1.03"),
        ("library of %d packages sharing half their kernels / distinct files" % library["packages"],
         library["library_vs_distinct"], "<= 1.15"),
        ("the same library, each package's files its own / distinct files", library["unshared_library_vs_distinct"],
         None),
        ("install of the last of %d packages / of the first" % library["packages"], library["last_install_vs_first"], "<= 1.1"),
        ("the same, median of the last 5 / of the 2nd to 6th", library["last5_vs_early5"], "<= 1.1"),
        ("update of 400 kernels by 20: delta package / whole package", library["delta_vs_whole_run"], "<= 0.10"),
        ("the same, with its installer (--self-contained)", library["self_contained_delta_vs_whole_run"], None),
        ("the same, delta payload / whole payload", library["delta_vs_whole_payload"], None),
    ]
    if os.path.exists(os.path.join(work, "library400/figures.json")):  # the full run's
        many = load(work, "library400/figures.json")
        rows.append(("%d packages of %d kernels: median install of the last 5 / of the 2nd to 6th" %
                     (many["packages"], many["kernels"]), many["last5_vs_early5"], "<= 1.1"))
    rows += [
        ("op_compiler restart / first start, installs included (%d kernels, 5 rounds)" % restart["kernels"],
         restart["restart_vs_first"], "<= 0.03"),
        ("compiles after the first start", one(restart["compiles_after_first"]), "== 0"),
        ("new disk per restart beyond its .run files (MB)",
         {k: v / 1e6 for k, v in restart["new_disk_per_restart_bytes"].items()}, "<= 1 MB"),
        ("local kernel store / its kernels' bytes", one(restart["store_vs_kernels"]), "<= 1.1"),
        ("skb explain of two %d-kernel builds, a flag changed (seconds)" % explain["kernels"],
         explain["flag"]["seconds"], "< 1 s"),
        ("skb explain, a flag changed / cat of what it reads", explain["flag"]["vs_cat"], None),
        ("packaging %d kernels / tar -czf" % pkg["kernels"], pkg["package_vs_tar_czf"], "<= 1.3"),
        ("installer in every .run (MiB)", one(pkg["installer_bytes"] / (1 << 20)), "<= 1 MiB"),
        (".run of %d kernels / its payload" % pkg["kernels"], one(pkg["run_vs_payload"]), None),
        ("install (verified) / tar -xzf", pkg["install_vs_tar_xzf"], "<= 1.0"),
        ("install (verified) / tar -xzf, then sync -f", pkg["install_vs_tar_xzf_synced"], None),
        ("8 concurrent installs / 1 install", pkg["concurrent8_vs_1"], "<= 1.3"),
        ("the same into a library that had a package", pkg["concurrent8_vs_1_in_use"], None),
        ("signed install under a trust policy / unsigned install", pkg["signed_install_vs_unsigned"], "<= 1.02"),
        ("install with 1 GiB of another process unsynced / without", pkg["install_unsynced_vs_quiet"], None),
        ("static / dynamic kernel speedup over %d calls (min, geomean, max)" % len(speedups),
         {"min": min(speedups), "median": kern["geomean_speedup"], "max": max(speedups)}, ">= 1.3 geomean, >= 1 each"),
    ]
    rows.append(("skb bench of the example dump's %d static kernels (seconds)" % payoff["kernels"],
                 one(payoff["seconds"]), "<= 60 s"))
    for v in ("faster", "same", "slower"):
        rows.append(("  share of them measured %s than their dynamic twin" % v if v != "same" else
                     "  share of them with no measurable difference", one(payoff["shares"][v]), None))
    if blas:
        rows.append(("float MatMulV2: fraction of OpenBLAS sgemm speed", {"min": min(blas), "median": sorted(blas)[len(blas) // 2],
                     "max": max(blas)}, ">= 0.5"))
    print()
    print("%-66s %9s %9s %9s %9s  %s" % ("measure (ratio to a baseline of the same run)", "min", "median", "max",
                                          "best/best", "target"))
    for name, r, target in rows:
        best = "%9.3f" % r["best"] if "best" in r else "%9s" % ""
        print("%-66s %9.3f %9.3f %9.3f %s  %s" % (name, r["min"], r["median"], r["max"], best, target or ""))
    out = os.path.join(work, "bench.json")
    with open(out, "w") as f:
        json.dump([dict({"measure": n, "target": t}, **r) for n, r, t in rows], f, indent=2)
    print("\nthe same figures as JSON:", out)


if __name__ == "__main__":
    main()
