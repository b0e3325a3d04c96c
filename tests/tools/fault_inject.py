#!/usr/bin/env python3
"""Fails each file system call of an installer command in turn, with strace's fault injection.

usage: fault_inject.py SCENARIO_JSON

The scenario (JSON): {"name", "state": folder holding the install path before the command,
"root": the install path's ai_core folder relative to it, "cmd": argv, with {lib} for the
install path, "samples": invocations tried per system call}, and optionally "at": where each
copy of the state goes (for a state that names its own path), "follow": false to fail the
command's own calls only (not its children's), "check": a command that must pass after each
fault (in place of the library reader), "rerun": the command run again (default: cmd),
"compare": "bytes" (default) or "paths" (what the end state is compared by), "under": the
folders of the state compared (default: all of it). For each system
call the command
makes (counted once under strace), a spread sample of its invocations is failed once with an
error (ENOSPC for writes, EIO otherwise) and once with SIGKILL, each on a fresh copy of the
state. After each:
- a reader of the library sees indexes that parse, whose every binPath has the bytes it names,
  and a config.ini that lists only installed packages;
- a run that did not do all its work exited non-zero with an error; one that exited 0 made
  exactly the library a run without any fault makes;
- the same command run again without a fault exits 0 and ends in exactly that library, byte for
  byte, with no temporary file left.
Prints one line of figures; exits 1 with every failure listed.
"""
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

# The file system calls an install, an uninstall and an upgrade make.
SYSCALLS = [
    "openat", "open", "read", "pread64", "write", "pwrite64", "writev", "rename", "renameat", "renameat2",
    "link", "linkat", "mkdir", "mkdirat", "unlink", "unlinkat", "rmdir", "fsync", "fdatasync", "syncfs",
    "sync_file_range", "flock", "getdents64", "newfstatat", "statx", "lstat", "stat", "fstatfs", "statfs",
    "ftruncate", "fallocate", "fchmod", "fchmodat", "chmod", "copy_file_range", "readlink", "readlinkat",
]
WRITES = {"write", "pwrite64", "writev", "ftruncate", "fallocate", "copy_file_range"}
TEMP = re.compile(r"\.(tmp|staging|trash)\.|\.trash\.|^\.staging\.")


def snapshot(top, by="bytes", under=(".",)):
    """Every path under top (in its folders `under`): its kind, and a file's mode and sha256 (by
    bytes), or nothing (by paths)."""
    out = {}
    walk = [w for u in under for w in os.walk(os.path.join(top, u))]
    for d, dirs, files in walk:
        for name in dirs + files:
            p = os.path.join(d, name)
            rel = os.path.normpath(os.path.relpath(p, top))
            st = os.lstat(p)
            if os.path.islink(p):
                out[rel] = ("link", os.readlink(p))
            elif os.path.isdir(p):
                out[rel] = ("dir", st.st_mode & 0o7777)
            elif by == "paths":
                out[rel] = ("file",)
            else:
                with open(p, "rb") as f:
                    out[rel] = ("file", st.st_mode & 0o7777, hashlib.sha256(f.read()).hexdigest())
    return out


def diff(got, want):
    extra = sorted(set(got) - set(want))
    missing = sorted(set(want) - set(got))
    changed = sorted(k for k in set(got) & set(want) if got[k] != want[k])
    parts = []
    for what, names in (("extra", extra), ("missing", missing), ("changed", changed)):
        if names:
            parts.append("%s %s%s" % (what, ", ".join(names[:3]), " ..." if len(names) > 3 else ""))
    return "; ".join(parts)


def reader_check(root):
    """What a reader of the library sees is whole: None, or what is wrong."""
    if not os.path.isdir(root):
        return None
    try:
        order = []
        ini = os.path.join(root, "config.ini")
        if os.path.exists(ini):
            for line in open(ini):
                if line.startswith("load_priority="):
                    order = [p for p in line.strip().split("=", 1)[1].split(",") if p]
        for p in order:
            if not os.path.isfile(os.path.join(root, p, "manifest.json")):
                return "config.ini lists %s, which is not installed" % p
        cfg = os.path.join(root, "config")
        for soc in sorted(os.listdir(cfg)) if os.path.isdir(cfg) else []:
            path = os.path.join(cfg, soc, "binary_info_config.json")
            if not os.path.isfile(path):
                continue
            index = json.load(open(path))
            for op, entry in index.items():
                for k in entry["staticList"] + entry.get("skbList", []):
                    f = os.path.join(root, k["binPath"])
                    if not os.path.isfile(f):
                        return "%s lists %s, which is missing" % (path, k["binPath"])
                    if hashlib.sha256(open(f, "rb").read()).hexdigest() != k["sha256"]:
                        return "%s: %s does not have the bytes it names" % (path, k["binPath"])
    except (OSError, ValueError, KeyError, TypeError) as e:
        return "unreadable: %s" % e
    return None


def run(cmd, lib, strace=None, follow=True):
    argv = [a.replace("{lib}", lib) for a in cmd]
    if strace:
        argv = ["strace", "-qq"] + (["-f"] if follow else []) + strace + ["--"] + argv
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, errors="replace",
                       timeout=300, cwd=lib)
    return p.returncode, p.stderr


def check(sc, lib):
    """None when a reader sees a whole state after a fault, else what is wrong."""
    if "check" not in sc:
        return reader_check(os.path.join(lib, sc["root"]))
    rc, err = run(sc["check"], lib)
    return None if rc == 0 else "%s (exit %d)" % (err.strip()[-300:], rc)


def counts(sc, work):
    """The most invocations of each system call that one thread of the command makes."""
    lib = fresh_copy(sc, work, "count")
    log = os.path.join(work, "count.strace")
    rc, err = run(sc["cmd"], lib, ["-o", log, "-e", "trace=" + ",".join(SYSCALLS)], sc.get("follow", True))
    if rc != 0:
        sys.exit("the command failed under strace without a fault: " + err)
    per = {}
    for line in open(log):
        m = re.match(r"(\d+\s+)?(?:<\.\.\. )?(\w+)[( ]", line)  # a pid first with -f
        if m and m.group(2) in SYSCALLS and "resumed>" not in line:
            per[(m.group(1), m.group(2))] = per.get((m.group(1), m.group(2)), 0) + 1
    most = {}
    for (_, name), n in per.items():
        most[name] = max(most.get(name, 0), n)
    if not most:
        sys.exit("%s: no file system call seen under strace: nothing would be tested" % sc["name"])
    return most


def fresh_copy(sc, work, name):
    lib = sc.get("at") or os.path.join(work, name)
    if os.path.exists(lib):
        shutil.rmtree(lib)
    # cp -a, not shutil.copytree: the library's hard links (its shared kernels, its file store's
    # names) are part of its state, and a copy that splits them is another library.
    subprocess.run(["cp", "-a", sc["state"], lib], check=True)
    return lib


def spread(n, k):
    """k invocation numbers spread over 1..n, the first and the last included (one: the middle)."""
    if n <= k:
        return list(range(1, n + 1))
    if k == 1:
        return [1 + (n - 1) // 2]
    return sorted({1 + round(i * (n - 1) / (k - 1)) for i in range(k)})


def main():
    sc = json.load(open(sys.argv[1]))
    cmd, samples = sc["cmd"], int(sc["samples"])
    rerun, by, follow = sc.get("rerun", cmd), sc.get("compare", "bytes"), sc.get("follow", True)
    work = tempfile.mkdtemp(prefix="faults.", dir=os.environ.get("TMPDIR"))
    ref = fresh_copy(sc, work, "reference")
    rc, err = run(cmd, ref)
    if rc == 0 and rerun != cmd:
        rc, err = run(rerun, ref)
    if rc != 0:
        sys.exit("%s: the command failed without a fault: %s" % (sc["name"], err))
    under = sc.get("under", ["."])
    want = snapshot(ref, by, under)
    most = counts(sc, work)
    failures, tried, refused, absorbed, killed = [], 0, 0, 0, 0
    for name in sorted(most):
        for n in spread(most[name], samples):
            for kind in ("error", "kill"):
                tried += 1
                errno = "ENOSPC" if name in WRITES else "EIO"
                what = "%s #%d %s" % (name, n, errno if kind == "error" else "SIGKILL")
                inject = "%s:%s:when=%d" % (name, "error=" + errno if kind == "error" else "signal=SIGKILL", n)
                lib = fresh_copy(sc, work, "trial")
                rc, err = run(cmd, lib, ["-o", "/dev/null", "-e", "trace=" + name, "-e", "inject=" + inject], follow)
                bad = check(sc, lib)
                if bad:
                    failures.append("%s: a reader sees a broken state: %s" % (what, bad))
                if rc == 0:
                    absorbed += 1
                    d = "" if rerun != cmd else diff(snapshot(lib, by, under), want)
                    if d:
                        failures.append("%s: exit 0, but the library is not what the command makes (%s)" % (what, d))
                elif rc < 0:
                    killed += 1
                else:
                    refused += 1
                    if "error" not in err.lower():  # ours ("error: ..."), or the dynamic loader's
                        failures.append("%s: exit %d without an error message: %s" % (what, rc, err.strip()[-300:]))
                rc, err = run(rerun, lib)
                if rc != 0:
                    failures.append("%s: the same command run again failed (%d): %s" % (what, rc, err.strip()[-300:]))
                    continue
                got = snapshot(lib, by, under)
                temps = [k for k in got if TEMP.search(os.path.basename(k))]
                if temps:
                    failures.append("%s: temporary files left after the next run: %s" % (what, ", ".join(temps[:3])))
                d = diff(got, want)
                if d:
                    failures.append("%s: after the next run the library differs from a run without fault (%s)" % (what, d))
    shutil.rmtree(work, ignore_errors=True)
    calls = sum(most.values())
    print("    %s: %d system calls of %d kinds; %d faults tried: %d refused with an error, %d killed, %d absorbed "
          "(exit 0, the work complete); %d failures" % (sc["name"], calls, len(most), tried, refused, killed,
                                                               absorbed, len(failures)))
    for f in failures:
        print("      " + f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
