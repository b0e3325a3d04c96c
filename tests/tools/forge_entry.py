"""Forges a kernel store entry as someone who can write to the store would: the entry's kernel
replaced by another file, its build record's sha256 and size set to the new bytes, packed again
the same way (a zstd-compressed ustar). Its signature member is kept (--signature FILE: replaced
by that file's bytes; --drop-signature: removed).

usage: forge_entry.py ENTRY OUT [--kernel FILE] [--signature FILE | --drop-signature]"""
import argparse, hashlib, io, json, subprocess, tarfile

ap = argparse.ArgumentParser()
ap.add_argument("entry"); ap.add_argument("out")
ap.add_argument("--kernel"); ap.add_argument("--signature"); ap.add_argument("--drop-signature", action="store_true")
a = ap.parse_args()
raw = subprocess.run(["zstd", "-dc", a.entry], check=True, capture_output=True).stdout
members = []
with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
    for m in tar.getmembers():
        members.append((m, tar.extractfile(m).read()))
files = dict((m.name, d) for m, d in members)
if a.kernel:
    files["kernel"] = open(a.kernel, "rb").read()
    record = json.loads(files["build.json"])
    record["sha256"] = hashlib.sha256(files["kernel"]).hexdigest()
    record["size"] = len(files["kernel"])
    files["build.json"] = (json.dumps(record, indent=2) + "\n").encode()
if a.signature:
    files["signature"] = open(a.signature, "rb").read()
out = io.BytesIO()
with tarfile.open(fileobj=out, mode="w", format=tarfile.USTAR_FORMAT) as tar:
    for m, _ in members:
        if m.name == "signature" and a.drop_signature:
            continue
        m.size = len(files[m.name])
        tar.addfile(m, io.BytesIO(files[m.name]))
packed = subprocess.run(["zstd", "-q", "-c"], input=out.getvalue(), check=True, capture_output=True).stdout
open(a.out, "wb").write(packed)
