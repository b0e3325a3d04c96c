"""Checks that a delta package carries exactly what its base lacks, from the bytes of the .run files
(what anyone could read of them): each file its manifest lists is carried when no file of the base
has its bytes (sha256), and left out when one has; its payload holds the carried files, with those
bytes; it leaves at least one file out. --lists FULL.run: its manifest lists FULL's files (the
package it is a delta of). --same-payload OTHER.run: OTHER's payload holds the same files (a
self-contained delta of the same kernels). Prints how many files it carries; exit 1 and why
otherwise.

usage: check_delta.py BASE.run DELTA.run [--lists FULL.run] [--same-payload OTHER.run]"""
import argparse, gzip, hashlib, io, json, re, sys, tarfile


def payload(path):
    """(manifest, {path: bytes}) of a .run's payload."""
    run = open(path, "rb").read()
    field = lambda name: int(re.search(rb"^" + name + rb"=(\d+)$", run, re.M).group(1))
    offset, size = field(b"skb_payload_offset"), field(b"skb_payload_size")
    tar = tarfile.open(fileobj=io.BytesIO(gzip.decompress(run[offset:offset + size])))
    files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    return json.loads(files.pop("manifest.json")), files


def main():
    args = argparse.ArgumentParser()
    args.add_argument("base")
    args.add_argument("delta")
    args.add_argument("--lists")
    args.add_argument("--same-payload")
    a = args.parse_args()
    base, _ = payload(a.base)
    manifest, files = payload(a.delta)
    listed = lambda m: sorted((f["path"], f["sha256"]) for f in m["files"])
    in_base = {f["sha256"] for f in base["files"]}
    carried = {}
    for f in manifest["files"]:
        is_carried = f.get("carried", True)
        if is_carried == (f["sha256"] in in_base):
            sys.exit("%s: carried is %s, and the base %s a file of its bytes" %
                     (f["path"], is_carried, "has" if f["sha256"] in in_base else "has no"))
        if is_carried:
            carried[f["path"]] = f["sha256"]
    held = {p: hashlib.sha256(b).hexdigest() for p, b in files.items()}
    if held != carried:
        sys.exit("the payload holds %s, not the carried files %s" % (sorted(held), sorted(carried)))
    if len(carried) == len(manifest["files"]):
        sys.exit("the delta leaves no file out")
    if a.lists and listed(payload(a.lists)[0]) != listed(manifest):
        sys.exit("the delta's manifest does not list the files of " + a.lists)
    if a.same_payload and payload(a.same_payload)[1].keys() != files.keys():
        sys.exit("the payload of %s holds other files" % a.same_payload)
    print("    the delta carries %d of its %d files: those the base lacks" % (len(carried), len(manifest["files"])))


main()
