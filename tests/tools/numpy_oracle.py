#!/usr/bin/env python3
"""An oracle that shares no code and no assumption with skb's templates: numpy. Generates valid
records over an op's whole attribute space (random shapes; SoftmaxV2 over every kind of axes
list: one or several, negative, unsorted, all; elementwise ops under numpy broadcasting; batched
matmuls under every adj/transpose; Tile, multiples longer than x's rank too; ConcatD of one to
three tensors along any axis; int64 Add of values beyond float's precision), packages them with
skb-package (static kernels and their dynamic twins), installs the .run, then runs every record,
and as many calls of shapes the dump
never saw (served by the dynamic kernels), through libskb_runtime's C API (ctypes) and compares
every output with numpy's, per dtype. A failing case prints its record, so it can be replayed.
With --toolchain cuda, the records are of the ops the cuda toolchain declares, the kernels are
cubins, and the calls run on the GPU (through skb_op_run_host: host buffers, copied). The work
splits in two where the GPU machine cannot build: --phase prepare (records, package, install,
calls.json; needs skb's build and the toolchain's compiler) and --phase check (runs calls.json
against WORK/lib; needs only the runtime library and numpy).
usage: numpy_oracle.py BUILD_BIN WORK [--trials N] [--seed S] [--toolchain host|cuda] [--soc SOC]
                       [--phase all|prepare|check] [--runtime LIB] [--replay EXE]"""
import argparse, ctypes, json, os, random, subprocess, sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from make_dump import attr, record, tensor

TOLERANCE = {"float": 1e-5, "float16": 2e-3, "bfloat16": 1.6e-2, "int64": 0}  # relative to max |expected| (and 1)


# --- numpy side: inputs and expected outputs, from the record alone ---------------------------

def to_bf16_bits(a):
    a = np.asarray(a, dtype=np.float32)
    bits = np.ascontiguousarray(a.reshape(-1)).view(np.uint32).astype(np.uint64)
    return ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16).astype(np.uint16).reshape(a.shape)


def from_bf16_bits(u):
    u = np.asarray(u)
    return (np.ascontiguousarray(u.reshape(-1)).astype(np.uint32) << 16).view(np.float32).reshape(u.shape)


def encode(values, dtype):
    """The bytes a kernel reads, and the float64 values those bytes mean (int64: the integers)."""
    if dtype == "int64":
        a = values.astype(np.int64)
        return a, a
    if dtype == "float":
        a = values.astype(np.float32)
        return a, a.astype(np.float64)
    if dtype == "float16":
        a = values.astype(np.float16)
        return a, a.astype(np.float64)
    a = to_bf16_bits(values)
    return a, from_bf16_bits(a).astype(np.float64)


def decode(buf, dtype):
    if dtype == "int64":
        return buf
    return (from_bf16_bits(buf) if dtype == "bfloat16" else buf).astype(np.float64)


def numpy_dtype(dtype):
    return {"float": np.float32, "float16": np.float16, "bfloat16": np.uint16, "int64": np.int64}[dtype]


def softmax(x, axes):
    axes = tuple(sorted(a % x.ndim for a in axes))
    e = np.exp(x - np.max(x, axis=axes, keepdims=True))
    return e / np.sum(e, axis=axes, keepdims=True)


def expected(rec, xs):
    op, attrs = rec["op_type"], {a["name"]: a["value"] for a in rec["attrs"]}
    if op == "SoftmaxV2":
        return softmax(xs[0], attrs.get("axes", [-1]))
    if op in ("Add", "Sub", "Mul", "RealDiv"):
        return {"Add": np.add, "Sub": np.subtract, "Mul": np.multiply, "RealDiv": np.divide}[op](xs[0], xs[1])
    if op == "BatchMatMulV2":
        a = np.swapaxes(xs[0], -1, -2) if attrs["adj_x1"] else xs[0]
        b = np.swapaxes(xs[1], -1, -2) if attrs["adj_x2"] else xs[1]
        return np.matmul(a, b)
    if op == "MatMulV2":
        a = xs[0].T if attrs["transpose_x1"] else xs[0]
        b = xs[1].T if attrs["transpose_x2"] else xs[1]
        return a @ b
    x = xs[0]
    if op == "Square":
        return x * x
    if op == "Relu":
        return np.maximum(x, 0)
    if op == "Gelu":  # CANN's Gelu: the tanh form
        return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    if op == "FastGelu":  # CANN's FastGelu: x / (1 + exp(-1.702|x|)) * exp(0.851 (x - |x|))
        return x / (1 + np.exp(-1.702 * np.abs(x))) * np.exp(0.851 * (x - np.abs(x)))
    if op == "Cast":
        return x
    if op == "LayerNorm":
        axes = tuple(range(attrs["begin_norm_axis"] % x.ndim, x.ndim))
        mean = x.mean(axis=axes, keepdims=True)
        var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
        return (x - mean) / np.sqrt(var + attrs["epsilon"]) * xs[1] + xs[2]  # gamma, beta broadcast
    if op == "RmsNorm":
        axes = tuple(range(x.ndim - xs[1].ndim, x.ndim))
        return x / np.sqrt((x ** 2).mean(axis=axes, keepdims=True) + attrs["epsilon"]) * xs[1]
    if op == "Transpose":
        return np.transpose(x, rec["inputs"][1]["const_data"])
    if op == "Tile":
        return np.tile(x, rec["inputs"][1]["const_data"])
    if op == "ConcatD":
        return np.concatenate(x, axis=attrs["concat_dim"])
    raise ValueError(op)


# --- the records: every kind of attribute value, random shapes --------------------------------

def dims(rng, rank, lo=1, hi=5):
    return [rng.randint(lo, hi) for _ in range(rank)]


def softmax_record(rng, dt):
    shape = dims(rng, rng.randint(1, 4))
    n = rng.randint(1, len(shape))
    axes = rng.sample(range(len(shape)), n)  # unsorted
    axes = [a - len(shape) if rng.random() < 0.5 else a for a in axes]  # some negative
    return record("SoftmaxV2", [tensor("x", 0, dt, shape)], [tensor("y", 0, dt, shape)], [attr("axes", 0, "list_int", axes)])


def broadcast_record(rng, dt):
    """Add, Sub, Mul, RealDiv under numpy broadcasting; of int64 tensors, Add (exact, in int64)."""
    out = dims(rng, rng.randint(1, 4))
    a = [d if rng.random() < 0.7 else 1 for d in out]
    b = [d if rng.random() < 0.7 else 1 for d in out][rng.randint(0, len(out)):]  # a suffix: lower rank
    if rng.random() < 0.5:
        a, b = b, a
    out = list(np.broadcast_shapes(tuple(a), tuple(b)))
    op = "Add" if dt == "int64" else rng.choice(["Add", "Sub", "Mul", "RealDiv"])
    return record(op, [tensor("x1", 0, dt, a), tensor("x2", 1, dt, b)], [tensor("y", 0, dt, out)])


def matmul_record(rng, dt):
    y_dt = rng.choice([dt, dt, "float"])  # y's dtype may be wider: computed in float, rounded to y's
    m, k, n = dims(rng, 3, 1, 6)
    ta, tb = rng.random() < 0.5, rng.random() < 0.5
    if rng.random() < 0.5:
        a = [k, m] if ta else [m, k]
        b = [n, k] if tb else [k, n]
        return record("MatMulV2", [tensor("x1", 0, dt, a), tensor("x2", 1, dt, b), None, None], [tensor("y", 0, y_dt, [m, n])],
                      [attr("transpose_x1", 0, "bool", ta), attr("transpose_x2", 1, "bool", tb)])
    batch = dims(rng, rng.randint(1, 2), 1, 3)
    ba = [d if rng.random() < 0.7 else 1 for d in batch]
    bb = [d if rng.random() < 0.7 else 1 for d in batch][rng.randint(0, len(batch)):]
    a = ba + ([k, m] if ta else [m, k])
    b = bb + ([n, k] if tb else [k, n])
    out = list(np.broadcast_shapes(tuple(ba), tuple(bb))) + [m, n]
    return record("BatchMatMulV2", [tensor("x1", 0, dt, a), tensor("x2", 1, dt, b), None, None], [tensor("y", 0, y_dt, out)],
                  [attr("adj_x1", 0, "bool", ta), attr("adj_x2", 1, "bool", tb)])


def unary_record(rng, dt):
    shape = dims(rng, rng.randint(0, 3))
    op = rng.choice(["Square", "Relu", "Gelu", "FastGelu", "Cast"])
    if op == "Cast":
        out = rng.choice(["float", "float16", "bfloat16"])
        ge = {"float": 0, "float16": 1, "bfloat16": 27}[out]
        return record("Cast", [tensor("x", 0, dt, shape)], [tensor("y", 0, out, shape)], [attr("dst_type", 0, "int", ge)])
    fmt = rng.choice(["ND", "NCHW", "NHWC"]) if len(shape) == 4 else "ND"
    return record(op, [tensor("x", 0, dt, shape, fmt)], [tensor("y", 0, dt, shape, fmt)])


def norm_record(rng, dt):
    x = dims(rng, rng.randint(1, 4), 1, 6)
    if rng.random() < 0.5:
        g = x[rng.randint(0, len(x) - 1):]
        rows = x[:len(x) - len(g)] + [1] * len(g)
        return record("RmsNorm", [tensor("x", 0, dt, x), tensor("gamma", 1, dt, g)],
                      [tensor("y", 0, dt, x), tensor("rstd", 1, "float", rows)], [attr("epsilon", 0, "float", 1e-6)])
    norm, params = rng.randint(0, len(x) - 1), rng.randint(0, len(x) - 1)
    rows = x[:norm] + [1] * (len(x) - norm)
    g = x[params:]
    neg = lambda a: a - len(x) if rng.random() < 0.5 else a
    return record("LayerNorm", [tensor("x", 0, dt, x), tensor("gamma", 1, dt, g), tensor("beta", 2, dt, g)],
                  [tensor("y", 0, dt, x), tensor("mean", 1, "float", rows), tensor("variance", 2, "float", rows)],
                  [attr("begin_norm_axis", 0, "int", neg(norm)), attr("begin_params_axis", 1, "int", neg(params)),
                   attr("epsilon", 2, "float", 1e-5)])


def transpose_record(rng, dt):
    x = dims(rng, rng.randint(1, 4))
    perm = rng.sample(range(len(x)), len(x))
    return record("Transpose", [tensor("x", 0, dt, x), tensor("perm", 1, "int64", [len(x)], const=perm)],
                  [tensor("y", 0, dt, [x[p] for p in perm])])


def tile_record(rng, dt):
    x = dims(rng, rng.randint(0, 3))
    multiples = dims(rng, max(1, len(x) + rng.randint(0, 1)), 1, 4)  # longer than x's rank: x padded with ones
    y = list(np.tile(np.zeros(x), multiples).shape)
    return record("Tile", [tensor("x", 0, dt, x), tensor("multiples", 1, "int64", [len(multiples)], const=multiples)],
                  [tensor("y", 0, dt, y)])


def concat_record(rng, dt):
    shape = dims(rng, rng.randint(1, 4))
    axis = rng.randrange(len(shape))
    xs = []
    for j in range(rng.randint(1, 4)):
        x = list(shape)
        x[axis] = rng.randint(1, 5)
        xs.append(tensor("x%d" % j, 0, dt, x, param="dynamic"))
    y = list(shape)
    y[axis] = sum(x["shape"][axis] for x in xs)
    dim = axis - len(shape) if rng.random() < 0.5 else axis
    return record("ConcatD", [xs], [tensor("y", 0, dt, y)], [attr("concat_dim", 0, "int", dim), attr("N", 1, "int", len(xs))])


MAKERS = [softmax_record, softmax_record, broadcast_record, matmul_record, unary_record, norm_record, transpose_record,
          tile_record, concat_record]


def unsupported_records(dt):
    """Records the templates cannot compute as they say: refused, never run by a kernel that would
    compute something else (their op and dtypes have dynamic kernels)."""
    relu = record("Relu", [tensor("x", 0, dt, [4, 6])], [tensor("y", 0, dt, [4, 6])], [attr("alpha", 0, "float", 0.1)])
    mm = record("MatMulV2", [tensor("x1", 0, dt, [4, 5]), tensor("x2", 1, dt, [5, 3]), None, None],
                [tensor("y", 0, dt, [4, 3])],
                [attr("transpose_x1", 0, "bool", False), attr("transpose_x2", 1, "bool", False), attr("offset_x", 2, "int", 3)])
    nz = record("Relu", [tensor("x", 0, dt, [1, 1, 16, 16], "FRACTAL_NZ")], [tensor("y", 0, dt, [1, 1, 16, 16], "FRACTAL_NZ")])
    for t in nz["inputs"] + nz["outputs"]:
        t["origin_format"], t["origin_shape"] = "ND", [16, 16]
    return [relu, mm, nz]


# --- the runtime, through its C API ------------------------------------------------------------

class Runtime:
    def __init__(self, lib_path, install_path):
        self.lib = ctypes.CDLL(lib_path)
        L = self.lib
        L.skb_runtime_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        L.skb_runtime_find.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.POINTER(ctypes.c_void_p)]
        L.skb_op_run_host.argtypes = [ctypes.c_void_p, ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_void_p)]
        L.skb_op_kind.argtypes = [ctypes.c_void_p]
        L.skb_op_free.argtypes = [ctypes.c_void_p]
        L.skb_runtime_close.argtypes = [ctypes.c_void_p]
        L.skb_last_error.restype = ctypes.c_char_p
        self.rt = ctypes.c_void_p()
        if L.skb_runtime_open(install_path.encode(), None, ctypes.byref(self.rt)) != 0:
            raise RuntimeError(L.skb_last_error().decode())

    def pointer(self, a):
        """An input slot's pointer: an array's data, or for a tensor list an array of their pointers (kept alive
        with the call)."""
        if a is None:
            return None
        if isinstance(a, list):
            array = (ctypes.c_void_p * len(a))(*[t.ctypes.data for t in a])
            self.lists.append(array)
            return ctypes.addressof(array)
        return a.ctypes.data

    def run(self, rec, inputs, outputs):
        """Runs rec on the input arrays into the output arrays; returns 'static' or 'dynamic'."""
        op = ctypes.c_void_p()
        rc = self.lib.skb_runtime_find(self.rt, json.dumps(rec).encode(), ctypes.byref(op))
        if rc != 0:
            raise RuntimeError("skb_runtime_find: %d: %s" % (rc, self.lib.skb_last_error().decode()))
        self.lists = []
        try:
            ins = (ctypes.c_void_p * len(inputs))(*[self.pointer(a) for a in inputs])
            outs = (ctypes.c_void_p * len(outputs))(*[a.ctypes.data for a in outputs])
            rc = self.lib.skb_op_run_host(op, ins, outs)
            if rc != 0:
                raise RuntimeError("skb_op_run_host: %d: %s" % (rc, self.lib.skb_last_error().decode()))
            return "static" if self.lib.skb_op_kind(op) == 1 else "dynamic"
        finally:
            self.lib.skb_op_free(op)


def random_input(rec, t, rng_np):
    """A tensor's buffer and the values it means."""
    if t["dtype"] == "int64":  # beyond float's 24 and 53 bits, so that only exact integer arithmetic agrees
        values = rng_np.integers(-(1 << 60), 1 << 60, size=t["shape"], dtype=np.int64)
    else:
        values = rng_np.uniform(-3, 3, size=t["shape"]) if t["shape"] else np.array(rng_np.uniform(-3, 3))
    if rec["op_type"] == "RealDiv" and t["index"] == 1:
        values = np.sign(values) * (np.abs(values) + 0.5)  # no division by ~0
    buf, meant = encode(np.asarray(values), t["dtype"])
    return np.ascontiguousarray(buf), meant


def check(rt, rec, rng_np):
    xs, bufs = [], []
    for t in rec["inputs"]:
        if t is None:
            bufs.append(None)
            continue
        if isinstance(t, list):  # a tensor list (ConcatD's x): a list of buffers, passed as an array of pointers
            pairs = [random_input(rec, u, rng_np) for u in t]
            bufs.append([b for b, _ in pairs])
            xs.append([m for _, m in pairs])
            continue
        if t.get("value_depend"):  # host data (a permutation): int64 as recorded
            bufs.append(np.array(t["const_data"], dtype=np.int64))
            xs.append(np.array(t["const_data"]))
            continue
        buf, meant = random_input(rec, t, rng_np)
        bufs.append(buf)
        xs.append(meant)
    y = rec["outputs"][0]
    outs = [np.zeros(t["shape"], dtype=numpy_dtype(t["dtype"])) for t in rec["outputs"]]
    kind = rt.run(rec, bufs, outs)
    out = outs[0]
    got = decode(out, y["dtype"])
    if y["dtype"] == "int64":
        want = np.asarray(expected(rec, xs), dtype=np.int64)
        if got.shape != want.shape:
            return kind, "shape %s, numpy %s" % (got.shape, want.shape)
        wrong = np.flatnonzero(got != want)
        return kind, "element %d: %d, numpy %d" % (wrong[0], got.flat[wrong[0]], want.flat[wrong[0]]) if wrong.size else ""
    want = np.asarray(expected(rec, xs), dtype=np.float64)
    if got.shape != want.shape:
        return kind, "shape %s, numpy %s" % (got.shape, want.shape)
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    scale = max(1.0, float(np.max(np.abs(want)))) if want.size else 1.0
    if not np.all(np.isfinite(got)) or err > TOLERANCE[y["dtype"]] * scale:
        return kind, "max abs error %.3g (tolerance %.3g)" % (err, TOLERANCE[y["dtype"]] * scale)
    return kind, ""


def unseen_shape(rng, rec):
    """The same op, dtypes and attrs with another size in one dim (the dynamic twin serves it)."""
    r = json.loads(json.dumps(rec))
    if r["op_type"] == "SoftmaxV2":
        shape = r["inputs"][0]["shape"]
        shape[rng.randrange(len(shape))] += 3
        for t in (r["inputs"][0], r["outputs"][0]):
            t["shape"] = t["origin_shape"] = list(shape)
        return r
    if r["op_type"] in ("Square", "Relu", "Gelu", "FastGelu", "Cast") and r["inputs"][0]["shape"]:
        shape = r["inputs"][0]["shape"]
        shape[rng.randrange(len(shape))] += 2
        for t in (r["inputs"][0], r["outputs"][0]):
            t["shape"] = t["origin_shape"] = list(shape)
        return r
    if r["op_type"] == "Tile" and r["inputs"][0]["shape"]:  # x one longer on its last axis
        x, y, m = r["inputs"][0], r["outputs"][0], r["inputs"][1]["const_data"]
        x["shape"][-1] += 1
        y["shape"][-1] = x["shape"][-1] * m[-1]
        x["origin_shape"], y["origin_shape"] = list(x["shape"]), list(y["shape"])
        return r
    if r["op_type"] == "ConcatD":  # the first tensor two longer on concat_dim
        x, y = r["inputs"][0][0], r["outputs"][0]
        axis = r["attrs"][0]["value"] % len(y["shape"])
        x["shape"][axis] += 2
        y["shape"][axis] += 2
        x["origin_shape"], y["origin_shape"] = list(x["shape"]), list(y["shape"])
        return r
    return None


FLOATS = ["float", "float16", "bfloat16"]


def covering_records(rng, makers, drawn, toolchain):
    """A record of each (op, dtype) the toolchain's profile declares (float ones and int64) that the
    random draw missed, so that every one is checked whatever the trial count."""
    profile = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "templates", "toolchains",
                           toolchain + ".json")
    with open(profile) as f:
        ops = json.load(f)["ops"]
    first = lambda t: t[0] if isinstance(t, list) else t
    first_dtype = lambda r: first(next(t for t in r["inputs"] if t))["dtype"]
    seen = {(r["op_type"], first_dtype(r)) for r in drawn}
    extra = []
    for op in sorted(ops):
        for dt in (d for d in FLOATS + ["int64"] if d in ops[op]["dtypes"]):
            for _ in range(1000):  # the makers of this op draw it often: a few tries each
                if (op, dt) in seen:
                    break
                rec = rng.choice(makers)(rng, dt)
                if rec["op_type"] == op and first_dtype(rec) == dt:
                    seen.add((op, dt))
                    extra.append(rec)
            else:
                raise RuntimeError("no record of %s in %s drawn" % (op, dt))
    return extra


def prepare(a, rng):
    """Records, their package (static kernels and dynamic twins), installed into WORK/lib, and
    every call to make (the records, then unseen shapes) in WORK/calls.json."""
    dump = os.path.join(a.work, "dump")
    os.makedirs(dump, exist_ok=True)
    # The supported twins of the unsupported records below, so that their op and dtypes have
    # dynamic kernels the runtime must still not use for them.
    records = [record("Relu", [tensor("x", 0, "float", [4, 6])], [tensor("y", 0, "float", [4, 6])]),
               record("MatMulV2", [tensor("x1", 0, "float", [4, 5]), tensor("x2", 1, "float", [5, 3]), None, None],
                      [tensor("y", 0, "float", [4, 3])],
                      [attr("transpose_x1", 0, "bool", False), attr("transpose_x2", 1, "bool", False),
                       attr("offset_x", 2, "int", 0)])]
    for rec in records:
        with open(os.path.join(dump, "twin_%s.json" % rec["op_type"]), "w") as f:
            json.dump(rec, f)
    makers = MAKERS  # both profiles declare every op the makers draw
    drawn = [rng.choice(makers)(rng, rng.choice(FLOATS)) for _ in range(a.trials)]
    drawn += covering_records(rng, makers, drawn, a.toolchain)
    for i, rec in enumerate(drawn):
        records.append(rec)
        with open(os.path.join(dump, "%s_%d.json" % (rec["op_type"], i)), "w") as f:
            json.dump(rec, f)
    for i, rec in enumerate(unsupported_records("float")):
        with open(os.path.join(dump, "unsupported_%d.json" % i), "w") as f:
            json.dump(rec, f)
    cmd = [os.path.join(a.bin, "skb-package"), "-p", dump, "-o", os.path.join(a.work, "out"), "--dynamic", "-q",
           "-j", str(os.cpu_count() or 2), "--toolchain", a.toolchain]
    if a.soc:
        cmd += ["--soc", a.soc]
    run = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout.strip()
    with open(os.path.join(a.work, "out", ".skb", "summary.json")) as f:
        unsupported = json.load(f)["unsupported"]
    for op in ("Relu", "MatMulV2"):
        if op not in unsupported:
            print("FAIL: skb-generate did not count the unsupported %s records: %s" % (op, unsupported))
            return False
    subprocess.run(["sh", run, "-q", "--install-path=" + os.path.join(a.work, "lib")], check=True)
    calls = records + [u for u in (unseen_shape(rng, r) for r in records) if u]
    with open(os.path.join(a.work, "calls.json"), "w") as f:
        json.dump({"seed": a.seed, "toolchain": a.toolchain, "calls": calls}, f)
    return True


def check_calls(a, rng_np):
    """Every call of WORK/calls.json through the runtime, against numpy; then skb-replay."""
    with open(os.path.join(a.work, "calls.json")) as f:
        calls = json.load(f)["calls"]
    lib = os.path.join(a.work, "lib")
    rt = Runtime(a.runtime or os.path.join(os.path.dirname(a.bin), "lib", "libskb_runtime.so"), lib)
    # A served model's call of an attribute or layout the templates do not compute: refused.
    refused = 0
    for rec in unsupported_records("float"):
        op = ctypes.c_void_p()
        rc = rt.lib.skb_runtime_find(rt.rt, json.dumps(rec).encode(), ctypes.byref(op))
        if rc != 6:  # SKB_ERR_UNSUPPORTED
            print("FAIL: %s was not refused as unsupported (status %d)\n  record: %s" % (rec["op_type"], rc, json.dumps(rec)))
            return 1
        refused += 1
    n, kinds, failed = 0, {"static": 0, "dynamic": 0}, []
    for rec in calls:
        kind, why = check(rt, rec, rng_np)
        n += 1
        kinds[kind] += 1
        if why:
            failed.append((rec, kind, why))
    for rec, kind, why in failed[:10]:
        print("FAIL: %s %s kernel: %s\n  record: %s" % (rec["op_type"], kind, why, json.dumps(rec)))
    print("numpy oracle (%s): %d calls (%d static, %d dynamic kernels), %d differed from numpy; %d unsupported calls refused" %
          (a.toolchain, n, kinds["static"], kinds["dynamic"], len(failed), refused))
    if failed:
        return 1
    # The product's own check on the same space: skb-replay's reference agrees with the kernels
    # that agree with numpy.
    replay_exe = a.replay or os.path.join(a.bin, "skb-replay")
    replay = subprocess.run([replay_exe, "--install-path", lib, os.path.join(a.work, "dump")], capture_output=True, text=True)
    print("skb-replay: " + replay.stdout.strip().splitlines()[-1] if replay.stdout.strip() else replay.stderr)
    if replay.returncode != 0 or " 0 differed" not in replay.stdout:
        print("FAIL: skb-replay's reference disagrees with kernels numpy accepted:\n" + replay.stdout[-2000:] + replay.stderr)
        return 1
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("bin")
    ap.add_argument("work")
    ap.add_argument("--trials", type=int, default=int(os.environ.get("SKB_ORACLE_TRIALS", "120")))
    ap.add_argument("--seed", type=int, default=int(os.environ.get("SKB_ORACLE_SEED", "1")))
    ap.add_argument("--toolchain", default="host", choices=["host", "cuda"])
    ap.add_argument("--soc", default="")
    ap.add_argument("--phase", default="all", choices=["all", "prepare", "check"])
    ap.add_argument("--runtime", default="", help="libskb_runtime.so (default: BUILD_BIN/../lib/)")
    ap.add_argument("--replay", default="", help="skb-replay (default: BUILD_BIN/skb-replay)")
    a = ap.parse_args()
    if a.phase in ("all", "prepare") and not prepare(a, random.Random(a.seed)):
        return 1
    if a.phase in ("all", "check"):
        return check_calls(a, np.random.default_rng(a.seed))
    return 0


if __name__ == "__main__":
    sys.exit(main())
