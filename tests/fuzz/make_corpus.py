#!/usr/bin/env python3
"""Writes the seed corpus of every fuzz target into tests/fuzz/corpus/<target>/: valid inputs
(the example dump, the shipped toolchain profiles, small well-formed payloads, manifests and
indexes) and the hostile ones that each reader must refuse (tests/fuzz/hostile.md lists them).
Deterministic: run it again and git sees no change. usage: make_corpus.py [SOURCE_DIR]"""
import base64, copy, glob, gzip, hashlib, io, json, os, shutil, struct, sys, tarfile, zlib

top = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
out = os.path.join(top, "tests", "fuzz", "corpus")


def put(target, name, data):
    d = os.path.join(out, target)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name), "wb") as f:
        f.write(data if isinstance(data, bytes) else data.encode())


def dumps(doc):
    return json.dumps(doc, sort_keys=True)


def deep(n):  # n nested arrays, without recursion
    return "[" * n + "]" * n


# --- op records: one of each distinct record of the example dump, then hostile ones ---------
seen = set()
records = []
for path in sorted(glob.glob(os.path.join(top, "examples", "op_stats", "**", "*.json"), recursive=True)):
    text = open(path, "rb").read()
    digest = hashlib.sha256(text).hexdigest()[:16]
    if digest in seen:
        continue
    seen.add(digest)
    records.append(json.loads(text))
    put("op_record", "example_%s.json" % digest, text)
base = next(r for r in records if r.get("op_type") == "Add")
mm = next(r for r in records if r.get("op_type") == "MatMulV2")


def variant(name, change, doc=base):
    r = copy.deepcopy(doc)
    change(r)
    put("op_record", "hostile_%s.json" % name, dumps(r))


def set_key(key, value):
    return lambda r: r.__setitem__(key, value)


def set_shape(value):
    return lambda r: r["inputs"][0].__setitem__("shape", value)


variant("op_type_ninja", set_key("op_type", "Add\nbuild evil: phony"))
variant("op_type_ninja_dollar", set_key("op_type", "Add$ $out"))
variant("op_type_shell", set_key("op_type", "Add;rm -rf ~"))
variant("op_type_subst", set_key("op_type", "$(touch /tmp/skb_pwned)"))
variant("op_type_path", set_key("op_type", "../../etc/passwd"))
variant("attr_str_shell", lambda r: r.__setitem__(
    "attrs", [{"name": "mode", "dtype": "str", "index": 0, "value": "x`touch /tmp/skb_pwned`"}]), mm)
variant("attr_str_ninja", lambda r: r.__setitem__(
    "attrs", [{"name": "mode", "dtype": "str", "index": 0, "value": "a$\nbuild x: phony"}]), mm)
variant("attr_str_semicolon", lambda r: r.__setitem__(
    "attrs", [{"name": "mode", "dtype": "str", "index": 0, "value": "a; rm -rf /"}]), mm)
variant("attr_name_shell", lambda r: r.__setitem__(
    "attrs", [{"name": "a;b", "dtype": "int", "index": 0, "value": 1}]), mm)
variant("dim_gigantic", set_shape([2 ** 62, 2 ** 62]))
variant("dim_overflow", set_shape([99999999999999999999999]))
variant("dim_product_overflow", set_shape([2 ** 31, 2 ** 31, 2 ** 31]))
variant("dim_negative", set_shape([-2, 4]))
variant("dim_float", set_shape([1.5, 4]))
variant("rank_huge", set_shape([1] * 100000))
variant("dtype_unknown", lambda r: r["inputs"][0].__setitem__("dtype", "DT_QUATERNION"))
put("op_record", "hostile_nesting_100000.json", '{"op_type":"Add","inputs":' + deep(100000) + "}")
put("op_record", "hostile_nesting_objects.json", '{"a":' * 50000 + "1" + "}" * 50000)
put("op_record", "hostile_not_json.json", "\x00\xff\xfe not json")
put("op_record", "hostile_empty.json", "")
put("op_record", "hostile_truncated.json", dumps(base)[:-7])
put("op_record", "hostile_duplicate_keys.json", dumps(base)[:-1] + ', "op_type": "Mul"}')
put("op_record", "hostile_bad_utf8.json", dumps(base).replace('"Add"', '"A\\udc00dd"').encode() + b"\xc3\x28")


# Records that parse but contradict their op: a kernel built or run from one would compute with
# shapes nobody checked (matmul k under transposes, broadcasting, axes, a permutation, norms).
def by_op(op):
    return next(r for r in records if r.get("op_type") == op)


def set_tensor(side, i, shape):
    def change(r):
        r[side][i]["shape"] = shape
        r[side][i]["origin_shape"] = shape
    return change


def set_attr(name, value):
    def change(r):
        next(a for a in r["attrs"] if a["name"] == name)["value"] = value
    return change


def all_of(*changes):
    def change(r):
        for c in changes:
            c(r)
    return change


variant("shape_matmul_transpose_x2", set_attr("transpose_x2", True), mm)  # x2 laid out as if false
variant("shape_bmm_adj_x2", all_of(set_tensor("inputs", 0, [1, 2, 16, 32]), set_tensor("inputs", 1, [1, 2, 32, 48]),
                                   set_tensor("outputs", 0, [1, 2, 16, 48]), set_attr("adj_x2", True)),
        by_op("BatchMatMulV2"))
variant("shape_output_larger", set_tensor("outputs", 0, [16, 4096]))
variant("shape_no_broadcast", set_tensor("inputs", 1, [3, 32]))
variant("shape_softmax_axis", set_attr("axes", [7]), by_op("SoftmaxV2"))
variant("shape_transpose_perm", lambda r: r["inputs"][1].__setitem__("const_data", [0, 0, 1, 3]), by_op("Transpose"))
variant("shape_layernorm_gamma", set_tensor("inputs", 1, [31]), by_op("LayerNorm"))
variant("shape_rmsnorm_rstd", set_tensor("outputs", 1, [16, 32]), by_op("RmsNorm"))
variant("shape_cast_dst_type", set_attr("dst_type", 1), by_op("Cast"))
variant("shape_missing_input", lambda r: r.__setitem__("inputs", r["inputs"][:1]))

# --- toolchain profiles ---------------------------------------------------------------------
for path in sorted(glob.glob(os.path.join(top, "templates", "toolchains", "*.json"))):
    put("toolchain_profile", os.path.basename(path), open(path, "rb").read())
host = json.load(open(os.path.join(top, "templates", "toolchains", "host.json")))


def profile(name, change):
    p = copy.deepcopy(host)
    change(p)
    put("toolchain_profile", "hostile_%s.json" % name, dumps(p))


profile("unknown_placeholder", lambda p: p["command"].append("{home}"))
profile("unclosed_placeholder", lambda p: p["command"].append("{out"))
profile("no_out", lambda p: p.__setitem__("command", ["{compiler}", "{src}"]))
profile("link_without_obj", lambda p: p.__setitem__("link", ["{compiler}", "-o", "{out}"]))
profile("op_type_path", lambda p: p["ops"].__setitem__("../x", {"template": "a.cc", "dtypes": []}))
profile("suffix_path", lambda p: p.__setitem__("suffix", "/../x"))
profile("name_shell", lambda p: p.__setitem__("name", "host;rm"))
profile("separator", lambda p: p.__setitem__("define_list_separator", " "))
profile("unknown_key", lambda p: p.__setitem__("exec", "sh"))
profile("launch_block_not_warps", lambda p: p.__setitem__("launch", {"device": "cuda", "block": 100, "max_grid": 8}))
profile("launch_device", lambda p: p.__setitem__("launch", {"device": "tpu", "block": 256, "max_grid": 8}))
profile("launch_grid_huge", lambda p: p.__setitem__("launch", {"device": "cuda", "block": 256, "max_grid": 2 ** 40}))
put("toolchain_profile", "hostile_nesting.json", deep(100000))

# --- payloads: small consistent archives, and each kind of attack ---------------------------
PKG = "static_kernel_20240101000000"
files = {"host/Add/Add_0123.so": b"\x7fELF kernel bytes", "host/Add/Add_0123.json": b'{"k":1}\n'}
KEY = hashlib.sha256(b"signature").hexdigest()


def manifest(file_map, package=PKG):
    return {
        "created": "2024-01-01T00:00:00Z", "format": 1, "package": package, "skb_version": "0.1.0", "soc": "host",
        "toolchain": "host", "toolchain_identity": "0" * 64,
        "installed_size": sum(len(v) for v in file_map.values()),
        "files": [{"path": p, "sha256": hashlib.sha256(v).hexdigest(), "size": len(v)} for p, v in sorted(file_map.items())],
        "kernels": [{"bin": "host/Add/Add_0123.so", "entry": "skb_kernel", "key": KEY, "name": "Add_0123",
                     "op_type": "Add", "variant": "static"}],
    }


def tar_bytes(entries, compress=None):
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as t:
        for info, data in entries:
            info.mtime = 0
            t.addfile(info, io.BytesIO(data) if data is not None else None)
    raw = buf.getvalue()
    if compress == "blocks":
        return gzip_blocks(raw, 700)
    return gzip.compress(raw, mtime=0) if compress == "gz" else raw


def gzip_blocks(raw, size, extra_length=0):
    """raw as skb-package writes a gzip payload: gzip members of `size` bytes each that name their
    own length in the extra field "SK" (packager/format/gzip_bytes.h); the last one's length
    `extra_length` bytes too long."""
    out = b""
    for i in range(0, len(raw), size):
        chunk = raw[i:i + size]
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        body = c.compress(chunk) + c.flush()
        n = 20 + len(body) + 8 + (extra_length if i + size >= len(raw) else 0)
        out += bytes([0x1F, 0x8B, 8, 4, 0, 0, 0, 0, 0, 0xFF, 8, 0]) + b"SK" + struct.pack("<HI", 4, n)
        out += body + struct.pack("<II", zlib.crc32(chunk), len(chunk))
    return out


def entry(name, data=b"", type=tarfile.REGTYPE, mode=0o644, link=""):
    i = tarfile.TarInfo(name)
    i.type, i.mode, i.linkname = type, mode, link
    i.size = len(data) if type == tarfile.REGTYPE else 0
    return (i, data if type == tarfile.REGTYPE else None)


def payload(name, extra=(), file_map=files, drop=(), compress=None):
    m = dumps(manifest(file_map)).encode()
    entries = [entry("manifest.json", m)] + list(extra)
    entries += [entry(p, v) for p, v in sorted(file_map.items()) if p not in drop]
    put("payload", name, tar_bytes(entries, compress))


first = sorted(files)[0]
payload("valid.tar")
payload("valid.tar.gz", compress="gz")
payload("valid.tar.blocks", compress="blocks")
payload("hostile_setuid.tar.blocks", [entry(first, files[first], mode=0o4755)], drop=[first], compress="blocks")
payload("hostile_symlink.tar", [entry(first, type=tarfile.SYMTYPE, link="/etc/passwd")], drop=[first])
payload("hostile_hardlink.tar", [entry(first, type=tarfile.LNKTYPE, link="/etc/passwd")], drop=[first])
payload("hostile_dotdot.tar", [entry("../../evil.so", b"x")])
payload("hostile_absolute.tar", [entry("/tmp/skb_evil.so", b"x")])
payload("hostile_chardev.tar", [entry(first, type=tarfile.CHRTYPE)], drop=[first])
payload("hostile_blockdev.tar", [entry(first, type=tarfile.BLKTYPE)], drop=[first])
payload("hostile_fifo.tar", [entry(first, type=tarfile.FIFOTYPE)], drop=[first])
payload("hostile_folder.tar", [entry("host", type=tarfile.DIRTYPE)])
payload("hostile_setuid.tar", [entry(first, files[first], mode=0o4755)], drop=[first])
payload("mode_world_writable.tar", [entry(first, files[first], mode=0o666)], drop=[first])
payload("hostile_unlisted.tar", [entry("host/Add/extra.so", b"x")])
payload("hostile_wrong_bytes.tar", [entry(first, b"y" * len(files[first]))], drop=[first])
payload("hostile_missing.tar", drop=list(files))
payload("hostile_duplicate.tar", [entry(first, files[first])])
evil_manifest = manifest({"../../../etc/cron.d/x": b"x"})
put("payload", "hostile_manifest_dotdot.tar",
    tar_bytes([entry("manifest.json", dumps(evil_manifest).encode()), entry("../../../etc/cron.d/x", b"x")]))
put("payload", "hostile_no_manifest.tar", tar_bytes([entry(first, files[first])]))
# a delta package: its first file is its base's (listed, not carried, not in the payload)
delta = manifest(files)
delta["base"] = "static_kernel_20230101000000"
delta["files"][0]["carried"] = False
put("payload", "valid_delta.tar",
    tar_bytes([entry("manifest.json", dumps(delta).encode())] + [entry(p, v) for p, v in sorted(files.items()) if p != first]))
put("payload", "hostile_delta_carries_base_file.tar",
    tar_bytes([entry("manifest.json", dumps(delta).encode())] + [entry(p, v) for p, v in sorted(files.items())]))
put("payload", "hostile_not_an_archive", b"definitely not gzip" * 20)
put("payload", "hostile_truncated.tar.gz", gzip.compress(tar_bytes([entry("manifest.json", b"{}")]), mtime=0)[:40])
valid_raw = tar_bytes([entry("manifest.json", dumps(manifest(files)).encode())] + [entry(p, v) for p, v in sorted(files.items())])
put("payload", "hostile_block_past_end.tar.blocks", gzip_blocks(valid_raw, 700, extra_length=9))
put("payload", "hostile_block_then_garbage.tar.blocks", gzip_blocks(valid_raw, 700) + b"not a block")

# --- installed manifests and config.ini -----------------------------------------------------
good = manifest(files)
put("installed_manifest", "valid.json", dumps(good))
put("installed_manifest", "config.ini", "[static_kernel]\nload_priority=%s,static_kernel_20230101000000\n" % PKG)
put("installed_manifest", "hostile_config_ini.ini", "load_priority=../../etc,static_kernel_$(id),,static_kernel_a\n")


def bad_manifest(name, change):
    m = copy.deepcopy(good)
    change(m)
    put("installed_manifest", "hostile_%s.json" % name, dumps(m))


bad_manifest("package_path", lambda m: m.__setitem__("package", "../static_kernel_x"))
bad_manifest("file_dotdot", lambda m: m["files"][0].__setitem__("path", "host/../../x"))
bad_manifest("file_absolute", lambda m: m["files"][0].__setitem__("path", "/etc/passwd"))
bad_manifest("kernel_bin_unlisted", lambda m: m["kernels"][0].__setitem__("bin", "host/Other.so"))
bad_manifest("size_huge", lambda m: m["files"][0].__setitem__("size", 2 ** 70))
bad_manifest("sha_short", lambda m: m["files"][0].__setitem__("sha256", "abc"))
bad_manifest("soc_path", lambda m: m.__setitem__("soc", "../x"))
put("installed_manifest", "hostile_nesting.json", deep(100000))
put("installed_manifest", "valid_delta.json", dumps(delta))
bad_manifest("base_self", lambda m: (m.__setitem__("base", m["package"]), m["files"][0].__setitem__("carried", False)))
bad_manifest("base_path", lambda m: (m.__setitem__("base", "../static_kernel_x"), m["files"][0].__setitem__("carried", False)))
bad_manifest("not_carried_without_base", lambda m: m["files"][0].__setitem__("carried", False))
bad_manifest("carried_not_bool", lambda m: m["files"][0].__setitem__("carried", "no"))
LAUNCH = {"device": "cuda", "grid": 4, "block": 256, "max_grid": 4096}
put("installed_manifest", "valid_cuda_launch.json", dumps(dict(good, kernels=[dict(good["kernels"][0], launch=LAUNCH)])))
bad_manifest("launch_grid_zero", lambda m: m["kernels"][0].__setitem__("launch", dict(LAUNCH, grid=0)))
bad_manifest("launch_block_huge", lambda m: m["kernels"][0].__setitem__("launch", dict(LAUNCH, block=2 ** 33)))
bad_manifest("launch_not_object", lambda m: m["kernels"][0].__setitem__("launch", [1, 2]))

# --- operator library index (config/<soc>/binary_info_config.json) --------------------------
kernel = {"binDesc": {"blockDim": 1, "kernelName": "skb_kernel", "workspace": []},
          "binPath": PKG + "/" + first, "coreType": 0, "kernelName": "Add_0123", "package": PKG,
          "sha256": hashlib.sha256(files[first]).hexdigest(), "skbKey": KEY,
          "simplifiedKey": "Add/d=0,p=1/0,2,(10)/0,2,(10)/0,2,(10)", "variant": "static"}
index = {"Add": {"dynamicRankSupport": True, "simplifiedKeyMode": 0, "staticList": [kernel],
                 "skbList": [dict(kernel, variant="dynamic", skbKey="b" * 64)]}}
put("index", "valid.json", dumps(index))
put("index", "empty.json", "{}")


def bad_index(name, change):
    i = copy.deepcopy(index)
    change(i["Add"]["staticList"][0])
    put("index", "hostile_%s.json" % name, dumps(i))


bad_index("bin_dotdot", lambda k: k.__setitem__("binPath", PKG + "/../../../etc/passwd"))
bad_index("bin_absolute", lambda k: k.__setitem__("binPath", "/etc/passwd"))
bad_index("bin_outside_package", lambda k: k.__setitem__("binPath", "config/host/x.so"))
bad_index("variant", lambda k: k.__setitem__("variant", "evil"))
bad_index("sha_short", lambda k: k.__setitem__("sha256", "ab"))
bad_index("launch_block_not_warps", lambda k: k.__setitem__("launch", {"device": "cuda", "grid": 1, "block": 33,
                                                                        "max_grid": 1}))
bad_index("launch_grid_over_max", lambda k: k.__setitem__("launch", {"device": "cuda", "grid": 9, "block": 64,
                                                                       "max_grid": 8}))
put("index", "hostile_half_written.json", dumps(index)[: len(dumps(index)) // 2])
put("index", "hostile_nesting.json", deep(100000))

# --- kernel store entries (zstd tars of build.json, kernel, sidecar.json) ---------------------
STEP = {"name": "Relu_0123456789abcdef0123456789abcdef", "toolchain": "4e0c2d4f"}


def store_entry(members, compress=True):
    raw = tar_bytes([entry(n, d) for n, d in members])
    if not compress:
        return raw
    import subprocess
    return subprocess.run(["zstd", "-q", "-c", "-3", "--no-check"], input=raw, capture_output=True, check=True).stdout


def build_record(binary, **change):
    r = {"binFileName": STEP["name"] + ".so", "binFileSuffix": ".so", "kernelName": "skb_kernel",
         "name": STEP["name"], "op_type": "Relu", "sha256": hashlib.sha256(binary).hexdigest(),
         "size": len(binary), "toolchain": STEP["toolchain"], "variant": "static"}
    r.update(change)
    return (json.dumps(r, indent=2, sort_keys=True) + "\n").encode()


kbin = b"\x7fELF kernel bytes"
side = b'{"blockDim": 24, "kernelName": "relu_mix", "workspace": [32]}'
side_record = json.loads(build_record(kbin, kernelName="relu_mix"))
side_record["binDesc"] = {"blockDim": 24, "kernelName": "relu_mix", "workspace": [32]}
side_record["sidecar"] = {"file": STEP["name"] + ".sidecar.json", "sha256": hashlib.sha256(side).hexdigest(),
                          "size": len(side)}
valid_entry = store_entry([("build.json", build_record(kbin)), ("kernel", kbin)])
put("store_entry", "valid.tar.zst", valid_entry)
put("store_entry", "valid.tar", store_entry([("build.json", build_record(kbin)), ("kernel", kbin)], compress=False))
put("store_entry", "valid_sidecar.tar.zst", store_entry([("build.json", (json.dumps(side_record, indent=2) + "\n").encode()),
                                                         ("kernel", kbin), ("sidecar.json", side)]))
put("store_entry", "hostile_truncated.tar.zst", valid_entry[: len(valid_entry) // 2])
put("store_entry", "hostile_foreign_toolchain.tar.zst",
    store_entry([("build.json", build_record(kbin, toolchain="other")), ("kernel", kbin)]))
put("store_entry", "hostile_swapped_binary.tar.zst",
    store_entry([("build.json", build_record(kbin)), ("kernel", kbin[:-1] + b"X")]))
put("store_entry", "hostile_other_kernel.tar.zst",
    store_entry([("build.json", build_record(kbin, name="Relu_" + "f" * 32)), ("kernel", kbin)]))
put("store_entry", "hostile_extra_member.tar.zst",
    store_entry([("build.json", build_record(kbin)), ("kernel", kbin), ("../evil", b"x")]))
put("store_entry", "hostile_member_twice.tar.zst",
    store_entry([("build.json", build_record(kbin)), ("kernel", kbin), ("kernel", b"other")]))
put("store_entry", "hostile_no_binary.tar.zst", store_entry([("build.json", build_record(kbin))]))
put("store_entry", "hostile_sidecar_mismatch.tar.zst",
    store_entry([("build.json", (json.dumps(side_record, indent=2) + "\n").encode()), ("kernel", kbin),
                 ("sidecar.json", side.replace(b"24", b"25"))]))
put("store_entry", "hostile_record_types.tar.zst",
    store_entry([("build.json", b'{"toolchain": [1], "sha256": {"a": 1}, "size": -1}'), ("kernel", kbin)]))

# key.json of an entry: the kernel's signature and its build's key factors, whose identity is the
# SHA-256 of the shared factors as nlohmann dumps them (compact, keys sorted).
def key_factors(flags):
    shared = {"command": ["{compiler}", "{flags}", "{defines}", "-c", "-o", "{obj}", "{src}"],
              "compiler": "c++ (Debian 12.2.0-14) 12.2.0\n", "dynamic_entry": "skb_kernel_dynamic",
              "entry": "skb_kernel", "flags": flags, "headers": {"skb_kernel.h": "a" * 64},
              "link": [], "list_separator": ",", "suffix": ".so"}
    dump = lambda v: json.dumps(v, sort_keys=True, separators=(",", ":"))
    factors = {k: {"value": v, "sha256": hashlib.sha256(dump(v).encode()).hexdigest()}
               for k, v in shared.items() if k != "headers"}
    return {"format": 1, "identity": hashlib.sha256(dump(shared).encode()).hexdigest(), "factors": factors,
            "headers": shared["headers"], "templates": {"Relu": {"file": "unary.cc", "sha256": "b" * 64}}}


signature = {"op_type": "Relu", "inputs": [{"dtype": "float", "format": "ND", "shape": [4]}]}
good_key = json.dumps({"signature": signature, "factors": key_factors(["-O3", "-fPIC"])}).encode()
put("store_entry", "valid_key.tar.zst", store_entry([("build.json", build_record(kbin)), ("kernel", kbin),
                                                     ("key.json", good_key)]))
# An entry a hit may use, whose key.json explain refuses (the entry is not less usable for it).
bad = key_factors(["-O3"])
bad["factors"]["flags"]["value"] = ["-O0"]  # the factors are not the identity's
put("store_entry", "valid_entry_key_not_its_identity.tar.zst",
    store_entry([("build.json", build_record(kbin)), ("kernel", kbin),
                 ("key.json", json.dumps({"signature": signature, "factors": bad}).encode())]))
put("store_entry", "valid_entry_key_mistyped.tar.zst",
    store_entry([("build.json", build_record(kbin)), ("kernel", kbin),
                 ("key.json", b'{"signature": 1, "factors": {"format": 1, "factors": {"flags": {"value": [1]}}}}')]))

# --- trust: a trust file, "--", a signature line over "skb-fuzz-message\n" ------------------------
# Signed with fixed Ed25519 seeds through the openssl command (Ed25519 is deterministic).
def ed25519(seed_byte, message):
    import base64, subprocess, tempfile
    with tempfile.TemporaryDirectory() as d:
        key = os.path.join(d, "key.der")
        open(key, "wb").write(bytes.fromhex("302e020100300506032b657004220420") + bytes([seed_byte]) * 32)
        pub = subprocess.run(["openssl", "pkey", "-inform", "DER", "-in", key, "-pubout", "-outform", "DER"],
                             capture_output=True, check=True).stdout[-32:]
        msg = os.path.join(d, "msg")
        open(msg, "wb").write(message)
        sig = subprocess.run(["openssl", "pkeyutl", "-sign", "-inkey", key, "-keyform", "DER", "-rawin", "-in", msg],
                             capture_output=True, check=True).stdout
    return base64.b64encode(pub).decode(), base64.b64encode(sig).decode()


msg = b"skb-fuzz-message\n"
ci_pub, ci_sig = ed25519(1, msg)
dev_pub, dev_sig = ed25519(2, msg)
ci_line, dev_line = "ci-1:" + ci_pub, "dev:" + dev_pub
put("trust", "valid_one_key", "%s\n--\nci-1:%s\n" % (ci_line, ci_sig))
put("trust", "valid_rotation", "# CI keys\n\n%s\n  %s  \n--\ndev:%s\n" % (ci_line, dev_line, dev_sig))
put("trust", "unsigned_file", "%s\n" % ci_line)  # a trust file that reads, and nothing it signs
flipped = bytearray(base64.b64decode(ci_sig)); flipped[3] ^= 1
put("trust", "hostile_flipped_signature", "%s\n--\nci-1:%s\n" % (ci_line, base64.b64encode(bytes(flipped)).decode()))
put("trust", "hostile_truncated_signature", "%s\n--\nci-1:%s\n" % (ci_line, ci_sig[:40]))
put("trust", "hostile_untrusted_key", "%s\n--\ndev:%s\n" % (ci_line, dev_sig))
put("trust", "hostile_lifted_name", "%s\n--\nci-1:%s\n" % (ci_line, dev_sig))
put("trust", "hostile_same_name_two_keys", "ci-1:%s\nci-1:%s\n--\nci-1:%s\n" % (ci_pub, dev_pub, ci_sig))
put("trust", "hostile_short_key", "ci-1:AAAA\n--\nci-1:%s\n" % ci_sig)
put("trust", "hostile_bad_name", "ci 1:%s\n--\nci 1:%s\n" % (ci_pub, ci_sig))
put("trust", "hostile_no_newline_signature", "%s\n--\nci-1:%s" % (ci_line, ci_sig))
print("corpus written to", out)
