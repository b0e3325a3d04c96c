#!/usr/bin/env python3
"""The manual (doc/, README.md) against the programs it describes. One check a run:

  options   every long option that each program's --help lists (skb and each of its subcommands,
            skb-generate, skb-package, skb-replay, skb-install: the options of every .run) is in
            the option table its reference page ties to that command with a comment line
            `<!-- options: COMMAND -->`, and every option such a table lists is in that --help.
  examples  the shell blocks of the tutorial and how-to guides fenced as ```sh {run} are run in
            order, page by page, with the build's programs first on PATH, in a scratch folder
            that has the source tree's examples/.
  figures   a paragraph or table row that quotes a measured figure (a time, or a ratio to a
            baseline) names the command that measures it or links to the measurements page; and
            every relative link of the manual leads to a file (and heading) that exists.

usage: check_docs.py options|examples|figures --source SRC [--build BUILD] [--scratch DIR]"""
import argparse, glob, os, re, shutil, subprocess, sys

# The programs, and where a build folder has them.
PROGRAMS = {"skb-generate": "bin", "skb-package": "bin", "skb-replay": "bin", "skb": "bin",
            "skb-install": "libexec/skb"}
IGNORED = {"--help"}  # every program has it; the pages say so once


def pages(source, pattern):
    return sorted(glob.glob(os.path.join(source, pattern), recursive=True))


def read(path):
    with open(path, encoding="utf-8") as f:
        return f.read()


# ---- options ---------------------------------------------------------------------------------

def run_help(build, command):
    words = command.split()
    exe = os.path.join(build, PROGRAMS[words[0]], words[0])
    p = subprocess.run([exe] + words[1:] + ["--help"], capture_output=True, text=True, timeout=30)
    if p.returncode != 0:
        raise SystemExit(f"{command} --help: exit status {p.returncode}: {p.stderr.strip()}")
    return p.stdout


def parse_help(text):
    """Long options and subcommand names of a --help text (CLI11's, or the installer's)."""
    options, subcommands, section = set(), [], None
    for line in text.splitlines():
        if not line.strip():
            section = None
            continue
        if not line.startswith(" "):
            head = line.strip().rstrip(":").lower()
            section = head if line.strip().endswith(":") and head in ("options", "subcommands") else None
            continue
        words = line.split()
        if section == "options":
            for w in words:
                if not w.startswith("-"):
                    break
                # CLI11 writes a negated flag's default after it: --no-package{false}
                options.update(re.findall(r"(?:^|,)(--[A-Za-z][A-Za-z0-9_-]*)", w))
        elif section == "subcommands":
            subcommands.append(words[0])
    return options, subcommands


def documented_tables(source):
    """{command: (page, set of long options in the first column of its table)}."""
    tables = {}
    for page in pages(source, "doc/reference/*.md"):
        lines = read(page).splitlines()
        for i, line in enumerate(lines):
            m = re.match(r"<!--\s*options:\s*(.+?)\s*-->", line)
            if not m:
                continue
            opts, j = set(), i + 1
            while j < len(lines) and not lines[j].startswith("|"):
                j += 1
            for row in lines[j + 2:]:  # past the head and the |---| line
                if not row.startswith("|"):
                    break
                first = row.split("|")[1]
                opts.update(re.findall(r"--[A-Za-z][A-Za-z0-9_-]*", first))
            if m.group(1) in tables:
                raise SystemExit(f"{page}: a second option table for `{m.group(1)}`")
            tables[m.group(1)] = (os.path.relpath(page, source), opts)
    return tables


def check_options(args):
    tables = documented_tables(args.source)
    problems, seen = [], []
    todo = list(PROGRAMS)
    while todo:
        command = todo.pop(0)
        seen.append(command)
        options, subcommands = parse_help(run_help(args.build, command))
        todo += [f"{command} {s}" for s in subcommands]
        listed = options - IGNORED
        if command not in tables:
            if listed:
                problems.append(f"`{command} --help` lists {', '.join(sorted(listed))}, and no page of "
                                f"doc/reference has `<!-- options: {command} -->`")
            continue
        page, documented = tables[command]
        for o in sorted(listed - documented):
            problems.append(f"{page}: `{command}` has {o} (its --help lists it); the table lacks it")
        for o in sorted(documented - IGNORED - options):
            problems.append(f"{page}: the table of `{command}` documents {o}, which its --help does not list")
        print(f"{command}: {len(listed)} options in --help, {len(documented - IGNORED)} in {page}")
    for command in sorted(set(tables) - set(seen)):
        problems.append(f"{tables[command][0]}: a table for `{command}`, which is no command of skb")
    return problems


# ---- examples --------------------------------------------------------------------------------

def runnable_blocks(text):
    return re.findall(r"^```sh \{run\}\n(.*?)^```", text, flags=re.M | re.S)


def check_examples(args):
    problems, count = [], 0
    scratch = os.path.abspath(args.scratch)
    shutil.rmtree(scratch, ignore_errors=True)
    for page in pages(args.source, "doc/tutorial.md") + pages(args.source, "doc/howto/*.md"):
        blocks = runnable_blocks(read(page))
        if not blocks:
            continue
        name = os.path.relpath(page, args.source)
        work = os.path.join(scratch, os.path.splitext(name.replace("/", "_"))[0])
        os.makedirs(os.path.join(work, "home"))
        os.symlink(os.path.join(args.source, "examples"), os.path.join(work, "examples"))
        env = dict(os.environ, PATH=os.path.join(args.build, "bin") + os.pathsep + os.environ["PATH"],
                   HOME=os.path.join(work, "home"), XDG_CONFIG_HOME=os.path.join(work, "home", ".config"),
                   XDG_CACHE_HOME=os.path.join(work, "home", ".cache"), SKB_CACHE_DIR="off")
        for k in ("SKB_CACHE", "SKB_SIGNING_KEY", "SKB_TRUSTED_KEYS", "SKB_INSTALL_PATH", "SKB_TOOLCHAIN"):
            env.pop(k, None)
        for block in blocks:
            count += 1
            print(f"== {name}:\n{block.rstrip()}")
            try:
                p = subprocess.run(["bash", "-euo", "pipefail", "-c", block], cwd=work, env=env,
                                   capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                problems.append(f"{name}: this block ran past 120 s:\n{block}")
                continue
            print(p.stdout[-2000:] + p.stderr[-1000:], end="")
            if p.returncode != 0:
                problems.append(f"{name}: exit status {p.returncode} of:\n{block}{p.stderr[-2000:]}")
    if count == 0:
        problems.append("no ```sh {run} block in doc/tutorial.md or doc/howto/")
    print(f"{count} runnable blocks run")
    return problems


# ---- figures and links -----------------------------------------------------------------------

MEASUREMENTS = "doc/explanation/measurements.md"
# A measured figure: a ratio to a baseline (0.31x), a time that something took, or a size.
FIGURE = re.compile(r"\b\d+(?:\.\d+)?x\b|\b\d+(?:[.,]\d+)?\s*(?:ms|µs|us|min|minutes|s|seconds|bytes|KiB|MiB|GiB|MB|GB)\b")
# Figures that are settings, not measurements: defaults, bounds, intervals.
SETTING = re.compile(r"(?:(?:default|every|at most|at least|bound|timeout|lease|wait|waits|after|within|"
                     r"passes|connecting:|=|for|of about|up to|budget|blocks of|cap|capped)\s*\(?\s*|`)$", re.I)
# What names the command that measures a figure.
MEASURED_BY = re.compile(r"measurements\.md|bench_\w+\.py|scripts/bench\.sh|skb_record_bench|skb_kernel_bench|"
                         r"skb bench|gpu-check\.sh|scripts/test\.sh|scripts/setup\.sh|ctest|cuda_kernel_bench")


def units(text):
    """Paragraphs, table rows and the comments of code blocks, with their first line number."""
    out, para, start, code = [], [], 0, False
    for n, line in enumerate(text.splitlines(), 1):
        if line.startswith("```"):
            code = not code
            if para:
                out.append((start, " ".join(para)))
                para = []
            continue
        if code:
            if "#" in line:  # a figure in a command's comment: the page must say how it was measured
                out.append((-n, line[line.index("#"):]))
            continue
        if line.startswith("|") or not line.strip() or line.startswith("#"):
            if para:
                out.append((start, " ".join(para)))
                para = []
            if line.startswith("|"):
                out.append((n, line))
            continue
        if not para:
            start = n
        para.append(line)
    if para:
        out.append((start, " ".join(para)))
    return out


def measured_figures(text):
    found = []
    for m in FIGURE.finditer(text):
        if SETTING.search(text[max(0, m.start() - 24):m.start()]):
            continue
        found.append(m.group(0))
    return found


def slug(heading):
    s = heading.strip().lower()
    s = re.sub(r"[^\w\- ]", "", s.replace("`", ""))
    return s.replace(" ", "-")


def check_figures(args):
    problems, quoted = [], 0
    docs = [os.path.join(args.source, "README.md")] + pages(args.source, "doc/**/*.md")
    for page in docs:
        name = os.path.relpath(page, args.source)
        text = read(page)
        if name != MEASUREMENTS:
            for line, unit in units(text):
                figures = measured_figures(unit)
                if not figures:
                    continue
                quoted += 1
                if not MEASURED_BY.search(unit if line > 0 else text):
                    problems.append(f"{name}:{abs(line)}: quotes {', '.join(figures)} without naming the command "
                                    f"that measures it or linking to {MEASUREMENTS}")
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):
                continue
            path, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
            if not os.path.exists(dest):
                problems.append(f"{name}: link to {target}: no such file")
            elif anchor and dest.endswith(".md"):
                heads = {slug(h) for h in re.findall(r"^#+\s+(.*)$", read(dest), flags=re.M)}
                if anchor not in heads:
                    problems.append(f"{name}: link to {target}: no such heading")
    print(f"{len(docs)} pages, {quoted} paragraphs quoting measured figures")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\nusage:")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("check", choices=["options", "examples", "figures"])
    ap.add_argument("--source", required=True)
    ap.add_argument("--build", help="build folder (options, examples)")
    ap.add_argument("--scratch", help="scratch folder (examples)")
    args = ap.parse_args()
    args.source = os.path.abspath(args.source)
    if args.check != "figures" and not args.build:
        ap.error(f"{args.check} needs --build")
    if args.check == "examples" and not args.scratch:
        ap.error("examples needs --scratch")
    problems = {"options": check_options, "examples": check_examples, "figures": check_figures}[args.check](args)
    for p in problems:
        print(f"FAIL: {p}", file=sys.stderr)
    print(f"docs.{args.check}: {'ok' if not problems else f'{len(problems)} problems'}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
