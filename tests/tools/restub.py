#!/usr/bin/env python3
"""Rebuilds a .run around another payload, with a correct header, offsets and checksums, so that
tests can hand the installer payloads that only its own checks can refuse.
usage: restub.py IN.run PAYLOAD OUT.run"""
import hashlib, re, sys

data = open(sys.argv[1], "rb").read()
payload = open(sys.argv[2], "rb").read()
head = data[: int(re.search(rb"^skb_header_len=(\d+)$", data, re.M).group(1))].decode()
num = lambda k: int(re.search(r"^%s=(\d+)$" % k, head, re.M).group(1))
installer = data[num("skb_installer_offset"): num("skb_installer_offset") + num("skb_installer_size")]
header_len = len(head)
for _ in range(8):
    ioff = header_len + 65
    values = {"skb_header_len": header_len, "skb_installer_offset": ioff, "skb_payload_offset": ioff + len(installer),
              "skb_payload_size": len(payload), "skb_payload_sha256": hashlib.sha256(payload).hexdigest()}
    text = head
    for k, v in values.items():
        text = re.sub(r"^%s=.*$" % k, "%s=%s" % (k, v), text, flags=re.M)
    if len(text) == header_len:
        break
    header_len = len(text)
out = text.encode() + hashlib.sha256(text.encode()).hexdigest().encode() + b"\n" + installer + payload
open(sys.argv[3], "wb").write(out)
