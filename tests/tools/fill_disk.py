#!/usr/bin/env python3
"""Fills a filesystem to its last block by writing FILLER.
usage: fill_disk.py FILLER [--leave BYTES]       fill now, then free BYTES again
       fill_disk.py FILLER --when GLOB CMD...    run CMD in its own process group; as soon as
                                                 GLOB matches, stop the group, fill if GLOB
                                                 still matches, and let the group go on.
                                                 Prints CMD's exit code and 1 if the fill
                                                 landed while GLOB matched, 0 if CMD got past
                                                 that moment before it could be stopped"""
import errno, glob, os, signal, subprocess, sys, time


def fill(path):
    with open(path, "ab", buffering=0) as f:
        for size in (1 << 20, 1 << 12, 1):
            chunk = b"\0" * size
            while True:
                try:
                    f.write(chunk)
                except OSError as e:
                    if e.errno not in (errno.ENOSPC, errno.EFBIG):
                        raise
                    break


filler = sys.argv[1]
if len(sys.argv) == 2 or sys.argv[2] == "--leave":
    fill(filler)
    if len(sys.argv) == 4:
        os.truncate(filler, max(0, os.path.getsize(filler) - int(sys.argv[3])))
    sys.exit(0)
assert sys.argv[2] == "--when"
pattern, cmd = sys.argv[3], sys.argv[4:]
p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
while p.poll() is None and not glob.glob(pattern):
    time.sleep(0.001)
landed = 0
if p.poll() is None:
    try:
        os.killpg(p.pid, signal.SIGSTOP)  # the whole group holds still while the disk fills
        if glob.glob(pattern):
            fill(filler)
            landed = 1
    finally:
        os.killpg(p.pid, signal.SIGCONT)
print(p.wait(), landed)
