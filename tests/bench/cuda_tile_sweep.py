#!/usr/bin/env python3
"""Matmul tile sweep on a GPU: for each call of a list of MatMulV2/BatchMatMulV2 records, the static
kernel that skb's tile choice built (--lib) against the same kernel built with each candidate tile
forced (--candidate LIB, once per candidate, in skb_matmul_plan.h's order: the kernels compiled with
-DSKB_MATMUL_TILE=i), and against cuBLAS (torch.matmul, TF32 and reduced-precision reductions
off). Each kernel's output is checked against cuBLAS's first; one that differs is not timed. A
sample is a GPU sleep (longer than the host takes to enqueue the sample), a start event, launches
(cuBLAS's into a tensor it does not allocate), an end event; the figure is the median of --reps
samples, in µs per launch.
Prints one row per call: the chosen kernel, every candidate, cuBLAS, and the chosen kernel's time
over the fastest candidate's and over cuBLAS's. Exit status 0 when every kernel agreed with cuBLAS.
--json writes the rows with the GPU's name and multiprocessors, and the candidates' tiles that
--tiles names (cuda_tile_fit.py tiles): what cuda_tile_fit.py fits the tables to. It is rewritten
after each call, so that a sweep stopped by a time limit keeps the calls it timed.
usage: cuda_tile_sweep.py --runtime libskb_runtime.so --lib CHOSEN --candidate LIB... --calls CALLS.json
                          [--reps N] [--json OUT [--tiles TILES.json]]"""
import argparse, json, os, re, statistics, sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cuda_kernel_bench as ckb  # noqa: E402


def timed(torch, fn, reps, cycles_per_us):
    """Median µs of one launch over reps samples of enough launches to span ~1 ms of GPU time, each
    after a GPU sleep that outlasts the host's enqueueing of it (cuda_kernel_bench's)."""
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    fn()
    end.record()
    end.synchronize()
    inner = max(1, min(50, int(1.0 / max(start.elapsed_time(end), 1e-3))))
    cycles = ckb.sleep_cycles(torch, [fn], inner, cycles_per_us)
    samples = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda._sleep(cycles)
        s.record()
        for _ in range(inner):
            fn()
        e.record()
        samples.append((s, e))
    torch.cuda.synchronize()
    return statistics.median(s.elapsed_time(e) * 1000.0 / inner for s, e in samples)


def json_head(torch, tiles):
    """What --json holds besides the rows: the GPU's name and multiprocessors, and the candidates'
    tiles from `tiles` (cuda_tile_fit.py tiles) when given."""
    head = {"gpu": torch.cuda.get_device_name(),
            "multiprocessors": torch.cuda.get_device_properties(0).multi_processor_count}
    if tiles:
        head["tiles"] = {k: v for k, v in json.load(open(tiles)).items() if k in ("16", "float")}
    return head


def write_json(path, head, rows):
    """head and the rows so far, replacing `path` whole (a reader never sees half of it)."""
    with open(path + ".tmp", "w") as f:
        json.dump(dict(head, rows=rows), f, indent=1)
    os.replace(path + ".tmp", path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\nusage:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--lib", required=True, help="install path of the kernels skb's tile choice built")
    ap.add_argument("--candidate", action="append", default=[], help="install path of candidate i's kernels")
    ap.add_argument("--calls", required=True)
    ap.add_argument("--reps", type=int, default=int(os.environ.get("SKB_CUDA_BENCH_REPS", "15")))
    ap.add_argument("--json")
    ap.add_argument("--tiles", help="the candidates' tiles, for --json (cuda_tile_fit.py tiles)")
    args = ap.parse_args()
    import torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.cuda.init()
    records = [r for r in ckb.distinct(json.load(open(args.calls))) if ckb.matmul_plan(r)]
    L = ckb.load_runtime(args.runtime)
    libs = [args.lib] + args.candidate
    rts = [ckb.open_runtime(L, lib) for lib in libs]
    cycles_per_us = ckb.sleep_cycles_per_us(torch)
    # A candidate is named by its tile's index: the digits its path ends with (lib7: tile7), else its place.
    ends = [re.search(r"(\d+)/*$", c) for c in args.candidate]
    names = ["chosen"] + ["tile" + (e.group(1) if e else str(i)) for i, e in enumerate(ends)]
    head = json_head(torch, args.tiles) if args.json else None
    print("GPU %s; torch %s; reps %d; median µs per launch" % (torch.cuda.get_device_name(), torch.__version__,
                                                                args.reps))
    print("%-44s %s %9s %9s %9s" % ("call", " ".join("%9s" % n for n in names), "cuBLAS", "/fastest", "/cuBLAS"))
    rows, ok = [], True
    for rec in records:
        tdt = lambda t: getattr(torch, ckb.TORCH_DTYPE[t["dtype"]])
        ins = [None if t is None else (torch.rand(t["shape"], device="cuda") * 2 - 1).to(tdt(t)) for t in rec["inputs"]]
        out_t = rec["outputs"][0]
        ta, tb = ckb.matmul_plan(rec)
        a = ins[0].transpose(-1, -2) if ta else ins[0]
        b = ins[1].transpose(-1, -2) if tb else ins[1]
        ref = torch.matmul(a, b)
        cublas = timed(torch, ckb.cublas(torch, a, b, torch.empty_like(ref)), args.reps, cycles_per_us)
        stream = torch.cuda.current_stream().cuda_stream
        tol, scale = ckb.tolerance(rec), ref.float().abs().max().item()
        times, checks = [], []
        for name, rt in zip(names, rts):
            try:
                op = ckb.find(L, rt, rec, 1)
            except RuntimeError as e:
                times.append(None)
                if name == "chosen":  # a candidate may be built for some calls only (wgmma's: 16-bit ones)
                    checks.append("%s: %s" % (name, e))
                continue
            y = torch.zeros(out_t["shape"], device="cuda", dtype=tdt(out_t))
            go = ckb.launcher(L, op, ins, [y], stream)
            go()
            torch.cuda.synchronize()
            err = (y.reshape(ref.shape).float() - ref.float()).abs().max().item()
            if ckb.agrees(err, scale, tol):
                times.append(timed(torch, go, args.reps, cycles_per_us))
            else:  # untimed: a wrong kernel gets no figures from the fit, so the choice never takes it
                checks.append("%s differs from cuBLAS: %.3g" % (name, err))
                times.append(None)
            L.skb_op_free(op)
        good = [t for t in times[1:] if t is not None]
        fastest = min(good) if good else None
        row = {"label": ckb.label(rec), "us": dict(zip(names, times)), "cublas_us": cublas,
               "chosen_over_fastest": times[0] / fastest if times[0] and fastest else None,
               "chosen_over_cublas": times[0] / cublas if times[0] else None, "check": "; ".join(checks) or "ok"}
        rows.append(row)
        ok = ok and not checks
        fmt = lambda v: "%9.2f" % v if v is not None else "%9s" % "-"
        print("%-44s %s %9.2f %s %s  %s" % (row["label"][:44], " ".join(fmt(t) for t in times), cublas,
                                            fmt(row["chosen_over_fastest"]), fmt(row["chosen_over_cublas"]),
                                            row["check"]))
        sys.stdout.flush()
        if args.json:  # after every call: a sweep cut short by its time limit keeps the calls it timed
            write_json(args.json, head, rows)
    for rt in rts:
        L.skb_runtime_close(rt)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
