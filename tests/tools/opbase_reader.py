#!/usr/bin/env python3
"""An installed operator library read as opbase reads it, and every recorded call looked up by both
of its engines. Written from opbase's source (hicann/opbase, src/nnopbase), function by function:

    opbase_reader.py AI_CORE SOC RECORD_DIR...

- The index: NnopbaseCollectorReadStaticKernelOpInfoConfig, NnopbaseUpdateCommonJsonInfo
  (simplifiedKey a string or a list of strings, an integer coreType, a binPath),
  NnopbaseUpdateStaticJsonInfo (binDesc: an unsigned blockDim, a kernelName, workspace sizes), and
  the composite engine's OpKernel::AppendStaticBin (valueDependIndex; a binPath with ".o";
  simplifiedKey read with get<std::string>(), which throws on anything else).
- The kernel's JSON: UpdateStaticJsonExtraInfo (binPath cut at its first ".o", then "json"),
  UpdateRunInfoForStaticJson, UpdatePlatformInfoForStaticJson; g_nnopbaseKernelTypeMap.
- The keys: NnopbaseCollectorConvertStaticVerbKey and NnopbaseBeyond8ByteCopy (string to bytes);
  the composite engine's OpKernel::GenerateStaticParam, AppendAttr, GetCurrentImplMode and
  NnopbaseCollectorGenStaticKey; the individual engine's NnopbaseExecutorAddDynamicTensors,
  NnopbaseExecutorGenStaticKey, NnopbaseExecutorGenTensorsKey and NnopbaseExecutorGenAttrsKey.

Every record must be found by both engines, at every impl mode each may use, and both must find
the same kernel, the one compiled for it (the stand-in compiler's opDesc). Prints one line of
counts; exits 1 with the reasons otherwise.
"""
import json, os, struct, sys

DTYPES = {"float": (0, "<f"), "float16": (1, "<e"), "int8": (2, "<b"), "int32": (3, "<i"), "uint8": (4, "<B"),
          "int16": (6, "<h"), "uint16": (7, "<H"), "uint32": (8, "<I"), "int64": (9, "<q"), "uint64": (10, "<Q"),
          "double": (11, "<d"), "bool": (12, "<?")}
FORMATS = {"NCHW": 0, "NHWC": 1, "ND": 2, "NC1HWC0": 3, "FRACTAL_Z": 4, "FRACTAL_NZ": 29}
KERNEL_TYPES = {"MIX": 0, "AiCore": 1, "VectorCore": 2, "MIX_AICORE": 3, "MIX_VECTOR_CORE": 4, "MIX_AIC": 0}
IMPL_MODES = {"": 0, "default": 0, "high_performance": 1, "high_precision": 2}
U32 = 0xffffffff
problems = []


def w8(v):
    return struct.pack("<Q", v & 0xffffffffffffffff)


def copy8(data):  # NnopbaseExecutor8ByteCopy: 8-byte words, the last one zero-padded
    data = bytes(data)
    return data + b"\0" * (-len(data) % 8)


def convert(key):  # NnopbaseCollectorConvertStaticVerbKey
    op, head, rest = key.split("/", 2) if key.count("/") >= 2 else (key.split("/") + ["", ""])[:3]
    out = op.encode() + b"".join(w8(int(c)) for c in head if c in "012")
    run = ""

    def flush():
        nonlocal out, run
        if len(run) > 16:  # NnopbaseBeyond8ByteCopy: words of 16 digits from the end
            for end in range(len(run), 0, -16):
                out += w8(int(run[max(0, end - 16):end], 16))
        elif run:
            out += w8(int(run, 16))
        run = ""

    for c in rest:
        if c == "_":
            out += w8(ord("_"))
        elif c in "0123456789abcdef":
            run += c
        else:
            flush()
    flush()
    return out


def tensor_bytes(t, value_depend, with_dtype_format):
    out = b""
    if with_dtype_format:
        fmt = FORMATS[t["format"]] | (t.get("sub_format", 0) & 0xffff) << 8 | (t.get("c0_format", 0) & 0xf) << 24
        out += w8(DTYPES[t["dtype"]][0]) + w8(fmt)
    out += b"".join(w8(d) for d in t["shape"])
    if value_depend and t.get("value_depend"):
        for v in t["const_data"]:
            out += copy8(struct.pack(DTYPES[t["dtype"]][1], v))
    return out


def attr_bytes(attrs, string_with_nul):
    out = b""
    for a in sorted(attrs, key=lambda a: a["index"]):
        kind, v = a["dtype"], a["value"]
        if kind in ("str", "string"):
            if v == "":
                continue  # both engines skip an empty string
            out += copy8(v.encode() + (b"\0" if string_with_nul else b""))
        elif kind.startswith("list"):
            element = "<?" if "bool" in kind.lower() else "<f" if "float" in kind else "<q"
            out += b"".join(copy8(struct.pack(element, x)) for x in v)
        else:
            out += copy8(struct.pack("<?" if kind == "bool" else "<f" if kind.startswith("float") else "<q", v))
    return out


def head(r, p):
    return r["op_type"].encode() + w8(1 if r.get("deterministic") == "true" else 0) + w8(p)


def composite(r, p, value_depend_index):
    tensors = []
    for slot in r["inputs"]:  # GenerateStaticParam: a list's tensors one by one, then padding
        tensors += slot if isinstance(slot, list) else [slot]
    tensors += [None] * (len(r["inputs"]) - len(tensors))
    for slot in r["outputs"]:
        tensors += slot if isinstance(slot, list) else [slot]
    out = head(r, p)
    for i, t in enumerate(tensors):
        out += w8(ord("_")) if t is None else tensor_bytes(t, i in value_depend_index, True)
    return out + attr_bytes(r["attrs"], False)


def individual(r, p):
    out = head(r, p)
    for slot in r["inputs"] + r["outputs"]:
        if slot is None:
            out += w8(ord("_"))
        elif isinstance(slot, list):  # dtype and format on the first tensor of a list only
            out += b"".join(tensor_bytes(t, True, j == 0) for j, t in enumerate(slot))
        else:
            out += tensor_bytes(slot, True, True)
    return out + attr_bytes(r["attrs"], True)


def read_kernel_json(root, bin_path):
    path = os.path.join(root, bin_path[:bin_path.index(".o") + 1] + "json")
    k = json.load(open(path))
    ints = lambda obj, names, top=U32: all(type(obj.get(n)) is int and 0 <= obj[n] <= top for n in names)
    if "runInfo" in k:
        run = k["runInfo"]
        ok = ints(run, ["aicpu_block_dim", "block_dim", "local_memory_size", "schedule_mode", "tiling_cond",
                        "clear_atomic"]) and ints(run, ["tiling_key"], 2**64 - 1) and isinstance(
                            run.get("tiling_data"), str) and len(run["tiling_data"]) % 2 == 0
        block_dim = run.get("block_dim")
    else:
        ok = ints(k, ["blockDim", "localMemorySize", "schedule_mode"])
        block_dim = k.get("blockDim")
    ws = k.get("workspace", {})
    ok = ok and type(ws.get("num")) is int and len(ws.get("size", [])) >= ws["num"]
    if not ok:
        problems.append("%s: runInfo or workspace is not as UpdateRunInfoForStaticJson reads it" % path)
    pi = k.get("platformInfo", {})
    if not ints(pi, ["cubeCoreCnt", "vectorCoreCnt"]):
        problems.append("%s: platformInfo is not as UpdatePlatformInfoForStaticJson reads it" % path)
    return k, block_dim


def read_index(root, soc):
    index = json.load(open(os.path.join(root, "config", soc, "binary_info_config.json")))
    table = {}  # op → list of (bytes of a key, binPath), in the order read: the first one read wins
    entries = 0
    for op, entry in index.items():
        vdi = entry.get("valueDependIndex")
        table[op] = {"keys": [], "vdi": set(vdi) if isinstance(vdi, list) else set()}
        for e in entry.get("staticList", []):
            entries += 1
            key = e.get("simplifiedKey")
            if not isinstance(key, str):  # AppendStaticBin: get<std::string>() throws
                problems.append("%s: a simplifiedKey the composite engine cannot read: %r" % (op, key))
                continue
            bin_path, desc = e.get("binPath"), e.get("binDesc", {})
            if type(e.get("coreType")) is not int or not isinstance(bin_path, str) or ".o" not in bin_path:
                problems.append("%s: an entry opbase skips (coreType, binPath): %s" % (op, e))
                continue
            if type(desc.get("blockDim")) is not int or not isinstance(desc.get("kernelName"), str):
                problems.append("%s: binDesc opbase skips: %s" % (op, desc))
                continue
            k, block_dim = read_kernel_json(root, bin_path)
            if KERNEL_TYPES.get(k.get("coreType")) != e["coreType"] or block_dim != desc["blockDim"] or \
                    k["kernelName"] != desc["kernelName"] or k["workspace"]["size"] != desc.get("workspace"):
                problems.append("%s: the index disagrees with the kernel's JSON: %s / %s" % (bin_path, e, k))
            table[op]["keys"].append((convert(key), bin_path, k.get("opDesc")))
    return table, entries


def find(table, op, key_bytes):
    for b, bin_path, desc in table.get(op, {}).get("keys", []):
        if b == key_bytes:
            return bin_path, desc
    return None


def records(dirs):
    for d in dirs:
        for name in sorted(os.listdir(d)):
            if name.endswith(".json"):
                yield os.path.join(d, name), json.load(open(os.path.join(d, name)))


def describe(r):
    shapes = []
    for slot in r["inputs"] + r["outputs"]:
        for t in (slot if isinstance(slot, list) else [slot]):
            shapes.append(None if t is None else t["shape"])
    return {"op_type": r["op_type"], "shapes": shapes}


def main():
    root, soc, dirs = sys.argv[1], sys.argv[2], sys.argv[3:]
    table, entries = read_index(root, soc)
    calls = lookups = 0
    for path, r in records(dirs):
        calls += 1
        p = IMPL_MODES[r.get("impl_mode", "")]
        found = set()
        # the individual engine at the process's mode; the composite engine at GetCurrentImplMode's
        for engine, modes in (("individual", [p]), ("composite", [p] if p else [2, 1])):
            for mode in modes:
                lookups += 1
                b = individual(r, mode) if engine == "individual" else composite(r, mode, table.get(r["op_type"], {}).get("vdi", set()))
                hit = find(table, r["op_type"], b)
                if hit is None:
                    problems.append("%s: the %s engine finds no kernel at p=%d" % (path, engine, mode))
                    continue
                found.add(hit[0])
                got = hit[1] or {}
                if {"op_type": got.get("op_type"), "shapes": got.get("shapes")} != describe(r):
                    problems.append("%s: the %s engine finds %s, compiled for another call" % (path, engine, hit[0]))
        if len(found) > 1:
            problems.append("%s: the engines find different kernels: %s" % (path, sorted(found)))
    if problems:
        print("\n".join(problems[:20]), file=sys.stderr)
        sys.exit(1)
    print("%d calls, %d lookups by both engines, all found; %d index entries" % (calls, lookups, entries))


main()
