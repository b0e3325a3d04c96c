#!/usr/bin/env python3
"""Dependent launches on a GPU: chains of static kernels, each reading what the one before it wrote,
queued back to back on one stream with no synchronization between them, checked exactly. Run with
SKB_CUDA_DEPENDENT_LAUNCH=on, each kernel that awaits the grid before it (skb_awaits) starts while
that grid finishes: a kernel that read its input too early would see the zeros its buffer began
with. A chain is y1 = f(x), y2 = f(y1), ..., for every call of --calls that can be chained:
MatMulV2/BatchMatMulV2 without a bias whose second input is square (y @ I, the identity, which is
exact), and Add of two inputs of the output's shape (y + 0). Needs a CUDA GPU and torch.
Exit status 0 when every chain ended where it began, 1 otherwise, 2 when no call could be chained.
usage: cuda_chain_check.py --runtime libskb_runtime.so --lib INSTALL_PATH --calls CALLS.json [--length N]"""
import argparse, json, os, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import cuda_kernel_bench as ckb  # noqa: E402


def chainable(rec):
    """The chain's constant second input for rec ("identity" or "zeros"), or None."""
    ins, outs = rec["inputs"], ckb.present(rec["outputs"])
    if len(outs) != 1 or len(ins) < 2 or ins[0] is None or ins[1] is None or ckb.present(ins[2:]):
        return None
    x, w, y = ins[0], ins[1], outs[0]
    if x["shape"] != y["shape"] or x["dtype"] != y["dtype"]:
        return None
    if rec["op_type"] == "Add" and w["shape"] == y["shape"] and w["dtype"] == y["dtype"]:
        return "zeros"
    plan = ckb.matmul_plan(rec)
    if plan and not plan[0] and len(w["shape"]) == 2 and w["shape"][0] == w["shape"][1]:
        return "identity"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\nusage:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runtime", required=True)
    ap.add_argument("--lib", required=True)
    ap.add_argument("--calls", required=True)
    ap.add_argument("--length", type=int, default=int(os.environ.get("SKB_CHAIN_LENGTH", "20")))
    args = ap.parse_args()
    import torch
    L = ckb.load_runtime(args.runtime)
    rt = ckb.open_runtime(L, args.lib)
    stream = torch.cuda.current_stream().cuda_stream
    print("dependent launch (SKB_CUDA_DEPENDENT_LAUNCH): %s; chains of %d" %
          (os.environ.get("SKB_CUDA_DEPENDENT_LAUNCH", "off"), args.length))
    chains = failed = 0
    for rec in ckb.distinct(json.load(open(args.calls))):
        kind = chainable(rec)
        if not kind:
            continue
        try:
            op = ckb.find(L, rt, rec, 1)
        except RuntimeError:
            continue  # served by its dynamic path
        dt = getattr(torch, ckb.TORCH_DTYPE[rec["outputs"][0]["dtype"]])
        shape = rec["outputs"][0]["shape"]
        # Integers 1 to 8 of either sign: exact in every dtype, and none the zeros a buffer begins with.
        x = (torch.randint(1, 9, shape, device="cuda") * (torch.randint(0, 2, shape, device="cuda") * 2 - 1)).to(dt)
        w_shape = rec["inputs"][1]["shape"]
        w = torch.eye(w_shape[0], device="cuda", dtype=dt) if kind == "identity" else torch.zeros(w_shape, device="cuda",
                                                                                                   dtype=dt)
        ys = [x] + [torch.zeros(shape, device="cuda", dtype=dt) for _ in range(args.length)]
        gos = [ckb.launcher(L, op, [ys[i], w], [ys[i + 1]], stream) for i in range(args.length)]
        torch.cuda.synchronize()
        for go in gos:
            go()
        torch.cuda.synchronize()
        ok = torch.equal(ys[-1], x)
        chains += 1
        failed += not ok
        print("%-60s %s" % (ckb.label(rec)[:60], "ok" if ok else "DIFFERS: %d of %d elements" %
                            (int((ys[-1] != x).sum().item()), x.numel())))
        L.skb_op_free(op)
    L.skb_runtime_close(rt)
    print("%d chains, %d differ" % (chains, failed))
    return 2 if chains == 0 else (1 if failed else 0)


if __name__ == "__main__":
    sys.exit(main())
