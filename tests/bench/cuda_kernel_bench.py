#!/usr/bin/env python3
"""CUDA kernel bench: for each distinct op call of a list of op-statistics records, skb's STATIC cuda
kernel (compiled for that exact shape) against its DYNAMIC twin (same op and dtypes, shapes given at
run time), and for MatMulV2/BatchMatMulV2 without a bias also cuBLAS (torch.matmul; TF32 and reduced-
precision fp16/bf16 reductions off), through libskb_runtime's C API (ctypes) on torch's device
pointers and stream. Paired and alternating, as the host bench: each rep times one sample of each
variant (skb's variants each first in turn, cuBLAS last: rotation); a sample is a GPU sleep (so
that the host enqueues the whole sample while the GPU is held: it measures GPU time, not launch
rate), a start event, --inner
launches (--inner, fewer for slow calls), an end event. Each variant's output is first checked against the static kernel's.
With --dependent, a fourth variant: the same static kernel launched as a programmatic dependent launch
(a second runtime whose kernels were found under SKB_CUDA_DEPENDENT_LAUNCH=on), in the same paired samples,
so that the two ways of launching it are compared on the same GPU at the same time.
Exit status 0 when every call was timed and every check agreed, 1 otherwise. Needs a CUDA GPU and
torch; the pure helpers import without torch.
The library must hold both kernels of every call: skb_runtime_find gives the static one,
skb_runtime_find_dynamic its twin.
usage: cuda_kernel_bench.py --runtime libskb_runtime.so --lib INSTALL_PATH --calls CALLS.json
                            [--dependent] [--reps N] [--inner N] [--json OUT]"""
import argparse, contextlib, ctypes, json, math, os, statistics, sys, time

TOLERANCE = {"float": 1e-5, "float32": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2}  # relative to max(1, max|static|)
TORCH_DTYPE = {"float": "float32", "float32": "float32", "float16": "float16", "bfloat16": "bfloat16",
               "int32": "int32", "int64": "int64"}
SLEEP_US = 200  # the least GPU sleep before a sample
MATMUL_FLAGS = {"MatMulV2": ("transpose_x1", "transpose_x2"), "BatchMatMulV2": ("adj_x1", "adj_x2")}


# --- pure helpers (no torch) -------------------------------------------------------------------

def present(tensors):
    return [t for t in tensors if t is not None]


def label(rec):
    """op_type, first input's dtype, each present input's shape, true bool attrs, axes."""
    ins = present(rec.get("inputs", []))
    s = rec["op_type"] + ("_" + ins[0]["dtype"] if ins else "")
    for t in ins:
        if not t.get("value_depend"):
            s += "_" + "x".join(str(d) for d in t["shape"])
    for a in rec.get("attrs", []):
        v = a.get("value")
        if isinstance(v, bool) and v:
            s += "_" + a["name"]
        if a["name"] == "axes":
            s += "_axes" + ",".join(str(x) for x in (v if isinstance(v, list) else [v]))
    return s


def tolerance(rec):
    """The coarsest tolerance of the call's tensors (the least precise one bounds the agreement)."""
    return max([TOLERANCE.get(t["dtype"], 0.0) for t in present(rec["inputs"]) + present(rec["outputs"])] + [0.0])


def agrees(err, scale, tol):
    return err <= tol * max(1.0, scale)  # False for NaN


def matmul_plan(rec):
    """(transpose a, transpose b) when cuBLAS can compute the call as torch.matmul: MatMulV2 or
    BatchMatMulV2, no input but slots 0 and 1 (no bias), one dtype for a, b and y; else None."""
    names = MATMUL_FLAGS.get(rec["op_type"])
    ins, outs = rec["inputs"], present(rec["outputs"])
    if not names or len(ins) < 2 or ins[0] is None or ins[1] is None or present(ins[2:]) or len(outs) != 1:
        return None
    if len({ins[0]["dtype"], ins[1]["dtype"], outs[0]["dtype"]}) != 1:
        return None
    attrs = {a["name"]: a.get("value") for a in rec.get("attrs", [])}
    return bool(attrs.get(names[0])), bool(attrs.get(names[1]))


def distinct(records):
    return list({json.dumps(rec, sort_keys=True): rec for rec in records}.values())  # first-seen order


def ratio(a, b):
    return a / b if b > 0 else float("inf")


def figures(static_ms, dynamic_ms, cublas_ms, inner, dependent_ms=None):
    """Per-sample elapsed ms (one per rep) -> median µs per launch and median per-rep ratios: static
    over dynamic, over cuBLAS, and the static kernel launched dependent over it launched plainly and
    over cuBLAS (None where that variant was not timed)."""
    us = lambda ms: [m * 1000.0 / inner for m in ms]
    paired = lambda xs, ys: statistics.median([ratio(a, b) for a, b in zip(xs, ys)])
    s, d = us(static_ms), us(dynamic_ms)
    f = {"static_us": statistics.median(s), "dynamic_us": statistics.median(d), "ratio": paired(s, d),
         "cublas_us": None, "static_over_cublas": None,
         "dependent_us": None, "dependent_over_static": None, "dependent_over_cublas": None}
    c = us(cublas_ms) if cublas_ms else None
    if c:
        f["cublas_us"] = statistics.median(c)
        f["static_over_cublas"] = paired(s, c)
    if dependent_ms:
        p = us(dependent_ms)
        f["dependent_us"] = statistics.median(p)
        f["dependent_over_static"] = paired(p, s)
        if c:
            f["dependent_over_cublas"] = paired(p, c)
    return f


def rotation(rep, variants):
    """The order of rep's samples: skb's kernels (static, dynamic, and the dependent launch where it
    is timed) each first in turn, cuBLAS last."""
    ours = [v for v in ("static", "dynamic", "dependent") if v in variants]
    k = rep % len(ours)
    return ours[k:] + ours[:k] + (["cublas"] if "cublas" in variants else [])


def geomean(xs):
    xs = [x for x in xs if x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def table(rows):
    """The figures of each call, a line each; the dependent launch's columns where it was timed."""
    w = max([len("call")] + [len(r["label"]) for r in rows])
    num = lambda v, fmt: format(v, fmt) if v is not None else ""
    dep = any(r.get("dependent_us") is not None for r in rows)
    head = "%-*s %11s %11s %14s %11s %13s" % (w, "call", "static µs", "dynamic µs", "static/dynamic", "cuBLAS µs",
                                               "static/cuBLAS")
    lines = [head + (" %14s %16s %16s" % ("dependent µs", "dependent/static", "dependent/cuBLAS") if dep else "")
             + "  check"]
    for r in rows:
        line = "%-*s %11.2f %11.2f %14.3f %11s %13s" % (
            w, r["label"], r["static_us"], r["dynamic_us"], r["ratio"], num(r["cublas_us"], ".2f"),
            num(r["static_over_cublas"], ".3f"))
        if dep:
            line += " %14s %16s %16s" % (num(r.get("dependent_us"), ".2f"), num(r.get("dependent_over_static"), ".3f"),
                                         num(r.get("dependent_over_cublas"), ".3f"))
        lines.append(line + "  " + r["check"])
    return lines


def summary(rows, skipped):
    """Summary lines and whether the run passed (every call timed, every check agreed)."""
    slower = [r["label"] for r in rows if r["ratio"] > 1.0]
    bad = [r["label"] for r in rows if r["check"] != "ok"]
    lines = ["calls timed: %d (%d skipped)" % (len(rows), len(skipped)),
             "static slower than dynamic (ratio > 1.0): %d%s" % (len(slower), (": " + ", ".join(slower)) if slower else ""),
             "geometric mean static/dynamic: %.3f" % geomean([r["ratio"] for r in rows])]
    dep = [r["dependent_over_static"] for r in rows if r.get("dependent_over_static") is not None]
    if dep:
        lines.append("dependent launch (SKB_CUDA_DEPENDENT_LAUNCH=on): geometric mean dependent/static %.3f; faster "
                     "on %d of %d calls, slower on %d" % (geomean(dep), sum(x < 1.0 for x in dep), len(dep),
                                                         sum(x > 1.0 for x in dep)))
    lines.append("output mismatches: %d" % len(bad))
    lines += ["FAIL: not timed: %s: %s" % lw for lw in skipped]
    lines += ["FAIL: mismatch: %s: %s" % (r["label"], r["check"]) for r in rows if r["check"] != "ok"]
    return lines, not skipped and not bad


# --- the runtime (ctypes) and the GPU side ---------------------------------------------------------

def open_runtime(L, install_path):
    rt = ctypes.c_void_p()
    if L.skb_runtime_open(install_path.encode(), None, ctypes.byref(rt)) != 0:
        raise RuntimeError("skb_runtime_open %s: %s" % (install_path, L.skb_last_error().decode()))
    return rt


def find(L, rt, rec, kind):
    """The call's op handle, which must be a cuda kernel of `kind` (1 static, 2 dynamic)."""
    op = ctypes.c_void_p()
    rc = (L.skb_runtime_find if kind == 1 else L.skb_runtime_find_dynamic)(rt, json.dumps(rec).encode(), ctypes.byref(op))
    if rc != 0:
        raise RuntimeError("skb_runtime_find: status %d: %s" % (rc, L.skb_last_error().decode()))
    k, d = L.skb_op_kind(op), L.skb_op_device(op)
    if k != kind or d != 2:
        L.skb_op_free(op)
        raise RuntimeError("kernel of kind %d on device %d, expected kind %d on cuda (2)" % (k, d, kind))
    return op


class dependent_setting:
    """SKB_CUDA_DEPENDENT_LAUNCH set to on or off while the block runs, as it was after. The runtime
    reads it when it loads a kernel, which skb_runtime_find does: an op found under on is launched
    dependent for as long as it lives, whatever the setting is later."""

    def __init__(self, on):
        self.on = on

    def __enter__(self):
        self.was = os.environ.get("SKB_CUDA_DEPENDENT_LAUNCH")
        os.environ["SKB_CUDA_DEPENDENT_LAUNCH"] = "on" if self.on else "off"

    def __exit__(self, *exc):
        if self.was is None:
            os.environ.pop("SKB_CUDA_DEPENDENT_LAUNCH", None)
        else:
            os.environ["SKB_CUDA_DEPENDENT_LAUNCH"] = self.was
        return False


def load_runtime(path):
    L = ctypes.CDLL(path)
    P = ctypes.POINTER(ctypes.c_void_p)
    L.skb_runtime_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, P]
    L.skb_runtime_find.argtypes = [ctypes.c_void_p, ctypes.c_char_p, P]
    L.skb_runtime_find_dynamic.argtypes = [ctypes.c_void_p, ctypes.c_char_p, P]
    L.skb_op_launch.argtypes = [ctypes.c_void_p, P, P, ctypes.c_void_p]
    for f in (L.skb_op_kind, L.skb_op_device, L.skb_op_free, L.skb_runtime_close):
        f.argtypes = [ctypes.c_void_p]
    L.skb_op_free.restype = L.skb_runtime_close.restype = None
    L.skb_last_error.restype = ctypes.c_char_p
    return L


def launcher(L, op, ins, outs, stream):
    I = (ctypes.c_void_p * len(ins))(*[t.data_ptr() if t is not None else None for t in ins])
    O = (ctypes.c_void_p * len(outs))(*[t.data_ptr() for t in outs])
    s = ctypes.c_void_p(stream)

    def go():
        rc = L.skb_op_launch(op, I, O, s)
        if rc != 0:
            raise RuntimeError("skb_op_launch: status %d: %s" % (rc, L.skb_last_error().decode()))
    return go


def bench_call(torch, L, rec, ops, args, cycles_per_us):
    dev, tdt = "cuda", lambda t: getattr(torch, TORCH_DTYPE[t["dtype"]])
    ins = []
    for i, t in enumerate(rec["inputs"]):
        if t is None:
            ins.append(None)
            continue
        u = torch.rand(t["shape"], device=dev, dtype=torch.float32) * 2 - 1
        if rec["op_type"] == "RealDiv" and i == 1:
            u = torch.where(u < 0, u * 0.5 - 0.5, u * 0.5 + 0.5)  # |x| >= 0.5
        if t["dtype"].startswith("int"):
            u = u * 1000  # integers in [-1000, 1000]
        ins.append(u.to(tdt(t)).contiguous())
    stream = torch.cuda.current_stream().cuda_stream
    outs, fns = {}, {}
    for name, op in zip(("static", "dynamic", "dependent"), ops):
        outs[name] = [torch.zeros(t["shape"], device=dev, dtype=tdt(t)) for t in rec["outputs"]]
        fns[name] = launcher(L, op, ins, outs[name], stream)
    plan = matmul_plan(rec)
    if plan:
        a = ins[0].transpose(-1, -2) if plan[0] else ins[0]
        b = ins[1].transpose(-1, -2) if plan[1] else ins[1]
        y = torch.zeros_like(torch.matmul(a, b))  # cuBLAS's shape may differ from the record's
        outs["cublas"] = [y]
        fns["cublas"] = cublas(torch, a, b, y)
    # Launches per sample: --inner, fewer for a call whose slowest variant takes over 40 µs (a
    # sample spans about 2 ms of GPU time; a dynamic 4096³ matmul takes tens of ms a launch).
    slowest_ms = 0.0
    for fn in fns.values():
        fn()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        slowest_ms = max(slowest_ms, start.elapsed_time(end))
    inner = max(1, min(args.inner, int(2.0 / max(slowest_ms, 1e-6))))
    cycles = sleep_cycles(torch, fns.values(), inner, cycles_per_us)
    problems, tol = [], tolerance(rec)
    for name in fns:  # sanity: each variant once into zeroed outputs, against the static one
        for o in outs[name]:
            o.zero_()
        fns[name]()
        torch.cuda.synchronize()
        if name == "static":
            continue
        for ref, got in zip(outs["static"], outs[name]):
            if ref.numel() == 0:
                continue
            got = got.reshape(ref.shape)  # cuBLAS's shape may differ from the record's
            err = (got.float() - ref.float()).abs().max().item()
            scale = ref.float().abs().max().item()
            if not agrees(err, scale, tol):
                problems.append("%s differs: %.3g > %.3g" % (name, err, tol * max(1.0, scale)))
    samples = {name: [] for name in fns}
    for r in range(args.reps):
        for name in rotation(r, fns):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            torch.cuda._sleep(cycles)
            start.record()
            for _ in range(inner):
                fns[name]()
            end.record()
            samples[name].append((start, end))
    torch.cuda.synchronize()
    ms = {name: [s.elapsed_time(e) for s, e in v] for name, v in samples.items()}
    f = figures(ms["static"], ms["dynamic"], ms.get("cublas"), inner, ms.get("dependent"))
    f.update(label=label(rec), check="; ".join(problems) or "ok")
    return f


def cublas(torch, a, b, y):
    """cuBLAS's launch of a @ b into y (its shape), allocating nothing."""
    return lambda: torch.matmul(a, b, out=y)


def sleep_cycles(torch, fns, inner, cycles_per_us):
    """The GPU sleep before a sample of inner launches: at least SLEEP_US, and twice what the host
    took to enqueue such a sample of the slowest of fns (each run as two warm-up samples, the
    second timed), so that a sample measures GPU time, not launch rate."""
    host_us = 0.0
    for fn in fns:
        for _ in range(2):
            t0 = time.perf_counter()
            for _ in range(inner):
                fn()
            took = (time.perf_counter() - t0) * 1e6
            torch.cuda.synchronize()
        host_us = max(host_us, took)
    return int(cycles_per_us * min(max(SLEEP_US, 2 * host_us), 20000))


def sleep_cycles_per_us(torch):
    torch.cuda._sleep(1000)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    torch.cuda._sleep(10_000_000)
    end.record()
    end.synchronize()
    return 10_000_000 / (start.elapsed_time(end) * 1000.0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\nusage:")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", required=True, help="path of libskb_runtime.so")
    ap.add_argument("--lib", required=True, help="install path of the library holding both kernels of every call")
    ap.add_argument("--calls", required=True, help="JSON file: a list of op-statistics records (duplicates are timed once)")
    ap.add_argument("--reps", type=int, default=int(os.environ.get("SKB_CUDA_BENCH_REPS", "15")),
                    help="paired samples per call (default $SKB_CUDA_BENCH_REPS or 15)")
    ap.add_argument("--inner", type=int, default=50, help="launches per timed sample (default 50)")
    ap.add_argument("--dependent", action="store_true",
                    help="also time each static kernel launched as a programmatic dependent launch, paired with the "
                         "others (its kernels found under SKB_CUDA_DEPENDENT_LAUNCH=on, the plain ones under off)")
    ap.add_argument("--json", help="also write the figures to this JSON file")
    ap.add_argument("--min-us", type=float, help="accepted and ignored")
    args = ap.parse_args()
    if args.reps < 1 or args.inner < 1:
        ap.error("--reps and --inner must be at least 1")
    import torch  # only here: the helpers above import without torch
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = False
    torch.cuda.init()
    with open(args.calls) as f:
        records = json.load(f)
    if not isinstance(records, list):
        ap.error("--calls must hold a JSON list of op records")
    records = distinct(records)
    L = load_runtime(args.runtime)
    rt = open_runtime(L, args.lib)
    rt_dependent = open_runtime(L, args.lib) if args.dependent else None
    plain = dependent_setting(False) if args.dependent else contextlib.nullcontext()
    gpu = torch.cuda.get_device_name()
    print("GPU %s; torch %s, CUDA %s; reps %d, inner %d; cuBLAS via torch.matmul, TF32 off, fp16/bf16 reduced-precision "
          "reductions off" % (gpu, torch.__version__, torch.version.cuda, args.reps, args.inner))
    cycles_per_us = sleep_cycles_per_us(torch)
    rows, skipped = [], []
    for rec in records:
        ops, stage = [], "static kernel"
        try:
            with plain:
                ops.append(find(L, rt, rec, 1))
                stage = "dynamic kernel"
                ops.append(find(L, rt, rec, 2))
            if rt_dependent:
                stage = "static kernel launched dependent"
                with dependent_setting(True):
                    ops.append(find(L, rt_dependent, rec, 1))
            stage = "run"
            rows.append(bench_call(torch, L, rec, ops, args, cycles_per_us))
        except Exception as e:  # report, count, go on
            skipped.append((label(rec), "%s: %s" % (stage, e)))
            try:
                torch.cuda.synchronize()  # nothing queued may outlive its kernel's handle
            except Exception:
                pass
        for op in ops:
            L.skb_op_free(op)
    print("\n".join(table(rows)))
    lines, ok = summary(rows, skipped)
    print("\n".join(lines))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"gpu": gpu, "torch": torch.__version__, "cuda": torch.version.cuda, "reps": args.reps,
                       "inner": args.inner, "calls": rows, "skipped": [{"label": l, "why": w} for l, w in skipped],
                       "geomean_ratio": geomean([r["ratio"] for r in rows]),
                       "slower": [r["label"] for r in rows if r["ratio"] > 1.0],
                       "mismatches": sum(r["check"] != "ok" for r in rows)}, f, indent=1)
    for r in (rt, rt_dependent):
        if r:
            L.skb_runtime_close(r)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
