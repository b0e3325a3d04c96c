#!/usr/bin/env python3
"""Writes an op-statistics dump in the real layout, as a model run of a small transformer block would:

  <root>/ts<time>_pid<pid>_outputs/<pid>_opcompile/<op>_<dtype>_<format>_<dims>_<N>.json
  <root>/ts<time>_pid<pid>_outputs/<pid>_debug/...      (same records plus bin_type/bin_info)

Every rank sees the same ops, so each distinct record appears once per rank. Options add
sequence lengths (more distinct shapes), unsupported ops and malformed files. Prints, and
writes to --expect, what a correct reader must find: distinct records per op type and the
malformed files, counted here independently of skb."""
import argparse, json, os, random

H_DEFAULT = 64


def tensor(name, index, dtype, shape, fmt="ND", param="required", const=None, view=None):
    t = {"dtype": dtype, "format": fmt, "index": index, "is_view": False, "name": name,
         "origin_format": fmt, "origin_shape": list(shape), "param_type": param, "shape": list(shape),
         "value_depend": const is not None}
    if const is not None:
        t["const_data"] = const
    if view is not None:
        t["is_view"] = True
        t["stride"], t["offset"] = view
    return t


def attr(name, index, dtype, value):
    return {"dtype": dtype, "index": index, "name": name, "value": value}


def record(op, inputs, outputs, attrs=()):
    return {"attrs": list(attrs), "deterministic": "false", "deterministic_level": 0,
            "impl_mode": "high_performance", "inputs": inputs, "op_type": op, "outputs": outputs,
            "platform_info": {"cube_core_cnt": 24, "vector_core_cnt": 48}, "tune_mode": "all"}


def block(batch, seq, hidden, heads, dt):
    """The op calls of one transformer block at one sequence length."""
    t, hd, rows = tensor, hidden // heads, batch * seq
    recs = []
    recs.append(record("LayerNorm", [t("x", 0, dt, [rows, hidden]), t("gamma", 1, dt, [hidden]), t("beta", 2, dt, [hidden])],
                       [t("y", 0, dt, [rows, hidden]), t("mean", 1, "float", [rows, 1]), t("variance", 2, "float", [rows, 1])],
                       [attr("begin_norm_axis", 0, "int", -1), attr("begin_params_axis", 1, "int", -1), attr("epsilon", 2, "float", 1e-5)]))
    recs.append(record("MatMulV2", [t("x1", 0, dt, [rows, hidden]), t("x2", 1, dt, [hidden, 3 * hidden]), t("bias", 2, dt, [3 * hidden], param="optional"), None],
                       [t("y", 0, dt, [rows, 3 * hidden])],
                       [attr("transpose_x1", 0, "bool", False), attr("transpose_x2", 1, "bool", False), attr("offset_x", 2, "int", 0)]))
    recs.append(record("Transpose", [t("x", 0, dt, [batch, seq, heads, hd]), t("perm", 1, "int64", [4], const=[0, 2, 1, 3])],
                       [t("y", 0, dt, [batch, heads, seq, hd])]))
    recs.append(record("BatchMatMulV2", [t("x1", 0, dt, [batch, heads, seq, hd]), t("x2", 1, dt, [batch, heads, seq, hd]), None, None],
                       [t("y", 0, dt, [batch, heads, seq, seq])],
                       [attr("adj_x1", 0, "bool", False), attr("adj_x2", 1, "bool", True), attr("offset_x", 2, "int", 0)]))
    recs.append(record("Mul", [t("x1", 0, dt, [batch, heads, seq, seq]), t("x2", 1, dt, [1])], [t("y", 0, dt, [batch, heads, seq, seq])]))
    recs.append(record("Add", [t("x1", 0, dt, [batch, heads, seq, seq]), t("x2", 1, dt, [batch, 1, 1, seq])], [t("y", 0, dt, [batch, heads, seq, seq])]))
    recs.append(record("SoftmaxV2", [t("x", 0, dt, [batch, heads, seq, seq])], [t("y", 0, dt, [batch, heads, seq, seq])],
                       [attr("axes", 0, "list_int", [-1])]))
    recs.append(record("BatchMatMulV2", [t("x1", 0, dt, [batch, heads, seq, seq]), t("x2", 1, dt, [batch, heads, seq, hd]), None, None],
                       [t("y", 0, dt, [batch, heads, seq, hd])],
                       [attr("adj_x1", 0, "bool", False), attr("adj_x2", 1, "bool", False), attr("offset_x", 2, "int", 0)]))
    recs.append(record("Transpose", [t("x", 0, dt, [batch, heads, seq, hd]), t("perm", 1, "int64", [4], const=[0, 2, 1, 3])],
                       [t("y", 0, dt, [batch, seq, heads, hd])]))
    recs.append(record("MatMulV2", [t("x1", 0, dt, [rows, hidden]), t("x2", 1, dt, [hidden, hidden]), None, None],
                       [t("y", 0, dt, [rows, hidden])],
                       [attr("transpose_x1", 0, "bool", False), attr("transpose_x2", 1, "bool", False), attr("offset_x", 2, "int", 0)]))
    recs.append(record("Add", [t("x1", 0, dt, [rows, hidden]), t("x2", 1, dt, [rows, hidden])], [t("y", 0, dt, [rows, hidden])]))
    recs.append(record("RmsNorm", [t("x", 0, dt, [rows, hidden]), t("gamma", 1, dt, [hidden])],
                       [t("y", 0, dt, [rows, hidden]), t("rstd", 1, "float", [rows, 1])], [attr("epsilon", 0, "float", 1e-6)]))
    recs.append(record("MatMulV2", [t("x1", 0, dt, [rows, hidden]), t("x2", 1, dt, [4 * hidden, hidden]), None, None],
                       [t("y", 0, dt, [rows, 4 * hidden])],
                       [attr("transpose_x1", 0, "bool", False), attr("transpose_x2", 1, "bool", True), attr("offset_x", 2, "int", 0)]))
    recs.append(record("FastGelu", [t("x", 0, dt, [rows, 4 * hidden])], [t("y", 0, dt, [rows, 4 * hidden])]))
    recs.append(record("Gelu", [t("x", 0, dt, [rows, 4 * hidden])], [t("y", 0, dt, [rows, 4 * hidden])]))
    recs.append(record("MatMulV2", [t("x1", 0, dt, [rows, 4 * hidden]), t("x2", 1, dt, [4 * hidden, hidden]), None, None],
                       [t("y", 0, dt, [rows, hidden])],
                       [attr("transpose_x1", 0, "bool", False), attr("transpose_x2", 1, "bool", False), attr("offset_x", 2, "int", 0)]))
    recs.append(record("Sub", [t("x1", 0, dt, [rows, hidden]), t("x2", 1, dt, [hidden])], [t("y", 0, dt, [rows, hidden])]))
    recs.append(record("RealDiv", [t("x1", 0, dt, [rows, hidden]), t("x2", 1, dt, [rows, 1])], [t("y", 0, dt, [rows, hidden])]))
    recs.append(record("Square", [t("x", 0, dt, [rows, hidden])], [t("y", 0, dt, [rows, hidden])]))
    recs.append(record("Relu", [t("x", 0, dt, [rows, 4 * hidden])], [t("y", 0, dt, [rows, 4 * hidden])]))
    recs.append(record("Cast", [t("x", 0, dt, [rows, hidden])], [t("y", 0, "float", [rows, hidden])],
                       [attr("dst_type", 0, "int", 0)]))
    return recs


def unsupported(batch, seq, hidden, dt):
    """Calls of ops no toolchain of skb has a template for: a gather, a split into a list, a stack of a list."""
    t = tensor
    return [
        record("GatherV2", [t("x", 0, dt, [4 * hidden, hidden]), t("indices", 1, "int64", [batch, seq]),
                            t("axis", 2, "int64", [1], const=[0])],
               [t("y", 0, dt, [batch, seq, hidden])]),
        record("SplitD", [t("x", 0, dt, [batch, 2 * seq, hidden])],
               [[t("y0", 0, dt, [batch, seq, hidden], param="dynamic"), t("y1", 0, dt, [batch, seq, hidden], param="dynamic")]],
               [attr("split_dim", 0, "int", 1), attr("num_split", 1, "int", 2)]),
        record("Pack", [[t("x0", 0, dt, [batch, seq], param="dynamic"), t("x1", 0, dt, [batch, seq], param="dynamic")]],
               [t("y", 0, dt, [2, batch, seq])], [attr("axis", 0, "int", 0), attr("N", 1, "int", 2)]),
    ]


MALFORMED = {
    "truncated": lambda good: good[: len(good) // 2],
    "empty": lambda good: "",
    "binary": lambda good: "\x00\x01\x02\xff\xfe garbage \x7f",
    "deep": lambda good: "[" * 100000 + "]" * 100000,
    "huge_number": lambda good: good.replace('"deterministic_level": 0', '"deterministic_level": 1e999'),
    "negative_dim": lambda good: good.replace('"shape": [', '"shape": [-3, ', 1),
    "traversal_op": lambda good: good.replace('"op_type": "', '"op_type": "../../etc/', 1),
    "ninja_meta_op": lambda good: good.replace('"op_type": "', '"op_type": "x$ y:', 1),
    "wrong_type": lambda good: good.replace('"is_view": false', '"is_view": "no"', 1),
    "not_object": lambda good: "[1, 2, 3]",
}


def file_name(rec, counter):
    first = rec["inputs"][0] if rec["inputs"] else None
    if isinstance(first, list):
        first = first[0] if first else None
    if not first:
        return "%s_%d.json" % (rec["op_type"], counter)
    dims = "_".join(str(d) for d in first["shape"])
    return "%s_%s_%s_%s_%d.json" % (rec["op_type"], first["dtype"], first["format"], dims, counter)


def identity(rec):
    """What makes a different kernel, computed independently of skb."""
    r = {k: v for k, v in rec.items() if k not in ("bin_type", "bin_info", "tune_mode")}
    def strip(x):
        if isinstance(x, list):
            return [strip(e) for e in x]
        if isinstance(x, dict):
            return {k: v for k, v in x.items() if k not in ("name", "index", "param_type", "origin_shape", "origin_format", "is_view", "value_depend")}
        return x
    r["inputs"], r["outputs"] = strip(r["inputs"]), strip(r["outputs"])
    return json.dumps(r, sort_keys=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--seqs", default="128", help="comma-separated sequence lengths")
    ap.add_argument("--batches", default="1", help="comma-separated batch sizes")
    ap.add_argument("--hidden", type=int, default=H_DEFAULT)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--dtypes", default="float16")
    ap.add_argument("--repeat", type=int, default=1, help="layers: each record written this many times per rank")
    ap.add_argument("--unsupported", action="store_true")
    ap.add_argument("--malformed", type=int, default=0, help="malformed files to add per rank")
    ap.add_argument("--debug", action="store_true", help="also write <pid>_debug with bin_type/bin_info")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--expect", help="write the expected counts here (JSON)")
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    recs = []
    for dt in a.dtypes.split(","):
        for b in [int(x) for x in a.batches.split(",")]:
            for s in [int(x) for x in a.seqs.split(",")]:
                recs += block(b, s, a.hidden, a.heads, dt)
                if a.unsupported:
                    recs += unsupported(b, s, a.hidden, dt)
    distinct = {}
    for r in recs:
        distinct.setdefault(identity(r), r)
    per_op = {}
    for r in distinct.values():
        per_op[r["op_type"]] = per_op.get(r["op_type"], 0) + 1

    malformed = []
    for rank in range(a.ranks):
        pid = 1000 + 17 * rank
        proc = os.path.join(a.root, "ts2026112203%02d%02d%06d_pid%d_outputs" % (rank, rank, 123456 + rank, pid))
        op_dir = os.path.join(proc, "%d_opcompile" % pid)
        os.makedirs(op_dir, exist_ok=True)
        if a.debug:
            os.makedirs(os.path.join(proc, "%d_debug" % pid), exist_ok=True)
        counter = 0
        order = list(recs) * a.repeat
        rnd.shuffle(order)
        for r in order:
            counter += 1
            name = file_name(r, counter)
            with open(os.path.join(op_dir, name), "w") as f:
                json.dump(r, f, indent=2, sort_keys=True)
            if a.debug:
                d = dict(r, bin_type=1, bin_info="dynamic")
                with open(os.path.join(proc, "%d_debug" % pid, name), "w") as f:
                    json.dump(d, f, indent=2, sort_keys=True)
        kinds = list(MALFORMED)
        for i in range(a.malformed):
            kind = kinds[i % len(kinds)]
            good = json.dumps(rnd.choice(recs), indent=2, sort_keys=True)
            counter += 1
            path = os.path.join(op_dir, "Bad_%s_%d.json" % (kind, counter))
            with open(path, "w", encoding="latin-1") as f:
                f.write(MALFORMED[kind](good))
            malformed.append(os.path.abspath(path))

    expect = {"records_per_rank": len(recs) * a.repeat, "ranks": a.ranks, "distinct": len(distinct),
              "distinct_per_op": per_op, "malformed": sorted(malformed),
              "files": a.ranks * len(recs) * a.repeat + len(malformed)}
    if a.expect:
        with open(a.expect, "w") as f:
            json.dump(expect, f, indent=2, sort_keys=True)
    print("%d files, %d distinct records, %d malformed" % (expect["files"], len(distinct), len(malformed)))


if __name__ == "__main__":
    main()
