#!/usr/bin/env python3
"""A stand-in for CANN's kernel compiler, for tests: what skb sees of one, and what opbase reads.

    cann_compiler.py --info INFO --kernel-json JSON -o OUT SRC [-DNAME=VALUE ...]

It reads the kernel's op description (skb's {info}) and its -D macros, checks that the two say the
same call (a dynamic list as SKB_IN<i>_COUNT and SKB_IN<i>_<j>_*), and writes what CANN's compiler
writes for a static kernel: OUT, an ELF object (`cc -c`) that defines the entry symbol, and beside
it the kernel's JSON with the fields opbase's readers read (indv_collector.cpp:
UpdateRunInfoForStaticJson reads runInfo's aicpu_block_dim, block_dim, local_memory_size,
schedule_mode, tiling_cond, tiling_key, clear_atomic and tiling_data, else blockDim,
localMemorySize and schedule_mode; then workspace.num and workspace.size;
UpdatePlatformInfoForStaticJson reads platformInfo's cubeCoreCnt, vectorCoreCnt and
deterministicLevel; g_nnopbaseKernelTypeMap names the coreType). Its kind and block dim differ by
op, as real kernels' do. `opDesc` is its own field (opbase ignores it): the op and every tensor's
shape it was compiled for, so a test can tell which call a kernel serves.

SKB_CANN_FAIL=<op type> makes it fail for that op, with a message on stderr.
"""
import argparse, hashlib, json, os, subprocess, sys, tempfile

KIND_OVERRIDE = None  # a kernel type to write instead of the right one (a test's compiler that errs)
MIX_OPS = {"MatMulV2", "BatchMatMulV2", "GroupedMatmul"}
VECTOR_OPS = {"Add", "Sub", "Mul", "RealDiv", "Relu", "Gelu", "FastGelu", "Square", "Cast"}


def expected_defines(desc):
    """The macros skb documents for a call (templates/toolchains/README.md), the ones checked here."""
    out = {"SKB_OP": desc["op_type"], "SKB_NUM_INPUTS": str(len(desc["inputs"]))}
    for side, slots in (("IN", desc["inputs"]), ("OUT", desc["outputs"])):
        for i, slot in enumerate(slots):
            prefix = "SKB_%s%d" % (side, i)
            if slot is None:
                out[prefix + "_NULL"] = "1"
                continue
            tensors = [(prefix, slot)]
            if isinstance(slot, list):
                out[prefix + "_COUNT"] = str(len(slot))
                tensors = [("%s_%d" % (prefix, j), t) for j, t in enumerate(slot)]
            for p, t in tensors:
                out[p + "_DTYPE"] = t["dtype"]
                out[p + "_SHAPE"] = ",".join(str(d) for d in t["shape"])
    return out


def shapes(desc):
    """Every tensor's shape in order, a list's one by one, None for an absent one."""
    out = []
    for slot in desc["inputs"] + desc["outputs"]:
        for t in (slot if isinstance(slot, list) else [slot]):
            out.append(None if t is None else t["shape"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--info", required=True)
    ap.add_argument("--kernel-json", required=True)
    ap.add_argument("-o", dest="out", required=True)
    ap.add_argument("src")
    args, rest = ap.parse_known_args()
    text = open(args.info, "rb").read()
    desc = json.loads(text)
    op = desc["op_type"]
    if os.environ.get("SKB_CANN_FAIL") == op:
        sys.exit("cann_compiler: %s: the op's implementation does not compile (SKB_CANN_FAIL)" % op)
    defines = dict(d[2:].split("=", 1) for d in rest if d.startswith("-D"))
    for name, value in expected_defines(desc).items():
        if defines.get(name) != value:
            sys.exit("cann_compiler: -D%s is %r, the description says %r" % (name, defines.get(name), value))
    open(args.src).close()  # the op's implementation, as a real compiler reads it

    entry = op + "_" + hashlib.sha256(text).hexdigest()[:16] + "_static"
    with tempfile.TemporaryDirectory() as tmp:
        c = os.path.join(tmp, "kernel.c")
        with open(c, "w") as f:
            f.write('const char %s_desc[] = "%s";\nvoid %s(void) {}\n' % (entry, hashlib.sha256(text).hexdigest(), entry))
        subprocess.run(["cc", "-c", "-o", args.out, c], check=True)
    first_out = next(t for t in desc["outputs"] if t is not None)
    first_out = first_out[0] if isinstance(first_out, list) else first_out
    elements = 1
    for d in first_out["shape"]:
        elements *= d
    block_dim = max(1, min(elements // 64, 40))
    kind = KIND_OVERRIDE or ("MIX" if op in MIX_OPS else "VectorCore" if op in VECTOR_OPS else "AiCore")
    platform = desc.get("platform_info") or {"cube_core_cnt": 24, "vector_core_cnt": 48}
    kernel = {
        "binFileName": os.path.basename(args.out)[:-2],
        "binFileSuffix": ".o",
        "blockDim": block_dim,
        "coreType": kind,
        "kernelName": entry,
        "magic": "RT_DEV_BINARY_MAGIC_ELF" if kind != "MIX" else "RT_DEV_BINARY_MAGIC_ELF_AICUBE",
        "workspace": {"num": 1, "size": [elements * 4]},
        "platformInfo": {"cubeCoreCnt": platform["cube_core_cnt"], "vectorCoreCnt": platform["vector_core_cnt"],
                         "deterministicLevel": desc.get("deterministic_level", 0)},
        "sha256": hashlib.sha256(open(args.out, "rb").read()).hexdigest(),
        "opDesc": {"op_type": op, "shapes": shapes(desc)},
    }
    if kind == "MIX":  # CANN's MIX kernels say their launch in runInfo, every field of it
        kernel["runInfo"] = {"aicpu_block_dim": 0, "block_dim": block_dim, "local_memory_size": 0, "schedule_mode": 0,
                             "tiling_cond": 0, "tiling_key": 1, "clear_atomic": 0, "tiling_data": "0a000000"}
        kernel["blockDim"] = 1  # what opbase does not read when there is a runInfo
    else:
        kernel.update(localMemorySize=0, schedule_mode=0)
    with open(args.kernel_json, "w") as f:
        json.dump(kernel, f, indent=1)


main()
